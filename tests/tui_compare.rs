//! Screen tests of the Compare screen: entries are added from the
//! Anonymize screen with actions, run in the compare slot (inline), drawn
//! into ratatui's `TestBackend` and compared with insta snapshots; the
//! figures of the table are checked against `anonymize::evaluate` run on
//! the same inputs, not written down.
#![cfg(feature = "tui")]

use crate::common;

use anonlab::algorithms::{Options, Request};
use anonlab::anonymize::{self, Measure};
use anonlab::data::{CompareEntry, CsvOptions, Project, Role};
use anonlab::progress::Progress;
use anonlab::session::Session;
use anonlab_tui::{Action, App, JobState, Measured, Outcome, QueryError, Screen};
use common::screen::{choose_algorithm, command, demo, mask_time_column, render, text};

/// Choose `algorithm`, k and l on the Anonymize screen and add them.
fn add(app: &mut App, algorithm: &str, k: u32, l: u32) {
    choose_algorithm(app, algorithm);
    let dk = k as i32 - app.params().k as i32;
    app.step(&Action::AdjustK(dk));
    let dl = l as i32 - app.params().l as i32;
    app.step(&Action::AdjustL(dl));
    app.step(&Action::AddToCompare);
}

/// The demo with mondrian k=5, cbg k=3 l=2 and anatomy l=2 in the set.
fn demo_with_three(width: u16, height: u16) -> App {
    let mut app = demo(width, height);
    add(&mut app, "mondrian", 5, 2);
    add(&mut app, "cbg", 3, 2);
    add(&mut app, "anatomy", 3, 2);
    app
}

fn run_all(app: &mut App) {
    app.step(&Action::ShowScreen(Screen::Compare));
    app.step(&Action::Recompute);
    app.run_pending_jobs_blocking();
    assert_eq!(app.compare().job, JobState::Done);
}

fn measured(app: &App, i: usize) -> &Measured {
    match &app.compare().entries[i].outcome {
        Outcome::Measured(m) => m,
        other => panic!("entry {i}: {other:?}"),
    }
}

/// The screen with the time column masked: it varies from run to run.
fn snapshot_text(app: &App) -> String {
    mask_time_column(&text(&render(app)))
}

#[test]
fn an_empty_compare_set_says_how_to_add_an_entry() {
    let mut app = demo(100, 20);
    app.run_pending_jobs_blocking();
    app.step(&Action::ShowScreen(Screen::Compare));
    let t = text(&render(&app));
    assert!(t.contains("The compare set is empty"), "{t}");
    assert!(t.contains("press c"), "{t}");
    insta::assert_snapshot!(t);
    // Nothing to run: R says so instead of starting a job.
    app.step(&Action::Recompute);
    assert_eq!(app.compare().job, JobState::Idle);
}

#[test]
fn three_entries_on_the_demo_run_side_by_side() {
    let mut app = demo_with_three(150, 40);
    assert_eq!(app.compare().entries.len(), 3);
    // The same inputs again are refused, with a notice naming the entry.
    app.step(&Action::AddToCompare);
    assert_eq!(app.compare().entries.len(), 3);
    assert!(
        app.notice().unwrap().contains("already entry 3"),
        "{:?}",
        app.notice()
    );
    run_all(&mut app);
    for i in 0..3 {
        let m = measured(&app, i);
        assert!(m.evaluation.verification.all_hold());
        assert!(matches!(m.queries, QueryError::Done(Some(_))));
        assert!(!m.curve.is_empty());
    }
    assert!(app.compare().original(app.session()).is_some());
    let t = snapshot_text(&app);
    // All three ran: no row says it failed or was refused.
    assert!(!t.contains("infeasible") && !t.contains("failed"), "{t}");
    insta::assert_snapshot!(t);
    // Bucketizations have a GLP, the generalized release none.
    assert!(measured(&app, 0).evaluation.correspondence.is_none());
    assert!(measured(&app, 2).evaluation.correspondence.is_some());
    // Cross-bucket generalization's buckets are not its records' blocks
    // (one value each, spread over matching buckets): no GLP, not 0.
    assert!(measured(&app, 1).evaluation.correspondence.is_none());
    // Nothing changed: R runs nothing.
    app.step(&Action::Recompute);
    assert_eq!(app.notice(), Some("every entry is up to date"));
    assert_eq!(app.compare().job, JobState::Done);
}

#[test]
fn the_figures_are_those_of_anonymize_evaluate_on_the_same_inputs() {
    let mut app = demo_with_three(150, 40);
    run_all(&mut app);
    let s = Session::demo().unwrap();
    for (i, e) in app.compare().entries.iter().enumerate() {
        let expected = evaluate(&s, &e.entry);
        let m = measured(&app, i);
        assert_same(m, &expected, &e.entry);
    }
}

/// `anonymize::run` and `evaluate` on the session's roles and the entry's
/// parameters, with the workload the screen uses (seeded by the entry).
fn evaluate(s: &Session, e: &CompareEntry) -> anonymize::Evaluation {
    let req = Request {
        ds: &s.dataset,
        qi: s.roles.with(Role::QuasiIdentifier),
        sensitive: s.roles.with(Role::Sensitive),
        identifiers: s.roles.with(Role::Identifier),
        k: e.k,
        l: e.l.unwrap_or(1),
        seed: e.seed,
        options: Options::default(),
    };
    let progress = Progress::new();
    let (release, ms) = anonymize::run(&e.algorithm, &req, &progress).unwrap();
    let measure = Measure {
        queries: anonlab::metrics::DEFAULT_QUERIES,
        query_seed: e.seed,
        threshold: s.attacker.threshold,
    };
    anonymize::evaluate(&release, &s.dataset, ms, &measure, &progress).unwrap()
}

fn assert_same(m: &Measured, expected: &anonymize::Evaluation, e: &CompareEntry) {
    let got = &m.evaluation;
    assert_eq!(got.breach, expected.breach, "{e}");
    assert_eq!(got.reidentification, expected.reidentification, "{e}");
    assert_eq!(got.utility, expected.utility, "{e}");
    assert_eq!(got.groups, expected.groups, "{e}");
    assert_eq!(got.correspondence, expected.correspondence, "{e}");
    assert_eq!(
        got.verification.all_hold(),
        expected.verification.all_hold()
    );
    let q = expected.queries.as_ref().map(|q| q.mean_relative_error);
    assert_eq!(m.queries, QueryError::Done(q), "{e}");
}

#[test]
fn the_set_is_saved_in_the_project_and_restored_on_open() {
    let mut app = demo_with_three(120, 30);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.json");
    let project = app.to_project();
    assert_eq!(project.compare, app.compare().entries());
    project.save(&file).unwrap();
    let reopened =
        App::new(Session::from_project(&Project::load(&file).unwrap()).unwrap()).unwrap();
    assert_eq!(reopened.compare().entries(), app.compare().entries());
    assert_eq!(
        reopened.compare().entries()[1].to_string(),
        "cbg k=3 l=2 seed=42"
    );
    // A project without a set has no "compare" key at all.
    app.step(&Action::ShowScreen(Screen::Compare));
    for _ in 0..3 {
        app.step(&Action::RemoveFromCompare);
    }
    assert!(!app.to_project().to_json().contains("compare"));
}

#[test]
fn removing_an_entry_keeps_the_others_and_their_results() {
    let mut app = demo_with_three(150, 40);
    run_all(&mut app);
    let anatomy = measured(&app, 2).evaluation.clone();
    app.step(&Action::Down);
    app.step(&Action::RemoveFromCompare);
    let names: Vec<String> = app
        .compare()
        .entries()
        .iter()
        .map(|e| e.algorithm.clone())
        .collect();
    assert_eq!(names, ["mondrian", "anatomy"]);
    assert_eq!(measured(&app, 1).evaluation, anatomy);
    assert_eq!(app.compare().cursor, 1);
    assert!(app
        .notice()
        .unwrap()
        .contains("cbg k=3 l=2 seed=42 removed"));
    // Removing the last one moves the cursor up.
    app.step(&Action::RemoveFromCompare);
    assert_eq!(app.compare().cursor, 0);
    let t = text(&render(&app));
    let table: Vec<&str> = t.lines().take_while(|l| !l.contains("CDF")).collect();
    assert!(t.contains("1 entry ·"), "{t}");
    assert!(!table.iter().any(|l| l.contains("anatomy")), "{t}");
}

#[test]
fn an_infeasible_entry_shows_the_algorithms_message_in_its_row() {
    let mut app = demo(150, 30);
    add(&mut app, "mondrian", 5, 2);
    add(&mut app, "anatomy", 3, 40);
    run_all(&mut app);
    assert!(app.popup().is_none());
    let Outcome::Infeasible(why) = &app.compare().entries[1].outcome else {
        panic!("{:?}", app.compare().entries[1].outcome);
    };
    let t = snapshot_text(&app);
    assert!(t.contains(&format!("infeasible: {}", &why[..20])), "{t}");
    insta::assert_snapshot!(t);
    // The feasible entry ran all the same.
    measured(&app, 0);
}

#[test]
fn enter_loads_the_entry_into_the_anonymize_screen() {
    let mut app = demo_with_three(120, 30);
    app.step(&Action::ShowScreen(Screen::Compare));
    app.step(&Action::First);
    app.step(&Action::Down);
    app.step(&Action::Confirm);
    assert_eq!(app.screen(), Screen::Anonymize);
    let i = app.anonymize_inputs();
    assert_eq!((i.algorithm, i.k, i.l), ("cbg", 3, Some(2)));
    assert_eq!(
        app.notice(),
        Some("cbg k=3 l=2 seed=42 loaded from the compare set")
    );
}

#[test]
fn a_role_change_reruns_the_entries_and_esc_stops_a_pass() {
    let mut app = demo_with_three(150, 40);
    run_all(&mut app);
    // Age stops being a quasi-identifier: every entry's inputs change.
    app.step(&Action::ShowScreen(Screen::Data));
    let age = app.dataset().column_index("age").unwrap();
    for _ in 0..age {
        app.step(&Action::Right);
    }
    app.step(&Action::SetRole(Role::Insensitive));
    app.run_pending_jobs_blocking();
    app.step(&Action::ShowScreen(Screen::Compare));
    app.step(&Action::Recompute);
    assert!(app.compare().job.is_running());
    app.step(&Action::Cancel);
    assert_eq!(app.compare().job, JobState::Cancelled);
    app.run_pending_jobs_blocking();
    assert!(app
        .compare()
        .entries
        .iter()
        .all(|e| matches!(e.outcome, Outcome::Pending | Outcome::Measured(_))));
    run_all(&mut app);
    let mut s = Session::demo().unwrap();
    s.roles.set(age, Role::Insensitive);
    for (i, e) in app.compare().entries.iter().enumerate() {
        assert_same(measured(&app, i), &evaluate(&s, &e.entry), &e.entry);
    }
}

#[test]
fn on_adult_two_entries_match_evaluate() {
    let Some(ds) = common::adult() else {
        return;
    };
    let mut s = Session::new(ds, None, CsvOptions::default());
    for q in common::ADULT_QI7 {
        let c = s.dataset.column_index(q).unwrap();
        s.roles.set(c, Role::QuasiIdentifier);
    }
    let occ = s.dataset.column_index("occupation").unwrap();
    s.roles.set(occ, Role::Sensitive);
    let mut app = App::new(s.clone()).unwrap();
    app.step(&Action::Resize(150, 40));
    add(&mut app, "mondrian", 10, 2);
    add(&mut app, "cbg", 5, 4);
    run_all(&mut app);
    for (i, e) in app.compare().entries.iter().enumerate() {
        assert_same(measured(&app, i), &evaluate(&s, &e.entry), &e.entry);
    }
}

#[test]
fn anonlab_compare_runs_the_set_a_project_saved() {
    let app = demo_with_three(120, 30);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.json");
    app.to_project().save(&file).unwrap();
    let out = common::cli::anonlab()
        .args(["compare", "--project"])
        .arg(&file)
        .args(["--queries", "50", "--json"])
        .output()
        .unwrap();
    let rows = common::cli::json_of(&out);
    let got: Vec<(String, u64, Option<u64>, u64)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let e = &r["evaluation"];
            (
                r["algorithm"].as_str().unwrap().to_string(),
                r["k"].as_u64().unwrap(),
                r["l"].as_u64(),
                e["seed"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let want: Vec<(String, u64, Option<u64>, u64)> = app
        .compare()
        .entries()
        .iter()
        .map(|e| (e.algorithm.clone(), e.k.into(), e.l.map(u64::from), 0))
        .collect();
    let strip = |v: &[(String, u64, Option<u64>, u64)]| {
        v.iter()
            .map(|(a, k, l, _)| (a.clone(), *k, *l))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&got), strip(&want));
    // Every entry gives its own k and l: -k with the set is refused.
    let out = common::cli::anonlab()
        .args(["compare", "--project"])
        .arg(&file)
        .args(["-k", "4"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("compare set gives each entry its own k"),
        "{err}"
    );
}

#[test]
fn a_narrow_terminal_scrolls_the_metric_columns() {
    let mut app = demo_with_three(80, 30);
    run_all(&mut app);
    let header = |app: &App| {
        text(&render(app))
            .lines()
            .find(|l| l.contains("algorithm"))
            .unwrap()
            .to_string()
    };
    let h = header(&app);
    assert!(
        h.contains("mean") && h.contains('▶') && !h.contains('◀'),
        "{h}"
    );
    assert!(!h.contains(" ms"), "{h}");
    for _ in 0..anonlab_tui::METRIC_COLUMNS {
        app.step(&Action::Right);
    }
    let h = header(&app);
    assert!(
        h.contains('◀') && h.contains(" ms") && h.contains("release") && !h.contains('▶'),
        "{h}"
    );
    assert!(!h.contains("mean"), "{h}");
    app.step(&Action::Left);
    assert!(header(&app).contains("groups"));
}

#[test]
fn the_command_line_adds_removes_and_runs_entries() {
    let mut app = demo(150, 40);
    choose_algorithm(&mut app, "mondrian");
    command(&mut app, "compare add");
    command(&mut app, "k 7");
    command(&mut app, "compare add");
    assert_eq!(app.compare().entries.len(), 2);
    assert_eq!(app.compare().entries[1].entry.k, 7);
    command(&mut app, "compare run");
    assert_eq!(app.screen(), Screen::Compare);
    assert!(app.compare().job.is_running());
    app.run_pending_jobs_blocking();
    measured(&app, 1);
    command(&mut app, "compare remove");
    assert_eq!(app.compare().entries.len(), 1);
    command(&mut app, "compare remove");
    command(&mut app, "compare remove");
    assert_eq!(app.notice(), Some("the compare set is empty"));
    command(&mut app, "compare swap");
    let n = app.notice().unwrap();
    assert!(n.contains("'swap' is not add, remove or run"), "{n}");
}
