//! The TUI's side of the release fingerprint: for every algorithm, the
//! release on the Anonymize screen, `anonlab anonymize --project` on the
//! project the app saved and `anonlab report` on it have the same
//! fingerprint. The app is driven through its actions and commands only
//! (`:conditions`, `:k`, `:l`, `w`), as a user would.
//! (`tests/cli_fingerprint.rs` checks the fingerprint against the files.)
#![cfg(feature = "tui")]

use anonlab::algorithms;
use anonlab::session::Session;
use anonlab_tui::{Action, App};

use crate::common;
use common::cli::{anonlab, json_of};
use common::demo_conditions as conditions;
use common::screen::{build_hierarchies, choose_algorithm, command, run_to_done};

#[test]
fn the_screen_the_saved_project_and_the_report_show_one_release_for_every_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let g = conditions(dir.path());
    for algo in algorithms::registry() {
        let id = algo.id();
        let project = dir.path().join(format!("{id}.json"));
        let mut session = Session::demo().unwrap();
        if algo.needs().numeric {
            common::perturb_age(&mut session);
        }
        let mut app = App::new(session)
            .unwrap()
            .with_project_path(project.clone());
        app.step(&Action::Resize(140, 44));
        if id == "construction" {
            command(&mut app, &format!("conditions {}", g.display()));
            assert!(app.popup().is_none(), "{id}: {:?}", app.popup());
        }
        if id == "full-domain" {
            build_hierarchies(&mut app);
        }
        command(&mut app, "k 3");
        command(&mut app, "l 2");
        choose_algorithm(&mut app, id);
        run_to_done(&mut app);
        let view = app.anonymize().view.as_ref().unwrap();
        assert!(view.evaluation.verification.all_hold(), "{id}");
        let on_screen = view.fingerprint.clone();
        assert!(on_screen.starts_with("sha256:"), "{id}: {on_screen}");
        app.step(&Action::SaveProject);
        assert!(app.popup().is_none(), "{id}: {:?}", app.popup());

        let run = anonlab()
            .args(["anonymize", "--project"])
            .arg(&project)
            .arg("--json")
            .output()
            .unwrap();
        let eval = json_of(&run);
        assert_eq!(eval["algorithm"], id, "{id}");
        assert_eq!(
            eval["fingerprint"], on_screen,
            "{id}: anonymize --project publishes another release than the screen"
        );

        let report_dir = dir.path().join(format!("{id}-report"));
        let report = common::cli::report_json(&project, &report_dir);
        assert_eq!(
            report["release"]["fingerprint"], on_screen,
            "{id}: the report describes another release than the screen"
        );
    }
}

#[test]
fn full_domains_suppression_and_metric_reach_the_report() {
    // The case: full-domain with a suppression limit and the DM
    // metric set on the screen; the report must describe that release.
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("fd.json");
    let mut app = App::new(Session::demo().unwrap())
        .unwrap()
        .with_project_path(project.clone());
    app.step(&Action::Resize(140, 44));
    build_hierarchies(&mut app);
    choose_algorithm(&mut app, "full-domain");
    run_to_done(&mut app);
    let before = app.params().full_domain.clone();
    app.step(&Action::AdjustSuppression(1));
    app.step(&Action::AdjustSuppression(1));
    app.step(&Action::CycleMetric);
    run_to_done(&mut app);
    assert_ne!(app.params().full_domain, before);
    let view = app.anonymize().view.as_ref().unwrap();
    let on_screen = view.fingerprint.clone();
    let suppressed = view.evaluation.suppressed;
    let groups = view.evaluation.groups;
    app.step(&Action::SaveProject);
    assert!(app.popup().is_none(), "{:?}", app.popup());

    let report_dir = dir.path().join("report");
    let run = anonlab()
        .arg("report")
        .arg(&project)
        .arg("-o")
        .arg(&report_dir)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report_dir.join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["release"]["fingerprint"], on_screen);
    let r = &report["release"];
    assert_eq!(r["suppressed_rows"], suppressed);
    assert_eq!(r["groups"], groups);
    let fd = &r["full_domain"];
    let saved = &app.params().full_domain;
    assert_eq!(fd["metric"], saved.metric.as_str());
    assert_eq!(fd["suppression"], saved.suppression);
}
