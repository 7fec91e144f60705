//! Hostile input on the readers beside plain CSV, run through the binary:
//! a corrupt Parquet footer, a column of a type with no single cell value,
//! a truncated gzip or zstd stream, a file that is not what its name says,
//! a stream that inflates past the file limit, bytes that are not UTF-8.
//! Each is a clean refusal as on the CSV path (exit code 2, one line naming
//! the file, and the row and column where known), never a panic, and the
//! input is left as it was.
#![cfg(feature = "formats")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};

use crate::common;
use common::cli::anonlab;

/// A clean refusal: exit code 2, one line naming every `needle`, no panic.
#[track_caller]
fn refused(out: &Output, needles: &[&str]) {
    let e = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "expected a refusal, got: {e}");
    assert!(e.starts_with("anonlab: error: "), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "one line: {e}");
    assert!(!e.contains("panicked"), "{e}");
    for n in needles {
        assert!(e.contains(n), "missing {n:?} in: {e}");
    }
}

/// `assess FILE --qi COLS`, checking that the file is unchanged.
fn assess(file: &Path, qi: &str, extra: &[&str]) -> Output {
    let before = std::fs::read(file).unwrap();
    let out = anonlab()
        .arg("assess")
        .arg(file)
        .args(["--qi", qi])
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(std::fs::read(file).unwrap(), before, "the input changed");
    out
}

fn synth_demo(dir: &Path, name: &str) -> PathBuf {
    let f = dir.join(name);
    anonlab()
        .args(["synth", "--demo", "-o"])
        .arg(&f)
        .assert()
        .success();
    f
}

fn write_parquet(batch: &RecordBatch, to: &Path) {
    let f = std::fs::File::create(to).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), None).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn a_corrupt_parquet_footer_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = synth_demo(dir.path(), "demo.parquet");
    let bytes = std::fs::read(&good).unwrap();
    // The footer's length (the 4 bytes before the closing PAR1) made huge.
    let mut long = bytes.clone();
    let n = long.len();
    long[n - 8..n - 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let f = dir.path().join("long-footer.parquet");
    std::fs::write(&f, &long).unwrap();
    refused(
        &assess(&f, "sex,age", &[]),
        &[&file_name(&f), "not a readable Parquet file"],
    );
    // The footer's metadata overwritten with garbage.
    let mut garbage = bytes.clone();
    let len = u32::from_le_bytes(garbage[n - 8..n - 4].try_into().unwrap()) as usize;
    for b in &mut garbage[n - 8 - len..n - 8] {
        *b = 0xA7;
    }
    let f = dir.path().join("garbage-footer.parquet");
    std::fs::write(&f, &garbage).unwrap();
    refused(
        &assess(&f, "sex,age", &[]),
        &[&file_name(&f), "not a readable Parquet file"],
    );
    // Cut in half: no footer at all.
    let f = dir.path().join("half.parquet");
    std::fs::write(&f, &bytes[..n / 2]).unwrap();
    refused(
        &assess(&f, "sex,age", &[]),
        &[&file_name(&f), "not a readable Parquet file"],
    );
    // A CSV file named .parquet.
    let f = dir.path().join("text.parquet");
    std::fs::write(&f, "sex,age\nF,30\n").unwrap();
    refused(
        &assess(&f, "sex,age", &[]),
        &[&file_name(&f), "not a readable Parquet file"],
    );
}

#[test]
fn a_column_of_an_unsupported_type_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut ages = Int64Builder::new();
    let mut visits = ListBuilder::new(Int64Builder::new());
    for i in 0..5 {
        ages.append_value(30 + i);
        visits.values().append_value(i);
        visits.append(true);
    }
    let schema = Schema::new(vec![
        Field::new("age", DataType::Int64, false),
        Field::new(
            "visits",
            DataType::List(Arc::new(Field::new("item", DataType::Int64, true))),
            true,
        ),
    ]);
    let arrays: Vec<ArrayRef> = vec![Arc::new(ages.finish()), Arc::new(visits.finish())];
    let batch = RecordBatch::try_new(Arc::new(schema), arrays).unwrap();
    let f = dir.path().join("nested.parquet");
    write_parquet(&batch, &f);
    refused(
        &assess(&f, "age", &[]),
        &[
            &file_name(&f),
            "column 'visits'",
            "List",
            "no single value per cell",
        ],
    );
}

#[test]
fn bad_cells_name_the_row_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = StringBuilder::new();
    let mut raw = BinaryBuilder::new();
    for (i, cell) in [&b"ok"[..], b"fine", b"\xff\xfe", b"ok"].iter().enumerate() {
        names.append_value(format!("p{i}"));
        raw.append_value(cell);
    }
    let schema = Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("notes", DataType::Binary, false),
    ]);
    let arrays: Vec<ArrayRef> = vec![Arc::new(names.finish()), Arc::new(raw.finish())];
    let batch = RecordBatch::try_new(Arc::new(schema), arrays.clone()).unwrap();
    let f = dir.path().join("bytes.parquet");
    write_parquet(&batch, &f);
    refused(
        &assess(&f, "notes", &[]),
        &[&file_name(&f), "row 3", "column 'notes'", "not valid UTF-8"],
    );
    // The field limit applies as on CSV, with the flag that raises it.
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("notes", DataType::Utf8, false),
        ])),
        vec![
            arrays[0].clone(),
            Arc::new(arrow_array::StringArray::from(vec![
                "a",
                "b",
                "c",
                "a long note",
            ])),
        ],
    )
    .unwrap();
    let f = dir.path().join("long.parquet");
    write_parquet(&batch, &f);
    refused(
        &assess(&f, "notes", &["--max-field-bytes", "5"]),
        &[
            &file_name(&f),
            "row 4",
            "column 'notes'",
            "--max-field-bytes",
        ],
    );
    // Two columns of one name.
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("id", DataType::Binary, false),
        ])),
        arrays,
    )
    .unwrap();
    let f = dir.path().join("twice.parquet");
    write_parquet(&batch, &f);
    refused(
        &assess(&f, "id", &[]),
        &[&file_name(&f), "duplicated header name"],
    );
}

#[test]
fn a_truncated_or_corrupt_compressed_stream_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    for (name, codec) in [("census.csv.gz", "gzip"), ("census.csv.zst", "zstd")] {
        let good = dir.path().join(name);
        anonlab()
            .args(["synth", "--rows", "20000", "-o"])
            .arg(&good)
            .assert()
            .success();
        let bytes = std::fs::read(&good).unwrap();
        // Cut past the first 64 KiB of text: the message names the row
        // being read when the stream ended.
        let cut = dir.path().join(format!("cut-{name}"));
        std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
        refused(
            &assess(&cut, "sex,age,zip", &[]),
            &[
                &file_name(&cut),
                &format!("the {codec} stream is truncated"),
                ", row ",
                "bytes of text",
            ],
        );
        // Cut inside the first 64 KiB: no row read yet.
        let head = synth_demo(dir.path(), &format!("demo-{name}"));
        let bytes = std::fs::read(&head).unwrap();
        let cut = dir.path().join(format!("cut-demo-{name}"));
        std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
        refused(
            &assess(&cut, "sex,age,zip", &[]),
            &[
                &file_name(&cut),
                &format!("the {codec} stream is truncated"),
            ],
        );
        // Not compressed at all, though named so.
        let plain = dir.path().join(format!("plain-{name}"));
        std::fs::write(&plain, "sex,age\nF,30\nM,40\n").unwrap();
        refused(
            &assess(&plain, "sex,age", &[]),
            &[
                &file_name(&plain),
                &format!("the {codec} stream is corrupt or is not compressed data"),
            ],
        );
    }
}

#[test]
fn a_stream_that_inflates_past_the_file_limit_is_stopped_there() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bomb.csv.gz");
    let mut e = flate2::write::GzEncoder::new(
        std::fs::File::create(&f).unwrap(),
        flate2::Compression::best(),
    );
    e.write_all(b"sex,age\n").unwrap();
    // Rows of 10 bytes for 2 cells of 4 bytes each: the text reaches the
    // limit before the codes do (`hostile_structure` has short rows).
    for _ in 0..200_000 {
        e.write_all(b"Female,30\n").unwrap();
    }
    e.finish().unwrap();
    assert!(std::fs::metadata(&f).unwrap().len() < 20_000);
    refused(
        &assess(&f, "sex,age", &["--max-file-bytes", "100000"]),
        &[
            &file_name(&f),
            "decompresses to more than the limit of 100,000 bytes",
            "--max-file-bytes",
        ],
    );
    // Under a limit it clears, it reads.
    let out = assess(&f, "sex,age", &["--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_truncated_arrow_file_and_an_empty_parquet_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut ages = Int64Builder::new();
    for i in 0..1000 {
        ages.append_value(i % 90);
    }
    let schema = Arc::new(Schema::new(vec![Field::new("age", DataType::Int64, false)]));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(ages.finish())]).unwrap();
    let mut bytes = Vec::new();
    {
        let mut w = arrow_ipc::writer::FileWriter::try_new(&mut bytes, &schema).unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
    }
    let f = dir.path().join("cut.arrow");
    std::fs::write(&f, &bytes[..bytes.len() - 40]).unwrap();
    refused(
        &assess(&f, "age", &[]),
        &[&file_name(&f), "not a readable Arrow IPC file"],
    );
    let f = dir.path().join("empty.parquet");
    write_parquet(&batch.slice(0, 0), &f);
    refused(
        &assess(&f, "age", &[]),
        &[&file_name(&f), "the file has no rows"],
    );
    // An unknown --format is refused by the parser, naming the choices.
    let out = anonlab()
        .args(["assess", "x.csv", "--qi", "a", "--format", "xlsx"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && e.contains("unknown format 'xlsx'") && e.contains("parquet"),
        "{e}"
    );
}

/// Arrow IPC files with one byte of their body changed at a time (buffer
/// lengths, offsets, row counts, validity, the dictionary of a string
/// column): each is read or refused in one line, and no panic is printed
/// on the way (issue 36, item 4: the readers' guarded panics once printed
/// a backtrace before the refusal), on the in-memory path and through the
/// query engine.
#[test]
fn arrow_files_with_a_changed_byte_never_print_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = StringBuilder::new();
    let mut ages = Int64Builder::new();
    for i in 0..40 {
        names.append_value(["ann", "bob", "cy", "dee"][i % 4]);
        ages.append_value((i % 9) as i64);
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("name", DataType::Utf8, true),
        Field::new("age", DataType::Int64, false),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(names.finish()), Arc::new(ages.finish())],
    )
    .unwrap();
    let mut bytes = Vec::new();
    {
        let mut w = arrow_ipc::writer::FileWriter::try_new(&mut bytes, &schema).unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
    }
    let f = dir.path().join("changed.arrow");
    let mut runs = 0;
    // Past the magic and before the footer's length, every 3rd byte set
    // to 0xff, then to 0x7f.
    for at in (8..bytes.len() - 10).step_by(3) {
        for value in [0xffu8, 0x7f] {
            let mut b = bytes.clone();
            b[at] = value;
            std::fs::write(&f, &b).unwrap();
            for extra in [&[][..], &["--engine", "datafusion"][..]] {
                if !extra.is_empty() && !cfg!(feature = "engine") {
                    continue;
                }
                let out = assess(&f, "name,age", extra);
                runs += 1;
                let e = String::from_utf8_lossy(&out.stderr).into_owned();
                assert!(
                    !e.contains("panicked") && !e.contains("backtrace"),
                    "byte {at} = {value:#x} {extra:?}: {e}"
                );
                if !out.status.success() {
                    refused(&out, &[&file_name(&f)]);
                }
            }
        }
    }
    assert!(runs > 100, "{runs} runs");
}
