//! `anonlab correlate` as a user runs it: the readable matrix, the JSON
//! fields, and clear messages for bad flags.

use predicates::prelude::*;

use crate::common;
use common::cli::{anonlab, json_of};
use common::{have_adult, ADULT};

fn small_file(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let p = dir.path().join("t.csv");
    // sex determines smoker exactly; age has 12 distinct values (> 10 bins).
    let mut s = String::from("sex,smoker,age\n");
    for i in 0..12 {
        let (sex, smoker) = if i % 2 == 0 {
            ("F", "no")
        } else {
            ("M", "yes")
        };
        s.push_str(&format!("{sex},{smoker},{}\n", 20 + i));
    }
    std::fs::write(&p, s).unwrap();
    p
}

/// `anonlab correlate FILE EXTRA.. --json`, run successfully, its JSON.
fn correlate_json(f: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let out = anonlab()
        .args(["correlate", f.to_str().unwrap()])
        .args(extra)
        .arg("--json")
        .output()
        .unwrap();
    json_of(&out)
}

#[test]
fn readable_matrix_names_columns_and_bins() {
    let dir = tempfile::tempdir().unwrap();
    let f = small_file(&dir);
    anonlab()
        .args(["correlate", f.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("measure: phi2"))
        .stdout(predicate::str::contains(
            "age: numeric, cut into 10 quantile bins",
        ))
        .stdout(predicate::str::contains(" 1 sex"))
        .stdout(predicate::str::contains(" 2 smoker"))
        .stdout(predicate::str::contains("strongest pairs"))
        // sex × smoker is a perfect association.
        .stdout(predicate::str::is_match(r"sex\s+smoker\s+1\.0000").unwrap());
}

#[test]
fn json_has_measure_columns_discretization_and_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let f = small_file(&dir);
    let v = correlate_json(
        &f,
        &["--columns", "age,sex", "--measure", "cramer", "--bins", "3"],
    );
    assert_eq!(v["measure"], "cramer");
    assert_eq!(v["columns"], serde_json::json!(["age", "sex"]));
    assert_eq!(v["discretization"]["bins"], 3);
    assert_eq!(v["discretization"]["missing"], "category");
    let age = &v["discretization"]["columns"][0];
    assert_eq!(age["method"], "quantile-bins");
    // 12 values in 3 bins of 4: 20–23, 24–27, 28–31.
    assert_eq!(age["bins"][1]["from"], 24.0);
    assert_eq!(age["bins"][1]["to"], 27.0);
    assert_eq!(age["bins"][1]["records"], 4);
    assert_eq!(v["matrix"][0][0], 1.0);
    assert_eq!(v["matrix"][0][1], v["matrix"][1][0]);
}

#[test]
fn pearson_leaves_non_numeric_pairs_empty() {
    let dir = tempfile::tempdir().unwrap();
    let f = small_file(&dir);
    let v = correlate_json(&f, &["--measure", "pearson"]);
    assert!(v["matrix"][0][2].is_null());
    assert_eq!(v["matrix"][2][2], 1.0);
}

#[test]
fn bad_flags_get_clear_messages() {
    let dir = tempfile::tempdir().unwrap();
    let f = small_file(&dir);
    let f = f.to_str().unwrap();
    anonlab()
        .args(["correlate", f, "--measure", "tau"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "unknown correlation measure 'tau'",
        ));
    anonlab()
        .args(["correlate", f, "--columns", "sex,height"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("unknown column 'height'"));
    anonlab()
        .args(["correlate", f, "--bins", "1"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("at least 2"));
    anonlab()
        .args(["correlate", f, "--missing-policy", "guess"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("category or drop"));
}

#[test]
fn adult_default_matrix_reads_as_documented() {
    if !have_adult() {
        return;
    }
    // Figures from tests/golden/adult_correlation.json (φ², rounded).
    anonlab()
        .args(["correlate", ADULT])
        .assert()
        .success()
        .stdout(predicate::str::contains("(30,162 records)"))
        .stdout(predicate::str::contains("[17, 22] [23, 26]"))
        .stdout(predicate::str::is_match(r"sex\s+marital-status\s+0\.2173").unwrap());
}

fn heights_file(dir: &tempfile::TempDir) -> std::path::PathBuf {
    // The module test's example: women short, men tall.
    let p = dir.path().join("h.csv");
    let mut s = String::from("sex,height\n");
    for (sex, h, k) in [
        ("F", 150, 6),
        ("F", 160, 6),
        ("F", 170, 2),
        ("M", 160, 2),
        ("M", 170, 6),
        ("M", 180, 6),
    ] {
        for _ in 0..k {
            s.push_str(&format!("{sex},{h}\n"));
        }
    }
    std::fs::write(&p, s).unwrap();
    p
}

#[test]
fn build_hierarchy_writes_arx_and_conditions_construction_reads() {
    let dir = tempfile::tempdir().unwrap();
    let f = heights_file(&dir);
    let h = dir.path().join("height.csv");
    let g = dir.path().join("G.json");
    anonlab()
        .args([
            "correlate",
            f.to_str().unwrap(),
            "--build-hierarchy",
            "height",
        ])
        .args(["--min-records", "5", "-o", h.to_str().unwrap()])
        .args(["--conditions-out", g.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("conditioned on: sex"))
        .stdout(predicate::str::contains("sex=M — 14 records"))
        .stdout(predicate::str::contains("[160-170] (8) 180 (6)"));
    let arx = std::fs::read_to_string(&h).unwrap();
    assert_eq!(
        arx.lines().collect::<Vec<_>>(),
        [
            "150;150;150;*",
            "160;[160-170];[160-180];*",
            "170;[160-170];[160-180];*",
            "180;180;[160-180];*"
        ]
    );
    // The conditions run through Construction(D, G): 4 groups of at least 6.
    anonlab()
        .args(["anonymize", f.to_str().unwrap(), "--qi", "sex,height"])
        .args([
            "--algorithm",
            "construction",
            "--conditions",
            g.to_str().unwrap(),
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("k = 6"));
}

#[test]
fn build_hierarchy_needs_min_records_and_a_numeric_focus() {
    let dir = tempfile::tempdir().unwrap();
    let f = heights_file(&dir);
    let f = f.to_str().unwrap();
    anonlab()
        .args(["correlate", f, "--build-hierarchy", "height"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("needs --min-records"));
    anonlab()
        .args([
            "correlate",
            f,
            "--build-hierarchy",
            "sex",
            "--min-records",
            "3",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("'sex' is not numeric"));
}

/// `--cuts per-context`: each sex cut on its own tree, so the men's
/// [150-170] overlaps the women's [160-180] (nested, the men could only
/// refine the women's pieces: 150 | [160-170] 180); `--delete-below`:
/// G asks Construction to delete the classes short of k, the paper's last
/// step — here the 6 women at 150 and the 6 men at 180 for k = 7.
#[test]
fn per_context_cuts_and_the_deletion_step() {
    let dir = tempfile::tempdir().unwrap();
    let f = heights_file(&dir);
    let g = dir.path().join("G.json");
    anonlab()
        .args(["correlate", f.to_str().unwrap(), "--build-hierarchy"])
        .args(["height", "--min-records", "5", "--cuts", "per-context"])
        .args(["--delete-below", "7", "--conditions-out", g.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("[150-170] (8) 180 (6)"))
        .stdout(predicate::str::contains(
            "cuts: per-context — 4 intervals over the contexts, 4 if each context had a tree of its own",
        ))
        .stdout(predicate::str::contains("smaller than 7"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&g).unwrap()).unwrap();
    assert_eq!(json["delete_below"], 7);
    anonlab()
        .args(["anonymize", f.to_str().unwrap(), "--qi", "sex,height"])
        .args(["--algorithm", "construction", "--conditions"])
        .arg(&g)
        .assert()
        .success()
        .stdout(predicate::str::contains("k = 8"))
        .stdout(predicate::str::contains("12 of 28 rows suppressed"))
        .stdout(predicate::str::contains("FAIL").not());
}
