//! Builders' nesting property on random data: every builder's result covers
//! every value of the column, each level is a coarsening of the level below
//! (leaves sharing a node at level l share it at l + 1), the top is one
//! root — checked here on the leaf paths, not by the library's own
//! validation — plus each builder's own promise (interval labels contain
//! their values, quantile and frequency groups reach their minimum, masks
//! keep a prefix).

use std::collections::HashMap;

use anonlab::data::number::Decimal;
use anonlab::data::{ColumnBuilder, ColumnKind, Dataset};
use anonlab::hierarchy::builders::{by_frequency, intervals, mask, quantiles};
use anonlab::hierarchy::Hierarchy;
use proptest::prelude::*;

fn dataset(values: &[String]) -> Dataset {
    let rows: Vec<Vec<&str>> = values.iter().map(|v| vec![v.as_str()]).collect();
    Dataset::from_rows(&["x"], &rows).unwrap()
}

/// Nested, covering, single-rooted; returns records per node at each level.
fn check_nested(h: &Hierarchy, ds: &Dataset) -> Vec<Vec<u64>> {
    let col = ds.col(0);
    for v in col.dictionary() {
        assert!(h.leaf_index(v).is_some(), "value {v} is not a leaf");
    }
    let leaves = h.leaves().len();
    for level in 0..h.height() {
        let mut parent: HashMap<u32, u32> = HashMap::new();
        for leaf in 0..leaves {
            let p = *parent
                .entry(h.node(leaf, level))
                .or_insert(h.node(leaf, level + 1));
            assert_eq!(
                p,
                h.node(leaf, level + 1),
                "level {level} -> {} not nested",
                level + 1
            );
        }
    }
    assert_eq!(h.n_nodes(h.height()), 1, "more than one root");
    assert_eq!(&*h.labels(h.height())[0], "*");
    let freq = col.frequencies();
    (0..h.levels())
        .map(|level| {
            let mut n = vec![0u64; h.n_nodes(level)];
            for (code, v) in col.dictionary().iter().enumerate() {
                n[h.node(h.leaf_index(v).unwrap(), level) as usize] += freq[code];
            }
            n.into_iter().filter(|&x| x > 0).collect()
        })
        .collect()
}

fn numbers() -> impl Strategy<Value = Vec<String>> {
    prop_oneof![
        prop::collection::vec(-50i64..200, 1..120)
            .prop_map(|v| v.into_iter().map(|x| x.to_string()).collect()),
        prop::collection::vec(-1000i64..1000, 1..120).prop_map(|v| v
            .into_iter()
            .map(|x| format!("{}", x as f64 / 8.0))
            .collect()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn fixed_intervals_nest_and_contain_their_values(
        values in numbers(),
        width in prop_oneof![1.0f64..40.0, (1u32..40).prop_map(f64::from)],
        anchor in prop_oneof![-30.0f64..30.0, (-30i32..30).prop_map(f64::from)],
        fanout in 2usize..5,
    ) {
        let ds = dataset(&values);
        let (w, a) = (
            Decimal::parse(&width.to_string()).unwrap(),
            Decimal::parse(&anchor.to_string()).unwrap(),
        );
        let h = intervals(ds.col(0), &w, &a, fanout).unwrap();
        check_nested(&h, &ds);
        let col = ds.col(0);
        for level in 1..h.height() {
            for (code, v) in col.dictionary().iter().enumerate() {
                let x = col.number(code as u32).unwrap();
                let label = h.ancestor(v, level).unwrap();
                let inner = &label[1..label.len() - 1];
                // Split at the '-' that ends the lower bound (it may be negative).
                let cut = inner[1..].find('-').unwrap() + 1;
                let (lo, hi): (f64, f64) = (inner[..cut].parse().unwrap(), inner[cut + 1..].parse().unwrap());
                if label.ends_with(']') {
                    prop_assert!(lo <= x && x <= hi, "{x} outside {label}");
                } else {
                    prop_assert!(lo <= x && x < hi, "{x} outside {label}");
                }
            }
        }
    }

    #[test]
    fn quantile_intervals_nest_and_reach_the_minimum(
        values in numbers(),
        n in 2usize..12,
        min in 1u64..30,
    ) {
        let ds = dataset(&values);
        let h = quantiles(ds.col(0), n, min).unwrap();
        let sizes = check_nested(&h, &ds);
        prop_assert!(sizes.len() == 2 || sizes[1].len() <= n);
        for (level, s) in sizes.iter().enumerate().take(sizes.len() - 1).skip(1) {
            prop_assert!(s.iter().all(|&c| c >= min), "level {level}: {s:?} below {min}");
        }
    }

    #[test]
    fn frequency_groups_nest_and_reach_the_threshold(
        values in prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]), 1..200),
        min in 1u64..40,
    ) {
        let values: Vec<String> = values.into_iter().map(String::from).collect();
        let ds = dataset(&values);
        let h = by_frequency(ds.col(0), min).unwrap();
        let sizes = check_nested(&h, &ds);
        for (level, s) in sizes.iter().enumerate().take(sizes.len() - 1).skip(1) {
            prop_assert!(s.iter().all(|&c| c >= min), "level {level}: {s:?} below {min}");
        }
    }

    #[test]
    fn masks_nest_and_keep_a_prefix(
        codes in prop::collection::vec("[0-9]{3,6}", 1..100),
    ) {
        // Zip-like codes are categories (leading zeros matter).
        let mut b = ColumnBuilder::new("zip".into());
        for c in &codes {
            b.push(c);
        }
        let cat = Dataset::new("t", vec![b.finish(Some(ColumnKind::Categorical)).unwrap()]).unwrap();
        let h = mask(cat.col(0)).unwrap();
        check_nested(&h, &cat);
        for v in cat.col(0).dictionary() {
            for level in 1..h.height() {
                let label = h.ancestor(v, level).unwrap();
                let kept = label.trim_end_matches('*');
                prop_assert!(v.starts_with(kept) && label.len() == v.len(), "{v} -> {label}");
            }
        }
    }
}
