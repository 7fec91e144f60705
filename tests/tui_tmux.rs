//! End to end: the real binary in a real terminal. tmux runs `anonlab`
//! (no arguments: the demo) in a detached 120×40 session in a scratch
//! directory; the test reads the screen with `tmux capture-pane`, goes to
//! the Anonymize screen, raises k with a key press, writes the report with
//! `E`, quits with `q` (answering `w`, save, to the unsaved-changes
//! question), and checks that the process exited, that the
//! report's files exist (the HTML well-formed, the JSON with the k set) and
//! that the terminal was given back (the shell, not the alternate screen).
//!
//! Without tmux the test says why and skips, so `cargo test` works on any
//! machine; under CI (`CI=true`) it fails instead, and `.ci/run` installs
//! tmux and stops when it cannot. The session runs under `env -i` with
//! its own HOME, XDG_CONFIG_HOME and ANONLAB_CONFIG, so a user's config
//! file cannot change the keys, and on a private tmux socket, so the
//! user's tmux sessions are never touched.

#![cfg(feature = "tui")]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long one expected change may take (the first draw includes the
/// demo's risk computation on a debug build).
const WAIT: Duration = Duration::from_secs(60);
const POLL: Duration = Duration::from_millis(100);

/// A tmux server of our own, killed when the test ends however it ends.
struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "anonlab"];
        args.extend_from_slice(keys);
        let out = self.run(&args);
        assert!(out.status.success(), "{out:?}");
    }

    fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", "anonlab"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Poll the screen until `done` holds; fail with the last screen.
    fn wait_for(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < WAIT,
                "timed out waiting for {what}; the screen:\n{screen}"
            );
            std::thread::sleep(POLL);
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

fn have_tmux() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Poll until `file` exists.
fn wait_for_file(file: &Path, tmux: &Tmux) {
    let start = Instant::now();
    while !file.exists() {
        assert!(
            start.elapsed() < WAIT,
            "{} was not written; the screen:\n{}",
            file.display(),
            tmux.screen()
        );
        std::thread::sleep(POLL);
    }
}

#[test]
fn demo_change_k_write_the_report_and_quit_in_a_real_terminal() {
    // .ci/run installs tmux; under CI its absence fails the test.
    if !common::require(have_tmux(), "tmux") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let tmux = Tmux {
        socket: dir.path().join("tmux.sock"),
    };
    let shell = format!(
        "env -i PATH=/usr/local/bin:/usr/bin:/bin HOME='{home}' XDG_CONFIG_HOME='{home}/.config' \
         ANONLAB_CONFIG='{home}/no-config.toml' TERM=xterm-256color PS1='shell$ ' sh",
        home = home.display()
    );
    let work_dir = work.to_str().unwrap();
    let out = tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "anonlab",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        work_dir,
        &shell,
    ]);
    assert!(out.status.success(), "{out:?}");
    tmux.wait_for("the shell prompt", |s| s.contains("shell$"));

    let bin = env!("CARGO_BIN_EXE_anonlab");
    tmux.send(&[&format!("'{bin}'; echo anonlab-exit=$?"), "Enter"]);
    tmux.wait_for("the demo on the Data screen", |s| {
        s.contains("1 Data") && s.contains("demo.csv (embedded)") && s.contains("k=5")
    });

    tmux.send(&["3"]);
    tmux.wait_for("the Anonymize screen", |s| s.contains("┌ Anonymize"));
    tmux.send(&["]"]);
    let screen = tmux.wait_for("k = 6 in the status bar", |s| s.contains(" k=6 "));
    assert!(
        screen
            .lines()
            .any(|l| l.contains("k ") && l.contains(" 6 ")),
        "the parameter panel shows k = 6:\n{screen}"
    );

    tmux.send(&["E"]);
    let report = work.join("anonlab-report");
    tmux.wait_for("the report's notice", |s| s.contains("report ("));
    wait_for_file(&report.join("report.json"), &tmux);

    // k changed since the project was saved: q asks first; w saves, then
    // quits.
    tmux.send(&["q"]);
    tmux.wait_for("the unsaved-changes question", |s| {
        s.contains("Unsaved changes") && s.contains("k 5 → 6")
    });
    tmux.send(&["w"]);
    // The echo's output, not the command line that typed it.
    let screen = tmux.wait_for("the program's exit", |s| {
        s.lines().any(|l| l.starts_with("anonlab-exit="))
    });
    assert!(
        screen.lines().any(|l| l == "anonlab-exit=0"),
        "anonlab exited with an error:\n{screen}"
    );
    // The terminal is back: the command line and its exit status on the
    // normal screen, the TUI's tab line and status bar gone with the
    // alternate screen.
    assert!(!screen.contains("1 Data"), "{screen}");
    assert!(!screen.contains("? help"), "{screen}");
    assert!(screen.contains("shell$"), "{screen}");

    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    let doc = common::parse_html(&html);
    assert_eq!(doc.root_element().tag_name().name(), "html");
    assert!(report.join("report.md").exists());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("report.json")).unwrap())
            .unwrap();
    assert_eq!(json["release"]["k"], 6, "{}", json["release"]);
    assert_eq!(json["dataset"]["rows"], 1500);
    let project: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(work.join("anonlab-project.json")).unwrap())
            .unwrap();
    assert_eq!(project["params"]["k"], 6, "the answer w saved the project");
}
