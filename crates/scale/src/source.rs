//! A [`Source`] opened wherever it is read: in memory by the core, or
//! through the frequency table the query engine builds here or on a
//! cluster. Every front end built with the engine opens its data here, so
//! the choice (`Source::reads_by_engine`) and what the table holds
//! (`RoleSpec::grouped_columns`) are the same for every command and the
//! TUI.

use anonlab::error::{listed_columns, Error, Parameter, Result, Setting};
use anonlab::session::{Engine, Opened, RoleSpec, Session, Source};

use crate::engine::{frequency_table, EngineOptions, FrequencyTable};

/// Open `source` for a session with `roles` (which the caller applies:
/// `Session::apply_roles`). In memory, the whole file. Through the query
/// engine, the frequency table of the columns `roles` reads, as a grouped
/// dataset: the file's first records are read first, so that a column
/// the roles name that the file lacks is refused before the whole file is
/// read; identifiers are checked against the file and left out of the
/// table (a column unique per record would make it as large as the
/// file), kept as `Session::identifiers_outside`. On a cluster the same
/// table, the file read there (no sample is read here).
pub fn open(source: &Source, roles: &RoleSpec) -> Result<Opened> {
    if !source.reads_by_engine(true) {
        return source.open().map(Opened::in_memory);
    }
    let Some(path) = &source.path else {
        return Err(Error::invalid(
            Parameter::Engine,
            "the embedded demo is read in memory, not through the query engine",
        ));
    };
    let columns = roles.grouped_columns()?;
    if columns.is_empty() {
        return Err(Error::unmet(
            "no quasi-identifiers: the query engine's frequency table holds the columns given a role, and none is given",
            Setting::QuasiIdentifiers,
        ));
    }
    let csv = &source.csv;
    let (table, sample) = match &source.engine {
        Engine::Cluster(spec) => (on_cluster(spec, path, csv, &columns)?, None),
        _ => {
            let file = crate::grouped::read_file(path, csv, &columns, &roles.identifiers)?;
            let table = frequency_table(path, csv, &columns, &EngineOptions::default())?;
            (table, Some(file.sample))
        }
    };
    for id in &roles.identifiers {
        if !table.file_columns().contains(id) {
            return Err(Error::UnknownColumn {
                name: id.clone(),
                available: listed_columns(table.file_columns()),
            });
        }
    }
    let mut session = Session::new(table.to_dataset()?, Some(path.clone()), csv.clone());
    session.identifiers_outside = roles.identifiers.clone();
    Ok(Opened {
        session,
        file_columns: Some(table.file_columns().to_vec()),
        sample,
    })
}

/// Check, cheaply, that the columns `roles` names are columns of the
/// file a local query engine would read: its first records are read, not
/// the whole file, so a front end can refuse a typo before it takes the
/// terminal or the engine reads everything. Nothing is read for a source
/// read in memory (opening it reads the file) or on a cluster (its file
/// need not be on this machine).
pub fn check(source: &Source, roles: &RoleSpec) -> Result<()> {
    let Some(path) = &source.path else {
        return Ok(());
    };
    if !source.reads_by_engine(true) || matches!(source.engine, Engine::Cluster(_)) {
        return Ok(());
    }
    let columns = roles.grouped_columns()?;
    crate::grouped::read_file(path, &source.csv, &columns, &roles.identifiers).map(|_| ())
}

/// The table built on the cluster `spec` names.
#[cfg(feature = "cluster")]
fn on_cluster(
    spec: &anonlab::session::ClusterSpec,
    path: &std::path::Path,
    csv: &anonlab::data::CsvOptions,
    columns: &[String],
) -> Result<FrequencyTable> {
    crate::cluster::Cluster::of(spec)?.frequency_table(path, csv, columns)
}

#[cfg(not(feature = "cluster"))]
fn on_cluster(
    _: &anonlab::session::ClusterSpec,
    _: &std::path::Path,
    _: &anonlab::data::CsvOptions,
    _: &[String],
) -> Result<FrequencyTable> {
    Err(Error::invalid(
        Parameter::Engine,
        "this build of anonlab has no cluster (it needs the `cluster` feature); read the file with the query engine here",
    ))
}
