//! Line-per-record CSV text written as Parquet, as it streams: how
//! `anonlab synth --format parquet` writes its tables without holding
//! them.
//!
//! Choices made here, and why:
//! - The column types are decided on the first chunk of text: a column
//!   whose cells there are all integers written plainly (no sign, no
//!   leading zero, fitting an i64) is Int64, any other is UTF-8 text. A
//!   later cell of an Int64 column that is not such an integer is an error
//!   rather than a silent change: the writer's caller (synth) knows its
//!   columns, and a reader of the file must find one type per column.
//! - An empty cell is a null: anonlab reads both as missing.
//! - Records are cut at line breaks, so a quoted field may not hold one
//!   (synth writes none).
//! - Row groups of the writer's default size (about a million rows),
//!   Snappy-compressed: the common choice of Parquet tools, fast to read.

use std::io::Write;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

/// Text gathered before it is parsed and written as a record batch.
const CHUNK_BYTES: usize = 8 << 20;

/// A [`Write`] that takes CSV text with a header row and writes Parquet to
/// `out`; [`CsvToParquet::finish`] writes the footer.
pub struct CsvToParquet<'w> {
    out: &'w mut dyn Write,
    /// Text not yet parsed; a record cut by the chunk's end stays here.
    pending: Vec<u8>,
    names: Option<Vec<String>>,
    writer: Option<(ArrowWriter<Vec<u8>>, SchemaRef)>,
}

fn invalid(msg: impl Into<String>) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, msg.into())
}

/// A plainly written integer: digits, no leading zero (so the text reads
/// back unchanged), within i64.
fn plain_integer(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let plain = !b.is_empty() && b.iter().all(u8::is_ascii_digit) && (b[0] != b'0' || b.len() == 1);
    plain.then(|| s.parse().ok()).flatten()
}

impl<'w> CsvToParquet<'w> {
    pub fn new(out: &'w mut dyn Write) -> Self {
        CsvToParquet {
            out,
            pending: Vec::with_capacity(CHUNK_BYTES + (64 << 10)),
            names: None,
            writer: None,
        }
    }

    /// Parse the complete lines held (all of them when `last`) into a
    /// record batch and write it.
    fn flush_lines(&mut self, last: bool) -> std::io::Result<()> {
        let end = if last {
            self.pending.len()
        } else {
            match memchr::memrchr(b'\n', &self.pending) {
                Some(i) => i + 1,
                None => return Ok(()),
            }
        };
        let text: Vec<u8> = self.pending.drain(..end).collect();
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(&text[..]);
        let mut records = reader.records();
        if self.names.is_none() {
            match records.next() {
                Some(header) => {
                    let header = header.map_err(|e| invalid(e.to_string()))?;
                    self.names = Some(header.iter().map(str::to_string).collect());
                }
                None => return Ok(()),
            }
        }
        let width = self.names.as_ref().map_or(0, Vec::len);
        let mut cells: Vec<Vec<String>> = vec![Vec::new(); width];
        for record in records {
            let record = record.map_err(|e| invalid(e.to_string()))?;
            if record.len() != width {
                return Err(invalid(format!(
                    "a record has {} fields, the header {width}",
                    record.len()
                )));
            }
            for (column, field) in cells.iter_mut().zip(record.iter()) {
                column.push(field.to_string());
            }
        }
        if cells.first().is_none_or(Vec::is_empty) {
            return Ok(());
        }
        if self.writer.is_none() {
            let names = self.names.as_deref().unwrap_or_default();
            let fields: Vec<Field> = names
                .iter()
                .zip(&cells)
                .map(|(name, column)| {
                    let integers = column
                        .iter()
                        .all(|c| c.is_empty() || plain_integer(c).is_some());
                    let t = if integers {
                        DataType::Int64
                    } else {
                        DataType::Utf8
                    };
                    Field::new(name, t, true)
                })
                .collect();
            let schema: SchemaRef = Arc::new(Schema::new(fields));
            let props = WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .build();
            let writer = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props))
                .map_err(std::io::Error::other)?;
            self.writer = Some((writer, schema));
        }
        let Some((writer, schema)) = self.writer.as_mut() else {
            return Ok(());
        };
        let schema = schema.clone();
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(width);
        for (field, column) in schema.fields().iter().zip(&cells) {
            arrays.push(match field.data_type() {
                DataType::Int64 => {
                    let mut b = Int64Builder::with_capacity(column.len());
                    for c in column {
                        if c.is_empty() {
                            b.append_null();
                        } else {
                            b.append_value(plain_integer(c).ok_or_else(|| {
                                invalid(format!(
                                    "column '{}' was written as integers, but holds '{c}'",
                                    field.name()
                                ))
                            })?);
                        }
                    }
                    Arc::new(b.finish())
                }
                _ => {
                    let mut b = StringBuilder::new();
                    for c in column {
                        if c.is_empty() {
                            b.append_null();
                        } else {
                            b.append_value(c);
                        }
                    }
                    Arc::new(b.finish())
                }
            });
        }
        let batch = RecordBatch::try_new(schema, arrays).map_err(std::io::Error::other)?;
        writer.write(&batch).map_err(std::io::Error::other)?;
        self.drain()
    }

    /// Hand the bytes the Parquet writer has produced to `out`.
    fn drain(&mut self) -> std::io::Result<()> {
        if let Some((w, _)) = self.writer.as_mut() {
            let bytes = w.inner_mut();
            self.out.write_all(bytes)?;
            bytes.clear();
        }
        Ok(())
    }

    /// Write what is left and the file's footer.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.flush_lines(true)?;
        let Some((writer, _)) = self.writer.take() else {
            return Err(invalid(
                "no records to write: a Parquet file needs a schema",
            ));
        };
        let rest = writer.into_inner().map_err(std::io::Error::other)?;
        self.out.write_all(&rest)?;
        self.out.flush()
    }
}

impl Write for CsvToParquet<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if self.pending.len() >= CHUNK_BYTES {
            self.flush_lines(false)?;
        }
        Ok(buf.len())
    }

    /// Text is written when a chunk is full or at [`CsvToParquet::finish`]:
    /// a Parquet file cannot be flushed record by record.
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_plain() {
        assert_eq!(plain_integer("39"), Some(39));
        assert_eq!(plain_integer("0"), Some(0));
        assert_eq!(plain_integer("039"), None);
        assert_eq!(plain_integer("-1"), None);
        assert_eq!(plain_integer("99999999999999999999"), None);
        assert_eq!(plain_integer(""), None);
    }

    #[test]
    fn a_table_round_trips_with_types_and_nulls() {
        let mut bytes = Vec::new();
        let mut w = CsvToParquet::new(&mut bytes);
        w.write_all(b"age,sex,zip\n39,Male,02134\n,Female,12345\n7,,\n")
            .unwrap();
        w.finish().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("t.parquet");
        std::fs::write(&f, &bytes).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
            std::fs::File::open(&f).unwrap(),
        )
        .unwrap();
        let schema = reader.schema().clone();
        assert_eq!(schema.field(0).data_type(), &DataType::Int64);
        // A leading zero keeps the zip as text.
        assert_eq!(schema.field(2).data_type(), &DataType::Utf8);
        let ds = crate::data::load(&f, &crate::data::CsvOptions::default()).unwrap();
        assert_eq!(ds.n_rows(), 3);
        let age = ds.column("age").unwrap();
        assert!(age.is_numeric());
        assert_eq!(age.missing_count(), 1);
        assert_eq!(ds.column("zip").unwrap().dictionary().len(), 2);
    }
}
