//! Hostile structure in Parquet and Arrow IPC files (issue 36, items 3
//! and 4): sizes a file states that its readers would allocate — a page
//! header's uncompressed size, a column chunk's length, an Arrow block's
//! or message's body — and a schema nested past any stack. Each file is
//! a few hundred bytes; each is refused in one line naming the file on
//! the in-memory path and the query engine's, before any reader
//! allocates what it claims, and the run's peak memory (the child's
//! high-water mark of resident memory, `VmHWM`) stays far below the issue's
//! 2.5 GB bound. The files are built by `common::craft`, whose honest
//! file is read correctly (so a refusal is the lie's, not the builder's).
#![cfg(all(feature = "formats", target_os = "linux"))]

use std::io::Read;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};

use crate::common;
use common::craft::Parquet;

/// The engines a build has: memory, and DataFusion with `engine`.
fn engines() -> Vec<&'static str> {
    let mut e = vec!["memory"];
    if cfg!(feature = "engine") {
        e.push("datafusion");
    }
    e
}

/// A run's exit status, stderr and peak resident memory in bytes.
struct Run {
    status: ExitStatus,
    stderr: String,
    peak: u64,
}

/// `assess FILE --qi COL --engine ENGINE`, its peak memory measured.
fn assess(file: &Path, qi: &str, engine: &str) -> Run {
    assess_with(file, qi, &["--engine", engine])
}

/// The child's peak resident memory, its `VmHWM`, as long as it runs.
/// Not `wait4`'s `ru_maxrss`: Linux counts in it the memory of the
/// process before `exec`, which here is the test binary's (a copy or a
/// borrowed view of it), hundreds of megabytes while other tests run. The
/// high-water mark only grows, and is read every 2 ms: what the last
/// 2 ms before the exit add is far below the bounds asserted.
fn peak_while_running(child: &mut std::process::Child) -> (ExitStatus, u64) {
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            peak = peak.max(hwm.unwrap_or(0) * 1024);
        }
        if let Some(exit) = child.try_wait().unwrap() {
            return (exit, peak);
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

fn assess_with(file: &Path, qi: &str, extra: &[&str]) -> Run {
    let before = std::fs::read(file).unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("anonlab"))
        .arg("assess")
        .arg(file)
        .args(["--qi", qi])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The message is one line: the pipe never fills while it runs.
    let (status, peak) = peak_while_running(&mut child);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(std::fs::read(file).unwrap(), before, "the input changed");
    Run {
        status,
        stderr,
        peak,
    }
}

/// Peak memory a refusal may take: the binary's own footprint with room
/// to spare, far below the claims (2^31 bytes per page, 2^40 per block).
/// (A run that ends within the first read, 0, allocated nothing large.)
const PEAK: u64 = 400 << 20;

#[track_caller]
fn refused(run: &Run, needles: &[&str]) {
    let e = &run.stderr;
    assert_eq!(run.status.code(), Some(2), "expected a refusal, got: {e}");
    assert!(e.starts_with("anonlab: error: "), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "one line: {e}");
    for n in needles {
        assert!(e.contains(n), "missing {n:?} in: {e}");
    }
    assert!(run.peak < PEAK, "peak memory {} bytes: {e}", run.peak);
}

#[test]
fn the_crafted_parquet_file_is_read_when_it_does_not_lie() {
    let dir = tempfile::tempdir().unwrap();
    for gzip in [false, true] {
        let mut p = Parquet::new(&["a", "b", "a"]);
        p.gzip = gzip;
        p.columns = 2;
        let f = dir.path().join(format!("honest{gzip}.parquet"));
        std::fs::write(&f, p.bytes()).unwrap();
        for engine in engines() {
            let run = assess(&f, "c0,c1", engine);
            assert!(run.status.success(), "{engine}: {}", run.stderr);
        }
    }
}

#[test]
fn page_bombs_are_refused_before_any_page_is_inflated() {
    let dir = tempfile::tempdir().unwrap();
    for columns in [4, 16] {
        let mut p = Parquet::new(&["a", "b"]);
        p.gzip = true;
        p.columns = columns;
        p.claim_uncompressed = Some(i32::MAX);
        let f = dir.path().join(format!("bomb{columns}.parquet"));
        std::fs::write(&f, p.bytes()).unwrap();
        let name = format!("bomb{columns}.parquet");
        for engine in engines() {
            refused(
                &assess(&f, "c0", engine),
                &[
                    &name,
                    "bytes uncompressed, over the limit of 2,147,483,648 bytes",
                ],
            );
        }
    }
    // One page's claim within the limit is no bomb: the reader finds the
    // page shorter than claimed and says so, without inflating 2 GB.
    let mut p = Parquet::new(&["a", "b"]);
    p.gzip = true;
    p.claim_uncompressed = Some(i32::MAX);
    let f = dir.path().join("one.parquet");
    std::fs::write(&f, p.bytes()).unwrap();
    let run = assess(&f, "c0", "memory");
    refused(&run, &["one.parquet"]);
}

#[test]
fn a_column_chunk_past_the_end_is_refused_naming_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = Parquet::new(&["a", "b"]);
    p.claim_chunk = Some(1 << 40);
    let f = dir.path().join("chunk.parquet");
    std::fs::write(&f, p.bytes()).unwrap();
    for engine in engines() {
        refused(
            &assess(&f, "c0", engine),
            &["chunk.parquet", "c0", "past the end of the file"],
        );
    }
}

#[test]
fn a_schema_nested_ten_thousand_deep_is_refused_without_recursion() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = Parquet::new(&["a"]);
    p.nesting = 10_000;
    let f = dir.path().join("deep.parquet");
    std::fs::write(&f, p.bytes()).unwrap();
    for engine in engines() {
        refused(
            &assess(&f, "c0", engine),
            &["deep.parquet", "nested more than 64 levels deep"],
        );
    }
}

/// An Arrow IPC file or stream of one text column.
fn arrow_bytes(stream: bool) -> Vec<u8> {
    let schema = Arc::new(Schema::new(vec![Field::new("c0", DataType::Utf8, false)]));
    let col: ArrayRef = Arc::new(StringArray::from(vec!["a", "b", "a"]));
    let batch = RecordBatch::try_new(schema, vec![col]).unwrap();
    common::craft::arrow_ipc(&batch, stream)
}

/// Replace the one occurrence of `from` in `bytes` after `start` by `to`.
fn patch(bytes: &mut [u8], start: usize, from: &[u8], to: &[u8]) {
    let hits: Vec<usize> = (start..=bytes.len() - from.len())
        .filter(|&i| &bytes[i..i + from.len()] == from)
        .collect();
    assert_eq!(hits.len(), 1, "the patched value must be unique");
    bytes[hits[0]..hits[0] + to.len()].copy_from_slice(to);
}

#[test]
fn arrow_blocks_and_messages_past_the_end_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    // The file format: the footer's record batch block claims 2^40 bytes
    // of body.
    let mut file = arrow_bytes(false);
    let n = file.len();
    let footer_len = i32::from_le_bytes(file[n - 10..n - 6].try_into().unwrap()) as usize;
    let footer_at = n - 10 - footer_len;
    let footer = arrow_ipc::root_as_footer(&file[footer_at..n - 10]).unwrap();
    let block = footer.recordBatches().unwrap().get(0);
    let (offset, meta, body) = (block.offset(), block.metaDataLength(), block.bodyLength());
    let mut old = offset.to_le_bytes().to_vec();
    old.extend(meta.to_le_bytes());
    old.extend([0; 4]);
    old.extend(body.to_le_bytes());
    let mut new = old.clone();
    new[16..].copy_from_slice(&(1i64 << 40).to_le_bytes());
    patch(&mut file, footer_at, &old, &new);
    let f = dir.path().join("block.arrow");
    std::fs::write(&f, &file).unwrap();
    for engine in engines() {
        refused(
            &assess(&f, "c0", engine),
            &[
                "block.arrow",
                "record batch block 1",
                "past the end of the file",
            ],
        );
    }

    // The stream format: the record batch message's metadata claims
    // 2^40 bytes of body.
    let mut stream = arrow_bytes(true);
    let schema_len = i32::from_le_bytes(stream[4..8].try_into().unwrap()) as usize;
    let batch_at = 8 + schema_len;
    let meta_len =
        i32::from_le_bytes(stream[batch_at + 4..batch_at + 8].try_into().unwrap()) as usize;
    let meta = batch_at + 8..batch_at + 8 + meta_len;
    let body = arrow_ipc::root_as_message(&stream[meta.clone()])
        .unwrap()
        .bodyLength();
    let mut message = stream[meta.clone()].to_vec();
    patch(
        &mut message,
        0,
        &body.to_le_bytes(),
        &(1i64 << 40).to_le_bytes(),
    );
    assert_eq!(
        arrow_ipc::root_as_message(&message).unwrap().bodyLength(),
        1 << 40,
        "the patch hit the body length"
    );
    stream[meta].copy_from_slice(&message);
    let f = dir.path().join("message.arrows");
    std::fs::write(&f, &stream).unwrap();
    for engine in engines() {
        refused(
            &assess(&f, "c0", engine),
            &["message.arrows", "message 2 says its body", "past the end"],
        );
    }
}

/// A compressed stream of short rows (6 bytes of text for 3 cells of 4
/// bytes each) holds twice its text in codes: the table's memory is
/// checked against the limit as rows arrive, so the run stops near the
/// limit rather than at twice it (issue 36: 4.1 GB for a 2 GiB limit;
/// measured at the default limit: 2.1 GB peak, BENCHMARKS.md). A smaller
/// limit keeps the test quick; the bound scales with it.
#[test]
fn a_stream_of_short_rows_stops_near_the_limit_in_memory() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    const LIMIT: u64 = 128 << 20;
    let rows = b"1,2,3\n".repeat(1 << 16);
    for codec in ["gz", "zst"] {
        let f = dir.path().join(format!("short.csv.{codec}"));
        let file = std::fs::File::create(&f).unwrap();
        let mut out: Box<dyn Write> = if codec == "gz" {
            // Finished when dropped.
            Box::new(flate2::write::GzEncoder::new(
                file,
                flate2::Compression::fast(),
            ))
        } else {
            Box::new(
                zstd::stream::write::Encoder::new(file, 1)
                    .unwrap()
                    .auto_finish(),
            )
        };
        out.write_all(b"a,b,c\n").unwrap();
        // Twice the limit of text: without the check, the text limit
        // stops it with 2.7 times the limit in codes.
        for _ in 0..(2 * LIMIT as usize / rows.len()) {
            out.write_all(&rows).unwrap();
        }
        drop(out);
        let run = assess_with(&f, "a", &["--max-file-bytes", &LIMIT.to_string()]);
        let e = &run.stderr;
        assert_eq!(run.status.code(), Some(2), "{e}");
        assert!(
            e.contains("the table takes more memory than the limit of 134,217,728 bytes"),
            "{e}"
        );
        assert!(e.contains("--max-file-bytes"), "{e}");
        assert!(run.peak > 0, "{codec}: the run's memory was never read");
        assert!(
            run.peak < LIMIT * 3 / 2,
            "{codec}: peak memory {} bytes for a limit of {LIMIT}",
            run.peak
        );
    }
}

/// The column limit and a header longer than the reader's first 64 KiB
/// are read alike on both paths (issue 36, item 5): the engine read a CSV
/// header only as far as 64 KiB (a header of 100,000 columns was "10,950
/// columns", a long header of fewer columns was cut), and did not apply
/// `--max-columns` to Parquet.
#[test]
fn columns_are_counted_alike_in_memory_and_on_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let header = |n: usize| {
        (0..n)
            .map(|i| format!("column_{i:05}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let wide = dir.path().join("wide.csv");
    std::fs::write(
        &wide,
        format!("{}\n{}\n", header(100_000), "x,".repeat(99_999) + "x"),
    )
    .unwrap();
    // 9,000 columns: a header of 116 KiB, within the limit.
    let long = dir.path().join("long.csv");
    let mut text = header(9_000) + "\n";
    for r in 0..3 {
        text += &(0..9_000)
            .map(|c| format!("{}", (r + c) % 2))
            .collect::<Vec<_>>()
            .join(",");
        text += "\n";
    }
    std::fs::write(&long, text).unwrap();
    let mut p = Parquet::new(&["a", "b"]);
    p.columns = 20;
    let parquet = dir.path().join("twenty.parquet");
    std::fs::write(&parquet, p.bytes()).unwrap();
    for engine in engines() {
        let run = assess(&wide, "column_00000", engine);
        refused(
            &run,
            &["wide.csv", "100,000 columns, over the limit of 10,000"],
        );
        let run = assess(&long, "column_08999", engine);
        assert!(run.status.success(), "{engine}: {}", run.stderr);
        let run = assess_with(&parquet, "c0", &["--engine", engine, "--max-columns", "10"]);
        refused(
            &run,
            &[
                "twenty.parquet",
                "the file has 20 columns, over the limit of 10",
            ],
        );
    }
}
