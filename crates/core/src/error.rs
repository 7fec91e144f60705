//! The core's one error type.
//!
//! Every variant carries what a user needs to act: the file, the 1-based row
//! (counting the header as row 1, as a spreadsheet does) and the column name.
//! The binary wraps these with `anyhow`; the TUI shows them in a popup.
//! Every message is escaped ([`escaped`]) as it is displayed, so a name or
//! value quoted from a file (a label holding an ANSI escape) never drives
//! a terminal, whichever surface shows it.

use std::path::{Path, PathBuf};

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

    /// One parameter of a run is wrong, by itself or for the data it is
    /// given (k larger than the records, l more than the distinct values):
    /// `parameter` says which, so a caller can match on it and a surface
    /// name it in its own terms ([`Error::message_with`]); `msg` says what
    /// was given and what was expected.
    #[error("invalid {}: {}", .parameter.name(), escaped(.msg))]
    Invalid { parameter: Parameter, msg: String },

    /// Not something a user's setting mends: inputs a program built that
    /// do not fit together (a release and a dataset of different tables,
    /// columns of different lengths, a chart's data of the wrong shape), a
    /// broken invariant of anonlab's, or an output that could not be
    /// encoded. A bug in anonlab or in the program calling the library.
    #[error("internal error: {}", escaped(.0))]
    Internal(String),

    /// Beyond what anonlab handles, whatever the settings: a table of more
    /// records than it counts, a value no condition can name. The message
    /// states the limit.
    #[error("{}", escaped(.0))]
    Limit(String),

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
    /// A semi-sensitive attribute, whose cells a source marks sensitive.
    SemiSensitiveAttribute,
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
    /// The numerical key variables a perturbation (microaggregation) changes.
    NumericAttributes,
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
            Setting::SemiSensitiveAttribute => "name a semi-sensitive attribute",
            Setting::Conditions => "give the conditions of generalization (a G.json file)",
            Setting::Hierarchy => "give the attribute's hierarchy",
            Setting::SensitiveHierarchy => "give the sensitive attribute's hierarchy",
            Setting::ProtectedValues => {
                "protected values are values of the sensitive attributes' hierarchies"
            }
            Setting::SuppressionLimit => "raise the suppression limit or relax the model",
            Setting::CorrelatedColumns => "name the columns to correlate",
            Setting::NumericAttributes => "name the attributes to perturb",
            Setting::MaxFileBytes => "raise the file size limit (the project's csv.max_file_bytes)",
            Setting::MaxRowBytes => "raise the row size limit (the project's csv.max_row_bytes)",
            Setting::MaxFieldBytes => {
                "raise the field size limit (the project's csv.max_field_bytes)"
            }
            Setting::MaxColumns => "raise the column limit (the project's csv.max_columns)",
        }
    }
}

/// A parameter of a run that an [`Error::Invalid`] finds wrong, by what it
/// is in the library rather than how a surface spells it (the CLI maps each
/// to its flag). One per concept the library checks, so a caller can tell
/// "k is too large" from "the algorithm is unknown" without reading text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Parameter {
    /// k of k-anonymity (and of the algorithms built on it).
    K,
    /// l of l-diversity, also what the data must allow for it (distinct,
    /// eligible sensitive values).
    L,
    /// p of p-sensitive k-anonymity.
    P,
    /// c of recursive (c,l)-diversity.
    C,
    /// t of the full-domain t-closeness model.
    T,
    /// α of (α,k)-anonymity.
    Alpha,
    /// δ of δ-disclosure privacy.
    Delta,
    /// β of β-likeness.
    Beta,
    /// LGB's per-attribute t-closeness (`ATTR=T`).
    TCloseness,
    /// The risk threshold a record's re-identification probability is
    /// compared with.
    Threshold,
    /// Full-domain's share of rows it may suppress.
    SuppressionLimit,
    /// Local suppression's importance of the key variables.
    Importance,
    /// Local suppression's sizes of key subsets (all-m).
    Combs,
    /// Local suppression's stratum column.
    Strata,
    /// What local suppression's suppressed and missing cells match.
    Convention,
    /// Local suppression's target on individual (or household) risk,
    /// instead of k.
    RiskThreshold,
    /// The anonymization algorithm's id.
    Algorithm,
    /// The full-domain privacy model's name.
    Model,
    /// The full-domain information-loss metric.
    Metric,
    /// A chosen node of the full-domain lattice.
    Node,
    /// A generalization hierarchy: how it is given or what it holds.
    Hierarchy,
    /// Construction(D, G)'s conditions of generalization.
    Conditions,
    /// The columns' roles: which are identifiers, quasi-identifiers,
    /// sensitive and semi-sensitive.
    Roles,
    /// The attributes the attacker is said to know.
    AttackerKnows,
    /// Cells marked sensitive one by one (semi-sensitive attributes).
    SensitiveCells,
    /// The share of semi-sensitive cells drawn sensitive.
    SensitiveDensity,
    /// The size of the population the file is a sample of.
    PopulationSize,
    /// The share of the population the file samples.
    SamplingFraction,
    /// The population as a table, or which population model to use.
    Population,
    /// The sampling-weight column.
    Weights,
    /// SUDA's largest minimal sample unique searched.
    Suda,
    /// Attribute risks over combinations of the attacker's attributes.
    AttributeRisks,
    /// The household identifier column (household risk).
    Household,
    /// μ-ARGUS's threshold rule: combinations of up to m key variables
    /// and the frequency a cell must exceed.
    RiskyCells,
    /// The size of a sample drawn from the data.
    Sample,
    /// The aggregate query workload that measures utility.
    Queries,
    /// The CSV field delimiter.
    Delimiter,
    /// The correlation measure.
    Measure,
    /// How a correlation treats missing values.
    MissingPolicy,
    /// Bins a numeric attribute is cut into for a correlation.
    Bins,
    /// The columns a correlation matrix or correlated hierarchy is
    /// computed over.
    CorrelatedColumns,
    /// The attribute a correlated hierarchy is built for.
    FocusedAttribute,
    /// The least number of records per interval or cell.
    MinRecords,
    /// The column a hierarchy is built for.
    Column,
    /// The width of an interval hierarchy's first level.
    IntervalWidth,
    /// Intervals merged per level of an interval hierarchy.
    Fanout,
    /// The number of quantile intervals.
    Quantiles,
    /// Records per group of a frequency grouping hierarchy.
    GroupSize,
    /// A value-to-group mapping hierarchy.
    Mapping,
    /// An output file (its format, from its extension).
    Output,
    /// A chart's size in pixels.
    ChartSize,
    /// Where the data is read: in memory or through the query engine's
    /// frequency table.
    Engine,
    /// A cluster scheduler's `HOST:PORT`.
    ClusterAddress,
    /// The host a cluster process binds to.
    Host,
    /// The cluster's token file.
    TokenFile,
    /// A cluster executor's data root.
    DataRoot,
    /// A cluster executor's work directory.
    WorkDir,
    /// A top or bottom code or a rounding of a numeric column.
    Recode,
}

impl Parameter {
    /// Its name in the library's words: the TUI and the library's callers
    /// show this ("invalid k: …").
    pub fn name(self) -> &'static str {
        match self {
            Parameter::K => "k",
            Parameter::L => "l",
            Parameter::P => "p",
            Parameter::C => "c",
            Parameter::T => "t",
            Parameter::Alpha => "alpha",
            Parameter::Delta => "delta",
            Parameter::Beta => "beta",
            Parameter::TCloseness => "t-closeness",
            Parameter::Threshold => "risk threshold",
            Parameter::SuppressionLimit => "suppression limit",
            Parameter::Importance => "importance",
            Parameter::Combs => "combs",
            Parameter::Strata => "strata",
            Parameter::Convention => "missing-matches",
            Parameter::RiskThreshold => "risk threshold",
            Parameter::Algorithm => "algorithm",
            Parameter::Model => "privacy model",
            Parameter::Metric => "metric",
            Parameter::Node => "lattice node",
            Parameter::Hierarchy => "hierarchy",
            Parameter::Conditions => "conditions",
            Parameter::Roles => "column roles",
            Parameter::AttackerKnows => "attacker's attributes",
            Parameter::SensitiveCells => "sensitive cells",
            Parameter::SensitiveDensity => "sensitive density",
            Parameter::PopulationSize => "population size",
            Parameter::SamplingFraction => "sampling fraction",
            Parameter::Population => "population",
            Parameter::Weights => "sampling weights",
            Parameter::Suda => "SUDA",
            Parameter::AttributeRisks => "attribute risks",
            Parameter::Household => "household",
            Parameter::RiskyCells => "risky cells",
            Parameter::Sample => "sample",
            Parameter::Queries => "query workload",
            Parameter::Delimiter => "delimiter",
            Parameter::Measure => "correlation measure",
            Parameter::MissingPolicy => "missing-value policy",
            Parameter::Bins => "bins",
            Parameter::CorrelatedColumns => "correlated columns",
            Parameter::FocusedAttribute => "focused attribute",
            Parameter::MinRecords => "least records",
            Parameter::Column => "column",
            Parameter::IntervalWidth => "interval width",
            Parameter::Fanout => "fanout",
            Parameter::Quantiles => "quantiles",
            Parameter::GroupSize => "group size",
            Parameter::Mapping => "mapping",
            Parameter::Output => "output",
            Parameter::ChartSize => "chart size",
            Parameter::Engine => "engine",
            Parameter::ClusterAddress => "cluster address",
            Parameter::Host => "host",
            Parameter::TokenFile => "token file",
            Parameter::DataRoot => "data root",
            Parameter::WorkDir => "work directory",
            Parameter::Recode => "recoding",
        }
    }
}

impl std::fmt::Display for Parameter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

fn unmet(at: Option<&Location>, msg: &str, remedy: &str) -> String {
    match at {
        Some(at) => format!("{at}: {}; {remedy}", escaped(msg)),
        None => format!("{}: {remedy}", escaped(msg)),
    }
}

impl Error {
    /// An unknown column in a file the user did not name themselves (a
    /// project's data path) reworded without the file's header: listing
    /// the columns would quote the file's first line, which may be a file
    /// the user may not read (a project pointing at /etc/shadow). Says
    /// how many columns the file has, so a wrong path shows. Any other
    /// error is returned as it is.
    pub fn unlisted(self, file: &Path, columns: usize) -> Error {
        match self {
            Error::UnknownColumn { name, .. } => Error::input(
                file,
                None,
                None,
                format!(
                    "the project's column '{}' is not in this file, which has {columns} column{}: is the project's data path the file of its data?",
                    shown(&name, 200),
                    if columns == 1 { "" } else { "s" }
                ),
            ),
            e => e,
        }
    }

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

    /// An [`Error::Invalid`]: `parameter` is wrong, as `msg` says.
    pub fn invalid(parameter: Parameter, msg: impl Into<String>) -> Self {
        Error::Invalid {
            parameter,
            msg: msg.into(),
        }
    }

    /// The parameter an [`Error::Invalid`] finds wrong.
    pub fn parameter(&self) -> Option<Parameter> {
        match self {
            Error::Invalid { parameter, .. } => Some(*parameter),
            _ => None,
        }
    }

    /// The setting an [`Error::Unmet`] asks for.
    pub fn setting(&self) -> Option<Setting> {
        match self {
            Error::Unmet { setting, .. } => Some(*setting),
            _ => None,
        }
    }

    /// The message in a surface's terms (the CLI names its flags):
    /// `remedy` says how to give the setting of an [`Error::Unmet`], `name`
    /// names the parameter of an [`Error::Invalid`]; every other error as
    /// it displays.
    pub fn message_with(
        &self,
        remedy: impl Fn(Setting) -> String,
        name: impl Fn(Parameter) -> String,
    ) -> String {
        match self {
            Error::Unmet { at, msg, setting } => unmet(at.as_ref(), msg, &remedy(*setting)),
            Error::Invalid { parameter, msg } => {
                format!("invalid {}: {}", name(*parameter), escaped(msg))
            }
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

/// A panic's message, when it has one (a caught panic's payload is a
/// `&str` or a `String`); empty otherwise.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default()
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

/// A file's column names for a message ([`Error::UnknownColumn`]), at
/// most [`COLUMNS_LISTED`]. A header that does not look like column names
/// — a file read with the wrong delimiter, or no table at all (a project
/// pointing at `/etc/shadow`) — is not quoted: its first line may be
/// anything, a password hash included, and a message never shows a file's
/// contents (issue 36, item 10). Names of letters, digits, spaces and
/// the punctuation column names use are listed; the others are counted.
pub fn listed_columns<S: AsRef<str>>(names: &[S]) -> String {
    let plain = |n: &str| {
        !n.is_empty()
            && n.chars().count() <= 64
            && n.chars()
                .all(|c| c.is_alphanumeric() || " _-.()/#%&+'[]".contains(c))
    };
    let shown: Vec<&str> = names
        .iter()
        .map(AsRef::as_ref)
        .filter(|n| plain(n))
        .collect();
    let hidden = names.len() - shown.len();
    let mut s = listed(&shown, COLUMNS_LISTED);
    if hidden > 0 {
        if !s.is_empty() {
            s.push_str("; ");
        }
        s.push_str(&format!(
            "{hidden} header field{} not shown, which do{} not look like column names (is the delimiter right? --delimiter)",
            if hidden == 1 { "" } else { "s" },
            if hidden == 1 { "es" } else { "" }
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_that_is_no_column_names_is_not_quoted() {
        assert_eq!(listed_columns(&["age", "sex"]), "age, sex");
        let shadow = "root:$6$Jz1Yc0aB$abcdefghijk:19000:0:99999:7:::";
        let s = listed_columns(&[shadow]);
        assert!(!s.contains("root") && !s.contains('$'), "{s}");
        assert!(s.contains("1 header field not shown"), "{s}");
        assert_eq!(
            listed_columns(&["marital-status", "a:b"]),
            "marital-status; 1 header field not shown, which does not look like column names (is the delimiter right? --delimiter)"
        );
    }

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
