//! CLI tests of the statistics offices' measures: the JSON
//! fields `anonlab assess` gains and their shape, the readable report,
//! projects that keep the settings, and clear messages for bad weights,
//! populations and flags.

use std::path::{Path, PathBuf};

use crate::common;
use common::cli::{anonlab, json_of};
use common::{have_adult, ADULT};

const QIS: &str = "sex,age,race,marital-status,education,native-country,workclass,occupation";

/// A small census (synth) in a temporary directory, with a weights column
/// appended when `weights` gives one value per row pattern.
fn census(dir: &Path, rows: usize, weights: Option<&dyn Fn(usize) -> String>) -> PathBuf {
    let data = dir.join("census.csv");
    anonlab()
        .args(["synth", "--rows", &rows.to_string(), "--seed", "3", "-o"])
        .arg(&data)
        .assert()
        .success();
    if let Some(w) = weights {
        let text = std::fs::read_to_string(&data).unwrap();
        let mut out = String::new();
        for (i, line) in text.lines().enumerate() {
            let cell = if i == 0 { "w".to_string() } else { w(i - 1) };
            out.push_str(&format!("{line},{cell}\n"));
        }
        std::fs::write(&data, out).unwrap();
    }
    data
}

/// Whether Adult is there; a failure under `CI=true`, where it must be.
fn adult_present() -> bool {
    let ok = have_adult();
    assert!(
        ok || std::env::var("CI").as_deref() != Ok("true"),
        "{ADULT} is missing under CI=true"
    );
    ok
}

fn keys(v: &serde_json::Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

#[test]
fn population_json_has_the_issue_fields() {
    if !adult_present() {
        return;
    }
    let out = anonlab()
        .args([
            "assess",
            ADULT,
            "--qi",
            QIS,
            "--json",
            "--sampling-fraction",
            "0.1",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    let p = &v["population"];
    for f in [
        "population_size",
        "sampling_fraction",
        "prosecutor",
        "journalist",
        "marketer",
        "sample_uniques",
        "population_uniques",
    ] {
        assert!(p.get(f).is_some(), "population.{f} missing: {p}");
    }
    assert_eq!(p["population_size"], 301_620);
    for who in ["prosecutor", "journalist"] {
        for f in ["mean", "max", "records_at_max"] {
            assert!(p[who].get(f).is_some(), "{who}.{f} missing");
        }
        assert!((0.0..=1.0).contains(&p[who]["mean"].as_f64().unwrap()));
    }
    let u = &p["population_uniques"];
    for f in ["pitman", "zayatz", "snb", "dankar", "dankar_model"] {
        assert!(u.get(f).is_some(), "population_uniques.{f} missing");
    }
    for f in ["pitman", "zayatz", "snb", "dankar"] {
        let x = u[f].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&x), "{f} = {x}");
    }
    assert_eq!(u["dankar_model"], "pitman");
    // The prosecutor here is the simulator's figure.
    assert_eq!(p["prosecutor"]["mean"], v["risk"]["mean"]);
    // Fields whose inputs were not given are absent.
    for f in ["individual_risk", "suda", "attribute_risks"] {
        assert!(v.get(f).is_none(), "{f} present without its inputs");
    }
    // Without any population flag there is no population block.
    let plain = json_of(
        &anonlab()
            .args(["assess", ADULT, "--qi", QIS, "--json"])
            .output()
            .unwrap(),
    );
    assert!(plain.get("population").is_none());
}

#[test]
fn a_model_that_does_not_converge_is_null_with_a_reason() {
    // Twenty classes of three and one unique: no class of two, so the SNB
    // moment equations (E[u2] = 0 with u1 > 0) have no root in the model's
    // parameter space, and Pitman's maximum lies outside the population.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("threes.csv");
    let mut text = String::from("a,b\n");
    for i in 0..60 {
        text.push_str(&format!("{},x\n", i / 3));
    }
    text.push_str("u1,y\n");
    std::fs::write(&data, text).unwrap();
    let data = data.to_str().unwrap();
    let v = json_of(
        &anonlab()
            .args([
                "assess",
                data,
                "--qi",
                "a",
                "--json",
                "--sampling-fraction",
                "0.01",
            ])
            .output()
            .unwrap(),
    );
    let u = &v["population"]["population_uniques"];
    assert!(u["snb"].is_null(), "{u}");
    assert!(u["pitman"].is_null(), "{u}");
    assert_eq!(u["dankar_model"], "zayatz", "{u}");
    assert!(u["zayatz"].as_f64().unwrap() > 0.0, "{u}");
    let notes = u["notes"].as_array().unwrap();
    assert!(notes
        .iter()
        .any(|n| n.as_str().unwrap().contains("did not converge")));
    let text = anonlab()
        .args(["assess", data, "--qi", "a", "--sampling-fraction", "0.01"])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("SNB did not converge"), "{text}");
    assert!(text.contains("Dankar et al.'s rule picks Zayatz"), "{text}");
    assert!(!text.contains("NaN"), "{text}");
}

#[test]
fn weights_suda_and_attribute_risks_in_json_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let w = |i: usize| format!("{}", 10 + (i * 7919) % 90);
    let data = census(dir.path(), 3000, Some(&w));
    let args = |json: bool| {
        let mut a = vec![
            "assess".to_string(),
            data.display().to_string(),
            "--qi".into(),
            "sex,age,zip,education".into(),
            "--weights".into(),
            "w".into(),
            "--individual-method".into(),
            "exact".into(),
            "--suda".into(),
            "--attribute-risks".into(),
        ];
        if json {
            a.push("--json".into());
        }
        a
    };
    let v = json_of(&anonlab().args(args(true)).output().unwrap());
    let i = &v["individual_risk"];
    assert_eq!(
        keys(i),
        [
            "expected_reidentifications",
            "global_risk",
            "max",
            "mean",
            "method",
            "records_above_threshold",
            "weights"
        ]
    );
    assert_eq!(i["weights"], "w");
    assert_eq!(i["method"], "exact");
    let er = i["expected_reidentifications"].as_f64().unwrap();
    assert!((er / 3000.0 - i["global_risk"].as_f64().unwrap()).abs() < 1e-12);
    let s = &v["suda"];
    for f in [
        "max_msu_size",
        "records_with_msu",
        "msu_counts_by_size",
        "dis_suda",
    ] {
        assert!(s.get(f).is_some(), "suda.{f} missing");
    }
    assert_eq!(s["max_msu_size"], 4);
    assert_eq!(s["msu_counts_by_size"].as_array().unwrap().len(), 4);
    assert!(s["dis_suda"].get("mean").is_some() && s["dis_suda"].get("max").is_some());
    let a = v["attribute_risks"].as_array().unwrap();
    assert_eq!(a.len(), 15);
    assert_eq!(
        keys(&a[0]),
        ["attributes", "distinction", "separation", "uniques"]
    );
    assert_eq!(a[0]["attributes"].as_array().unwrap().len(), 1);
    let text = String::from_utf8(anonlab().args(args(false)).output().unwrap().stdout).unwrap();
    for needle in [
        "individual risk with sampling weights 'w'",
        "special uniques",
        "which attributes make people unique",
    ] {
        assert!(text.contains(needle), "'{needle}' not in:\n{text}");
    }
}

#[test]
fn population_settings_are_saved_in_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let data = census(dir.path(), 2000, None);
    let project = dir.path().join("p.json");
    let first = anonlab()
        .arg("assess")
        .arg(&data)
        .args([
            "--qi",
            "sex,age,zip",
            "--json",
            "--population-size",
            "50000",
            "--suda",
            "3",
        ])
        .arg("--save-project")
        .arg(&project)
        .output()
        .unwrap();
    let first_json = json_of(&first);
    assert_eq!(first_json["population"]["population_size"], 50_000);
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&project).unwrap()).unwrap();
    assert_eq!(saved["attacker"]["population"]["size"], 50_000);
    assert_eq!(saved["attacker"]["population"]["suda_max_size"], 3);
    let again = anonlab()
        .args(["assess", "--project"])
        .arg(&project)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(json_of(&again), first_json);
}

#[test]
fn population_table_gives_k_map_and_delta_presence() {
    let dir = tempfile::tempdir().unwrap();
    let population = census(dir.path(), 4000, None);
    // The sample: every fourth record of the population.
    let text = std::fs::read_to_string(&population).unwrap();
    let sample: String = text
        .lines()
        .enumerate()
        .filter(|(i, _)| *i == 0 || i % 4 == 1)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let sample_path = dir.path().join("sample.csv");
    std::fs::write(&sample_path, sample).unwrap();
    let v = json_of(
        &anonlab()
            .arg("assess")
            .arg(&sample_path)
            .args(["--qi", "sex,age,zip", "--json", "--population"])
            .arg(&population)
            .output()
            .unwrap(),
    );
    let p = &v["population"];
    assert_eq!(p["population_size"], 4000);
    assert_eq!(p["journalist_basis"], "population_table");
    assert!(p["k_map"].as_u64().unwrap() >= 1);
    let d = &p["delta_presence"];
    assert!(d["min"].as_f64().unwrap() <= d["max"].as_f64().unwrap());
    assert!(p["journalist"]["mean"].as_f64().unwrap() <= p["prosecutor"]["mean"].as_f64().unwrap());
    // A "population" that lacks a sample record is refused: drop every
    // record sharing the sample's first record's values.
    let lines: Vec<&str> = text.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let key = |l: &str| {
        let cells: Vec<&str> = l.split(',').collect();
        (
            cells[at("sex")].to_string(),
            cells[at("age")].to_string(),
            cells[at("zip")].to_string(),
        )
    };
    let first = key(lines[1]);
    let partial: String = lines
        .iter()
        .enumerate()
        .filter(|(i, l)| *i == 0 || key(l) != first)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let partial_path = dir.path().join("partial.csv");
    std::fs::write(&partial_path, partial).unwrap();
    let bad = anonlab()
        .arg("assess")
        .arg(&sample_path)
        .args(["--qi", "sex,age,zip", "--population"])
        .arg(&partial_path)
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("partial.csv")
            && err.contains("holds 0 record(s)")
            && err.contains("must contain every sample record"),
        "{err}"
    );
}

fn fails(args: &[&str], data: &Path, needles: &[&str]) {
    let before = std::fs::read(data).unwrap();
    let out = anonlab()
        .arg("assess")
        .arg(data)
        .args(args)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "'{n}' not in: {err}");
    }
    assert_eq!(std::fs::read(data).unwrap(), before, "input modified");
}

#[test]
fn bad_weights_and_populations_get_clear_messages() {
    let dir = tempfile::tempdir().unwrap();
    // Row 4 of the data (line 5) has a weight below 1, row 7 none, row 9 text.
    let w = |i: usize| match i {
        3 => "0.5".to_string(),
        _ => "20".to_string(),
    };
    let data = census(dir.path(), 200, Some(&w));
    let q = ["--qi", "sex,age,zip"];
    fails(
        &[&q[..], &["--weights", "w"]].concat(),
        &data,
        &["census.csv", "row 5", "column 'w'", "at least 1"],
    );
    fails(
        &[&q[..], &["--weights", "nope"]].concat(),
        &data,
        &["unknown column 'nope'"],
    );
    fails(
        &[&q[..], &["--weights", "age"]].concat(),
        &data,
        &["both a sampling-weight column"],
    );
    let text = std::fs::read_to_string(&data).unwrap();
    let missing: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| match i {
            4 => format!("{}20\n", l.strip_suffix("0.5").unwrap()),
            7 => format!("{}\n", l.strip_suffix("20").unwrap()),
            9 => format!("{}heavy\n", l.strip_suffix("20").unwrap()),
            _ => format!("{l}\n"),
        })
        .collect();
    std::fs::write(&data, missing).unwrap();
    fails(
        &[&q[..], &["--weights", "w"]].concat(),
        &data,
        &["row 8", "no sampling weight"],
    );
    fails(
        &[&q[..], &["--population-size", "10"]].concat(),
        &data,
        &["smaller than the 200 records"],
    );
    fails(
        &[&q[..], &["--sampling-fraction", "0"]].concat(),
        &data,
        &["not in (0, 1]"],
    );
    fails(
        &[&q[..], &["--sampling-fraction", "1.5"]].concat(),
        &data,
        &["not in (0, 1]"],
    );
    fails(
        &[
            &q[..],
            &["--sampling-fraction", "0.1", "--population-size", "9000"],
        ]
        .concat(),
        &data,
        &["cannot be used with"],
    );
    fails(&[&q[..], &["--suda", "0"]].concat(), &data, &["at least 1"]);
    fails(
        &[&q[..], &["--individual-method", "exact"]].concat(),
        &data,
        &["--weights"],
    );
    fails(
        &[&q[..], &["--population", "no-such.csv"]].concat(),
        &data,
        &["no-such.csv"],
    );
    let other = dir.path().join("other.csv");
    std::fs::write(&other, format!("sex,age\n{}", "Male,30\n".repeat(300))).unwrap();
    let args: Vec<&str> = [&q[..], &["--population", other.to_str().unwrap()]].concat();
    fails(
        &args,
        &data,
        &["other.csv", "column 'zip'", "no such column"],
    );
}
