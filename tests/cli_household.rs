//! CLI tests of household risk (`--household`) and μ-ARGUS's threshold
//! rule (`--risky-cells`, `--risky-threshold`), issue 33: the figures of
//! `assess --json` recomputed here from the file by their definitions,
//! clear messages for bad input, and sdcMicro's figures on its testdata
//! when tests/golden holds them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::common;
use common::cli::{anonlab, json_of};

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The rows of a CSV without quoted fields, as maps from column name.
fn rows(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let names: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(|s| s.trim_matches('"').to_string())
        .collect();
    lines
        .map(|l| {
            names
                .iter()
                .cloned()
                .zip(l.split(',').map(|s| s.trim_matches('"').to_string()))
                .collect()
        })
        .collect()
}

/// The demo with zip codes as households and an attacker who knows sex
/// and age: each person's risk 1/f (no weights), the household's
/// 1 − ∏(1 − 1/f) over its members, and the cells of sex, age and sex ×
/// age held by one record, all counted here from the file.
#[test]
fn household_risk_and_risky_cells_on_the_demo() {
    let demo = repo("assets/demo.csv");
    let out = anonlab()
        .arg("assess")
        .arg(&demo)
        .args([
            "--qi",
            "sex,age",
            "--household",
            "zip",
            "--risky-cells",
            "2",
            "--json",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    let data = rows(&demo);
    let key = |r: &HashMap<String, String>| (r["sex"].clone(), r["age"].clone());
    let mut f: HashMap<(String, String), u32> = HashMap::new();
    for r in &data {
        *f.entry(key(r)).or_default() += 1;
    }
    let mut safe: HashMap<&str, f64> = HashMap::new();
    for r in &data {
        *safe.entry(r["zip"].as_str()).or_insert(1.0) *= 1.0 - 1.0 / f64::from(f[&key(r)]);
    }
    let per_record: Vec<f64> = data.iter().map(|r| 1.0 - safe[r["zip"].as_str()]).collect();
    let sum: f64 = per_record.iter().sum();
    let h = &v["household_risk"];
    assert_eq!(h["household"], "zip");
    assert_eq!(h["households"], safe.len() as u64);
    assert_eq!(h["records"], data.len() as u64);
    assert!(
        h["individual_risk"].as_str().unwrap().starts_with("1/f"),
        "{h}"
    );
    assert_eq!(h["key_variables"], serde_json::json!(["sex", "age"]));
    let close = |field: &str, want: f64| {
        let got = h[field].as_f64().unwrap();
        assert!((got - want).abs() < 1e-9, "{field}: {got} vs {want}");
    };
    close("expected_reidentifications", sum);
    close("mean", sum / data.len() as f64);
    close("max", per_record.iter().copied().fold(0.0, f64::max));
    let t = v["risk"]["threshold"].as_f64().unwrap();
    let above = per_record.iter().filter(|&&x| x > t).count() as u64;
    assert_eq!(h["records_above_threshold"], above);
    let households: u64 = h["by_size"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["households"].as_u64().unwrap())
        .sum();
    assert_eq!(households, safe.len() as u64);

    let c = &v["risky_cells"];
    assert_eq!(
        (c["max_size"].as_u64(), c["threshold"].as_u64()),
        (Some(2), Some(1))
    );
    let combos = c["combinations"].as_array().unwrap();
    let names: Vec<String> = combos
        .iter()
        .map(|x| {
            let a: Vec<&str> = x["attributes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap())
                .collect();
            a.join("×")
        })
        .collect();
    assert_eq!(names, ["sex", "age", "sex×age"]);
    let uniques = |k: &dyn Fn(&HashMap<String, String>) -> String| {
        let mut n: HashMap<String, u32> = HashMap::new();
        for r in &data {
            *n.entry(k(r)).or_default() += 1;
        }
        n.values().filter(|&&x| x <= 1).count() as u64
    };
    let want = [
        uniques(&|r| r["sex"].clone()),
        uniques(&|r| r["age"].clone()),
        uniques(&|r| format!("{}|{}", r["sex"], r["age"])),
    ];
    for (x, w) in combos.iter().zip(want) {
        assert_eq!(x["cells"], w, "{x}");
    }
    assert_eq!(c["total_cells"], want.iter().sum::<u64>());

    // The readable report says the same.
    let out = anonlab()
        .arg("assess")
        .arg(&demo)
        .args([
            "--qi",
            "sex,age",
            "--household",
            "zip",
            "--risky-cells",
            "2",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("household risk by 'zip'"), "{text}");
    assert!(text.contains("by household size"), "{text}");
    assert!(
        text.contains("risky cells (μ-ARGUS threshold rule"),
        "{text}"
    );
}

/// The failure of `assess` on `csv` with `flags`: its stderr.
fn refused(dir: &Path, csv: &str, flags: &[&str]) -> String {
    let file = dir.join("people.csv");
    std::fs::write(&file, csv).unwrap();
    let out = anonlab()
        .arg("assess")
        .arg(&file)
        .args(flags)
        .output()
        .unwrap();
    assert!(!out.status.success(), "accepted {flags:?}");
    assert!(out.stdout.is_empty());
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn bad_household_input_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    // A household identifier missing on the third record (file row 4).
    let e = refused(
        dir.path(),
        "sex,age,hh\nF,30,1\nM,31,1\nF,40,\nM,41,2\n",
        &["--qi", "sex,age", "--household", "hh"],
    );
    assert!(e.contains("no household identifier"), "{e}");
    assert!(e.contains('4') && e.contains("hh"), "{e}");
    // A weight of zero, then a negative one.
    for w in ["0", "-3"] {
        let e = refused(
            dir.path(),
            &format!("sex,age,hh,w\nF,30,1,10\nM,31,1,{w}\n"),
            &["--qi", "sex,age", "--household", "hh", "--weights", "w"],
        );
        assert!(e.contains("is not positive"), "{e}");
        assert!(e.contains('3') && e.contains('w'), "{e}");
    }
    // The household column is an attribute the attacker knows.
    let e = refused(
        dir.path(),
        "sex,age\nF,30\nM,31\n",
        &["--qi", "sex,age", "--household", "age"],
    );
    assert!(e.contains("both the household identifier"), "{e}");
    // m beyond the key variables; a threshold of 0.
    let e = refused(
        dir.path(),
        "sex,age\nF,30\nM,31\n",
        &["--qi", "sex,age", "--risky-cells", "3"],
    );
    assert!(e.contains("between 1 and the 2 key variables"), "{e}");
    let e = refused(
        dir.path(),
        "sex,age\nF,30\nM,31\n",
        &[
            "--qi",
            "sex,age",
            "--risky-cells",
            "1",
            "--risky-threshold",
            "0",
        ],
    );
    assert!(e.contains("at least 1"), "{e}");
}

/// sdcMicro's `measure_risk` on its testdata (hhId = ori_hid, weights
/// sampling_weight), issue 33: anonlab's individual and household risk
/// equal it to 1e-9. The expected figures and the exported testdata are
/// written by an independent script into tests/golden
/// (sdcmicro_testdata_household.json: "data", the CSV's path from the
/// repository root; "key_variables"; "weights"; "household"; sdcMicro's
/// "global_risk", "global_risk_ER", "hier_risk", "hier_risk_ER"); until
/// they are there, this test has nothing to compare.
#[test]
fn household_risk_equals_sdcmicro_on_testdata() {
    let golden = repo("tests/golden/sdcmicro_testdata_household.json");
    let Ok(text) = std::fs::read_to_string(&golden) else {
        eprintln!("{} is not there yet: nothing to compare", golden.display());
        return;
    };
    let g: serde_json::Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&str> = g["key_variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    let out = anonlab()
        .arg("assess")
        .arg(repo(g["data"].as_str().unwrap()))
        .args(["--qi", &keys.join(",")])
        .args(["--weights", g["weights"].as_str().unwrap()])
        .args(["--household", g["household"].as_str().unwrap()])
        .arg("--json")
        .output()
        .unwrap();
    let v = json_of(&out);
    for (ours, field) in [
        (&v["individual_risk"]["global_risk"], "global_risk"),
        (
            &v["individual_risk"]["expected_reidentifications"],
            "global_risk_ER",
        ),
        (&v["household_risk"]["mean"], "hier_risk"),
        (
            &v["household_risk"]["expected_reidentifications"],
            "hier_risk_ER",
        ),
    ] {
        let (got, want) = (ours.as_f64().unwrap(), g[field].as_f64().unwrap());
        assert!(
            (got - want).abs() < 1e-9,
            "{field}: {got} vs sdcMicro {want}"
        );
    }
}

/// The report of a project saved with household risk and the threshold
/// rule carries both, in report.json (the figures `assess --json` prints)
/// and in words.
#[test]
fn the_report_carries_household_risk_and_risky_cells() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p.json");
    let flags = [
        "--qi",
        "sex,age",
        "--household",
        "zip",
        "--risky-cells",
        "2",
    ];
    let assessed = json_of(
        &anonlab()
            .arg("assess")
            .arg(repo("assets/demo.csv"))
            .args(flags)
            .arg("--json")
            .arg("--save-project")
            .arg(&project)
            .output()
            .unwrap(),
    );
    let out = dir.path().join("report");
    anonlab()
        .arg("report")
        .arg(&project)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(
        report["sample"]["household_risk"],
        assessed["household_risk"]
    );
    assert_eq!(report["sample"]["risky_cells"], assessed["risky_cells"]);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("a household is exposed when any member is"),
        "{md}"
    );
    assert!(md.contains("The threshold rule (μ-ARGUS"), "{md}");
}

/// The threshold rule before and after (issue 33): a project asking for
/// it gets it on the published table of `anonymize` too. A 5-anonymous
/// release has no cell of fewer than 5 records on any combination of
/// what it publishes (a combination's cells merge whole classes), while
/// the demo has such cells before.
#[test]
fn risky_cells_before_and_after_a_release() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p.json");
    let before = json_of(
        &anonlab()
            .arg("assess")
            .arg(repo("assets/demo.csv"))
            .args(["--qi", "sex,age,zip", "--risky-cells", "2"])
            .args(["--risky-threshold", "4", "--json", "--save-project"])
            .arg(&project)
            .output()
            .unwrap(),
    );
    assert!(before["risky_cells"]["total_cells"].as_u64().unwrap() > 0);
    let after = json_of(
        &anonlab()
            .args([
                "anonymize",
                "-a",
                "mondrian",
                "-k",
                "5",
                "--json",
                "--project",
            ])
            .arg(&project)
            .output()
            .unwrap(),
    );
    let c = &after["after"]["risky_cells"];
    assert_eq!(c["threshold"], 4);
    assert_eq!(c["total_cells"], 0, "{c}");
    assert_eq!(c["records_in_risky_cells"], 0, "{c}");
    let names = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        v["combinations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["attributes"].clone())
            .collect()
    };
    assert_eq!(names(c), names(&before["risky_cells"]));
}
