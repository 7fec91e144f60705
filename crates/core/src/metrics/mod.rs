//! Utility of a Release: how much an analyst can still learn from it.
//!
//! `utility` holds the per-release information-loss measures (C_DM, C_AVG,
//! NCP/GCP); `queries` the seeded aggregate-query workload of the
//! cross-bucket paper and its relative error. Both read only the Release and
//! the dataset it was made from, so every algorithm is measured the same way.
//! `il1s` measures a perturbed numeric file against its original instead
//! (sdcMicro's IL1s), for methods such as microaggregation;
//! `categorical_loss` a perturbed categorical file (changed values and the
//! contingency-table distance), for PRAM; `perturbation` gathers a
//! perturbation release's figures (numeric risk and loss).

mod actual;
pub mod categorical_loss;
mod cell_table;
pub mod glp;
pub mod il1s;
pub mod numeric_loss;
pub mod perturbation;
pub mod pk_measures;
pub mod prob_queries;
pub mod queries;
pub mod utility;

pub use categorical_loss::{changed_share, contingency_distance};
pub use glp::{correspondence_loss, CorrespondenceLoss};
pub use il1s::il1s;
pub use numeric_loss::{
    eigen_loss, eigenvalue_loss, il1s_per_record, moment_loss, robust_eigen_loss, MomentLoss,
};
pub use perturbation::{
    perturbation_figures, CategoricalChange, LinkageFigures, LossDistribution, MatrixShown,
    MomentChange, MomentLossFigures, PerturbationFigures, RmdFigures, LOSS_BINS,
};
pub use prob_queries::{probabilistic_query_error, query_errors, ProbabilisticEngine};
pub use queries::{
    check_queries, generate_queries, query_error, Aggregate, Answer, CodeTest, Predicate, Query,
    QueryEngine, QueryReport, DEFAULT_QUERIES, MAX_QUERIES, PREDICATES_PER_QUERY,
};
pub use utility::{
    average_class_size, cell_ncp, class_sizes, discernibility, promised_k, utility, AttributeLoss,
    Utility,
};
