//! `anonlab chart KIND` as a user runs it on the demo file (1,500 rows): each kind to
//! PNG or SVG by the extension, a project instead of flags, and clear
//! refusals (wrong extension, prefix of a release, sweep without an
//! algorithm) that leave no file behind.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::common;
use common::cli::anonlab;

fn demo() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets/demo.csv")
        .display()
        .to_string()
}

const ROLES: [&str; 6] = [
    "--qi",
    "sex,age,zip",
    "--sensitive",
    "disease",
    "--identifier",
    "name",
];

fn chart(kind: &str, out: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    anonlab()
        .args(["chart", kind, &demo()])
        .args(ROLES)
        .args(extra)
        .args(["-o", out.to_str().unwrap()])
        .assert()
}

fn svg_texts(path: &Path) -> Vec<String> {
    let svg = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect()
}

#[test]
fn reid_histogram_png_before_and_after_a_release() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hist.png");
    chart("reid-histogram", &out, &["-a", "mondrian-l", "-k", "2"])
        .success()
        .stdout(predicate::str::contains("wrote"))
        .stdout(predicate::str::contains("hist.png"));
    let bytes = std::fs::read(&out).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    assert_eq!((info.width, info.height), (1200, 720));
}

#[test]
fn breach_cdf_svg_has_one_line_per_default_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("breach.svg");
    chart("breach-cdf", &out, &["-k", "2"]).success();
    let texts = svg_texts(&out);
    for label in ["mondrian-l k=2 l=2", "anatomy k=2 l=2", "cbg k=2 l=2"] {
        assert!(
            texts.iter().any(|t| t == label),
            "legend {label}: {texts:?}"
        );
    }
}

#[test]
fn width_and_height_set_the_size_and_too_small_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cdf.svg");
    chart("reid-cdf", &out, &["--width", "1600", "--height", "900"]).success();
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.contains(r#"width="1600""#) && svg.contains(r#"height="900""#));
    let small = dir.path().join("small.svg");
    chart("reid-cdf", &small, &["--width", "100"])
        .failure()
        .stderr(predicate::str::contains("chart size 100×720"));
    assert!(!small.exists());
}

#[test]
fn sweep_marks_refused_points_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep.svg");
    // 'Flu' is on 251 of the demo's 1,500 rows, more than 1/9: l = 9 is refused.
    chart(
        "sweep",
        &out,
        &[
            "-a",
            "mondrian-l",
            "-k",
            "2,5",
            "-l",
            "2,9",
            "--metric",
            "max-breach",
        ],
    )
    .success()
    .stderr(predicate::str::contains(
        "k = 5, l = 9: invalid -l: 'disease' is not 9-eligible",
    ));
    let texts = svg_texts(&out);
    assert_eq!(texts.iter().filter(|t| *t == "n/a").count(), 2, "{texts:?}");
    assert!(texts.iter().any(|t| t == "k = 5") && texts.iter().any(|t| t == "l = 9"));
    assert!(texts
        .iter()
        .any(|t| t.starts_with("Max breach probability of mondrian-l")));
}

#[test]
fn class_sizes_correlation_and_prefix_render() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, extra) in [
        ("class-sizes", vec!["-a", "mondrian", "-k", "2,4"]),
        ("correlation", vec!["--measure", "cramer"]),
        ("prefix", vec![]),
    ] {
        let out = dir.path().join(format!("{kind}.svg"));
        chart(kind, &out, &extra).success();
        assert!(!svg_texts(&out).is_empty(), "{kind}");
    }
    let texts = svg_texts(&dir.path().join("prefix.svg"));
    assert!(texts.iter().any(|t| t == "+zip"), "{texts:?}");
    let texts = svg_texts(&dir.path().join("class-sizes.svg"));
    assert!(texts.iter().any(|t| t == "mondrian k=4"), "{texts:?}");
}

#[test]
fn a_project_gives_the_data_roles_and_attacker() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p.json");
    anonlab()
        .args(["assess", &demo()])
        .args(ROLES)
        .args(["--attacker-knows", "zip,age", "--save-project"])
        .arg(&project)
        .assert()
        .success();
    let out = dir.path().join("prefix.svg");
    anonlab()
        .args(["chart", "prefix", "--project"])
        .arg(&project)
        .args(["-o", out.to_str().unwrap()])
        .assert()
        .success();
    let texts = svg_texts(&out);
    // The project's attacker order, not the column order.
    let zip = texts.iter().position(|t| t == "+zip").unwrap();
    let age = texts.iter().position(|t| t == "+age").unwrap();
    assert!(zip < age, "{texts:?}");
    assert!(!texts.iter().any(|t| t == "+sex"));
}

#[test]
fn refusals_name_the_problem_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let jpg = dir.path().join("c.jpg");
    chart("reid-cdf", &jpg, &[])
        .failure()
        .stderr(predicate::str::contains(
            "c.jpg: a chart is written as .svg or .png",
        ));
    assert!(!jpg.exists());
    let out = dir.path().join("p.svg");
    chart("prefix", &out, &["-a", "cbg"])
        .failure()
        .stderr(predicate::str::contains(
            "the prefix chart is of the original data",
        ));
    chart("sweep", &out, &[])
        .failure()
        .stderr(predicate::str::contains("the sweep needs an algorithm"));
    chart("reid-cdf", &out, &["-a", "no-such-algorithm"]).failure();
    assert!(!out.exists());
}
