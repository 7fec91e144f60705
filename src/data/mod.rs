//! Datasets, CSV import, roles, cell sensitivity and the project file.

mod csv_import;
mod dataset;

pub use csv_import::{load_csv, load_csv_bytes, sniff_delimiter, CsvOptions};
pub use dataset::{Column, ColumnBuilder, ColumnKind, Dataset, KindError};
