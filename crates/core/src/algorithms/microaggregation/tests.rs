use super::*;

fn opts(k: usize, aggregation: Aggregation) -> MicroaggregationOptions {
    MicroaggregationOptions { k, aggregation }
}

fn mdav_of(x: &[Vec<f64>], k: usize, how: Aggregation) -> Microaggregated {
    microaggregate(x, None, opts(k, how), &Progress::new(), mdav_groups).unwrap()
}

#[test]
fn mdav_groups_two_clusters() {
    // Two clusters of three far apart: MDAV finds them.
    let x = vec![vec![1.0, 2.0, 3.0, 100.0, 101.0, 102.0]];
    let m = mdav_of(&x, 3, Aggregation::Mean);
    assert_eq!(m.n_groups, 2);
    assert_eq!(m.values[0], vec![2.0, 2.0, 2.0, 101.0, 101.0, 101.0]);
}

#[test]
fn mdav_ties_go_to_the_later_record() {
    // Five equal values, k = 2: sdcMicro's hash sort puts the later of
    // equal distances first, so the first group is records 4 and 3, then
    // (the farthest from record 4 is record 0, the first of the equals)
    // records 2 and 1 ... until fewer than 2k remain.
    let x = vec![vec![5.0; 5]];
    let groups = mdav_groups(&x, 2, &Progress::new()).unwrap();
    assert_eq!(groups, vec![vec![4, 3], vec![0, 1, 2]]);
}

#[test]
fn mdav_median_is_honoured_sdcmicro_issue_266() {
    // sdcMicro issue #266: its MDAV returns the mean whatever `measure`.
    let x = vec![vec![1.0, 2.0, 9.0, 100.0, 101.0, 200.0]];
    let m = mdav_of(&x, 3, Aggregation::Median);
    assert_eq!(m.values[0], vec![2.0, 2.0, 2.0, 101.0, 101.0, 101.0]);
    let even = aggregate([4.0, 1.0, 3.0, 2.0].into_iter(), Aggregation::Median);
    assert_eq!(even, 2.5);
}

#[test]
fn optimal_univariate_beats_fixed_groups() {
    // Sorted fixed groups of 3 would be {1,2,3},{10,11,12},{13}... here
    // n = 7 and the optimum is {1,2,3} {10,11,12,13}.
    let x = vec![13.0, 1.0, 12.0, 2.0, 11.0, 3.0, 10.0];
    let groups = optimal_groups(&x, 3, &Progress::new()).unwrap();
    assert_eq!(groups, vec![vec![1, 3, 5], vec![6, 4, 2, 0]]);
}

#[test]
fn strata_are_microaggregated_apart() {
    let x = vec![vec![1.0, 50.0, 2.0, 51.0, 3.0, 52.0]];
    let codes = [0, 1, 0, 1, 0, 1];
    let name = |c: u32| format!("s{c}");
    let run = |k| {
        let strata: Strata<'_> = (&codes, &name);
        microaggregate(
            &x,
            Some(strata),
            opts(k, Aggregation::Mean),
            &Progress::new(),
            mdav_groups,
        )
    };
    let m = run(3).unwrap();
    assert_eq!(m.groups, vec![0, 1, 0, 1, 0, 1]);
    assert_eq!(m.values[0], vec![2.0, 51.0, 2.0, 51.0, 2.0, 51.0]);
    let err = run(4).unwrap_err();
    assert!(
        err.to_string().contains("stratum 's0' has 3 records"),
        "{err}"
    );
}

#[test]
fn missing_values_are_refused_by_record_and_column() {
    let ds = crate::data::Dataset::from_rows(
        &["income", "region"],
        &[vec!["10", "a"], vec!["", "a"], vec!["30", "b"]],
    )
    .unwrap();
    let err = mdav(
        &ds,
        &[0],
        None,
        None,
        opts(1, Aggregation::Mean),
        &Progress::new(),
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("'income' is missing at record 2"), "{msg}");
    let err = mdav(
        &ds,
        &[1],
        None,
        None,
        opts(1, Aggregation::Mean),
        &Progress::new(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("'region' is categorical"), "{err}");
}

#[test]
fn single_precision_ties_change_a_group() {
    // From r = 20, records 0 (10) and 1 (10 − 1e-7) are at squared
    // distances 100 and 100·(1 + 2e-8) (times the weight): one float apart
    // in double, the same float in single precision, where the tie goes to
    // the later record. sdcMicro groups 20 with record 1, exact MDAV with
    // record 0: sdcMicro:::mdav(data.frame(a = c(10, 10 - 1e-7, 20, 0)),
    // K = 2) gives 5, 14.99999995, 14.99999995, 5 (sdcMicro 5.8.1).
    let x = vec![vec![10.0, 10.0 - 1e-7, 20.0, 0.0]];
    let p = Progress::new();
    let single = mdav_groups_in(&x, 2, Precision::Single, &p).unwrap();
    let double = mdav_groups_in(&x, 2, Precision::Double, &p).unwrap();
    assert_eq!(single, vec![vec![2, 1], vec![0, 3]]);
    assert_eq!(double, vec![vec![2, 0], vec![1, 3]]);
}

mod tree {
    //! The k-d tree MDAV (`kdtree.rs`) against the quadratic reference:
    //! the same groups, in the same order, in both precisions.
    use super::super::*;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn same(x: &[Vec<f64>], k: usize) {
        let p = Progress::new();
        for precision in [Precision::Single, Precision::Double] {
            let fast = mdav_groups_in(x, k, precision, &p).unwrap();
            let slow = mdav_groups_reference(x, k, precision, &p).unwrap();
            assert_eq!(fast, slow, "k = {k}, {precision:?}");
        }
    }

    /// Values from a few levels, some nudged by one part in 10⁸ (ties in
    /// single precision that double precision separates), some exact
    /// duplicates.
    fn value() -> impl Strategy<Value = f64> {
        prop_oneof![
            (0i32..6).prop_map(f64::from),
            (0i32..6).prop_map(|v| f64::from(v) * 10.0 - 1e-7),
            (0i32..6).prop_map(|v| f64::from(v) * (1.0 + 1e-8)),
            -50.0f64..50.0,
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn tree_groups_equal_the_reference(
            d in 1usize..4,
            rows in proptest::collection::vec(proptest::collection::vec(value(), 3), 1..250),
            k in 1usize..6,
        ) {
            prop_assume!(rows.len() >= k);
            let x: Vec<Vec<f64>> = (0..d).map(|c| rows.iter().map(|r| r[c]).collect()).collect();
            same(&x, k);
        }
    }

    #[test]
    fn tree_groups_equal_the_reference_on_larger_files() {
        let mut rng = ChaCha8Rng::seed_from_u64(34);
        for (n, d, k, levels) in [
            (5000, 3, 3, 0),
            (4000, 2, 5, 7),
            (3000, 3, 3, 3),
            (3001, 1, 4, 0),
        ] {
            let x: Vec<Vec<f64>> = (0..d)
                .map(|_| {
                    (0..n)
                        .map(|_| {
                            if levels > 0 {
                                f64::from(rng.random_range(0..levels))
                            } else {
                                // Log-normal, like incomes.
                                let z: f64 =
                                    (0..12).map(|_| rng.random::<f64>()).sum::<f64>() - 6.0;
                                (10.0 + z).exp()
                            }
                        })
                        .collect()
                })
                .collect();
            same(&x, k);
        }
    }
}

/// The weighted median as sdcMicro's `weightedMedian` defines it is, for
/// whole-number weights, the plain median of the sample with each value
/// repeated as often as its weight (an independent definition); equal
/// weights give the plain median; the weighted mean is Σ w·x / Σ w.
#[test]
fn weighted_aggregates_agree_with_their_definitions() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(34);
    for _ in 0..2000 {
        let n = rng.random_range(1..8);
        let pairs: Vec<(f64, f64)> = (0..n)
            .map(|_| {
                (
                    f64::from(rng.random_range(0..6u32)),
                    f64::from(rng.random_range(1..5u32)),
                )
            })
            .collect();
        let expanded: Vec<f64> = pairs
            .iter()
            .flat_map(|&(x, w)| std::iter::repeat_n(x, w as usize))
            .collect();
        let want = aggregate(expanded.iter().copied(), Aggregation::Median);
        let got = weighted_aggregate(pairs.iter().copied(), Aggregation::Median);
        assert_eq!(got, want, "{pairs:?}");
        let mean = weighted_aggregate(pairs.iter().copied(), Aggregation::Mean);
        let plain = aggregate(expanded.iter().copied(), Aggregation::Mean);
        assert!(
            (mean - plain).abs() <= 1e-12 * plain.abs().max(1.0),
            "{pairs:?}"
        );
        let equal = weighted_aggregate(pairs.iter().map(|p| (p.0, 2.5)), Aggregation::Median);
        assert_eq!(
            equal,
            aggregate(pairs.iter().map(|p| p.0), Aggregation::Median),
            "{pairs:?}"
        );
    }
}

#[test]
fn weights_must_be_numbers_above_zero() {
    let ds = Dataset::from_rows(
        &["income", "w"],
        &[vec!["10", "1"], vec!["20", "0"], vec!["30", "2"]],
    )
    .unwrap();
    let err = mdav(
        &ds,
        &[0],
        None,
        Some(1),
        opts(1, Aggregation::Mean),
        &Progress::new(),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("the weight 'w' of record 2"),
        "{err}"
    );
    let ds = Dataset::from_rows(
        &["income", "w"],
        &[
            vec!["10", "1"],
            vec!["20", "3"],
            vec!["40", "1"],
            vec!["50", "1"],
        ],
    )
    .unwrap();
    let m = mdav(
        &ds,
        &[0],
        None,
        Some(1),
        opts(2, Aggregation::Mean),
        &Progress::new(),
    )
    .unwrap();
    // Groups {10, 20} and {40, 50}: (10 + 60) / 4 and 45.
    assert_eq!(m.values[0], vec![17.5, 17.5, 45.0, 45.0]);
}
