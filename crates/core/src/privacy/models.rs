//! Per-class building blocks of the privacy models: each function reads one
//! equivalence class (its sensitive values as `ValueCount`s, see `counts`)
//! and, where the model compares with the whole table, the table's
//! `TableDistribution`.
//!
//! They are separate from the table-level report so that algorithms can test
//! a candidate group while they build it and the verifier can re-check a
//! Release class by class, with the same definitions:
//!
//! - distinct, entropy and recursive (c,l)-diversity: Machanavajjhala et al.,
//!   "ℓ-Diversity: Privacy Beyond k-Anonymity" (ICDE 2006 / TKDD 2007);
//! - l-eligibility: Xiao & Tao, "Anatomy" (VLDB 2006), checked by the
//!   local bucketization of the LGB paper (its Algorithm 2);
//! - t-closeness with equal and ordered distance EMD: Li, Li &
//!   Venkatasubramanian, "t-Closeness" (ICDE 2007);
//! - (α,k)-anonymity: Wong et al. (KDD 2006);
//! - δ-disclosure privacy: Brickell & Shmatikov (KDD 2008);
//! - basic and enhanced β-likeness: Cao & Karras (PVLDB 2012).
//!
//! Ratios of frequencies are evaluated on integer counts (q(s) > p(s) is
//! `count·N > T(s)·n`), so comparisons are exact and EMD sums have no
//! cancellation error; only the final division is rounded.

use super::counts::{TableDistribution, ValueCount};

/// Rows in the class.
pub fn class_size(counts: &[ValueCount]) -> u64 {
    counts.iter().map(|v| v.count as u64).sum()
}

/// Distinct sensitive values in the class.
pub fn distinct_l(counts: &[ValueCount]) -> u32 {
    counts.len() as u32
}

/// Distinct l-diversity: at least `l` different sensitive values.
pub fn satisfies_distinct_l(counts: &[ValueCount], l: u32) -> bool {
    distinct_l(counts) >= l
}

/// Shannon entropy of the class's sensitive values, natural log.
pub fn entropy(counts: &[ValueCount]) -> f64 {
    let n = class_size(counts) as f64;
    counts
        .iter()
        .map(|v| {
            let p = v.count as f64 / n;
            -p * p.ln()
        })
        .sum()
}

/// Entropy l-diversity: H(class) ≥ ln l. A class of l equally frequent
/// values has H = ln l exactly, but the two sides are rounded differently,
/// so a relative slack of 1e-12 keeps that boundary case l-diverse.
pub fn satisfies_entropy_l(counts: &[ValueCount], l: f64) -> bool {
    let bound = l.ln();
    entropy(counts) >= bound - 1e-12 * bound.abs()
}

/// The class's counts sorted descending: r_1 ≥ r_2 ≥ … ≥ r_m.
fn descending(counts: &[ValueCount]) -> Vec<u64> {
    let mut r: Vec<u64> = counts.iter().map(|v| v.count as u64).collect();
    r.sort_unstable_by(|a, b| b.cmp(a));
    r
}

/// r_1 and r_l + r_{l+1} + … + r_m of recursive (c,l)-diversity, with `l`
/// 1-based; `l` ≤ 1 takes the whole class as the tail.
fn head_and_tail(counts: &[ValueCount], l: u32) -> (u64, u64) {
    let r = descending(counts);
    let skip = (l.max(1) - 1) as usize;
    let head = r.first().copied().unwrap_or(0);
    let tail = r.iter().skip(skip).sum();
    (head, tail)
}

/// r_1 / (r_l + … + r_m) for recursive (c,l)-diversity, counts sorted
/// descending as in Machanavajjhala et al. (r_1 is the most frequent value).
/// Infinite when the class has fewer than `l` values (no c can work).
pub fn recursive_ratio(counts: &[ValueCount], l: u32) -> f64 {
    let (head, tail) = head_and_tail(counts, l);
    if tail == 0 {
        f64::INFINITY
    } else {
        head as f64 / tail as f64
    }
}

/// The smallest integer c with r_1 < c·(r_l + … + r_m), or `None` when the
/// class has fewer than `l` values.
pub fn recursive_min_c(counts: &[ValueCount], l: u32) -> Option<u64> {
    let (head, tail) = head_and_tail(counts, l);
    (tail > 0).then(|| head / tail + 1)
}

/// Recursive (c,l)-diversity: r_1 < c·(r_l + r_{l+1} + … + r_m).
pub fn satisfies_recursive_cl(counts: &[ValueCount], c: f64, l: u32) -> bool {
    let (head, tail) = head_and_tail(counts, l);
    (head as f64) < c * tail as f64
}

/// l-eligibility (Xiao & Tao, Anatomy): a set of rows can be split
/// into l-diverse groups only if no sensitive value occurs in more than
/// 1/l of them. Used on a whole table or on what is left of it.
pub fn is_l_eligible(counts: &[ValueCount], l: u32) -> bool {
    let max = counts.iter().map(|v| v.count as u64).max().unwrap_or(0);
    max * l as u64 <= class_size(counts)
}

/// The α of (α,k)-anonymity for this class: the largest relative frequency
/// of a sensitive value in it.
pub fn alpha(counts: &[ValueCount]) -> f64 {
    let max = counts.iter().map(|v| v.count).max().unwrap_or(0);
    max as f64 / class_size(counts) as f64
}

/// EMD between the class and the table with equal ground distance (Li et
/// al.): ½ Σ_s |q(s) − p(s)|. Values absent from the class each
/// contribute p(s), summed at once as 1 − Σ_{s in class} p(s).
pub fn emd_equal(counts: &[ValueCount], table: &TableDistribution) -> f64 {
    let n_c = class_size(counts) as u128;
    let total = table.total() as u128;
    if n_c == 0 || total == 0 {
        return 0.0;
    }
    let mut sum = 0u128;
    let mut covered = 0u128;
    for v in counts {
        let t = table.count(v.code) as u128;
        covered += t;
        sum += (v.count as u128 * total).abs_diff(t * n_c);
    }
    sum += (total - covered) * n_c;
    sum as f64 / (2.0 * n_c as f64 * total as f64)
}

/// EMD between the class and the table with ordered distance (Li et al.): (1/(m−1)) Σ_i |Σ_{j≤i} (q_j − p_j)|, ranks i over the m
/// distinct values of the whole table (so equal steps between consecutive
/// values, whatever their numeric gap, as in the paper and pycanon).
///
/// Sparse: between two values the class holds, its cumulative count C is
/// constant while the table's cumulative T(i) rises, so each run of ranks
/// sums |C·N − T(i)·n| with one binary search for where T(i)·n passes C·N
/// and the table's prefix sums of T. Cost O(values in class × log m).
pub fn emd_ordered(counts: &[ValueCount], table: &TableDistribution) -> f64 {
    let m = table.distinct();
    let n_c = class_size(counts);
    if m <= 1 || n_c == 0 {
        return 0.0;
    }
    let mut sum = 0u128;
    let mut from = 0usize;
    let mut class_cum = 0u64;
    for v in counts {
        let rank = table.rank(v.code);
        debug_assert!(rank != u32::MAX, "class value absent from the table");
        sum += ordered_run(table, from, rank as usize, class_cum, n_c);
        class_cum += v.count as u64;
        from = rank as usize;
    }
    sum += ordered_run(table, from, m, class_cum, n_c);
    sum as f64 / (n_c as f64 * table.total() as f64 * (m - 1) as f64)
}

/// Σ_{i in a..b} |C·N − T(i)·n| where the class's cumulative count is C
/// throughout the run.
fn ordered_run(table: &TableDistribution, a: usize, b: usize, class_cum: u64, n_c: u64) -> u128 {
    if a >= b {
        return 0;
    }
    let target = class_cum as u128 * table.total() as u128;
    let n_c = n_c as u128;
    let cum = table.cum();
    let s = table.cum_sum();
    // T is non-decreasing, so the terms with T(i)·n ≤ C·N come first.
    let x = a + cum[a..b].partition_point(|&t| t as u128 * n_c <= target);
    let below = (x - a) as u128 * target - n_c * (s[x] - s[a]);
    let above = n_c * (s[b] - s[x]) - (b - x) as u128 * target;
    below + above
}

/// The EMD t-closeness uses for this attribute: ordered distance for
/// numeric attributes, equal distance otherwise.
pub fn emd(counts: &[ValueCount], table: &TableDistribution) -> f64 {
    if table.is_ordered() {
        emd_ordered(counts, table)
    } else {
        emd_equal(counts, table)
    }
}

/// |ln(q(s)/p(s))| for every value the class holds.
fn log_ratios<'a>(
    counts: &'a [ValueCount],
    table: &'a TableDistribution,
) -> impl Iterator<Item = f64> + 'a {
    let n_c = class_size(counts) as f64;
    let total = table.total() as f64;
    counts.iter().map(move |v| {
        let t = table.count(v.code) as f64;
        (v.count as f64 * total / (t * n_c)).ln().abs()
    })
}

/// δ-disclosure (Brickell & Shmatikov) of the class: the largest
/// |ln(q(s)/p(s))| over every value s of the table. A value of the table
/// absent from the class has q(s) = 0 and an infinite log ratio: `None`.
pub fn delta_disclosure(counts: &[ValueCount], table: &TableDistribution) -> Option<f64> {
    (counts.len() >= table.distinct()).then(|| delta_disclosure_present_only(counts, table))
}

/// pycanon's δ-disclosure: as `delta_disclosure` but over the values the
/// class holds only, so it is always finite.
pub fn delta_disclosure_present_only(counts: &[ValueCount], table: &TableDistribution) -> f64 {
    log_ratios(counts, table).fold(0.0, f64::max)
}

/// (q(s) − p(s))/p(s) for every value over-represented in the class
/// (q(s) > p(s)), with the table frequency p(s).
fn gains<'a>(
    counts: &'a [ValueCount],
    table: &'a TableDistribution,
) -> impl Iterator<Item = (f64, f64)> + 'a {
    let n_c = class_size(counts) as u128;
    let total = table.total() as u128;
    counts.iter().filter_map(move |v| {
        let t = table.count(v.code) as u128;
        let (q, p) = (v.count as u128 * total, t * n_c);
        (q > p).then(|| ((q - p) as f64 / p as f64, t as f64 / total as f64))
    })
}

/// Basic β-likeness (Cao & Karras) of the class: the largest
/// relative gain (q(s) − p(s))/p(s) over values with q(s) > p(s); 0 when no
/// value is over-represented.
pub fn beta_basic(counts: &[ValueCount], table: &TableDistribution) -> f64 {
    gains(counts, table).map(|(g, _)| g).fold(0.0, f64::max)
}

/// Enhanced β-likeness (Cao & Karras): the class satisfies it for β
/// when every over-represented value has (q − p)/p ≤ min(β, −ln p). The
/// −ln p cap does not depend on β, so the smallest β that works is the basic
/// β if every gain is within its cap, and no β works otherwise (`None`).
/// pycanon instead reports min(basic β, −ln min p), which is not a β the
/// class satisfies.
pub fn beta_enhanced(counts: &[ValueCount], table: &TableDistribution) -> Option<f64> {
    let mut beta = 0.0f64;
    for (gain, p) in gains(counts, table) {
        if gain > -p.ln() {
            return None;
        }
        beta = beta.max(gain);
    }
    Some(beta)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vc(pairs: &[(u32, u32)]) -> Vec<ValueCount> {
        pairs
            .iter()
            .map(|&(code, count)| ValueCount { code, count })
            .collect()
    }

    #[test]
    fn recursive_sorts_descending() {
        // Counts 1, 5, 2 → r = (5, 2, 1). For l = 2: 5 / (2 + 1); for l = 3: 5 / 1.
        let c = vc(&[(0, 1), (1, 5), (2, 2)]);
        assert_eq!(recursive_ratio(&c, 2), 5.0 / 3.0);
        assert_eq!(recursive_ratio(&c, 3), 5.0);
        assert_eq!(recursive_min_c(&c, 2), Some(2));
        assert_eq!(recursive_min_c(&c, 3), Some(6));
        assert!(satisfies_recursive_cl(&c, 2.0, 2));
        assert!(!satisfies_recursive_cl(&c, 5.0, 3));
        assert!(satisfies_recursive_cl(&c, 5.01, 3));
        assert_eq!(recursive_ratio(&c, 4), f64::INFINITY);
        assert_eq!(recursive_min_c(&c, 4), None);
    }

    #[test]
    fn entropy_boundary_counts_as_diverse() {
        let c = vc(&[(0, 1), (1, 1), (2, 1)]);
        assert!(satisfies_entropy_l(&c, 3.0));
        assert!(!satisfies_entropy_l(&c, 3.001));
    }

    #[test]
    fn l_eligibility_caps_the_most_frequent_value() {
        // 6 rows, the most frequent value in 3: eligible for l = 2, not l = 3.
        let c = vc(&[(0, 3), (1, 2), (2, 1)]);
        assert!(is_l_eligible(&c, 2));
        assert!(!is_l_eligible(&c, 3));
    }

    #[test]
    fn enhanced_beta_is_basic_beta_within_the_caps() {
        // Table flu 5, cancer 3, hiv 2 (N = 10); class flu 2, hiv 1.
        // Gains: flu (2/3 − 1/2)/(1/2) = 1/3 ≤ −ln 0.5 = 0.693;
        //        hiv (1/3 − 1/5)/(1/5) = 2/3 ≤ −ln 0.2 = 1.609 → β = 2/3.
        let t = TableDistribution::from_counts(vec![5, 3, 2], false);
        let c = vc(&[(0, 2), (2, 1)]);
        assert!((beta_basic(&c, &t) - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(beta_enhanced(&c, &t), Some(beta_basic(&c, &t)));
        assert_eq!(delta_disclosure(&c, &t), None);
    }
}
