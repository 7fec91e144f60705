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

/// Full-domain's privacy model says what it reads (`privacy::Model`):
/// `:model NAME VALUE` sets the one parameter the model reads besides l
/// and p, the panel shows it, l is read exactly by the l-diversities, and
/// a value the model does not read, or out of its range, changes nothing.
#[test]
fn the_full_domain_model_says_what_it_reads() {
    use anonlab::privacy::Model;
    let mut app = demo(140, 45);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    while app.anonymize().choice().id != "full-domain" {
        app.step(&Action::CycleAlgorithm(1));
    }
    for name in Model::NAMES {
        common::screen::command(&mut app, &format!("model {name}"));
        let needs = Model::needs_of(name).unwrap();
        let inputs = app.anonymize_inputs();
        assert_eq!(inputs.l.is_some(), needs.l, "{name}");
        assert_eq!(inputs.p.is_some(), needs.p, "{name}");
    }
    common::screen::command(&mut app, "model alpha-k 0.4");
    assert_eq!(app.params().full_domain.model, "alpha-k");
    assert_eq!(app.params().full_domain.alpha, 0.4);
    assert!(
        app.notice().unwrap().contains("(0.4,k)-anonymity"),
        "{:?}",
        app.notice()
    );
    assert!(text(&render(&app)).contains("alpha-k α=0.4"));
    // Out of range: refused, α unchanged.
    common::screen::command(&mut app, "model alpha-k 1.5");
    assert_eq!(app.params().full_domain.alpha, 0.4);
    // l-distinct reads l, set with :l, not a value here.
    common::screen::command(&mut app, "model l-distinct 3");
    assert_eq!(app.params().full_domain.model, "alpha-k");
}
