//! The CLI's progress bar (src/cli/progress.rs) is drawn on a terminal
//! and nowhere else: a long command with stderr piped writes no bar bytes,
//! and the same command under a pseudo-terminal (`script`, when the
//! machine has it) does draw one — the check that the first assertion is
//! not vacuous.

use std::path::Path;
use std::process::Command as Process;

use crate::common;
use common::cli::anonlab;

/// A census-like table large enough that anonymizing it takes well over
/// the bar's 200 ms delay (40,000 rows took 0.15 s once Mondrian's cuts
/// became linear, so the bar never appeared; 300,000 take about 0.8 s).
fn big_table(dir: &Path) -> std::path::PathBuf {
    let csv = dir.join("big.csv");
    anonlab()
        .args(["synth", "--rows", "300000", "-o", csv.to_str().unwrap()])
        .assert()
        .success();
    csv
}

const ARGS: [&str; 11] = [
    "anonymize",
    "-a",
    "mondrian-l",
    "--qi",
    "sex,age,zip",
    "--sensitive",
    "occupation",
    "-k",
    "5",
    "-l",
    "2",
];

fn bar_bytes(stderr: &[u8]) -> bool {
    let text = String::from_utf8_lossy(stderr);
    text.contains('\r') || text.contains('\u{1b}') || text.contains("anonymizing [")
}

#[test]
fn a_piped_stderr_gets_no_progress_bar() {
    let dir = tempfile::tempdir().unwrap();
    let csv = big_table(dir.path());
    let out = anonlab()
        .args(ARGS)
        .arg(&csv)
        .output()
        .expect("anonlab runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !bar_bytes(&out.stderr),
        "progress bar bytes on a pipe: {:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("verified"));
}

#[test]
fn a_terminal_gets_the_bar() {
    let has_script = Process::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    // No `script` (util-linux), no pseudo-terminal to test on.
    if !common::require(has_script, "`script` (util-linux)") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let csv = big_table(dir.path());
    let bin = assert_cmd::cargo::cargo_bin("anonlab");
    // stdout goes to /dev/null inside the pseudo-terminal, so what `script`
    // records is stderr: the bar.
    let command = format!(
        "'{}' {} '{}' >/dev/null",
        bin.display(),
        ARGS.join(" "),
        csv.display()
    );
    let out = Process::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .expect("script runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        bar_bytes(&out.stdout),
        "no bar on a terminal: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}
