//! Population uniqueness: Pitman's, Zayatz's and the SNB estimates side by
//! side, and the decision rule of Dankar, El Emam, Neisa and Roffey (2012,
//! "Estimating the re-identification risk of clinical data sets") that
//! picks one, as ARX's `RiskModelPopulationUniqueness` applies it:
//! - sampling fraction ≤ 0.1: Pitman's estimate, or Zayatz's when Pitman's
//!   model gives none;
//! - above 0.1: the smaller of Zayatz's and the SNB estimate, or Zayatz's
//!   when the SNB model gives none.
//!
//! A model "gives none" when its solver did not converge or its figure is
//! not a count of population records in (0, N]; the figure is then absent
//! (JSON null) with the reason, never a number. With no sample uniques
//! every estimate is 0 and no model is chosen.

use serde::{Deserialize, Serialize};

use super::solver::SolverSettings;
use super::{pitman, snb, zayatz, PopulationModel};
use crate::stats::SizeCounts;

/// The three models Dankar's rule chooses from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UniquenessModel {
    Pitman,
    Zayatz,
    Snb,
}

impl UniquenessModel {
    pub fn label(self) -> &'static str {
        match self {
            UniquenessModel::Pitman => "Pitman",
            UniquenessModel::Zayatz => "Zayatz",
            UniquenessModel::Snb => "SNB",
        }
    }
}

/// Estimated shares of the population that are unique in it (population
/// uniques / N), as `anonlab assess --json` prints them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PopulationUniques {
    pub pitman: Option<f64>,
    pub zayatz: Option<f64>,
    pub snb: Option<f64>,
    pub dankar: Option<f64>,
    pub dankar_model: Option<UniquenessModel>,
    /// Why a figure is absent ("did not converge", ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl PopulationUniques {
    pub fn share(&self, model: UniquenessModel) -> Option<f64> {
        match model {
            UniquenessModel::Pitman => self.pitman,
            UniquenessModel::Zayatz => self.zayatz,
            UniquenessModel::Snb => self.snb,
        }
    }
}

/// All three estimates and Dankar's choice for a sample's class-size table.
pub fn population_uniques(
    table: &SizeCounts,
    model: &PopulationModel,
    settings: &SolverSettings,
) -> PopulationUniques {
    let n_pop = model.population_size;
    if table.of_size(1) == 0 {
        return PopulationUniques {
            pitman: Some(0.0),
            zayatz: Some(0.0),
            snb: Some(0.0),
            dankar: Some(0.0),
            dankar_model: None,
            notes: vec![
                "no record is unique in the sample, so none is estimated unique in the population"
                    .into(),
            ],
        };
    }
    let mut notes = Vec::new();
    let mut share = |r: Result<f64, String>| match r {
        Ok(v) => Some(v / n_pop as f64),
        Err(e) => {
            notes.push(e);
            None
        }
    };
    let p = share(pitman::pitman(table, n_pop, settings));
    let z = share(zayatz::zayatz(table, n_pop));
    let s = share(snb::snb(table, n_pop, settings));
    let choice = if model.sampling_fraction() <= 0.1 {
        if p.is_some() {
            Some(UniquenessModel::Pitman)
        } else {
            Some(UniquenessModel::Zayatz)
        }
    } else {
        match (s, z) {
            (Some(s), Some(z)) if z < s => Some(UniquenessModel::Zayatz),
            (Some(_), _) => Some(UniquenessModel::Snb),
            (None, _) => Some(UniquenessModel::Zayatz),
        }
    };
    let mut out = PopulationUniques {
        pitman: p,
        zayatz: z,
        snb: s,
        dankar: None,
        dankar_model: None,
        notes,
    };
    if let Some(m) = choice {
        match out.share(m) {
            Some(v) => {
                out.dankar = Some(v);
                out.dankar_model = Some(m);
            }
            None => out.notes.push(format!(
                "Dankar's rule chose {}, which gave no estimate",
                m.label()
            )),
        }
    }
    out
}
