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
