//! The Risk screen, driven by actions: the three attacks before and after
//! anonymization, the attacker-knowledge picker, the records above the
//! threshold and the jump to the Data screen. On Adult the figures are
//! checked against the library (`risk::simulate`, the Evaluation) and an
//! independent count, never against hard-coded numbers.
#![cfg(feature = "tui")]

use crate::common;

use std::collections::HashMap;

use anonlab::data::{CsvOptions, Role};
use anonlab::risk::{self, Knowledge};
use anonlab::session::Session;
use anonlab_tui::{Action, App, JobState, RecordList, RiskFocus, Screen};
use common::screen::{choose_algorithm, demo, render, run_to_done, steps, text};

/// The demo anonymized by Mondrian (k = 5, the default), then the Risk screen with
/// every job finished.
fn demo_after_mondrian(width: u16, height: u16) -> App {
    let mut app = demo(width, height);
    choose_algorithm(&mut app, "mondrian");
    run_to_done(&mut app);
    app.step(&Action::ShowScreen(Screen::Risk));
    app.run_pending_jobs_blocking();
    assert_eq!(app.risk().after_job, JobState::Done);
    app
}

#[test]
fn before_any_anonymization_the_after_column_says_how_to_get_one() {
    let mut app = demo(130, 36);
    app.step(&Action::ShowScreen(Screen::Risk));
    app.run_pending_jobs_blocking();
    let before = app.risk().before.as_ref().unwrap();
    let summary = &app
        .session()
        .baseline()
        .unwrap()
        .assessment
        .simulation
        .summary;
    // The simulator's own summary is what the key-count row shows.
    assert_eq!(
        before.simulator.above(app.session().threshold()),
        summary.records_above_threshold
    );
    assert_eq!(before.simulator.certain(), summary.uniques);
    assert!(app.risk().after.is_none());
    let t = text(&render(&app));
    assert!(t.contains("no release yet: 3 Anonymize, then run"), "{t}");
    assert!(t.contains("breach disease"), "{t}");
    insta::assert_snapshot!(t);
}

#[test]
fn after_a_mondrian_run_before_and_after_sit_side_by_side() {
    let app = demo_after_mondrian(130, 36);
    let after = app.risk().after.as_ref().unwrap();
    let eval = &app.anonymize().view.as_ref().unwrap().evaluation;
    // Mondrian publishes sex, age and zip; occupation (semi-sensitive) is
    // left out of its release, so knowing it does not help.
    assert_eq!(after.unpublished, ["occupation"]);
    // Every published QI is known: linkage and breach are the Evaluation's.
    let r = &eval.reidentification.summary;
    assert_eq!(after.measures.linkage.mean(), r.mean);
    assert_eq!(after.measures.linkage.max(), r.max);
    let b = &eval.breach.as_ref().unwrap().summary;
    let (name, breach) = after.measures.breach.as_ref().unwrap();
    assert_eq!(name, "disease");
    assert_eq!((breach.mean(), breach.max()), (b.mean, b.max));
    // k = 5: nobody is singled out, nobody above 1/5 by the key count.
    assert_eq!(after.measures.simulator.certain(), 0);
    assert!(after.measures.simulator.max() <= 1.0 / 5.0 + 1e-12);
    let before = app.risk().before.as_ref().unwrap();
    assert!(before.simulator.certain() > 0);
    let t = text(&render(&app));
    assert!(t.contains("after: mondrian k=5"), "{t}");
    assert!(t.contains("not published: occupation"), "{t}");
    insta::assert_snapshot!(t);
}

#[test]
fn the_threshold_recounts_both_columns_without_a_job() {
    let mut app = demo_after_mondrian(130, 36);
    let above = |app: &App| {
        (
            app.risk()
                .before
                .as_ref()
                .unwrap()
                .simulator
                .above(app.session().threshold()),
            app.risk()
                .after
                .as_ref()
                .unwrap()
                .measures
                .simulator
                .above(app.session().threshold()),
        )
    };
    // Down to 0.01: every record with Pr > 0.01 is above, after too.
    for _ in 0..5 {
        app.step(&Action::ThresholdDown);
    }
    assert_eq!(app.session().threshold(), 0.01);
    let (before, after) = above(&app);
    assert_eq!(app.job(), &JobState::Done, "no recomputation");
    assert_eq!(app.risk().after_job, JobState::Done);
    let n = app.dataset().n_rows();
    let a = app.risk().after.as_ref().unwrap();
    let expected_after = a
        .matches
        .iter()
        .filter(|&&m| m > 0 && 1.0 / f64::from(m) > 0.01)
        .count();
    assert_eq!(after, expected_after);
    assert!(before <= n);
    // Up to 1: nothing can be above.
    for _ in 0..10 {
        app.step(&Action::ThresholdUp);
    }
    assert_eq!(above(&app), (0, 0));
}

#[test]
fn the_picker_knows_all_or_nothing_and_the_after_column_follows() {
    let mut app = demo_after_mondrian(130, 36);
    assert_eq!(app.session().known_columns().len(), 4);
    app.step(&Action::ToggleAllKnown);
    assert!(app.session().known_columns().is_empty());
    app.run_pending_jobs_blocking();
    let after = app.risk().after.as_ref().unwrap();
    assert!(after.columns.is_empty());
    // Knowing nothing, every record hides among all the others.
    let n = app.dataset().n_rows() as f64;
    assert!((after.measures.simulator.mean() - 1.0 / n).abs() < 1e-12);
    assert!((after.measures.linkage.mean() - 1.0 / n).abs() < 1e-12);
    let before = app.risk().before.as_ref().unwrap();
    assert!((before.simulator.mean() - 1.0 / n).abs() < 1e-12);
    app.step(&Action::ToggleAllKnown);
    assert_eq!(app.session().known_columns().len(), 4);
    // Forgetting zip (picker row 3) recomputes the release's figures.
    steps(
        &mut app,
        &[
            Action::First,
            Action::Down,
            Action::Down,
            Action::ToggleKnown,
        ],
    );
    app.run_pending_jobs_blocking();
    let names: Vec<&str> = app
        .risk()
        .after
        .as_ref()
        .unwrap()
        .columns
        .iter()
        .map(|&c| app.dataset().col(c).name())
        .collect();
    assert_eq!(names, ["sex", "age"]);
}

#[test]
fn records_above_the_threshold_are_listed_most_exposed_first() {
    let mut app = demo_after_mondrian(130, 36);
    let (listed, above) = app.risk().shown_list(app.session());
    let listed = listed.to_vec();
    assert_eq!(
        above,
        app.risk()
            .before
            .as_ref()
            .unwrap()
            .simulator
            .above(app.session().threshold())
    );
    assert_eq!(listed.len(), above.min(anonlab_tui::MAX_LISTED));
    assert!(listed
        .windows(2)
        .all(|w| (w[0].matches, w[0].row) < (w[1].matches, w[1].row)));
    // The picker has the focus; → gives it to the list, ↓ moves in it.
    steps(&mut app, &[Action::Right, Action::Down, Action::Down]);
    assert_eq!(app.risk().focus, RiskFocus::Records);
    assert_eq!(app.risk().list_cursor, 2);
    assert_eq!(app.risk().cursor, 0, "the picker's cursor stays");
    // A page down: the list shows the page holding the cursor.
    app.step(&Action::PageDown);
    let page = app.risk().list_page;
    assert_eq!(app.risk().list_cursor, 2 + page);
    let t = text(&render(&app));
    assert!(t.contains("known values"), "{t}");
    let row = |i: usize| common::screen::thousands(listed[i].row as usize + 1);
    let first_shown = t.lines().find(|l| l.contains(" 1.000 ")).unwrap();
    assert!(
        first_shown.contains(&format!("{:>5} 1.000", row(page))),
        "{t}"
    );
    insta::assert_snapshot!("list_before", t);
    app.step(&Action::First);
    assert_eq!(app.risk().list_cursor, 0);

    // The release's list: nobody is above 0.2 after k = 5; lowered to
    // 0.05, the smallest groups are.
    app.step(&Action::SwitchRecordList);
    assert_eq!(app.risk().list, RecordList::After);
    assert_eq!(app.risk().shown_list(app.session()).1, 0);
    app.step(&Action::ThresholdDown);
    app.step(&Action::ThresholdDown);
    assert_eq!(app.session().threshold(), 0.05);
    let (listed, above) = app.risk().shown_list(app.session());
    assert!(above > 0);
    let a = app.risk().after.as_ref().unwrap();
    let first = listed[0];
    assert_eq!(a.matches[first.row as usize], first.matches);
    assert!(a.group_of_row[first.row as usize].is_some());
    let t = text(&render(&app));
    assert!(t.contains("published cells"), "{t}");
    insta::assert_snapshot!("list_after", t);
}

#[test]
fn enter_on_a_listed_record_shows_it_on_the_data_screen() {
    let mut app = demo_after_mondrian(130, 36);
    steps(&mut app, &[Action::Right, Action::Last]);
    let (listed, _) = app.risk().shown_list(app.session());
    let row = listed[app.risk().list_cursor].row as usize;
    assert!(row > 30, "the last listed record is far down the table");
    app.step(&Action::JumpToRecord);
    assert_eq!(app.screen(), Screen::Data);
    let d = app.data_view();
    assert_eq!(d.row, row);
    assert!(d.visible_rows(app.dataset().n_rows()).contains(&row));
    let t = text(&render(&app));
    assert!(t.contains(&common::screen::thousands(row + 1)), "{t}");
}

#[test]
fn enter_on_the_picker_toggles_the_attribute() {
    let mut app = demo(130, 36);
    app.step(&Action::ShowScreen(Screen::Risk));
    app.run_pending_jobs_blocking();
    app.step(&Action::JumpToRecord);
    assert_eq!(app.screen(), Screen::Risk);
    assert_eq!(app.session().known_columns().len(), 3);
}

/// Adult with the cross-bucket paper's seven QIs and occupation sensitive.
fn adult_app() -> Option<App> {
    let ds = common::adult()?;
    let mut s = Session::new(ds, None, CsvOptions::default());
    for name in common::ADULT_QI7 {
        let c = s.dataset.column_index(name).unwrap();
        s.roles.set(c, Role::QuasiIdentifier);
    }
    let occ = s.dataset.column_index("occupation").unwrap();
    s.roles.set(occ, Role::Sensitive);
    let mut app = App::new(s).unwrap();
    app.step(&Action::Resize(130, 36));
    Some(app)
}

#[test]
fn on_adult_before_is_the_simulator_and_after_is_the_evaluation() {
    let Some(mut app) = adult_app() else {
        return;
    };
    choose_algorithm(&mut app, "mondrian");
    run_to_done(&mut app);
    app.step(&Action::ShowScreen(Screen::Risk));
    app.run_pending_jobs_blocking();
    let ds = app.dataset();
    let risk = app.risk();
    let session = app.session();
    let threshold = session.threshold();
    let known = session.known_columns();
    assert_eq!(known.len(), 7);

    // Before: the simulator on the same knowledge.
    let sim = risk::simulate(ds, Knowledge::plain(&known), threshold, &Default::default()).unwrap();
    let summary = &session.baseline().unwrap().assessment.simulation.summary;
    assert_eq!(summary, &sim.summary);
    let m = risk.before.as_ref().unwrap();
    assert_eq!(m.simulator.mean(), sim.summary.mean);
    assert_eq!(
        m.simulator.above(threshold),
        sim.summary.records_above_threshold
    );
    assert_eq!(m.simulator.certain(), sim.summary.uniques);
    // No hidden cells: the linkage attack on the original table finds the
    // same crowds as the key count.
    assert!((m.linkage.mean() - sim.summary.mean).abs() < 1e-9);
    assert_eq!(m.linkage.certain(), sim.summary.uniques);
    assert_eq!(
        m.linkage.above(threshold),
        sim.summary.records_above_threshold
    );
    // The list is the simulator's records above the threshold.
    let (listed, above) = risk.shown_list(session);
    assert_eq!(above, sim.summary.records_above_threshold);
    let expected = sim.records_above(threshold);
    let rows: Vec<u32> = listed.iter().map(|l| l.row).collect();
    assert_eq!(rows, expected[..rows.len()]);

    // After: the Evaluation of the release on the Anonymize screen.
    let eval = &app.anonymize().view.as_ref().unwrap().evaluation;
    let after = risk.after.as_ref().unwrap();
    let r = &eval.reidentification.summary;
    assert_eq!(
        (after.measures.linkage.mean(), after.measures.linkage.max()),
        (r.mean, r.max)
    );
    // The Evaluation counts above 1/k, the screen's threshold (k = 5).
    let k = f64::from(eval.k);
    assert_eq!(threshold, 1.0 / k);
    assert_eq!(
        after.measures.linkage.above(threshold),
        r.records_above_threshold
    );
    assert!(after.measures.linkage.max() <= 1.0 / k + 1e-12);
    let b = eval.breach.as_ref().unwrap();
    let (_, breach) = after.measures.breach.as_ref().unwrap();
    assert_eq!(
        (breach.mean(), breach.max()),
        (b.summary.mean, b.summary.max)
    );

    // The key count on the release, counted independently: records whose
    // group prints the same cells.
    let release = &app.anonymize().view.as_ref().unwrap().release;
    let mut crowd: HashMap<Vec<String>, usize> = HashMap::new();
    let printed: Vec<Vec<String>> = release
        .groups
        .iter()
        .map(|g| {
            g.cells
                .iter()
                .zip(&release.quasi_identifiers)
                .map(|(cell, &c)| cell.render(ds.col(c), 0))
                .collect()
        })
        .collect();
    for (g, p) in release.groups.iter().zip(&printed) {
        *crowd.entry(p.clone()).or_default() += g.rows.len();
    }
    let mean: f64 = release
        .groups
        .iter()
        .zip(&printed)
        .map(|(g, p)| g.rows.len() as f64 / crowd[p] as f64)
        .sum::<f64>()
        / ds.n_rows() as f64;
    assert!((after.measures.simulator.mean() - mean).abs() < 1e-9);
}
