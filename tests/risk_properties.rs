//! Property tests of the attack simulator's invariants (STYLE.md, habit 11):
//! Pr(re-id) in (0, 1] and at most 1/k; prefix uniques and classes never
//! decrease as the attacker learns attributes; the radix trie agrees with a
//! plain hash grouping; with hidden cells, the pattern-pair computation
//! agrees with a brute-force pairwise comparison.

use anonlab::data::Dataset;
use anonlab::partition::Partition;
use anonlab::progress::Progress;
use anonlab::risk::{simulate, Knowledge};
use fixedbitset::FixedBitSet;
use proptest::prelude::*;

/// A random table: `d` columns with domain sizes 1..=dom, n rows, some
/// missing cells; values skewed towards small codes when `skew`.
fn table() -> impl Strategy<Value = (Dataset, Vec<Vec<u32>>)> {
    (1usize..6, 1usize..80, 1u32..12, any::<bool>()).prop_flat_map(|(d, n, dom, skew)| {
        proptest::collection::vec(proptest::collection::vec(0u32..dom + 1, d), n).prop_map(
            move |raw| {
                let cells: Vec<Vec<String>> = raw
                    .iter()
                    .map(|r| {
                        r.iter()
                            .map(|&v| {
                                let v = if skew { v / 2 } else { v };
                                if v == dom {
                                    String::new()
                                } else {
                                    format!("v{v}")
                                }
                            })
                            .collect()
                    })
                    .collect();
                let names: Vec<String> = (0..d).map(|i| format!("a{i}")).collect();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                let rows: Vec<Vec<&str>> = cells
                    .iter()
                    .map(|r| r.iter().map(String::as_str).collect())
                    .collect();
                (Dataset::from_rows(&names, &rows).unwrap(), raw)
            },
        )
    })
}

proptest! {
    #[test]
    fn trie_agrees_with_hash_grouping((ds, _) in table()) {
        let cols: Vec<usize> = (0..ds.n_cols()).collect();
        let s = simulate(&ds, Knowledge::plain(&cols), 0.2, &Progress::new()).unwrap();
        let p = Partition::by_columns(&ds, &cols);
        prop_assert_eq!(s.summary.classes, p.n_classes());
        prop_assert_eq!(s.summary.k, p.min_size());
        prop_assert_eq!(s.summary.uniques, p.uniques());
        for r in 0..ds.n_rows() {
            prop_assert_eq!(s.matches[r], p.size_of_row(r));
        }
        // Every prefix row agrees with hash grouping on the first j columns.
        for (j, row) in s.prefix.iter().enumerate() {
            let pj = Partition::by_columns(&ds, &cols[..=j]);
            prop_assert_eq!(row.classes, pj.n_classes());
            prop_assert_eq!(row.uniques, pj.uniques());
        }
    }

    #[test]
    fn probabilities_are_bounded_by_one_over_k((ds, _) in table(), t in 0.0f64..1.0) {
        let cols: Vec<usize> = (0..ds.n_cols()).collect();
        let s = simulate(&ds, Knowledge::plain(&cols), t, &Progress::new()).unwrap();
        let k = f64::from(s.summary.k);
        for p in s.probabilities() {
            prop_assert!(p > 0.0 && p <= 1.0);
            prop_assert!(p <= 1.0 / k + 1e-12);
        }
        prop_assert!(s.summary.max <= 1.0 / k + 1e-12);
        prop_assert!(s.summary.mean <= s.summary.max + 1e-12);
        let hist: usize = s.histogram.iter().map(|b| b.records).sum();
        prop_assert_eq!(hist, ds.n_rows());
        prop_assert!((s.cdf.last().unwrap().share - 1.0).abs() < 1e-12);
        let above = s.probabilities().iter().filter(|&&p| p > t).count();
        prop_assert_eq!(s.summary.records_above_threshold, above);
    }

    #[test]
    fn prefix_uniques_never_decrease((ds, _) in table()) {
        let cols: Vec<usize> = (0..ds.n_cols()).rev().collect();
        let s = simulate(&ds, Knowledge::plain(&cols), 0.2, &Progress::new()).unwrap();
        for w in s.prefix.windows(2) {
            prop_assert!(w[1].uniques >= w[0].uniques);
            prop_assert!(w[1].classes >= w[0].classes);
        }
    }

    #[test]
    fn hidden_cells_match_brute_force((ds, _) in table(), seed in any::<u64>(), share in 0u64..5) {
        let d = ds.n_cols();
        let n = ds.n_rows();
        // Hide cells of the first two columns pseudo-randomly.
        let hidden: Vec<Option<FixedBitSet>> = (0..d)
            .map(|a| {
                (a < 2).then(|| {
                    let mut b = FixedBitSet::with_capacity(n);
                    for r in 0..n {
                        let h = (seed ^ (r as u64 * 0x9E37_79B9) ^ (a as u64 * 7919)).wrapping_mul(0x2545_F491_4F6C_DD1D);
                        if (h >> 60) % 5 < share {
                            b.insert(r);
                        }
                    }
                    b
                })
            })
            .collect();
        let refs: Vec<Option<&FixedBitSet>> = hidden.iter().map(Option::as_ref).collect();
        let cols: Vec<usize> = (0..d).collect();
        let s = simulate(&ds, Knowledge { columns: &cols, hidden: &refs }, 0.2, &Progress::new()).unwrap();
        let hid = |a: usize, r: usize| refs[a].is_some_and(|b| b.contains(r));
        for r in 0..n {
            let brute = (0..n)
                .filter(|&q| (0..d).all(|a| hid(a, r) || hid(a, q) || ds.col(a).code(r) == ds.col(a).code(q)))
                .count() as u32;
            prop_assert_eq!(s.matches[r], brute, "row {}", r);
        }
        for w in s.prefix.windows(2) {
            prop_assert!(w[1].uniques >= w[0].uniques);
        }
    }
}
