//! PRAM's transition matrices: sdcMicro 5.8.1's invariant construction
//! (R/pram.R, `pramWORK`'s inner `calcTransitionMatrix`), a matrix given
//! by the user as a CSV file, and the check of invariance.
//!
//! The construction, for L categories with relative frequencies p (of the
//! non-missing values of the stratum), least diagonal `pd` and mixing
//! weight `alpha`, line by line of `calcTransitionMatrix`:
//!
//! 1. `pds <- stats::runif(L, min=pd, max=1)`: the diagonal, drawn
//!    uniformly in [pd, 1) ([`draw_diagonal`]; `pd` recycled, so one per
//!    category is allowed as R's `runif` allows it).
//! 2. `tri <- (1 - pds)/(L - 1)`, `P[i, ] <- tri[i]`, `diag(P) <- pds`:
//!    row i spreads what its diagonal leaves evenly over the other L − 1
//!    categories, so each row of P sums to 1.
//! 3. `p <- table(xvec)/sum(as.numeric(na.omit(xvec)))`: sdcMicro divides
//!    the counts by the sum of the factor's *integer codes*, not by their
//!    number; the factor cancels in step 4 (Qest is homogeneous of degree
//!    0 in p), so anonlab uses the proportions.
//! 4. `s <- sum(p * P[, k])`, `Qest[k, j] <- P[j, k] * p[j]/s`: Qest is the
//!    backward matrix, P(original j | published k) under P and p.
//! 5. `R <- P %*% Qest`: R is invariant, pᵀR = pᵀ (pᵀP = sᵀ and
//!    sᵀQest = pᵀ because each row of P sums to 1).
//! 6. `Rs <- alpha * R + (1 - alpha) * EI`: mixed with the identity; still
//!    invariant, and its diagonal at least 1 − alpha.
//!
//! Where sdcMicro gives NaN anonlab chooses (documented in place): a
//! column k no record reaches (s_k = 0, possible only when pd = 1 and
//! category k is absent) gets Qest's identity row instead of 0/0, which
//! sdcMicro spreads into every cell of R; a single category (L = 1) gives
//! the matrix [1] where sdcMicro keeps [pds] (its `sample` renormalizes the
//! row, so the draw is the same); a stratum with no value gives the
//! identity (no record is drawn from it either way).
//!
//! A column of R only receives mass from categories present in the
//! stratum (Qest[k, j] carries p_j), so invariant PRAM never publishes a
//! category the stratum does not hold: sdcMicro 5.8.1 behaves the same
//! (checked with the example of its issue #234; see `mod.rs`).

use std::path::Path;

use rand::Rng;

use crate::error::{Error, Location, Parameter, Result};

/// Least diagonal entry of the drawn matrix (sdcMicro's `pd`).
#[derive(Debug, Clone, PartialEq)]
pub enum MinDiagonal {
    /// The same least diagonal for every category.
    Scalar(f64),
    /// One per category of the column's dictionary, in code order.
    PerCategory(Vec<f64>),
}

impl Default for MinDiagonal {
    /// sdcMicro's default `pd = 0.8`.
    fn default() -> Self {
        MinDiagonal::Scalar(0.8)
    }
}

/// A square transition matrix over named categories: row i is the
/// distribution of the published category of a record whose category is
/// i.
#[derive(Debug, Clone, PartialEq)]
pub struct TransitionMatrix {
    /// Category names, in the order of rows and columns (the column's
    /// dictionary order).
    pub categories: Vec<String>,
    /// Row-major entries, `categories.len()²` of them.
    pub entries: Vec<f64>,
}

impl TransitionMatrix {
    /// The matrix over `categories` with `entries` row-major, or an
    /// internal error when the sizes disagree.
    pub fn new(categories: Vec<String>, entries: Vec<f64>) -> Result<Self> {
        let l = categories.len();
        if entries.len() != l * l {
            return Err(Error::Internal(format!(
                "a transition matrix over {l} categories needs {} entries, not {}",
                l * l,
                entries.len()
            )));
        }
        Ok(Self {
            categories,
            entries,
        })
    }

    /// The identity over `categories`: nothing changes.
    pub fn identity(categories: Vec<String>) -> Self {
        let l = categories.len();
        let mut entries = vec![0.0; l * l];
        for i in 0..l {
            entries[i * l + i] = 1.0;
        }
        Self {
            categories,
            entries,
        }
    }

    /// Number of categories.
    pub fn len(&self) -> usize {
        self.categories.len()
    }

    pub fn is_empty(&self) -> bool {
        self.categories.is_empty()
    }

    /// Row `i`: the distribution of what category `i` is published as.
    pub fn row(&self, i: usize) -> &[f64] {
        let l = self.len();
        &self.entries[i * l..(i + 1) * l]
    }

    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.entries[i * self.len() + j]
    }
}

/// Checks `pd` (each in [0, 1], one per category when given per category)
/// and `alpha` (in [0, 1]). sdcMicro checks neither: `runif` with pd > 1
/// returns NaN and an alpha outside [0, 1] gives negative entries.
pub fn check_parameters(pd: &MinDiagonal, alpha: f64, categories: usize) -> Result<()> {
    let in_unit = |v: f64| (0.0..=1.0).contains(&v);
    match pd {
        MinDiagonal::Scalar(v) if !in_unit(*v) => {
            return Err(Error::invalid(
                Parameter::P,
                format!("PRAM's least diagonal pd is {v}; it must be in [0, 1]"),
            ))
        }
        MinDiagonal::PerCategory(v) => {
            if v.len() != categories {
                return Err(Error::invalid(
                    Parameter::P,
                    format!(
                        "PRAM's pd gives {} least diagonals for {categories} categories",
                        v.len()
                    ),
                ));
            }
            if let Some((i, x)) = v.iter().enumerate().find(|(_, x)| !in_unit(**x)) {
                return Err(Error::invalid(
                    Parameter::P,
                    format!(
                        "PRAM's pd for category {} is {x}; it must be in [0, 1]",
                        i + 1
                    ),
                ));
            }
        }
        MinDiagonal::Scalar(_) => {}
    }
    if !in_unit(alpha) {
        return Err(Error::invalid(
            Parameter::Alpha,
            format!("PRAM's alpha is {alpha}; it must be in [0, 1]"),
        ));
    }
    Ok(())
}

/// sdcMicro's `runif(L, min = pd, max = 1)`: one diagonal entry per
/// category, pd + (1 − pd)·u with u uniform in [0, 1) from `rng`.
pub fn draw_diagonal(pd: &MinDiagonal, categories: usize, rng: &mut impl Rng) -> Vec<f64> {
    (0..categories)
        .map(|i| {
            let lo = match pd {
                MinDiagonal::Scalar(v) => *v,
                MinDiagonal::PerCategory(v) => v[i],
            };
            let u: f64 = rng.random();
            lo + (1.0 - lo) * u
        })
        .collect()
}

/// Steps 2 to 6 of the construction (module header) from the drawn
/// diagonal `pds`, the category counts `freq` (of the stratum's
/// non-missing values) and `alpha`: row-major L × L entries. With the
/// diagonal sdcMicro drew (same `set.seed`), this is sdcMicro's `Rs`.
pub fn invariant_from_diagonal(pds: &[f64], freq: &[f64], alpha: f64) -> Vec<f64> {
    let l = pds.len();
    let n: f64 = freq.iter().sum();
    if l == 0 {
        return Vec::new();
    }
    if l == 1 || n <= 0.0 {
        // L = 1: the only category is kept (sdcMicro's [pds] row is
        // renormalized by `sample`). No value: nothing is drawn.
        let mut id = vec![0.0; l * l];
        for i in 0..l {
            id[i * l + i] = 1.0;
        }
        return id;
    }
    // Step 2: `tri <- (1 - pds)/(L - 1)`; `P[i, ] <- tri[i]`; `diag(P) <- pds`.
    let mut p_mat = vec![0.0; l * l];
    for i in 0..l {
        let tri = (1.0 - pds[i]) / (l - 1) as f64;
        for j in 0..l {
            p_mat[i * l + j] = if i == j { pds[i] } else { tri };
        }
    }
    // Step 3: proportions (sdcMicro's scale cancels).
    let p: Vec<f64> = freq.iter().map(|f| f / n).collect();
    // Step 4: `s <- sum(p * P[, k])`; `Qest[k, j] <- P[j, k] * p[j]/s`.
    let mut qest = vec![0.0; l * l];
    for k in 0..l {
        let s: f64 = (0..l).map(|j| p[j] * p_mat[j * l + k]).sum();
        if s > 0.0 {
            for j in 0..l {
                qest[k * l + j] = p_mat[j * l + k] * p[j] / s;
            }
        } else {
            // No record reaches k (pd = 1 and k absent): Qest's row k is
            // undefined (sdcMicro's 0/0 makes all of R NaN); the identity
            // row keeps R stochastic and changes nothing a record can draw,
            // since every present category i has P[i, k] = 0.
            qest[k * l + k] = 1.0;
        }
    }
    // Step 5: `R <- P %*% Qest`; step 6: `Rs <- alpha * R + (1 - alpha) * EI`.
    let mut rs = vec![0.0; l * l];
    for i in 0..l {
        for k in 0..l {
            let a = p_mat[i * l + k];
            if a == 0.0 {
                continue;
            }
            for j in 0..l {
                rs[i * l + j] += a * qest[k * l + j];
            }
        }
        for j in 0..l {
            let eye = if i == j { 1.0 } else { 0.0 };
            rs[i * l + j] = alpha * rs[i * l + j] + (1.0 - alpha) * eye;
        }
    }
    rs
}

/// The invariant matrix for counts `freq` over `categories`, its diagonal
/// drawn from `rng` (`draw_diagonal`, then `invariant_from_diagonal`).
pub fn invariant_matrix(
    categories: Vec<String>,
    freq: &[f64],
    pd: &MinDiagonal,
    alpha: f64,
    rng: &mut impl Rng,
) -> Result<TransitionMatrix> {
    check_parameters(pd, alpha, categories.len())?;
    if freq.len() != categories.len() {
        return Err(Error::Internal(format!(
            "{} counts for {} categories",
            freq.len(),
            categories.len()
        )));
    }
    let pds = draw_diagonal(pd, categories.len(), rng);
    TransitionMatrix::new(categories, invariant_from_diagonal(&pds, freq, alpha))
}

/// How far a matrix is from invariant for given category counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Invariance {
    /// max_j |(pᵀP)_j − p_j| with p the relative frequencies.
    pub max_deviation: f64,
    /// The category (index) where it is reached.
    pub at: usize,
}

impl Invariance {
    /// pᵀP = pᵀ within `tolerance` in every category.
    pub fn holds(&self, tolerance: f64) -> bool {
        self.max_deviation <= tolerance
    }
}

/// Whether `m` leaves the distribution of `freq` (counts, one per category
/// of `m`) unchanged in expectation: the largest |(pᵀP)_j − p_j| over the
/// categories, p = freq / Σfreq. No counts: deviation 0.
pub fn invariance(m: &TransitionMatrix, freq: &[f64]) -> Result<Invariance> {
    let l = m.len();
    if freq.len() != l {
        return Err(Error::Internal(format!(
            "{} counts for a matrix over {l} categories",
            freq.len()
        )));
    }
    let n: f64 = freq.iter().sum();
    let mut worst = Invariance {
        max_deviation: 0.0,
        at: 0,
    };
    if n <= 0.0 {
        return Ok(worst);
    }
    for j in 0..l {
        let out: f64 = (0..l).map(|i| freq[i] / n * m.get(i, j)).sum();
        let d = (out - freq[j] / n).abs();
        if d > worst.max_deviation || d.is_nan() {
            worst = Invariance {
                max_deviation: d,
                at: j,
            };
        }
    }
    Ok(worst)
}

/// Expected transition counts: entry (i, j) = freq_i × P_ij, the number
/// of records of category i expected to be published as j.
pub fn expected_transitions(m: &TransitionMatrix, freq: &[f64]) -> Result<Vec<f64>> {
    let l = m.len();
    if freq.len() != l {
        return Err(Error::Internal(format!(
            "{} counts for a matrix over {l} categories",
            freq.len()
        )));
    }
    Ok((0..l * l).map(|c| freq[c / l] * m.entries[c]).collect())
}

/// Largest user matrix file read (bytes): a matrix over
/// [`MAX_CATEGORIES`] categories in full precision (about 20 bytes a
/// cell) is under it.
pub const MAX_MATRIX_FILE_BYTES: u64 = 96 << 20;

/// Most categories a PRAM'd column may have: a matrix holds L² entries
/// (2,000 categories: 32 MB), one per stratum.
pub const MAX_CATEGORIES: usize = 2_000;

/// How far a row of a user matrix may sum from 1.
pub const ROW_SUM_TOLERANCE: f64 = 1e-9;

/// Reads a user transition matrix from a CSV file for a column whose
/// categories are `categories` (the dictionary, in code order; `code_of`
/// finds the code of a name as written, so a numeric column matches `60`
/// and `60.0`). The file: a header of a corner cell (any text, R's
/// `write.csv` writes `""`) and the "to" categories; one row per "from"
/// category, its name first, then its probabilities. Every category of the
/// column appears once in the header and once as a row, in any order; the
/// result is in dictionary order.
pub fn read_matrix_csv(
    path: &Path,
    categories: &[&str],
    code_of: &dyn Fn(&str) -> Option<u32>,
) -> Result<TransitionMatrix> {
    let meta = std::fs::metadata(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
    if meta.len() > MAX_MATRIX_FILE_BYTES {
        return Err(at(
            path,
            None,
            None,
            format!(
                "the transition matrix file has {} bytes, more than the {} a matrix file may have",
                meta.len(),
                MAX_MATRIX_FILE_BYTES
            ),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
    parse_matrix_csv(&bytes, path, categories, code_of)
}

fn at(path: &Path, row: Option<u64>, column: Option<String>, msg: String) -> Error {
    Error::Input {
        at: Location {
            file: path.to_path_buf(),
            row,
            column,
        },
        msg,
    }
}

/// [`read_matrix_csv`] on the file's bytes; `path` names it in messages.
pub fn parse_matrix_csv(
    bytes: &[u8],
    path: &Path,
    categories: &[&str],
    code_of: &dyn Fn(&str) -> Option<u32>,
) -> Result<TransitionMatrix> {
    let l = categories.len();
    if l > MAX_CATEGORIES {
        return Err(Error::Limit(format!(
            "PRAM handles columns of at most {MAX_CATEGORIES} categories, this one has {l}"
        )));
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut records = reader.records();
    let header = match records.next() {
        None => {
            return Err(at(
                path,
                None,
                None,
                "the transition matrix file is empty".into(),
            ))
        }
        Some(r) => r.map_err(|e| at(path, Some(1), None, format!("not CSV: {e}")))?,
    };
    // Header: corner, then the "to" categories.
    if header.len() < 2 {
        return Err(at(
            path,
            Some(1),
            None,
            "the header must hold a corner cell and the categories".into(),
        ));
    }
    let mut to_code = Vec::with_capacity(header.len() - 1);
    let mut seen = vec![false; l];
    for (f, name) in header.iter().enumerate().skip(1) {
        let code = code_of(name).filter(|&c| (c as usize) < l).ok_or_else(|| {
            at(
                path,
                Some(1),
                Some(format!("{}", f + 1)),
                format!("'{name}' is not a category of the column"),
            )
        })?;
        if std::mem::replace(&mut seen[code as usize], true) {
            return Err(at(
                path,
                Some(1),
                Some(format!("{}", f + 1)),
                format!("category '{name}' appears twice in the header"),
            ));
        }
        to_code.push(code as usize);
    }
    if let Some(missing) = absent(&seen, categories) {
        return Err(at(
            path,
            Some(1),
            None,
            format!("the header lacks categories of the column: {missing}"),
        ));
    }
    let mut entries = vec![0.0; l * l];
    let mut have_row = vec![false; l];
    for (r, record) in records.enumerate() {
        // The file's own line: the reader skips blank lines (and its line
        // count does not include them all), so the line is counted from
        // the record's first byte.
        let line_of = |p: Option<&csv::Position>| {
            p.map_or(r as u64 + 2, |p| line_at(bytes, p.byte() as usize))
        };
        let record = record.map_err(|e| {
            at(
                path,
                Some(line_of(e.position())),
                None,
                format!("not CSV: {e}"),
            )
        })?;
        let line = line_of(record.position());
        if record.len() == 1 && record.get(0).is_some_and(|f| f.trim().is_empty()) {
            continue; // a blank line
        }
        if record.len() != header.len() {
            return Err(at(
                path,
                Some(line),
                None,
                format!(
                    "the row has {} fields, the header {}",
                    record.len(),
                    header.len()
                ),
            ));
        }
        let name = &record[0];
        let from = code_of(name).filter(|&c| (c as usize) < l).ok_or_else(|| {
            at(
                path,
                Some(line),
                Some(header[0].to_string()),
                format!("'{name}' is not a category of the column"),
            )
        })? as usize;
        if std::mem::replace(&mut have_row[from], true) {
            return Err(at(
                path,
                Some(line),
                None,
                format!("category '{name}' has a second row"),
            ));
        }
        let mut sum = 0.0;
        for (f, cell) in record.iter().enumerate().skip(1) {
            let to = to_code[f - 1];
            let column = || Some(header[f].to_string());
            let v: f64 = cell.trim().parse().map_err(|_| {
                at(
                    path,
                    Some(line),
                    column(),
                    format!("'{cell}' (row '{name}') is not a number"),
                )
            })?;
            if !(0.0..=1.0).contains(&v) {
                return Err(at(
                    path,
                    Some(line),
                    column(),
                    format!("{cell} (row '{name}') is not a probability in [0, 1]"),
                ));
            }
            entries[from * l + to] = v;
            sum += v;
        }
        if (sum - 1.0).abs() > ROW_SUM_TOLERANCE {
            return Err(at(
                path,
                Some(line),
                None,
                format!("row '{name}' sums to {sum}, not 1 (within {ROW_SUM_TOLERANCE})"),
            ));
        }
    }
    if let Some(missing) = absent(&have_row, categories) {
        return Err(at(
            path,
            None,
            None,
            format!("no row for categories of the column: {missing}"),
        ));
    }
    TransitionMatrix::new(categories.iter().map(|c| c.to_string()).collect(), entries)
}

/// The 1-based line of the first non-blank byte at or after `byte`.
fn line_at(bytes: &[u8], byte: usize) -> u64 {
    let start = byte.min(bytes.len());
    let first = bytes[start..]
        .iter()
        .position(|&b| b != b'\n' && b != b'\r')
        .map_or(bytes.len(), |i| start + i);
    1 + memchr::memchr_iter(b'\n', &bytes[..first]).count() as u64
}

/// The first categories not `seen`, quoted, or `None` when all are.
fn absent(seen: &[bool], categories: &[&str]) -> Option<String> {
    let missing: Vec<String> = seen
        .iter()
        .zip(categories)
        .filter(|(s, _)| !**s)
        .map(|(_, c)| format!("'{c}'"))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let shown = missing.len().min(10);
    let more = if missing.len() > shown {
        format!(" and {} more", missing.len() - shown)
    } else {
        String::new()
    };
    Some(format!("{}{more}", missing[..shown].join(", ")))
}
