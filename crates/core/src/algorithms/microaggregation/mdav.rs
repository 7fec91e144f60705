//! MDAV (Domingo-Ferrer and Mateo-Sanz 2002; Handbook on SDC §3.4.4), step
//! for step as sdcMicro 5.8.1's C++ runs it (src/Mdav.cpp, src/Mdav.h,
//! called by R/mdav.R), so that the groups are the same:
//!
//! 1. Standardization: each column's weight is 1 / variance, the variance
//!    the *population* one, computed in one pass as mean of squares minus
//!    squared mean (`Σx²/n − (Σx/n)²`, in double precision); a column whose
//!    variance comes out exactly 0 keeps weight 1. (R's `scale` and the
//!    Handbook use the sample variance; the factor n/(n−1) is the same for
//!    every column, so it changes no group, only the distances' scale.)
//! 2. Distances: the squared weighted Euclidean distance, each column's
//!    term computed in double, rounded to *single precision* and summed in
//!    single precision (`TDist` is `float`). Ties between rounded distances
//!    are therefore more frequent than in exact arithmetic, and which
//!    record wins them decides the groups: two candidates whose squared
//!    distances differ by less than half a float's precision (about 6e-8
//!    relative) tie, and the later record joins the group even when it is
//!    the farther one ([`Precision::Double`] measures it; on testdata's
//!    income, expend, savings and Adult's age at k = 3 and 5 it changes no
//!    group, BENCHMARKS.md).
//! 3. While at least 2k records remain: the centroid of the remaining
//!    records (double); r = the record farthest from it (the first in record
//!    order among equals); s = the record farthest from r (likewise); the
//!    group of r is the k records closest to r, r included. When at least
//!    3k records remained, the group of s is then the k records closest to
//!    s among those left. sdcMicro orders the records by distance with a
//!    hash sort that puts, among equal distances, the *later* record first;
//!    the k first are taken, so ties go to the later records.
//! 4. The k..2k−1 records left form the last group.
//!
//! So every group has k..2k−1 records: k for all but the last, which has
//! k + (n mod k) when n mod k < k (always), i.e. k..2k−1 (sdcMicro's
//! `ngroups` fix: it forms a single group when fewer than 3k remain, so the
//! last group is never smaller than k).
//!
//! The members of a group are listed in the order sdcMicro sums them for the
//! mean: by distance (ties later record first) for the groups of step 3, in
//! record order for the last group, so the means are the same doubles.

use crate::error::Result;
use crate::progress::Progress;

/// How MDAV's distances are computed and compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// As sdcMicro: each column's term rounded to `f32`, summed in `f32`.
    #[default]
    Single,
    /// In `f64` throughout: exact MDAV up to double rounding, to measure
    /// what sdcMicro's single precision changes.
    Double,
}

/// MDAV groups of one stratum's records (`x` column-major, finite values,
/// at least `k` records), each group's records in sdcMicro's summation
/// order. Fewer than 2k records make one group.
pub fn mdav_groups(x: &[Vec<f64>], k: usize, progress: &Progress) -> Result<Vec<Vec<usize>>> {
    mdav_groups_in(x, k, Precision::Single, progress)
}

/// [`mdav_groups`] with distances in the given precision: through the
/// k-d tree of `kdtree.rs` (the same groups as
/// [`mdav_groups_reference`]), or through the reference itself when the
/// tree's exactness argument does not hold (a weight not positive and
/// finite, or values beyond ±1e100).
pub fn mdav_groups_in(
    x: &[Vec<f64>],
    k: usize,
    precision: Precision,
    progress: &Progress,
) -> Result<Vec<Vec<usize>>> {
    let weights: Vec<f64> = x.iter().map(|col| inverse_variance(col)).collect();
    if k > 0 && super::kdtree::tree_applies(x, &weights) {
        super::kdtree::mdav_groups_tree(x, k, precision, progress)
    } else {
        mdav_groups_reference(x, k, precision, progress)
    }
}

/// MDAV as sdcMicro runs it, in O(n²/k): every step sums the centroid and
/// measures every remaining record. The specification [`mdav_groups_in`]
/// is tested against.
pub fn mdav_groups_reference(
    x: &[Vec<f64>],
    k: usize,
    precision: Precision,
    progress: &Progress,
) -> Result<Vec<Vec<usize>>> {
    let n = x.first().map_or(0, Vec::len);
    let weights: Vec<f64> = x.iter().map(|col| inverse_variance(col)).collect();
    // f32 widens to f64 exactly, so single-precision distances keep their
    // order and ties when compared as f64.
    let distance = |i: usize, to: &[f64]| -> f64 {
        let (mut single, mut double) = (0f32, 0f64);
        for ((col, w), t) in x.iter().zip(&weights).zip(to) {
            let diff = col[i] - t;
            let term = diff * diff * w;
            single += term as f32;
            double += term;
        }
        match precision {
            Precision::Single => f64::from(single),
            Precision::Double => double,
        }
    };
    let point = |i: usize| -> Vec<f64> { x.iter().map(|col| col[i]).collect() };
    let mut active: Vec<usize> = (0..n).collect();
    let mut groups = Vec::with_capacity(n / k.max(1));
    let mut dist = vec![0f64; n];
    progress.set_total(n as u64);
    while k > 0 && active.len() >= 2 * k {
        progress.check()?;
        let pairs = if active.len() < 3 * k { 1 } else { 2 };
        let center: Vec<f64> = x
            .iter()
            .map(|col| active.iter().map(|&i| col[i]).sum::<f64>() / active.len() as f64)
            .collect();
        let mut from = farthest(&active, |i| distance(i, &center));
        for _ in 0..pairs {
            let origin = point(from);
            for &i in &active {
                dist[i] = distance(i, &origin);
            }
            let next = farthest(&active, |i| dist[i]);
            let group = closest(&mut active, &dist, k);
            groups.push(group);
            from = next;
        }
        progress.advance((pairs * k) as u64);
    }
    if !active.is_empty() {
        progress.advance(active.len() as u64);
        groups.push(active);
    }
    Ok(groups)
}

/// 1 / population variance of a column, as Mdav.cpp computes it (one pass,
/// mean of squares minus squared mean); 1 when that is exactly 0.
pub(super) fn inverse_variance(col: &[f64]) -> f64 {
    let n = col.len() as f64;
    let (sum, squares) = col.iter().fold((0.0, 0.0), |(s, q), &v| (s + v, q + v * v));
    let mean = sum / n;
    let variance = squares / n - mean * mean;
    if variance != 0.0 {
        1.0 / variance
    } else {
        1.0
    }
}

/// The first record (in record order) at the largest distance.
fn farthest(active: &[usize], distance: impl Fn(usize) -> f64) -> usize {
    let mut best = active[0];
    let mut best_d = distance(best);
    for &i in &active[1..] {
        let d = distance(i);
        if d > best_d {
            best = i;
            best_d = d;
        }
    }
    best
}

/// Removes from `active` (kept in record order) the `k` records closest by
/// `dist`, ties to the later record, and returns them closest first.
fn closest(active: &mut Vec<usize>, dist: &[f64], k: usize) -> Vec<usize> {
    let order = |a: &usize, b: &usize| dist[*a].total_cmp(&dist[*b]).then(b.cmp(a));
    let mut pool = active.clone();
    if k < pool.len() {
        pool.select_nth_unstable_by(k - 1, order);
        pool.truncate(k);
    }
    pool.sort_by(order);
    let mut taken = pool.clone();
    taken.sort_unstable();
    active.retain(|i| taken.binary_search(i).is_err());
    pool
}
