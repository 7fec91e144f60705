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
    /// PRAM: the least diagonal entry of the transition matrices drawn
    /// (sdcMicro's pd, default 0.8).
    #[arg(long, value_name = "P")]
    pub pd: Option<f64>,
    /// PRAM: sdcMicro's alpha (--alpha is full-domain's), how much of the invariant matrix is mixed
    /// with the identity (default 0.5).
    #[arg(long = "pram-alpha", value_name = "A")]
    pub pram_alpha: Option<f64>,
    /// PRAM: the transition matrix of an attribute, a CSV file (header:
    /// its categories; one row per category, its name first, entries in
    /// [0, 1] summing to 1), used for every stratum. Repeat per attribute.
    #[arg(long, value_name = "COL=FILE")]
    pub matrix: Vec<String>,
    /// noise-additive: noise in percent of each attribute's standard
    /// deviation (sdcMicro's noise, default 150).
    #[arg(long, value_name = "PERCENT")]
    pub noise: Option<f64>,
    /// noise-correlated2: sdcMicro's delta in (0, 1] (default 0.1).
    #[arg(long, value_name = "D")]
    pub noise_delta: Option<f64>,
    /// rank-swap: values are exchanged between records fewer than P percent
    /// of the ranks apart (default 5).
    #[arg(long, value_name = "P")]
    pub swap_p: Option<f64>,
}

/// The microaggregation algorithms (which also read `--weights`).
pub const MICROAGGREGATION: [&str; 2] = ["mdav", "optimal-univariate"];

/// The algorithms that read these flags (and `--strata`).
pub const IDS: [&str; 6] = [
    "mdav",
    "optimal-univariate",
    "pram",
    "noise-additive",
    "noise-correlated2",
    "rank-swap",
];

impl NumericArgs {
    pub fn any(&self) -> bool {
        !self.perturb.is_empty()
            || self.aggregation.is_some()
            || self.pd.is_some()
            || self.pram_alpha.is_some()
            || !self.matrix.is_empty()
            || self.noise.is_some()
            || self.noise_delta.is_some()
            || self.swap_p.is_some()
    }

    /// Refuse the flags when no perturbation runs.
    pub fn check(&self, algorithms: &[&str]) -> anyhow::Result<()> {
        if self.any() && !algorithms.iter().any(|a| IDS.contains(a)) {
            bail!("--perturb and --aggregation are read by --algorithm mdav, optimal-univariate, pram, noise-additive, noise-correlated2 and rank-swap only");
        }
        for (given, flag, id) in [
            (self.noise.is_some(), "--noise", "noise-additive"),
            (
                self.noise_delta.is_some(),
                "--noise-delta",
                "noise-correlated2",
            ),
            (self.swap_p.is_some(), "--swap-p", "rank-swap"),
        ] {
            if given && !algorithms.contains(&id) {
                bail!("{flag} is read by --algorithm {id} only");
            }
        }
        let pram_only = self.pd.is_some() || self.pram_alpha.is_some() || !self.matrix.is_empty();
        if pram_only && !algorithms.contains(&"pram") {
            bail!("--pd, --pram-alpha and --matrix are read by --algorithm pram only");
        }
        Ok(())
    }

    /// The matrix files (inputs: never written by an output flag).
    pub fn matrix_files(&self) -> Vec<std::path::PathBuf> {
        self.matrix
            .iter()
            .filter_map(|m| m.split_once('=').map(|(_, f)| f.into()))
            .collect()
    }

    /// The options of a request on `ds`, with the stratum column `strata`
    /// (--strata) and the sampling weights `weights` (--weights, read by
    /// microaggregation). A flag not given keeps what the request holds (a
    /// project's settings, resolved by `Session::request_with`), so a
    /// project saved with them publishes the release the report shows.
    pub fn apply(
        &self,
        o: &mut Options,
        ds: &Dataset,
        strata: Option<&str>,
        weights: Option<&str>,
    ) -> anyhow::Result<()> {
        let n: &mut NumericOptions = &mut o.numeric;
        if let Some(name) = weights {
            n.weights = Some(
                ds.column_index(name)
                    .map_err(|e| anyhow!("--weights: {e}"))?,
            );
        }
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
        if let Some(pd) = self.pd {
            o.pram.pd = pd;
        }
        if let Some(alpha) = self.pram_alpha {
            o.pram.alpha = alpha;
        }
        if let Some(noise) = self.noise {
            o.noise.noise = noise;
        }
        if let Some(delta) = self.noise_delta {
            o.noise.delta = delta;
        }
        if let Some(p) = self.swap_p {
            o.noise.swap_p = p;
        }
        for m in &self.matrix {
            let Some((name, file)) = m.split_once('=') else {
                bail!("--matrix {m}: give COL=FILE");
            };
            let c = ds
                .column_index(name.trim())
                .map_err(|e| anyhow!("--matrix: {e}"))?;
            let col = ds.col(c);
            let path = std::path::Path::new(file);
            let bytes = anonlab::data::input::read_text_file(path, "transition matrix file")?;
            let categories: Vec<&str> = col.dictionary().iter().map(|s| &**s).collect();
            let matrix =
                anonlab::algorithms::pram::parse_matrix_csv(&bytes, path, &categories, &|v| {
                    col.code_of(v)
                })?;
            o.pram.given.retain(|(g, _, _)| *g != c);
            o.pram.given.push((c, matrix, file.to_string()));
        }
        Ok(())
    }
}
