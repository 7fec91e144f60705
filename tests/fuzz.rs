//! Fuzzing that stays: generators of hostile input for every
//! reader of untrusted input — the CSV reader, the rule parser, the hierarchy
//! reader, project and conditions JSON — and for the published-table
//! writer, run as ordinary property tests on the stable toolchain. Each
//! property says what must hold of *any* input: no panic, an error that is
//! one readable message (control characters escaped, bounded length, the
//! file named), and, when the input is accepted, a result that does not
//! lie (published labels contain their values, the independent verifier
//! agrees, written tables read back to what was published).
//!
//! The generators mutate the seed corpus in `tests/hostile/` (one file per
//! family of the hostile-input catalogue, `tests/hostile.rs`) and build
//! inputs from the tokens that broke anonlab before (nested parentheses,
//! `NaN`, `1e400`, `-0`, `039`, CR line ends, ANSI escapes, bad UTF-8,
//! labels that are other leaves' values, ...).
//!
//! Cases per property: `ANONLAB_FUZZ_CASES` (default 64, so `cargo test`
//! stays quick); `.ci/run` runs this file again with more cases and
//! `--nocapture`, and every property prints its number of executions.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use anonlab::algorithms::construction::construct;
use anonlab::algorithms::{by_id, Request};
use anonlab::data::number::{Decimal, NumericLabel};
use anonlab::data::Conditions;
use anonlab::data::{load_csv_bytes, CsvOptions, Dataset, Inputs, Project, Rule};
use anonlab::hierarchy::arx;
use anonlab::privacy::verify;
use anonlab::progress::Progress;
use anonlab::release::{published_headers, write_csv};
use anonlab::session::Session;
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};

#[path = "common/craft.rs"]
mod craft;

fn cases() -> u32 {
    std::env::var("ANONLAB_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

/// Run `test` on `cases()` inputs of `strategy` and print how many ran
/// (the count `.ci/run` shows); a failure is shrunk and reported as
/// proptest does.
fn fuzz<S: Strategy>(name: &str, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let mut runner = TestRunner::new(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let executions = AtomicU64::new(0);
    let result = runner.run(&strategy, |v| {
        executions.fetch_add(1, Ordering::Relaxed);
        test(v)
    });
    let n = executions.load(Ordering::Relaxed);
    println!("fuzz {name}: {n} executions");
    if let Err(e) = result {
        panic!("fuzz {name}: {e}");
    }
    assert!(n >= u64::from(cases()), "fuzz {name}: only {n} executions");
}

/// The seed corpus: every file of `tests/hostile/`.
fn corpus() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let seeds: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(seeds.len() >= 8, "the seed corpus is in tests/hostile/");
    seeds
}

fn corpus_with(ext: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    files.sort();
    files.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// Tokens that broke anonlab before, and their neighbours.
const TOKENS: &[&str] = &[
    ",",
    ";",
    "\"",
    "'",
    "\n",
    "\r\n",
    "\r",
    "\t",
    " ",
    "\0",
    "\u{1b}[31m",
    "\u{feff}",
    "\u{85}",
    "-0",
    "0",
    "0.0",
    "00",
    "39",
    "39.0",
    "039",
    "3.9e1",
    "1e20",
    "1e149",
    "9e149",
    "1e150",
    "1e308",
    "-1e308",
    "1e400",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "0x1F",
    "1,000",
    "18446744073709551615",
    "9223372036854775808",
    "-9223372036854775809",
    ".5",
    "5.",
    "+7",
    "1e-150",
    "1e-151",
    "?",
    "NA",
    "*",
    "[0-4]",
    "[1-2)",
    "<150",
    ">=90",
    "F",
    "M",
    "Female",
    "Male",
    "a",
    "b",
    "age",
    "sex",
    "x",
    "Zürich",
    "(",
    ")",
    "{",
    "}",
    "=",
    "!=",
    ">=",
    "<",
    "and",
    "or",
    "not",
    "in",
];

fn token_text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..max).prop_map(|t| t.concat())
}

/// Bytes of one of the corpus files, mutated: bytes flipped, tokens
/// inserted, runs deleted, the end cut.
fn mutated(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let edit = prop_oneof![
        (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| (0u8, i, vec![b])),
        (any::<prop::sample::Index>(), prop::sample::select(TOKENS)).prop_map(|(i, t)| (
            1u8,
            i,
            t.as_bytes().to_vec()
        )),
        (any::<prop::sample::Index>(), 1usize..40).prop_map(|(i, n)| (2u8, i, vec![n as u8])),
        any::<prop::sample::Index>().prop_map(|i| (3u8, i, vec![])),
    ];
    (
        prop::sample::select(seeds),
        prop::collection::vec(edit, 0..8),
    )
        .prop_map(|(mut bytes, edits)| {
            for (kind, at, data) in edits {
                let i = if bytes.is_empty() {
                    0
                } else {
                    at.index(bytes.len())
                };
                match kind {
                    0 if !bytes.is_empty() => bytes[i] = data[0],
                    1 => {
                        bytes.splice(i..i, data);
                    }
                    2 => {
                        let end = (i + data[0] as usize).min(bytes.len());
                        bytes.drain(i..end);
                    }
                    3 => bytes.truncate(i),
                    _ => {}
                }
            }
            bytes
        })
}

/// Hostile bytes: mutated corpus files, token soup, or noise.
fn hostile_bytes(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => mutated(seeds),
        3 => token_text(200).prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..600),
    ]
}

/// What every refusal must be: one message, its quoted text escaped
/// (no raw control character but the line breaks a list may hold), of
/// bounded length. (`NaN` may appear: quoted from the input.)
#[track_caller]
fn readable(message: &str) {
    assert!(
        !message.chars().any(|c| c.is_control() && c != '\n'),
        "raw control character in: {message:?}"
    );
    assert!(
        message.len() < 4000,
        "{} bytes: {message:.300}",
        message.len()
    );
}

/// Small limits, so that the fuzzer meets them.
fn small_limits() -> CsvOptions {
    CsvOptions {
        max_field_bytes: 64,
        max_row_bytes: 512,
        max_columns: 12,
        max_file_bytes: 8192,
        ..CsvOptions::default()
    }
}

/// A small table every rule, hierarchy and condition below is tried on.
fn table() -> Dataset {
    let text = "sex,age,zip,disease\n\
                F,-0,47601,flu\nM,0,47602,hiv\nF,039,47601,cold\nM,3.9e1,47603,flu\n\
                F,70,47601,cancer\nM,70.0,47602,flu\nF,1e20,47603,hiv\nM,100000000000000000001,47601,cold\n\
                F,,47602,flu\nM,2.5,47603,cancer\n";
    load_csv_bytes(text.as_bytes(), "table.csv", &CsvOptions::default()).unwrap()
}

fn check_csv(bytes: &[u8], opts: &CsvOptions) {
    match load_csv_bytes(bytes, "fuzz.csv", opts) {
        Ok(ds) => {
            assert!(ds.n_cols() <= opts.max_columns);
            for c in 0..ds.n_cols() {
                let col = ds.col(c);
                assert!(col.name().len() <= opts.max_field_bytes);
                if col.is_numeric() {
                    // One numeric reading: every value of a numeric column
                    // is a number, in its canonical text, once.
                    let mut seen = std::collections::HashSet::new();
                    for code in 0..col.cardinality() as u32 {
                        if col.is_missing(code) {
                            continue;
                        }
                        let text = col.display(code);
                        let d = Decimal::parse(text)
                            .unwrap_or_else(|| panic!("'{text}' in numeric '{}'", col.name()));
                        assert_eq!(d.to_string(), text, "not canonical");
                        assert!(seen.insert(text.to_string()), "'{text}' twice");
                    }
                }
            }
        }
        Err(e) => {
            let m = e.to_string();
            readable(&m);
            assert!(m.contains("fuzz.csv"), "the file is named: {m}");
        }
    }
}

#[test]
fn csv_reader_accepts_or_refuses_cleanly() {
    fuzz("CSV reader", hostile_bytes(corpus_with(".csv")), |bytes| {
        check_csv(&bytes, &small_limits());
        check_csv(&bytes, &CsvOptions::default());
        Ok(())
    });
}

/// The check the query engine and the cluster's client run before
/// DataFusion reads a CSV file (`csv_import::check_csv`, issue 36, item
/// 5) refuses what the loader refuses, with the same message, and
/// accepts what it accepts, on any text and with small limits.
#[test]
fn the_engines_csv_check_refuses_what_the_loader_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fuzz.csv");
    fuzz(
        "CSV check before the engine",
        hostile_bytes(corpus_with(".csv")),
        |bytes| {
            std::fs::write(&file, &bytes).unwrap();
            for opts in [small_limits(), CsvOptions::default()] {
                let loaded = anonlab::data::load_csv(&file, &opts).map(|_| ());
                let checked = anonlab::data::csv_import::check_csv(&file, &opts);
                prop_assert_eq!(
                    loaded.map_err(|e| e.to_string()),
                    checked.map_err(|e| e.to_string())
                );
            }
            Ok(())
        },
    );
}

#[test]
fn rules_parse_or_refuse_and_never_overflow() {
    let rules = prop_oneof![
        3 => token_text(60),
        1 => (1usize..3000, token_text(10))
            .prop_map(|(n, t)| format!("{}age>={t}{}", "(".repeat(n), ")".repeat(n))),
        1 => (1usize..2000).prop_map(|n| format!("{}sex=F", "not ".repeat(n))),
        2 => (
            prop::sample::select(&["age", "zip", "sex", "nope"][..]),
            prop::sample::select(&["=", "!=", "<", "<=", ">", ">="][..]),
            prop::sample::select(TOKENS),
        )
            .prop_map(|(c, o, v)| format!("{c}{o}{v}")),
    ];
    let ds = table();
    fuzz("rule parser", rules, |text| {
        match Rule::parse(&text) {
            Ok(rule) => match rule.evaluate(&ds) {
                Ok(marked) => prop_assert_eq!(marked.len(), ds.n_rows()),
                Err(e) => readable(&e.to_string()),
            },
            Err(e) => readable(&e.to_string()),
        }
        Ok(())
    });
}

#[test]
fn equal_numbers_mark_the_same_rows() {
    let ds = table();
    let cases = (
        prop::sample::select(&["39", "39.0", "039", "3.9e1", "390e-1", "+39", "39.000"][..]),
        prop::sample::select(&["=", "!=", "<", "<=", ">", ">="][..]),
    );
    fuzz("rule numbers", cases, |(spelling, op)| {
        let canonical = Rule::parse(&format!("age{op}39"))
            .unwrap()
            .evaluate(&ds)
            .unwrap();
        let other = Rule::parse(&format!("age{op}{spelling}"))
            .unwrap()
            .evaluate(&ds)
            .unwrap();
        prop_assert_eq!(canonical, other);
        Ok(())
    });
}

#[test]
fn hierarchies_read_or_refuse_and_never_misstate() {
    const LEAVES: [&str; 10] = ["F", "M", "-0", "0", "039", "39", "70", "1e20", "2.5", "x"];
    let built = prop::collection::vec(
        (
            prop::sample::select(&LEAVES[..]),
            prop::collection::vec(prop::sample::select(TOKENS), 0..4),
        ),
        0..12,
    )
    .prop_map(|rows| {
        rows.into_iter()
            .map(|(leaf, up)| {
                let mut r = vec![leaf];
                r.extend(up);
                r.push("*");
                r.join(";") + "\n"
            })
            .collect::<String>()
            .into_bytes()
    });
    let inputs = (
        prop_oneof![2 => hostile_bytes(corpus_with(".hierarchy")), 3 => built],
        prop::sample::select(&["sex", "age"][..]),
    );
    let ds = table();
    fuzz("hierarchy reader", inputs, |(bytes, column)| {
        let col = ds.col(ds.column_index(column).unwrap());
        let h = match arx::parse(&bytes, column, Path::new("fuzz_hierarchy.csv")) {
            Ok(h) => h,
            Err(e) => {
                let m = e.to_string();
                readable(&m);
                return Ok(());
            }
        };
        let bound = match h.bind(col) {
            Ok(b) => b,
            Err(e) => {
                readable(&e.to_string());
                return Ok(());
            }
        };
        for code in 0..col.cardinality() as u32 {
            if col.is_missing(code) {
                continue;
            }
            let value = col.display(code);
            for level in 1..bound.levels() {
                let label = bound.generalize(level, code);
                // A label that names another value of the column would
                // publish that value.
                if let Some(other) = col.code_of(label) {
                    prop_assert_eq!(other, code, "'{}' under '{}'", value, label);
                }
                if col.is_numeric() {
                    if let Some(claim) = NumericLabel::parse(label) {
                        let x = Decimal::parse(value).unwrap();
                        prop_assert!(claim.covers(&x), "{} under {}", value, label);
                    }
                }
            }
        }
        Ok(())
    });
}

#[test]
fn projects_load_or_refuse() {
    fuzz(
        "project JSON",
        hostile_bytes(corpus_with(".project.json")),
        |bytes| {
            let text = String::from_utf8_lossy(&bytes);
            match Project::from_json(&text, Path::new("fuzz.project.json")) {
                Ok(p) => match Session::with_project(table(), &p) {
                    Ok(s) => {
                        if let Err(e) = s.attacker() {
                            readable(&e.to_string());
                        }
                    }
                    Err(e) => readable(&e.to_string()),
                },
                Err(e) => readable(&e.to_string()),
            }
            Ok(())
        },
    );
}

#[test]
fn conditions_never_publish_a_lie() {
    let when = prop_oneof![
        token_text(8),
        (
            prop::sample::select(&["age", "zip", "sex"][..]),
            prop::sample::select(&["=", "!=", "<", ">="][..]),
            prop::sample::select(&["39", "70", "0", "F", "1e20", "NaN", "47601"][..]),
        )
            .prop_map(|(c, o, v)| format!("{c}{o}{v}")),
    ];
    let to = prop_oneof![
        prop::sample::select(TOKENS).prop_map(str::to_string),
        (-5i64..100, 0i64..100).prop_map(|(a, w)| format!("[{a}-{}]", a + w)),
    ];
    let built = prop::collection::vec(
        (
            prop::option::of(when),
            prop::sample::select(&["age", "sex", "zip", "disease", "nope"][..]),
            to,
        ),
        1..4,
    )
    .prop_map(|cs| {
        let list: Vec<serde_json::Value> = cs
            .into_iter()
            .map(|(when, column, to)| {
                let mut o = serde_json::json!({"generalize": column, "to": to});
                if let Some(w) = when {
                    o["when"] = w.into();
                }
                o
            })
            .collect();
        serde_json::json!({ "conditions": list }).to_string()
    });
    let inputs = prop_oneof![
        2 => hostile_bytes(corpus_with(".conditions.json"))
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        3 => built,
    ];
    let ds = table();
    fuzz("conditions JSON", inputs, |conditions| {
        let Ok(g) = serde_json::from_str::<Conditions>(&conditions) else {
            return Ok(());
        };
        let req = Request {
            ds: &ds,
            qi: vec![0, 1, 2],
            sensitive: vec![3],
            identifiers: vec![],
            k: 1,
            l: 0,
            seed: 1,
            options: Default::default(),
        };
        match construct(&req, &g) {
            Ok(release) => {
                let v = verify(&release, &ds);
                prop_assert!(v.all_hold(), "{}\n{}", conditions, v);
            }
            Err(e) => readable(&e.to_string()),
        }
        Ok(())
    });
}

#[test]
fn written_tables_read_back_as_published() {
    const SEXES: [&str; 8] = [
        "F",
        "M",
        "x,y",
        "\"q\"",
        " lead",
        "a\nb",
        "c\rd",
        "\u{1b}[0m",
    ];
    const AGES: [&str; 9] = [
        "-0", "0", "039", "39", "3.9e1", "70", "1e20", "2.5", "1e149",
    ];
    let inputs = (
        prop::collection::vec(
            (
                prop::sample::select(&SEXES[..]),
                prop::sample::select(&AGES[..]),
                token_text(4),
            ),
            4..30,
        ),
        2u32..4,
    );
    fuzz("published-table writer", inputs, |(rows, k)| {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(["sex", "age", "note"]).unwrap();
        for (s, a, n) in &rows {
            w.write_record([*s, *a, n.as_str()]).unwrap();
        }
        let text = w.into_inner().unwrap();
        let Ok(ds) = load_csv_bytes(&text, "w.csv", &CsvOptions::default()) else {
            return Ok(());
        };
        if ds.n_cols() != 3 || ds.n_rows() < k as usize {
            return Ok(());
        }
        let req = Request {
            ds: &ds,
            qi: vec![0, 1],
            sensitive: vec![2],
            identifiers: vec![],
            k,
            l: 0,
            seed: 7,
            options: Default::default(),
        };
        let release = by_id("mondrian")
            .unwrap()
            .run(&req, &Progress::new())
            .unwrap();
        prop_assert!(verify(&release, &ds).all_hold());
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("release.csv");
        let written = write_csv(&release, &ds, None, &out, &Inputs::new()).unwrap();
        let left = std::fs::read_dir(dir.path()).unwrap().count();
        prop_assert_eq!(left, written.len(), "no temporary file beside the release");
        let headers = published_headers(&release, &ds, None);
        let mut r = csv::Reader::from_path(&out).unwrap();
        let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
        prop_assert_eq!(&header, &headers);
        let records: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        let published: usize = release.groups.iter().map(|g| g.rows.len()).sum();
        prop_assert_eq!(records.len(), published);
        // The sensitive column passes through exactly: the same multiset.
        let note = ds.col(2);
        let mut want: Vec<String> = release
            .groups
            .iter()
            .flat_map(|g| g.rows.iter())
            .map(|&row| note.display(note.code(row as usize)).to_string())
            .collect();
        let at = headers.iter().position(|h| h == "note").unwrap();
        let mut got: Vec<String> = records.iter().map(|rec| rec[at].to_string()).collect();
        want.sort();
        got.sort();
        prop_assert_eq!(got, want);
        // Published ages are canonical numbers or bracketed intervals.
        if ds.col(1).is_numeric() {
            let age = headers.iter().position(|h| h == "age").unwrap();
            for rec in &records {
                let cell = &rec[age];
                if cell.is_empty() || cell == "*" || cell == "?" {
                    continue;
                }
                let ok = match Decimal::parse(cell) {
                    Some(d) => d.to_string() == cell,
                    None => matches!(NumericLabel::parse(cell), Some(NumericLabel::Range { .. })),
                };
                prop_assert!(ok, "published age '{}'", cell);
            }
        }
        Ok(())
    });
}

/// The crafted Parquet files of `tests/common/craft.rs`, with the sizes
/// a reader allocates from set to anything (negative, 2^31 − 1, 2^40,
/// past the end), schemas nested up to 300 deep, and then bytes of the
/// result edited as the other targets do.
#[cfg(feature = "formats")]
fn crafted_parquet() -> impl Strategy<Value = Vec<u8>> {
    let size32 = prop_oneof![
        Just(i32::MAX),
        Just(-1),
        Just(0),
        any::<i32>(),
        0i32..100_000
    ];
    let size64 = prop_oneof![Just(1i64 << 40), Just(-1), any::<i64>(), 0i64..100_000];
    (
        prop::collection::vec("[a-z]{0,6}", 1..20),
        any::<bool>(),
        prop::option::of(size32),
        prop::option::of(size64),
        prop_oneof![3 => Just(0usize), 1 => 0usize..300],
        1usize..6,
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
    )
        .prop_map(
            |(values, gzip, claim_uncompressed, claim_chunk, nesting, columns, flips)| {
                let values: Vec<&str> = values.iter().map(String::as_str).collect();
                let mut p = craft::Parquet::new(&values);
                p.gzip = gzip;
                p.claim_uncompressed = claim_uncompressed;
                p.claim_chunk = claim_chunk;
                p.nesting = nesting;
                p.columns = columns;
                let mut bytes = p.bytes();
                for (at, b) in flips {
                    let i = at.index(bytes.len());
                    bytes[i] = b;
                }
                bytes
            },
        )
}

/// Arrow IPC files and streams of a small table, with bytes of their
/// metadata (lengths, offsets, block sizes) edited.
#[cfg(feature = "formats")]
fn edited_arrow() -> impl Strategy<Value = Vec<u8>> {
    use std::sync::Arc;
    let table = |stream: bool| {
        let schema = Arc::new(arrow_schema::Schema::new(vec![
            arrow_schema::Field::new("a", arrow_schema::DataType::Utf8, true),
            arrow_schema::Field::new("b", arrow_schema::DataType::Int64, true),
        ]));
        let a: arrow_array::ArrayRef = Arc::new(arrow_array::StringArray::from(vec![
            Some("x"),
            None,
            Some("y"),
        ]));
        let b: arrow_array::ArrayRef =
            Arc::new(arrow_array::Int64Array::from(vec![Some(1), Some(2), None]));
        let batch = arrow_array::RecordBatch::try_new(schema, vec![a, b]).unwrap();
        craft::arrow_ipc(&batch, stream)
    };
    let seeds = vec![table(false), table(true)];
    let edit = prop_oneof![
        (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| (i, vec![b])),
        (
            any::<prop::sample::Index>(),
            prop_oneof![Just(0xffu8), Just(0x7f), Just(0x80)]
        )
            .prop_map(|(i, b)| (i, vec![b; 4])),
    ];
    (
        prop::sample::select(seeds),
        prop::collection::vec(edit, 1..6),
    )
        .prop_map(|(mut bytes, edits)| {
            for (at, data) in edits {
                let i = at.index(bytes.len());
                let end = (i + data.len()).min(bytes.len());
                bytes[i..end].copy_from_slice(&data[..end - i]);
            }
            bytes
        })
}

/// Read `bytes` as a file named `name` with the in-memory reader, under
/// small and default limits: a dataset or one readable refusal naming the
/// file; never a panic, an abort or a stack overflow.
#[cfg(feature = "formats")]
fn check_columnar(bytes: &[u8], name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    for opts in [small_limits(), CsvOptions::default()] {
        match anonlab::data::formats::load(&path, &opts) {
            Ok(ds) => assert!(ds.n_cols() >= 1 && ds.n_rows() >= 1),
            Err(e) => {
                let m = e.to_string();
                readable(&m);
                assert!(m.contains(name), "the file is named: {m}");
            }
        }
    }
}

#[cfg(feature = "formats")]
#[test]
fn parquet_structure_is_checked_before_any_allocation() {
    fuzz("Parquet structure", crafted_parquet(), |bytes| {
        check_columnar(&bytes, "fuzz.parquet");
        Ok(())
    });
}

#[cfg(feature = "formats")]
#[test]
fn arrow_structure_is_checked_before_any_allocation() {
    fuzz("Arrow IPC structure", edited_arrow(), |bytes| {
        check_columnar(&bytes, "fuzz.arrow");
        Ok(())
    });
}

#[test]
fn the_seed_corpus_is_there() {
    let seeds = corpus();
    assert!(seeds.iter().all(|s| !s.is_empty()));
    for ext in [".csv", ".hierarchy", ".project.json", ".conditions.json"] {
        assert!(
            !corpus_with(ext).is_empty(),
            "no {ext} seed in tests/hostile/"
        );
    }
}
