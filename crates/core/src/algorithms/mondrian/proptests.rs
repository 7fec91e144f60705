//! Property tests of the allowable-cut rule and of what the finer split
//! claims, judged by the independent verifier (`privacy::verify`) rather
//! than by [`Allowable`], on wider random tables than `tests.rs` uses:
//! three quasi-identifiers (a number, a categorical column that may carry
//! a hierarchy, a second categorical column), a skewed sensitive attribute
//! with up to eight values, missing cells in every QI.
//!
//! - Every cut of every variant (`mondrian`, `mondrian-l`,
//!   `mondrian-distinct-l`), and of LGB's use of the partition (k only),
//!   leaves two sides that the verifier accepts under the run's own claims
//!   when each side is published as one group in place of the leaves below
//!   it.
//! - Every release satisfies its claims (verifier), and no leaf keeps a
//!   cut along the numeric QI that the model, counted here from the rows,
//!   would allow: the split is as fine as the allowable-cut rule permits.

use std::collections::{BTreeMap, HashSet};
use std::sync::Mutex;

use proptest::prelude::*;

use super::*;
use crate::data::Dataset;
use crate::error::Error;
use crate::hierarchy::Hierarchy;
use crate::privacy::verify;

/// Three QIs and a sensitive attribute, 1..=200 rows. The sensitive
/// values are skewed: value 0 is drawn far more often than the others.
fn wide_table() -> impl Strategy<Value = Dataset> {
    prop::collection::vec((0u8..40, 0u8..7, 0u8..4, 0u8..12), 1..200).prop_map(|rows| {
        let text: Vec<Vec<String>> = rows
            .iter()
            .map(|&(a, c, e, s)| {
                vec![
                    if a == 39 {
                        String::new()
                    } else {
                        (17 + a * 2).to_string()
                    },
                    if c == 6 {
                        String::new()
                    } else {
                        ((b'p' + c) as char).to_string()
                    },
                    if e == 3 {
                        String::new()
                    } else {
                        ["HS", "BA", "PhD"][e as usize].to_string()
                    },
                    // 12 draws onto 8 values: 0..=4 → 'a', the rest spread.
                    ((b'a' + s.saturating_sub(4)) as char).to_string(),
                ]
            })
            .collect();
        let rows: Vec<Vec<&str>> = text
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        Dataset::from_rows(&["age", "city", "edu", "disease"], &rows).unwrap()
    })
}

/// A hierarchy over the cities:
/// {p, q} and {r, s, t, u}.
fn cities() -> Hierarchy {
    let rows: Vec<Vec<&str>> = [
        ("p", "pq"),
        ("q", "pq"),
        ("r", "rstu"),
        ("s", "rstu"),
        ("t", "rstu"),
        ("u", "rstu"),
    ]
    .iter()
    .map(|&(leaf, node)| vec![leaf, node, "*"])
    .collect();
    Hierarchy::from_rows("city", &rows).unwrap()
}

fn request(ds: &Dataset, k: u32, l: u32, hierarchy: bool) -> Request<'_> {
    let mut q = Request {
        ds,
        qi: vec![0, 1, 2],
        sensitive: vec![3],
        identifiers: vec![],
        k,
        l,
        seed: 7,
        options: Default::default(),
    };
    if hierarchy {
        q.options.hierarchies.insert(cities());
    }
    q
}

fn variant(i: u8) -> Mondrian {
    match i {
        0 => Mondrian::k_anonymous(),
        1 => Mondrian::l_diverse(),
        _ => Mondrian::distinct_l_diverse(),
    }
}

/// `release` with the groups holding `left ∪ right` replaced by the two
/// sides, each published with the cells covering its rows.
fn with_sides(release: &Release, ds: &Dataset, left: &[u32], right: &[u32]) -> Release {
    let node: HashSet<u32> = left.iter().chain(right).copied().collect();
    let mut r = Release::new(
        &release.algorithm,
        ds,
        release.quasi_identifiers.clone(),
        release.sensitive.clone(),
    );
    r.params = release.params.clone();
    r.claims = release.claims.clone();
    for side in [left, right] {
        let mut rows = side.to_vec();
        rows.sort_unstable();
        r.push_covering_group(ds, rows);
    }
    for g in &release.groups {
        if g.rows.iter().all(|row| !node.contains(row)) {
            r.groups.push(g.clone());
        } else {
            // A leaf is inside a cut node or outside it, never across.
            assert!(g.rows.iter().all(|row| node.contains(row)));
        }
    }
    r
}

/// The model counted from rows: at least k of them, and for l the
/// variant's reading of l-diversity.
fn satisfies(ds: &Dataset, which: u8, k: u32, l: u32, rows: &[u32]) -> bool {
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    for &r in rows {
        *counts.entry(ds.col(3).code(r as usize)).or_default() += 1;
    }
    let n = rows.len();
    let most = counts.values().copied().max().unwrap_or(0);
    n >= (k as usize).max(1)
        && match which {
            0 => true,
            // p(t, s) = most / n ≤ 1 / l.
            1 => (most as f64) <= n as f64 / l as f64 + 1e-12,
            _ => counts.len() >= l as usize,
        }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn every_cut_leaves_two_sides_the_verifier_accepts(
        ds in wide_table(), k in 1u32..8, l in 1u32..5, which in 0u8..3, hierarchy in any::<bool>()
    ) {
        let q = request(&ds, k, l, hierarchy);
        let algo = variant(which);
        let trace = Mutex::new(Vec::new());
        let release = match algo.run_traced(&q, &Progress::new(), Some(&trace)) {
            Ok(r) => r,
            Err(Error::Invalid { .. }) => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(e.to_string())),
        };
        let v = verify(&release, &ds);
        prop_assert!(v.all_hold(), "{}", v);
        for cut in trace.into_inner().unwrap() {
            prop_assert!(satisfies(&ds, which, k, l, &cut.left), "{:?}", cut);
            prop_assert!(satisfies(&ds, which, k, l, &cut.right), "{:?}", cut);
            let sides = with_sides(&release, &ds, &cut.left, &cut.right);
            let v = verify(&sides, &ds);
            prop_assert!(v.all_hold(), "{:?}\n{}", cut, v);
        }
    }

    #[test]
    fn lgb_partitions_cut_only_into_k_anonymous_sides(
        ds in wide_table(), k in 1u32..8, hierarchy in any::<bool>()
    ) {
        // LGB's Algorithm 3 calls the partition with k alone, on a subset
        // of the rows: every cut's sides hold k rows and are verified as
        // k-anonymous groups.
        let q = request(&ds, k, 1, hierarchy);
        let rows: Vec<u32> = (0..ds.n_rows() as u32).filter(|r| r % 3 != 1).collect();
        let trace = Mutex::new(Vec::new());
        let groups = partition_rows(
            &ds, &q.qi, &rows, Some(3), Allowable::k(k as usize),
            &q.options.hierarchies, &Progress::new(), Some(&trace),
        ).unwrap();
        let covered: usize = groups.iter().map(|g| g.rows.len()).sum();
        prop_assert_eq!(covered, rows.len());
        for cut in trace.into_inner().unwrap() {
            prop_assert!(cut.left.len() >= k as usize && cut.right.len() >= k as usize);
        }
        prop_assert!(groups.iter().all(|g| g.rows.len() >= k as usize) || rows.len() < k as usize);
    }

    #[test]
    fn no_leaf_keeps_a_numeric_cut_its_model_allows(
        ds in wide_table(), k in 1u32..8, l in 1u32..5, which in 0u8..3, hierarchy in any::<bool>()
    ) {
        // Every threshold of the numeric QI is a candidate cut, so a leaf
        // where some threshold leaves two sides that satisfy the model
        // (counted from the rows, not by `Allowable`) was not cut as
        // finely as the rule allows.
        let q = request(&ds, k, l, hierarchy);
        let Ok(release) = variant(which).run(&q, &Progress::new()) else {
            return Ok(());
        };
        let age = ds.col(0);
        for g in &release.groups {
            let mut rows = g.rows.clone();
            rows.sort_by_key(|&r| age.code(r as usize));
            for at in 1..rows.len() {
                let (a, b) = (age.code(rows[at - 1] as usize), age.code(rows[at] as usize));
                if a == b {
                    continue;
                }
                let (left, right) = rows.split_at(at);
                prop_assert!(
                    !(satisfies(&ds, which, k, l, left) && satisfies(&ds, which, k, l, right)),
                    "group {:?} could still be cut after {} rows", g.rows, at
                );
            }
        }
    }
}
