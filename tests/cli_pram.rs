//! CLI tests of PRAM as a release (issue 34): `anonymize -a pram
//! --perturb COLS [--strata COL] [--pd P] [--alpha A] [--matrix COL=FILE]`
//! on sdcMicro's testdata, Adult and the demo. The published file keeps
//! every value inside its stratum's categories; the cells changed agree
//! with what the recorded matrices expect; the verifier's PRAM claim
//! holds; the published JSON carries the matrices and no seed; the same
//! seed publishes the same bytes; bad parameters and matrix files are
//! refused, naming the flag or the file, writing nothing.

use std::collections::{HashMap, HashSet};

use predicates::prelude::*;

use crate::common;
use common::cli::{all_hold, anonlab, json_of, read_table as table};
use common::{have_adult, ADULT};

const DEMO: &str = "assets/demo.csv";
const TESTDATA: &str = "tests/data/sdcmicro/testdata.csv";

/// Categories of `column` per value of `stratum` in a table.
fn by_stratum(
    header: &[String],
    rows: &[Vec<String>],
    stratum: &str,
    column: &str,
) -> HashMap<String, HashSet<String>> {
    let s = header.iter().position(|h| h == stratum).unwrap();
    let c = header.iter().position(|h| h == column).unwrap();
    let mut out: HashMap<String, HashSet<String>> = HashMap::new();
    for r in rows {
        out.entry(r[s].clone()).or_default().insert(r[c].clone());
    }
    out
}

fn fingerprint(v: &serde_json::Value) -> String {
    v["fingerprint"].as_str().unwrap().to_string()
}

#[test]
fn testdata_pram_within_strata_agrees_with_its_matrices() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pram.csv");
    let json = dir.path().join("pram.json");
    let run = |seed: &str, out: &std::path::Path| {
        json_of(
            &anonlab()
                .args([
                    "anonymize",
                    TESTDATA,
                    "--qi",
                    "roof,walls,sex",
                    "-a",
                    "pram",
                ])
                .args(["--perturb", "roof,walls", "--strata", "urbrur"])
                .args(["--seed", seed, "--queries", "0", "--json", "-o"])
                .arg(out)
                .arg("--release")
                .arg(&json)
                .output()
                .unwrap(),
        )
    };
    let v = run("7", &out);
    assert!(all_hold(&v), "{v:#}");
    let f = &v["perturbation"];
    for c in f["categorical"].as_array().unwrap() {
        let (changed, expected) = (
            c["changed"].as_f64().unwrap(),
            c["expected"].as_f64().unwrap(),
        );
        // A sum of independent draws: within 5 standard deviations (at
        // most √expected each) of what the matrices expect.
        assert!(expected > 10.0, "{c}");
        assert!(
            (changed - expected).abs() < 5.0 * expected.sqrt(),
            "{c}: changed {changed}, expected {expected}"
        );
    }
    assert!(f["contingency_distance"].as_f64().unwrap() > 0.0);
    // No value outside its stratum's categories.
    let (oh, orows) = table(std::path::Path::new(TESTDATA));
    let (header, rows) = table(&out);
    for column in ["roof", "walls"] {
        let allowed = by_stratum(&oh, &orows, "urbrur", column);
        let published = by_stratum(&header, &rows, "urbrur", column);
        for (s, values) in &published {
            assert!(
                values.is_subset(&allowed[s]),
                "{column} in urbrur {s}: {values:?}"
            );
        }
        let i = header.iter().position(|h| h == column).unwrap();
        let oi = oh.iter().position(|h| h == column).unwrap();
        let mut a: Vec<&str> = rows.iter().map(|r| r[i].as_str()).collect();
        let mut b: Vec<&str> = orows.iter().map(|r| r[oi].as_str()).collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_ne!(a, b, "{column} was not perturbed");
    }
    // The published JSON: the matrices (rows of probabilities), no seed.
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(r["params"]["seed"].is_null(), "{}", r["params"]);
    let matrices = r["perturbed"][0]["matrices"].as_array().unwrap();
    assert_eq!(matrices.len(), 4, "two attributes × two strata");
    for m in matrices {
        for row in m["rows"].as_array().unwrap() {
            let sum: f64 = row
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .sum();
            assert!((sum - 1.0).abs() < 1e-9, "{m}");
        }
    }
    // The same seed publishes the same bytes; another seed other ones.
    let again = run("7", &dir.path().join("again.csv"));
    assert_eq!(fingerprint(&v), fingerprint(&again));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(dir.path().join("again.csv")).unwrap()
    );
    let other = run("8", &dir.path().join("other.csv"));
    assert_ne!(fingerprint(&v), fingerprint(&other));
}

#[test]
fn adult_and_demo_pram_verify() {
    let mut cases = vec![(DEMO, "sex,zip", "sex")];
    if have_adult() {
        cases.push((ADULT, "sex,race,marital-status", "race,marital-status"));
    }
    for (data, qi, perturb) in cases {
        let v = json_of(
            &anonlab()
                .args([
                    "anonymize",
                    data,
                    "--qi",
                    qi,
                    "-a",
                    "pram",
                    "--perturb",
                    perturb,
                ])
                .args([
                    "--pd",
                    "0.7",
                    "--pram-alpha",
                    "0.9",
                    "--seed",
                    "3",
                    "--json",
                ])
                .args(["--queries", "0"])
                .output()
                .unwrap(),
        );
        assert!(all_hold(&v), "{data}: {v:#}");
        assert!(
            v["verification"]["checks"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["claim"].as_str().unwrap().starts_with("PRAM of")),
            "{data}"
        );
        let methods = v["perturbation"]["methods"][0].as_str().unwrap();
        assert!(
            methods.contains("invariant, pd = 0.7, alpha = 0.9"),
            "{methods}"
        );
    }
}

#[test]
fn a_given_matrix_is_applied_and_bad_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    // sex of the demo: Female, Male. Swap with chance 0.3 either way.
    let good = dir.path().join("sex.csv");
    std::fs::write(&good, ",Female,Male\nFemale,0.7,0.3\nMale,0.3,0.7\n").unwrap();
    let v = json_of(
        &anonlab()
            .args([
                "anonymize",
                DEMO,
                "--qi",
                "sex,zip",
                "-a",
                "pram",
                "--perturb",
                "sex",
            ])
            .arg("--matrix")
            .arg(format!("sex={}", good.display()))
            .args(["--seed", "5", "--json", "--queries", "0"])
            .output()
            .unwrap(),
    );
    assert!(all_hold(&v), "{v:#}");
    let c = &v["perturbation"]["categorical"][0];
    let share = c["share"].as_f64().unwrap();
    assert!((share - 0.3).abs() < 0.05, "{c}");

    let out = dir.path().join("never.csv");
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, ",Female,Male\nFemale,0.7,0.2\nMale,0.3,0.7\n").unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--matrix".into(), format!("sex={}", bad.display())],
            "bad.csv",
        ),
        (vec!["--pd".into(), "1.5".into()], "pd"),
        (vec!["--pram-alpha=-1".into()], "alpha"),
        (
            vec![
                "--sensitive".into(),
                "disease".into(),
                "--perturb".into(),
                "disease".into(),
            ],
            "'disease' is a sensitive attribute and an attribute to perturb (PRAM)",
        ),
    ];
    for (extra, says) in &cases {
        let mut cmd = anonlab();
        cmd.args(["anonymize", DEMO, "--qi", "sex,zip", "-a", "pram"]);
        if !extra.iter().any(|e| e == "--perturb") {
            cmd.args(["--perturb", "sex"]);
        }
        cmd.args(extra)
            .arg("-o")
            .arg(&out)
            .assert()
            .failure()
            .stderr(predicate::str::contains(*says));
        assert!(!out.exists(), "{extra:?} wrote the table");
    }
    anonlab()
        .args([
            "anonymize",
            DEMO,
            "--qi",
            "sex,zip",
            "-a",
            "mdav",
            "--perturb",
            "age",
        ])
        .args(["--pd", "0.5"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("read by --algorithm pram only"));
}
