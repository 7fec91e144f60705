use super::*;

fn rows(text: &str) -> Vec<Vec<&str>> {
    text.lines().map(|l| l.split(';').collect()).collect()
}

fn err(text: &str) -> String {
    Hierarchy::from_rows("a", &rows(text))
        .unwrap_err()
        .to_string()
}

#[test]
fn levels_ancestors_and_rows_round_trip() {
    let text = "1;0-4;*\n2;0-4;*\n7;5-9;*";
    let h = Hierarchy::from_rows("age", &rows(text)).unwrap();
    assert_eq!(h.levels(), 3);
    assert_eq!(h.height(), 2);
    assert_eq!(h.ancestor("7", 1), Some("5-9"));
    assert_eq!(h.ancestor("7", 2), Some("*"));
    assert_eq!(h.ancestor("7", 3), None);
    assert_eq!(h.ancestor("8", 1), None);
    assert_eq!(h.n_nodes(1), 2);
    assert_eq!(h.leaf_counts(1), vec![2, 1]);
    let back: Vec<String> = h.rows().map(|r| r.join(";")).collect();
    assert_eq!(back.join("\n"), text);
}

#[test]
fn clones_share_the_levels_and_a_renamed_clone_keeps_them() {
    // Session::request clones its hierarchies on every call.
    let h = Hierarchy::from_rows("age", &rows("1;0-4;*\n7;5-9;*")).unwrap();
    let copy = h.clone();
    assert!(Arc::ptr_eq(&h.tree, &copy.tree));
    let renamed = copy.with_attribute("years");
    assert_eq!(renamed.attribute(), "years");
    assert_eq!(h.attribute(), "age");
    assert!(Arc::ptr_eq(&h.tree, &renamed.tree));
    assert_ne!(h, renamed);
    assert_eq!(renamed.with_attribute("age"), h);
}

#[test]
fn conflicting_parent_names_value_levels_and_rows() {
    let m = err("1;0-4;0-9;*\n2;0-4;0-19;*");
    assert!(
        m.contains("'0-4' at level 1 has two parents at level 2: '0-9' (row 1) and '0-19' (row 2)"),
        "{m}"
    );
    assert!(m.contains("row 2"), "{m}");
}

#[test]
fn multiple_roots_are_rejected() {
    let m = err("a;x;*\nb;y;ALL");
    assert!(m.contains("second root 'ALL' at the top level 2"), "{m}");
    assert!(m.contains("row 1 has '*'"), "{m}");
}

#[test]
fn duplicate_leaf_ragged_row_and_empty_label() {
    assert!(err("a;*\na;*").contains("leaf 'a' appears twice (rows 1 and 2)"));
    assert!(err("a;x;*\nb;*").contains("row 2: 2 fields, but the first row has 3"));
    assert!(err("a;;*").contains("empty label at level 1"));
    assert!(Hierarchy::from_rows::<&str>("a", &[])
        .unwrap_err()
        .to_string()
        .contains("no rows"));
}

#[test]
fn bind_names_missing_leaf_and_maps_codes() {
    let ds = Dataset::from_rows(&["zip"], &[vec!["47677"], vec!["47602"], vec!["47905"]]).unwrap();
    let col = ds.col(0);
    let partial = Hierarchy::from_rows("zip", &rows("47677;476**;*\n47602;476**;*")).unwrap();
    let m = partial.bind(col).unwrap_err().to_string();
    assert!(
        m.contains("lacks 1 value(s) of column 'zip': '47905' (1 rows)"),
        "{m}"
    );

    let h = Hierarchy::from_rows(
        "zip",
        &rows("47677;476**;*\n47602;476**;*\n47905;479**;*\n11111;111**;*"),
    )
    .unwrap();
    let b = h.bind(col).unwrap();
    let c = col.code_of("47905").unwrap();
    assert_eq!(b.generalize(0, c), "47905");
    assert_eq!(b.generalize(1, c), "479**");
    assert_eq!(b.generalize(2, c), "*");
    assert_eq!(
        b.node(1, col.code_of("47677").unwrap()),
        b.node(1, col.code_of("47602").unwrap())
    );
    let stats = b.level_stats(&col.frequencies());
    assert_eq!(
        stats
            .iter()
            .map(|s| (s.classes, s.min, s.median, s.max))
            .collect::<Vec<_>>(),
        vec![(3, 1, 1, 1), (2, 1, 1, 2), (1, 3, 3, 3)]
    );
}

#[test]
fn missing_cells_stay_apart_until_the_root() {
    let ds = Dataset::from_rows(&["x"], &[vec!["a"], vec![""], vec!["b"]]).unwrap();
    let col = ds.col(0);
    let h = Hierarchy::from_rows("x", &rows("a;g;*\nb;g;*")).unwrap();
    let b = h.bind(col).unwrap();
    let m = col.missing_code();
    assert_eq!(b.generalize(1, m), "?");
    assert_ne!(b.node(1, m), b.node(1, col.code_of("a").unwrap()));
    assert_eq!(b.generalize(2, m), "*");
    assert_eq!(b.members(1)[b.node(1, 0) as usize], vec![0, 1]);
}

#[test]
fn a_label_naming_another_leaf_is_refused() {
    // Every man would be published as "Female".
    let m = err("Male;Female;*\nFemale;Male;*");
    assert!(
        m.contains("the label 'Female' at level 1 is also the leaf 'Female' (row 2)"),
        "{m}"
    );
    // A level that keeps a value as its own node is fine.
    assert!(Hierarchy::from_rows("a", &rows("a;a;*\nb;x;*")).is_ok());
    let deep: Vec<Vec<String>> = vec![(0..70).map(|i| format!("l{i}")).collect()];
    assert!(Hierarchy::from_rows("a", &deep)
        .unwrap_err()
        .to_string()
        .contains("more than the 64"));
}

#[test]
fn numeric_labels_must_contain_their_values() {
    let ds = Dataset::from_rows(&["age"], &[vec!["70"], vec!["39"], vec!["45"]]).unwrap();
    let lie = Hierarchy::from_rows("age", &rows("70;39;*\n39;39;*\n45;[40-49];*")).unwrap();
    let m = lie.bind(ds.col(0)).unwrap_err().to_string();
    assert!(
        m.contains("the label '39' at level 1 does not contain the value '70'"),
        "{m}"
    );
    let wrong =
        Hierarchy::from_rows("age", &rows("70;[60-69];*\n39;[30-39];*\n45;[40-49];*")).unwrap();
    assert!(wrong.bind(ds.col(0)).is_err());
    let ok = Hierarchy::from_rows("age", &rows("70;>=60;*\n39;30-39;*\n45;[40-50);*")).unwrap();
    assert!(ok.bind(ds.col(0)).is_ok());
}

#[test]
fn numeric_leaves_match_by_number() {
    let ds = Dataset::from_rows(&["age"], &[vec!["7.0"], vec!["12"]]).unwrap();
    let h = Hierarchy::from_rows("age", &rows("7;0-9;*\n12;10-19;*")).unwrap();
    let b = h.bind(ds.col(0)).unwrap();
    assert_eq!(b.generalize(1, ds.col(0).code_of("7").unwrap()), "0-9");
}

#[test]
fn set_binds_by_column_name_and_names_the_gap() {
    let ds = Dataset::from_rows(&["a", "b"], &[vec!["x", "y"]]).unwrap();
    let mut set = HierarchySet::new();
    set.insert(Hierarchy::from_rows("a", &rows("x;*")).unwrap());
    assert_eq!(set.bind(&ds, &[0]).unwrap().len(), 1);
    let m = set.bind(&ds, &[0, 1]).unwrap_err().to_string();
    assert!(
        m.contains("no hierarchy for column 'b' (hierarchies are given for: a)"),
        "{m}"
    );
    assert!(HierarchySet::load_spec("a")
        .unwrap_err()
        .to_string()
        .contains("neither a directory nor"));
    assert!(HierarchySet::load_spec("a=")
        .unwrap_err()
        .to_string()
        .contains("'a=' is not 'column=FILE'"));
}
