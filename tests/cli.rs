//! CLI tests: run the binary as a user would and check what it prints and
//! its exit code, on Adult, on the bad-input fixtures in tests/data/, and
//! on files made in a temporary directory.

use predicates::prelude::*;

use crate::common;
use common::cli::{anonlab, json_of};
use common::{have_adult, ADULT};

const QIS: &str = "sex,age,race,marital-status,education,native-country,workclass,occupation";

#[test]
fn assess_adult_json_has_the_documented_fields() {
    if !have_adult() {
        return;
    }
    let out = anonlab()
        .args([
            "assess",
            ADULT,
            "--qi",
            QIS,
            "--sensitive",
            "salary-class",
            "--json",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    for f in [
        "rows",
        "quasi_identifiers",
        "classes",
        "k",
        "uniques",
        "risk",
        "histogram",
        "prefix",
        "models",
    ] {
        assert!(v.get(f).is_some(), "field {f} missing");
    }
    for f in ["mean", "max", "threshold", "records_above_threshold"] {
        assert!(v["risk"].get(f).is_some(), "risk.{f} missing");
    }
    for f in ["attributes", "classes", "uniques"] {
        assert!(v["prefix"][0].get(f).is_some(), "prefix.{f} missing");
    }
    let m = &v["models"]["salary-class"];
    for f in [
        "l_distinct",
        "l_entropy",
        "recursive_c_l",
        "t_closeness",
        "alpha_k",
        "delta_disclosure",
        "beta_likeness_basic",
        "beta_likeness_enhanced",
    ] {
        assert!(m.get(f).is_some(), "models.salary-class.{f} missing");
    }
    assert_eq!(v["rows"], 30162);
    assert_eq!(v["uniques"], 14021);
    assert_eq!(v["classes"], 18109);
    assert_eq!(v["quasi_identifiers"].as_array().unwrap().len(), 8);
}

#[test]
fn assess_adult_human_report() {
    if !have_adult() {
        return;
    }
    anonlab()
        .args(["assess", ADULT, "--qi", QIS, "--sensitive", "salary-class"])
        .assert()
        .success()
        .stdout(predicate::str::contains("30,162 records"))
        .stdout(predicate::str::contains("14,021"))
        .stdout(predicate::str::contains("as the attacker learns more"))
        .stdout(predicate::str::contains("salary-class: k 1"));
}

#[test]
fn semi_sensitive_cells_lower_the_risk() {
    if !have_adult() {
        return;
    }
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["assess", ADULT, "--qi", "sex,age,race", "--json"];
        args.extend_from_slice(extra);
        let out = anonlab().args(&args).output().unwrap();
        json_of(&out)
    };
    let plain = run(&["--semi-sensitive", "occupation"]);
    let hidden = run(&[
        "--semi-sensitive",
        "occupation",
        "--sensitive-when",
        "occupation in {Armed-Forces,Protective-serv}",
    ]);
    assert_eq!(plain["hidden_cells"], 0);
    let n_hidden = hidden["hidden_cells"].as_u64().unwrap();
    assert!(n_hidden > 0);
    // Hiding cells only ever adds matches, so uniques cannot rise.
    assert!(hidden["uniques"].as_u64() <= plain["uniques"].as_u64());
    let dens = run(&[
        "--semi-sensitive",
        "occupation",
        "--sensitive-density",
        "0.2",
        "--seed",
        "7",
    ]);
    assert_eq!(dens["hidden_cells"], (30162.0f64 * 0.2).round() as u64);
}

#[test]
fn demo_assess_through_saved_project_replays_the_same_figures() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("census.csv");
    anonlab()
        .args(["synth", "--rows", "2000", "--seed", "5", "-o"])
        .arg(&data)
        .assert()
        .success();
    let project = dir.path().join("p.json");
    let first = anonlab()
        .args(["assess"])
        .arg(&data)
        .args([
            "--qi",
            "sex,age,zip",
            "--sensitive",
            "salary-class",
            "--json",
            "--save-project",
        ])
        .arg(&project)
        .output()
        .unwrap();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let again = anonlab()
        .args(["assess", "--project"])
        .arg(&project)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(first.stdout, again.stdout);
}

#[test]
fn synth_is_deterministic_and_atomic() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.csv");
    let b = dir.path().join("b.csv");
    for f in [&a, &b] {
        anonlab()
            .args(["synth", "--rows", "500", "--seed", "9", "-o"])
            .arg(f)
            .assert()
            .success();
    }
    let text = std::fs::read_to_string(&a).unwrap();
    assert_eq!(text, std::fs::read_to_string(&b).unwrap());
    assert_eq!(text.lines().count(), 501);
    // No temporary file left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

fn fails_with(file: &str, args: &[&str], needles: &[&str]) {
    let path = format!("tests/data/{file}");
    let before = std::fs::read(&path).unwrap();
    let out = anonlab()
        .args(["assess", &path])
        .args(args)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{file} should fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "{file}: '{n}' not in: {err}");
    }
    assert_eq!(std::fs::read(&path).unwrap(), before, "input file modified");
}

#[test]
fn bad_input_gets_a_clear_message() {
    let q = ["--qi", "sex,age"];
    fails_with("empty.csv", &q, &["empty.csv", "empty"]);
    fails_with("header_only.csv", &q, &["header_only.csv", "no data rows"]);
    fails_with(
        "ragged.csv",
        &q,
        &["ragged.csv", "row 3", "'zip'", "ragged"],
    );
    fails_with(
        "bad_utf8.csv",
        &q,
        &["bad_utf8.csv", "row 3", "'age'", "UTF-8"],
    );
    fails_with(
        "duplicate_header.csv",
        &q,
        &["duplicate_header.csv", "row 1", "'sex'", "duplicated"],
    );
    fails_with(
        "bad_double_quote.csv",
        &q,
        &["bad_double_quote.csv", "row 2", "'zip'", "never closed"],
    );
    fails_with(
        "bom_semicolon_crlf.csv",
        &["--qi", "sex,agee"],
        &["bom_semicolon_crlf.csv", "unknown column 'agee'"],
    );
    fails_with(
        "bom_semicolon_crlf.csv",
        &["--qi", "sex", "--threshold", "2"],
        &["between 0 and 1"],
    );
    fails_with(
        "bom_semicolon_crlf.csv",
        &[
            "--qi",
            "sex",
            "--semi-sensitive",
            "age",
            "--sensitive-when",
            "age >= old",
        ],
        &["not a number"],
    );
    fails_with("bom_semicolon_crlf.csv", &[], &["--qi"]);
}

#[test]
fn bom_semicolons_and_crlf_are_read() {
    let out = anonlab()
        .args([
            "assess",
            "tests/data/bom_semicolon_crlf.csv",
            "--qi",
            "sex,age,zip",
            "--sensitive",
            "disease",
            "--json",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["rows"], 5);
    // (M,30,100)×2, (F,30,100), (F,41,200), (M,?,100): 4 classes, 3 uniques.
    assert_eq!(v["classes"], 4);
    assert_eq!(v["uniques"], 3);
    assert_eq!(v["models"]["disease"]["l_distinct"], 1);
}

#[test]
fn a_200_mb_field_is_refused_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("huge.csv");
    let mut text = Vec::with_capacity(200 * 1024 * 1024 + 64);
    text.extend_from_slice(b"sex,age,notes\nM,30,\"");
    text.resize(text.len() + 200 * 1024 * 1024, b'x');
    text.extend_from_slice(b"\"\nF,41,ok\n");
    std::fs::write(&f, &text).unwrap();
    drop(text);
    let out = anonlab()
        .arg("assess")
        .arg(&f)
        .args(["--qi", "sex,age"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("huge.csv")
            && err.contains("row 2")
            && err.contains("limit of 16,777,216 bytes")
            && err.contains("--max-row-bytes"),
        "{err}"
    );
}

/// `anonlab assess … | head` : when the reader has gone, the program ends
/// quietly (SIGPIPE's default action) instead of panicking in `println!`.
/// The read end is closed before the binary writes anything, so every write
/// meets a closed pipe.
#[cfg(unix)]
#[test]
fn closed_stdout_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("anonlab"))
        .args(["assess", "assets/demo.csv", "--qi", "sex,age,zip"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    child.wait().unwrap();
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
}

/// `anonlab FILE`, what a newcomer types first, opens the file in the TUI
/// as `anonlab tui FILE` does (here its help, which needs no terminal); a
/// first argument that is neither a command nor a file is still refused
/// with clap's list of commands.
#[test]
fn a_file_as_the_only_argument_opens_it_in_the_tui() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("people.csv");
    std::fs::write(&f, "sex,age\nF,30\nM,40\n").unwrap();
    anonlab()
        .arg(&f)
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("Usage: anonlab tui"));
    anonlab()
        .arg(dir.path().join("missing.csv"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("unrecognized subcommand"));
    // A command's name wins over a file of that name.
    std::fs::write(dir.path().join("assess"), "x\n1\n").unwrap();
    anonlab()
        .current_dir(dir.path())
        .args(["assess", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Usage: anonlab assess"));
}
