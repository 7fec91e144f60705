//! CLI tests of `anonymize --algorithm full-domain` and `--algorithm
//! construction --conditions G.json`: the binary run as a user would, on
//! Adult (skipped with a notice when absent) and on small files written
//! here.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::common;
use common::cli::{anonlab, json_of};
use common::{adult_path, have_adult};

const QI8: &str = "sex,age,race,marital-status,education,native-country,workclass,occupation";

fn adult_dir() -> PathBuf {
    adult_path().parent().unwrap().to_path_buf()
}

/// Eight patients; hierarchies for age (decades, then *) and sex (*).
fn small(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let data = dir.join("p.csv");
    std::fs::write(
        &data,
        "age,sex,disease\n31,F,flu\n35,F,hiv\n38,M,flu\n33,M,cold\n41,F,flu\n45,M,cold\n47,F,hiv\n44,M,flu\n",
    )
    .unwrap();
    let age = dir.join("age.csv");
    std::fs::write(
        &age,
        "31;30-39;*\n33;30-39;*\n35;30-39;*\n38;30-39;*\n41;40-49;*\n44;40-49;*\n45;40-49;*\n47;40-49;*\n",
    )
    .unwrap();
    let sex = dir.join("sex.csv");
    std::fs::write(&sex, "F;*\nM;*\n").unwrap();
    (data, age, sex)
}

#[test]
fn adult_k5_reports_the_golden_optimum() {
    if !have_adult() {
        return;
    }
    let golden: serde_json::Value =
        serde_json::from_str(include_str!("golden/adult_full_domain.json")).unwrap();
    let levels: Vec<String> = golden["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.to_string())
        .collect();
    let node = format!("optimal node [{}]", levels.join(", "));
    let loss = format!("loss = {:.6}", golden["loss"].as_f64().unwrap());
    anonlab()
        .arg("anonymize")
        .arg(adult_path())
        .args([
            "--qi",
            QI8,
            "-a",
            "full-domain",
            "-k",
            "5",
            "--queries",
            "0",
        ])
        .arg("--hierarchies")
        .arg(adult_dir())
        .assert()
        .success()
        .stdout(predicate::str::contains(node))
        .stdout(predicate::str::contains(loss))
        .stdout(predicate::str::contains("ok   5-anonymity"))
        .stdout(predicate::str::contains("0 rows suppressed (limit 0)"));
}

#[test]
fn json_carries_the_search_and_minimal_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let (data, age, sex) = small(dir.path());
    let spec = format!("age={},sex={}", age.display(), sex.display());
    let out = anonlab()
        .arg("anonymize")
        .arg(&data)
        .args([
            "--qi",
            "age,sex",
            "--sensitive",
            "disease",
            "-a",
            "full-domain",
        ])
        .args([
            "-k",
            "2",
            "-l",
            "2",
            "--model",
            "l-distinct",
            "--metric",
            "dm",
        ])
        .args([
            "--hierarchies",
            &spec,
            "--list-minimal",
            "--json",
            "--queries",
            "0",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    let fd = &v["full_domain"];
    // [1, 0] (decades by sex) gives four classes of two: F 30-39 {flu, hiv},
    // M 30-39 {flu, cold}, F 40-49 {flu, hiv}, M 40-49 {cold, flu}, C_DM 16;
    // [0, 1] leaves single ages (classes of one) and is not 2-anonymous.
    assert_eq!(fd["optimum"]["levels"], serde_json::json!([1, 0]));
    assert_eq!(fd["optimum"]["metric"], serde_json::json!(16.0));
    assert_eq!(fd["minimal"].as_array().unwrap().len(), 1);
    assert_eq!(fd["lattice_size"], serde_json::json!(6));
    assert!(v["verification"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["holds"] == serde_json::json!(true)));
}

#[test]
fn node_publishes_a_chosen_node_of_the_lattice() {
    let dir = tempfile::tempdir().unwrap();
    let (data, age, sex) = small(dir.path());
    let spec = format!("age={},sex={}", age.display(), sex.display());
    let run = |node: &str, extra: &[&str]| {
        anonlab()
            .arg("anonymize")
            .arg(&data)
            .args(["--qi", "age,sex", "--sensitive", "disease", "-k", "2"])
            .args(["--hierarchies", &spec, "--queries", "0", "--node", node])
            .args(extra)
            .output()
            .unwrap()
    };
    // [1, 1]: decades, sex suppressed: two classes of four, above the
    // optimum [1, 0]; within the limit.
    let v = json_of(&run("1,1", &["-a", "full-domain", "--json"]));
    let fd = &v["full_domain"];
    assert_eq!(fd["optimum"]["levels"], serde_json::json!([1, 0]));
    assert_eq!(fd["chosen"]["levels"], serde_json::json!([1, 1]));
    assert_eq!(fd["chosen"]["classes"], serde_json::json!(2));
    assert_eq!(fd["chosen"]["within_limit"], serde_json::json!(true));
    assert_eq!(v["groups"], serde_json::json!(2));
    // [0, 0]: every class has one row, so all eight are suppressed, past
    // the limit of 0; the release holds what it claims (nothing published).
    let out = run("0,0", &["-a", "full-domain"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("published instead: chosen node [0, 0]"),
        "{text}"
    );
    assert!(
        text.contains("8 rows suppressed (above the limit"),
        "{text}"
    );
    assert!(text.contains("ok   2-anonymity"), "{text}");
    // Outside the lattice, or for another algorithm: refused, saying why.
    anonlab()
        .arg("anonymize")
        .arg(&data)
        .args(["--qi", "age,sex", "-k", "2", "-a", "full-domain"])
        .args(["--hierarchies", &spec, "--node", "3,0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "[3, 0] is not a node of the lattice",
        ))
        .stderr(predicate::str::contains("[2, 1]"));
    anonlab()
        .arg("anonymize")
        .arg(&data)
        .args([
            "--qi", "age,sex", "-k", "2", "-a", "mondrian", "--node", "1,0",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--node"));
}

#[test]
fn construction_applies_the_conditions_file() {
    let dir = tempfile::tempdir().unwrap();
    let (data, _, _) = small(dir.path());
    let g = dir.path().join("g.json");
    std::fs::write(
        &g,
        r#"{"conditions": [
            {"when": "age<40", "generalize": "age", "to": "<40"},
            {"when": "age>=40", "generalize": "age", "interval": [40, 49]},
            {"when": "disease=hiv", "delete": "record"},
            {"generalize": "sex", "to": "person"}
        ]}"#,
    )
    .unwrap();
    let out = dir.path().join("out.csv");
    anonlab()
        .arg("anonymize")
        .arg(&data)
        .args([
            "--qi",
            "age,sex",
            "--sensitive",
            "disease",
            "-a",
            "construction",
        ])
        .arg("--conditions")
        .arg(&g)
        .args(["--queries", "0", "-o"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("2 of 8 rows suppressed"))
        .stdout(predicate::str::contains("ok   3-anonymity"));
    let text = std::fs::read_to_string(&out).unwrap();
    // The interval publishes the values it spans in the data, 41 to 47.
    assert!(text.contains("<40,person,flu"), "{text}");
    assert!(text.contains("[41-47],person,cold"), "{text}");
    assert!(!text.contains("hiv"), "{text}");
}

#[test]
fn attributes_without_a_hierarchy_are_kept_or_suppressed() {
    let dir = tempfile::tempdir().unwrap();
    let (data, age, _) = small(dir.path());
    // sex has no hierarchy: it gets the flat one. Each age decade holds two
    // women and two men, so [1, 0] is 2-anonymous and the cheapest node.
    anonlab()
        .arg("anonymize")
        .arg(&data)
        .args([
            "--qi",
            "age,sex",
            "-a",
            "full-domain",
            "-k",
            "2",
            "--queries",
            "0",
        ])
        .arg("--hierarchies")
        .arg(format!("age={}", age.display()))
        .assert()
        .success()
        .stdout(predicate::str::contains("optimal node [1, 0]"))
        .stdout(predicate::str::contains("no hierarchy given for sex"));
}

#[test]
fn bad_flags_and_files_get_clear_messages() {
    let dir = tempfile::tempdir().unwrap();
    let (data, age, _) = small(dir.path());
    let run = |args: &[&str]| {
        anonlab()
            .arg("anonymize")
            .arg(&data)
            .args(["--qi", "age,sex"])
            .args(args)
            .assert()
            .failure()
    };
    run(&["-a", "mondrian", "--conditions", "g.json"])
        .stderr(predicate::str::contains("--algorithm construction"));
    run(&["-a", "construction"]).stderr(predicate::str::contains("--conditions G.json"));
    let spec = format!("age={}", age.display());
    run(&[
        "-a",
        "full-domain",
        "--hierarchies",
        &spec,
        "--metric",
        "gain",
    ])
    .stderr(predicate::str::contains("unknown metric 'gain'"));
    run(&["-a", "full-domain", "--hierarchies", &spec, "--model", "l"])
        .stderr(predicate::str::contains("unknown --model 'l'"));
    run(&["-a", "mondrian", "--suppression", "0.1"])
        .stderr(predicate::str::contains("full-domain only"));
    // A model's own parameter with another model: the model says what it
    // reads.
    run(&[
        "-a",
        "full-domain",
        "--hierarchies",
        &spec,
        "--model",
        "t-closeness",
        "--alpha",
        "0.5",
    ])
    .stderr(predicate::str::contains(
        "--alpha is not read by the privacy model 't-closeness' (it reads: t)",
    ));
    run(&[
        "-a",
        "full-domain",
        "--hierarchies",
        &spec,
        "--sensitive",
        "disease",
        "--model",
        "alpha-k",
        "--alpha",
        "0",
    ])
    .stderr(predicate::str::contains(
        "alpha of (alpha,k)-anonymity must lie in (0, 1]",
    ));
    let g = dir.path().join("g.json");
    std::fs::write(
        &g,
        r#"{"conditions": [{"when": "age>90", "generalize": "disease", "to": "x"}]}"#,
    )
    .unwrap();
    run(&[
        "-a",
        "construction",
        "--conditions",
        g.to_str().unwrap(),
        "--sensitive",
        "disease",
    ])
    .stderr(predicate::str::contains(
        "condition 1: 'disease' is not a quasi-identifier",
    ));
}

/// (α,k)-anonymity, δ-disclosure and β-likeness through `--model`: the
/// search reports the model with the flag's parameter, the release claims
/// it and the verifier re-checks it (`anonymize --json`'s verification).
#[test]
fn alpha_delta_and_beta_models_are_claimed_and_verified() {
    let dir = tempfile::tempdir().unwrap();
    let (data, age, sex) = small(dir.path());
    let spec = format!("age={},sex={}", age.display(), sex.display());
    for (model, flag, value, claim) in [
        ("alpha-k", "alpha", "0.5", "(0.5,k)-anonymity of 'disease'"),
        (
            "delta-disclosure",
            "delta",
            "2",
            "2-disclosure privacy of 'disease'",
        ),
        ("beta-likeness", "beta", "1.5", "1.5-likeness of 'disease'"),
    ] {
        let out = anonlab()
            .arg("anonymize")
            .arg(&data)
            .args(["--qi", "age,sex", "--sensitive", "disease", "-k", "2"])
            .args([
                "-a",
                "full-domain",
                "--hierarchies",
                &spec,
                "--queries",
                "0",
            ])
            .args(["--model", model, &format!("--{flag}"), value, "--json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{model}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v = json_of(&out);
        let m = &v["full_domain"]["model"];
        assert_eq!(m["model"], serde_json::json!(model), "{model}");
        assert_eq!(m[flag].as_f64(), value.parse::<f64>().ok(), "{model}");
        let checks = v["verification"]["checks"].as_array().unwrap();
        assert!(
            checks
                .iter()
                .any(|c| c["claim"].as_str().is_some_and(|n| n.starts_with(claim))),
            "{model}: not claimed: {checks:?}"
        );
        assert!(
            checks.iter().all(|c| c["holds"] == serde_json::json!(true)),
            "{model}: {checks:?}"
        );
    }
}
