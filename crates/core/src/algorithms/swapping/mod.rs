//! Rank swapping of numeric attributes (issue 34): sdcMicro 5.8.1's
//! `rankSwap` with its rank range `P` (R/rankSwap.R calling
//! src/RankSwapping.h), the method of Moore, "Controlled data-swapping
//! techniques for masking public use microdata sets" (US Census Bureau,
//! 1996), SDC Handbook §3.4.7.
//!
//! Each column on its own: the records are ordered by the column's value,
//! highest first (equal values in record order); going down the ranks, a
//! record j not yet swapped is swapped with a record drawn uniformly among
//! those not yet swapped whose rank is in (j, j + w), w = ⌊p·N/100⌋, N the
//! number of records ranked. A record with no such partner keeps its
//! value. Every swap thus stays within p percent of the ranks (strictly
//! fewer than p·N/100 ranks apart), and the column's values are only
//! permuted: their multiset is unchanged.
//!
//! Where anonlab differs from sdcMicro, and why:
//! - `P`: sdcMicro's documentation gives P in percent (|i − j| ≤ P·N/100),
//!   but its C++ multiplies N by P as given, so `P = 5` lets any two
//!   records swap; anonlab takes p in percent, i.e. sdcMicro's `P = p/100`.
//! - sdcMicro's defaults `TopPercent = 5, BottomPercent = 5` first replace
//!   the highest and lowest 5 % by their means (top/bottom coding) and swap
//!   only the rest. That changes the values and belongs to top/bottom
//!   coding, which anonlab has apart and can combine; here no record is
//!   coded (sdcMicro's `TopPercent = 0, BottomPercent = 0`).
//! - The partner is drawn from a ChaCha8 stream seeded by the caller, by a
//!   Fenwick tree over the records not yet swapped (O(N log N) per column;
//!   sdcMicro lists the candidates of every rank, O(N²·p)).
//! - Strata (sdcMicro has none): when given, ranks are within each stratum
//!   and swaps never cross strata.
//! - Missing values are refused, naming record and column (sdcMicro ranks
//!   them last and leaves them).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::microaggregation::{numeric_columns_for, strata_of};
use crate::data::Dataset;
use crate::error::{Error, Parameter, Result};
use crate::progress::Progress;

/// The result, shaped as [`Microaggregated`](super::microaggregation::Microaggregated).
#[derive(Debug, Clone, PartialEq)]
pub struct Swapped {
    /// The swapped columns, in the order given.
    pub columns: Vec<usize>,
    /// Values after swapping, column-major: `values[c][record]`.
    pub values: Vec<Vec<f64>>,
    /// p: the rank range in percent of the records.
    pub p: f64,
    /// Per column, the number of swaps (pairs of records that exchanged
    /// their values).
    pub swaps: Vec<usize>,
    /// Per column, the partner of each record (itself when not swapped):
    /// what the internal report may give, never the external one.
    pub partner: Vec<Vec<u32>>,
}

/// Rank swapping of numeric `columns` of `ds` with range `p` percent,
/// within the strata of column `strata` when given.
pub fn rank_swap(
    ds: &Dataset,
    columns: &[usize],
    strata: Option<usize>,
    p: f64,
    seed: u64,
    progress: &Progress,
) -> Result<Swapped> {
    let x = numeric_columns_for(ds, columns, "rank swapping")?;
    let codes = strata.map(|s| ds.col(s).codes());
    let mut out = swap_values(&x, codes, p, seed, progress)?;
    out.columns = columns.to_vec();
    Ok(out)
}

/// [`rank_swap`] on column-major values `x` (no NaN), strata as one code
/// per record. Columns of the result are numbered 0..
pub fn swap_values(
    x: &[Vec<f64>],
    strata: Option<&[u32]>,
    p: f64,
    seed: u64,
    progress: &Progress,
) -> Result<Swapped> {
    if !(p.is_finite() && (0.0..=100.0).contains(&p)) {
        return Err(Error::Invalid {
            parameter: Parameter::P,
            msg: format!("rank swapping's p must be a percentage in [0, 100]; got {p}"),
        });
    }
    for (c, col) in x.iter().enumerate() {
        if let Some(row) = col.iter().position(|v| v.is_nan()) {
            return Err(Error::Invalid {
                parameter: Parameter::Column,
                msg: format!(
                    "column {} has no value at record {}: rank swapping needs a number in every cell",
                    c + 1,
                    row + 1
                ),
            });
        }
    }
    let rows = x.first().map_or(0, Vec::len);
    let groups = strata_of(rows, strata);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut values = Vec::with_capacity(x.len());
    let mut swaps = Vec::with_capacity(x.len());
    let mut partners = Vec::with_capacity(x.len());
    progress.set_total((rows * x.len()) as u64);
    for col in x {
        progress.check()?;
        let mut out = col.clone();
        let mut partner: Vec<u32> = (0..rows as u32).collect();
        let mut count = 0;
        for (_, members) in &groups {
            let mut ranked = members.clone();
            // Highest first; equal values in record order (a stable sort).
            ranked.sort_by(|&a, &b| col[b].total_cmp(&col[a]));
            for (a, b) in swap_ranks(ranked.len(), p, &mut rng) {
                let (ra, rb) = (ranked[a], ranked[b]);
                out[ra] = col[rb];
                out[rb] = col[ra];
                partner[ra] = rb as u32;
                partner[rb] = ra as u32;
                count += 1;
            }
        }
        values.push(out);
        swaps.push(count);
        partners.push(partner);
        progress.advance(rows as u64);
    }
    Ok(Swapped {
        columns: (0..x.len()).collect(),
        values,
        p,
        swaps,
        partner: partners,
    })
}

/// The swaps among `n` ranks (0 the highest value): pairs (j, j′) with
/// j < j′ < j + ⌊p·n/100⌋, j′ drawn uniformly among the ranks not yet
/// swapped.
fn swap_ranks(n: usize, p: f64, rng: &mut ChaCha8Rng) -> Vec<(usize, usize)> {
    let width = ((p / 100.0) * n as f64).floor() as usize;
    let mut free = Fenwick::full(n);
    let mut taken = vec![false; n];
    let mut pairs = Vec::new();
    for j in 0..n {
        if taken[j] {
            continue;
        }
        taken[j] = true;
        free.remove(j);
        let end = (j + width).min(n);
        // Free ranks in (j, end): free ranks below `end` minus those up to j
        // (none free at or below j any more).
        let available = free.prefix(end);
        if available == 0 {
            continue;
        }
        let pick = free.nth(rng.random_range(0..available));
        taken[pick] = true;
        free.remove(pick);
        pairs.push((j, pick));
    }
    pairs
}

/// Counts of free positions, for the t-th free position in O(log n).
struct Fenwick {
    tree: Vec<usize>,
}

impl Fenwick {
    fn full(n: usize) -> Fenwick {
        let mut tree = vec![0; n + 1];
        for i in 1..=n {
            tree[i] += 1;
            let parent = i + (i & i.wrapping_neg());
            if parent <= n {
                tree[parent] += tree[i];
            }
        }
        Fenwick { tree }
    }

    fn remove(&mut self, pos: usize) {
        let mut i = pos + 1;
        while i < self.tree.len() {
            self.tree[i] -= 1;
            i += i & i.wrapping_neg();
        }
    }

    /// Free positions below `end`.
    fn prefix(&self, end: usize) -> usize {
        let (mut i, mut s) = (end, 0);
        while i > 0 {
            s += self.tree[i];
            i -= i & i.wrapping_neg();
        }
        s
    }

    /// The free position with `t` free positions before it.
    fn nth(&self, mut t: usize) -> usize {
        let n = self.tree.len() - 1;
        let mut pos = 0;
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next <= n && self.tree[next] <= t {
                pos = next;
                t -= self.tree[next];
            }
            step >>= 1;
        }
        pos
    }
}

#[cfg(test)]
mod tests;
