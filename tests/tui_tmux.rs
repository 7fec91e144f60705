//! End to end: the real binary in a real terminal. The steward's path on
//! Adult (open it with `:open` and Tab, roles, cells by rule, hierarchies
//! from ARX's folder, anonymize, tune k, write the release, quit with the
//! save question) is the first test; the second is the demo's. tmux runs `anonlab`
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

    /// One of tmux's pane variables (`#{alternate_on}`): what the
    /// terminal's state is, beside what it shows.
    fn pane(&self, format: &str) -> String {
        let out = self.run(&["display-message", "-p", "-t", "anonlab", format]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
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

/// A tmux server with a shell in `work`, its environment bare (see the
/// module doc), at 160×45.
fn start(dir: &Path, work: &Path) -> Tmux {
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let tmux = Tmux {
        socket: dir.join("tmux.sock"),
    };
    let shell = format!(
        "env -i PATH=/usr/local/bin:/usr/bin:/bin HOME='{home}' XDG_CONFIG_HOME='{home}/.config' \
         ANONLAB_CONFIG='{home}/no-config.toml' TERM=xterm-256color PS1='shell$ ' sh",
        home = home.display()
    );
    let out = tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "anonlab",
        "-x",
        "160",
        "-y",
        "45",
        "-c",
        work.to_str().unwrap(),
        &shell,
    ]);
    assert!(out.status.success(), "{out:?}");
    tmux.wait_for("the shell prompt", |s| s.contains("shell$"));
    tmux
}

/// A shell (see [`start`]) in a scratch folder's `work`; the folder
/// lives as long as the first value.
fn scratch_shell() -> (tempfile::TempDir, PathBuf, Tmux) {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let tmux = start(dir.path(), &work);
    (dir, work, tmux)
}

/// The steward's path on Adult, keys only: open the file (`:open`, Tab
/// completing its name), give the
/// roles, mark the sensitive cells of age by a rule, import the
/// hierarchies from ARX's folder, anonymize, tune k, write the release,
/// quit answering the save question; then the files are checked.
#[test]
fn the_stewards_path_on_adult_in_a_real_terminal() {
    if !common::require(have_tmux(), "tmux") {
        return;
    }
    if !common::require(common::have_adult(), "Adult (../shared/data/adult)") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let tmux = start(dir.path(), &work);
    let adult = common::adult_path().canonicalize().unwrap();
    let folder = adult.parent().unwrap();

    let bin = env!("CARGO_BIN_EXE_anonlab");
    tmux.send(&[&format!("'{bin}'; echo anonlab-exit=$?"), "Enter"]);
    tmux.wait_for("the demo", |s| s.contains("demo.csv (embedded)"));
    // Open Adult with :open, the name completed by Tab.
    let typed = adult.display().to_string();
    tmux.send(&[":"]);
    tmux.send(&["-l", &format!("open {}", &typed[..typed.len() - 2])]);
    tmux.send(&["Tab"]);
    tmux.wait_for("the completed path", |s| {
        s.contains(&format!(":open {typed}"))
    });
    tmux.send(&["Enter"]);
    tmux.wait_for("Adult on the Data screen", |s| {
        s.contains("1 Data") && s.contains("adult.csv") && s.contains("30,162")
    });
    // Roles, left to right: sex age race marital-status education
    // native-country workclass are quasi-identifiers, occupation is
    // sensitive; then age becomes semi-sensitive.
    for (i, key) in ["Q", "Q", "Q", "Q", "Q", "Q", "Q", "s"].iter().enumerate() {
        if i > 0 {
            tmux.send(&["l"]);
        }
        tmux.send(&[key]);
    }
    tmux.wait_for("occupation sensitive", |s| {
        s.contains("role: sensitive") || s.contains(" S ")
    });
    tmux.send(&["Home", "l", "S"]);
    // Cells of age by rule, counted before Enter.
    tmux.send(&["m"]);
    tmux.wait_for("the mark dialog", |s| s.contains("rule"));
    for _ in 0..4 {
        let screen = tmux.screen();
        if screen.contains("[rule]") {
            break;
        }
        tmux.send(&["Left"]);
        std::thread::sleep(POLL);
    }
    tmux.send(&["-l", "age>=60"]);
    tmux.wait_for("the count before Enter", |s| {
        s.contains("Enter marks 2,082 of 30,162 cells")
    });
    tmux.send(&["Enter"]);
    tmux.wait_for("the marks applied", |s| s.contains("age 2,082"));

    // Hierarchies from the folder: preview, then bind.
    tmux.send(&[":"]);
    tmux.send(&["-l", &format!("hierarchies {}", folder.display())]);
    tmux.send(&["Enter"]);
    tmux.wait_for("the folder preview", |s| {
        s.contains("Enter binds the 9 hierarchies")
    });
    tmux.send(&["Enter"]);
    tmux.wait_for("the hierarchies bound", |s| {
        s.contains("9 hierarchies bound")
    });

    // Anonymize, then k + 1.
    tmux.send(&["3"]);
    tmux.wait_for("a verified release", |s| s.contains("verified ✓"));
    tmux.send(&["]"]);
    tmux.wait_for("k = 6", |s| s.contains(" k=6 "));
    // Write the release: refused (a popup says why) until the release for
    // k = 6 is on screen, so ask again until it is written.
    let start = Instant::now();
    let screen = loop {
        tmux.send(&["W"]);
        std::thread::sleep(Duration::from_millis(500));
        let screen = tmux.screen();
        if screen.contains("wrote ") {
            break screen;
        }
        assert!(
            start.elapsed() < WAIT,
            "the release was not written:\n{screen}"
        );
        if screen.contains("was not written") {
            tmux.send(&["Escape"]);
        }
        std::thread::sleep(Duration::from_secs(1));
    };
    assert!(screen.contains("release.csv"), "{screen}");
    let out = work.join("anonlab-release");
    assert!(out.join("release.csv").exists() && out.join("release.json").exists());

    // Quit: the question lists the changes; w saves, then quits.
    tmux.send(&["q"]);
    tmux.wait_for("the unsaved-changes question", |s| {
        s.contains("Unsaved changes")
    });
    tmux.send(&["w"]);
    let screen = tmux.wait_for("the program's exit", |s| {
        s.lines().any(|l| l.starts_with("anonlab-exit="))
    });
    assert!(screen.lines().any(|l| l == "anonlab-exit=0"), "{screen}");
    let project: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(work.join("anonlab-project.json")).unwrap())
            .unwrap();
    assert_eq!(project["params"]["k"], 6);
    assert_eq!(project["roles"]["occupation"], "sensitive");
    assert_eq!(project["roles"]["age"], "semi-sensitive");
    assert_eq!(project["sensitivity"]["age"]["rule"], "age>=60");
    assert_eq!(
        project["hierarchies"].as_object().map(|h| h.len()),
        Some(9),
        "{}",
        project["hierarchies"]
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("release.json")).unwrap()).unwrap();
    assert_eq!(json["params"]["k"], 6, "{}", json["params"]);
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

/// SIGTERM (a `kill`), SIGHUP (the terminal window closed) and SIGINT
/// sent to the TUI give the terminal back before the process ends as the
/// signal would (issue 36, item 8): the shell's line discipline is back
/// (`stty` shows icanon, echo and isig), the alternate screen, mouse
/// reporting and the hidden cursor are undone, and the shell sees
/// 128 + the signal.
#[test]
fn signals_give_the_terminal_back() {
    // .ci/run installs tmux; under CI its absence fails the test.
    if !common::require(have_tmux(), "tmux") {
        return;
    }
    let (_dir, work, tmux) = scratch_shell();
    let bin = env!("CARGO_BIN_EXE_anonlab");
    let pane = |format: &str| tmux.pane(format);
    for (signal, number) in [("TERM", 15), ("HUP", 1), ("INT", 2)] {
        tmux.send(&["clear", "Enter"]);
        tmux.wait_for("a clear screen", |s| {
            s.contains("shell$") && !s.contains("exit-")
        });
        // The shell writes the TUI's pid (exec keeps it), then runs it,
        // in a subshell: an interactive shell whose foreground child dies
        // of SIGINT drops the rest of the line, the echo of the status
        // included.
        let pid_file = work.join(format!("pid-{signal}"));
        tmux.send(&[
            &format!(
                "(sh -c 'echo $$ > pid-{signal}; exec \"$0\"' '{bin}'; echo exit-{signal}=$?)"
            ),
            "Enter",
        ]);
        tmux.wait_for("the demo on the Data screen", |s| {
            s.contains("1 Data") && s.contains("demo.csv (embedded)")
        });
        assert_eq!(
            pane("#{alternate_on}"),
            "1",
            "the TUI is on the alternate screen"
        );
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let killed = Command::new("kill")
            .args(["-s", signal, pid.trim()])
            .status()
            .unwrap();
        assert!(killed.success());
        let screen = tmux.wait_for("the shell after the signal", |s| {
            s.lines().any(|l| l.starts_with(&format!("exit-{signal}=")))
        });
        let want = format!("exit-{signal}={}", 128 + number);
        assert!(
            screen.lines().any(|l| l == want),
            "SIG{signal}: the shell did not see {want}:\n{screen}"
        );
        assert_eq!(
            pane("#{alternate_on}"),
            "0",
            "SIG{signal}: alternate screen left on"
        );
        assert_eq!(
            pane("#{mouse_any_flag}"),
            "0",
            "SIG{signal}: mouse reporting left on"
        );
        assert_eq!(
            pane("#{cursor_flag}"),
            "1",
            "SIG{signal}: cursor left hidden"
        );
        tmux.send(&["stty -a; echo stty-done", "Enter"]);
        let screen = tmux.wait_for("stty's settings", |s| s.lines().any(|l| l == "stty-done"));
        for setting in ["icanon", "echo", "isig"] {
            assert!(
                screen.split_whitespace().any(|w| w == setting),
                "SIG{signal}: the terminal was left with -{setting}:\n{screen}"
            );
            assert!(
                !screen
                    .split_whitespace()
                    .any(|w| w == format!("-{setting}")),
                "SIG{signal}: the terminal was left with -{setting}:\n{screen}"
            );
        }
    }
}

/// Ctrl-Z stops the TUI as a job of the shell with the terminal given
/// back; `fg` brings it back drawn whole, on the alternate screen again,
/// and it still takes keys.
#[test]
fn ctrl_z_suspends_to_the_shell_and_fg_resumes() {
    if !common::require(have_tmux(), "tmux") {
        return;
    }
    let (_dir, _, tmux) = scratch_shell();
    let bin = env!("CARGO_BIN_EXE_anonlab");
    let pane = |format: &str| tmux.pane(format);
    // An interactive sh has job control: Ctrl-Z's SIGTSTP stops the job.
    tmux.send(&[&format!("'{bin}'"), "Enter"]);
    tmux.wait_for("the demo on the Data screen", |s| {
        s.contains("1 Data") && s.contains("demo.csv (embedded)")
    });
    tmux.send(&["C-z"]);
    tmux.wait_for("the shell after Ctrl-Z", |s| {
        !s.contains("demo.csv (embedded)") && s.contains("shell$")
    });
    assert_eq!(pane("#{alternate_on}"), "0", "alternate screen left on");
    assert_eq!(pane("#{mouse_any_flag}"), "0", "mouse reporting left on");
    tmux.send(&["fg", "Enter"]);
    tmux.wait_for("the demo again", |s| {
        s.contains("1 Data") && s.contains("demo.csv (embedded)")
    });
    assert_eq!(pane("#{alternate_on}"), "1", "back on the alternate screen");
    // It takes keys again: the Risk screen, then quit.
    tmux.send(&["2"]);
    tmux.wait_for("the Risk screen", |s| s.contains("Attacker knows"));
    tmux.send(&["q"]);
    // The shell's new prompt: the TUI has exited (keys sent while it
    // still ran would go to its input thread, not the shell).
    tmux.wait_for("the shell's prompt after quitting", |s| {
        let last = s.lines().rev().find(|l| !l.trim().is_empty());
        last.map(str::trim) == Some("shell$")
    });
    // `fg` returns the job's status.
    tmux.send(&["echo exit=$?", "Enter"]);
    let screen = tmux.wait_for("the exit status", |s| {
        s.lines().any(|l| l.starts_with("exit="))
    });
    assert!(screen.lines().any(|l| l == "exit=0"), "{screen}");
}

/// `:open` of a large file never holds the keys (issue 36, item 9): while
/// a 200 MB CSV is read, the status bar says so, another screen comes up
/// on its key, Esc cancels (the demo stays) and `q` quits at once, the
/// terminal given back; asked again and left alone, `q` still quits
/// without waiting for the read.
#[test]
fn open_of_a_large_file_leaves_the_keys_working() {
    if !common::require(have_tmux(), "tmux") {
        return;
    }
    let (_dir, work, tmux) = scratch_shell();
    // Short rows of few values: much to read, little to hold.
    let row = "F,34,1000\nM,51,1001\n";
    let mut text = String::from("sex,age,zip\n");
    text.push_str(&row.repeat(200_000_000 / row.len()));
    std::fs::write(work.join("big.csv"), text).unwrap();
    let bin = env!("CARGO_BIN_EXE_anonlab");
    let pane = |format: &str| tmux.pane(format);
    for quit_while_reading in [false, true] {
        tmux.send(&["clear", "Enter"]);
        tmux.wait_for("a clear screen", |s| {
            s.contains("shell$") && !s.contains("anonlab-exit")
        });
        tmux.send(&[&format!("'{bin}'; echo anonlab-exit=$?"), "Enter"]);
        tmux.wait_for("the demo on the Data screen", |s| {
            s.contains("1 Data") && s.contains("demo.csv (embedded)")
        });
        tmux.send(&[":"]);
        tmux.send(&["-l", "open big.csv"]);
        tmux.send(&["Enter"]);
        tmux.wait_for("the reading status", |s| {
            s.contains("opening big.csv") && s.contains("Esc cancels")
        });
        let asked = Instant::now();
        if !quit_while_reading {
            // Another screen while the file is read.
            tmux.send(&["2"]);
            tmux.wait_for("the Risk screen during the read", |s| {
                s.contains("Attacker knows") && s.contains("opening big.csv")
            });
            tmux.send(&["Escape"]);
            tmux.wait_for("the cancel notice", |s| {
                s.contains("cancelled opening big.csv") && s.contains("demo.csv (embedded)")
            });
        }
        tmux.send(&["q"]);
        let screen = tmux.wait_for("the shell after q", |s| {
            s.lines().any(|l| l.starts_with("anonlab-exit="))
        });
        assert!(screen.lines().any(|l| l == "anonlab-exit=0"), "{screen}");
        assert!(
            asked.elapsed() < Duration::from_secs(10),
            "the keys waited {:?} for the read",
            asked.elapsed()
        );
        assert_eq!(pane("#{alternate_on}"), "0", "alternate screen left on");
        assert_eq!(pane("#{mouse_any_flag}"), "0", "mouse reporting left on");
    }
}
