//! `anonlab anonymize`: run an algorithm in batch, verify the release
//! before anything is written, and print the same measurements the TUI
//! shows. The preparation of the data and requests here serves `compare`
//! too (`cli::compare`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;

use anonlab::algorithms::{self, Request};
use anonlab::anonymize::{measure_pk, run_verified_with, Evaluation, Measure};
use anonlab::assess::{After, AfterAttacker};
use anonlab::data::Inputs;
use anonlab::data::{Dataset, Project, Role};
use anonlab::hierarchy::HierarchySet;
use anonlab::progress::Progress;
use anonlab::release::{buckets_path, stage_csv_fingerprinted, stage_json};
use anonlab::session::Attacker;
use anonlab::session::{Cells, RoleSpec, Session};

use super::assess::Engine;
use super::hierarchy_args::{self, HierarchyArgs};
use super::lgb_args::LgbArgs;
use super::ls_args::LocalSuppressionArgs;
use super::numeric_args::NumericArgs;
use super::pk_args::PkArgs;
use super::recode_args::{self, RecodeArgs};
use super::{thousands, CsvArgs};

mod engine;
mod human;

use engine::engine_wanted;
pub(super) use engine::{engine_flag, engine_session, file_roles, publish_by_engine};
use human::human;

/// The columns and how to read the file: shared by both commands.
#[derive(Debug, Args)]
pub struct Columns {
    /// CSV file to anonymize (or use --project).
    #[arg(required_unless_present = "project")]
    pub file: Option<PathBuf>,
    /// A saved project: its data, roles, sensitive cells, hierarchies and
    /// release settings, so the release is the one the TUI showed for it
    /// (same fingerprint). Flags given with it override its settings; role
    /// flags (--qi, --sensitive, --identifier, --semi-sensitive, ...)
    /// replace its roles.
    #[arg(long, conflicts_with = "file")]
    pub project: Option<PathBuf>,
    /// Quasi-identifiers.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "COLS",
        required_unless_present = "project"
    )]
    pub qi: Vec<String>,
    /// The sensitive attribute (several, repeated or comma-separated, for
    /// pk-enhanced, pk-greedy and full-domain's p-sensitive model; the other
    /// algorithms read the first).
    #[arg(long, value_delimiter = ',', value_name = "COL")]
    pub sensitive: Vec<String>,
    /// Identifiers: dropped from the published table.
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub identifier: Vec<String>,
    /// Seed of randomized steps and of the query workload (default: the
    /// project's, else 42).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The probability (of re-identification, of a breach) above which a
    /// record counts as at risk, in every "above" figure of the output
    /// (default: the project's, else 0.2, the TUI's and the report's).
    #[arg(long)]
    pub threshold: Option<f64>,
    /// Queries in the utility workload (0 skips it).
    #[arg(long, default_value_t = anonlab::metrics::DEFAULT_QUERIES)]
    pub queries: usize,
    #[command(flatten)]
    pub csv: CsvArgs,
    #[command(flatten)]
    pub hierarchy: HierarchyArgs,
    #[command(flatten)]
    pub lgb: LgbArgs,
    #[command(flatten)]
    pub pk: PkArgs,
    #[command(flatten)]
    pub local_suppression: LocalSuppressionArgs,
    #[command(flatten)]
    pub numeric: NumericArgs,
    #[command(flatten)]
    pub recode: RecodeArgs,
}

#[derive(Debug, Args)]
pub struct AnonymizeArgs {
    #[command(flatten)]
    pub columns: Columns,
    /// The algorithm's id, one of those listed below with what each reads
    /// (default: the project's).
    #[arg(long, short = 'a')]
    pub algorithm: Option<String>,
    /// k (default: the project's, else 5).
    #[arg(short = 'k')]
    pub k: Option<u32>,
    /// l (default: the project's, else 2).
    #[arg(short = 'l')]
    pub l: Option<u32>,
    /// The published table (CSV; a bucketized release also writes OUT.buckets.csv).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// The release as JSON: groups, buckets, claims.
    #[arg(long = "release", value_name = "FILE")]
    pub release_json: Option<PathBuf>,
    /// Print the measurements as JSON.
    #[arg(long)]
    pub json: bool,
    /// Where the file is read: `memory` loads it whole; `datafusion` has
    /// the embedded query engine (Apache DataFusion) build the frequency
    /// table of the columns the algorithm reads (quasi-identifiers,
    /// sensitive and semi-sensitive attributes, the flag and rule
    /// columns) in bounded memory, runs the algorithm on it (mondrian,
    /// mondrian-l, mondrian-distinct-l, full-domain) and publishes the
    /// table with a second streaming pass over the file (-o: CSV, or
    /// Parquet for a .parquet name); `auto` takes the engine for a plain
    /// CSV, Parquet or Arrow file over 1 GiB when the algorithm runs on a
    /// frequency table. The release, its figures and its fingerprint are
    /// the same either way; the query workload is not run on the engine's
    /// table (it reads records one by one).
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: Engine,
    #[command(flatten)]
    pub cluster: super::cluster::ClusterClientArgs,
}

pub(super) struct Prepared {
    /// The session every request is built from (`Session::request_with`):
    /// a project's, with the role flags applied when some are given.
    pub(super) session: Session,
    /// Opened from a project: its algorithm, k, l, p and full-domain
    /// settings are the defaults of the flags.
    pub(super) from_project: bool,
    /// LGB_NCP's categorical measure (--lgb-ncp), which a session does not
    /// hold.
    lgb_ncp: anonlab::algorithms::lgb::NcpMeasure,
    /// --seed, else the project's, else the session's default (42); also
    /// the session's seed.
    pub(super) seed: u64,
}

pub(super) fn prepare(c: &Columns) -> anyhow::Result<Prepared> {
    prepare_with(c, None)
}

/// [`prepare`], with the data already read as `opened` (the query
/// engine's frequency table, which holds no identifier column: the
/// identifiers were checked against the file and are left out).
pub(super) fn prepare_with(c: &Columns, opened: Option<Session>) -> anyhow::Result<Prepared> {
    anonlab::metrics::check_queries(c.queries)?;
    let (mut session, from_project) = match (&c.project, &c.file, opened) {
        // A project saved from a grouped session, opened through the
        // engine by `engine_session`.
        (Some(_), _, Some(s)) => (s, true),
        (Some(file), _, None) => {
            let project = Project::load(file)?;
            if let Some(w) = project.data_changed() {
                eprintln!("anonlab: warning: {w}");
            }
            // Not through the engine: the file read whole (`engine_flag`
            // sends a grouped project to the engine unless --engine
            // memory says otherwise).
            let s = super::open_project(&project.in_memory())
                .with_context(|| format!("project {}", file.display()))?;
            (s, true)
        }
        (None, Some(_), Some(s)) => (s, false),
        (None, Some(file), None) => (
            super::source(file, &c.csv, Engine::Memory, None)?.open()?,
            false,
        ),
        (None, None, _) => bail!("give a CSV file or --project"),
    };
    let seed = c.seed.unwrap_or(session.params.seed);
    session.params.seed = seed;
    // Local suppression's flags replace the project's settings whole
    // (`LocalSuppressionArgs::apply`): a project's importance naming
    // other keys must not refuse the request first.
    if c.local_suppression.any() {
        session.params.local_suppression = Default::default();
    }
    if let Some(t) = c.threshold {
        session.attacker.threshold = super::threshold(t)?;
    }
    if c.pk.sample.is_some() {
        // A sample of the file's records, recoded again.
        let ds = (**session.original()).clone();
        session.set_data(std::sync::Arc::new(c.pk.sample(ds, seed)?))?;
    }
    let label = session.label();
    let role_flags =
        !c.qi.is_empty() || !c.sensitive.is_empty() || !c.identifier.is_empty() || c.lgb.any();
    if role_flags {
        apply_role_flags(&mut session, c, from_project, seed).with_context(|| label.clone())?;
    }
    c.recode
        .apply(&mut session)
        .with_context(|| label.clone())?;
    let lgb_ncp = c.lgb.ncp()?;
    Ok(Prepared {
        session,
        from_project,
        lgb_ncp,
        seed,
    })
}

/// The role flags applied to `session` (`Session::apply_roles`), each
/// role the project's where its flag is not given; the semi-sensitive
/// attributes stay semi-sensitive, so every request leaves them out of the
/// algorithms that do not read sensitive cells (`Session::request_with`).
/// The project's t-closeness choices are kept for the attributes that
/// still have sensitive cells.
fn apply_role_flags(
    session: &mut Session,
    c: &Columns,
    from_project: bool,
    seed: u64,
) -> anyhow::Result<()> {
    let ds = session.dataset.clone();
    let roles = &session.roles;
    let names = |cols: Vec<usize>| -> Vec<String> {
        cols.into_iter()
            .map(|c| ds.col(c).name().to_string())
            .collect()
    };
    let or_project = |flag: &[String], role: Role| -> Vec<String> {
        if flag.is_empty() && from_project {
            names(roles.with(role))
        } else {
            flag.to_vec()
        }
    };
    let qi_names = or_project(&c.qi, Role::QuasiIdentifier);
    let sensitive_names = or_project(&c.sensitive, Role::Sensitive);
    let mut identifiers = or_project(&c.identifier, Role::Identifier);
    let index = |names: &[String]| -> anonlab::Result<Vec<usize>> {
        names.iter().map(|n| ds.column_index(n)).collect()
    };
    let qi = index(&qi_names)?;
    let sensitive = index(&sensitive_names)?;
    for s in &sensitive {
        if qi.contains(s) {
            bail!(
                "'{}' is both a quasi-identifier and the sensitive attribute",
                ds.col(*s).name()
            );
        }
    }
    // --semi-sensitive names them with a source of cells; without it, a
    // project's keep their cells.
    let lgb = &c.lgb;
    let kept = std::mem::take(&mut session.sensitivity);
    let semi_sensitive = if lgb.semi_sensitive.is_empty() && from_project {
        session.roles.with(Role::SemiSensitive)
    } else {
        lgb.columns(&ds, &qi, &sensitive)?
    };
    let cells = match lgb.source(&ds, seed)? {
        Some(source) => names(semi_sensitive.clone())
            .into_iter()
            .map(|name| Cells::of(name, source.clone()))
            .collect(),
        None => Vec::new(),
    };
    // The engine's identifiers are outside its table (skipped).
    for id in &session.identifiers_outside {
        if !identifiers.contains(id) {
            identifiers.push(id.clone());
        }
    }
    let spec = RoleSpec {
        identifiers,
        quasi_identifiers: qi_names,
        sensitive: sensitive_names,
        semi_sensitive: names(semi_sensitive.clone()),
        cells,
        ..RoleSpec::default()
    };
    session.apply_roles(&spec)?;
    for (col, cells) in kept {
        if semi_sensitive.contains(&col) {
            session.sensitivity.entry(col).or_insert(cells);
        }
    }
    lgb.check_marked(session, &semi_sensitive)?;
    // --t-closeness wins; without it, the project's choice (the TUI's `T`)
    // for the attributes that still have sensitive cells here.
    if !lgb.t_closeness.is_empty() {
        session.params.t_closeness = lgb.t_closeness(&ds, &semi_sensitive, &sensitive)?;
    } else {
        session.params.t_closeness.retain(|name, _| {
            let kept = ds
                .column_index(name)
                .is_ok_and(|c| semi_sensitive.contains(&c) || sensitive.contains(&c));
            if !kept {
                eprintln!("anonlab: warning: the project's t-closeness for '{name}' is not applied: here '{name}' is neither --semi-sensitive nor --sensitive");
            }
            kept
        });
    }
    Ok(())
}

impl Prepared {
    /// The attacker the after figures are for (`assess::After`): the
    /// session's (`attacker.known`, hidden cells as the session has them),
    /// as the TUI and the report have it; from flags, one who knows every
    /// --qi and --semi-sensitive attribute, the semi-sensitive ones'
    /// sensitive cells hidden (`Session::apply_roles`).
    pub(super) fn attacker(&self) -> anyhow::Result<Attacker> {
        Ok(self.session.attacker()?)
    }

    /// What the evaluation measures: `queries` drawn with `seed`, every
    /// "above" figure above the session's threshold.
    pub(super) fn measure(&self, queries: usize, seed: u64) -> Measure {
        Measure {
            queries,
            query_seed: seed,
            threshold: self.session.attacker.threshold,
        }
    }

    /// The sensitive attributes (column order, as every request has them).
    pub(super) fn sensitive(&self) -> Vec<usize> {
        self.session.roles.with(Role::Sensitive)
    }

    /// The semi-sensitive attributes `release` leaves out (every algorithm
    /// that does not read sensitive cells: `Session::request_with`), by
    /// name, as the screens say "not published".
    pub(super) fn not_published(&self, release: &anonlab::release::Release) -> Vec<String> {
        self.session
            .roles
            .with(Role::SemiSensitive)
            .into_iter()
            .filter(|c| !release.quasi_identifiers.contains(c))
            .map(|c| self.session.dataset.col(c).name().to_string())
            .collect()
    }

    /// Every file the command reads: the session's, the project file and
    /// the hierarchy, conditions and sensitive-hierarchy files of the flags.
    pub(super) fn inputs(&self, c: &Columns) -> anyhow::Result<Inputs> {
        let mut more: Vec<PathBuf> = Vec::new();
        if let Some(spec) = &c.hierarchy.hierarchies {
            more.extend(HierarchySet::spec_files(spec)?);
        }
        // Each `COL=FILE`; a malformed one is refused by `PkArgs::load`
        // with its own message.
        more.extend(c.pk.sa_hierarchy.iter().filter_map(|p| {
            p.split_once('=')
                .map(|(_, f)| PathBuf::from(f.trim()))
                .filter(|f| !f.as_os_str().is_empty())
        }));
        more.extend(c.hierarchy.conditions.clone());
        Ok(super::inputs_of(&self.session, c.project.as_deref(), more))
    }

    /// Hierarchies given by flags win; without any, the project's.
    pub(super) fn project_hierarchies(&self, options: &mut algorithms::Options) {
        if options.hierarchies.is_empty() {
            options.hierarchies = self.session.hierarchy_set();
        }
    }

    /// The request for one algorithm: the session's
    /// (`Session::request_with`, the one builder of every front end: LGB
    /// gets the semi-sensitive cells, the others leave the semi-sensitive
    /// attributes out), with --lgb-ncp's measure.
    pub(super) fn request(
        &self,
        algorithm: &str,
        k: u32,
        l: u32,
        p: u32,
        seed: u64,
    ) -> anyhow::Result<Request<'_>> {
        let mut req = self.session.request_with(algorithm, k, l, p, seed)?;
        req.options.lgb_ncp = self.lgb_ncp;
        Ok(req)
    }

    /// The command's loaded hierarchy and full-domain flags, the
    /// session's settings (a project's) where a flag is not given.
    pub(super) fn load_settings(
        &self,
        c: &Columns,
        ids: &[&str],
    ) -> anyhow::Result<hierarchy_args::Loaded> {
        c.hierarchy
            .load(ids, &self.session.params, self.session.conditions.as_ref())
    }
}

pub fn run_anonymize(a: &AnonymizeArgs) -> anyhow::Result<()> {
    let engine = if engine_wanted(a)? {
        Some(engine_session(&a.columns, a.engine, &a.cluster)?)
    } else {
        None
    };
    let (p, file_columns) = match engine {
        Some((session, columns)) => (prepare_with(&a.columns, Some(session))?, Some(columns)),
        None => (prepare(&a.columns)?, None),
    };
    let params = p.from_project.then_some(&p.session.params);
    let Some(id) = a
        .algorithm
        .clone()
        .or_else(|| params.and_then(|p| p.algorithm.clone()))
    else {
        bail!("name the algorithm: -a ID (the project names none)");
    };
    let k = a.k.or(params.map(|p| p.k)).unwrap_or(5);
    let l = a.l.or(params.map(|p| p.l)).unwrap_or(2);
    let algo = algorithms::by_id(&id)?;
    let mut inputs = p.inputs(&a.columns)?;
    for m in a.columns.numeric.matrix_files() {
        inputs = inputs.with(&m);
    }
    // Every output checked before any work: none may be an input (the
    // table's bucket table included), and no two the same file.
    let bucket_table = a.output.as_deref().map(buckets_path);
    let outputs: Vec<&Path> = [
        a.output.as_deref(),
        bucket_table.as_deref(),
        a.release_json.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect();
    inputs.check_all(&outputs)?;
    let loaded = p.load_settings(&a.columns, &[algo.id()])?;
    let pk = a.columns.pk.load(&[algo.id()])?;
    a.columns.local_suppression.check(&[algo.id()])?;
    a.columns.numeric.check(&[algo.id()])?;
    if a.columns.local_suppression.risk_threshold.is_some() && a.k.is_some() {
        bail!("--risk-threshold replaces -k as local suppression's target: give one of them");
    }
    let mut req = p.request(algo.id(), k, l, loaded.p, p.seed)?;
    loaded.apply(&mut req.options, l)?;
    p.project_hierarchies(&mut req.options);
    pk.apply(&mut req.options, loaded.p);
    let qi = req.qi.clone();
    a.columns
        .local_suppression
        .apply(&mut req.options, &p.session.dataset, &qi)?;
    a.columns.numeric.apply(
        &mut req.options,
        &p.session.dataset,
        a.columns.local_suppression.strata.as_deref(),
        a.columns.local_suppression.weights.as_deref(),
    )?;
    let measure = p.measure(a.columns.queries, p.seed);
    let ds = &p.session.dataset;
    let roles = published_roles(&p);
    // The published files are rendered, hashed and staged beside the
    // evaluation (`run_verified_with`), and put in place only once every
    // claim has been verified.
    let stage = |release: &anonlab::release::Release| match &a.output {
        // The engine's table holds only the grouped columns: its release
        // is published by a pass over the file once it is verified.
        _ if file_columns.is_some() => Ok((None, String::new())),
        Some(out) => stage_csv_fingerprinted(release, ds, Some(&roles), out, &inputs)
            .map(|(staged, fp)| (Some(staged), fp)),
        None => Ok((
            None,
            anonlab::release::fingerprint(release, ds, Some(&roles)),
        )),
    };
    let (release, mut eval, search, staged) = if algo.id() == "full-domain" {
        let (r, e, s) = hierarchy_args::run_full_domain(&req, &measure)?;
        let staged = stage(&r);
        (r, e, Some(s), staged)
    } else {
        let (r, e, staged) = super::progress::with_bar("anonymizing", |p| {
            run_verified_with(algo.id(), &req, &measure, p, stage)
        })?;
        (r, e, None, staged)
    };
    if pk.active {
        measure_pk(&mut eval, &release, &req)?;
    }
    let (staged, mut fingerprint) = staged?;
    // The table (with its bucket tables) and the release JSON are one
    // unit: all staged, then put in place together, so a JSON that cannot
    // be written (`--release /dev/full`, a read-only directory) leaves no
    // new table beside the old JSON, and a signal leaves neither.
    let json = a
        .release_json
        .as_deref()
        .map(|out| stage_json(&release, ds, out, &inputs))
        .transpose()?;
    let (mut written, json) = match staged {
        Some(s) => (s.with(json).commit()?, None),
        None => (Vec::new(), json),
    };
    // The engine's publishing pass stages its table as it reads the file
    // (a device is written directly); it goes in place with the JSON.
    let mut unit: Vec<anonlab::data::Staged> = Vec::new();
    if let Some(columns) = &file_columns {
        let file_roles = file_roles(&roles, &p.session.identifiers_outside, ds, columns);
        let (fp, table, direct) = publish_by_engine(
            &p,
            &release,
            &file_roles,
            a.output.as_deref(),
            &inputs,
            &a.cluster,
        )?;
        fingerprint = fp;
        unit.extend(table);
        written.extend(direct);
    }
    unit.extend(json);
    written.extend(anonlab::data::commit_all(unit)?);
    let attacker = p.attacker()?;
    let (after, evaluated_for) = measure_after(ds, &release, &attacker, &eval)?;
    let not_published = p.not_published(&release);
    if a.json {
        println!(
            "{}",
            hierarchy_args::AnonymizeJson {
                eval: &eval,
                attacker: &evaluated_for,
                after: &after,
                fingerprint: &fingerprint,
                not_published: &not_published,
                recodings: p.session.recodings(),
                full_domain: search.as_ref(),
                local_suppression: release.suppression.as_ref(),
            }
            .to_json()?
        );
    } else {
        print!("{}", recode_args::human(p.session.recodings()));
        // A local suppression to a risk target promises no k: its target
        // is said instead.
        let target = release
            .suppression
            .as_ref()
            .and_then(|s| s.risk.as_ref())
            .map(|r| {
                format!(
                    "{} risk at most {}",
                    r.unit.trim_end_matches('s'),
                    r.threshold
                )
            });
        print!(
            "{}",
            human(&eval, &after, ds.records() as usize, target.as_deref())
        );
        if let Some(s) = &release.suppression {
            println!("{}", suppression_line(s));
        }
        if let Some(f) = &eval.perturbation {
            print!("{}", human::perturbation(f));
        }
        if file_columns.is_some() && a.columns.queries > 0 {
            println!("query workload: not run on the query engine's table, whose rows are combinations (the workload draws records one by one; --engine memory runs it)");
        }
        println!("release fingerprint {fingerprint}");
        if !not_published.is_empty() {
            println!(
                "not published: {} (semi-sensitive: {} cannot keep its sensitive cells apart)",
                not_published.join(", "),
                algo.id()
            );
        }
        if let Some(b) = pk.describe_bound(ds, &req.sensitive, &req.options) {
            println!("{b}");
        }
        if let Some(s) = &search {
            print!("{}", hierarchy_args::human(s));
        }
        for f in &written {
            println!("wrote {}", f.display());
        }
    }
    Ok(())
}

/// A local suppression's cells in one line: the total, per attribute,
/// the convention, and sdcMicro's greedy on the same input.
fn suppression_line(s: &anonlab::release::CellSuppression) -> String {
    let per: Vec<String> = s
        .suppressed_cells
        .iter()
        .map(|a| format!("{} {}", a.attribute, thousands(a.cells as usize)))
        .collect();
    let mut line = format!(
        "suppressed cells: {} ({}); {}",
        thousands(s.total as usize),
        per.join(", "),
        s.convention.describe()
    );
    if let Some(g) = s.greedy_total {
        line.push_str(&format!(
            "; sdcMicro's greedy on the same input: {}{}{}",
            if s.greedy_stopped { "more than " } else { "" },
            thousands(g as usize),
            if s.method == "search" {
                ""
            } else {
                " (kept: fewer)"
            }
        ));
    }
    if let Some(r) = &s.risk {
        line.push_str(&format!(
            "\nrisk target {}: {}; {} above it {} → {}, max {:.4} → {:.4}",
            r.threshold,
            r.basis,
            r.unit,
            thousands(r.above_before as usize),
            thousands(r.above_after as usize),
            r.max_before,
            r.max_after
        ));
    }
    if let Some(h) = &s.households {
        line.push_str(&format!(
            "\nsuppressed cells by household size ('{}'):",
            h.column
        ));
        for row in &h.by_size {
            let per: Vec<String> = row
                .cells
                .iter()
                .filter(|a| a.cells > 0)
                .map(|a| format!("{} {}", a.attribute, thousands(a.cells as usize)))
                .collect();
            line.push_str(&format!(
                "\n  size {}: {} households ({} touched), {} records ({} touched), {} cells{}",
                row.size,
                thousands(row.households as usize),
                thousands(row.households_touched as usize),
                thousands(row.records as usize),
                thousands(row.records_touched as usize),
                thousands(row.total as usize),
                if per.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", per.join(", "))
                }
            ));
        }
    }
    line
}

/// Roles for rendering: the session's, which [`prepare_with`] set from
/// the flags when they give roles (a flag column that marks sensitive
/// cells is an identifier unless a project publishes it on purpose).
pub(super) fn published_roles(p: &Prepared) -> Vec<Role> {
    p.session.roles.as_slice().to_vec()
}

/// The after figures of `release` for `attacker` (`assess::After`, the
/// measurement every surface reads), and who the evaluation's own linkage
/// and breach figures are for: the attacker of the release, who knows every
/// quasi-identifier it publishes — said in the same words.
pub(super) fn measure_after(
    ds: &Dataset,
    release: &anonlab::release::Release,
    attacker: &Attacker,
    eval: &Evaluation,
) -> anyhow::Result<(After, AfterAttacker)> {
    let progress = Progress::new();
    let after = After::measure_with(
        ds,
        release,
        attacker,
        attacker.threshold,
        Some(eval),
        &progress,
    )?;
    let of_release = Attacker::of_release(release, attacker.visible, attacker.threshold);
    Ok((after, AfterAttacker::of(ds, release, &of_release)))
}
