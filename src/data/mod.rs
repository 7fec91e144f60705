//! Datasets, CSV import, roles, cell sensitivity and the project file.

mod dataset;

pub use dataset::{Column, ColumnBuilder, ColumnKind, Dataset, KindError};
