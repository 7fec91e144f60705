//! The Anonymize screen asks each algorithm what it reads
//! (`Algorithm::needs`, issue 31): the parameters it enables, the ones it
//! dims as "not used", and what a run of it reads from the session. Walks
//! the registry, so an algorithm added there is covered here unchanged.
#![cfg(feature = "tui")]

use crate::common;

use anonlab::algorithms::registry;
use anonlab_tui::{Action, Param, Screen};
use common::screen::{demo, render, text};

#[test]
fn every_algorithm_shows_the_parameters_it_reads_and_dims_the_rest() {
    let mut app = demo(140, 45);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    let all = registry();
    for a in &all {
        // Cycle to the algorithm (the list is the registry's).
        let mut steps = 0;
        while app.anonymize().choice().id != a.id() {
            app.step(&Action::CycleAlgorithm(1));
            steps += 1;
            assert!(steps <= all.len(), "{} is not offered", a.id());
        }
        let needs = a.needs();
        assert_eq!(app.anonymize().choice().needs, needs, "{}", a.id());
        assert_eq!(app.anonymize().choice().name, a.name());

        // The parameters ←/→ can change: k, then p or l.
        let params = app.anonymize().params();
        assert_eq!(params.contains(&Param::P), needs.p, "{}", a.id());
        assert_eq!(
            params.contains(&Param::L),
            needs.l && !needs.p,
            "{}",
            a.id()
        );

        // What a run reads from the session (full-domain's default model
        // is k-anonymity alone: no l, no p).
        let inputs = app.anonymize_inputs();
        assert_eq!(inputs.algorithm, a.id());
        assert_eq!(inputs.l.is_some(), needs.l, "{}", a.id());
        assert_eq!(inputs.p.is_some(), needs.p, "{}", a.id());
        assert_eq!(
            inputs.reads.hierarchies.is_some(),
            needs.hierarchies.read(),
            "{}",
            a.id()
        );
        assert_eq!(
            inputs.reads.settings.is_some(),
            needs.settings,
            "{}",
            a.id()
        );
        assert_eq!(
            inputs.reads.cells.is_some(),
            needs.semi_sensitive,
            "{}",
            a.id()
        );

        // The panel: k and l (or p) are drawn enabled or "(not used)" as
        // read (Construction's panel shows its conditions instead).
        let screen = text(&render(&app));
        let line_of = |name: &str| {
            screen
                .lines()
                .find(|l| {
                    l.trim_start().starts_with(&format!("{name:<10}"))
                        || l.contains(&format!("│{name:<10}"))
                })
                .map(str::to_string)
        };
        if needs.conditions != anonlab::algorithms::Use::Required {
            // The p-sensitive clusterings' panel shows p where the others
            // show l.
            let second = if needs.p { ("p", true) } else { ("l", needs.l) };
            for (name, read) in [("k", needs.k), second] {
                let line = line_of(name)
                    .unwrap_or_else(|| panic!("{}: no {name} line on\n{screen}", a.id()));
                assert_eq!(
                    !line.contains("(not used)"),
                    read,
                    "{}: {name} drawn as {line:?}",
                    a.id()
                );
            }
        }
    }
}
