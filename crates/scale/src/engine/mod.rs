//! The embedded query engine for files larger than memory: Apache
//! DataFusion streams the file and builds its **frequency table** — the
//! distinct combinations of the columns an assessment reads, with the
//! number of records of each — in bounded memory, spilling its group-by to
//! disk when the memory pool is full. Nearly every risk and privacy figure
//! reads only that table: the classes, their sizes, the sensitive values'
//! counts per class.
//!
//! Choices made here, and why:
//! - The engine groups by the cells **as stored** (text as written, typed
//!   values as typed), and anonlab's own reading rules run on the groups
//!   afterwards: each distinct cell goes through the same [`FieldRules`]
//!   (trimming, missing-value tokens) and the same [`ColumnBuilder`]
//!   (exact numbers) as on the in-memory path, and groups that then
//!   coincide (` Male` and `Male`, `39` and `039`) are merged, their
//!   counts added. So the table's dictionaries are the in-memory path's
//!   (only the columns' distinct values are read into them) and its
//!   figures are the same (tested on the demo, Adult and 1 M synthetic
//!   rows in `tests/engine.rs`; a mean over records differs only in the
//!   order of its floating-point sum, within 1e-12).
//! - CSV is read by the engine with every column as text (no type
//!   inference over a sample that a later row could contradict), its
//!   header and delimiter read first by anonlab's own reader, so the names
//!   pass the same checks. An empty field is the text `''`, as in memory
//!   (DataFusion's CSV scan makes it a null, which [`open_frame`] reads
//!   back as `''`); the reading rules then make it missing when `''` is a
//!   missing-value token.
//!   Quoted line breaks are allowed, which keeps the engine from splitting
//!   one CSV file across cores; Parquet is split by row groups. A blank
//!   line inside a CSV file is a ragged row to the engine (the in-memory
//!   reader skips it).
//! - Compressed CSV is not read by the engine: DataFusion's decompression
//!   brings xz and bzip2 C libraries into the build; a file too large for
//!   memory is better stored as Parquet, which the engine reads in
//!   parallel.
//! - The grouped columns keep the file's order, whatever order they are
//!   asked in, as the in-memory dataset has them: the figures list
//!   attributes in column order.
//! - On this machine a Parquet or Arrow file is grouped by integer codes
//!   of its cells, not by the cells ([`GroupBy::Codes`], `codes`): each
//!   column's distinct values first, then a group-by on the codes packed
//!   into `UInt64` keys, which compares integers instead of text and
//!   stays far inside the memory pool (on 100 M census rows, 8 QIs and a
//!   sensitive attribute: BENCHMARKS.md). A cluster's plan groups by the
//!   cells, which its executors can run without anonlab's functions.
//! - [`FrequencyTable::to_dataset`] gives the table back as a *grouped*
//!   dataset: one row per combination, standing for its records
//!   (`Dataset::grouped`), so memory follows the combinations, not the
//!   records, and the assessment counts each row as the records it stands
//!   for. It holds only the columns asked for, as codes. Figures that
//!   depend on row order (random cell sensitivity by density) are refused
//!   on the engine path by the front ends.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema};
use datafusion::datasource::file_format::options::ArrowReadOptions;
use datafusion::execution::memory_pool::FairSpillPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::functions_aggregate::count::count_all;
use datafusion::prelude::{
    CsvReadOptions, DataFrame, Expr, ParquetReadOptions, SessionConfig, SessionContext,
};
use futures::StreamExt;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use anonlab::data::csv_import::{
    check_csv, check_forced, csv_header, dataset_name, header_names, FieldRules,
};
use anonlab::data::formats::{columnar, detect, InputFormat};
use anonlab::data::{Column, ColumnBuilder, CsvOptions, Dataset};
use anonlab::error::{Error, Parameter, Result};
use anonlab::format::thousands;

mod codes;

/// How the engine runs.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineOptions {
    /// The memory the engine's operators may hold before they spill.
    pub memory_limit: usize,
    /// Where spill files go (the system's temporary directory when `None`).
    pub spill_dir: Option<PathBuf>,
    /// Threads of the engine (and partitions of its plans).
    pub threads: usize,
}

/// The default memory pool: 1 GiB, far under the machine's memory and far
/// over the group-by of census data's quasi-identifiers.
pub const DEFAULT_MEMORY_LIMIT: usize = 1 << 30;

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            memory_limit: DEFAULT_MEMORY_LIMIT,
            spill_dir: None,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
    }
}

/// The distinct combinations of some columns of a file, with the number
/// of records of each.
#[derive(Debug, Clone, PartialEq)]
pub struct FrequencyTable {
    name: String,
    /// The grouped columns: dictionaries as the in-memory loader builds
    /// them, one code per combination.
    columns: Vec<Column>,
    /// Records of each combination.
    counts: Vec<u64>,
    /// Every column of the file, in its order.
    file_columns: Vec<String>,
}

impl FrequencyTable {
    /// The grouped columns, one code per combination.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }
    /// Records of each combination.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }
    /// Distinct combinations.
    pub fn len(&self) -> usize {
        self.counts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
    /// Records in the file.
    pub fn rows(&self) -> u64 {
        self.counts.iter().sum()
    }
    /// Every column of the file, grouped or not.
    pub fn file_columns(&self) -> &[String] {
        &self.file_columns
    }

    /// The table as a grouped dataset (`Dataset::grouped`): one row per
    /// combination, in code order, standing for its records. Every
    /// assessment runs on it as on the file read in memory — the
    /// simulator, the linkage, the models and the statistics offices'
    /// measures count rows by the records they stand for — in memory
    /// proportional to the combinations, not the records.
    pub fn to_dataset(&self) -> Result<Dataset> {
        let rows = self.rows();
        if rows >= u64::from(u32::MAX) {
            return Err(Error::Limit(format!(
                "the file has {} records; anonlab counts at most {} records",
                thousands(rows),
                thousands(u64::from(u32::MAX) - 1)
            )));
        }
        let multiplicities = self.counts.iter().map(|&n| n as u32).collect();
        Dataset::new(self.name.clone(), self.columns.clone())?.grouped(multiplicities)
    }

    /// One row per record, combinations in code order: the grouped columns
    /// of the file as the in-memory loader would read them, rows reordered.
    /// For tests that compare the grouped path with the row path.
    pub fn to_records(&self) -> Result<Dataset> {
        let rows = self.rows();
        if rows > u32::MAX as u64 - 1 {
            return Err(Error::Limit(format!(
                "the file has {} records, more than a dataset holds",
                thousands(rows)
            )));
        }
        let columns = self
            .columns
            .iter()
            .map(|c| {
                let mut codes = Vec::with_capacity(rows as usize);
                for (&code, &n) in c.codes().iter().zip(&self.counts) {
                    codes.extend(std::iter::repeat_n(code, n as usize));
                }
                c.recoded(codes)
            })
            .collect();
        Dataset::new(self.name.clone(), columns)
    }
}

/// DataFusion's error on `engine`'s work on `path`, worded by its cause:
/// a memory limit reached, or temporary space that cannot be written
/// (the engine writes nothing but its spill files, so a full or read-only
/// file system is theirs), rather than "cannot read the file" for both.
pub(crate) fn datafusion_error(
    engine: &str,
    path: &Path,
    e: datafusion::error::DataFusionError,
) -> Error {
    use datafusion::error::DataFusionError as D;
    use std::io::ErrorKind;
    let msg = match e.find_root() {
        D::ResourcesExhausted(why) => format!(
            "{engine} reached its memory limit reading the file ({why}); give it more memory, or temporary space to spill to"
        ),
        D::IoError(io)
            if matches!(
                io.kind(),
                ErrorKind::StorageFull | ErrorKind::ReadOnlyFilesystem | ErrorKind::QuotaExceeded
            ) =>
        {
            format!(
                "{engine} could not write its temporary files (in {}): {io}",
                std::env::temp_dir().display()
            )
        }
        _ => {
            let text = e.to_string();
            match (exhausted_in(&text), panicked_in(&text)) {
                (Some(why), _) => format!(
                    "{engine}: an executor ran out of memory (its memory limit, `anonlab cluster executor --memory-limit`, was reached: {why}); give the executors more memory, or temporary space to spill to"
                ),
                // A reader's panic in one of the engine's tasks, caught
                // by its runtime: said as the in-memory readers say theirs.
                (None, Some(why)) => {
                    format!("{engine}'s reader failed on malformed data: {why}")
                }
                (None, None) => {
                    format!("{engine} cannot read the file: {}", without_debug(&text))
                }
            }
        }
    };
    Error::input(path, None, None, msg)
}

/// What DataFusion said of a memory limit reached on another machine: an
/// executor's error reaches a cluster's client as text (its debug form,
/// `ResourcesExhausted("…")`, inside the job's failure), not as
/// `DataFusionError::ResourcesExhausted`.
fn exhausted_in(text: &str) -> Option<String> {
    const FORM: &str = "ResourcesExhausted(";
    let at = text.find(FORM)?;
    Some(
        string_literals(&text[at..])
            .into_iter()
            .next()
            .unwrap_or_default(),
    )
}

/// What a task's panic said, when DataFusion reports one (`task N
/// panicked with message "…"`, its runtime having caught it).
fn panicked_in(text: &str) -> Option<String> {
    const FORM: &str = "panicked with message ";
    let at = text.find(FORM)?;
    Some(
        string_literals(&text[at + FORM.len()..])
            .into_iter()
            .next()
            .unwrap_or_default(),
    )
}

/// `text` with a trailing Rust debug form (`Name(…)`, `Name { … }`) put
/// in words: a task's error crosses the cluster as the `{:?}` of the
/// executor's error (ballista-core's `FailedTask`), and tonic's status
/// ends with its metadata's, which are no message for a user. The form
/// becomes its string literals, unescaped and joined by ": "; a form with
/// none is dropped (with the separator before it), or, when nothing
/// precedes it, is its innermost name. Text without one is unchanged.
pub(crate) fn without_debug(text: &str) -> String {
    let Some(start) = debug_form_start(text) else {
        return text.to_string();
    };
    let (prefix, form) = text.split_at(start);
    let mut said: Vec<String> = Vec::new();
    for literal in string_literals(form) {
        if !literal.is_empty() && said.last() != Some(&literal) {
            said.push(literal);
        }
    }
    if !said.is_empty() {
        return format!("{prefix}{}", said.join(": "));
    }
    let prefix = prefix.trim_end_matches([' ', ',', ':']);
    if !prefix.is_empty() {
        return prefix.to_string();
    }
    form.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .rfind(|w| is_type_name(w))
        .unwrap_or(form)
        .to_string()
}

/// Where the debug form that ends `text` begins: the first type name
/// (CamelCase) followed by `(` or ` {` whose brackets close exactly at
/// the end of `text`.
fn debug_form_start(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let word_start =
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if word_start && bytes[at].is_ascii_uppercase() {
            let end = text[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(text.len(), |n| at + n);
            let rest = &text[end..];
            let open = if rest.starts_with('(') {
                Some(end)
            } else if rest.starts_with(" {") {
                Some(end + 1)
            } else {
                None
            };
            if let Some(open) = open {
                if is_type_name(&text[at..end]) && closes_at_end(&text[open..]) {
                    return Some(at);
                }
            }
            at = end.max(at + 1);
        } else {
            at += 1;
        }
    }
    None
}

/// A Rust type's name: an upper-case letter, then letters and digits with
/// at least one lower-case letter (so `COUNT(*)` in a plan is not one).
fn is_type_name(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_uppercase())
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && word.chars().any(|c| c.is_ascii_lowercase())
}

/// Whether the bracket opening `text` closes at its very end (trailing
/// white space aside), brackets inside string literals not counted.
fn closes_at_end(text: &str) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => {
                let Some(d) = depth.checked_sub(1) else {
                    return false;
                };
                depth = d;
                if depth == 0 {
                    return text[i + c.len_utf8()..].trim().is_empty();
                }
            }
            _ => {}
        }
    }
    false
}

/// The string literals of a debug form, unescaped (`\"`, `\\`, `\n`,
/// `\t`, `\u{…}`).
fn string_literals(form: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = form.chars();
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut s = String::new();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' => match chars.next() {
                    Some('n') => s.push(' '),
                    Some('t') => s.push(' '),
                    Some('u') => {
                        let code: String = chars
                            .by_ref()
                            .skip_while(|&c| c == '{')
                            .take_while(|&c| c != '}')
                            .collect();
                        if let Some(c) =
                            u32::from_str_radix(&code, 16).ok().and_then(char::from_u32)
                        {
                            s.push(c);
                        }
                    }
                    Some(other) => s.push(other),
                    None => {}
                },
                c => s.push(c),
            }
        }
        out.push(s.trim().to_string());
    }
    out
}

/// A message about `engine`'s work on `path` (a task's panic said as
/// the in-memory readers say theirs).
pub(crate) fn engine_error(engine: &str, path: &Path, e: impl std::fmt::Display) -> Error {
    let text = e.to_string();
    let msg = match panicked_in(&text) {
        Some(why) => format!("{engine}'s reader failed on malformed data: {why}"),
        None => format!("{engine} cannot read the file: {text}"),
    };
    Error::input(path, None, None, msg)
}

/// How the local engine's messages name it.
const LOCAL: &str = "the query engine";

/// Build the frequency table of `columns` of the file at `path`, read as
/// `opts` says, with the engine on this machine.
pub fn frequency_table(
    path: &Path,
    opts: &CsvOptions,
    columns: &[String],
    engine: &EngineOptions,
) -> Result<FrequencyTable> {
    check_input(LOCAL, path, opts, columns)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(engine.threads.max(1))
        .thread_name("anonlab-engine")
        .build()
        .map_err(|e| Error::Io(path.to_path_buf(), e))?;
    // A panic in DataFusion's readers on a file the metadata checks let
    // through reaches this thread (its tasks resume it here): an error
    // naming the file, as the in-memory readers give, not a crash.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        runtime.block_on(async {
            let ctx = local_context(path, engine)?;
            frequency_table_with(&ctx, LOCAL, path, opts, columns, GroupBy::Codes).await
        })
    }))
    .unwrap_or_else(|panic| {
        let why = anonlab::error::panic_message(panic.as_ref());
        Err(Error::input(
            path,
            None,
            None,
            format!("{LOCAL} failed on malformed data: {why}"),
        ))
    })
}

/// The session of the engine on this machine: its memory pool, spill
/// directory and partitions as `engine` says.
fn local_context(path: &Path, engine: &EngineOptions) -> Result<SessionContext> {
    let mut runtime = RuntimeEnvBuilder::new()
        .with_memory_pool(Arc::new(FairSpillPool::new(engine.memory_limit)));
    if let Some(dir) = &engine.spill_dir {
        runtime = runtime.with_temp_file_path(dir);
    }
    let runtime = runtime
        .build_arc()
        .map_err(|e| engine_error(LOCAL, path, e))?;
    let config = SessionConfig::new()
        .with_target_partitions(engine.threads.max(1))
        .with_batch_size(8192);
    Ok(SessionContext::new_with_config_rt(config, runtime))
}

/// What every engine checks before it plans: a file (not a directory) in
/// a format it reads, and something to group by. Gives the format.
pub(crate) fn check_input(
    engine: &str,
    path: &Path,
    opts: &CsvOptions,
    columns: &[String],
) -> Result<InputFormat> {
    if columns.is_empty() {
        return Err(Error::invalid(
            Parameter::Roles,
            "the engine needs at least one column to group by",
        ));
    }
    let meta = std::fs::metadata(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
    anonlab::data::input::refuse_fifo(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
    if meta.is_dir() {
        return Err(Error::input(
            path,
            None,
            None,
            "is a directory, not a data file",
        ));
    }
    let format = detect(path, opts);
    // The in-memory reader's metadata checks first: DataFusion's readers
    // panic on some malformed footers the parquet crate refuses cleanly.
    anonlab::data::formats::check_metadata(path, opts)?;
    if matches!(format, InputFormat::CsvGzip | InputFormat::CsvZstd) {
        return Err(Error::input(
            path,
            None,
            None,
            format!(
                "{engine} reads plain CSV, Parquet and Arrow, not {format}; decompress the file or store it as Parquet (the in-memory path reads it as it is)"
            ),
        ));
    }
    Ok(format)
}

/// The columns `names` of a CSV frame as `coalesce(cell, '')`.
///
/// DataFusion 55's CSV scan makes every empty field (quoted or not) a
/// null, and nothing else (its `null_regex` option reaches schema
/// inference only). So on a CSV file a null is the text `''`, as the
/// in-memory reader reads an empty field, and the reading rules then
/// decide what it is (missing when `''` is a missing-value token). The
/// grouped path reads CSV columns through this (built-in functions only,
/// so a cluster's executors run the plan too); the publishing scan, whose
/// plan must stay a plain scan, maps a null to `''` as it reads a batch
/// (`engine_scan`).
fn empty_fields_as_text(df: DataFrame, names: &[String]) -> datafusion::error::Result<DataFrame> {
    let cells: Vec<Expr> = names
        .iter()
        .map(|n| {
            datafusion::functions::expr_fn::coalesce(vec![
                Expr::Column(datafusion::common::Column::from_name(n)),
                datafusion::prelude::lit(""),
            ])
            .alias(n)
        })
        .collect();
    df.select(cells)
}

/// The file at `path` (in `format`, already checked) as a DataFrame of
/// its cells as stored, with its column names read and checked as the
/// in-memory readers read them: the one opening of a file every engine
/// path shares (the frequency table and the publishing scan). CSV is read
/// with every column as text, its header and delimiter read by anonlab's
/// own reader; its empty fields arrive as nulls ([`empty_fields_as_text`]).
pub(crate) async fn open_frame(
    ctx: &SessionContext,
    engine: &str,
    path: &Path,
    format: InputFormat,
    opts: &CsvOptions,
) -> Result<(DataFrame, Vec<String>)> {
    let absolute = std::path::absolute(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
    // A path that is not UTF-8 would reach the engine altered.
    let url = absolute.to_str().ok_or_else(|| {
        Error::input(
            path,
            None,
            None,
            format!("{engine} reads files by a path in UTF-8, and this one is not"),
        )
    })?;
    let fail = |e: datafusion::error::DataFusionError| datafusion_error(engine, path, e);
    let (df, names) = match format {
        InputFormat::Csv => {
            // DataFusion's CSV reader has none of the loader's rules (field
            // and row limits in every column, UTF-8, a quote left open):
            // the loader's own check runs over the text first, so a file is
            // refused alike on every path, with the same message. On a
            // cluster it reads the client's copy, the file the executors
            // are told to read.
            check_csv(path, opts)?;
            let (names, delimiter) = csv_header(path, opts)?;
            let schema = Schema::new(
                names
                    .iter()
                    .map(|n| Field::new(n, DataType::Utf8, true))
                    .collect::<Vec<_>>(),
            );
            let read = CsvReadOptions::new()
                .has_header(true)
                .delimiter(delimiter)
                .schema(&schema)
                .file_extension("")
                .newlines_in_values(true);
            (ctx.read_csv(url, read).await.map_err(fail)?, names)
        }
        _ => {
            let df = if format == InputFormat::Parquet {
                let read = ParquetReadOptions {
                    file_extension: "",
                    ..Default::default()
                };
                ctx.read_parquet(url, read).await
            } else {
                let read = ArrowReadOptions {
                    file_extension: "",
                    ..Default::default()
                };
                ctx.read_arrow(url, read).await
            }
            .map_err(fail)?;
            let schema = df.schema().as_arrow().clone();
            columnar::check_columns(path, schema.fields().len(), opts)?;
            let names = header_names(
                &path.to_path_buf(),
                None,
                schema.fields().iter().map(|f| f.name().as_bytes()),
                opts.max_field_bytes,
            )?;
            for f in schema.fields() {
                columnar::check_type(path, f)?;
            }
            (df, names)
        }
    };
    check_forced(&names, opts)?;
    Ok((df, names))
}

/// How the engine's plan groups the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// By the columns' values: a plan any DataFusion session runs, a
    /// cluster's included.
    Values,
    /// By integer codes of the values, packed into `UInt64` keys
    /// (`codes`): far faster and smaller on a Parquet or Arrow file, but
    /// the plan calls a function of anonlab's that only this process
    /// knows, so only for a session on this machine. CSV files and
    /// floating-point columns are grouped by their values.
    Codes,
}

/// Build the frequency table of `columns` of the file at `path` in the
/// DataFusion session `ctx`, grouping by the values ([`GroupBy::Values`]):
/// a cluster's session (`data::cluster`), whose executors know only
/// DataFusion's own functions. `engine` names it in messages ("the query
/// engine").
///
/// The plan reads the file by its absolute path, so every process that
/// runs part of it (a cluster's scheduler and executors) must see the
/// file at that path.
pub async fn frequency_table_in(
    ctx: &SessionContext,
    engine: &str,
    path: &Path,
    opts: &CsvOptions,
    columns: &[String],
) -> Result<FrequencyTable> {
    frequency_table_with(ctx, engine, path, opts, columns, GroupBy::Values).await
}

/// Build the frequency table of `columns` of the file at `path` in the
/// DataFusion session `ctx`, grouping as `group_by` says: the same table
/// either way. [`frequency_table`] is this with this machine's session
/// and [`GroupBy::Codes`].
pub async fn frequency_table_with(
    ctx: &SessionContext,
    engine: &str,
    path: &Path,
    opts: &CsvOptions,
    columns: &[String],
    group_by: GroupBy,
) -> Result<FrequencyTable> {
    let format = check_input(engine, path, opts, columns)?;
    let file = path.to_path_buf();
    let fail = |e: datafusion::error::DataFusionError| datafusion_error(engine, path, e);
    let (df, names) = open_frame(ctx, engine, path, format, opts).await?;
    let mut at = Vec::with_capacity(columns.len());
    for c in columns {
        match names.iter().position(|n| n == c) {
            Some(i) => at.push(i),
            None => {
                return Err(Error::UnknownColumn {
                    name: c.clone(),
                    available: anonlab::error::listed_columns(&names),
                })
            }
        }
    }
    at.sort_unstable();
    at.dedup();
    let columns: Vec<String> = at.iter().map(|&i| names[i].clone()).collect();
    let missing: Vec<&[u8]> = opts.missing.iter().map(|s| s.as_bytes()).collect();
    let rules = FieldRules::new(opts.trim, &missing);
    let coded = group_by == GroupBy::Codes
        && matches!(format, InputFormat::Parquet | InputFormat::Arrow)
        && codes::codable(
            &columns
                .iter()
                .map(|c| {
                    df.schema()
                        .field_with_unqualified_name(c)
                        .map(|f| f.data_type())
                })
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(fail)?,
        );
    let (grouped, counts) = if coded {
        let groups = codes::coded_groups(&df, &columns).await.map_err(fail)?;
        let mut grouped = Vec::with_capacity(columns.len());
        for ((name, values), indices) in columns.iter().zip(&groups.values).zip(groups.indices) {
            // Each distinct value read once; the groups take its code.
            let mut b = ColumnBuilder::new(name.clone());
            columnar::push_array(&mut b, values.as_ref(), &rules, opts.max_field_bytes).map_err(
                |(_, e)| columnar::cell_error(&file, None, name, e, opts.max_field_bytes),
            )?;
            let read = finish_column(b, &file, opts)?;
            let of_groups = indices.iter().map(|&i| read.code(i as usize)).collect();
            grouped.push(read.recoded(of_groups));
        }
        (grouped, groups.counts)
    } else {
        let keys: Vec<Expr> = columns
            .iter()
            .map(|c| Expr::Column(datafusion::common::Column::from_name(c)))
            .collect();
        let df = if format == InputFormat::Csv {
            empty_fields_as_text(df, &names).map_err(fail)?
        } else {
            df
        };
        let df = df.aggregate(keys, vec![count_all()]).map_err(fail)?;
        let mut stream = df.execute_stream().await.map_err(fail)?;
        let mut builders: Vec<ColumnBuilder> = columns
            .iter()
            .map(|c| ColumnBuilder::new(c.clone()))
            .collect();
        let mut counts: Vec<u64> = Vec::new();
        while let Some(batch) = stream.next().await {
            let batch = batch.map_err(fail)?;
            push_groups(
                engine,
                &file,
                &batch,
                &mut builders,
                &mut counts,
                &rules,
                opts,
            )?;
        }
        let mut grouped = Vec::with_capacity(builders.len());
        for b in builders {
            grouped.push(finish_column(b, &file, opts)?);
        }
        (grouped, counts)
    };
    if counts.is_empty() {
        return Err(Error::input(file, None, None, "the file has no rows"));
    }
    let (columns, counts) = merge(grouped, counts);
    Ok(FrequencyTable {
        name: dataset_name(path),
        columns,
        counts,
        file_columns: names,
    })
}

/// A grouped column's dictionary, as the loaders finish theirs.
fn finish_column(b: ColumnBuilder, file: &Path, opts: &CsvOptions) -> Result<Column> {
    let name = b.name().to_string();
    let kind = opts.forced_kind(&name);
    // The row of a value that is not a number is not known here: the
    // engine's groups have no file order.
    b.finish(kind)
        .map_err(|e| Error::input(file, None, Some(name.clone()), e.to_string()))
}

/// One batch of the engine's groups into the builders: its key columns
/// read as the loaders read cells, its count column added.
fn push_groups(
    engine: &str,
    file: &Path,
    batch: &RecordBatch,
    builders: &mut [ColumnBuilder],
    counts: &mut Vec<u64>,
    rules: &FieldRules,
    opts: &CsvOptions,
) -> Result<()> {
    let k = builders.len();
    for (i, b) in builders.iter_mut().enumerate() {
        columnar::push_array(b, batch.column(i).as_ref(), rules, opts.max_field_bytes).map_err(
            |(_, e)| columnar::cell_error(file, None, b.name(), e, opts.max_field_bytes),
        )?;
    }
    let n = batch.column(k);
    let n = n
        .as_any()
        .downcast_ref::<arrow_array::Int64Array>()
        .ok_or_else(|| engine_error(engine, file, format!("a count of type {}", n.data_type())))?;
    counts.extend(n.values().iter().map(|&c| c.max(0) as u64));
    Ok(())
}

/// Merge the groups whose codes coincide once the cells are read (trimmed,
/// missing, numbers canonical), adding their counts; combinations in code
/// order.
fn merge(columns: Vec<Column>, counts: Vec<u64>) -> (Vec<Column>, Vec<u64>) {
    let bits: Vec<u32> = columns.iter().map(Column::code_bits).collect();
    if bits.iter().sum::<u32>() <= 64 {
        return merge_packed(&columns, &counts, &bits);
    }
    merge_wide(&columns, &counts)
}

/// [`merge`] by a map of each combination's codes.
fn merge_wide(columns: &[Column], counts: &[u64]) -> (Vec<Column>, Vec<u64>) {
    let mut index: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
    let mut keys: Vec<Vec<u32>> = Vec::new();
    let mut merged: Vec<u64> = Vec::new();
    for (g, &n) in counts.iter().enumerate() {
        let key: Vec<u32> = columns.iter().map(|c| c.code(g)).collect();
        match index.get(&key) {
            Some(&at) => merged[at] += n,
            None => {
                index.insert(key.clone(), keys.len());
                keys.push(key);
                merged.push(n);
            }
        }
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_unstable_by(|&a, &b| keys[a].cmp(&keys[b]));
    let counts = order.iter().map(|&i| merged[i]).collect();
    let columns = columns
        .iter()
        .enumerate()
        .map(|(j, c)| c.recoded(order.iter().map(|&i| keys[i][j]).collect()))
        .collect();
    (columns, counts)
}

/// [`merge`] when a combination's codes pack into one `u64` (they nearly
/// always do): each column in the bits its code space needs, the first
/// column highest, so the keys' numeric order is the combinations' code
/// order. The keys are sorted on every core and equal ones merged in one
/// sweep: no map of millions of boxed keys, the same table.
fn merge_packed(columns: &[Column], counts: &[u64], bits: &[u32]) -> (Vec<Column>, Vec<u64>) {
    let mut keyed: Vec<(u64, u64)> = (0..counts.len())
        .into_par_iter()
        .map(|g| {
            let key = columns
                .iter()
                .zip(bits)
                .fold(0u64, |acc, (c, &b)| (acc << b) | u64::from(c.code(g)));
            (key, counts[g])
        })
        .collect();
    keyed.par_sort_unstable_by_key(|&(key, _)| key);
    let mut keys: Vec<u64> = Vec::with_capacity(keyed.len());
    let mut merged: Vec<u64> = Vec::with_capacity(keyed.len());
    for (key, n) in keyed {
        match (keys.last(), merged.last_mut()) {
            (Some(&last), Some(sum)) if last == key => *sum += n,
            _ => {
                keys.push(key);
                merged.push(n);
            }
        }
    }
    let mut shift: u32 = bits.iter().sum();
    let columns = columns
        .iter()
        .zip(bits)
        .map(|(c, &b)| {
            shift -= b;
            let mask = (1u64 << b) - 1;
            let codes = keys
                .par_iter()
                .map(|&k| (k.checked_shr(shift).unwrap_or(0) & mask) as u32)
                .collect();
            c.recoded(codes)
        })
        .collect();
    (columns, merged)
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// The engine's failures say their cause (issue 36, item 10): a memory
    /// limit, temporary space, or the file, and never as a debug struct.
    #[test]
    fn engine_errors_name_their_cause() {
        use datafusion::error::DataFusionError as D;
        let path = Path::new("big.parquet");
        let e = datafusion_error(
            LOCAL,
            path,
            D::ResourcesExhausted("pool of 10 bytes".into()),
        );
        let m = e.to_string();
        assert!(
            m.starts_with("big.parquet: the query engine reached its memory limit"),
            "{m}"
        );
        assert!(m.contains("pool of 10 bytes"), "{m}");
        for kind in [
            std::io::ErrorKind::StorageFull,
            std::io::ErrorKind::ReadOnlyFilesystem,
        ] {
            let io = D::IoError(std::io::Error::from(kind));
            // Wrapped as DataFusion wraps a spill's failure: the root says it.
            let wrapped = D::Context("spilling".into(), Box::new(io));
            let m = datafusion_error(LOCAL, path, wrapped).to_string();
            assert!(m.contains("could not write its temporary files"), "{m}");
            assert!(!m.contains("cannot read the file"), "{m}");
        }
        let m = datafusion_error(LOCAL, path, D::Plan("no such column".into())).to_string();
        assert!(
            m.contains("cannot read the file: Error during planning: no such column"),
            "{m}"
        );
        assert!(!m.contains("Plan("), "{m}");
    }

    /// An executor's memory limit, reached on the cluster, is said as such
    /// (issue 36, item 10), not as "cannot read the file" and a debug form.
    #[test]
    fn an_executor_out_of_memory_is_named() {
        use datafusion::error::DataFusionError as D;
        let text = r#"Job Qx1 failed: Job failed due to stage 1 failed: Task failed due to runtime execution error: DataFusionError(ResourcesExhausted("Failed to allocate additional 8.0 MB for GroupedHashAggregateStream[3] with 0.0 B already allocated for this reservation - 1.2 MB remain available for the total pool"))"#;
        let m = datafusion_error(
            "the cluster at 127.0.0.1:50050",
            Path::new("big.parquet"),
            D::Execution(text.into()),
        )
        .to_string();
        assert!(
            m.starts_with("big.parquet: the cluster at 127.0.0.1:50050: an executor ran out of memory (its memory limit, `anonlab cluster executor --memory-limit`, was reached: Failed to allocate additional 8.0 MB for GroupedHashAggregateStream[3]"),
            "{m}"
        );
        assert!(
            !m.contains("cannot read the file") && !m.contains("ResourcesExhausted"),
            "{m}"
        );
    }

    /// Debug forms put in words (issue 36, item 10): the texts are those
    /// Ballista and tonic give (ballista-core's `FailedTask` formats the
    /// executor's error with `{:?}`; tonic's status ends with its
    /// metadata's).
    #[test]
    fn debug_forms_become_words() {
        for (text, want) in [
            (
                r#"Execution error: Job Qx1 failed: Job failed due to stage 1 failed: Task failed due to runtime execution error: DataFusionError(ArrowError(ExternalError(Custom { kind: Other, error: "bad page \"size\"" }), None))"#,
                r#"Execution error: Job Qx1 failed: Job failed due to stage 1 failed: Task failed due to runtime execution error: bad page "size""#,
            ),
            (
                r#"Task failed due to IO error: IoError(Os { code: 2, kind: NotFound, message: "No such file or directory" })"#,
                "Task failed due to IO error: No such file or directory",
            ),
            (
                r#"External error: status: Unknown, message: "x", details: [], metadata: MetadataMap { headers: {} }"#,
                r#"External error: status: Unknown, message: "x", details: [], metadata"#,
            ),
            ("IoError(Kind(NotFound))", "NotFound"),
            (
                "Error during planning: COUNT(*) of column Sex (a)",
                "Error during planning: COUNT(*) of column Sex (a)",
            ),
            (
                r#"Context("spilling", Context("spilling", IoError("disk \u{1b} full\n")))"#,
                "spilling: disk \u{1b} full",
            ),
        ] {
            let got = without_debug(text);
            assert_eq!(got, want, "{text}");
            assert!(!got.contains(" { ") && !got.contains("Error("), "{got}");
        }
    }

    /// The packed merge gives the table the map of boxed keys gives:
    /// the same combinations in the same order with the same counts, on
    /// tables with repeated combinations, missing cells and a column of
    /// one code (no bits).
    #[test]
    fn packed_merge_is_the_wide_merge() {
        let mut rng = ChaCha8Rng::seed_from_u64(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: u64| rng.random_range(0..n);
        for (rows, widths) in [
            (0, vec![3, 2]),
            (50, vec![3, 1, 5]),
            (2_000, vec![7, 40, 2, 0]),
        ] {
            let mut builders: Vec<ColumnBuilder> = (0..widths.len())
                .map(|i| ColumnBuilder::new(format!("c{i}")))
                .collect();
            let mut counts = Vec::new();
            for _ in 0..rows {
                for (b, &w) in builders.iter_mut().zip(&widths) {
                    match next(w + 1) {
                        v if v == w => b.push_missing(),
                        v => b.push(&format!("v{v}")),
                    }
                }
                counts.push(1 + next(4));
            }
            let columns: Vec<Column> = builders
                .into_iter()
                .map(|b| b.finish(None).unwrap())
                .collect();
            let bits: Vec<u32> = columns.iter().map(Column::code_bits).collect();
            let (wide, wide_counts) = merge_wide(&columns, &counts);
            let (packed, packed_counts) = merge_packed(&columns, &counts, &bits);
            assert_eq!(packed_counts, wide_counts, "{rows} rows");
            assert!(
                rows < 2_000 || wide_counts.len() < rows,
                "the table repeats combinations"
            );
            for (p, w) in packed.iter().zip(&wide) {
                assert_eq!(p.codes(), w.codes(), "{rows} rows, column {}", w.name());
            }
        }
    }
}
