//! Where a session's data comes from: a [`Source`] (a file, its format
//! and how the reader reads it, and where it is read — in memory, by the
//! query engine, on a cluster) that every command and the TUI open the
//! same way.
//!
//! This crate reads in memory only ([`Source::open`]); the query engine
//! and the cluster are `anonlab-scale`'s, above it, whose
//! `anonlab_scale::source::open` takes the same `Source` and
//! [`RoleSpec`] and reads it in memory through this one when that is
//! where it is read. So the decision memory / engine / cluster is made in
//! one place ([`Source::reads_by_engine`]) for every front end, while the
//! core still knows nothing of the engine.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::data::{formats, load_csv_bytes, CsvOptions, Dataset, InputFormat, Project};
use crate::error::{Error, Parameter, Result};

use super::{GroupedFile, RoleSpec, Session, DEMO_CSV, DEMO_LABEL};

/// The file size from which [`Engine::Auto`] takes the query engine: the
/// in-memory path holds 10 million census rows (914 MB of CSV) in 820 MB;
/// above that the engine's bounded memory is worth its start-up.
pub const ENGINE_FROM_BYTES: u64 = 1 << 30;

/// Where a source's data is read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Engine {
    /// The query engine for a plain CSV, Parquet or Arrow file over
    /// [`ENGINE_FROM_BYTES`] in a build that has one, else memory.
    #[default]
    Auto,
    /// The whole file in memory: every screen and algorithm, roles
    /// changed at will.
    Memory,
    /// The embedded query engine (Apache DataFusion) streams the file and
    /// builds the frequency table of the columns given a role, in memory
    /// that follows its combinations, not its records.
    DataFusion,
    /// The same table built on a cluster (Apache Ballista).
    Cluster(ClusterSpec),
}

/// The cluster a source's frequency table is built on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterSpec {
    /// Its scheduler's `HOST:PORT`.
    pub address: String,
    /// The cluster's token file (mode 600); `None`: the file the
    /// environment names (`anonlab_scale::cluster::TOKEN_FILE_VAR`).
    pub token_file: Option<PathBuf>,
    /// How long the client waits without progress (`--cluster-timeout`):
    /// for an executor first, then between signs of the job's progress (a
    /// task finished, or one running on an executor still asking for work).
    pub timeout: Duration,
}

/// A session's data: the file (or the embedded demo), how it is read and
/// where.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Source {
    /// The data file; `None` for the embedded demo.
    pub path: Option<PathBuf>,
    /// How the file is read: its format (`csv.format`; `None`: by its
    /// extension, else its first bytes, else CSV), delimiter, missing
    /// values, column kinds and the reader's limits.
    pub csv: CsvOptions,
    pub engine: Engine,
}

/// A source opened, before its roles are applied
/// ([`Session::apply_roles`]): the session, and over a frequency table
/// what it knows of the file beyond the table.
#[derive(Debug, Clone)]
pub struct Opened {
    pub session: Session,
    /// Over a frequency table, every column of the file in its order (the
    /// publishing pass gives each its role); `None` in memory.
    pub file_columns: Option<Vec<String>>,
    /// Over a frequency table built here, the file's first records for a
    /// front end to show ([`super::SAMPLE_RECORDS`]); not read for a
    /// cluster, whose file need not be on this machine.
    pub sample: Option<Arc<Dataset>>,
}

impl Opened {
    /// A session read in memory.
    pub fn in_memory(session: Session) -> Self {
        Opened {
            session,
            file_columns: None,
            sample: None,
        }
    }

    /// What a front end showing a session over a frequency table needs
    /// of its file (the TUI's Data screen pages the sample), when both
    /// its columns and a sample were read.
    pub fn grouped_file(&self) -> Option<GroupedFile> {
        Some(GroupedFile {
            columns: self.file_columns.clone()?,
            identifiers: self.session.identifiers_outside.clone(),
            sample: self.sample.clone()?,
        })
    }
}

impl Source {
    /// A data file read as `csv` says, where [`Engine::Auto`] decides.
    pub fn file(path: impl Into<PathBuf>, csv: CsvOptions) -> Self {
        Source {
            path: Some(path.into()),
            csv,
            engine: Engine::Auto,
        }
    }

    /// The embedded demo (always read in memory).
    pub fn demo() -> Self {
        Source {
            path: None,
            csv: CsvOptions::default(),
            engine: Engine::Memory,
        }
    }

    pub fn with_engine(mut self, engine: Engine) -> Self {
        self.engine = engine;
        self
    }

    /// What the data is called in messages and reports.
    pub fn label(&self) -> String {
        match &self.path {
            Some(p) => p.display().to_string(),
            None => DEMO_LABEL.to_string(),
        }
    }

    /// The format the file is read as: the one given, else by its
    /// extension, else by its first bytes, else CSV (the demo is CSV).
    pub fn format(&self) -> InputFormat {
        match &self.path {
            Some(p) => formats::detect(p, &self.csv),
            None => InputFormat::Csv,
        }
    }

    /// Whether [`Engine::Auto`] takes the query engine in a build that
    /// has one: a plain CSV, Parquet or Arrow file (the engine reads no
    /// compressed CSV) over [`ENGINE_FROM_BYTES`].
    pub fn is_large(&self) -> bool {
        let Some(path) = &self.path else {
            return false;
        };
        matches!(
            self.format(),
            InputFormat::Csv | InputFormat::Parquet | InputFormat::Arrow
        ) && std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > ENGINE_FROM_BYTES)
    }

    /// Whether the data is read by the query engine (locally or on a
    /// cluster) rather than in memory, in a build that has the engine
    /// when `engine_built`: the one decision every front end asks.
    pub fn reads_by_engine(&self, engine_built: bool) -> bool {
        match &self.engine {
            Engine::Memory => false,
            Engine::DataFusion | Engine::Cluster(_) => true,
            Engine::Auto => engine_built && self.is_large(),
        }
    }

    /// The data of a saved project: its file (or the demo) read as the
    /// project says, in memory — or, for a project saved from a session
    /// over the query engine's frequency table, by the engine
    /// (`anonlab_scale::grouped::open_project` opens those). A project is
    /// opened through its source as a file is, so the choice of reader is
    /// made in one place ([`Source::reads_by_engine`]).
    pub fn of_project(project: &Project) -> Self {
        Source {
            path: project.data.path.clone(),
            csv: project.data.csv.clone(),
            engine: if project.data.grouped.is_some() {
                Engine::DataFusion
            } else {
                Engine::Memory
            },
        }
    }

    /// Read the data in memory, with no roles yet (the demo with its
    /// own). A source that only the query engine reads is refused: this
    /// crate has none (`anonlab_scale::source::open` reads it).
    pub fn open(&self) -> Result<Session> {
        let ds = self.read()?;
        match &self.path {
            Some(p) => Ok(Session::new(ds, Some(p.clone()), self.csv.clone())),
            None => Session::demo_of(ds),
        }
    }

    /// The dataset alone, read in memory as [`open`](Self::open) reads it
    /// (a project's session applies the project to it).
    pub fn read(&self) -> Result<Dataset> {
        if self.reads_by_engine(false) {
            let what = match self.engine {
                Engine::Cluster(_) => "no cluster (it needs the `cluster` feature); read the file with the query engine or in memory",
                _ => "no query engine (it needs the `engine` feature); read the file in memory",
            };
            return Err(Error::invalid(
                Parameter::Engine,
                format!("this build of anonlab has {what}"),
            ));
        }
        match &self.path {
            Some(p) => formats::load(p, &self.csv),
            None => load_csv_bytes(DEMO_CSV, DEMO_LABEL, &self.csv),
        }
    }

    /// [`open`](Self::open) with `roles` applied: the session a front end
    /// reading in memory works on.
    pub fn open_with(&self, roles: &RoleSpec) -> Result<Session> {
        let mut s = self.open()?;
        s.apply_roles(roles)?;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_is_the_one_given_else_the_extensions() {
        let csv = CsvOptions::default();
        assert_eq!(
            Source::file("a.csv", csv.clone()).format(),
            InputFormat::Csv
        );
        assert_eq!(
            Source::file("a.parquet", csv.clone()).format(),
            InputFormat::Parquet
        );
        assert_eq!(
            Source::file("a.csv.gz", csv.clone()).format(),
            InputFormat::CsvGzip
        );
        assert_eq!(
            Source::file("a.arrow", csv.clone()).format(),
            InputFormat::Arrow
        );
        let given = CsvOptions {
            format: Some(InputFormat::Parquet),
            ..CsvOptions::default()
        };
        assert_eq!(Source::file("a.csv", given).format(), InputFormat::Parquet);
        // A file that is not there, with no extension: CSV.
        assert_eq!(Source::file("nothing-here", csv).format(), InputFormat::Csv);
        assert_eq!(Source::demo().format(), InputFormat::Csv);
    }

    #[test]
    fn the_engine_reads_only_what_it_is_asked_or_auto_finds_large() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small.csv");
        std::fs::write(&small, "a,b\n1,2\n").unwrap();
        let s = Source::file(&small, CsvOptions::default());
        assert!(!s.is_large());
        assert!(!s.reads_by_engine(true));
        assert!(s
            .clone()
            .with_engine(Engine::DataFusion)
            .reads_by_engine(false));
        assert!(!s.clone().with_engine(Engine::Memory).reads_by_engine(true));
        // The core reads in memory only: asked for the engine, it says so.
        let e = s.with_engine(Engine::DataFusion).open().unwrap_err();
        assert_eq!(e.parameter(), Some(Parameter::Engine));
        assert!(e.to_string().contains("no query engine"), "{e}");
    }

    #[test]
    fn a_file_opens_in_memory_with_its_roles() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("d.csv");
        std::fs::write(&f, "age,zip,job\n30,1000,x\n40,1001,y\n").unwrap();
        let roles = RoleSpec {
            quasi_identifiers: vec!["zip".into(), "age".into()],
            ..RoleSpec::default()
        };
        let s = Source::file(&f, CsvOptions::default())
            .open_with(&roles)
            .unwrap();
        assert_eq!(s.label(), f.display().to_string());
        assert_eq!(s.known_columns().unwrap(), vec![1, 0]);
        let demo = Source::demo().open().unwrap();
        assert_eq!(demo.label(), DEMO_LABEL);
    }
}
