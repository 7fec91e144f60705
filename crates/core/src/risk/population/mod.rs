//! The file as a sample of a population: risk as statistics offices
//! measure it (ARX's population models, after El Emam and Dankar).
//!
//! The prosecutor's Pr(re-id) = 1/f_j (the simulator's figure) is right when
//! the file is the whole population. For a sample of n out of N records a
//! record unique in the file may have many look-alikes outside it, so:
//! - [`summary`]: journalist and marketer risk (and k-map, δ-presence with a
//!   population table);
//! - [`uniqueness`]: the estimated share of population uniques by Pitman's,
//!   Zayatz's and the SNB model, and Dankar et al.'s choice among them.
//!
//! All of them read the sample only through its frequency table of class
//! sizes ([`SizeCounts`]) and, for the journalist, the population's class
//! sizes when a population table is given.

mod pitman;
mod snb;
pub mod solver;
pub mod special;
pub mod summary;
pub mod uniqueness;
mod zayatz;

pub use snb::population_classes;
pub use solver::SolverSettings;
pub use summary::{sample_summary, JournalistBasis, RecordRisk, SampleSummary};
pub use uniqueness::{population_uniques, PopulationUniques, UniquenessModel};

use crate::error::{Error, Parameter, Result};
pub use crate::stats::SizeCounts;

/// The population a sample of `sample_size` records is drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PopulationModel {
    pub sample_size: u64,
    pub population_size: u64,
}

impl PopulationModel {
    /// A population of `population_size` people (at least the sample).
    pub fn with_size(sample_size: u64, population_size: u64) -> Result<Self> {
        if sample_size == 0 {
            return Err(Error::invalid(
                Parameter::PopulationSize,
                "an empty file has no population model",
            ));
        }
        if population_size < sample_size {
            return Err(Error::invalid(Parameter::PopulationSize, format!(
                "population size {population_size} is smaller than the {sample_size} records of the file, which are part of it"
            )));
        }
        Ok(Self {
            sample_size,
            population_size,
        })
    }

    /// The population a sampling fraction implies: N = round(n / F), as
    /// ARX's `ARXPopulationModel` computes it (so the fraction used is then
    /// n / N, which may differ from F in its last digits).
    pub fn with_fraction(sample_size: u64, fraction: f64) -> Result<Self> {
        if !(fraction > 0.0 && fraction <= 1.0) {
            return Err(Error::invalid(
                Parameter::SamplingFraction,
                format!("sampling fraction {fraction} is not in (0, 1]"),
            ));
        }
        let n = (sample_size as f64 / fraction).round();
        if n >= u64::MAX as f64 {
            return Err(Error::invalid(
                Parameter::SamplingFraction,
                format!("sampling fraction {fraction} implies a population too large to count"),
            ));
        }
        Self::with_size(sample_size, n as u64)
    }

    /// n / N.
    pub fn sampling_fraction(&self) -> f64 {
        self.sample_size as f64 / self.population_size as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fraction_and_size_imply_each_other() {
        let m = PopulationModel::with_fraction(30_162, 0.01).unwrap();
        assert_eq!(m.population_size, 3_016_200);
        assert!((m.sampling_fraction() - 0.01).abs() < 1e-15);
        assert_eq!(
            PopulationModel::with_fraction(3, 0.7)
                .unwrap()
                .population_size,
            4
        );
        assert!(PopulationModel::with_fraction(10, 0.0).is_err());
        assert!(PopulationModel::with_fraction(10, 1.5).is_err());
        assert!(PopulationModel::with_fraction(10, f64::NAN).is_err());
        assert!(PopulationModel::with_size(10, 9).is_err());
        assert!(PopulationModel::with_size(0, 9).is_err());
    }
}
