//! Screen tests of the Hierarchies screen and of full-domain runs from the
//! Anonymize screen: the app runs on the embedded demo (sex, age and zip
//! quasi-identifiers), is driven with actions (never key codes), drawn into
//! ratatui's `TestBackend`, and checked line by line and with insta
//! snapshots. Figures on screen are checked against values computed here
//! from the data by other means (the builders' rules applied by hand, the
//! correlation functions called directly).
#![cfg(feature = "tui")]

use crate::common;

use std::collections::BTreeSet;

use anonlab::data::HierarchySource;
use anonlab::hierarchy::arx;
use anonlab::session::Session;
use anonlab::stats::{correlation_matrix, Discretization, Measure};
use anonlab_tui::{Action, App, Builder, DialogKind, JobState, Screen, FULL_DOMAIN};
use common::screen::{render, text};

const W: u16 = 130;
const H: u16 = 40;

fn hierarchies_screen() -> App {
    let mut app = App::new(Session::demo().unwrap()).unwrap();
    app.step(&Action::Resize(W, H));
    app.step(&Action::ShowScreen(Screen::Hierarchies));
    app.run_pending_jobs_blocking();
    app
}

/// Move the attribute cursor to the column called `name`.
fn focus(app: &mut App, name: &str) {
    app.step(&Action::Left);
    app.step(&Action::First);
    let target = app.dataset().column_index(name).unwrap();
    for _ in 0..target {
        app.step(&Action::Down);
    }
    assert_eq!(app.hierarchies().cursor, target);
}

fn type_text(app: &mut App, s: &str) {
    for c in s.chars() {
        app.step(&Action::TypeChar(c));
    }
}

fn clear_field(app: &mut App) {
    for _ in 0..40 {
        app.step(&Action::DeleteChar);
    }
}

/// Build the default hierarchy the dialog proposes for `name`.
fn build_default(app: &mut App, name: &str) {
    focus(app, name);
    app.step(&Action::BuildHierarchy);
    assert!(app.hierarchies().dialog.is_some());
    app.step(&Action::Confirm);
    assert!(
        app.hierarchies().dialog.is_none(),
        "{name}: {:?}",
        app.notice()
    );
    assert!(app.session().hierarchies().contains_key(name));
}

#[test]
fn the_correlation_heat_map_shows_the_measure_computed_from_the_data() {
    let mut app = hierarchies_screen();
    assert_eq!(app.hierarchies().matrix.job, JobState::Done);
    let ds = app.dataset();
    // Every column but the identifiers: name, and the flag column
    // hide_occupation, which marks occupation's sensitive cells and is
    // therefore not published.
    let flag = ds.column_index("hide_occupation").unwrap();
    let cols: Vec<usize> = (1..ds.n_cols()).filter(|&c| c != flag).collect();
    assert_eq!(app.hierarchies().matrix.columns, cols);
    let expected =
        correlation_matrix(ds, &cols, Measure::Phi2, &Discretization::default()).unwrap();
    let sex = 0;
    let disease = cols.len() - 1;
    let v = expected.get(sex, disease).unwrap();
    let t = text(&render(&app));
    assert!(t.contains("Correlation: phi2"), "{t}");
    let row = t
        .lines()
        .find(|l| l.contains("│sex   "))
        .expect("a sex row");
    assert!(row.contains(&format!("{v:.2}")), "{row}\n{t}");
    insta::assert_snapshot!(t);

    // Another measure: Cramér's V is √φ².
    app.step(&Action::CycleMeasure(1));
    assert!(matches!(
        app.hierarchies().matrix.job.state(),
        JobState::Running { .. }
    ));
    app.run_pending_jobs_blocking();
    let m = app.hierarchies().matrix.view.as_ref().unwrap();
    assert_eq!(m.measure, Measure::Cramer);
    assert!((m.get(sex, disease).unwrap() - v.sqrt()).abs() < 1e-12);
    assert!(text(&render(&app)).contains("Correlation: cramer"));
}

#[test]
fn a_built_hierarchy_is_a_tree_that_opens_and_closes() {
    let mut app = hierarchies_screen();
    focus(&mut app, "age");
    let t = text(&render(&app));
    assert!(t.contains("'age' has no hierarchy yet"), "{t}");
    build_default(&mut app, "age");
    assert!(app
        .notice()
        .unwrap()
        .contains("age: intervals (fixed width)"));
    let tree = match &app.hierarchies().tree {
        Some(Ok(t)) => t.clone(),
        other => panic!("{other:?}"),
    };
    // Closed: the root and its children.
    let root = &tree.lines[0];
    assert_eq!((root.label.as_str(), root.records), ("*", 1500));
    assert!(tree.lines[1..].iter().all(|l| l.depth == 1));
    let closed = text(&render(&app));
    assert!(closed.contains("▾ *  1500 rec"), "{closed}");
    insta::assert_snapshot!("tree_closed", closed);

    // Open the first child: its children appear below it, one level down.
    app.step(&Action::Right);
    app.step(&Action::Down);
    app.step(&Action::ToggleNode);
    let open = match &app.hierarchies().tree {
        Some(Ok(t)) => t.clone(),
        other => panic!("{other:?}"),
    };
    assert!(open.lines.len() > tree.lines.len());
    assert_eq!(open.lines[1].open, Some(true));
    assert_eq!(open.lines[2].depth, 2);
    // A node's records are the sum of its children's.
    let children: u64 = open.lines[2..]
        .iter()
        .take_while(|l| l.depth == 2)
        .map(|l| l.records)
        .sum();
    assert_eq!(children, open.lines[1].records);
    insta::assert_snapshot!("tree_one_node_open", text(&render(&app)));

    // Open all: every leaf is listed once; close all: back to the start.
    app.step(&Action::OpenAllNodes(true));
    let all = match &app.hierarchies().tree {
        Some(Ok(t)) => t.clone(),
        other => panic!("{other:?}"),
    };
    let leaves = all.lines.iter().filter(|l| l.level == 0).count();
    assert_eq!(leaves, app.dataset().col(2).cardinality());
    app.step(&Action::OpenAllNodes(false));
    match &app.hierarchies().tree {
        Some(Ok(t)) => assert_eq!(t.lines, tree.lines),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_builder_dialog_previews_each_level_before_keeping_it() {
    let mut app = hierarchies_screen();
    focus(&mut app, "age");
    app.step(&Action::BuildHierarchy);
    let d = app.hierarchies().dialog.clone().unwrap();
    assert_eq!((d.kind, d.builder), (DialogKind::Build, Builder::Intervals));
    // Width 20 from anchor 0, two merged per level: count the intervals
    // the ages fall in by hand.
    app.step(&Action::Down);
    clear_field(&mut app);
    type_text(&mut app, "20");
    app.step(&Action::Down);
    clear_field(&mut app);
    type_text(&mut app, "0");
    let ds = app.dataset();
    let ages: Vec<f64> = (0..ds.n_rows())
        .map(|r| ds.col(2).display(ds.col(2).code(r)).parse().unwrap())
        .collect();
    let classes = |w: f64| {
        ages.iter()
            .map(|a| (a / w).floor() as i64)
            .collect::<BTreeSet<_>>()
            .len()
    };
    let preview = app
        .hierarchies()
        .dialog
        .as_ref()
        .unwrap()
        .preview
        .clone()
        .unwrap();
    assert_eq!(preview[0].classes, ds.col(2).cardinality());
    assert_eq!(preview[1].classes, classes(20.0));
    assert_eq!(preview[2].classes, classes(40.0));
    assert_eq!(preview.last().unwrap().classes, 1);
    assert!(preview
        .iter()
        .all(|l| l.max >= l.median && l.median >= l.min));
    let t = text(&render(&app));
    assert!(t.contains("Build a hierarchy for age"), "{t}");
    assert!(t.contains("Preview on the data"), "{t}");
    insta::assert_snapshot!(t);

    // A width that is not a number is explained in place of the preview.
    type_text(&mut app, "x");
    let e = app
        .hierarchies()
        .dialog
        .as_ref()
        .unwrap()
        .preview
        .clone()
        .unwrap_err();
    assert!(e.contains("'0x' is not a number"), "{e}");
    assert!(text(&render(&app)).contains("'0x' is not a number"));
    // Enter with a broken field keeps the dialog open and says why.
    app.step(&Action::Confirm);
    assert!(app.hierarchies().dialog.as_ref().unwrap().error.is_some());
    app.step(&Action::DeleteChar);
    app.step(&Action::Confirm);
    assert!(app.hierarchies().dialog.is_none());
    let held = &app.session().hierarchies()["age"];
    assert_eq!(held.hierarchy.levels(), preview.len());
    assert!(matches!(held.source, HierarchySource::Inline(_)));
}

#[test]
fn importing_a_hierarchy_that_misses_a_value_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sex.csv");
    std::fs::write(&file, "Female;*\n").unwrap();
    let mut app = hierarchies_screen();
    focus(&mut app, "sex");
    app.step(&Action::ImportHierarchy);
    type_text(&mut app, file.to_str().unwrap());
    app.step(&Action::Confirm);
    let d = app
        .hierarchies()
        .dialog
        .as_ref()
        .expect("the dialog stays open");
    let e = d.error.clone().unwrap();
    assert!(e.contains("'Male'") && e.contains("sex"), "{e}");
    assert!(app.session().hierarchies().is_empty());
    let t = text(&render(&app)).replace(dir.path().to_str().unwrap(), "[TMP]");
    insta::assert_snapshot!(t);

    // A complete file is read; Esc on a dialog changes nothing.
    std::fs::write(&file, "Female;*\nMale;*\n").unwrap();
    app.step(&Action::Confirm);
    assert!(app.hierarchies().dialog.is_none());
    assert_eq!(app.session().hierarchies()["sex"].hierarchy.levels(), 2);
    assert_eq!(
        app.to_project().hierarchies["sex"],
        HierarchySource::File(file.clone())
    );
    // Saved beside the project, the file is named relative to it and read
    // back from there.
    let project_file = dir.path().join("p.json");
    let mut app = app.with_project_path(project_file.clone());
    app.step(&Action::SaveProject);
    let json = std::fs::read_to_string(&project_file).unwrap();
    assert!(json.contains("\"file\": \"sex.csv\""), "{json}");
    let loaded = anonlab::data::Project::load(&project_file).unwrap();
    assert_eq!(loaded.hierarchies["sex"], HierarchySource::File(file));
}

#[test]
fn an_exported_hierarchy_reads_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hierarchy_zip.csv");
    let mut app = hierarchies_screen();
    focus(&mut app, "zip");
    app.step(&Action::ExportHierarchy);
    assert!(app.hierarchies().dialog.is_none());
    assert!(app.notice().unwrap().contains("no hierarchy to export"));
    build_default(&mut app, "zip");
    app.step(&Action::ExportHierarchy);
    clear_field(&mut app);
    type_text(&mut app, file.to_str().unwrap());
    app.step(&Action::Confirm);
    assert!(app.hierarchies().dialog.is_none());
    let back = arx::read(&file).unwrap();
    assert_eq!(back, app.session().hierarchies()["zip"].hierarchy);
    // The project keeps it, and a new session restores it.
    let project = app.to_project();
    let session = Session::with_project(app.dataset().clone(), &project).unwrap();
    let again = App::new(session).unwrap();
    assert_eq!(again.session().hierarchies(), app.session().hierarchies());
    app.step(&Action::RemoveHierarchy);
    assert!(app.session().hierarchies().is_empty());
}

#[test]
fn full_domain_runs_from_the_anonymize_screen_with_the_built_hierarchies() {
    let mut app = hierarchies_screen();
    app.step(&Action::ShowScreen(Screen::Anonymize));
    while app.anonymize().choice().id != FULL_DOMAIN {
        app.step(&Action::CycleAlgorithm(1));
    }
    app.run_pending_jobs_blocking();
    // No hierarchies yet: it runs on the flat ones (each attribute kept or
    // suppressed whole, as the CLI does) and the panel names them.
    assert!(app.anonymize().blocked.is_none());
    let report = app
        .anonymize()
        .view
        .as_ref()
        .unwrap()
        .full_domain
        .clone()
        .unwrap();
    assert_eq!(report.flat, ["sex", "age", "zip"]);
    let t = text(&render(&app));
    assert!(t.contains("flat      sex, age, zip"), "{t}");

    app.step(&Action::ShowScreen(Screen::Hierarchies));
    for name in ["sex", "age", "zip"] {
        build_default(&mut app, name);
    }
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.step(&Action::AdjustSuppression(2));
    app.run_pending_jobs_blocking();
    assert!(app.anonymize().blocked.is_none());
    assert_eq!(
        app.anonymize().job,
        JobState::Done,
        "{:?}",
        app.anonymize().error
    );
    let view = app.anonymize().view.as_ref().unwrap();
    assert!(view.evaluation.verification.all_hold());
    let report = view.full_domain.as_ref().unwrap();
    assert_eq!(report.attributes, ["sex", "age", "zip"]);
    assert_eq!(report.suppression_limit_rows, 30);
    assert!(report.optimum.suppressed_rows <= 30);
    assert_eq!(
        report.optimum.suppressed_rows as usize,
        view.release.suppressed_rows.len()
    );
    assert!(view.release.groups.iter().all(|g| g.rows.len() >= 5));
    let t = text(&render(&app));
    let levels: Vec<String> = report
        .attributes
        .iter()
        .zip(&report.optimum.levels)
        .zip(&report.heights)
        .map(|((a, l), h)| format!("{a} {l}/{h}"))
        .collect();
    for needle in [
        "suppress  ≤2%".to_string(),
        "metric loss".to_string(),
        format!("levels    {}, {}", levels[0], levels[1]),
        format!("│          {}", levels[2]),
        format!("loss {:.4}", report.optimum.metric),
        "ok   5-anonymity".to_string(),
    ] {
        assert!(t.contains(&needle), "no {needle:?} in\n{t}");
    }

    // Another metric runs again and is shown.
    app.step(&Action::CycleMetric);
    app.run_pending_jobs_blocking();
    let view = app.anonymize().view.as_ref().unwrap();
    let report = view.full_domain.as_ref().unwrap();
    assert_eq!(report.metric.to_string(), "dm");
    assert!(text(&render(&app)).contains("metric dm"));

    // Without zip's hierarchy full-domain searches zip on the flat one,
    // and says so.
    app.step(&Action::ShowScreen(Screen::Hierarchies));
    focus(&mut app, "zip");
    app.step(&Action::RemoveHierarchy);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.run_pending_jobs_blocking();
    let view = app.anonymize().view.as_ref().unwrap();
    assert_eq!(view.full_domain.as_ref().unwrap().flat, ["zip"]);
    assert!(text(&render(&app)).contains("flat      zip"));
}

#[test]
fn the_correlation_based_builder_previews_algorithm_4_on_the_focused_attribute() {
    use anonlab::hierarchy::correlated::{construct, CorrelatedSpec};
    let mut app = hierarchies_screen();
    focus(&mut app, "age");
    app.step(&Action::BuildHierarchy);
    // Intervals is the first builder; the correlation construction the last.
    app.step(&Action::Left);
    let d = app.hierarchies().dialog.clone().unwrap();
    assert_eq!(d.builder, Builder::Correlated);
    let labels: Vec<&str> = d.fields.iter().map(|f| f.label).collect();
    assert_eq!(labels, ["min records", "attributes used"]);
    // The same construction called directly, on the non-identifier columns.
    let ds = app.dataset();
    let mut spec = CorrelatedSpec::new(ds, 2, 5);
    spec.attributes = vec![1, 3, 4, 5, 6];
    let expected = construct(ds, &spec).unwrap();
    let preview = d.preview.clone().unwrap();
    assert_eq!(preview.len(), expected.hierarchy.levels());
    let note = d.note.clone().unwrap();
    assert!(
        note.contains(&format!("cuts conditioned on {}", expected.used.join(", "))),
        "{note}"
    );
    let t = text(&render(&app));
    // The figures themselves are the construction's (tested with it), so
    // the screen is checked for them rather than snapshotted.
    assert!(
        t.contains("by correlation (Algorithm 4)") && t.contains(&note),
        "{t}"
    );
    for l in &preview {
        let row = format!("{:>5}  {:>6}", l.level, l.classes);
        assert!(t.contains(&row), "no {row:?} in\n{t}");
    }
    app.step(&Action::Confirm);
    assert_eq!(
        app.session().hierarchies()["age"].hierarchy,
        expected.hierarchy
    );
}
