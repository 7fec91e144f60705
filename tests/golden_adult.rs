//! Golden re-identification figures on UCI Adult.
//!
//! Expected values come from `tests/golden/adult_risk.py`, a separate
//! Python implementation (plain dictionaries, exact fractions for bin
//! edges) run once and committed as `tests/golden/adult_risk.json`. The
//! test is skipped with a notice when `../shared/data/adult/` is absent.

use anonlab::assess::assess;
use anonlab::data::{CsvOptions, Role, Roles};
use anonlab::progress::Progress;
use anonlab::session::Session;

use crate::common;
use common::{ADULT, ADULT_QI8 as ORDER};

fn adult() -> Option<Session> {
    let ds = common::adult()?;
    let mut s = Session::new(ds, Some(ADULT.into()), CsvOptions::default());
    let mut roles = Roles::new(s.dataset.n_cols());
    for q in ORDER {
        roles.set(s.dataset.column_index(q).unwrap(), Role::QuasiIdentifier);
    }
    roles.set(
        s.dataset.column_index("salary-class").unwrap(),
        Role::Sensitive,
    );
    s.roles = roles;
    s.attacker.threshold = 0.2;
    Some(s)
}

#[test]
fn adult_risk_matches_independent_computation() {
    let Some(s) = adult() else { return };
    let expected: serde_json::Value =
        serde_json::from_str(include_str!("golden/adult_risk.json")).unwrap();
    let a = assess(&s, &Progress::new()).unwrap();
    let r = &a.report;
    assert_eq!(r.rows as u64, expected["rows"].as_u64().unwrap());
    assert_eq!(r.classes as u64, expected["classes"].as_u64().unwrap());
    assert_eq!(u64::from(r.k), expected["k"].as_u64().unwrap());
    assert_eq!(r.uniques as u64, expected["uniques"].as_u64().unwrap());
    assert!((r.risk.mean - expected["mean"].as_f64().unwrap()).abs() < 1e-12);
    assert_eq!(
        r.risk.records_above_threshold as u64,
        expected["records_above_0_2"].as_u64().unwrap()
    );
    let hist: Vec<u64> = r.histogram.iter().map(|b| b.records as u64).collect();
    let want: Vec<u64> = expected["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(hist, want);
    let prefix = expected["prefix"].as_array().unwrap();
    assert_eq!(r.prefix.len(), prefix.len());
    for (got, want) in r.prefix.iter().zip(prefix) {
        assert_eq!(got.classes as u64, want["classes"].as_u64().unwrap());
        assert_eq!(got.uniques as u64, want["uniques"].as_u64().unwrap());
        let names: Vec<&str> = want["attributes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(got.attributes, names);
    }
    // The headline figure of the project's report example.
    assert_eq!(r.uniques, 14_021);
}
