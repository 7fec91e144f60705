//! The `:` command line: a parser from text to [`Command`] and the line
//! editor shared with `/` search.
//!
//! Parsing checks what it can without the data (numbers, ranges, names);
//! the app checks the rest (k against the rows) when it runs the command.
//! Every error is a message naming the bad value, shown in the status bar.
//!
//! [`COMMANDS`] is the one table of commands: the parser finds a name or
//! alias there, Tab completes names and arguments from it ([`complete`]),
//! and the help page lists it. To add a command: add a variant to
//! [`Command`], one entry to [`COMMANDS`] and one arm to [`parse`]
//! (marked below), and run it in `App::run_command`.

use std::path::PathBuf;

use tui_input::{Input, InputRequest};

use super::keymap::Action;
use super::session::AlgorithmChoice;
use super::shared::MAX_L;
use super::theme::Theme;
use anonlab::data::IndividualMethod;
use anonlab::privacy::Model;
use anonlab::release::Convention;

/// A command of the `:` line.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    K(u32),
    L(u32),
    P(u32),
    Seed(u64),
    /// An algorithm id of [`AlgorithmChoice::all`].
    Algo(&'static str),
    /// Run the screen's computation again.
    Run,
    /// Save the project, to this path from now on when given.
    Save(Option<PathBuf>),
    Theme(Theme),
    Mouse(bool),
    Quit,
    Help,
    /// `:compare add|remove|run`: the Compare screen's set.
    Compare(CompareCommand),
    /// Write the chart in view, to this file (.svg or .png) when given.
    ExportChart(Option<PathBuf>),
    /// Write the report, into this directory when given.
    ExportReport(Option<PathBuf>, anonlab::report::Audience),
    /// `:sweep`: the Anonymize screen with its k/l sweep open.
    Sweep,
    /// `:lattice`: the Anonymize screen with full-domain's lattice open.
    Lattice,
    /// `:node L1,L2,...|optimum`: the full-domain node to publish.
    Node(Option<Vec<usize>>),
    /// `:conditions FILE`: Construction(D, G)'s conditions file.
    Conditions(PathBuf),
    /// `:model NAME [VALUE]`: full-domain's privacy model besides k, and
    /// the one parameter it reads when it reads one beside l and p (t, c,
    /// α, δ or β).
    Model(&'static str, Option<f64>),
    /// `:population N|F|off`: the file as a sample of a population.
    Population(PopulationCommand),
    /// `:weights COL [approx|exact]|off`: sdcMicro's individual risk.
    Weights(Option<(String, IndividualMethod)>),
    /// `:suda M|off`: minimal sample uniques of at most M attributes.
    Suda(Option<usize>),
    /// `:attributes on|off`: the attribute risks of every combination.
    AttributeRisks(bool),
    /// `:household COL|off`: household risk over the households in COL.
    Household(Option<String>),
    /// `:risky M [T]|off`: μ-ARGUS's threshold rule, combinations of up
    /// to M attributes, cells of at most T records.
    RiskyCells(Option<(usize, u64)>),
    /// `:open PATH`: a CSV file or a project (.json) in place of the
    /// session; without a path, the picker of recent files and the
    /// project's folder.
    Open(Option<PathBuf>),
    /// `:hierarchies PATH`: import a folder of `*hierarchy_<column>.csv`
    /// files (previewed first) or one such file.
    Hierarchies(PathBuf),
    /// `:filter [RULE]`: the Data screen shows the rows the rule keeps (no
    /// rule: every row).
    Filter(Option<String>),
    /// `:write [PATH]`: the verified release as `anonlab anonymize -o`
    /// writes it.
    Write(Option<PathBuf>),
    /// `:importance COL,COL,...|default`: local suppression's key
    /// variables from the most important (suppressed last) to the least;
    /// empty: the default ranking.
    Importance(Vec<String>),
    /// `:combs M[,M...]|off`: local suppression's all-m subsets.
    Combs(Vec<u32>),
    /// `:missing any|own`: what local suppression's `*` matches.
    MissingMatches(Convention),
    /// `:strata COL|off`: the stratum column of the algorithm in view
    /// (local suppression's, or a perturbation's).
    Strata(Option<String>),
    /// `:perturb COL,COL,...|off`: microaggregation's numeric attributes.
    Perturb(Vec<String>),
    /// `:aggregation mean|median [WEIGHTS]`: what replaces a
    /// microaggregation group's values, weighted by a sampling-weight
    /// column when one is named.
    Aggregation(String, Option<String>),
    /// `:pd`, `:pram-alpha`, `:noise`, `:noise-delta`, `:swap-p`: one
    /// number of a perturbation, in its range.
    Perturbation(PerturbationParam, f64),
    /// `:matrix COL=FILE|COL=off`: PRAM's transition matrix of COL read
    /// from a file, or built again from pd and alpha.
    Matrix(String, Option<PathBuf>),
}

/// A perturbation's number set from the `:` line: the CLI's flag of the
/// same name, the same range (the algorithms check it again when they run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerturbationParam {
    /// PRAM's least diagonal, in [0, 1].
    Pd,
    /// PRAM's alpha, in [0, 1].
    PramAlpha,
    /// Additive noise, in percent of the standard deviation, ≥ 0.
    Noise,
    /// correlated2's δ, in (0, 1].
    NoiseDelta,
    /// Rank swapping's p, in percent, in [0, 100].
    SwapP,
}

impl PerturbationParam {
    pub const ALL: [PerturbationParam; 5] = [
        PerturbationParam::Pd,
        PerturbationParam::PramAlpha,
        PerturbationParam::Noise,
        PerturbationParam::NoiseDelta,
        PerturbationParam::SwapP,
    ];

    /// The command's (and the CLI flag's) name.
    pub fn name(self) -> &'static str {
        match self {
            PerturbationParam::Pd => "pd",
            PerturbationParam::PramAlpha => "pram-alpha",
            PerturbationParam::Noise => "noise",
            PerturbationParam::NoiseDelta => "noise-delta",
            PerturbationParam::SwapP => "swap-p",
        }
    }

    /// The algorithm that reads it.
    pub fn algorithm(self) -> &'static str {
        match self {
            PerturbationParam::Pd | PerturbationParam::PramAlpha => "pram",
            PerturbationParam::Noise => "noise-additive",
            PerturbationParam::NoiseDelta => "noise-correlated2",
            PerturbationParam::SwapP => "rank-swap",
        }
    }

    /// `v` when it is in range, or a message saying the range.
    fn check(self, v: f64) -> Result<f64, String> {
        let ok = v.is_finite()
            && match self {
                PerturbationParam::Pd | PerturbationParam::PramAlpha => (0.0..=1.0).contains(&v),
                PerturbationParam::Noise => v >= 0.0,
                PerturbationParam::NoiseDelta => v > 0.0 && v <= 1.0,
                PerturbationParam::SwapP => (0.0..=100.0).contains(&v),
            };
        if ok {
            return Ok(v);
        }
        let range = match self {
            PerturbationParam::Pd | PerturbationParam::PramAlpha => "in [0, 1]",
            PerturbationParam::Noise => "a percentage of the standard deviation, 0 or more",
            PerturbationParam::NoiseDelta => "in (0, 1]",
            PerturbationParam::SwapP => "a percentage in [0, 100]",
        };
        Err(format!(":{} {v}: it must be {range}", self.name()))
    }
}

/// What `:population` sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PopulationCommand {
    /// People in the population.
    Size(u64),
    /// The file's share of the population, in (0, 1].
    Fraction(f64),
    /// The file is the population: no population model.
    Off,
}

// `f64` in `PopulationCommand`: parsed values are finite.
impl Eq for PopulationCommand {}

/// What `:compare` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareCommand {
    /// Add the Anonymize screen's algorithm and parameters.
    Add,
    /// Remove the Compare screen's selected entry.
    Remove,
    /// Run the entries whose inputs changed.
    Run,
}

/// What Tab offers for a command's argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// No argument, or a number: nothing to offer.
    Nothing,
    /// A path, completed from the files of its folder.
    Path,
    /// One of these words.
    Words(&'static [&'static str]),
    /// One of these words, then a path (`:export chart PATH`).
    WordThenPath(&'static [&'static str]),
    /// An algorithm id of the session's registry.
    Algorithm,
    /// A privacy model's name.
    Model,
    /// A column of the data, or one of these words (`:weights COL|off`);
    /// any word of the line (a `:filter` rule names columns anywhere).
    Column(&'static [&'static str]),
}

/// One command of the `:` line: the one table the parser (names and
/// aliases), Tab (names and arguments) and the help page read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandSpec {
    /// What the user types after `:` (and the help shows).
    pub name: &'static str,
    /// Other names the parser takes (`:w` for `:save`); Tab offers only
    /// the name.
    pub aliases: &'static [&'static str],
    /// The arguments as the help shows them.
    pub args: &'static str,
    pub help: &'static str,
    pub arg: Arg,
}

impl CommandSpec {
    /// The command as the help page lists it: `:name ARGS`.
    pub fn usage(&self) -> String {
        if self.args.is_empty() {
            format!(":{}", self.name)
        } else {
            format!(":{} {}", self.name, self.args)
        }
    }
}

/// The command named `word` (its name or an alias).
pub fn find(word: &str) -> Option<&'static CommandSpec> {
    COMMANDS
        .iter()
        .find(|c| c.name == word || c.aliases.contains(&word))
}

const fn cmd(
    name: &'static str,
    aliases: &'static [&'static str],
    args: &'static str,
    arg: Arg,
    help: &'static str,
) -> CommandSpec {
    CommandSpec {
        name,
        aliases,
        args,
        help,
        arg,
    }
}

const ON_OFF: &[&str] = &["on", "off"];

/// Every command of the `:` line, in help order.
pub const COMMANDS: &[CommandSpec] = &[
    cmd("k", &[], "N", Arg::Nothing, "set k"),
    cmd("l", &[], "N", Arg::Nothing, "set l"),
    cmd("p", &[], "N", Arg::Nothing, "set p (p-sensitive algorithms)"),
    cmd("seed", &[], "N", Arg::Nothing, "set the algorithms' seed"),
    cmd("algo", &["algorithm"], "ID", Arg::Algorithm, "choose the algorithm"),
    cmd("run", &[], "", Arg::Nothing, "run the screen's computation again"),
    cmd(
        "save",
        &["w"],
        "[PATH]",
        Arg::Path,
        "save the project (to PATH from now on)",
    ),
    cmd(
        "theme",
        &[],
        "dark|light|mono",
        Arg::Words(&["dark", "light", "mono"]),
        "switch colours",
    ),
    cmd("mouse", &[], "on|off", Arg::Words(ON_OFF), "mouse clicks and wheel"),
    cmd(
        "open",
        &["e", "o"],
        "[PATH]",
        Arg::Path,
        "open a CSV file or a project (.json) in place of the session; no PATH: recent files and the project's folder",
    ),
    cmd(
        "hierarchies",
        &["hier"],
        "PATH",
        Arg::Path,
        "import a folder of ARX '*hierarchy_<column>.csv' files (preview, then Enter binds) or one file",
    ),
    cmd(
        "filter",
        &[],
        "[RULE]",
        Arg::Column(&[]),
        "Data screen: only the rows a rule keeps (age>=60 and sex=Female); no rule shows all",
    ),
    cmd(
        "write",
        &[],
        "[PATH]",
        Arg::Path,
        "write the verified release as anonymize -o does: table, buckets, JSON (default anonlab-release/release.csv)",
    ),
    cmd("quit", &["q"], "", Arg::Nothing, "quit"),
    cmd("help", &["h"], "", Arg::Nothing, "show the keys and commands"),
    cmd(
        "compare",
        &[],
        "add|remove|run",
        Arg::Words(&["add", "remove", "run"]),
        "compare set: add the algorithm and parameters, remove the selected entry, run",
    ),
    cmd(
        "export",
        &[],
        "chart|report [PATH]",
        Arg::WordThenPath(&["chart", "report"]),
        "write the chart in view (PATH: .svg or .png) or the report (default anonlab-report/)",
    ),
    cmd("sweep", &[], "", Arg::Nothing, "open the k/l sweep of the Anonymize screen"),
    cmd(
        "lattice",
        &[],
        "",
        Arg::Nothing,
        "open full-domain's lattice on the Anonymize screen",
    ),
    cmd(
        "node",
        &[],
        "L1,L2,...|optimum",
        Arg::Words(&["optimum"]),
        "full-domain: publish that node (a level per QI) instead of the optimum",
    ),
    cmd(
        "conditions",
        &["G"],
        "FILE",
        Arg::Path,
        "Construction(D, G): read its conditions file (G.json) and show its rules",
    ),
    cmd(
        "model",
        &[],
        "NAME [VALUE]",
        Arg::Model,
        "full-domain's privacy model besides k, and its t, c, α, δ or β",
    ),
    cmd(
        "population",
        &["pop"],
        "N|F|off",
        Arg::Words(&["off"]),
        "the file is a sample of N people (or the share F < 1 of them): journalist, marketer, population uniqueness",
    ),
    cmd(
        "weights",
        &[],
        "COL [approx|exact]|off",
        Arg::Column(&["off"]),
        "sampling weights in COL: individual risk (approx or exact)",
    ),
    cmd(
        "suda",
        &[],
        "M|off",
        Arg::Words(&["off"]),
        "special uniques (SUDA2) of up to M attributes",
    ),
    cmd(
        "household",
        &[],
        "COL|off",
        Arg::Column(&["off"]),
        "households in COL: household risk 1 − ∏(1 − r) of its members' risks",
    ),
    cmd(
        "risky",
        &[],
        "M [T]|off",
        Arg::Words(&["off"]),
        "threshold rule: cells of up to M attributes held by at most T records (1)",
    ),
    cmd(
        "attributes",
        &[],
        "on|off",
        Arg::Words(ON_OFF),
        "which attribute combinations make people unique (chart: m)",
    ),
    cmd(
        "importance",
        &[],
        "COL,COL,...|default",
        Arg::Column(&["default"]),
        "local suppression: every QI, most important (suppressed last) first",
    ),
    cmd(
        "combs",
        &[],
        "M[,M...]|off",
        Arg::Words(&["off"]),
        "local suppression: k-anonymity on every subset of M QIs first",
    ),
    cmd(
        "missing",
        &["missing-matches"],
        "any|own",
        Arg::Words(&["any", "own"]),
        "local suppression: a * (suppressed or missing) matches any value, or only *",
    ),
    cmd(
        "strata",
        &[],
        "COL|off",
        Arg::Column(&["off"]),
        "local suppression or a perturbation (the algorithm in view): within each value of COL",
    ),
    cmd(
        "perturb",
        &[],
        "COL[,COL...]|off",
        Arg::Column(&["off"]),
        "microaggregation (mdav, optimal-univariate): the numeric attributes to perturb",
    ),
    cmd(
        "aggregation",
        &[],
        "mean|median [WEIGHTS]",
        Arg::Words(&["mean", "median"]),
        "microaggregation: each group's values replaced by their mean or median, weighted by the column WEIGHTS when named",
    ),
    cmd(
        "pd",
        &[],
        "P",
        Arg::Nothing,
        "PRAM: the least diagonal entry of the transition matrices drawn (0.8)",
    ),
    cmd(
        "pram-alpha",
        &[],
        "A",
        Arg::Nothing,
        "PRAM: how much of the invariant matrix is mixed with the identity (0.5)",
    ),
    cmd(
        "matrix",
        &[],
        "COL=FILE|COL=off",
        Arg::Column(&[]),
        "PRAM: COL's transition matrix from a CSV file, or drawn from pd and alpha",
    ),
    cmd(
        "noise",
        &[],
        "PERCENT",
        Arg::Nothing,
        "noise-additive: noise in percent of each attribute's standard deviation (150)",
    ),
    cmd(
        "noise-delta",
        &[],
        "D",
        Arg::Nothing,
        "noise-correlated2: sdcMicro's delta in (0, 1] (0.1)",
    ),
    cmd(
        "swap-p",
        &[],
        "P",
        Arg::Nothing,
        "rank-swap: values exchanged between records fewer than P percent of the ranks apart (5)",
    ),
];

/// Parse one command line (without the leading `:`).
pub fn parse(line: &str, algorithms: &[AlgorithmChoice]) -> Result<Command, String> {
    let mut words = line.split_whitespace();
    let Some(name) = words.next() else {
        return Err("empty command; :help lists them".into());
    };
    let args: Vec<&str> = words.collect();
    let one = |what: &str| -> Result<&str, String> {
        match args.as_slice() {
            [a] => Ok(*a),
            [] => Err(format!(":{name} needs {what}")),
            _ => Err(format!(
                ":{name} takes one {what}, got '{}'",
                args.join(" ")
            )),
        }
    };
    let none = || -> Result<(), String> {
        if args.is_empty() {
            Ok(())
        } else {
            Err(format!(
                ":{name} takes no argument, got '{}'",
                args.join(" ")
            ))
        }
    };
    let Some(spec) = find(name) else {
        return Err(format!("unknown command ':{name}'; :help lists them"));
    };
    let command = match spec.name {
        "k" => Command::K(number(name, one("a number")?, 1, u32::MAX)?),
        "l" => Command::L(number(name, one("a number")?, 1, MAX_L)?),
        "p" => Command::P(number(name, one("a number")?, 1, MAX_L)?),
        "seed" => {
            let v = one("a number")?;
            Command::Seed(
                v.parse()
                    .map_err(|_| format!(":seed: '{v}' is not a whole number ≥ 0"))?,
            )
        }
        "algo" => {
            let id = one("an algorithm id")?;
            match algorithms.iter().find(|a| a.id.eq_ignore_ascii_case(id)) {
                Some(a) => Command::Algo(a.id),
                None => {
                    let ids: Vec<&str> = algorithms.iter().map(|a| a.id).collect();
                    return Err(format!(
                        "unknown algorithm '{id}'; one of: {}",
                        ids.join(", ")
                    ));
                }
            }
        }
        "run" => none().map(|()| Command::Run)?,
        "save" => match args.as_slice() {
            [] => Command::Save(None),
            _ => Command::Save(Some(PathBuf::from(args.join(" ")))),
        },
        "theme" => {
            let t = one("dark, light or mono")?;
            Command::Theme(
                Theme::parse(t)
                    .ok_or_else(|| format!("unknown theme '{t}'; one of: dark, light, mono"))?,
            )
        }
        "mouse" => match one("on or off")? {
            "on" => Command::Mouse(true),
            "off" => Command::Mouse(false),
            other => return Err(format!(":mouse: '{other}' is neither on nor off")),
        },
        "quit" => none().map(|()| Command::Quit)?,
        "help" => Command::Help,
        "export" => {
            let path = (args.len() > 1).then(|| PathBuf::from(args[1..].join(" ")));
            match args.first().copied() {
                Some("chart") => Command::ExportChart(path),
                Some("report") => Command::ExportReport(path, anonlab::report::Audience::Internal),
                Some("report-external") => {
                    Command::ExportReport(path, anonlab::report::Audience::External)
                }
                _ => return Err(
                    ":export chart [PATH], :export report [DIR] or :export report-external [DIR]"
                        .into(),
                ),
            }
        }
        "compare" => Command::Compare(match one("add, remove or run")? {
            "add" => CompareCommand::Add,
            "remove" | "rm" => CompareCommand::Remove,
            "run" => CompareCommand::Run,
            other => return Err(format!(":compare: '{other}' is not add, remove or run")),
        }),
        "sweep" => none().map(|()| Command::Sweep)?,
        "lattice" => none().map(|()| Command::Lattice)?,
        "node" => match args.as_slice() {
            [] | ["optimum"] => Command::Node(None),
            _ => Command::Node(Some(
                args.join(",")
                    .split(',')
                    .filter(|w| !w.trim().is_empty())
                    .map(|w| {
                        w.trim().parse::<usize>().map_err(|_| {
                            format!(":node: '{w}' is not a level (a whole number ≥ 0)")
                        })
                    })
                    .collect::<Result<_, _>>()?,
            )),
        },
        "conditions" => match args.as_slice() {
            [] => return Err(":conditions needs the path of a conditions file (G.json)".into()),
            _ => Command::Conditions(PathBuf::from(args.join(" "))),
        },
        "model" => {
            let (name, value) = match args.as_slice() {
                [name] => (*name, None),
                [name, value] => (
                    *name,
                    Some(
                        value
                            .parse::<f64>()
                            .ok()
                            .filter(|v| v.is_finite())
                            .ok_or_else(|| format!("'{value}' is not a number"))?,
                    ),
                ),
                _ => return Err(":model needs a model name, and optionally its parameter".into()),
            };
            match Model::NAMES.iter().find(|x| **x == name) {
                Some(x) => Command::Model(x, value),
                None => {
                    return Err(format!(
                        "unknown model '{name}'; one of: {}",
                        Model::NAMES.join(", ")
                    ))
                }
            }
        }
        "population" => Command::Population(population(one("N, F or off")?)?),
        "weights" => match args.as_slice() {
            ["off"] => Command::Weights(None),
            [col] => Command::Weights(Some((col.to_string(), IndividualMethod::Approx))),
            [col, m] => Command::Weights(Some((
                col.to_string(),
                match *m {
                    "approx" => IndividualMethod::Approx,
                    "exact" => IndividualMethod::Exact,
                    other => {
                        return Err(format!(
                            ":weights: method '{other}' is neither approx nor exact"
                        ))
                    }
                },
            ))),
            _ => return Err(":weights needs a column (and approx or exact), or off".into()),
        },
        "suda" => match one("a size or off")? {
            "off" => Command::Suda(None),
            m => Command::Suda(Some(number(name, m, 1, MAX_MSU_SIZE)? as usize)),
        },
        "household" => match one("a column or off")? {
            "off" => Command::Household(None),
            col => Command::Household(Some(col.to_string())),
        },
        "risky" => match args.as_slice() {
            ["off"] => Command::RiskyCells(None),
            [m] => Command::RiskyCells(Some((number(name, m, 1, MAX_MSU_SIZE)? as usize, 1))),
            [m, t] => Command::RiskyCells(Some((
                number(name, m, 1, MAX_MSU_SIZE)? as usize,
                u64::from(number(name, t, 1, u32::MAX)?),
            ))),
            _ => return Err(":risky needs M (and T), or off".into()),
        },
        "attributes" => match one("on or off")? {
            "on" => Command::AttributeRisks(true),
            "off" => Command::AttributeRisks(false),
            other => return Err(format!(":attributes takes on or off, got '{other}'")),
        },
        "hierarchies" => match args.as_slice() {
            [] => {
                return Err(":hierarchies needs a folder of '*hierarchy_<column>.csv' files".into())
            }
            _ => Command::Hierarchies(PathBuf::from(args.join(" "))),
        },
        "filter" => {
            let rule = args.join(" ");
            Command::Filter((!rule.trim().is_empty()).then_some(rule))
        }
        "write" => match args.as_slice() {
            [] => Command::Write(None),
            _ => Command::Write(Some(PathBuf::from(args.join(" ")))),
        },
        "open" => match args.as_slice() {
            [] => Command::Open(None),
            _ => Command::Open(Some(PathBuf::from(args.join(" ")))),
        },
        "importance" => match args.as_slice() {
            [] => return Err(":importance needs the QIs, most important first, or default".into()),
            ["default"] => Command::Importance(Vec::new()),
            _ => Command::Importance(list(&args).map(str::to_string).collect()),
        },
        "combs" => match args.as_slice() {
            [] => return Err(":combs needs subset sizes (2 or 3,2), or off".into()),
            ["off"] => Command::Combs(Vec::new()),
            _ => Command::Combs(
                list(&args)
                    .map(|m| {
                        number(
                            name,
                            m,
                            1,
                            anonlab::algorithms::local_suppression::MAX_KEYS as u32,
                        )
                    })
                    .collect::<Result<_, _>>()?,
            ),
        },
        "missing" => Command::MissingMatches(match one("any or own")? {
            "any" => Convention::AnyValue,
            "own" => Convention::OwnValue,
            other => {
                return Err(format!(
                    ":missing: '{other}' is neither any (a * matches any value) nor own (only *)"
                ))
            }
        }),
        "strata" => match one("a column or off")? {
            "off" => Command::Strata(None),
            col => Command::Strata(Some(col.to_string())),
        },
        "perturb" => match args.as_slice() {
            [] => return Err(":perturb needs the numeric attributes to perturb, or off".into()),
            ["off"] => Command::Perturb(Vec::new()),
            _ => Command::Perturb(list(&args).map(str::to_string).collect()),
        },
        "aggregation" => {
            let (how, weights) = match args.as_slice() {
                [a] => (*a, None),
                [a, w] => (*a, Some(w.to_string())),
                [] => return Err(":aggregation needs mean or median".into()),
                _ => {
                    return Err(format!(
                        ":aggregation takes mean or median and a weight column, got '{}'",
                        args.join(" ")
                    ))
                }
            };
            match how {
                "mean" | "median" => Command::Aggregation(how.to_string(), weights),
                other => {
                    return Err(format!(
                        ":aggregation: '{other}' is neither mean nor median"
                    ))
                }
            }
        }
        "pd" | "pram-alpha" | "noise" | "noise-delta" | "swap-p" => {
            let which = PerturbationParam::ALL
                .into_iter()
                .find(|w| w.name() == spec.name)
                .ok_or_else(|| format!(":{name} is not a perturbation's number"))?;
            let v = one("a number")?;
            let x: f64 = v
                .parse()
                .map_err(|_| format!(":{name}: '{v}' is not a number"))?;
            Command::Perturbation(which, which.check(x)?)
        }
        "matrix" => {
            let v = one("COL=FILE or COL=off")?;
            let Some((col, file)) = v.split_once('=') else {
                return Err(format!(":matrix {v}: give COL=FILE, or COL=off"));
            };
            let (col, file) = (col.trim(), file.trim());
            if col.is_empty() || file.is_empty() {
                return Err(format!(":matrix {v}: give COL=FILE, or COL=off"));
            }
            Command::Matrix(
                col.to_string(),
                (file != "off").then(|| PathBuf::from(file)),
            )
        }
        // More commands: one arm above this line (a test parses every
        // entry of the table).
        other => return Err(format!(":{other} is in the command table but not parsed")),
    };
    Ok(command)
}

/// The items of a list given comma- or space-separated (`a,b c`).
fn list<'a>(args: &'a [&'a str]) -> impl Iterator<Item = &'a str> {
    args.iter()
        .flat_map(|a| a.split(','))
        .map(str::trim)
        .filter(|w| !w.is_empty())
}

/// The largest MSU size `:suda` takes (every combination of up to 12
/// attributes is already 4,095).
const MAX_MSU_SIZE: u32 = 12;

/// `:population`'s argument: a whole number ≥ 1 is the population size, a
/// number in (0, 1) the sampling fraction.
fn population(text: &str) -> Result<PopulationCommand, String> {
    if text == "off" {
        return Ok(PopulationCommand::Off);
    }
    if let Ok(n) = text.parse::<u64>() {
        if n == 0 {
            return Err(":population 0: a population has at least one person".into());
        }
        return Ok(PopulationCommand::Size(n));
    }
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() && f > 0.0 && f <= 1.0 => Ok(PopulationCommand::Fraction(f)),
        Ok(_) => Err(format!(
            ":population {text}: a sampling fraction is above 0 and at most 1 (or give the population size)"
        )),
        Err(_) => Err(format!(
            ":population: '{text}' is neither a population size, a sampling fraction nor off"
        )),
    }
}

/// `text` as a whole number in `min..=max`, or a message naming it.
fn number(name: &str, text: &str, min: u32, max: u32) -> Result<u32, String> {
    let n: u64 = text
        .parse()
        .map_err(|_| format!(":{name}: '{text}' is not a whole number"))?;
    if n < u64::from(min) || n > u64::from(max) {
        return Err(format!(
            ":{name} {text} is out of range: {name} is at least {min} and at most {max}"
        ));
    }
    Ok(n as u32)
}

/// What the line editor did with an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Still editing.
    Editing,
    /// Enter: the line to run (kept in the history).
    Submit(String),
    /// Esc: closed without running.
    Closed,
}

/// A one-line text editor with a history of the session's lines: the text
/// and its cursor are `tui_input`'s (characters, Backspace, ←/→, Home/End);
/// Enter, Esc and ↑/↓ (history) are handled here. Typing goes through the
/// dialog translation of the key map.
#[derive(Debug, Clone, Default)]
pub struct LineEditor {
    input: Option<Input>,
    history: Vec<String>,
    /// Position in `history` while browsing it with ↑/↓.
    browsing: Option<usize>,
}

impl LineEditor {
    pub fn open(&mut self) {
        self.input = Some(Input::default());
        self.browsing = None;
    }
    pub fn is_open(&self) -> bool {
        self.input.is_some()
    }
    /// The line being edited.
    pub fn text(&self) -> Option<&str> {
        self.input.as_ref().map(Input::value)
    }
    /// The cursor's cell in the line being edited.
    pub fn cursor(&self) -> Option<usize> {
        self.input.as_ref().map(Input::visual_cursor)
    }
    pub fn history(&self) -> &[String] {
        &self.history
    }
    /// Replace the line being edited (Tab completion), cursor at its end.
    pub fn set_text(&mut self, text: String) {
        if let Some(input) = self.input.as_mut() {
            *input = Input::new(text);
        }
    }

    pub fn step(&mut self, action: &Action) -> Edit {
        let Some(input) = self.input.as_mut() else {
            return Edit::Closed;
        };
        let request = match *action {
            Action::TypeChar(c) => Some(InputRequest::InsertChar(c)),
            // Backspace on an empty line closes it, as in vim.
            Action::DeleteChar if input.value().is_empty() => {
                self.input = None;
                return Edit::Closed;
            }
            Action::DeleteChar => Some(InputRequest::DeletePrevChar),
            Action::Left => Some(InputRequest::GoToPrevChar),
            Action::Right => Some(InputRequest::GoToNextChar),
            Action::RowStart => Some(InputRequest::GoToStart),
            Action::RowEnd => Some(InputRequest::GoToEnd),
            Action::Cancel => {
                self.input = None;
                return Edit::Closed;
            }
            Action::Confirm => {
                let line = self
                    .input
                    .take()
                    .map(|i| i.value().to_string())
                    .unwrap_or_default();
                if !line.trim().is_empty() && self.history.last() != Some(&line) {
                    self.history.push(line.clone());
                }
                return Edit::Submit(line);
            }
            Action::Up | Action::Down => {
                let n = self.history.len();
                let next = match (*action == Action::Up, self.browsing) {
                    (true, None) => n.checked_sub(1),
                    (true, Some(i)) => Some(i.saturating_sub(1)),
                    (false, Some(i)) if i + 1 < n => Some(i + 1),
                    (false, _) => None,
                };
                self.browsing = next;
                let text = next.map_or_else(String::new, |i| self.history[i].clone());
                *input = Input::new(text);
                None
            }
            _ => None,
        };
        if let Some(r) = request {
            input.handle(r);
        }
        Edit::Editing
    }
}

/// What Tab offers beside the table's words: the session's algorithm ids
/// and the data's column names.
#[derive(Debug, Clone, Default)]
pub struct Offers<'a> {
    pub algorithms: Vec<&'static str>,
    pub columns: Vec<&'a str>,
}

/// Tab on the command line: a command's name, or the argument being typed
/// (a path, a word of the command's, an algorithm id, a model, a column),
/// completed as far as the candidates agree. Returns the new line
/// (unchanged when nothing matches) and the candidates when more than one
/// matches (for the status bar). A unique command name gets a space after
/// it, ready for its argument.
pub fn complete(line: &str, offers: &Offers<'_>) -> (String, Vec<String>) {
    let unchanged = || (line.to_string(), Vec::new());
    let Some((word, rest)) = line.split_once(' ') else {
        let names = COMMANDS.iter().map(|c| c.name);
        return offer("", line, names, " ");
    };
    let Some(spec) = find(word) else {
        return unchanged();
    };
    let arg = rest.trim_start();
    let head = &line[..line.len() - arg.len()];
    // The word being typed: the first argument for most commands; a
    // rule's last word for columns.
    let first_word = !arg.contains(' ');
    match spec.arg {
        Arg::Nothing => unchanged(),
        Arg::Path => complete_path(head, arg),
        Arg::Words(words) if first_word => offer(head, arg, words.iter().copied(), ""),
        Arg::WordThenPath(words) => match arg.split_once(' ') {
            None => offer(head, arg, words.iter().copied(), " "),
            Some((_, path)) => {
                let path = path.trim_start();
                complete_path(&line[..line.len() - path.len()], path)
            }
        },
        Arg::Algorithm if first_word => offer(head, arg, offers.algorithms.iter().copied(), ""),
        Arg::Model if first_word => offer(head, arg, Model::NAMES.iter().copied(), ""),
        Arg::Column(words) => {
            // The word after the last space or comma (`:importance
            // zip,ag` completes `age`).
            let at = arg.rfind([' ', ',']).map_or(0, |i| i + 1);
            let head = &line[..head.len() + at];
            let names = offers.columns.iter().copied().chain(words.iter().copied());
            offer(head, &arg[at..], names, "")
        }
        Arg::Words(_) | Arg::Algorithm | Arg::Model => unchanged(),
    }
}

/// `head` then the longest start the `options` beginning with `prefix`
/// share (followed by `then` when only one does), and those options when
/// several do.
fn offer<'o>(
    head: &str,
    prefix: &str,
    options: impl Iterator<Item = &'o str>,
    then: &str,
) -> (String, Vec<String>) {
    let mut names: Vec<String> = Vec::new();
    for o in options.filter(|o| o.starts_with(prefix)) {
        if !names.iter().any(|n| n == o) {
            names.push(o.to_string());
        }
    }
    match names.as_slice() {
        [] => (format!("{head}{prefix}"), Vec::new()),
        [one] => (format!("{head}{one}{then}"), Vec::new()),
        _ => (format!("{head}{}", common_start(&names)), names),
    }
}

/// The longest start every name shares (by characters).
fn common_start(names: &[String]) -> String {
    let first = names.first().cloned().unwrap_or_default();
    names.iter().skip(1).fold(first, |acc, n| {
        acc.chars()
            .zip(n.chars())
            .take_while(|(a, b)| a == b)
            .map(|(a, _)| a)
            .collect()
    })
}

/// A path argument `arg` after `head`, completed as far as the files in
/// its folder agree. A folder completes with a trailing `/`; hidden files
/// are offered only for a prefix that starts with a dot.
fn complete_path(head: &str, arg: &str) -> (String, Vec<String>) {
    let unchanged = || (format!("{head}{arg}"), Vec::new());
    let (dir, prefix) = match arg.rfind('/') {
        Some(i) => (&arg[..=i], &arg[i + 1..]),
        None => ("", arg),
    };
    let folder = if dir.is_empty() {
        std::path::Path::new(".")
    } else {
        std::path::Path::new(dir)
    };
    let Ok(entries) = std::fs::read_dir(folder) else {
        return unchanged();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().into_string().ok()?;
            if !name.starts_with(prefix) || (name.starts_with('.') && !prefix.starts_with('.')) {
                return None;
            }
            let is_dir = e.path().is_dir();
            Some(if is_dir { format!("{name}/") } else { name })
        })
        .collect();
    names.sort();
    offer(
        &format!("{head}{dir}"),
        prefix,
        names.iter().map(String::as_str),
        "",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parser with the standard registry's algorithms.
    fn parse(line: &str) -> Result<Command, String> {
        super::parse(line, &standard())
    }

    fn standard() -> Vec<AlgorithmChoice> {
        AlgorithmChoice::all(&anonlab::algorithms::Registry::standard())
    }

    fn complete_path(line: &str) -> (String, Vec<String>) {
        complete(line, &Offers::default())
    }

    #[test]
    fn tab_completes_a_path_as_far_as_the_folder_agrees() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::write(dir.path().join("adult.csv"), "").unwrap();
        std::fs::write(dir.path().join("adult_project.json"), "").unwrap();
        std::fs::write(dir.path().join(".hidden"), "").unwrap();
        std::fs::create_dir(dir.path().join("hierarchies")).unwrap();
        let (line, many) = complete_path(&format!("open {d}/ad"));
        assert_eq!(line, format!("open {d}/adult"));
        assert_eq!(many, vec!["adult.csv", "adult_project.json"]);
        let (line, many) = complete_path(&format!("open {d}/adult."));
        assert_eq!(line, format!("open {d}/adult.csv"));
        assert!(many.is_empty());
        let (line, _) = complete_path(&format!("hierarchies {d}/hi"));
        assert_eq!(line, format!("hierarchies {d}/hierarchies/"));
        // Hidden files only when asked for; nothing to complete: unchanged.
        let (line, many) = complete_path(&format!("open {d}/"));
        assert_eq!(line, format!("open {d}/"));
        assert_eq!(many.len(), 3, "{many:?}");
        assert_eq!(
            complete_path(&format!("open {d}/zz")).0,
            format!("open {d}/zz")
        );
        assert_eq!(complete_path("k 5").0, "k 5");
    }

    #[test]
    fn commands_parse() {
        assert_eq!(parse("k 5"), Ok(Command::K(5)));
        assert_eq!(parse("  l   3 "), Ok(Command::L(3)));
        assert_eq!(parse("p 2"), Ok(Command::P(2)));
        assert_eq!(parse("seed 42"), Ok(Command::Seed(42)));
        assert_eq!(parse("algo mondrian"), Ok(Command::Algo("mondrian")));
        assert_eq!(parse("run"), Ok(Command::Run));
        assert_eq!(parse("save"), Ok(Command::Save(None)));
        assert_eq!(
            parse("save out/p.json"),
            Ok(Command::Save(Some(PathBuf::from("out/p.json"))))
        );
        assert_eq!(parse("theme light"), Ok(Command::Theme(Theme::Light)));
        assert_eq!(parse("mouse off"), Ok(Command::Mouse(false)));
        assert_eq!(parse("q"), Ok(Command::Quit));
        assert_eq!(parse("quit"), Ok(Command::Quit));
        assert_eq!(parse("help"), Ok(Command::Help));
    }

    /// The table drives the parser: every entry, by its name and by each
    /// alias, parses with an argument of its kind, to the same command.
    #[test]
    fn every_entry_of_the_table_parses() {
        let algorithms = standard();
        for c in COMMANDS {
            let arg = match c.arg {
                Arg::Nothing => "",
                Arg::Path => "x.csv",
                Arg::Words(w) | Arg::WordThenPath(w) => w[0],
                Arg::Algorithm => algorithms[0].id,
                Arg::Model => Model::NAMES[0],
                Arg::Column(_) => "age",
            };
            // k, l, p and seed take a number, which Tab does not offer;
            // a perturbation's number may be a fraction; :matrix COL=off.
            let parsed = parse(&format!("{} {arg}", c.name))
                .or_else(|_| parse(&format!("{} 5", c.name)))
                .or_else(|_| parse(&format!("{} 0.5", c.name)))
                .or_else(|_| parse(&format!("{} {arg}=off", c.name)))
                .unwrap_or_else(|e| panic!(":{} does not parse: {e}", c.name));
            for alias in c.aliases {
                let line = format!("{alias} {}", if arg.is_empty() { "5" } else { arg });
                let by_alias = parse(&line).or_else(|_| parse(alias));
                assert_eq!(by_alias.as_ref(), Ok(&parsed), ":{alias}");
            }
            assert!(find(c.name).is_some());
        }
        assert_eq!(find("w").map(|c| c.name), Some("save"));
    }

    #[test]
    fn tab_offers_names_then_the_arguments_of_each_kind() {
        let offers = Offers {
            algorithms: vec!["mondrian", "anatomy"],
            columns: vec!["age", "sex", "salary"],
        };
        let tab = |line: &str| complete(line, &offers);
        assert_eq!(tab("po"), ("population ".into(), vec![]));
        // `s` starts several names: the shared start and the list.
        let (line, many) = tab("s");
        assert_eq!(line, "s");
        assert!(many.contains(&"seed".to_string()) && many.contains(&"suda".to_string()));
        assert_eq!(tab("algo m").0, "algo mondrian");
        assert_eq!(tab("algo ").1, vec!["mondrian", "anatomy"]);
        assert_eq!(tab("model ").1.len(), Model::NAMES.len());
        assert_eq!(tab("mouse of").0, "mouse off");
        assert_eq!(tab("weights a").0, "weights age");
        assert_eq!(tab("weights o").0, "weights off");
        // The rule's last word, wherever it is.
        assert_eq!(tab("filter age>=60 and se").0, "filter age>=60 and sex");
        let (line, many) = tab("filter s");
        assert_eq!((line.as_str(), many.len()), ("filter s", 2));
        // A list's last item.
        assert_eq!(tab("importance zip,sa").0, "importance zip,salary");
        assert_eq!(tab("strata o").0, "strata off");
        assert_eq!(tab("missing o").0, "missing own");
        // Nothing to offer: the line as it was.
        assert_eq!(tab("k 5"), ("k 5".into(), vec![]));
        assert_eq!(tab("theme mono x"), ("theme mono x".into(), vec![]));
        assert_eq!(tab("nope x"), ("nope x".into(), vec![]));
    }

    #[test]
    fn local_suppression_commands_parse() {
        assert_eq!(
            parse("importance zip,age sex"),
            Ok(Command::Importance(vec![
                "zip".into(),
                "age".into(),
                "sex".into()
            ]))
        );
        assert_eq!(parse("importance default"), Ok(Command::Importance(vec![])));
        assert_eq!(parse("combs 3,2"), Ok(Command::Combs(vec![3, 2])));
        assert_eq!(parse("combs off"), Ok(Command::Combs(vec![])));
        assert_eq!(
            parse("missing-matches own"),
            Ok(Command::MissingMatches(Convention::OwnValue))
        );
        assert_eq!(parse("strata off"), Ok(Command::Strata(None)));
        assert_eq!(
            parse("pd 0.7"),
            Ok(Command::Perturbation(PerturbationParam::Pd, 0.7))
        );
        assert_eq!(
            parse("swap-p 15"),
            Ok(Command::Perturbation(PerturbationParam::SwapP, 15.0))
        );
        assert!(parse("pd 1.5").unwrap_err().contains("in [0, 1]"));
        assert!(parse("noise-delta 0").unwrap_err().contains("(0, 1]"));
        assert!(parse("noise NaN").unwrap_err().contains("0 or more"));
        assert!(parse("noise -1").unwrap_err().contains("0 or more"));
        assert!(parse("swap-p 101").unwrap_err().contains("[0, 100]"));
        assert!(parse("matrix sex = m.csv")
            .unwrap_err()
            .contains("takes one"));
        assert_eq!(
            parse("matrix sex=m.csv"),
            Ok(Command::Matrix("sex".into(), Some("m.csv".into())))
        );
        assert_eq!(
            parse("matrix sex=off"),
            Ok(Command::Matrix("sex".into(), None))
        );
        assert!(parse("matrix sex").unwrap_err().contains("COL=FILE"));
        assert_eq!(
            parse("strata disease"),
            Ok(Command::Strata(Some("disease".into())))
        );
    }

    #[test]
    fn bad_input_names_the_value() {
        let err = |s: &str| parse(s).unwrap_err();
        assert!(err("k 0").contains("k 0"), "{}", err("k 0"));
        assert!(err("k five").contains("'five'"));
        assert!(err("k -3").contains("'-3'"));
        assert!(err(&format!("l {}", MAX_L + 1)).contains(&(MAX_L + 1).to_string()));
        assert!(err("seed x").contains("'x'"));
        assert!(err("k").contains("needs"));
        assert!(err("k 1 2").contains("'1 2'"));
        assert!(err("mouse maybe").contains("'maybe'"));
        assert!(err("theme neon").contains("'neon'"));
        assert!(err("frobnicate").contains(":frobnicate"));
        assert!(err("").contains("empty"));
        assert!(err("run now").contains("'now'"));
        assert!(err("combs 0").contains("combs 0"));
        assert!(err("combs 2,x").contains("'x'"));
        assert!(err("missing maybe").contains("'maybe'"));
        assert!(err("importance").contains("needs"));
    }

    #[test]
    fn an_unknown_algorithm_lists_the_valid_ids() {
        let e = parse("algo nope").unwrap_err();
        assert!(e.contains("'nope'"));
        for a in standard() {
            assert!(e.contains(a.id), "{e} lacks {}", a.id);
        }
    }

    #[test]
    fn the_editor_types_runs_and_recalls() {
        let mut ed = LineEditor::default();
        ed.open();
        for c in "k 5".chars() {
            assert_eq!(ed.step(&Action::TypeChar(c)), Edit::Editing);
        }
        assert_eq!(ed.text(), Some("k 5"));
        // The cursor moves; typing goes in at it.
        ed.step(&Action::Left);
        ed.step(&Action::TypeChar('1'));
        assert_eq!(ed.text(), Some("k 15"));
        assert_eq!(ed.cursor(), Some(3));
        ed.step(&Action::RowEnd);
        ed.step(&Action::DeleteChar);
        ed.step(&Action::DeleteChar);
        ed.step(&Action::TypeChar('5'));
        assert_eq!(ed.step(&Action::Confirm), Edit::Submit("k 5".into()));
        assert!(!ed.is_open());
        ed.open();
        ed.step(&Action::TypeChar('x'));
        ed.step(&Action::DeleteChar);
        assert_eq!(ed.text(), Some(""));
        ed.step(&Action::Up);
        assert_eq!(ed.text(), Some("k 5"));
        ed.step(&Action::Down);
        assert_eq!(ed.text(), Some(""));
        assert_eq!(ed.step(&Action::Cancel), Edit::Closed);
        assert!(!ed.is_open());
        assert_eq!(ed.history(), ["k 5".to_string()]);
    }
}
