//! Properties of the p-sensitive algorithms: on random tables
//! every release of pk-enhanced and pk-greedy is p-sensitive k-anonymous by
//! the independent verifier, publishes every row in at most maxClusters
//! groups (Condition 2) — or the request is refused, and then for a correct
//! reason (k above n, or an attribute with fewer than p values, Condition 1).
//! And the verifier rejects releases that break the claims.

use anonlab::algorithms::pk::{max_clusters, PkOptions};
use anonlab::algorithms::{by_id, Options, Request};
use anonlab::data::Dataset;
use anonlab::privacy::verify::verify;
use anonlab::progress::Progress;
use anonlab::release::{Cell, EquivalenceGroup, Guarantee, ProtectedSubtree, Release};
use proptest::prelude::*;

fn table(rows: &[(u8, u8, u8, u8)]) -> Dataset {
    let strings: Vec<Vec<String>> = rows
        .iter()
        .map(|&(a, b, s, t)| {
            vec![
                (20 + a as u32 * 7).to_string(),
                format!("c{b}"),
                format!("s{s}"),
                format!("t{t}"),
            ]
        })
        .collect();
    let refs: Vec<Vec<&str>> = strings
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect();
    Dataset::from_rows(&["age", "cat", "s", "t"], &refs).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn releases_are_p_sensitive_k_anonymous_or_refused_for_a_reason(
        rows in prop::collection::vec((0u8..6, 0u8..4, 0u8..5, 0u8..3), 1..40),
        k in 1u32..6,
        p in 1u32..5,
        two in any::<bool>(),
    ) {
        let ds = table(&rows);
        let sensitive = if two { vec![2, 3] } else { vec![2] };
        let mut options = Options::default();
        options.pk.p = p;
        let req = Request { ds: &ds, qi: vec![0, 1], sensitive: sensitive.clone(), identifiers: vec![], k, l: 1, seed: 9, options };
        let bound = max_clusters(&ds, &sensitive, &PkOptions { p, ..Default::default() }).unwrap();
        let fewest = sensitive.iter().map(|&s| ds.col(s).frequencies().iter().filter(|&&f| f > 0).count()).min().unwrap();
        for id in ["pk-enhanced", "pk-greedy"] {
            match by_id(id).unwrap().run(&req, &Progress::new()) {
                Ok(r) => {
                    let v = verify(&r, &ds);
                    prop_assert!(v.all_hold(), "{}: {}", id, v);
                    prop_assert_eq!(r.published_rows(), ds.n_rows());
                    prop_assert!(r.groups.len() <= bound.max_clusters);
                    prop_assert!(fewest >= p as usize && k as usize <= ds.n_rows());
                }
                Err(e) => {
                    let e = e.to_string();
                    if k as usize > ds.n_rows() {
                        prop_assert!(e.contains("larger than the data"), "{}", e);
                    } else {
                        prop_assert!(fewest < p as usize, "{} refused a feasible request: {}", id, e);
                        prop_assert!(e.contains("Condition 1") && e.contains("maxClusters = 0"), "{}", e);
                    }
                }
            }
        }
    }
}

fn small() -> (Dataset, Release) {
    let ds = table(&[(0, 0, 0, 0), (1, 0, 1, 0), (2, 1, 0, 1), (3, 1, 0, 2)]);
    let mut r = Release::new("hand", &ds, vec![0, 1], vec![2, 3]);
    for rows in [vec![0, 1], vec![2, 3]] {
        r.groups.push(EquivalenceGroup {
            rows,
            cells: vec![Cell::Suppressed, Cell::Suppressed],
        });
    }
    (ds, r)
}

#[test]
fn the_verifier_rejects_a_group_with_too_few_sensitive_values() {
    let (ds, mut r) = small();
    // Group 1 holds s0 twice: 1-sensitive on 's'.
    r.claims = vec![Guarantee::PSensitiveKAnonymity {
        k: 2,
        p: 2,
        attributes: vec!["s".into(), "t".into()],
    }];
    let v = verify(&r, &ds);
    assert!(!v.all_hold());
    let f = v.failures().next().unwrap();
    assert!(
        f.detail.contains("group 1") && f.detail.contains("'s'"),
        "{}",
        f.detail
    );
    r.claims = vec![Guarantee::PSensitiveKAnonymity {
        k: 3,
        p: 1,
        attributes: vec!["s".into()],
    }];
    assert!(verify(&r, &ds)
        .failures()
        .any(|c| c.detail.contains("fewer than k = 3")));
    r.claims = vec![Guarantee::PSensitiveKAnonymity {
        k: 2,
        p: 1,
        attributes: vec!["s".into(), "t".into()],
    }];
    assert!(verify(&r, &ds).all_hold());
}

#[test]
fn the_verifier_counts_protected_subtrees_not_values() {
    let (ds, mut r) = small();
    // t: group 1 holds t0, t0; group 2 t1, t2 — 2 values, but in one
    // protected subtree if t1 and t2 share it.
    let claim = |values: Vec<&str>| Guarantee::ExtendedPSensitivity {
        attribute: "t".into(),
        p: 2,
        subtrees: vec![ProtectedSubtree {
            root: "T12".into(),
            values: values.into_iter().map(String::from).collect(),
        }],
    };
    r.groups.swap(0, 1);
    r.claims = vec![claim(vec!["t1", "t2"])];
    let v = verify(&r, &ds);
    assert!(
        v.failures()
            .any(|c| c.detail.contains("1 protected subtrees")),
        "{v}"
    );
    r.groups.truncate(1);
    r.suppressed_rows = vec![0, 1];
    r.claims = vec![claim(vec!["t1"])];
    assert!(verify(&r, &ds).all_hold(), "{}", verify(&r, &ds));
}
