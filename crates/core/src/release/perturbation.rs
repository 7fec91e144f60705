//! Releases of perturbed values (issue 34): what a microaggregation (and,
//! as they land, PRAM, noise and swapping) publishes in place of the
//! original values, described so that the published table, the verifier and
//! the figures read it without knowing which method made it.
//!
//! The design decision, and why:
//!
//! - **A perturbed value is not a generalization.** A group mean, a noisy
//!   income or a swapped value is not a set of originals that contains the
//!   truth, so it cannot be a [`Cell`](super::Cell) of an equivalence group
//!   (the class-based figures, "truthful" cells and the attacker's matching
//!   all assume cells that contain the record's own value). Perturbed
//!   columns are therefore published *beside* the groups: each
//!   [`PerturbedColumn`] gives every source row its published value, and
//!   the renderer writes it in place of the original.
//! - **Which figures apply.** A numeric attribute that is perturbed is what
//!   sdcMicro calls a *numerical key variable* (`numVars`): its disclosure
//!   risk is measured by comparing the published values with the originals
//!   (the interval measure `dRisk`, and further measures as they land), its
//!   information loss by IL1s and the differences of moments
//!   (the evaluation's perturbation figures). It is not a
//!   quasi-identifier of the class-based attacker, nor a sensitive
//!   attribute whose breach is counted from original values: a front end
//!   refuses to perturb a column with either role, so no figure is computed
//!   from values that were not published. The release's quasi-identifiers
//!   (the categorical keys) keep their class-based figures, computed on
//!   their published cells as for every other release.
//! - **What the verifier can check.** Microaggregation's claim
//!   ([`Guarantee::MicroaggregationK`](super::Guarantee)) is checked from
//!   the published values alone (every published tuple of the aggregated
//!   attributes is shared by at least k records of its stratum) and from the
//!   recorded groups (each published value is its group's mean or median of
//!   the originals). What no verifier can check from a release — that a
//!   random draw was a fair one — is said, not claimed.
//!
//! PRAM's published categories are codes of the column's own dictionary.
//! A PRAM'd quasi-identifier is published through its groups' cells (one
//! group per distinct published tuple), so the class-based figures are
//! those of the published tuples — what sdcMicro reports after PRAM, an
//! attacker who takes the published categories for true; the verifier's
//! truthfulness check leaves PRAM'd columns out and says so, and checks
//! the matrices instead (rows of probabilities, invariance where claimed,
//! no category outside its stratum).
//!
//! Numbers are published in Rust's shortest round-trip form (`{}` of an
//! `f64`), so a file read back gives the same doubles and the release's
//! fingerprint is reproducible byte for byte.

use serde::{Deserialize, Serialize};

/// What a perturbation release publishes in place of original values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Perturbation {
    /// The methods applied, in order.
    pub methods: Vec<PerturbationMethod>,
    /// Per perturbed column, its published values.
    pub columns: Vec<PerturbedColumn>,
}

/// The published values of one column, per source row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerturbedColumn {
    pub column: usize,
    pub values: PublishedValues,
}

/// Published values: numbers (microaggregation, noise, swapping of numeric
/// columns) or codes of the column's dictionary (PRAM).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum PublishedValues {
    Numbers { values: Vec<f64> },
    Codes { codes: Vec<u32> },
}

/// One method applied, with its parameters and what the verifier needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "method")]
pub enum PerturbationMethod {
    /// Microaggregation (`algorithms::microaggregation`): each value
    /// replaced by its group's mean or median.
    Microaggregation {
        /// `mdav` or `optimal-univariate`.
        kind: String,
        k: u32,
        aggregation: AggregationName,
        /// Column indices aggregated together.
        columns: Vec<usize>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strata: Option<usize>,
        /// The sampling-weight column a group's mean or median is
        /// weighted by.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        weights: Option<usize>,
        /// Group of each source row (the publisher's evidence for the
        /// verifier; not part of the published files).
        groups: Vec<u32>,
        n_groups: usize,
    },
    /// PRAM (`algorithms::pram`): each record's category drawn from the
    /// row of its category in its stratum's transition matrix.
    Pram {
        /// Column indices PRAM'd.
        columns: Vec<usize>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strata: Option<usize>,
        /// How the matrices were made: `invariant (pd = 0.8, alpha = 0.5)`
        /// or `given by FILE`, per column.
        sources: Vec<String>,
        /// Whether each column's matrices were built invariant (the
        /// verifier checks pᵀP = pᵀ for those).
        invariant: Vec<bool>,
        /// Every matrix, per column and stratum.
        matrices: Vec<PramMatrix>,
        /// Stratum index (into a column's matrices, in order) of each
        /// source row.
        stratum_of: Vec<u32>,
    },
    /// Noise (`algorithms::noise`, sdcMicro's addNoise): `additive` (noise
    /// in percent of each attribute's standard deviation) or
    /// `correlated2` (δ).
    Noise {
        kind: String,
        /// The noise percentage (additive) or δ (correlated2).
        parameter: f64,
        columns: Vec<usize>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strata: Option<usize>,
        /// Per attribute, the standard deviation of the random term added:
        /// the noise level the release states.
        noise_sd: Vec<f64>,
        /// The factor covariances are multiplied by in expectation.
        covariance_factor: f64,
    },
    /// Rank swapping (`algorithms::swapping`, sdcMicro's rankSwap).
    RankSwap {
        /// The rank range, in percent of the records.
        p: f64,
        columns: Vec<usize>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strata: Option<usize>,
        /// Per attribute, the pairs of records that exchanged values.
        swaps: Vec<usize>,
    },
}

/// One PRAM transition matrix: of one column in one stratum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PramMatrix {
    pub column: usize,
    /// The stratum's value; `None` without strata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stratum: Option<String>,
    /// Categories of rows and columns (the column's dictionary order).
    pub categories: Vec<String>,
    /// Row-major.
    pub entries: Vec<f64>,
    /// Cells per category in the stratum before PRAM (missing left out).
    pub frequencies: Vec<u64>,
    /// Cells of the stratum published as another category.
    pub changed: u64,
}

impl PramMatrix {
    /// The matrix as rows: row i the chances that a record of category i
    /// is published as each category.
    pub fn rows(&self) -> Vec<Vec<f64>> {
        self.entries
            .chunks(self.categories.len().max(1))
            .map(<[f64]>::to_vec)
            .collect()
    }
}

impl PerturbationMethod {
    /// The columns the method perturbed.
    pub fn columns(&self) -> &[usize] {
        match self {
            PerturbationMethod::Microaggregation { columns, .. }
            | PerturbationMethod::Pram { columns, .. }
            | PerturbationMethod::Noise { columns, .. }
            | PerturbationMethod::RankSwap { columns, .. } => columns,
        }
    }
}

/// How a group's values were aggregated, as releases and reports name it
/// (the algorithm's `Aggregation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AggregationName {
    Mean,
    Median,
}

impl AggregationName {
    pub fn as_str(self) -> &'static str {
        match self {
            AggregationName::Mean => "mean",
            AggregationName::Median => "median",
        }
    }
}

impl Perturbation {
    /// The published values of `column`, if it was perturbed.
    pub fn values_of(&self, column: usize) -> Option<&PublishedValues> {
        self.columns
            .iter()
            .find(|c| c.column == column)
            .map(|c| &c.values)
    }

    /// The perturbed categorical columns (PRAM) with their published
    /// codes.
    pub fn categorical(&self) -> Vec<(usize, &[u32])> {
        self.columns
            .iter()
            .filter_map(|c| match &c.values {
                PublishedValues::Codes { codes } => Some((c.column, codes.as_slice())),
                PublishedValues::Numbers { .. } => None,
            })
            .collect()
    }

    /// The perturbed numeric columns with their published values, in the
    /// order the methods list them: what the numeric figures compare with
    /// the originals.
    pub fn numeric(&self) -> Vec<(usize, &[f64])> {
        self.columns
            .iter()
            .filter_map(|c| match &c.values {
                PublishedValues::Numbers { values } => Some((c.column, values.as_slice())),
                PublishedValues::Codes { .. } => None,
            })
            .collect()
    }
}

impl PublishedValues {
    /// The value published for source row `row`, as written in the table:
    /// a number in shortest round-trip form, or the code's display.
    pub fn render(&self, col: &crate::data::Column, row: usize) -> String {
        match self {
            // `-0` and `0` are the same number to every reader: one form.
            PublishedValues::Numbers { values } => values
                .get(row)
                .map_or(String::new(), |&v| format!("{}", v + 0.0)),
            PublishedValues::Codes { codes } => codes
                .get(row)
                .map_or(String::new(), |&c| col.display(c).to_string()),
        }
    }
}
