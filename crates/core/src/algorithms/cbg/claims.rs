//! Corollary 2 of the cross-bucket paper across batches: whether a
//! release may claim `CrossBucketLDiversity` (module doc of `cbg`, "What is
//! guaranteed, and Corollary 2 across batches").

use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHasher};

use super::NONE;
use crate::error::Result;
use crate::progress::Progress;
use crate::release::{Cell, Release};

/// Candidate (tuple, group) tests `corollary_2_holds` may spend per row
/// (plus a fixed allowance) before giving up and not claiming.
const CHECK_BUDGET_PER_ROW: usize = 256;

/// Whether Corollary 2's first condition holds across batches: for every
/// tuple, the batches whose groups match it (their cells contain its QI
/// values) have disjoint S_sets. Every group of a batch meets all k of its
/// buckets, so those batches' buckets are exactly the tuple's matching
/// buckets, and the batch's values are its S_set. The second condition
/// always holds (module doc).
///
/// Two rows with equal QI and sensitive values refute it at once. Otherwise
/// every row is checked against the groups whose cell on the most selective
/// attribute contains its code; if that would exceed a work budget the
/// answer is `false` (not verified, so not claimed).
pub(super) fn corollary_2_holds(
    release: &Release,
    qi: &[&[u32]],
    value: &[u32],
    batch_of_group: &[u32],
    batch_values: &[Vec<u32>],
    progress: &Progress,
) -> Result<bool> {
    let n = value.len();
    // Twins: same QI values, same sensitive value.
    let mut seen: FxHashMap<u64, u32> = FxHashMap::default();
    for r in 0..n {
        let mut h = FxHasher::default();
        for col in qi {
            col[r].hash(&mut h);
        }
        value[r].hash(&mut h);
        if let Some(&other) = seen.get(&h.finish()) {
            let o = other as usize;
            if value[o] == value[r] && qi.iter().all(|col| col[o] == col[r]) {
                return Ok(false);
            }
        } else {
            seen.insert(h.finish(), r as u32);
        }
    }
    drop(seen);
    progress.check()?;

    // Candidate groups per code of the attribute with the shortest lists.
    let groups = &release.groups;
    let code_space: Vec<usize> = qi
        .iter()
        .map(|c| c.iter().copied().max().map_or(1, |m| m as usize + 1))
        .collect();
    let cell_codes = |cell: &Cell, space: usize| -> Vec<u32> {
        match cell {
            Cell::Value { code } => vec![*code],
            Cell::Interval { lo, hi } => (*lo..=(*hi).min(space as u32 - 1)).collect(),
            Cell::Set { codes, .. } => codes.clone(),
            Cell::Original | Cell::Suppressed => (0..space as u32).collect(),
        }
    };
    // prefix[a][c]: rows with a code below c on attribute a.
    let prefix: Vec<Vec<u64>> = qi
        .iter()
        .zip(&code_space)
        .map(|(col, &space)| {
            let mut p = vec![0u64; space + 1];
            for &c in col.iter() {
                p[c as usize + 1] += 1;
            }
            for c in 0..space {
                p[c + 1] += p[c];
            }
            p
        })
        .collect();
    // Rows tested against a group = rows whose code on `a` its cell holds.
    let work = |a: usize| -> u64 {
        let p = &prefix[a];
        let rows_in = |lo: u32, hi: u32| p[(hi as usize + 1).min(p.len() - 1)] - p[lo as usize];
        groups
            .iter()
            .map(|g| match &g.cells[a] {
                Cell::Value { code } => rows_in(*code, *code),
                Cell::Interval { lo, hi } => rows_in(*lo, *hi),
                Cell::Set { codes, .. } => codes.iter().map(|&c| rows_in(c, c)).sum(),
                Cell::Original | Cell::Suppressed => n as u64,
            })
            .sum()
    };
    let Some((a, cost)) = (0..qi.len()).map(|a| (a, work(a))).min_by_key(|&(_, w)| w) else {
        return Ok(true);
    };
    if cost > (CHECK_BUDGET_PER_ROW * n + 1_000_000) as u64 {
        return Ok(false);
    }
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); code_space[a]];
    for (g, group) in groups.iter().enumerate() {
        for c in cell_codes(&group.cells[a], code_space[a]) {
            lists[c as usize].push(g as u32);
        }
    }
    let n_values = value.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut value_stamp = vec![NONE; n_values];
    let mut batch_stamp = vec![NONE; batch_values.len()];
    for r in 0..n {
        if r % 4096 == 0 {
            progress.check()?;
        }
        let stamp = r as u32;
        for &g in &lists[qi[a][r] as usize] {
            let group = &groups[g as usize];
            let matches = group
                .cells
                .iter()
                .zip(qi)
                .all(|(cell, col)| cell.contains(col[r], col[r]));
            if !matches {
                continue;
            }
            let b = batch_of_group[g as usize] as usize;
            if batch_stamp[b] == stamp {
                continue;
            }
            batch_stamp[b] = stamp;
            for &v in &batch_values[b] {
                if value_stamp[v as usize] == stamp {
                    return Ok(false);
                }
                value_stamp[v as usize] = stamp;
            }
        }
    }
    Ok(true)
}
