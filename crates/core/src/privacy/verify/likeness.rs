//! (α,k)-anonymity, δ-disclosure privacy and β-likeness re-checked from
//! their definitions, apart from `privacy::models` (which full-domain uses
//! to reach them), so that a slip there is caught here:
//!
//! - (α,k)-anonymity (Wong et al., KDD 2006): in every group, each value's
//!   share of the group's records is at most α;
//! - δ-disclosure privacy (Brickell & Shmatikov, KDD 2008, Definition 4):
//!   |ln(q(s)/p(s))| ≤ δ for every value s of the published table, q the
//!   group's distribution and p the table's; a group lacking a value of the
//!   table has ln 0 and fails (the paper's strict `<` is taken as `≤`, see
//!   `privacy::model`);
//! - basic β-likeness (Cao & Karras, PVLDB 2012, Definition 3):
//!   (q(s) − p(s))/p(s) ≤ β for every value with q(s) > p(s).
//!
//! Counts are records (a grouped table's rows weighted by their
//! multiplicities); the table is the published rows, as for t-closeness.
//! Each group is counted densely over the attribute's code space.

use rayon::prelude::*;

use crate::data::{Column, Dataset};
use crate::release::Release;

/// Beyond `bound` after rounding: a relative slack of 1e-12.
fn exceeds(x: f64, bound: f64) -> bool {
    x > bound + 1e-12 * bound.abs().max(1.0)
}

/// Records per code of `col` over `rows`.
fn records_by_code(col: &Column, rows: &[u32], weights: Option<&[u32]>) -> Vec<u64> {
    let mut by_code = vec![0u64; col.code_space()];
    for &r in rows {
        by_code[col.code(r as usize) as usize] += weights.map_or(1, |w| u64::from(w[r as usize]));
    }
    by_code
}

/// The worst group by `measure` (largest; the last of equals), with its
/// figure; `None` when nothing is published.
fn worst_group(
    release: &Release,
    ds: &Dataset,
    column: usize,
    measure: impl Fn(&[u64], u64) -> f64 + Sync,
) -> Option<(usize, f64)> {
    let col = ds.col(column);
    let weights = ds.multiplicities();
    let figures: Vec<f64> = release
        .groups
        .par_iter()
        .map(|g| {
            let q = records_by_code(col, &g.rows, weights);
            let n: u64 = q.iter().sum();
            if n == 0 {
                // Empty groups are the structure checks' to report.
                return 0.0;
            }
            measure(&q, n)
        })
        .collect();
    figures
        .into_iter()
        .enumerate()
        .fold(None, |w, (g, x)| match w {
            Some((_, wx)) if x < wx => w,
            _ => Some((g, x)),
        })
}

/// The published table's records per code and their total.
fn published_table(release: &Release, ds: &Dataset, column: usize) -> (Vec<u64>, u64) {
    let rows: Vec<u32> = release
        .groups
        .iter()
        .flat_map(|g| g.rows.iter().copied())
        .collect();
    let p = records_by_code(ds.col(column), &rows, ds.multiplicities());
    let total = p.iter().sum();
    (p, total)
}

pub(super) fn alpha_k(
    release: &Release,
    ds: &Dataset,
    column: usize,
    alpha: f64,
) -> Result<String, String> {
    if !(alpha > 0.0 && alpha <= 1.0) {
        return Err(format!("alpha must lie in (0, 1], not {alpha}"));
    }
    let name = ds.col(column).name();
    let worst = worst_group(release, ds, column, |q, n| {
        *q.iter().max().unwrap_or(&0) as f64 / n as f64
    });
    match worst {
        None => Ok("nothing published".to_string()),
        Some((g, a)) if exceeds(a, alpha) => Err(format!(
            "in group {g} one value of '{name}' holds a share {a:.6} of the records, more than alpha = {alpha}"
        )),
        Some((_, a)) => Ok(format!("largest share of one value in a group {a:.6}")),
    }
}

pub(super) fn delta_disclosure(
    release: &Release,
    ds: &Dataset,
    column: usize,
    delta: f64,
) -> Result<String, String> {
    if !(delta > 0.0 && delta.is_finite()) {
        return Err(format!("delta must be a positive number, not {delta}"));
    }
    let name = ds.col(column).name();
    let (p, total) = published_table(release, ds, column);
    let worst = worst_group(release, ds, column, |q, n| {
        let mut worst = 0.0f64;
        for (&qs, &ps) in q.iter().zip(&p) {
            if ps == 0 {
                continue;
            }
            if qs == 0 {
                return f64::INFINITY;
            }
            // q/p = (qs/n)/(ps/total), as one ratio of integers.
            let ratio = (qs as f64 * total as f64) / (ps as f64 * n as f64);
            worst = worst.max(ratio.ln().abs());
        }
        worst
    });
    match worst {
        None => Ok("nothing published".to_string()),
        Some((g, d)) if d.is_infinite() => Err(format!(
            "group {g} lacks a value of '{name}' that the published table holds (an infinite log ratio)"
        )),
        Some((g, d)) if exceeds(d, delta) => Err(format!(
            "group {g} has |ln(q/p)| = {d:.6} for a value of '{name}', more than delta = {delta}"
        )),
        Some((_, d)) => Ok(format!("largest |ln(q/p)| {d:.6}")),
    }
}

pub(super) fn beta_likeness(
    release: &Release,
    ds: &Dataset,
    column: usize,
    beta: f64,
) -> Result<String, String> {
    if !(beta > 0.0 && beta.is_finite()) {
        return Err(format!("beta must be a positive number, not {beta}"));
    }
    let name = ds.col(column).name();
    let (p, total) = published_table(release, ds, column);
    let worst = worst_group(release, ds, column, |q, n| {
        q.iter()
            .zip(&p)
            .filter(|&(&qs, &ps)| ps > 0 && (qs as u128 * total as u128) > (ps as u128 * n as u128))
            .map(|(&qs, &ps)| {
                let (qn, pn) = (qs as f64 * total as f64, ps as f64 * n as f64);
                (qn - pn) / pn
            })
            .fold(0.0, f64::max)
    });
    match worst {
        None => Ok("nothing published".to_string()),
        Some((g, b)) if exceeds(b, beta) => Err(format!(
            "group {g} over-represents a value of '{name}' by (q − p)/p = {b:.6}, more than beta = {beta}"
        )),
        Some((_, b)) => Ok(format!("largest relative gain (q − p)/p {b:.6}")),
    }
}
