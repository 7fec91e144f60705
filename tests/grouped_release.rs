//! Mondrian (its three variants) and full-domain generalization on a
//! grouped table — one row per distinct combination standing for its
//! records, what the query engine builds of a file too large for memory —
//! publish the release they publish on the records: the same groups in the
//! same order, with the same cells, the same records in each (a grouped
//! row's records all in its group), the same claims, and the same
//! verification, risk and utility figures. The query workload reads
//! records one by one and is not run on a grouped table; every other
//! algorithm refuses one, saying why.

use anonlab::algorithms::full_domain::{FullDomainOptions, Metric};
use anonlab::algorithms::{Options, Request};
use anonlab::anonymize::{run, run_verified, Measure};
use anonlab::data::Dataset;
use anonlab::privacy::Model;
use anonlab::progress::Progress;
use anonlab::release::Release;
use proptest::prelude::*;

/// Rows of (a, b, n, s): few values each, so that records repeat.
fn table() -> impl Strategy<Value = Dataset> {
    let row = (0u8..4, 0u8..3, 0u8..6, 0u8..4);
    prop::collection::vec(row, 1..80).prop_map(|rows| {
        let text: Vec<Vec<String>> = rows
            .iter()
            .map(|&(a, b, n, s)| {
                vec![
                    ["p", "q", "r", ""][a as usize].to_string(),
                    ["M", "F", "X"][b as usize].to_string(),
                    if n == 5 {
                        String::new()
                    } else {
                        (20 + 7 * n).to_string()
                    },
                    ["flu", "hiv", "cold", ""][s as usize].to_string(),
                ]
            })
            .collect();
        let refs: Vec<Vec<&str>> = text
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        Dataset::from_rows(&["a", "b", "n", "s"], &refs).unwrap()
    })
}

fn request<'a>(ds: &'a Dataset, k: u32, l: u32, options: Options) -> Request<'a> {
    Request {
        ds,
        qi: vec![0, 1, 2],
        sensitive: vec![3],
        identifiers: vec![],
        k,
        l,
        seed: 7,
        options,
    }
}

/// The grouped release's groups, read as groups of records: each group's
/// cells and the multiset of its records' codes.
fn records_of(release: &Release, ds: &Dataset) -> Vec<(String, Vec<Vec<u32>>)> {
    release
        .groups
        .iter()
        .map(|g| {
            let mut records: Vec<Vec<u32>> = Vec::new();
            for &r in &g.rows {
                let codes: Vec<u32> = (0..ds.n_cols())
                    .map(|c| ds.col(c).code(r as usize))
                    .collect();
                for _ in 0..ds.multiplicity(r as usize) {
                    records.push(codes.clone());
                }
            }
            records.sort();
            (format!("{:?}", g.cells), records)
        })
        .collect()
}

fn without_time(mut v: serde_json::Value) -> serde_json::Value {
    let o = v.as_object_mut().unwrap();
    o.remove("time_ms");
    o.remove("queries");
    o.remove("probabilistic_queries");
    v
}

/// Floats equal up to the order of summation (a grouped table's rows are in
/// code order), everything else exactly.
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

fn models() -> impl Strategy<Value = Model> {
    prop_oneof![
        Just(Model::K),
        (1u32..4).prop_map(|l| Model::DistinctL { l }),
        (1u32..3).prop_map(|l| Model::EntropyL { l: f64::from(l) }),
        Just(Model::RecursiveCL { c: 3.0, l: 2 }),
        prop::sample::select(vec![0.2, 0.5]).prop_map(|t| Model::TCloseness { t }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_grouped_table_publishes_the_records_release(
        ds in table(),
        algorithm in prop::sample::select(vec!["mondrian", "mondrian-l", "mondrian-distinct-l", "full-domain"]),
        k in 1u32..5,
        l in 1u32..3,
        model in models(),
        suppression in prop::sample::select(vec![0.0, 0.1]),
        metric in prop::sample::select(vec![Metric::Loss, Metric::Discernibility]),
    ) {
        let grouped = ds.to_grouped().unwrap();
        let options = Options {
            full_domain: FullDomainOptions {
                suppression,
                metric,
                model,
                ..Default::default()
            },
            ..Default::default()
        };
        let measure = Measure {
            queries: 0,
            query_seed: 1,
            ..Measure::default()
        };
        let p = Progress::new();
        let plain = run_verified(algorithm, &request(&ds, k, l, options.clone()), &measure, &p);
        let of_groups = run_verified(algorithm, &request(&grouped, k, l, options), &measure, &p);
        match (plain, of_groups) {
            (Ok((a, ea)), Ok((b, eb))) => {
                prop_assert_eq!(&a.claims, &b.claims);
                prop_assert_eq!(records_of(&a, &ds), records_of(&b, &grouped));
                prop_assert_eq!(
                    ds.records_of(&a.suppressed_rows),
                    grouped.records_of(&b.suppressed_rows)
                );
                let (ja, jb) = (
                    without_time(serde_json::to_value(&ea).unwrap()),
                    without_time(serde_json::to_value(&eb).unwrap()),
                );
                // Group counts of the evaluation are the same groups.
                if let Err(e) = same(&ja, &jb, "") {
                    return Err(TestCaseError::fail(format!("{algorithm}: {e}")));
                }
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => {
                return Err(TestCaseError::fail(format!(
                    "{algorithm}: one path failed: {:?} / {:?}",
                    a.err(),
                    b.err()
                )))
            }
        }
    }
}

/// Algorithms that read records one by one refuse a grouped table and
/// say what to do instead; the query workload is left out, not faked.
#[test]
fn other_algorithms_refuse_a_grouped_table() {
    let ds = Dataset::from_rows(
        &["a", "b", "n", "s"],
        &[
            vec!["p", "M", "20", "flu"],
            vec!["p", "M", "20", "hiv"],
            vec!["q", "F", "27", "flu"],
            vec!["q", "F", "27", "cold"],
        ],
    )
    .unwrap()
    .to_grouped()
    .unwrap();
    for algorithm in ["anatomy", "cbg", "lgb-mdp", "arp", "ng", "pk-enhanced"] {
        let e = run(
            algorithm,
            &request(&ds, 2, 2, Options::default()),
            &Progress::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("reads every record")
                && e.contains(algorithm)
                && e.contains("--engine memory"),
            "{algorithm}: {e}"
        );
    }
    let (_, eval) = run_verified(
        "mondrian",
        &request(&ds, 2, 2, Options::default()),
        &Measure::default(),
        &Progress::new(),
    )
    .unwrap();
    assert!(eval.queries.is_none() && eval.probabilistic_queries.is_none());
    assert_eq!(eval.utility.published, 4);
}

/// k and l are checked against records, not a grouped table's rows: one
/// combination standing for two records is 2-anonymous, and a sensitive
/// value on one row standing for three of four records is not 2-eligible
/// (the property test's first cases of each).
#[test]
fn k_and_l_are_checked_against_records() {
    let same = Dataset::from_rows(
        &["a", "b", "n", "s"],
        &[vec!["p", "M", "20", "flu"], vec!["p", "M", "20", "flu"]],
    )
    .unwrap();
    let grouped = same.to_grouped().unwrap();
    assert_eq!((grouped.n_rows(), grouped.records()), (1, 2));
    let (release, _) = run_verified(
        "mondrian",
        &request(&grouped, 2, 1, Options::default()),
        &Measure::default(),
        &Progress::new(),
    )
    .unwrap();
    assert_eq!(release.groups.len(), 1);
    let e = run(
        "mondrian",
        &request(&grouped, 3, 1, Options::default()),
        &Progress::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("k = 3 is larger than the data (2 records)"),
        "{e}"
    );

    let skewed = Dataset::from_rows(
        &["a", "b", "n", "s"],
        &[
            vec!["p", "M", "20", "flu"],
            vec!["p", "M", "20", "flu"],
            vec!["p", "M", "20", "flu"],
            vec!["q", "F", "27", "hiv"],
        ],
    )
    .unwrap();
    for ds in [skewed.clone(), skewed.to_grouped().unwrap()] {
        let e = run(
            "mondrian-distinct-l",
            &request(&ds, 1, 2, Options::default()),
            &Progress::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("'flu' is on 3 of 4 records"), "{e}");
    }
}
