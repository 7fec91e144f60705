//! `anonymize`'s query-engine and cluster paths: whether the engine reads
//! the file, the engine's session over its frequency table, and the
//! publishing pass over the file (locally or on a cluster).

use super::*;
use anonlab::data::Staged;

/// Whether the query engine reads the file (`--engine`): refused with a
/// reason when asked for what it cannot do; `auto` takes it only where
/// it can.
pub(super) fn engine_wanted(a: &AnonymizeArgs) -> anyhow::Result<bool> {
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
pub(in crate::cli) enum EngineBy {
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
pub(in crate::cli) fn engine_flag(
    c: &Columns,
    engine: Engine,
    cluster: &crate::cli::cluster::ClusterClientArgs,
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
                crate::cli::source(f, &c.csv, Engine::Auto, None)
                    .is_ok_and(|s| s.reads_by_engine(crate::cli::ENGINE_BUILT))
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
pub(super) fn project_engine(
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
pub(in crate::cli) fn engine_session(
    c: &Columns,
    engine: Engine,
    cluster: &crate::cli::cluster::ClusterClientArgs,
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
                    available: anonlab::error::listed_columns(&file.columns),
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
    let source = crate::cli::source(file, &c.csv, engine, Some(cluster))?;
    let opened = crate::cli::open(&source, &roles)?;
    let file_columns = opened.file_columns.unwrap_or_default();
    Ok((opened.session, file_columns))
}

/// The release published through the cluster `--cluster` names, if any:
/// the scan there, the writing here.
#[cfg(feature = "cluster")]
pub(super) fn publish_on_cluster(
    a: &crate::cli::cluster::ClusterClientArgs,
    job: &anonlab_scale::publish::PublishJob<'_>,
) -> anyhow::Result<Option<(anonlab_scale::publish::PublishReport, Option<Staged>)>> {
    match a.cluster()? {
        Some(cluster) => Ok(Some(anonlab_scale::publish::publish_on_staged(
            &cluster, job,
        )?)),
        None => Ok(None),
    }
}

#[cfg(all(feature = "engine", not(feature = "cluster")))]
pub(super) fn publish_on_cluster(
    a: &crate::cli::cluster::ClusterClientArgs,
    _: &anonlab_scale::publish::PublishJob<'_>,
) -> anyhow::Result<Option<(anonlab_scale::publish::PublishReport, Option<Staged>)>> {
    no_cluster(a).map(|()| None)
}

#[cfg(all(feature = "engine", not(feature = "cluster")))]
pub(super) fn no_cluster(a: &crate::cli::cluster::ClusterClientArgs) -> anyhow::Result<()> {
    if a.cluster.is_some() {
        bail!("this build of anonlab has no cluster (it needs the `cluster` feature); use --engine datafusion");
    }
    Ok(())
}

#[cfg(not(feature = "engine"))]
pub(in crate::cli) fn engine_session(
    _: &Columns,
    _: Engine,
    _: &crate::cli::cluster::ClusterClientArgs,
) -> anyhow::Result<(Session, Vec<String>)> {
    bail!("this build of anonlab has no query engine (it needs the `engine` feature); use --engine memory")
}

/// The roles of the file's columns for the engine's publishing pass:
/// those of the grouped table's columns ([`published_roles`]), the
/// identifiers, and every other column passed through.
pub(in crate::cli) fn file_roles(
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
pub(in crate::cli) fn publish_by_engine(
    p: &Prepared,
    release: &anonlab::release::Release,
    roles: &[Role],
    output: Option<&Path>,
    inputs: &Inputs,
    cluster: &crate::cli::cluster::ClusterClientArgs,
) -> anyhow::Result<(String, Option<Staged>, Option<PathBuf>)> {
    use anonlab_scale::engine::EngineOptions;
    use anonlab_scale::publish::{publish_staged, PublishJob};
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
    let (report, staged) = match publish_on_cluster(cluster, &job)? {
        Some(done) => done,
        None => publish_staged(&job, &EngineOptions::default())?,
    };
    // A device or FIFO was written as the file was read: no staged file.
    let direct = if staged.is_none() { report.file } else { None };
    Ok((report.fingerprint, staged, direct))
}

#[cfg(not(feature = "engine"))]
pub(in crate::cli) fn publish_by_engine(
    _: &Prepared,
    _: &anonlab::release::Release,
    _: &[Role],
    _: Option<&Path>,
    _: &Inputs,
    _: &crate::cli::cluster::ClusterClientArgs,
) -> anyhow::Result<(String, Option<Staged>, Option<PathBuf>)> {
    bail!("this build of anonlab has no query engine (it needs the `engine` feature)")
}
