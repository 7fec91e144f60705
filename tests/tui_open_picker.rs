//! The `:open` picker and the recent files: a file opened with `:open` is
//! remembered in the recent-files file (beside the config file in real
//! use; a temporary one here) and listed first by the picker, before the
//! CSV and project files of the project's folder; typing filters, Enter
//! opens through `:open` (asking first about unsaved work), Esc closes.
#![cfg(feature = "tui")]

use crate::common;

use anonlab_tui::{Action, App, Origin, RecentFiles, MAX_RECENT};
use common::screen::{command, render, text, type_line};

fn csv(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, "sex,age\nF,34\nM,51\nF,51\n").unwrap();
    p
}

fn open_now(app: &mut App) -> App {
    let mut next = app.take_open().expect("a file to open");
    next.step(&Action::Resize(100, 30));
    next
}

#[test]
fn opened_files_are_remembered_and_picked_first() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let a = csv(&work, "alpha.csv");
    let b = csv(&work, "beta.csv");
    std::fs::write(work.join("notes.txt"), "not offered").unwrap();
    let elsewhere = dir.path().join("other");
    std::fs::create_dir(&elsewhere).unwrap();
    let far = csv(&elsewhere, "far.csv");
    let recent_file = dir.path().join("config").join("recent.txt");

    let mut app = App::new(anonlab::session::Session::demo().unwrap())
        .unwrap()
        .with_project_path(work.join("p.json"))
        .with_recent(RecentFiles::load(recent_file.clone()));
    app.step(&Action::Resize(100, 30));
    assert!(app.recent().paths.is_empty(), "the demo is no file");

    // :open PATH remembers the file, in the file kept between sessions.
    command(&mut app, &format!("open {}", far.display()));
    let mut app = open_now(&mut app);
    let kept = std::fs::read_to_string(&recent_file).unwrap();
    assert_eq!(
        kept.lines().collect::<Vec<_>>(),
        [far.display().to_string()]
    );
    assert_eq!(
        RecentFiles::load(recent_file.clone()).paths,
        vec![far.clone()]
    );

    // :open alone: the picker — the recent file first, then the project
    // folder's CSV and JSON files (the data file's folder here).
    command(&mut app, "open");
    let p = app.picker().expect("the picker is open").clone();
    assert_eq!(p.entries[0], (far.clone(), Origin::Recent));
    assert!(p
        .entries
        .iter()
        .all(|(f, _)| f.extension().unwrap() != "txt"));
    let t = text(&render(&app));
    assert!(
        t.contains("Open a file") && t.contains("recent files"),
        "{t}"
    );
    assert!(t.contains("far.csv"), "{t}");
    // Esc closes it; Ctrl-o opens it again.
    app.step(&Action::Cancel);
    assert!(app.picker().is_none());
    app.step(&Action::OpenFile);
    assert!(app.picker().is_some());
    app.step(&Action::Cancel);

    // In the folder of alpha.csv and beta.csv: typing filters, Enter opens.
    command(&mut app, &format!("open {}", a.display()));
    let mut app = open_now(&mut app).with_project_path(work.join("p.json"));
    command(&mut app, "open");
    let shown: Vec<_> = app.picker().unwrap().shown().into_iter().cloned().collect();
    assert_eq!(shown[0], (a.clone(), Origin::Recent));
    assert_eq!(shown[1], (far.clone(), Origin::Recent));
    assert!(shown.contains(&(b.clone(), Origin::Folder)), "{shown:?}");
    assert!(
        !shown.contains(&(a.clone(), Origin::Folder)),
        "a recent file is listed once"
    );
    type_line(&mut app, "beta");
    let mut app = open_now(&mut app);
    assert_eq!(app.session().session().source.as_deref(), Some(b.as_path()));
    let kept: Vec<String> = std::fs::read_to_string(&recent_file)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(
        kept,
        [
            b.display().to_string(),
            a.display().to_string(),
            far.display().to_string()
        ]
    );
    // A file no longer on disk is not offered.
    std::fs::remove_file(&far).unwrap();
    command(&mut app, "open");
    assert!(app.picker().unwrap().entries.iter().all(|(f, _)| *f != far));
}

#[test]
fn the_list_keeps_the_latest_few() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = RecentFiles::load(dir.path().join("recent.txt"));
    for i in 0..MAX_RECENT + 3 {
        r.remember(&dir.path().join(format!("f{i}.csv")));
    }
    r.remember(&dir.path().join("f5.csv"));
    let again = RecentFiles::load(dir.path().join("recent.txt"));
    assert_eq!(again.paths.len(), MAX_RECENT);
    assert_eq!(again.paths[0], dir.path().join("f5.csv"));
    assert_eq!(
        again.paths[1],
        dir.path().join(format!("f{}.csv", MAX_RECENT + 2))
    );
    assert_eq!(
        again.paths.iter().filter(|p| p.ends_with("f5.csv")).count(),
        1
    );
}
