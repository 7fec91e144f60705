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
/// strata of column `strata` when given.
pub fn mdav(
    ds: &Dataset,
    columns: &[usize],
    strata: Option<usize>,
    options: MicroaggregationOptions,
    progress: &Progress,
) -> Result<Microaggregated> {
    let x = numeric_columns(ds, columns)?;
    let mut out = with_strata(ds, strata, |s| {
        microaggregate(&x, s, options, progress, mdav_groups)
    })?;
    out.columns = columns.to_vec();
    Ok(out)
}

/// The optimal univariate method on one numeric `column` of `ds`, within
/// the strata of column `strata` when given.
pub fn optimal_univariate(
    ds: &Dataset,
    column: usize,
    strata: Option<usize>,
    options: MicroaggregationOptions,
    progress: &Progress,
) -> Result<Microaggregated> {
    let x = numeric_columns(ds, &[column])?;
    let mut out = with_strata(ds, strata, |s| {
        microaggregate(&x, s, options, progress, |x, k, p| {
            optimal_groups(&x[0], k, p)
        })
    })?;
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
