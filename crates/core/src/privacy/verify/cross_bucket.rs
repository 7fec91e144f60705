//! The verifier's cross-bucket claims, stated over matching tuples:
//! Corollary 2 of the cross-bucket paper and the breach-probability bound
//! of its Definition 10 (Section 4.1).

use rayon::prelude::*;

use crate::data::{Column, Dataset};
use crate::progress::Progress;
use crate::release::Release;
use crate::risk::{detaching_buckets, Matching, ValueBuckets};

use super::diversity::no_buckets;
use super::Shared;

pub(super) fn cross_bucket_l_diversity(
    release: &Release,
    ds: &Dataset,
    column: usize,
    l: u32,
    shared: Option<&Matching>,
) -> Result<String, String> {
    let col = ds.col(column);
    if detaching_buckets(release, column).is_none() {
        return no_buckets(release, col);
    }
    let built;
    let matching = match shared {
        Some(m) => m,
        None => {
            built = Matching::new(release, ds, &Progress::new()).map_err(|e| e.to_string())?;
            &built
        }
    };
    let buckets = ValueBuckets::new(release, ds, column);
    let unit_buckets = unit_bucket_counts(matching, &buckets);
    let l = u64::from(l);

    // Per target: the first violation, or the largest p(t, MB)/|MB| as a
    // fraction (num, den).
    let results: Vec<Result<(u64, u64), String>> = (0..matching.n_targets())
        .into_par_iter()
        .map_init(
            || {
                (
                    vec![0u32; buckets.len()],
                    vec![u32::MAX; col.code_space()],
                    Vec::<u32>::new(),
                )
            },
            |(num_in, seen_in, touched), t| {
                let total = matching.matched_tuples(t);
                for &u in matching.matched_units(t) {
                    for &(b, c) in unit_buckets.unit(u as usize) {
                        if num_in[b as usize] == 0 {
                            touched.push(b);
                        }
                        num_in[b as usize] += c;
                    }
                }
                let row = matching.target_rows(t)[0];
                let outcome = corollary_2(row, total, l, touched, num_in, seen_in, &buckets, col);
                for &b in touched.iter() {
                    num_in[b as usize] = 0;
                    for v in buckets.values(b as usize) {
                        seen_in[v.code as usize] = u32::MAX;
                    }
                }
                touched.clear();
                outcome
            },
        )
        .collect();
    let mut worst = (0u64, 1u64);
    for r in results {
        let (num, den) = r?;
        if num * worst.1 > worst.0 * den {
            worst = (num, den);
        }
    }
    Ok(format!(
        "{} published tuples checked; largest p(t,MB)/|MB| = {:.4} ≤ 1/{l}",
        release.published_rows(),
        worst.0 as f64 / worst.1 as f64
    ))
}

/// Corollary 2 for one target; `touched` lists its matching buckets and
/// `num_in[b]` holds Num(t, b). Returns the largest p(t, MB)/|MB| as
/// (Num(t, MB), Num_tuples(t)·|MB|).
#[allow(clippy::too_many_arguments)]
fn corollary_2(
    row: u32,
    total: u64,
    l: u64,
    touched: &mut [u32],
    num_in: &[u32],
    seen_in: &mut [u32],
    buckets: &ValueBuckets,
    col: &Column,
) -> Result<(u64, u64), String> {
    touched.sort_unstable();
    let mut worst = (0u64, 1u64);
    for &b in touched.iter() {
        let size = buckets.size(b as usize) as u64;
        let num = u64::from(num_in[b as usize]);
        if num * l > total * size {
            return Err(format!(
                "tuple {row}: matching bucket {b} has p(t,MB)/|MB| = ({num}/{total})/{size} > 1/{l}"
            ));
        }
        if num * worst.1 > worst.0 * total * size {
            worst = (num, total * size);
        }
        for v in buckets.values(b as usize) {
            let first = seen_in[v.code as usize];
            if v.count > 1 || first != u32::MAX {
                let place = if v.count > 1 {
                    format!("{} times in bucket {b}", v.count)
                } else {
                    format!("in buckets {first} and {b}")
                };
                return Err(format!(
                    "tuple {row}: '{}' appears {place} among its matching buckets",
                    col.display(v.code)
                ));
            }
            seen_in[v.code as usize] = b;
        }
    }
    Ok(worst)
}

/// Per unit of the matching, its rows counted by bucket, (bucket, count)
/// sorted by bucket.
struct UnitBuckets {
    offsets: Vec<usize>,
    pairs: Vec<(u32, u32)>,
}

impl UnitBuckets {
    fn unit(&self, u: usize) -> &[(u32, u32)] {
        &self.pairs[self.offsets[u]..self.offsets[u + 1]]
    }
}

fn unit_bucket_counts(matching: &Matching, buckets: &ValueBuckets) -> UnitBuckets {
    let mut offsets = vec![0usize];
    let mut pairs = Vec::new();
    let mut ids: Vec<u32> = Vec::new();
    for u in 0..matching.n_units() {
        ids.clear();
        ids.extend(
            matching
                .unit_rows(u)
                .iter()
                .filter_map(|&r| buckets.bucket_of_row(r as usize))
                .map(|b| b as u32),
        );
        ids.sort_unstable();
        pairs.extend(
            ids.chunk_by(|a, b| a == b)
                .map(|run| (run[0], run.len() as u32)),
        );
        offsets.push(pairs.len());
    }
    UnitBuckets { offsets, pairs }
}

/// Definition 10 by the Section 4.1 formula, through the risk module's
/// matching (which evaluates p(t, s) from the published groups and buckets
/// only, never from the algorithm's bookkeeping).
pub(super) fn breach_bound(
    release: &Release,
    ds: &Dataset,
    attribute: usize,
    l: u32,
    shared: Shared<'_>,
) -> Result<String, String> {
    if l == 0 {
        return Err("l must be at least 1".into());
    }
    let computed;
    let b = match shared {
        Shared {
            breach: Some((column, b)),
            ..
        } if column == attribute => b,
        Shared { matching, .. } => {
            let progress = Progress::new();
            computed = match matching {
                Some(m) => crate::risk::breach_from(m, release, ds, attribute, &progress),
                None => crate::risk::breach_probability(release, ds, attribute, &progress),
            }
            .map_err(|e| e.to_string())?;
            &computed
        }
    };
    let bound = 1.0 / f64::from(l);
    match b
        .probabilities
        .iter()
        .enumerate()
        .find(|(_, &p)| p > bound + 1e-9)
    {
        Some((row, &p)) => Err(format!(
            "row {row} has breach probability {p:.4} > 1/{l} = {bound:.4}"
        )),
        None => Ok(format!(
            "largest breach probability {:.4} ≤ 1/{l} = {bound:.4} over {} rows",
            b.summary.max, b.summary.records
        )),
    }
}
