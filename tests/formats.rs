//! The readers beside plain CSV give the same table, and so the same
//! figures: the demo and UCI Adult stored as CSV, gzip- and zstd-compressed
//! CSV, Parquet and Arrow IPC load into equal datasets, and `assess --json`
//! prints the same figures for each. Adult's Parquet and Arrow files are
//! written here, in a temporary directory, by the arrow and parquet crates
//! directly (typed integers, text, nulls), not by anonlab's own writer;
//! the demo's and the census table's by `anonlab synth --format`.
#![cfg(feature = "formats")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};

use anonlab::data::{load, load_csv, CsvOptions, Dataset};

use crate::common;
use common::cli::{anonlab, json_of};

/// `assess --json`'s figures: everything but the file's name.
fn figures(out: &std::process::Output) -> serde_json::Value {
    let mut v = json_of(out);
    let file = v.as_object_mut().unwrap().remove("file");
    assert!(file.is_some(), "{v}");
    v
}

fn gzip(from: &Path, to: &Path) {
    let mut e = flate2::write::GzEncoder::new(
        std::fs::File::create(to).unwrap(),
        flate2::Compression::fast(),
    );
    e.write_all(&std::fs::read(from).unwrap()).unwrap();
    e.finish().unwrap();
}

fn zstd_file(from: &Path, to: &Path) {
    let bytes = zstd::encode_all(&std::fs::read(from).unwrap()[..], 3).unwrap();
    std::fs::write(to, bytes).unwrap();
}

/// Adult's cells as the test reads them itself: `;`-separated, trimmed.
fn adult_cells() -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::ReaderBuilder::new()
        .delimiter(b';')
        .trim(csv::Trim::All)
        .from_path(common::adult_path())
        .unwrap();
    let names = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(str::to_string).collect())
        .collect();
    (names, rows)
}

/// One batch of Adult: `age` as Int64 when `typed`, every other column
/// text; `?` written as a null when `nulls`, else kept as the text `?`.
fn adult_batch(typed: bool, nulls: bool) -> RecordBatch {
    let (names, rows) = adult_cells();
    let mut fields = Vec::new();
    let mut arrays: Vec<ArrayRef> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if typed && name == "age" {
            let mut b = Int64Builder::new();
            for r in &rows {
                b.append_value(r[i].parse().unwrap());
            }
            fields.push(Field::new(name, DataType::Int64, false));
            arrays.push(Arc::new(b.finish()));
        } else {
            let mut b = StringBuilder::new();
            for r in &rows {
                if nulls && r[i] == "?" {
                    b.append_null();
                } else {
                    b.append_value(&r[i]);
                }
            }
            fields.push(Field::new(name, DataType::Utf8, true));
            arrays.push(Arc::new(b.finish()));
        }
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap()
}

fn write_parquet(batch: &RecordBatch, to: &Path) {
    let f = std::fs::File::create(to).unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
        .set_max_row_group_row_count(Some(7_000))
        .build();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), Some(props)).unwrap();
    // Several batches, so the reader crosses batch and row-group bounds.
    for start in (0..batch.num_rows()).step_by(10_000) {
        let len = 10_000.min(batch.num_rows() - start);
        w.write(&batch.slice(start, len)).unwrap();
    }
    w.close().unwrap();
}

fn write_arrow(batch: &RecordBatch, to: &Path) {
    let f = std::fs::File::create(to).unwrap();
    let mut w = arrow_ipc::writer::FileWriter::try_new(f, &batch.schema()).unwrap();
    w.write(batch).unwrap();
    w.finish().unwrap();
}

/// Every format of Adult, written into `dir`.
fn adult_files(dir: &Path) -> Vec<PathBuf> {
    let csv = common::adult_path();
    let gz = dir.join("adult.csv.gz");
    gzip(&csv, &gz);
    let zst = dir.join("adult.csv.zst");
    zstd_file(&csv, &zst);
    let pq_typed = dir.join("adult.parquet");
    write_parquet(&adult_batch(true, false), &pq_typed);
    let pq_nulls = dir.join("nulls/adult.parquet");
    std::fs::create_dir_all(pq_nulls.parent().unwrap()).unwrap();
    write_parquet(&adult_batch(false, true), &pq_nulls);
    let arrow = dir.join("adult.arrow");
    write_arrow(&adult_batch(true, true), &arrow);
    // A misnamed file is read by its first bytes.
    let misnamed = dir.join("adult.data");
    std::fs::copy(&pq_typed, &misnamed).unwrap();
    vec![csv, gz, zst, pq_typed, pq_nulls, arrow, misnamed]
}

fn assert_same(a: &Dataset, b: &Dataset, what: &Path) {
    assert_eq!(a.n_rows(), b.n_rows(), "{}", what.display());
    for (x, y) in a.columns().iter().zip(b.columns()) {
        assert_eq!(x, y, "{}: column {}", what.display(), x.name());
    }
    assert_eq!(a, b, "{}", what.display());
}

#[test]
fn adult_loads_the_same_from_every_format() {
    if !common::have_adult() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let files = adult_files(dir.path());
    let opts = CsvOptions::default();
    let reference = load_csv(&files[0], &opts).unwrap();
    assert_eq!(reference.n_rows(), 30_162);
    for f in &files[1..] {
        let ds = load(f, &opts).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_same(&reference, &ds, f);
    }
    // The overrides apply as on CSV: age forced categorical.
    let cat = CsvOptions {
        categorical: vec!["age".into()],
        ..CsvOptions::default()
    };
    let a = load_csv(&files[0], &cat).unwrap();
    let b = load(&files[3], &cat).unwrap();
    assert!(!b.column("age").unwrap().is_numeric());
    assert_same(&a, &b, &files[3]);
}

const ADULT_QIS: &str = "sex,age,race,marital-status,education,native-country,workclass,occupation";

#[test]
fn assess_prints_the_same_figures_for_every_format_of_adult() {
    if !common::have_adult() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let files = adult_files(dir.path());
    let run = |f: &Path| {
        figures(
            &anonlab()
                .arg("assess")
                .arg(f)
                .args(["--qi", ADULT_QIS, "--sensitive", "salary-class", "--json"])
                .output()
                .unwrap(),
        )
    };
    let reference = run(&files[0]);
    assert!(reference.to_string().contains("30162"), "{reference}");
    for f in &files[1..] {
        assert_eq!(run(f), reference, "{}", f.display());
    }
}

#[test]
fn the_demo_written_by_synth_in_every_format_gives_the_same_figures() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for name in ["demo.csv", "demo.csv.gz", "demo.csv.zst", "demo.parquet"] {
        let f = dir.path().join(name);
        anonlab()
            .args(["synth", "--demo", "-o"])
            .arg(&f)
            .assert()
            .success();
        files.push(f);
    }
    // --format wins over the extension.
    let forced = dir.path().join("demo-as-parquet.bin");
    anonlab()
        .args(["synth", "--demo", "--format", "parquet", "-o"])
        .arg(&forced)
        .assert()
        .success();
    assert_eq!(&std::fs::read(&forced).unwrap()[..4], b"PAR1");
    // The demo as embedded is the reference.
    assert_eq!(
        std::fs::read(&files[0]).unwrap(),
        std::fs::read("assets/demo.csv").unwrap()
    );
    let opts = CsvOptions::default();
    let reference = load_csv(&files[0], &opts).unwrap();
    for f in &files[1..] {
        assert_same(&reference, &load(f, &opts).unwrap(), f);
    }
    let run = |f: &Path, extra: &[&str]| {
        figures(
            &anonlab()
                .arg("assess")
                .arg(f)
                .args(["--qi", "sex,age,zip", "--sensitive", "disease", "--json"])
                .args(extra)
                .output()
                .unwrap(),
        )
    };
    let want = run(&files[0], &[]);
    for f in &files[1..] {
        assert_eq!(run(f, &[]), want, "{}", f.display());
    }
    assert_eq!(run(&forced, &["--format", "parquet"]), want);
}

#[test]
fn a_census_table_over_several_chunks_round_trips_through_parquet() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("census.csv");
    let pq = dir.path().join("census.parquet");
    for f in [&csv, &pq] {
        anonlab()
            .args(["synth", "--rows", "150000", "--seed", "7", "-o"])
            .arg(f)
            .assert()
            .success();
    }
    // The writer types plain integers as Int64.
    let meta = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&pq).unwrap(),
    )
    .unwrap();
    let schema = meta.schema();
    assert_eq!(
        schema.field_with_name("age").unwrap().data_type(),
        &DataType::Int64
    );
    assert_eq!(
        schema.field_with_name("sex").unwrap().data_type(),
        &DataType::Utf8
    );
    assert!(meta.metadata().num_row_groups() >= 1);
    let opts = CsvOptions::default();
    let a = load_csv(&csv, &opts).unwrap();
    assert_eq!(a.n_rows(), 150_000);
    assert_same(&a, &load(&pq, &opts).unwrap(), &pq);
}
