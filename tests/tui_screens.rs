//! Screen tests: the app is driven with actions (never key codes), drawn
//! into ratatui's `TestBackend`, and the buffer is compared with insta
//! snapshots and checked cell by cell where a style matters.
#![cfg(feature = "tui")]

use crate::common;

use anonlab::data::{load_csv_bytes, ColumnBuilder, CsvOptions, Dataset, Role};
use anonlab::session::Session;
use anonlab_tui::{self as tui, Action, App, JobState, Screen};
use common::screen::{render, steps, text, thousands};
use ratatui::buffer::Buffer;

const CSV: &str = "\
name,sex,age,zip,occupation,disease
Ann,F,34,1001,nurse,flu
Bob,M,34,1001,clerk,cold
Cid,M,51,1002,nurse,flu
Dee,F,51,1002,driver,asthma
Eve,F,29,1001,clerk,flu
Fay,F,29,1003,nurse,cold
Gus,M,62,1003,driver,flu
Hal,M,62,1003,clerk,asthma
";

fn session() -> Session {
    let ds = load_csv_bytes(CSV.as_bytes(), "people.csv", &CsvOptions::default()).unwrap();
    Session::new(ds, Some("people.csv".into()), CsvOptions::default())
}

/// The people table with name an identifier and sex/age/zip
/// quasi-identifiers, as a user would set them on the Data screen.
fn app_with_roles(width: u16, height: u16) -> App {
    let mut s = session();
    for (col, role) in [
        ("name", Role::Identifier),
        ("sex", Role::QuasiIdentifier),
        ("age", Role::QuasiIdentifier),
        ("zip", Role::QuasiIdentifier),
        ("disease", Role::Sensitive),
    ] {
        let c = s.dataset.column_index(col).unwrap();
        s.roles.set(c, role);
    }
    let mut app = App::new(s).unwrap();
    app.step(&Action::Resize(width, height));
    app
}

/// Position of the first occurrence of `needle` on screen.
fn find(buf: &Buffer, needle: &str) -> Option<(u16, u16)> {
    let lines = text(buf);
    lines.lines().enumerate().find_map(|(y, l)| {
        l.find(needle).map(|byte| {
            // Symbols may be wider than one byte: count characters.
            let x = l[..byte].chars().count();
            (x as u16, y as u16)
        })
    })
}

#[test]
fn data_screen_snapshot() {
    let app = app_with_roles(100, 16);
    insta::assert_snapshot!(text(&render(&app)));
}

#[test]
fn qi_header_is_drawn_in_the_qi_colour() {
    let app = app_with_roles(100, 16);
    let buf = render(&app);
    let (x, y) = find(&buf, "zip").expect("zip header on screen");
    assert_eq!(buf[(x, y)].fg, tui::role_color(Role::QuasiIdentifier));
    let (x, y) = find(&buf, "name").expect("name header on screen");
    assert_eq!(buf[(x, y)].fg, tui::role_color(Role::Identifier));
    // The role tag is under the name.
    assert_eq!(buf[(x, y + 1)].symbol(), "I");
}

#[test]
fn setting_roles_recolours_the_header_and_the_status_bar_counts_qis() {
    let mut app = app_with_roles(100, 16);
    // Focus "occupation" (column 4) and make it a quasi-identifier.
    steps(
        &mut app,
        &[
            Action::RowEnd,
            Action::Left,
            Action::SetRole(Role::QuasiIdentifier),
        ],
    );
    assert_eq!(app.roles().get(4), Role::QuasiIdentifier);
    let buf = render(&app);
    let (x, y) = find(&buf, "occupation").unwrap();
    assert_eq!(buf[(x, y)].fg, tui::role_color(Role::QuasiIdentifier));
    assert!(text(&buf).contains("4 QI"), "{}", text(&buf));
    // CycleRole moves on to the next role.
    app.step(&Action::CycleRole);
    assert_eq!(app.roles().get(4), Role::Sensitive);
}

#[test]
fn toggled_cell_is_marked_sensitive() {
    let mut app = app_with_roles(100, 16);
    steps(
        &mut app,
        &[
            Action::RowEnd,
            Action::Left,
            Action::SetRole(Role::SemiSensitive),
            Action::Down,
            Action::ToggleSensitivity,
        ],
    );
    assert!(app.is_sensitive(1, 4));
    assert!(!app.is_sensitive(0, 4));
    let buf = render(&app);
    let mark = format!("{}clerk", tui::SENSITIVE_MARK);
    let (x, y) = find(&buf, &mark).expect("marked cell on screen");
    // The cursor sits on the cell: the sensitive style, reversed.
    let style = tui::sensitive_cell_style();
    assert_eq!(buf[(x + 1, y)].bg, style.bg.unwrap());
    assert_eq!(app.column_stats().sensitive, Some(1));
    assert!(text(&buf).contains("1 cells (12.5%)"));
    // Moving away, the cell keeps its mark.
    app.step(&Action::Down);
    let buf = render(&app);
    assert!(text(&buf).contains(&mark));
    // Toggling again unmarks.
    steps(&mut app, &[Action::Up, Action::ToggleSensitivity]);
    assert!(!app.is_sensitive(1, 4));
}

#[test]
fn toggling_a_non_semi_sensitive_cell_explains_instead() {
    let mut app = app_with_roles(100, 16);
    app.step(&Action::ToggleSensitivity);
    assert!(!app.is_sensitive(0, 0));
    let notice = app.notice().expect("a notice");
    assert!(
        notice.contains("semi-sensitive") && notice.contains("key S"),
        "{notice}"
    );
    assert!(text(&render(&app)).contains("only cells of semi-sensitive"));
}

#[test]
fn side_panel_describes_the_focused_column() {
    let mut app = app_with_roles(100, 24);
    steps(&mut app, &[Action::RowEnd, Action::Left]);
    let s = app.column_stats();
    assert_eq!(s.name, "occupation");
    assert_eq!(s.distinct, 3);
    // clerk and nurse both occur 3 times: ties go in value order.
    assert_eq!(s.top[0], ("clerk".to_string(), 3));
    assert_eq!(s.top[1], ("nurse".to_string(), 3));
    let t = text(&render(&app));
    assert!(t.contains("occupation") && t.contains("categorical") && t.contains("nurse"));
    insta::assert_snapshot!(t);
}

#[test]
fn help_overlay_lists_the_focused_screens_keys() {
    let mut app = app_with_roles(100, 60);
    app.step(&Action::ToggleHelp);
    let t = text(&render(&app));
    for line in app.keymap().help(Screen::Data) {
        assert!(t.contains(line.help), "help lacks {:?}\n{t}", line.help);
    }
    assert!(t.contains("Keys: Data screen"));
    assert!(!t.contains("move the attribute earlier"));
    insta::assert_snapshot!(t);
    // While help is open, other actions are swallowed; Esc closes it.
    app.step(&Action::Down);
    assert_eq!(app.data_view().row, 0);
    app.step(&Action::Cancel);
    assert!(!app.help_visible());

    app.step(&Action::ShowScreen(Screen::Risk));
    app.step(&Action::ToggleHelp);
    let t = text(&render(&app));
    assert!(t.contains("Keys: Risk screen") && t.contains("move the attribute earlier"));
}

#[test]
fn tabs_switch_screens() {
    let mut app = app_with_roles(100, 24);
    assert_eq!(app.screen(), Screen::Data);
    app.step(&Action::NextScreen);
    assert_eq!(app.screen(), Screen::Risk);
    app.step(&Action::NextScreen);
    assert_eq!(app.screen(), Screen::Anonymize);
    app.step(&Action::NextScreen);
    assert_eq!(app.screen(), Screen::Hierarchies);
    app.step(&Action::NextScreen);
    assert_eq!(app.screen(), Screen::Compare);
    app.step(&Action::NextScreen);
    assert_eq!(app.screen(), Screen::Data);
    app.step(&Action::PrevScreen);
    assert_eq!(app.screen(), Screen::Compare);
    app.step(&Action::PrevScreen);
    assert_eq!(app.screen(), Screen::Hierarchies);
    app.step(&Action::PrevScreen);
    assert_eq!(app.screen(), Screen::Anonymize);
    app.step(&Action::PrevScreen);
    assert_eq!(app.screen(), Screen::Risk);
    app.step(&Action::ShowScreen(Screen::Data));
    assert_eq!(app.screen(), Screen::Data);
    app.step(&Action::Quit);
    assert!(app.should_quit());
}

#[test]
fn risk_screen_shows_the_uniques_after_the_worker_finished() {
    let mut app = app_with_roles(120, 30);
    app.step(&Action::ShowScreen(Screen::Risk));
    // Before the job ran: the gauge, no figures.
    assert!(matches!(app.job(), JobState::Running { .. }));
    let t = text(&render(&app));
    assert!(
        t.contains("simulating 0%") && t.contains("not computed yet"),
        "{t}"
    );

    app.run_pending_jobs_blocking();
    assert_eq!(app.job(), &JobState::Done);
    let view = &app.session().baseline().unwrap().assessment.simulation;
    // sex, age, zip: (F,34,1001) (M,34,1001) (M,51,1002) (F,51,1002)
    // (F,29,1001) (F,29,1003) (M,62,1003) ×2 → 6 uniques, 7 classes.
    assert_eq!(view.summary.uniques, 6);
    assert_eq!(view.summary.classes, 7);
    let t = text(&render(&app));
    // The key count's row: 8 of 8 above 0.2, 6 singled out.
    let row = t.lines().find(|l| l.contains("key count")).unwrap();
    assert!(
        row.contains("8 (100.0%)") && row.contains("6 (75.0%)"),
        "{t}"
    );
    insta::assert_snapshot!(t);
}

#[test]
fn attacker_picker_reorders_and_toggles_and_recomputes() {
    let mut app = app_with_roles(120, 30);
    app.step(&Action::ShowScreen(Screen::Risk));
    app.run_pending_jobs_blocking();
    let names = |app: &App| -> Vec<String> {
        app.session()
            .known_columns()
            .iter()
            .map(|&c| app.dataset().col(c).name().to_string())
            .collect()
    };
    assert_eq!(names(&app), ["sex", "age", "zip"]);
    // Move zip to the front.
    steps(
        &mut app,
        &[Action::Last, Action::MoveKnownUp, Action::MoveKnownUp],
    );
    assert_eq!(names(&app), ["zip", "sex", "age"]);
    assert!(!app.session().baseline_current());
    app.run_pending_jobs_blocking();
    let prefix = &app
        .session()
        .baseline()
        .unwrap()
        .assessment
        .simulation
        .prefix;
    assert_eq!(prefix[0].attributes, ["zip"]);
    assert_eq!(prefix[0].classes, 3);
    assert_eq!(prefix[2].uniques, 6);
    // The attacker forgets sex (now second).
    steps(&mut app, &[Action::Down, Action::ToggleKnown]);
    app.run_pending_jobs_blocking();
    assert_eq!(names(&app), ["zip", "age"]);
    let view = &app.session().baseline().unwrap().assessment.simulation;
    assert_eq!(view.attributes, ["zip", "age"]);
    // (1001,34)×2 (1002,51)×2 (1001,29) (1003,29) (1003,62)×2 → 2 uniques.
    assert_eq!(view.summary.uniques, 2);
    let t = text(&render(&app));
    assert!(t.contains("[ ]") && t.contains("[x]  1. zip"), "{t}");
}

#[test]
fn threshold_changes_recount_without_a_new_job() {
    let mut app = app_with_roles(120, 30);
    app.step(&Action::ShowScreen(Screen::Risk));
    app.run_pending_jobs_blocking();
    assert_eq!(app.session().threshold(), 0.2);
    // 6 uniques have Pr 1 and 2 records Pr 0.5: all 8 are above 0.2.
    assert_eq!(
        app.risk()
            .before
            .as_ref()
            .unwrap()
            .simulator
            .above(app.session().threshold()),
        8
    );
    app.step(&Action::ThresholdUp);
    app.step(&Action::ThresholdUp);
    app.step(&Action::ThresholdUp);
    assert_eq!(app.session().threshold(), 0.5);
    assert_eq!(app.job(), &JobState::Done, "no recomputation");
    assert_eq!(
        app.risk()
            .before
            .as_ref()
            .unwrap()
            .simulator
            .above(app.session().threshold()),
        6
    );
    assert!(text(&render(&app)).contains("before: 6 above 0.500"));
}

#[test]
fn semi_sensitive_cells_are_hidden_from_the_attacker() {
    let mut app = app_with_roles(120, 30);
    // occupation semi-sensitive; mark row 0's cell sensitive.
    steps(
        &mut app,
        &[
            Action::RowEnd,
            Action::Left,
            Action::SetRole(Role::SemiSensitive),
            Action::ToggleSensitivity,
        ],
    );
    app.run_pending_jobs_blocking();
    let view = &app.session().baseline().unwrap().assessment.simulation;
    assert_eq!(view.attributes, ["sex", "age", "zip", "occupation"]);
    assert_eq!(view.hidden_cells, 1);
}

#[test]
fn cancel_stops_the_job_and_esc_closes_a_failure_popup() {
    let mut app = app_with_roles(120, 30);
    app.step(&Action::ShowScreen(Screen::Risk));
    app.step(&Action::Cancel);
    assert_eq!(app.job(), &JobState::Cancelled);
    // Nothing is left to run.
    app.run_pending_jobs_blocking();
    assert!(app.session().baseline().is_none());
    assert!(text(&render(&app)).contains("risk: cancelled"));

    app.step(&Action::Recompute);
    app.run_pending_jobs_blocking();
    assert_eq!(app.job(), &JobState::Done);
}

#[test]
fn a_failed_computation_is_a_popup_not_a_crash() {
    // Sixty-four known attributes is more than the simulator accepts with
    // hidden cells; it fails with a message.
    let names: Vec<String> = (0..64).map(|i| format!("c{i}")).collect();
    let cols = names
        .iter()
        .map(|n| {
            let mut b = ColumnBuilder::new(n.clone());
            b.push("1");
            b.push("2");
            b.finish(None).unwrap()
        })
        .collect();
    let ds = Dataset::new("wide", cols).unwrap();
    let mut s = Session::new(ds, None, CsvOptions::default());
    for c in 0..64 {
        s.roles.set(c, Role::QuasiIdentifier);
    }
    s.roles.set(0, Role::SemiSensitive);
    s.sensitivity.insert(0, Default::default());
    s.sensitivity.get_mut(&0).unwrap().toggle(0);
    let mut app = App::new(s).unwrap();
    app.step(&Action::Resize(100, 24));
    app.run_pending_jobs_blocking();
    assert_eq!(app.job(), &JobState::Failed);
    let popup = app.popup().expect("a popup");
    assert!(popup.message.contains("63"), "{}", popup.message);
    let t = text(&render(&app));
    assert!(
        t.contains("Risk computation failed") && t.contains("Esc closes"),
        "{t}"
    );
    // Other actions wait until the popup is closed.
    app.step(&Action::NextScreen);
    assert_eq!(app.screen(), Screen::Data);
    app.step(&Action::Cancel);
    assert!(app.popup().is_none());
}

/// A table of `rows` rows and two columns, built without string rows.
fn big(rows: usize) -> Dataset {
    let mut id = ColumnBuilder::with_capacity("id".into(), rows);
    let mut group = ColumnBuilder::with_capacity("group".into(), rows);
    for r in 0..rows {
        id.push(&r.to_string());
        group.push(["a", "b", "c"][r % 3]);
    }
    Dataset::new(
        "big",
        vec![id.finish(None).unwrap(), group.finish(None).unwrap()],
    )
    .unwrap()
}

#[test]
fn a_million_rows_scroll_by_drawing_only_the_visible_rows() {
    let ds = big(1_000_000);
    let mut app = App::new(Session::new(ds, None, CsvOptions::default())).unwrap();
    app.step(&Action::Resize(100, 20));
    let page = app.data_view().page;
    assert!(page > 0 && page < 20);
    let n = app.dataset().n_rows();
    assert_eq!(app.data_view().visible_rows(n).len(), page);

    app.step(&Action::Last);
    let v = app.data_view();
    assert_eq!(v.row, 999_999);
    assert_eq!(v.visible_rows(n), 1_000_000 - page..1_000_000);
    let t = text(&render(&app));
    assert!(t.contains("1000000") && t.contains("999999"), "{t}");
    assert!(t.contains(&format!(
        "rows {}–1,000,000 of 1,000,000",
        thousands(1_000_001 - page)
    )));

    steps(&mut app, &[Action::PageUp, Action::Scroll(-3)]);
    let v = app.data_view();
    assert_eq!(v.visible_rows(n).len(), page);
    assert!(v.row >= v.top && v.row < v.top + page);

    // 200 frames, one row up each, keep the cursor on screen. (How fast a
    // frame draws is a benchmark's question, not this test's.)
    let before = app.data_view().row;
    for _ in 0..200 {
        app.step(&Action::Up);
        render(&app);
    }
    let v = app.data_view();
    assert_eq!(v.row, before - 200);
    assert!(v.visible_rows(n).contains(&v.row));
}

#[test]
fn wide_tables_scroll_horizontally_to_follow_the_cursor() {
    let mut app = app_with_roles(40, 12);
    // Narrow: no side panel, only some columns fit.
    let first = app.data_view().columns.clone();
    assert!(first.len() < 6);
    app.step(&Action::RowEnd);
    let v = app.data_view();
    assert_eq!(v.col, 5);
    assert!(v.columns.iter().any(|&(c, _)| c == 5));
    assert!(text(&render(&app)).contains("disease"));
    app.step(&Action::RowStart);
    assert_eq!(app.data_view().columns, first);
}

#[test]
fn project_round_trip_keeps_the_users_edits() {
    let mut app = app_with_roles(100, 16);
    steps(
        &mut app,
        &[
            Action::RowEnd,
            Action::Left,
            Action::SetRole(Role::SemiSensitive),
            Action::Down,
            Action::ToggleSensitivity,
            Action::ShowScreen(Screen::Risk),
            Action::Last,
            Action::MoveKnownUp,
            Action::ThresholdDown,
        ],
    );
    let p = app.to_project();
    assert_eq!(p.attacker.known, ["sex", "age", "occupation", "zip"]);
    assert_eq!(p.attacker.threshold, 0.1);
    assert!(p.sensitivity["occupation"].toggled.contains(&1));
    let ds = app.dataset().clone();
    let back = App::new(Session::with_project(ds, &p).unwrap()).unwrap();
    assert_eq!(back.to_project(), p);
    assert!(back.is_sensitive(1, 4));
}

#[test]
fn help_on_a_short_terminal_uses_two_columns() {
    let mut app = app_with_roles(150, 32);
    app.step(&Action::ToggleHelp);
    let t = text(&render(&app));
    for line in app.keymap().help(Screen::Data) {
        assert!(t.contains(line.help), "help lacks {:?}\n{t}", line.help);
    }
}

#[test]
fn roles_the_attacker_cannot_see_do_not_start_a_computation() {
    let mut app = app_with_roles(100, 16);
    app.run_pending_jobs_blocking();
    // occupation: insensitive → identifier.
    steps(
        &mut app,
        &[
            Action::RowEnd,
            Action::Left,
            Action::SetRole(Role::Identifier),
        ],
    );
    assert_eq!(app.job(), &JobState::Done);
    // → quasi-identifier: the attacker now knows it.
    app.step(&Action::SetRole(Role::QuasiIdentifier));
    assert!(matches!(app.job(), JobState::Running { .. }));
}

#[test]
fn a_table_without_rows_draws_and_steps_without_panicking() {
    // CSV import refuses a file without rows, but a dataset may have none.
    let ds = Dataset::from_rows(&["a", "b"], &[]).unwrap();
    let mut app = App::new(Session::new(ds, None, CsvOptions::default())).unwrap();
    app.step(&Action::Resize(90, 20));
    for a in [
        Action::Down,
        Action::Last,
        Action::PageDown,
        Action::Scroll(3),
        Action::Right,
        Action::SetRole(Role::SemiSensitive),
        Action::ToggleSensitivity,
        Action::ShowScreen(Screen::Risk),
        Action::ToggleKnown,
        Action::MoveKnownDown,
    ] {
        app.step(&a);
        app.run_pending_jobs_blocking();
        render(&app);
    }
    assert!(app.popup().is_none(), "{:?}", app.popup());
    app.step(&Action::ShowScreen(Screen::Data));
    assert!(text(&render(&app)).contains("no rows"));
}
