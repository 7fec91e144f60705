//! CLI tests of LGB in `anonymize` and `compare` (issue 4): the flags that
//! mark semi-sensitive cells, the measurements printed for LGB releases,
//! and a clear refusal for each kind of bad input, with nothing written.

use assert_cmd::Command;
use predicates::prelude::*;

use crate::common;
use common::cli::{anonlab, json_of};
use common::{have_adult, ADULT};

/// The demo data: sex, age, zip, occupation (with its flag column
/// hide_occupation) and disease.
const DEMO: &str = "assets/demo.csv";

/// `anonymize DEMO` with zip and sex as QIs, disease sensitive.
fn demo(algorithm: &str, extra: &[&str]) -> Command {
    let mut c = anonlab();
    c.args([
        "anonymize",
        DEMO,
        "--qi",
        "sex,zip",
        "--sensitive",
        "disease",
    ])
    .args(["--identifier", "name", "--queries", "100", "-a", algorithm])
    .args(extra);
    c
}

#[test]
fn both_lgb_algorithms_run_on_the_demo_and_write_their_release() {
    let dir = tempfile::tempdir().unwrap();
    for algo in ["lgb-mdp", "lgb-ncp"] {
        let out = dir.path().join(format!("{algo}.csv"));
        let json = dir.path().join(format!("{algo}.json"));
        demo(
            algo,
            &[
                "--semi-sensitive",
                "age,occupation",
                "--sensitive-flag",
                "hide_occupation",
                "-k",
                "3",
                "-l",
                "2",
            ],
        )
        .arg("-o")
        .arg(&out)
        .arg("--release")
        .arg(&json)
        .assert()
        .success()
        .stdout(predicate::str::contains("Corollary 3"))
        .stdout(predicate::str::contains("FAIL").not())
        .stdout(predicate::str::contains(
            "sensitive cells of occupation: mean",
        ))
        .stdout(predicate::str::contains("probabilistic counting"));
        assert!(out.exists());
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(v["algorithm"], algo);
        // age and occupation semi-sensitive, disease sensitive: three
        // attributes with local buckets.
        let mut attributes: Vec<&str> = v["local_buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["attribute"].as_str().unwrap())
            .collect();
        attributes.dedup();
        assert_eq!(attributes, ["age", "occupation", "disease"]);
    }
}

#[test]
fn lemma_2_bounds_every_l_diverse_cell_by_one_over_l() {
    // A rule marks the cells of the over-60s; l = 3 on age, occupation and
    // disease, so no sensitive cell may be breached with p > 1/3.
    let v = json_of(
        &demo(
            "lgb-mdp",
            &[
                "--semi-sensitive",
                "age,occupation",
                "--sensitive-when",
                "age>=60",
                "-k",
                "4",
                "-l",
                "3",
                "--json",
            ],
        )
        .output()
        .unwrap(),
    );
    let local = v["local_breach"].as_array().unwrap();
    let names: Vec<&str> = local
        .iter()
        .map(|b| b["attribute"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["age", "occupation", "disease"]);
    for b in local {
        let s = &b["distribution"]["summary"];
        assert!(s["max"].as_f64().unwrap() <= 1.0 / 3.0 + 1e-9, "{b}");
        assert!(s["mean"].as_f64().unwrap() > 0.0, "{b}");
        assert_eq!(s["records"], b["cells"]);
    }
    // The over-60s' cells only: fewer than all 1,500 rows, as many age as
    // occupation cells.
    let cells: Vec<u64> = local.iter().map(|b| b["cells"].as_u64().unwrap()).collect();
    assert!(
        cells[0] > 0 && cells[0] < 1500 && cells[0] == cells[1],
        "{cells:?}"
    );
    assert_eq!(cells[2], 1500);
    // The breach shown for the release is the sensitive attribute's.
    assert_eq!(v["breach"], local[2]["distribution"]);
    assert!(v["reidentification"]["summary"]["max"].as_f64().unwrap() <= 0.25 + 1e-9);
    assert!(v["probabilistic_queries"]["queries_used"].as_u64().unwrap() > 0);
}

#[test]
fn compare_runs_lgb_beside_the_baselines_on_one_workload() {
    let out = anonlab()
        .args(["compare", DEMO, "--qi", "sex,zip", "--sensitive", "disease"])
        .args(["--identifier", "name", "--queries", "100"])
        .args(["--semi-sensitive", "age,occupation"])
        .args(["--sensitive-density", "0.2", "--seed", "3"])
        .args(["--algorithms", "mondrian,cbg,lgb-mdp,lgb-ncp"])
        .args(["-k", "3", "-l", "2", "--json"])
        .output()
        .unwrap();
    let v = json_of(&out);
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for r in rows {
        let e = &r["evaluation"];
        assert!(e["verification"]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["holds"] == true));
        assert!(e["probabilistic_queries"]["mean_relative_error"].is_number());
        let lgb = r["algorithm"].as_str().unwrap().starts_with("lgb");
        // Only LGB has local buckets; the baselines cannot keep the
        // semi-sensitive attributes' sensitive cells apart, so they leave
        // them out and say so (`Session::request_with`, as the TUI and a
        // project do).
        assert_eq!(e.get("local_breach").is_some(), lgb, "{r}");
        let not_published = r.get("not_published").cloned().unwrap_or_default();
        if lgb {
            assert!(not_published.is_null(), "{r}");
        } else {
            assert_eq!(not_published, serde_json::json!(["age", "occupation"]));
            assert_eq!(
                r["after"]["attacker"]["not_published"],
                serde_json::json!(["age", "occupation"])
            );
        }
    }
    anonlab()
        .args(["compare", DEMO, "--qi", "sex,zip", "--sensitive", "disease"])
        .args(["--semi-sensitive", "age", "--sensitive-density", "0.2"])
        .args(["--algorithms", "cbg,lgb-mdp", "--queries", "50"])
        .assert()
        .success()
        .stdout(predicate::str::contains("prob err"))
        .stdout(predicate::str::contains("lgb-mdp"))
        .stdout(predicate::str::contains("not published by cbg: age"));
}

/// Issue 31: a request was built two ways — the CLI's flags gave the
/// algorithms that cannot keep sensitive cells apart the semi-sensitive
/// attributes as QIs (publishing sensitive cells as QI values), while a
/// project left them out. Now every request is the session's
/// (`Session::request_with`): the flags' release is the project's, byte
/// for byte, and both say what they do not publish.
#[test]
fn flags_and_a_project_with_the_same_roles_publish_the_same_release() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p.json");
    // The project names its data by a path relative to itself.
    let data = std::fs::canonicalize(DEMO).unwrap();
    let data = data.to_str().unwrap();
    let roles = [
        "--qi",
        "sex,zip",
        "--sensitive",
        "disease",
        "--identifier",
        "name",
        "--semi-sensitive",
        "age",
        "--sensitive-when",
        "age>=60",
    ];
    anonlab()
        .args(["assess", data])
        .args(roles)
        .arg("--save-project")
        .arg(&project)
        .assert()
        .success();
    for algorithm in ["mondrian", "cbg", "lgb-mdp"] {
        let run = |source: &[&str]| {
            let out = anonlab()
                .arg("anonymize")
                .args(source)
                .args(["-a", algorithm, "-k", "3", "-l", "2", "--json"])
                .output()
                .unwrap();
            json_of(&out)
        };
        let flags = run(&[&[data][..], &roles].concat());
        let saved = run(&["--project", project.to_str().unwrap()]);
        assert_eq!(flags["fingerprint"], saved["fingerprint"], "{algorithm}");
        let expected = if algorithm.starts_with("lgb") {
            serde_json::json!([])
        } else {
            serde_json::json!(["age"])
        };
        assert_eq!(flags["not_published"], expected, "{algorithm}");
        assert_eq!(saved["not_published"], expected, "{algorithm}");
    }
    demo(
        "mondrian",
        &["--semi-sensitive", "age", "--sensitive-when", "age>=60"],
    )
    .args(["-k", "3"])
    .assert()
    .success()
    .stdout(predicate::str::contains(
        "not published: age (semi-sensitive: mondrian cannot keep its sensitive cells apart)",
    ));
}

#[test]
fn bad_lgb_input_gets_a_clear_message_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never.csv");
    let refuse = |extra: &[&str], needle: &str| {
        demo("lgb-mdp", extra)
            .arg("-o")
            .arg(&out)
            .assert()
            .failure()
            .stderr(predicate::str::contains(needle));
        assert!(!out.exists(), "{extra:?} wrote {}", out.display());
    };
    let density = ["--sensitive-density", "0.2"];
    refuse(
        &["--semi-sensitive", "nope", "--sensitive-density", "0.2"],
        "unknown column 'nope'",
    );
    refuse(
        &["--semi-sensitive", "age", "--sensitive-density", "0"],
        "must be in (0, 1]",
    );
    refuse(
        &["--semi-sensitive", "age", "--sensitive-density", "1.5"],
        "must be in (0, 1]",
    );
    refuse(
        &[
            &[
                "--semi-sensitive",
                "age,occupation",
                "--t-closeness",
                "age=0.2",
            ][..],
            &density,
        ]
        .concat(),
        "'age' is numeric",
    );
    refuse(
        &["--semi-sensitive", "age", "--sensitive-when", "age>200"],
        "no cell of 'age' is sensitive",
    );
    refuse(
        &[
            &["--semi-sensitive", "age,occupation", "-l", "40"][..],
            &density,
        ]
        .concat(),
        "not 40-eligible",
    );
    refuse(
        &["--semi-sensitive", "age"],
        "say which cells of age are sensitive",
    );
    refuse(
        &[&["--semi-sensitive", "sex"][..], &density].concat(),
        "both a quasi-identifier and semi-sensitive",
    );
    refuse(
        &[
            &["--semi-sensitive", "age", "--t-closeness", "sex"][..],
            &density,
        ]
        .concat(),
        "takes ATTR=T",
    );
    refuse(
        &[
            &[
                "--semi-sensitive",
                "occupation",
                "--t-closeness",
                "occupation=2",
            ][..],
            &density,
        ]
        .concat(),
        "t must be a number in (0, 1]",
    );
    refuse(
        &[
            &["--semi-sensitive", "age", "--t-closeness", "zip=0.2"][..],
            &density,
        ]
        .concat(),
        "neither semi-sensitive nor the sensitive attribute",
    );
    refuse(&density, "name them with --semi-sensitive");
    refuse(
        &["--semi-sensitive", "occupation", "--sensitive-flag", "name"],
        "expected 0/1, true/false or yes/no",
    );
}

#[test]
fn adult_with_the_papers_settings() {
    if !have_adult() {
        return;
    }
    // Section 4's setting: t-closeness for the two-valued sex (and
    // salary-class, whose '<=50K' is on 75 % of the rows: no l ≥ 2 is
    // eligible), l-diversity for age and occupation.
    let out = anonlab()
        .args(["anonymize", ADULT, "-a", "lgb-mdp", "-k", "5", "-l", "4"])
        .args([
            "--qi",
            "race,marital-status,education,workclass,native-country",
        ])
        .args(["--semi-sensitive", "sex,age,occupation"])
        .args(["--sensitive-density", "0.2", "--seed", "1"])
        .args(["--t-closeness", "sex=0.2,salary-class=0.2"])
        .args(["--sensitive", "salary-class", "--queries", "200", "--json"])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert!(v["verification"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["holds"] == true));
    let local = v["local_breach"].as_array().unwrap();
    assert_eq!(local.len(), 4);
    for b in local {
        let cells = b["cells"].as_u64().unwrap();
        let max = b["distribution"]["summary"]["max"].as_f64().unwrap();
        match b["attribute"].as_str().unwrap() {
            // round(0.2 × 30,162) cells each.
            "age" | "occupation" => {
                assert_eq!(cells, 6032);
                assert!(max <= 0.25 + 1e-9, "{b}");
            }
            "sex" => assert_eq!(cells, 6032),
            "salary-class" => assert_eq!(cells, 30162),
            other => panic!("unexpected attribute {other}"),
        }
    }
    assert!(v["reidentification"]["summary"]["max"].as_f64().unwrap() <= 0.2 + 1e-9);
}

/// Semi-sensitive attributes alone are enough for LGB: no `--sensitive`
/// is needed, and every attribute's sensitive cells get their breach line.
#[test]
fn lgb_runs_with_semi_sensitive_attributes_only() {
    anonlab()
        .args([
            "anonymize",
            "assets/demo.csv",
            "--qi",
            "sex,zip",
            "--semi-sensitive",
            "age,occupation",
            "--sensitive-density",
            "0.2",
            "-a",
            "lgb-mdp",
            "-k",
            "3",
            "-l",
            "2",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("sensitive cells of age"))
        .stdout(predicate::str::contains("sensitive cells of occupation"));
}

/// `--lgb-ncp` picks LGB_NCP's categorical measure: the paper's
/// size(v*)/|A| by default, the normalized one on request; both verify,
/// and an unknown name is refused with the two names.
#[test]
fn lgb_ncp_measures_the_papers_way_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--semi-sensitive",
        "age,occupation",
        "--sensitive-flag",
        "hide_occupation",
        "-k",
        "2",
        "-l",
        "2",
        "--json",
    ];
    let fingerprint = |extra: &[&str]| {
        let out = dir.path().join("out.csv");
        let o = demo("lgb-ncp", &args)
            .args(extra)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        json_of(&o)["fingerprint"].as_str().unwrap().to_string()
    };
    let default = fingerprint(&[]);
    assert_eq!(default, fingerprint(&["--lgb-ncp", "paper"]));
    assert_ne!(default, fingerprint(&["--lgb-ncp", "normalized"]));
    demo("lgb-ncp", &args)
        .args(["--lgb-ncp", "xu"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("'paper' and 'normalized'"));
}
