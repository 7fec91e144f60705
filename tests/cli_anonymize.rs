//! CLI tests of `anonymize` and `compare`: the binary run as a user would,
//! on Adult (skipped with a notice when absent) and on the demo data.

use std::path::Path;

use predicates::prelude::*;

use crate::common;
use common::cli::{anonlab, json_of};
use common::{have_adult, ADULT};

const QI7: &str = "sex,age,race,marital-status,education,native-country,workclass";

fn demo_file(dir: &Path) -> std::path::PathBuf {
    let f = dir.join("demo.csv");
    anonlab()
        .args(["synth", "--demo", "-o"])
        .arg(&f)
        .assert()
        .success();
    f
}

#[test]
fn anonymize_writes_verified_release_files() {
    let dir = tempfile::tempdir().unwrap();
    let data = demo_file(dir.path());
    for algo in ["mondrian", "mondrian-l", "anatomy", "cbg"] {
        let out = dir.path().join(format!("{algo}.csv"));
        let json = dir.path().join(format!("{algo}.json"));
        anonlab()
            .arg("anonymize")
            .arg(&data)
            .args([
                "--qi",
                "sex,age,zip",
                "--sensitive",
                "disease",
                "--identifier",
                "name",
            ])
            .args(["-a", algo, "-k", "3", "-l", "3", "--queries", "100", "-o"])
            .arg(&out)
            .arg("--release")
            .arg(&json)
            .assert()
            .success()
            .stdout(predicate::str::contains(
                "verified by the independent checker",
            ))
            .stdout(predicate::str::contains("FAIL").not());
        let table = std::fs::read_to_string(&out).unwrap();
        let header = table.lines().next().unwrap();
        assert!(header.starts_with("sex,age,zip"), "{header}");
        assert!(
            header.contains("GID") && !header.contains("name"),
            "{header}"
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(v["algorithm"], algo);
        assert_eq!(v["source_rows"], 1500);
        if algo == "anatomy" || algo == "cbg" {
            // Bucketized: the disease is not on the rows, but in the bucket table.
            assert!(!header.contains("disease"), "{header}");
            assert!(dir.path().join(format!("{algo}.buckets.csv")).exists());
        }
    }
}

#[test]
fn anonymize_refuses_impossible_parameters_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = demo_file(dir.path());
    let out = dir.path().join("never.csv");
    let refuse = |args: &[&str], needle: &str| {
        anonlab()
            .arg("anonymize")
            .arg(&data)
            .args(["--qi", "sex,age,zip", "--sensitive", "disease"])
            .args(args)
            .arg("-o")
            .arg(&out)
            .assert()
            .failure()
            .stderr(predicate::str::contains(needle));
        assert!(!out.exists());
    };
    refuse(&["-a", "mondrian", "-k", "5000"], "larger than the data");
    refuse(
        &["-a", "anatomy", "-l", "11"],
        "distinct values of 'disease'",
    );
    refuse(
        &["-a", "cbg", "-k", "3", "-l", "9"],
        "is not 9-eligible: the value",
    );
    refuse(&["-a", "magic"], "unknown algorithm 'magic'");
    anonlab()
        .arg("anonymize")
        .arg(&data)
        .args(["--qi", "sex,agee", "-a", "mondrian", "-o"])
        .arg(&out)
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("demo.csv")
                .and(predicate::str::contains("unknown column 'agee'")),
        );
}

#[test]
fn compare_on_adult_reports_each_algorithm_and_l() {
    if !have_adult() {
        return;
    }
    let out = anonlab()
        .args(["compare", ADULT, "--qi", QI7, "--sensitive", "occupation"])
        .args([
            "--algorithms",
            "mondrian-l,anatomy,cbg",
            "-k",
            "3",
            "-l",
            "2,4,8",
            "--queries",
            "200",
            "--json",
        ])
        .output()
        .unwrap();
    let rows = json_of(&out);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 9);
    for r in rows {
        let l = r["l"].as_u64().unwrap();
        if l == 8 {
            // Prof-specialty is on 4,038 of 30,162 rows: more than 1/8.
            assert!(r["infeasible"].as_str().unwrap().contains("Prof-specialty"));
            continue;
        }
        let e = &r["evaluation"];
        assert!(e["verification"]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["holds"] == true));
        for f in ["mean", "max"] {
            assert!(e["breach"]["summary"][f].as_f64().unwrap() <= 1.0);
        }
        assert!(e["utility"]["discernibility"].as_u64().unwrap() >= 30162);
        assert!(e["queries"]["mean_relative_error"].as_f64().is_some());
        if r["algorithm"] != "mondrian-l" {
            assert!(e["breach"]["summary"]["max"].as_f64().unwrap() <= 1.0 / l as f64 + 1e-9);
        }
    }
}

#[test]
fn compare_human_table() {
    let dir = tempfile::tempdir().unwrap();
    let data = demo_file(dir.path());
    anonlab()
        .arg("compare")
        .arg(&data)
        .args([
            "--qi",
            "sex,age,zip",
            "--sensitive",
            "disease",
            "-k",
            "2,4",
            "-l",
            "2",
            "--queries",
            "50",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("mondrian-l").and(predicate::str::contains("cbg")))
        .stdout(predicate::str::contains("C_DM"));
}
