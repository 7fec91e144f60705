//! Protecting work: undo and redo (`u`, `Ctrl-r`) of every edit of the
//! session — roles, cell marks, attacker knowledge, hierarchies, release
//! parameters — with the action named in the status bar, and the question
//! before quitting with unsaved changes. The app is driven with actions
//! and compared structurally: the project it would save, every cell's
//! sensitivity and the attacker's order.
#![cfg(feature = "tui")]

use crate::common;

use anonlab::data::{Project, Role};
use anonlab::session::Session;
use anonlab_tui::{Action, App, Confirm, Screen};
use common::screen::{demo, render, steps, text};

/// Everything an undo must restore, compared whole.
#[derive(Debug, PartialEq)]
struct State {
    project: Project,
    /// Sensitive rows per column.
    cells: Vec<Vec<usize>>,
    known: Vec<usize>,
    generations: (u64, u64, u64, u64, u64),
}

fn state(app: &App) -> State {
    let ds = app.dataset();
    let cells = (0..ds.n_cols())
        .map(|c| {
            (0..ds.n_rows())
                .filter(|&r| app.is_sensitive(r, c))
                .collect()
        })
        .collect();
    let g = app.session().generations();
    State {
        project: app.to_project(),
        cells,
        known: app.session().known_columns(),
        // Every part but the session counter comes back with its state, so
        // a cached release or baseline for it is good again.
        generations: (g.roles, g.cells, g.attacker, g.hierarchies, g.settings),
    }
}

fn focus_column(app: &mut App, name: &str) {
    app.step(&Action::ShowScreen(Screen::Data));
    app.step(&Action::RowStart);
    let c = app.dataset().column_index(name).unwrap();
    for _ in 0..c {
        app.step(&Action::Right);
    }
    assert_eq!(app.data_view().col, c);
}

fn type_text(app: &mut App, s: &str) {
    for c in s.chars() {
        app.step(&Action::TypeChar(c));
    }
}

fn fingerprint(app: &App) -> Option<String> {
    app.anonymize().view.as_ref().map(|v| v.fingerprint.clone())
}

fn status(app: &App) -> String {
    text(&render(app))
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

/// One edit of each kind, the state after each, and the name the status
/// bar gives it.
fn edits(app: &mut App) -> Vec<(State, &'static str)> {
    let mut out = vec![(state(app), "")];
    // Roles.
    focus_column(app, "age");
    app.step(&Action::SetRole(Role::SemiSensitive));
    out.push((state(app), "age: quasi-identifier → semi-sensitive"));
    // Cell marks, by rule in the dialog.
    app.step(&Action::MarkCells);
    steps(app, &[Action::Left, Action::Left]);
    assert!(app.mark_dialog().is_some());
    while app.mark_dialog().unwrap().mode != anonlab_tui::MarkMode::Rule {
        app.step(&Action::Left);
    }
    type_text(app, "age>=60");
    app.step(&Action::Confirm);
    assert!(app.mark_dialog().is_none());
    out.push((state(app), "sensitive cells of age"));
    // One cell by hand.
    app.step(&Action::ToggleSensitivity);
    out.push((state(app), "sensitive cells of age"));
    // What the attacker knows.
    app.step(&Action::ShowScreen(Screen::Risk));
    app.step(&Action::First);
    app.step(&Action::ToggleKnown);
    out.push((state(app), "attacker"));
    app.step(&Action::ThresholdUp);
    out.push((state(app), "threshold"));
    // Hierarchies: build the proposed one for sex.
    app.step(&Action::ShowScreen(Screen::Hierarchies));
    app.step(&Action::Left);
    app.step(&Action::First);
    let sex = app.dataset().column_index("sex").unwrap();
    for _ in 0..sex {
        app.step(&Action::Down);
    }
    app.step(&Action::BuildHierarchy);
    assert!(app.hierarchies().dialog.is_some());
    app.step(&Action::Confirm);
    out.push((state(app), "hierarchy of sex added"));
    // Parameters.
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.step(&Action::AdjustK(1));
    out.push((state(app), "k 5 → 6"));
    app.step(&Action::CycleAlgorithm(1));
    out.push((state(app), "algorithm"));
    app.step(&Action::NextSeed);
    out.push((state(app), "seed"));
    out
}

#[test]
fn undo_restores_each_earlier_session_exactly_and_redo_replays() {
    let mut app = demo(140, 40);
    app.run_pending_jobs_blocking();
    let states = edits(&mut app);
    // Each edit changed the state: no step is a no-op that would make
    // the comparisons below trivial.
    for w in states.windows(2) {
        assert_ne!(w[0].0, w[1].0, "{}", w[1].1);
    }
    assert_eq!(app.history_depth(), (states.len() - 1, 0));

    // Back, one edit at a time, each named in the status bar.
    for i in (1..states.len()).rev() {
        app.step(&Action::Undo);
        let notice = app.notice().unwrap_or_default().to_string();
        assert!(
            notice.starts_with("undone: ") && notice.contains(states[i].1),
            "undo of '{}': {notice}",
            states[i].1
        );
        assert!(status(&app).contains("undone: "), "{}", status(&app));
        assert_eq!(
            state(&app),
            states[i - 1].0,
            "after undoing '{}'",
            states[i].1
        );
    }
    app.step(&Action::Undo);
    assert_eq!(app.notice(), Some("nothing to undo"));
    assert_eq!(state(&app), states[0].0);

    // And forward again.
    for (i, (s, what)) in states.iter().enumerate().skip(1) {
        app.step(&Action::Redo);
        let notice = app.notice().unwrap_or_default();
        assert!(
            notice.starts_with("redone: ") && notice.contains(what),
            "{notice}"
        );
        assert_eq!(&state(&app), s, "after redoing edit {i} '{what}'");
    }
    app.step(&Action::Redo);
    assert_eq!(app.notice(), Some("nothing to redo"));

    // A new edit after an undo forgets what was undone.
    app.step(&Action::Undo);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.step(&Action::AdjustK(1));
    assert_eq!(app.history_depth().1, 0);
}

#[test]
fn an_undone_release_is_the_release_of_the_restored_session() {
    // Undo brings back the generations of the state, so the Anonymize
    // screen shows that state's release again (from the cache), not a
    // stale one.
    let mut app = demo(140, 40);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.run_pending_jobs_blocking();
    let before = app.anonymize_inputs();
    let fp = fingerprint(&app);
    assert!(fp.is_some());
    app.step(&Action::AdjustK(3));
    app.run_pending_jobs_blocking();
    assert_ne!(app.anonymize_inputs(), before);
    assert_ne!(fingerprint(&app), fp);
    app.step(&Action::Undo);
    app.run_pending_jobs_blocking();
    assert_eq!(app.anonymize_inputs(), before);
    assert_eq!(fingerprint(&app), fp);
}

#[test]
fn quitting_with_unsaved_changes_asks_and_each_answer_does_what_it_says() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p.json");
    let fresh = || {
        let mut app = App::new(Session::demo().unwrap())
            .unwrap()
            .with_project_path(project.clone());
        app.step(&Action::Resize(100, 30));
        app
    };

    // Nothing changed: q quits at once.
    let mut app = fresh();
    app.step(&Action::Quit);
    assert!(app.should_quit());

    // A change: q asks, Esc goes back to work.
    let mut app = fresh();
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.step(&Action::AdjustK(1));
    assert!(app.unsaved());
    app.step(&Action::Quit);
    assert!(!app.should_quit());
    assert_eq!(app.confirm(), Some(&Confirm::Quit));
    let t = text(&render(&app));
    assert!(t.contains("Unsaved changes"), "{t}");
    assert!(t.contains("save p.json, then quit"), "{t}");
    assert!(t.contains("k 5 → 6"), "the dialog names the change: {t}");
    insta::assert_snapshot!("quit_confirmation", t);
    app.step(&Action::Cancel);
    assert_eq!(app.confirm(), None);
    assert!(!app.should_quit());

    // d quits without saving.
    app.step(&Action::Quit);
    app.step(&Action::TypeChar('d'));
    assert!(app.should_quit());
    assert!(!project.exists());

    // w saves, then quits; the saved project holds the change.
    let mut app = fresh();
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.step(&Action::AdjustK(1));
    let k = app.params().k;
    app.step(&Action::Quit);
    app.step(&Action::TypeChar('w'));
    assert!(app.should_quit());
    let saved = Project::load(&project).unwrap();
    assert_eq!(saved.params.k, k);

    // Saved, then undone back to the saved state: nothing unsaved.
    let mut app = fresh();
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.step(&Action::AdjustK(1));
    app.step(&Action::SaveProject);
    assert!(!app.unsaved());
    app.step(&Action::AdjustK(1));
    assert!(app.unsaved());
    app.step(&Action::Undo);
    assert!(!app.unsaved());
    app.step(&Action::Quit);
    assert!(app.should_quit());
}

#[test]
fn u_undoes_and_ctrl_r_redoes_from_the_keyboard() {
    use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
    let app = demo(100, 30);
    let key = |c: char, m: KeyModifiers| Event::Key(KeyEvent::new(KeyCode::Char(c), m));
    for screen in [
        Screen::Data,
        Screen::Risk,
        Screen::Anonymize,
        Screen::Hierarchies,
    ] {
        assert_eq!(
            app.keymap()
                .translate(screen, &key('u', KeyModifiers::NONE)),
            Some(Action::Undo),
            "{screen:?}"
        );
        assert_eq!(
            app.keymap()
                .translate(screen, &key('r', KeyModifiers::CONTROL)),
            Some(Action::Redo),
            "{screen:?}"
        );
    }
    // The insensitive role moved to `p` on the Data screen.
    assert_eq!(
        app.keymap()
            .translate(Screen::Data, &key('p', KeyModifiers::NONE)),
        Some(Action::SetRole(Role::Insensitive))
    );
}

#[test]
fn open_asks_about_unsaved_changes_then_opens_the_file_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("people.csv");
    std::fs::write(&csv, "sex,age,zip\nF,34,1001\nM,34,1001\nM,51,1002\n").unwrap();
    let mut app = demo(100, 30);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.step(&Action::AdjustK(1));

    // Tab completes the path on the command line.
    app.step(&Action::OpenCommandLine);
    type_text(&mut app, &format!("open {}/peo", dir.path().display()));
    app.step(&Action::Complete);
    let want = format!("open {}", csv.display());
    assert_eq!(
        app.editing_line().map(|(_, t, _)| t.to_string()),
        Some(want)
    );
    app.step(&Action::Confirm);

    // Unsaved changes: it asks first; Esc stays.
    assert_eq!(app.confirm(), Some(&Confirm::Open(csv.clone())));
    assert!(text(&render(&app)).contains("open the file without saving"));
    app.step(&Action::Cancel);
    assert!(app.take_open().is_none());
    assert_eq!(app.dataset().n_rows(), 1500);

    // d: opened in place, with the same keys and size.
    common::screen::command(&mut app, &format!("open {}", csv.display()));
    app.step(&Action::TypeChar('d'));
    let opened = app.take_open().expect("the file opens");
    assert_eq!(opened.dataset().n_rows(), 3);
    assert_eq!(opened.size(), (100, 30));
    assert!(!opened.unsaved());

    // A file that cannot be read: a popup names it, the session stays.
    let mut app = demo(100, 30);
    common::screen::command(&mut app, "open /nonexistent/x.csv");
    assert!(app.take_open().is_none());
    let popup = app.popup().expect("a popup says why");
    assert!(
        popup.message.contains("/nonexistent/x.csv"),
        "{}",
        popup.message
    );
    assert_eq!(app.dataset().n_rows(), 1500);
}
