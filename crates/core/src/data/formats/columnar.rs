//! Parquet and Arrow IPC files into the dictionary-encoded [`Dataset`].
//!
//! The file is read in record batches of [`BATCH_ROWS`] rows; each batch's
//! columns are interned in parallel, one column per task, as the CSV
//! loader interns its batches, so only the codes and the distinct values
//! stay in memory. A cell goes through the CSV path's [`FieldRules`]
//! (trimming, missing-value tokens) and field limit; a typed cell is first
//! written as text (module doc of `data::formats`).

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{ArrowError, DataType, Schema};
use rayon::prelude::*;

use super::preflight::{self, PageBudget};
use crate::data::csv_import::{check_forced, dataset_name, header_names, FieldRules};
use crate::data::dataset::{ColumnBuilder, Dataset};
use crate::data::CsvOptions;
use crate::error::{Error, Result, Setting};
use crate::format::thousands;

/// Rows per record batch asked of the readers.
const BATCH_ROWS: usize = 8192;

/// The most rows a dataset holds: codes and row ids are 32-bit.
const MAX_ROWS: u64 = u32::MAX as u64 - 1;

/// Load a Parquet file.
pub(super) fn load_parquet(path: &Path, opts: &CsvOptions) -> Result<Dataset> {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    const WHAT: &str = "Parquet";
    let mut file = open_checked(path, opts, WHAT, true)?;
    preflight::parquet_footer(path, &mut file)?;
    let pages = file
        .try_clone()
        .map_err(|e| Error::Io(path.to_path_buf(), e))?;
    guarded(path, WHAT, || {
        let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| {
            Error::input(
                path,
                None,
                None,
                format!("not a readable Parquet file: {e}"),
            )
        })?;
        let rows = builder.metadata().file_metadata().num_rows().max(0) as u64;
        if rows > MAX_ROWS {
            return Err(too_many_rows(path, rows));
        }
        // All pages are read into memory: the file size limit bounds
        // their decompressed bytes too.
        preflight::parquet_pages(
            path,
            &pages,
            builder.metadata(),
            PageBudget::Total(opts.max_file_bytes),
        )?;
        let schema = builder.schema().clone();
        let reader = builder.with_batch_size(BATCH_ROWS).build().map_err(|e| {
            Error::input(
                path,
                None,
                None,
                format!("not a readable Parquet file: {e}"),
            )
        })?;
        read_batches(path, WHAT, &schema, reader, opts, rows)
    })
}

/// Load an Arrow IPC file: the file format (`ARROW1` magic: `.arrow`,
/// Feather version 2) or the stream format (`.arrows`).
pub(super) fn load_arrow(path: &Path, opts: &CsvOptions) -> Result<Dataset> {
    use arrow_ipc::reader::{FileReader, StreamReader};
    const WHAT: &str = "Arrow IPC";
    let mut file = open_checked(path, opts, WHAT, true)?;
    preflight::arrow(path, &mut file)?;
    let io = |e| Error::Io(path.to_path_buf(), e);
    let mut magic = [0u8; 6];
    let n = (&mut file).take(6).read(&mut magic).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let unreadable = |e: ArrowError| {
        Error::input(
            path,
            None,
            None,
            format!("not a readable Arrow IPC file: {e}"),
        )
    };
    guarded(path, WHAT, || {
        if &magic[..n] == b"ARROW1" {
            let reader = FileReader::try_new(BufReader::new(file), None).map_err(unreadable)?;
            let schema = reader.schema();
            read_batches(path, WHAT, &schema, reader, opts, 0)
        } else {
            let reader = StreamReader::try_new(BufReader::new(file), None).map_err(unreadable)?;
            let schema = reader.schema();
            read_batches(path, WHAT, &schema, reader, opts, 0)
        }
    })
}

/// Open `path`, refusing a directory and, when `sized` (the in-memory
/// reader), a file over the size limit.
fn open_checked(path: &Path, opts: &CsvOptions, what: &str, sized: bool) -> Result<File> {
    let io = |e| Error::Io(path.to_path_buf(), e);
    let file = crate::data::input::open_input(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(Error::input(
            path,
            None,
            None,
            format!("is a directory, not a {what} file"),
        ));
    }
    if sized && meta.is_file() && meta.len() > opts.max_file_bytes {
        return Err(Error::unmet_at(
            path,
            None,
            None,
            format!(
                "the file is larger than the limit of {} bytes ({} bytes)",
                thousands(opts.max_file_bytes),
                meta.len()
            ),
            Setting::MaxFileBytes,
        ));
    }
    Ok(file)
}

/// Open a Parquet or Arrow IPC file and read its metadata (footer, schema,
/// page headers, blocks) the way [`load_parquet`] and [`load_arrow`] do,
/// reading no data: the query engine runs this first, so a file the
/// in-memory path refuses (a lying footer, `PAR1PAR1`, a block past the
/// end, a schema nested without end, a page bomb) is refused with the
/// same message before DataFusion, whose readers may panic or abort on
/// it, sees it. The engine streams the file: its size is not limited, and
/// the pages it decompresses at once are ([`PageBudget::PerRowGroup`]).
pub(super) fn check_metadata(path: &Path, opts: &CsvOptions, parquet: bool) -> Result<()> {
    use arrow_ipc::reader::{FileReader, StreamReader};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let what = if parquet { "Parquet" } else { "Arrow IPC" };
    let mut file = open_checked(path, opts, what, false)?;
    if parquet {
        preflight::parquet_footer(path, &mut file)?;
    } else {
        preflight::arrow(path, &mut file)?;
    }
    let pages = file
        .try_clone()
        .map_err(|e| Error::Io(path.to_path_buf(), e))?;
    let unreadable =
        |e: String| Error::input(path, None, None, format!("not a readable {what} file: {e}"));
    guarded(path, what, || {
        if parquet {
            let builder = ParquetRecordBatchReaderBuilder::try_new(file)
                .map_err(|e| unreadable(e.to_string()))?;
            let rows = builder.metadata().file_metadata().num_rows().max(0) as u64;
            if rows > MAX_ROWS {
                return Err(too_many_rows(path, rows));
            }
            return preflight::parquet_pages(
                path,
                &pages,
                builder.metadata(),
                PageBudget::PerRowGroup(opts.max_file_bytes),
            );
        }
        let io = |e| Error::Io(path.to_path_buf(), e);
        let mut magic = [0u8; 6];
        let n = (&mut file).take(6).read(&mut magic).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        if &magic[..n] == b"ARROW1" {
            FileReader::try_new(BufReader::new(file), None)
                .map_err(|e| unreadable(e.to_string()))?;
        } else {
            StreamReader::try_new(BufReader::new(file), None)
                .map_err(|e| unreadable(e.to_string()))?;
        }
        Ok(())
    })
}

/// Run a reader, turning a panic inside the arrow or parquet crates on
/// malformed data into a message naming the file: a hostile file must
/// never end the program.
fn guarded<T>(path: &Path, what: &str, read: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)).unwrap_or_else(|panic| {
        let why = crate::error::panic_message(panic.as_ref());
        Err(Error::input(
            path,
            None,
            None,
            format!("the {what} reader failed on malformed data: {why}"),
        ))
    })
}

fn too_many_rows(path: &Path, rows: u64) -> Error {
    Error::input(
        path,
        None,
        None,
        format!(
            "the file has {} rows, more than anonlab reads into memory ({} at most)",
            thousands(rows),
            thousands(MAX_ROWS)
        ),
    )
}

/// Whether a column of this type has one value per cell that reads as text.
fn supported(t: &DataType) -> bool {
    use DataType::*;
    match t {
        List(_) | LargeList(_) | FixedSizeList(..) | ListView(_) | LargeListView(_) | Struct(_)
        | Map(..) | Union(..) | RunEndEncoded(..) => false,
        Dictionary(_, value) => supported(value),
        _ => true,
    }
}

/// Refuse a column whose type has no single value per cell.
pub fn check_type(file: &Path, field: &arrow_schema::Field) -> Result<()> {
    if supported(field.data_type()) {
        return Ok(());
    }
    Err(Error::input(
        file,
        None,
        Some(field.name().clone()),
        format!(
            "the column's type is {}, which has no single value per cell; anonlab reads text, numbers, booleans, dates and times (drop or flatten the column)",
            field.data_type()
        ),
    ))
}

/// Refuse a schema of no columns, or of more than the column limit: the
/// in-memory reader and the query engine alike.
pub fn check_columns(file: &Path, columns: usize, opts: &CsvOptions) -> Result<()> {
    if columns > opts.max_columns {
        return Err(Error::unmet_at(
            file,
            None,
            None,
            format!(
                "the file has {} columns, over the limit of {}",
                thousands(columns as u64),
                thousands(opts.max_columns as u64)
            ),
            Setting::MaxColumns,
        ));
    }
    if columns == 0 {
        return Err(Error::input(file, None, None, "the file has no columns"));
    }
    Ok(())
}

/// Why a cell could not be read.
pub enum CellError {
    TooLong(usize),
    Utf8(std::str::Utf8Error),
    Format(ArrowError),
}

/// Check the schema, then intern every batch.
fn read_batches(
    path: &Path,
    what: &str,
    schema: &Schema,
    batches: impl Iterator<Item = std::result::Result<RecordBatch, ArrowError>>,
    opts: &CsvOptions,
    rows_hint: u64,
) -> Result<Dataset> {
    let file: PathBuf = path.to_path_buf();
    let fields = schema.fields();
    check_columns(&file, fields.len(), opts)?;
    let names = header_names(
        &file,
        None,
        fields.iter().map(|f| f.name().as_bytes()),
        opts.max_field_bytes,
    )?;
    check_forced(&names, opts)?;
    for f in fields {
        check_type(&file, f)?;
    }
    let capacity = rows_hint.min(50_000_000) as usize;
    let mut builders: Vec<ColumnBuilder> = names
        .iter()
        .map(|n| ColumnBuilder::with_capacity(n.clone(), capacity))
        .collect();
    let missing: Vec<&[u8]> = opts.missing.iter().map(|s| s.as_bytes()).collect();
    let rules = FieldRules::new(opts.trim, &missing);
    let mut rows = 0u64;
    for batch in batches {
        let batch = batch.map_err(|e| {
            Error::input(
                &file,
                Some(rows + 1),
                None,
                format!(
                    "the {what} data cannot be read after {} rows: {e}",
                    thousands(rows)
                ),
            )
        })?;
        if batch.num_columns() != builders.len() {
            return Err(Error::input(
                &file,
                Some(rows + 1),
                None,
                format!(
                    "a record batch has {} columns, the schema {}",
                    batch.num_columns(),
                    builders.len()
                ),
            ));
        }
        if rows + batch.num_rows() as u64 > MAX_ROWS {
            return Err(too_many_rows(&file, rows + batch.num_rows() as u64));
        }
        opts.check_cells(&file, rows + batch.num_rows() as u64, builders.len())?;
        let max = opts.max_field_bytes;
        let first_bad = builders
            .par_iter_mut()
            .zip(batch.columns().par_iter())
            .enumerate()
            .filter_map(|(i, (b, array))| {
                push_array(b, array.as_ref(), &rules, max)
                    .err()
                    .map(|(j, e)| (j, i, e))
            })
            .min_by_key(|&(j, i, _)| (j, i));
        if let Some((j, i, e)) = first_bad {
            return Err(cell_error(
                &file,
                Some(rows + j as u64 + 1),
                &names[i],
                e,
                max,
            ));
        }
        rows += batch.num_rows() as u64;
    }
    if rows == 0 {
        return Err(Error::input(file, None, None, "the file has no rows"));
    }
    let mut columns = Vec::with_capacity(builders.len());
    for b in builders {
        let name = b.name().to_string();
        let kind = opts.forced_kind(&name);
        let col = b.finish(kind).map_err(|e| {
            Error::input(
                &file,
                Some(e.row as u64 + 1),
                Some(name.clone()),
                e.to_string(),
            )
        })?;
        columns.push(col);
    }
    Dataset::new(dataset_name(path), columns)
}

/// The message of a bad cell; `row` is 1-based from the first record.
pub fn cell_error(file: &Path, row: Option<u64>, column: &str, e: CellError, max: usize) -> Error {
    let column = Some(column.to_string());
    match e {
        CellError::TooLong(len) => Error::unmet_at(
            file,
            row,
            column,
            format!("field is {len} bytes long, over the limit of {max} bytes"),
            Setting::MaxFieldBytes,
        ),
        CellError::Utf8(e) => Error::input(
            file,
            row,
            column,
            format!(
                "not valid UTF-8 (byte {} of the field); anonlab reads text cells as UTF-8",
                e.valid_up_to() + 1
            ),
        ),
        CellError::Format(e) => Error::input(
            file,
            row,
            column,
            format!("the cell cannot be read as text: {e}"),
        ),
    }
}

/// Intern one column of a batch; on a bad cell, its index in the batch.
pub fn push_array(
    b: &mut ColumnBuilder,
    array: &dyn Array,
    rules: &FieldRules,
    max: usize,
) -> std::result::Result<(), (usize, CellError)> {
    match array.data_type() {
        DataType::Null => {
            (0..array.len()).for_each(|_| b.push_missing());
            Ok(())
        }
        DataType::Utf8 => push_cells(
            b,
            array
                .as_string::<i32>()
                .iter()
                .map(|v| v.map(str::as_bytes)),
            rules,
            max,
        ),
        DataType::LargeUtf8 => push_cells(
            b,
            array
                .as_string::<i64>()
                .iter()
                .map(|v| v.map(str::as_bytes)),
            rules,
            max,
        ),
        DataType::Utf8View => push_cells(
            b,
            array.as_string_view().iter().map(|v| v.map(str::as_bytes)),
            rules,
            max,
        ),
        DataType::Binary => push_cells(b, array.as_binary::<i32>().iter(), rules, max),
        DataType::LargeBinary => push_cells(b, array.as_binary::<i64>().iter(), rules, max),
        DataType::BinaryView => push_cells(b, array.as_binary_view().iter(), rules, max),
        DataType::FixedSizeBinary(_) => {
            push_cells(b, array.as_fixed_size_binary().iter(), rules, max)
        }
        DataType::Dictionary(_, value) => {
            // The values a dictionary array's keys point at, one per row.
            let plain = arrow_cast::cast(array, value).map_err(|e| (0, CellError::Format(e)))?;
            push_array(b, plain.as_ref(), rules, max)
        }
        _ => {
            let format = ArrayFormatter::try_new(array, &FormatOptions::default())
                .map_err(|e| (0, CellError::Format(e)))?;
            let mut text = String::new();
            for j in 0..array.len() {
                if array.is_null(j) {
                    b.push_missing();
                    continue;
                }
                text.clear();
                format
                    .value(j)
                    .write(&mut text)
                    .map_err(|e| (j, CellError::Format(e)))?;
                push_cell(b, text.as_bytes(), rules, max).map_err(|e| (j, e))?;
            }
            Ok(())
        }
    }
}

fn push_cells<'a>(
    b: &mut ColumnBuilder,
    cells: impl Iterator<Item = Option<&'a [u8]>>,
    rules: &FieldRules,
    max: usize,
) -> std::result::Result<(), (usize, CellError)> {
    for (j, cell) in cells.enumerate() {
        match cell {
            None => b.push_missing(),
            Some(raw) => push_cell(b, raw, rules, max).map_err(|e| (j, e))?,
        }
    }
    Ok(())
}

/// One cell's text, as the CSV loader reads a field.
fn push_cell(
    b: &mut ColumnBuilder,
    raw: &[u8],
    rules: &FieldRules,
    max: usize,
) -> std::result::Result<(), CellError> {
    let field = rules.field(raw);
    if field.len() > max {
        return Err(CellError::TooLong(field.len()));
    }
    if rules.is_missing(field) {
        b.push_missing();
        Ok(())
    } else {
        b.push_bytes(field).map_err(CellError::Utf8)
    }
}
