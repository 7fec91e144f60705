//! CLI tests of p-sensitive k-anonymity in `anonymize` and `compare`
//! (issue 6): pk-enhanced and pk-greedy with -p and several --sensitive,
//! the extended model's --sa-hierarchy / --protected, --sample, the
//! maxClusters line, the paper's measures, and clear refusals.

use assert_cmd::Command;
use predicates::prelude::*;

use crate::common;
use common::cli::{anonlab, json_of};
use common::{have_adult, ADULT};

const HIERARCHIES: &str = "../shared/data/adult";
const QI: &str = "age,workclass,marital-status,race,sex,native-country";

/// A small table: two QIs, two sensitive attributes (ill has a hierarchy).
fn fixture(dir: &tempfile::TempDir) -> (String, String) {
    let mut csv = String::from("age,sex,ill,income\n");
    let ills = ["colon", "breast", "flu", "cold", "asthma"];
    for i in 0..40 {
        csv.push_str(&format!(
            "{},{},{},{}\n",
            20 + (i * 7) % 50,
            ["F", "M"][i % 2],
            ills[(i * 3) % 5],
            ["low", "mid", "high"][i % 3]
        ));
    }
    let data = dir.path().join("t.csv");
    std::fs::write(&data, csv).unwrap();
    let h = dir.path().join("ill.csv");
    std::fs::write(
        &h,
        "colon;cancer;*\nbreast;cancer;*\nflu;infection;*\ncold;infection;*\nasthma;chronic;*\n",
    )
    .unwrap();
    (
        data.to_str().unwrap().to_string(),
        h.to_str().unwrap().to_string(),
    )
}

fn pk(data: &str, algorithm: &str, extra: &[&str]) -> Command {
    let mut c = anonlab();
    c.args(["anonymize", data, "--qi", "age,sex", "--sensitive", "ill"])
        .args(["--sensitive", "income", "-a", algorithm, "-k", "4"])
        .args(extra);
    c
}

#[test]
fn both_algorithms_verify_and_print_max_clusters_and_the_measures() {
    let dir = tempfile::tempdir().unwrap();
    let (data, _) = fixture(&dir);
    for algo in ["pk-enhanced", "pk-greedy"] {
        let out = dir.path().join(format!("{algo}.csv"));
        pk(&data, algo, &["-p", "3", "-o", out.to_str().unwrap()])
            .assert()
            .success()
            .stdout(predicate::str::contains(
                "ok   3-sensitive 4-anonymity of 'ill', 'income' (Definition 3)",
            ))
            .stdout(predicate::str::contains("maxClusters = 13 for p = 3"))
            .stdout(predicate::str::contains("p-sensitive measures (p = 3): IL"))
            .stdout(predicate::str::contains("FAIL").not());
        let written = std::fs::read_to_string(&out).unwrap();
        assert_eq!(written.lines().count(), 41, "{written}");
    }
}

#[test]
fn extended_model_claims_protected_subtrees() {
    let dir = tempfile::tempdir().unwrap();
    let (data, h) = fixture(&dir);
    let spec = format!("ill={h}");
    let out = pk(
        &data,
        "pk-enhanced",
        &[
            "-p",
            "3",
            "--sa-hierarchy",
            &spec,
            "--protected",
            "cancer,infection",
            "--json",
        ],
    )
    .output()
    .unwrap();
    let v = json_of(&out);
    let checks = v["verification"]["checks"].as_array().unwrap();
    assert!(checks.iter().any(|c| c["claim"]
        .as_str()
        .unwrap()
        .contains("extended 3-sensitivity of 'ill'")
        && c["holds"] == true));
    // Three subtrees (cancer, infection, asthma): p = 4 is impossible.
    pk(
        &data,
        "pk-enhanced",
        &[
            "-p",
            "4",
            "--sa-hierarchy",
            &spec,
            "--protected",
            "cancer,infection",
        ],
    )
    .assert()
    .failure()
    .stderr(predicate::str::contains("'ill' has only 3 distinct values"))
    .stderr(predicate::str::contains("maxClusters = 0"));
}

#[test]
fn bad_input_gets_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let (data, h) = fixture(&dir);
    pk(&data, "pk-greedy", &["-p", "6"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "'income' has only 3 distinct values",
        ))
        .stderr(predicate::str::contains("lower p to at most 3"));
    pk(&data, "pk-greedy", &["--protected", "cancer"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("add --sa-hierarchy"));
    let spec = format!("ill={h}");
    pk(
        &data,
        "pk-greedy",
        &["--sa-hierarchy", &spec, "--protected", "tumour"],
    )
    .assert()
    .failure()
    .stderr(predicate::str::contains("'tumour' is not a value"));
    pk(&data, "pk-greedy", &["--sa-hierarchy", &h])
        .assert()
        .failure()
        .stderr(predicate::str::contains("is not 'COL=FILE'"));
    pk(&data, "mondrian", &["--sa-hierarchy", &spec])
        .assert()
        .failure()
        .stderr(predicate::str::contains("pk-enhanced and pk-greedy only"));
    pk(&data, "pk-enhanced", &["--sample", "100"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("cannot be drawn from 40 rows"));
}

#[test]
fn compare_shows_il_hom_div_and_time_for_the_three_algorithms() {
    let dir = tempfile::tempdir().unwrap();
    let (data, _) = fixture(&dir);
    let age = dir.path().join("age.csv");
    let mut h = String::new();
    for a in 0..100 {
        h.push_str(&format!("{a};{}-{};*\n", a / 10 * 10, a / 10 * 10 + 9));
    }
    std::fs::write(&age, h).unwrap();
    let sex = dir.path().join("sex.csv");
    std::fs::write(&sex, "F;*\nM;*\n").unwrap();
    let spec = format!("age={},sex={}", age.display(), sex.display());
    anonlab()
        .args([
            "compare",
            &data,
            "--qi",
            "age,sex",
            "--sensitive",
            "ill,income",
        ])
        .args([
            "--algorithms",
            "pk-enhanced,pk-greedy,full-domain",
            "-k",
            "4",
        ])
        .args(["-p", "2", "--model", "p-sensitive", "--hierarchies", &spec])
        .args(["--sample", "30", "--seed", "5", "--queries", "0"])
        .assert()
        .success()
        .stdout(predicate::str::contains("IL/tuple"))
        .stdout(predicate::str::contains("mean Hom"))
        .stdout(predicate::function(|s: &str| {
            ["pk-enhanced", "pk-greedy", "full-domain"]
                .iter()
                .all(|a| s.lines().filter(|l| l.starts_with(a)).count() == 2)
        }));
}

#[test]
fn adult_sample_with_the_papers_settings() {
    if !have_adult() {
        return;
    }
    anonlab()
        .args([
            "compare",
            ADULT,
            "--qi",
            QI,
            "--sensitive",
            "education,occupation",
        ])
        .args([
            "--algorithms",
            "pk-enhanced,pk-greedy",
            "-k",
            "20",
            "-p",
            "6",
        ])
        .args([
            "--hierarchies",
            HIERARCHIES,
            "--sample",
            "2000",
            "--seed",
            "1",
        ])
        .args(["--queries", "0"])
        .assert()
        .success()
        .stdout(predicate::str::contains("infeasible").not())
        .stdout(predicate::str::contains("IL/tuple"));
}
