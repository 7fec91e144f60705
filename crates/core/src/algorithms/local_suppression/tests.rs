use super::*;

fn table(rows: &[Vec<&str>]) -> Dataset {
    Dataset::from_rows(&["a", "b", "c"], rows).unwrap()
}

fn opts() -> LocalSuppressionOptions {
    LocalSuppressionOptions::default()
}

#[test]
fn one_cell_fixes_a_lone_record() {
    let ds = table(&[
        vec!["1", "x", "p"],
        vec!["1", "x", "p"],
        vec!["1", "x", "q"],
    ]);
    let out = suppress(&ds, &[0, 1, 2], 2, &opts(), &Progress::new()).unwrap();
    // (1, x, *) matches the two (1, x, p): the third key, one cell.
    assert_eq!(out.suppressed, vec![0, 0, 0b100]);
    assert_eq!(out.total(), 1);
}

#[test]
fn importance_picks_the_least_important_key() {
    // (1,x) is unique; suppressing either key makes it match one other.
    let ds = Dataset::from_rows(
        &["a", "b"],
        &[vec!["1", "x"], vec!["1", "y"], vec!["2", "x"]],
    )
    .unwrap();
    let mut o = opts();
    o.importance = vec![1, 2]; // b is the least important
    let out = suppress(&ds, &[0, 1], 2, &o, &Progress::new()).unwrap();
    assert_eq!(out.suppressed[0] & 0b10, 0b10, "{out:?}");
    o.importance = vec![2, 1];
    let out = suppress(&ds, &[0, 1], 2, &o, &Progress::new()).unwrap();
    assert_eq!(out.suppressed[0] & 0b01, 0b01, "{out:?}");
}

#[test]
fn missing_cells_match_anything_and_are_not_counted() {
    let ds = table(&[
        vec!["1", "", "p"],
        vec!["1", "x", "p"],
        vec!["2", "y", "q"],
        vec!["2", "y", "q"],
    ]);
    let out = suppress(&ds, &[0, 1, 2], 2, &opts(), &Progress::new()).unwrap();
    assert_eq!(out.total(), 0);
    assert_eq!(out.missing, vec![0b10, 0, 0, 0]);
}

#[test]
fn own_value_pools_records_that_share_a_tuple() {
    let ds = table(&[
        vec!["1", "x", "p"],
        vec!["1", "x", "q"],
        vec!["2", "y", "r"],
        vec!["2", "y", "r"],
    ]);
    let mut o = opts();
    o.convention = Convention::OwnValue;
    let out = suppress(&ds, &[0, 1, 2], 2, &o, &Progress::new()).unwrap();
    assert_eq!(out.suppressed, vec![0b100, 0b100, 0, 0]);
}

#[test]
fn refusals_name_the_problem() {
    let ds = table(&[vec!["1", "x", "p"], vec!["1", "x", "q"]]);
    let e = |k, o: &LocalSuppressionOptions| {
        suppress(&ds, &[0, 1], k, o, &Progress::new())
            .unwrap_err()
            .to_string()
    };
    assert!(e(3, &opts()).contains("larger than the data"));
    assert!(e(0, &opts()).contains("at least 1"));
    let mut o = opts();
    o.importance = vec![1];
    assert!(e(2, &o).contains("1 values for 2"), "{}", e(2, &o));
    o.importance = vec![1, 3];
    assert!(e(2, &o).contains("between 1 and 2"));
    let mut o = opts();
    o.combs = vec![3];
    assert!(e(2, &o).contains("combs 3"));
    let mut o = opts();
    o.strata = Some(2);
    assert!(e(2, &o).contains("stratum"), "{}", e(2, &o));
    o.strata = Some(1);
    assert!(e(1, &o).contains("key variable"));
}

#[test]
fn strata_and_combs_hold() {
    let ds = table(&[
        vec!["1", "x", "s"],
        vec!["1", "y", "s"],
        vec!["2", "y", "s"],
        vec!["1", "x", "t"],
        vec!["1", "x", "t"],
        vec!["2", "y", "t"],
    ]);
    let mut o = opts();
    o.strata = Some(2);
    o.combs = vec![1];
    let out = suppress(&ds, &[0, 1], 2, &o, &Progress::new()).unwrap();
    assert!(out.total() > 0);
}
