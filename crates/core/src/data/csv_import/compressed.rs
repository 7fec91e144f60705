//! CSV compressed with gzip or zstd, decompressed as it streams into the
//! same loader as plain CSV. A decoder's error (a truncated stream, a
//! corrupt block, a file that is not compressed at all) is carried through
//! the CSV reader as a [`DecodeError`] and reported naming the file, the
//! codec and the row being read.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::{dataset_name, load_from, CsvOptions, Source, SNIFF_BYTES};
use crate::data::Dataset;
use crate::error::{Error, Result};

/// A compression of CSV text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    Gzip,
    Zstd,
}

impl Codec {
    pub fn name(self) -> &'static str {
        match self {
            Codec::Gzip => "gzip",
            Codec::Zstd => "zstd",
        }
    }
}

/// A decoder's failure, as the CSV reader passes it on.
#[derive(Debug)]
pub(super) struct DecodeError {
    pub(super) codec: Codec,
    pub(super) reason: std::io::Error,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} stream: {}", self.codec.name(), self.reason)
    }
}

impl std::error::Error for DecodeError {}

impl DecodeError {
    /// The user's message: what broke, and how far the text got.
    pub(super) fn message(&self, text_bytes: u64) -> String {
        let what = match self.reason.kind() {
            std::io::ErrorKind::UnexpectedEof => "is truncated (the file ends inside it)",
            _ => "is corrupt or is not compressed data",
        };
        format!(
            "the {} stream {what}, after {} bytes of text ({})",
            self.codec.name(),
            crate::format::thousands(text_bytes),
            self.reason
        )
    }
}

/// A decoder whose errors are [`DecodeError`]s.
struct Decoded<R> {
    inner: R,
    codec: Codec,
}

impl<R: Read> Read for Decoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf).map_err(|reason| {
            let kind = reason.kind();
            std::io::Error::new(
                kind,
                DecodeError {
                    codec: self.codec,
                    reason,
                },
            )
        })
    }
}

/// Load CSV compressed with `codec` from disk.
pub(in crate::data) fn load_csv_compressed(
    path: &Path,
    opts: &CsvOptions,
    codec: Codec,
) -> Result<Dataset> {
    let io = |e| Error::Io(path.to_path_buf(), e);
    let file = crate::data::input::open_input(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(Error::input(
            path,
            None,
            None,
            "is a directory, not a compressed CSV file",
        ));
    }
    if meta.is_file() && meta.len() == 0 {
        return Err(Error::input(path, None, None, "the file is empty"));
    }
    super::refuse_over_file_limit(path, &meta, opts)?;
    let decoder = decoder(file, codec).map_err(|reason| {
        Error::input(path, None, None, DecodeError { codec, reason }.message(0))
    })?;
    let mut text = Decoded {
        inner: decoder,
        codec,
    };
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    (&mut text)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|e| decode_error(path, e, head.len() as u64))?;
    let name = dataset_name(path);
    let source = Source {
        path,
        name: &name,
        // Text compresses several times over: three times the file is a
        // low estimate of the rows, which only sizes the first allocation.
        size_hint: if meta.is_file() { meta.len() * 3 } else { 0 },
        regular: meta.is_file(),
        codec: Some(codec),
        text: None,
        check_only: false,
    };
    load_from(&source, head, text, opts)
}

/// An error reading the first bytes: a decoder's names the codec.
fn decode_error(path: &Path, e: std::io::Error, text_bytes: u64) -> Error {
    match e.get_ref().and_then(|i| i.downcast_ref::<DecodeError>()) {
        Some(d) => Error::input(path, None, None, d.message(text_bytes)),
        None => Error::Io(path.to_path_buf(), e),
    }
}

#[cfg(feature = "formats")]
fn decoder(file: File, codec: Codec) -> std::io::Result<Box<dyn Read + Send>> {
    Ok(match codec {
        Codec::Gzip => Box::new(flate2::read::MultiGzDecoder::new(file)),
        Codec::Zstd => Box::new(zstd::stream::read::Decoder::new(file)?),
    })
}

#[cfg(not(feature = "formats"))]
fn decoder(_: File, codec: Codec) -> std::io::Result<Box<dyn Read + Send>> {
    Err(std::io::Error::other(format!(
        "this build reads no {} (it needs the `formats` feature)",
        codec.name()
    )))
}
