//! Screen tests of the Anonymize screen: the app runs on the embedded demo
//! (sex, age and zip quasi-identifiers, disease sensitive, name an
//! identifier), is driven with actions (never key codes), drawn into
//! ratatui's `TestBackend`, and checked line by line and with insta
//! snapshots. Figures that vary from run to run (times) are masked.
#![cfg(feature = "tui")]

use crate::common;

use anonlab::data::{CsvOptions, Project, Role};
use anonlab::progress::Progress;
use anonlab::risk::{self, Knowledge};
use anonlab::session::Session;
use anonlab_tui::{Action, App, JobState, QueriesState, Screen, DEFAULT_PROJECT_FILE};
use common::screen::{command, demo, masked_text, render, text};

/// The demo on the Anonymize screen, with every job finished.
fn anonymized(width: u16, height: u16, actions: &[Action]) -> App {
    let mut app = demo(width, height);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    for a in actions {
        app.step(a);
    }
    app.run_pending_jobs_blocking();
    app
}

#[test]
fn mondrian_on_the_demo_shows_checks_figures_charts_and_the_table() {
    let mut app = demo(140, 44);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    // Entering the screen queues the run; nothing is shown until it ends.
    assert!(matches!(
        app.anonymize().job.state(),
        JobState::Running { .. }
    ));
    let t = text(&render(&app));
    assert!(
        t.contains("running mondrian 0%") && t.contains("not computed yet"),
        "{t}"
    );

    app.run_pending_jobs_blocking();
    assert_eq!(app.anonymize().job, JobState::Done);
    let view = app.anonymize().view.as_ref().unwrap();
    assert!(view.evaluation.verification.all_hold());
    assert_eq!(view.inputs.k, 5);
    assert!(view.release.groups.iter().all(|g| g.rows.len() >= 5));
    assert!(matches!(app.anonymize().queries, QueriesState::Done(_)));
    let t = text(&render(&app));
    for needle in [
        "ok   5-anonymity",
        "ok   structure",
        &format!("groups {}", view.release.groups.len()),
        "buckets 0",
        "C_DM",
        "C_AVG",
        "GCP",
        "query error",
        "queries)",
        "breach mean",
        "re-id  mean",
        "Breach p(t, disease) CDF",
        "Pr(re-id) CDF, linkage",
        "before",
        "after",
        "Published table: rows 1–",
        // Mondrian draws no random numbers: no seed (issue 32, item 5).
        "mondrian k=5 l=- │",
        "anonymize: ready",
    ] {
        assert!(t.contains(needle), "no {needle:?} in\n{t}");
    }
    let header = t.lines().find(|l| l.contains("GID")).expect("a GID column");
    assert!(
        header.contains("sex") && header.contains("disease"),
        "{header}"
    );
    assert!(
        !header.contains("BID") && !header.contains("name"),
        "{header}"
    );
    insta::assert_snapshot!(masked_text(&app));
}

#[test]
fn a_bucketized_release_has_bucket_ids_and_no_sensitive_column() {
    // mondrian → mondrian-l → mondrian-distinct-l → anatomy.
    let app = anonymized(140, 44, &[Action::CycleAlgorithm(3)]);
    let view = app.anonymize().view.as_ref().unwrap();
    assert_eq!(view.inputs.algorithm, "anatomy");
    assert!(view.evaluation.verification.all_hold());
    let t = text(&render(&app));
    let header = t.lines().find(|l| l.contains("GID")).expect("a GID column");
    assert!(header.contains("BID"), "{header}");
    assert!(!header.contains("disease"), "{header}");
    assert!(t.contains("anatomy k=5 l=2 seed=42"), "{t}");
    assert!(
        t.contains(&format!("buckets {}", view.release.buckets.len())),
        "{t}"
    );
    insta::assert_snapshot!(masked_text(&app));
}

#[test]
fn changing_k_runs_again_and_shows_the_new_k() {
    let mut app = anonymized(140, 44, &[]);
    // A cold press: with the neighbour prefetch on, k = 6 would be shown
    // at once (tests/tui_sweep.rs tests that path).
    app.set_prefetch(false);
    let groups_at_5 = app.anonymize().view.as_ref().unwrap().release.groups.len();
    app.step(&Action::AdjustK(1));
    assert!(matches!(
        app.anonymize().job.state(),
        JobState::Running { .. }
    ));
    let t = text(&render(&app));
    // The request is shown at once; the figures are marked out of date.
    assert!(t.contains("mondrian k=6 l=- │"), "{t}");
    assert!(t.contains("(out of date)"), "{t}");

    app.run_pending_jobs_blocking();
    let view = app.anonymize().view.as_ref().unwrap();
    assert_eq!(view.inputs.k, 6);
    assert!(view.release.groups.len() < groups_at_5);
    let t = text(&render(&app));
    assert!(
        t.contains("ok   6-anonymity") && t.contains("k         6"),
        "{t}"
    );
    assert!(!t.contains("(out of date)"), "{t}");

    // k stays within 1..=rows.
    for _ in 0..10 {
        app.step(&Action::AdjustK(-1));
    }
    assert_eq!(app.params().k, 1);
}

#[test]
fn l_changes_only_rerun_algorithms_that_read_l() {
    let mut app = anonymized(140, 44, &[]);
    app.step(&Action::AdjustL(1));
    assert_eq!(app.params().l, 3);
    assert_eq!(
        app.anonymize().job,
        JobState::Done,
        "mondrian does not read l"
    );
    assert!(text(&render(&app)).contains("3 (not used)"));
    app.step(&Action::CycleAlgorithm(1));
    app.run_pending_jobs_blocking();
    let t = text(&render(&app));
    assert!(t.contains("mondrian-l k=5 l=3"), "{t}");
    // mondrian-l is the cross-bucket paper's Definition 6.
    // The 40-column Verification panel wraps the line after "at".
    assert!(
        t.contains("ok   breach probability of 'disease' at")
            && t.contains("most 1/3 for every tuple"),
        "{t}"
    );
}

#[test]
fn an_infeasible_l_is_a_message_on_the_screen_not_a_crash() {
    // mondrian-l with l = 6: Flu is on 251 of 1,500 rows, more than 1/6.
    let mut app = anonymized(140, 44, &[Action::CycleAlgorithm(1), Action::AdjustL(4)]);
    assert_eq!(app.params().l, 6);
    assert_eq!(app.anonymize().job, JobState::Failed);
    assert!(app.popup().is_none());
    let t = text(&render(&app));
    assert!(
        t.contains("Cannot anonymize with these parameters")
            && t.contains("not 6-eligible")
            && t.contains("'Flu'"),
        "{t}"
    );
    assert!(t.contains("anonymize: failed"), "{t}");
    insta::assert_snapshot!(masked_text(&app));

    // Lowering l runs again and the message goes.
    app.step(&Action::AdjustL(-1));
    app.run_pending_jobs_blocking();
    assert_eq!(app.anonymize().job, JobState::Done);
    let t = text(&render(&app));
    assert!(!t.contains("Cannot anonymize"), "{t}");
    // The 40-column Verification panel wraps the line after "at".
    assert!(
        t.contains("ok   breach probability of 'disease' at")
            && t.contains("most 1/5 for every tuple"),
        "{t}"
    );
}

#[test]
fn without_roles_the_screen_says_what_to_do() {
    let s = Session::demo().unwrap();
    let bare = Session::new(s.dataset, None, CsvOptions::default());
    let mut app = App::new(bare).unwrap();
    app.step(&Action::Resize(120, 30));
    app.step(&Action::ShowScreen(Screen::Anonymize));
    assert_eq!(app.anonymize().job, JobState::Idle, "nothing to run");
    app.run_pending_jobs_blocking();
    let t = text(&render(&app));
    assert!(t.contains("No quasi-identifier yet"), "{t}");
    assert!(t.contains("on the Data"), "{t}");

    // Quasi-identifiers but no sensitive attribute: Mondrian runs (re-id
    // only), Mondrian-l asks for one.
    app.step(&Action::ShowScreen(Screen::Data));
    for col in 1..=3 {
        // sex, age, zip
        while app.data_view().col < col {
            app.step(&Action::Right);
        }
        app.step(&Action::SetRole(Role::QuasiIdentifier));
    }
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.run_pending_jobs_blocking();
    assert_eq!(app.anonymize().job, JobState::Done);
    let t = text(&render(&app));
    assert!(t.contains("No sensitive attribute"), "{t}");
    assert!(t.contains("ok   5-anonymity"), "{t}");
    app.step(&Action::CycleAlgorithm(1));
    let t = text(&render(&app));
    // The message wraps in the Release panel.
    assert!(
        t.contains("Def. 6) needs a sensitive attribute: on the")
            && t.contains("Data screen (key 1), mark one sensitive"),
        "{t}"
    );
    // Nothing runs; the last release stays, marked out of date.
    assert!(!matches!(
        app.anonymize().job.state(),
        JobState::Running { .. }
    ));
    assert!(t.contains("(out of date)"), "{t}");
}

#[test]
fn roles_changed_on_the_data_screen_rerun_on_return() {
    let mut app = anonymized(140, 44, &[]);
    app.step(&Action::ShowScreen(Screen::Data));
    // zip (column 3) stops being a quasi-identifier.
    for _ in 0..3 {
        app.step(&Action::Right);
    }
    app.step(&Action::SetRole(Role::Insensitive));
    assert_eq!(
        app.anonymize().job,
        JobState::Done,
        "nothing runs off screen"
    );
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.run_pending_jobs_blocking();
    let view = app.anonymize().view.as_ref().unwrap();
    assert_eq!(view.release.quasi_identifiers.len(), 2);
    // The "before" is the session's baseline, for the new roles: its
    // attacker no longer knows zip.
    assert!(app.session().baseline_current());
    let knows = &app.session().baseline().unwrap().attacker().knows;
    assert!(!knows.iter().any(|a| a == "zip"), "{knows:?}");
    assert!(knows.iter().any(|a| a == "sex"), "{knows:?}");
}

#[test]
fn before_is_the_sessions_baseline_as_anonlab_assess_computes_it() {
    let app = anonymized(140, 44, &[]);
    let view = app.anonymize().view.as_ref().unwrap();
    let baseline = app.session().baseline().unwrap().baseline();
    // `anonlab assess` on the saved project computes the same baseline.
    let session = Session::from_project(&app.to_project()).unwrap();
    let assessed = anonlab::assess::assess(&session, &Progress::new()).unwrap();
    assert_eq!(&assessed.report.baseline, baseline);
    // On the original table the linkage attack finds the key count's crowds.
    let known = app.session().known_columns();
    let hidden = session.hidden_cells(&known).unwrap();
    let refs: Vec<_> = hidden.iter().map(Option::as_ref).collect();
    let sim = risk::simulate(
        app.dataset(),
        Knowledge {
            columns: &known,
            hidden: &refs,
        },
        0.2,
        &Progress::new(),
    )
    .unwrap();
    assert!((baseline.linkage.summary.mean - sim.summary.mean).abs() < 1e-9);
    assert_eq!(baseline.key_count.summary.max, sim.summary.max);
    // The screen prints it, with whose attacker it is.
    let t = text(&render(&app));
    assert!(
        t.contains(&format!("{:.3}", baseline.linkage.summary.mean)),
        "{t}"
    );
    // Before and after are the same attacker: one line names it.
    assert!(t.contains("before, after: attacker knows"), "{t}");
    // Anonymizing lowers both risks; k bounds Pr(re-id).
    assert!(view.reidentification.max <= 1.0 / 5.0 + 1e-9);
    let (_, breach) = view.breach.as_ref().unwrap();
    assert!(breach.mean < baseline.breach.as_ref().unwrap().distribution.summary.mean);
}

#[test]
fn newer_requests_replace_queued_ones() {
    let mut app = demo(140, 44);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.step(&Action::AdjustK(1));
    app.step(&Action::AdjustK(1));
    app.step(&Action::NextSeed);
    app.run_pending_jobs_blocking();
    // Only the newest request ran: the view is for k = 7, seed 43.
    let view = app.anonymize().view.as_ref().unwrap();
    assert_eq!((view.inputs.k, view.inputs.seed), (7, 43));
    assert!(text(&render(&app)).contains("ok   7-anonymity"));
}

#[test]
fn esc_cancels_the_anonymization_and_r_runs_it_again() {
    let mut app = demo(140, 44);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.step(&Action::Cancel);
    assert_eq!(app.anonymize().job, JobState::Cancelled);
    app.run_pending_jobs_blocking();
    assert!(app.anonymize().view.is_none());
    assert!(text(&render(&app)).contains("anonymize: cancelled"));
    // Coming back does not start it again behind the user's back.
    app.step(&Action::ShowScreen(Screen::Data));
    app.step(&Action::ShowScreen(Screen::Anonymize));
    assert_eq!(app.anonymize().job, JobState::Cancelled);
    app.step(&Action::Recompute);
    app.run_pending_jobs_blocking();
    assert_eq!(app.anonymize().job, JobState::Done);
}

#[test]
fn the_published_table_scrolls_and_holds_only_the_rows_on_screen() {
    let mut app = anonymized(140, 44, &[]);
    let page = app.anonymize().table.page;
    assert!(page > 5 && page < 40, "{page}");
    assert_eq!(app.anonymize().table.rows.len(), page);
    app.step(&Action::PageDown);
    assert_eq!(app.anonymize().table.top, page);
    app.step(&Action::Scroll(-1));
    assert_eq!(app.anonymize().table.top, page - 1);
    app.step(&Action::Last);
    let t = &app.anonymize().table;
    assert_eq!(t.top, 1500 - page);
    assert_eq!(t.rows.len(), page);
    assert!(text(&render(&app)).contains("of 1,500"));
    let view = app.anonymize().view.as_ref().unwrap();
    let last_group = view.release.groups.len().to_string();
    assert_eq!(t.rows.last().unwrap().last(), Some(&last_group));
    app.step(&Action::First);
    assert_eq!(app.anonymize().table.top, 0);
}

#[test]
fn help_lists_the_anonymize_keys() {
    let mut app = demo(140, 44);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.step(&Action::ToggleHelp);
    // Scrolled through: the screen's keys and the global ones are more
    // than one page at 140 × 44.
    let mut t = text(&render(&app));
    for _ in 0..40 {
        app.step(&Action::Down);
        t.push_str(&text(&render(&app)));
    }
    for help in [
        "full-domain: open/close the lattice",
        "before/after: original and published rows side by side",
        "next algorithm",
        "k + 1",
        "l - 1",
        "next seed",
        "save the project file",
    ] {
        assert!(t.contains(help), "help lacks {help:?}\n{t}");
    }
}

#[test]
fn w_saves_the_project_where_asked_with_the_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.json");
    let mut app = demo(140, 44).with_project_path(path.clone());
    assert_eq!(app.project_path(), path);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.step(&Action::AdjustK(2));
    app.step(&Action::NextSeed);
    app.step(&Action::SaveProject);
    let notice = app.notice().expect("a notice").to_string();
    assert!(notice.contains("session.json"), "{notice}");
    assert!(text(&render(&app)).contains("project saved to"));
    let p = Project::load(&path).unwrap();
    assert_eq!((p.params.k, p.params.seed), (7, 43));
    assert_eq!(p.data.path, None, "the demo is embedded");
    assert_eq!(p.roles["disease"], Role::Sensitive);
    // The project opens again as the same session.
    let back = App::new(Session::from_project(&p).unwrap()).unwrap();
    assert_eq!(back.to_project(), app.to_project());
}

#[test]
fn the_project_file_defaults_to_the_working_directory() {
    let app = demo(80, 24);
    assert_eq!(
        app.project_path(),
        std::path::Path::new(DEFAULT_PROJECT_FILE)
    );
}

#[test]
fn a_saved_project_finds_its_data_from_any_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    let csv = dir.path().join("data").join("people.csv");
    std::fs::write(&csv, "sex,age,disease\nF,34,flu\nM,34,cold\nM,51,flu\n").unwrap();
    let s = Session::open(&csv, CsvOptions::default()).unwrap();
    let path = dir.path().join("p.json");
    let mut app = App::new(s).unwrap().with_project_path(path.clone());
    app.step(&Action::SaveProject);
    assert!(app.popup().is_none(), "{:?}", app.popup());
    let text = std::fs::read_to_string(&path).unwrap();
    let saved: serde_json::Value = serde_json::from_str(&text).unwrap();
    // Written relative to the project file, so the two can move together.
    assert_eq!(saved["data"]["path"], "data/people.csv");
    let p = Project::load(&path).unwrap();
    assert_eq!(Session::from_project(&p).unwrap().dataset.n_rows(), 3);
}

#[test]
fn a_project_that_cannot_be_written_is_a_popup() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing-dir").join("p.json");
    let mut app = demo(100, 30).with_project_path(path);
    app.step(&Action::SaveProject);
    let popup = app.popup().expect("a popup");
    assert!(popup.title.contains("Cannot save"), "{popup:?}");
}

#[test]
fn a_table_without_rows_says_so() {
    let ds = anonlab::data::Dataset::from_rows(&["a", "b"], &[]).unwrap();
    let mut s = Session::new(ds, None, CsvOptions::default());
    s.roles.set(0, Role::QuasiIdentifier);
    s.roles.set(1, Role::Sensitive);
    let mut app = App::new(s).unwrap();
    app.step(&Action::Resize(100, 30));
    for a in [
        Action::ShowScreen(Screen::Anonymize),
        Action::AdjustK(5),
        Action::PageDown,
        Action::Last,
        Action::CycleAlgorithm(1),
        Action::AdjustL(3),
        Action::CycleAlgorithm(2),
    ] {
        app.step(&a);
        app.run_pending_jobs_blocking();
        render(&app);
    }
    assert!(app.popup().is_none(), "{:?}", app.popup());
    assert_eq!(app.params().k, 1, "k stays at least 1");
    assert!(text(&render(&app)).contains("Cannot anonymize"));
}

/// Regression: the chosen algorithm was not saved with the project, so a
/// reopened session started on Mondrian again.
#[test]
fn the_chosen_algorithm_is_saved_and_restored_with_the_project() {
    let mut app = demo(120, 40);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    while app.anonymize_inputs().algorithm != "cbg" {
        app.step(&Action::CycleAlgorithm(1));
    }
    let project = app.to_project();
    assert_eq!(project.params.algorithm.as_deref(), Some("cbg"));
    let session = Session::with_project(Session::demo().unwrap().dataset, &project).unwrap();
    let reopened = App::new(session).unwrap();
    assert_eq!(reopened.anonymize_inputs().algorithm, "cbg");
}

/// The symbols inside the bordered block whose top border holds `title`.
fn symbols_in_block(buf: &ratatui::buffer::Buffer, title: &str) -> Vec<String> {
    let rows: Vec<Vec<String>> = (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect()
        })
        .collect();
    let (top, at) = rows
        .iter()
        .enumerate()
        .find_map(|(y, r)| {
            let line: String = r.concat();
            let byte = line.find(title)?;
            Some((y, line[..byte].chars().count()))
        })
        .unwrap_or_else(|| panic!("no block titled {title:?}"));
    let corner = |s: &str, set: &[&str]| set.contains(&s);
    let left = (0..at)
        .rev()
        .find(|&x| corner(&rows[top][x], &["╭", "┌"]))
        .expect("the block's left corner");
    let right = (at..rows[top].len())
        .find(|&x| corner(&rows[top][x], &["╮", "┐"]))
        .expect("the block's right corner");
    let bottom = (top + 1..rows.len())
        .find(|&y| corner(&rows[y][left], &["╰", "└"]))
        .expect("the block's bottom corner");
    (top + 1..bottom)
        .flat_map(|y| rows[y][left + 1..right].to_vec())
        .collect()
}

/// Issue 32, item 8: the before and after CDFs drew the same braille
/// line, told apart only by colour, which the mono theme removes.
#[test]
fn in_mono_the_before_and_after_cdfs_are_drawn_with_different_marks() {
    let mut app = demo(140, 44);
    command(&mut app, "theme mono");
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.run_pending_jobs_blocking();
    let buf = render(&app);
    assert!(
        buf.content
            .iter()
            .all(|c| c.fg == ratatui::style::Color::Reset),
        "mono draws no colour"
    );
    let inside = symbols_in_block(&buf, "Pr(re-id) CDF, linkage");
    let braille = |s: &String| s.chars().all(|c| ('\u{2801}'..='\u{28ff}').contains(&c));
    assert!(inside.iter().any(braille), "the before series, braille");
    assert!(inside.iter().any(|s| s == "•"), "the after series, dots");
    let t = text(&buf);
    assert!(t.contains("before ⣿") && t.contains("after •"), "{t}");
}
