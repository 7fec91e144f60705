//! Datasets, the readers (CSV; Parquet, Arrow IPC and compressed CSV with
//! the `formats` feature), roles, cell sensitivity, the rule language, the
//! conditions file and the project file.

mod conditions;
pub mod csv_import;
mod dataset;
pub mod examples;
pub mod formats;
pub mod input;
pub mod number;
pub mod output;
mod population;
mod project;
pub mod recode;
mod roles;
mod rule;
mod sensitivity;

pub use conditions::{Condition, Conditions};
pub use csv_import::{load_csv, load_csv_bytes, sniff_delimiter, CsvOptions};
/// A short text as one number: the key the column builder interns by,
/// for other lookups of cells by text (the publishing pass of
/// `anonlab-scale`).
#[doc(hidden)]
pub use dataset::pack as pack_short;
pub use dataset::{Column, ColumnBuilder, ColumnKind, Dataset, KindError};
pub use formats::{load, InputFormat};
pub use output::{
    commit_all, stage_file, write_bytes, write_file, Inputs, Scratch, Staged, Temporaries,
};
pub use population::{IndividualMethod, PopulationSettings, RiskyCellsRule};
pub use project::{
    AttackerModel, CompareEntry, DataFingerprint, DataSource, FullDomainParams, GroupedSource,
    HierarchySource, LocalSuppressionParams, Params, PerturbationParams, Project, DEFAULT_P,
    DEFAULT_THRESHOLD, MAX_COMPARE_ENTRIES, PROJECT_VERSION,
};
pub use recode::{Applied as AppliedRecode, Recode, Threshold};
pub use roles::{Role, Roles};
pub use rule::{CompiledRule, Rule};
pub use sensitivity::{CellSensitivity, SensitivitySource};
