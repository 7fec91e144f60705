//! `SuppressionKAnonymity` (local suppression) by its definition: every
//! published record is matched by at least k published records of its
//! stratum, itself included, on the full set of quasi-identifiers and on
//! every subset of each listed size. Two records match when on every key
//! of the set their cells are equal, or — under `AnyValue` — either is
//! `*`; under `OwnValue` `*` equals only `*`.
//!
//! Counted here apart from the algorithm's index: the published rows are
//! reduced to (group, stratum) units, and for every pair of `*` patterns
//! (P, Q) the units of Q are counted by stratum and their values on the
//! keys neither pattern suppresses, then looked up for each unit of P.
//!
//! `SuppressionRiskThreshold` counts f the same way on the full set of keys,
//! with the sampling weights' sum beside it, and judges each published
//! record (or household) by sdcMicro's individual risk of that (f, F̂).

use rustc_hash::FxHashMap;

use crate::data::{Dataset, IndividualMethod};
use crate::release::{Cell, Convention, Release};
use crate::risk::household::{household_risks, households_of};
use crate::risk::individual::{class_risk, sampling_weights, ROUNDING};

struct Unit {
    group: usize,
    stratum: u32,
    rows: u64,
    /// The rows' sampling weights' sum (their number without weights).
    weight: f64,
    first_row: u32,
}

pub(super) fn suppression_k_anonymity(
    release: &Release,
    ds: &Dataset,
    k: u32,
    convention: Convention,
    combinations: &[u32],
    strata: Option<&str>,
) -> Result<String, String> {
    let m = release.quasi_identifiers.len();
    let cells = published_cells(release)?;
    let stratum_col = match strata {
        Some(name) => Some(ds.column_index(name).map_err(|e| e.to_string())?),
        None => None,
    };
    let mut units: Vec<Unit> = Vec::new();
    for (g, group) in release.groups.iter().enumerate() {
        let mut by: FxHashMap<u32, (u64, u32)> = FxHashMap::default();
        for &r in &group.rows {
            let s = stratum_col.map_or(0, |c| ds.col(c).code(r as usize));
            let e = by.entry(s).or_insert((0, r));
            e.0 += u64::from(ds.multiplicity(r as usize));
        }
        let mut by: Vec<(u32, (u64, u32))> = by.into_iter().collect();
        by.sort_unstable_by_key(|(s, _)| *s);
        units.extend(by.into_iter().map(|(stratum, (rows, first_row))| Unit {
            group: g,
            stratum,
            rows,
            weight: rows as f64,
            first_row,
        }));
    }
    let all: u32 = if m == 0 { 0 } else { (1u32 << m) - 1 };
    let mut sets = vec![all];
    for &size in combinations {
        if size == 0 || size as usize > m {
            return Err(format!(
                "subsets of {size} of {m} quasi-identifiers do not exist"
            ));
        }
        sets.extend((0..=all).filter(|s| s.count_ones() == size));
    }
    let mut smallest = u64::MAX;
    for &set in &sets {
        let counts = count_matches(&units, &cells, set, convention);
        for (u, &(c, _)) in units.iter().zip(&counts) {
            if c < u64::from(k) {
                let names: Vec<&str> = (0..m)
                    .filter(|&a| set & (1 << a) != 0)
                    .map(|a| ds.col(release.quasi_identifiers[a]).name())
                    .collect();
                return Err(format!(
                    "row {} (group {}) is matched by {c} published records on {{{}}}, fewer than {k} ({})",
                    u.first_row + 1,
                    u.group,
                    names.join(", "),
                    convention.describe()
                ));
            }
            smallest = smallest.min(c);
        }
    }
    if units.is_empty() {
        return Ok("nothing published".to_string());
    }
    // The claim's name says the convention and the strata.
    Ok(format!(
        "every published record matched by at least {smallest} ≥ {k} on {} set(s) of keys",
        sets.len()
    ))
}

/// Per group: value codes, `None` for `*`.
fn published_cells(release: &Release) -> Result<Vec<Vec<Option<u32>>>, String> {
    let m = release.quasi_identifiers.len();
    if m > 31 {
        return Err(format!("{m} quasi-identifiers: more than this check names"));
    }
    let mut cells: Vec<Vec<Option<u32>>> = Vec::with_capacity(release.groups.len());
    for (g, group) in release.groups.iter().enumerate() {
        let mut row = Vec::with_capacity(m);
        for cell in &group.cells {
            row.push(match cell {
                Cell::Value { code } => Some(*code),
                Cell::Suppressed => None,
                _ => {
                    return Err(format!(
                        "group {g} publishes a cell that is neither a value nor *: not a local suppression"
                    ))
                }
            });
        }
        cells.push(row);
    }
    Ok(cells)
}

/// `SuppressionRiskThreshold`: every published record's individual risk
/// (f and F̂ from the published records compatible with it, `*` matching
/// any value, counted here as for k) — or every household's 1 − ∏(1 − rᵢ)
/// — at most `threshold`. A risk within `risk::individual::ROUNDING` above
/// the threshold passes: sums and products taken in another order differ
/// in their last bits.
pub(super) fn suppression_risk_threshold(
    release: &Release,
    ds: &Dataset,
    threshold: f64,
    weights: Option<&str>,
    household: Option<&str>,
) -> Result<String, String> {
    let m = release.quasi_identifiers.len();
    let cells = published_cells(release)?;
    let weights = match weights {
        Some(name) => Some(
            sampling_weights(ds, ds.name(), &release.quasi_identifiers, name)
                .map_err(|e| e.to_string())?,
        ),
        None => None,
    };
    let units: Vec<Unit> = release
        .groups
        .iter()
        .enumerate()
        .map(|(g, group)| Unit {
            group: g,
            stratum: 0,
            rows: group.rows.len() as u64,
            weight: match &weights {
                Some(w) => group.rows.iter().map(|&r| w[r as usize]).sum(),
                None => group.rows.len() as f64,
            },
            first_row: group.rows.first().copied().unwrap_or(0),
        })
        .collect();
    let all: u32 = if m == 0 { 0 } else { (1u32 << m) - 1 };
    let counts = count_matches(&units, &cells, all, Convention::AnyValue);
    let group_risk: Vec<f64> = counts
        .iter()
        .map(|&(f, big_f)| {
            class_risk(
                f.min(u64::from(u32::MAX)) as u32,
                big_f,
                IndividualMethod::Approx,
            )
        })
        .collect();
    let tolerance = ROUNDING;
    match household {
        None => {
            let mut max = 0f64;
            for (u, &r) in units.iter().zip(&group_risk) {
                if r > threshold + tolerance {
                    return Err(format!(
                        "row {} (group {}) has individual risk {r:.6} with f = {}, above {threshold}",
                        u.first_row + 1,
                        u.group,
                        counts[u.group].0
                    ));
                }
                max = max.max(r);
            }
            Ok(format!(
                "every published record's risk at most {threshold} (max {max:.6})"
            ))
        }
        Some(col) => {
            let (of, count) = households_of(ds, ds.name(), col).map_err(|e| e.to_string())?;
            let mut row_risk = vec![0f64; ds.n_rows()];
            for (g, group) in release.groups.iter().enumerate() {
                for &r in &group.rows {
                    row_risk[r as usize] = group_risk[g];
                }
            }
            let mut first = vec![u32::MAX; count];
            for (r, &h) in of.iter().enumerate() {
                first[h as usize] = first[h as usize].min(r as u32);
            }
            let mut max = 0f64;
            for (h, &risk) in household_risks(&of, &row_risk, count).iter().enumerate() {
                if risk > threshold + tolerance {
                    return Err(format!(
                        "the household of row {} has risk {risk:.6}, above {threshold}",
                        first[h] + 1
                    ));
                }
                max = max.max(risk);
            }
            Ok(format!(
                "every household's risk at most {threshold} (max {max:.6}, {count} households)"
            ))
        }
    }
}

/// Records matching each unit on the keys of `set`, and their weights'
/// sum.
fn count_matches(
    units: &[Unit],
    cells: &[Vec<Option<u32>>],
    set: u32,
    convention: Convention,
) -> Vec<(u64, f64)> {
    let pattern = |u: &Unit| -> u32 {
        cells[u.group]
            .iter()
            .enumerate()
            .filter(|(a, c)| set & (1 << a) != 0 && c.is_none())
            .fold(0u32, |acc, (a, _)| acc | (1 << a))
    };
    let key = |u: &Unit, skip: u32| -> (u32, Vec<u32>) {
        let values = cells[u.group]
            .iter()
            .enumerate()
            .filter(|(a, _)| set & (1 << a) != 0 && skip & (1 << a) == 0)
            .map(|(_, c)| c.unwrap_or(u32::MAX))
            .collect();
        (u.stratum, values)
    };
    let mut by_pattern: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    for (i, u) in units.iter().enumerate() {
        by_pattern.entry(pattern(u)).or_default().push(i);
    }
    let mut out = vec![(0u64, 0f64); units.len()];
    for (&p, targets) in &by_pattern {
        for (&q, sources) in &by_pattern {
            let skip = match convention {
                Convention::AnyValue => p | q,
                // `*` is a value: only identical patterns can match, and
                // then on every key.
                Convention::OwnValue if p == q => 0,
                Convention::OwnValue => continue,
            };
            let mut count: FxHashMap<(u32, Vec<u32>), (u64, f64)> = FxHashMap::default();
            for &s in sources {
                let c = count.entry(key(&units[s], skip)).or_default();
                c.0 += units[s].rows;
                c.1 += units[s].weight;
            }
            for &t in targets {
                if let Some(c) = count.get(&key(&units[t], skip)) {
                    out[t].0 += c.0;
                    out[t].1 += c.1;
                }
            }
        }
    }
    out
}
