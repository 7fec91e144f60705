//! The core's one error type.
//!
//! Every variant carries what a user needs to act: the file, the 1-based row
//! (counting the header as row 1, as a spreadsheet does) and the column name.
//! The binary wraps these with `anyhow`; the TUI shows them in a popup.
//! Every message is escaped ([`escaped`]) as it is displayed, so a name or
//! value quoted from a file (a label holding an ANSI escape) never drives
//! a terminal, whichever surface shows it.

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
        write!(f, "{}", escaped(&self.file.display().to_string()))?;
        if let Some(r) = self.row {
            write!(f, ", row {r}")?;
        }
        if let Some(c) = &self.column {
            write!(f, ", column '{}'", escaped(c))?;
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: cannot read file: {}", escaped(&.0.display().to_string()), .1)]
    // The reason is in the message, not a `source`: the CLI prints the
    // chain, which would repeat it.
    Io(PathBuf, std::io::Error),

    #[error("{}: cannot write file: {}", escaped(&.0.display().to_string()), .1)]
    Write(PathBuf, std::io::Error),

    #[error("{at}: {}", escaped(.msg))]
    Input { at: Location, msg: String },

    /// `available` lists at most [`COLUMNS_LISTED`] names ([`listed`]).
    #[error("unknown column '{}' (the columns are: {})", shown(.name, 200), escaped(.available))]
    UnknownColumn { name: String, available: String },

    #[error("invalid rule '{}': {}", shown(.rule, 80), escaped(.msg))]
    Rule { rule: String, msg: String },

    #[error("invalid parameter: {}", escaped(.0))]
    Parameter(String),

    #[error("project file {}: {}", escaped(&.0.display().to_string()), escaped(.1))]
    Project(PathBuf, String),

    /// Something a setting of the run mends: `msg` says what is wrong in
    /// the library's terms, `setting` what to give or change, `at` where in
    /// an input file when it is tied to one. The message names the setting
    /// by its concept ([`Setting::remedy`]); a surface with its own names
    /// for settings (the CLI's flags) says them with [`Error::message_with`].
    #[error("{}", unmet(.at.as_ref(), .msg, .setting.remedy()))]
    Unmet {
        at: Option<Location>,
        msg: String,
        setting: Setting,
    },

    /// A cluster process or the cluster's work: `address` is the
    /// scheduler's or executor's `HOST:PORT` as given, `msg` what went
    /// wrong there (unreachable, port taken, a job that failed).
    #[error("cluster at {}: {}", escaped(.address), escaped(.msg))]
    Cluster { address: String, msg: String },

    #[error("cancelled")]
    Cancelled,
}

/// A setting of a run that an [`Error::Unmet`] asks the user to give or
/// change, by what it is in the library rather than how a surface spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    QuasiIdentifiers,
    SensitiveAttribute,
    /// LGB's attributes: semi-sensitive ones or a sensitive one.
    SemiSensitiveOrSensitive,
    /// Construction(D, G)'s conditions of generalization.
    Conditions,
    /// A quasi-identifier's generalization hierarchy.
    Hierarchy,
    /// A sensitive attribute's hierarchy (p-sensitivity's protected values).
    SensitiveHierarchy,
    /// p-sensitivity's protected values.
    ProtectedValues,
    /// Full-domain's share of rows it may suppress.
    SuppressionLimit,
    /// The columns a correlation matrix is computed over.
    CorrelatedColumns,
    /// The CSV reader's limits ([`crate::data::CsvOptions`]).
    MaxFileBytes,
    MaxRowBytes,
    MaxFieldBytes,
    MaxColumns,
}

impl Setting {
    /// What to do, in the library's words: the TUI and the library's
    /// callers show this.
    pub fn remedy(self) -> &'static str {
        match self {
            Setting::QuasiIdentifiers => "name at least one quasi-identifier",
            Setting::SensitiveAttribute => "name a sensitive attribute",
            Setting::SemiSensitiveOrSensitive => "name a semi-sensitive or a sensitive attribute",
            Setting::Conditions => "give the conditions of generalization (a G.json file)",
            Setting::Hierarchy => "give the attribute's hierarchy",
            Setting::SensitiveHierarchy => "give the sensitive attribute's hierarchy",
            Setting::ProtectedValues => {
                "protected values are values of the sensitive attributes' hierarchies"
            }
            Setting::SuppressionLimit => "raise the suppression limit or relax the model",
            Setting::CorrelatedColumns => "name the columns to correlate",
            Setting::MaxFileBytes => "raise the file size limit (the project's csv.max_file_bytes)",
            Setting::MaxRowBytes => "raise the row size limit (the project's csv.max_row_bytes)",
            Setting::MaxFieldBytes => {
                "raise the field size limit (the project's csv.max_field_bytes)"
            }
            Setting::MaxColumns => "raise the column limit (the project's csv.max_columns)",
        }
    }
}

fn unmet(at: Option<&Location>, msg: &str, remedy: &str) -> String {
    match at {
        Some(at) => format!("{at}: {}; {remedy}", escaped(msg)),
        None => format!("{}: {remedy}", escaped(msg)),
    }
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

    /// An [`Error::Unmet`] not tied to a file.
    pub fn unmet(msg: impl Into<String>, setting: Setting) -> Self {
        Error::Unmet {
            at: None,
            msg: msg.into(),
            setting,
        }
    }

    /// An [`Error::Unmet`] at a place in an input file.
    pub fn unmet_at(
        file: impl Into<PathBuf>,
        row: Option<u64>,
        column: Option<String>,
        msg: impl Into<String>,
        setting: Setting,
    ) -> Self {
        Error::Unmet {
            at: Some(Location {
                file: file.into(),
                row,
                column,
            }),
            msg: msg.into(),
            setting,
        }
    }

    /// The setting an [`Error::Unmet`] asks for.
    pub fn setting(&self) -> Option<Setting> {
        match self {
            Error::Unmet { setting, .. } => Some(*setting),
            _ => None,
        }
    }

    /// The message, with `remedy` saying how to give the setting of an
    /// [`Error::Unmet`] in the caller's terms (the CLI names its flag);
    /// every other error as it displays.
    pub fn message_with(&self, remedy: impl Fn(Setting) -> String) -> String {
        match self {
            Error::Unmet { at, msg, setting } => unmet(at.as_ref(), msg, &remedy(*setting)),
            e => e.to_string(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Column names listed in a message at most (an unknown column in a file
/// of 100,000 columns must not print them all).
pub const COLUMNS_LISTED: usize = 30;

/// `text` with control characters (C0, DEL, C1 — ANSI escapes among them)
/// written as `\u{1b}`-style escapes, so a message quoting a file's names
/// or values shows them and never drives the terminal.
pub fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` escaped ([`escaped`]) and cut to at most `max` characters, the
/// cut said: for values quoted in messages (a rule of 16,000 characters
/// must not fill the screen).
pub fn shown(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return escaped(text);
    }
    let head: String = text.chars().take(max).collect();
    format!("{}… ({} more characters)", escaped(&head), total - max)
}

/// Up to `max` items joined with ", ", then "and N more".
pub fn listed<S: AsRef<str>>(items: &[S], max: usize) -> String {
    let shown: Vec<&str> = items.iter().take(max).map(AsRef::as_ref).collect();
    let mut s = shown.join(", ");
    if items.len() > max {
        s.push_str(&format!(" and {} more", items.len() - max));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_long_text_cut() {
        assert_eq!(escaped("a\u{1b}[31mb\tc"), "a\\u{1b}[31mb\\u{9}c");
        assert_eq!(escaped("Zürich"), "Zürich");
        let s = shown(&"(".repeat(500), 10);
        assert_eq!(s, "((((((((((… (490 more characters)");
        assert_eq!(listed(&["a", "b", "c"], 2), "a, b and 1 more");
        assert_eq!(listed(&["a", "b"], 2), "a, b");
    }
}
