//! Commands a user can find (issue 32, item 6): the one command table
//! drives the `:` line's Tab completion and the help page; the help opens
//! at its top; a file without roles says what to do first; Ctrl-Z asks to
//! suspend.
#![cfg(feature = "tui")]

use crate::common;

use anonlab::data::{load_csv_bytes, CsvOptions};
use anonlab::session::Session;
use anonlab_tui::{Action, App, HelpPage, KeyMap, Screen, COMMANDS};
use common::screen::{command, demo, render, text};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

/// The command line after typing `typed` and pressing Tab, and the
/// notice (the candidates when several match).
fn tab(app: &mut App, typed: &str) -> (String, String) {
    app.step(&Action::OpenCommandLine);
    for c in typed.chars() {
        app.step(&Action::TypeChar(c));
    }
    app.step(&Action::Complete);
    let line = app.editing_line().map(|(_, t, _)| t.to_string());
    let notice = app.notice().unwrap_or_default().to_string();
    app.step(&Action::Cancel);
    (line.expect("the command line stays open on Tab"), notice)
}

#[test]
fn every_command_of_the_table_completes_with_tab() {
    let mut app = demo(120, 40);
    let names: Vec<&str> = COMMANDS.iter().map(|c| c.name).collect();
    for name in &names {
        // The shortest start of the name no other name shares completes
        // it, with a space for its argument; a name that starts another
        // (`l`, `lattice`) is listed among the candidates instead.
        let unique = (1..=name.len())
            .map(|n| &name[..n])
            .find(|p| names.iter().filter(|m| m.starts_with(p)).count() == 1);
        match unique {
            Some(prefix) => {
                let (line, _) = tab(&mut app, prefix);
                assert_eq!(line, format!("{name} "), "{prefix} + Tab");
            }
            None => {
                let (line, notice) = tab(&mut app, name);
                assert_eq!(line, *name);
                assert!(
                    notice.split("  ").any(|n| n == *name),
                    "{name} + Tab lists {notice:?}"
                );
            }
        }
    }
    assert_eq!(tab(&mut app, "po").0, "population ");
}

#[test]
fn tab_completes_arguments_from_the_registry_the_models_and_the_columns() {
    let mut app = demo(160, 40);
    // Every algorithm id of the session's registry, listed.
    let (line, notice) = tab(&mut app, "algo ");
    assert_eq!(line, "algo ");
    let ids = app.anonymize().algorithms.iter().map(|a| a.id);
    for id in ids {
        assert!(notice.split("  ").any(|n| n == id), "{id} not in {notice}");
    }
    assert_eq!(tab(&mut app, "algo mond").0, "algo mondrian");
    let (_, notice) = tab(&mut app, "model ");
    for m in anonlab::privacy::Model::NAMES.iter().copied() {
        assert!(notice.split("  ").any(|n| n == m), "{m} not in {notice}");
    }
    assert_eq!(tab(&mut app, "theme mo").0, "theme mono");
    assert_eq!(tab(&mut app, "export ch").0, "export chart ");
    // A filter rule's last word is a column: the shortest start of a
    // column's name no other column shares completes it.
    let ds = app.dataset();
    let columns: Vec<String> = (0..ds.n_cols())
        .map(|c| ds.col(c).name().to_string())
        .collect();
    let (column, prefix) = columns
        .iter()
        .find_map(|c| {
            let p = (1..c.len())
                .map(|n| &c[..n])
                .find(|p| columns.iter().filter(|m| m.starts_with(p)).count() == 1)?;
            Some((c.clone(), p.to_string()))
        })
        .expect("a column with a start of its own");
    let rule = format!("filter {column}=x and {prefix}");
    assert_eq!(
        tab(&mut app, &rule).0,
        format!("filter {column}=x and {column}")
    );
}

#[test]
fn the_help_page_lists_every_command_with_its_arguments() {
    let mut app = demo(200, 60);
    command(&mut app, "help");
    assert!(app.help_visible());
    assert_eq!(app.help_page(), HelpPage::Commands);
    let t = text(&render(&app));
    for c in COMMANDS {
        assert!(t.contains(&c.usage()), "{} missing\n{t}", c.usage());
    }
    assert!(t.contains(":population N|F|off"), "{t}");
    // → turns back to the keys, ← to the commands again.
    app.step(&Action::Right);
    assert_eq!(app.help_page(), HelpPage::Keys);
    assert!(text(&render(&app)).contains("Keys: Data"));
    app.step(&Action::Left);
    assert_eq!(app.help_page(), HelpPage::Commands);
}

#[test]
fn the_help_opens_at_its_top_after_it_was_scrolled() {
    let mut app = demo(80, 24);
    for reopen in [Action::ToggleHelp, Action::ToggleHelp] {
        app.step(&reopen);
        assert!(text(&render(&app)).contains("↑↓ 1–"));
        for _ in 0..5 {
            app.step(&Action::Down);
        }
        assert!(text(&render(&app)).contains("↑↓ 6–"), "scrolled");
        app.step(&Action::Cancel);
    }
    // `:help` opens its page at the top as well.
    command(&mut app, "help");
    for _ in 0..3 {
        app.step(&Action::Down);
    }
    assert_eq!(app.help_scroll(), 3);
    app.step(&Action::Cancel);
    command(&mut app, "help");
    assert_eq!(app.help_scroll(), 0);
    assert!(text(&render(&app)).contains("Commands (↑↓ 1–"));
}

#[test]
fn a_file_without_roles_says_how_to_start() {
    let csv = "sex,age,zip,disease\nF,34,1001,flu\nM,51,1002,cold\n";
    let ds = load_csv_bytes(csv.as_bytes(), "plain.csv", &CsvOptions::default()).unwrap();
    let session = Session::new(ds, Some("plain.csv".into()), CsvOptions::default());
    let mut app = App::new(session).unwrap();
    app.step(&Action::Resize(120, 20));
    let hint = "mark quasi-identifiers with Q, sensitive attributes with s, then 2 for Risk";
    assert!(
        text(&render(&app)).contains(hint),
        "{}",
        text(&render(&app))
    );
    // Narrower, the border holds the short form, then a cut that says so:
    // a border would clip the sentence without a mark.
    app.step(&Action::Resize(60, 20));
    let short = "Q quasi-identifier, s sensitive, 2 Risk";
    assert!(
        text(&render(&app)).contains(short),
        "{}",
        text(&render(&app))
    );
    app.step(&Action::Resize(32, 20));
    let shown = text(&render(&app));
    let bottom = shown
        .lines()
        .find(|l| l.contains("Q quasi"))
        .unwrap_or_else(|| panic!("no hint at 32 columns:\n{shown}"));
    assert!(bottom.contains('…') && !bottom.contains(short), "{bottom}");
    app.step(&Action::Resize(120, 20));
    // Once a column has a role the hint has done its work.
    app.step(&Action::SetRole(anonlab::data::Role::QuasiIdentifier));
    assert!(!text(&render(&app)).contains(hint));
    // The demo has roles: no hint.
    assert!(!text(&render(&demo(120, 20))).contains(hint));
}

#[test]
fn ctrl_z_asks_the_terminal_loop_to_suspend_once() {
    let key = Event::Key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL));
    let action = KeyMap::default().translate(Screen::Data, &key);
    assert_eq!(action, Some(Action::Suspend));
    let mut app = demo(80, 24);
    assert!(!app.take_suspend());
    app.step(&Action::Suspend);
    assert!(app.take_suspend());
    assert!(!app.take_suspend(), "taken once");
    assert!(!app.should_quit());
}
