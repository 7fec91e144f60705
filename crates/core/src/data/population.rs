//! What the project says about the file as a sample of a population, and
//! which of the statistics offices' measures `assess` computes:
//! the population (its size, the sampling fraction, or a population table),
//! sampling weights for the individual risk, the special-uniques search and
//! the attribute risks. Saved in the project's attacker model; every field
//! is left out of the file when unset, so older projects load and save
//! unchanged.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// sdcMicro's two methods of the individual risk (`risk::individual`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IndividualMethod {
    #[default]
    Approx,
    Exact,
}

impl IndividualMethod {
    pub fn name(self) -> &'static str {
        match self {
            IndividualMethod::Approx => "approx",
            IndividualMethod::Exact => "exact",
        }
    }
}

impl std::str::FromStr for IndividualMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "approx" => Ok(Self::Approx),
            "exact" => Ok(Self::Exact),
            _ => Err(format!(
                "unknown individual-risk method '{s}' (approx or exact)"
            )),
        }
    }
}

fn is_default<T: Default + PartialEq>(x: &T) -> bool {
    *x == T::default()
}

/// The population behind the sample and the measures to compute.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PopulationSettings {
    /// People in the population (N).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// n / N; N = round(n / F) when given instead of the size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling_fraction: Option<f64>,
    /// A CSV of the population with the same quasi-identifier columns
    /// (journalist risk, k-map, δ-presence counted, not estimated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<PathBuf>,
    /// Column of sampling weights (individual risk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<String>,
    #[serde(skip_serializing_if = "is_default")]
    pub individual_method: IndividualMethod,
    /// Search minimal sample uniques up to this size (SUDA).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suda_max_size: Option<usize>,
    /// Distinction, separation and uniques of every combination of the
    /// attacker's attributes.
    #[serde(skip_serializing_if = "is_default")]
    pub attribute_risks: bool,
    /// Column of household identifiers: household risk 1 − ∏(1 − r_i)
    /// over its members' individual risks (`risk::household`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub household: Option<String>,
    /// μ-ARGUS's threshold rule over combinations of the attacker's
    /// attributes (`risk::risky_cells`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub risky_cells: Option<RiskyCellsRule>,
}

/// Combinations of up to `max_size` key variables whose cells hold at
/// most `threshold` records (sdcMicro's `riskyCells(maxDim, threshold)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiskyCellsRule {
    pub max_size: usize,
    pub threshold: u64,
}

impl PopulationSettings {
    /// True when the population itself is described (size, fraction or
    /// table).
    pub fn has_population(&self) -> bool {
        self.size.is_some() || self.sampling_fraction.is_some() || self.table.is_some()
    }
}
