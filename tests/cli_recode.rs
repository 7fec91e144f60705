//! CLI tests of `--top-code`, `--bottom-code` and `--round` (issue 33):
//! the binary run on the demo data and on Adult, the recodings reported
//! with the cells each changed, carried by a project into `anonymize` and
//! `report`, and bad input refused with nothing written.

use std::path::{Path, PathBuf};

use anonlab::data::{load_csv, CsvOptions};
use predicates::prelude::*;

use crate::common;
use common::cli::{anonlab, json_of};
use common::{adult_path, have_adult};

const QI7: &str = "sex,age,race,marital-status,education,native-country,workclass";

fn demo_file(dir: &Path) -> PathBuf {
    let f = dir.join("demo.csv");
    anonlab()
        .args(["synth", "--demo", "-o"])
        .arg(&f)
        .assert()
        .success();
    f
}

/// Records of `file` whose `column` holds a number for which `beyond` holds.
fn count(file: &Path, column: &str, beyond: impl Fn(f64) -> bool) -> u64 {
    let ds = load_csv(file, &CsvOptions::default()).unwrap();
    let col = ds.column(column).unwrap();
    col.codes()
        .iter()
        .filter_map(|&c| col.number(c))
        .filter(|&x| beyond(x))
        .count() as u64
}

/// Every number written in `column` of a published table (a value, or
/// the ends of an interval such as `[55-60]`).
fn numbers_in(table: &Path, column: &str) -> Vec<f64> {
    let text = std::fs::read_to_string(table).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == column).unwrap();
    lines
        .flat_map(|l| {
            let cell = l.split(',').nth(at).unwrap_or("").to_string();
            cell.split(|c: char| !(c.is_ascii_digit() || c == '.'))
                .filter_map(|t| t.parse::<f64>().ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn anonymize_top_codes_the_demo_before_mondrian_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let data = demo_file(dir.path());
    let out = dir.path().join("out.csv");
    let release = dir.path().join("out.json");
    let run = anonlab()
        .arg("anonymize")
        .arg(&data)
        .args(["--qi", "sex,age,zip", "--sensitive", "disease"])
        .args(["--identifier", "name", "-a", "mondrian", "-k", "3"])
        .args(["--top-code", "age=60", "--json", "-o"])
        .arg(&out)
        .arg("--release")
        .arg(&release)
        .output()
        .unwrap();
    let v = json_of(&run);
    let above = count(&data, "age", |a| a > 60.0);
    assert!(above > 0, "the demo has people over 60");
    let r = &v["recodings"][0];
    assert_eq!(r["method"], "top-code");
    assert_eq!(r["column"], "age");
    assert_eq!(r["threshold"], "60");
    assert_eq!(r["changed"], above);
    let checks = v["verification"]["checks"].as_array().unwrap();
    assert!(
        checks
            .iter()
            .any(|c| c["claim"] == "top-code age=60 holds" && c["holds"] == true),
        "{checks:?}"
    );
    // The release JSON says the same, and no published age exceeds 60.
    let rel: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&release).unwrap()).unwrap();
    assert_eq!(rel["recodings"], v["recodings"]);
    let ages = numbers_in(&out, "age");
    assert!(!ages.is_empty());
    assert!(ages.iter().all(|&a| a <= 60.0), "{ages:?}");

    // In words: the line before the evaluation.
    anonlab()
        .arg("anonymize")
        .arg(&data)
        .args(["--qi", "sex,age,zip", "--identifier", "name"])
        .args(["-a", "mondrian", "-k", "3", "--round", "age=5"])
        .args(["--top-code", "age=60"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "recoded age: rounded to multiples of 5 (ties to even)",
        ))
        .stdout(predicate::str::contains(
            "recoded age: top-coded at 60: values above 60 published as 60",
        ));
}

#[test]
fn adult_top_coded_at_90_changes_nothing_and_warns_then_mondrian_runs() {
    if !have_adult() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("adult.csv");
    // Adult's ages stop at 90: the recoding is applied, changes no cell,
    // and says so.
    let run = anonlab()
        .arg("anonymize")
        .arg(adult_path())
        .args(["--qi", QI7, "-a", "mondrian", "-k", "5", "--queries", "0"])
        .args(["--top-code", "age=90", "--json", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let v = json_of(&run);
    assert_eq!(v["recodings"][0]["changed"], 0);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("changes no cell of 'age'"), "{stderr}");
    assert!(out.exists());

    // At R's 99th percentile (type 7): quantile(adult$age, 0.99) = 72, and
    // 290 records are older (computed once with R 4.x on adult.csv).
    let run = anonlab()
        .arg("anonymize")
        .arg(adult_path())
        .args(["--qi", QI7, "-a", "mondrian", "-k", "5", "--queries", "0"])
        .args(["--top-code", "age=q0.99", "--bottom-code", "age=q0.015"])
        .args(["--json", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let v = json_of(&run);
    let r = v["recodings"].as_array().unwrap();
    // Bottom codes first, then top codes (the order the flags apply).
    // R: quantile(adult$age, 0.015) = 18, 328 records younger.
    assert_eq!(
        (&r[0]["threshold"], &r[0]["changed"]),
        (&"18".into(), &328.into())
    );
    assert_eq!(
        (&r[1]["threshold"], &r[1]["changed"]),
        (&"72".into(), &290.into())
    );
    assert_eq!(r[1]["changed"], count(&adult_path(), "age", |a| a > 72.0));
    let ages = numbers_in(&out, "age");
    assert!(ages.iter().all(|&a| (18.0..=72.0).contains(&a)), "{ages:?}");
}

#[test]
fn bad_recodings_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let data = demo_file(dir.path());
    let out = dir.path().join("out.csv");
    let release = dir.path().join("out.json");
    for (flag, spec, says) in [
        ("--top-code", "sex=3", "categorical"),
        ("--top-code", "height=180", "unknown column 'height'"),
        ("--top-code", "age=q1.5", "outside (0, 1)"),
        ("--bottom-code", "age=q0", "outside (0, 1)"),
        ("--top-code", "age=q0.9:10", "below the threshold"),
        ("--top-code", "age", "COL=VALUE"),
        ("--round", "age=0", "above 0"),
        ("--round", "age=-5", "above 0"),
        ("--round", "age=NaN", "not a finite number"),
        ("--round", "age=inf", "not a finite number"),
    ] {
        anonlab()
            .arg("anonymize")
            .arg(&data)
            .args(["--qi", "sex,age,zip", "--identifier", "name"])
            .args(["-a", "mondrian", "-k", "3", flag, spec, "-o"])
            .arg(&out)
            .arg("--release")
            .arg(&release)
            .assert()
            .failure()
            .stderr(predicate::str::contains(says));
        assert!(!out.exists() && !release.exists(), "{flag} {spec} wrote");
    }
}

#[test]
fn a_project_carries_the_recodings_to_anonymize_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let data = demo_file(dir.path());
    let project = dir.path().join("p.json");
    // assess: the figures before are the file's, and those of the recoded
    // data beside them; the project keeps the recodings.
    let plain = json_of(
        &anonlab()
            .arg("assess")
            .arg(&data)
            .args(["--qi", "sex,age,zip", "--json"])
            .output()
            .unwrap(),
    );
    let v = json_of(
        &anonlab()
            .arg("assess")
            .arg(&data)
            .args(["--qi", "sex,age,zip", "--json", "--round", "age=10"])
            .args(["--top-code", "age=60", "--save-project"])
            .arg(&project)
            .output()
            .unwrap(),
    );
    assert_eq!(v["baseline"], plain["baseline"], "before is the file's");
    assert_eq!(v["recoded"]["recodings"].as_array().unwrap().len(), 2);
    assert!(v["recoded"]["uniques"].as_u64() < plain["uniques"].as_u64());
    let saved = std::fs::read_to_string(&project).unwrap();
    assert!(saved.contains("\"recodes\""), "{saved}");

    let run = anonlab()
        .args(["anonymize", "--project"])
        .arg(&project)
        .args(["-a", "mondrian", "-k", "3", "--json"])
        .output()
        .unwrap();
    let a = json_of(&run);
    assert_eq!(a["recodings"], v["recoded"]["recodings"]);

    // compare: every row's data recoded alike, and said so.
    let rows = json_of(
        &anonlab()
            .args(["compare", "--project"])
            .arg(&project)
            .args(["--algorithms", "mondrian,anatomy", "-k", "3", "--json"])
            .args(["--sensitive", "disease", "--queries", "0"])
            .output()
            .unwrap(),
    );
    for row in rows.as_array().unwrap() {
        assert_eq!(row["recodings"], v["recoded"]["recodings"], "{row}");
    }

    let report = dir.path().join("report");
    anonlab()
        .arg("report")
        .arg(&project)
        .arg("-o")
        .arg(&report)
        .assert()
        .success();
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("report.json")).unwrap())
            .unwrap();
    assert_eq!(r["release"]["recodings"], v["recoded"]["recodings"]);
    let md = std::fs::read_to_string(report.join("report.md")).unwrap();
    assert!(md.contains("age: top-coded at 60"), "{md}");

    // A recoding the project file cannot hold is refused on opening.
    assert!(saved.contains(r#""at": "60""#), "{saved}");
    let bad = saved.replace(r#""at": "60""#, r#""at": "q7""#);
    let bad_project = dir.path().join("bad.json");
    std::fs::write(&bad_project, bad).unwrap();
    anonlab()
        .args(["anonymize", "--project"])
        .arg(&bad_project)
        .args(["-a", "mondrian", "-k", "3"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("outside (0, 1)"));
}
