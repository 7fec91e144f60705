//! Optimal univariate microaggregation (Hansen and Mukherjee, IEEE TKDE
//! 15(4), 2003): for one column, the partition into groups of at least k
//! records with the least within-group sum of squares. Their theorem: some
//! optimal partition has groups contiguous in sorted order, each of k..2k−1
//! records (a group of 2k or more splits into two without loss). So the
//! optimum is a shortest path over the sorted positions 0..=n, an edge
//! i → j (k ≤ j − i ≤ 2k − 1) costing the sum of squares of positions
//! i..j: O(n·k) time with the sums kept incrementally.
//!
//! Choices where the paper leaves room: equal values are sorted by record
//! order (a stable sort), so the groups are reproducible; between paths of
//! equal cost the one whose last group is shortest wins (the first found);
//! a group's sum of squares is computed by Welford's update from its own
//! values, not from prefix sums of squares, which lose everything to
//! cancellation on values like incomes of 10⁸. A file of k..2k−1 records is
//! one group.

use crate::error::Result;
use crate::progress::Progress;

/// Optimal groups of one stratum's values (finite, at least `k`), each
/// group's records in sorted order (the order the mean sums them).
pub fn optimal_groups(x: &[f64], k: usize, progress: &Progress) -> Result<Vec<Vec<usize>>> {
    let n = x.len();
    let k = k.max(1);
    if n < k {
        return Ok(vec![(0..n).collect()]);
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let sorted: Vec<f64> = order.iter().map(|&i| x[i]).collect();
    let longest = 2 * k - 1;
    // cost[j]: least sum of squares of the first j sorted values;
    // from[j]: where the last group of that partition starts.
    let mut cost = vec![f64::INFINITY; n + 1];
    let mut from = vec![usize::MAX; n + 1];
    cost[0] = 0.0;
    progress.set_total(n as u64);
    for j in k..=n {
        if j % 4096 == 0 {
            progress.check()?;
            progress.advance(4096);
        }
        let (mut mean, mut squares) = (0.0, 0.0);
        for len in 1..=longest.min(j) {
            let v = sorted[j - len];
            let delta = v - mean;
            mean += delta / len as f64;
            squares += delta * (v - mean);
            if len >= k && cost[j - len] + squares < cost[j] {
                cost[j] = cost[j - len] + squares;
                from[j] = j - len;
            }
        }
    }
    let mut groups = Vec::new();
    let mut j = n;
    while j > 0 {
        let i = from[j];
        groups.push(order[i..j].to_vec());
        j = i;
    }
    groups.reverse();
    Ok(groups)
}
