use super::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn phi2_of_a_two_by_two_table_by_hand() {
    // n = 100; rows 50/50, columns 40/60.
    //         b1  b2
    //   a1    30  20
    //   a2    10  40
    // f: .30 .20 / .10 .40; f_i. = .5, .5; f_.j = .4, .6.
    // (f_ij − f_i.f_.j)²/(f_i.f_.j):
    //   a1b1 (.30−.20)²/.20 = .05     a1b2 (.20−.30)²/.30 = 1/30
    //   a2b1 (.10−.20)²/.20 = .05     a2b2 (.40−.30)²/.30 = 1/30
    // sum = .1 + 1/15 = 1/6; min(d) − 1 = 1, so φ² = 1/6 and V = √(1/6).
    let t = Contingency::from_table(&[vec![30, 20], vec![10, 40]]).unwrap();
    assert_eq!(t.total(), 100);
    assert!(close(t.mean_square_contingency().unwrap(), 1.0 / 6.0));
    assert!(close(t.phi2().unwrap(), 1.0 / 6.0));
    assert!(close(t.cramers_v().unwrap(), (1.0f64 / 6.0).sqrt()));
}

#[test]
fn phi2_normalises_by_the_smaller_dimension() {
    // A 2×3 table where B determines A: n = 60.
    //         b1  b2  b3
    //   a1    20   0  10
    //   a2     0  30   0
    // f_i. = .5, .5; f_.j = 1/3, 1/2, 1/6.
    // Σ f_ij²/(f_i. f_.j): a1b1 (1/9)/(1/6) = 2/3, a1b3 (1/36)/(1/12) = 1/3,
    //   a2b2 (1/4)/(1/4) = 1; total 2, minus 1 → χ²/n = 1.
    // min(2, 3) − 1 = 1, so φ² = 1: A is a function of B.
    let t = Contingency::from_table(&[vec![20, 0, 10], vec![0, 30, 0]]).unwrap();
    assert_eq!(t.occurring(), (2, 3));
    assert!(close(t.phi2().unwrap(), 1.0));
    // 3×3 diagonal: χ²/n = d − 1 = 2, φ² = 2/2 = 1.
    let d = Contingency::from_table(&[vec![5, 0, 0], vec![0, 7, 0], vec![0, 0, 9]]).unwrap();
    assert!(close(d.mean_square_contingency().unwrap(), 2.0));
    assert!(close(d.phi2().unwrap(), 1.0));
}

#[test]
fn independence_gives_zero_and_a_single_value_is_undefined() {
    // Every cell = row total × column total / n: 10·20/30 etc.
    let t = Contingency::from_table(&[vec![2, 4], vec![8, 16]]).unwrap();
    assert!(t.phi2().unwrap() < 1e-12);
    assert!(t.mutual_information().unwrap() < 1e-12);
    let one = Contingency::from_table(&[vec![3, 7]]).unwrap();
    assert_eq!(one.phi2(), None);
    assert_eq!(one.normalized_mutual_information(), None);
    // An empty column of the table does not count as a value.
    let padded = Contingency::from_table(&[vec![30, 0, 20], vec![10, 0, 40]]).unwrap();
    assert_eq!(padded.occurring(), (2, 2));
    assert!(close(padded.phi2().unwrap(), 1.0 / 6.0));
}

#[test]
fn mutual_information_in_bits_by_hand() {
    // n = 4:   b1 b2
    //     a1    2  0
    //     a2    1  1
    // p: a1b1 1/2, a2b1 1/4, a2b2 1/4; p_a = 1/2, 1/2; p_b = 3/4, 1/4.
    // I = 1/2 log2((1/2)/(3/8)) + 1/4 log2((1/4)/(3/8)) + 1/4 log2((1/4)/(1/8))
    //   = 1/2 (2 − log2 3) + 1/4 (1 − log2 3) + 1/4 · 1
    //   = 1.5 − (3/4) log2 3.
    let t = Contingency::from_table(&[vec![2, 0], vec![1, 1]]).unwrap();
    let l3 = 3f64.log2();
    let i = 1.5 - 0.75 * l3;
    assert!(close(t.mutual_information().unwrap(), i));
    // H(A) = 1 bit; H(B) = −(3/4 log2 3/4 + 1/4 log2 1/4) = 2 − (3/4) log2 3.
    let (ha, hb) = t.entropies().unwrap();
    assert!(close(ha, 1.0));
    assert!(close(hb, 2.0 - 0.75 * l3));
    assert!(close(t.normalized_mutual_information().unwrap(), i / hb));
}

#[test]
fn pearson_by_hand_and_only_on_numbers() {
    // x = 1,2,3; y = 2,4,7: means 2, 13/3; dx = −1,0,1; dy = −7/3,−1/3,8/3.
    // Σdxdy = 7/3 + 8/3 = 5; Σdx² = 2; Σdy² = (49+1+64)/9 = 114/9.
    // r = 5 / √(2 · 114/9) = 15 / √228.
    let ds = Dataset::from_rows(
        &["x", "y", "s"],
        &[
            vec!["1", "2", "a"],
            vec!["2", "4", "b"],
            vec!["3", "7", "a"],
            vec!["", "9", "b"],
        ],
    )
    .unwrap();
    let r = pearson(ds.col(0), ds.col(1)).unwrap();
    assert!(close(r, 15.0 / 228f64.sqrt()), "{r}");
    assert_eq!(pearson(ds.col(0), ds.col(2)), None);
}

#[test]
fn quantile_bins_keep_equal_values_together() {
    // 10 records of 8 distinct values, 4 bins: r(c) = records below.
    // value: 1 2 3 3 3 4 5 6 7 8 → codes 0..7 with counts 1,1,3,1,1,1,1,1
    // r:     0 1 2 . . 5 6 7 8 9 → bin ⌊4r/10⌋: 0 0 0 2 2 2 3 3
    // so value 3 (three records) sits alone in its bin with 1 and 2;
    // bin 1 is empty and dropped: bins [1,3], [4,6], [7,8].
    let rows: Vec<Vec<&str>> = ["1", "2", "3", "3", "3", "4", "5", "6", "7", "8"]
        .iter()
        .map(|v| vec![*v])
        .collect();
    let ds = Dataset::from_rows(&["v"], &rows).unwrap();
    let d = Discretization {
        bins: 4,
        missing: Missing::Category,
    };
    let c = categorize(ds.col(0), &d).unwrap();
    assert!(c.binned);
    let labels: Vec<&str> = c.categories.iter().map(|k| k.label.as_str()).collect();
    assert_eq!(labels, ["[1, 3]", "[4, 6]", "[7, 8]"]);
    let records: Vec<u64> = c.categories.iter().map(|k| k.records).collect();
    assert_eq!(records, [5, 3, 2]);
    // Few distinct values: one category per value, no binning.
    let few = categorize(ds.col(0), &Discretization::default()).unwrap();
    assert!(!few.binned);
    assert_eq!(few.len(), 8);
}

#[test]
fn missing_is_a_category_or_dropped() {
    // a: x x y y ?   b: p p q q q
    let ds = Dataset::from_rows(
        &["a", "b"],
        &[
            vec!["x", "p"],
            vec!["x", "p"],
            vec!["y", "q"],
            vec!["y", "q"],
            vec!["", "q"],
        ],
    )
    .unwrap();
    let keep = Discretization::default();
    let drop = Discretization {
        missing: Missing::Drop,
        ..keep
    };
    let (a, b) = (categorize(ds.col(0), &keep).unwrap(), ds.col(1));
    let b = categorize(b, &keep).unwrap();
    assert_eq!(a.len(), 3);
    // With '?': a has 3 values, b 2; table x:(2,0) y:(0,2) ?:(0,1).
    // a determines b, so Σ f_ij²/(f_i. f_.j) = Σ_j 1 = 2, χ²/n = 1 and
    // φ² = 1/(min(3, 2) − 1) = 1.
    let t = Contingency::count(&a, &b);
    assert_eq!(t.total(), 5);
    assert!(close(t.phi2().unwrap(), 1.0));
    let a2 = categorize(ds.col(0), &drop).unwrap();
    assert_eq!(a2.len(), 2);
    assert_eq!(a2.missing_records, 1);
    assert_eq!(Contingency::count(&a2, &b).total(), 4);
}

#[test]
fn matrix_is_symmetric_with_defined_diagonal() {
    let ds = Dataset::from_rows(
        &["a", "b", "n"],
        &[
            vec!["x", "p", "1"],
            vec!["x", "q", "2"],
            vec!["y", "q", "3"],
            vec!["y", "q", "4"],
        ],
    )
    .unwrap();
    let d = Discretization::default();
    for m in Measure::ALL {
        let mx = correlation_matrix(&ds, &[0, 1, 2], m, &d).unwrap();
        for i in 0..3 {
            for j in 0..3 {
                assert_eq!(mx.get(i, j), mx.get(j, i));
            }
        }
        if m != Measure::Pearson {
            assert!(mx.get(0, 0).is_some(), "{m}");
        }
    }
    let p = correlation_matrix(&ds, &[0, 2], Measure::Pearson, &d).unwrap();
    assert_eq!(p.get(0, 1), None);
    assert!(close(p.get(1, 1).unwrap(), 1.0));
    let phi = correlation_matrix(&ds, &[0, 1, 2], Measure::Phi2, &d).unwrap();
    assert!(close(phi.get(0, 0).unwrap(), 1.0));
    assert_eq!(phi.ranked(0)[0].0, 2, "n determines a");
}

#[test]
fn bad_parameters_are_named() {
    let ds = Dataset::from_rows(&["a"], &[vec!["x"]]).unwrap();
    let few = Discretization {
        bins: 1,
        ..Default::default()
    };
    let e = correlation_matrix(&ds, &[0], Measure::Phi2, &few).unwrap_err();
    assert!(e.to_string().contains("at least 2"), "{e}");
    let e = correlation_matrix(&ds, &[0, 0], Measure::Phi2, &Default::default()).unwrap_err();
    assert!(e.to_string().contains("'a' is named twice"), "{e}");
    let e = "tau".parse::<Measure>().unwrap_err();
    assert!(e.to_string().contains("phi2, cramer"), "{e}");
}
