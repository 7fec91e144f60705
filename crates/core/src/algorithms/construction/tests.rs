use super::*;
use crate::algorithms::Options;
use crate::hierarchy::{Hierarchy, HierarchySet};

fn ds() -> Dataset {
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

fn req(ds: &Dataset, g: Conditions) -> Request<'_> {
    Request {
        ds,
        qi: vec![0, 1, 2],
        sensitive: vec![3],
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

fn g(json: &str) -> Conditions {
    serde_json::from_str(json).unwrap()
}

#[test]
fn hierarchy_levels_and_the_algorithm_entry() {
    let d = ds();
    let age = Hierarchy::from_rows(
        "age",
        &[
            vec!["30", "30-39", "*"],
            vec!["31", "30-39", "*"],
            vec!["35", "30-39", "*"],
            vec!["38", "30-39", "*"],
            vec!["91", "90-99", "*"],
            vec!["95", "90-99", "*"],
        ],
    )
    .unwrap();
    let mut set = HierarchySet::new();
    set.insert(age);
    let conds = g(r#"{"conditions": [{"generalize": "age", "level": 1},
                                       {"generalize": "height", "to": "any"},
                                       {"generalize": "sex", "to": "any"}]}"#);
    let mut rq = req(&d, conds);
    rq.options.hierarchies = set;
    let r = Construction.run(&rq, &Progress::new()).unwrap();
    let sizes: Vec<u32> = r.group_sizes();
    assert_eq!(sizes, vec![2, 4]);
    assert_eq!(r.claims, vec![Guarantee::KAnonymity { k: 2 }]);
    assert!(crate::privacy::verify(&r, &d).all_hold());
    // With empty conditions D is published as it is: every row differs.
    rq.options.conditions = Some(Conditions::default());
    let plain = Construction.run(&rq, &Progress::new()).unwrap();
    assert_eq!(plain.groups.len(), 6);
    assert_eq!(plain.claims, vec![Guarantee::KAnonymity { k: 1 }]);
    // Without conditions there is nothing to construct.
    rq.options.conditions = None;
    let e = Construction.run(&rq, &Progress::new()).unwrap_err();
    assert!(e.to_string().contains("needs conditions"), "{e}");
}

#[test]
fn a_label_that_is_not_a_generalization_is_refused() {
    let d = ds();
    let run = |json: &str| {
        let c = g(json);
        construct(&req(&d, c.clone()), &c)
    };
    // People aged 91 and 95 published as 39.
    let e = run(r#"{"conditions": [{"when": "age>=60", "generalize": "age", "to": "39"}]}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("condition 1: the label '39' is not a generalization of the value '91' of column 'age' in row 2"),
        "{e}"
    );
    let e = run(r#"{"conditions": [{"when": "age>=60", "generalize": "age", "to": "[60-90]"}]}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("'91'"), "{e}");
    // Women published as men.
    let e = run(r#"{"conditions": [{"when": "sex=F", "generalize": "sex", "to": "M"}]}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("the label 'M'") && e.contains("'F'"), "{e}");
    // Labels that contain the values, or name no value, are kept.
    for ok in [
        r#"{"conditions": [{"when": "age>=60", "generalize": "age", "to": ">=60"}]}"#,
        r#"{"conditions": [{"when": "age>=60", "generalize": "age", "to": "[90-99]"}]}"#,
        r#"{"conditions": [{"when": "age>=60", "generalize": "age", "to": "old"}]}"#,
        r#"{"conditions": [{"when": "sex=F", "generalize": "sex", "to": "F"}]}"#,
    ] {
        let r = run(ok).unwrap();
        assert!(crate::privacy::verify(&r, &d).all_hold(), "{ok}");
    }
}

#[test]
fn errors_name_the_condition_column_and_value() {
    let d = ds();
    let err = |json: &str| {
        let c = g(json);
        construct(&req(&d, c.clone()), &c).unwrap_err().to_string()
    };
    let e =
        err(r#"{"conditions": [{"when": "sex=F", "generalize": "age", "interval": [30, 39]}]}"#);
    assert!(
        e.contains("condition 1") && e.contains("'91'") && e.contains("'age'"),
        "{e}"
    );
    let e = err(r#"{"conditions": [{"delete": "record"}, {"generalize": "disease", "to": "x"}]}"#);
    assert!(
        e.contains("condition 2") && e.contains("'disease' is not a quasi-identifier"),
        "{e}"
    );
    let e = err(r#"{"conditions": [{"generalize": "sex", "interval": [0, 1]}]}"#);
    assert!(e.contains("not numeric"), "{e}");
    let e = err(r#"{"conditions": [{"when": "sex=X", "delete": "record"}]}"#);
    assert!(e.contains("condition 1") && e.contains("X"), "{e}");
    let e = err(r#"{"conditions": [{"delete": "rows"}]}"#);
    assert!(e.contains("unknown deletion 'rows'"), "{e}");
    let e = err(r#"{"conditions": [{"generalize": "age", "level": 1}]}"#);
    assert!(e.contains("needs its hierarchy"), "{e}");
    let e = err(r#"{"conditions": [{"when": "age>1"}]}"#);
    assert!(e.contains("has no action"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("g.json");
    std::fs::write(&f, r#"{"conditions": [{"when": "a", "generalise": "b"}]}"#).unwrap();
    let e = Conditions::load(&f).unwrap_err().to_string();
    assert!(e.contains("g.json") && e.contains("generalise"), "{e}");
}

/// G's `delete_below` (the correlation-hierarchy paper's last step):
/// after the conditions, every class smaller than k is deleted, the
/// others published as they were, and the release claims the k it now
/// reaches.
#[test]
fn delete_below_deletes_exactly_the_short_classes() {
    let d = ds();
    // sex generalized away, height to two ranges, ages 90 and over to
    // [90-99]: no two rows agree on (height range, age).
    let json = |below: &str| {
        format!(
            r#"{{"conditions": [{{"when": "height<150", "generalize": "height", "to": "<150"}},
                {{"when": "height>=150", "generalize": "height", "to": ">=150"}},
                {{"when": "age>=90", "generalize": "age", "interval": [90, 99]}},
                {{"generalize": "sex", "to": "any"}}]{below}}}"#
        )
    };
    let before = Construction
        .run(&req(&d, g(&json(""))), &Progress::new())
        .unwrap();
    // Classes: (<150, 91-99: row 0), (<150, 30: 1), (<150, 31: 4),
    // (>=150, 35: 2), (>=150, 38: 3), (>=150, 90-99: 5) — all singletons.
    assert_eq!(before.groups.len(), 6);
    let mut rq = req(&d, g(&json(r#", "delete_below": 2"#)));
    let all = Construction.run(&rq, &Progress::new()).unwrap();
    assert!(all.groups.is_empty());
    assert_eq!(all.suppressed_rows, vec![0, 1, 2, 3, 4, 5]);
    // Without age as a QI: {0, 1, 4} and {2, 3, 5} stay, nothing deleted;
    // with a class of one (row 5 taken apart by its own label), only it goes.
    rq.qi = vec![0, 2];
    let json = r#"{"conditions": [{"when": "height<150", "generalize": "height", "to": "<150"},
        {"when": "height>=150", "generalize": "height", "to": ">=150"},
        {"generalize": "sex", "to": "any"}], "delete_below": 2}"#;
    rq.options.conditions = Some(g(json));
    let kept = Construction.run(&rq, &Progress::new()).unwrap();
    assert_eq!(kept.group_sizes(), vec![3, 3]);
    assert!(kept.suppressed_rows.is_empty());
    let json = r#"{"conditions": [{"when": "height<150", "generalize": "height", "to": "<150"},
        {"when": "height>=150 and height<175", "generalize": "height", "to": "[150-174]"},
        {"generalize": "sex", "to": "any"}], "delete_below": 2}"#;
    rq.options.conditions = Some(g(json));
    let r = Construction.run(&rq, &Progress::new()).unwrap();
    assert_eq!(r.group_sizes(), vec![3, 2]);
    assert_eq!(r.suppressed_rows, vec![5]);
    assert_eq!(r.claims, vec![Guarantee::KAnonymity { k: 2 }]);
    assert!(crate::privacy::verify(&r, &d).all_hold());
}
