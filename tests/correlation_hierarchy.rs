//! Algorithm 4 on random data: whatever the data and N, the output is a
//! valid nested hierarchy covering every value, each context's cut is a
//! partition of the focus's values into nodes of that hierarchy, every
//! interval with records holds at least N of them (when its context has N),
//! and the conditions G select each record exactly once, in its interval.

use anonlab::data::{Dataset, Rule};
use anonlab::hierarchy::correlated::{construct, CorrelatedSpec};
use proptest::prelude::*;

fn dataset(rows: &[(u8, u8, u8)]) -> Dataset {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|&(f, g, h)| {
            vec![
                (f as u32 * 3).to_string(),
                ["a", "b", "c", "d"][g as usize % 4].to_string(),
                ["x", "y", ""][h as usize % 3].to_string(),
            ]
        })
        .collect();
    let refs: Vec<Vec<&str>> = cells
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect();
    Dataset::from_rows(&["f", "g", "h"], &refs).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn output_is_nested_and_g_covers_each_record_once(
        rows in prop::collection::vec((0u8..25, 0u8..4, 0u8..3), 1..160),
        n in 1u64..30,
        depth in 0usize..3,
    ) {
        let ds = dataset(&rows);
        let mut spec = CorrelatedSpec::new(&ds, 0, n);
        spec.depth = depth;
        let r = construct(&ds, &spec).unwrap();
        let focus = ds.col(0);
        // Validated by Hierarchy::from_rows (nested levels, one root) and
        // bound: every value of the column is a leaf.
        let b = r.hierarchy.bind(focus).unwrap();
        prop_assert_eq!(b.generalize(b.height(), 0), "*");
        prop_assert!(r.used.len() <= depth);
        let mut hits = vec![0u32; ds.n_rows()];
        for c in &r.contexts {
            // The cut covers the focus's values once, in order.
            let mut next = focus.numbers()[0];
            for (i, iv) in c.cut.iter().enumerate() {
                prop_assert_eq!(iv.from, next);
                let hi = focus.numbers().partition_point(|&x| x <= iv.to);
                next = focus.numbers().get(hi).copied().unwrap_or(f64::INFINITY);
                if iv.records > 0 && c.records >= n && c.cut.len() > 1 {
                    prop_assert!(iv.records >= n, "interval {} of {:?}: {} < {}", i, c.when, iv.records, n);
                }
            }
            prop_assert_eq!(next, f64::INFINITY);
        }
        for g in &r.conditions.conditions {
            let iv = g.interval.unwrap();
            let sel = Rule::parse(g.when.as_deref().unwrap()).unwrap().evaluate(&ds).unwrap();
            prop_assert!(sel.count_ones(..) > 0);
            for row in sel.ones() {
                hits[row] += 1;
                let v = focus.number(focus.code(row)).unwrap();
                prop_assert!(iv[0] <= v && v <= iv[1]);
            }
        }
        prop_assert!(hits.iter().all(|&h| h == 1), "{:?}", hits);
    }
}
