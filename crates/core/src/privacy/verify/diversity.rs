//! The verifier's group and bucket claims: k-anonymity, distinct, entropy
//! and recursive l-diversity, p-sensitivity (plain and extended), bucket
//! l-diversity, and LGB's Corollary 3 on local buckets.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::data::{Column, Dataset};
use crate::partition::{counts_of_records, counts_of_rows};
use crate::release::{Bucket, Cell, Release};
use crate::risk::detaching_buckets;

pub(super) fn k_anonymity(release: &Release, ds: &Dataset, k: u32) -> Result<String, String> {
    let qi = &release.quasi_identifiers;
    // Per group: its smallest class, the rows agreeing on its `Original`
    // cells (all its rows when it has none).
    let smallest: Vec<(usize, bool)> = release
        .groups
        .par_iter()
        .map(|g| {
            let original: Vec<usize> = qi
                .iter()
                .zip(&g.cells)
                .filter(|(_, c)| matches!(c, Cell::Original))
                .map(|(&col, _)| col)
                .collect();
            if original.is_empty() {
                return (ds.records_of(&g.rows), false);
            }
            let mut classes: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
            for &r in &g.rows {
                let key = original
                    .iter()
                    .map(|&c| ds.col(c).code(r as usize))
                    .collect();
                *classes.entry(key).or_default() += ds.multiplicity(r as usize) as usize;
            }
            (classes.into_values().min().unwrap_or(0), true)
        })
        .collect();
    match smallest.iter().enumerate().min_by_key(|(_, s)| s.0) {
        None => Ok("nothing published".to_string()),
        Some((g, &(size, true))) if size < k as usize => Err(format!(
            "group {g} publishes original values, and only {size} of its rows share theirs: fewer than k = {k}"
        )),
        Some((g, &(size, false))) if size < k as usize => Err(format!(
            "group {g} has {size} rows, fewer than k = {k}"
        )),
        Some((_, &(size, _))) => Ok(format!("smallest class has {size} rows")),
    }
}

pub(super) fn group_l_diversity(
    release: &Release,
    ds: &Dataset,
    column: usize,
    l: u32,
) -> Result<String, String> {
    let col = ds.col(column);
    let distinct: Vec<usize> = release
        .groups
        .par_iter()
        .map(|g| counts_of_rows(&g.rows, col).len())
        .collect();
    match distinct.iter().enumerate().min_by_key(|(_, &d)| d) {
        None => Ok("nothing published".to_string()),
        Some((g, &d)) if d < l as usize => Err(format!(
            "group {g} holds {d} distinct values of '{}', fewer than l = {l}",
            col.name()
        )),
        Some((_, &d)) => Ok(format!("fewest distinct values in a group: {d}")),
    }
}

/// Entropy l-diversity of every group: H = ln n − (1/n)·Σ r ln r ≥ ln l.
pub(super) fn entropy_l_diversity(
    release: &Release,
    ds: &Dataset,
    column: usize,
    l: f64,
) -> Result<String, String> {
    if l.is_nan() || l < 1.0 {
        return Err(format!("l must be at least 1, not {l}"));
    }
    let col = ds.col(column);
    let entropies: Vec<f64> = release
        .groups
        .par_iter()
        .map(|g| {
            if g.rows.is_empty() {
                // Already reported by the structure checks; 0 keeps the
                // minimum a number instead of ln 0 − 0/0.
                return 0.0;
            }
            let n = ds.records_of(&g.rows) as f64;
            let weighted: f64 = counts_of_records(&g.rows, col, ds.multiplicities())
                .iter()
                .map(|v| {
                    let r = f64::from(v.count);
                    r * r.ln()
                })
                .sum();
            n.ln() - weighted / n
        })
        .collect();
    let bound = l.ln();
    match entropies
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
    {
        None => Ok("nothing published".to_string()),
        Some((g, &h)) if h < bound - 1e-12 * bound.abs().max(1.0) => Err(format!(
            "group {g} has entropy {h:.6} of '{}', less than ln {l} = {bound:.6}",
            col.name()
        )),
        Some((_, &h)) => Ok(format!(
            "smallest entropy in a group {h:.6} ≥ ln {l} = {bound:.6}"
        )),
    }
}

/// Recursive (c,l)-diversity of every group: r_1 < c·(r_l + … + r_m) with
/// the group's value counts sorted descending.
pub(super) fn recursive_cl_diversity(
    release: &Release,
    ds: &Dataset,
    column: usize,
    c: f64,
    l: u32,
) -> Result<String, String> {
    if l == 0 {
        return Err("l must be at least 1".into());
    }
    if c.is_nan() || c <= 0.0 {
        return Err(format!("c must be positive, not {c}"));
    }
    let col = ds.col(column);
    // Per group: (r_1, r_l + … + r_m, distinct values).
    let heads_and_tails: Vec<(u64, u64, usize)> = release
        .groups
        .par_iter()
        .map(|g| {
            let mut r: Vec<u64> = counts_of_records(&g.rows, col, ds.multiplicities())
                .iter()
                .map(|v| u64::from(v.count))
                .collect();
            r.sort_unstable_by(|a, b| b.cmp(a));
            let tail = r[(l as usize - 1).min(r.len())..].iter().sum();
            (r.first().copied().unwrap_or(0), tail, r.len())
        })
        .collect();
    if let Some((g, &(head, tail, d))) = heads_and_tails
        .iter()
        .enumerate()
        .find(|(_, &(head, tail, _))| head as f64 >= c * tail as f64)
    {
        return Err(if d < l as usize {
            format!(
                "group {g} holds {d} distinct values of '{}', fewer than l = {l}",
                col.name()
            )
        } else {
            format!(
                "group {g} of '{}' has r_1 = {head} ≥ c·(r_{l} + … + r_m) = {c}·{tail}",
                col.name()
            )
        });
    }
    let largest = heads_and_tails
        .iter()
        .map(|&(head, tail, _)| head as f64 / tail as f64)
        .max_by(f64::total_cmp);
    match largest {
        None => Ok("nothing published".to_string()),
        Some(ratio) => Ok(format!(
            "largest r_1/(r_{l} + … + r_m) in a group {ratio:.4} < c = {c}"
        )),
    }
}

/// Definition 3 of the p-sensitive paper: every group has k rows and p
/// distinct values of each attribute, on the rows themselves (a release
/// that detaches sensitive values into buckets is not what it speaks of).
pub(super) fn p_sensitive_k_anonymity(
    release: &Release,
    ds: &Dataset,
    k: u32,
    p: u32,
    attributes: &[String],
) -> Result<String, String> {
    if release.is_bucketized() || !release.local_buckets.is_empty() {
        return Err("the release detaches sensitive values into buckets; p-sensitivity is a property of groups that keep them".into());
    }
    if let Some((g, size)) = group_below_k(release, ds, k) {
        return Err(format!("group {g} has {size} rows, fewer than k = {k}"));
    }
    let mut fewest = Vec::new();
    for name in attributes {
        let column = ds.column_index(name).map_err(|e| e.to_string())?;
        if !release.sensitive.contains(&column) {
            return Err(format!(
                "'{name}' is not a sensitive attribute of the release"
            ));
        }
        fewest.push(format!(
            "'{name}' {}",
            group_l_diversity(release, ds, column, p)?
        ));
    }
    Ok(fewest.join("; "))
}

/// Definition 6: map each value to its protected subtree (its own when no
/// listed subtree holds it) and count distinct subtrees per group.
pub(super) fn extended_p_sensitivity(
    release: &Release,
    ds: &Dataset,
    column: usize,
    p: u32,
    subtrees: &[crate::release::ProtectedSubtree],
) -> Result<String, String> {
    let col = ds.col(column);
    let own = subtrees.len() as u32;
    let mut subtree_of = vec![u32::MAX; col.code_space()];
    for (i, s) in subtrees.iter().enumerate() {
        for v in &s.values {
            let Some(code) = col.code_of(v) else { continue };
            if subtree_of[code as usize] != u32::MAX {
                return Err(format!(
                    "the value '{v}' is in two protected subtrees ('{}' and '{}')",
                    subtrees[subtree_of[code as usize] as usize].root, s.root
                ));
            }
            subtree_of[code as usize] = i as u32;
        }
    }
    let mut fewest: Option<(usize, usize)> = None;
    for (g, group) in release.groups.iter().enumerate() {
        let mut seen: Vec<u64> = group
            .rows
            .iter()
            .map(|&r| {
                let code = col.code(r as usize);
                match subtree_of[code as usize] {
                    u32::MAX => ((own as u64) << 32) | code as u64,
                    s => s as u64,
                }
            })
            .collect();
        seen.sort_unstable();
        seen.dedup();
        if fewest.is_none_or(|(_, d)| seen.len() < d) {
            fewest = Some((g, seen.len()));
        }
    }
    match fewest {
        None => Ok("nothing published".into()),
        Some((g, d)) if d < p as usize => Err(format!(
            "group {g} holds values of '{}' from {d} protected subtrees, fewer than p = {p}",
            col.name()
        )),
        Some((_, d)) => Ok(format!("fewest protected subtrees in a group: {d}")),
    }
}

/// The first group with fewer than `k` rows, as (index, size): the
/// group-size condition that p-sensitive k-anonymity and Corollary 3 share.
fn group_below_k(release: &Release, ds: &Dataset, k: u32) -> Option<(usize, usize)> {
    release
        .groups
        .iter()
        .enumerate()
        .map(|(g, group)| (g, ds.records_of(&group.rows)))
        .find(|&(_, size)| size < k as usize)
}

pub(super) fn bucket_l_diversity(
    release: &Release,
    ds: &Dataset,
    column: usize,
    l: u32,
) -> Result<String, String> {
    let col = ds.col(column);
    let Some(buckets) = detaching_buckets(release, column) else {
        return no_buckets(release, col);
    };
    let is_local = release.local_buckets.iter().any(|lb| lb.column == column);
    if !is_local {
        let mut bucketed = vec![false; release.source_rows];
        for b in buckets {
            for &r in &b.rows {
                bucketed[r as usize] = true;
            }
        }
        let loose = release
            .groups
            .iter()
            .flat_map(|g| &g.rows)
            .find(|&&r| !bucketed[r as usize]);
        if let Some(r) = loose {
            return Err(format!(
                "row {r} is published outside every bucket, with its value '{}'",
                col.display(col.code(*r as usize))
            ));
        }
    }
    let bad = buckets
        .par_iter()
        .enumerate()
        .find_map_first(|(b, bucket)| bucket_violation(b, bucket, col, l));
    match bad {
        Some(msg) => Err(msg),
        None => Ok(format!(
            "{} buckets, smallest has {} rows",
            buckets.len(),
            buckets.iter().map(|b| b.rows.len()).min().unwrap_or(0)
        )),
    }
}

/// A bucket claim on a release without buckets holds only vacuously.
pub(super) fn no_buckets(release: &Release, col: &Column) -> Result<String, String> {
    if release.published_rows() == 0 {
        Ok("nothing published".to_string())
    } else {
        Err(format!(
            "no buckets detach '{}': its values stay on their rows",
            col.name()
        ))
    }
}

fn bucket_violation(b: usize, bucket: &Bucket, col: &Column, l: u32) -> Option<String> {
    if bucket.rows.len() < l as usize {
        return Some(format!(
            "bucket {b} has {} rows, fewer than l = {l}",
            bucket.rows.len()
        ));
    }
    counts_of_rows(&bucket.rows, col)
        .iter()
        .find(|v| v.count > 1)
        .map(|v| {
            format!(
                "bucket {b} holds '{}' {} times",
                col.display(v.code),
                v.count
            )
        })
}

/// The local buckets of an attribute LGB protects, or why there are none
/// to check: `Ok(None)` when the attribute has no sensitive cells (a
/// semi-sensitive attribute all of whose cells are QI values).
pub(super) fn lgb_buckets<'r>(
    release: &'r Release,
    col: &Column,
    column: usize,
) -> Result<Option<&'r [Bucket]>, String> {
    if !release.semi_sensitive.contains(&column) && !release.sensitive.contains(&column) {
        return Err(format!(
            "'{}' is neither semi-sensitive nor sensitive in this release",
            col.name()
        ));
    }
    match release.local_buckets_of(column) {
        Some(lb) => Ok(Some(&lb.buckets)),
        None if release.sensitive.contains(&column) && release.published_rows() > 0 => Err(
            format!("'{}' is sensitive but has no local buckets", col.name()),
        ),
        None => Ok(None),
    }
}

/// Corollary 3 of the LGB paper: (1) every local equivalence group has at
/// least k rows; (2) no value twice in a local bucket of the attribute;
/// (3) every such bucket has at least l cells.
pub(super) fn corollary_3(
    release: &Release,
    ds: &Dataset,
    column: usize,
    k: u32,
    l: u32,
) -> Result<String, String> {
    let col = ds.col(column);
    if let Some((g, size)) = group_below_k(release, ds, k) {
        return Err(format!(
            "(1) local group {g} has {size} rows, fewer than k = {k}"
        ));
    }
    let Some(buckets) = lgb_buckets(release, col, column)? else {
        return Ok(format!("0 sensitive cells of '{}'", col.name()));
    };
    if let Some(msg) = buckets
        .par_iter()
        .enumerate()
        .find_map_first(|(b, bucket)| bucket_violation(b, bucket, col, l))
    {
        let condition = if msg.contains("fewer than") {
            "(3)"
        } else {
            "(2)"
        };
        return Err(format!("{condition} local {msg}"));
    }
    Ok(format!(
        "smallest group {} rows; {} local buckets of {} sensitive cells, smallest {}",
        release
            .groups
            .iter()
            .map(|g| g.rows.len())
            .min()
            .unwrap_or(0),
        buckets.len(),
        buckets.iter().map(|b| b.rows.len()).sum::<usize>(),
        buckets.iter().map(|b| b.rows.len()).min().unwrap_or(0)
    ))
}
