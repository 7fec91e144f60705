//! The TUI side of adding an algorithm to a registry (issue 31; the
//! library and CLI side is tests/algorithm_registry.rs): a session whose
//! registry holds an algorithm written here offers it on the Anonymize
//! screen, with the parameters its `needs()` reads enabled and the others
//! drawn "(not used)", and runs it to a verified release.
#![cfg(feature = "tui")]

use crate::common;

use anonlab::algorithms::{Needs, Registry};
use anonlab_tui::{Action, App, Param, Screen};
use common::screen::{choose_algorithm, render, run_to_done, text};

#[test]
fn an_added_algorithm_is_offered_with_its_parameters_and_runs() {
    let mut session = anonlab::session::Session::demo().unwrap();
    session.registry = Registry::standard().with(common::OneClass(Needs {
        k: true,
        ..Needs::default()
    }));
    let mut app = App::new(session).unwrap();
    app.step(&Action::Resize(140, 45));
    choose_algorithm(&mut app, "one-class");
    let choice = app.anonymize().choice();
    assert_eq!(choice.name, "One class (a test's algorithm)");
    assert_eq!(app.anonymize().params(), vec![Param::K]);
    let screen = text(&render(&app));
    let line = |name: &str| {
        screen
            .lines()
            .find(|l| {
                l.contains(&format!("│{name:<10}"))
                    || l.trim_start().starts_with(&format!("{name:<10}"))
            })
            .unwrap_or_else(|| panic!("no {name} line on\n{screen}"))
            .to_string()
    };
    assert!(!line("k").contains("(not used)"), "{}", line("k"));
    assert!(line("l").contains("(not used)"), "{}", line("l"));
    // `:algo` knows it by the session's registry.
    app.step(&Action::ShowScreen(Screen::Data));
    let c = app.parse_command("algo one-class").unwrap();
    app.run_command(c).unwrap();
    assert_eq!(app.anonymize().choice().id, "one-class");
    run_to_done(&mut app);
    let view = app.anonymize().view.as_ref().expect("a release");
    assert!(view.evaluation.verification.all_hold());
}
