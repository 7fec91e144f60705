//! sdcMicro's greedy heuristic (`suppSubset` in R/localSuppression.R and
//! `cpp_calcSuppInds` in src/calcSuppInds.cpp, sdcMicro 5.x), as sdcMicro
//! runs it with alpha = 1: the baseline the search is measured against,
//! and the floor it is held to (`mod.rs` keeps whichever suppresses
//! fewer cells).
//!
//! 1. Records are grouped by their keys, a missing cell read as the
//!    column's value on the first record (sdcMicro's `unique(x)[1]`); of a
//!    group of more than k records only the first k (in row order) take
//!    part, the others are set aside untouched (`tail(.SD, fk - k)`).
//! 2. A sweep: the records with fk < k (freqCalc, alpha = 1), in
//!    decreasing individual risk (increasing fk; sdcMicro's `order` keeps
//!    row order among ties), each in turn: its candidates are the records
//!    at the smallest positive distance (keys where both cells are present
//!    and differ), and the least important key where the record differs
//!    from a candidate is suppressed in the record. fk is not asked again
//!    within the sweep (a record fixed by an earlier one is still
//!    suppressed), but the candidates see the sweep's suppressions.
//! 3. Sweeps repeat until every record has fk ≥ k.
//!
//! One deviation: where sdcMicro stops with an error (a record of the
//! sweep's list that every record matches by then, so it has no candidate:
//! "the length of the index vector is 0"), the baseline skips the record.
//!
//! Candidates are found through the counts of [`State`] rather than by
//! scanning the records: with f = compatible(r, M), the records at
//! distance exactly d on a set D of r's present keys are counted by
//! compatible(r, M ∪ D) − f when no record is nearer, so the smallest d
//! with such a D is the smallest positive distance, and the keys where
//! candidates differ are the union of those D.

use crate::error::{Error, Result};
use crate::progress::Progress;

use super::index::{subsets, Layout, State};

/// The greedy's suppressions on records given by `codes` (m per record)
/// and their `masks` (missing cells): the new masks and the cells added,
/// or `None` with the cells so far once they exceed `stop_above` (the
/// search's total: the greedy can no longer be the one kept).
pub(super) fn greedy(
    layout: &Layout,
    codes: &[u32],
    masks: &[u32],
    levels: &[u32],
    k: u64,
    stop_above: Option<u64>,
    progress: &Progress,
) -> Result<(Option<Vec<u32>>, u64)> {
    let m = layout.m;
    let n = masks.len();
    // 1. Groups of more than k reduced to their first k records.
    let first: Vec<u32> = (0..m).map(|a| codes[a]).collect();
    let mut seen: rustc_hash::FxHashMap<Vec<u32>, u64> = rustc_hash::FxHashMap::default();
    let mut kept: Vec<usize> = Vec::with_capacity(n);
    for r in 0..n {
        let key: Vec<u32> = (0..m)
            .map(|a| {
                if masks[r] & (1 << a) != 0 {
                    first[a]
                } else {
                    codes[r * m + a]
                }
            })
            .chain(std::iter::once(
                // A missing first value stays missing: its own group.
                (0..m).fold(0u32, |acc, a| {
                    acc | (u32::from(masks[r] & (1 << a) != 0 && masks[0] & (1 << a) != 0) << a)
                }),
            ))
            .collect();
        let c = seen.entry(key).or_default();
        *c += 1;
        if *c <= k {
            kept.push(r);
        }
    }
    let sub_codes: Vec<u32> = kept
        .iter()
        .flat_map(|&r| codes[r * m..(r + 1) * m].iter().copied())
        .collect();
    let sub_masks: Vec<u32> = kept.iter().map(|&r| masks[r]).collect();
    let mut state = State::new(layout.clone(), sub_codes, sub_masks, vec![1; kept.len()]);
    if state.records < k {
        return Err(Error::Internal(
            "fewer than k records left for the greedy".into(),
        ));
    }
    // Keys least important first (sdcMicro's `order(importanceI)`).
    let mut by_importance: Vec<usize> = (0..m).collect();
    by_importance.sort_by_key(|&a| (levels[a], a));
    let mut cells = 0u64;
    // A record's fk never falls (a suppression only adds compatible
    // records), so only the last sweep's problems can be problems again.
    let mut candidates: Vec<usize> = (0..state.units()).collect();
    loop {
        progress.check()?;
        let mut problems: Vec<(u64, usize)> = candidates
            .iter()
            .map(|&u| {
                let mask = state.masks[u];
                (state.compatible(u, mask), u)
            })
            .filter(|&(f, _)| f < k)
            .collect();
        if problems.is_empty() {
            break;
        }
        problems.sort_unstable();
        let problems: Vec<usize> = problems.into_iter().map(|(_, u)| u).collect();
        candidates.clone_from(&problems);
        for (i, &u) in problems.iter().enumerate() {
            if i % 256 == 0 {
                progress.check()?;
            }
            let mask = state.masks[u];
            let free = layout.full() & !mask;
            let f = state.compatible(u, mask);
            let mut differ = 0u32;
            for d in 1..=free.count_ones() {
                for set in subsets(free, d) {
                    if state.compatible(u, mask | set) > f {
                        differ |= set;
                    }
                }
                if differ != 0 {
                    break;
                }
            }
            let Some(&a) = by_importance.iter().find(|&&a| differ & (1 << a) != 0) else {
                // Every record now matches it (an earlier suppression of
                // the sweep reached it): sdcMicro stops here with "the
                // length of the index vector is 0"; the baseline goes on
                // with the next record.
                continue;
            };
            state.suppress(u, 1 << a);
            cells += 1;
            if stop_above.is_some_and(|b| cells > b) {
                return Ok((None, cells));
            }
        }
    }
    let mut out = masks.to_vec();
    for (i, &r) in kept.iter().enumerate() {
        out[r] = state.masks[i];
    }
    Ok((Some(out), cells))
}
