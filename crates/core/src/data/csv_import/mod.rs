//! CSV import into the dictionary-encoded [`Dataset`].
//!
//! The file is streamed record by record with the `csv` crate and every
//! field goes straight into its column's interner, so a large file is never
//! held as row strings: memory is one `u32` per cell plus the distinct values.
//! A regular file up to 64 MiB is read whole instead, and when its text
//! holds no double quote its rows are parsed on every core (`unquoted`);
//! whatever that path cannot take (a quote, a malformed row, a limit) is
//! read by the streaming path, which words every message.
//!
//! Choices made here, and why:
//! - The delimiter is sniffed among `,` `;` tab `|` from the first 64 KiB:
//!   the candidate that splits the most lines into the same number (> 1) of
//!   fields, quotes respected, wins. A user can override it.
//! - A UTF-8 byte-order mark is dropped (spreadsheet exports write one and
//!   the `csv` crate keeps it as part of the first header name).
//! - Fields are trimmed of surrounding white space by default, because
//!   census extracts such as UCI Adult put a space after each delimiter and
//!   ` Male` vs `Male` would otherwise be two values.
//! - Missing-value tokens (default: empty, `?`, `NA`) are compared after
//!   trimming; a missing cell gets the column's missing code.
//! - A column is numeric when every non-missing value parses as a finite
//!   number; `numeric`/`categorical` override the detection per column.
//! - Rows are counted as a spreadsheet would: the header is row 1.

use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::dataset::{Column, ColumnBuilder, ColumnKind, Dataset};
use super::formats::InputFormat;
use crate::error::{Error, Parameter, Result, Setting};
use crate::format::thousands;

// The byte counting of the input and the messages of its limits.
mod limits;
// Compressed CSV: the decoders and their errors.
mod compressed;
// A quote-free text held whole, its rows read on every core.
mod unquoted;

pub(super) use compressed::{load_csv_compressed, Codec};
use limits::{file_limit_message, Exceeded, Limits, LineMap, Tracked};

/// How to read a CSV file. Serialized into the project file so a session
/// re-reads its data the same way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CsvOptions {
    /// How the file is stored; `None` reads it by its extension or first
    /// bytes (`data::formats::detect`). The other fields apply to every
    /// format (the delimiter to delimited text only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<InputFormat>,
    /// `None` sniffs among `,` `;` tab `|`.
    pub delimiter: Option<char>,
    /// Field values read as missing (compared after trimming).
    pub missing: Vec<String>,
    /// Columns forced numeric / categorical, by name.
    pub numeric: Vec<String>,
    pub categorical: Vec<String>,
    pub trim: bool,
    /// A field longer than this is refused: such a field is almost always a
    /// broken quote that swallowed the rest of the file.
    pub max_field_bytes: usize,
    /// A row (a record, quoted line breaks included) longer than this is
    /// refused while it is read, so an input without line breaks
    /// (`/dev/zero`) or an unclosed quote never fills the memory.
    #[serde(skip_serializing_if = "is_default_max_row_bytes")]
    pub max_row_bytes: u64,
    /// More columns than this are refused at the header.
    #[serde(skip_serializing_if = "is_default_max_columns")]
    pub max_columns: usize,
    /// A file larger than this is refused: before reading when its size is
    /// known, else (a pipe, a device) once that much has been read. It
    /// also bounds the table read into memory ([`check_cells`]): a
    /// compressed stream of short rows would otherwise hold far more in
    /// codes than in text by the time its text reaches the limit.
    ///
    /// [`check_cells`]: CsvOptions::check_cells
    #[serde(skip_serializing_if = "is_default_max_file_bytes")]
    pub max_file_bytes: u64,
}

/// The default limits; README "Limits" documents them and the flags that
/// raise them. Projects leave them out at their defaults, so project files
/// written before they existed keep their bytes.
pub const DEFAULT_MAX_FIELD_BYTES: usize = 1 << 20;
pub const DEFAULT_MAX_ROW_BYTES: u64 = 16 << 20;
pub const DEFAULT_MAX_COLUMNS: usize = 10_000;
pub const DEFAULT_MAX_FILE_BYTES: u64 = 2 << 30;

fn is_default_max_row_bytes(v: &u64) -> bool {
    *v == DEFAULT_MAX_ROW_BYTES
}
fn is_default_max_columns(v: &usize) -> bool {
    *v == DEFAULT_MAX_COLUMNS
}
fn is_default_max_file_bytes(v: &u64) -> bool {
    *v == DEFAULT_MAX_FILE_BYTES
}

/// The bytes a cell of a table in memory takes: its 32-bit code.
pub const CELL_BYTES: u64 = 4;

impl CsvOptions {
    /// Refuse a table of `rows` rows of `columns` cells whose codes take
    /// more than the file size limit: every reader checks this as its rows
    /// arrive, so the memory a file takes stays near the limit whatever it
    /// inflates to (issue 36: a gzip stream of short rows held 4.1 GB of
    /// codes when its text reached the 2 GiB limit).
    pub fn check_cells(&self, file: &Path, rows: u64, columns: usize) -> Result<()> {
        let bytes = rows
            .saturating_mul(columns as u64)
            .saturating_mul(CELL_BYTES);
        if bytes <= self.max_file_bytes {
            return Ok(());
        }
        Err(Error::unmet_at(
            file,
            None,
            None,
            format!(
                "the table takes more memory than the limit of {} bytes: {} rows of {} columns at {CELL_BYTES} bytes a cell",
                thousands(self.max_file_bytes),
                thousands(rows),
                thousands(columns as u64)
            ),
            Setting::MaxFileBytes,
        ))
    }

    /// The kind the user forced on column `name` (`--numeric`,
    /// `--categorical`), if any: every reader applies it the same way.
    pub fn forced_kind(&self, name: &str) -> Option<ColumnKind> {
        if self.numeric.iter().any(|c| c == name) {
            Some(ColumnKind::Numeric)
        } else if self.categorical.iter().any(|c| c == name) {
            Some(ColumnKind::Categorical)
        } else {
            None
        }
    }
}

impl Default for CsvOptions {
    fn default() -> Self {
        Self {
            format: None,
            delimiter: None,
            missing: vec![String::new(), "?".into(), "NA".into()],
            numeric: Vec::new(),
            categorical: Vec::new(),
            trim: true,
            max_field_bytes: DEFAULT_MAX_FIELD_BYTES,
            max_row_bytes: DEFAULT_MAX_ROW_BYTES,
            max_columns: DEFAULT_MAX_COLUMNS,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        }
    }
}

const SNIFF_BYTES: usize = 64 * 1024;
const CANDIDATES: [u8; 4] = [b',', b';', b'\t', b'|'];

/// A regular file's size is known: one over the file limit is refused
/// before it is read. Other inputs (pipes, devices) are counted as they
/// stream.
fn refuse_over_file_limit(path: &Path, meta: &std::fs::Metadata, opts: &CsvOptions) -> Result<()> {
    if meta.is_file() && meta.len() > opts.max_file_bytes {
        return Err(Error::unmet_at(
            path,
            None,
            None,
            file_limit_message(meta.len(), opts.max_file_bytes),
            Setting::MaxFileBytes,
        ));
    }
    Ok(())
}

/// Load a CSV file from disk.
pub fn load_csv(path: &Path, opts: &CsvOptions) -> Result<Dataset> {
    let io = |e| Error::Io(path.to_path_buf(), e);
    let mut file = crate::data::input::open_input(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(Error::input(
            path,
            None,
            None,
            "is a directory, not a CSV file",
        ));
    }
    let regular = meta.is_file();
    refuse_over_file_limit(path, &meta, opts)?;
    let name = dataset_name(path);
    let mut source = Source {
        path,
        name: &name,
        size_hint: if regular { meta.len() } else { 0 },
        regular,
        codec: None,
        text: None,
        check_only: false,
    };
    // A regular file of moderate size is read whole, so that a text
    // without quotes can be parsed on every core (`unquoted`).
    if regular && meta.len() <= unquoted::MAX_WHOLE_BYTES {
        let mut text = unquoted::read_whole(&file, meta.len() as usize).map_err(io)?;
        // A file that grew since its size was taken: the rest, up to the
        // bound (past it, the text streams).
        file.seek(SeekFrom::Start(text.len() as u64)).map_err(io)?;
        (&mut file)
            .take(unquoted::MAX_WHOLE_BYTES + 1 - text.len() as u64)
            .read_to_end(&mut text)
            .map_err(io)?;
        let split = text.len().min(SNIFF_BYTES);
        let head = text[..split].to_vec();
        if text.len() as u64 <= unquoted::MAX_WHOLE_BYTES {
            source.text = Some(&text);
            return load_from(&source, head, &text[split..], opts);
        }
        // It grew past the bound while read: stream it.
        let rest = Cursor::new(text[split..].to_vec()).chain(file);
        return load_from(&source, head, rest, opts);
    }
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    (&mut file)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    load_from(&source, head, file, opts)
}

/// Check the CSV file at `path` as [`load_csv`] reads it, keeping none of
/// its cells: every refusal the loader gives (a field or row over its
/// limit in any column, a ragged row, a field that is not UTF-8, a quote
/// left open, the file limit), with the same message. The query engine
/// and the cluster's client run it before DataFusion reads the file, whose
/// CSV reader has none of these rules, so that a file is refused or read
/// alike on every path. One pass over the text, streamed. A forced kind
/// (`--numeric`) is not checked here: the engine reads the kinds of the
/// columns it groups from its groups, as every engine path does.
pub fn check_csv(path: &Path, opts: &CsvOptions) -> Result<()> {
    let io = |e| Error::Io(path.to_path_buf(), e);
    let mut file = crate::data::input::open_input(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    let regular = meta.is_file();
    refuse_over_file_limit(path, &meta, opts)?;
    // Most files are plain: a quick scan says so without the csv crate's
    // parse, and anything it is not sure of is read as the loader reads it.
    if regular && quick_check(path, opts, QUICK_BLOCK) {
        return Ok(());
    }
    let name = dataset_name(path);
    let source = Source {
        path,
        name: &name,
        size_hint: 0,
        regular,
        codec: None,
        text: None,
        check_only: true,
    };
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    (&mut file)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    load_from(&source, head, file, opts).map(|_| ())
}

/// Bytes [`quick_check`] reads at a time.
const QUICK_BLOCK: usize = 1 << 20;

/// Whether the loader surely accepts the CSV file at `path` (true), by a
/// scan far quicker than its parse, for the plain files most are: a header
/// the loader's header check accepts, then lines free of double quotes
/// and of a `\r` other than before `\n`, each with the header's number of
/// fields, none longer than the field limit, each line within the row
/// limit, the text UTF-8, at least one row, the file and cell limits kept.
/// Anything else (false) is for the loader's own reading to judge, with
/// its message: a quote, a blank line, a ragged row, a long field. Reads
/// `block` bytes at a time.
fn quick_check(path: &Path, opts: &CsvOptions, block: usize) -> bool {
    let Ok((names, delimiter)) = csv_header(path, opts) else {
        return false;
    };
    if check_forced(&names, opts).is_err() {
        return false;
    }
    let Ok(mut file) = crate::data::input::open_input(path) else {
        return false;
    };
    let columns = names.len();
    // A line and its line break within the row limit.
    let max_line = opts.max_row_bytes.saturating_sub(2).min(usize::MAX as u64) as usize;
    let (mut buf, mut rows, mut total, mut header) = (Vec::new(), 0u64, 0u64, true);
    loop {
        let start = buf.len();
        buf.resize(start + block, 0);
        let n = match file.read(&mut buf[start..]) {
            Ok(n) => n,
            Err(_) => return false,
        };
        buf.truncate(start + n);
        total += n as u64;
        if total > opts.max_file_bytes {
            return false;
        }
        let end = if n == 0 {
            buf.len()
        } else {
            match memchr::memrchr(b'\n', &buf) {
                Some(i) => i + 1,
                None if buf.len() > max_line => return false,
                None => continue,
            }
        };
        let text = &buf[..end];
        if memchr::memchr(b'"', text).is_some()
            || memchr::memchr_iter(b'\r', text).any(|i| text.get(i + 1) != Some(&b'\n'))
            || std::str::from_utf8(text).is_err()
        {
            return false;
        }
        let mut lines = text.split(|&b| b == b'\n').peekable();
        while let Some(line) = lines.next() {
            if line.is_empty() && lines.peek().is_none() {
                break; // after the last line break
            }
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() || line.len() > max_line {
                return false;
            }
            let (mut fields, mut from) = (0usize, 0usize);
            for at in memchr::memchr_iter(delimiter, line).chain(std::iter::once(line.len())) {
                if at - from > opts.max_field_bytes {
                    return false;
                }
                fields += 1;
                from = at + 1;
            }
            if fields != columns {
                return false;
            }
            // The first line is the header csv_header read: no blank line
            // (which the csv crate would skip) comes before it.
            if header {
                header = false;
            } else {
                rows += 1;
            }
        }
        if n == 0 {
            break;
        }
        buf.drain(..end);
    }
    rows > 0 && opts.check_cells(path, rows, columns).is_ok()
}

/// The name a dataset takes from its file: the file name without its
/// extension, and without the text's extension under a compressed one
/// (`adult.csv.gz` → `adult`, as `adult.csv` and `adult.parquet`).
pub fn dataset_name(path: &Path) -> String {
    let stem = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned());
    let compressed = matches!(
        InputFormat::from_extension(path),
        Some(InputFormat::CsvGzip | InputFormat::CsvZstd)
    );
    let name = stem(path).map(|s| {
        let inner = Path::new(&s);
        match InputFormat::from_extension(inner) {
            Some(InputFormat::Csv) if compressed => stem(inner).unwrap_or(s.clone()),
            _ => s,
        }
    });
    name.filter(|s| !s.is_empty())
        .unwrap_or_else(|| "data".into())
}

/// Where the CSV text comes from, for messages and estimates.
struct Source<'a> {
    path: &'a Path,
    name: &'a str,
    /// The text's size when known beforehand (0 otherwise).
    size_hint: u64,
    /// A regular file (whose end is known), not a pipe or a device.
    regular: bool,
    /// The compression the text is decoded from.
    codec: Option<Codec>,
    /// The whole text, when it is held in memory.
    text: Option<&'a [u8]>,
    /// Only check the text as the loader would ([`check_csv`]): every
    /// refusal the same, no column kept.
    check_only: bool,
}

/// Load CSV text held in memory (the embedded demo); `label` names it in
/// messages.
pub fn load_csv_bytes(bytes: &[u8], label: &str, opts: &CsvOptions) -> Result<Dataset> {
    let split = bytes.len().min(SNIFF_BYTES);
    let name = Path::new(label)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| label.to_string());
    let source = Source {
        path: Path::new(label),
        name: &name,
        size_hint: bytes.len() as u64,
        regular: true,
        codec: None,
        text: Some(bytes),
        check_only: false,
    };
    load_from(&source, bytes[..split].to_vec(), &bytes[split..], opts)
}

/// Pick the delimiter for a file's first bytes. Public for the TUI's
/// "open file" preview and for tests.
pub fn sniff_delimiter(head: &[u8]) -> u8 {
    // Only complete lines count: the last one may be cut by the 64 KiB window.
    let text = match head.iter().rposition(|&b| b == b'\n') {
        Some(end) if end + 1 < head.len() => &head[..end],
        _ => head,
    };
    let mut best = (b',', 0usize, 0usize);
    for &d in &CANDIDATES {
        let counts = fields_per_line(text, d);
        if counts.is_empty() {
            continue;
        }
        // The most common field count, and how many lines have it.
        let mut sorted = counts.clone();
        sorted.sort_unstable();
        let (mut mode, mut mode_n, mut i) = (0usize, 0usize, 0usize);
        while i < sorted.len() {
            let j = sorted[i..].iter().take_while(|&&c| c == sorted[i]).count();
            if j > mode_n || (j == mode_n && sorted[i] > mode) {
                mode = sorted[i];
                mode_n = j;
            }
            i += j;
        }
        if mode > 1 && (mode_n, mode) > (best.1, best.2) {
            best = (d, mode_n, mode);
        }
    }
    best.0
}

/// Fields per line for delimiter `d`, honouring double quotes, over at most
/// 100 lines.
fn fields_per_line(text: &[u8], d: u8) -> Vec<usize> {
    let mut out = Vec::new();
    let (mut in_quotes, mut fields, mut any) = (false, 1usize, false);
    for &b in text {
        match b {
            b'"' => in_quotes = !in_quotes,
            b'\n' if !in_quotes => {
                if any {
                    out.push(fields);
                }
                if out.len() >= 100 {
                    return out;
                }
                fields = 1;
                any = false;
                continue;
            }
            _ if b == d && !in_quotes => fields += 1,
            b'\r' => continue,
            _ => {}
        }
        any = true;
    }
    if any {
        out.push(fields);
    }
    out
}

fn load_from<R: Read + Send>(
    source: &Source,
    mut head: Vec<u8>,
    rest: R,
    opts: &CsvOptions,
) -> Result<Dataset> {
    let (name, size_hint) = (source.name, source.size_hint);
    let file = source.path.to_path_buf();
    if head.starts_with(b"\xEF\xBB\xBF") {
        head.drain(..3);
    }
    if head.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::input(file, None, None, "the file is empty"));
    }
    let delimiter = delimiter_of(opts, &head)?;
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(true)
        .flexible(false)
        // Fields are trimmed by `FieldRules`, in the interning stage: the
        // csv crate's trimming copies every record into a new allocation.
        .trim(csv::Trim::None)
        .buffer_capacity(1 << 16)
        .from_reader(Tracked::new(
            Cursor::new(head).chain(rest),
            delimiter,
            opts.max_row_bytes,
            opts.max_file_bytes,
        ));
    let limits = Limits {
        file: &file,
        regular: source.regular,
        codec: source.codec,
        opts,
    };

    let mut headers = match reader.byte_headers() {
        Ok(h) => h.clone(),
        Err(e) => return Err(limits.csv_error(reader.get_mut(), &[], e)),
    };
    let header_end = reader.position().byte();
    if header_end > opts.max_row_bytes {
        let e = std::io::Error::other(Exceeded::Row).into();
        return Err(limits.csv_error(reader.get_mut(), &[], e));
    }
    reader.get_mut().consumed(header_end);
    if opts.trim {
        headers.trim();
    }
    if headers.len() > opts.max_columns {
        return Err(Error::unmet_at(
            file,
            Some(1),
            None,
            format!(
                "the header has {} columns, over the limit of {}",
                thousands(headers.len() as u64),
                thousands(opts.max_columns as u64)
            ),
            Setting::MaxColumns,
        ));
    }
    let names = header_names(&file, Some(1), headers.iter(), opts.max_field_bytes)?;
    check_forced(&names, opts)?;

    // A row estimate from the average line length of the first 64 KiB
    // keeps the code vectors from reallocating (and briefly holding two
    // copies) on a large file; the 10 % margin covers a skewed head.
    let head_lines = memchr::memchr_iter(b'\n', reader.get_ref().head_sample()).count();
    let line_bytes = (reader.get_ref().head_sample().len() / head_lines.max(1)).max(1) as u64;
    let est_rows = (size_hint / line_bytes + size_hint / line_bytes / 10 + 16).min(50_000_000);
    let missing: Vec<&[u8]> = opts.missing.iter().map(|s| s.as_bytes()).collect();
    let rules = FieldRules::new(opts.trim, &missing);
    // A quote-free text held whole: its rows on every core. Anything the
    // streaming reader would report sends the text down that path instead,
    // from the header on, and it words the message.
    if let Some(text) = source.text {
        let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
        let rows = text.get(header_end as usize..).unwrap_or_default();
        if text.len() as u64 <= opts.max_file_bytes && unquoted::applies(rows, delimiter) {
            let plain = unquoted::Plain {
                delimiter,
                names: &names,
                rules: &rules,
                max_field_bytes: opts.max_field_bytes,
                max_row_bytes: opts.max_row_bytes,
            };
            if let Some(built) = plain.read(rows, est_rows as usize) {
                let read = built.first().map_or(0, |b| b.len() as u64);
                opts.check_cells(&file, read, built.len())?;
                // A kind error's row needs the streaming reader's line
                // numbers: it too goes down that path.
                if let Ok(columns) = finish_columns(built, opts, &file, |row| row) {
                    return Dataset::new(name, columns);
                }
            }
        }
    }
    let mut builders: Vec<ColumnBuilder> = if source.check_only {
        Vec::new()
    } else {
        names
            .iter()
            .map(|n| ColumnBuilder::with_capacity(n.clone(), est_rows as usize))
            .collect()
    };
    let interner = Interner {
        file: &file,
        names: &names,
        rules: &rules,
        max_field_bytes: opts.max_field_bytes,
        check_only: source.check_only,
    };

    // A pipeline of two stages over batches of records: while one batch is
    // interned (columns in parallel), the next one is parsed. Each stage
    // alone takes about half of a single-threaded load. Errors come out in
    // file order: a batch's interning errors are reported before the parse
    // error that ended it, as when records were read and interned one by one.
    let mut last = LastRecord::default();
    let mut lines = LineMap::default();
    let (mut current, mut next) = (Batch::default(), Batch::default());
    let mut status = current.parse(&mut reader, &rules, names.len(), &mut last, &mut lines);
    let mut rows = 0u64;
    loop {
        let more = matches!(status, Parsed::Full);
        let (interned, next_status) = rayon::join(
            || interner.intern(&current, &mut builders),
            || more.then(|| next.parse(&mut reader, &rules, names.len(), &mut last, &mut lines)),
        );
        interned?;
        rows += current.len as u64;
        // The parse's own error (the text limit included) comes first.
        let done = match status {
            Parsed::Full => false,
            Parsed::End => true,
            Parsed::Failed(e) => return Err(limits.csv_error(reader.get_mut(), &names, e)),
        };
        opts.check_cells(&file, rows, names.len())?;
        if done {
            break;
        }
        std::mem::swap(&mut current, &mut next);
        status = next_status.unwrap_or(Parsed::End);
    }
    let last = (last.line, last.multiline_field);
    // The csv crate takes an unclosed quote at the end of the file as a
    // field that runs to the end; the text read to its end inside a quoted
    // field is the sign, and the last record holds that field.
    if reader.get_ref().in_quotes {
        return Err(Error::input(
            file,
            Some(last.0),
            last.1.and_then(|i| names.get(i).cloned()),
            "a double quote is never closed: the field runs to the end of the file",
        ));
    }
    if rows == 0 {
        return Err(Error::input(
            file,
            None,
            None,
            "the file has a header row but no data rows",
        ));
    }
    if source.check_only {
        return Dataset::new(name, Vec::new());
    }
    let columns = finish_columns(builders, opts, &file, |row| lines.line(row))?;
    Dataset::new(name, columns)
}

/// The columns of `builders`, each finished (its kind detected or forced,
/// its dictionary sorted) on its own core. A kind error names the line
/// `line(row)` of the data row (0-based) holding the value; the first
/// column's in file order is reported.
fn finish_columns(
    builders: Vec<ColumnBuilder>,
    opts: &CsvOptions,
    file: &Path,
    line: impl Fn(u64) -> u64,
) -> Result<Vec<Column>> {
    let finished: Vec<_> = builders
        .into_par_iter()
        .map(|b| {
            let name = b.name().to_string();
            let kind = opts.forced_kind(&name);
            b.finish(kind).map_err(|e| (name, e))
        })
        .collect();
    finished
        .into_iter()
        .map(|c| {
            c.map_err(|(name, e)| {
                Error::input(file, Some(line(e.row as u64)), Some(name), e.to_string())
            })
        })
        .collect()
}

/// The delimiter `opts` gives, else the one sniffed from the file's head.
fn delimiter_of(opts: &CsvOptions, head: &[u8]) -> Result<u8> {
    match opts.delimiter {
        Some(c) if c.is_ascii() => Ok(c as u8),
        Some(c) => Err(Error::invalid(
            Parameter::Delimiter,
            format!("delimiter '{c}' is not a single-byte character"),
        )),
        None => Ok(sniff_delimiter(head)),
    }
}

/// The column names and delimiter of a plain CSV file, read and checked as
/// the loader reads them, for a reader that parses the rows itself (the
/// query engine of `anonlab-scale`).
pub fn csv_header(path: &Path, opts: &CsvOptions) -> Result<(Vec<String>, u8)> {
    let io = |e| Error::Io(path.to_path_buf(), e);
    let mut file = crate::data::input::open_input(path).map_err(io)?;
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    (&mut file)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    if head.starts_with(b"\xEF\xBB\xBF") {
        head.drain(..3);
    }
    if head.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::input(path, None, None, "the file is empty"));
    }
    let delimiter = delimiter_of(opts, &head)?;
    // The header is a row: read up to the row limit, past the sniffed
    // head (a header of 100,000 columns is longer than 64 KiB, and was
    // cut there), and refused beyond it as the loader refuses it.
    let rest = (opts.max_row_bytes + 1).saturating_sub(head.len() as u64);
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(true)
        .from_reader(Cursor::new(&head[..]).chain((&mut file).take(rest)));
    let mut headers = match reader.byte_headers() {
        Ok(h) => h.clone(),
        Err(e) => return Err(csv_error(path, &[], Some(1), e)),
    };
    if reader.position().byte() > opts.max_row_bytes {
        return Err(Error::unmet_at(
            path,
            Some(1),
            None,
            format!(
                "the header row is longer than the limit of {} bytes (a missing line break or an unclosed quote?)",
                thousands(opts.max_row_bytes)
            ),
            Setting::MaxRowBytes,
        ));
    }
    if opts.trim {
        headers.trim();
    }
    if headers.len() > opts.max_columns {
        return Err(Error::unmet_at(
            path,
            Some(1),
            None,
            format!(
                "the header has {} columns, over the limit of {}",
                thousands(headers.len() as u64),
                thousands(opts.max_columns as u64)
            ),
            Setting::MaxColumns,
        ));
    }
    let names = header_names(
        &path.to_path_buf(),
        Some(1),
        headers.iter(),
        opts.max_field_bytes,
    )?;
    Ok((names, delimiter))
}

/// Records per batch of the load pipeline: large enough that handing a
/// batch over costs little, small enough to stay in cache.
const BATCH: usize = 4096;

/// A batch of parsed records. The records are reused from batch to batch,
/// so their buffers are allocated once.
#[derive(Default)]
struct Batch {
    records: Vec<csv::ByteRecord>,
    /// Line of each record.
    lines: Vec<u64>,
    len: usize,
}

/// How parsing a batch ended.
enum Parsed {
    /// The batch is full; there may be more.
    Full,
    /// The file ended.
    End,
    /// The record after the batch's last one is malformed.
    Failed(csv::Error),
}

/// The last record read, for the unclosed-quote message: its line, and
/// which of its fields spans lines.
struct LastRecord {
    line: u64,
    multiline_field: Option<usize>,
}

impl Default for LastRecord {
    fn default() -> Self {
        LastRecord {
            line: 1,
            multiline_field: None,
        }
    }
}

impl Batch {
    /// Read up to `BATCH` records. Blank lines are read but not kept.
    fn parse<R: Read>(
        &mut self,
        reader: &mut csv::Reader<Tracked<R>>,
        rules: &FieldRules,
        columns: usize,
        last: &mut LastRecord,
        lines: &mut LineMap,
    ) -> Parsed {
        self.len = 0;
        self.lines.clear();
        // Slot of the last record read in this call, if any.
        let mut last_slot = None;
        let status = loop {
            if self.len == BATCH {
                break Parsed::Full;
            }
            if self.records.len() == self.len {
                self.records.push(csv::ByteRecord::new());
            }
            let record = &mut self.records[self.len];
            match reader.read_byte_record(record) {
                Ok(false) => break Parsed::End,
                Ok(true) => {}
                Err(e) => break Parsed::Failed(e),
            }
            let start = record.position().map_or(0, csv::Position::byte);
            let end = reader.position().byte();
            let tracked = reader.get_mut();
            let (line, text_start) = tracked.line_and_start(start);
            // `Tracked::read` sees a long row only when the reader asks for
            // more than the row limit past the last record; a row that fits
            // in the reader's buffer is measured here, once it is whole
            // (its text and line break, not the blank lines before it).
            if end.saturating_sub(text_start) > tracked.max_row {
                tracked.consumed(text_start);
                tracked.exceeded = Some(Exceeded::Row);
                break Parsed::Failed(std::io::Error::other(Exceeded::Row).into());
            }
            tracked.consumed(end);
            last.line = line;
            last_slot = Some(self.len);
            // A blank line between records parses as one empty field; skip
            // it rather than calling it ragged.
            if record.len() == 1 && rules.field(&record[0]).is_empty() && columns > 1 {
                continue;
            }
            lines.note(lines.rows, line);
            lines.rows += 1;
            self.lines.push(line);
            self.len += 1;
        };
        if let Some(slot) = last_slot {
            last.multiline_field = self.records[slot]
                .iter()
                .position(|f| memchr::memchr2(b'\n', b'\r', rules.field(f)).is_some());
        }
        status
    }
}

/// How a raw field is read: trimmed or not, and which values are missing.
/// Every reader applies them (`data::formats`).
pub struct FieldRules<'a> {
    trim: bool,
    missing: &'a [&'a [u8]],
    missing_empty: bool,
    /// First bytes of the non-empty missing tokens: most fields are told
    /// apart from every token by their first byte, without a comparison.
    missing_first: [bool; 256],
}

impl<'a> FieldRules<'a> {
    pub fn new(trim: bool, missing: &'a [&'a [u8]]) -> Self {
        let mut missing_first = [false; 256];
        for m in missing {
            if let Some(&b) = m.first() {
                missing_first[b as usize] = true;
            }
        }
        FieldRules {
            trim,
            missing,
            missing_empty: missing.iter().any(|m| m.is_empty()),
            missing_first,
        }
    }

    /// The field as read: ASCII white space trimmed as the csv crate's
    /// `Trim::All` would.
    pub fn field<'f>(&self, raw: &'f [u8]) -> &'f [u8] {
        if self.trim {
            raw.trim_ascii()
        } else {
            raw
        }
    }

    pub fn is_missing(&self, field: &[u8]) -> bool {
        match field.first() {
            None => self.missing_empty,
            Some(&b) => self.missing_first[b as usize] && self.missing.contains(&field),
        }
    }
}

/// Interns the fields of a batch into the column builders.
struct Interner<'a> {
    file: &'a Path,
    names: &'a [String],
    rules: &'a FieldRules<'a>,
    max_field_bytes: usize,
    /// Check the fields as interning would, keeping none (no builders).
    check_only: bool,
}

impl Interner<'_> {
    /// Intern a batch, one column per task. On bad fields, the error of the
    /// first one in file order (row, then column), as a one-by-one load
    /// would report.
    fn intern(&self, batch: &Batch, builders: &mut [ColumnBuilder]) -> Result<()> {
        let records = &batch.records[..batch.len];
        let first_bad = if self.check_only {
            // The same checks in the same order, on every column.
            (0..self.names.len())
                .into_par_iter()
                .filter_map(|i| {
                    records.iter().enumerate().find_map(|(j, record)| {
                        let field = self.rules.field(&record[i]);
                        if field.len() > self.max_field_bytes {
                            return Some((j, i, None));
                        }
                        if self.rules.is_missing(field) {
                            return None;
                        }
                        std::str::from_utf8(field).err().map(|e| (j, i, Some(e)))
                    })
                })
                .min_by_key(|&(j, i, _)| (j, i))
        } else {
            self.intern_into(records, builders)
        };
        let Some((j, i, utf8)) = first_bad else {
            return Ok(());
        };
        self.bad_field(batch, j, i, utf8)
    }

    /// Intern `records` into `builders`: the first bad field, if any (its
    /// record, its column and, for a field that is not UTF-8, why).
    fn intern_into(
        &self,
        records: &[csv::ByteRecord],
        builders: &mut [ColumnBuilder],
    ) -> Option<(usize, usize, Option<std::str::Utf8Error>)> {
        builders
            .par_iter_mut()
            .enumerate()
            .filter_map(|(i, b)| {
                records.iter().enumerate().find_map(|(j, record)| {
                    let field = self.rules.field(&record[i]);
                    if field.len() > self.max_field_bytes {
                        return Some((j, i, None));
                    }
                    if self.rules.is_missing(field) {
                        b.push_missing();
                        return None;
                    }
                    b.push_bytes(field).err().map(|e| (j, i, Some(e)))
                })
            })
            .min_by_key(|&(j, i, _)| (j, i))
    }

    /// The message for the bad field at record `j`, column `i` of `batch`.
    fn bad_field(
        &self,
        batch: &Batch,
        j: usize,
        i: usize,
        utf8: Option<std::str::Utf8Error>,
    ) -> Result<()> {
        let field = self.rules.field(&batch.records[j][i]);
        let (row, column) = (Some(batch.lines[j]), Some(self.names[i].clone()));
        Err(match utf8 {
            None => Error::unmet_at(
                self.file,
                row,
                column,
                format!(
                    "field is {} bytes long, over the limit of {} bytes (an unclosed quote?)",
                    field.len(),
                    self.max_field_bytes
                ),
                Setting::MaxFieldBytes,
            ),
            Some(e) => Error::input(
                self.file,
                row,
                column,
                format!(
                    "not valid UTF-8 (byte {} of the field); re-encode the file as UTF-8",
                    e.valid_up_to() + 1
                ),
            ),
        })
    }
}

/// The column names, checked: within the field limit, UTF-8, not empty,
/// free of control characters, distinct. Every reader checks its names so.
pub fn header_names<'h>(
    file: &PathBuf,
    row: Option<u64>,
    headers: impl Iterator<Item = &'h [u8]>,
    max_field_bytes: usize,
) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::with_capacity(headers.size_hint().0);
    for (i, h) in headers.enumerate() {
        let col = format!("#{}", i + 1);
        // A header field is a field: the same limit as the rows' (found by
        // tests/fuzz.rs, a 70-byte name under a 64-byte limit was kept).
        if h.len() > max_field_bytes {
            return Err(Error::unmet_at(
                file,
                row,
                Some(col),
                format!(
                    "header name is {} bytes long, over the limit of {} bytes",
                    h.len(),
                    max_field_bytes
                ),
                Setting::MaxFieldBytes,
            ));
        }
        let s = std::str::from_utf8(h).map_err(|_| {
            Error::input(
                file,
                row,
                Some(col.clone()),
                "header name is not valid UTF-8",
            )
        })?;
        let s = s.trim_start_matches('\u{feff}').trim();
        if s.is_empty() {
            return Err(Error::input(
                file,
                row,
                Some(col),
                "header name is empty; every column needs a name",
            ));
        }
        // Names go into messages, screens, reports and SVG charts: a
        // control character (an ANSI escape, a NUL) would drive the
        // terminal or break the XML.
        if let Some(c) = s.chars().find(|c| c.is_control()) {
            return Err(Error::input(
                file,
                row,
                Some(col),
                format!(
                    "header name '{}' holds the control character U+{:04X}; rename the column",
                    crate::error::shown(s, 60),
                    c as u32
                ),
            ));
        }
        if let Some(first) = names.iter().position(|n| n == s) {
            return Err(Error::input(
                file,
                row,
                Some(s.to_string()),
                format!(
                    "duplicated header name: columns {} and {} are both called '{s}'",
                    first + 1,
                    i + 1
                ),
            ));
        }
        names.push(s.to_string());
    }
    Ok(names)
}

pub fn check_forced(names: &[String], opts: &CsvOptions) -> Result<()> {
    for n in opts.numeric.iter().chain(&opts.categorical) {
        if !names.contains(n) {
            return Err(Error::UnknownColumn {
                name: n.clone(),
                available: crate::error::listed_columns(names),
            });
        }
    }
    Ok(())
}

fn csv_error(file: &Path, names: &[String], line: Option<u64>, e: csv::Error) -> Error {
    match e.into_kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => {
            let column = if len < expected_len {
                names.get(len as usize).cloned()
            } else {
                Some(format!("#{} (beyond the header)", expected_len + 1))
            };
            Error::input(
                file,
                line,
                column,
                format!("ragged row: it has {len} fields but the header has {expected_len}"),
            )
        }
        csv::ErrorKind::Io(io) => Error::Io(file.to_path_buf(), io),
        other => Error::input(file, line, None, format!("malformed CSV: {other:?}")),
    }
}

#[cfg(test)]
mod tests;
