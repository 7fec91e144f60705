//! Re-identification risk: the radix-tree attack simulator.

mod simulator;

pub use simulator::{
    cdf, histogram, simulate, CdfPoint, HistogramBin, Knowledge, PrefixRow, RiskSummary,
    Simulation, HISTOGRAM_BINS,
};
