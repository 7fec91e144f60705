//! Correlation between attributes: the measures the
//! correlation-based hierarchy construction ranks attributes by
//! (correlation-hierarchy paper, Algorithm 4, `correlation()`), shown as a
//! matrix by `anonlab correlate` and the Hierarchies screen.
//!
//! Measures, for two attributes A and B with `d_A`, `d_B` values that occur
//! and `f` the fractions of records (`f_ij` both values, `f_i.`, `f_.j` the
//! marginals):
//!
//! - **φ²**, the mean-square contingency coefficient normalised as in the
//!   refining-partition paper (Section IV):
//!   `φ² = 1/(min{d_A, d_B} − 1) · Σ_i Σ_j (f_ij − f_i. f_.j)² / (f_i. f_.j)`.
//!   The double sum is χ²/n, so φ² lies in [0, 1]; it is undefined (shown as
//!   `–`) when one attribute has a single value. Computed as
//!   `Σ_{f_ij > 0} f_ij² / (f_i. f_.j) − 1` (the same sum expanded), which
//!   needs only the non-empty cells of the table.
//! - **Cramér's V** = √φ² (φ² normalised this way is V²).
//! - **Pearson's r** on the raw numbers, for numeric pairs only (other pairs
//!   are `–`), over the rows where both values are present, whatever the
//!   missing-value policy: a missing number has no place on the axis.
//! - **Mutual information** `I(A;B) = Σ f_ij log₂(f_ij / (f_i. f_.j))`, in
//!   bits (log base 2), unnormalised: the diagonal holds each attribute's
//!   entropy.
//! - **Normalised mutual information** `I(A;B) / min{H(A), H(B)}`, in [0, 1]:
//!   1 exactly when one attribute is a function of the other, the
//!   "functional dependency" the paper lists among the choices for
//!   `correlation()`. Undefined when one attribute has a single value.
//!
//! Discretization (all measures but Pearson): a numeric column with more
//! distinct values than `bins` (default 10) is cut into quantile bins over
//! its dictionary, which is sorted by value: the value with code `c` goes to
//! bin `⌊bins · r(c) / n⌋`, where `r(c)` counts the non-missing records with
//! a smaller value and `n` all non-missing records. Equal values therefore
//! always share a bin, a value heavier than `n / bins` swallows the bins it
//! spans (empty bins are dropped and the rest renumbered), and every bin is
//! a range of consecutive values. Other columns keep one category per value.
//!
//! Missing values are handled explicitly by [`Missing`]: by default a
//! missing cell is one more category of its attribute (`?`), so missingness
//! that goes with another attribute shows as correlation; `Drop` leaves out,
//! pair by pair, the records missing either value.
//!
//! Speed: an attribute is categorised once, a table is counted in one pass
//! over the dictionary codes (a dense array, or a hash map when the table
//! would be huge), and the pairs of a matrix are counted in parallel.

use std::fmt;
use std::str::FromStr;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::data::{Column, ColumnKind, Dataset};
use crate::error::{Error, Parameter, Result, Setting};

/// Default number of quantile bins for numeric columns.
pub const DEFAULT_BINS: usize = 10;

/// Tables with more cells than this are counted in a hash map of the
/// non-empty cells instead of a dense array (e.g. an identifier against a
/// zip code), so memory follows the records, not the product of domains.
const DENSE_CELLS: usize = 1 << 22;

/// Which correlation measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    Phi2,
    Cramer,
    Pearson,
    Mi,
    Nmi,
}

impl Measure {
    pub const ALL: [Measure; 5] = [
        Measure::Phi2,
        Measure::Cramer,
        Measure::Pearson,
        Measure::Mi,
        Measure::Nmi,
    ];

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Phi2 => "phi2",
            Measure::Cramer => "cramer",
            Measure::Pearson => "pearson",
            Measure::Mi => "mi",
            Measure::Nmi => "nmi",
        }
    }

    /// One line for a person reading the matrix.
    pub fn describe(self) -> &'static str {
        match self {
            Measure::Phi2 => "φ², mean-square contingency / (min(d1, d2) − 1), in [0, 1]",
            Measure::Cramer => "Cramér's V = √φ², in [0, 1]",
            Measure::Pearson => "Pearson's r on the raw numbers (numeric pairs only), in [−1, 1]",
            Measure::Mi => "mutual information in bits (diagonal: entropy)",
            Measure::Nmi => "mutual information / min(H1, H2), in [0, 1]",
        }
    }

    /// Whether the measure reads categories (and so discretizes numbers).
    pub fn uses_categories(self) -> bool {
        self != Measure::Pearson
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Measure {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Measure::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                Error::invalid(
                    Parameter::Measure,
                    format!(
                        "unknown correlation measure '{s}' (choose one of: {})",
                        Measure::ALL.map(Measure::name).join(", ")
                    ),
                )
            })
    }
}

/// What to do with missing cells when counting contingency tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Missing {
    /// A missing cell is one more category (`?`).
    #[default]
    Category,
    /// Records missing either value of a pair are left out of that pair.
    Drop,
}

impl FromStr for Missing {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "category" => Ok(Missing::Category),
            "drop" => Ok(Missing::Drop),
            _ => Err(Error::invalid(
                Parameter::MissingPolicy,
                format!("unknown missing-value policy '{s}' (choose category or drop)"),
            )),
        }
    }
}

/// How columns become categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discretization {
    /// Quantile bins for a numeric column with more distinct values.
    pub bins: usize,
    pub missing: Missing,
}

impl Default for Discretization {
    fn default() -> Self {
        Self {
            bins: DEFAULT_BINS,
            missing: Missing::Category,
        }
    }
}

impl Discretization {
    fn check(&self) -> Result<()> {
        if self.bins < 2 {
            return Err(Error::invalid(
                Parameter::Bins,
                format!(
                    "{} bins cannot show a correlation: give at least 2",
                    self.bins
                ),
            ));
        }
        Ok(())
    }
}

/// One category of a [`Categories`]: a value, a bin of values, or missing.
#[derive(Debug, Clone, PartialEq)]
pub struct Category {
    pub label: String,
    pub records: u64,
    /// Dictionary codes covered, inclusive (`None` for the missing category).
    pub codes: Option<(u32, u32)>,
}

/// An attribute's records as categories, ready for counting.
#[derive(Debug, Clone, PartialEq)]
pub struct Categories {
    pub column: String,
    pub kind: ColumnKind,
    /// Whether the column was cut into quantile bins.
    pub binned: bool,
    pub categories: Vec<Category>,
    /// Records with a missing value (whatever the policy).
    pub missing_records: u64,
    of_code: Vec<u32>,
    of_row: Vec<u32>,
}

impl Categories {
    /// The category of a row left out of every count (missing, dropped).
    pub const NONE: u32 = u32::MAX;

    pub fn len(&self) -> usize {
        self.categories.len()
    }
    pub fn is_empty(&self) -> bool {
        self.categories.is_empty()
    }
    /// Category per row ([`Categories::NONE`] for a dropped row).
    pub fn of_rows(&self) -> &[u32] {
        &self.of_row
    }
    /// The category of a dictionary code (the missing code included).
    pub fn of_code(&self, code: u32) -> u32 {
        self.of_code[code as usize]
    }
}

/// Turn a column into categories (see the module doc for the rule).
pub fn categorize(col: &Column, d: &Discretization) -> Result<Categories> {
    d.check()?;
    let freq = col.frequencies();
    let card = col.cardinality();
    let missing_records = freq[card];
    let present: u64 = freq[..card].iter().sum();
    let binned = col.is_numeric() && card > d.bins;
    let mut of_code = vec![Categories::NONE; card + 1];
    let mut categories: Vec<Category> = Vec::new();
    if binned {
        let mut before = 0u64;
        let mut last_bin = None;
        for code in 0..card {
            // u128: bins · records cannot overflow, whatever the file size.
            let bin = (d.bins as u128 * before as u128 / present as u128) as usize;
            if last_bin != Some(bin) {
                categories.push(Category {
                    label: String::new(),
                    records: 0,
                    codes: Some((code as u32, code as u32)),
                });
                last_bin = Some(bin);
            }
            let cat = categories.len() - 1;
            let c = &mut categories[cat];
            c.records += freq[code];
            if let Some((_, hi)) = c.codes.as_mut() {
                *hi = code as u32;
            }
            of_code[code] = cat as u32;
            before += freq[code];
        }
        for c in &mut categories {
            if let Some((lo, hi)) = c.codes {
                c.label = if lo == hi {
                    col.display(lo).to_string()
                } else {
                    format!("[{}, {}]", col.display(lo), col.display(hi))
                };
            }
        }
    } else {
        for code in 0..card {
            of_code[code] = code as u32;
            categories.push(Category {
                label: col.display(code as u32).to_string(),
                records: freq[code],
                codes: Some((code as u32, code as u32)),
            });
        }
    }
    if missing_records > 0 && d.missing == Missing::Category {
        of_code[card] = categories.len() as u32;
        categories.push(Category {
            label: "?".into(),
            records: missing_records,
            codes: None,
        });
    }
    let of_row = col.codes().iter().map(|&c| of_code[c as usize]).collect();
    Ok(Categories {
        column: col.name().to_string(),
        kind: col.kind(),
        binned,
        categories,
        missing_records,
        of_code,
        of_row,
    })
}

/// A two-way contingency table, kept as its non-empty cells and marginals.
#[derive(Debug, Clone, PartialEq)]
pub struct Contingency {
    rows: Vec<u64>,
    cols: Vec<u64>,
    cells: Vec<(u32, u32, u64)>,
    total: u64,
}

impl Contingency {
    /// From a table of counts (rows of equal length), e.g. a worked example.
    pub fn from_table(table: &[Vec<u64>]) -> Result<Self> {
        let width = table.first().map_or(0, Vec::len);
        if let Some(i) = table.iter().position(|r| r.len() != width) {
            return Err(Error::Internal(format!(
                "contingency table row {} has {} cells, expected {width}",
                i + 1,
                table[i].len()
            )));
        }
        let mut cells = Vec::new();
        for (i, r) in table.iter().enumerate() {
            for (j, &n) in r.iter().enumerate() {
                if n > 0 {
                    cells.push((i as u32, j as u32, n));
                }
            }
        }
        Ok(Self::from_cells(table.len(), width, cells))
    }

    fn from_cells(n_rows: usize, n_cols: usize, cells: Vec<(u32, u32, u64)>) -> Self {
        let mut rows = vec![0u64; n_rows];
        let mut cols = vec![0u64; n_cols];
        for &(i, j, n) in &cells {
            rows[i as usize] += n;
            cols[j as usize] += n;
        }
        let total = rows.iter().sum();
        Self {
            rows,
            cols,
            cells,
            total,
        }
    }

    /// Count the records of two attributes by category, in one pass.
    pub fn count(a: &Categories, b: &Categories) -> Self {
        let (ra, rb) = (a.of_rows(), b.of_rows());
        let width = b.len();
        let both = ra
            .iter()
            .zip(rb)
            .filter(|&(&x, &y)| x != Categories::NONE && y != Categories::NONE);
        let cells = if a.len().saturating_mul(width) <= DENSE_CELLS {
            let mut dense = vec![0u64; a.len() * width];
            for (&x, &y) in both {
                dense[x as usize * width + y as usize] += 1;
            }
            dense
                .iter()
                .enumerate()
                .filter(|&(_, &n)| n > 0)
                .map(|(i, &n)| ((i / width) as u32, (i % width) as u32, n))
                .collect()
        } else {
            let mut sparse: FxHashMap<(u32, u32), u64> = FxHashMap::default();
            for (&x, &y) in both {
                *sparse.entry((x, y)).or_default() += 1;
            }
            let mut cells: Vec<_> = sparse.into_iter().map(|((i, j), n)| (i, j, n)).collect();
            cells.sort_unstable();
            cells
        };
        Self::from_cells(a.len(), width, cells)
    }

    /// Records counted.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Values of each attribute that occur in the table (`d_A`, `d_B`).
    pub fn occurring(&self) -> (usize, usize) {
        let nz = |v: &[u64]| v.iter().filter(|&&n| n > 0).count();
        (nz(&self.rows), nz(&self.cols))
    }

    /// The mean-square contingency `Σ (f_ij − f_i. f_.j)² / (f_i. f_.j)`,
    /// i.e. χ²/n, unnormalised. `None` for an empty table.
    pub fn mean_square_contingency(&self) -> Option<f64> {
        if self.total == 0 {
            return None;
        }
        let sum: f64 = self
            .cells
            .iter()
            .map(|&(i, j, n)| {
                let n = n as f64;
                n * n / (self.rows[i as usize] as f64 * self.cols[j as usize] as f64)
            })
            .sum();
        // Rounding can take an independent table a hair below zero.
        Some((sum - 1.0).max(0.0))
    }

    /// φ² normalised by `min{d_A, d_B} − 1`, in [0, 1].
    pub fn phi2(&self) -> Option<f64> {
        let (da, db) = self.occurring();
        let d = da.min(db);
        if d < 2 {
            return None;
        }
        let v = self.mean_square_contingency()? / (d - 1) as f64;
        Some(v.min(1.0))
    }

    /// Cramér's V = √φ².
    pub fn cramers_v(&self) -> Option<f64> {
        self.phi2().map(f64::sqrt)
    }

    /// Entropies of the two attributes, in bits.
    pub fn entropies(&self) -> Option<(f64, f64)> {
        if self.total == 0 {
            return None;
        }
        let n = self.total as f64;
        let h = |v: &[u64]| {
            v.iter()
                .filter(|&&c| c > 0)
                .map(|&c| {
                    let p = c as f64 / n;
                    -p * p.log2()
                })
                .sum::<f64>()
        };
        Some((h(&self.rows), h(&self.cols)))
    }

    /// Mutual information in bits.
    pub fn mutual_information(&self) -> Option<f64> {
        if self.total == 0 {
            return None;
        }
        let n = self.total as f64;
        let i: f64 = self
            .cells
            .iter()
            .map(|&(i, j, c)| {
                let c = c as f64;
                let expected = self.rows[i as usize] as f64 * self.cols[j as usize] as f64 / n;
                c / n * (c / expected).log2()
            })
            .sum();
        Some(i.max(0.0))
    }

    /// Mutual information over the smaller entropy, in [0, 1].
    pub fn normalized_mutual_information(&self) -> Option<f64> {
        let (ha, hb) = self.entropies()?;
        let h = ha.min(hb);
        // A single value carries no information to share.
        if h <= 0.0 {
            return None;
        }
        Some((self.mutual_information()? / h).min(1.0))
    }

    /// The value of a categorical measure (`None` for Pearson).
    pub fn measure(&self, m: Measure) -> Option<f64> {
        match m {
            Measure::Phi2 => self.phi2(),
            Measure::Cramer => self.cramers_v(),
            Measure::Mi => self.mutual_information(),
            Measure::Nmi => self.normalized_mutual_information(),
            Measure::Pearson => None,
        }
    }
}

/// Pearson's r of two numeric columns over the rows where both are present;
/// `None` unless both are numeric, at least two rows remain and neither is
/// constant on them.
pub fn pearson(a: &Column, b: &Column) -> Option<f64> {
    if !(a.is_numeric() && b.is_numeric()) {
        return None;
    }
    let pairs = || {
        a.codes()
            .iter()
            .zip(b.codes())
            .filter_map(|(&x, &y)| Some((a.number(x)?, b.number(y)?)))
    };
    let (mut n, mut sx, mut sy) = (0usize, 0.0, 0.0);
    for (x, y) in pairs() {
        n += 1;
        sx += x;
        sy += y;
    }
    if n < 2 {
        return None;
    }
    let (mx, my) = (sx / n as f64, sy / n as f64);
    // Centred sums in a second pass: the one-pass formula loses digits when
    // the mean is large against the spread (years, zip codes).
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in pairs() {
        let (dx, dy) = (x - mx, y - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx <= 0.0 || syy <= 0.0 {
        return None;
    }
    Some((sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// How one column was turned into categories, for the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnCategories {
    pub column: String,
    pub kind: ColumnKind,
    /// `values` (one category per value) or `quantile-bins`.
    pub method: &'static str,
    /// Categories counted (the missing category included).
    pub categories: usize,
    /// The bins of a binned column, in value order (empty otherwise).
    pub bins: Vec<Bin>,
    pub missing_records: u64,
}

/// One quantile bin of a numeric column: the values `from..=to`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bin {
    pub label: String,
    pub from: f64,
    pub to: f64,
    pub records: u64,
}

/// How the matrix's columns were discretized.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiscretizationReport {
    pub bins: usize,
    pub missing: Missing,
    /// Per column; empty for Pearson, which reads the raw numbers.
    pub columns: Vec<ColumnCategories>,
}

/// A symmetric matrix of one measure over chosen columns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CorrelationMatrix {
    pub measure: Measure,
    pub columns: Vec<String>,
    pub discretization: DiscretizationReport,
    /// `matrix[i][j]`; `None` where the measure is undefined for the pair.
    pub matrix: Vec<Vec<Option<f64>>>,
}

impl CorrelationMatrix {
    pub fn get(&self, i: usize, j: usize) -> Option<f64> {
        self.matrix[i][j]
    }

    /// The other columns by decreasing correlation with column `i`
    /// (absolute value for Pearson); undefined pairs last, ties by position.
    pub fn ranked(&self, i: usize) -> Vec<(usize, Option<f64>)> {
        let mut r: Vec<(usize, Option<f64>)> = (0..self.columns.len())
            .filter(|&j| j != i)
            .map(|j| (j, self.matrix[i][j]))
            .collect();
        let key = |v: Option<f64>| v.map_or(f64::NEG_INFINITY, f64::abs);
        r.sort_by(|a, b| key(b.1).total_cmp(&key(a.1)).then(a.0.cmp(&b.0)));
        r
    }
}

fn report(c: &Categories, col: &Column) -> ColumnCategories {
    ColumnCategories {
        column: c.column.clone(),
        kind: c.kind,
        method: if c.binned { "quantile-bins" } else { "values" },
        categories: c.len(),
        bins: if c.binned {
            c.categories
                .iter()
                .filter_map(|k| {
                    let (lo, hi) = k.codes?;
                    Some(Bin {
                        label: k.label.clone(),
                        from: col.number(lo)?,
                        to: col.number(hi)?,
                        records: k.records,
                    })
                })
                .collect()
        } else {
            Vec::new()
        },
        missing_records: c.missing_records,
    }
}

/// The most columns one matrix correlates: about half a million pairs,
/// each a pass over the rows, and a matrix of a million cells.
pub const MAX_CORRELATED_COLUMNS: usize = 1000;

/// The measure between every pair of `columns` (dataset column indices,
/// distinct), pairs counted in parallel.
pub fn correlation_matrix(
    ds: &Dataset,
    columns: &[usize],
    measure: Measure,
    d: &Discretization,
) -> Result<CorrelationMatrix> {
    d.check()?;
    if columns.is_empty() {
        return Err(Error::invalid(
            Parameter::CorrelatedColumns,
            "no columns to correlate: name at least one",
        ));
    }
    for (i, &c) in columns.iter().enumerate() {
        if c >= ds.n_cols() {
            return Err(Error::Internal(format!(
                "column index {c} is out of range ({} columns)",
                ds.n_cols()
            )));
        }
        if columns[..i].contains(&c) {
            return Err(Error::invalid(
                Parameter::CorrelatedColumns,
                format!("column '{}' is named twice", ds.col(c).name()),
            ));
        }
    }
    if columns.len() > MAX_CORRELATED_COLUMNS {
        return Err(Error::unmet(
            format!(
                "{} columns make {} pairs to correlate; at most {MAX_CORRELATED_COLUMNS} columns are correlated at once",
                crate::format::thousands(columns.len() as u64),
                crate::format::thousands((columns.len() as u64 * (columns.len() as u64 + 1)) / 2)
            ),
            Setting::CorrelatedColumns,
        ));
    }
    let cats: Vec<Categories> = if measure.uses_categories() {
        columns
            .par_iter()
            .map(|&c| categorize(ds.col(c), d))
            .collect::<Result<_>>()?
    } else {
        Vec::new()
    };
    let m = columns.len();
    let pairs: Vec<(usize, usize)> = (0..m).flat_map(|i| (i..m).map(move |j| (i, j))).collect();
    let found: Vec<Option<f64>> = pairs
        .par_iter()
        .map(|&(i, j)| match measure {
            Measure::Pearson => pearson(ds.col(columns[i]), ds.col(columns[j])),
            _ => Contingency::count(&cats[i], &cats[j]).measure(measure),
        })
        .collect();
    let mut values = vec![vec![None; m]; m];
    for (&(i, j), v) in pairs.iter().zip(found) {
        values[i][j] = v;
        values[j][i] = v;
    }
    Ok(CorrelationMatrix {
        measure,
        columns: columns
            .iter()
            .map(|&c| ds.col(c).name().to_string())
            .collect(),
        discretization: DiscretizationReport {
            bins: d.bins,
            missing: d.missing,
            columns: cats
                .iter()
                .zip(columns)
                .map(|(c, &i)| report(c, ds.col(i)))
                .collect(),
        },
        matrix: values,
    })
}

#[cfg(test)]
mod tests;
