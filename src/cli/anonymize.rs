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
use super::pk_args::PkArgs;
use super::{thousands, CsvArgs};

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
    pub(super) session: Session,
    /// A project without role flags: its session makes every request
    /// (`Session::request`), as the TUI and the report do.
    pub(super) from_session: bool,
    qi: Vec<usize>,
    pub(super) sensitive: Vec<usize>,
    identifiers: Vec<usize>,
    /// Semi-sensitive columns and the LGB options built from them.
    semi_sensitive: Vec<usize>,
    options: algorithms::Options,
    /// --seed, else the project's, else 42.
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
    let engine = opened.is_some();
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
    let seed = c.seed.unwrap_or(if from_project {
        session.params.seed
    } else {
        42
    });
    if c.pk.sample.is_some() {
        let ds = (*session.dataset).clone();
        session.dataset = std::sync::Arc::new(c.pk.sample(ds, seed)?);
    }
    let role_flags =
        !c.qi.is_empty() || !c.sensitive.is_empty() || !c.identifier.is_empty() || c.lgb.any();
    if from_project && !role_flags {
        let roles = &session.roles;
        return Ok(Prepared {
            qi: roles.with(Role::QuasiIdentifier),
            sensitive: roles.with(Role::Sensitive),
            identifiers: roles.with(Role::Identifier),
            semi_sensitive: roles.with(Role::SemiSensitive),
            options: algorithms::Options::default(),
            seed,
            from_session: true,
            session,
        });
    }
    let label = session.label();
    let ds = &session.dataset;
    let idx = |names: &[String]| -> anyhow::Result<Vec<usize>> {
        names
            .iter()
            .map(|n| ds.column_index(n).with_context(|| label.clone()))
            .collect()
    };
    // A project's roles unless the flags name the columns: its
    // semi-sensitive attributes count as QIs, since an attacker may know
    // their non-sensitive cells (LGB reads their cells from --semi-sensitive).
    let roles = &session.roles;
    let qi = if from_project && c.qi.is_empty() {
        let mut qi = roles.with(Role::QuasiIdentifier);
        qi.extend(roles.with(Role::SemiSensitive));
        qi
    } else {
        idx(&c.qi)?
    };
    let sensitive = if from_project && c.sensitive.is_empty() {
        roles.with(Role::Sensitive)
    } else {
        idx(&c.sensitive)?
    };
    let identifiers = if from_project && c.identifier.is_empty() {
        roles.with(Role::Identifier)
    } else if engine {
        Vec::new()
    } else {
        idx(&c.identifier)?
    };
    for s in &sensitive {
        if qi.contains(s) {
            bail!(
                "'{}' is both a quasi-identifier and the sensitive attribute",
                ds.col(*s).name()
            );
        }
    }
    // --t-closeness wins; without it, the project's choice (the TUI's `T`)
    // for the attributes LGB protects here: the --semi-sensitive and the
    // sensitive ones (the project's semi-sensitive attributes are QIs here).
    let mut lgb = c.lgb.clone();
    if from_project && lgb.t_closeness.is_empty() {
        for (name, t) in &session.params.t_closeness {
            let col = ds.column_index(name).with_context(|| label.clone())?;
            if sensitive.contains(&col) || lgb.semi_sensitive.contains(name) {
                lgb.t_closeness.push(format!("{name}={t}"));
            } else {
                eprintln!("anonlab: warning: the project's t-closeness for '{name}' is not applied: here '{name}' is neither --semi-sensitive nor --sensitive");
            }
        }
    }
    let options = lgb.options(ds, seed, &qi, &sensitive)?;
    let semi_sensitive: Vec<usize> = options.semi_sensitive.iter().map(|(c, _)| *c).collect();
    // The session's roles are the ones the release is published with:
    // the flags' (checked against each other by the library), the flag
    // column of --sensitive-flag hidden as a project hides it
    // (`Session::apply_roles`).
    let names = |cols: &[usize]| -> Vec<String> {
        cols.iter().map(|&c| ds.col(c).name().to_string()).collect()
    };
    let cells = match lgb.source(ds, seed)? {
        Some(source) => names(&semi_sensitive)
            .into_iter()
            .map(|name| Cells::of(name, source.clone()))
            .collect(),
        None => Vec::new(),
    };
    let spec = RoleSpec {
        // The engine's identifiers are outside its table (skipped).
        identifiers: names(&identifiers)
            .into_iter()
            .chain(session.identifiers_outside.iter().cloned())
            .collect(),
        quasi_identifiers: names(&qi),
        sensitive: names(&sensitive),
        semi_sensitive: names(&semi_sensitive),
        cells,
        ..RoleSpec::default()
    };
    session.apply_roles(&spec).with_context(|| label.clone())?;
    Ok(Prepared {
        session,
        from_session: false,
        qi,
        sensitive,
        identifiers,
        semi_sensitive,
        options,
        seed,
    })
}

impl Prepared {
    /// The attacker the after figures are for (`assess::After`): from a
    /// project, the session's (`attacker.known`, hidden cells as the
    /// session has them), as the TUI and the report have it; from flags,
    /// one who knows every --qi and --semi-sensitive attribute, the
    /// semi-sensitive ones' sensitive cells hidden.
    pub(super) fn attacker(&self) -> anyhow::Result<Attacker> {
        if self.from_session {
            return Ok(self.session.attacker()?);
        }
        let mut known = self.qi.clone();
        for &c in &self.semi_sensitive {
            if !known.contains(&c) {
                known.push(c);
            }
        }
        let mut attacker =
            Attacker::knowing(known.clone(), known.len(), self.session.attacker.threshold);
        attacker.hidden = known
            .iter()
            .map(|c| {
                self.options
                    .semi_sensitive
                    .iter()
                    .find(|(s, _)| s == c)
                    .map(|(_, cells)| std::sync::Arc::new(cells.clone()))
            })
            .collect();
        Ok(attacker)
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

    /// The request for one algorithm. From a project: the session's
    /// (`Session::request`: LGB gets the semi-sensitive cells, the others
    /// leave the semi-sensitive columns out). From flags: LGB gets the
    /// semi-sensitive cells, the others the semi-sensitive columns as QIs
    /// (`LgbArgs`' doc: the LGB paper's baselines).
    pub(super) fn request(
        &self,
        algorithm: &str,
        k: u32,
        l: u32,
        seed: u64,
    ) -> anyhow::Result<Request<'_>> {
        if self.from_session {
            let mut req = self.session.request(algorithm, k, l)?;
            req.seed = seed;
            return Ok(req);
        }
        let lgb = LgbArgs::reads_semi_sensitive(algorithm);
        let mut qi = self.qi.clone();
        if !lgb {
            qi.extend(&self.semi_sensitive);
        }
        let mut options = if lgb {
            self.options.clone()
        } else {
            algorithms::Options::default()
        };
        options
            .identifiers_outside
            .clone_from(&self.session.identifiers_outside);
        Ok(Request {
            ds: &self.session.dataset,
            qi,
            sensitive: self.sensitive.clone(),
            identifiers: self.identifiers.clone(),
            k,
            l,
            seed,
            options,
        })
    }

    /// The command's loaded hierarchy and full-domain flags, the project's
    /// settings where a flag is not given.
    pub(super) fn load_settings(
        &self,
        c: &Columns,
        ids: &[&str],
    ) -> anyhow::Result<hierarchy_args::Loaded> {
        let (params, conditions) = if self.from_session {
            (
                self.session.params.clone(),
                self.session.conditions.as_ref(),
            )
        } else {
            (anonlab::data::Params::default(), None)
        };
        c.hierarchy.load(ids, &params, conditions)
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
    let params = p.from_session.then_some(&p.session.params);
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
    // LGB protects semi-sensitive cells on their own (the paper's setting
    // has a sensitive attribute too, but does not need one).
    let semi_only = algo.needs().semi_sensitive && !p.options.semi_sensitive.is_empty();
    if algo.needs().l && p.sensitive.is_empty() && !semi_only {
        bail!(
            "{} needs a sensitive attribute: add --sensitive COL",
            algo.id()
        );
    }
    let inputs = p.inputs(&a.columns)?;
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
    let mut req = p.request(algo.id(), k, l, p.seed)?;
    loaded.apply(&mut req.options, l)?;
    p.project_hierarchies(&mut req.options);
    pk.apply(&mut req.options, loaded.p);
    let measure = Measure {
        queries: a.columns.queries,
        query_seed: p.seed,
    };
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
    if let Some(columns) = &file_columns {
        let file_roles = file_roles(&roles, &p.session.identifiers_outside, ds, columns);
        let (fp, file) = publish_by_engine(
            &p,
            &release,
            &file_roles,
            a.output.as_deref(),
            &inputs,
            &a.cluster,
        )?;
        fingerprint = fp;
        written.extend(file);
    }
    // Without a table staged here (no -o, or the engine's publishing
    // pass, which writes its table as it reads the file), the JSON alone.
    if let Some(json) = json {
        written.push(json.path().to_path_buf());
        json.commit()?;
    }
    let attacker = p.attacker()?;
    let (after, evaluated_for) = measure_after(ds, &release, &attacker, &eval)?;
    if a.json {
        println!(
            "{}",
            hierarchy_args::json(&eval, &evaluated_for, &after, &fingerprint, search.as_ref())?
        );
    } else {
        print!("{}", human(&eval, &after, ds.records() as usize));
        if file_columns.is_some() && a.columns.queries > 0 {
            println!("query workload: not run on the query engine's table, whose rows are combinations (the workload draws records one by one; --engine memory runs it)");
        }
        println!("release fingerprint {fingerprint}");
        let left_out: Vec<&str> = p
            .semi_sensitive
            .iter()
            .filter(|c| !release.quasi_identifiers.contains(c))
            .map(|&c| ds.col(c).name())
            .collect();
        if p.from_session && !left_out.is_empty() {
            println!(
                "not published: {} (semi-sensitive: {} cannot keep its sensitive cells apart)",
                left_out.join(", "),
                algo.id()
            );
        }
        if let Some(b) = pk.describe_bound(ds, &p.sensitive, &req.options) {
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

/// Whether the query engine reads the file (`--engine`): refused with a
/// reason when asked for what it cannot do; `auto` takes it only where
/// it can.
fn engine_wanted(a: &AnonymizeArgs) -> anyhow::Result<bool> {
    // -a, else the algorithm a project names.
    let id = match (&a.algorithm, &a.columns.project) {
        (Some(id), _) => Some(id.clone()),
        (None, Some(project)) => Project::load(project)?.params.algorithm,
        (None, None) => None,
    };
    let algo = id.as_deref().map(algorithms::by_id).transpose()?;
    let algos: Vec<&dyn algorithms::Algorithm> = algo.as_deref().into_iter().collect();
    let flag = match engine_flag(&a.columns, a.engine, &a.cluster, &algos)? {
        None => return Ok(false),
        Some(EngineBy::Auto) => return Ok(true),
        Some(EngineBy::Flag(flag)) => flag,
    };
    let Some(algo) = algo else {
        bail!("name the algorithm: -a ID");
    };
    if !algo.needs().grouped {
        bail!(
            "{} ({}) reads every record, and {flag} reads the file as a frequency table of distinct combinations; read the file in memory (--engine memory) for it",
            algo.name(),
            algo.id()
        );
    }
    // A project's sensitive attributes are checked once it is open.
    if algo.needs().l && a.columns.sensitive.is_empty() && a.columns.project.is_none() {
        bail!(
            "{} needs a sensitive attribute: add --sensitive COL",
            algo.id()
        );
    }
    Ok(true)
}

/// Why the query engine reads the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EngineBy {
    /// `--engine auto` took it (a large file, runs that fit a table).
    Auto,
    /// The flag that asked for it: `--cluster` or `--engine datafusion`.
    Flag(&'static str),
}

/// Whether runs of `algos` read the file through the query engine
/// (`anonymize` and `compare`), and why; `None` for memory. `--cluster` is the engine on other
/// machines: the same table, the same refusals, named by the flag given.
/// What no run can do on a frequency table is refused here, with the
/// reason; whether each algorithm reads one is the caller's question
/// (`auto` takes the engine only when all do).
pub(super) fn engine_flag(
    c: &Columns,
    engine: Engine,
    cluster: &super::cluster::ClusterClientArgs,
    algos: &[&dyn algorithms::Algorithm],
) -> anyhow::Result<Option<EngineBy>> {
    let on_cluster = cluster.cluster.is_some();
    if on_cluster && engine == Engine::Memory {
        bail!("--cluster builds the frequency table on the cluster, and --engine memory reads the file here; give one of them");
    }
    let flag = if on_cluster {
        "--cluster"
    } else {
        "--engine datafusion"
    };
    if let Some(file) = &c.project {
        return project_engine(c, file, engine, on_cluster);
    }
    match engine {
        Engine::Memory => Ok(None),
        Engine::Auto if !on_cluster => Ok((c.lgb.sensitive_density.is_none()
            && c.pk.sample.is_none()
            && !algos.is_empty()
            && algos.iter().all(|a| a.needs().grouped)
            && c.file.as_deref().is_some_and(|f| {
                super::source(f, &c.csv, Engine::Auto, None)
                    .is_ok_and(|s| s.reads_by_engine(super::ENGINE_BUILT))
            }))
        .then_some(EngineBy::Auto)),
        _ => {
            if c.lgb.sensitive_density.is_some() {
                bail!("--sensitive-density marks cells by their row, and {flag} reads combinations, not rows in order; use --engine memory");
            }
            if c.pk.sample.is_some() {
                bail!("--sample draws records by their row, and {flag} reads combinations; use --engine memory");
            }
            Ok(Some(EngineBy::Flag(flag)))
        }
    }
}

/// Whether a project's runs read its file through the query engine: a
/// project saved from a session over the frequency table does (the file
/// may not fit in memory) unless `--engine memory` reads it whole; one
/// read in memory is read so again.
fn project_engine(
    c: &Columns,
    file: &Path,
    engine: Engine,
    on_cluster: bool,
) -> anyhow::Result<Option<EngineBy>> {
    const FLAG: &str = "the project (saved from a session over the query engine's frequency table)";
    if on_cluster {
        bail!("--cluster reads a data file given on the command line; a project's data is read on this machine");
    }
    if engine == Engine::Memory {
        return Ok(None);
    }
    let grouped = Project::load(file)?.data.grouped.is_some();
    if !grouped {
        if engine == Engine::Datafusion {
            bail!("--engine datafusion reads a data file given on the command line, or a project saved from a session over the query engine's frequency table; this project's data is read in memory");
        }
        return Ok(None);
    }
    if c.lgb.sensitive_density.is_some() {
        bail!("--sensitive-density marks cells by their row, and {FLAG} reads combinations, not rows in order; use --engine memory");
    }
    if c.pk.sample.is_some() {
        bail!("--sample draws records by their row, and {FLAG} reads combinations; use --engine memory");
    }
    Ok(Some(EngineBy::Flag(FLAG)))
}

/// The session of `anonymize --engine datafusion`: the frequency table of
/// the columns the algorithm reads, as a grouped dataset, and every
/// column of the file. Identifiers are checked against the file and left
/// out (a column unique per record would make the table as large as the
/// file).
#[cfg(feature = "engine")]
pub(super) fn engine_session(
    c: &Columns,
    engine: Engine,
    cluster: &super::cluster::ClusterClientArgs,
) -> anyhow::Result<(Session, Vec<String>)> {
    use anonlab::data::SensitivitySource;
    if let Some(project) = &c.project {
        // Saved from a grouped session (`project_engine`): its table's
        // columns and identifiers are the project's.
        let loaded = Project::load(project)?;
        if let Some(w) = loaded.data_changed() {
            eprintln!("anonlab: warning: {w}");
        }
        let (mut session, file) = anonlab_scale::grouped::open_project(&loaded)
            .with_context(|| format!("project {}", project.display()))?;
        // --identifier adds to the project's: never published either.
        for id in &c.identifier {
            if !file.columns.contains(id) {
                return Err(anonlab::error::Error::UnknownColumn {
                    name: id.clone(),
                    available: anonlab::error::listed(
                        &file.columns,
                        anonlab::error::COLUMNS_LISTED,
                    ),
                }
                .into());
            }
            if !session.identifiers_outside.contains(id) {
                session.identifiers_outside.push(id.clone());
            }
        }
        return Ok((session, file.columns));
    }
    let Some(file) = &c.file else {
        bail!("--engine datafusion reads a data file given on the command line");
    };
    // The columns the algorithm reads: the roles' and those the cells'
    // source reads (every semi-sensitive attribute's cells marked by it).
    let source = match &c.lgb.sensitive_flag {
        Some(flag) => Some(SensitivitySource::FlagColumn {
            column: flag.clone(),
        }),
        None => c
            .lgb
            .sensitive_when
            .as_ref()
            .map(|rule| SensitivitySource::Rule { rule: rule.clone() }),
    };
    let roles = RoleSpec {
        identifiers: c.identifier.clone(),
        quasi_identifiers: c.qi.clone(),
        sensitive: c.sensitive.clone(),
        semi_sensitive: c.lgb.semi_sensitive.clone(),
        cells: source
            .map(|source| Cells {
                column: None,
                source,
            })
            .into_iter()
            .collect(),
        ..RoleSpec::default()
    };
    let source = super::source(file, &c.csv, engine, Some(cluster))?;
    let opened = super::open(&source, &roles)?;
    let file_columns = opened.file_columns.unwrap_or_default();
    Ok((opened.session, file_columns))
}

/// The release published through the cluster `--cluster` names, if any:
/// the scan there, the writing here.
#[cfg(feature = "cluster")]
fn publish_on_cluster(
    a: &super::cluster::ClusterClientArgs,
    job: &anonlab_scale::publish::PublishJob<'_>,
) -> anyhow::Result<Option<anonlab_scale::publish::PublishReport>> {
    match a.cluster()? {
        Some(cluster) => Ok(Some(anonlab_scale::publish::publish_on(&cluster, job)?)),
        None => Ok(None),
    }
}

#[cfg(all(feature = "engine", not(feature = "cluster")))]
fn publish_on_cluster(
    a: &super::cluster::ClusterClientArgs,
    _: &anonlab_scale::publish::PublishJob<'_>,
) -> anyhow::Result<Option<anonlab_scale::publish::PublishReport>> {
    no_cluster(a).map(|()| None)
}

#[cfg(all(feature = "engine", not(feature = "cluster")))]
fn no_cluster(a: &super::cluster::ClusterClientArgs) -> anyhow::Result<()> {
    if a.cluster.is_some() {
        bail!("this build of anonlab has no cluster (it needs the `cluster` feature); use --engine datafusion");
    }
    Ok(())
}

#[cfg(not(feature = "engine"))]
pub(super) fn engine_session(
    _: &Columns,
    _: Engine,
    _: &super::cluster::ClusterClientArgs,
) -> anyhow::Result<(Session, Vec<String>)> {
    bail!("this build of anonlab has no query engine (it needs the `engine` feature); use --engine memory")
}

/// The roles of the file's columns for the engine's publishing pass:
/// those of the grouped table's columns ([`published_roles`]), the
/// identifiers, and every other column passed through.
pub(super) fn file_roles(
    grouped: &[Role],
    identifiers: &[String],
    ds: &Dataset,
    file_columns: &[String],
) -> Vec<Role> {
    file_columns
        .iter()
        .map(|name| {
            if identifiers.contains(name) {
                Role::Identifier
            } else {
                ds.column_index(name)
                    .map_or(Role::Insensitive, |i| grouped[i])
            }
        })
        .collect()
}

/// Publish a verified release made on the engine's table: to `output`, or
/// only its fingerprint. Gives the fingerprint and the file written.
#[cfg(feature = "engine")]
pub(super) fn publish_by_engine(
    p: &Prepared,
    release: &anonlab::release::Release,
    roles: &[Role],
    output: Option<&Path>,
    inputs: &Inputs,
    cluster: &super::cluster::ClusterClientArgs,
) -> anyhow::Result<(String, Option<PathBuf>)> {
    use anonlab_scale::engine::EngineOptions;
    use anonlab_scale::publish::{publish, PublishJob};
    let Some(file) = &p.session.source else {
        bail!("the query engine's session has no data file");
    };
    let mut job = PublishJob::new(
        file,
        &p.session.csv,
        &p.session.dataset,
        release,
        roles,
        inputs,
    );
    if let Some(out) = output {
        job = job.to(out);
    }
    let report = match publish_on_cluster(cluster, &job)? {
        Some(report) => report,
        None => publish(&job, &EngineOptions::default())?,
    };
    Ok((report.fingerprint, report.file))
}

#[cfg(not(feature = "engine"))]
pub(super) fn publish_by_engine(
    _: &Prepared,
    _: &anonlab::release::Release,
    _: &[Role],
    _: Option<&Path>,
    _: &Inputs,
    _: &super::cluster::ClusterClientArgs,
) -> anyhow::Result<(String, Option<PathBuf>)> {
    bail!("this build of anonlab has no query engine (it needs the `engine` feature)")
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

fn human(e: &Evaluation, after: &After, rows: usize) -> String {
    let mut o = String::new();
    let l = e.l.map_or(String::new(), |l| format!(", l = {l}"));
    let _ = writeln!(
        o,
        "{}: k = {}{l}, seed {} — {:.1} ms",
        e.algorithm, e.k, e.seed, e.time_ms
    );
    let _ = writeln!(o, "verified by the independent checker:");
    for c in &e.verification.checks {
        let _ = writeln!(
            o,
            "  {} {}: {}",
            if c.holds { "ok  " } else { "FAIL" },
            c.claim,
            c.detail
        );
    }
    let _ = writeln!(
        o,
        "{} groups, {} buckets, {} of {} rows suppressed",
        thousands(e.groups),
        thousands(e.buckets),
        thousands(e.suppressed),
        thousands(rows)
    );
    // The after figures, for the attacker they name (`assess::After`).
    let _ = writeln!(o, "after ({}):", after.attacker);
    let k = &after.key_count.summary;
    let _ = writeln!(
        o,
        "re-identification (key count): mean {:.4}, max {:.4}, {} above {:.3}",
        k.mean,
        k.max,
        thousands(k.records_above_threshold),
        k.threshold
    );
    let r = &after.linkage.summary;
    let _ = writeln!(
        o,
        "re-identification (linkage): mean {:.4}, max {:.4}, {} above {:.3}",
        r.mean,
        r.max,
        thousands(r.records_above_threshold),
        r.threshold
    );
    if let Some(b) = &after.breach {
        let s = &b.distribution.summary;
        let _ = writeln!(
            o,
            "breach probability: mean {:.4}, max {:.4}, {} above {:.3}",
            s.mean,
            s.max,
            thousands(s.records_above_threshold),
            s.threshold
        );
    }
    let u = &e.utility;
    let _ = writeln!(
        o,
        "utility: C_DM {}, C_AVG {}, NCP sum {:.1} (GCP share {:.4}: 0 = nothing generalized, 1 = everything suppressed)",
        thousands(u.discernibility as usize),
        u.average_class_size.map_or("–".into(), |v| format!("{v:.3}")),
        u.ncp,
        u.gcp
    );
    if let Some(q) = &e.queries {
        let _ = writeln!(
            o,
            "query workload: {} of {} queries, mean relative error {:.4} (seed {})",
            q.queries_used,
            q.queries_used + q.skipped,
            q.mean_relative_error,
            q.seed
        );
    }
    if let Some(q) = &e.probabilistic_queries {
        let _ = writeln!(
            o,
            "  answered by probabilistic counting per bucket (LGB paper, 4.2): mean relative error {:.4}",
            q.mean_relative_error
        );
    }
    if let Some(m) = &e.pk {
        let _ = writeln!(
            o,
            "p-sensitive measures (p = {}): IL {:.1} ({:.4} per tuple), mean Hom {:.4} ({} groups not p-sensitive), mean Div {:.4}",
            m.p,
            m.information_loss,
            m.information_loss_per_tuple,
            m.mean_homogeneity,
            m.groups_not_p_sensitive,
            m.mean_diversity
        );
    }
    for b in &e.local_breach {
        let s = &b.distribution.summary;
        let _ = writeln!(
            o,
            "breach of the {} sensitive cells of {}: mean {:.4}, max {:.4}, {} above {:.3}",
            thousands(b.cells),
            b.attribute,
            s.mean,
            s.max,
            thousands(s.records_above_threshold),
            s.threshold
        );
    }
    if let Some(c) = &e.correspondence {
        let _ = writeln!(o, "{}", correspondence_line(c));
    }
    o
}

/// GLP and reconstruction error (refining-partition paper) in one line.
fn correspondence_line(c: &anonlab::metrics::CorrespondenceLoss) -> String {
    let bound = match (c.re_lower_bound, c.re_ratio()) {
        (Some(b), Some(r)) => {
            format!(" = {r:.4} × the lower bound n(1 − 1/ℓ) = {b:.1} (Property 8)")
        }
        _ => String::new(),
    };
    format!(
        "correspondence loss of {}: GLP {:.4} (Definition 3; {} of {} records lose some, max NLP {:.4}); reconstruction error {:.1}{bound}",
        c.attribute,
        c.glp,
        thousands(c.records_with_loss),
        thousands(c.records),
        c.nlp_max,
        c.reconstruction_error
    )
}
