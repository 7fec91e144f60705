//! Local suppression in the report and the charts (issue 33): the report
//! of a project whose algorithm is local suppression carries the release's
//! cells — the figures `anonymize --json` prints for the same settings
//! (one truth) — in a "Cells suppressed" section with the table by
//! household size when the project names a household column, and draws
//! the cells per key variable and by household size from those figures.

use crate::common;
use common::cli::{anonlab, json_of};

use anonlab::charts::Plot;
use anonlab::data::Role;
use anonlab::progress::Progress;
use anonlab::release::CellSuppression;
use anonlab::report;
use anonlab::session::Session;

const TESTDATA: &str = "tests/data/sdcmicro/testdata.csv";
const KEYS: [&str; 7] = [
    "urbrur", "roof", "walls", "water", "electcon", "relat", "sex",
];

/// sdcMicro's testdata with its seven categorical keys, local suppression
/// at k = 3, households `ori_hid`.
fn testdata_session() -> Session {
    let mut s = Session::open(std::path::Path::new(TESTDATA), Default::default()).unwrap();
    for k in KEYS {
        let c = s.dataset.column_index(k).unwrap();
        s.roles.set(c, Role::QuasiIdentifier);
    }
    s.attacker.known = KEYS.iter().map(|k| k.to_string()).collect();
    s.attacker.population.household = Some("ori_hid".into());
    s.params.algorithm = Some("local-suppression".into());
    s.params.k = 3;
    s
}

/// The bars of a chart, per series.
fn bars(plot: &Plot) -> Vec<Vec<f64>> {
    let Plot::Bars { series, .. } = plot else {
        panic!("bars")
    };
    series
        .iter()
        .map(|s| s.points.iter().map(|p| p.1).collect())
        .collect()
}

#[test]
fn report_and_anonymize_json_show_the_same_cells_by_household_size() {
    let session = testdata_session();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p.json");
    session.to_project().save(&project).unwrap();
    let built = report::build(&session, &project, None, &Progress::new()).unwrap();
    let ls = built
        .report
        .release
        .local_suppression
        .clone()
        .expect("the report carries the cells");
    assert_eq!(built.release.suppression.as_ref(), Some(&ls));
    assert!(ls.total > 0);
    let h = ls.households.as_ref().expect("by household size");
    assert_eq!(h.column, "ori_hid");
    assert_eq!(h.by_size.iter().map(|r| r.total).sum::<u64>(), ls.total);

    // One truth: `anonymize --json` with the same settings prints them.
    let run = anonlab()
        .args(["anonymize", TESTDATA, "--qi", &KEYS.join(",")])
        .args([
            "-a",
            "local-suppression",
            "-k",
            "3",
            "--household",
            "ori_hid",
        ])
        .args(["--json", "--queries", "0"])
        .output()
        .unwrap();
    let v = json_of(&run);
    let cli: CellSuppression = serde_json::from_value(v["local_suppression"].clone()).unwrap();
    assert_eq!(cli, ls);

    // The charts draw those numbers.
    let at = |file: &str| {
        built
            .report
            .charts
            .iter()
            .position(|c| c.file == file)
            .unwrap_or_else(|| panic!("no {file}"))
    };
    let per_key = bars(&built.charts[at("suppressed-cells.svg")].plot);
    let want: Vec<f64> = ls.suppressed_cells.iter().map(|a| a.cells as f64).collect();
    assert_eq!(per_key, vec![want]);
    let by_size = bars(&built.charts[at("suppressed-by-household-size.svg")].plot);
    assert_eq!(by_size.len(), KEYS.len());
    for (a, series) in by_size.iter().enumerate() {
        let want: Vec<f64> = h.by_size.iter().map(|r| r.cells[a].cells as f64).collect();
        assert_eq!(series, &want, "{}", KEYS[a]);
    }

    // The document says it: the section, the table by size, the figures.
    let md = report::to_markdown(&built.report);
    assert!(md.contains("Cells suppressed"), "{md}");
    assert!(md.contains("household size"), "{md}");
    assert!(
        md.contains(&format!(
            "{} cells of the key variables were blanked",
            anonlab::format::thousands(ls.total)
        )),
        "{md}"
    );
    assert!(md.contains("sdcMicro's own method"), "{md}");
}

/// The demo project with local suppression: the section and the per-key
/// chart, no household table or chart without a household column.
#[test]
fn demo_report_without_households() {
    let mut session = Session::demo().unwrap();
    session.params.algorithm = Some("local-suppression".into());
    session.params.k = 3;
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("demo.json");
    session.to_project().save(&project).unwrap();
    let built = report::build(&session, &project, None, &Progress::new()).unwrap();
    let ls = built.report.release.local_suppression.as_ref().unwrap();
    assert!(ls.households.is_none() && ls.total > 0);
    let files: Vec<&str> = built
        .report
        .charts
        .iter()
        .map(|c| c.file.as_str())
        .collect();
    assert!(files.contains(&"suppressed-cells.svg"), "{files:?}");
    assert!(!files.contains(&"suppressed-by-household-size.svg"));
    let md = report::to_markdown(&built.report);
    assert!(md.contains("Cells suppressed") && !md.contains("household size"));
}

/// `anonlab chart suppression` and `suppression-households` write the
/// figures; without --household the second is refused with the flag.
#[test]
fn chart_command_draws_suppressed_cells() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("cells.svg");
    anonlab()
        .args(["chart", "suppression", TESTDATA, "--qi", &KEYS.join(",")])
        .args(["-k", "2,3", "-o"])
        .arg(&svg)
        .assert()
        .success();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("Cells suppressed per key variable"));
    assert!(text.contains("local-suppression k=2"));
    let png = dir.path().join("hh.png");
    anonlab()
        .args([
            "chart",
            "suppression-households",
            TESTDATA,
            "--qi",
            &KEYS.join(","),
        ])
        .args(["--household", "ori_hid", "-k", "3", "-o"])
        .arg(&png)
        .assert()
        .success();
    assert!(std::fs::metadata(&png).unwrap().len() > 1000);
    let out = anonlab()
        .args([
            "chart",
            "suppression-households",
            TESTDATA,
            "--qi",
            &KEYS.join(","),
        ])
        .args(["-o"])
        .arg(dir.path().join("never.svg"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--household"));
    assert!(!dir.path().join("never.svg").exists());
}
