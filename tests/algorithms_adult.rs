//! Mondrian, Mondrian-l and Anatomy on UCI Adult (30,162 rows), with the
//! cross-bucket paper's setting: QIs sex, age, race, marital-status,
//! education, native-country, workclass; sensitive occupation; k = 3,
//! l = 2..=6. Each release is checked directly against the definitions
//! (partition, group sizes, covering cells, l from the counts) and by the
//! independent verifier `privacy::verify`. Skipped with
//! a notice when `../shared/data/adult/` is absent (a failure under
//! `CI=true`). Their speed is timed by `cargo bench --bench anonymize`.

use anonlab::algorithms::{by_id, Request};
use anonlab::data::Dataset;
use anonlab::privacy::verify;
use anonlab::progress::Progress;
use anonlab::release::{Guarantee, Release};

use crate::common;
use common::{adult, ADULT_QI7 as QI7};

fn request<'a>(ds: &'a Dataset, qi: &[&str], k: u32, l: u32) -> Request<'a> {
    common::occupation_request(ds, qi, k, l, 2006)
}

/// Every row in exactly one group, no suppression, and every cell contains
/// the values of its group's rows. Also runs the independent verifier on every claim.
fn assert_partition_and_covering(ds: &Dataset, r: &Release) {
    let v = verify(r, ds);
    assert!(v.all_hold(), "{}: {v}", r.algorithm);
    let mut seen = vec![0u8; ds.n_rows()];
    for g in &r.groups {
        for &row in &g.rows {
            seen[row as usize] += 1;
        }
        for (cell, &c) in g.cells.iter().zip(&r.quasi_identifiers) {
            let col = ds.col(c);
            for &row in &g.rows {
                let code = col.code(row as usize);
                assert!(cell.contains(code, code), "{}: {cell:?}", col.name());
            }
        }
    }
    assert!(seen.iter().all(|&s| s == 1), "not a partition of the rows");
    assert!(r.suppressed_rows.is_empty());
}

fn distinct(ds: &Dataset, col: usize, rows: &[u32]) -> usize {
    let mut v: Vec<u32> = rows.iter().map(|&r| ds.col(col).code(r as usize)).collect();
    v.sort_unstable();
    v.dedup();
    v.len()
}

#[test]
fn adult_mondrian_k5_on_eight_qis() {
    let Some(ds) = adult() else { return };
    let mut qi = QI7.to_vec();
    qi.push("occupation");
    // Occupation is a quasi-identifier here, so not also the sensitive
    // attribute (the library refuses a column in two roles).
    let mut req = request(&ds, &qi, 5, 0);
    req.sensitive.clear();
    let r = by_id("mondrian")
        .unwrap()
        .run(&req, &Progress::new())
        .unwrap();
    assert_partition_and_covering(&ds, &r);
    assert!(r.group_sizes().iter().all(|&s| s >= 5));
    assert_eq!(r.claims, vec![Guarantee::KAnonymity { k: 5 }]);
    // Cuts near the median keep groups below 2k, except where equal QI
    // values block every cut.
    let small = r.groups.iter().filter(|g| g.rows.len() < 10).count();
    assert!(small * 2 > r.groups.len(), "{small} of {}", r.groups.len());
}

#[test]
fn adult_mondrian_l_k3_l2_to_l6() {
    // mondrian-l: the cross-bucket paper's Definition 6, p(t, s) ≤ 1/l —
    // in every group no occupation on more than 1/l of the rows;
    // mondrian-distinct-l: at least l occupations per group.
    let Some(ds) = adult() else { return };
    let occupation = ds.column_index("occupation").unwrap();
    for l in 2..=6 {
        let req = request(&ds, &QI7, 3, l);
        let r = by_id("mondrian-l")
            .unwrap()
            .run(&req, &Progress::new())
            .unwrap();
        assert_partition_and_covering(&ds, &r);
        for g in &r.groups {
            assert!(g.rows.len() >= 3);
            let most = most_frequent(&ds, occupation, &g.rows);
            assert!(
                most * l as usize <= g.rows.len(),
                "l = {l}: {most} of {}",
                g.rows.len()
            );
        }
        assert!(r.claims.contains(&Guarantee::BreachProbability {
            attribute: "occupation".into(),
            l
        }));
        let r = by_id("mondrian-distinct-l")
            .unwrap()
            .run(&req, &Progress::new())
            .unwrap();
        assert_partition_and_covering(&ds, &r);
        for g in &r.groups {
            assert!(g.rows.len() >= 3);
            assert!(distinct(&ds, occupation, &g.rows) >= l as usize, "l = {l}");
        }
        assert!(r.claims.contains(&Guarantee::GroupLDiversity {
            attribute: "occupation".into(),
            l
        }));
    }
}

fn most_frequent(ds: &Dataset, col: usize, rows: &[u32]) -> usize {
    let mut counts = std::collections::HashMap::new();
    for &r in rows {
        *counts.entry(ds.col(col).code(r as usize)).or_insert(0usize) += 1;
    }
    counts.into_values().max().unwrap_or(0)
}

#[test]
fn adult_anatomy_l2_to_l6() {
    let Some(ds) = adult() else { return };
    let occupation = ds.column_index("occupation").unwrap();
    for l in 2..=6 {
        let req = request(&ds, &QI7, 3, l);
        let r = by_id("anatomy")
            .unwrap()
            .run(&req, &Progress::new())
            .unwrap();
        assert_partition_and_covering(&ds, &r);
        assert_eq!(r.groups.len(), r.buckets.len());
        for (g, b) in r.groups.iter().zip(&r.buckets) {
            assert_eq!(g.rows, b.rows);
            assert!(b.rows.len() >= l as usize);
            // No occupation twice in a bucket: p(t, s) ≤ 1/|bucket| ≤ 1/l.
            assert_eq!(distinct(&ds, occupation, &b.rows), b.rows.len());
        }
        assert_eq!(r.params.seed, Some(2006));
        assert_eq!(
            r.claims,
            vec![Guarantee::BucketLDiversity {
                attribute: "occupation".into(),
                l
            }]
        );
    }
}
