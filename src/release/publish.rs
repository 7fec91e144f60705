//! Publishing a release made on the query engine's frequency table: one
//! streaming pass over the data file that maps each record through the
//! release's recoding and writes the published table — byte for byte the
//! table [`write_csv`](super::write_csv) writes for the same file read in
//! memory and the same release computed there, with the same
//! [`fingerprint`](super::fingerprint) — in memory that does not grow with
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

use super::csv_fields::encode;
use super::render::combine;
use super::{Cell, Release};
use crate::data::engine::EngineOptions;
use crate::data::engine_scan::{local_context, local_runtime, open_in_file_order, LOCAL_ENGINE};
use crate::data::number::{is_number, Decimal};
use crate::data::{
    write_file, Column, ColumnKind, CsvOptions, Dataset, InputFormat, Inputs, KindError, Role,
    Scratch,
};
use crate::error::{Error, Result};
use crate::format::thousands;

/// Spilled rows held at once by default when a range of the output is
/// written: far under the machine's memory, large enough that a table of
/// a hundred million records takes a few dozen ranges.
pub const DEFAULT_RANGE_BYTES: usize = 256 << 20;

/// The most range files written at once (each holds a write buffer).
pub const MAX_RANGES: usize = 256;

/// The write buffer of each range file.
const SPILL_BUFFER: usize = 64 << 10;

/// Bytes of output handed to the writer and the hash at once.
const BLOCK: usize = 1 << 16;

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
            Some(other) => Err(Error::Parameter(format!(
                "the publishing pass writes csv or parquet, not {other}"
            ))),
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
    let runtime = local_runtime(job.data, engine)?;
    let mut job = job.clone();
    if job.spill_dir.is_none() {
        job.spill_dir.clone_from(&engine.spill_dir);
    }
    runtime.block_on(async {
        let ctx = local_context(job.data, engine)?;
        publish_in(&ctx, LOCAL_ENGINE, &job).await
    })
}

/// Stream `job.data` in the session `ctx` (this machine's engine, or a
/// cluster's; `engine` names it in messages) and write the release's
/// published table to `job.output` through `data::output` (a temporary
/// file synced and renamed into place; never over an input), or only
/// hash it when there is no output.
pub async fn publish_in(
    ctx: &SessionContext,
    engine: &str,
    job: &PublishJob<'_>,
) -> Result<PublishReport> {
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
    let mut at: Vec<usize> = layout.grouped_at.clone();
    at.extend(&layout.passthrough);
    let records = scan.for_each_batch(&at, |batch| pass.batch(batch)).await?;
    let spilled = pass.finish(records)?;
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
    match job.output {
        Some(out) => write_file(out, &inputs, |w| {
            writer.write(w, &spilled).map_err(|e| match e {
                Error::Write(_, io) => io,
                other => std::io::Error::other(other.to_string()),
            })
        })?,
        None => writer.write(&mut std::io::sink(), &spilled)?,
    }
    report.fingerprint = writer.fingerprint.take().unwrap_or_default();
    report.ranges = writer.ranges;
    report.largest_range = writer.largest;
    Ok(report)
}

/// Refuse what the pass does not publish, before the file is read.
fn check_release(job: &PublishJob<'_>) -> Result<()> {
    let r = job.release;
    if r.is_bucketized() || !r.local_buckets.is_empty() {
        return Err(Error::Parameter(format!(
            "the publishing pass writes tables whose sensitive values stay on their rows; the {} release publishes bucket tables beside it (publish it from memory, --engine memory)",
            r.algorithm
        )));
    }
    if !job.grouped.is_grouped() {
        return Err(Error::Parameter(
            "the publishing pass maps a file through a release made on its frequency table (a grouped dataset); a release made on the records is written from memory (release::write_csv)".into(),
        ));
    }
    if r.source_rows != job.grouped.n_rows() {
        return Err(Error::Parameter(format!(
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
            return Err(Error::Parameter(format!(
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
                    available: crate::error::listed(file_columns, crate::error::COLUMNS_LISTED),
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
                    Error::Parameter(format!(
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

/// A grouped column's codes by text, cached: most columns have few
/// spellings, and a numeric lookup parses the dictionary it searches.
struct Lookup<'a> {
    column: &'a Column,
    cache: FxHashMap<Box<str>, u32>,
}

impl Lookup<'_> {
    fn code(&mut self, text: &str) -> Option<u32> {
        if let Some(&c) = self.cache.get(text) {
            return Some(c);
        }
        let code = self.column.code_of(text)?;
        if self.cache.len() < CACHE_ENTRIES {
            self.cache.insert(text.into(), code);
        }
        Some(code)
    }
}

/// What is learned of a passthrough column's kind while streaming.
#[derive(Default)]
struct KindSeen {
    any_value: bool,
    /// The first value that is not a number, and its record.
    first_text: Option<(u64, String)>,
}

/// The spilled ranges: one scratch file per range of output rows.
struct Spilled {
    files: Vec<(Scratch, u64, u64)>,
    /// Kind of each passthrough column.
    kinds: Vec<ColumnKind>,
}

/// The first pass: every record placed and spilled.
struct Pass<'a> {
    job: &'a PublishJob<'a>,
    layout: &'a Layout,
    format: InputFormat,
    lookups: Vec<Lookup<'a>>,
    combos: Combinations,
    /// Records of each combination seen so far.
    seen: Vec<u32>,
    /// Rows of each group placed so far.
    placed: Vec<u64>,
    kinds: Vec<KindSeen>,
    key: Vec<u32>,
    /// Rows per range and the range files being written.
    per_range: u64,
    writers: Vec<(Scratch, BufWriter<File>)>,
    record: Vec<u8>,
}

/// The directory spilled rows go to.
fn spill_dir(job: &PublishJob<'_>) -> PathBuf {
    if let Some(d) = &job.spill_dir {
        return d.clone();
    }
    let Some(output) = job.output else {
        return std::env::temp_dir();
    };
    let device = std::fs::metadata(output).is_ok_and(|m| !m.is_file() && !m.is_dir());
    match output.parent() {
        _ if device => std::env::temp_dir(),
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The scratch files' name: the output's, so that a killed run's are
/// removed by the next run for the same output.
fn spill_name(job: &PublishJob<'_>) -> String {
    let name = job
        .output
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "release".into());
    format!("{name}.spill")
}

impl<'a> Pass<'a> {
    fn new(
        job: &'a PublishJob<'a>,
        layout: &'a Layout,
        format: InputFormat,
        inputs: &Inputs,
    ) -> Result<Self> {
        let ds = job.grouped;
        let combos = Combinations::new(ds);
        // Ranges from an estimate of the spilled bytes: the passthrough
        // text is at most the records' share of the file for CSV (twice
        // that for a compressed columnar file); a range that comes out
        // larger than the budget is split when it is written.
        let file_bytes = std::fs::metadata(job.data).map_or(0, |m| m.len());
        let share = if layout.names.is_empty() {
            0.0
        } else {
            layout.passthrough.len() as f64 / layout.names.len() as f64
        };
        let factor = if format == InputFormat::Csv { 1.0 } else { 2.0 };
        let text = file_bytes as f64 * share * factor;
        let estimate = layout.rows as f64 * (12.0 + 4.0 * layout.passthrough.len() as f64) + text;
        let budget = job.range_bytes.max(1) as f64;
        let ranges = ((estimate / budget).ceil() as usize).clamp(1, MAX_RANGES);
        let per_range = layout.rows.div_ceil(ranges as u64).max(1);
        let ranges = layout.rows.div_ceil(per_range).max(1) as usize;
        let dir = spill_dir(job);
        let name = spill_name(job);
        let mut writers = Vec::with_capacity(ranges);
        for _ in 0..ranges {
            let (scratch, file) = Scratch::create(&dir, &name, inputs)?;
            writers.push((scratch, BufWriter::with_capacity(SPILL_BUFFER, file)));
        }
        Ok(Pass {
            job,
            layout,
            format,
            lookups: ds
                .columns()
                .iter()
                .map(|column| Lookup {
                    column,
                    cache: FxHashMap::default(),
                })
                .collect(),
            combos,
            seen: vec![0; ds.n_rows()],
            placed: vec![0; job.release.groups.len()],
            kinds: layout
                .passthrough
                .iter()
                .map(|_| KindSeen::default())
                .collect(),
            key: vec![0; ds.n_cols()],
            per_range,
            writers,
            record: Vec::new(),
        })
    }

    fn row_label(&self, index: u64) -> u64 {
        crate::data::engine_scan::row_label(self.format, index)
    }

    /// The message of a record the frequency table did not count.
    fn changed(&self, index: u64, column: Option<&str>, what: String) -> Error {
        Error::input(
            self.job.data,
            Some(self.row_label(index)),
            column.map(str::to_string),
            format!("{what}: the file changed since its frequency table was built; build the table again from the file as it is now"),
        )
    }

    fn batch(&mut self, batch: &crate::data::engine_scan::TextBatch) -> Result<()> {
        let grouped = self.lookups.len();
        for r in 0..batch.len() {
            let index = batch.first_record() + r as u64;
            for j in 0..grouped {
                self.key[j] = match batch.cell(j, r) {
                    None => self.lookups[j].column.missing_code(),
                    Some(text) => match self.lookups[j].code(text) {
                        Some(c) => c,
                        None => {
                            let name = self.lookups[j].column.name().to_string();
                            return Err(self.changed(
                                index,
                                Some(&name),
                                format!(
                                    "the value '{}' is not in the frequency table",
                                    crate::error::shown(text, 60)
                                ),
                            ));
                        }
                    },
                };
            }
            let Some(combo) = self.combos.get(&self.key) else {
                return Err(self.changed(
                    index,
                    None,
                    "the record's combination of values is not in the frequency table".into(),
                ));
            };
            let combo = combo as usize;
            self.seen[combo] += 1;
            if self.seen[combo] > self.job.grouped.multiplicity(combo) {
                return Err(self.changed(
                    index,
                    None,
                    format!(
                        "the record's combination of values is counted {} times in the frequency table, and this is its record number {}",
                        thousands(u64::from(self.job.grouped.multiplicity(combo))),
                        thousands(u64::from(self.seen[combo]))
                    ),
                ));
            }
            for (i, seen) in self.kinds.iter_mut().enumerate() {
                if let Some(text) = batch.cell(grouped + i, r) {
                    seen.any_value = true;
                    if seen.first_text.is_none() && !plain_integer(text) && !is_number(text) {
                        seen.first_text = Some((index, text.to_string()));
                    }
                }
            }
            let g = self.layout.group_of[combo];
            if g == SUPPRESSED {
                continue;
            }
            let g = g as usize;
            let place = self.layout.starts[g] + self.placed[g];
            self.placed[g] += 1;
            self.record.clear();
            self.record.extend_from_slice(&place.to_le_bytes());
            self.record.extend_from_slice(&(combo as u32).to_le_bytes());
            for i in 0..self.kinds.len() {
                match batch.cell(grouped + i, r) {
                    None => self.record.extend_from_slice(&MISSING.to_le_bytes()),
                    Some(text) => {
                        self.record
                            .extend_from_slice(&(text.len() as u32).to_le_bytes());
                        self.record.extend_from_slice(text.as_bytes());
                    }
                }
            }
            let (scratch, w) = &mut self.writers[(place / self.per_range) as usize];
            w.write_all(&self.record)
                .map_err(|e| Error::Write(scratch.path().to_path_buf(), e))?;
        }
        Ok(())
    }

    /// Check that the file held what the table counted, decide the
    /// passthrough columns' kinds, and close the range files.
    fn finish(self, records: u64) -> Result<Spilled> {
        let ds = self.job.grouped;
        if records != ds.records() {
            return Err(Error::input(
                self.job.data,
                None,
                None,
                format!(
                    "the file holds {} records and its frequency table {}: the file changed since the table was built; build the table again from the file as it is now",
                    thousands(records),
                    thousands(ds.records())
                ),
            ));
        }
        if let Some(combo) = (0..ds.n_rows()).find(|&r| self.seen[r] != ds.multiplicity(r)) {
            return Err(Error::input(
                self.job.data,
                None,
                None,
                format!(
                    "a combination of values counted {} times in the frequency table occurs {} times in the file: the file changed since the table was built; build the table again from the file as it is now",
                    thousands(u64::from(ds.multiplicity(combo))),
                    thousands(u64::from(self.seen[combo]))
                ),
            ));
        }
        let mut kinds = Vec::with_capacity(self.kinds.len());
        for (seen, &c) in self.kinds.iter().zip(&self.layout.passthrough) {
            let name = &self.layout.names[c];
            let kind = match self.job.opts.forced_kind(name) {
                Some(ColumnKind::Numeric) => {
                    if let Some((index, value)) = &seen.first_text {
                        let e = KindError {
                            row: *index as usize,
                            value: value.clone(),
                        };
                        return Err(Error::input(
                            self.job.data,
                            Some(self.row_label(*index)),
                            Some(name.clone()),
                            e.to_string(),
                        ));
                    }
                    ColumnKind::Numeric
                }
                Some(kind) => kind,
                None if seen.any_value && seen.first_text.is_none() => ColumnKind::Numeric,
                None => ColumnKind::Categorical,
            };
            kinds.push(kind);
        }
        let mut files = Vec::with_capacity(self.writers.len());
        for (i, (scratch, w)) in self.writers.into_iter().enumerate() {
            let lo = i as u64 * self.per_range;
            let hi = (lo + self.per_range).min(self.layout.rows);
            w.into_inner()
                .map_err(|e| Error::Write(scratch.path().to_path_buf(), e.into_error()))?;
            files.push((scratch, lo, hi.max(lo)));
        }
        Ok(Spilled { files, kinds })
    }
}

/// A number written in its canonical form already, told without parsing
/// (most numbers of a table): digits without a leading zero, far below
/// `data::number`'s magnitude bound.
fn plain_integer(text: &str) -> bool {
    let b = text.as_bytes();
    !b.is_empty()
        && b.len() <= 100
        && (b[0] != b'0' || b.len() == 1)
        && b.iter().all(u8::is_ascii_digit)
}

/// The grouped table's rows by their codes: packed into one `u64` when
/// the columns' code spaces fit (they nearly always do), so a lookup
/// hashes a number, not a slice.
enum Combinations {
    Packed {
        bits: Vec<u32>,
        rows: FxHashMap<u64, u32>,
    },
    Wide(FxHashMap<Box<[u32]>, u32>),
}

impl Combinations {
    fn new(ds: &Dataset) -> Self {
        let bits: Vec<u32> = ds
            .columns()
            .iter()
            .map(|c| u32::BITS - c.missing_code().leading_zeros())
            .collect();
        if bits.iter().sum::<u32>() <= 64 {
            let mut rows = FxHashMap::default();
            rows.reserve(ds.n_rows());
            let mut key = vec![0u32; ds.n_cols()];
            for r in 0..ds.n_rows() {
                for (k, c) in key.iter_mut().zip(ds.columns()) {
                    *k = c.code(r);
                }
                rows.insert(pack(&bits, &key), r as u32);
            }
            return Combinations::Packed { bits, rows };
        }
        let mut rows: FxHashMap<Box<[u32]>, u32> = FxHashMap::default();
        rows.reserve(ds.n_rows());
        for r in 0..ds.n_rows() {
            let key: Box<[u32]> = ds.columns().iter().map(|c| c.code(r)).collect();
            rows.insert(key, r as u32);
        }
        Combinations::Wide(rows)
    }

    /// The row of a combination of codes (each within its column's code
    /// space).
    fn get(&self, key: &[u32]) -> Option<u32> {
        match self {
            Combinations::Packed { bits, rows } => rows.get(&pack(bits, key)).copied(),
            Combinations::Wide(rows) => rows.get(key).copied(),
        }
    }
}

fn pack(bits: &[u32], key: &[u32]) -> u64 {
    key.iter()
        .zip(bits)
        .fold(0u64, |acc, (&k, &b)| (acc << b) | u64::from(k))
}

/// Where the spilled record at `bytes[at..]` goes, and where the next
/// one starts.
fn record_end(bytes: &[u8], at: usize, passthrough: usize) -> Option<(u64, usize)> {
    let place = u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?);
    let mut next = at + 12;
    for _ in 0..passthrough {
        let len = u32::from_le_bytes(bytes.get(next..next + 4)?.try_into().ok()?);
        next += 4;
        if len != MISSING {
            next += len as usize;
        }
    }
    (next <= bytes.len()).then_some((place, next))
}

/// The spilled record at `bytes[at..]`: its combination, its passthrough
/// cells into `cells` (`None` where missing).
fn read_record<'b>(
    bytes: &'b [u8],
    at: usize,
    passthrough: usize,
    cells: &mut Vec<Option<&'b str>>,
) -> Option<usize> {
    let combo = u32::from_le_bytes(bytes.get(at + 8..at + 12)?.try_into().ok()?) as usize;
    let mut next = at + 12;
    cells.clear();
    for _ in 0..passthrough {
        let len = u32::from_le_bytes(bytes.get(next..next + 4)?.try_into().ok()?);
        next += 4;
        if len == MISSING {
            cells.push(None);
            continue;
        }
        let text = std::str::from_utf8(bytes.get(next..next + len as usize)?).ok()?;
        next += len as usize;
        cells.push(Some(text));
    }
    Some(combo)
}

/// Read one spilled record from a stream (to split a range): its place
/// and its bytes, or `None` at the end.
fn next_record(
    r: &mut impl Read,
    passthrough: usize,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<u64>> {
    buf.clear();
    let mut head = [0u8; 12];
    match r.read_exact(&mut head) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    buf.extend_from_slice(&head);
    for _ in 0..passthrough {
        let mut len = [0u8; 4];
        r.read_exact(&mut len)?;
        buf.extend_from_slice(&len);
        let len = u32::from_le_bytes(len);
        if len != MISSING {
            let start = buf.len();
            buf.resize(start + len as usize, 0);
            r.read_exact(&mut buf[start..])?;
        }
    }
    let place = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
    Ok(Some(place))
}

/// The second pass: ranges read back in order and written out.
struct Writer<'a> {
    job: &'a PublishJob<'a>,
    layout: &'a Layout,
    format: InputFormat,
    inputs: &'a Inputs,
    hash: Sha256,
    fingerprint: Option<String>,
    ranges: usize,
    largest: u64,
    /// The group whose cells are rendered in `cells`.
    group: Option<usize>,
    cells: Vec<Option<String>>,
    gid: String,
    /// One row's fields, unencoded.
    text: String,
    ends: Vec<usize>,
    /// CSV bytes not yet written.
    csv: Vec<u8>,
}

/// Where the rows go besides the hash.
enum Sink<'w> {
    Csv(&'w mut dyn Write),
    Parquet(Box<ParquetSink<'w>>),
}

impl<'a> Writer<'a> {
    fn new(
        job: &'a PublishJob<'a>,
        layout: &'a Layout,
        format: InputFormat,
        inputs: &'a Inputs,
    ) -> Self {
        Writer {
            job,
            layout,
            format,
            inputs,
            hash: Sha256::new(),
            fingerprint: None,
            ranges: 0,
            largest: 0,
            group: None,
            cells: Vec::new(),
            gid: String::new(),
            text: String::new(),
            ends: Vec::new(),
            csv: Vec::with_capacity(BLOCK + 4096),
        }
    }

    /// The file messages name.
    fn target(&self) -> PathBuf {
        self.job
            .output
            .map_or_else(|| PathBuf::from("(the published table)"), Path::to_path_buf)
    }

    fn write(&mut self, w: &mut dyn Write, spilled: &Spilled) -> Result<()> {
        let target = self.target();
        let io = |e| Error::Write(target.clone(), e);
        let mut header = csv::Writer::from_writer(Vec::new());
        header
            .write_record(&self.layout.headers)
            .map_err(|e| io(std::io::Error::other(e)))?;
        let header = header
            .into_inner()
            .map_err(|e| io(std::io::Error::other(e.to_string())))?;
        self.hash.update(&header);
        let mut sink = match self.format {
            InputFormat::Parquet => Sink::Parquet(Box::new(
                ParquetSink::new(&self.layout.headers, w).map_err(io)?,
            )),
            _ => {
                w.write_all(&header).map_err(io)?;
                Sink::Csv(w)
            }
        };
        for (scratch, lo, hi) in &spilled.files {
            self.range(scratch, *lo, *hi, &spilled.kinds, &mut sink)?;
        }
        self.flush(&mut sink)?;
        match sink {
            Sink::Csv(w) => w.flush().map_err(io)?,
            Sink::Parquet(p) => p.finish().map_err(io)?,
        }
        let digest = std::mem::take(&mut self.hash).finalize();
        self.fingerprint = Some(combine(vec![("table".to_string(), digest)]));
        Ok(())
    }

    /// Write the rows placed in `lo..hi`, spilled to `scratch`: at once
    /// when they fit the budget, else split into smaller ranges first.
    fn range(
        &mut self,
        scratch: &Scratch,
        lo: u64,
        hi: u64,
        kinds: &[ColumnKind],
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        let path = scratch.path().to_path_buf();
        let read_err = |e| Error::Io(path.clone(), e);
        let size = std::fs::metadata(&path).map_err(read_err)?.len();
        let passthrough = kinds.len();
        if size > self.job.range_bytes as u64 && hi - lo > 1 {
            return self.split(scratch, lo, hi, size, kinds, sink);
        }
        let mut bytes = Vec::with_capacity(size as usize);
        File::open(&path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(read_err)?;
        self.ranges += 1;
        self.largest = self.largest.max(size);
        let corrupt = || {
            Error::Io(
                path.clone(),
                std::io::Error::other(
                    "a spilled row cannot be read back (the scratch file was changed or truncated)",
                ),
            )
        };
        let mut slots = vec![usize::MAX; (hi - lo) as usize];
        let mut at = 0;
        while at < bytes.len() {
            let (place, next) = record_end(&bytes, at, passthrough).ok_or_else(corrupt)?;
            let slot = place
                .checked_sub(lo)
                .and_then(|s| slots.get_mut(s as usize))
                .filter(|s| **s == usize::MAX)
                .ok_or_else(corrupt)?;
            *slot = at;
            at = next;
        }
        let mut cells = Vec::with_capacity(passthrough);
        for at in slots {
            let combo = read_record(&bytes, at, passthrough, &mut cells).ok_or_else(corrupt)?;
            self.row(combo, &cells, kinds, sink)?;
        }
        Ok(())
    }

    /// Split a range too large for the budget into ranges of a budget's
    /// half each (by estimate), then write them in order.
    fn split(
        &mut self,
        scratch: &Scratch,
        lo: u64,
        hi: u64,
        size: u64,
        kinds: &[ColumnKind],
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        let path = scratch.path();
        let budget = (self.job.range_bytes as u64 / 2).max(1);
        let parts = size
            .div_ceil(budget)
            .clamp(2, MAX_RANGES as u64)
            .min(hi - lo);
        let per = (hi - lo).div_ceil(parts);
        let dir = path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let name = spill_name(self.job);
        let mut parts_out = Vec::new();
        let mut start = lo;
        while start < hi {
            let (s, f) = Scratch::create(&dir, &name, self.inputs)?;
            parts_out.push((
                s,
                BufWriter::with_capacity(SPILL_BUFFER, f),
                start,
                (start + per).min(hi),
            ));
            start += per;
        }
        let mut reader =
            BufReader::new(File::open(path).map_err(|e| Error::Io(path.to_path_buf(), e))?);
        let mut buf = Vec::new();
        while let Some(place) = next_record(&mut reader, kinds.len(), &mut buf)
            .map_err(|e| Error::Io(path.to_path_buf(), e))?
        {
            let i = place
                .checked_sub(lo)
                .map(|p| (p / per) as usize)
                .filter(|&i| i < parts_out.len())
                .ok_or_else(|| {
                    Error::Io(
                        path.to_path_buf(),
                        std::io::Error::other("a spilled row is out of its range"),
                    )
                })?;
            let (s, w, _, _) = &mut parts_out[i];
            w.write_all(&buf)
                .map_err(|e| Error::Write(s.path().to_path_buf(), e))?;
        }
        drop(reader);
        let mut parts = Vec::with_capacity(parts_out.len());
        for (s, w, a, b) in parts_out {
            w.into_inner()
                .map_err(|e| Error::Write(s.path().to_path_buf(), e.into_error()))?;
            parts.push((s, a, b));
        }
        for (s, a, b) in &parts {
            self.range(s, *a, *b, kinds, sink)?;
        }
        Ok(())
    }

    /// One published row: the record of combination `combo` whose
    /// passthrough cells are `cells`.
    fn row(
        &mut self,
        combo: usize,
        cells: &[Option<&str>],
        kinds: &[ColumnKind],
        sink: &mut Sink<'_>,
    ) -> Result<()> {
        let (ds, release) = (self.job.grouped, self.job.release);
        let g = self.layout.group_of[combo] as usize;
        if self.group != Some(g) {
            self.group = Some(g);
            self.cells.clear();
            self.cells.extend(
                release
                    .quasi_identifiers
                    .iter()
                    .zip(&release.groups[g].cells)
                    .map(|(&c, cell)| match cell {
                        Cell::Original => None,
                        _ => Some(cell.render(ds.col(c), 0)),
                    }),
            );
            self.gid = (g + 1).to_string();
        }
        self.text.clear();
        self.ends.clear();
        for (&c, cell) in release.quasi_identifiers.iter().zip(&self.cells) {
            match cell {
                Some(text) => self.text.push_str(text),
                None => {
                    let col = ds.col(c);
                    self.text.push_str(col.display(col.code(combo)));
                }
            }
            self.ends.push(self.text.len());
        }
        for (cell, kind) in cells.iter().zip(kinds) {
            match cell {
                None => self.text.push('?'),
                Some(text) if *kind == ColumnKind::Numeric && plain_integer(text) => {
                    self.text.push_str(text)
                }
                Some(text) if *kind == ColumnKind::Numeric => match Decimal::parse(text) {
                    Some(d) => self.text.push_str(&d.canonical()),
                    None => self.text.push_str(text),
                },
                Some(text) => self.text.push_str(text),
            }
            self.ends.push(self.text.len());
        }
        for &c in &release.sensitive {
            let col = ds.col(c);
            self.text.push_str(col.display(col.code(combo)));
            self.ends.push(self.text.len());
        }
        self.text.push_str(&self.gid);
        self.ends.push(self.text.len());
        let mut start = 0;
        for (i, &end) in self.ends.iter().enumerate() {
            if i > 0 {
                self.csv.push(b',');
            }
            encode(&self.text[start..end], &mut self.csv);
            start = end;
        }
        self.csv.push(b'\n');
        if let Sink::Parquet(p) = sink {
            p.push(&self.text, &self.ends)
                .map_err(|e| Error::Write(self.target(), e))?;
        }
        if self.csv.len() >= BLOCK {
            self.flush(sink)?;
        }
        Ok(())
    }

    /// Hand the CSV bytes to the hash and, for CSV output, the writer.
    fn flush(&mut self, sink: &mut Sink<'_>) -> Result<()> {
        self.hash.update(&self.csv);
        if let Sink::Csv(w) = sink {
            w.write_all(&self.csv)
                .map_err(|e| Error::Write(self.target(), e))?;
        }
        self.csv.clear();
        Ok(())
    }
}

/// The published table as Parquet, every column text.
struct ParquetSink<'w> {
    out: &'w mut dyn Write,
    writer: ArrowWriter<Vec<u8>>,
    schema: SchemaRef,
    columns: Vec<StringBuilder>,
    rows: usize,
}

impl<'w> ParquetSink<'w> {
    fn new(headers: &[String], out: &'w mut dyn Write) -> std::io::Result<Self> {
        let schema: SchemaRef = Arc::new(Schema::new(
            headers
                .iter()
                .map(|h| Field::new(h, DataType::Utf8, false))
                .collect::<Vec<_>>(),
        ));
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(PARQUET_ROW_GROUP))
            .set_max_row_group_bytes(Some(64 << 20))
            .build();
        let writer = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props))
            .map_err(std::io::Error::other)?;
        Ok(ParquetSink {
            out,
            writer,
            columns: headers.iter().map(|_| StringBuilder::new()).collect(),
            schema,
            rows: 0,
        })
    }

    fn push(&mut self, text: &str, ends: &[usize]) -> std::io::Result<()> {
        let mut start = 0;
        for (b, &end) in self.columns.iter_mut().zip(ends) {
            b.append_value(&text[start..end]);
            start = end;
        }
        self.rows += 1;
        if self.rows >= PARQUET_BATCH {
            self.write_batch()?;
        }
        Ok(())
    }

    fn write_batch(&mut self) -> std::io::Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let arrays: Vec<ArrayRef> = self
            .columns
            .iter_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef)
            .collect();
        let batch =
            RecordBatch::try_new(self.schema.clone(), arrays).map_err(std::io::Error::other)?;
        self.writer.write(&batch).map_err(std::io::Error::other)?;
        self.rows = 0;
        let bytes = self.writer.inner_mut();
        self.out.write_all(bytes)?;
        bytes.clear();
        Ok(())
    }

    fn finish(mut self) -> std::io::Result<()> {
        self.write_batch()?;
        let rest = self.writer.into_inner().map_err(std::io::Error::other)?;
        self.out.write_all(&rest)?;
        self.out.flush()
    }
}

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
    cluster: &crate::data::cluster::Cluster,
    job: &PublishJob<'_>,
) -> Result<PublishReport> {
    let engine = format!(
        "the cluster at {} (an executor reads the file at {})",
        cluster.scheduler(),
        std::path::absolute(job.data)
            .unwrap_or_else(|_| job.data.to_path_buf())
            .display()
    );
    cluster.in_session(1, |ctx| async move { publish_in(&ctx, &engine, job).await })
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
