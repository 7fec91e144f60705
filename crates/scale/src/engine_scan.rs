//! The records of a data file in the file's order, streamed by the query
//! engine and read by anonlab's rules: what the publishing pass
//! (`release::publish`) maps through a release, for a file too large for
//! memory.
//!
//! The frequency table (`data::engine`) needs no order; publishing does:
//! inside an equivalence group the published rows keep the file's order,
//! as the in-memory writer keeps it. Choices made here, and why:
//! - The scan is the frequency table's: the same read options (CSV as
//!   text in every column, header and delimiter from anonlab's reader,
//!   quoted line breaks allowed; Parquet and Arrow typed), so a cell the
//!   first pass read is read the same way here.
//! - Partitions are read **one after the other, in their order**, never
//!   interleaved: a CSV file is one partition (quoted line breaks keep the
//!   engine from splitting it), and a Parquet file split across
//!   partitions is split into consecutive byte ranges, partition *i*
//!   holding the row groups of the *i*-th range (tested in
//!   `tests/publish.rs` with a file of many row groups over four
//!   partitions). Reading partitions in parallel would need their batches
//!   buffered until their turn, which is what bounded memory forbids; the
//!   pass is bound by its own per-row work, not by decoding.
//! - The plan is checked before it runs: only scans, projections and
//!   batch coalescing, which keep each partition's order, are accepted; a
//!   session whose optimizer inserts a repartition (round robin would
//!   shuffle rows) is refused rather than published in a wrong order.
//! - On a cluster (a Ballista session, `data::cluster::Cluster::publish`)
//!   the executors run the scan and the client fetches the job's output
//!   partitions, but in the order the scheduler lists them: the order
//!   their tasks *finished* in (Ballista 55's `ExecutionGraph` appends a
//!   final stage's locations as its tasks report), not partition order.
//!   So a scan on a cluster must be one partition, one task reading the
//!   file from its first row group to its last: the session must plan
//!   one partition, and the plan the scheduler makes of the same logical
//!   plan and configuration (the same DataFusion planner, checked here on
//!   a local twin of the session) must hold only order-keeping nodes.
//!   Fetching several partitions and putting them back in partition order
//!   would let more executors read, but needs Ballista's client rewritten
//!   (its `DistributedQueryExec` flattens the list it is given); the
//!   publishing pass is bound by the client's per-row work anyway.
//! - Each cell goes through the readers' [`FieldRules`] (trimming,
//!   missing-value tokens), field limit and UTF-8 check, and a typed cell
//!   is first written as text exactly as the columnar reader writes it
//!   (`arrow-cast`'s default formatting; a dictionary column by its
//!   values), so the text here is the text the in-memory path interns.
//! - Rows are numbered in messages as records: a CSV file's header is row
//!   1 and its first record row 2 (the line, unless a quoted field spans
//!   lines); a Parquet or Arrow file's first record is row 1.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrowPrimitiveType, PrimitiveArray, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::DataType;
use datafusion::execution::memory_pool::FairSpillPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::{DataFrame, Expr, SessionConfig, SessionContext};
use futures::StreamExt;
use rayon::prelude::*;

use crate::engine::{datafusion_error, engine_error, EngineOptions};
use anonlab::data::csv_import::FieldRules;
use anonlab::data::formats::columnar::{cell_error, CellError};
use anonlab::data::formats::{detect, InputFormat};
use anonlab::data::CsvOptions;
use anonlab::error::{Error, Result};

/// How the local engine names itself in messages.
pub const LOCAL_ENGINE: &str = "the query engine";

/// The engine's session on this machine, as the frequency table makes it:
/// a memory pool of `engine.memory_limit` that spills to
/// `engine.spill_dir`, and `engine.threads` partitions.
pub fn local_context(path: &Path, engine: &EngineOptions) -> Result<SessionContext> {
    let mut runtime = RuntimeEnvBuilder::new()
        .with_memory_pool(Arc::new(FairSpillPool::new(engine.memory_limit)));
    if let Some(dir) = &engine.spill_dir {
        runtime = runtime.with_temp_file_path(dir);
    }
    let runtime = runtime
        .build_arc()
        .map_err(|e| engine_error(LOCAL_ENGINE, path, e))?;
    let config = SessionConfig::new()
        .with_target_partitions(engine.threads.max(1))
        .with_batch_size(8192);
    Ok(SessionContext::new_with_config_rt(config, runtime))
}

/// The runtime the local engine's futures run on.
pub fn local_runtime(path: &Path, engine: &EngineOptions) -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(engine.threads.max(1))
        .thread_name("anonlab-engine")
        .build()
        .map_err(|e| Error::Io(path.to_path_buf(), e))
}

/// A data file opened for a scan in file order: its columns are known,
/// no record has been read.
pub struct FileScan {
    engine: String,
    file: PathBuf,
    format: InputFormat,
    names: Vec<String>,
    df: DataFrame,
    opts: CsvOptions,
}

/// Open `path`, read as `opts` says, in the session `ctx` (`engine`
/// names it in messages).
pub async fn open_in_file_order(
    ctx: &SessionContext,
    engine: &str,
    path: &Path,
    opts: &CsvOptions,
) -> Result<FileScan> {
    let meta = std::fs::metadata(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
    if meta.is_dir() {
        return Err(Error::input(
            path,
            None,
            None,
            "is a directory, not a data file",
        ));
    }
    anonlab::data::formats::check_metadata(path, opts)?;
    let format = detect(path, opts);
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
    let file = path.to_path_buf();
    let (df, names) = crate::engine::open_frame(ctx, engine, path, format, opts).await?;
    Ok(FileScan {
        engine: engine.to_string(),
        file,
        format,
        names,
        df,
        opts: opts.clone(),
    })
}

/// The nodes of a plan that keep the order of each partition's rows.
const ORDER_PRESERVING: [&str; 4] = [
    "DataSourceExec",
    "ProjectionExec",
    "CoalesceBatchesExec",
    "CooperativeExec",
];

/// The first node of `plan` that may reorder rows, if any.
fn reordering(plan: &Arc<dyn ExecutionPlan>) -> Option<String> {
    if !ORDER_PRESERVING.contains(&plan.name()) {
        return Some(plan.name().to_string());
    }
    plan.children().into_iter().find_map(reordering)
}

/// The plan a Ballista session gives its client: the job's stages run on
/// the executors, and this node fetches the final stage's partitions.
const DISTRIBUTED: &str = "DistributedQueryExec";

/// Refuse a scan on a cluster that could come back out of file order.
/// Ballista's client fetches a job's output partitions in the order the
/// scheduler lists them, which is the order their tasks *finished* in,
/// not their partition order. So the scan must be one partition, read by
/// one task from the first row group to the last: the session must plan
/// one partition, and the plan the scheduler makes from the same logical
/// plan and configuration (the same DataFusion planner) must be a plain
/// scan.
async fn check_distributed(df: &DataFrame, engine: &str, file: &Path) -> Result<()> {
    let config = df.task_ctx().session_config().clone();
    if config.target_partitions() != 1 {
        return Err(engine_error(
            engine,
            file,
            format!("a cluster returns a job's partitions in the order their tasks finish, so a scan in file order needs a session of one partition, and this one has {}", config.target_partitions()),
        ));
    }
    let state = datafusion::execution::SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    let fail = |e: datafusion::error::DataFusionError| datafusion_error(engine, file, e);
    let plan = state
        .create_physical_plan(df.logical_plan())
        .await
        .map_err(fail)?;
    if let Some(node) = reordering(&plan) {
        return Err(engine_error(
            engine,
            file,
            format!("its plan for reading the records in file order holds a {node}, which may reorder them; publishing needs a session that plans a plain scan"),
        ));
    }
    let partitions = plan.properties().output_partitioning().partition_count();
    if partitions != 1 {
        return Err(engine_error(
            engine,
            file,
            format!("its plan for reading the records in file order has {partitions} partitions, whose order a cluster does not keep"),
        ));
    }
    Ok(())
}

impl FileScan {
    /// Every column of the file, in its order.
    pub fn columns(&self) -> &[String] {
        &self.names
    }

    /// How the file is stored.
    pub fn format(&self) -> InputFormat {
        self.format
    }

    /// The row number messages give for the record at `index` (0-based in
    /// file order): see the module doc.
    pub fn row_label(&self, index: u64) -> u64 {
        row_label(self.format, index)
    }

    /// Stream the records, in file order, through `visit`, one batch at a
    /// time, holding the cells of `columns` (indices into
    /// [`Self::columns`]; each batch's columns in that order). Returns the
    /// number of records.
    pub async fn for_each_batch(
        self,
        columns: &[usize],
        mut visit: impl FnMut(&TextBatch) -> Result<()> + Send,
    ) -> Result<u64> {
        self.scan(columns, |batch| visit(batch).map(|()| true))
            .await
    }

    /// [`Self::for_each_batch`], stopping after the batch for which
    /// `visit` returns `false`: the records after it are not read (the
    /// engine's stream is dropped). Returns the number of records visited.
    pub async fn scan(
        self,
        columns: &[usize],
        mut visit: impl FnMut(&TextBatch) -> Result<bool> + Send,
    ) -> Result<u64> {
        self.scan_staged(columns, |_| (), |batch, ()| visit(batch))
            .await
    }

    /// Stream the records, in file order, through two stages: `prepare`
    /// (work on a batch that does not depend on the batches before it:
    /// on every core, say) then `place` (what depends on order), one
    /// batch at a time, stopping after the batch `place` returns `false`
    /// for. A batch is read as text and prepared while the one before it
    /// is placed, so the order-dependent stage, which runs on one thread,
    /// no longer leaves the other cores idle. Every batch is placed in
    /// order after it was prepared; the first error in file order is the
    /// one returned (a batch's placement before the next batch's cells).
    /// Returns the number of records placed.
    pub async fn scan_staged<M: Send>(
        self,
        columns: &[usize],
        mut prepare: impl FnMut(&TextBatch) -> M + Send,
        mut place: impl FnMut(&TextBatch, M) -> Result<bool> + Send,
    ) -> Result<u64> {
        let file = self.file.clone();
        let engine = self.engine.clone();
        let fail = |e: datafusion::error::DataFusionError| datafusion_error(&engine, &file, e);
        let mut names = Vec::with_capacity(columns.len());
        for &c in columns {
            let name = self.names.get(c).ok_or_else(|| {
                Error::Internal(format!(
                    "column {} of a file of {} columns",
                    c + 1,
                    self.names.len()
                ))
            })?;
            names.push(name.clone());
        }
        let exprs: Vec<Expr> = names
            .iter()
            .map(|c| Expr::Column(datafusion::common::Column::from_name(c)))
            .collect();
        let df = self.df.select(exprs).map_err(fail)?;
        let task = Arc::new(df.task_ctx());
        let plan = df.clone().create_physical_plan().await.map_err(fail)?;
        if plan.name() == DISTRIBUTED {
            check_distributed(&df, &engine, &file).await?;
        } else if let Some(node) = reordering(&plan) {
            return Err(engine_error(
                &engine,
                &file,
                format!("its plan for reading the records in file order holds a {node}, which may reorder them; publishing needs a session that plans a plain scan"),
            ));
        }
        let missing: Vec<&[u8]> = self.opts.missing.iter().map(|s| s.as_bytes()).collect();
        let text = Text {
            rules: FieldRules::new(self.opts.trim, &missing),
            max: self.opts.max_field_bytes,
            format: self.format,
            file: &file,
            names: &names,
        };
        // The batch being placed, and the one read and prepared meanwhile.
        let mut current = TextBatch::with_columns(columns.len());
        let mut next = TextBatch::with_columns(columns.len());
        let mut prepared: Option<M> = None;
        let (mut read, mut placed) = (0u64, 0u64);
        // The engine decodes the file on a task of its own, a few batches
        // ahead, while this thread turns the previous ones into text and
        // visits them: decoding (Parquet's pages, a CSV's parsing) would
        // otherwise wait for the visit, and the visit for decoding. The
        // batches come in order: one partition's stream after the other,
        // each executed only when the previous one is done.
        let (sender, mut batches) = tokio::sync::mpsc::channel(SCAN_AHEAD);
        let partitions = plan.properties().output_partitioning().partition_count();
        // In a set, so that the task is aborted when the scan stops early
        // (a visit's error, `false` or a dropped future) and does not go
        // on reading the file.
        let mut decoder = tokio::task::JoinSet::new();
        decoder.spawn(async move {
            for partition in 0..partitions {
                let mut stream = match plan.execute(partition, task.clone()) {
                    Ok(stream) => stream,
                    Err(e) => {
                        let _ = sender.send(Err(e)).await;
                        return;
                    }
                };
                while let Some(arrays) = stream.next().await {
                    let failed = arrays.is_err();
                    // A closed channel: the visit stopped the scan.
                    if sender.send(arrays).await.is_err() || failed {
                        return;
                    }
                }
            }
        });
        while let Some(arrays) = batches.recv().await {
            let read_next = |next: &mut TextBatch| -> Result<M> {
                let arrays = arrays.map_err(fail)?;
                text.fill(next, &arrays, read)?;
                Ok(prepare(next))
            };
            let (more, ready) = match prepared.take() {
                Some(m) => {
                    let (more, ready) = rayon::join(|| place(&current, m), || read_next(&mut next));
                    placed += current.len as u64;
                    (more?, ready)
                }
                None => (true, read_next(&mut next)),
            };
            if !more {
                return Ok(placed);
            }
            prepared = Some(ready?);
            read += next.len as u64;
            std::mem::swap(&mut current, &mut next);
        }
        if let Some(m) = prepared.take() {
            let more = place(&current, m)?;
            placed += current.len as u64;
            if !more {
                return Ok(placed);
            }
        }
        // The channel closed: the decoder ended, by reaching the end of
        // the file or by a panic, which must not pass for the end.
        if let Some(Err(e)) = decoder.join_next().await {
            return Err(engine_error(&engine, &file, e));
        }
        Ok(placed)
    }
}

/// How a scan turns the engine's arrays into text.
struct Text<'a> {
    rules: FieldRules<'a>,
    max: usize,
    format: InputFormat,
    file: &'a Path,
    names: &'a [String],
}

impl Text<'_> {
    /// `batch` as the text of `arrays`, whose first record is the file's
    /// `first`-th. The columns are read on every core (they are
    /// independent); the first column in order with a bad cell is the
    /// one refused, as when they are read one by one.
    fn fill(&self, batch: &mut TextBatch, arrays: &RecordBatch, first: u64) -> Result<()> {
        batch.first = first;
        batch.len = arrays.num_rows();
        let read: Vec<_> = batch
            .columns
            .par_iter_mut()
            .enumerate()
            .map(|(i, column)| {
                column.clear();
                // A CSV null is an empty field (`engine::empty_fields_as_text`).
                let csv = self.format == InputFormat::Csv;
                column.push_array(arrays.column(i).as_ref(), &self.rules, self.max, csv)
            })
            .collect();
        match read
            .into_iter()
            .enumerate()
            .find_map(|(i, r)| r.err().map(|e| (i, e)))
        {
            Some((i, (j, e))) => Err(cell_error(
                self.file,
                Some(row_label(self.format, first + j as u64)),
                &self.names[i],
                e,
                self.max,
            )),
            None => Ok(()),
        }
    }
}

/// Batches the engine decodes ahead of the visit: enough to keep it busy
/// while a batch is visited, few enough that memory stays a few batches.
const SCAN_AHEAD: usize = 4;

/// The first `limit` records of the file at `path` (all of them when it
/// has fewer), every column, in file order, read by the same scan and
/// rules as the publishing pass: what a front end shows of a file it
/// assesses through its frequency table (the TUI's Data screen, issue 19).
/// Reading stops after the batch that holds the `limit`-th record, so the
/// cost does not grow with the file. Each column's kind is decided on
/// these records alone (forced kinds as `opts` says), so a column numeric
/// in the first records may be categorical in the file.
pub fn head(path: &Path, opts: &CsvOptions, limit: usize) -> Result<anonlab::data::Dataset> {
    use anonlab::data::ColumnBuilder;
    // The in-memory reader's metadata checks first, as every engine entry
    // makes them: DataFusion's reader panics on some malformed footers.
    anonlab::data::formats::check_metadata(path, opts)?;
    // One partition: the first records are the first partition's.
    let engine = EngineOptions {
        threads: 1,
        ..EngineOptions::default()
    };
    let runtime = local_runtime(path, &engine)?;
    runtime.block_on(async {
        let ctx = local_context(path, &engine)?;
        let scan = open_in_file_order(&ctx, LOCAL_ENGINE, path, opts).await?;
        let names = scan.columns().to_vec();
        let all: Vec<usize> = (0..names.len()).collect();
        let mut builders: Vec<ColumnBuilder> = names
            .iter()
            .map(|n| ColumnBuilder::with_capacity(n.clone(), limit.min(1 << 16)))
            .collect();
        let mut taken = 0usize;
        if limit > 0 {
            scan.scan(&all, |batch| {
                let n = batch.len().min(limit - taken);
                for (c, b) in builders.iter_mut().enumerate() {
                    for r in 0..n {
                        match batch.cell(c, r) {
                            Some(v) => b.push(v),
                            None => b.push_missing(),
                        }
                    }
                }
                taken += n;
                Ok(taken < limit)
            })
            .await?;
        }
        let mut columns = Vec::with_capacity(builders.len());
        for b in builders {
            let name = b.name().to_string();
            let col = b
                .finish(opts.forced_kind(&name))
                .map_err(|e| Error::input(path, None, Some(name.clone()), e.to_string()))?;
            columns.push(col);
        }
        anonlab::data::Dataset::new(anonlab::data::csv_import::dataset_name(path), columns)
    })
}

/// The row number of the record at `index` in a file stored as `format`.
pub fn row_label(format: InputFormat, index: u64) -> u64 {
    match format {
        InputFormat::Csv | InputFormat::CsvGzip | InputFormat::CsvZstd => index + 2,
        InputFormat::Parquet | InputFormat::Arrow => index + 1,
    }
}

/// Consecutive records of the file, their cells as read.
pub struct TextBatch {
    columns: Vec<TextColumn>,
    len: usize,
    /// Index of the first record in the file.
    first: u64,
}

impl TextBatch {
    fn with_columns(columns: usize) -> Self {
        TextBatch {
            columns: (0..columns).map(|_| TextColumn::default()).collect(),
            len: 0,
            first: 0,
        }
    }

    /// Records in the batch.
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Index (0-based, file order) of the batch's first record.
    pub fn first_record(&self) -> u64 {
        self.first
    }
    /// The cell of the batch's `row`-th record in its `column`-th column
    /// as read (trimmed if the rules trim), `None` when it is missing.
    pub fn cell(&self, column: usize, row: usize) -> Option<&str> {
        self.columns[column].cell(row)
    }
}

/// One column of a batch as text.
#[derive(Default)]
struct TextColumn {
    text: String,
    ends: Vec<usize>,
    missing: Vec<bool>,
}

impl TextColumn {
    fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
        self.missing.clear();
    }

    fn cell(&self, row: usize) -> Option<&str> {
        if self.missing[row] {
            return None;
        }
        let start = if row == 0 { 0 } else { self.ends[row - 1] };
        Some(&self.text[start..self.ends[row]])
    }

    fn push_missing(&mut self) {
        self.ends.push(self.text.len());
        self.missing.push(true);
    }

    /// One cell's raw bytes, read as the loaders read a field.
    fn push(
        &mut self,
        raw: Option<&[u8]>,
        rules: &FieldRules,
        max: usize,
    ) -> std::result::Result<(), CellError> {
        let Some(raw) = raw else {
            self.push_missing();
            return Ok(());
        };
        let field = rules.field(raw);
        if field.len() > max {
            return Err(CellError::TooLong(field.len()));
        }
        if rules.is_missing(field) {
            self.push_missing();
            return Ok(());
        }
        self.text
            .push_str(std::str::from_utf8(field).map_err(CellError::Utf8)?);
        self.ends.push(self.text.len());
        self.missing.push(false);
        Ok(())
    }

    /// Cells of a text array: as [`Self::push`] without the UTF-8 check
    /// (trimming ASCII white space keeps a text valid).
    fn push_texts<'a>(
        &mut self,
        cells: impl Iterator<Item = Option<&'a str>>,
        rules: &FieldRules,
        max: usize,
    ) -> std::result::Result<(), (usize, CellError)> {
        for (j, cell) in cells.enumerate() {
            let Some(text) = cell else {
                self.push_missing();
                continue;
            };
            let field = rules.field(text.as_bytes());
            if field.len() > max {
                return Err((j, CellError::TooLong(field.len())));
            }
            if rules.is_missing(field) {
                self.push_missing();
                continue;
            }
            // The field is a slice of the text, cut at ASCII bytes.
            let start = field.as_ptr() as usize - text.as_ptr() as usize;
            self.text.push_str(&text[start..start + field.len()]);
            self.ends.push(self.text.len());
            self.missing.push(false);
        }
        Ok(())
    }

    fn push_cells<'a>(
        &mut self,
        cells: impl Iterator<Item = Option<&'a [u8]>>,
        rules: &FieldRules,
        max: usize,
    ) -> std::result::Result<(), (usize, CellError)> {
        for (j, cell) in cells.enumerate() {
            self.push(cell, rules, max).map_err(|e| (j, e))?;
        }
        Ok(())
    }

    /// Cells of an integer array, each through [`Self::push`]'s rules (a
    /// missing-value token may be a number).
    fn push_integers<T>(
        &mut self,
        array: &PrimitiveArray<T>,
        rules: &FieldRules,
        max: usize,
    ) -> std::result::Result<(), (usize, CellError)>
    where
        T: ArrowPrimitiveType,
        T::Native: itoa::Integer,
    {
        let mut text = itoa::Buffer::new();
        for (j, cell) in array.iter().enumerate() {
            let cell = cell.map(|v| text.format(v).as_bytes());
            self.push(cell, rules, max).map_err(|e| (j, e))?;
        }
        Ok(())
    }

    /// A batch's column, as `formats::columnar::push_array` reads it; a
    /// null of a CSV file's (`csv`) text column is an empty field.
    fn push_array(
        &mut self,
        array: &dyn Array,
        rules: &FieldRules,
        max: usize,
        csv: bool,
    ) -> std::result::Result<(), (usize, CellError)> {
        match array.data_type() {
            DataType::Null => {
                (0..array.len()).for_each(|_| self.push_missing());
                Ok(())
            }
            DataType::Utf8 if csv => self.push_texts(
                array
                    .as_string::<i32>()
                    .iter()
                    .map(|c| Some(c.unwrap_or(""))),
                rules,
                max,
            ),
            // Arrow's text arrays hold valid UTF-8: no check again.
            DataType::Utf8 => self.push_texts(array.as_string::<i32>().iter(), rules, max),
            DataType::LargeUtf8 => self.push_texts(array.as_string::<i64>().iter(), rules, max),
            DataType::Utf8View => self.push_texts(array.as_string_view().iter(), rules, max),
            DataType::Binary => self.push_cells(array.as_binary::<i32>().iter(), rules, max),
            DataType::LargeBinary => self.push_cells(array.as_binary::<i64>().iter(), rules, max),
            DataType::BinaryView => self.push_cells(array.as_binary_view().iter(), rules, max),
            DataType::FixedSizeBinary(_) => {
                self.push_cells(array.as_fixed_size_binary().iter(), rules, max)
            }
            // Integers as arrow-cast writes them (plain decimal), without
            // its formatter's per-cell dispatch: the common typed column.
            DataType::Int8 => self.push_integers(array.as_primitive::<Int8Type>(), rules, max),
            DataType::Int16 => self.push_integers(array.as_primitive::<Int16Type>(), rules, max),
            DataType::Int32 => self.push_integers(array.as_primitive::<Int32Type>(), rules, max),
            DataType::Int64 => self.push_integers(array.as_primitive::<Int64Type>(), rules, max),
            DataType::UInt8 => self.push_integers(array.as_primitive::<UInt8Type>(), rules, max),
            DataType::UInt16 => self.push_integers(array.as_primitive::<UInt16Type>(), rules, max),
            DataType::UInt32 => self.push_integers(array.as_primitive::<UInt32Type>(), rules, max),
            DataType::UInt64 => self.push_integers(array.as_primitive::<UInt64Type>(), rules, max),
            DataType::Dictionary(_, value) => {
                let plain =
                    arrow_cast::cast(array, value).map_err(|e| (0, CellError::Format(e)))?;
                self.push_array(plain.as_ref(), rules, max, false)
            }
            _ => {
                let format = ArrayFormatter::try_new(array, &FormatOptions::default())
                    .map_err(|e| (0, CellError::Format(e)))?;
                let mut text = String::new();
                for j in 0..array.len() {
                    if array.is_null(j) {
                        self.push_missing();
                        continue;
                    }
                    text.clear();
                    format
                        .value(j)
                        .write(&mut text)
                        .map_err(|e| (j, CellError::Format(e)))?;
                    self.push(Some(text.as_bytes()), rules, max)
                        .map_err(|e| (j, e))?;
                }
                Ok(())
            }
        }
    }
}
