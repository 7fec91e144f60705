//! `anonlab assess`: the batch form of the Risk screen.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;

use anonlab::assess::{assess, AssessReport};
use anonlab::data::{CellSensitivity, CsvOptions, Project, Role, Roles, Rule, SensitivitySource};
use anonlab::session::Session;

use super::{thousands, CsvArgs};

#[derive(Debug, Args)]
pub struct AssessArgs {
    /// CSV file to assess (or use --project).
    #[arg(required_unless_present = "project")]
    pub file: Option<PathBuf>,
    /// A saved project: data file, roles, sensitivity and attacker model.
    /// Flags given with it override the project's settings.
    #[arg(long, conflicts_with = "file")]
    pub project: Option<PathBuf>,
    /// Quasi-identifiers, in the order the attacker learns them.
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub qi: Vec<String>,
    /// Sensitive attributes (privacy models are reported for each).
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub sensitive: Vec<String>,
    /// Semi-sensitive attributes: some cells sensitive, the rest quasi-identifying.
    #[arg(long = "semi-sensitive", value_delimiter = ',', value_name = "COLS")]
    pub semi_sensitive: Vec<String>,
    /// Identifiers (never published; ignored by the assessment).
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub identifier: Vec<String>,
    /// A rule marking sensitive cells, e.g. 'age>=60' or
    /// 'occupation in {Armed-Forces,Protective-serv}'. It marks the cells
    /// of the semi-sensitive attributes it names (or of the only one).
    #[arg(long = "sensitive-when", value_name = "RULE")]
    pub sensitive_when: Vec<String>,
    /// A 0/1 column of the file saying which cells are sensitive: COL:FLAGCOL.
    #[arg(long = "sensitive-flag", value_name = "COL:FLAG")]
    pub sensitive_flag: Vec<String>,
    /// Mark this share of each semi-sensitive attribute's cells at random (seeded).
    #[arg(long = "sensitive-density", value_name = "SHARE")]
    pub sensitive_density: Option<f64>,
    /// Seed for random sensitivity.
    #[arg(long)]
    pub seed: Option<u64>,
    /// What the attacker knows, in order (default: the QIs then the semi-sensitive attributes).
    #[arg(long = "attacker-knows", value_delimiter = ',', value_name = "COLS")]
    pub attacker_knows: Vec<String>,
    /// Pr(re-id) above which a record counts as at risk.
    #[arg(long)]
    pub threshold: Option<f64>,
    /// Print one JSON object instead of the report.
    #[arg(long)]
    pub json: bool,
    /// Also print records by class size k in bins of this width (the
    /// correlation paper's Figures 6–7: max k, share with k > 100).
    #[arg(long = "k-histogram", value_name = "WIDTH", conflicts_with = "json")]
    pub k_histogram: Option<u32>,
    /// Write the session as a project file (to replay it or open it in the TUI).
    #[arg(long = "save-project", value_name = "FILE")]
    pub save_project: Option<PathBuf>,
    #[command(flatten)]
    pub population: super::population_args::PopulationArgs,
    /// Where the file is read: `memory` loads it whole; `datafusion` has
    /// the embedded query engine (Apache DataFusion) stream it and build
    /// the frequency table of the columns the assessment reads, in bounded
    /// memory; `auto` takes the engine for a plain CSV, Parquet or Arrow
    /// file over 1 GiB. The figures are the same either way.
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: Engine,
    #[command(flatten)]
    pub cluster: super::cluster::ClusterClientArgs,
    #[command(flatten)]
    pub csv: CsvArgs,
}

/// Where `assess` reads its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    Auto,
    Memory,
    Datafusion,
}

/// The file size from which `--engine auto` takes the query engine: the
/// in-memory path holds 10 million census rows (914 MB of CSV) in 820 MB;
/// above that the engine's bounded memory is worth its start-up.
pub const ENGINE_FROM_BYTES: u64 = 1 << 30;

/// Whether `assess` reads `file` with the query engine.
fn engine_for(a: &AssessArgs, file: &std::path::Path, opts: &CsvOptions) -> bool {
    if a.cluster.cluster.is_some() {
        return true;
    }
    match a.engine {
        Engine::Memory => false,
        Engine::Datafusion => true,
        Engine::Auto => auto_takes_engine(file, opts),
    }
}

/// Whether `--engine auto` (of `assess`, `anonymize` and `compare`) takes
/// the query engine for `file`: a build with the engine, and a plain CSV,
/// Parquet or Arrow file over [`ENGINE_FROM_BYTES`].
pub(super) fn auto_takes_engine(file: &std::path::Path, opts: &CsvOptions) -> bool {
    use anonlab::data::{formats, InputFormat};
    cfg!(feature = "engine")
        && matches!(
            formats::detect(file, opts),
            InputFormat::Csv | InputFormat::Parquet | InputFormat::Arrow
        )
        && std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.len() > ENGINE_FROM_BYTES)
}

/// Validate the flags into a session (ripgrep's "parse raw, then build").
pub fn session_from_args(a: &AssessArgs) -> anyhow::Result<Session> {
    let s = match (&a.project, &a.file) {
        (Some(p), _) => {
            let project = Project::load(p)?;
            if let Some(w) = project.data_changed() {
                eprintln!("anonlab: warning: {w}");
            }
            let grouped = project.data.grouped.is_some();
            if a.engine == Engine::Datafusion && !grouped {
                bail!("--engine datafusion reads a data file given on the command line, or a project saved from a session over the query engine's frequency table; this project's data is read in memory");
            }
            if a.cluster.cluster.is_some() {
                bail!("--cluster reads a data file given on the command line; a project's data is read on this machine");
            }
            // A project saved from a grouped session opens through the
            // engine again, unless --engine memory reads its file whole.
            let project = match a.engine {
                Engine::Memory => project.in_memory(),
                _ => project,
            };
            let s = super::open_project(&project)?;
            if grouped && a.engine != Engine::Memory {
                let label = s.label();
                return configure(s, a, true).with_context(|| label);
            }
            s
        }
        (None, Some(f)) => {
            if a.engine == Engine::Memory && a.cluster.cluster.is_some() {
                bail!("--cluster builds the frequency table on the cluster, and --engine memory reads the file here; give one of them");
            }
            let opts = a.csv.options()?;
            if engine_for(a, f, &opts) {
                return engine_session(a, f, opts);
            }
            Session::open(f, opts)?
        }
        (None, None) => bail!("give a CSV file or --project"),
    };
    // Name the file in every message about its columns or cells.
    let label = s.label();
    configure(s, a, false).with_context(|| label)
}

/// The session of `assess --engine datafusion`: the frequency table of the
/// columns the flags name, given back as a dataset of those columns
/// (`anonlab_scale::engine`). Identifiers are checked and left out: the
/// assessment never reads them, and a column unique per record would make
/// the table as large as the file.
#[cfg(feature = "engine")]
fn engine_session(
    a: &AssessArgs,
    f: &std::path::Path,
    opts: CsvOptions,
) -> anyhow::Result<Session> {
    use anonlab_scale::engine::{frequency_table, EngineOptions};
    if a.sensitive_density.is_some() {
        bail!("--sensitive-density marks cells by their row, and the query engine reads combinations, not rows in order; use --engine memory");
    }
    let mut columns: Vec<String> =
        a.qi.iter()
            .chain(&a.sensitive)
            .chain(&a.semi_sensitive)
            .chain(&a.attacker_knows)
            .cloned()
            .collect();
    for spec in &a.sensitive_flag {
        if let Some((col, flag)) = spec.split_once(':') {
            columns.extend([col.to_string(), flag.to_string()]);
        }
    }
    for text in &a.sensitive_when {
        let rule = Rule::parse(text)?;
        columns.extend(rule.columns().into_iter().map(str::to_string));
    }
    columns.extend(a.population.weights.iter().cloned());
    if columns.is_empty() {
        bail!("no quasi-identifiers: name the attributes an attacker may know with --qi");
    }
    let table = match on_cluster(a, f, &opts, &columns)? {
        Some(table) => table,
        None => frequency_table(f, &opts, &columns, &EngineOptions::default())?,
    };
    for id in &a.identifier {
        if !table.file_columns().contains(id) {
            return Err(anonlab::error::Error::UnknownColumn {
                name: id.clone(),
                available: anonlab::error::listed(
                    table.file_columns(),
                    anonlab::error::COLUMNS_LISTED,
                ),
            }
            .into());
        }
    }
    let s = Session::new(table.to_dataset()?, Some(f.to_path_buf()), opts);
    let label = s.label();
    configure(s, a, true).with_context(|| label)
}

/// The frequency table built on the cluster `--cluster` names, if any.
#[cfg(feature = "cluster")]
fn on_cluster(
    a: &AssessArgs,
    f: &std::path::Path,
    opts: &CsvOptions,
    columns: &[String],
) -> anyhow::Result<Option<anonlab_scale::engine::FrequencyTable>> {
    match a.cluster.cluster()? {
        Some(cluster) => Ok(Some(cluster.frequency_table(f, opts, columns)?)),
        None => Ok(None),
    }
}

#[cfg(all(feature = "engine", not(feature = "cluster")))]
fn on_cluster(
    a: &AssessArgs,
    _: &std::path::Path,
    _: &CsvOptions,
    _: &[String],
) -> anyhow::Result<Option<anonlab_scale::engine::FrequencyTable>> {
    if a.cluster.cluster.is_some() {
        bail!("this build of anonlab has no cluster (it needs the `cluster` feature); use --engine datafusion");
    }
    Ok(None)
}

#[cfg(not(feature = "engine"))]
fn engine_session(_: &AssessArgs, _: &std::path::Path, _: CsvOptions) -> anyhow::Result<Session> {
    bail!("this build of anonlab has no query engine (it needs the `engine` feature); use --engine memory")
}

/// Apply the flags to `s`; `engine` leaves out the identifiers, which the
/// engine's dataset does not hold.
fn configure(mut s: Session, a: &AssessArgs, engine: bool) -> anyhow::Result<Session> {
    let ds = &s.dataset;
    let given_roles = !(a.qi.is_empty()
        && a.sensitive.is_empty()
        && a.semi_sensitive.is_empty()
        && a.identifier.is_empty());
    if given_roles {
        let mut roles = Roles::new(ds.n_cols());
        for (cols, role) in [
            (
                if engine { &[][..] } else { &a.identifier[..] },
                Role::Identifier,
            ),
            (&a.qi[..], Role::QuasiIdentifier),
            (&a.sensitive[..], Role::Sensitive),
            (&a.semi_sensitive[..], Role::SemiSensitive),
        ] {
            for name in cols {
                let c = ds.column_index(name)?;
                if roles.get(c) != Role::Insensitive {
                    bail!(
                        "column '{name}' is given two roles ({} and {})",
                        roles.get(c),
                        role
                    );
                }
                roles.set(c, role);
            }
        }
        s.roles = roles;
        s.sensitivity.clear();
        // The attacker learns the QIs in the order given, then the
        // semi-sensitive attributes: the prefix table follows that order.
        s.attacker.known = a.qi.iter().chain(&a.semi_sensitive).cloned().collect();
    }
    if s.roles.attacker_visible().is_empty() {
        bail!("no quasi-identifiers: name the attributes an attacker may know with --qi");
    }
    if !a.attacker_knows.is_empty() {
        for n in &a.attacker_knows {
            let c = ds.column_index(n)?;
            if !s.roles.get(c).attacker_visible() {
                bail!(
                    "--attacker-knows names '{n}', which is {}; the attacker can only know quasi-identifiers and semi-sensitive attributes",
                    s.roles.get(c)
                );
            }
        }
        s.attacker.known = a.attacker_knows.clone();
    }
    if let Some(t) = a.threshold {
        if !(0.0..=1.0).contains(&t) {
            bail!("--threshold {t} is not between 0 and 1");
        }
        s.attacker.threshold = t;
    }
    if let Some(seed) = a.seed {
        s.params.seed = seed;
    }
    a.population.apply(&mut s.attacker.population);
    apply_sensitivity(&mut s, a)?;
    Ok(s)
}

fn apply_sensitivity(s: &mut Session, a: &AssessArgs) -> anyhow::Result<()> {
    let semi = s.roles.with(Role::SemiSensitive);
    let any = !a.sensitive_when.is_empty()
        || !a.sensitive_flag.is_empty()
        || a.sensitive_density.is_some();
    if any && semi.is_empty() {
        bail!("sensitivity flags need a semi-sensitive attribute: add --semi-sensitive COL");
    }
    let ds = &s.dataset;
    for text in &a.sensitive_when {
        let rule = Rule::parse(text)?;
        // Compile now so a typo is reported before any work.
        rule.compile(ds)?;
        let named: Vec<usize> = semi
            .iter()
            .copied()
            .filter(|&c| rule.columns().contains(&ds.col(c).name()))
            .collect();
        let targets = match (named.is_empty(), semi.len()) {
            (false, _) => named,
            (true, 1) => semi.clone(),
            (true, _) => bail!(
                "--sensitive-when '{text}' names none of the semi-sensitive attributes, so it is unclear whose cells it marks"
            ),
        };
        for c in targets {
            if s.sensitivity.contains_key(&c) {
                bail!("two sensitivity sources for '{}'", ds.col(c).name());
            }
            s.sensitivity.insert(
                c,
                CellSensitivity::new(SensitivitySource::Rule { rule: text.clone() }),
            );
        }
    }
    for spec in &a.sensitive_flag {
        let Some((col, flag)) = spec.split_once(':') else {
            bail!("--sensitive-flag takes COL:FLAGCOL, not '{spec}'");
        };
        let c = ds.column_index(col)?;
        ds.column_index(flag)?;
        if !semi.contains(&c) {
            bail!("--sensitive-flag names '{col}', which is not semi-sensitive");
        }
        if s.sensitivity.contains_key(&c) {
            bail!("two sensitivity sources for '{col}'");
        }
        s.sensitivity.insert(
            c,
            CellSensitivity::new(SensitivitySource::FlagColumn {
                column: flag.to_string(),
            }),
        );
    }
    if let Some(density) = a.sensitive_density {
        if !(0.0..=1.0).contains(&density) {
            bail!("--sensitive-density {density} is not between 0 and 1");
        }
        for &c in &semi {
            s.sensitivity.entry(c).or_insert_with(|| {
                CellSensitivity::new(SensitivitySource::Density {
                    density,
                    seed: s.params.seed,
                })
            });
        }
    }
    // Resolve every source once now, so errors (bad flag values) surface
    // before the simulation starts.
    for &c in s.sensitivity.keys() {
        s.sensitive_cells(c)?;
    }
    Ok(())
}

pub fn run(a: &AssessArgs) -> anyhow::Result<()> {
    let s = session_from_args(a)?;
    if let Some(p) = &a.save_project {
        let inputs = super::inputs_of(&s, a.project.as_deref(), []);
        s.to_project()
            .save_with(p, &inputs)
            .with_context(|| format!("saving the project to {}", p.display()))?;
    }
    let result = super::progress::with_bar("assessing", |p| assess(&s, p))?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&result.report)?);
    } else {
        print!("{}", human(&result.report, &s));
        print!("{}", super::population_args::human(&result.report));
    }
    if let Some(w) = a.k_histogram {
        let h = anonlab::stats::ClassSizeHistogram::new(&result.simulation.matches, w);
        print!("\n{h}");
    }
    Ok(())
}

fn pct(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "0%".into();
    }
    format!("{:.1}%", 100.0 * part as f64 / whole as f64)
}

fn opt(x: Option<f64>, digits: usize) -> String {
    match x {
        Some(v) => format!("{v:.digits$}"),
        None => "∞".into(),
    }
}

/// The short readable report.
pub fn human(r: &AssessReport, s: &Session) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "anonlab assess — {}", r.file);
    let _ = writeln!(
        o,
        "{} records; the attacker knows {} attribute(s): {}",
        thousands(r.rows),
        r.attacker_knows.len(),
        r.attacker_knows.join(", ")
    );
    if r.hidden_cells > 0 {
        let _ = writeln!(
            o,
            "{} semi-sensitive cells are sensitive: hidden from the attacker (wildcards when matching)",
            thousands(r.hidden_cells)
        );
    }
    if let Some(p) = s.sensitivity.values().find_map(|c| match c.source {
        SensitivitySource::Density { seed, .. } => Some(seed),
        _ => None,
    }) {
        let _ = writeln!(o, "random sensitivity seed: {p}");
    }
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "equivalence classes  {:>10}   smallest class (k) {}",
        thousands(r.classes),
        r.k
    );
    let _ = writeln!(
        o,
        "unique records       {:>10}   ({} of all records can be singled out)",
        thousands(r.uniques),
        pct(r.uniques, r.rows)
    );
    let _ = writeln!(
        o,
        "Pr(re-id)            mean {:.4}   max {:.4}",
        r.risk.mean, r.risk.max
    );
    let _ = writeln!(
        o,
        "above {:.2}           {:>10}   ({})",
        r.risk.threshold,
        thousands(r.risk.records_above_threshold),
        pct(r.risk.records_above_threshold, r.rows)
    );
    let b = &r.baseline;
    let _ = writeln!(
        o,
        "\nbefore: the original table published as is; {}",
        b.attacker
    );
    let mut attack = |name: &str, d: &anonlab::anonymize::Distribution| {
        let _ = writeln!(
            o,
            "  {name:<22} mean {:.4}   max {:.4}   above {:.2}: {:>7}   certain: {:>7}",
            d.summary.mean,
            d.summary.max,
            d.summary.threshold,
            thousands(d.above(d.summary.threshold)),
            thousands(d.certain())
        );
    };
    attack("key count", &b.key_count);
    attack("linkage", &b.linkage);
    if let Some(br) = &b.breach {
        attack(&format!("breach {}", br.attribute), &br.distribution);
    }
    let _ = writeln!(o, "\nPr(re-id) distribution");
    let most = r
        .histogram
        .iter()
        .map(|b| b.records)
        .max()
        .unwrap_or(0)
        .max(1);
    for b in &r.histogram {
        let bar = "█".repeat((b.records * 40).div_ceil(most));
        let _ = writeln!(
            o,
            "  ({:.1}, {:.1}]  {:>9}  {bar}",
            b.lower,
            b.upper,
            thousands(b.records)
        );
    }
    let _ = writeln!(
        o,
        "\nas the attacker learns more            classes     uniques"
    );
    for (j, p) in r.prefix.iter().enumerate() {
        let name = p.attributes.last().map(String::as_str).unwrap_or("");
        let label = if j == 0 {
            name.to_string()
        } else {
            format!("+ {name}")
        };
        let _ = writeln!(
            o,
            "  {:>2} {:<32} {:>9} {:>11}",
            j + 1,
            label,
            thousands(p.classes),
            thousands(p.uniques)
        );
    }
    if !r.models.is_empty() {
        let _ = writeln!(o, "\nprivacy models on the attacker's classes");
        for (name, m) in &r.models {
            let c = m.recursive_c_l.c.map_or("–".to_string(), |c| c.to_string());
            let _ = writeln!(
                o,
                "  {name}: k {}, distinct l {}, entropy l {:.2}, recursive (c,l) = ({c},{}), t {:.4}, α {:.4}, δ {}, β {:.4} / enhanced {}",
                m.k,
                m.l_distinct,
                m.l_entropy,
                m.recursive_c_l.l,
                m.t_closeness,
                m.alpha_k.alpha,
                opt(m.delta_disclosure, 4),
                m.beta_likeness_basic,
                opt(m.beta_likeness_enhanced, 4),
            );
        }
    }
    o
}
