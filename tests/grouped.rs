//! A grouped table — one row per distinct combination standing for its
//! records, what the query engine builds of a file too large for memory —
//! is assessed as the table of records it stands for: on random tables
//! and sessions (semi-sensitive cells hidden by a rule or a flag column,
//! any attacker, the population models, sampling weights, SUDA and the
//! attribute risks) `assess` of `Dataset::to_grouped` equals `assess` of
//! the records. Counts, classes, k, histograms and every distribution's
//! records are equal exactly; a float summed over classes or records is
//! equal up to the summation order (relative 1e-12), since the grouped
//! table's rows are in code order, not the file's.

use std::collections::BTreeMap;
use std::sync::Arc;

use anonlab::assess::assess;
use anonlab::data::{CellSensitivity, CsvOptions, Dataset, Role, Roles, SensitivitySource};
use anonlab::progress::Progress;
use anonlab::session::Session;
use proptest::prelude::*;

/// The same figures (see the module doc).
fn same(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Result<(), String> {
    use serde_json::Value::*;
    match (a, b) {
        (Object(x), Object(y)) => {
            if x.len() != y.len() {
                return Err(format!("{at}: keys differ"));
            }
            for (k, v) in x {
                let w = y.get(k).ok_or_else(|| format!("{at}/{k}: missing"))?;
                same(v, w, &format!("{at}/{k}"))?;
            }
            Ok(())
        }
        (Array(x), Array(y)) => {
            if x.len() != y.len() {
                return Err(format!("{at}: {} vs {} items", x.len(), y.len()));
            }
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                same(v, w, &format!("{at}[{i}]"))?;
            }
            Ok(())
        }
        (Number(x), Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            if (x - y).abs() <= 1e-12 * x.abs().max(1.0) {
                Ok(())
            } else {
                Err(format!("{at}: {x} vs {y}"))
            }
        }
        _ if a == b => Ok(()),
        _ => Err(format!("{at}: {a} vs {b}")),
    }
}

/// A session over `ds` with the roles and settings of `s`.
fn session(ds: Dataset, s: &Settings) -> Session {
    let mut session = Session::new(Arc::new(ds), None, CsvOptions::default());
    let mut roles = BTreeMap::new();
    for q in ["a", "b", "n"] {
        roles.insert(q.to_string(), Role::QuasiIdentifier);
    }
    roles.insert("c".to_string(), Role::SemiSensitive);
    roles.insert("s".to_string(), Role::Sensitive);
    roles.insert("t".to_string(), Role::Sensitive);
    session.roles = Roles::from_map(&session.dataset, &roles).unwrap();
    let c = session.dataset.column_index("c").unwrap();
    let source = if s.flag {
        SensitivitySource::FlagColumn { column: "f".into() }
    } else {
        SensitivitySource::Rule {
            rule: "c in {x, y}".into(),
        }
    };
    session.sensitivity.insert(c, CellSensitivity::new(source));
    session.attacker.known = s.known.iter().map(|k| k.to_string()).collect();
    session.attacker.threshold = s.threshold;
    let p = &mut session.attacker.population;
    p.sampling_fraction = s.fraction;
    p.suda_max_size = s.suda;
    p.attribute_risks = s.attribute_risks;
    p.weights = s.weights.then(|| "w".to_string());
    session
}

#[derive(Debug, Clone)]
struct Settings {
    flag: bool,
    known: Vec<&'static str>,
    threshold: f64,
    fraction: Option<f64>,
    suda: Option<usize>,
    attribute_risks: bool,
    weights: bool,
}

fn settings() -> impl Strategy<Value = Settings> {
    (
        any::<bool>(),
        prop::sample::subsequence(vec!["n", "a", "c", "b"], 0..=4),
        prop::sample::select(vec![0.05, 0.2, 0.5, 1.0]),
        prop::option::of(prop::sample::select(vec![0.01, 0.3, 1.0])),
        prop::option::of(1usize..4),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(flag, known, threshold, fraction, suda, attribute_risks, weights)| Settings {
                flag,
                known,
                threshold,
                fraction,
                suda,
                attribute_risks,
                weights,
            },
        )
}

/// Rows of (a, b, n, c, f, s, t, w): few values each, so that records
/// repeat and classes of every size occur; missing cells included.
fn table() -> impl Strategy<Value = Dataset> {
    let row = (
        0u8..3,
        0u8..2,
        0u8..4,
        0u8..4,
        any::<bool>(),
        0u8..3,
        0u8..3,
        1u8..4,
    );
    prop::collection::vec(row, 1..60).prop_map(|rows| {
        let text: Vec<Vec<String>> = rows
            .iter()
            .map(|&(a, b, n, c, f, s, t, w)| {
                vec![
                    ["p", "q", ""][a as usize].to_string(),
                    ["M", "F"][b as usize].to_string(),
                    if n == 3 {
                        String::new()
                    } else {
                        (20 + 10 * n).to_string()
                    },
                    ["x", "y", "z", "v"][c as usize].to_string(),
                    u8::from(f).to_string(),
                    ["flu", "hiv", ""][s as usize].to_string(),
                    (t * 7).to_string(),
                    w.to_string(),
                ]
            })
            .collect();
        let refs: Vec<Vec<&str>> = text
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        Dataset::from_rows(&["a", "b", "n", "c", "f", "s", "t", "w"], &refs).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_grouped_table_is_assessed_as_its_records(ds in table(), s in settings()) {
        let grouped = ds.to_grouped().unwrap();
        prop_assert!(grouped.is_grouped());
        prop_assert_eq!(grouped.records(), ds.n_rows() as u64);
        prop_assert!(grouped.n_rows() <= ds.n_rows());
        let plain = assess(&session(ds, &s), &Progress::new());
        let of_groups = assess(&session(grouped, &s), &Progress::new());
        match (plain, of_groups) {
            (Ok(a), Ok(b)) => {
                let (a, b) = (
                    serde_json::to_value(&a.report).unwrap(),
                    serde_json::to_value(&b.report).unwrap(),
                );
                if let Err(e) = same(&a, &b, "") {
                    return Err(TestCaseError::fail(format!("{s:?}: {e}")));
                }
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => {
                return Err(TestCaseError::fail(format!(
                    "{s:?}: one path failed: {:?} / {:?}",
                    a.err(),
                    b.err()
                )))
            }
        }
    }
}

/// Grouping a grouped table again merges nothing and keeps the records;
/// work that reads records one by one refuses it with a reason.
#[test]
fn grouping_is_idempotent_and_refusals_name_the_table() {
    let ds = Dataset::from_rows(
        &["sex", "age"],
        &[
            vec!["M", "30"],
            vec!["F", "30"],
            vec!["M", "30"],
            vec!["M", "40"],
        ],
    )
    .unwrap();
    let g = ds.to_grouped().unwrap();
    assert_eq!(g.n_rows(), 3);
    assert_eq!(g.multiplicities(), Some(&[1, 2, 1][..]));
    let again = g.to_grouped().unwrap();
    assert_eq!(again, g);
    let e = g
        .require_records("the query workload")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the query workload")
            && e.contains("3 distinct combinations")
            && e.contains("4 records"),
        "{e}"
    );
    assert!(ds.clone().grouped(vec![1, 0, 1, 1]).is_err());
    assert!(ds.grouped(vec![1, 1]).is_err());
}
