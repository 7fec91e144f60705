use super::*;
use anonlab::hierarchy::Hierarchy;

#[test]
fn interval_widths_are_round_numbers_at_or_above_the_target() {
    assert_eq!(round_width(7.3), 10.0);
    assert_eq!(round_width(1.5), 2.0);
    assert_eq!(round_width(3.0), 5.0);
    assert_eq!(round_width(20.0), 20.0);
    assert_eq!(round_width(0.03), 0.05);
    assert_eq!(round_width(0.0), 1.0);
    assert_eq!(round_width(f64::NAN), 1.0);
}

#[test]
fn a_tree_counts_records_and_leaves_per_node() {
    let ds = Dataset::from_rows(
        &["z"],
        &[vec!["11"], vec!["12"], vec!["12"], vec!["21"], vec![""]],
    )
    .unwrap();
    let h = Hierarchy::from_rows(
        "z",
        &[
            vec!["11", "1*", "*"],
            vec!["12", "1*", "*"],
            vec!["21", "2*", "*"],
            vec!["22", "2*", "*"],
        ],
    )
    .unwrap();
    let mut t = TreeView::new(&ds, 0, &h).unwrap();
    let shown = |t: &TreeView| -> Vec<(String, u64, usize)> {
        t.lines
            .iter()
            .map(|l| (l.label.clone(), l.records, l.leaves))
            .collect()
    };
    // The missing cell is under the root only.
    assert_eq!(
        shown(&t),
        [("*".into(), 4, 4), ("1*".into(), 3, 2), ("2*".into(), 1, 2)]
    );
    t.cursor = 2;
    t.toggle();
    assert_eq!(t.lines.len(), 5);
    assert_eq!((t.lines[3].label.as_str(), t.lines[3].records), ("21", 1));
    assert_eq!((t.lines[4].label.as_str(), t.lines[4].records), ("22", 0));
    // Level figures count the data: the missing cell is a value of its own.
    assert_eq!(t.levels[1].classes, 3);
}
