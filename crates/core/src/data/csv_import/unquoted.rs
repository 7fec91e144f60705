//! The rows of a CSV text held whole and free of double quotes, read on
//! every core: the text is cut at line breaks into one part per core, each
//! part parsed and interned into builders of its own, and the builders
//! appended in file order (`ColumnBuilder::append`).
//!
//! Without a quote character the CSV grammar the streaming reader follows
//! (the `csv` crate with `\r`, `\n` or `\r\n` ending a record) comes down
//! to this: a record is a non-empty run of bytes between line-break bytes,
//! its fields what lies between delimiters, and empty lines are skipped.
//! A line break can then never lie inside a field, so any line break is a
//! safe place to cut.
//!
//! This path only ever reads well-formed text. Anything the streaming path
//! would report — a ragged row, a field or row over its limit, bytes that
//! are not UTF-8, no data rows — makes it give up (`None`), and the caller
//! reads the text again with the streaming reader, whose messages name the
//! row and column. So it needs no line numbers, and every message stays
//! what it was.

use std::fs::File;
use std::io;

use rayon::prelude::*;

use super::FieldRules;
use crate::data::dataset::ColumnBuilder;

/// A text up to this size is read whole to take this path; a larger one
/// streams, so it is never held in memory as text.
pub(super) const MAX_WHOLE_BYTES: u64 = 64 << 20;

/// Below this many bytes per part the hand-over costs more than a second
/// core saves.
const MIN_PART_BYTES: usize = 256 << 10;

/// How the rows are read: the settings the streaming reader applies.
pub(super) struct Plain<'a> {
    pub delimiter: u8,
    pub names: &'a [String],
    pub rules: &'a FieldRules<'a>,
    pub max_field_bytes: usize,
    pub max_row_bytes: u64,
}

/// One part of the text, read.
struct Part {
    builders: Vec<ColumnBuilder>,
    /// Bytes from the part's start to the end of its first record (blank
    /// lines before it included), if it has a record.
    first: Option<u64>,
    /// Bytes after the end of its last record (all of it without one).
    trail: u64,
}

/// Whether `rows` (the text after the header) can be read here: no quote
/// character anywhere, and a delimiter that is neither a line break nor a
/// quote.
pub(super) fn applies(rows: &[u8], delimiter: u8) -> bool {
    !matches!(delimiter, b'"' | b'\n' | b'\r') && memchr::memchr(b'"', rows).is_none()
}

impl Plain<'_> {
    /// The builders of every column holding every row of `rows` (the text
    /// after the header row, which must satisfy [`applies`]), read in one
    /// part per core at most; `None` when the text holds anything the
    /// streaming reader would refuse, or no row. `est_rows` sizes the
    /// code vectors.
    pub(super) fn read(&self, rows: &[u8], est_rows: usize) -> Option<Vec<ColumnBuilder>> {
        let parts = rayon::current_num_threads().clamp(1, (rows.len() / MIN_PART_BYTES).max(1));
        self.read_in(rows, parts, est_rows)
    }

    /// [`Self::read`] in `parts` parts (some may be empty).
    pub(super) fn read_in(
        &self,
        rows: &[u8],
        parts: usize,
        est_rows: usize,
    ) -> Option<Vec<ColumnBuilder>> {
        let parts = parts.max(1);
        let bounds = cuts(rows, parts);
        let read: Vec<Option<Part>> = bounds
            .par_windows(2)
            .enumerate()
            .map(|(i, w)| {
                // The first part's builders take every row in the end.
                let est = if i == 0 { est_rows } else { est_rows / parts };
                self.read_part(&rows[w[0]..w[1]], est)
            })
            .collect();
        // The row limit across the cuts: blank lines at the end of one part
        // belong to the first record of the next.
        let mut carry = 0u64;
        let mut builders: Option<Vec<ColumnBuilder>> = None;
        for part in read {
            let part = part?;
            if let Some(first) = part.first {
                if self.over_row_limit(carry + first) {
                    return None;
                }
                carry = part.trail;
            } else {
                carry += part.trail;
                continue;
            }
            match builders.as_mut() {
                None => builders = Some(part.builders),
                Some(all) => {
                    for (b, more) in all.iter_mut().zip(part.builders) {
                        b.append(more);
                    }
                }
            }
        }
        if self.over_row_limit(carry) {
            return None;
        }
        builders
    }

    /// Whether a record whose text (blank lines before it and its line
    /// break included) spans `bytes` could trip the streaming reader's row
    /// limit. Its count of a record can differ from this one by the `\n`
    /// of a `\r\n` split across two reads: a margin of two bytes keeps
    /// this path on the safe side.
    fn over_row_limit(&self, bytes: u64) -> bool {
        bytes.saturating_add(2) > self.max_row_bytes
    }

    fn read_part(&self, text: &[u8], est_rows: usize) -> Option<Part> {
        let columns = self.names.len();
        let mut builders: Vec<ColumnBuilder> = self
            .names
            .iter()
            .map(|n| ColumnBuilder::with_capacity(n.clone(), est_rows))
            .collect();
        // Start of the current field, fields of the current record so far,
        // end of the last record.
        let (mut start, mut column, mut last_end) = (0usize, 0usize, 0usize);
        let mut first = None;
        let delimiter = self.delimiter;
        // The record's last field is `text[from..at]`.
        let mut end_record =
            |builders: &mut [ColumnBuilder], column: usize, from: usize, at: usize| {
                if column + 1 != columns {
                    return None;
                }
                self.push(&mut builders[column], &text[from..at])?;
                let end = (at + 1).min(text.len());
                let span = (end - last_end) as u64;
                if first.is_none() {
                    first = Some(span);
                } else if self.over_row_limit(span) {
                    return None;
                }
                last_end = end;
                Some(())
            };
        for i in memchr::memchr3_iter(delimiter, b'\n', b'\r', text) {
            if text[i] == delimiter {
                if column + 1 >= columns {
                    return None;
                }
                self.push(&mut builders[column], &text[start..i])?;
                column += 1;
            } else if column > 0 || start < i {
                end_record(&mut builders, column, start, i)?;
                column = 0;
            }
            // else: an empty line (or the `\n` of a `\r\n`), skipped.
            start = i + 1;
        }
        // A last record without a line break.
        if column > 0 || start < text.len() {
            end_record(&mut builders, column, start, text.len())?;
        }
        Some(Part {
            builders,
            first,
            trail: (text.len() - last_end) as u64,
        })
    }

    /// Intern one field as the streaming reader's `Interner` does.
    fn push(&self, b: &mut ColumnBuilder, raw: &[u8]) -> Option<()> {
        let field = self.rules.field(raw);
        if field.len() > self.max_field_bytes {
            return None;
        }
        if self.rules.is_missing(field) {
            b.push_missing();
            return Some(());
        }
        b.push_bytes(field).ok()
    }
}

/// Where `parts` parts of `text` begin, and its end: each cut just after
/// the first line-break byte at or past an even share of the text.
fn cuts(text: &[u8], parts: usize) -> Vec<usize> {
    let mut bounds = vec![0];
    for i in 1..parts {
        let from = (text.len() * i / parts).max(*bounds.last().unwrap_or(&0));
        let cut = memchr::memchr2(b'\n', b'\r', &text[from..]).map_or(text.len(), |j| from + j + 1);
        bounds.push(cut);
    }
    bounds.push(text.len());
    bounds
}

/// The first `len` bytes of `file` (fewer if it is shorter). The parts are
/// read side by side, one per core, at their offsets: copying a file into
/// fresh memory is mostly page faults, and each core then takes its share
/// of them. The file's cursor is left anywhere.
pub(super) fn read_whole(file: &File, len: usize) -> io::Result<Vec<u8>> {
    let mut text = vec![0u8; len];
    let cores = if cfg!(any(unix, windows)) {
        rayon::current_num_threads()
    } else {
        1
    };
    let parts = cores.clamp(1, (len / MIN_PART_BYTES).max(1));
    let part = len.div_ceil(parts).max(1);
    let read: Vec<io::Result<usize>> = text
        .par_chunks_mut(part)
        .enumerate()
        .map(|(i, buf)| read_at(file, buf, (i * part) as u64))
        .collect();
    // A file that shrank meanwhile: what was read up to the first part
    // left short.
    let mut filled = 0;
    for (i, n) in read.into_iter().enumerate() {
        let n = n?;
        filled = i * part + n;
        if n < part.min(len - i * part) {
            break;
        }
    }
    text.truncate(filled);
    Ok(text)
}

/// Fill `buf` from `file` at `offset`, short only at the end of the file.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match read_once_at(file, &mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

#[cfg(unix)]
fn read_once_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_once_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// Elsewhere a read at an offset moves the shared cursor: one part only.
#[cfg(not(any(unix, windows)))]
fn read_once_at(mut file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.read(buf)
}
