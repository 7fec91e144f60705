//! Construction(D, G): on random tables and random condition lists the
//! release publishes exactly what the documented order says (record
//! deletion first, then cell deletion, then the first matching
//! generalization; predicates on the original data), computed here
//! independently row by row; every release passes the verifier. On Adult,
//! the paper's kind of conditions give a release the measurements accept.

use crate::common;

use std::collections::{BTreeSet, HashMap};

use anonlab::algorithms::construction::construct;
use anonlab::algorithms::{Options, Request};
use anonlab::anonymize::{evaluate, Measure};
use anonlab::data::{Condition, Conditions, Dataset};
use anonlab::privacy::verify;
use anonlab::progress::Progress;
use anonlab::release::{Cell, Guarantee};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Act {
    Label(usize),
    DeleteRecord,
    DeleteCell(usize),
}

fn request(ds: &Dataset, g: Conditions) -> Request<'_> {
    Request {
        ds,
        qi: vec![0, 1],
        sensitive: vec![2],
        identifiers: vec![],
        k: 1,
        l: 1,
        seed: 0,
        options: Options {
            conditions: Some(g),
            ..Default::default()
        },
    }
}

fn conditions() -> impl Strategy<Value = Vec<(Option<(usize, u8)>, Act)>> {
    let when = prop::option::of((0usize..2, 0u8..4));
    let act = prop_oneof![
        (0usize..2).prop_map(Act::Label),
        Just(Act::DeleteRecord),
        (0usize..2).prop_map(Act::DeleteCell),
    ];
    prop::collection::vec((when, act), 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn publishes_what_the_documented_order_says(
        cells in prop::collection::vec((0u8..4, 0u8..4, 0u8..3), 5..30),
        conds in conditions(),
    ) {
        let rows: Vec<Vec<String>> = cells
            .iter()
            .map(|&(a, b, s)| vec![format!("v{a}"), format!("v{b}"), format!("s{s}")])
            .collect();
        let refs: Vec<Vec<&str>> = rows.iter().map(|r| r.iter().map(String::as_str).collect()).collect();
        let ds = Dataset::from_rows(&["q0", "q1", "s"], &refs).unwrap();
        // Only values the column holds may appear in a rule.
        let holds = |col: usize, v: u8| rows.iter().any(|r| r[col] == format!("v{v}"));
        let conds: Vec<_> = conds
            .into_iter()
            .filter(|(w, _)| w.is_none_or(|(c, v)| holds(c, v)))
            .collect();
        let g = Conditions {
            conditions: conds
                .iter()
                .enumerate()
                .map(|(i, (w, a))| {
                    let when = w.map(|(c, v)| format!("q{c}=v{v}"));
                    let mut c = match a {
                        Act::Label(col) => Condition::generalize_to(None, &format!("q{col}"), &format!("L{i}")),
                        Act::DeleteRecord => Condition::delete_record(None),
                        Act::DeleteCell(col) => Condition {
                            delete: Some("cells".into()),
                            columns: Some(vec![format!("q{col}")]),
                            ..Default::default()
                        },
                    };
                    c.when = when;
                    c
                })
                .collect(),
            delete_below: None,
        };
        let release = construct(&request(&ds, g.clone()), &g).unwrap();

        // The expectation, row by row.
        let matches = |w: &Option<(usize, u8)>, r: usize| w.is_none_or(|(c, v)| rows[r][c] == format!("v{v}"));
        let mut deleted = Vec::new();
        let mut expected: HashMap<u32, Vec<String>> = HashMap::new();
        for (r, row) in rows.iter().enumerate() {
            if conds.iter().any(|(w, a)| matches!(a, Act::DeleteRecord) && matches(w, r)) {
                deleted.push(r as u32);
                continue;
            }
            let cells = (0..2)
                .map(|col| {
                    if conds.iter().any(|(w, a)| matches!(a, Act::DeleteCell(c) if *c == col) && matches(w, r)) {
                        return "*".to_string();
                    }
                    conds
                        .iter()
                        .enumerate()
                        .find(|(_, (w, a))| matches!(a, Act::Label(c) if *c == col) && matches(w, r))
                        .map_or(row[col].clone(), |(i, _)| format!("L{i}"))
                })
                .collect();
            expected.insert(r as u32, cells);
        }
        prop_assert_eq!(&release.suppressed_rows, &deleted);
        for g in &release.groups {
            for &r in &g.rows {
                let got: Vec<String> = (0..2)
                    .map(|q| g.cells[q].render(ds.col(q), ds.col(q).code(r as usize)))
                    .collect();
                prop_assert_eq!(&got, &expected[&r]);
            }
        }
        let distinct: BTreeSet<&Vec<String>> = expected.values().collect();
        prop_assert_eq!(release.groups.len(), distinct.len());
        let v = verify(&release, &ds);
        prop_assert!(v.all_hold(), "{}", v);
    }
}

#[test]
fn adult_conditions_give_a_measured_release() {
    let Some(ds) = common::adult() else { return };
    let qi: Vec<usize> = ["sex", "age", "race", "native-country"]
        .iter()
        .map(|c| ds.column_index(c).unwrap())
        .collect();
    let g: Conditions = serde_json::from_str(
        r#"{"conditions": [
            {"when": "age>80", "delete": "record"},
            {"when": "age<30", "generalize": "age", "interval": [17, 29]},
            {"when": "age>=30", "generalize": "age", "interval": [30, 80]},
            {"when": "native-country!=United-States", "generalize": "native-country", "to": "abroad"},
            {"when": "race!=White", "delete": "cells", "columns": ["race"]}
        ]}"#,
    )
    .unwrap();
    let req = Request {
        ds: &ds,
        qi,
        sensitive: vec![ds.column_index("salary-class").unwrap()],
        identifiers: vec![],
        k: 1,
        l: 1,
        seed: 0,
        options: Options {
            conditions: Some(g.clone()),
            ..Default::default()
        },
    };
    let release = construct(&req, &g).unwrap();
    let age = ds.col(ds.column_index("age").unwrap());
    let over_80 = (0..ds.n_rows())
        .filter(|&r| age.number(age.code(r)).unwrap() > 80.0)
        .count();
    assert_eq!(release.suppressed_rows.len(), over_80);
    // 2 sexes × 2 age intervals × (White or *) × (United-States or abroad).
    assert!(release.groups.len() <= 16);
    let e = evaluate(&release, &ds, 0.0, &Measure::default(), &Progress::new()).unwrap();
    assert!(e.verification.all_hold(), "{}", e.verification);
    assert_eq!(e.suppressed, over_80);
    assert!(e.breach.is_some());
    let k = release.group_sizes().into_iter().min().unwrap();
    assert!(e.reidentification.summary.max <= 1.0 / k as f64 + 1e-12);
}

/// The correlation-hierarchy paper's kind of table: height, age, sex
/// (QIs) and disease.
fn paper_table() -> Dataset {
    Dataset::from_rows(
        &["height", "age", "sex", "disease"],
        &[
            vec!["140", "91", "F", "flu"],
            vec!["145", "30", "F", "hiv"],
            vec!["160", "35", "M", "flu"],
            vec!["170", "38", "M", "cold"],
            vec!["149", "31", "M", "flu"],
            vec!["175", "95", "F", "cold"],
        ],
    )
    .unwrap()
}

#[test]
fn the_papers_examples_apply_in_the_documented_order() {
    let d = paper_table();
    let conds: Conditions = serde_json::from_str(
        r#"{"conditions": [
        {"when": "height<150", "generalize": "height", "to": "<150"},
        {"when": "height<160", "generalize": "height", "to": "unused"},
        {"when": "age>90 and sex=F", "delete": "record"},
        {"when": "age>=30 and age<40", "generalize": "age", "interval": [30, 39]},
        {"when": "sex=M", "delete": "cells", "columns": ["height"]},
        {"generalize": "sex", "to": "person"}
    ]}"#,
    )
    .unwrap();
    let mut req = request(&d, conds.clone());
    req.qi = vec![0, 1, 2];
    req.sensitive = vec![3];
    let r = construct(&req, &conds).unwrap();
    // Rows 0 and 5 are over 90 and female: deleted whatever else holds.
    assert_eq!(r.suppressed_rows, vec![0, 5]);
    let rows: Vec<&[u32]> = r.groups.iter().map(|g| g.rows.as_slice()).collect();
    assert_eq!(rows, vec![&[1u32][..], &[2, 3, 4][..]]);
    let render = |g: usize| -> Vec<String> {
        let row = r.groups[g].rows[0];
        (0..3)
            .map(|q| r.groups[g].cells[q].render(d.col(q), d.col(q).code(row as usize)))
            .collect()
    };
    // The first generalization of height wins over the second; only
    // row 1 keeps "<150" (row 4's cell is deleted: deletion wins).
    assert_eq!(render(0), vec!["<150", "[30-38]", "person"]);
    assert_eq!(render(1), vec!["*", "[30-38]", "person"]);
    assert_eq!(
        r.groups[0].cells[0],
        Cell::Set {
            codes: vec![d.col(0).code_of("145").unwrap()],
            label: Some("<150".into())
        }
    );
    assert_eq!(r.claims, vec![Guarantee::KAnonymity { k: 1 }]);
    // The release is measured like any algorithm's.
    let e = evaluate(&r, &d, 0.0, &Measure::default(), &Progress::new()).unwrap();
    assert!(e.verification.all_hold(), "{}", e.verification);
    assert_eq!(e.suppressed, 2);
    // Linkage: row 2 (160, 35, M) matches only the group of rows 2-4
    // ("<150" stands for 145 alone); row 1 matches both groups.
    assert!((e.reidentification.summary.max - 1.0 / 3.0).abs() < 1e-12);
    assert!(e.breach.is_some());
}
