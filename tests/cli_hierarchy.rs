//! `anonlab hierarchy build | show` run as a user would: the preview, the
//! ARX file written, and the messages for bad hierarchies and flags.

use std::path::Path;

use predicates::prelude::*;

use crate::common;
use common::cli::anonlab;
use common::{have_adult, ADULT};

fn build(data: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    anonlab()
        .args(["hierarchy", "build"])
        .arg(data)
        .args(args)
        .assert()
}

/// 10 people: age 21..=30 one each, zip 47677 ×4, 47602 ×3, 47905 ×3.
fn people(dir: &Path) -> std::path::PathBuf {
    let mut text = String::from("age,zip\n");
    for (i, zip) in [
        "47677", "47677", "47677", "47677", "47602", "47602", "47602", "47905", "47905", "47905",
    ]
    .iter()
    .enumerate()
    {
        text.push_str(&format!("{},{zip}\n", 21 + i));
    }
    let f = dir.join("people.csv");
    std::fs::write(&f, text).unwrap();
    f
}

#[test]
fn build_intervals_previews_levels_and_writes_arx_csv() {
    let dir = tempfile::tempdir().unwrap();
    let data = people(dir.path());
    let out = dir.path().join("hierarchy_age.csv");
    anonlab()
        .args(["hierarchy", "build"])
        .arg(&data)
        .args(["--column", "age", "--intervals", "5", "--anchor", "1", "-o"])
        .arg(&out)
        .assert()
        .success()
        // Level 1: [21-25] and [26-30], 5 records each; level 2 is the root.
        .stdout(predicate::str::contains(
            "covers all 10 values of column 'age'",
        ))
        .stdout(predicate::str::is_match(r"\n +1 +2 +5 +5 +5  \[21-25\], \[26-30\]\n").unwrap())
        .stdout(predicate::str::is_match(r"\n +2 +1 +10 +10 +10  \*\n").unwrap());
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().next(), Some("21;[21-25];*"));
    assert_eq!(text.lines().count(), 10);

    // The written file shows, and validates against the data it came from.
    anonlab()
        .args(["hierarchy", "show"])
        .arg(&out)
        .arg("--data")
        .arg(&data)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "hierarchy of 'age', 3 levels, 10 leaves",
        ))
        .stdout(predicate::str::contains("valid: nested levels, one root"));
}

#[test]
fn build_mask_and_frequency_on_zip_codes() {
    let dir = tempfile::tempdir().unwrap();
    let data = people(dir.path());
    build(
        &data,
        &["--column", "zip", "--categorical", "zip", "--mask"],
    )
    .success()
    .stdout(predicate::str::contains("4767*"))
    .stdout(predicate::str::is_match(r"\n +2 +2 +3 +3 +7  476\*\*, 479\*\*\n").unwrap());
    // 47602 (3) and 47905 (3) are rarer than 4 and merge first; 47677 (4) stays.
    build(&data, &["--column", "zip", "--group-by-frequency", "4"])
        .success()
        .stdout(predicate::str::contains("{47602,47905}, 47677"));
}

#[test]
fn build_mapping_inline_names_unmapped_values() {
    let dir = tempfile::tempdir().unwrap();
    let data = people(dir.path());
    build(
        &data,
        &["--column", "zip", "--mapping", "North=47677,47602"],
    )
    .code(2)
    .stderr(predicate::str::contains(
        "lacks 1 value(s) of column 'zip': '47905' (3 rows)",
    ));
}

#[test]
fn show_names_file_row_value_and_level_of_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path().join("hierarchy_age.csv");
    std::fs::write(&h, "1;0-4;0-9;*\n2;0-4;0-19;*\n").unwrap();
    anonlab()
        .args(["hierarchy", "show"])
        .arg(&h)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("hierarchy_age.csv, row 2: hierarchy of 'age': '0-4' at level 1 has two parents at level 2"));
    std::fs::write(&h, "1;0-4;*\n7;5-9;top\n").unwrap();
    anonlab()
        .args(["hierarchy", "show"])
        .arg(&h)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a second root 'top'"));
}

#[test]
fn build_takes_exactly_one_method() {
    let dir = tempfile::tempdir().unwrap();
    let data = people(dir.path());
    build(&data, &["--column", "age", "--mask", "--intervals", "5"])
        .failure()
        .stderr(predicate::str::contains("cannot be used with"));
    build(
        &data,
        &[
            "--column",
            "zip",
            "--categorical",
            "zip",
            "--intervals",
            "5",
        ],
    )
    .code(2)
    .stderr(predicate::str::contains(
        "intervals need a numeric column; 'zip' is categorical",
    ));
}

#[test]
fn show_adult_age_hierarchy_on_adult() {
    if !have_adult() {
        return;
    }
    let h = Path::new(ADULT).with_file_name("adult_hierarchy_age.csv");
    anonlab()
        .args(["hierarchy", "show"])
        .arg(&h)
        .args(["--data", ADULT])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "covers all 72 values of column 'age' (28 leaves not in the data)",
        ));
}
