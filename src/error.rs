//! The core's one error type.
//!
//! Every variant carries what a user needs to act: the file, the 1-based row
//! (counting the header as row 1, as a spreadsheet does) and the column name.
//! The binary wraps these with `anyhow`; the TUI shows them in a popup.

use std::path::PathBuf;

/// Where in an input file something went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: PathBuf,
    /// 1-based line of the record, header = 1. `None` when not tied to a row.
    pub row: Option<u64>,
    /// Column name when known, otherwise its 1-based position as text.
    pub column: Option<String>,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(r) = self.row {
            write!(f, ", row {r}")?;
        }
        if let Some(c) = &self.column {
            write!(f, ", column '{c}'")?;
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}: cannot read file: {1}")]
    // The reason is in the message, not a `source`: the CLI prints the
    // chain, which would repeat it.
    Io(PathBuf, std::io::Error),

    #[error("{at}: {msg}")]
    Input { at: Location, msg: String },

    #[error("unknown column '{name}' (the columns are: {available})")]
    UnknownColumn { name: String, available: String },

    #[error("invalid rule '{rule}': {msg}")]
    Rule { rule: String, msg: String },

    #[error("invalid parameter: {0}")]
    Parameter(String),

    #[error("project file {0}: {1}")]
    Project(PathBuf, String),

    #[error("cancelled")]
    Cancelled,
}

impl Error {
    pub fn input(
        file: impl Into<PathBuf>,
        row: Option<u64>,
        column: Option<String>,
        msg: impl Into<String>,
    ) -> Self {
        Error::Input {
            at: Location {
                file: file.into(),
                row,
                column,
            },
            msg: msg.into(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
