//! The local-suppression flags of `anonymize` and `compare` (sdcMicro's
//! `localSuppression` / `kAnon`): the importance of the key variables,
//! the all-m subsets (`combs`), what a suppressed or missing cell matches,
//! a stratum column, a risk target instead of k (with sampling weights)
//! and a household column. Parsed raw by clap, then validated into
//! `algorithms::local_suppression::LocalSuppressionOptions` in one step
//! ([`LocalSuppressionArgs::apply`]); the ranges are the library's to
//! refuse (`local_suppression::suppress`), with the flag named.

use anyhow::bail;
use clap::{Args, ValueEnum};

use anonlab::algorithms::local_suppression::{LocalSuppressionOptions, RiskTarget};
use anonlab::algorithms::Options;
use anonlab::data::Dataset;
use anonlab::release::Convention;

/// What a suppressed (or missing) key cell matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MissingMatches {
    /// Any value, on either side (sdcMicro's alpha = 1).
    Any,
    /// Only another suppressed cell: `*` is a value of its own (alpha = 0).
    Own,
}

#[derive(Debug, Args, Clone, Default)]
pub struct LocalSuppressionArgs {
    /// Local suppression: the key variables' importance, either every
    /// --qi by name from the most important (suppressed last) to the
    /// least, or one sdcMicro number per --qi in --qi order (1 = most
    /// important; ties allowed). Default: fewest categories = most
    /// important.
    #[arg(long, value_delimiter = ',', value_name = "COLS|NUMBERS")]
    pub importance: Vec<String>,
    /// Local suppression: k-anonymity on every subset of M key variables
    /// first (sdcMicro's combs; several sizes comma-separated, largest
    /// taken first), then on all of them.
    #[arg(long, value_delimiter = ',', value_name = "M")]
    pub combs: Vec<u32>,
    /// Local suppression: what a suppressed or missing key cell matches
    /// when records are counted: `any` value (sdcMicro's default, alpha =
    /// 1) or only another `*` (`own`, alpha = 0, stricter).
    #[arg(long, value_enum, value_name = "any|own")]
    pub missing_matches: Option<MissingMatches>,
    /// Local suppression: k within each value of this column (not a key
    /// variable).
    #[arg(long, value_name = "COL")]
    pub strata: Option<String>,
    /// Local suppression to a risk target instead of k: suppress until
    /// every record's individual risk (1/f, or sdcMicro's with
    /// --weights) is at most T, or with --household every household's
    /// 1 − ∏(1 − rᵢ). -k is not read then.
    #[arg(long, value_name = "T")]
    pub risk_threshold: Option<f64>,
    /// The sampling-weight column: local suppression's --risk-threshold
    /// (each at least 1), or microaggregation's weighted group mean or
    /// median (mdav, optimal-univariate; each above 0).
    #[arg(long, value_name = "COL")]
    pub weights: Option<String>,
    /// Local suppression: the household identifier column: suppressions
    /// reported by household size, and --risk-threshold met by every
    /// household's risk.
    #[arg(long, value_name = "COL")]
    pub household: Option<String>,
}

const ID: &str = "local-suppression";

impl LocalSuppressionArgs {
    /// Whether any of the flags is given.
    pub fn any(&self) -> bool {
        self.own() || self.strata.is_some()
    }

    /// Whether a flag only local suppression reads is given (--strata is
    /// microaggregation's too).
    fn own(&self) -> bool {
        !self.importance.is_empty()
            || !self.combs.is_empty()
            || self.missing_matches.is_some()
            || self.risk_threshold.is_some()
            || self.household.is_some()
    }

    /// Refuse the flags when local suppression does not run.
    pub fn check(&self, algorithms: &[&str]) -> anyhow::Result<()> {
        if self.own() && !algorithms.contains(&ID) {
            bail!("--importance, --combs, --missing-matches, --risk-threshold, --weights and --household are read by --algorithm local-suppression only");
        }
        if self.weights.is_some() {
            let micro = algorithms
                .iter()
                .any(|a| super::numeric_args::MICROAGGREGATION.contains(a));
            let reads = micro || (algorithms.contains(&ID) && self.risk_threshold.is_some());
            if !reads {
                bail!("--weights is read by --algorithm local-suppression with --risk-threshold, and by mdav and optimal-univariate");
            }
        }
        let strata_readers = super::numeric_args::IDS;
        if self.strata.is_some()
            && !algorithms
                .iter()
                .any(|a| *a == ID || strata_readers.contains(a))
        {
            bail!("--strata is read by --algorithm local-suppression, mdav and optimal-univariate only");
        }
        Ok(())
    }

    /// The options of a request on `ds` with quasi-identifiers `qi`. No
    /// flag given: the request keeps the project's settings
    /// (`Session::request_with` resolved them), so a project saved by the
    /// TUI publishes what the TUI showed.
    pub fn apply(&self, o: &mut Options, ds: &Dataset, qi: &[usize]) -> anyhow::Result<()> {
        if !self.any() {
            return Ok(());
        }
        let mut ls = LocalSuppressionOptions {
            combs: self.combs.clone(),
            convention: match self.missing_matches {
                Some(MissingMatches::Own) => Convention::OwnValue,
                _ => Convention::AnyValue,
            },
            ..LocalSuppressionOptions::default()
        };
        if let Some(name) = &self.strata {
            ls.strata = Some(
                ds.column_index(name)
                    .map_err(|e| anyhow::anyhow!("--strata: {e}"))?,
            );
        }
        if let Some(name) = &self.household {
            ls.household = Some(
                ds.column_index(name)
                    .map_err(|e| anyhow::anyhow!("--household: {e}"))?,
            );
        }
        if let Some(threshold) = self.risk_threshold {
            let weights = match &self.weights {
                Some(name) => Some(
                    ds.column_index(name)
                        .map_err(|e| anyhow::anyhow!("--weights: {e}"))?,
                ),
                None => None,
            };
            ls.risk = Some(RiskTarget { threshold, weights });
        }
        ls.importance = self.importance(ds, qi)?;
        o.local_suppression = ls;
        Ok(())
    }

    /// sdcMicro's numbers, one per quasi-identifier, from names (most
    /// important first) or numbers.
    fn importance(&self, ds: &Dataset, qi: &[usize]) -> anyhow::Result<Vec<u32>> {
        let given: Vec<&str> = self.importance.iter().map(|s| s.trim()).collect();
        if given.is_empty() {
            return Ok(Vec::new());
        }
        if given.iter().all(|s| s.parse::<u32>().is_ok()) {
            // Numbers: ranges checked by the library, which names the flag.
            return Ok(given.iter().map(|s| s.parse().unwrap_or(0)).collect());
        }
        let mut numbers = vec![0u32; qi.len()];
        for (rank, name) in given.iter().enumerate() {
            let Ok(c) = ds.column_index(name) else {
                bail!("--importance: no column '{name}'; name the key variables (--qi) from the most important to the least, or give one number per key");
            };
            let Some(a) = qi.iter().position(|&q| q == c) else {
                bail!("--importance: '{name}' is not a key variable (--qi)");
            };
            if numbers[a] != 0 {
                bail!("--importance: '{name}' is named twice");
            }
            numbers[a] = rank as u32 + 1;
        }
        if let Some(a) = numbers.iter().position(|&n| n == 0) {
            bail!(
                "--importance names {} of the {} key variables: '{}' is missing (name them all, most important first)",
                given.len(),
                qi.len(),
                ds.col(qi[a]).name()
            );
        }
        Ok(numbers)
    }
}
