//! Microaggregation on the Anonymize screen (issue 34): `:perturb` and
//! `:aggregation` set the session's settings (refused when a column does
//! not exist), the parameters panel shows them, and the figures panel
//! shows the release's interval risk and IL1s — the evaluation's, which
//! `anonymize --json` prints for the same settings (one truth).
#![cfg(feature = "tui")]

use std::path::Path;

use anonlab::data::Role;
use anonlab::session::Session;
use anonlab_tui::{Action, App};

use crate::common;
use common::cli::{anonlab, json_of};
use common::screen::{choose_algorithm, command, render, run_to_done, text};

const TESTDATA: &str = "tests/data/sdcmicro/testdata.csv";

fn testdata_app() -> App {
    let mut s = Session::open(Path::new(TESTDATA), Default::default()).unwrap();
    for k in ["roof", "sex"] {
        let c = s.dataset.column_index(k).unwrap();
        s.roles.set(c, Role::QuasiIdentifier);
    }
    s.attacker.known = vec!["roof".into(), "sex".into()];
    let mut app = App::new(s).unwrap();
    app.step(&Action::Resize(160, 48));
    app
}

#[test]
fn perturb_sets_the_attributes_and_the_panel_shows_the_figures() {
    let mut app = testdata_app();
    choose_algorithm(&mut app, "mdav");
    command(&mut app, "perturb nosuch");
    let notice = app.notice().unwrap_or_default().to_string();
    assert!(notice.contains("no column 'nosuch'"), "{notice}");
    assert!(app.params().perturbation.attributes.is_empty());
    command(&mut app, "perturb income,expend,savings");
    command(&mut app, "k 3");
    run_to_done(&mut app);
    let view = app.anonymize().view.as_ref().expect("a release");
    let f = view
        .evaluation
        .perturbation
        .clone()
        .expect("perturbation figures");
    assert!((f.il1s.unwrap() - 533.343357020245).abs() < 1e-9);
    let screen = text(&render(&app));
    assert!(
        screen.contains("perturb   income,expend,savings"),
        "{screen}"
    );
    assert!(screen.contains("aggregate mean"), "{screen}");
    assert!(
        screen.contains(&format!("dRisk {:.2}%", f.interval_risk.unwrap() * 100.0)),
        "{screen}"
    );
    assert!(screen.contains("IL1s 533.34"), "{screen}");
    let d = f.il1s_records.as_ref().expect("IL1s per record");
    assert!(
        screen.contains(&format!("IL1s/record median {:.4}", d.median)),
        "{screen}"
    );

    // One truth: the CLI on the same settings prints the same figures.
    let v = json_of(
        &anonlab()
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
            .unwrap(),
    );
    assert_eq!(
        v["perturbation"],
        serde_json::to_value(&f).unwrap(),
        "the TUI and the CLI differ"
    );

    // The median, set by command, reaches the release.
    command(&mut app, "aggregation median");
    run_to_done(&mut app);
    let screen = text(&render(&app));
    assert!(screen.contains("aggregate median"), "{screen}");
    assert!(screen.contains("group median"), "{screen}");

    // Weighted by a sampling-weight column (the CLI's --weights).
    command(&mut app, "aggregation mean household_weights");
    assert_eq!(
        app.params().perturbation.weights.as_deref(),
        Some("household_weights")
    );
    run_to_done(&mut app);
    let screen = text(&render(&app));
    assert!(
        screen.contains("aggregate mean weighted by hous"),
        "{screen}"
    );
    let view = app.anonymize().view.as_ref().unwrap();
    assert!(view.evaluation.verification.all_hold());
    let said = methods(&app);
    assert!(said.contains("weighted by 'household_weights'"), "{said}");
}

/// The shown release's perturbation methods, in words.
fn methods(app: &App) -> String {
    let view = app.anonymize().view.as_ref().expect("a release");
    let f = view
        .evaluation
        .perturbation
        .as_ref()
        .expect("perturbation figures");
    f.methods.join(" ")
}

fn bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// PRAM's, noise's and rank swapping's numbers and the stratum column are
/// set from the `:` line (refused out of range, or when a matrix file does
/// not fit), shown in the parameters panel, read by the run, saved in the
/// project (a matrix file by its path), and `anonymize --project` publishes
/// what `:write` publishes from them, byte for byte.
#[test]
fn the_perturbations_numbers_are_set_by_command_and_saved_in_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = testdata_app();
    choose_algorithm(&mut app, "pram");
    command(&mut app, "perturb walls");
    command(&mut app, "pd 0.6");
    command(&mut app, "pram-alpha 0.2");
    command(&mut app, "pd 1.5");
    let notice = app.notice().unwrap_or_default().to_string();
    assert!(notice.contains("in [0, 1]"), "{notice}");
    assert_eq!(app.params().perturbation.pd, Some(0.6));
    // :strata with a perturbation in view is the perturbation's (sex is a
    // QI, which local suppression would refuse as its stratum).
    command(&mut app, "strata sex");
    assert_eq!(app.params().perturbation.strata.as_deref(), Some("sex"));
    assert_eq!(app.params().local_suppression.strata, None);
    run_to_done(&mut app);
    let said = methods(&app);
    assert!(said.contains("pd = 0.6, alpha = 0.2"), "{said}");
    let screen = text(&render(&app));
    for shown in ["pd        0.6", "pram-alpha0.2", "strata    sex"] {
        assert!(screen.contains(shown), "{shown}:\n{screen}");
    }

    // A matrix file that does not fit walls' categories is refused,
    // naming the file; one that fits is read by the run.
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, ",2,3\n2,1,0\n3,0,1\n").unwrap();
    command(&mut app, &format!("matrix walls={}", bad.display()));
    let notice = app.notice().unwrap_or_default().to_string();
    assert!(notice.contains("bad.csv"), "{notice}");
    assert!(app.params().perturbation.matrices.is_empty());
    let good = dir.path().join("walls.csv");
    std::fs::write(&good, ",2,3,9\n2,0.9,0.1,0\n3,0.05,0.9,0.05\n9,0,0.2,0.8\n").unwrap();
    command(&mut app, &format!("matrix walls={}", good.display()));
    run_to_done(&mut app);
    let f = app
        .anonymize()
        .view
        .as_ref()
        .unwrap()
        .evaluation
        .perturbation
        .clone()
        .unwrap();
    assert!(f.methods.join(" ").contains("walls.csv"), "{:?}", f.methods);
    let m = &f.matrices[0];
    assert_eq!(m.attribute, "walls");
    assert!(text(&render(&app)).contains("matrix    walls=walls.csv"));

    // Saved, and published alike by the CLI from the project.
    let project = dir.path().join("p.json");
    command(&mut app, &format!("save {}", project.display()));
    let saved: serde_json::Value =
        serde_json::from_slice(&bytes(&project)).expect("the project is JSON");
    let p = &saved["params"]["perturbation"];
    assert_eq!(p["pd"], 0.6, "{p}");
    assert_eq!(p["matrices"]["walls"], "walls.csv", "{p}");
    let tui = dir.path().join("tui").join("release.csv");
    command(&mut app, &format!("write {}", tui.display()));
    assert!(app.popup().is_none(), "{:?}", app.popup());
    let cli = dir.path().join("cli.csv");
    common::cli::publish_project(&project, &cli);
    assert_eq!(bytes(&tui), bytes(&cli), "the published table");
    assert_eq!(
        bytes(&tui.with_extension("json")),
        bytes(&cli.with_extension("json")),
        "the release JSON"
    );
    // The matrix file is an input: no output may name it.
    let out = anonlab()
        .args(["anonymize", "--project"])
        .arg(&project)
        .arg("-o")
        .arg(&good)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(
        bytes(&good),
        b",2,3,9\n2,0.9,0.1,0\n3,0.05,0.9,0.05\n9,0,0.2,0.8\n".to_vec()
    );
    command(&mut app, "matrix walls=off");
    assert!(app.params().perturbation.matrices.is_empty());

    // Noise and rank swapping read their own number.
    choose_algorithm(&mut app, "noise-additive");
    command(&mut app, "perturb income,expend");
    command(&mut app, "noise 50");
    command(&mut app, "noise -3");
    assert_eq!(app.params().perturbation.noise, Some(50.0));
    run_to_done(&mut app);
    assert!(text(&render(&app)).contains("noise     50 % of each sd"));
    let said = methods(&app);
    assert!(said.contains("50"), "{said}");
    choose_algorithm(&mut app, "rank-swap");
    command(&mut app, "swap-p 12");
    run_to_done(&mut app);
    assert!(text(&render(&app)).contains("swap-p    12 % of the ranks"));
    let view = app.anonymize().view.as_ref().unwrap();
    assert!(
        view.evaluation.verification.all_hold(),
        "{}",
        view.evaluation.verification
    );
    let said = methods(&app);
    assert!(said.contains("12"), "{said}");
}

/// The Compare screen ranks a perturbation beside a generalization for
/// the same attacker: the class-based columns for both, the perturbation's
/// dRisk, linkage, IL1s per cell for the one that has them ("—" for the
/// other), the evaluation's figures.
#[test]
fn the_compare_screen_shows_a_perturbations_figures_beside_a_generalization() {
    let mut app = testdata_app();
    choose_algorithm(&mut app, "mdav");
    command(&mut app, "perturb income,expend,savings");
    command(&mut app, "k 3");
    command(&mut app, "compare add");
    choose_algorithm(&mut app, "mondrian");
    command(&mut app, "compare add");
    command(&mut app, "compare run");
    app.run_pending_jobs_blocking();
    let entries = &app.compare().entries;
    assert_eq!(entries.len(), 2);
    let f = match &entries[0].outcome {
        anonlab_tui::Outcome::Measured(m) => m.evaluation.perturbation.clone().expect("figures"),
        other => panic!("{other:?}"),
    };
    // Scroll until the perturbation's columns are in view.
    let mut screen = text(&render(&app));
    for _ in 0..anonlab_tui::METRIC_COLUMNS {
        if screen
            .lines()
            .any(|l| l.contains("algorithm") && l.contains("IL1s/cell"))
        {
            break;
        }
        app.step(&Action::Right);
        screen = text(&render(&app));
    }
    let header = screen.lines().find(|l| l.contains("algorithm")).unwrap();
    assert!(
        header.contains("dRisk") && header.contains("linked"),
        "{screen}"
    );
    let row = |id: &str| screen.lines().find(|l| l.contains(id)).unwrap().to_string();
    let mdav = row("mdav");
    for v in [
        format!("{:.1}%", f.interval_risk.unwrap() * 100.0),
        format!("{:.1}%", f.linkage.as_ref().unwrap().share * 100.0),
        format!("{:.4}", f.il1s_per_cell.unwrap()),
    ] {
        assert!(mdav.contains(&v), "{v} in {mdav}");
    }
    assert!(row("mondrian").matches('—').count() >= 3, "{screen}");
}
