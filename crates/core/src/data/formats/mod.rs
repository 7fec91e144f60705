//! The input formats beside plain CSV, and the one entry point that picks
//! the reader: [`load`].
//!
//! Every reader feeds the same dictionary-encoded [`Dataset`] through the
//! same [`ColumnBuilder`](super::ColumnBuilder)s, with the same rules as
//! the CSV reader (`CsvOptions`): fields trimmed, the missing-value tokens,
//! the numeric detection and the `numeric`/`categorical` overrides, the
//! column and field limits, and the same checks of column names. So a
//! table gives the same figures whichever format it is stored in (tested
//! on the demo and Adult in `tests/formats.rs`).
//!
//! Choices made here, and why:
//! - The format comes from `CsvOptions::format` (the CLI's `--format`) when
//!   given, else from the file name's extension, else from the first bytes
//!   (the magic numbers of Parquet, Arrow IPC, gzip and zstd), else CSV. A
//!   misnamed file is then still read, and a plain CSV never needs a flag.
//! - A typed column (numbers, booleans, dates) is read as the text a CSV
//!   file would hold for it (`arrow-cast`'s formatting: shortest
//!   round-trip decimals for floats), then read as numbers exactly as CSV
//!   text is (`data::number`), so `39` stored as Int64 and `39` stored as
//!   text are one value. A null is a missing cell; a text cell equal to a
//!   missing-value token is missing too, as in CSV.
//! - Nested columns (lists, structs, maps, unions) have no single cell
//!   value and are refused at the schema, naming the column, before any row
//!   is read.
//! - Rows of a Parquet or Arrow file are numbered from 1 at the first
//!   record (those files have no header row); CSV rows count the header
//!   as row 1, as a spreadsheet does.
//! - Compressed CSV (gzip, zstd) is decompressed as it streams; the file
//!   size limit applies to the decompressed bytes, so a small file that
//!   inflates without end (a "zip bomb") is stopped at the limit.

use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::csv_import::{load_csv, load_csv_compressed, Codec};
use super::{CsvOptions, Dataset};
use crate::error::{Error, Result};

#[cfg(feature = "formats")]
pub mod columnar;
#[cfg(feature = "formats")]
mod parquet_out;
#[cfg(feature = "formats")]
mod preflight;

#[cfg(feature = "formats")]
pub use parquet_out::CsvToParquet;

/// How an input file is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum InputFormat {
    /// Delimited text.
    #[serde(rename = "csv")]
    Csv,
    /// Delimited text compressed with gzip.
    #[serde(rename = "csv.gz")]
    CsvGzip,
    /// Delimited text compressed with zstd.
    #[serde(rename = "csv.zst")]
    CsvZstd,
    /// Apache Parquet.
    #[serde(rename = "parquet")]
    Parquet,
    /// Arrow IPC, file (`.arrow`, `.feather` version 2) or stream (`.arrows`).
    #[serde(rename = "arrow")]
    Arrow,
}

impl InputFormat {
    /// Every format, in the order the CLI lists them.
    pub const ALL: [InputFormat; 5] = [
        InputFormat::Csv,
        InputFormat::CsvGzip,
        InputFormat::CsvZstd,
        InputFormat::Parquet,
        InputFormat::Arrow,
    ];

    /// The name `--format` takes and the project file holds.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Csv => "csv",
            InputFormat::CsvGzip => "csv.gz",
            InputFormat::CsvZstd => "csv.zst",
            InputFormat::Parquet => "parquet",
            InputFormat::Arrow => "arrow",
        }
    }

    /// The format a file name says, if its extension is one anonlab knows.
    pub fn from_extension(path: &Path) -> Option<InputFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "csv" | "tsv" | "tab" | "txt" | "psv" => InputFormat::Csv,
            "gz" | "gzip" => InputFormat::CsvGzip,
            "zst" | "zstd" => InputFormat::CsvZstd,
            "parquet" | "pq" | "parq" => InputFormat::Parquet,
            "arrow" | "arrows" | "feather" | "ipc" => InputFormat::Arrow,
            _ => return None,
        })
    }

    /// The format the first bytes of a file say, if they carry a magic
    /// number anonlab knows.
    pub fn from_magic(head: &[u8]) -> Option<InputFormat> {
        if head.starts_with(b"PAR1") {
            Some(InputFormat::Parquet)
        } else if head.starts_with(b"ARROW1") || head.starts_with(&[0xff, 0xff, 0xff, 0xff]) {
            // The file format's magic, or a stream's continuation marker.
            Some(InputFormat::Arrow)
        } else if head.starts_with(&[0x1f, 0x8b]) {
            Some(InputFormat::CsvGzip)
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Some(InputFormat::CsvZstd)
        } else {
            None
        }
    }

    /// Whether this build reads the format (the `formats` feature).
    pub fn available(self) -> bool {
        self == InputFormat::Csv || cfg!(feature = "formats")
    }
}

impl std::fmt::Display for InputFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for InputFormat {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let s = s.trim().to_ascii_lowercase();
        let alias = match s.as_str() {
            "gz" | "gzip" | "csv-gz" => Some(InputFormat::CsvGzip),
            "zst" | "zstd" | "csv-zst" => Some(InputFormat::CsvZstd),
            "ipc" | "feather" => Some(InputFormat::Arrow),
            _ => None,
        };
        alias
            .or_else(|| InputFormat::ALL.into_iter().find(|f| f.name() == s))
            .ok_or_else(|| {
                let names: Vec<&str> = InputFormat::ALL.iter().map(|f| f.name()).collect();
                format!(
                    "unknown format '{}' (the formats are: {})",
                    crate::error::shown(&s, 40),
                    names.join(", ")
                )
            })
    }
}

/// The format `path` is read as: `opts.format` when given, else by
/// extension, else by its first bytes, else CSV.
pub fn detect(path: &Path, opts: &CsvOptions) -> InputFormat {
    if let Some(f) = opts.format {
        return f;
    }
    if let Some(f) = InputFormat::from_extension(path) {
        return f;
    }
    let mut head = [0u8; 8];
    let n = super::input::open_input(path)
        .and_then(|f| f.take(8).read(&mut head))
        .unwrap_or(0);
    InputFormat::from_magic(&head[..n]).unwrap_or(InputFormat::Csv)
}

/// Load a data file in whichever format it is stored ([`detect`]).
pub fn load(path: &Path, opts: &CsvOptions) -> Result<Dataset> {
    let format = detect(path, opts);
    if !format.available() {
        return Err(Error::input(
            path,
            None,
            None,
            format!(
                "this build of anonlab reads CSV only; {} input needs the `formats` feature (cargo build --features formats)",
                format.name()
            ),
        ));
    }
    match format {
        InputFormat::Csv => load_csv(path, opts),
        InputFormat::CsvGzip => load_csv_compressed(path, opts, Codec::Gzip),
        InputFormat::CsvZstd => load_csv_compressed(path, opts, Codec::Zstd),
        #[cfg(feature = "formats")]
        InputFormat::Parquet => columnar::load_parquet(path, opts),
        #[cfg(feature = "formats")]
        InputFormat::Arrow => columnar::load_arrow(path, opts),
        #[cfg(not(feature = "formats"))]
        InputFormat::Parquet | InputFormat::Arrow => unreachable!("refused above"),
    }
}

/// The in-memory reader's checks of a Parquet or Arrow IPC file's
/// metadata (footer, schema, row count), reading no data; nothing for
/// other formats. The query engine runs them before its own reader, so
/// both paths refuse a malformed file alike (issue 36, one reading).
pub fn check_metadata(path: &Path, opts: &CsvOptions) -> Result<()> {
    match detect(path, opts) {
        #[cfg(feature = "formats")]
        InputFormat::Parquet => columnar::check_metadata(path, opts, true),
        #[cfg(feature = "formats")]
        InputFormat::Arrow => columnar::check_metadata(path, opts, false),
        _ => Ok(()),
    }
}

/// Write text in `format`: `fill` writes CSV text, which reaches `out`
/// as it is, compressed, or as Parquet ([`CsvToParquet`]). Arrow IPC is
/// not written.
pub fn encode(
    format: InputFormat,
    out: &mut dyn std::io::Write,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let unavailable = || {
        std::io::Error::other(format!(
            "writing {format} needs the `formats` feature (this build writes CSV only)"
        ))
    };
    match format {
        InputFormat::Csv => fill(out),
        InputFormat::Arrow => Err(std::io::Error::other(
            "anonlab writes csv, csv.gz, csv.zst and parquet, not Arrow IPC",
        )),
        #[cfg(feature = "formats")]
        InputFormat::CsvGzip => {
            let mut gz = flate2::write::GzEncoder::new(out, flate2::Compression::default());
            fill(&mut gz)?;
            std::io::Write::flush(gz.finish()?)
        }
        #[cfg(feature = "formats")]
        InputFormat::CsvZstd => {
            let mut zst = zstd::stream::write::Encoder::new(out, 3)?;
            fill(&mut zst)?;
            std::io::Write::flush(zst.finish()?)
        }
        #[cfg(feature = "formats")]
        InputFormat::Parquet => {
            let mut parquet = CsvToParquet::new(out);
            fill(&mut parquet)?;
            parquet.finish()
        }
        #[cfg(not(feature = "formats"))]
        InputFormat::CsvGzip | InputFormat::CsvZstd | InputFormat::Parquet => Err(unavailable()),
    }
    .map_err(|e| if format.available() { e } else { unavailable() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_extensions_and_magic() {
        for f in InputFormat::ALL {
            assert_eq!(f.name().parse::<InputFormat>(), Ok(f));
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(json, format!("\"{}\"", f.name()));
        }
        assert_eq!("GZIP".parse::<InputFormat>(), Ok(InputFormat::CsvGzip));
        let e = "xlsx".parse::<InputFormat>().unwrap_err();
        assert!(
            e.contains("unknown format 'xlsx'") && e.contains("parquet"),
            "{e}"
        );
        let ext = |p: &str| InputFormat::from_extension(Path::new(p));
        assert_eq!(ext("a/b.csv"), Some(InputFormat::Csv));
        assert_eq!(ext("b.CSV.GZ"), Some(InputFormat::CsvGzip));
        assert_eq!(ext("b.csv.zst"), Some(InputFormat::CsvZstd));
        assert_eq!(ext("b.parquet"), Some(InputFormat::Parquet));
        assert_eq!(ext("b.feather"), Some(InputFormat::Arrow));
        assert_eq!(ext("b.data"), None);
        assert_eq!(
            InputFormat::from_magic(b"PAR1\x15"),
            Some(InputFormat::Parquet)
        );
        assert_eq!(
            InputFormat::from_magic(b"ARROW1\0\0"),
            Some(InputFormat::Arrow)
        );
        assert_eq!(
            InputFormat::from_magic(&[0x1f, 0x8b, 8]),
            Some(InputFormat::CsvGzip)
        );
        assert_eq!(InputFormat::from_magic(b"age,sex\n"), None);
    }

    /// The CSV-only core says what it lacks instead of reading a Parquet
    /// file as CSV.
    #[cfg(not(feature = "formats"))]
    #[test]
    fn without_the_feature_other_formats_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("t.parquet");
        std::fs::write(&f, b"PAR1").unwrap();
        let e = load(&f, &CsvOptions::default()).unwrap_err().to_string();
        assert!(
            e.contains("t.parquet") && e.contains("reads CSV only") && e.contains("`formats`"),
            "{e}"
        );
        let mut out = Vec::new();
        let e = encode(InputFormat::CsvGzip, &mut out, |_| Ok(())).unwrap_err();
        assert!(e.to_string().contains("`formats` feature"), "{e}");
    }

    #[test]
    fn an_unknown_extension_is_read_by_its_magic() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("table.data");
        std::fs::write(&f, b"PAR1 and then some").unwrap();
        assert_eq!(detect(&f, &CsvOptions::default()), InputFormat::Parquet);
        std::fs::write(&f, b"a,b\n1,2\n").unwrap();
        assert_eq!(detect(&f, &CsvOptions::default()), InputFormat::Csv);
        let forced = CsvOptions {
            format: Some(InputFormat::Arrow),
            ..CsvOptions::default()
        };
        assert_eq!(detect(&f, &forced), InputFormat::Arrow);
    }
}
