//! `anonlab assess`: the batch form of the Risk screen.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;

use anonlab::assess::{assess, assess_with, AssessReport};
use anonlab::data::{Params, Project, SensitivitySource};
use anonlab::session::{Cells, RoleSpec, Session};

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
    /// The probability (of re-identification, of a breach) above which a
    /// record counts as at risk (default: the project's, else 0.2).
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
    #[command(flatten)]
    pub recode: super::recode_args::RecodeArgs,
}

/// Where `assess` reads its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    Auto,
    Memory,
    Datafusion,
}

/// Validate the flags into a session (ripgrep's "parse raw, then build").
pub fn session_from_args(a: &AssessArgs) -> anyhow::Result<Session> {
    let (s, roles) = match (&a.project, &a.file) {
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
            let roles = role_spec(a, a.seed.unwrap_or(project.params.seed))?;
            (super::open_project(&project)?, roles)
        }
        (None, Some(f)) => {
            let source = super::source(f, &a.csv, a.engine, Some(&a.cluster))?;
            if source.reads_by_engine(super::ENGINE_BUILT) && a.sensitive_density.is_some() {
                bail!("--sensitive-density marks cells by their row, and the query engine reads combinations, not rows in order; use --engine memory");
            }
            let roles = role_spec(a, a.seed.unwrap_or(Params::default().seed))?;
            (super::open(&source, &roles)?.session, roles)
        }
        (None, None) => bail!("give a CSV file or --project"),
    };
    // Name the file in every message about its columns or cells.
    let label = s.label();
    configure(s, a, &roles).with_context(|| label)
}

/// The roles, sensitive cells and attacker the flags give; a density
/// draws its cells with `seed` (--seed, else the project's).
fn role_spec(a: &AssessArgs, seed: u64) -> anyhow::Result<RoleSpec> {
    let mut cells: Vec<Cells> = a
        .sensitive_when
        .iter()
        .map(|rule| Cells {
            column: None,
            source: SensitivitySource::Rule { rule: rule.clone() },
        })
        .collect();
    for spec in &a.sensitive_flag {
        let Some((col, flag)) = spec.split_once(':') else {
            bail!("--sensitive-flag takes COL:FLAGCOL, not '{spec}'");
        };
        cells.push(Cells::of(
            col,
            SensitivitySource::FlagColumn {
                column: flag.to_string(),
            },
        ));
    }
    if let Some(density) = a.sensitive_density {
        if !(0.0..=1.0).contains(&density) {
            bail!("--sensitive-density {density} is not between 0 and 1");
        }
        cells.push(Cells {
            column: None,
            source: SensitivitySource::Density { density, seed },
        });
    }
    Ok(RoleSpec {
        identifiers: a.identifier.clone(),
        quasi_identifiers: a.qi.clone(),
        sensitive: a.sensitive.clone(),
        semi_sensitive: a.semi_sensitive.clone(),
        cells,
        attacker_knows: a.attacker_knows.clone(),
        also_read: a
            .population
            .weights
            .iter()
            .chain(&a.population.household)
            .cloned()
            .collect(),
    })
}

/// Apply the flags to `s`: the roles, cells and attacker (`roles`), then
/// the attacker's threshold, the seed and the population.
fn configure(mut s: Session, a: &AssessArgs, roles: &RoleSpec) -> anyhow::Result<Session> {
    s.apply_roles(roles)?;
    if s.roles.attacker_visible().is_empty() {
        bail!("no quasi-identifiers: name the attributes an attacker may know with --qi");
    }
    if let Some(t) = a.threshold {
        s.attacker.threshold = super::threshold(t)?;
    }
    if let Some(seed) = a.seed {
        s.params.seed = seed;
    }
    a.population.apply(&mut s.attacker.population);
    a.recode.apply(&mut s)?;
    Ok(s)
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
    // The figures above are the file's as read (the baseline every
    // surface calls "before"); with recodings, the same figures of the
    // recoded data, which the algorithms read, beside them.
    let recoded = if s.recodings().is_empty() {
        None
    } else {
        let attacker = s.attacker()?;
        Some(super::progress::with_bar(
            "assessing the recoded data",
            |p| assess_with(&s.dataset, s.label(), &s.roles, &attacker, p),
        )?)
    };
    if a.json {
        let mut v = serde_json::to_value(&result.report)?;
        if let (Some(r), Some(o)) = (&recoded, v.as_object_mut()) {
            o.insert(
                "recoded".into(),
                serde_json::json!({
                    "recodings": s.recodings(),
                    "classes": r.report.classes,
                    "k": r.report.k,
                    "uniques": r.report.uniques,
                    "risk": r.report.risk,
                }),
            );
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", human(&result.report, &s));
        if let Some(r) = &recoded {
            print!("{}", human_recoded(&r.report, &s));
        }
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

/// The lines every readable report opens its figures with: classes, the
/// smallest class and the sample uniques.
fn classes_and_uniques(o: &mut String, r: &AssessReport) {
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
}

/// The figures of the recoded data, after the file's.
fn human_recoded(r: &AssessReport, s: &Session) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "\nafter recoding (what the algorithms read; the attacker knows the recoding):"
    );
    o.push_str(&super::recode_args::human(s.recodings()));
    classes_and_uniques(&mut o, r);
    let _ = writeln!(
        o,
        "Pr(re-id)            mean {:.4}   max {:.4}   above {:.2}: {}",
        r.risk.mean,
        r.risk.max,
        r.risk.threshold,
        thousands(r.risk.records_above_threshold)
    );
    o
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
    classes_and_uniques(&mut o, r);
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
