//! Parquet files built field by field, to state what a writer never
//! would: page headers claiming 2^31 − 1 bytes, column chunks past the
//! end, schemas nested 10,000 deep. The Thrift structures are written
//! with the Apache Thrift crate's compact protocol from a small value
//! tree ([`T`]), so a test names the field it lies in (field ids of
//! parquet.thrift) and everything else stays a readable file: with no
//! lie, [`Parquet::bytes`] is a file the parquet crate reads (checked in
//! `hostile_structure`). Arrow IPC files are written by arrow's own
//! writer ([`arrow_ipc`]), then edited by the tests.
#![cfg(feature = "formats")]

use std::io::Write;

use thrift::protocol::{
    TCompactOutputProtocol, TFieldIdentifier, TListIdentifier, TOutputProtocol, TStructIdentifier,
    TType,
};

/// A Thrift value.
#[derive(Debug, Clone)]
pub enum T {
    I32(i32),
    I64(i64),
    Str(String),
    List(TType, Vec<T>),
    Struct(Vec<(i16, T)>),
}

impl T {
    fn ttype(&self) -> TType {
        match self {
            T::I32(_) => TType::I32,
            T::I64(_) => TType::I64,
            T::Str(_) => TType::String,
            T::List(..) => TType::List,
            T::Struct(_) => TType::Struct,
        }
    }

    fn write(&self, p: &mut dyn TOutputProtocol) {
        match self {
            T::I32(v) => p.write_i32(*v).unwrap(),
            T::I64(v) => p.write_i64(*v).unwrap(),
            T::Str(s) => p.write_string(s).unwrap(),
            T::List(t, items) => {
                p.write_list_begin(&TListIdentifier::new(*t, items.len() as i32))
                    .unwrap();
                for i in items {
                    i.write(p);
                }
                p.write_list_end().unwrap();
            }
            T::Struct(fields) => {
                p.write_struct_begin(&TStructIdentifier::new("s")).unwrap();
                for (id, v) in fields {
                    p.write_field_begin(&TFieldIdentifier::new("f", v.ttype(), *id))
                        .unwrap();
                    v.write(p);
                    p.write_field_end().unwrap();
                }
                p.write_field_stop().unwrap();
                p.write_struct_end().unwrap();
            }
        }
    }

    /// The compact-protocol bytes of the value.
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut p = TCompactOutputProtocol::new(&mut out);
            self.write(&mut p);
            p.flush().unwrap();
        }
        out
    }
}

fn s(text: &str) -> T {
    T::Str(text.to_string())
}

/// A one-column Parquet file of text values (required, plain encoding,
/// one row group, one data page), with the lies a test sets.
pub struct Parquet {
    pub values: Vec<String>,
    /// Compress the page with gzip (codec 2) rather than store it.
    pub gzip: bool,
    /// The page header's `uncompressed_page_size`, if not the true one.
    pub claim_uncompressed: Option<i32>,
    /// The column chunk's `total_compressed_size`, if not the true one.
    pub claim_chunk: Option<i64>,
    /// Groups around the column: the schema's depth is this + 2.
    pub nesting: usize,
    /// Columns (copies of the one column, each its own chunk).
    pub columns: usize,
}

impl Parquet {
    pub fn new(values: &[&str]) -> Parquet {
        Parquet {
            values: values.iter().map(|v| v.to_string()).collect(),
            gzip: false,
            claim_uncompressed: None,
            claim_chunk: None,
            nesting: 0,
            columns: 1,
        }
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut plain = Vec::new();
        for v in &self.values {
            plain.extend((v.len() as u32).to_le_bytes());
            plain.extend(v.as_bytes());
        }
        let stored = if self.gzip {
            let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            z.write_all(&plain).unwrap();
            z.finish().unwrap()
        } else {
            plain.clone()
        };
        let n = self.values.len() as i32;
        let header = T::Struct(vec![
            (1, T::I32(0)), // DATA_PAGE
            (
                2,
                T::I32(self.claim_uncompressed.unwrap_or(plain.len() as i32)),
            ),
            (3, T::I32(stored.len() as i32)),
            (
                5,
                T::Struct(vec![
                    (1, T::I32(n)),
                    (2, T::I32(0)), // PLAIN
                    (3, T::I32(3)), // RLE
                    (4, T::I32(3)),
                ]),
            ),
        ])
        .bytes();
        let mut file = b"PAR1".to_vec();
        let mut chunks = Vec::new();
        for c in 0..self.columns {
            let offset = file.len() as i64;
            file.extend(&header);
            file.extend(&stored);
            let size = (header.len() + stored.len()) as i64;
            let path = T::List(
                TType::String,
                (0..self.nesting)
                    .map(|_| s("g"))
                    .chain([s(&format!("c{c}"))])
                    .collect(),
            );
            chunks.push(T::Struct(vec![
                (2, T::I64(offset + size)),
                (
                    3,
                    T::Struct(vec![
                        (1, T::I32(6)), // BYTE_ARRAY
                        (2, T::List(TType::I32, vec![T::I32(0), T::I32(3)])),
                        (3, path),
                        (4, T::I32(if self.gzip { 2 } else { 0 })),
                        (5, T::I64(n.into())),
                        (6, T::I64((header.len() + plain.len()) as i64)),
                        (7, T::I64(self.claim_chunk.unwrap_or(size))),
                        (9, T::I64(offset)),
                    ]),
                ),
            ]));
        }
        let mut schema = vec![T::Struct(vec![
            (4, s("schema")),
            (
                5,
                T::I32(if self.nesting > 0 {
                    1
                } else {
                    self.columns as i32
                }),
            ),
        ])];
        for level in 0..self.nesting {
            let children = if level + 1 == self.nesting {
                self.columns
            } else {
                1
            };
            schema.push(T::Struct(vec![
                (3, T::I32(0)), // REQUIRED
                (4, s("g")),
                (5, T::I32(children as i32)),
            ]));
        }
        for c in 0..self.columns {
            schema.push(T::Struct(vec![
                (1, T::I32(6)),
                (3, T::I32(0)),
                (4, s(&format!("c{c}"))),
                (6, T::I32(0)), // UTF8
            ]));
        }
        let footer = T::Struct(vec![
            (1, T::I32(1)),
            (2, T::List(TType::Struct, schema)),
            (3, T::I64(n.into())),
            (
                4,
                T::List(
                    TType::Struct,
                    vec![T::Struct(vec![
                        (1, T::List(TType::Struct, chunks)),
                        (2, T::I64(plain.len() as i64 * self.columns as i64)),
                        (3, T::I64(n.into())),
                    ])],
                ),
            ),
        ])
        .bytes();
        file.extend(&footer);
        file.extend((footer.len() as u32).to_le_bytes());
        file.extend(b"PAR1");
        file
    }
}

/// `batch` written as Arrow IPC: the stream format (`.arrows`) or the
/// file format (`ARROW1`), for tests that then edit its metadata.
pub fn arrow_ipc(batch: &arrow_array::RecordBatch, stream: bool) -> Vec<u8> {
    let schema = batch.schema();
    let mut out = Vec::new();
    if stream {
        let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut out, &schema).unwrap();
        w.write(batch).unwrap();
        w.finish().unwrap();
    } else {
        let mut w = arrow_ipc::writer::FileWriter::try_new(&mut out, &schema).unwrap();
        w.write(batch).unwrap();
        w.finish().unwrap();
    }
    out
}

/// An Arrow IPC stream (`.arrows`) of a dictionary-encoded text column
/// `sex` and a number column `age`, in two record batches whose `sex`
/// dictionaries differ: the second batch's dictionary replaces the
/// first's under the same id, which the stream format allows (issue 36,
/// item 5: the in-memory reader read it, the cluster refused it). Written
/// by arrow's own stream writer, which sends a changed dictionary again
/// in full (a replacement, not a delta).
#[allow(dead_code)] // tests/fuzz.rs includes this file and does not use it
pub fn arrow_replaced_dictionaries() -> Vec<u8> {
    use arrow_array::types::Int32Type;
    use arrow_array::{ArrayRef, DictionaryArray, Int64Array, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    let schema = Arc::new(Schema::new(vec![
        Field::new(
            "sex",
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            true,
        ),
        Field::new("age", DataType::Int64, true),
    ]));
    let batch = |sex: Vec<&str>, age: Vec<i64>| {
        let sex: DictionaryArray<Int32Type> = sex.into_iter().collect();
        RecordBatch::try_new(
            Arc::clone(&schema),
            vec![
                Arc::new(sex) as ArrayRef,
                Arc::new(Int64Array::from(age)) as ArrayRef,
            ],
        )
        .unwrap()
    };
    let mut out = Vec::new();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut out, &schema).unwrap();
    // Dictionary [F, M], then [X, F]: key 0 is F in one batch, X in the next.
    w.write(&batch(vec!["F", "M", "F", "M"], vec![30, 30, 40, 40]))
        .unwrap();
    w.write(&batch(vec!["X", "F", "X", "X"], vec![30, 30, 40, 40]))
        .unwrap();
    w.finish().unwrap();
    drop(w);
    out
}
