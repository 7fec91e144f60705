//! Importing a folder of hierarchies by ARX's naming
//! (`*hierarchy_<column>.csv`): `:hierarchies DIR`, or `i` on the
//! Hierarchies screen with a folder's path, previews what each file gives
//! (levels, or why it fails) and Enter binds those that passed, in one
//! undo step. On Adult, the nine files of its folder bind to its nine
//! columns, each equal to the file read on its own.
#![cfg(feature = "tui")]

use crate::common;

use anonlab::data::CsvOptions;
use anonlab::hierarchy::arx;
use anonlab::session::Session;
use anonlab_tui::{Action, App, Screen};
use common::screen::{command, render, text};

fn type_text(app: &mut App, s: &str) {
    for c in s.chars() {
        app.step(&Action::TypeChar(c));
    }
}

#[test]
fn a_folder_import_binds_the_adult_hierarchies() {
    if !common::require(common::have_adult(), "Adult (../shared/data/adult)") {
        return;
    }
    let csv = common::adult_path();
    let dir = csv.parent().unwrap().to_path_buf();
    let mut app = App::new(Session::open(&csv, CsvOptions::default()).unwrap()).unwrap();
    app.step(&Action::Resize(120, 40));
    command(&mut app, &format!("hierarchies {}", dir.display()));
    assert_eq!(app.screen(), Screen::Hierarchies);
    // The preview first: nothing bound yet.
    let d = app
        .hierarchies()
        .dialog
        .as_ref()
        .expect("the dialog previews");
    let preview = d.folder.as_ref().expect("a folder preview");
    assert_eq!(preview.files.len(), 9);
    assert!(app.session().hierarchies().is_empty());
    let t = text(&render(&app));
    for name in app.dataset().column_names() {
        assert!(
            t.contains(&format!("✓ {name}: ")),
            "{name} in the preview:\n{t}"
        );
    }
    assert!(t.contains("Enter binds the 9 hierarchies"), "{t}");

    app.step(&Action::Confirm);
    assert!(app.hierarchies().dialog.is_none());
    let notice = app.notice().unwrap_or_default().to_string();
    assert!(notice.starts_with("9 hierarchies bound"), "{notice}");
    let held = app.session().hierarchies();
    assert_eq!(held.len(), 9);
    for name in app.dataset().column_names() {
        let file = dir.join(format!("adult_hierarchy_{name}.csv"));
        let alone = arx::read_as(&file, name).unwrap();
        assert_eq!(held[name].hierarchy, alone, "{name}");
    }
    // The age hierarchy of the ARX folder has its own depth: the figure
    // comes from the file, not from a constant.
    let age_levels = arx::read_as(&dir.join("adult_hierarchy_age.csv"), "age")
        .unwrap()
        .levels();
    assert_eq!(held["age"].hierarchy.levels(), age_levels);

    // One undo takes the whole import back.
    app.step(&Action::Undo);
    assert!(app.session().hierarchies().is_empty());
    assert!(app.notice().unwrap_or_default().contains("hierarchy of"));
}

#[test]
fn the_preview_says_which_files_fail_and_binds_only_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("people.csv");
    std::fs::write(
        &csv,
        "sex,age,zip\nF,34,1001\nM,34,1001\nM,51,1002\nF,51,1002\n",
    )
    .unwrap();
    let h = dir.path().join("h");
    std::fs::create_dir(&h).unwrap();
    std::fs::write(h.join("people_hierarchy_sex.csv"), "F;*\nM;*\n").unwrap();
    // Misses the value 1002.
    std::fs::write(h.join("people_hierarchy_zip.csv"), "1001;100*;*\n").unwrap();
    // Names no column of the data.
    std::fs::write(h.join("people_hierarchy_income.csv"), "low;*\nhigh;*\n").unwrap();
    // Not named by the convention: ignored.
    std::fs::write(h.join("notes.csv"), "x\n").unwrap();

    let mut app = App::new(Session::open(&csv, CsvOptions::default()).unwrap()).unwrap();
    app.step(&Action::Resize(120, 40));
    app.step(&Action::ShowScreen(Screen::Hierarchies));
    app.step(&Action::ImportHierarchy);
    type_text(&mut app, &h.display().to_string());
    app.step(&Action::Confirm);
    let d = app
        .hierarchies()
        .dialog
        .as_ref()
        .expect("still open: the preview");
    let preview = d.folder.as_ref().expect("a folder preview");
    assert_eq!(preview.files.len(), 3);
    let t = text(&render(&app));
    assert!(
        t.contains("✓ sex: ") && t.contains("from people_hierarchy_sex.csv"),
        "{t}"
    );
    assert!(t.contains("✗ zip: "), "{t}");
    assert!(t.contains("1002"), "the missing value is named:\n{t}");
    assert!(
        t.contains("✗ income: the data has no column 'income'"),
        "{t}"
    );
    assert!(!t.contains("notes"), "{t}");
    assert!(
        t.contains("Enter binds the 1 hierarchies that passed; 2 left out"),
        "{t}"
    );

    // Editing the path drops the preview; Enter previews again.
    app.step(&Action::DeleteChar);
    assert!(app.hierarchies().dialog.as_ref().unwrap().folder.is_none());
    app.step(&Action::TypeChar(
        h.display().to_string().chars().last().unwrap(),
    ));
    app.step(&Action::Confirm);
    assert!(app.hierarchies().dialog.as_ref().unwrap().folder.is_some());
    app.step(&Action::Confirm);
    let held = app.session().hierarchies();
    assert_eq!(held.keys().collect::<Vec<_>>(), vec!["sex"]);
}
