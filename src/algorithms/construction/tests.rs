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
