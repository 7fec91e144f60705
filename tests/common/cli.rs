//! Running the `anonlab` binary in CLI tests and reading its `--json` output.

use assert_cmd::Command;

/// The crate's binary, built by cargo for this test run.
pub fn anonlab() -> Command {
    Command::cargo_bin("anonlab").unwrap()
}

/// The JSON a successful run printed; fails the test with the run's stderr
/// when it did not succeed.
pub fn json_of(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `anonlab anonymize --project PROJECT -o CSV --release CSV.json`: what
/// `:write` must write byte for byte for the same saved session. Fails the
/// test with the run's stderr when the run fails.
pub fn publish_project(project: &std::path::Path, csv: &std::path::Path) -> std::process::Output {
    let out = anonlab()
        .args(["anonymize", "--project"])
        .arg(project)
        .arg("-o")
        .arg(csv)
        .arg("--release")
        .arg(csv.with_extension("json"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        project.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
