use super::*;
use proptest::prelude::*;

/// Rank of each record in the order the method ranks (highest first,
/// equal values in record order), within its stratum.
fn ranks(col: &[f64], strata: &[u32]) -> Vec<usize> {
    let mut rank = vec![0; col.len()];
    for (_, members) in strata_of(col.len(), Some(strata)) {
        let mut order = members.clone();
        order.sort_by(|&a, &b| col[b].total_cmp(&col[a]));
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
    }
    rank
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn swaps_permute_values_within_p_percent_of_ranks(
        rows in proptest::collection::vec((0i32..20, -1e6f64..1e6, 0u32..3), 1..300),
        p in 0.0f64..30.0,
        seed in 0u64..1000,
        stratified in any::<bool>(),
    ) {
        // Column 0 with many ties, column 1 continuous.
        let x = vec![
            rows.iter().map(|r| f64::from(r.0)).collect::<Vec<_>>(),
            rows.iter().map(|r| r.1).collect(),
        ];
        let codes: Vec<u32> = rows.iter().map(|r| if stratified { r.2 } else { 0 }).collect();
        let out = swap_values(&x, Some(&codes), p, seed, &Progress::new()).unwrap();
        for (c, col) in x.iter().enumerate() {
            prop_assert_eq!(sorted(&out.values[c]), sorted(col));
            let rank = ranks(col, &codes);
            let mut swapped = 0;
            for (a, &b) in out.partner[c].iter().enumerate() {
                let b = b as usize;
                prop_assert_eq!(out.partner[c][b] as usize, a);
                prop_assert_eq!(out.values[c][a].to_bits(), col[b].to_bits());
                if a != b {
                    swapped += 1;
                    prop_assert_eq!(codes[a], codes[b]);
                    let n = codes.iter().filter(|&&s| s == codes[a]).count();
                    let width = (p / 100.0 * n as f64).floor() as usize;
                    let gap = rank[a].abs_diff(rank[b]);
                    prop_assert!(gap >= 1 && gap < width, "ranks {} and {}, width {}", rank[a], rank[b], width);
                }
            }
            prop_assert_eq!(swapped, 2 * out.swaps[c]);
        }
    }
}

#[test]
fn most_records_swap_and_the_seed_decides() {
    let x = vec![(0..1000).map(f64::from).collect::<Vec<_>>()];
    let a = swap_values(&x, None, 5.0, 1, &Progress::new()).unwrap();
    let b = swap_values(&x, None, 5.0, 1, &Progress::new()).unwrap();
    let c = swap_values(&x, None, 5.0, 2, &Progress::new()).unwrap();
    assert_eq!(a, b);
    assert_ne!(a.values, c.values);
    // Ranks are 50 apart at most: almost everyone finds a partner.
    assert!(a.swaps[0] > 450, "{}", a.swaps[0]);
    // p = 0: no swap at all.
    let none = swap_values(&x, None, 0.0, 1, &Progress::new()).unwrap();
    assert_eq!(none.swaps[0], 0);
    assert_eq!(none.values, x);
    let err = swap_values(&x, None, 150.0, 1, &Progress::new()).unwrap_err();
    assert!(err.to_string().contains("[0, 100]"), "{err}");
}
