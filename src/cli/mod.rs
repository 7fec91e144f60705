//! The command line: flags are parsed raw by clap, then validated into a
//! library `Session` in one step (ripgrep's habit), then handed to the core.

pub mod anonymize;
pub mod assess;
pub mod chart;
pub mod cluster;
pub mod compare;
pub mod correlate;
pub mod hierarchy;
pub mod hierarchy_args;
pub mod lgb_args;
pub mod ls_args;
pub mod numeric_args;
pub mod pk_args;
pub mod population_args;
pub mod progress;
pub mod recode_args;
pub mod report;
pub mod synth;
#[cfg(feature = "tui")]
pub mod tui;

#[cfg(test)]
mod tests;

use std::path::PathBuf;

use anonlab::error::{Parameter, Setting};
use clap::{Args, Parser, Subcommand};

/// The CLI's words for a setting a library error asks for: its flag. The
/// library names the setting by its concept ([`Setting::remedy`]).
pub fn remedy(setting: Setting) -> String {
    match setting {
        Setting::QuasiIdentifiers => "name at least one with --qi",
        Setting::SensitiveAttribute => "name one with --sensitive",
        Setting::SemiSensitiveOrSensitive => "name one with --semi-sensitive or --sensitive",
        Setting::SemiSensitiveAttribute => "add --semi-sensitive COL",
        Setting::Conditions => "add --conditions G.json",
        Setting::Hierarchy => "give it with --hierarchies COL=FILE",
        Setting::SensitiveHierarchy => "give it with --sa-hierarchy COL=FILE",
        Setting::ProtectedValues => {
            "--protected names values of the hierarchies given with --sa-hierarchy"
        }
        Setting::SuppressionLimit => "raise --suppression or relax the model",
        Setting::CorrelatedColumns => "name them with --columns",
        Setting::NumericAttributes => "name them with --perturb",
        Setting::MaxFileBytes => {
            "raise it with --max-file-bytes (or the project's csv.max_file_bytes)"
        }
        Setting::MaxRowBytes => {
            "raise it with --max-row-bytes (or the project's csv.max_row_bytes)"
        }
        Setting::MaxFieldBytes => {
            "raise it with --max-field-bytes (or the project's csv.max_field_bytes)"
        }
        Setting::MaxColumns => "raise it with --max-columns (or the project's csv.max_columns)",
    }
    .to_string()
}

/// The CLI's words for a parameter a library error finds invalid: its flag
/// (alternatives joined by '/' where subcommands or roles spell it
/// differently). The library names the parameter by its concept
/// ([`Parameter::name`]).
pub fn flag(parameter: Parameter) -> String {
    match parameter {
        Parameter::K => "-k",
        Parameter::L => "-l",
        Parameter::P => "-p",
        Parameter::C => "--c",
        Parameter::T => "--t",
        Parameter::Alpha => "--alpha",
        Parameter::Delta => "--delta",
        Parameter::Beta => "--beta",
        Parameter::TCloseness => "--t-closeness",
        Parameter::Threshold => "--threshold",
        Parameter::SuppressionLimit => "--suppression",
        Parameter::Importance => "--importance",
        Parameter::Combs => "--combs",
        Parameter::Strata => "--strata",
        Parameter::Convention => "--missing-matches",
        Parameter::RiskThreshold => "--risk-threshold",
        // `anonymize --algorithm`, `compare`/`chart --algorithms`.
        Parameter::Algorithm => "--algorithm(s)",
        Parameter::Model => "--model",
        Parameter::Metric => "--metric",
        Parameter::Node => "--node",
        Parameter::Hierarchy => "--hierarchies/--sa-hierarchy",
        Parameter::Conditions => "--conditions",
        Parameter::Roles => "--qi/--sensitive/--semi-sensitive/--identifier",
        Parameter::AttackerKnows => "--attacker-knows",
        Parameter::SensitiveCells => "--sensitive-when/--sensitive-flag",
        Parameter::SensitiveDensity => "--sensitive-density",
        Parameter::PopulationSize => "--population-size",
        Parameter::SamplingFraction => "--sampling-fraction",
        Parameter::Population => "--population",
        Parameter::Weights => "--weights",
        Parameter::Suda => "--suda",
        Parameter::AttributeRisks => "--attribute-risks",
        Parameter::Household => "--household",
        Parameter::RiskyCells => "--risky-cells/--risky-threshold",
        Parameter::Sample => "--sample",
        Parameter::Queries => "--queries",
        Parameter::Delimiter => "--delimiter",
        Parameter::Measure => "--measure",
        Parameter::MissingPolicy => "--missing-policy",
        Parameter::Bins => "--bins",
        Parameter::CorrelatedColumns => "--columns",
        Parameter::FocusedAttribute => "--build-hierarchy",
        Parameter::MinRecords => "--min-records",
        Parameter::Column => "--column",
        Parameter::IntervalWidth => "--intervals",
        Parameter::Fanout => "--fanout",
        Parameter::Quantiles => "--quantiles",
        Parameter::GroupSize => "--group-by-frequency",
        Parameter::Mapping => "--mapping",
        Parameter::Output => "--output",
        Parameter::ChartSize => "--width/--height",
        Parameter::Engine => "--engine",
        Parameter::ClusterAddress => "--cluster/--scheduler",
        Parameter::Host => "--bind",
        Parameter::TokenFile => "--token-file/--cluster-token-file",
        Parameter::DataRoot => "--data-root",
        Parameter::WorkDir => "--work-dir",
        Parameter::Recode => "--top-code/--bottom-code/--round",
    }
    .to_string()
}

/// An error as the CLI prints it: anyhow's chain as `{:#}` writes it
/// (causes joined by ": "), with each library error's setting or parameter
/// named by its flag ([`remedy`], [`flag`]).
pub fn error_message(e: &anyhow::Error) -> String {
    e.chain()
        .map(|cause| match cause.downcast_ref::<anonlab::Error>() {
            Some(e) => e.message_with(remedy, flag),
            None => cause.to_string(),
        })
        .collect::<Vec<_>>()
        .join(": ")
}

#[derive(Debug, Parser)]
#[command(
    name = "anonlab",
    version,
    about = "Privacy risk assessment of tabular microdata",
    long_about = "Privacy risk assessment of tabular microdata.\n\nWith no command, opens the terminal UI on an embedded demo dataset."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Assess re-identification risk and privacy models of a CSV file.
    Assess(Box<assess::AssessArgs>),
    /// Anonymize with one algorithm; verify the release, then write it.
    #[command(after_help = algorithms_help())]
    Anonymize(Box<anonymize::AnonymizeArgs>),
    /// Run several algorithms and parameters side by side.
    #[command(after_help = algorithms_help())]
    Compare(Box<compare::CompareArgs>),
    /// Draw a risk or utility chart as SVG or PNG (the extension chooses).
    Chart(Box<chart::ChartArgs>),
    /// Write a report for stakeholders (HTML, Markdown, JSON, charts) from a project.
    Report(Box<report::ReportArgs>),
    /// Open the terminal UI on a file, a project, or the demo.
    Tui(Box<TuiArgs>),
    /// Build generalization hierarchies from the data, or inspect one.
    Hierarchy(Box<hierarchy::HierarchyArgs>),
    /// Correlation matrix of the attributes (φ², Cramér's V, Pearson, mutual information).
    Correlate(Box<correlate::CorrelateArgs>),
    /// Write a synthetic census-like dataset (or the demo) for tests and benchmarks.
    Synth(synth::SynthArgs),
    /// Run a cluster's scheduler or executor (Apache Ballista), for
    /// `assess --cluster`.
    Cluster(Box<cluster::ClusterArgs>),
}

#[derive(Debug, Args)]
pub struct TuiArgs {
    /// CSV file to open (the embedded demo when omitted).
    pub file: Option<PathBuf>,
    /// Open a saved project instead of a bare file.
    #[arg(long, conflicts_with = "file")]
    pub project: Option<PathBuf>,
    /// Quasi-identifiers, in the order the attacker learns them.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "COLS",
        conflicts_with = "project"
    )]
    pub qi: Vec<String>,
    /// Sensitive attributes.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "COLS",
        conflicts_with = "project"
    )]
    pub sensitive: Vec<String>,
    /// Semi-sensitive attributes: some cells sensitive, the rest quasi-identifying.
    #[arg(
        long = "semi-sensitive",
        value_delimiter = ',',
        value_name = "COLS",
        conflicts_with = "project"
    )]
    pub semi_sensitive: Vec<String>,
    /// Identifiers (never published).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "COLS",
        conflicts_with = "project"
    )]
    pub identifier: Vec<String>,
    /// Where the file is read: `memory` loads it whole (every screen and
    /// algorithm, roles changed at will); `datafusion` has the embedded
    /// query engine (Apache DataFusion) stream it and build the frequency
    /// table of the columns given a role with --qi, --sensitive and
    /// --semi-sensitive, and the screens work on that table, in memory
    /// that follows its combinations, not the file's records. Roles must
    /// be given up front: only those columns are in the table, so another
    /// column cannot be given a role later. The Data screen then pages a
    /// sample (the file's first records) and says so; the algorithms that
    /// run on a table (mondrian, mondrian-l, mondrian-distinct-l,
    /// full-domain) are offered, the others shown unavailable; `:write`
    /// publishes by a second pass over the file. `auto` takes the engine
    /// for a plain CSV, Parquet or Arrow file over 1 GiB.
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: assess::Engine,
    #[command(flatten)]
    pub csv: CsvArgs,
}

/// How to read the data file.
#[derive(Debug, Args, Clone, Default)]
pub struct CsvArgs {
    /// How the data file is stored: csv, csv.gz, csv.zst, parquet or arrow
    /// (by its extension, else its first bytes, when omitted).
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    pub format: Option<anonlab::data::InputFormat>,
    /// Field delimiter; sniffed among , ; tab | when omitted. Use 'tab' for a tab.
    #[arg(long, value_name = "CHAR")]
    pub delimiter: Option<String>,
    /// Values read as missing (default: empty, ?, NA).
    #[arg(long, value_delimiter = ',', value_name = "TOKENS")]
    pub missing: Option<Vec<String>>,
    /// Columns to read as numbers (detected when omitted).
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub numeric: Vec<String>,
    /// Columns to read as categories even if they look numeric (e.g. zip codes).
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub categorical: Vec<String>,
    /// Refuse a field longer than this many bytes (default 1 MiB).
    #[arg(long, value_name = "BYTES")]
    pub max_field_bytes: Option<usize>,
    /// Refuse a row longer than this many bytes (default 16 MiB).
    #[arg(long, value_name = "BYTES")]
    pub max_row_bytes: Option<u64>,
    /// Refuse more columns than this (default 10,000).
    #[arg(long, value_name = "N")]
    pub max_columns: Option<usize>,
    /// Refuse a file larger than this many bytes (default 2 GiB).
    #[arg(long, value_name = "BYTES")]
    pub max_file_bytes: Option<u64>,
}

impl CsvArgs {
    pub fn options(&self) -> anyhow::Result<anonlab::data::CsvOptions> {
        let mut o = anonlab::data::CsvOptions {
            format: self.format,
            ..anonlab::data::CsvOptions::default()
        };
        if let Some(d) = &self.delimiter {
            o.delimiter = Some(match d.as_str() {
                "tab" | "\\t" | "\t" => '\t',
                s if s.chars().count() == 1 => s.chars().next().unwrap_or(','),
                s => anyhow::bail!("--delimiter takes one character (or 'tab'), not '{s}'"),
            });
        }
        if let Some(m) = &self.missing {
            o.missing = m.clone();
        }
        o.numeric = self.numeric.clone();
        o.categorical = self.categorical.clone();
        if let Some(n) = self.max_field_bytes {
            o.max_field_bytes = n;
        }
        if let Some(n) = self.max_row_bytes {
            o.max_row_bytes = n;
        }
        if let Some(n) = self.max_columns {
            o.max_columns = n;
        }
        if let Some(n) = self.max_file_bytes {
            o.max_file_bytes = n;
        }
        Ok(o)
    }
}

fn parse_format(s: &str) -> Result<anonlab::data::InputFormat, String> {
    s.parse()
}

/// The temporary files of this process's writes in progress, which the
/// binary's SIGINT/SIGTERM/SIGHUP handler removes (main.rs). Process state
/// by nature — a signal handler can find them no other way — so it lives
/// here in the front end, not in the library, and reaches every write
/// through the command's [`anonlab::data::Inputs`] ([`inputs`]).
pub static TEMPORARIES: std::sync::LazyLock<anonlab::data::Temporaries> =
    std::sync::LazyLock::new(anonlab::data::Temporaries::new);

/// The inputs of a command (none yet), its writes tracked for the signal
/// handler: every CLI write starts here or at [`inputs_of`].
pub fn inputs() -> anonlab::data::Inputs {
    anonlab::data::Inputs::new().tracked_by(&TEMPORARIES)
}

/// The files a command built on `session` reads: the session's data and
/// hierarchy files, the project file it came from, and `more` (hierarchy,
/// conditions and mapping files the flags name). No output may replace one.
pub fn inputs_of(
    session: &anonlab::session::Session,
    project: Option<&std::path::Path>,
    more: impl IntoIterator<Item = PathBuf>,
) -> anonlab::data::Inputs {
    let mut inputs = session.inputs().tracked_by(&TEMPORARIES);
    if let Some(p) = project {
        inputs.add(p);
    }
    for f in more {
        inputs.add(&f);
    }
    inputs
}

/// `--threshold T` of every command: a probability, in [0, 1].
pub(crate) fn threshold(t: f64) -> anyhow::Result<f64> {
    if !(0.0..=1.0).contains(&t) {
        anyhow::bail!("--threshold {t} is not between 0 and 1");
    }
    Ok(t)
}

/// `12345` → `12,345`: figures a person reads.
pub fn thousands(n: usize) -> String {
    anonlab::format::thousands(n as u64)
}

/// The session of a project: through the query engine's frequency table
/// when it was saved from a grouped session (the engine is
/// `anonlab-scale`'s), else read in memory.
#[cfg(feature = "engine")]
pub(crate) fn open_project(
    project: &anonlab::data::Project,
) -> anonlab::Result<anonlab::session::Session> {
    anonlab_scale::grouped::open_any_project(project)
}

/// Without the query engine a grouped project is refused by the core,
/// saying how to read its file whole.
#[cfg(not(feature = "engine"))]
pub(crate) fn open_project(
    project: &anonlab::data::Project,
) -> anonlab::Result<anonlab::session::Session> {
    anonlab::session::Session::from_project(project)
}

/// Open a data file given on the command line, for `roles` (which the
/// caller applies, naming the file in its messages): wherever the source
/// says it is read, by `anonlab-scale` in a build with the query engine,
/// else in memory by the core (which refuses a source only the engine
/// reads). Every command and the TUI open their file here.
#[cfg(feature = "engine")]
pub(crate) fn open(
    source: &anonlab::session::Source,
    roles: &anonlab::session::RoleSpec,
) -> anonlab::Result<anonlab::session::Opened> {
    anonlab_scale::source::open(source, roles)
}

#[cfg(not(feature = "engine"))]
pub(crate) fn open(
    source: &anonlab::session::Source,
    _roles: &anonlab::session::RoleSpec,
) -> anonlab::Result<anonlab::session::Opened> {
    source.open().map(anonlab::session::Opened::in_memory)
}

/// Check cheaply, before a front end takes the terminal, that the
/// columns `roles` names are the file's when the query engine reads it
/// (`anonlab_scale::source::check`); the in-memory path reads the file
/// when it opens it.
#[cfg(all(feature = "tui", feature = "engine"))]
pub(crate) fn check_columns(
    source: &anonlab::session::Source,
    roles: &anonlab::session::RoleSpec,
) -> anonlab::Result<()> {
    anonlab_scale::source::check(source, roles)
}

#[cfg(all(feature = "tui", not(feature = "engine")))]
pub(crate) fn check_columns(
    _: &anonlab::session::Source,
    _: &anonlab::session::RoleSpec,
) -> anonlab::Result<()> {
    Ok(())
}

/// Whether this build reads files with the query engine
/// (`Source::reads_by_engine`'s question).
pub(crate) const ENGINE_BUILT: bool = cfg!(feature = "engine");

/// The source of `file` as the flags say: how it is read (`csv`), and
/// where: `--cluster` is the engine on other machines (refused with
/// `--engine memory`), else `--engine`.
pub(crate) fn source(
    file: &std::path::Path,
    csv: &CsvArgs,
    engine: assess::Engine,
    cluster: Option<&cluster::ClusterClientArgs>,
) -> anyhow::Result<anonlab::session::Source> {
    use anonlab::session::{Engine, Source};
    let on_cluster = match cluster {
        Some(c) => c.spec()?,
        None => None,
    };
    let engine = match (on_cluster, engine) {
        (Some(_), assess::Engine::Memory) => anyhow::bail!("--cluster builds the frequency table on the cluster, and --engine memory reads the file here; give one of them"),
        (Some(spec), _) => Engine::Cluster(spec),
        (None, assess::Engine::Auto) => Engine::Auto,
        (None, assess::Engine::Memory) => Engine::Memory,
        (None, assess::Engine::Datafusion) => Engine::DataFusion,
    };
    Ok(Source::file(file, csv.options()?).with_engine(engine))
}

/// The algorithms `-a` takes, from the registry with what each reads
/// (`Algorithm::needs`), for `anonymize --help`.
fn algorithms_help() -> String {
    format!(
        "Algorithms (-a ID), with the parameters and inputs each reads:\n{}",
        anonlab::algorithms::listing()
    )
}
