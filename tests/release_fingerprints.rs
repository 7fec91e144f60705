//! Byte-identical releases across refactoring: every algorithm of the
//! registry, run on the demo (its project's roles, cells and conditions)
//! and on UCI Adult (the cross-bucket setting: seven QIs, occupation
//! sensitive), publishes files whose SHA-256 (`release::fingerprint`, the
//! hash of exactly the files `anonymize -o` writes) equals the one saved in
//! `tests/golden/release_fingerprints.json`.
//!
//! The saved fingerprints were computed by this test on main before the
//! layering work moved code (caches made explicit, big files
//! split); a refactor that changes no behaviour keeps every one of them. A
//! deliberate change of a release re-saves them with
//! `ANONLAB_SAVE_FINGERPRINTS=1 cargo test --release --test suite release_fingerprints`
//! (which writes the file and then fails, so it never passes by itself),
//! and the commit says why the releases changed.
//!
//! An algorithm that refuses a setting is saved as `refused`, so a refusal
//! that starts or stops is caught too.

use std::collections::BTreeMap;

use anonlab::algorithms;
use anonlab::data::Conditions;
use anonlab::data::{CsvOptions, Role, Roles};
use anonlab::progress::Progress;
use anonlab::release::fingerprint;
use anonlab::session::Session;

use crate::common;

const SAVED: &str = "tests/golden/release_fingerprints.json";

/// Construction's conditions for Adult, of the paper's kind: old ages
/// pooled, a rare country's records deleted, a cell generalized by rule.
const ADULT_CONDITIONS: &str = r#"{"conditions": [
    {"when": "age>=70", "generalize": "age", "to": "70+"},
    {"when": "native-country=Holand-Netherlands", "delete": "record"},
    {"when": "education=Preschool", "generalize": "education", "to": "Pre-school"}
]}"#;

/// `label → fingerprint` (or `refused`) for every algorithm on `s`.
fn fingerprints(name: &str, s: &Session, k: u32, l: u32, out: &mut BTreeMap<String, String>) {
    for algo in algorithms::registry() {
        let id = algo.id();
        // Microaggregation perturbs age, then no quasi-identifier.
        let mut perturbing = None;
        if algo.needs().numeric {
            let mut c = s.clone();
            common::perturb_age(&mut c);
            perturbing = Some(c);
        }
        let s = perturbing.as_ref().unwrap_or(s);
        let req = s.request(id, k, l).unwrap();
        let value = match algo.run(&req, &Progress::new()) {
            Ok(r) => fingerprint(&r, &s.dataset, Some(s.roles.as_slice())),
            Err(_) => "refused".to_string(),
        };
        out.insert(format!("{name} {id} k={k} l={l}"), value);
    }
}

fn demo() -> Session {
    let mut s = Session::demo().unwrap();
    let g: Conditions = serde_json::from_str(
        r#"{"conditions": [{"when": "age>=70", "generalize": "age", "to": "70+"},
            {"when": "zip>=45000", "delete": "record"}]}"#,
    )
    .unwrap();
    s.conditions = Some(g);
    s
}

fn adult() -> Option<Session> {
    let ds = common::adult()?;
    let mut s = Session::new(ds, Some(common::ADULT.into()), CsvOptions::default());
    let mut roles = Roles::new(s.dataset.n_cols());
    for q in common::ADULT_QI7 {
        roles.set(s.dataset.column_index(q).unwrap(), Role::QuasiIdentifier);
    }
    roles.set(
        s.dataset.column_index("occupation").unwrap(),
        Role::Sensitive,
    );
    s.roles = roles;
    s.conditions = Some(serde_json::from_str(ADULT_CONDITIONS).unwrap());
    Some(s)
}

fn saved() -> BTreeMap<String, String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SAVED);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{SAVED}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// Compares `got` with the saved fingerprints of the same keys, or saves
/// them when asked (and then fails, so saving is never a pass).
fn check(got: BTreeMap<String, String>) {
    if std::env::var_os("ANONLAB_SAVE_FINGERPRINTS").is_some() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SAVED);
        let mut all: BTreeMap<String, String> = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        all.extend(got);
        let text = serde_json::to_string_pretty(&all).unwrap() + "\n";
        std::fs::write(&path, text).unwrap();
        panic!("saved {SAVED}; run again without ANONLAB_SAVE_FINGERPRINTS");
    }
    let saved = saved();
    let mut differ = Vec::new();
    for (key, value) in &got {
        match saved.get(key) {
            Some(s) if s == value => {}
            Some(s) => differ.push(format!("{key}: saved {s}, now {value}")),
            None => differ.push(format!("{key}: not saved (now {value})")),
        }
    }
    assert!(
        differ.is_empty(),
        "releases differ from the saved ones:\n{}",
        differ.join("\n")
    );
    // Every algorithm is covered: a newly registered one must be saved.
    assert!(got.len() >= algorithms::registry().len());
}

#[test]
fn every_algorithm_publishes_the_saved_release_on_the_demo() {
    let s = demo();
    let mut got = BTreeMap::new();
    fingerprints("demo", &s, 2, 2, &mut got);
    fingerprints("demo", &s, 3, 2, &mut got);
    // Not every algorithm may refuse: the check would then prove little.
    assert!(got.values().filter(|v| *v != "refused").count() >= 20);
    check(got);
}

#[test]
fn every_algorithm_publishes_the_saved_release_on_adult() {
    let Some(s) = adult() else { return };
    let mut got = BTreeMap::new();
    fingerprints("adult", &s, 5, 3, &mut got);
    assert!(got.values().filter(|v| *v != "refused").count() >= 10);
    check(got);
}
