//! Golden tests on the cross-bucket paper's Fig. 1b: eight hospital records
//! (IDs 101–108) with Age, Sex and Zip code as quasi-identifiers and
//! Disease as the sensitive attribute. Expected groups are worked out by
//! hand from each algorithm's `//!` doc, in the comments beside them.

use anonlab::algorithms::{by_id, Request};
use anonlab::data::Dataset;
use anonlab::progress::Progress;
use anonlab::release::{Guarantee, Release};

/// Fig. 1b of the cross-bucket paper, columns ID, Age, Sex, Zip code,
/// Disease (0–4).
fn fig1b() -> Dataset {
    let rows = [
        ["101", "16", "Female", "43307", "Flu"],
        ["102", "22", "Male", "43302", "Dyspepsia"],
        ["103", "24", "Female", "43306", "Hepatitis"],
        ["104", "26", "Male", "43307", "Bronchitis"],
        ["105", "29", "Male", "43309", "Bronchitis"],
        ["106", "31", "Female", "43312", "Pneumonia"],
        ["107", "34", "Female", "43312", "Gastritis"],
        ["108", "35", "Male", "43309", "Dyspepsia"],
    ];
    let rows: Vec<Vec<&str>> = rows.iter().map(|r| r.to_vec()).collect();
    Dataset::from_rows(&["ID", "Age", "Sex", "Zip code", "Disease"], &rows).unwrap()
}

fn fig1b_request(ds: &Dataset, k: u32, l: u32) -> Request<'_> {
    Request {
        ds,
        qi: vec![1, 2, 3],
        sensitive: vec![4],
        identifiers: vec![0],
        k,
        l,
        seed: 42,
    }
}

/// Every row in exactly one group, each group's cells containing its rows'
/// values, and the independent verifier's checks all hold; returns the
/// groups as paper IDs with rendered cells.
fn mondrian_groups_checked(ds: &Dataset, r: &Release) -> Vec<String> {
    let mut seen = [0u32; 8];
    let mut out = Vec::new();
    for g in &r.groups {
        for &row in &g.rows {
            seen[row as usize] += 1;
            for (cell, &c) in g.cells.iter().zip(&r.quasi_identifiers) {
                let code = ds.col(c).code(row as usize);
                assert!(cell.contains(code, code), "row {row}: {cell:?}");
            }
        }
        let ids: Vec<&str> = g.rows.iter().map(|&x| ds.col(0).display(x)).collect();
        let cells: Vec<String> = g
            .cells
            .iter()
            .zip(&r.quasi_identifiers)
            .map(|(cell, &c)| cell.render(ds.col(c), 0))
            .collect();
        out.push(format!("{} {}", ids.join(","), cells.join(" ")));
    }
    assert_eq!(seen, [1; 8]);
    assert_eq!(r.identifiers, vec![0]);
    let v = anonlab::privacy::verify(r, ds);
    assert!(v.all_hold(), "{v}");
    out
}

#[test]
fn fig1b_mondrian_k2_cuts_age_then_sex() {
    // All three QIs span their whole range at the root; the tie goes to Age,
    // cut at its lower median 26: {16..26} | {29..35}. In each half Sex
    // (both values: 2/2) is wider than Age and Zip, so Sex is cut next,
    // leaving pairs, which k = 2 can't cut.
    let ds = fig1b();
    let r = by_id("mondrian")
        .unwrap()
        .run(&fig1b_request(&ds, 2, 0), &Progress::new())
        .unwrap();
    assert_eq!(
        mondrian_groups_checked(&ds, &r),
        [
            "101,103 [16-24] Female [43306-43307]",
            "102,104 [22-26] Male [43302-43307]",
            "106,107 [31-34] Female 43312",
            "105,108 [29-35] Male 43309",
        ]
    );
    assert_eq!(r.claims, vec![Guarantee::KAnonymity { k: 2 }]);
}

#[test]
fn fig1b_mondrian_k3_k4_keep_the_age_halves() {
    // Halves of four rows can't be cut into two groups of ≥ 3.
    let ds = fig1b();
    for k in [3, 4] {
        let r = by_id("mondrian")
            .unwrap()
            .run(&fig1b_request(&ds, k, 0), &Progress::new())
            .unwrap();
        assert_eq!(
            mondrian_groups_checked(&ds, &r),
            [
                "101,102,103,104 [16-26] * [43302-43307]",
                "105,106,107,108 [29-35] * [43309-43312]",
            ],
            "k = {k}"
        );
        assert!(r.group_sizes().iter().all(|&s| s >= k));
        assert_eq!(r.claims, vec![Guarantee::KAnonymity { k }]);
    }
}

#[test]
fn fig1b_mondrian_l2_groups_hold_two_diseases() {
    // The k = 2 cuts already leave two diseases per pair, so l = 2 allows
    // them all.
    let ds = fig1b();
    let r = by_id("mondrian-l")
        .unwrap()
        .run(&fig1b_request(&ds, 2, 2), &Progress::new())
        .unwrap();
    assert_eq!(mondrian_groups_checked(&ds, &r).len(), 4);
    let disease = ds.col(4);
    for g in &r.groups {
        let mut v: Vec<u32> = g.rows.iter().map(|&x| disease.code(x as usize)).collect();
        v.sort_unstable();
        v.dedup();
        assert!(v.len() >= 2 && g.rows.len() >= 2);
    }
    assert_eq!(
        r.claims,
        vec![
            Guarantee::KAnonymity { k: 2 },
            Guarantee::GroupLDiversity {
                attribute: "Disease".into(),
                l: 2
            }
        ]
    );
}

#[test]
fn fig1b_anatomy_l2_to_l4_buckets_are_l_diverse() {
    // Bronchitis and Dyspepsia occur twice, so l ≤ 8/2 = 4.
    let ds = fig1b();
    let disease = ds.col(4);
    for l in 2..=4u32 {
        let r = by_id("anatomy")
            .unwrap()
            .run(&fig1b_request(&ds, 1, l), &Progress::new())
            .unwrap();
        let mut seen = [0u32; 8];
        for b in &r.buckets {
            let mut v: Vec<u32> = b.rows.iter().map(|&x| disease.code(x as usize)).collect();
            v.sort_unstable();
            v.dedup();
            assert_eq!(v.len(), b.rows.len(), "l = {l}: a disease twice");
            assert!(b.rows.len() >= l as usize, "l = {l}");
            for &row in &b.rows {
                seen[row as usize] += 1;
            }
        }
        assert_eq!(seen, [1; 8]);
        assert_eq!(r.groups.len(), r.buckets.len());
        let v = anonlab::privacy::verify(&r, &ds);
        assert!(v.all_hold(), "l = {l}: {v}");
        assert_eq!(
            r.claims,
            vec![Guarantee::BucketLDiversity {
                attribute: "Disease".into(),
                l
            }]
        );
    }
    // l = 4: the two largest (Bronchitis, Dyspepsia) go first, so both
    // buckets hold one of each: two buckets of four, as in Fig. 2b.
    let r = by_id("anatomy")
        .unwrap()
        .run(&fig1b_request(&ds, 1, 4), &Progress::new())
        .unwrap();
    assert_eq!(r.group_sizes(), vec![4, 4]);
    // l = 5 is refused: Bronchitis is on 2 of 8 rows.
    let e = by_id("anatomy")
        .unwrap()
        .run(&fig1b_request(&ds, 1, 5), &Progress::new())
        .unwrap_err();
    assert!(e.to_string().contains("not 5-eligible"), "{e}");
}
