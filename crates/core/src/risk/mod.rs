//! Risk: the radix-tree attack simulator, the matching index and the linkage
//! attack on a Release
//! and on the original table (hidden cells honoured), breach probability of
//! sensitive values, and the statistics offices' measures (population
//! models, individual risk, special uniques, attribute risks), and the
//! interval disclosure risk of a perturbed numeric file (`interval`).

pub mod attributes;
mod breach;
pub mod combinations;
mod distribution;
pub mod household;
pub mod individual;
pub mod interval;
mod linkage;
pub mod linkage_numeric;
mod local_breach;
mod matching;
mod original;
pub mod population;
pub mod risky_cells;
pub mod rmd;
mod simulator;
pub mod suda;

pub use breach::{breach_from, breach_probability, detaching_buckets, Breach, ValueBuckets};
pub use distribution::{
    CdfPoint, Distribution, HistogramBin, ProbabilityRuns, ProbabilitySummary, CDF_POINTS,
    HISTOGRAM_BINS,
};
pub use interval::{interval_risk, DEFAULT_INTERVAL_K};
pub use linkage::{linkage_attack, linkage_from, Linkage};
pub use linkage_numeric::{distance_linkage, NumericLinkage, DEFAULT_RANK_CAP};
#[cfg(test)]
pub(crate) use local_breach::fixture as lgb_fixture;
pub use local_breach::{local_risk, LocalBreach, LocalRisk};
pub use matching::{check_release_fits, Matching};
pub use original::{original_matches, OriginalMatches};
pub use rmd::{rmd_risk, rmd_risk_with_cov, RmdOptions, RmdRisk, DEFAULT_RMD_K, DEFAULT_RMD_K2};
pub use simulator::{
    simulate, summarize, summarize_runs, Knowledge, PrefixRow, RiskSummary, Simulation,
};
