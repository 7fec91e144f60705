use super::*;
use crate::data::examples::cross_bucket_fig1b as fig1b;
use crate::data::Column;
use crate::partition::counts_of_rows;
use crate::progress::Progress;
use crate::release::examples::{interval, value};
use crate::release::{Bucket, Cell, EquivalenceGroup, LocalBuckets};
use crate::risk::Matching;

fn disease() -> String {
    "Disease".to_string()
}

/// The paper's Fig. 4 with the claims it makes: (2, 4)-anonymous
/// cross-bucket generalization.
fn fig4(ds: &Dataset) -> Release {
    let mut r = crate::release::examples::cross_bucket_fig4(ds);
    r.claims = vec![
        Guarantee::KAnonymity { k: 2 },
        Guarantee::CrossBucketLDiversity {
            attribute: disease(),
            l: 4,
        },
    ];
    r
}

/// The paper's Fig. 2b: Anatomy-like 4-diverse buckets.
fn fig2b(ds: &Dataset) -> Release {
    let mut r = crate::release::examples::cross_bucket_fig2b(ds);
    r.claims = vec![Guarantee::BucketLDiversity {
        attribute: disease(),
        l: 4,
    }];
    r
}

fn failed(v: &Verification) -> Vec<String> {
    v.failures()
        .map(|c| format!("{}: {}", c.claim, c.detail))
        .collect()
}

#[test]
fn the_papers_tables_pass() {
    let ds = fig1b();
    for r in [fig4(&ds), fig2b(&ds)] {
        let v = verify(&r, &ds);
        assert!(v.all_hold(), "{v}");
        assert_eq!(v.checks.len(), 6 + r.claims.len());
    }
    // Fig. 4's groups of two hold two distinct diseases each.
    let mut r = fig4(&ds);
    r.claims.push(Guarantee::GroupLDiversity {
        attribute: disease(),
        l: 2,
    });
    assert!(verify(&r, &ds).all_hold());
}

#[test]
fn breach_probability_claims_are_checked_by_section_4_1() {
    let ds = fig1b();
    // Fig. 4 and Fig. 2b give every tuple p(t, s) = 1/4 (the paper).
    for mut r in [fig4(&ds), fig2b(&ds)] {
        r.claims = vec![Guarantee::BreachProbability {
            attribute: disease(),
            l: 4,
        }];
        assert!(verify(&r, &ds).all_hold(), "{}", verify(&r, &ds));
        r.claims = vec![Guarantee::BreachProbability {
            attribute: disease(),
            l: 5,
        }];
        let v = verify(&r, &ds);
        assert!(!v.all_hold());
        assert!(failed(&v)[0].contains("> 1/5"), "{v}");
    }
}

#[test]
fn shared_matching_and_breach_give_the_same_checks() {
    let ds = fig1b();
    let d = ds.column_index(&disease()).unwrap();
    for mut r in [fig4(&ds), fig2b(&ds)] {
        for l in [4, 5] {
            r.claims = vec![
                Guarantee::BreachProbability {
                    attribute: disease(),
                    l,
                },
                Guarantee::CrossBucketLDiversity {
                    attribute: disease(),
                    l: 2,
                },
            ];
            let m = Matching::new(&r, &ds, &Progress::new()).unwrap();
            let b = crate::risk::breach_from(&m, &r, &ds, d, &Progress::new()).unwrap();
            let alone = verify(&r, &ds);
            for shared in [
                Shared {
                    matching: Some(&m),
                    breach: Some((d, &b)),
                },
                Shared {
                    matching: Some(&m),
                    breach: None,
                },
            ] {
                assert_eq!(verify_with(&r, &ds, shared), alone);
            }
            // A breach of another attribute is not taken for this one's.
            let other = Shared {
                matching: None,
                breach: Some((0, &b)),
            };
            assert_eq!(verify_with(&r, &ds, other), alone);
        }
    }
}

#[test]
fn wrong_k_is_rejected() {
    let ds = fig1b();
    let mut r = fig4(&ds);
    r.claims[0] = Guarantee::KAnonymity { k: 3 };
    let v = verify(&r, &ds);
    assert_eq!(
        failed(&v),
        vec!["3-anonymity: group 0 has 2 rows, fewer than k = 3"]
    );
}

#[test]
fn original_cells_tell_a_groups_rows_apart() {
    let ds = fig1b();
    // Fig. 2b claims nothing about identity, and rightly: its one group
    // of eight publishes every QI value, which are all distinct.
    let mut r = fig2b(&ds);
    r.claims = vec![Guarantee::KAnonymity { k: 2 }];
    assert_eq!(
        failed(&verify(&r, &ds)),
        vec!["2-anonymity: group 0 publishes original values, and only 1 of its rows share theirs: fewer than k = 2"]
    );
    // Keeping only sex exact and suppressing the rest: F and M classes of 4.
    r.groups[0].cells = vec![Cell::Suppressed, Cell::Original, Cell::Suppressed];
    r.claims = vec![Guarantee::KAnonymity { k: 4 }];
    assert!(verify(&r, &ds).all_hold());
}

#[test]
fn an_untruthful_cell_is_rejected() {
    let ds = fig1b();
    let mut r = fig4(&ds);
    // 103 is 24, outside [16-22].
    r.groups[0].cells[0] = interval(&ds, 1, "16", "22");
    let v = verify(&r, &ds);
    let f = failed(&v);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].contains("group 0 publishes Age = [16-22] but row 2 holds 24"),
        "{f:?}"
    );
}

#[test]
fn a_label_that_misstates_its_values_is_rejected() {
    // Construction's `"to": "39"` given to people aged 70, a hierarchy
    // node 'Female' over men, and an f64-rounded interval label: each
    // group's codes hold its rows, so only the text lies.
    let ds = Dataset::from_rows(
        &["age", "sex"],
        &[vec!["70", "Male"], vec!["1", "Male"], vec!["2", "Female"]],
    )
    .unwrap();
    let age = ds.col(0);
    let sex = ds.col(1);
    let labelled = |codes: Vec<u32>, label: &str| Cell::Set {
        codes,
        label: Some(label.into()),
    };
    let code = |col: &Column, v: &str| col.code_of(v).unwrap();
    let release = |age_cell: Cell, sex_cell: Cell, rows: Vec<u32>| {
        let mut r = Release::new("test", &ds, vec![0, 1], vec![]);
        r.suppressed_rows = (0..3).filter(|x| !rows.contains(x)).collect();
        r.groups.push(crate::release::EquivalenceGroup {
            rows,
            cells: vec![age_cell, sex_cell],
        });
        r
    };
    let cases = [
        (
            release(
                labelled(vec![code(age, "70")], "39"),
                Cell::Suppressed,
                vec![0],
            ),
            "publishes age = 39 but holds 70",
        ),
        (
            release(
                Cell::Suppressed,
                labelled(vec![code(sex, "Male")], "Female"),
                vec![0],
            ),
            "publishes sex = Female but holds Male",
        ),
        (
            release(
                labelled(
                    vec![code(age, "1"), code(age, "2")],
                    "[7766279631452242000-7766279631452242000]",
                ),
                Cell::Suppressed,
                vec![1, 2],
            ),
            "but holds 1",
        ),
    ];
    for (r, expected) in cases {
        let f = failed(&verify(&r, &ds));
        assert!(f.len() == 1 && f[0].contains(expected), "{expected}: {f:?}");
    }
    // The same cells with true labels pass.
    let ok = release(
        labelled(vec![code(age, "1"), code(age, "2")], "[0-4]"),
        labelled(vec![code(sex, "Female"), code(sex, "Male")], "person"),
        vec![1, 2],
    );
    assert!(verify(&ok, &ds).all_hold(), "{}", verify(&ok, &ds));
}

#[test]
fn a_duplicated_value_in_a_bucket_is_rejected() {
    let ds = fig1b();
    let mut r = fig2b(&ds);
    // Swap 104 (Bronchitis) and 108 (Dyspepsia): bucket 0 then holds
    // Dyspepsia twice (102 and 108), bucket 1 Bronchitis twice; the
    // first is named.
    r.buckets[0].rows = vec![0, 1, 2, 7];
    r.buckets[1].rows = vec![4, 5, 6, 3];
    let f = failed(&verify(&r, &ds));
    assert_eq!(
        f,
        vec!["4-diverse buckets of 'Disease': bucket 0 holds 'Dyspepsia' 2 times"]
    );
}

#[test]
fn a_value_repeated_across_matching_buckets_violates_corollary_2() {
    let ds = fig1b();
    let mut r = fig4(&ds);
    // Widen group {105, 108} to [16-35] × Male × [43302-43309]: 102
    // (22, M, 43302) now matches 105 and 108 as well as its own group,
    // and their buckets 2 {Bronchitis, Pneumonia} and 3 {Gastritis,
    // Dyspepsia} repeat values of buckets 0 {Flu, Dyspepsia} and
    // 1 {Hepatitis, Bronchitis}.
    r.groups[2].cells = vec![
        interval(&ds, 1, "16", "35"),
        value(&ds, 2, "Male"),
        interval(&ds, 3, "43302", "43309"),
    ];
    let v = verify(&r, &ds);
    let f = failed(&v);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].starts_with("cross-bucket 4-diversity of 'Disease' (Corollary 2): tuple 1:"),
        "{f:?}"
    );
    assert!(
        f[0].contains("'Bronchitis' appears in buckets 1 and 2"),
        "{f:?}"
    );
}

#[test]
fn a_bucket_too_likely_violates_corollary_2() {
    let ds = fig1b();
    let mut r = fig4(&ds);
    // Buckets {101, 103} and {102, 104}: each group's two tuples share
    // one bucket, so p(t,MB)/|MB| = (2/2)/2 = ½ > ¼.
    r.buckets[0].rows = vec![0, 2];
    r.buckets[1].rows = vec![1, 3];
    let f = failed(&verify(&r, &ds));
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].contains("tuple 0: matching bucket 0 has p(t,MB)/|MB| = (2/2)/2 > 1/4"),
        "{f:?}"
    );
}

#[test]
fn structure_errors_are_named() {
    let ds = fig1b();
    let mut r = fig4(&ds);
    r.groups[3].rows = vec![5];
    let f = failed(&verify(&r, &ds));
    assert!(
        f.iter()
            .any(|m| m.contains("row 6 is neither published nor suppressed")),
        "{f:?}"
    );

    let mut r = fig4(&ds);
    r.buckets[3].rows = vec![6, 7, 0];
    let f = failed(&verify(&r, &ds));
    assert!(
        f.iter()
            .any(|m| m.contains("row 0 is in bucket 0 and in bucket 3")),
        "{f:?}"
    );

    let mut r = fig4(&ds);
    r.groups[0].cells.pop();
    let v = verify(&r, &ds);
    let f = failed(&v);
    assert!(f[0].contains("group 0 has 2 cells for 3 quasi-identifiers"));
    assert!(f.iter().any(|m| m.contains("not checked")));

    let mut r = fig4(&ds);
    r.groups[0].rows.push(42);
    let f = failed(&verify(&r, &ds));
    assert!(f[0].contains("group 0 holds row 42"), "{f:?}");

    let mut r = fig4(&ds);
    r.quasi_identifiers[0] = 0;
    r.groups
        .iter_mut()
        .for_each(|g| g.cells[0] = Cell::Original);
    let f = failed(&verify(&r, &ds));
    assert!(f.iter().any(|m| m.contains("identifier 'ID' is published")));
}

#[test]
fn unbucketed_rows_break_bucket_l_diversity() {
    let ds = fig1b();
    let mut r = fig2b(&ds);
    r.buckets.pop();
    let f = failed(&verify(&r, &ds));
    assert_eq!(f.len(), 1);
    assert!(
        f[0].contains("row 4 is published outside every bucket"),
        "{f:?}"
    );
    // Local buckets only cover the sensitive cells: rows outside are fine.
    let mut r = fig2b(&ds);
    r.local_buckets = vec![LocalBuckets {
        column: 4,
        buckets: vec![r.buckets[0].clone()],
    }];
    r.buckets.clear();
    r.sensitive.clear();
    assert!(verify(&r, &ds).all_hold());
}

/// The LGB patients' release (hand-built) with Corollary 3 claimed for
/// its three attributes, k = 2, l = 2.
fn lgb() -> (Dataset, Release) {
    let ds = crate::data::examples::lgb_patients();
    let mut r = crate::release::examples::lgb_patients_fig2(&ds);
    r.claims = ["Age", "Zip", "Disease"]
        .iter()
        .map(|a| Guarantee::LocalLDiversity {
            k: 2,
            attribute: a.to_string(),
            l: 2,
        })
        .collect();
    (ds, r)
}

#[test]
fn lgb_release_passes_corollary_3() {
    let (ds, r) = lgb();
    let v = verify(&r, &ds);
    assert!(v.all_hold(), "{v}");
    assert!(v
        .checks
        .iter()
        .any(|c| c.claim == "local groups and local buckets are consistent (LGB)"));
    let disease = v.checks.last().unwrap();
    assert_eq!(
        disease.detail,
        "smallest group 2 rows; 4 local buckets of 8 sensitive cells, smallest 2"
    );
}

#[test]
fn lgb_corollary_3_violations_are_rejected() {
    // (1) a local group of one row: 1008 moved out of G2 into a group of
    // its own (same cells, same subset).
    let (ds, mut r) = lgb();
    r.groups[1].rows = vec![4];
    r.groups.push(EquivalenceGroup {
        rows: vec![7],
        cells: r.groups[1].cells.clone(),
    });
    r.qi_partition[0].groups.push(4);
    let f = failed(&verify(&r, &ds));
    assert_eq!(f.len(), 3, "{f:?}");
    assert!(
        f[0].ends_with("(Corollary 3): (1) local group 1 has 1 rows, fewer than k = 2"),
        "{f:?}"
    );
    // (2) a value twice in a local bucket: Disease buckets {Flu 1001,
    // Flu 1007} and {Dyspepsia 1002, Dyspepsia 1008}.
    let (ds, mut r) = lgb();
    r.local_buckets[2].buckets[0].rows = vec![0, 6];
    r.local_buckets[2].buckets[2].rows = vec![1, 7];
    assert_eq!(
        failed(&verify(&r, &ds)),
        vec!["(2, 2) local generalization and bucketization of 'Disease' (Corollary 3): (2) local bucket 0 holds 'Flu' 2 times"]
    );
    // (3) a local bucket smaller than l: {Pneumonia 1003, Bronchitis
    // 1005} split in two.
    let (ds, mut r) = lgb();
    r.local_buckets[2].buckets[1].rows = vec![2];
    r.local_buckets[2].buckets.push(Bucket { rows: vec![4] });
    assert_eq!(
        failed(&verify(&r, &ds)),
        vec!["(2, 2) local generalization and bucketization of 'Disease' (Corollary 3): (3) local bucket 1 has 1 rows, fewer than l = 2"]
    );
}

#[test]
fn lgb_structure_violations_are_rejected() {
    let structure = |r: &Release, ds: &Dataset| -> String {
        let v = verify(r, ds);
        let c = v
            .checks
            .iter()
            .find(|c| c.claim.starts_with("local groups and local buckets"))
            .unwrap();
        assert!(!c.holds, "{v}");
        c.detail.clone()
    };
    // A sensitive Zip cell published: G3 shows [43306-43312].
    let (ds, mut r) = lgb();
    r.groups[2].cells[2] = interval(&ds, 4, "43306", "43312");
    assert_eq!(
        structure(&r, &ds),
        "group 2 publishes [43306-43312] on 'Zip', where its cells are sensitive"
    );
    // Age's local bucket lost: 1003's hidden age is nowhere.
    let (ds, mut r) = lgb();
    r.local_buckets.remove(0);
    assert_eq!(
        structure(&r, &ds),
        "row 2's sensitive cell on 'Age' (group 3) is in no local bucket"
    );
    // 1001's age, a QI value, bucketed with the hidden ones.
    let (ds, mut r) = lgb();
    r.local_buckets[0].buckets[0].rows = vec![0, 2, 6];
    assert_eq!(
        structure(&r, &ds),
        "row 0 carries a QI value on 'Age' in group 0 but is in one of its local buckets"
    );
    // A sensitive Disease value outside every local bucket.
    let (ds, mut r) = lgb();
    r.local_buckets[2].buckets[3].rows = vec![3];
    assert_eq!(
        structure(&r, &ds),
        "row 5's value of sensitive 'Disease' is in no local bucket"
    );
    // A group outside the QI partition; a plain QI hidden.
    let (ds, mut r) = lgb();
    r.qi_partition[0].groups = vec![0];
    assert_eq!(
        structure(&r, &ds),
        "group 1 is in no subset of the QI partition"
    );
    let (ds, mut r) = lgb();
    r.qi_partition[0].qi = vec![2, 4];
    r.groups[0].cells[0] = Cell::Suppressed;
    assert_eq!(
        structure(&r, &ds),
        "group 0 hides 'Gender', which is a plain quasi-identifier"
    );
}

#[test]
fn lgb_t_closeness_of_local_buckets() {
    let (ds, mut r) = lgb();
    // Disease's 8 cells: Dyspepsia, Flu, Pneumonia 2/8 each,
    // Bronchitis, Gastritis 1/8. Bucket {Dyspepsia, Flu} is at equal
    // distance ½(2·|½ − ¼| + ¼ + ⅛ + ⅛) = ½, buckets {Pneumonia,
    // Bronchitis} and {Gastritis, Pneumonia} at ½(|½ − ¼| + |½ − ⅛| + ¼
    // + ¼ + ⅛) = 5/8, the largest (the last of them is named).
    r.claims = vec![Guarantee::LocalTCloseness {
        attribute: disease(),
        t: 0.625,
    }];
    let v = verify(&r, &ds);
    assert!(v.all_hold(), "{v}");
    r.claims = vec![Guarantee::LocalTCloseness {
        attribute: disease(),
        t: 0.6,
    }];
    assert_eq!(
        failed(&verify(&r, &ds)),
        vec!["0.6-closeness of the local buckets of 'Disease': local bucket 3 of 'Disease' is at EMD 0.625000 from the distribution of its sensitive cells, more than t = 0.6"]
    );
    // Not an attribute LGB protects.
    r.claims = vec![Guarantee::LocalTCloseness {
        attribute: "Gender".into(),
        t: 0.6,
    }];
    assert!(failed(&verify(&r, &ds))[0]
        .ends_with("'Gender' is neither semi-sensitive nor sensitive in this release"));
}

#[test]
fn group_diversity_and_closeness() {
    let ds = fig1b();
    let mut r = Release::new("hand", &ds, vec![1], vec![4]);
    r.push_covering_group(&ds, vec![0, 1, 2]);
    r.push_covering_group(&ds, vec![3, 4]);
    r.push_covering_group(&ds, vec![5, 6, 7]);
    r.claims = vec![
        Guarantee::GroupLDiversity {
            attribute: disease(),
            l: 2,
        },
        // Group {104, 105} is all Bronchitis: EMD (equal distance) is
        // ½(|1 − 2/8| + Σ others) = ½(6/8 + 6/8) = 3/4.
        Guarantee::TCloseness {
            attribute: disease(),
            t: 0.75,
        },
    ];
    let v = verify(&r, &ds);
    let f = failed(&v);
    assert_eq!(
        f,
        vec!["distinct 2-diversity of 'Disease' in every group: group 1 holds 1 distinct values of 'Disease', fewer than l = 2"]
    );
    r.claims[1] = Guarantee::TCloseness {
        attribute: disease(),
        t: 0.7,
    };
    assert_eq!(failed(&verify(&r, &ds)).len(), 2);
    r.claims = vec![Guarantee::GroupLDiversity {
        attribute: "nope".into(),
        l: 2,
    }];
    assert!(failed(&verify(&r, &ds))[0].contains("unknown column 'nope'"));
}

/// Fig. 1b with Age as the only QI and `groups` published as covering
/// groups, claiming `claims`.
fn grouped(ds: &Dataset, groups: &[&[u32]], claims: Vec<Guarantee>) -> Release {
    let mut r = Release::new("hand", ds, vec![1], vec![4]);
    for g in groups {
        r.push_covering_group(ds, g.to_vec());
    }
    r.claims = claims;
    r
}

fn entropy_l(l: f64) -> Guarantee {
    Guarantee::EntropyLDiversity {
        attribute: disease(),
        l,
    }
}

fn recursive(c: f64, l: u32) -> Guarantee {
    Guarantee::RecursiveCLDiversity {
        attribute: disease(),
        c,
        l,
    }
}

#[test]
fn entropy_l_diversity_by_its_definition() {
    let ds = fig1b();
    // {101, 102, 103}: Flu, Dyspepsia, Hepatitis, H = ln 3 exactly (the
    // boundary, which must pass); {104..108}: Bronchitis ×2, Pneumonia,
    // Gastritis, Dyspepsia, H = ln 5 − (2 ln 2)/5 ≈ 1.3322 ≈ ln 3.79.
    let r = grouped(&ds, &[&[0, 1, 2], &[3, 4, 5, 6, 7]], vec![entropy_l(3.0)]);
    let v = verify(&r, &ds);
    assert!(v.all_hold(), "{v}");
    assert_eq!(
        v.checks.last().unwrap().detail,
        "smallest entropy in a group 1.098612 ≥ ln 3 = 1.098612"
    );
    // A fractional l between the two groups' entropies.
    let r = grouped(&ds, &[&[0, 1, 2], &[3, 4, 5, 6, 7]], vec![entropy_l(3.5)]);
    assert_eq!(
        failed(&verify(&r, &ds)),
        vec!["entropy 3.5-diversity of 'Disease' in every group: group 0 has entropy 1.098612 of 'Disease', less than ln 3.5 = 1.252763"]
    );
    // Hand-broken: {104, 105} is all Bronchitis, H = 0. It still holds
    // two rows, so it is 2-anonymous; only the entropy claim fails.
    let r = grouped(
        &ds,
        &[&[0, 1, 2], &[3, 4], &[5, 6, 7]],
        vec![Guarantee::KAnonymity { k: 2 }, entropy_l(1.5)],
    );
    assert_eq!(
        failed(&verify(&r, &ds)),
        vec!["entropy 1.5-diversity of 'Disease' in every group: group 1 has entropy 0.000000 of 'Disease', less than ln 1.5 = 0.405465"]
    );
    // Meaningless parameters are refused, not passed vacuously.
    for l in [0.5, f64::NAN] {
        let r = grouped(&ds, &[&[0, 1, 2, 3, 4, 5, 6, 7]], vec![entropy_l(l)]);
        assert!(failed(&verify(&r, &ds))[0].contains("l must be at least 1"));
    }
}

#[test]
fn recursive_cl_diversity_by_its_definition() {
    let ds = fig1b();
    // Counts sorted: {101..103} 1, 1, 1; {104..108} 2, 1, 1, 1. With
    // l = 3 the tails are 1 and 2, so r_1/tail = 1 in both groups.
    let halves: &[&[u32]] = &[&[0, 1, 2], &[3, 4, 5, 6, 7]];
    let r = grouped(&ds, halves, vec![recursive(1.5, 3)]);
    let v = verify(&r, &ds);
    assert!(v.all_hold(), "{v}");
    assert_eq!(
        v.checks.last().unwrap().detail,
        "largest r_1/(r_3 + … + r_m) in a group 1.0000 < c = 1.5"
    );
    // The inequality is strict: r_1 = c·tail fails.
    let r = grouped(&ds, halves, vec![recursive(1.0, 3)]);
    assert_eq!(
        failed(&verify(&r, &ds)),
        vec!["recursive (1,3)-diversity of 'Disease' in every group: group 0 of 'Disease' has r_1 = 1 ≥ c·(r_3 + … + r_m) = 1·1"]
    );
    // Fewer than l values: no c can help.
    let r = grouped(&ds, halves, vec![recursive(100.0, 4)]);
    assert_eq!(
        failed(&verify(&r, &ds)),
        vec!["recursive (100,4)-diversity of 'Disease' in every group: group 0 holds 3 distinct values of 'Disease', fewer than l = 4"]
    );
    // Hand-broken: {102, 104, 105, 108} is Dyspepsia ×2, Bronchitis ×2,
    // two distinct values (distinct 2-diverse) but r_1 = 2 is not below
    // 1·r_2 = 2.
    let r = grouped(
        &ds,
        &[&[0, 2, 5, 6], &[1, 3, 4, 7]],
        vec![
            Guarantee::GroupLDiversity {
                attribute: disease(),
                l: 2,
            },
            recursive(1.0, 2),
        ],
    );
    assert_eq!(
        failed(&verify(&r, &ds)),
        vec!["recursive (1,2)-diversity of 'Disease' in every group: group 1 of 'Disease' has r_1 = 2 ≥ c·(r_2 + … + r_m) = 1·2"]
    );
    let r = grouped(&ds, halves, vec![recursive(0.0, 2), recursive(2.0, 0)]);
    let f = failed(&verify(&r, &ds));
    assert!(f[0].ends_with("c must be positive, not 0"), "{f:?}");
    assert!(f[1].ends_with("l must be at least 1"), "{f:?}");
}

#[test]
fn entropy_and_recursive_claims_keep_their_json_names() {
    for (g, name) in [
        (entropy_l(2.5), "entropy-l-diversity"),
        (recursive(3.0, 2), "recursive-c-l-diversity"),
    ] {
        let json = serde_json::to_string(&g).unwrap();
        assert!(json.contains(&format!("\"model\":\"{name}\"")), "{json}");
        assert_eq!(serde_json::from_str::<Guarantee>(&json).unwrap(), g);
    }
}

proptest::proptest! {
    /// The verifier's own entropy and recursive checks agree with the
    /// per-class models the algorithms use, group by group.
    #[test]
    fn entropy_and_recursive_agree_with_the_models(
        rows in proptest::collection::vec((0u32..4, 0u32..5), 1..40),
        l_entropy in proptest::sample::select(vec![1.0, 1.5, 2.0, 2.5, 3.0, 4.0]),
        c in proptest::sample::select(vec![0.5, 1.0, 1.5, 2.0, 3.0]),
        l in 1u32..5,
    ) {
        use crate::privacy::models::{satisfies_entropy_l, satisfies_recursive_cl};
        let text: Vec<Vec<String>> = rows
            .iter()
            .map(|&(g, v)| vec![format!("g{g}"), format!("s{v}")])
            .collect();
        let refs: Vec<Vec<&str>> = text
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        let ds = Dataset::from_rows(&["G", "S"], &refs).unwrap();
        let mut r = Release::new("hand", &ds, vec![0], vec![1]);
        for g in 0..4 {
            let members: Vec<u32> = (0..rows.len() as u32)
                .filter(|&i| rows[i as usize].0 == g)
                .collect();
            if !members.is_empty() {
                r.push_covering_group(&ds, members);
            }
        }
        let claims = [
            Guarantee::EntropyLDiversity { attribute: "S".into(), l: l_entropy },
            Guarantee::RecursiveCLDiversity { attribute: "S".into(), c, l },
        ];
        let col = ds.col(1);
        let models = [
            r.groups.iter().all(|g| satisfies_entropy_l(&counts_of_rows(&g.rows, col), l_entropy)),
            r.groups.iter().all(|g| satisfies_recursive_cl(&counts_of_rows(&g.rows, col), c, l)),
        ];
        for (claim, expected) in claims.into_iter().zip(models) {
            r.claims = vec![claim];
            let v = verify(&r, &ds);
            proptest::prop_assert_eq!(v.all_hold(), expected, "{}", v);
        }
    }
}

#[test]
fn alpha_delta_and_beta_by_their_definitions() {
    let ds = fig1b();
    // Groups {101–103}, {104, 105} (both Bronchitis), {106–108}; the table
    // holds Bronchitis and Dyspepsia twice and four other values once.
    let mut r = grouped(&ds, &[&[0, 1, 2], &[3, 4], &[5, 6, 7]], Vec::new());
    r.claims = vec![
        Guarantee::AlphaK {
            attribute: disease(),
            alpha: 0.99,
        },
        // Group 1's Bronchitis: (1 − 2/8)/(2/8) = 3, the largest gain.
        Guarantee::BetaLikeness {
            attribute: disease(),
            beta: 3.0,
        },
        // Every group lacks values of the table: no δ holds.
        Guarantee::DeltaDisclosure {
            attribute: disease(),
            delta: 10.0,
        },
    ];
    let f = failed(&verify(&r, &ds));
    assert_eq!(f.len(), 2, "{f:?}");
    assert_eq!(
        f[0],
        "(0.99,k)-anonymity of 'Disease' in every group: in group 1 one value of 'Disease' holds a share 1.000000 of the records, more than alpha = 0.99"
    );
    assert!(
        f[1].starts_with(
            "10-disclosure privacy of 'Disease' in every group: group 2 lacks a value"
        ),
        "{}",
        f[1]
    );
    r.claims = vec![Guarantee::BetaLikeness {
        attribute: disease(),
        beta: 2.9,
    }];
    assert!(failed(&verify(&r, &ds))[0]
        .contains("group 1 over-represents a value of 'Disease' by (q − p)/p = 3.000000"));
    // One group of the whole table is the table: δ = 0, α = 2/8.
    let mut whole = grouped(&ds, &[&[0, 1, 2, 3, 4, 5, 6, 7]], Vec::new());
    whole.claims = vec![
        Guarantee::DeltaDisclosure {
            attribute: disease(),
            delta: 1e-9,
        },
        Guarantee::AlphaK {
            attribute: disease(),
            alpha: 0.25,
        },
    ];
    assert!(verify(&whole, &ds).all_hold());
    whole.claims = vec![Guarantee::AlphaK {
        attribute: disease(),
        alpha: 0.24,
    }];
    assert_eq!(failed(&verify(&whole, &ds)).len(), 1);
}
