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
