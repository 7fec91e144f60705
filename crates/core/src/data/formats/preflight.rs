//! Checks of a Parquet or Arrow IPC file's structure against the file and
//! the limits, before the arrow and parquet readers allocate anything the
//! file asks for (issue 36, items 3 and 4).
//!
//! Those readers trust the sizes a file states: a Parquet page header's
//! `uncompressed_page_size` becomes the capacity of the buffer a page is
//! decompressed into (2^31 − 1 bytes per column from a 1 KB file), a
//! column chunk's `total_compressed_size` and an Arrow block's
//! `bodyLength` the length of a zeroed buffer (2^40 bytes aborts the
//! process: an allocation failure is not an error in Rust), and a Parquet
//! schema's nesting is walked by recursion (10,000 levels overflow the
//! stack). So every such size is read here first and checked, without
//! recursion and reading at most the bytes it checks:
//!
//! - **Parquet footer**: the schema's nesting depth, from the flat list of
//!   schema elements and their `num_children`, with a stack of counts
//!   (no recursion); more than [`MAX_SCHEMA_DEPTH`] levels is refused. The
//!   Thrift structures are read with the Apache Thrift crate's compact
//!   protocol, which bounds its own skipping depth; only the fields
//!   checked are kept.
//! - **Parquet pages**: every column chunk lies inside the file, every
//!   page inside its chunk, and the uncompressed sizes the page headers
//!   claim fit the budget ([`PageBudget`]): in memory, all pages together
//!   within the file size limit (the limit then bounds decompressed bytes,
//!   as it does for compressed CSV); on the query engine, which streams,
//!   the largest page of each column of a row group together (the pages
//!   it decompresses at once).
//! - **Arrow IPC**: in the file format, the footer and every block it
//!   lists (record batches, dictionaries) lie inside the file; in the
//!   stream format, every message's metadata and body length, walked
//!   message by message.
//!
//! A file too malformed for these checks to find their fields (a corrupt
//! footer) passes them: the reader then refuses it with its own message,
//! inside the panic guard. A check only refuses what it can name.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use parquet::file::metadata::ParquetMetaData;
use thrift::protocol::{TCompactInputProtocol, TInputProtocol, TType};

use crate::error::{Error, Result, Setting};
use crate::format::thousands;

/// The deepest Parquet schema read (the root counts as one level).
/// anonlab reads flat columns only; nested ones are refused by name
/// later, so this only has to stop the reader's recursion long before
/// the stack ends (10,000 levels overflowed it).
pub const MAX_SCHEMA_DEPTH: usize = 64;

/// What the decompressed pages of a Parquet file may add up to.
#[derive(Debug, Clone, Copy)]
pub enum PageBudget {
    /// The in-memory reader: every page of the file together (it reads
    /// them all) within this many bytes.
    Total(u64),
    /// A streaming reader: the largest page of each column of one row
    /// group together (what it holds at once) within this many bytes.
    PerRowGroup(u64),
}

/// Check a Parquet file's schema depth from its footer; run before the
/// parquet crate parses the footer (whose schema walk recurses).
pub fn parquet_footer(path: &Path, file: &mut File) -> Result<()> {
    let io = |e| Error::Io(path.to_path_buf(), e);
    let len = file.seek(SeekFrom::End(0)).map_err(io)?;
    let result = read_footer(file, len).map_err(io);
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let Some(footer) = result? else {
        return Ok(());
    };
    match schema_depth(&footer) {
        Ok(depth) if depth > MAX_SCHEMA_DEPTH => Err(Error::input(
            path,
            None,
            None,
            format!(
                "the Parquet schema is nested more than {MAX_SCHEMA_DEPTH} levels deep; anonlab reads flat columns"
            ),
        )),
        // A footer these fields cannot be read from is the parquet
        // reader's to refuse, with its message.
        _ => Ok(()),
    }
}

/// The footer's bytes, or `None` when the file does not end in one the
/// reader would read (it refuses such a file itself).
fn read_footer(file: &mut File, len: u64) -> std::io::Result<Option<Vec<u8>>> {
    if len < 12 {
        return Ok(None);
    }
    let mut tail = [0u8; 8];
    file.seek(SeekFrom::Start(len - 8))?;
    file.read_exact(&mut tail)?;
    if &tail[4..] != b"PAR1" {
        return Ok(None);
    }
    let footer_len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if footer_len > len - 12 {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(len - 8 - footer_len))?;
    let mut footer = Vec::new();
    file.take(footer_len).read_to_end(&mut footer)?;
    Ok(Some(footer))
}

/// The nesting depth of the schema in a `FileMetaData` (field 2, a list of
/// `SchemaElement`s in depth-first order, each with `num_children`).
fn schema_depth(footer: &[u8]) -> thrift::Result<usize> {
    let mut p = TCompactInputProtocol::new(footer);
    p.read_struct_begin()?;
    loop {
        let field = p.read_field_begin()?;
        match (field.field_type, field.id) {
            (TType::Stop, _) => return Ok(0),
            (TType::List, Some(2)) => {
                let n = p.read_list_begin()?.size;
                return depth_of_elements(&mut p, n);
            }
            (t, _) => p.skip(t)?,
        }
        p.read_field_end()?;
    }
}

/// Walk `n` schema elements with a stack of the children still to come
/// in each open group: its height is the depth.
fn depth_of_elements(p: &mut impl TInputProtocol, n: i32) -> thrift::Result<usize> {
    let mut open: Vec<i64> = Vec::new();
    let mut deepest = 0;
    for _ in 0..n {
        let children = i64::from(struct_i32(p, 5)?.unwrap_or(0));
        if let Some(left) = open.last_mut() {
            *left -= 1;
        }
        if children > 0 {
            open.push(children);
            deepest = deepest.max(open.len());
            if deepest > MAX_SCHEMA_DEPTH {
                return Ok(deepest);
            }
        }
        while open.last().is_some_and(|&left| left <= 0) {
            open.pop();
        }
    }
    Ok(deepest)
}

/// Read one struct, keeping the i32 field `id` (and skipping the rest).
fn struct_i32(p: &mut impl TInputProtocol, id: i16) -> thrift::Result<Option<i32>> {
    Ok(struct_i32s(p, [id])?[0])
}

/// Read one struct, keeping the i32 fields `ids` (and skipping the rest).
fn struct_i32s<const N: usize>(
    p: &mut impl TInputProtocol,
    ids: [i16; N],
) -> thrift::Result<[Option<i32>; N]> {
    let mut found = [None; N];
    p.read_struct_begin()?;
    loop {
        let field = p.read_field_begin()?;
        if field.field_type == TType::Stop {
            break;
        }
        match ids.iter().position(|&i| Some(i) == field.id) {
            Some(k) if field.field_type == TType::I32 => found[k] = Some(p.read_i32()?),
            _ => p.skip(field.field_type)?,
        }
        p.read_field_end()?;
    }
    p.read_struct_end()?;
    Ok(found)
}

/// Check every column chunk and page header of a Parquet file (whose
/// footer the parquet crate has parsed) against the file and `budget`.
pub fn parquet_pages(
    path: &Path,
    file: &File,
    metadata: &ParquetMetaData,
    budget: PageBudget,
) -> Result<()> {
    let io = |e| Error::Io(path.to_path_buf(), e);
    let file_len = file.metadata().map_err(io)?.len();
    let mut total: u64 = 0;
    for (g, group) in metadata.row_groups().iter().enumerate() {
        let mut at_once: u64 = 0;
        for column in group.columns() {
            let name = column.column_path().string();
            let (start, len) = column.byte_range();
            let end = start.checked_add(len).filter(|&e| e <= file_len);
            let Some(end) = end else {
                return Err(Error::input(
                    path,
                    None,
                    Some(name),
                    format!(
                        "row group {} says the column's data is {} bytes at byte {}, past the end of the file ({} bytes)",
                        g + 1,
                        thousands(len),
                        thousands(start),
                        thousands(file_len)
                    ),
                ));
            };
            let largest = walk_pages(path, file, &name, g, start, end, |page| {
                total = total.saturating_add(page);
                match budget {
                    PageBudget::Total(limit) if total > limit => Err(over_budget(
                        path,
                        &name,
                        "the pages of the file",
                        total,
                        limit,
                    )),
                    _ => Ok(()),
                }
            })?;
            at_once = at_once.saturating_add(largest);
            if let PageBudget::PerRowGroup(limit) = budget {
                if at_once > limit {
                    return Err(over_budget(
                        path,
                        &name,
                        &format!("the largest pages of row group {}", g + 1),
                        at_once,
                        limit,
                    ));
                }
            }
        }
    }
    Ok(())
}

fn over_budget(path: &Path, column: &str, what: &str, bytes: u64, limit: u64) -> Error {
    Error::unmet_at(
        path,
        None,
        Some(column.to_string()),
        format!(
            "{what} claim {} bytes uncompressed, over the limit of {} bytes",
            thousands(bytes),
            thousands(limit)
        ),
        Setting::MaxFileBytes,
    )
}

/// Read the page headers of one column chunk (`start..end`), giving each
/// page's claimed uncompressed size to `each`; returns the largest.
fn walk_pages(
    path: &Path,
    file: &File,
    column: &str,
    group: usize,
    start: u64,
    end: u64,
    mut each: impl FnMut(u64) -> Result<()>,
) -> Result<u64> {
    let io = |e| Error::Io(path.to_path_buf(), e);
    let bad = |at: u64, why: String| {
        Error::input(
            path,
            None,
            Some(column.to_string()),
            format!(
                "not a readable Parquet file: the page header at byte {} (row group {}) {why}",
                thousands(at),
                group + 1
            ),
        )
    };
    let mut largest = 0;
    let mut at = start;
    let mut reader = file;
    while at < end {
        reader.seek(SeekFrom::Start(at)).map_err(io)?;
        let mut counted = Counted {
            inner: BufReader::with_capacity(512, reader.take(end - at)),
            read: 0,
        };
        let sizes = {
            let mut p = TCompactInputProtocol::new(&mut counted);
            struct_i32s(&mut p, [2, 3])
        };
        let [uncompressed, compressed] =
            sizes.map_err(|e| bad(at, format!("cannot be read: {e}")))?;
        let (Some(uncompressed), Some(compressed)) = (uncompressed, compressed) else {
            return Err(bad(at, "has no page sizes".into()));
        };
        let (Ok(uncompressed), Ok(compressed)) =
            (u64::try_from(uncompressed), u64::try_from(compressed))
        else {
            return Err(bad(at, "states a negative page size".into()));
        };
        let next = at + counted.read + compressed;
        if next > end {
            return Err(bad(
                at,
                format!(
                    "says its page is {} bytes, past the end of the column's data",
                    thousands(compressed)
                ),
            ));
        }
        each(uncompressed)?;
        largest = largest.max(uncompressed);
        at = next;
    }
    Ok(largest)
}

/// A reader that counts the bytes taken from it (a page header's length).
struct Counted<R> {
    inner: R,
    read: u64,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

/// Check an Arrow IPC file's (`ARROW1`) footer and blocks, or a stream's
/// messages, against the file's length. Nothing for what is not a regular
/// file (devices and FIFOs are refused before).
pub fn arrow(path: &Path, file: &mut File) -> Result<()> {
    let io = |e| Error::Io(path.to_path_buf(), e);
    if !file.metadata().map_err(io)?.is_file() {
        return Ok(());
    }
    let len = file.seek(SeekFrom::End(0)).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut magic = [0u8; 6];
    let n = read_up_to(file, &mut magic).map_err(io)?;
    let result = if &magic[..n] == b"ARROW1" {
        arrow_file(path, file, len)
    } else {
        arrow_stream(path, file, len)
    };
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    result
}

fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

fn arrow_refusal(path: &Path, msg: String) -> Error {
    Error::input(
        path,
        None,
        None,
        format!("not a readable Arrow IPC file: {msg}"),
    )
}

/// The file format: `ARROW1`, padding, the stream, the footer, its length
/// (i32) and `ARROW1`.
fn arrow_file(path: &Path, file: &mut File, len: u64) -> Result<()> {
    let io = |e| Error::Io(path.to_path_buf(), e);
    if len < 16 {
        return Ok(());
    }
    let mut tail = [0u8; 10];
    file.seek(SeekFrom::Start(len - 10)).map_err(io)?;
    file.read_exact(&mut tail).map_err(io)?;
    if &tail[4..] != b"ARROW1" {
        return Ok(());
    }
    let footer_len = i64::from(i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if footer_len < 0 || footer_len as u64 > len - 16 {
        return Err(arrow_refusal(
            path,
            format!(
                "its footer says it is {} bytes, more than the file holds ({} bytes)",
                thousands(footer_len.unsigned_abs()),
                thousands(len)
            ),
        ));
    }
    let footer_len = footer_len as u64;
    file.seek(SeekFrom::Start(len - 10 - footer_len))
        .map_err(io)?;
    let mut footer = Vec::new();
    (&mut *file)
        .take(footer_len)
        .read_to_end(&mut footer)
        .map_err(io)?;
    // A footer that is no flatbuffer is the reader's to refuse.
    let Ok(footer) = arrow_ipc::root_as_footer(&footer) else {
        return Ok(());
    };
    let blocks = footer
        .recordBatches()
        .into_iter()
        .flatten()
        .map(|b| ("record batch", b))
        .chain(
            footer
                .dictionaries()
                .into_iter()
                .flatten()
                .map(|b| ("dictionary", b)),
        );
    for (i, (what, block)) in blocks.enumerate() {
        let end = u64::try_from(block.offset()).ok().and_then(|o| {
            let meta = u64::try_from(block.metaDataLength()).ok()?;
            let body = u64::try_from(block.bodyLength()).ok()?;
            o.checked_add(meta)?.checked_add(body)
        });
        if end.is_none_or(|e| e > len) {
            return Err(arrow_refusal(
                path,
                format!(
                    "the footer's {what} block {} says it is {} + {} bytes at byte {}, past the end of the file ({} bytes)",
                    i + 1,
                    block.metaDataLength(),
                    block.bodyLength(),
                    block.offset(),
                    thousands(len)
                ),
            ));
        }
    }
    Ok(())
}

/// The stream format: messages, each its metadata's length (after an
/// optional continuation marker), the metadata (a flatbuffer stating the
/// body's length) and the body; a length of 0 ends the stream.
fn arrow_stream(path: &Path, file: &mut File, len: u64) -> Result<()> {
    let io = |e| Error::Io(path.to_path_buf(), e);
    let mut at: u64 = 0;
    let mut message = 0u64;
    while at < len {
        message += 1;
        file.seek(SeekFrom::Start(at)).map_err(io)?;
        let mut word = [0u8; 4];
        if read_up_to(file, &mut word).map_err(io)? < 4 {
            return Ok(());
        }
        at += 4;
        if word == [0xff; 4] {
            if read_up_to(file, &mut word).map_err(io)? < 4 {
                return Ok(());
            }
            at += 4;
        }
        let meta_len = i32::from_le_bytes(word);
        if meta_len == 0 {
            return Ok(());
        }
        let past = |what: &str, bytes: i64| {
            arrow_refusal(
                path,
                format!(
                    "message {message} says its {what} is {} bytes, past the end of the file ({} bytes)",
                    thousands(bytes.unsigned_abs()),
                    thousands(len)
                ),
            )
        };
        let meta_len = match u64::try_from(meta_len) {
            Ok(m) if at + m <= len => m,
            _ => return Err(past("metadata", meta_len.into())),
        };
        let mut meta = Vec::new();
        (&mut *file)
            .take(meta_len)
            .read_to_end(&mut meta)
            .map_err(io)?;
        at += meta_len;
        // Metadata that is no flatbuffer is the reader's to refuse.
        let Ok(parsed) = arrow_ipc::root_as_message(&meta) else {
            return Ok(());
        };
        let body = parsed.bodyLength();
        match u64::try_from(body) {
            Ok(b) if at.checked_add(b).is_some_and(|e| e <= len) => at += b,
            _ => return Err(past("body", body)),
        }
    }
    Ok(())
}
