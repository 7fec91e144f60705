//! The microaggregation flags of `anonymize` and `compare` (issue 34):
//! the numerical key variables to perturb (sdcMicro's `numVars`) and how
//! a group's values are aggregated; `--strata` (shared with local
//! suppression, `ls_args`) names the stratum column. Validated into
//! `algorithms::microaggregation::NumericOptions`; the roles and types are
//! the library's to refuse (`Microaggregation::check`), with the flag named
//! by the setting.

use anyhow::{anyhow, bail};
use clap::{Args, ValueEnum};

use anonlab::algorithms::microaggregation::{Aggregation, NumericOptions};
use anonlab::algorithms::Options;
use anonlab::data::Dataset;

/// What replaces a microaggregation group's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AggregationArg {
    Mean,
    Median,
}

#[derive(Debug, Args, Clone, Default)]
pub struct NumericArgs {
    /// Microaggregation (mdav, optimal-univariate): the numerical key
    /// variables to perturb, published as their group's mean or median.
    /// Not quasi-identifiers or sensitive attributes: their risk is the
    /// interval measure, their loss IL1s, beside the class-based figures
    /// of the --qi. (--numeric is how the file is read, not this.)
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub perturb: Vec<String>,
    /// Microaggregation: each group's values replaced by their `mean`
    /// (default) or `median`.
    #[arg(long, value_enum, value_name = "mean|median")]
    pub aggregation: Option<AggregationArg>,
}

/// The algorithms that read these flags (and `--strata`).
pub const IDS: [&str; 2] = ["mdav", "optimal-univariate"];

impl NumericArgs {
    pub fn any(&self) -> bool {
        !self.perturb.is_empty() || self.aggregation.is_some()
    }

    /// Refuse the flags when no microaggregation runs.
    pub fn check(&self, algorithms: &[&str]) -> anyhow::Result<()> {
        if self.any() && !algorithms.iter().any(|a| IDS.contains(a)) {
            bail!("--perturb and --aggregation are read by --algorithm mdav and optimal-univariate only");
        }
        Ok(())
    }

    /// The options of a request on `ds`, with the stratum column `strata`
    /// (--strata). A flag not given keeps what the request holds (a
    /// project's settings, resolved by `Session::request_with`), so a
    /// project saved with them publishes the release the report shows.
    pub fn apply(&self, o: &mut Options, ds: &Dataset, strata: Option<&str>) -> anyhow::Result<()> {
        let n: &mut NumericOptions = &mut o.numeric;
        if !self.perturb.is_empty() {
            n.columns = self
                .perturb
                .iter()
                .map(|name| {
                    ds.column_index(name.trim())
                        .map_err(|e| anyhow!("--perturb: {e}"))
                })
                .collect::<anyhow::Result<Vec<usize>>>()?;
        }
        if let Some(name) = strata {
            n.strata = Some(
                ds.column_index(name)
                    .map_err(|e| anyhow!("--strata: {e}"))?,
            );
        }
        match self.aggregation {
            Some(AggregationArg::Median) => n.aggregation = Aggregation::Median,
            Some(AggregationArg::Mean) => n.aggregation = Aggregation::Mean,
            None => {}
        }
        Ok(())
    }
}
