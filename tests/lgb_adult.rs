//! LGB on UCI Adult with the settings: QIs race, marital-status,
//! education, workclass, native-country; semi-sensitive sex, age and
//! occupation with 20 % of their cells sensitive (seeded density);
//! sensitive salary-class; k = 5, l = 2; t-closeness (t = 0.2) for sex, as
//! the paper does. Skipped when Adult is absent.
//!
//! Adult's salary-class is binary and 75 % `<=50K`, so its cells are not
//! 2-eligible: l-diversity on it is refused (the "bad input"), and
//! the runs that must pass protect it by t-closeness as well (the paper's
//! salary is a number with 719 values, Adult's is not).

use crate::common;

use anonlab::algorithms::lgb::{lgb_mdp, lgb_ncp};
use anonlab::algorithms::{Options, Request};
use anonlab::data::{CellSensitivity, Dataset, SensitivitySource};
use anonlab::progress::Progress;
use anonlab::release::Release;
use fixedbitset::FixedBitSet;

const QI: [&str; 5] = [
    "race",
    "marital-status",
    "education",
    "workclass",
    "native-country",
];
const SEMI: [&str; 3] = ["sex", "age", "occupation"];
const SEED: u64 = 42;

fn density(ds: &Dataset, column: &str) -> FixedBitSet {
    CellSensitivity::new(SensitivitySource::Density {
        density: 0.2,
        seed: SEED,
    })
    .resolve(ds, column)
    .unwrap()
}

fn request<'a>(ds: &'a Dataset, t_closeness: &[&str]) -> Request<'a> {
    let c = |n: &str| ds.column_index(n).unwrap();
    Request {
        ds,
        qi: QI.iter().map(|n| c(n)).collect(),
        sensitive: vec![c("salary-class")],
        identifiers: vec![],
        k: 5,
        l: 2,
        seed: SEED,
        options: Options {
            semi_sensitive: SEMI.iter().map(|n| (c(n), density(ds, n))).collect(),
            t_closeness: t_closeness.iter().map(|n| (c(n), 0.2)).collect(),
            ..Default::default()
        },
    }
}

/// The shared LGB checks (verifier, suppression, bucketed cells against
/// the masks), and the density's cell count: round(0.2 · 30162) = 6032.
fn check(r: &Release, req: &Request<'_>) {
    common::lgb::check_release(r, req).unwrap();
    for (_, bits) in &req.options.semi_sensitive {
        assert_eq!(bits.count_ones(..), 6032);
    }
}

#[test]
fn salary_class_is_not_2_eligible() {
    let Some(ds) = common::adult() else { return };
    let e = lgb_mdp(&request(&ds, &["sex"]), &Progress::new())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the sensitive cells of 'salary-class' are not 2-eligible: '<=50K' is on"),
        "{e}"
    );
}

#[test]
fn lgb_mdp_on_adult_passes_the_verifier() {
    let Some(ds) = common::adult() else { return };
    let req = request(&ds, &["sex", "salary-class"]);
    let r = lgb_mdp(&req, &Progress::new()).unwrap();
    check(&r, &req);
}

#[test]
fn lgb_ncp_on_adult_passes_the_verifier() {
    let Some(ds) = common::adult() else { return };
    let req = request(&ds, &["sex", "salary-class"]);
    let r = lgb_ncp(&req, &Progress::new()).unwrap();
    check(&r, &req);
    assert_eq!(r.params.seed, Some(SEED));
}
