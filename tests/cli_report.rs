//! `anonlab report PROJECT -o DIR` run as a binary, `--project` on
//! `anonymize` and `compare`, and the warning for a data file that changed
//! since its project was saved.

use std::path::Path;

use predicates::prelude::*;

use crate::common;
use common::cli::anonlab;

use anonlab::data::{CsvOptions, Project, Role};
use anonlab::report::Report;
use anonlab::session::Session;

/// `anonlab report PROJECT -o OUT`, run.
fn report(project: &Path, out: &Path) -> assert_cmd::assert::Assert {
    anonlab()
        .args([
            "report",
            project.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
}

/// A small CSV with a sensitive attribute and its project.
fn project_on_csv(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let csv = dir.join("people.csv");
    let mut text = String::from("name,sex,age,zip,disease\n");
    for i in 0..80 {
        text.push_str(&format!(
            "p{i},{},{},{},d{}\n",
            ["F", "M"][i % 2],
            25 + i % 23,
            1000 + i % 5,
            i % 6
        ));
    }
    std::fs::write(&csv, text).unwrap();
    let mut p = Project::new(Some("people.csv".into()), CsvOptions::default());
    p.roles.insert("name".into(), Role::Identifier);
    for qi in ["sex", "age", "zip"] {
        p.roles.insert(qi.into(), Role::QuasiIdentifier);
    }
    p.roles.insert("disease".into(), Role::Sensitive);
    p.params.algorithm = Some("anatomy".into());
    p.params.k = 3;
    p.params.l = 3;
    p.params.seed = 7;
    let file = dir.join("p.json");
    p.save(&file).unwrap();
    (file, csv)
}

#[test]
fn report_writes_html_markdown_json_and_charts() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("demo.json");
    Session::demo()
        .unwrap()
        .to_project()
        .save(&project)
        .unwrap();
    let out = dir.path().join("report");
    report(&project, &out)
        .success()
        .stdout(predicate::str::contains(
            "of 1,500 people could be singled out",
        ))
        .stdout(predicate::str::contains("wrote"))
        .stderr(predicate::str::is_empty());
    let json = std::fs::read_to_string(out.join("report.json")).unwrap();
    let r: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(r.dataset.rows, 1500);
    assert!(out.join("report.html").exists() && out.join("report.md").exists());
    for c in &r.charts {
        assert!(out.join(&c.file).exists(), "{}", c.file);
    }
}

#[test]
fn report_reproduces_with_its_own_command_and_anonymize_accepts_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let (project, csv) = project_on_csv(dir.path());
    let before = (
        std::fs::read(&project).unwrap(),
        std::fs::read(&csv).unwrap(),
    );
    let out = dir.path().join("out");
    report(&project, &out).success();
    // Inputs are only read.
    assert_eq!(std::fs::read(&project).unwrap(), before.0);
    assert_eq!(std::fs::read(&csv).unwrap(), before.1);
    let r: Report =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(
        (r.release.algorithm.as_str(), r.release.k, r.release.seed),
        ("anatomy", 3, Some(7))
    );
    // The release alone, by the command the report prints: the same groups.
    let cmd = r.reproduce.anonymize_command.replace("published.csv", "");
    let mut args: Vec<String> = cmd.split_whitespace().skip(1).map(String::from).collect();
    args.push(dir.path().join("pub.csv").display().to_string());
    args.push("--json".into());
    let output = anonlab().args(&args).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let eval: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(eval["groups"], r.release.groups);
    assert_eq!(eval["buckets"], r.release.buckets);
    // compare reads the project's roles too.
    anonlab()
        .args([
            "compare",
            "--project",
            project.to_str().unwrap(),
            "-k",
            "3",
            "-l",
            "3",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("anatomy"));
}

#[test]
fn a_changed_data_file_is_a_warning_not_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let (project, csv) = project_on_csv(dir.path());
    let mut text = std::fs::read_to_string(&csv).unwrap();
    text.push_str("p80,F,30,1001,d1\n");
    std::fs::write(&csv, text).unwrap();
    let out = dir.path().join("out");
    report(&project, &out)
        .success()
        .stderr(predicate::str::contains(
            "changed since the project was saved",
        ));
    let r: Report =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(r.dataset.rows, 81);
    assert!(r
        .dataset
        .data_warning
        .as_deref()
        .unwrap()
        .contains("people.csv"));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("changed since the project was saved"));
    for cmd in [
        vec!["assess", "--project"],
        vec!["anonymize", "-a", "mondrian", "--project"],
    ] {
        let mut args: Vec<&str> = cmd.clone();
        args.push(project.to_str().unwrap());
        anonlab()
            .args(&args)
            .assert()
            .success()
            .stderr(predicate::str::contains(
                "changed since the project was saved",
            ));
    }
}

#[test]
fn bad_report_requests_are_explained() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    anonlab()
        .args(["report", missing.to_str().unwrap(), "-o", "x"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("nope.json"));
    // An output "directory" that is a file.
    let (project, _) = project_on_csv(dir.path());
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    report(&project, &file)
        .failure()
        .stderr(predicate::str::contains("file"));
    // An unknown algorithm in the project names itself.
    let mut p = Project::load(&project).unwrap();
    p.params.algorithm = Some("nonesuch".into());
    p.save(&project).unwrap();
    report(&project, &dir.path().join("o"))
        .failure()
        .stderr(predicate::str::contains("nonesuch"));
}

/// A report is written as one unit (issue 36, item 7): when one of its
/// files cannot be written — here report.html is a directory — none of
/// the others is put in place, no temporary file is left, and a directory
/// the command made is removed again.
#[test]
fn a_failed_report_leaves_no_partial_directory() {
    let dir = tempfile::tempdir().unwrap();
    let (project, _) = project_on_csv(dir.path());
    // An existing directory whose report.html cannot be replaced.
    let out = dir.path().join("report");
    std::fs::create_dir_all(out.join("report.html")).unwrap();
    report(&project, &out)
        .failure()
        .stderr(predicate::str::contains("report.html"));
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["report.html"], "only what was there before");
    // And the same report where it can be written: every file.
    let fresh = dir.path().join("fresh");
    report(&project, &fresh).success();
    for f in ["report.html", "report.md", "report.json"] {
        assert!(fresh.join(f).is_file(), "{f}");
    }
}

/// Issue 32, item 3: one threshold. `anonymize`, `compare` and `report`
/// read the project's threshold, or `--threshold` on each, count the
/// records above it alike for one release, and say which (every "above"
/// figure of `anonymize --json` names it, the evaluation's too, which used
/// to count above 1/k and 1/l).
#[test]
fn anonymize_compare_and_report_count_above_one_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = project_on_csv(dir.path());
    let mut p = Project::load(&file).unwrap();
    p.params.algorithm = Some("mondrian".into());
    p.attacker.threshold = 0.3;
    p.save(&file).unwrap();
    let project = file.to_str().unwrap();
    let json = |args: &[&str]| -> serde_json::Value {
        let out = anonlab().args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    for (flag, threshold) in [(None, 0.3), (Some("0.45"), 0.45)] {
        let extra: Vec<&str> = flag.map_or(vec![], |t| vec!["--threshold", t]);
        let anonymized =
            json(&[&["anonymize", "--project", project, "--json"][..], &extra].concat());
        assert_eq!(anonymized["threshold"], threshold);
        for figure in ["reidentification", "breach"] {
            assert_eq!(
                anonymized[figure]["summary"]["threshold"], threshold,
                "{figure}"
            );
        }
        let after = &anonymized["after"]["key_count"]["summary"];
        assert_eq!(after["threshold"], threshold);
        let above = after["records_above_threshold"].as_u64().unwrap();

        let compared = json(
            &[
                &["compare", "--project", project, "--algorithms", "mondrian"][..],
                &["-k", "3", "--json"],
                &extra,
            ]
            .concat(),
        );
        let row = &compared[0];
        assert_eq!(row["fingerprint"], anonymized["fingerprint"]);
        assert_eq!(row["evaluation"]["threshold"], threshold);
        let summary = &row["after"]["key_count"]["summary"];
        assert_eq!(summary["records_above_threshold"].as_u64(), Some(above));

        let out = dir.path().join(format!("report-{threshold}"));
        let mut cmd = anonlab();
        cmd.args(["report", project, "-o", out.to_str().unwrap()]);
        cmd.args(&extra).assert().success();
        let report: Report =
            serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap())
                .unwrap();
        assert_eq!(report.risk.threshold, threshold);
        assert_eq!(report.risk.after_key_count.above_threshold as u64, above);
        assert!(report
            .reproduce
            .anonymize_command
            .contains(&format!("--threshold {threshold}")));
    }
    // Refused outside [0, 1], on each command.
    anonlab()
        .args(["anonymize", "--project", project, "--threshold", "1.5"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "--threshold 1.5 is not between 0 and 1",
        ));
}

/// Issue 32, item 3: the seed printed is the seed used — none for an
/// algorithm that makes no random choice (the CLI printed "seed 0" for
/// Mondrian while the TUI said 42), the request's for one that does.
#[test]
fn the_seed_printed_is_the_seed_used() {
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = project_on_csv(dir.path());
    let project = file.to_str().unwrap();
    let run = |algorithm: &str, seed: &str| {
        anonlab()
            .args(["anonymize", "--project", project, "-a", algorithm])
            .args(["--seed", seed])
            .output()
            .unwrap()
    };
    let text = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).to_string();
    let mondrian = text(&run("mondrian", "9"));
    assert!(mondrian.contains("mondrian: k = 3, no seed"), "{mondrian}");
    assert!(!mondrian.contains("seed 0"), "{mondrian}");
    let anatomy = text(&run("anatomy", "9"));
    assert!(anatomy.contains("l = 3, seed 9 —"), "{anatomy}");
    let json = anonlab()
        .args([
            "anonymize",
            "--project",
            project,
            "-a",
            "mondrian",
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(v["seed"].is_null(), "{}", v["seed"]);
    // The project's seed (7) where --seed is not given.
    let json = anonlab()
        .args(["anonymize", "--project", project, "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["seed"], 7);
}
