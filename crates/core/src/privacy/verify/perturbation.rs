//! `MicroaggregationK` by its definition, from the release's published
//! values and the dataset, apart from the algorithm's code:
//!
//! 1. every published tuple of the aggregated attributes (together, within
//!    the stratum column's value) is shared by at least k published
//!    records — counted on the values as they would be read back from the
//!    table (bit patterns of the doubles, `-0` taken as `0`);
//! 2. the recorded groups stay inside their stratum, and each published
//!    value is its group's mean (summed here in row order: the algorithm
//!    sums in sdcMicro's order, so the two may differ by rounding; a
//!    relative 1e-9 is allowed) or median of the original values —
//!    weighted by the claim's sampling-weight column when it names one
//!    (the weighted median as sdcMicro's `weightedMedian`: the first value,
//!    in sorted order, whose cumulative share of the weight reaches ½, or
//!    its mean with the next when the share is exactly ½).
//!
//! What is not checked, because a release cannot show it: that the groups
//! are the ones MDAV (or the optimal method) would form. Another grouping
//! of at least k records satisfies the claim as well.

use rustc_hash::FxHashMap;

use crate::data::Dataset;
use crate::release::{AggregationName, PerturbationMethod, PublishedValues, Release};

/// The release's perturbation, or why a claim on it cannot hold.
fn perturbation_of(release: &Release) -> Result<&crate::release::Perturbation, String> {
    release
        .perturbation
        .as_ref()
        .ok_or_else(|| "the release carries no perturbed values".to_string())
}

/// The claim's stratum column, by name.
fn stratum_column(ds: &Dataset, strata: Option<&str>) -> Result<Option<usize>, String> {
    strata
        .map(|name| ds.column_index(name).map_err(|e| e.to_string()))
        .transpose()
}

/// Relative tolerance between a published aggregate and the verifier's.
const AGGREGATE_TOLERANCE: f64 = 1e-9;

pub(super) fn microaggregation_k(
    release: &Release,
    ds: &Dataset,
    k: u32,
    attributes: &[String],
    (aggregation, weights): (AggregationName, Option<&str>),
    strata: Option<&str>,
) -> Result<String, String> {
    let p = perturbation_of(release)?;
    let weight_of: Option<Vec<f64>> = match weights {
        None => None,
        Some(name) => {
            let col = ds.col(ds.column_index(name).map_err(|e| e.to_string())?);
            Some(
                (0..ds.n_rows())
                    .map(|r| {
                        col.number(col.code(r))
                            .filter(|w| w.is_finite() && *w > 0.0)
                            .ok_or_else(|| {
                                format!("the weight '{name}' of record {} is not above 0", r + 1)
                            })
                    })
                    .collect::<Result<_, _>>()?,
            )
        }
    };
    let columns: Vec<usize> = attributes
        .iter()
        .map(|a| ds.column_index(a).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let values: Vec<&[f64]> = columns
        .iter()
        .zip(attributes)
        .map(|(&c, name)| match p.values_of(c) {
            Some(PublishedValues::Numbers { values }) if values.len() == ds.n_rows() => {
                Ok(values.as_slice())
            }
            _ => Err(format!("'{name}' has no published value per record")),
        })
        .collect::<Result<_, _>>()?;
    let stratum = stratum_column(ds, strata)?;
    let stratum_of = |r: usize| stratum.map_or(0, |s| ds.col(s).code(r));

    // 1. Published tuples, counted.
    let mut counts: FxHashMap<(u32, Vec<u64>), u64> = FxHashMap::default();
    for g in &release.groups {
        for &r in &g.rows {
            let r = r as usize;
            let key: Vec<u64> = values.iter().map(|v| (v[r] + 0.0).to_bits()).collect();
            *counts.entry((stratum_of(r), key)).or_default() += 1;
        }
    }
    let smallest = counts.values().copied().min().unwrap_or(0);
    if smallest < u64::from(k) && !counts.is_empty() {
        let ((_, key), n) = counts
            .iter()
            .filter(|(_, &n)| n < u64::from(k))
            .min_by_key(|((s, key), _)| (*s, key.clone()))
            .expect("a tuple below k");
        let shown: Vec<String> = key.iter().map(|b| f64::from_bits(*b).to_string()).collect();
        return Err(format!(
            "the published tuple ({}) of {} is shared by {n} record(s), fewer than k = {k}",
            shown.join(", "),
            attributes.join(", ")
        ));
    }

    // 2. The recorded groups and their aggregates.
    let groups = p
        .methods
        .iter()
        .find_map(|m| match m {
            PerturbationMethod::Microaggregation {
                columns: c, groups, ..
            } if *c == columns => Some(groups),
            _ => None,
        })
        .ok_or("the release records no microaggregation groups of these attributes")?;
    if groups.len() != ds.n_rows() {
        return Err("the recorded groups do not cover the dataset's records".into());
    }
    let mut members: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    for (r, &g) in groups.iter().enumerate() {
        members.entry(g).or_default().push(r);
    }
    let mut ids: Vec<u32> = members.keys().copied().collect();
    ids.sort_unstable();
    for g in ids {
        let rows = &members[&g];
        let s = stratum_of(rows[0]);
        if rows.iter().any(|&r| stratum_of(r) != s) {
            return Err(format!("group {} crosses strata", g + 1));
        }
        for ((&c, v), name) in columns.iter().zip(&values).zip(attributes) {
            let col = ds.col(c);
            let mut originals = Vec::with_capacity(rows.len());
            for &r in rows {
                originals.push((
                    col.number(col.code(r))
                        .ok_or_else(|| format!("'{name}' is missing at record {}", r + 1))?,
                    weight_of.as_ref().map_or(1.0, |w| w[r]),
                ));
            }
            let expected = aggregate(&mut originals, aggregation);
            for &r in rows {
                let got = v[r];
                if (got - expected).abs() > AGGREGATE_TOLERANCE * expected.abs().max(1.0) {
                    return Err(format!(
                        "record {} publishes {got} for '{name}', its group's {} is {expected}",
                        r + 1,
                        aggregation.as_str()
                    ));
                }
            }
        }
    }
    Ok(format!(
        "every published tuple of {} shared by at least {smallest} ≥ {k} records{}; every value its group's {}{}",
        attributes.join(", "),
        strata.map_or(String::new(), |s| format!(" of its '{s}'")),
        if weights.is_some() { "weighted " } else { "" },
        aggregation.as_str()
    ))
}

/// The (weighted) mean or median of (value, weight) pairs; with weights
/// of 1, the plain mean and median (of an even count, the mean of the two
/// middle values: their cumulative share is exactly ½).
fn aggregate(values: &mut [(f64, f64)], how: AggregationName) -> f64 {
    let total: f64 = values.iter().map(|v| v.1).sum();
    match how {
        AggregationName::Mean => values.iter().map(|(x, w)| x * w).sum::<f64>() / total,
        AggregationName::Median => {
            values.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut below = 0.0;
            for i in 0..values.len() {
                below += values[i].1;
                if below / total >= 0.5 {
                    if below / total == 0.5 && i + 1 < values.len() {
                        return (values[i].0 + values[i + 1].0) / 2.0;
                    }
                    return values[i].0;
                }
            }
            f64::NAN
        }
    }
}

/// Tolerance of a matrix row's sum and of invariance (pᵀP = pᵀ, relative
/// to the stratum's cells).
const MATRIX_TOLERANCE: f64 = 1e-9;

/// `Pram` (module header of `privacy::verify`): the recorded matrices and
/// the published codes, from the dataset and the release alone. Not
/// checkable: that each draw followed its row (a release holds one draw
/// per record; the changed counts are reported beside the expected ones
/// by the figures, not judged here).
pub(super) fn pram(
    release: &Release,
    ds: &Dataset,
    attributes: &[String],
    strata: Option<&str>,
) -> Result<String, String> {
    let p = perturbation_of(release)?;
    let (matrices, invariant, stratum_of, columns) = p
        .methods
        .iter()
        .find_map(|m| match m {
            PerturbationMethod::Pram {
                matrices,
                invariant,
                stratum_of,
                columns,
                ..
            } => Some((matrices, invariant, stratum_of, columns)),
            _ => None,
        })
        .ok_or("the release records no PRAM matrices")?;
    if stratum_of.len() != ds.n_rows() {
        return Err("the recorded strata do not cover the dataset's records".into());
    }
    let stratum_col = stratum_column(ds, strata)?;
    let mut checked = 0usize;
    for (a, name) in attributes.iter().enumerate() {
        let c = ds.column_index(name).map_err(|e| e.to_string())?;
        if columns.get(a) != Some(&c) {
            return Err(format!("'{name}' is not the method's attribute {}", a + 1));
        }
        let col = ds.col(c);
        let l = col.cardinality();
        let codes = match p.values_of(c) {
            Some(PublishedValues::Codes { codes }) if codes.len() == ds.n_rows() => codes,
            _ => return Err(format!("'{name}' has no published category per record")),
        };
        let of_column: Vec<_> = matrices.iter().filter(|m| m.column == c).collect();
        if of_column.is_empty() {
            return Err(format!("'{name}' has no recorded matrix"));
        }
        // The matrices: probabilities, rows summing to 1, invariance where
        // claimed, nothing to a category the stratum lacks.
        for m in &of_column {
            let where_ = m
                .stratum
                .as_ref()
                .map_or(String::new(), |s| format!(" (stratum '{s}')"));
            if m.categories.len() != l || m.entries.len() != l * l || m.frequencies.len() != l {
                return Err(format!("the matrix of '{name}'{where_} is not {l} × {l}"));
            }
            for i in 0..l {
                let row = &m.entries[i * l..(i + 1) * l];
                if row.iter().any(|v| !(0.0..=1.0).contains(v)) {
                    return Err(format!(
                        "the matrix of '{name}'{where_} has a row ('{}') outside [0, 1]",
                        m.categories[i]
                    ));
                }
                let sum: f64 = row.iter().sum();
                if (sum - 1.0).abs() > MATRIX_TOLERANCE {
                    return Err(format!(
                        "the matrix of '{name}'{where_}: row '{}' sums to {sum}",
                        m.categories[i]
                    ));
                }
                if m.frequencies[i] > 0 {
                    if let Some(j) = (0..l).find(|&j| row[j] > 0.0 && m.frequencies[j] == 0) {
                        return Err(format!(
                            "the matrix of '{name}'{where_} gives '{}' a chance to become '{}', which the stratum lacks",
                            m.categories[i], m.categories[j]
                        ));
                    }
                }
            }
            if invariant.get(a).copied().unwrap_or(false) {
                let n: f64 = m.frequencies.iter().map(|&f| f as f64).sum();
                for j in 0..l {
                    let after: f64 = (0..l)
                        .map(|i| m.frequencies[i] as f64 * m.entries[i * l + j])
                        .sum();
                    if (after - m.frequencies[j] as f64).abs() > MATRIX_TOLERANCE * n.max(1.0) {
                        return Err(format!(
                            "the matrix of '{name}'{where_} is not invariant: '{}' expects {after} cells after, {} before",
                            m.categories[j], m.frequencies[j]
                        ));
                    }
                }
            }
        }
        // The published codes: the dictionary's, missing kept missing,
        // inside the categories of the record's stratum.
        let missing = col.missing_code();
        for (r, (&published, &s)) in codes.iter().zip(stratum_of).enumerate() {
            let own = col.code(r);
            if (own == missing) != (published == missing) {
                return Err(format!(
                    "record {} of '{name}': a missing cell is published as a category, or a category as missing",
                    r + 1
                ));
            }
            if published == missing {
                continue;
            }
            let Some(m) = of_column.get(s as usize) else {
                return Err(format!("record {} has no stratum matrix", r + 1));
            };
            if published as usize >= l || m.frequencies[published as usize] == 0 {
                return Err(format!(
                    "record {} publishes '{}' for '{name}', a category its stratum{} lacks",
                    r + 1,
                    col.display(published),
                    stratum_col.map_or(String::new(), |sc| format!(
                        " ('{}' = {})",
                        ds.col(sc).name(),
                        ds.col(sc).display(ds.col(sc).code(r))
                    ))
                ));
            }
        }
        // A PRAM'd quasi-identifier is published by its groups' cells.
        if let Some(q) = release.quasi_identifiers.iter().position(|&x| x == c) {
            for g in &release.groups {
                for &r in &g.rows {
                    if !matches!(g.cells.get(q), Some(crate::release::Cell::Value { code }) if *code == codes[r as usize])
                    {
                        return Err(format!(
                            "record {} is shown in a group whose '{name}' is not its published category",
                            r + 1
                        ));
                    }
                }
            }
        }
        checked += of_column.len();
    }
    Ok(format!(
        "{checked} matrices of probabilities{}, no published category outside its stratum",
        if invariant.iter().any(|&i| i) {
            ", invariant where built so"
        } else {
            ""
        }
    ))
}

/// `RankSwap`: per attribute and stratum, the published values are the
/// originals permuted, and each record's published value is the original
/// of a record fewer than p·N/100 ranks away. Ranks are positions in the
/// stratum's values sorted; a value held by several records spans their
/// positions, and the nearest is taken (the verifier cannot tell which
/// of equal values moved).
pub(super) fn rank_swap(
    release: &Release,
    ds: &Dataset,
    attributes: &[String],
    p: f64,
    strata: Option<&str>,
) -> Result<String, String> {
    let pert = perturbation_of(release)?;
    let stratum = stratum_column(ds, strata)?;
    let mut by_stratum: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    for r in 0..ds.n_rows() {
        let s = stratum.map_or(0, |c| ds.col(c).code(r));
        by_stratum.entry(s).or_default().push(r);
    }
    let mut farthest = 0usize;
    for name in attributes {
        let c = ds.column_index(name).map_err(|e| e.to_string())?;
        let published = match pert.values_of(c) {
            Some(PublishedValues::Numbers { values }) if values.len() == ds.n_rows() => values,
            _ => return Err(format!("'{name}' has no published value per record")),
        };
        let col = ds.col(c);
        for rows in by_stratum.values() {
            let n = rows.len();
            let window = p * n as f64 / 100.0;
            let mut original: Vec<f64> = Vec::with_capacity(n);
            for &r in rows {
                original.push(
                    col.number(col.code(r))
                        .ok_or_else(|| format!("'{name}' is missing at record {}", r + 1))?,
                );
            }
            let mut sorted = original.clone();
            sorted.sort_by(f64::total_cmp);
            let mut after: Vec<f64> = rows.iter().map(|&r| published[r]).collect();
            after.sort_by(f64::total_cmp);
            if sorted
                .iter()
                .zip(&after)
                .any(|(a, b)| a.to_bits() != b.to_bits())
            {
                return Err(format!(
                    "the published values of '{name}' are not a permutation of its originals{}",
                    strata.map_or(String::new(), |s| format!(" within each value of '{s}'"))
                ));
            }
            // Positions [first, last] of a value among the sorted originals.
            let span = |v: f64| {
                let first = sorted.partition_point(|x| x.total_cmp(&v).is_lt());
                let last = sorted.partition_point(|x| x.total_cmp(&v).is_le()) - 1;
                (first, last)
            };
            for (i, &r) in rows.iter().enumerate() {
                let (a0, a1) = span(original[i]);
                let (b0, b1) = span(published[r]);
                // The nearest positions of the two values' spans.
                let gap = if b0 > a1 {
                    b0 - a1
                } else {
                    a0.saturating_sub(b1)
                };
                if gap as f64 >= window && gap > 0 {
                    return Err(format!(
                        "record {} publishes {} for '{name}', {gap} ranks from its own value {} (at most {} allowed)",
                        r + 1,
                        published[r],
                        original[i],
                        (window.ceil() as usize).saturating_sub(1)
                    ));
                }
                farthest = farthest.max(gap);
            }
        }
    }
    Ok(format!(
        "values only permuted; the farthest exchange {farthest} ranks (fewer than {p}% of the records)"
    ))
}
