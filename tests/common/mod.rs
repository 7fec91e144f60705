//! Fixtures shared by the integration tests: where UCI Adult is, its
//! attribute lists as the issues name them, and loading it. A checkout
//! without `../shared` skips the Adult tests with a notice; under CI
//! (`CI=true`, as `.ci/run` sets) a missing file fails them instead
//! ([`require`]), so CI never passes without running them.
// Each test crate uses a different part of this module.
#![allow(dead_code)]

#[cfg(feature = "tui")]
pub mod screen;

pub mod cli;
pub mod craft;
pub mod lgb;

use std::path::PathBuf;

use anonlab::algorithms::Request;
use anonlab::data::{load_csv, CsvOptions, Dataset};

/// Relative to the crate root, where `cargo test` runs.
pub const ADULT: &str = "../shared/data/adult/adult.csv";

/// The 8 attributes other than salary-class, in the file's order.
pub const ADULT_QI8: [&str; 8] = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
];

/// The cross-bucket experiment's QIs (occupation is the sensitive attribute).
pub const ADULT_QI7: [&str; 7] = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
];

pub fn adult_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(ADULT)
}

/// Whether the tests run under CI (`CI` set to anything but `false`/`0`).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Whether something a test needs (`what`) is there: `true` when `present`;
/// otherwise a notice and `false` (the test skips), or under CI a panic,
/// so that a CI run without it fails instead of passing untested.
pub fn require(present: bool, what: &str) -> bool {
    if present {
        return true;
    }
    assert!(
        !under_ci(),
        "CI=true and {what} is missing: the test cannot run"
    );
    eprintln!("skipped: {what} is missing");
    false
}

/// Whether Adult is there; prints why a test is skipped when it is not,
/// and fails under CI.
pub fn have_adult() -> bool {
    require(adult_path().exists(), ADULT)
}

/// Adult loaded by anonlab's own importer, or `None` (with a notice).
pub fn adult() -> Option<Dataset> {
    have_adult().then(|| load_csv(&adult_path(), &CsvOptions::default()).expect("load adult.csv"))
}

/// The hidden-cell session of issues 13 and 32 on Adult: quasi-identifiers
/// sex, race, marital-status, education, native-country and workclass;
/// age semi-sensitive with its cells sensitive where `age>=60` (2,082
/// cells); occupation sensitive; the attacker knows `known`, threshold
/// 0.2. `None` (with a notice) without Adult, a failure under CI.
pub fn adult_age_hidden(known: &[&str]) -> Option<anonlab::session::Session> {
    use anonlab::data::{CellSensitivity, Role, Roles, SensitivitySource};
    let ds = adult()?;
    let mut s = anonlab::session::Session::new(ds, Some(adult_path()), CsvOptions::default());
    let mut roles = Roles::new(s.dataset.n_cols());
    for q in [
        "sex",
        "race",
        "marital-status",
        "education",
        "native-country",
        "workclass",
    ] {
        roles.set(s.dataset.column_index(q).unwrap(), Role::QuasiIdentifier);
    }
    let age = s.dataset.column_index("age").unwrap();
    roles.set(age, Role::SemiSensitive);
    roles.set(
        s.dataset.column_index("occupation").unwrap(),
        Role::Sensitive,
    );
    s.roles = roles;
    s.sensitivity.insert(
        age,
        CellSensitivity::new(SensitivitySource::Rule {
            rule: "age>=60".into(),
        }),
    );
    s.attacker.known = known.iter().map(|k| k.to_string()).collect();
    s.attacker.threshold = 0.2;
    Some(s)
}

/// A request on Adult with occupation as the sensitive attribute.
pub fn occupation_request<'a>(
    ds: &'a Dataset,
    qi: &[&str],
    k: u32,
    l: u32,
    seed: u64,
) -> Request<'a> {
    Request {
        ds,
        qi: qi.iter().map(|q| ds.column_index(q).unwrap()).collect(),
        sensitive: vec![ds.column_index("occupation").unwrap()],
        identifiers: vec![],
        k,
        l,
        seed,
        options: Default::default(),
    }
}

/// A report page parsed as XML (its `<!DOCTYPE html>` allowed): the
/// well-formedness check both report tests make.
pub fn parse_html(html: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse_with_options(
        html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("report.html is not well-formed XML: {e}"))
}

/// Construction's conditions for the demo (old ages pooled, high zips
/// deleted), written to `dir/G.json`; the path returned.
pub fn demo_conditions(dir: &std::path::Path) -> PathBuf {
    let g = dir.join("G.json");
    std::fs::write(
        &g,
        r#"{"conditions": [{"when": "age>=70", "generalize": "age", "to": "70+"},
            {"when": "zip>=45000", "delete": "record"}]}"#,
    )
    .unwrap();
    g
}

/// An algorithm written outside the library, for the tests that add one
/// to a registry (tests/algorithm_registry.rs, tests/tui_registry.rs):
/// every record in one class generalized to cover them all, k-anonymous
/// for any k up to the table's size, reading what its `Needs` say.
pub struct OneClass(pub anonlab::algorithms::Needs);

impl anonlab::algorithms::Algorithm for OneClass {
    fn id(&self) -> &'static str {
        "one-class"
    }
    fn name(&self) -> &'static str {
        "One class (a test's algorithm)"
    }
    fn needs(&self) -> anonlab::algorithms::Needs {
        self.0
    }
    fn run(
        &self,
        req: &Request<'_>,
        _progress: &anonlab::progress::Progress,
    ) -> anonlab::Result<anonlab::release::Release> {
        let mut release = anonlab::release::Release::new(
            self.id(),
            req.ds,
            req.qi.clone(),
            req.sensitive.clone(),
        );
        release.push_covering_group(req.ds, (0..req.ds.n_rows() as u32).collect());
        release
            .claims
            .push(anonlab::release::Guarantee::KAnonymity { k: req.k });
        Ok(release)
    }
}

/// A session (the demo, Adult) made ready for microaggregation (which perturbs a numeric
/// attribute of no other role): age is no longer a quasi-identifier nor
/// known to the attacker, and is the attribute to perturb.
pub fn perturb_age(s: &mut anonlab::session::Session) {
    let age = s.dataset.column_index("age").unwrap();
    s.roles.set(age, anonlab::data::Role::Insensitive);
    s.attacker.known.retain(|k| k != "age");
    s.params.perturbation.attributes = vec!["age".into()];
}
