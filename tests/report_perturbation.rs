//! The internal and external reports of a release of perturbed values
//! (issue 34): a project whose algorithm is MDAV on sdcMicro's testdata.
//! The internal report carries the perturbation's figures — those
//! `anonymize --json` prints for the same settings (one truth) — and the
//! command that makes the release again, which a test replays to the same
//! fingerprint; the external one carries the methods and the information
//! lost, and no seed, no risk figure and no risk chart (the files are
//! searched).

use std::path::Path;

use crate::common;
use common::cli::{anonlab, json_of};

use anonlab::data::{PerturbationParams, Role};
use anonlab::session::Session;

const TESTDATA: &str = "tests/data/sdcmicro/testdata.csv";
/// A seed no figure of the report could show by chance.
const SEED: u64 = 987_654_321;

/// testdata with roof and sex as keys, MDAV at k = 3 on its three
/// numeric variables, saved as a project in `dir`.
fn project(dir: &Path) -> std::path::PathBuf {
    // Absolute: a project names its data relative to the project file.
    let data = std::fs::canonicalize(TESTDATA).unwrap();
    let mut s = Session::open(&data, Default::default()).unwrap();
    for k in ["roof", "sex"] {
        let c = s.dataset.column_index(k).unwrap();
        s.roles.set(c, Role::QuasiIdentifier);
    }
    s.attacker.known = vec!["roof".into(), "sex".into()];
    s.params.algorithm = Some("mdav".into());
    s.params.k = 3;
    s.params.seed = SEED;
    s.params.perturbation = PerturbationParams {
        attributes: vec!["income".into(), "expend".into(), "savings".into()],
        ..Default::default()
    };
    let p = dir.join("p.json");
    s.to_project().save(&p).unwrap();
    p
}

fn report(project: &Path, out: &Path, audience: &str) {
    anonlab()
        .args(["report"])
        .arg(project)
        .arg("-o")
        .arg(out)
        .arg(audience)
        .assert()
        .success();
}

fn text_of(dir: &Path) -> String {
    let mut all = String::new();
    for e in std::fs::read_dir(dir).unwrap() {
        all.push_str(&std::fs::read_to_string(e.unwrap().path()).unwrap());
    }
    all
}

#[test]
fn internal_report_has_the_figures_and_replays_to_the_same_release() {
    let dir = tempfile::tempdir().unwrap();
    let p = project(dir.path());
    let out = dir.path().join("internal");
    report(&p, &out, "--internal");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let f = &r["release"]["perturbation"];
    // sdcMicro's IL1s and dRisk of its MDAV at k = 3 (tests/golden).
    assert!((f["il1s"].as_f64().unwrap() - 533.343357020245).abs() < 1e-9);
    assert!((f["interval_risk"].as_f64().unwrap() - 0.129475982532751).abs() < 1e-12);
    assert!(r["guarantees_hold"].as_bool().unwrap());
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for says in [
        "Perturbed values",
        "interval measure",
        "IL1s",
        &SEED.to_string(),
    ] {
        assert!(html.contains(says), "the internal report lacks {says}");
    }

    // IL1s per record: its distribution sums to IL1s, and it is drawn
    // beside the linkage ranks.
    let d = &f["il1s_records"];
    assert_eq!(d["records"], 4580, "{d}");
    let mean = d["mean"].as_f64().unwrap();
    assert!((mean * 4580.0 - 533.343357020245).abs() < 1e-6, "{d}");
    let bins: Vec<u64> = d["bins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap())
        .collect();
    assert_eq!(bins.iter().sum::<u64>(), 4580);
    let svg = std::fs::read_to_string(out.join("il1s-per-record.svg")).unwrap();
    assert!(svg.contains("Information loss per record"), "{svg}");
    let listed = |file: &str| {
        r["charts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["file"] == file)
    };
    assert!(listed("il1s-per-record.svg") && listed("linkage-ranks.svg"));
    assert!(out.join("linkage-ranks.svg").exists());
    assert!(
        html.contains("Information loss per record")
            && (html.contains("Rank of a record&#39;s own published record")
                || html.contains("Rank of a record's own published record")),
        "the charts are in the page"
    );

    // One truth: `anonymize --json` on the same settings.
    let run = anonlab()
        .args([
            "anonymize",
            TESTDATA,
            "--qi",
            "roof,sex",
            "-a",
            "mdav",
            "-k",
            "3",
        ])
        .args(["--perturb", "income,expend,savings", "--json"])
        .output()
        .unwrap();
    let v = json_of(&run);
    assert_eq!(v["perturbation"], *f);

    // The internal report's command makes the same release, byte for byte.
    let command = r["reproduce"]["anonymize_command"].as_str().unwrap();
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(&words[..2], ["anonlab", "anonymize"]);
    let published = dir.path().join("again.csv");
    let args: Vec<String> = words[1..]
        .iter()
        .map(|w| match *w {
            "published.csv" => published.display().to_string(),
            w => w.to_string(),
        })
        .collect();
    let again = anonlab().args(&args).output().unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let stdout = String::from_utf8_lossy(&again.stdout);
    let fingerprint = r["release"]["fingerprint"].as_str().unwrap();
    assert!(
        stdout.contains(&format!("release fingerprint {fingerprint}")),
        "{stdout}"
    );
    assert!(published.exists());
}

#[test]
fn external_report_has_methods_and_loss_but_no_seed_and_no_risk() {
    let dir = tempfile::tempdir().unwrap();
    let p = project(dir.path());
    let out = dir.path().join("external");
    report(&p, &out, "--external");
    let all = text_of(&out);
    for leak in [
        SEED.to_string().as_str(),
        "seed",
        "Seed",
        "interval_risk",
        "interval measure",
        "dRisk",
        "Risk before and after",
        "singled out",
        "re-identification",
        "linkage",
        "attacker",
        "anonymize --project",
    ] {
        assert!(!all.contains(leak), "the external report shows '{leak}'");
    }
    for chart in [
        "reid-histogram.svg",
        "reid-cdf.svg",
        "class-sizes.svg",
        "linkage-ranks.svg",
    ] {
        assert!(!out.join(chart).exists(), "{chart} was written");
    }
    // The loss per record is the users' to see.
    assert!(out.join("il1s-per-record.svg").exists());
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(r["audience"], "external");
    assert!(r.get("risk").is_none() && r.get("attacker").is_none());
    let loss = &r["information_loss"];
    assert!((loss["il1s"].as_f64().unwrap() - 533.343357020245).abs() < 1e-9);
    assert_eq!(
        loss["methods"][0],
        "MDAV microaggregation of income, expend, savings, k = 3, group means, 1526 groups"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Release report: testdata"));
    assert!(
        html.contains("Perturbed values") && html.contains("Guarantees, checked independently")
    );
}
