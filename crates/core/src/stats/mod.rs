//! Statistics over a dataset's columns that other parts of anonlab build on:
//! the correlation measures behind `anonlab correlate`, the Hierarchies
//! screen's heat map and the correlation-based hierarchy construction
//! (`hierarchy::correlated`), and the distribution of class sizes the
//! paper's experiment reads (Figures 6–7).

pub mod class_size;
pub mod correlation;
pub mod kdtree;
pub mod mcd;
pub mod moments;
pub mod standardize;

pub use moments::sample_sd;

pub use class_size::{ClassSizeHistogram, KBin, SizeCounts};

pub use correlation::{
    categorize, correlation_matrix, pearson, Bin, Categories, Category, ColumnCategories,
    Contingency, CorrelationMatrix, Discretization, DiscretizationReport, Measure, Missing,
    DEFAULT_BINS,
};
