//! PRAM, the post-randomization method for categorical attributes (issue
//! 34, part "PRAM"): each record's category is replaced by one drawn from
//! the row of a transition matrix for its category (Kooiman, Willenborg
//! and Gouweleeuw, "PRAM: a method for disclosure limitation of
//! microdata", Statistics Netherlands, 1997; Gouweleeuw, Kooiman,
//! Willenborg and de Wolf, "Post randomisation for statistical disclosure
//! control: theory and implementation", Journal of Official Statistics
//! 14(4), 1998; the SDC Handbook, Hundepool et al. 2012, §3.4, PRAM).
//! The reference implementation is sdcMicro 5.8.1's `pram` (R/pram.R; it
//! has no C code for PRAM).
//!
//! The matrix is either built as sdcMicro builds it (`matrix.rs`: a
//! diagonal drawn in [pd, 1), made invariant for the stratum's category
//! frequencies and mixed with the identity by `alpha`), or given by the
//! user (a CSV file, [`read_matrix_csv`]).
//!
//! Strata (sdcMicro's `strata_variables`): one matrix per stratum, built
//! from that stratum's frequencies, applied to its records only. A
//! missing stratum cell is a stratum of its own (sdcMicro pastes `"NA"`).
//! sdcMicro's issues #234 (2017) and #358 (2025) report values leaving
//! their stratum; in 5.8.1 the invariant matrix of a stratum gives 0 to
//! every category absent from it (matrix.rs), and running #234's example
//! (two strata, categories 1–3 and 4–6) through sdcMicro 5.8.1 published
//! no category outside its stratum (bench/sdcmicro/pram.R records it in
//! tests/golden/sdcmicro_pram.json). What sdcMicro does not do: check a
//! user matrix against the strata (one matrix serves every stratum, so it
//! can move a value to a category its stratum lacks), and keep more than
//! the last stratum's matrix (`attr(, "pram_params")$Rs`). anonlab keeps
//! every stratum's matrix and refuses a user matrix that gives a positive
//! probability to a category absent from a stratum where the row's
//! category is present, naming the stratum and both categories.
//!
//! Missing cells stay missing and are left out of the frequencies, as in
//! sdcMicro (`!is.na(data[[v]])` selects the rows it PRAMs).
//!
//! Randomness: one `ChaCha8Rng` seeded with the run's seed; for each
//! attribute in the order given, the diagonal of each stratum's matrix
//! (strata in order of first appearance; a user matrix draws nothing),
//! then one uniform per non-missing record in row order, mapped through
//! the cumulative row of its category (O(log L) per record, O(n) in all).
//! sdcMicro's draws (R's Mersenne-Twister, `sample` per category) are not
//! reproduced: the figures compared with sdcMicro are the matrices and the
//! expected transition counts, and the observed counts converge to them.
//!
//! Codes: a published code is an index into the column's own dictionary,
//! so the output is a recoding of the same column. Both categorical and
//! numeric columns are accepted (a numeric column's distinct values are
//! its categories, as a factor of them would be in R).
//!
//! Registered as the algorithm `pram` (`release.rs`), which publishes a
//! release of perturbed values.

mod matrix;
mod release;
#[cfg(test)]
mod tests;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result};
use crate::progress::Progress;

pub use matrix::{
    check_parameters, draw_diagonal, expected_transitions, invariance, invariant_from_diagonal,
    invariant_matrix, parse_matrix_csv, read_matrix_csv, Invariance, MinDiagonal, TransitionMatrix,
    MAX_CATEGORIES, MAX_MATRIX_FILE_BYTES, ROW_SUM_TOLERANCE,
};

pub use release::{release, PramAlgorithm, PramOptions, ID};

/// Most matrix entries of one attribute over all its strata (strata × L²):
/// 64 M entries, 512 MB with their cumulative tables' as much again.
pub const MAX_MATRIX_ENTRIES: usize = 1 << 26;

/// Where an attribute's transition matrix comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum MatrixSource {
    /// sdcMicro's construction (sdcMicro's defaults: pd = 0.8, alpha = 0.5).
    Invariant { pd: MinDiagonal, alpha: f64 },
    /// A matrix given by the user over the column's categories, the same
    /// for every stratum.
    Given(TransitionMatrix),
}

impl Default for MatrixSource {
    fn default() -> Self {
        MatrixSource::Invariant {
            pd: MinDiagonal::default(),
            alpha: 0.5,
        }
    }
}

/// One attribute to PRAM.
#[derive(Debug, Clone, PartialEq)]
pub struct PramSpec {
    pub column: usize,
    pub source: MatrixSource,
}

/// The matrix of one stratum of one attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct StratumMatrix {
    /// The stratum's value (`?` for missing); `None` without strata.
    pub stratum: Option<String>,
    /// Non-missing cells of the attribute in the stratum, per category
    /// (dictionary order): the frequencies the matrix was built from.
    pub frequencies: Vec<u64>,
    pub matrix: TransitionMatrix,
    /// Cells of the stratum published as another category.
    pub changed: u64,
}

/// One PRAM'd attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct PramAttribute {
    pub column: usize,
    pub name: String,
    /// Published code of each record (the column's dictionary; missing
    /// stays the column's missing code).
    pub codes: Vec<u32>,
    /// One matrix per stratum, strata in order of first appearance.
    pub matrices: Vec<StratumMatrix>,
    /// Cells published as another category.
    pub changed: u64,
    /// Missing cells (left as they are).
    pub missing: u64,
}

/// The result of a PRAM run.
#[derive(Debug, Clone, PartialEq)]
pub struct Pram {
    pub attributes: Vec<PramAttribute>,
    /// The stratum column, if any.
    pub strata: Option<usize>,
    /// Stratum (index into each attribute's `matrices`) of each record.
    pub stratum_of: Vec<u32>,
    pub seed: u64,
}

/// PRAM on the attributes of `specs`, within the strata of column
/// `strata` when given, with randomness from `seed` (module header).
pub fn pram(
    ds: &Dataset,
    specs: &[PramSpec],
    strata: Option<usize>,
    seed: u64,
    progress: &Progress,
) -> Result<Pram> {
    ds.require_records("PRAM")?;
    let rows = ds.n_rows();
    for (i, s) in specs.iter().enumerate() {
        if s.column >= ds.n_cols() {
            return Err(Error::Internal(format!("no column {}", s.column)));
        }
        if specs[..i].iter().any(|t| t.column == s.column) {
            return Err(Error::invalid(
                Parameter::Column,
                format!("'{}' is given twice to PRAM", ds.col(s.column).name()),
            ));
        }
    }
    if strata.is_some_and(|s| s >= ds.n_cols()) {
        return Err(Error::Internal("no stratum column".into()));
    }
    let (stratum_of, stratum_names) = strata_of(ds, strata, rows);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut attributes = Vec::with_capacity(specs.len());
    for spec in specs {
        progress.check()?;
        attributes.push(pram_one(
            ds,
            spec,
            &stratum_of,
            &stratum_names,
            &mut rng,
            progress,
        )?);
    }
    Ok(Pram {
        attributes,
        strata,
        stratum_of,
        seed,
    })
}

/// Dense stratum ids in order of first appearance, and their names
/// (`None` each without strata: one stratum, the whole file).
fn strata_of(ds: &Dataset, strata: Option<usize>, rows: usize) -> (Vec<u32>, Vec<Option<String>>) {
    let Some(s) = strata else {
        return (vec![0; rows], vec![None]);
    };
    let col = ds.col(s);
    let mut id_of = vec![u32::MAX; col.code_space()];
    let mut names = Vec::new();
    let ids = col
        .codes()
        .iter()
        .map(|&c| {
            let slot = &mut id_of[c as usize];
            if *slot == u32::MAX {
                *slot = names.len() as u32;
                names.push(Some(col.display(c).to_string()));
            }
            *slot
        })
        .collect();
    (ids, names)
}

fn pram_one(
    ds: &Dataset,
    spec: &PramSpec,
    stratum_of: &[u32],
    stratum_names: &[Option<String>],
    rng: &mut ChaCha8Rng,
    progress: &Progress,
) -> Result<PramAttribute> {
    let col = ds.col(spec.column);
    let l = col.cardinality();
    let n_strata = stratum_names.len();
    if l > MAX_CATEGORIES {
        return Err(Error::Limit(format!(
            "PRAM handles columns of at most {MAX_CATEGORIES} categories; '{}' has {l}",
            col.name()
        )));
    }
    if n_strata.saturating_mul(l * l) > MAX_MATRIX_ENTRIES {
        return Err(Error::Limit(format!(
            "PRAM of '{}' needs {n_strata} matrices of {l}² entries, more than the {MAX_MATRIX_ENTRIES} entries it holds; use fewer strata",
            col.name()
        )));
    }
    let categories: Vec<String> = col.dictionary().iter().map(|c| c.to_string()).collect();
    let missing_code = col.missing_code();
    let codes = col.codes();
    // Frequencies per stratum, missing cells left out.
    let mut freq = vec![0u64; n_strata * l];
    let mut missing = 0u64;
    for (&c, &s) in codes.iter().zip(stratum_of) {
        if c == missing_code {
            missing += 1;
        } else {
            freq[s as usize * l + c as usize] += 1;
        }
    }
    if let MatrixSource::Given(m) = &spec.source {
        check_given(m, &categories, col.name())?;
    }
    let mut matrices = Vec::with_capacity(n_strata);
    for (s, name) in stratum_names.iter().enumerate() {
        let f = &freq[s * l..(s + 1) * l];
        let matrix = match &spec.source {
            MatrixSource::Invariant { pd, alpha } => {
                let counts: Vec<f64> = f.iter().map(|&x| x as f64).collect();
                invariant_matrix(categories.clone(), &counts, pd, *alpha, rng)?
            }
            MatrixSource::Given(m) => {
                if name.is_some() {
                    within_stratum(m, f, name.as_deref().unwrap_or("?"), col.name())?;
                }
                m.clone()
            }
        };
        matrices.push(StratumMatrix {
            stratum: name.clone(),
            frequencies: f.to_vec(),
            matrix,
            changed: 0,
        });
    }
    // Cumulative rows; `last[row]`: the last category with positive
    // probability, where a uniform rounded up to the row's total lands.
    let mut cum = vec![0.0f64; n_strata * l * l];
    let mut last = vec![0u32; n_strata * l];
    for (s, sm) in matrices.iter().enumerate() {
        for i in 0..l {
            let row = sm.matrix.row(i);
            let base = (s * l + i) * l;
            let mut acc = 0.0;
            for (j, &p) in row.iter().enumerate() {
                acc += p;
                cum[base + j] = acc;
                if p > 0.0 {
                    last[s * l + i] = j as u32;
                }
            }
        }
    }
    let mut out = Vec::with_capacity(codes.len());
    let mut changed_in = vec![0u64; n_strata];
    for (r, (&c, &s)) in codes.iter().zip(stratum_of).enumerate() {
        if r % 65_536 == 0 {
            progress.check()?;
        }
        if c == missing_code {
            out.push(c);
            continue;
        }
        let row_index = s as usize * l + c as usize;
        let row = &cum[row_index * l..(row_index + 1) * l];
        let u = rng.random::<f64>() * row[l - 1];
        let j = (row.partition_point(|&x| x <= u) as u32).min(last[row_index]);
        if j != c {
            changed_in[s as usize] += 1;
        }
        out.push(j);
    }
    for (sm, ch) in matrices.iter_mut().zip(&changed_in) {
        sm.changed = *ch;
    }
    Ok(PramAttribute {
        column: spec.column,
        name: col.name().to_string(),
        codes: out,
        matrices,
        changed: changed_in.iter().sum(),
        missing,
    })
}

/// A given matrix must be over the column's categories in dictionary
/// order (as [`read_matrix_csv`] returns it), with rows of probabilities
/// summing to 1.
fn check_given(m: &TransitionMatrix, categories: &[String], column: &str) -> Result<()> {
    if m.categories != categories {
        return Err(Error::invalid(
            Parameter::Column,
            format!(
                "the transition matrix for '{column}' is over other categories than the column's ({} against {})",
                m.len(),
                categories.len()
            ),
        ));
    }
    for i in 0..m.len() {
        let row = m.row(i);
        if let Some((j, v)) = row
            .iter()
            .enumerate()
            .find(|(_, v)| !(0.0..=1.0).contains(*v))
        {
            return Err(Error::invalid(
                Parameter::Column,
                format!(
                    "the transition matrix for '{column}' has {v} from '{}' to '{}'; entries are probabilities in [0, 1]",
                    m.categories[i], m.categories[j]
                ),
            ));
        }
        let sum: f64 = row.iter().sum();
        if (sum - 1.0).abs() > ROW_SUM_TOLERANCE {
            return Err(Error::invalid(
                Parameter::Column,
                format!(
                    "the transition matrix for '{column}': row '{}' sums to {sum}, not 1",
                    m.categories[i]
                ),
            ));
        }
    }
    Ok(())
}

/// A user matrix within a stratum of frequencies `f`: no category present
/// there may go to a category absent there.
fn within_stratum(m: &TransitionMatrix, f: &[u64], stratum: &str, column: &str) -> Result<()> {
    for (i, &fi) in f.iter().enumerate() {
        if fi == 0 {
            continue;
        }
        for (j, &p) in m.row(i).iter().enumerate() {
            if p > 0.0 && f[j] == 0 {
                return Err(Error::invalid(
                    Parameter::Strata,
                    format!(
                        "the transition matrix for '{column}' moves '{}' to '{}' with probability {p}, but stratum '{stratum}' has no '{}': a value would leave its stratum; give 0 there or PRAM without strata",
                        m.categories[i], m.categories[j], m.categories[j]
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Observed transition counts between `original` and `published` codes of
/// a column of `l` categories: entry (i, j), row-major, counts records of
/// category i published as j; missing cells (codes ≥ l) are left out.
pub fn transition_counts(original: &[u32], published: &[u32], l: usize) -> Vec<u64> {
    let mut t = vec![0u64; l * l];
    for (&a, &b) in original.iter().zip(published) {
        if (a as usize) < l && (b as usize) < l {
            t[a as usize * l + b as usize] += 1;
        }
    }
    t
}
