//! Sessions over the query engine's frequency table (issue 19): what a
//! front end opens when a file is larger than memory. The table itself is
//! [`crate::engine::frequency_table`]'s; what the session knows of the file
//! beyond it (its columns, identifiers, a sample) is the core's
//! [`GroupedFile`], filled here because reading it takes the engine.

use std::path::Path;
use std::sync::Arc;

use anonlab::data::{CsvOptions, Project};
use anonlab::error::{listed_columns, Error, Result};
use anonlab::session::{grouped_source, GroupedFile, Session, SAMPLE_RECORDS};

use crate::engine::{frequency_table, EngineOptions};

/// Read the first records of `path` and check that `grouped` (the columns
/// the frequency table will group) and `identifiers` are columns of the
/// file: cheap, so a front end can refuse a typo before the engine reads
/// the whole file.
pub fn read_file(
    path: &Path,
    csv: &CsvOptions,
    grouped: &[String],
    identifiers: &[String],
) -> Result<GroupedFile> {
    read(path, csv, grouped, identifiers, false)
}

/// [`read_file`]; for a file a project names (`from_project`), an unknown
/// column does not list the file's header ([`Error::unlisted`]).
fn read(
    path: &Path,
    csv: &CsvOptions,
    grouped: &[String],
    identifiers: &[String],
    from_project: bool,
) -> Result<GroupedFile> {
    let sample = crate::engine_scan::head(path, csv, SAMPLE_RECORDS)?;
    let columns: Vec<String> = sample
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    if let Some(name) = grouped
        .iter()
        .chain(identifiers)
        .find(|n| !columns.contains(n))
    {
        let e = Error::UnknownColumn {
            name: name.clone(),
            available: listed_columns(&columns),
        };
        return Err(if from_project {
            e.unlisted(path, columns.len())
        } else {
            e
        });
    }
    Ok(GroupedFile {
        columns,
        identifiers: identifiers.to_vec(),
        sample: Arc::new(sample),
    })
}

/// The session over the frequency table of `grouped`, built by the query
/// engine from the whole file (every column with no role yet).
pub fn session(
    file: &GroupedFile,
    path: &Path,
    csv: &CsvOptions,
    grouped: &[String],
) -> Result<Session> {
    let table = frequency_table(path, csv, grouped, &EngineOptions::default())?;
    let mut session = Session::new(table.to_dataset()?, Some(path.to_path_buf()), csv.clone());
    session.identifiers_outside = file.identifiers.clone();
    Ok(session)
}

/// The session of a project saved from a session over the query engine's
/// frequency table: the file's columns and sample read first (a column the
/// project names that the file lacks is refused before the whole file is
/// read), then the table of the project's grouped columns, with the
/// project's settings applied; and what the front ends need of the file
/// beyond the table.
pub fn open_project(project: &Project) -> Result<(Session, GroupedFile)> {
    let (path, grouped) = grouped_source(project)?;
    let csv = &project.data.csv;
    let file = read(path, csv, &grouped.columns, &grouped.identifiers, true)?;
    let table = session(&file, path, csv, &grouped.columns)?;
    let mut session = Session::with_project(table.dataset, project)
        .map_err(|e| e.unlisted(path, file.columns.len()))?;
    session.identifiers_outside = grouped.identifiers.clone();
    Ok((session, file))
}

/// The session of any project: through the frequency table when it was
/// saved from a grouped session, else read in memory.
pub fn open_any_project(project: &Project) -> Result<Session> {
    if project.data.grouped.is_some() {
        open_project(project).map(|(s, _)| s)
    } else {
        Session::from_project(project)
    }
}
