//! The TUI applies the recodings a session or project holds (issue 33):
//! the release on the Anonymize screen, `anonlab anonymize --project` on
//! the project the app saved and `anonlab report` on it are one release
//! of the recoded data, and a reopened project recodes again.
#![cfg(feature = "tui")]

use anonlab::data::recode::Method;
use anonlab::data::{Project, Recode};
use anonlab::session::Session;
use anonlab_tui::{Action, App};

use crate::common;
use common::cli::{anonlab, json_of};
use common::screen::{choose_algorithm, command, render, run_to_done, text};

fn oldest(app: &App) -> f64 {
    let age = app.dataset().column("age").unwrap();
    age.codes()
        .iter()
        .filter_map(|&c| age.number(c))
        .fold(0.0, f64::max)
}

#[test]
fn the_screen_the_saved_project_and_the_report_publish_the_recoded_data() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("recoded.json");
    let mut session = Session::demo().unwrap();
    session
        .set_recodes(vec![
            Recode::parse_round("age=5").unwrap(),
            Recode::parse_coding(Method::TopCode, "age=60").unwrap(),
        ])
        .unwrap();
    let mut app = App::new(session)
        .unwrap()
        .with_project_path(project.clone());
    app.step(&Action::Resize(140, 44));
    assert_eq!(oldest(&app), 60.0);
    command(&mut app, "k 3");
    choose_algorithm(&mut app, "mondrian");
    run_to_done(&mut app);
    let view = app.anonymize().view.as_ref().unwrap();
    assert!(view.evaluation.verification.all_hold());
    assert!(view
        .evaluation
        .verification
        .checks
        .iter()
        .any(|c| c.claim == "top-code age=60 holds"));
    let on_screen = view.fingerprint.clone();
    let shown = text(&render(&app));
    assert!(
        shown.contains("recoded: age rounded to 5, age top-coded at 60"),
        "{shown}"
    );
    app.step(&Action::SaveProject);
    assert!(app.popup().is_none(), "{:?}", app.popup());

    let eval = json_of(
        &anonlab()
            .args(["anonymize", "--project"])
            .arg(&project)
            .arg("--json")
            .output()
            .unwrap(),
    );
    assert_eq!(eval["fingerprint"], on_screen);
    assert_eq!(eval["recodings"].as_array().unwrap().len(), 2);
    let report = common::cli::report_json(&project, &dir.path().join("report"));
    assert_eq!(report["release"]["fingerprint"], on_screen);
    assert_eq!(report["release"]["recodings"], eval["recodings"]);

    // Side by side, the left half is the file's values: a person over 60
    // shows their age, and the published cell (60 or an interval of the
    // recoded ages) is marked changed.
    app.step(&Action::ToggleSideBySide);
    let sbs = app.anonymize().side_by_side.clone();
    let file_data = Session::demo().unwrap().dataset;
    let age = file_data.col(file_data.column_index("age").unwrap());
    let at = sbs.left_headers.iter().position(|h| h == "age").unwrap();
    let over: Vec<_> = sbs
        .rows
        .iter()
        .filter(|r| age.number(age.code(r.record)).unwrap() > 60.0)
        .collect();
    assert!(!over.is_empty(), "a person over 60 on the first page");
    for r in over {
        assert_eq!(r.original[at], age.display(age.code(r.record)));
        let published_at = sbs.right_headers.iter().position(|h| h == "age").unwrap();
        assert!(r.changed[published_at], "record {}", r.record);
    }
    app.step(&Action::ToggleSideBySide);

    // Reopened from the project: recoded again, once.
    let reopened =
        App::new(Session::from_project(&Project::load(&project).unwrap()).unwrap()).unwrap();
    assert_eq!(oldest(&reopened), 60.0);
    assert_eq!(reopened.dataset(), app.dataset());
}
