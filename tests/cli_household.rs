//! CLI tests of household risk (`--household`) and μ-ARGUS's threshold
//! rule (`--risky-cells`, `--risky-threshold`), issue 33: the figures of
//! `assess --json` recomputed here from the file by their definitions,
//! clear messages for bad input, and sdcMicro's figures on its testdata
//! (tests/golden/sdcmicro_testdata_household.json).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::common;
use common::cli::{anonlab, json_of};

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The rows of a CSV, as maps from column name.
fn rows(path: &Path) -> Vec<HashMap<String, String>> {
    csv::Reader::from_path(path)
        .unwrap()
        .deserialize()
        .map(Result::unwrap)
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

/// Individual and household risk on sdcMicro's `testdata` (weights
/// `sampling_weight`, households `ori_hid`) equal the independent golden
/// script's figures (tests/golden/sdcmicro_testdata_household.py, 40-digit
/// arithmetic from the formulas; it agrees with sdcMicro 5.8.1's
/// `measure_risk` to 2e-13, BENCHMARKS.md) to 1e-9, on both key sets and at
/// four thresholds: sums, means, maxima, counts above each threshold, the
/// records at risk only through their household, and the table by
/// household size.
#[test]
fn household_risk_equals_sdcmicro_on_testdata() {
    let golden = repo("tests/golden/sdcmicro_testdata_household.json");
    let text =
        std::fs::read_to_string(&golden).unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
    let g: serde_json::Value = serde_json::from_str(&text).unwrap();
    let close = |what: &str, got: &serde_json::Value, want: &serde_json::Value| {
        let (got, want) = (got.as_f64().unwrap(), want.as_f64().unwrap());
        assert!(
            (got - want).abs() < 1e-9,
            "{what}: anonlab {got}, golden {want}"
        );
    };
    let settings = g["settings"].as_object().unwrap();
    assert_eq!(settings.len(), 2);
    for (name, s) in settings {
        let keys: Vec<&str> = s["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        for t in ["0.01", "0.05", "0.1", "0.2"] {
            let out = anonlab()
                .arg("assess")
                .arg(repo(g["file"].as_str().unwrap()))
                .args(["--qi", &keys.join(",")])
                .args(["--weights", g["weights"].as_str().unwrap()])
                .args(["--household", g["household"].as_str().unwrap()])
                .args(["--threshold", t])
                .arg("--json")
                .output()
                .unwrap();
            let v = json_of(&out);
            let (ind, hh) = (&v["individual_risk"], &v["household_risk"]);
            let (gi, gh) = (&s["individual"], &s["household"]);
            let at = |what: &str| format!("{name}, threshold {t}: {what}");
            close(
                &at("expected re-identifications"),
                &ind["expected_reidentifications"],
                &gi["expected_reidentifications"],
            );
            close(&at("global risk"), &ind["global_risk"], &gi["global_risk"]);
            close(&at("individual max"), &ind["max"], &gi["max"]);
            close(
                &at("household expected re-identifications"),
                &hh["expected_reidentifications"],
                &gh["expected_reidentifications"],
            );
            close(&at("household mean"), &hh["mean"], &gh["global_risk"]);
            close(&at("household max"), &hh["max"], &gh["max"]);
            assert_eq!(hh["records"], g["rows"], "{}", at("records"));
            assert_eq!(hh["households"], s["households"], "{}", at("households"));
            assert_eq!(
                ind["records_above_threshold"],
                gi["records_above"][t],
                "{}",
                at("records above (individual)")
            );
            assert_eq!(
                hh["records_above_threshold"],
                gh["records_above"][t],
                "{}",
                at("records above (household)")
            );
            assert_eq!(
                hh["records_at_risk_through_household"],
                s["at_risk_only_through_household"][t],
                "{}",
                at("records at risk only through their household")
            );
            let sizes = s["by_household_size"].as_object().unwrap();
            let ours = hh["by_size"].as_array().unwrap();
            assert_eq!(ours.len(), sizes.len(), "{}", at("household sizes"));
            for row in ours {
                let size = row["size"].as_u64().unwrap().to_string();
                let want = &sizes[&size];
                assert_eq!(
                    row["households"],
                    want["households"],
                    "{}",
                    at(&format!("households of {size}"))
                );
                close(
                    &at(&format!("mean risk of households of {size}")),
                    &row["mean_risk"],
                    &want["mean_household_risk"],
                );
            }
        }
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
