//! Adding an algorithm is adding it to a registry (issue 31): an algorithm
//! written here, outside the library, declared by its `needs()` and added
//! with `Registry::with`, appears in the CLI's listing of algorithms, in
//! the TUI's algorithm list with its parameters enabled and the others
//! dimmed, runs (its own check first) and verifies, and is worded by the
//! report — with no other file changed. The CLI's help is the standard
//! registry's listing verbatim, so an algorithm added to
//! `Registry::standard` appears there the same way.

use std::path::Path;

use predicates::prelude::*;

use crate::common;

use anonlab::algorithms::{Needs, Registry};
use anonlab::error::Setting;
use anonlab::progress::Progress;
use anonlab::session::Session;

fn registry() -> Registry {
    Registry::standard().with(common::OneClass(Needs {
        k: true,
        seed: true,
        sensitive: true,
        ..Needs::default()
    }))
}

/// The demo session offering the test's algorithm too, with a sensitive
/// attribute when `sensitive`.
fn session(sensitive: bool) -> Session {
    let mut s = Session::demo().unwrap();
    s.registry = registry();
    if !sensitive {
        for c in s
            .roles
            .with(anonlab::data::Role::Sensitive)
            .into_iter()
            .collect::<Vec<_>>()
        {
            s.roles.set(c, anonlab::data::Role::Insensitive);
        }
    }
    s
}

#[test]
fn the_listing_names_it_with_what_it_reads() {
    let listing = registry().listing();
    let line = listing
        .lines()
        .find(|l| l.trim_start().starts_with("one-class"))
        .unwrap_or_else(|| panic!("not listed:\n{listing}"));
    assert!(
        line.ends_with("One class (a test's algorithm): k, seed; a sensitive attribute"),
        "{line}"
    );
    // Every standard algorithm keeps its line.
    for a in Registry::standard().iter() {
        assert!(listing.contains(a.id()), "{} lost", a.id());
    }
}

#[test]
fn the_cli_help_is_the_registry_listing() {
    for command in ["anonymize", "compare"] {
        common::cli::anonlab()
            .args([command, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains(Registry::standard().listing()));
    }
}

#[test]
fn it_runs_after_its_own_check_and_verifies() {
    let s = session(true);
    let req = s.request("one-class", 5, 2).unwrap();
    let (release, _) = anonlab::anonymize::run_algorithm(
        &*s.registry.get("one-class").unwrap(),
        &req,
        &Progress::new(),
    )
    .unwrap();
    assert!(anonlab::privacy::verify(&release, &s.dataset).all_hold());
    // Without a sensitive attribute its check refuses, naming the setting.
    let s = session(false);
    let req = s.request("one-class", 5, 2).unwrap();
    let e = anonlab::anonymize::run_algorithm(
        &*s.registry.get("one-class").unwrap(),
        &req,
        &Progress::new(),
    )
    .unwrap_err();
    assert_eq!(e.setting(), Some(Setting::SensitiveAttribute), "{e}");
    // The standard registry does not know it.
    assert!(Session::demo().unwrap().request("one-class", 5, 2).is_err());
}

#[test]
fn the_report_words_it_by_what_it_reads() {
    let mut s = session(true);
    s.params.algorithm = Some("one-class".into());
    let built =
        anonlab::report::build(&s, Path::new("project.json"), None, &Progress::new()).unwrap();
    let r = &built.report.release;
    assert_eq!(r.algorithm, "one-class");
    assert_eq!(r.algorithm_name, "One class (a test's algorithm)");
    assert_eq!(r.reads, ["k", "seed"]);
    assert_eq!(r.l, None, "it reads no l");
    assert!(built.report.guarantees_hold);
}
