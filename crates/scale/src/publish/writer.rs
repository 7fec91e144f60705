//! The second pass of [`publish`](super::publish): the spilled ranges read
//! back in output order and written as CSV or Parquet, hashed as written.
//!
//! A renderer (`Render`, on a scoped thread) reads the ranges back, renders
//! their rows on every core (rayon tasks of one Parquet batch each, taken
//! back in order), hashes the CSV bytes and hands the writing thread what
//! it writes: CSV blocks, or Parquet batches, which the writing thread
//! encodes. The hand-over is a channel of [`IN_FLIGHT`] blocks, so memory
//! stays bounded and the bytes are those one thread writes; the output
//! writer never leaves its thread.

use std::sync::mpsc::{sync_channel, SyncSender};

use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnChunk, ArrowColumnWriter, ArrowRowGroupWriterFactory,
};
use parquet::file::writer::SerializedFileWriter;
use rayon::prelude::*;

use super::*;

/// Blocks rendered ahead of the writer at most.
const IN_FLIGHT: usize = 4;

/// What the renderer hands the writer, in output order.
enum Block {
    /// CSV bytes of consecutive rows (CSV output only).
    Csv(Vec<u8>),
    /// Rows as a Parquet batch (Parquet output only).
    Parquet(RecordBatch),
}

/// The second pass: ranges read back in order and written out.
pub(super) struct Writer<'a> {
    job: &'a PublishJob<'a>,
    layout: &'a Layout,
    format: InputFormat,
    inputs: &'a Inputs,
    pub(super) fingerprint: Option<String>,
    pub(super) ranges: usize,
    pub(super) largest: u64,
}

/// Where the rows go besides the hash.
pub(super) enum Sink<'w> {
    Csv(&'w mut dyn Write),
    Parquet(Box<ParquetSink<'w>>),
}

impl<'a> Writer<'a> {
    pub(super) fn new(
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
            fingerprint: None,
            ranges: 0,
            largest: 0,
        }
    }

    pub(super) fn write(&mut self, w: &mut dyn Write, spilled: &Spilled) -> Result<()> {
        let target = target(self.job);
        let io = |e| Error::Write(target.clone(), e);
        let mut hash = Sha256::new();
        let mut header = csv::Writer::from_writer(Vec::new());
        header
            .write_record(&self.layout.headers)
            .map_err(|e| io(std::io::Error::other(e)))?;
        let header = header
            .into_inner()
            .map_err(|e| io(std::io::Error::other(e.to_string())))?;
        hash.update(&header);
        let mut sink = match self.format {
            InputFormat::Parquet => Sink::Parquet(Box::new(
                ParquetSink::new(&self.layout.headers, w).map_err(io)?,
            )),
            _ => {
                w.write_all(&header).map_err(io)?;
                Sink::Csv(w)
            }
        };
        let parquet = matches!(sink, Sink::Parquet(_));
        let (tx, rx) = sync_channel(IN_FLIGHT);
        let mut render = Render::new(self.job, self.layout, self.inputs, parquet, hash, tx);
        let (rendered, written) = std::thread::scope(|s| {
            let renderer = s.spawn(move || {
                let done = render.all(spilled);
                (done, render.ranges, render.largest, render.hash)
            });
            // On an error `rx` is dropped: the renderer stops at its next
            // block.
            let written = rx.into_iter().try_for_each(|block| match block {
                Block::Csv(bytes) => match &mut sink {
                    Sink::Csv(w) => w.write_all(&bytes),
                    Sink::Parquet(_) => Ok(()),
                },
                Block::Parquet(batch) => match &mut sink {
                    Sink::Parquet(p) => p.write(&batch),
                    Sink::Csv(_) => Ok(()),
                },
            });
            let rendered = renderer
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (rendered, written)
        });
        written.map_err(io)?;
        let (done, ranges, largest, hash) = rendered;
        done?;
        self.ranges = ranges;
        self.largest = largest;
        match sink {
            Sink::Csv(w) => w.flush().map_err(io)?,
            Sink::Parquet(p) => p.finish().map_err(io)?,
        }
        self.fingerprint = Some(combine(vec![("table".to_string(), hash.finalize())]));
        Ok(())
    }
}

/// The file messages name.
fn target(job: &PublishJob<'_>) -> PathBuf {
    job.output
        .map_or_else(|| PathBuf::from("(the published table)"), Path::to_path_buf)
}

/// The renderer: ranges read back in order, rows rendered and handed to
/// the writer.
struct Render<'a> {
    job: &'a PublishJob<'a>,
    layout: &'a Layout,
    inputs: &'a Inputs,
    blocks: SyncSender<Block>,
    /// The writer stopped (it failed, and says why): render no more.
    stopped: bool,
    ranges: usize,
    largest: u64,
    /// The published table's CSV bytes hashed so far (the fingerprint).
    hash: Sha256,
    /// Hand the CSV bytes to the writer (CSV output), not only hash them.
    csv: bool,
    /// For Parquet output: rows of a batch not rendered whole by one task
    /// (a range's first and last rows), gathered here.
    parquet: Option<TextColumns>,
}

/// Rendered rows of one task: their fields' text, each field's end in it
/// (every row has the same number of fields), their CSV bytes and, for
/// Parquet output when the rows are one whole batch, that batch.
#[derive(Default)]
struct Rendered {
    text: String,
    ends: Vec<usize>,
    csv: Vec<u8>,
    batch: Option<RecordBatch>,
}

/// Renders rows: the cells of the group last rendered are kept, as
/// consecutive rows mostly share their group.
struct RowText<'a> {
    job: &'a PublishJob<'a>,
    layout: &'a Layout,
    kinds: &'a [ColumnKind],
    /// The group whose cells are rendered in `cells`.
    group: Option<usize>,
    cells: Vec<Option<String>>,
    gid: String,
}

impl<'a> Render<'a> {
    fn new(
        job: &'a PublishJob<'a>,
        layout: &'a Layout,
        inputs: &'a Inputs,
        parquet: bool,
        hash: Sha256,
        blocks: SyncSender<Block>,
    ) -> Self {
        Render {
            job,
            layout,
            inputs,
            blocks,
            stopped: false,
            ranges: 0,
            largest: 0,
            hash,
            csv: !parquet,
            parquet: parquet.then(|| TextColumns::new(text_schema(&layout.headers))),
        }
    }

    /// Every range in order, then what is left of the last block.
    fn all(&mut self, spilled: &Spilled) -> Result<()> {
        for (scratch, lo, hi) in &spilled.files {
            self.range(scratch, *lo, *hi, &spilled.kinds)?;
            if self.stopped {
                return Ok(());
            }
        }
        self.flush_parquet()
    }

    /// Hand a block to the writer; a writer that stopped stops the
    /// renderer.
    fn send(&mut self, block: Block) {
        if !self.stopped && self.blocks.send(block).is_err() {
            self.stopped = true;
        }
    }

    /// Hand over the Parquet rows rendered, if any.
    fn flush_parquet(&mut self) -> Result<()> {
        let Some(columns) = &mut self.parquet else {
            return Ok(());
        };
        if let Some(batch) = columns
            .batch()
            .map_err(|e| Error::Write(target(self.job), e))?
        {
            self.send(Block::Parquet(batch));
        }
        Ok(())
    }

    /// Write the rows placed in `lo..hi`, spilled to `scratch`: at once
    /// when they fit the budget, else split into smaller ranges first.
    fn range(&mut self, scratch: &Scratch, lo: u64, hi: u64, kinds: &[ColumnKind]) -> Result<()> {
        let path = scratch.path().to_path_buf();
        let read_err = |e| Error::Io(path.clone(), e);
        let size = std::fs::metadata(&path).map_err(read_err)?.len();
        let passthrough = kinds.len();
        if size > self.job.range_bytes as u64 && hi - lo > 1 {
            return self.split(scratch, lo, hi, size, kinds);
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
        // The rows are rendered on every core, a few tasks at a time (so
        // memory stays a few tasks' text), and handed over in order. For
        // Parquet output a task's rows are the rows of one batch of the
        // output ([`PARQUET_BATCH`] rows from its first row on), which the
        // task makes whole when the range holds all of it: the batches and
        // so the file are those of rows handed over one at a time.
        let step = PARQUET_BATCH as u64;
        let mut tasks = Vec::new();
        let mut start = lo;
        while start < hi {
            let end = ((start / step + 1) * step).min(hi);
            tasks.push(((start - lo) as usize, (end - lo) as usize));
            start = end;
        }
        let schema = self.parquet.as_ref().map(|p| p.schema.clone());
        let window = rayon::current_num_threads().max(1) * 4;
        for tasks in tasks.chunks(window) {
            let rendered: Vec<Result<Rendered>> = tasks
                .par_iter()
                .map(|&(from, to)| {
                    let mut line = RowText::new(self.job, self.layout, kinds);
                    let mut out = Rendered::default();
                    let mut cells = Vec::with_capacity(passthrough);
                    for &at in &slots[from..to] {
                        let combo =
                            read_record(&bytes, at, passthrough, &mut cells).ok_or_else(corrupt)?;
                        line.row(combo, &cells, &mut out);
                    }
                    let whole =
                        (lo + from as u64).is_multiple_of(step) && to - from == PARQUET_BATCH;
                    if let (Some(schema), true) = (&schema, whole) {
                        let mut columns = TextColumns::new(schema.clone());
                        out.push_into(&mut columns, self.layout.headers.len());
                        out.batch = columns
                            .batch()
                            .map_err(|e| Error::Write(target(self.job), e))?;
                    }
                    Ok(out)
                })
                .collect();
            for out in rendered {
                self.take(out?)?;
                if self.stopped {
                    return Ok(());
                }
            }
            self.job.check()?;
            let (from, to) = (tasks[0].0, tasks[tasks.len() - 1].1);
            self.job.advance((to - from) as u64);
        }
        Ok(())
    }

    /// Hash a task's rendered rows and hand them over: the CSV bytes for
    /// CSV output; for Parquet output the task's batch, or its rows into
    /// the batch being gathered.
    fn take(&mut self, out: Rendered) -> Result<()> {
        self.hash.update(&out.csv);
        let fields = self.layout.headers.len();
        if self.csv {
            self.send(Block::Csv(out.csv));
            return Ok(());
        }
        let Some(columns) = &mut self.parquet else {
            return Ok(());
        };
        if let Some(batch) = out.batch {
            // A whole batch starts where the gathered rows made one.
            debug_assert_eq!(columns.rows, 0);
            self.send(Block::Parquet(batch));
            return Ok(());
        }
        out.push_into(columns, fields);
        if columns.rows >= PARQUET_BATCH {
            self.flush_parquet()?;
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
            self.range(s, *a, *b, kinds)?;
            if self.stopped {
                return Ok(());
            }
        }
        Ok(())
    }
}

impl Rendered {
    /// The rows into Parquet columns.
    fn push_into(&self, columns: &mut TextColumns, fields: usize) {
        let mut start = 0;
        for ends in self.ends.chunks(fields.max(1)) {
            columns.push(&self.text, start, ends);
            start = ends.last().copied().unwrap_or(start);
        }
    }
}

impl<'a> RowText<'a> {
    fn new(job: &'a PublishJob<'a>, layout: &'a Layout, kinds: &'a [ColumnKind]) -> Self {
        RowText {
            job,
            layout,
            kinds,
            group: None,
            cells: Vec::new(),
            gid: String::new(),
        }
    }

    /// One published row into `out`: the record of combination `combo`
    /// whose passthrough cells are `cells`.
    fn row(&mut self, combo: usize, cells: &[Option<&str>], out: &mut Rendered) {
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
        let Rendered {
            text, ends, csv, ..
        } = out;
        let first = ends.len();
        for (&c, cell) in release.quasi_identifiers.iter().zip(&self.cells) {
            match cell {
                Some(shown) => text.push_str(shown),
                None => {
                    let col = ds.col(c);
                    text.push_str(col.display(col.code(combo)));
                }
            }
            ends.push(text.len());
        }
        for (cell, kind) in cells.iter().zip(self.kinds) {
            match cell {
                None => text.push('?'),
                Some(cell) if *kind == ColumnKind::Numeric && plain_integer(cell) => {
                    text.push_str(cell)
                }
                Some(cell) if *kind == ColumnKind::Numeric => match Decimal::parse(cell) {
                    Some(d) => text.push_str(&d.canonical()),
                    None => text.push_str(cell),
                },
                Some(cell) => text.push_str(cell),
            }
            ends.push(text.len());
        }
        for &c in &release.sensitive {
            let col = ds.col(c);
            text.push_str(col.display(col.code(combo)));
            ends.push(text.len());
        }
        text.push_str(&self.gid);
        ends.push(text.len());
        let mut start = if first == 0 { 0 } else { ends[first - 1] };
        for (i, &end) in ends[first..].iter().enumerate() {
            if i > 0 {
                csv.push(b',');
            }
            encode(&text[start..end], csv);
            start = end;
        }
        csv.push(b'\n');
    }
}

/// The published table's schema: every column text.
fn text_schema(headers: &[String]) -> SchemaRef {
    Arc::new(Schema::new(
        headers
            .iter()
            .map(|h| Field::new(h, DataType::Utf8, false))
            .collect::<Vec<_>>(),
    ))
}

/// Rendered rows gathered into a Parquet batch.
struct TextColumns {
    schema: SchemaRef,
    columns: Vec<StringBuilder>,
    rows: usize,
}

impl TextColumns {
    fn new(schema: SchemaRef) -> Self {
        TextColumns {
            columns: schema
                .fields()
                .iter()
                .map(|_| StringBuilder::new())
                .collect(),
            schema,
            rows: 0,
        }
    }

    /// One row: its fields are `text[start..ends[0]]`, then up to each
    /// next end.
    fn push(&mut self, text: &str, start: usize, ends: &[usize]) {
        let mut start = start;
        for (b, &end) in self.columns.iter_mut().zip(ends) {
            b.append_value(&text[start..end]);
            start = end;
        }
        self.rows += 1;
    }

    /// The rows pushed since the last batch, if any.
    fn batch(&mut self) -> std::io::Result<Option<RecordBatch>> {
        if self.rows == 0 {
            return Ok(None);
        }
        let arrays: Vec<ArrayRef> = self
            .columns
            .iter_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef)
            .collect();
        self.rows = 0;
        RecordBatch::try_new(self.schema.clone(), arrays)
            .map(Some)
            .map_err(std::io::Error::other)
    }
}

/// The published table as Parquet, every column text.
///
/// Each batch's columns are encoded side by side on rayon's pool (a
/// column chunk's encoder is its own: its dictionary, its pages), where
/// `ArrowWriter` encodes them one after the other on the writing thread,
/// which made that thread the second pass's narrowest point (dictionary
/// interning was a quarter of the pass). The row groups are cut as
/// `ArrowWriter::write` cuts them — at [`PARQUET_ROW_GROUP`] rows, or
/// earlier by its estimate of the encoded bytes against
/// [`PARQUET_ROW_GROUP_BYTES`] — and the file's writer, schema and
/// metadata are `ArrowWriter`'s own (`into_serialized_writer`), so the
/// file is byte for byte the one `ArrowWriter` writes
/// (`parquet_output_is_arrow_writers_file`).
pub(super) struct ParquetSink<'w> {
    out: &'w mut dyn Write,
    file: SerializedFileWriter<Vec<u8>>,
    columns: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    /// The row group being encoded: a writer per column, and its rows.
    group: Option<(Vec<ArrowColumnWriter>, usize)>,
    /// Rows and estimated bytes of a row group at most.
    max_rows: usize,
    max_bytes: usize,
}

/// Bytes of a row group at most, by the encoders' estimate.
const PARQUET_ROW_GROUP_BYTES: usize = 64 << 20;

/// The writer properties of a Parquet table cut into row groups of
/// `rows` rows and `bytes` estimated bytes at most.
fn parquet_properties(rows: usize, bytes: usize) -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(rows))
        .set_max_row_group_bytes(Some(bytes))
        .build()
}

impl<'w> ParquetSink<'w> {
    fn new(headers: &[String], out: &'w mut dyn Write) -> std::io::Result<Self> {
        Self::with_limits(headers, out, PARQUET_ROW_GROUP, PARQUET_ROW_GROUP_BYTES)
    }

    fn with_limits(
        headers: &[String],
        out: &'w mut dyn Write,
        max_rows: usize,
        max_bytes: usize,
    ) -> std::io::Result<Self> {
        let schema = text_schema(headers);
        let props = parquet_properties(max_rows, max_bytes);
        let writer = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props))
            .map_err(std::io::Error::other)?;
        let (file, columns) = writer
            .into_serialized_writer()
            .map_err(std::io::Error::other)?;
        Ok(ParquetSink {
            out,
            file,
            columns,
            schema,
            group: None,
            max_rows: max_rows.max(1),
            max_bytes,
        })
    }

    fn write(&mut self, batch: &RecordBatch) -> std::io::Result<()> {
        self.encode(batch).map_err(std::io::Error::other)?;
        let bytes = self.file.inner_mut();
        self.out.write_all(bytes)?;
        bytes.clear();
        Ok(())
    }

    /// `ArrowWriter::write`, its columns encoded in parallel.
    fn encode(&mut self, batch: &RecordBatch) -> parquet::errors::Result<()> {
        let rows = batch.num_rows();
        if rows == 0 {
            return Ok(());
        }
        let index = self.file.flushed_row_groups().len();
        let (writers, buffered) = match &mut self.group {
            Some(group) => group,
            none => none.insert((self.columns.create_column_writers(index)?, 0)),
        };
        if *buffered + rows > self.max_rows {
            let fit = self.max_rows - *buffered;
            self.encode(&batch.slice(0, fit))?;
            return self.encode(&batch.slice(fit, rows - fit));
        }
        if *buffered > 0 {
            let bytes = estimated_bytes(writers);
            if bytes >= self.max_bytes {
                self.flush()?;
                return self.encode(batch);
            }
            if let Some(per_row) = bytes.checked_div(*buffered).filter(|b| *b > 0) {
                let fit = (self.max_bytes - bytes) / per_row;
                if rows > fit {
                    if fit == 0 {
                        self.flush()?;
                        return self.encode(batch);
                    }
                    self.encode(&batch.slice(0, fit))?;
                    return self.encode(&batch.slice(fit, rows - fit));
                }
            }
        }
        let mut leaves = Vec::with_capacity(writers.len());
        for (field, column) in self.schema.fields().iter().zip(batch.columns()) {
            leaves.extend(compute_leaves(field, column)?);
        }
        writers
            .par_iter_mut()
            .zip(leaves.par_iter())
            .try_for_each(|(w, leaf)| w.write(leaf))?;
        *buffered += rows;
        if *buffered >= self.max_rows || estimated_bytes(writers) >= self.max_bytes {
            self.flush()?;
        }
        Ok(())
    }

    /// The row group encoded so far, closed (its columns in parallel) and
    /// appended to the file.
    fn flush(&mut self) -> parquet::errors::Result<()> {
        let Some((writers, _)) = self.group.take() else {
            return Ok(());
        };
        let chunks: Vec<ArrowColumnChunk> = writers
            .into_par_iter()
            .map(ArrowColumnWriter::close)
            .collect::<parquet::errors::Result<_>>()?;
        let mut group = self.file.next_row_group()?;
        for chunk in chunks {
            chunk.append_to_row_group(&mut group)?;
        }
        group.close()?;
        Ok(())
    }

    fn finish(mut self) -> std::io::Result<()> {
        self.flush().map_err(std::io::Error::other)?;
        let rest = self.file.into_inner().map_err(std::io::Error::other)?;
        self.out.write_all(&rest)?;
        self.out.flush()
    }
}

/// The encoded bytes of a row group so far, as `ArrowWriter` estimates
/// them.
fn estimated_bytes(writers: &[ArrowColumnWriter]) -> usize {
    writers
        .iter()
        .map(ArrowColumnWriter::get_estimated_total_bytes)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Text batches of varied sizes: short repeated values, long unique
    /// ones (so the byte estimate, not only the row count, cuts groups).
    fn batches(schema: &SchemaRef, seed: u64) -> Vec<RecordBatch> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..12)
            .map(|b| {
                let rows = [1, 7, 300, 1000, 2500][b % 5];
                let mut columns = TextColumns::new(schema.clone());
                for r in 0..rows {
                    let row = [
                        format!("g{}", rng.random_range(0..5)),
                        "x".repeat(rng.random_range(0..200)) + &r.to_string(),
                        rng.random_range(0..1_000_000u32).to_string(),
                    ];
                    let text = row.concat();
                    let mut ends = Vec::new();
                    let mut end = 0;
                    for f in &row {
                        end += f.len();
                        ends.push(end);
                    }
                    columns.push(&text, 0, &ends);
                }
                columns.batch().unwrap().unwrap()
            })
            .collect()
    }

    /// The sink writes the bytes `ArrowWriter` writes for the same batches
    /// and limits: the row groups cut by rows, by estimated bytes, and at
    /// the production limits (one group).
    #[test]
    fn parquet_output_is_arrow_writers_file() {
        let headers: Vec<String> = ["a", "b", "c"].iter().map(|h| h.to_string()).collect();
        let schema = text_schema(&headers);
        for (seed, rows, bytes) in [
            (1, 1000, 1 << 30),
            (2, 1 << 20, 40_000),
            (3, 333, 100_000),
            (4, PARQUET_ROW_GROUP, PARQUET_ROW_GROUP_BYTES),
        ] {
            let batches = batches(&schema, seed);
            let mut ours = Vec::new();
            let mut sink = ParquetSink::with_limits(&headers, &mut ours, rows, bytes).unwrap();
            for b in &batches {
                sink.write(b).unwrap();
            }
            sink.finish().unwrap();
            let props = parquet_properties(rows, bytes);
            let mut theirs = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props)).unwrap();
            for b in &batches {
                theirs.write(b).unwrap();
            }
            let groups = theirs.flushed_row_groups().len();
            let theirs = theirs.into_inner().unwrap();
            assert_eq!(ours, theirs, "seed {seed}: rows {rows}, bytes {bytes}");
            if seed < 4 {
                assert!(groups > 3, "seed {seed}: {groups} row groups cut");
            }
        }
    }
}
