//! Microaggregation of numeric attributes (issue 34, first part): records
//! are put in groups of at least k close records, and each value is
//! replaced by its group's mean (or median). Two methods:
//!
//! - [`mdav`]: MDAV, Maximum Distance to Average Vector (Domingo-Ferrer and
//!   Mateo-Sanz, "Practical data-oriented microaggregation for statistical
//!   disclosure control", IEEE TKDE 14(1), 2002; the SDC Handbook, §3.4.4),
//!   on one or more columns, as sdcMicro 5.8.1 runs it (`mdav.rs`, the
//!   quadratic reference), in O(n log n)-ish time through a k-d tree that
//!   gives the same groups (`kdtree.rs`);
//! - [`optimal_univariate`]: the optimal method for one column (Hansen and
//!   Mukherjee, "A polynomial algorithm for optimal univariate
//!   microaggregation", IEEE TKDE 15(4), 2003), which sdcMicro offers only
//!   through mu-Argus's code (`argus_microaggregation(useOptimal = TRUE)`;
//!   its `microaggregation(method = "onedims")` is individual ranking, fixed
//!   groups of k per column in sorted order, not the optimum)
//!   (`optimal.rs`).
//!
//! Both work within strata when given a stratum column, as sdcMicro's
//! `strata_variables` does: each stratum is microaggregated on its own
//! (MDAV standardizes each stratum by its own variances); a missing
//! stratum cell is a stratum of its own, as sdcMicro's pasted `"NA"` is.
//! Unlike sdcMicro, a stratum (or file) of fewer than k records is refused:
//! sdcMicro silently makes it one group smaller than k.
//!
//! With sampling weights (a numeric column, every weight finite and above
//! 0), a group's value is its weighted mean, or its weighted median as
//! sdcMicro's `weightedMedian` defines it (sorted by value, the first whose
//! cumulative share of the weight reaches ½, or the mean of it and the next
//! when the share is exactly ½, which gives the plain median for equal
//! weights). The groups are formed without the weights, as sdcMicro forms
//! them; its MDAV itself ignores the weights (its `micro_mdav` passes
//! `weights = NULL`), its other methods aggregate by them as here.
//!
//! Aggregation by median is honoured (sdcMicro's MDAV ignores `measure`
//! and always returns the mean, its issue #266): the median of a group of
//! even size is the mean of its two middle values, as R's `median` gives.
//!
//! Missing values: refused, naming the record and the column. sdcMicro's
//! `mdav` replaces NA by the sentinel −999 and its C++ leaves sentinel
//! cells out of centroids and charges them a fixed distance (the squared
//! range of the column, standardized); that rule is undocumented, and it
//! also takes a genuine −999 for a missing value, so anonlab does not
//! follow it.
//!
//! Registered as the algorithms `mdav` and `optimal-univariate`
//! (`release.rs`), which publish a release of perturbed values.

mod kdtree;
mod mdav;
mod optimal;
mod release;

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result};
use crate::progress::Progress;

pub use mdav::{mdav_groups, mdav_groups_in, mdav_groups_reference, Precision};
pub use optimal::optimal_groups;
pub use release::{release, Method, Microaggregation, NumericOptions};

/// What replaces a group's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Aggregation {
    /// The arithmetic mean, summed in the order sdcMicro sums (MDAV) or in
    /// sorted order (optimal univariate).
    #[default]
    Mean,
    /// The median; of an even-sized group, the mean of the two middle values.
    Median,
}

/// Parameters of both methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MicroaggregationOptions {
    /// Least group size (sdcMicro's `aggr`); groups have k..2k−1 records.
    pub k: usize,
    pub aggregation: Aggregation,
}

/// The result: a group per record and the aggregated values.
#[derive(Debug, Clone, PartialEq)]
pub struct Microaggregated {
    /// The microaggregated columns, in the order given.
    pub columns: Vec<usize>,
    /// Group of each record, numbered from 0 in the order the groups were
    /// formed (stratum by stratum, strata in order of first appearance).
    pub groups: Vec<u32>,
    /// Number of groups.
    pub n_groups: usize,
    /// Aggregated values, column-major: `values[c][record]` for
    /// `columns[c]`.
    pub values: Vec<Vec<f64>>,
}

/// The values of numeric `columns`, column-major, or an error naming the
/// first missing cell (record and column) or a categorical column.
pub fn numeric_columns(ds: &Dataset, columns: &[usize]) -> Result<Vec<Vec<f64>>> {
    numeric_columns_for(ds, columns, "microaggregation")
}

/// [`numeric_columns`] for the perturbation `method` named in messages
/// (noise, rank swapping).
pub fn numeric_columns_for(ds: &Dataset, columns: &[usize], method: &str) -> Result<Vec<Vec<f64>>> {
    columns
        .iter()
        .map(|&c| {
            let col = ds.col(c);
            if !col.is_numeric() {
                return Err(Error::Invalid {
                    parameter: Parameter::Column,
                    msg: format!(
                        "'{}' is categorical; {method} needs numeric columns",
                        col.name()
                    ),
                });
            }
            col.codes()
                .iter()
                .enumerate()
                .map(|(row, &code)| {
                    col.number(code)
                        .ok_or_else(|| missing(col.name(), row, method))
                })
                .collect()
        })
        .collect()
}

fn missing(column: &str, row: usize, method: &str) -> Error {
    Error::Invalid {
        parameter: Parameter::Column,
        msg: format!(
            "'{column}' is missing at record {} (1-based, header not counted); \
             {method} needs a value in every cell: impute or drop the record first",
            row + 1
        ),
    }
}

/// MDAV on `columns` of `ds` (one or more numeric columns), within the
/// strata of column `strata` when given, each group's value weighted by
/// the sampling weights of column `weights` when given.
pub fn mdav(
    ds: &Dataset,
    columns: &[usize],
    strata: Option<usize>,
    weights: Option<usize>,
    options: MicroaggregationOptions,
    progress: &Progress,
) -> Result<Microaggregated> {
    let x = numeric_columns(ds, columns)?;
    let w = weights.map(|c| weight_values(ds, c)).transpose()?;
    let mut out = with_strata(ds, strata, |s| {
        microaggregate(&x, s, options, progress, mdav_groups)
    })?;
    if let Some(w) = &w {
        reaggregate_weighted(&x, w, options.aggregation, &mut out);
    }
    out.columns = columns.to_vec();
    Ok(out)
}

/// The sampling weights of column `c`: numbers, each finite and above 0,
/// or an error naming the first record that is not.
pub fn weight_values(ds: &Dataset, c: usize) -> Result<Vec<f64>> {
    let col = ds.col(c);
    let bad = |row: usize, what: &str| {
        Error::Invalid {
        parameter: Parameter::Weights,
        msg: format!(
            "the weight '{}' of record {} (1-based, header not counted) is {what}; sampling weights are numbers above 0",
            col.name(),
            row + 1
        ),
    }
    };
    if !col.is_numeric() {
        return Err(Error::Invalid {
            parameter: Parameter::Weights,
            msg: format!(
                "'{}' is categorical; sampling weights are numbers above 0",
                col.name()
            ),
        });
    }
    col.codes()
        .iter()
        .enumerate()
        .map(|(row, &code)| match col.number(code) {
            None => Err(bad(row, "missing")),
            Some(w) if w.is_finite() && w > 0.0 => Ok(w),
            Some(w) => Err(bad(row, &w.to_string())),
        })
        .collect()
}

/// Each group's values of `out` replaced by the weighted aggregate of its
/// original values `x` (column-major, records as in `out.groups`), the
/// weights `w` per record. Members are taken in record order.
fn reaggregate_weighted(x: &[Vec<f64>], w: &[f64], how: Aggregation, out: &mut Microaggregated) {
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); out.n_groups];
    for (r, &g) in out.groups.iter().enumerate() {
        members[g as usize].push(r);
    }
    for (c, col) in x.iter().enumerate() {
        for rows in &members {
            let v = weighted_aggregate(rows.iter().map(|&r| (col[r], w[r])), how);
            for &r in rows {
                out.values[c][r] = v;
            }
        }
    }
}

/// A group's weighted mean (Σ w·x / Σ w) or weighted median (see the
/// module header) of (value, weight) pairs, weights above 0.
pub fn weighted_aggregate(pairs: impl Iterator<Item = (f64, f64)>, how: Aggregation) -> f64 {
    match how {
        Aggregation::Mean => {
            let (sw, swx) = pairs.fold((0.0, 0.0), |(sw, swx), (x, w)| (sw + w, swx + w * x));
            swx / sw
        }
        Aggregation::Median => {
            let mut v: Vec<(f64, f64)> = pairs.collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            let total: f64 = v.iter().map(|p| p.1).sum();
            let mut cumulative = 0.0;
            for (i, &(x, w)) in v.iter().enumerate() {
                cumulative += w;
                let share = cumulative / total;
                if share >= 0.5 {
                    return match v.get(i + 1) {
                        Some(&(next, _)) if share == 0.5 => (x + next) / 2.0,
                        _ => x,
                    };
                }
            }
            v.last().map_or(f64::NAN, |p| p.0)
        }
    }
}

/// The optimal univariate method on one numeric `column` of `ds`, within
/// the strata of column `strata` when given.
pub fn optimal_univariate(
    ds: &Dataset,
    column: usize,
    strata: Option<usize>,
    weights: Option<usize>,
    options: MicroaggregationOptions,
    progress: &Progress,
) -> Result<Microaggregated> {
    let x = numeric_columns(ds, &[column])?;
    let w = weights.map(|c| weight_values(ds, c)).transpose()?;
    let mut out = with_strata(ds, strata, |s| {
        microaggregate(&x, s, options, progress, |x, k, p| {
            optimal_groups(&x[0], k, p)
        })
    })?;
    if let Some(w) = &w {
        reaggregate_weighted(&x, w, options.aggregation, &mut out);
    }
    out.columns = vec![column];
    Ok(out)
}

/// Runs `f` with the strata of column `strata` of `ds`, named by its values.
fn with_strata<T>(
    ds: &Dataset,
    strata: Option<usize>,
    f: impl FnOnce(Option<Strata<'_>>) -> T,
) -> T {
    match strata {
        None => f(None),
        Some(s) => {
            let col = ds.col(s);
            let name = |code: u32| col.display(code).to_string();
            f(Some((col.codes(), &name)))
        }
    }
}

/// Strata as one code per record, and how a code is named in messages.
pub type Strata<'a> = (&'a [u32], &'a dyn Fn(u32) -> String);

/// Runs `method` stratum by stratum on column-major values `x` (finite
/// values only), and aggregates the groups it forms. `method` gets one
/// stratum's records (column-major, indexed from 0) and returns each group
/// as the records it holds, in the order their values are summed. The
/// columns of the result are numbered 0.. (callers name them).
pub fn microaggregate(
    x: &[Vec<f64>],
    strata: Option<Strata<'_>>,
    options: MicroaggregationOptions,
    progress: &Progress,
    method: impl Fn(&[Vec<f64>], usize, &Progress) -> Result<Vec<Vec<usize>>>,
) -> Result<Microaggregated> {
    let k = options.k;
    if k == 0 {
        return Err(Error::Invalid {
            parameter: Parameter::K,
            msg: "microaggregation needs groups of at least 1 record".into(),
        });
    }
    let rows = x.first().map_or(0, Vec::len);
    require_finite(x, "microaggregation")?;
    let mut groups = vec![0u32; rows];
    let mut values = vec![vec![0.0; rows]; x.len()];
    let mut n_groups = 0usize;
    for (code, members) in strata_of(rows, strata.map(|s| s.0)) {
        if members.len() < k {
            let whole = match (code, strata) {
                (Some(code), Some((_, name))) => format!("stratum '{}'", name(code)),
                _ => "the file".to_string(),
            };
            return Err(Error::Invalid {
                parameter: Parameter::K,
                msg: format!(
                    "{whole} has {} records, fewer than k = {k}: lower k or merge strata",
                    members.len()
                ),
            });
        }
        let local: Vec<Vec<f64>> = x
            .iter()
            .map(|col| members.iter().map(|&r| col[r]).collect())
            .collect();
        for group in method(&local, k, progress)? {
            for (c, col) in local.iter().enumerate() {
                let v = aggregate(group.iter().map(|&i| col[i]), options.aggregation);
                for &i in &group {
                    values[c][members[i]] = v;
                }
            }
            for &i in &group {
                groups[members[i]] = n_groups as u32;
            }
            n_groups += 1;
        }
    }
    Ok(Microaggregated {
        columns: (0..x.len()).collect(),
        groups,
        n_groups,
        values,
    })
}

/// Every value of column-major `x` finite, or an error naming the first
/// column and record that is not, and the `method` that needs them.
pub(crate) fn require_finite(x: &[Vec<f64>], method: &str) -> Result<()> {
    for (c, col) in x.iter().enumerate() {
        if let Some(row) = col.iter().position(|v| !v.is_finite()) {
            return Err(Error::Invalid {
                parameter: Parameter::Column,
                msg: format!(
                    "column {} has no finite value at record {}: {method} needs a number in every cell",
                    c + 1,
                    row + 1
                ),
            });
        }
    }
    Ok(())
}

/// Records of each stratum, strata in order of first appearance, each with
/// its code for messages (`None`: no strata, the whole file).
pub(crate) fn strata_of(rows: usize, strata: Option<&[u32]>) -> Vec<(Option<u32>, Vec<usize>)> {
    let Some(codes) = strata else {
        return vec![(None, (0..rows).collect())];
    };
    let mut index: std::collections::HashMap<u32, usize> = Default::default();
    let mut out: Vec<(Option<u32>, Vec<usize>)> = Vec::new();
    for (row, &code) in codes.iter().enumerate() {
        let at = *index.entry(code).or_insert_with(|| {
            out.push((Some(code), Vec::new()));
            out.len() - 1
        });
        out[at].1.push(row);
    }
    out
}

/// A group's mean (summed in the order given) or median.
pub fn aggregate(values: impl Iterator<Item = f64>, how: Aggregation) -> f64 {
    match how {
        Aggregation::Mean => {
            let (n, sum) = values.fold((0usize, 0.0), |(n, s), v| (n + 1, s + v));
            sum / n as f64
        }
        Aggregation::Median => {
            let mut v: Vec<f64> = values.collect();
            v.sort_by(f64::total_cmp);
            let half = v.len() / 2;
            if v.len() % 2 == 1 {
                v[half]
            } else {
                (v[half - 1] + v[half]) / 2.0
            }
        }
    }
}

#[cfg(test)]
mod tests;
