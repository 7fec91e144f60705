//! CLI tests of local suppression (issue 33): `anonymize -a
//! local-suppression` with --importance, --combs, --missing-matches and
//! --strata on the embedded demo data and on Adult; the JSON's cells and
//! convention; refusals that write nothing.

use predicates::prelude::*;

use crate::common;
use common::cli::{anonlab, json_of};
use common::{have_adult, ADULT};

const DEMO: &str = "assets/demo.csv";

fn holds(v: &serde_json::Value, claim: &str) -> bool {
    v["verification"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["claim"].as_str().unwrap().contains(claim) && c["holds"] == true)
}

fn all_hold(v: &serde_json::Value) -> bool {
    v["verification"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["holds"] == true)
}

#[test]
fn demo_data_is_suppressed_verified_and_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ls.csv");
    let run = anonlab()
        .args([
            "anonymize",
            DEMO,
            "--qi",
            "sex,age,zip",
            "--identifier",
            "name",
        ])
        .args(["-a", "local-suppression", "-k", "3", "--json", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let v = json_of(&run);
    assert!(all_hold(&v), "{v:#}");
    assert!(holds(
        &v,
        "3-anonymity with suppressed cells, * matches any value"
    ));
    let ls = &v["local_suppression"];
    assert_eq!(ls["convention"], "any-value");
    let per = ls["suppressed_cells"].as_array().unwrap();
    assert_eq!(per.len(), 3);
    let total = ls["total"].as_u64().unwrap();
    assert!(total > 0);
    assert_eq!(
        per.iter()
            .map(|a| a["cells"].as_u64().unwrap())
            .sum::<u64>(),
        total
    );
    assert!(total <= ls["greedy_total"].as_u64().unwrap());
    // The key count reads `*` as the claim does: no one above 1/3.
    assert!(
        v["after"]["key_count"]["summary"]["max"].as_f64().unwrap() <= 1.0 / 3.0 + 1e-12,
        "{:#}",
        v["after"]
    );
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written.lines().count(), 1501);
    let stars = written.matches('*').count() as u64;
    assert_eq!(stars, total, "demo has no missing key cells");
}

#[test]
fn own_value_importance_combs_and_strata() {
    let run = anonlab()
        .args([
            "anonymize",
            DEMO,
            "--qi",
            "sex,age,zip",
            "--identifier",
            "name",
        ])
        .args(["-a", "local-suppression", "-k", "2", "--json"])
        .args(["--missing-matches", "own", "--importance", "sex,zip,age"])
        .args(["--combs", "2", "--strata", "disease"])
        .output()
        .unwrap();
    let v = json_of(&run);
    assert!(all_hold(&v), "{v:#}");
    assert!(holds(&v, "2-anonymity with suppressed cells, * is a value of its own (sdcMicro alpha = 0), on every subset of 2 keys too, within each value of 'disease'"));
    assert!(holds(&v, "2-anonymity"));
    assert_eq!(v["local_suppression"]["convention"], "own-value");
    // Importance as numbers, one per --qi, in human output.
    anonlab()
        .args([
            "anonymize",
            DEMO,
            "--qi",
            "sex,age,zip",
            "--identifier",
            "name",
        ])
        .args([
            "-a",
            "local-suppression",
            "-k",
            "2",
            "--importance",
            "1,3,2",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("suppressed cells: "))
        .stdout(predicate::str::contains(
            "sdcMicro's greedy on the same input",
        ))
        .stdout(predicate::str::contains("FAIL").not());
}

#[test]
fn bad_input_is_refused_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never.csv");
    let o = out.to_str().unwrap().to_string();
    let base = |extra: &[&str]| {
        let mut c = anonlab();
        c.args([
            "anonymize",
            DEMO,
            "--qi",
            "sex,age,zip",
            "--identifier",
            "name",
        ])
        .args(["-a", "local-suppression", "-o", &o])
        .args(extra);
        c
    };
    for (extra, says) in [
        (&["-k", "3", "--combs", "4"][..], "combs 4"),
        (&["-k", "5000"][..], "larger than the data"),
        (&["-k", "0"][..], "at least 1"),
        (
            &["-k", "3", "--importance", "sex,age"][..],
            "'zip' is missing",
        ),
        (
            &["-k", "3", "--importance", "sex,age,nope"][..],
            "no column 'nope'",
        ),
        (
            &["-k", "3", "--importance", "sex,age,disease"][..],
            "'disease' is not a key variable",
        ),
        (&["-k", "3", "--importance", "1,2"][..], "2 values for 3"),
        (&["-k", "3", "--importance", "1,2,4"][..], "between 1 and 3"),
        (&["-k", "3", "--strata", "age"][..], "cannot be the stratum"),
        (
            &["-k", "1400", "--strata", "disease"][..],
            "larger than the stratum",
        ),
    ] {
        base(extra)
            .assert()
            .failure()
            .stderr(predicate::str::contains(says));
        assert!(!out.exists(), "{extra:?} wrote the table");
    }
    anonlab()
        .args(["anonymize", DEMO, "--qi", "sex,age,zip", "-a", "mondrian"])
        .args(["--combs", "2"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("local-suppression only"));
}

#[test]
fn adult_with_eight_keys() {
    if !have_adult() {
        return;
    }
    let run = anonlab()
        .args(["anonymize", ADULT, "--qi"])
        .arg("sex,age,race,marital-status,education,native-country,workclass,occupation")
        .args([
            "-a",
            "local-suppression",
            "-k",
            "5",
            "--json",
            "--queries",
            "0",
        ])
        .output()
        .unwrap();
    let v = json_of(&run);
    assert!(all_hold(&v), "{v:#}");
    let ls = &v["local_suppression"];
    assert!(ls["total"].as_u64().unwrap() <= ls["greedy_total"].as_u64().unwrap());
}

/// A project's local-suppression settings (as the TUI saves them) are
/// what `anonymize --project` runs — the library's release for the
/// session's own request — and the flags, when given, replace them whole:
/// a project's importance naming other keys does not refuse the run.
#[test]
fn a_projects_settings_are_run_and_flags_replace_them() {
    use anonlab::data::LocalSuppressionParams;
    use anonlab::session::Session;
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::demo().unwrap();
    s.params.algorithm = Some("local-suppression".into());
    s.params.k = 4;
    s.params.local_suppression = LocalSuppressionParams {
        importance: vec!["zip".into(), "age".into(), "sex".into()],
        combs: vec![2],
        missing_matches: Some("own".into()),
        strata: None,
    };
    let path = dir.path().join("ls.json");
    s.to_project().save(&path).unwrap();
    let run = anonlab()
        .args(["anonymize", "--project"])
        .arg(&path)
        .args(["--json", "--queries", "0"])
        .output()
        .unwrap();
    let v = json_of(&run);
    assert!(all_hold(&v), "{v:#}");
    let req = s.request("local-suppression", 4, s.params.l).unwrap();
    assert_eq!(req.options.local_suppression.importance, [3, 2, 1]);
    let algo = anonlab::algorithms::Registry::standard()
        .get("local-suppression")
        .unwrap();
    let progress = anonlab::progress::Progress::new();
    let (release, _) = anonlab::anonymize::run_algorithm(&*algo, &req, &progress).unwrap();
    assert_eq!(
        v["local_suppression"],
        serde_json::to_value(release.suppression.unwrap()).unwrap()
    );
    assert_eq!(v["local_suppression"]["convention"], "own-value");

    let run = anonlab()
        .args(["anonymize", "--project"])
        .arg(&path)
        .args(["--qi", "sex,age", "--importance", "age,sex"])
        .args(["--json", "--queries", "0"])
        .output()
        .unwrap();
    let v = json_of(&run);
    assert!(all_hold(&v), "{v:#}");
    assert_eq!(v["local_suppression"]["convention"], "any-value");
    let per = v["local_suppression"]["suppressed_cells"]
        .as_array()
        .unwrap();
    let names: Vec<&str> = per
        .iter()
        .map(|a| a["attribute"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["sex", "age"]);
}
