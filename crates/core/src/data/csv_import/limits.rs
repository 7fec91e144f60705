//! The input as it streams past the CSV reader: bytes counted, line breaks
//! found (so rows are numbered as an editor numbers lines), and the row
//! and file limits enforced while reading, with the messages that name
//! them by the setting that raises them.

use std::collections::VecDeque;
use std::io::{Chain, Cursor, Read};
use std::path::Path;

use super::compressed::{Codec, DecodeError};
use super::{csv_error, CsvOptions};
use crate::error::{Error, Setting};
use crate::format::thousands;

/// The input as it streams past: follows the quoting as the csv crate
/// reads it (to detect a quoted field left open at the end), finds line breaks (`\n`, `\r\n` and a lone `\r` each end a
/// line) so rows are numbered as an editor numbers lines whatever the line
/// ending, and enforces the row and file limits while reading.
pub(super) struct Tracked<R> {
    pub(super) inner: R,
    /// The field delimiter: a quote right after it opens a quoted field.
    delimiter: u8,
    /// Inside a quoted field, as the csv crate's reader is at this point.
    pub(super) in_quotes: bool,
    /// Where the quote that last closed a quoted field was: a quote right
    /// after it is an escaped (doubled) quote, and the field goes on.
    closed_at: Option<u64>,
    /// The last byte delivered before the current chunk.
    last_byte: Option<u8>,
    /// Bytes handed to the CSV reader so far.
    pub(super) delivered: u64,
    /// Where the last record the loader took ended: the record in progress
    /// (and blank lines before it) lies beyond.
    pub(super) consumed: u64,
    /// Line breaks delivered but not yet behind a record asked about,
    /// in order: `end << 1 | (length == 2)`.
    pub(super) breaks: VecDeque<u64>,
    /// Line breaks already behind.
    pub(super) lines_behind: u64,
    /// A `\r` that ended the last chunk: a line break of its own unless the
    /// next chunk starts with `\n`.
    pub(super) pending_cr: Option<u64>,
    pub(super) max_row: u64,
    pub(super) max_file: u64,
    /// The limit that stopped reading, if one did.
    pub(super) exceeded: Option<Exceeded>,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Exceeded {
    Row,
    File,
}

impl std::fmt::Display for Exceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("input limit exceeded")
    }
}

impl std::error::Error for Exceeded {}

impl<R> Tracked<R> {
    pub(super) fn new(inner: R, delimiter: u8, max_row: u64, max_file: u64) -> Self {
        Tracked {
            inner,
            delimiter,
            in_quotes: false,
            closed_at: None,
            last_byte: None,
            delivered: 0,
            consumed: 0,
            breaks: VecDeque::new(),
            lines_behind: 0,
            pending_cr: None,
            max_row,
            max_file,
            exceeded: None,
        }
    }

    pub(super) fn push_break(&mut self, end: u64, two: bool) {
        self.breaks.push_back(end << 1 | u64::from(two));
    }

    /// The 1-based line on which the record the CSV reader placed at byte
    /// `pos` starts. The reader places a record where it began reading it,
    /// before the blank lines it skips; those are counted too. Positions
    /// must not decrease from call to call.
    pub(super) fn line_at(&mut self, pos: u64) -> u64 {
        self.line_and_start(pos).0
    }

    /// [`Self::line_at`], and the byte at which the record's own text
    /// starts, after the blank lines the reader skipped before it.
    pub(super) fn line_and_start(&mut self, pos: u64) -> (u64, u64) {
        // A break that starts before `pos` is behind it; the reader may put
        // a record on the `\n` of a `\r\n` it split across two reads.
        let mut at = pos;
        while let Some(&b) = self.breaks.front() {
            let (end, len) = (b >> 1, 1 + (b & 1));
            if end - len >= pos {
                break;
            }
            self.breaks.pop_front();
            self.lines_behind += 1;
            at = at.max(end);
        }
        let mut blank = 0;
        for &b in &self.breaks {
            let (end, len) = (b >> 1, 1 + (b & 1));
            if end - len != at {
                break;
            }
            blank += 1;
            at = end;
        }
        (self.lines_behind + blank + 1, at)
    }

    /// The loader took the record ending at byte `end`.
    pub(super) fn consumed(&mut self, end: u64) {
        self.consumed = end;
    }

    pub(super) fn scan(&mut self, chunk: &[u8]) {
        let base = self.delivered;
        let carried = self.pending_cr.take();
        if let Some(cr) = carried {
            if chunk.first() != Some(&b'\n') {
                self.push_break(cr + 1, false);
            }
        }
        for i in memchr::memchr3_iter(b'"', b'\n', b'\r', chunk) {
            let at = base + i as u64;
            match chunk[i] {
                b'"' => {
                    let prev = if i == 0 {
                        self.last_byte
                    } else {
                        Some(chunk[i - 1])
                    };
                    self.quote(at, prev);
                }
                b'\n' => {
                    let after_cr = if i == 0 {
                        carried.is_some()
                    } else {
                        chunk[i - 1] == b'\r'
                    };
                    self.push_break(at + 1, after_cr);
                }
                _ => match chunk.get(i + 1) {
                    Some(b'\n') => {}
                    Some(_) => self.push_break(at + 1, false),
                    None => self.pending_cr = Some(at),
                },
            }
        }
        if let Some(&b) = chunk.last() {
            self.last_byte = Some(b);
        }
    }

    /// A quote at byte `at`, after the byte `prev` (none at the start), as
    /// the csv crate reads it (its default dialect): at the start of a
    /// field it opens a quoted field; inside one it closes it, unless the
    /// next byte is a quote too (an escaped quote, `""`); anywhere else (a
    /// quote inside an unquoted field, `1,x"y`, or after a closed one,
    /// `"a"b"`) it is a character of the field. RFC 4180 has no place for
    /// such a quote, but the csv crate and DataFusion's reader (the
    /// engine's and the cluster's) both take it as a character, so every
    /// path reads `x"y`; what counted quotes before called it an unclosed
    /// quote at the end of the file, naming the last row.
    fn quote(&mut self, at: u64, prev: Option<u8>) {
        if self.in_quotes {
            self.in_quotes = false;
            self.closed_at = Some(at);
        } else if at.checked_sub(1).is_some_and(|p| self.closed_at == Some(p))
            || matches!(prev, None | Some(b'\n' | b'\r'))
            || prev == Some(self.delimiter)
        {
            self.in_quotes = true;
        }
    }
}

impl<R> Tracked<Chain<Cursor<Vec<u8>>, R>> {
    /// The first bytes of the file (at most 64 KiB), for estimates.
    pub(super) fn head_sample(&self) -> &[u8] {
        self.inner.get_ref().0.get_ref()
    }
}

impl<R: Read> Read for Tracked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        // The CSV reader asks for more only while a record is unfinished:
        // everything past the last record taken belongs to that one.
        if self.delivered - self.consumed > self.max_row {
            self.exceeded = Some(Exceeded::Row);
        } else if self.delivered > self.max_file {
            self.exceeded = Some(Exceeded::File);
        }
        if let Some(e) = self.exceeded {
            return Err(std::io::Error::other(e));
        }
        let n = self.inner.read(buf)?;
        if n == 0 {
            if let Some(cr) = self.pending_cr.take() {
                self.push_break(cr + 1, false);
            }
            return Ok(0);
        }
        self.scan(&buf[..n]);
        self.delivered += n as u64;
        Ok(n)
    }
}

/// Data row (0-based) → line, where they differ from the usual
/// `row + 2` (blank lines, quoted line breaks): the lines of records the
/// loader no longer holds, for messages about a whole column.
#[derive(Default)]
pub(super) struct LineMap {
    /// (first data row of a run, line − row of the run), by row.
    pub(super) runs: Vec<(u64, u64)>,
    /// Data rows seen.
    pub(super) rows: u64,
}

impl LineMap {
    pub(super) fn note(&mut self, row: u64, line: u64) {
        let offset = line.saturating_sub(row);
        if self.runs.last().map_or(2, |r| r.1) != offset {
            self.runs.push((row, offset));
        }
    }

    pub(super) fn line(&self, row: u64) -> u64 {
        let i = self.runs.partition_point(|r| r.0 <= row);
        row + if i == 0 { 2 } else { self.runs[i - 1].1 }
    }
}

/// How messages name the limits.
pub(super) struct Limits<'a> {
    pub(super) file: &'a Path,
    pub(super) regular: bool,
    /// The compression the text is decoded from: the file limit then
    /// counts decompressed bytes.
    pub(super) codec: Option<Codec>,
    pub(super) opts: &'a CsvOptions,
}

impl Limits<'_> {
    /// A CSV reader's error as the user's message; `tracked` tells where.
    pub(super) fn csv_error<R>(
        &self,
        tracked: &mut Tracked<R>,
        names: &[String],
        e: csv::Error,
    ) -> Error {
        let inner = match e.kind() {
            csv::ErrorKind::Io(io) => io.get_ref(),
            _ => None,
        };
        if let Some(d) = inner.and_then(|i| i.downcast_ref::<DecodeError>()) {
            let line = tracked.line_at(tracked.consumed);
            return Error::input(self.file, Some(line), None, d.message(tracked.delivered));
        }
        let exceeded = inner.and_then(|i| i.downcast_ref::<Exceeded>()).copied();
        // A decompressed stream's end is the file's: it is no pipe.
        let not_regular = if self.codec.is_some() || self.regular {
            String::new()
        } else {
            " (the input is not a regular file: does it ever end?)".to_string()
        };
        match exceeded {
            Some(Exceeded::Row) => {
                let line = tracked.line_at(tracked.consumed);
                Error::unmet_at(
                    self.file,
                    Some(line),
                    None,
                    format!(
                        "the row is longer than the limit of {} bytes{not_regular} (a missing line break or an unclosed quote?)",
                        thousands(self.opts.max_row_bytes)
                    ),
                    Setting::MaxRowBytes,
                )
            }
            Some(Exceeded::File) => {
                let what = match self.codec {
                    Some(c) => format!(
                        "the {} data decompresses to more than the limit of {} bytes (a file that inflates without end?)",
                        c.name(),
                        thousands(self.opts.max_file_bytes)
                    ),
                    None => file_limit_message(tracked.delivered, self.opts.max_file_bytes),
                };
                Error::unmet_at(
                    self.file,
                    None,
                    None,
                    format!("{what}{not_regular}"),
                    Setting::MaxFileBytes,
                )
            }
            None => {
                let line = e.position().map(|p| tracked.line_at(p.byte()));
                csv_error(self.file, names, line, e)
            }
        }
    }
}

pub(super) fn file_limit_message(size: u64, limit: u64) -> String {
    format!(
        "the file is larger than the limit of {} bytes ({size} bytes or more)",
        thousands(limit)
    )
}
