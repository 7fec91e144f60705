//! Screen tests of the LGB workflow in the TUI (issue 4, item 7): the Data
//! screen's dialog marking the sensitive cells of a semi-sensitive column
//! by rule, density or flag column, and the count of sensitive cells per
//! attribute; LGB on the Anonymize screen with the session's cells, its
//! published table (GIDs, bucket references) and the record detail
//! (matching tuples and buckets, breach probability per sensitive cell). The app runs on the embedded demo (occupation semi-sensitive,
//! its sensitive cells flagged by `hide_occupation`), is driven with
//! actions, drawn into ratatui's `TestBackend` and checked against figures
//! counted here from the data, and with insta snapshots.
#![cfg(feature = "tui")]

use crate::common;

use anonlab::data::{Role, SensitivitySource};
use anonlab::release::Guarantee;
use anonlab_tui::{Action, App, JobState, MarkMode, Screen};
use common::screen::{choose_algorithm, demo, render, run_to_done, steps, text};

fn type_text(app: &mut App, s: &str) {
    for c in s.chars() {
        app.step(&Action::TypeChar(c));
    }
}

/// The cursor moved onto a column of the demo.
fn focus(app: &mut App, column: &str) {
    let c = app.dataset().column_index(column).unwrap();
    app.step(&Action::RowStart);
    for _ in 0..c {
        app.step(&Action::Right);
    }
    assert_eq!(app.data_view().col, c);
}

/// Rows of the demo whose `column` is a number satisfying `keep`, counted
/// from the raw values (not through the rule engine under test).
fn count_rows(app: &App, column: &str, keep: impl Fn(f64) -> bool) -> usize {
    let col = app.dataset().column(column).unwrap();
    (0..app.dataset().n_rows())
        .filter(|&r| col.display(col.code(r)).parse::<f64>().is_ok_and(&keep))
        .count()
}

fn occupation(app: &App) -> usize {
    app.dataset().column_index("occupation").unwrap()
}

#[test]
fn the_dialog_marks_cells_by_rule() {
    let mut app = demo(120, 30);
    focus(&mut app, "occupation");
    app.step(&Action::MarkCells);
    let d = app.mark_dialog().expect("the dialog opens");
    // The demo flags occupation cells by hide_occupation: the dialog
    // starts there and offers that column.
    assert_eq!(d.mode, MarkMode::Flag);
    // To the rule mode, then type the rule.
    steps(&mut app, &[Action::Left, Action::Left]);
    assert_eq!(app.mark_dialog().unwrap().mode, MarkMode::Rule);
    type_text(&mut app, "age>=60");
    insta::assert_snapshot!("rule_dialog", text(&render(&app)));

    app.step(&Action::Confirm);
    assert!(app.mark_dialog().is_none(), "Enter applies and closes");
    let expected = count_rows(&app, "age", |a| a >= 60.0);
    assert!(expected > 0 && expected < app.dataset().n_rows());
    let occ = occupation(&app);
    assert_eq!(app.sensitive_counts(), vec![(occ, expected)]);
    assert_eq!(app.column_stats().sensitive, Some(expected));
    // Every marked cell is on a row aged 60 or more, and vice versa.
    let age = app.dataset().column("age").unwrap();
    for r in 0..app.dataset().n_rows() {
        let old = age.display(age.code(r)).parse::<f64>().unwrap() >= 60.0;
        assert_eq!(app.is_sensitive(r, occ), old, "row {r}");
    }
    // Saved in the project as the rule, not as the cells.
    let p = app.to_project();
    assert_eq!(
        p.sensitivity["occupation"].source,
        SensitivitySource::Rule {
            rule: "age>=60".into()
        }
    );
    assert!(p.sensitivity["occupation"].toggled.is_empty());
    let t = text(&render(&app));
    assert!(
        t.contains(&format!("occupation {expected} (")),
        "count on the table's border: {t}"
    );
    insta::assert_snapshot!("rule_applied", t);
}

#[test]
fn the_dialog_marks_cells_by_density_and_shows_the_seed() {
    let mut app = demo(110, 30);
    focus(&mut app, "occupation");
    app.step(&Action::MarkCells);
    // Flag → density is one step left.
    app.step(&Action::Left);
    assert_eq!(app.mark_dialog().unwrap().mode, MarkMode::Density);
    // Typing on the mode line goes to the density field: clear it first.
    app.step(&Action::Down);
    for _ in 0..3 {
        app.step(&Action::DeleteChar);
    }
    type_text(&mut app, "30%");
    app.step(&Action::Down);
    for _ in 0..2 {
        app.step(&Action::DeleteChar);
    }
    type_text(&mut app, "7");
    let t = text(&render(&app));
    assert!(t.contains("30%") && t.contains("seed"), "{t}");
    insta::assert_snapshot!("density_dialog", t);
    app.step(&Action::Confirm);
    let n = app.dataset().n_rows();
    let expected = (0.3 * n as f64).round() as usize;
    assert_eq!(app.sensitive_counts(), vec![(occupation(&app), expected)]);
    assert_eq!(app.seed(), Some(7));
    let t = text(&render(&app));
    assert!(t.contains("seed 7"), "the seed is on the status bar: {t}");
    assert_eq!(
        app.to_project().sensitivity["occupation"].source,
        SensitivitySource::Density {
            density: 0.3,
            seed: 7
        }
    );
}

#[test]
fn a_bad_rule_is_shown_in_the_dialog_which_stays_open() {
    let mut app = demo(110, 30);
    focus(&mut app, "occupation");
    let before = app.sensitive_counts();
    app.step(&Action::MarkCells);
    steps(&mut app, &[Action::Right]);
    assert_eq!(app.mark_dialog().unwrap().mode, MarkMode::Clear);
    app.step(&Action::Right);
    assert_eq!(app.mark_dialog().unwrap().mode, MarkMode::Rule);
    type_text(&mut app, "agee>=60");
    app.step(&Action::Confirm);
    let d = app.mark_dialog().expect("still open");
    let e = d.error.as_deref().expect("an error");
    assert!(e.contains("agee"), "{e}");
    assert_eq!(app.sensitive_counts(), before, "nothing changed");
    insta::assert_snapshot!("rule_error", text(&render(&app)));
    // Fixing the text clears the error; Esc closes without applying.
    app.step(&Action::DeleteChar);
    assert!(app.mark_dialog().unwrap().error.is_none());
    app.step(&Action::Cancel);
    assert!(app.mark_dialog().is_none());
    assert_eq!(app.sensitive_counts(), before);
}

#[test]
fn a_bad_density_is_refused_with_its_value() {
    let mut app = demo(110, 30);
    focus(&mut app, "occupation");
    app.step(&Action::MarkCells);
    steps(&mut app, &[Action::Left, Action::Down]);
    type_text(&mut app, "x");
    app.step(&Action::Confirm);
    let e = app.mark_dialog().unwrap().error.clone().unwrap();
    assert!(e.contains("'0.2x'") && e.contains("between 0 and 1"), "{e}");
    app.step(&Action::DeleteChar);
    app.step(&Action::DeleteChar);
    app.step(&Action::DeleteChar);
    app.step(&Action::DeleteChar);
    type_text(&mut app, "150%");
    app.step(&Action::Confirm);
    let e = app.mark_dialog().unwrap().error.clone().unwrap();
    assert!(e.contains("'150%'"), "{e}");
}

#[test]
fn keys_typed_in_the_dialog_do_not_reach_the_screen() {
    let mut app = demo(110, 30);
    focus(&mut app, "occupation");
    app.step(&Action::MarkCells);
    // `S` would be a role key and `1` a screen switch outside the dialog.
    steps(
        &mut app,
        &[
            Action::TypeChar('S'),
            Action::SetRole(Role::Sensitive),
            Action::ShowScreen(Screen::Risk),
        ],
    );
    assert_eq!(app.screen(), Screen::Data);
    assert_eq!(app.roles().get(occupation(&app)), Role::SemiSensitive);
}

#[test]
fn the_dialog_is_for_semi_sensitive_columns_only() {
    let mut app = demo(110, 30);
    focus(&mut app, "age");
    app.step(&Action::MarkCells);
    assert!(app.mark_dialog().is_none());
    assert!(app.notice().unwrap().contains("semi-sensitive"));
}

#[test]
fn counts_per_semi_sensitive_attribute_follow_every_change() {
    let mut app = demo(120, 30);
    let occ = occupation(&app);
    let flagged = {
        let col = app.dataset().column("hide_occupation").unwrap();
        (0..app.dataset().n_rows())
            .filter(|&r| col.display(col.code(r)) == "1")
            .count()
    };
    assert_eq!(app.sensitive_counts(), vec![(occ, flagged)]);
    // age becomes semi-sensitive: no cell yet, then a rule.
    focus(&mut app, "age");
    app.step(&Action::SetRole(Role::SemiSensitive));
    let age = app.dataset().column_index("age").unwrap();
    assert_eq!(app.sensitive_counts(), vec![(age, 0), (occ, flagged)]);
    app.step(&Action::MarkCells);
    type_text(&mut app, "age<30");
    app.step(&Action::Confirm);
    let young = count_rows(&app, "age", |a| a < 30.0);
    assert_eq!(app.sensitive_counts(), vec![(age, young), (occ, flagged)]);
    // A hand toggle moves the count by one.
    app.step(&Action::ToggleSensitivity);
    let first_young = app.is_sensitive(0, age);
    let after = if first_young { young + 1 } else { young - 1 };
    assert_eq!(app.sensitive_counts()[0], (age, after));
    let t = text(&render(&app));
    let line = t.lines().find(|l| l.contains("sensitive cells:")).unwrap();
    assert!(
        line.contains(&format!("age {after} ("))
            && line.contains(&format!("occupation {flagged} (")),
        "{line}"
    );
    insta::assert_snapshot!("counts", t);
}

// ---- LGB on the Anonymize screen ----

/// The demo on the Anonymize screen with `algorithm` chosen and every job
/// finished.
fn lgb_on_demo(algorithm: &str, width: u16, height: u16) -> App {
    let mut app = demo(width, height);
    choose_algorithm(&mut app, algorithm);
    run_to_done(&mut app);
    app
}

/// The screen from the gauge line down (the figures above hold times).
fn lower_part(app: &App) -> String {
    text(&render(app))
        .lines()
        .skip(10)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn lgb_runs_on_the_demo_with_the_sessions_sensitive_cells() {
    let app = lgb_on_demo("lgb-mdp", 140, 44);
    let ds = app.dataset();
    let occ = occupation(&app);
    let view = app.anonymize().view.as_ref().unwrap();
    let r = &view.release;
    assert!(view.evaluation.verification.all_hold());
    // The request carried occupation's flagged cells.
    assert_eq!(r.semi_sensitive, vec![occ]);
    let flagged = app.sensitive_counts()[0].1;
    let bucketed = r.local_buckets_of(occ).map_or(0, |b| b.cells());
    let suppressed: usize = r
        .suppressed_rows
        .iter()
        .filter(|&&row| app.is_sensitive(row as usize, occ))
        .count();
    assert_eq!(
        bucketed + suppressed,
        flagged,
        "every flagged cell is bucketed or suppressed"
    );
    // The published table shows occupation (no longer left out) and GID,
    // with bucket references where the cell is sensitive.
    assert!(view.headers.iter().any(|h| h == "occupation"));
    assert!(view.headers.iter().any(|h| h == "GID"));
    let at = view.headers.iter().position(|h| h == "occupation").unwrap();
    let index = anonlab::release::BucketIndex::new(r);
    let mut references = 0;
    for i in 0..view.published_rows() {
        let row = view.row(ds, i).unwrap();
        let d = view.detail(ds, i).unwrap();
        match index.local(occ, d.row) {
            Some(b) => {
                assert_eq!(row[at], anonlab::release::bucket_reference(b));
                references += 1;
            }
            None => assert_eq!(
                row[at],
                r.groups[d.group].cells
                    [r.quasi_identifiers.iter().position(|&q| q == occ).unwrap()]
                .render(ds.col(occ), ds.col(occ).code(d.row))
            ),
        }
    }
    assert_eq!(references, bucketed);
    insta::assert_snapshot!("lgb_mdp_table", lower_part(&app));
}

#[test]
fn the_record_detail_lists_matching_tuples_buckets_and_breach() {
    let mut app = lgb_on_demo("lgb-mdp", 140, 44);
    // Find a published record with a sensitive occupation cell.
    let occ = occupation(&app);
    let view = app.anonymize().view.as_ref().unwrap();
    let target = (0..view.published_rows())
        .find(|&i| {
            view.detail(app.dataset(), i)
                .is_some_and(|d| d.cells.iter().any(|c| c.column == occ))
        })
        .expect("a record with a sensitive occupation cell");
    for _ in 0..target {
        app.step(&Action::Down);
    }
    app.step(&Action::Confirm);
    let d = app.anonymize().detail.clone().expect("the detail is shown");
    assert_eq!(d.published, target);
    // Lemma 1: Pr(re-id) is one over the matching tuples.
    let reid = d.reidentification.unwrap();
    assert!((reid - 1.0 / d.matching_tuples.len() as f64).abs() < 1e-12);
    assert!(d.matching_tuples.contains(&(d.row as u32)));
    // Lemma 2 from the listed matching buckets gives risk::local_risk's p.
    for c in &d.cells {
        let lemma2: f64 = c
            .matching
            .iter()
            .map(|m| m.tuples as f64 / c.bucketed_tuples as f64 * m.own as f64 / m.size as f64)
            .sum();
        let p = c.breach.expect("a breach probability");
        assert!((lemma2 - p).abs() < 1e-12, "{lemma2} vs {p}");
        assert!(p <= 0.5 + 1e-12, "l = 2 bounds p(t, s) by 1/2");
    }
    let t = lower_part(&app);
    assert!(t.contains("matching") && t.contains("p(t,s)"), "{t}");
    insta::assert_snapshot!("record_detail", t);
    // Enter again hides it.
    app.step(&Action::Confirm);
    assert!(app.anonymize().detail.is_none());
}

#[test]
fn t_closeness_on_a_chosen_attribute_reaches_lgb() {
    let mut app = lgb_on_demo("lgb-mdp", 140, 44);
    app.step(&Action::CycleTCloseness);
    assert_eq!(app.t_closeness(), vec![(occupation(&app), app.params().t)]);
    assert!(matches!(
        app.anonymize().job.state(),
        JobState::Running { .. }
    ));
    app.run_pending_jobs_blocking();
    let view = app.anonymize().view.as_ref().unwrap();
    assert!(view.evaluation.verification.all_hold());
    assert!(
        view.release.claims.iter().any(|c| matches!(
            c,
            Guarantee::LocalTCloseness { attribute, .. } if attribute == "occupation"
        )),
        "{:?}",
        view.release.claims
    );
    assert!(text(&render(&app)).contains("occupation t=0.2"));
}

#[test]
fn marking_cells_makes_the_lgb_release_out_of_date() {
    let mut app = lgb_on_demo("lgb-mdp", 140, 44);
    app.step(&Action::ShowScreen(Screen::Data));
    focus(&mut app, "occupation");
    app.step(&Action::ToggleSensitivity);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    assert!(matches!(
        app.anonymize().job.state(),
        JobState::Running { .. }
    ));
}
