//! The query engine's frequency table gives the figures of the in-memory
//! path: `assess --engine datafusion` and `assess --engine memory` print
//! the same JSON on the demo (CSV and Parquet, a semi-sensitive attribute
//! with a flag column), on UCI Adult (8 QIs, the population models, SUDA
//! and the attribute risks) and on 1,000,000 synthetic rows in Parquet;
//! the table's counts add up to the rows and the reading rules merge what
//! they make equal.
#![cfg(feature = "engine")]

use std::path::Path;

use anonlab::data::{load_csv, CsvOptions};
use anonlab_scale::engine::{frequency_table, EngineOptions};

use crate::common;
use common::cli::{anonlab, json_of, same_json};

fn assess(file: &Path, engine: &str, args: &[&str]) -> serde_json::Value {
    json_of(
        &anonlab()
            .arg("assess")
            .arg(file)
            .args(["--engine", engine, "--json"])
            .args(args)
            .output()
            .unwrap(),
    )
}

#[track_caller]
fn same_figures(file: &Path, args: &[&str]) -> serde_json::Value {
    let memory = assess(file, "memory", args);
    let engine = assess(file, "datafusion", args);
    if let Err(e) = same_json(&memory, &engine, "") {
        panic!("{}: the engine's figures differ: {e}", file.display());
    }
    memory
}

#[test]
fn the_demo_gives_the_same_figures_through_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let pq = dir.path().join("demo.parquet");
    anonlab()
        .args(["synth", "--demo", "-o"])
        .arg(&pq)
        .assert()
        .success();
    let args = [
        "--qi",
        "sex,age,zip",
        "--semi-sensitive",
        "occupation",
        "--sensitive-flag",
        "occupation:hide_occupation",
        "--sensitive",
        "disease",
        "--identifier",
        "name",
    ];
    for f in [Path::new("assets/demo.csv"), &pq] {
        let v = same_figures(f, &args);
        assert_eq!(v["rows"], 1500, "{v}");
        assert!(v["hidden_cells"].as_u64().unwrap() > 0, "{v}");
    }
    // A rule instead of the flag column, and the attacker's order.
    same_figures(
        Path::new("assets/demo.csv"),
        &[
            "--qi",
            "sex,age,zip",
            "--semi-sensitive",
            "occupation",
            "--sensitive-when",
            "occupation in {Prof-specialty,Sales}",
            "--attacker-knows",
            "zip,sex,occupation",
        ],
    );
}

#[test]
fn adult_gives_the_same_figures_through_the_engine() {
    if !common::have_adult() {
        return;
    }
    let adult = common::adult_path();
    let v = same_figures(
        &adult,
        &[
            "--qi",
            &common::ADULT_QI8.join(","),
            "--sensitive",
            "salary-class",
            "--sampling-fraction",
            "0.01",
            "--suda",
            "3",
            "--attribute-risks",
        ],
    );
    assert_eq!(v["rows"], 30_162);
}

#[test]
fn a_million_synthetic_rows_in_parquet_give_the_same_figures() {
    let dir = tempfile::tempdir().unwrap();
    let pq = dir.path().join("census-1m.parquet");
    anonlab()
        .args(["synth", "--rows", "1000000", "--seed", "3", "-o"])
        .arg(&pq)
        .assert()
        .success();
    let v = same_figures(
        &pq,
        &[
            "--qi",
            "sex,age,race,marital-status,education,native-country,workclass,zip",
            "--sensitive",
            "salary-class,occupation",
        ],
    );
    assert_eq!(v["rows"], 1_000_000);
}

#[test]
fn the_table_counts_every_record_and_merges_what_reading_makes_equal() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t.csv");
    // ` Male` and `Male`, `39` and `039` are one value once read; `NA` and
    // the empty field are missing.
    std::fs::write(
        &f,
        "sex,age,zip\nMale,39,1\n Male,039,2\nFemale,NA,3\nFemale,,4\nMale,39,5\n",
    )
    .unwrap();
    let opts = CsvOptions::default();
    let cols = ["age".to_string(), "sex".to_string()];
    let t = frequency_table(&f, &opts, &cols, &EngineOptions::default()).unwrap();
    assert_eq!(t.rows(), 5);
    assert_eq!(t.len(), 2, "{t:?}");
    assert_eq!(t.file_columns(), ["sex", "age", "zip"]);
    // The file's order, whatever order asked.
    let names: Vec<&str> = t.columns().iter().map(|c| c.name()).collect();
    assert_eq!(names, ["sex", "age"]);
    let ds = t.to_records().unwrap();
    let mem = load_csv(&f, &opts).unwrap();
    let grouped = t.to_dataset().unwrap();
    assert_eq!(grouped.records(), 5);
    assert_eq!(grouped.n_rows(), 2);
    for name in names {
        let (a, b) = (ds.column(name).unwrap(), mem.column(name).unwrap());
        assert_eq!(a.dictionary(), b.dictionary(), "{name}");
        assert_eq!(a.kind(), b.kind(), "{name}");
        assert_eq!(a.frequencies(), b.frequencies(), "{name}");
    }
    // An unknown column is named as on the in-memory path.
    let e = frequency_table(&f, &opts, &["height".into()], &EngineOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown column 'height'"), "{e}");
}

#[test]
fn what_the_engine_cannot_do_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("demo.csv.gz");
    anonlab()
        .args(["synth", "--demo", "-o"])
        .arg(&gz)
        .assert()
        .success();
    let out = anonlab()
        .args(["assess", "--engine", "datafusion", "--qi", "sex"])
        .arg(&gz)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains("demo.csv.gz") && e.contains("not csv.gz"), "{e}");
    let out = anonlab()
        .args([
            "assess",
            "assets/demo.csv",
            "--engine",
            "datafusion",
            "--qi",
            "sex",
            "--semi-sensitive",
            "occupation",
            "--sensitive-density",
            "0.2",
        ])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && e.contains("--engine memory"),
        "{e}"
    );
}

/// Random CSV files of the cells that split the two readers before (issue
/// 36, item 5: empty fields, white space, `?` and `NA` with and without
/// being missing tokens, quoted fields, quotes inside unquoted fields and
/// numbers written several ways),
/// read with random missing-value tokens: `assess --json` and the
/// published table (`anonymize -o`) are byte-identical in memory and
/// through the engine.
#[test]
fn random_csv_cells_read_the_same_in_memory_and_through_the_engine() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    // `x"y` and `"a"b`: quotes that open no quoted field, characters on
    // both paths.
    const CELLS: [&str; 18] = [
        "", " ", "  ", "?", "NA", " ?", "M", " M", "F ", "\"M\"", "\"a,b\"", "\"\"", "39", "039",
        "39.0", " 40", "x\"y", "\"a\"b",
    ];
    let table = (
        prop::collection::vec((0..CELLS.len(), 0..CELLS.len(), 0..5u8), 30..120),
        prop::sample::select(vec!["", "NA", "?", ",NA", "?,NA"]),
    );
    let dir = tempfile::tempdir().unwrap();
    let mut runner = TestRunner::new(Config {
        cases: 12,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&table, |(rows, missing)| {
            let mut text = String::from("a,b,c\n");
            for (a, b, c) in &rows {
                text.push_str(&format!("{},{},z{c}\n", CELLS[*a], CELLS[*b]));
            }
            let f = dir.path().join("cells.csv");
            std::fs::write(&f, &text).unwrap();
            let mut args = vec!["--qi", "a,b", "--sensitive", "c"];
            if !missing.is_empty() {
                args.extend(["--missing", missing]);
            }
            same_figures(&f, &args);
            let mut published = Vec::new();
            for engine in ["memory", "datafusion"] {
                let out = dir.path().join(format!("out-{engine}.csv"));
                let _ = std::fs::remove_file(&out);
                let run = anonlab()
                    .arg("anonymize")
                    .arg(&f)
                    .args(&args)
                    .args(["--engine", engine, "-a", "mondrian", "-k", "2", "-o"])
                    .arg(&out)
                    .output()
                    .unwrap();
                prop_assert!(
                    run.status.success(),
                    "{engine}: {}",
                    String::from_utf8_lossy(&run.stderr)
                );
                published.push(std::fs::read(&out).unwrap());
            }
            prop_assert!(
                published[0] == published[1],
                "the published tables differ for\n{text}--missing {missing:?}"
            );
            Ok(())
        })
        .unwrap();
}

/// The same over Parquet and Arrow IPC files (issue 36, item 5): random
/// small tables of text cells (nulls, empty and padded strings, `?` and
/// `NA`, numbers written several ways) and a nullable integer column,
/// each written as Parquet and as an Arrow IPC file and read with random
/// missing-value tokens: `assess --json` and the published table
/// (`anonymize -o`) are byte-identical in memory and through the engine,
/// or both refuse with the same message.
#[test]
fn random_parquet_and_arrow_tables_read_the_same_in_memory_and_through_the_engine() {
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    use std::sync::Arc;
    const CELLS: [Option<&str>; 16] = [
        None,
        Some(""),
        Some(" "),
        Some("?"),
        Some("NA"),
        Some(" ?"),
        Some("M"),
        Some(" M"),
        Some("F "),
        Some("a,b"),
        Some("\"q\""),
        Some("39"),
        Some("039"),
        Some("39.0"),
        Some(" 40"),
        Some("4e1"),
    ];
    let table = (
        prop::collection::vec(
            (
                0..CELLS.len(),
                0..CELLS.len(),
                prop::option::of(-3..4i64),
                0..5u8,
            ),
            20..80,
        ),
        prop::sample::select(vec!["", "NA", "?", ",NA", "?,NA"]),
    );
    let dir = tempfile::tempdir().unwrap();
    let mut runner = TestRunner::new(Config {
        cases: 12,
        failure_persistence: None,
        ..Config::default()
    });
    // Runs that published a table on both paths: the test compares
    // releases, not only refusals.
    let published = std::sync::atomic::AtomicUsize::new(0);
    runner
        .run(&table, |(rows, missing)| {
            let text = |i: usize| -> ArrayRef {
                Arc::new(
                    rows.iter()
                        .map(|r| CELLS[if i == 0 { r.0 } else { r.1 }])
                        .collect::<StringArray>(),
                )
            };
            let batch = RecordBatch::try_from_iter([
                ("a", text(0)),
                ("b", text(1)),
                (
                    "n",
                    Arc::new(rows.iter().map(|r| r.2).collect::<Int64Array>()) as ArrayRef,
                ),
                (
                    "c",
                    Arc::new(
                        rows.iter()
                            .map(|r| Some(format!("z{}", r.3)))
                            .collect::<StringArray>(),
                    ) as ArrayRef,
                ),
            ])
            .unwrap();
            let pq = dir.path().join("cells.parquet");
            let mut w = parquet::arrow::ArrowWriter::try_new(
                std::fs::File::create(&pq).unwrap(),
                batch.schema(),
                None,
            )
            .unwrap();
            w.write(&batch).unwrap();
            w.close().unwrap();
            let arrow = dir.path().join("cells.arrow");
            std::fs::write(&arrow, common::craft::arrow_ipc(&batch, false)).unwrap();
            let mut args = vec!["--qi", "a,b,n", "--sensitive", "c"];
            if !missing.is_empty() {
                args.extend(["--missing", missing]);
            }
            for f in [&pq, &arrow] {
                let mut outcomes = Vec::new();
                for engine in ["memory", "datafusion"] {
                    let out = dir.path().join(format!("out-{engine}.csv"));
                    let _ = std::fs::remove_file(&out);
                    let assessed = anonlab()
                        .arg("assess")
                        .arg(f)
                        .args(&args)
                        .args(["--engine", engine, "--json"])
                        .output()
                        .unwrap();
                    let run = anonlab()
                        .arg("anonymize")
                        .arg(f)
                        .args(&args)
                        .args(["--engine", engine, "-a", "mondrian", "-k", "2", "-o"])
                        .arg(&out)
                        .output()
                        .unwrap();
                    outcomes.push((assessed, run, std::fs::read(&out).ok()));
                }
                let ((a0, r0, p0), (a1, r1, p1)) = (&outcomes[0], &outcomes[1]);
                let case = format!("{} --missing {missing:?}: {rows:?}", f.display());
                prop_assert_eq!(
                    a0.status.code(),
                    a1.status.code(),
                    "{}: {}",
                    case,
                    String::from_utf8_lossy(&a1.stderr)
                );
                prop_assert_eq!(&a0.stderr, &a1.stderr, "{}", case);
                if a0.status.success() {
                    let (m, e) = (json_of(a0), json_of(a1));
                    if let Err(d) = same_json(&m, &e, "") {
                        return Err(TestCaseError::fail(format!(
                            "{case}: the figures differ: {d}"
                        )));
                    }
                }
                prop_assert_eq!(
                    r0.status.code(),
                    r1.status.code(),
                    "{}: {}",
                    case,
                    String::from_utf8_lossy(&r1.stderr)
                );
                prop_assert_eq!(&r0.stderr, &r1.stderr, "{}", case);
                prop_assert!(p0 == p1, "the published tables differ for {}", case);
                if p0.is_some() {
                    published.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
            Ok(())
        })
        .unwrap();
    let published = published.into_inner();
    eprintln!("{published} of 24 tables published alike on both paths");
    assert!(published >= 12, "{published} of 24 published");
}
