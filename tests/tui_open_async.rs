//! `:open` never blocks the UI (issue 36, item 9): the file is read on a
//! thread of its own while the keys keep working; the status bar says
//! what is being read; Esc cancels it and the session in view stays (a
//! read that finishes afterwards is dropped); q quits at once. A reader's
//! failure — the hostile Parquet and Arrow files of `hostile_structure`
//! (a schema nested 10,000 deep, a column chunk and an Arrow block that
//! claim 2^40 bytes) — is a popup naming the file, and the session stays.
//! Devices and FIFOs are refused before anything opens them, for `:open`,
//! a project's data file, `:hierarchies` and `:conditions`.
#![cfg(feature = "tui")]

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anonlab_tui::{Action, App, JobMsg};

use crate::common;
use common::screen::{command, demo, render, text};

/// A CSV of `rows` rows of three columns: large enough that a debug build
/// reads it for a while, small enough to stay a fast test.
fn big_csv(dir: &Path, rows: usize) -> PathBuf {
    let p = dir.join("big.csv");
    let mut s = String::with_capacity(rows * 24);
    s.push_str("sex,age,zip\n");
    for i in 0..rows {
        s.push_str(&format!(
            "{},{},{}\n",
            ["F", "M"][i % 2],
            i % 90,
            10_000 + i % 977
        ));
    }
    std::fs::write(&p, s).unwrap();
    p
}

/// The demo with its workers on threads, their messages on a channel.
fn threaded_demo() -> (App, mpsc::Receiver<JobMsg>) {
    let mut app = demo(120, 30);
    let (tx, rx) = mpsc::channel();
    app.start_worker(move |m| {
        let _ = tx.send(m);
    })
    .unwrap();
    (app, rx)
}

/// Apply the workers' messages until the open's arrives (or 60 s pass:
/// a debug build on a busy machine).
fn until_open_message(app: &mut App, rx: &mpsc::Receiver<JobMsg>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let m = rx.recv_timeout(left).expect("the open's thread reports");
        let open = matches!(m, JobMsg::Open(ref w) if !matches!(w, anonlab_tui::WorkerMsg::Progress { .. }));
        app.on_worker(m);
        if open {
            return;
        }
    }
}

#[test]
fn a_read_runs_off_the_ui_thread_and_esc_keeps_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_csv(dir.path(), 60_000);
    let (mut app, rx) = threaded_demo();
    let demo_label = app.label().to_string();

    // `:open` returns at once: the read waits on its thread, and nothing
    // of it reaches the app before a message is applied.
    let asked = Instant::now();
    command(&mut app, &format!("open {}", big.display()));
    assert!(asked.elapsed() < Duration::from_millis(500));
    let status = app.opening().expect("the file is being opened");
    assert!(
        status.contains("big.csv") && status.contains("Esc cancels"),
        "{status}"
    );
    let t = text(&render(&app));
    assert!(t.contains("opening") && t.contains("big.csv"), "{t}");
    // Its size, then the elapsed time after a tick.
    assert!(status.contains(" KB"), "{status}");
    app.on_tick_at(Instant::now() + Duration::from_secs(3));
    let status = app.opening().unwrap();
    assert!(status.contains("3 s"), "{status}");

    // The keys work meanwhile: screens switch, the file is still read.
    app.step(&Action::NextScreen);
    assert_ne!(app.screen(), anonlab_tui::Screen::Data);
    assert!(app.opening().is_some());
    assert_eq!(app.label(), demo_label);

    // Esc cancels: a notice says so, the demo stays.
    app.step(&Action::Cancel);
    assert!(app.opening().is_none());
    let notice = app.notice().unwrap_or_default().to_string();
    assert!(
        notice.contains("cancelled opening") && notice.contains("big.csv"),
        "{notice}"
    );
    assert!(text(&render(&app)).contains("cancelled opening"));
    // The abandoned read's result, when it comes, is dropped.
    until_open_message(&mut app, &rx);
    assert!(app.take_open().is_none());
    assert_eq!(app.label(), demo_label);
    assert!(app.popup().is_none());

    // Asked again and left to finish, the file opens in place.
    command(&mut app, &format!("open {}", big.display()));
    until_open_message(&mut app, &rx);
    let opened = app.take_open().expect("the file was read");
    assert_eq!(opened.dataset().n_rows(), 60_000);
    assert_eq!(opened.size(), (120, 30));
}

#[test]
fn quitting_while_a_file_is_read_does_not_wait_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_csv(dir.path(), 60_000);
    let (mut app, _rx) = threaded_demo();
    command(&mut app, &format!("open {}", big.display()));
    assert!(app.opening().is_some());
    app.step(&Action::Quit);
    assert!(app.should_quit(), "q quits while the read runs");
}

/// `:open PATH` on an inline app: the reader runs, then the popup.
fn open_fails(path: &Path, needles: &[&str]) {
    let mut app = demo(120, 30);
    let label = app.label().to_string();
    command(&mut app, &format!("open {}", path.display()));
    app.run_pending_jobs_blocking();
    assert!(
        app.take_open().is_none(),
        "{} must not open",
        path.display()
    );
    assert_eq!(app.label(), label, "the session in view stays");
    let popup = app.popup().expect("a popup says why");
    assert_eq!(popup.title, "Cannot open the file");
    for n in needles {
        assert!(popup.message.contains(n), "{n:?} in {}", popup.message);
    }
    assert!(text(&render(&app)).contains("Cannot open the file"));
    // Esc closes it and the demo is there, working.
    app.step(&Action::Cancel);
    assert!(app.popup().is_none());
    assert_eq!(app.dataset().n_rows(), demo(80, 24).dataset().n_rows());
}

#[cfg(feature = "formats")]
#[test]
fn hostile_parquet_and_arrow_files_are_a_popup_not_a_crash() {
    use common::craft::Parquet;
    use std::sync::Arc;

    let dir = tempfile::tempdir().unwrap();
    let mut deep = Parquet::new(&["a"]);
    deep.nesting = 10_000;
    let f = dir.path().join("deep.parquet");
    std::fs::write(&f, deep.bytes()).unwrap();
    open_fails(&f, &["deep.parquet", "nested more than 64 levels deep"]);

    let mut chunk = Parquet::new(&["a", "b"]);
    chunk.claim_chunk = Some(1 << 40);
    let f = dir.path().join("chunk.parquet");
    std::fs::write(&f, chunk.bytes()).unwrap();
    open_fails(&f, &["chunk.parquet", "past the end of the file"]);

    // An Arrow IPC file whose record batch block claims 2^40 bytes.
    let schema = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
        "c0",
        arrow_schema::DataType::Utf8,
        false,
    )]));
    let col: arrow_array::ArrayRef = Arc::new(arrow_array::StringArray::from(vec!["a", "b"]));
    let batch = arrow_array::RecordBatch::try_new(schema, vec![col]).unwrap();
    let mut file = common::craft::arrow_ipc(&batch, false);
    let n = file.len();
    let footer_len = i32::from_le_bytes(file[n - 10..n - 6].try_into().unwrap()) as usize;
    let footer_at = n - 10 - footer_len;
    let footer = arrow_ipc::root_as_footer(&file[footer_at..n - 10]).unwrap();
    let body = footer.recordBatches().unwrap().get(0).bodyLength();
    let old = body.to_le_bytes();
    let hits: Vec<usize> = (footer_at..n - 10 - 8)
        .filter(|&i| file[i..i + 8] == old)
        .collect();
    assert_eq!(hits.len(), 1, "the body length is found once in the footer");
    file[hits[0]..hits[0] + 8].copy_from_slice(&(1i64 << 40).to_le_bytes());
    let f = dir.path().join("block.arrow");
    std::fs::write(&f, &file).unwrap();
    open_fails(&f, &["block.arrow", "past the end of the file"]);
}

#[test]
fn a_file_that_is_no_table_leaves_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("ragged.csv");
    std::fs::write(&f, "a,b\n1,2\n3,4,5\n").unwrap();
    open_fails(&f, &["ragged.csv"]);
    let p = dir.path().join("broken.json");
    std::fs::write(&p, "{ not a project").unwrap();
    open_fails(&p, &["broken.json"]);
}

#[cfg(unix)]
#[test]
fn devices_and_fifos_are_refused_at_once() {
    for dev in ["/dev/zero", "/dev/urandom"] {
        let mut app = demo(120, 30);
        command(&mut app, &format!("open {dev}"));
        // Refused before any read is queued: nothing runs.
        assert!(app.opening().is_none());
        let popup = app.popup().expect("refused at once");
        assert!(
            popup.message.contains(dev) && popup.message.contains("is a device, not a data file"),
            "{}",
            popup.message
        );
        assert!(app.take_open().is_none());
        // The side files read on the UI thread refuse them too.
        for cmd in ["hierarchies", "conditions"] {
            let mut app = demo(120, 30);
            command(&mut app, &format!("{cmd} {dev}"));
            let notice = app.notice().unwrap_or_default();
            assert!(notice.contains("is a device"), ":{cmd} {dev}: {notice}");
        }
    }

    let dir = tempfile::tempdir().unwrap();
    // A project whose data file is a device: refused on the open's
    // thread, before its fingerprint would read /dev/zero forever.
    let project = device_project(dir.path(), "zero.json", "/dev/zero");
    let started = Instant::now();
    open_fails(&project, &["zero.json", "/dev/zero", "is a device"]);
    assert!(started.elapsed() < Duration::from_secs(5));

    // A FIFO with no writer: refused, never waited on.
    let fifo = dir.path().join("pipe.csv");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let mut app = demo(120, 30);
        command(&mut app, &format!("open {}", fifo.display()));
        let popup = app.popup().expect("refused at once");
        assert!(popup.message.contains("FIFO"), "{}", popup.message);
    } else {
        assert!(std::env::var("CI").is_err(), "mkfifo is needed under CI");
    }
}

/// A project in `dir` named `name` whose data file is the device `dev`,
/// with a fingerprint to check (which would read the device forever).
fn device_project(dir: &std::path::Path, name: &str, dev: &str) -> PathBuf {
    let project = dir.join(name);
    let mut p = anonlab::data::Project::new(
        Some(PathBuf::from(dev)),
        anonlab::data::CsvOptions::default(),
    );
    p.data.fingerprint = Some(anonlab::data::DataFingerprint {
        size: 10,
        hash: "fnv1a64:0123456789abcdef".into(),
    });
    p.save(&project).unwrap();
    project
}

/// The project a session starts from (`anonlab tui --project P`) refuses
/// a device as its data file too, before the fingerprint would read it.
#[cfg(unix)]
#[test]
fn a_project_opened_at_start_refuses_a_device_as_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let project = device_project(dir.path(), "urandom.json", "/dev/urandom");
    let started = Instant::now();
    let e = App::open_project(&project).err().expect("refused");
    assert!(
        e.to_string().contains("/dev/urandom: it is a device"),
        "{e}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}
