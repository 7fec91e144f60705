//! CSV import into the dictionary-encoded [`Dataset`].
//!
//! The file is streamed record by record with the `csv` crate and every
//! field goes straight into its column's interner, so a large file is never
//! held as row strings: memory is one `u32` per cell plus the distinct values.
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

use std::fs::File;
use std::io::{Chain, Cursor, Read};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::dataset::{ColumnBuilder, ColumnKind, Dataset};
use crate::error::{Error, Result};

/// How to read a CSV file. Serialized into the project file so a session
/// re-reads its data the same way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CsvOptions {
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
}

impl Default for CsvOptions {
    fn default() -> Self {
        Self {
            delimiter: None,
            missing: vec![String::new(), "?".into(), "NA".into()],
            numeric: Vec::new(),
            categorical: Vec::new(),
            trim: true,
            max_field_bytes: 1 << 20,
        }
    }
}

const SNIFF_BYTES: usize = 64 * 1024;
const CANDIDATES: [u8; 4] = [b',', b';', b'\t', b'|'];

/// Load a CSV file from disk.
pub fn load_csv(path: &Path, opts: &CsvOptions) -> Result<Dataset> {
    let io = |e| Error::Io(path.to_path_buf(), e);
    let mut file = File::open(path).map_err(io)?;
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    (&mut file)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "data".into());
    let size_hint = file.metadata().map(|m| m.len()).unwrap_or(0);
    load_from(path, &name, head, file, size_hint, opts)
}

/// Load CSV text held in memory (the embedded demo); `label` names it in
/// messages.
pub fn load_csv_bytes(bytes: &[u8], label: &str, opts: &CsvOptions) -> Result<Dataset> {
    let split = bytes.len().min(SNIFF_BYTES);
    let name = Path::new(label)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| label.to_string());
    load_from(
        Path::new(label),
        &name,
        bytes[..split].to_vec(),
        &bytes[split..],
        bytes.len() as u64,
        opts,
    )
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
    path: &Path,
    name: &str,
    mut head: Vec<u8>,
    rest: R,
    size_hint: u64,
    opts: &CsvOptions,
) -> Result<Dataset> {
    let file = path.to_path_buf();
    if head.starts_with(b"\xEF\xBB\xBF") {
        head.drain(..3);
    }
    if head.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::input(file, None, None, "the file is empty"));
    }
    let delimiter = match opts.delimiter {
        Some(c) if c.is_ascii() => c as u8,
        Some(c) => {
            return Err(Error::Parameter(format!(
                "delimiter '{c}' is not a single-byte character"
            )))
        }
        None => sniff_delimiter(&head),
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(true)
        .flexible(false)
        // Fields are trimmed by `FieldRules`, in the interning stage: the
        // csv crate's trimming copies every record into a new allocation.
        .trim(csv::Trim::None)
        .buffer_capacity(1 << 16)
        .from_reader(QuoteCounter {
            inner: Cursor::new(head).chain(rest),
            quotes: 0,
        });

    let mut headers = reader
        .byte_headers()
        .map_err(|e| csv_error(&file, &[], e))?
        .clone();
    if opts.trim {
        headers.trim();
    }
    let names = header_names(&file, &headers)?;
    check_forced(&names, opts)?;

    // A row estimate from the average line length of the first 64 KiB
    // keeps the code vectors from reallocating (and briefly holding two
    // copies) on a large file; the 10 % margin covers a skewed head.
    let head_lines = memchr::memchr_iter(b'\n', reader.get_ref().head_sample()).count();
    let line_bytes = (reader.get_ref().head_sample().len() / head_lines.max(1)).max(1) as u64;
    let est_rows = (size_hint / line_bytes + size_hint / line_bytes / 10 + 16).min(50_000_000);
    let mut builders: Vec<ColumnBuilder> = names
        .iter()
        .map(|n| ColumnBuilder::with_capacity(n.clone(), est_rows as usize))
        .collect();
    let missing: Vec<&[u8]> = opts.missing.iter().map(|s| s.as_bytes()).collect();
    let rules = FieldRules::new(opts.trim, &missing);
    let interner = Interner {
        file: &file,
        names: &names,
        rules: &rules,
        max_field_bytes: opts.max_field_bytes,
    };

    // A pipeline of two stages over batches of records: while one batch is
    // interned (columns in parallel), the next one is parsed. Each stage
    // alone takes about half of a single-threaded load. Errors come out in
    // file order: a batch's interning errors are reported before the parse
    // error that ended it, as when records were read and interned one by one.
    let mut last = LastRecord::default();
    let (mut current, mut next) = (Batch::default(), Batch::default());
    let mut status = current.parse(&mut reader, &rules, names.len(), &mut last);
    let mut rows = 0u64;
    loop {
        let more = matches!(status, Parsed::Full);
        let (interned, next_status) = rayon::join(
            || interner.intern(&current, &mut builders),
            || more.then(|| next.parse(&mut reader, &rules, names.len(), &mut last)),
        );
        interned?;
        rows += current.len as u64;
        match status {
            Parsed::Full => {}
            Parsed::End => break,
            Parsed::Failed(e) => return Err(csv_error(&file, &names, e)),
        }
        std::mem::swap(&mut current, &mut next);
        status = next_status.unwrap_or(Parsed::End);
    }
    let last = (last.line, last.multiline_field);
    // The csv crate takes an unclosed quote at the end of the file as a
    // field that runs to the end; an odd number of quote characters in the
    // whole file is the sign, and the last record holds that field.
    if reader.get_ref().quotes % 2 == 1 {
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
    let mut columns = Vec::with_capacity(builders.len());
    for b in builders {
        let name = b.name().to_string();
        let kind = if opts.numeric.contains(&name) {
            Some(ColumnKind::Numeric)
        } else if opts.categorical.contains(&name) {
            Some(ColumnKind::Categorical)
        } else {
            None
        };
        let col = b.finish(kind).map_err(|e| {
            // Data rows start at line 2; blank lines skipped above make this
            // an estimate only in files that have them.
            Error::input(
                &file,
                Some(e.row as u64 + 2),
                Some(name.clone()),
                e.to_string(),
            )
        })?;
        columns.push(col);
    }
    Dataset::new(name, columns)
}

/// Counts `"` bytes as the file streams past, to detect an unclosed quote.
struct QuoteCounter<R> {
    inner: R,
    quotes: u64,
}

impl<R> QuoteCounter<Chain<Cursor<Vec<u8>>, R>> {
    /// The first bytes of the file (at most 64 KiB), for estimates.
    fn head_sample(&self) -> &[u8] {
        self.inner.get_ref().0.get_ref()
    }
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
        reader: &mut csv::Reader<R>,
        rules: &FieldRules,
        columns: usize,
        last: &mut LastRecord,
    ) -> Parsed {
        self.len = 0;
        self.lines.clear();
        let mut rows = 0u64;
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
            let line = record.position().map(|p| p.line()).unwrap_or(rows + 2);
            last.line = line;
            last_slot = Some(self.len);
            // A blank line between records parses as one empty field; skip
            // it rather than calling it ragged.
            if record.len() == 1 && rules.field(&record[0]).is_empty() && columns > 1 {
                continue;
            }
            self.lines.push(line);
            self.len += 1;
            rows += 1;
        };
        if let Some(slot) = last_slot {
            last.multiline_field = self.records[slot]
                .iter()
                .position(|f| memchr::memchr(b'\n', rules.field(f)).is_some());
        }
        status
    }
}

/// How a raw field is read: trimmed or not, and which values are missing.
struct FieldRules<'a> {
    trim: bool,
    missing: &'a [&'a [u8]],
    missing_empty: bool,
    /// First bytes of the non-empty missing tokens: most fields are told
    /// apart from every token by their first byte, without a comparison.
    missing_first: [bool; 256],
}

impl<'a> FieldRules<'a> {
    fn new(trim: bool, missing: &'a [&'a [u8]]) -> Self {
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
    fn field<'f>(&self, raw: &'f [u8]) -> &'f [u8] {
        if self.trim {
            raw.trim_ascii()
        } else {
            raw
        }
    }

    fn is_missing(&self, field: &[u8]) -> bool {
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
}

impl Interner<'_> {
    /// Intern a batch, one column per task. On bad fields, the error of the
    /// first one in file order (row, then column), as a one-by-one load
    /// would report.
    fn intern(&self, batch: &Batch, builders: &mut [ColumnBuilder]) -> Result<()> {
        let records = &batch.records[..batch.len];
        let first_bad = builders
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
            .min_by_key(|&(j, i, _)| (j, i));
        let Some((j, i, utf8)) = first_bad else {
            return Ok(());
        };
        let field = self.rules.field(&records[j][i]);
        let message = match utf8 {
            None => format!(
                "field is {} bytes long, over the limit of {} bytes (an unclosed quote?)",
                field.len(),
                self.max_field_bytes
            ),
            Some(e) => format!(
                "not valid UTF-8 (byte {} of the field); re-encode the file as UTF-8",
                e.valid_up_to() + 1
            ),
        };
        Err(Error::input(
            self.file,
            Some(batch.lines[j]),
            Some(self.names[i].clone()),
            message,
        ))
    }
}

impl<R: Read> Read for QuoteCounter<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.quotes += memchr::memchr_iter(b'"', &buf[..n]).count() as u64;
        Ok(n)
    }
}

fn header_names(file: &PathBuf, headers: &csv::ByteRecord) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::with_capacity(headers.len());
    for (i, h) in headers.iter().enumerate() {
        let col = format!("#{}", i + 1);
        let s = std::str::from_utf8(h).map_err(|_| {
            Error::input(
                file,
                Some(1),
                Some(col.clone()),
                "header name is not valid UTF-8",
            )
        })?;
        let s = s.trim_start_matches('\u{feff}').trim();
        if s.is_empty() {
            return Err(Error::input(
                file,
                Some(1),
                Some(col),
                "header name is empty; every column needs a name",
            ));
        }
        if let Some(first) = names.iter().position(|n| n == s) {
            return Err(Error::input(
                file,
                Some(1),
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

fn check_forced(names: &[String], opts: &CsvOptions) -> Result<()> {
    for n in opts.numeric.iter().chain(&opts.categorical) {
        if !names.contains(n) {
            return Err(Error::UnknownColumn {
                name: n.clone(),
                available: names.join(", "),
            });
        }
    }
    Ok(())
}

fn csv_error(file: &Path, names: &[String], e: csv::Error) -> Error {
    let line = e.position().map(|p| p.line());
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
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Dataset> {
        load_csv_bytes(text.as_bytes(), "t.csv", &CsvOptions::default())
    }

    #[test]
    fn sniffs_each_candidate() {
        for d in [",", ";", "\t", "|"] {
            let t = format!("a{d}b{d}c\n1{d}2{d}3\n4{d}5{d}6\n");
            let ds = load(&t).unwrap();
            assert_eq!(ds.n_cols(), 3, "delimiter {d:?}");
            assert_eq!(ds.n_rows(), 2);
        }
    }

    #[test]
    fn quoted_delimiters_do_not_fool_the_sniffer() {
        let t = "name;note\n\"Smith, J\";\"a, b, c\"\n\"Doe, K\";x\n";
        let ds = load(t).unwrap();
        assert_eq!(ds.column_names(), vec!["name", "note"]);
        assert_eq!(ds.col(0).display(ds.col(0).code(0)), "Smith, J");
    }

    #[test]
    fn bom_missing_tokens_and_kinds() {
        let t = "\u{feff}age,city\n30,Oslo\n?,NA\n41,\n";
        let ds = load(t).unwrap();
        assert_eq!(ds.column_names(), vec!["age", "city"]);
        let age = ds.col(0);
        assert_eq!(age.kind(), ColumnKind::Numeric);
        assert_eq!(age.missing_count(), 1);
        assert_eq!(ds.col(1).missing_count(), 2);
        assert_eq!(ds.col(1).kind(), ColumnKind::Categorical);
    }

    #[test]
    fn override_kind_and_delimiter() {
        let opts = CsvOptions {
            delimiter: Some(';'),
            categorical: vec!["zip".into()],
            ..Default::default()
        };
        let ds = load_csv_bytes(b"zip;x\n01234;1\n99999;2\n", "t", &opts).unwrap();
        assert_eq!(ds.col(0).kind(), ColumnKind::Categorical);
        assert_eq!(ds.col(0).display(0), "01234");
        let bad = CsvOptions {
            numeric: vec!["nope".into()],
            ..Default::default()
        };
        assert!(matches!(
            load_csv_bytes(b"a,b\n1,2\n", "t", &bad),
            Err(Error::UnknownColumn { .. })
        ));
    }

    #[test]
    fn bad_input_names_file_row_and_column() {
        let e = load("").unwrap_err().to_string();
        assert!(e.contains("t.csv") && e.contains("empty"), "{e}");
        let e = load("a,b\n").unwrap_err().to_string();
        assert!(e.contains("no data rows"), "{e}");
        let e = load("a,b,c\n1,2,3\n4,5\n").unwrap_err().to_string();
        assert!(
            e.contains("row 3") && e.contains("'c'") && e.contains("ragged"),
            "{e}"
        );
        let e = load("a,a\n1,2\n").unwrap_err().to_string();
        assert!(e.contains("duplicated") && e.contains("'a'"), "{e}");
        let e = load_csv_bytes(b"a,b\n1,\xff\xfe\n", "t.csv", &CsvOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("row 2") && e.contains("'b'") && e.contains("UTF-8"),
            "{e}"
        );
    }

    #[test]
    fn unclosed_quote_is_reported_not_swallowed() {
        let e = load("sex,age,zip\nM,30,\"100\nF,41,200\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("row 2") && e.contains("'zip'") && e.contains("never closed"),
            "{e}"
        );
    }

    #[test]
    fn oversized_field_is_refused() {
        let opts = CsvOptions {
            max_field_bytes: 10,
            ..Default::default()
        };
        let e = load_csv_bytes(b"a,b\n1,\"0123456789012\"\n", "t.csv", &opts)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("row 2") && e.contains("'b'") && e.contains("limit"),
            "{e}"
        );
    }

    /// `rows` data rows of `a,b,c` with distinct-ish values; `edit` may
    /// replace a data row (0-based) by other bytes.
    fn many_rows(rows: usize, edit: impl Fn(usize) -> Option<Vec<u8>>) -> Vec<u8> {
        let mut out = b"a,b,c\n".to_vec();
        for r in 0..rows {
            match edit(r) {
                Some(line) => out.extend_from_slice(&line),
                None => out.extend_from_slice(format!("{},x{},{}\n", r % 7, r % 13, r).as_bytes()),
            }
        }
        out
    }

    fn load_err(bytes: &[u8]) -> String {
        load_csv_bytes(bytes, "t.csv", &CsvOptions::default())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn batches_keep_every_record_in_order() {
        let n = 3 * BATCH + 17;
        // Blank lines here and there, one of them at a batch boundary.
        let bytes = many_rows(n, |r| {
            (r % 1000 == 999 || r == BATCH)
                .then(|| format!("\n{},x{},{}\n", r % 7, r % 13, r).into_bytes())
        });
        let ds = load_csv_bytes(&bytes, "t.csv", &CsvOptions::default()).unwrap();
        assert_eq!(ds.n_rows(), n);
        let c = ds.column("c").unwrap();
        assert!((0..n).all(|r| c.number(c.code(r)) == Some(r as f64)));
        let b = ds.column("b").unwrap();
        assert!((0..n).all(|r| b.display(b.code(r)) == format!("x{}", r % 13)));
    }

    #[test]
    fn ragged_row_at_a_batch_boundary_is_found() {
        let bytes = many_rows(2 * BATCH, |r| (r == BATCH).then(|| b"1,2\n".to_vec()));
        let e = load_err(&bytes);
        // Data row BATCH is on line BATCH + 2 (the header is line 1).
        assert!(
            e.contains(&format!("row {}", BATCH + 2)) && e.contains("ragged"),
            "{e}"
        );
    }

    #[test]
    fn first_bad_field_in_file_order_wins_across_batches() {
        // Bad UTF-8 in 'c' early, a ragged row later: the bad field is reported.
        let bytes = many_rows(3 * BATCH, |r| match r {
            r if r == BATCH + 5 => Some(b"1,2,\xff\n".to_vec()),
            r if r == BATCH + 9 => Some(b"1,2\n".to_vec()),
            _ => None,
        });
        let e = load_err(&bytes);
        assert!(
            e.contains(&format!("row {}", BATCH + 7)) && e.contains("'c'") && e.contains("UTF-8"),
            "{e}"
        );
        // Two bad fields on one row: the leftmost is reported, not the one
        // of a column that fails earlier in its own pass.
        let bytes = many_rows(2 * BATCH, |r| match r {
            100 => Some(b"1,\xfe,\xff\n".to_vec()),
            101 => Some(b"\xff,2,3\n".to_vec()),
            _ => None,
        });
        let e = load_err(&bytes);
        assert!(e.contains("row 102") && e.contains("'b'"), "{e}");
    }

    #[test]
    fn unclosed_quote_in_a_full_last_batch_names_its_row() {
        let bytes = many_rows(BATCH, |r| {
            (r == BATCH - 1).then(|| b"1,2,\"3\n4,5,6\n".to_vec())
        });
        let e = load_err(&bytes);
        assert!(
            e.contains(&format!("row {}", BATCH + 1))
                && e.contains("'c'")
                && e.contains("never closed"),
            "{e}"
        );
    }
}
