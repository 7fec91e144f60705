//! The batch plan of cross-bucket generalization and Alg. 2
//! (`cal_sen_set`): which batch sizes Alg. 1 runs and which sensitive
//! values each batch takes (module doc of `cbg`: "Batch plan, then
//! `cal_sen_set` by Ryser's greedy", "`calculate_alpha`").

use crate::error::{Error, Result};

/// Alg. 1 line 4: the smallest number ≥ l divisible by k.
pub(crate) fn cal_diversity(k: usize, l: usize) -> usize {
    l.max(1).div_ceil(k) * k
}

/// Alg. 4's group sizes for a batch of `beta ≥ k` tuples: groups of k, or
/// `beta / k` groups with the remainder spread over them, larger ones first.
pub(crate) fn group_sizes(beta: usize, k: usize) -> Vec<usize> {
    if beta.is_multiple_of(k) {
        return vec![k; beta / k];
    }
    let group_num = beta / k;
    let remainder = beta % k;
    let per_base = remainder / group_num;
    let per_remainder = remainder % group_num;
    (0..group_num)
        .map(|i| k + per_base + usize::from(i < per_remainder))
        .collect()
}

/// Property 2 made exact: whether a batch of `beta` distinct values, cut into
/// groups by Alg. 4 and dealt into k buckets by Alg. 5, has
/// |G ∩ B| / (|G|·|B|) ≤ 1/l for every group G and bucket B — the bound
/// Proposition 2 needs for p(t, MB)/|MB| ≤ 1/l.
pub(crate) fn batch_is_l_diverse(beta: usize, k: usize, l: usize) -> bool {
    if beta < k || k == 0 {
        return false;
    }
    // Positions p in [0, x) with p ≡ j (mod k).
    let upto = |x: usize, j: usize| (x + k - 1 - j) / k;
    let mut start = 0;
    for g in group_sizes(beta, k) {
        for j in 0..k {
            let inter = upto(start + g, j) - upto(start, j);
            let bucket = upto(beta, j);
            if inter * l > g * bucket {
                return false;
            }
        }
        start += g;
    }
    true
}

/// Why no batch plan exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PlanRefusal {
    /// Fewer distinct values than the smallest batch.
    TooFewValues { needed: usize, have: usize },
    /// `value` (dense id) is on more rows than there can be batches.
    TooFrequent {
        value: usize,
        count: u64,
        max_batches: u64,
        min_size: usize,
    },
    /// No combination of valid sizes fits (rare: only between sizes).
    NoSizes,
}

/// The batch sizes Alg. 1 will run, as (size, how many), larger first.
///
/// `counts[v]` is how many rows carry value v. The plan has the largest
/// number of batches h (smallest batches) such that every value fits (h ≥
/// its count), the sizes are valid (`batch_is_l_diverse`, ≥
/// `cal_diversity`, ≤ the distinct values) and the Gale–Ryser condition
/// holds, so the counts can be dealt into the batches with no value twice in
/// one.
pub(crate) fn plan_batches(
    counts: &[u64],
    k: usize,
    l: usize,
) -> std::result::Result<Vec<(usize, u64)>, PlanRefusal> {
    let mut desc: Vec<u64> = counts.iter().copied().filter(|&c| c > 0).collect();
    desc.sort_unstable_by(|a, b| b.cmp(a));
    let lambda = desc.len();
    let n: u64 = desc.iter().sum();
    if n == 0 {
        return Ok(Vec::new());
    }
    let d = cal_diversity(k, l);
    if lambda < d {
        return Err(PlanRefusal::TooFewValues {
            needed: d,
            have: lambda,
        });
    }
    let valid: Vec<bool> = (0..=lambda)
        .map(|b| b >= d && batch_is_l_diverse(b, k, l))
        .collect();
    let c_max = desc[0];
    let h_max = n / d as u64;
    if h_max < c_max {
        let value = counts.iter().position(|&c| c == c_max).unwrap_or_default();
        return Err(PlanRefusal::TooFrequent {
            value,
            count: c_max,
            max_batches: h_max,
            min_size: d,
        });
    }
    let is_valid = |b: u64| (b as usize) < valid.len() && valid[b as usize];
    let mut prefix = vec![0u64; lambda + 1];
    for (i, &c) in desc.iter().enumerate() {
        prefix[i + 1] = prefix[i] + c;
    }
    // Gale–Ryser, values' side: the r most frequent values fit into the
    // slots the batches offer them, Σ_j min(size_j, r).
    let dealable = |sizes: &[(usize, u64)]| {
        (1..=lambda).all(|r| {
            let slots: u64 = sizes.iter().map(|&(s, m)| m * s.min(r) as u64).sum();
            prefix[r] <= slots
        })
    };
    for h in (c_max..=h_max).rev() {
        let base = n / h;
        let extra = n % h;
        let sizes = if is_valid(base) && (extra == 0 || is_valid(base + 1)) {
            vec![(base as usize + 1, extra), (base as usize, h - extra)]
        } else {
            // Two valid sizes a ≤ N/h < b with a whole number of each.
            let a = (d as u64..=base).rev().find(|&a| is_valid(a));
            let b = (base + 1..=lambda as u64).find(|&b| is_valid(b));
            let (Some(a), Some(b)) = (a, b) else { continue };
            let over = n - a * h;
            if !over.is_multiple_of(b - a) {
                continue;
            }
            let n_b = over / (b - a);
            vec![(b as usize, n_b), (a as usize, h - n_b)]
        };
        let sizes: Vec<(usize, u64)> = sizes.into_iter().filter(|&(_, m)| m > 0).collect();
        if dealable(&sizes) {
            return Ok(sizes);
        }
    }
    Err(PlanRefusal::NoSizes)
}

/// Alg. 2's S_set before ties are settled: the `beta` most frequent
/// remaining values are `forced` (more frequent than the β-th) plus `take`
/// of the values `tied` with the β-th.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SenSet {
    pub forced: Vec<u32>,
    pub tied: Vec<u32>,
    pub take: usize,
    /// How many consecutive batches take this S_set (`calculate_alpha`).
    pub alpha: u64,
}

impl SenSet {
    /// S_set with the tied values `chosen` (all of `tied` when there is no
    /// choice).
    pub(super) fn with(&self, chosen: impl IntoIterator<Item = u32>) -> Vec<u32> {
        self.forced.iter().copied().chain(chosen).collect()
    }
}

/// Alg. 2: the next S_set — the `beta` most frequent remaining values — and
/// α, how many consecutive batches take it: while it stays a set of `beta`
/// most frequent values (`calculate_alpha`, see the module doc), at most
/// `left` (the planned batches of this size). When more values tie with the
/// β-th than S_set has room for, α is 1 and the caller settles the tie.
pub(crate) fn cal_sen_set(remaining: &[u64], beta: usize, left: u64) -> Result<SenSet> {
    let mut sen_domain: Vec<u32> = (0..remaining.len() as u32)
        .filter(|&v| remaining[v as usize] > 0)
        .collect();
    if sen_domain.len() < beta || beta == 0 {
        return Err(Error::Internal(format!(
            "internal error in cross-bucket generalization: {} values left for a batch of {beta}",
            sen_domain.len()
        )));
    }
    sen_domain.sort_by(|&a, &b| remaining[b as usize].cmp(&remaining[a as usize]));
    let count = |v: u32| remaining[v as usize];
    let c_beta = count(sen_domain[beta - 1]);
    let c_next = sen_domain.get(beta).map_or(0, |&v| count(v));
    let alpha = (c_beta - c_next + 1).min(c_beta).min(left);
    let forced: Vec<u32> = sen_domain
        .iter()
        .copied()
        .take_while(|&v| count(v) > c_beta)
        .collect();
    let tied: Vec<u32> = sen_domain[forced.len()..]
        .iter()
        .copied()
        .take_while(|&v| count(v) == c_beta)
        .collect();
    Ok(SenSet {
        take: beta - forced.len(),
        forced,
        tied,
        alpha,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn cal_diversity_is_the_smallest_multiple_of_k_at_least_l() {
        assert_eq!(cal_diversity(2, 4), 4);
        assert_eq!(cal_diversity(3, 4), 6);
        assert_eq!(cal_diversity(3, 6), 6);
        assert_eq!(cal_diversity(3, 7), 9);
        assert_eq!(cal_diversity(5, 2), 5);
        assert_eq!(cal_diversity(1, 3), 3);
    }

    #[test]
    fn group_sizes_follow_algorithm_4() {
        assert_eq!(group_sizes(6, 3), vec![3, 3]);
        assert_eq!(group_sizes(7, 3), vec![4, 3]);
        assert_eq!(group_sizes(8, 3), vec![4, 4]);
        assert_eq!(group_sizes(5, 3), vec![5]);
        assert_eq!(group_sizes(11, 3), vec![4, 4, 3]);
        for k in 1..8 {
            for beta in k..60 {
                let g = group_sizes(beta, k);
                assert_eq!(g.iter().sum::<usize>(), beta);
                assert!(g.iter().all(|&s| s >= k && s < 2 * k));
            }
        }
    }

    /// The exact Property-2 check against a direct count on the layout.
    #[test]
    fn batch_check_matches_a_direct_count() {
        for k in 1..7 {
            for l in 1..14 {
                for beta in k..40 {
                    let mut group_of = Vec::new();
                    for (g, s) in group_sizes(beta, k).into_iter().enumerate() {
                        group_of.extend(std::iter::repeat_n(g, s));
                    }
                    let groups = group_of.last().map_or(0, |g| g + 1);
                    let mut ok = true;
                    for g in 0..groups {
                        let size = group_of.iter().filter(|&&x| x == g).count();
                        for j in 0..k {
                            let bucket: Vec<usize> = (j..beta).step_by(k).collect();
                            let inter = bucket.iter().filter(|&&p| group_of[p] == g).count();
                            if inter * l > size * bucket.len() {
                                ok = false;
                            }
                        }
                    }
                    assert_eq!(
                        batch_is_l_diverse(beta, k, l),
                        ok,
                        "k={k} l={l} beta={beta}"
                    );
                }
            }
        }
        // Divisible sizes need only β ≥ l (the paper's first case).
        assert!(batch_is_l_diverse(6, 3, 6));
        assert!(!batch_is_l_diverse(6, 3, 7));
        // k = 3, l = 6: 7 and 8 pass although they are not > 2l.
        assert!(batch_is_l_diverse(7, 3, 6) && batch_is_l_diverse(8, 3, 6));
        // k = 3, l = 7: a group of 4 has two tuples in a bucket of 3.
        assert!(!batch_is_l_diverse(7, 3, 7) && !batch_is_l_diverse(8, 3, 7));
        assert!(batch_is_l_diverse(9, 3, 7) && batch_is_l_diverse(10, 3, 7));
    }

    /// Run the plan with `cal_sen_set` on counts alone, as Alg. 1 does.
    fn deal(counts: &[u64], k: usize, l: usize, seed: u64) -> Vec<Vec<u32>> {
        let plan = plan_batches(counts, k, l).expect("plan");
        let mut remaining = counts.to_vec();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut batches = Vec::new();
        for (size, times) in plan {
            let mut left = times;
            while left > 0 {
                let sen = cal_sen_set(&remaining, size, left).expect("set");
                let mut tied = sen.tied.clone();
                tied.shuffle(&mut rng);
                let s_set = sen.with(tied.into_iter().take(sen.take));
                let alpha = sen.alpha;
                assert!(alpha >= 1);
                assert_eq!(s_set.len(), size);
                for _ in 0..alpha {
                    for &v in &s_set {
                        assert!(remaining[v as usize] > 0);
                        remaining[v as usize] -= 1;
                    }
                    batches.push(s_set.clone());
                }
                left -= alpha;
            }
        }
        assert!(remaining.iter().all(|&c| c == 0), "{remaining:?}");
        batches
    }

    /// The paper's Fig. 1b diseases: Alg. 2 as printed strands two values;
    /// the plan makes two batches of four, each with both repeated values.
    #[test]
    fn fig_1b_values_split_into_two_4_diverse_batches() {
        // Flu, Dyspepsia ×2, Hepatitis, Bronchitis ×2, Pneumonia, Gastritis.
        let counts = [1, 2, 1, 2, 1, 1];
        assert_eq!(plan_batches(&counts, 2, 4), Ok(vec![(4, 2)]));
        for seed in 0..20 {
            let batches = deal(&counts, 2, 4, seed);
            assert_eq!(batches.len(), 2);
            for b in &batches {
                assert!(b.contains(&1) && b.contains(&3), "{b:?}");
            }
        }
    }

    #[test]
    fn alpha_is_how_long_the_set_stays_the_most_frequent() {
        let sen = cal_sen_set(&[10, 9, 4, 1], 2, 100).unwrap();
        assert_eq!((sen.with(sen.tied.clone()), sen.alpha), (vec![0, 1], 6));
        assert_eq!(cal_sen_set(&[10, 9, 4, 1], 2, 3).unwrap().alpha, 3);
        let sen = cal_sen_set(&[3, 3, 0], 2, 9).unwrap();
        assert_eq!((sen.forced.len() + sen.tied.len(), sen.alpha), (2, 3));
        // Four values tie for two places: α = 1, the caller chooses.
        let sen = cal_sen_set(&[1, 2, 1, 2, 1, 1], 4, 2).unwrap();
        assert_eq!(sen.forced, vec![1, 3]);
        assert_eq!((sen.tied, sen.take, sen.alpha), (vec![0, 2, 4, 5], 2, 1));
    }

    /// Every plan deals out completely, with distinct values per batch and
    /// valid sizes, over many random skewed count vectors.
    #[test]
    fn plans_always_complete() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..400 {
            let lambda = rng.random_range(1..20);
            let skew: f64 = rng.random_range(0.0..2.0);
            let counts: Vec<u64> = (0..lambda)
                .map(|i| {
                    let base: u64 = rng.random_range(1..40);
                    (base as f64 / (1.0 + i as f64).powf(skew)).ceil() as u64
                })
                .collect();
            let k = rng.random_range(1..6);
            let l = rng.random_range(1..10);
            match plan_batches(&counts, k, l) {
                Ok(plan) => {
                    for &(size, _) in &plan {
                        assert!(size >= cal_diversity(k, l) && batch_is_l_diverse(size, k, l));
                    }
                    for b in deal(&counts, k, l, 3) {
                        let mut d = b.clone();
                        d.sort_unstable();
                        d.dedup();
                        assert_eq!(d.len(), b.len());
                    }
                }
                Err(PlanRefusal::TooFrequent {
                    count, max_batches, ..
                }) => {
                    assert!(count > max_batches)
                }
                Err(PlanRefusal::TooFewValues { needed, have }) => assert!(have < needed),
                Err(PlanRefusal::NoSizes) => {}
            }
        }
    }
}
