//! Golden table: `anonlab::privacy::evaluate` on the Adult data set against
//! figures computed independently.
//!
//! The expected values in `tests/golden/adult_models.json` were produced by
//! `python3 tests/golden/adult_models.py > tests/golden/adult_models.json`:
//! a standalone standard-library Python script that groups the rows by the
//! quasi-identifiers and evaluates every model densely, from the papers'
//! definitions, with exact fractions where it can (see its header). The Rust
//! side shares no code with it: Adult is read here with a plain `csv`
//! reader (not anonlab's importer) into `Dataset::from_rows`.
//!
//! Skipped, with a notice, when `../shared/data/adult/adult.csv` is absent
//! (a failure under `CI=true`).

use std::path::PathBuf;

use anonlab::data::Dataset;
use anonlab::partition::Partition;
use anonlab::privacy::evaluate;
use serde_json::Value;

use crate::common;

fn adult_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/adult/adult.csv")
}

fn load_adult() -> Option<Dataset> {
    let path = adult_path();
    if !common::require(path.exists(), &path.display().to_string()) {
        return None;
    }
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b';')
        .from_path(&path)
        .expect("open adult.csv");
    let header: Vec<String> = reader
        .headers()
        .expect("adult.csv header")
        .iter()
        .map(str::to_string)
        .collect();
    let records: Vec<csv::StringRecord> = reader
        .records()
        .collect::<Result<_, _>>()
        .expect("read adult.csv");
    let names: Vec<&str> = header.iter().map(String::as_str).collect();
    let rows: Vec<Vec<&str>> = records.iter().map(|r| r.iter().collect()).collect();
    Some(Dataset::from_rows(&names, &rows).expect("build the Adult dataset"))
}

fn expected() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/adult_models.json");
    let text = std::fs::read_to_string(&path).expect("read adult_models.json");
    serde_json::from_str(&text).expect("parse adult_models.json")
}

/// Equal to 1e-9 relative; the small absolute floor only matters for
/// figures that are exactly zero (entropy of a one-value class).
fn assert_close(what: &str, actual: f64, expected: &Value) {
    let e = expected
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: expected a number, got {expected}"));
    assert!(
        (actual - e).abs() <= 1e-9 * e.abs() + 1e-15,
        "{what}: anonlab {actual}, golden {e}"
    );
}

fn assert_close_opt(what: &str, actual: Option<f64>, expected: &Value) {
    match actual {
        None => assert!(
            expected.is_null(),
            "{what}: anonlab null, golden {expected}"
        ),
        Some(a) => assert_close(what, a, expected),
    }
}

fn as_u64(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("expected an integer, got {v}"))
}

#[test]
fn adult_models_match_the_golden_table() {
    let Some(ds) = load_adult() else { return };
    let golden = expected();
    let cases = golden["cases"].as_array().expect("cases");
    assert!(!cases.is_empty());
    for case in cases {
        let sensitive = case["sensitive"].as_str().expect("sensitive");
        let qis: Vec<usize> = case["qis"]
            .as_array()
            .expect("qis")
            .iter()
            .map(|q| ds.column_index(q.as_str().expect("qi name")).expect("qi"))
            .collect();
        let what = |field: &str| format!("{sensitive} by {}: {field}", case["qis"]);
        let column = ds.column(sensitive).expect("sensitive column");
        assert_eq!(
            column.is_numeric(),
            case["ordered_distance"]
                .as_bool()
                .expect("ordered_distance"),
            "{}",
            what("kind")
        );

        let partition = Partition::by_columns(&ds, &qis);
        assert_eq!(ds.n_rows() as u64, as_u64(&case["rows"]));
        assert_eq!(
            partition.n_classes() as u64,
            as_u64(&case["classes"]),
            "{}",
            what("classes")
        );
        assert_eq!(
            partition.uniques() as u64,
            as_u64(&case["uniques"]),
            "{}",
            what("uniques")
        );

        let r = evaluate(&partition, column);
        assert_eq!(r.attribute, sensitive);
        assert_eq!(r.k as u64, as_u64(&case["k"]), "{}", what("k"));
        assert_eq!(r.alpha_k.k, r.k);
        assert_eq!(
            r.l_distinct as u64,
            as_u64(&case["l_distinct"]),
            "{}",
            what("l_distinct")
        );
        assert_eq!(
            r.p_sensitive as u64,
            as_u64(&case["p_sensitive"]),
            "{}",
            what("p_sensitive")
        );
        assert_close(&what("entropy_min"), r.entropy_min, &case["entropy_min"]);
        assert_close(&what("l_entropy"), r.l_entropy, &case["l_entropy"]);
        let rcl = &case["recursive_c_l"];
        assert_eq!(r.recursive_c_l.l as u64, as_u64(&rcl["l"]));
        assert_eq!(
            r.recursive_c_l.c,
            rcl["c"].as_u64(),
            "{}",
            what("recursive c")
        );
        assert_close(
            &what("recursive ratio"),
            r.recursive_c_l.ratio,
            &rcl["ratio"],
        );
        assert_close(&what("t_closeness"), r.t_closeness, &case["t_closeness"]);
        assert_close(&what("alpha"), r.alpha_k.alpha, &case["alpha"]);
        assert_close_opt(
            &what("delta_disclosure"),
            r.delta_disclosure,
            &case["delta_disclosure"],
        );
        assert_close(
            &what("delta_disclosure_present_only"),
            r.delta_disclosure_present_only,
            &case["delta_disclosure_present_only"],
        );
        assert_close(
            &what("beta_likeness_basic"),
            r.beta_likeness_basic,
            &case["beta_likeness_basic"],
        );
        assert_close_opt(
            &what("beta_likeness_enhanced"),
            r.beta_likeness_enhanced,
            &case["beta_likeness_enhanced"],
        );
    }
}
