//! What an algorithm reads is said once, by `Algorithm::needs` (issue 31):
//! the CLI's help lists every registered algorithm with it, and
//! `Algorithm::check` refuses a request that lacks what it requires, with
//! an `Error::Unmet` naming the setting. Every test here walks the
//! registry, so an algorithm added to it is covered without touching this
//! file.

use anonlab::algorithms::{registry, Options, Request, Use};
use anonlab::error::{Error, Setting};
use anonlab::session::Session;

use crate::common;

/// The demo's request for an algorithm: sex, age and zip known, disease
/// sensitive, name an identifier; nothing else given.
fn demo_request(ds: &anonlab::data::Dataset) -> Request<'_> {
    let col = |n: &str| ds.column_index(n).unwrap();
    Request {
        ds,
        qi: vec![col("sex"), col("age"), col("zip")],
        sensitive: vec![col("disease")],
        identifiers: vec![col("name")],
        k: 2,
        l: 2,
        seed: 1,
        options: Options::default(),
    }
}

fn setting_of(e: &Error) -> Option<Setting> {
    match e {
        Error::Unmet { setting, .. } => Some(*setting),
        _ => None,
    }
}

#[test]
fn the_help_lists_every_registered_algorithm_with_what_it_reads() {
    for command in ["anonymize", "compare"] {
        help_lists_the_registry(command);
    }
}

fn help_lists_the_registry(command: &str) {
    let out = common::cli::anonlab()
        .args([command, "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for a in registry() {
        let line = help
            .lines()
            .find(|l| l.split_whitespace().next() == Some(a.id()))
            .unwrap_or_else(|| panic!("`{command} --help` does not list {}:\n{help}", a.id()));
        assert!(
            line.contains(a.name()) && line.contains(&a.needs().describe()),
            "{}'s line does not say what it reads ({}): {line}",
            a.id(),
            a.needs().describe()
        );
    }
}

#[test]
fn check_refuses_each_required_input_by_its_setting() {
    let ds = Session::demo().unwrap().dataset;
    for a in registry() {
        let needs = a.needs();
        if needs.sensitive {
            let mut req = demo_request(&ds);
            req.sensitive.clear();
            let e = a.check(&req).expect_err(a.id());
            let want = if needs.semi_sensitive {
                Setting::SemiSensitiveOrSensitive
            } else {
                Setting::SensitiveAttribute
            };
            assert_eq!(setting_of(&e), Some(want), "{}: {e}", a.id());
        }
        let mut req = demo_request(&ds);
        if needs.numeric {
            let e = a.check(&req).expect_err(a.id());
            assert_eq!(
                setting_of(&e),
                Some(Setting::NumericAttributes),
                "{}: {e}",
                a.id()
            );
            // A numeric column of no other role given: the request passes.
            req.qi.retain(|&c| ds.col(c).name() != "zip");
            req.options.numeric.columns = vec![ds.column_index("zip").unwrap()];
        }
        match (needs.conditions, needs.hierarchies) {
            (Use::Required, _) => {
                let e = a.check(&req).expect_err(a.id());
                assert_eq!(setting_of(&e), Some(Setting::Conditions), "{}: {e}", a.id());
            }
            (_, Use::Required) => {
                let e = a.check(&req).expect_err(a.id());
                assert_eq!(setting_of(&e), Some(Setting::Hierarchy), "{}: {e}", a.id());
            }
            // Nothing required is missing: the request passes.
            _ => a.check(&req).unwrap_or_else(|e| panic!("{}: {e}", a.id())),
        }
        let mut req = demo_request(&ds);
        req.qi.clear();
        let e = a.check(&req).expect_err(a.id());
        assert_eq!(
            setting_of(&e),
            Some(Setting::QuasiIdentifiers),
            "{}: {e}",
            a.id()
        );
    }
}

#[test]
fn check_refuses_a_frequency_table_where_records_are_read() {
    let ds = Session::demo().unwrap().dataset;
    // The demo's rows as a table where each stands for two records.
    let grouped = (*ds).clone().grouped(vec![2; ds.n_rows()]).unwrap();
    for a in registry() {
        let mut req = demo_request(&grouped);
        req.identifiers.clear();
        let refused = a
            .check(&req)
            .err()
            .is_some_and(|e| e.to_string().contains("reads every record"));
        assert_eq!(refused, !a.needs().grouped, "{}", a.id());
    }
}

/// Issue 32, item 3: the seed a surface prints is the seed the algorithm
/// drew with, and none for an algorithm that reads no seed (the CLI used to
/// print "seed 0" for Mondrian). Every release records its seed exactly
/// when its algorithm says it reads one (`Needs::seed`), with the request's
/// value; `Evaluation::seed` is that record.
#[test]
fn a_release_records_its_seed_exactly_when_its_algorithm_reads_one() {
    let s = Session::demo().unwrap();
    let mut checked = 0;
    for algo in registry() {
        let mut req = s.request(algo.id(), 2, 2).unwrap();
        req.seed = 7;
        let Ok(release) = algo.run(&req, &anonlab::progress::Progress::new()) else {
            continue;
        };
        let expected = algo.needs().seed.then_some(7);
        assert_eq!(release.params.seed, expected, "{}", algo.id());
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} algorithms ran on the demo");
}
