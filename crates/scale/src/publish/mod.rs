//! Publishing a release made on the query engine's frequency table: one
//! streaming pass over the data file that maps each record through the
//! release's recoding and writes the published table — byte for byte the
//! table [`write_csv`](anonlab::release::write_csv) writes for the same file read in
//! memory and the same release computed there, with the same
//! [`fingerprint`](anonlab::release::fingerprint) — in memory that does not grow with
//! the file (issue 19).
//!
//! A grouped dataset (`Dataset::grouped`) holds only the columns its
//! frequency table grouped; the passthrough columns (insensitive ones,
//! published as they are) are in the file only. So the file is streamed
//! again, in file order (`data::engine_scan`), and each record is placed:
//!
//! 1. Its grouped cells are read by the reading rules and looked up in the
//!    grouped table's dictionaries (`Column::code_of`, numbers by value),
//!    giving its combination, whose group the release says (or that it is
//!    suppressed: not published). A cell or combination the table does not
//!    hold, or a combination seen more often than the table counted, means
//!    the file changed between the passes: refused, naming row, column and
//!    value.
//! 2. Its place in the output is the group's first row plus the number of
//!    the group's records before it in the file: groups in the release's
//!    order, records inside a group in file order, as the in-memory
//!    release lists them (its algorithms keep each group's rows in
//!    ascending order; `tests/publish.rs` compares the bytes).
//! 3. The record — its place, its combination and its passthrough cells'
//!    text — is spilled to one of up to [`MAX_RANGES`] scratch files, by
//!    place range. Then each range in turn is read back, put in order by
//!    place (every place of a range is taken exactly once, so no sort is
//!    needed) and written out. A range file larger than the memory budget
//!    is split into smaller ranges first, so no more than
//!    [`PublishJob::range_bytes`] of spilled rows (or one record, when a
//!    single record is larger) are ever held.
//!
//! A passthrough column's text depends on its kind, which is known only
//! after the whole file: numeric when every value is a number
//! (`data::number`) and there is one, unless `--numeric`/`--categorical`
//! forced it, as the readers decide. So its cells are spilled as read
//! (trimmed, missing marked) and written in the form `Column::display`
//! shows: a numeric column's canonical number, the text of a categorical
//! one, `?` for a missing cell.
//!
//! Memory: the grouped table and one hash entry per combination (the same
//! order as the frequency table itself), a few counters per combination
//! and per group, one batch of the scan (8,192 records), the range files'
//! write buffers (64 KiB each, at most [`MAX_RANGES`]), one range being
//! written (at most `range_bytes` of spilled rows and 8 bytes of index per
//! row), and for Parquet output one row group in the writer. None of it
//! grows with the number of records; the spilled rows take about their
//! passthrough text plus 12 bytes per published record on disk, beside the
//! output (or in `spill_dir`), and are removed when the pass ends, fails or
//! is interrupted (they are tracked as `data::output`'s temporary files).
//!
//! Output: CSV, or Parquet when the output's name ends in `.parquet`
//! (`.pq`, `.parq`) or the job says so: the same table, every column as
//! UTF-8 text holding exactly the text the CSV field holds (`?` for a
//! missing value, as in the CSV), Snappy-compressed, in row groups of at
//! most 131,072 rows or 64 MiB. The fingerprint is always the CSV table's,
//! so a Parquet release and its CSV twin carry the same fingerprint.
//! Releases that publish buckets beside the table (Anatomy, CBG, LGB) are
//! refused: the algorithms that run on a grouped table (Mondrian,
//! full-domain) keep sensitive values on their rows.
//!
//! The first pass (reading, mapping, spilling) is `pass`, its per-record
//! lookups, done on every core, `keys`; the second (reading the ranges
//! back, writing CSV or Parquet) `writer`; this file
//! holds the job, the layout of the groups and the passes' driver.
//!
//! Columns neither grouped nor passed through (identifiers, a flag column
//! not published) are not read by this pass, so a `--numeric` forced on an
//! identifier holding text is not refused here as the in-memory loader
//! refuses it.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion::prelude::SessionContext;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use rustc_hash::FxHashMap;
use sha2::{Digest, Sha256};

use crate::engine::EngineOptions;
use crate::engine_scan::{local_context, local_runtime, open_in_file_order, LOCAL_ENGINE};
use anonlab::data::number::{is_number, Decimal};
use anonlab::data::{
    stage_file, write_file, Column, ColumnKind, CsvOptions, Dataset, InputFormat, Inputs,
    KindError, Role, Scratch, Staged,
};
use anonlab::error::{Error, Parameter, Result};
use anonlab::format::thousands;
use anonlab::progress::Progress;
use anonlab::release::csv_fields::encode;
use anonlab::release::render::combine;
use anonlab::release::{Cell, Release};

/// Spilled rows held at once by default when a range of the output is
/// written: far under the machine's memory, large enough that a table of
/// a hundred million records takes a few dozen ranges.
pub const DEFAULT_RANGE_BYTES: usize = 256 << 20;

/// The most range files written at once (each holds a write buffer).
pub const MAX_RANGES: usize = 256;

/// The write buffer of each range file.
const SPILL_BUFFER: usize = 64 << 10;

/// Rows per record batch of the Parquet writer.
const PARQUET_BATCH: usize = 8192;

/// Rows per Parquet row group at most.
const PARQUET_ROW_GROUP: usize = 1 << 17;

/// A passthrough cell spilled as missing (its length field).
const MISSING: u32 = u32::MAX;

/// No group: the combination's records are suppressed.
const SUPPRESSED: u32 = u32::MAX;

/// Entries of a column's text → code cache: a column whose cells are
/// written in more spellings than this looks the rest up each time.
const CACHE_ENTRIES: usize = 1 << 16;

/// What to publish, from where, to where.
#[derive(Debug, Clone)]
pub struct PublishJob<'a> {
    /// The data file the frequency table was built from.
    pub data: &'a Path,
    /// How it is read (the frequency table's reading rules; its `format`
    /// too).
    pub opts: &'a CsvOptions,
    /// The grouped dataset the release was made on
    /// (`FrequencyTable::to_dataset`).
    pub grouped: &'a Dataset,
    pub release: &'a Release,
    /// The role of each column of the file, in the file's order, as the
    /// in-memory path passes them to `write_csv`: identifiers are dropped,
    /// insensitive columns passed through.
    pub roles: &'a [Role],
    /// The published table; `None` computes the fingerprint only (the
    /// rows are rendered and hashed, nothing is written).
    pub output: Option<&'a Path>,
    /// The files the command reads: none may be the output (the data file
    /// is checked too).
    pub inputs: &'a Inputs,
    /// CSV or Parquet; `None`: Parquet for an output named `.parquet`,
    /// `.pq` or `.parq`, else CSV.
    pub format: Option<InputFormat>,
    /// Spilled rows held in memory at once (module doc).
    pub range_bytes: usize,
    /// Where the spilled rows go; `None`: beside the output (the system's
    /// temporary directory when the output is a device).
    pub spill_dir: Option<PathBuf>,
    /// Progress and cancellation (the TUI's Esc): the records read in the
    /// first pass, then the rows written in the second, each a phase; a
    /// cancelled pass stops at its next batch or block with
    /// `Error::Cancelled`, its scratch files and temporary output removed
    /// and nothing put in place.
    pub progress: Option<Progress>,
}

impl<'a> PublishJob<'a> {
    /// A job that computes the fingerprint only ([`Self::to`] gives it an
    /// output), with the default format, memory and spill directory.
    pub fn new(
        data: &'a Path,
        opts: &'a CsvOptions,
        grouped: &'a Dataset,
        release: &'a Release,
        roles: &'a [Role],
        inputs: &'a Inputs,
    ) -> Self {
        PublishJob {
            data,
            opts,
            grouped,
            release,
            roles,
            output: None,
            inputs,
            format: None,
            range_bytes: DEFAULT_RANGE_BYTES,
            spill_dir: None,
            progress: None,
        }
    }

    /// The same job, reporting to `progress` and stopping when it is
    /// cancelled.
    pub fn watched(mut self, progress: Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// `Error::Cancelled` once the job's progress was cancelled.
    fn check(&self) -> Result<()> {
        self.progress.as_ref().map_or(Ok(()), Progress::check)
    }

    /// Start a phase of `total` steps.
    fn phase(&self, name: &'static str, index: u32, total: u64) {
        if let Some(p) = &self.progress {
            p.set_phase(name, index, 2);
            p.set_total(total);
        }
    }

    fn advance(&self, by: u64) {
        if let Some(p) = &self.progress {
            p.advance(by);
        }
    }

    /// The same job, writing the table to `output`.
    pub fn to(mut self, output: &'a Path) -> Self {
        self.output = Some(output);
        self
    }

    /// The format written: [`Self::format`] or the output's extension.
    pub fn output_format(&self) -> Result<InputFormat> {
        let parquet_name = self
            .output
            .is_some_and(|o| InputFormat::from_extension(o) == Some(InputFormat::Parquet));
        match self.format {
            None if parquet_name => Ok(InputFormat::Parquet),
            None | Some(InputFormat::Csv) => Ok(InputFormat::Csv),
            Some(InputFormat::Parquet) => Ok(InputFormat::Parquet),
            Some(other) => Err(Error::invalid(
                Parameter::Output,
                format!("the publishing pass writes csv or parquet, not {other}"),
            )),
        }
    }
}

/// What the pass did.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishReport {
    /// The file written (`None`: the fingerprint only).
    pub file: Option<PathBuf>,
    /// CSV or Parquet.
    pub format: InputFormat,
    /// The release's fingerprint (`release::fingerprint`), from the CSV
    /// table's bytes whatever the format.
    pub fingerprint: String,
    /// Records read from the file.
    pub records: u64,
    /// Rows published (records not suppressed).
    pub rows: u64,
    /// Ranges written, after any split.
    pub ranges: usize,
    /// Bytes of spilled rows of the largest range held in memory.
    pub largest_range: u64,
}

/// Publish on this machine's engine: [`publish_in`] in a local session.
pub fn publish(job: &PublishJob<'_>, engine: &EngineOptions) -> Result<PublishReport> {
    committed(publish_staged(job, engine)?)
}

/// [`publish`] with the table staged, not yet in place: the caller puts
/// it in place together with the files that go with it (the release
/// JSON), as one unit (`data::commit_all`).
pub fn publish_staged(
    job: &PublishJob<'_>,
    engine: &EngineOptions,
) -> Result<(PublishReport, Option<Staged>)> {
    let runtime = local_runtime(job.data, engine)?;
    let mut job = job.clone();
    if job.spill_dir.is_none() {
        job.spill_dir.clone_from(&engine.spill_dir);
    }
    runtime.block_on(async {
        let ctx = local_context(job.data, engine)?;
        publish_staged_in(&ctx, LOCAL_ENGINE, &job).await
    })
}

/// A staged table put in place.
fn committed((report, staged): (PublishReport, Option<Staged>)) -> Result<PublishReport> {
    if let Some(s) = staged {
        s.commit()?;
    }
    Ok(report)
}

/// [`publish_staged_in`], its table put in place.
pub async fn publish_in(
    ctx: &SessionContext,
    engine: &str,
    job: &PublishJob<'_>,
) -> Result<PublishReport> {
    committed(publish_staged_in(ctx, engine, job).await?)
}

/// Stream `job.data` in the session `ctx` (this machine's engine, or a
/// cluster's; `engine` names it in messages) and write the release's
/// published table for `job.output` through `data::output`: a regular
/// file as a synced temporary file beside it, returned staged for the
/// caller to put in place (never over an input); a device or FIFO
/// written directly (its bytes are not held in memory, a published table
/// can be many gigabytes); no output, only hashed.
pub async fn publish_staged_in(
    ctx: &SessionContext,
    engine: &str,
    job: &PublishJob<'_>,
) -> Result<(PublishReport, Option<Staged>)> {
    let format = job.output_format()?;
    let mut inputs = job.inputs.clone();
    inputs.add(job.data);
    if let Some(out) = job.output {
        inputs.check(out)?;
    }
    check_release(job)?;
    let scan = open_in_file_order(ctx, engine, job.data, job.opts).await?;
    let file_columns = scan.columns().to_vec();
    let layout = Layout::new(job, &file_columns)?;
    let mut pass = Pass::new(job, &layout, scan.format(), &inputs)?;
    let mut keys = Keys::new(job.grouped, layout.passthrough.len());
    let mut at: Vec<usize> = layout.grouped_at.clone();
    at.extend(&layout.passthrough);
    job.phase("publishing: reading the file", 1, job.grouped.records());
    // Each batch's combinations are looked up (on every core) while the
    // batch before it is placed and spilled (in file order).
    let records = scan
        .scan_staged(
            &at,
            |batch| keys.map(batch),
            |batch, mapped| pass.batch(batch, &mapped).map(|()| true),
        )
        .await?;
    let spilled = pass.finish(records, &keys.kinds)?;
    job.check()?;
    job.phase("publishing: writing the table", 2, layout.rows);
    let mut report = PublishReport {
        file: job.output.map(Path::to_path_buf),
        format,
        fingerprint: String::new(),
        records,
        rows: layout.rows,
        ranges: 0,
        largest_range: 0,
    };
    let mut writer = Writer::new(job, &layout, format, &inputs);
    let mut staged = None;
    let written = match job.output {
        Some(out) => {
            let fill = |w: &mut dyn Write| {
                writer.write(w, &spilled).map_err(|e| match e {
                    Error::Write(_, io) => io,
                    other => std::io::Error::other(other.to_string()),
                })
            };
            if is_device(out) {
                write_file(out, &inputs, fill)
            } else {
                stage_file(out, &inputs, fill).map(|s| staged = Some(s))
            }
        }
        None => writer.write(&mut std::io::sink(), &spilled),
    };
    // A cancelled write fails as an I/O error inside `write_file` (which
    // removes its temporary file); it is said as the cancellation it is.
    // A write that finished is not undone by a late cancel.
    if written.is_err() {
        job.check()?;
    }
    written?;
    report.fingerprint = writer.fingerprint.take().unwrap_or_default();
    report.ranges = writer.ranges;
    report.largest_range = writer.largest;
    Ok((report, staged))
}

/// Whether `path` names a device or FIFO (written directly, not staged).
fn is_device(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Refuse what the pass does not publish, before the file is read.
fn check_release(job: &PublishJob<'_>) -> Result<()> {
    let r = job.release;
    if r.is_bucketized() || !r.local_buckets.is_empty() {
        return Err(Error::invalid(Parameter::Engine, format!(
            "the publishing pass writes tables whose sensitive values stay on their rows; the {} release publishes bucket tables beside it (publish it from memory, --engine memory)",
            r.algorithm
        )));
    }
    if !job.grouped.is_grouped() {
        return Err(Error::Internal(
            "the publishing pass maps a file through a release made on its frequency table (a grouped dataset); a release made on the records is written from memory (release::write_csv)".into(),
        ));
    }
    if r.source_rows != job.grouped.n_rows() {
        return Err(Error::Internal(format!(
            "the release was made on a table of {} rows, and the grouped table given has {}",
            thousands(r.source_rows as u64),
            thousands(job.grouped.n_rows() as u64)
        )));
    }
    Ok(())
}

/// Where each published column comes from, and where each group starts.
struct Layout {
    /// File column of each grouped column (in the grouped table's order).
    grouped_at: Vec<usize>,
    /// File columns passed through, in file order.
    passthrough: Vec<usize>,
    names: Vec<String>,
    /// The published header.
    headers: Vec<String>,
    /// Group of each combination, or [`SUPPRESSED`].
    group_of: Vec<u32>,
    /// First output row of each group, and the rows in all (last).
    starts: Vec<u64>,
    /// Rows published.
    rows: u64,
}

impl Layout {
    fn new(job: &PublishJob<'_>, file_columns: &[String]) -> Result<Layout> {
        let (ds, release) = (job.grouped, job.release);
        if job.roles.len() != file_columns.len() {
            return Err(Error::Internal(format!(
                "{} roles given for a file of {} columns",
                job.roles.len(),
                file_columns.len()
            )));
        }
        let mut grouped_at = Vec::with_capacity(ds.n_cols());
        for c in ds.columns() {
            let at = file_columns
                .iter()
                .position(|n| n == c.name())
                .ok_or_else(|| Error::UnknownColumn {
                    name: c.name().to_string(),
                    available: anonlab::error::listed_columns(file_columns),
                })?;
            grouped_at.push(at);
        }
        // Published specially (or never): by name, as `render::passthrough`
        // excludes them by index in the records' dataset.
        let special: Vec<&str> = release
            .quasi_identifiers
            .iter()
            .chain(&release.sensitive)
            .chain(&release.identifiers)
            .map(|&c| ds.col(c).name())
            .collect();
        let passthrough: Vec<usize> = (0..file_columns.len())
            .filter(|&c| {
                job.roles[c] == Role::Insensitive && !special.contains(&file_columns[c].as_str())
            })
            .collect();
        let mut headers: Vec<String> = release
            .quasi_identifiers
            .iter()
            .map(|&c| ds.col(c).name().to_string())
            .collect();
        headers.extend(passthrough.iter().map(|&c| file_columns[c].clone()));
        headers.extend(
            release
                .sensitive
                .iter()
                .map(|&c| ds.col(c).name().to_string()),
        );
        headers.push("GID".into());
        let mut group_of = vec![SUPPRESSED; ds.n_rows()];
        let mut starts = Vec::with_capacity(release.groups.len() + 1);
        let mut rows = 0u64;
        for (g, group) in release.groups.iter().enumerate() {
            starts.push(rows);
            for &r in &group.rows {
                let slot = group_of.get_mut(r as usize).ok_or_else(|| {
                    Error::Internal(format!(
                        "group {} of the release lists row {r} of a table of {} rows",
                        g + 1,
                        ds.n_rows()
                    ))
                })?;
                *slot = g as u32;
                rows += u64::from(ds.multiplicity(r as usize));
            }
        }
        starts.push(rows);
        Ok(Layout {
            grouped_at,
            passthrough,
            names: file_columns.to_vec(),
            headers,
            group_of,
            starts,
            rows,
        })
    }
}

mod keys;
mod pass;
mod writer;

use keys::*;
use pass::*;
use writer::*;

/// Publish a release made on a frequency table through a Ballista cluster
/// (`anonymize --cluster`): the publishing pass's scan runs there (an
/// executor reads the file), the rows come back here in file order and the
/// table is written here (`job.output`), the bytes [`publish`] writes on
/// this machine.
///
/// Ballista's client fetches a job's output partitions in the order their
/// tasks finish, so the scan is planned as one partition
/// (`data::engine_scan` refuses any other plan on a cluster): one task
/// reads the file from its first row group to its last, and the client
/// receives them in that order. What the executor does is the reading and
/// decoding; the per-row work (placing each record) is the client's, which
/// streams and spills as it does on one machine.
#[cfg(feature = "cluster")]
pub fn publish_on(
    cluster: &crate::cluster::Cluster,
    job: &PublishJob<'_>,
) -> Result<PublishReport> {
    committed(publish_on_staged(cluster, job)?)
}

/// [`publish_on`] with the table staged ([`publish_staged`]).
pub fn publish_on_staged(
    cluster: &crate::cluster::Cluster,
    job: &PublishJob<'_>,
) -> Result<(PublishReport, Option<Staged>)> {
    let engine = format!(
        "the cluster at {} (an executor reads the file at {})",
        cluster.scheduler(),
        std::path::absolute(job.data)
            .unwrap_or_else(|_| job.data.to_path_buf())
            .display()
    );
    crate::cluster::refuse_arrow_stream(&engine, job.data, job.opts)?;
    cluster.in_session(1, |ctx| async move {
        publish_staged_in(&ctx, &engine, job).await
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Combinations are found by their codes whether they pack into a
    /// `u64` or not (nine columns of 256 values and a missing code need 81
    /// bits).
    #[test]
    fn combinations_are_found_packed_or_wide() {
        for columns in [3usize, 9] {
            let names: Vec<String> = (0..columns).map(|c| format!("c{c}")).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let text: Vec<Vec<String>> = (0..256)
                .map(|r| {
                    (0..columns)
                        .map(|c| format!("v{}", (r * 7 + c * 31) % 256))
                        .collect()
                })
                .collect();
            let rows: Vec<Vec<&str>> = text
                .iter()
                .map(|r| r.iter().map(String::as_str).collect())
                .collect();
            let ds = Dataset::from_rows(&names, &rows).unwrap();
            let combos = Combinations::new(&ds);
            assert_eq!(
                matches!(combos, Combinations::Packed { .. }),
                columns == 3,
                "{columns} columns"
            );
            for r in 0..ds.n_rows() {
                let key: Vec<u32> = ds.columns().iter().map(|c| c.code(r)).collect();
                assert_eq!(combos.get(&key), Some(r as u32));
            }
            let missing: Vec<u32> = ds.columns().iter().map(Column::missing_code).collect();
            assert_eq!(combos.get(&missing), None);
        }
    }

    #[test]
    fn plain_integers_are_canonical_numbers() {
        for t in ["0", "7", "39", "1234567890123456789012345"] {
            assert!(plain_integer(t), "{t}");
            assert_eq!(Decimal::parse(t).unwrap().canonical(), t);
        }
        for t in ["", "039", "00", "-1", "+1", "1.0", "1e3", " 1", "x"] {
            assert!(!plain_integer(t), "{t}");
        }
    }
}
