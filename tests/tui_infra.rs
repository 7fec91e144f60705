//! What every screen shares: the `:` command line, `/` search, mouse
//! clicks, the config file (key remapping, theme, mouse), the themes, the
//! gauge of long jobs, the context help and the changed-data popup. The app
//! is driven with actions (key events only where the key map itself is
//! under test) and drawn into ratatui's `TestBackend`.
#![cfg(feature = "tui")]

use crate::common;

use std::time::{Duration, Instant};

use anonlab::data::{load_csv_bytes, CsvOptions, Role};
use anonlab::session::Session;
use anonlab_tui::{self as tui, Action, App, Config, JobState, RiskFocus, Screen, Theme};
use common::screen::{command, render, text, type_line};
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

const CSV: &str = "\
name,sex,age,zip,occupation,disease
Ann,F,34,1001,nurse,flu
Bob,M,34,1001,clerk,cold
Cid,M,51,1002,Nurse,flu
Dee,F,51,1002,driver,asthma
Eve,F,29,1001,clerk,flu
Fay,F,29,1003,nurse,cold
Gus,M,62,1003,driver,flu
Hal,M,62,1003,clerk,asthma
";

fn session() -> Session {
    let mut s = Session::new(
        load_csv_bytes(CSV.as_bytes(), "people.csv", &CsvOptions::default()).unwrap(),
        Some("people.csv".into()),
        CsvOptions::default(),
    );
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
    s
}

fn app(width: u16, height: u16) -> App {
    let mut app = App::new(session()).unwrap();
    app.step(&Action::Resize(width, height));
    app
}

fn search(app: &mut App, query: &str) {
    app.step(&Action::OpenSearch);
    type_line(app, query);
}

fn status_line(buf: &Buffer) -> String {
    text(buf).lines().last().unwrap_or_default().to_string()
}

/// Position of the first occurrence of `needle` on screen.
fn find(buf: &Buffer, needle: &str) -> Option<(u16, u16)> {
    text(buf).lines().enumerate().find_map(|(y, l)| {
        l.find(needle)
            .map(|byte| (l[..byte].chars().count() as u16, y as u16))
    })
}

#[test]
fn the_status_bar_shows_file_parameters_seed_and_job() {
    let mut app = app(120, 20);
    let line = status_line(&render(&app));
    let i = app.anonymize_inputs();
    assert!(line.contains("people.csv"), "{line}");
    assert!(
        line.contains(&format!("{} k={}", i.algorithm, i.k)),
        "{line}"
    );
    // The seed shows for an algorithm that draws random numbers only
    // (issue 32, item 5): the default, Mondrian, draws none.
    assert_eq!(i.algorithm, "mondrian");
    assert!(!line.contains("seed="), "{line}");
    assert!(line.contains("risk:"), "{line}");
    assert!(line.contains(": cmd"), "{line}");
    app.run_pending_jobs_blocking();
    assert!(status_line(&render(&app)).contains("risk: ready"));
    command(&mut app, "algo anatomy");
    let line = status_line(&render(&app));
    assert!(line.contains(&format!("anatomy k={}", i.k)), "{line}");
    assert!(line.contains(&format!("seed={}", i.seed)), "{line}");
    // On a narrow terminal the less important parts go, the file stays,
    // and nothing is drawn past the edge.
    app.step(&Action::Resize(30, 20));
    let line = status_line(&render(&app));
    assert!(line.contains("people.csv"), "{line}");
    assert!(!line.contains("rows"), "{line}");
    assert!(line.chars().count() <= 30);
}

#[test]
fn the_command_line_sets_parameters_and_says_what_is_wrong() {
    let mut app = app(120, 20);
    app.step(&Action::OpenCommandLine);
    assert!(app.dialog_open(), "typing goes to the line");
    for c in "k 3".chars() {
        app.step(&Action::TypeChar(c));
    }
    assert!(status_line(&render(&app)).starts_with(":k 3"));
    app.step(&Action::Confirm);
    assert_eq!(app.params().k, 3);
    assert!(!app.dialog_open());

    command(&mut app, "l 2");
    assert_eq!(app.params().l, 2);
    command(&mut app, "seed 7");
    assert_eq!(app.params().seed, 7);
    command(&mut app, "algo anatomy");
    assert_eq!(app.anonymize().choice().id, "anatomy");

    command(&mut app, "k 0");
    assert!(app.notice().unwrap().contains("k 0"), "{:?}", app.notice());
    assert_eq!(app.params().k, 3);
    command(&mut app, "k 9");
    let n = app.notice().unwrap();
    assert!(n.contains("k 9") && n.contains("8 rows"), "{n}");
    command(&mut app, "k lots");
    assert!(app.notice().unwrap().contains("'lots'"));
    command(&mut app, "algo nope");
    let n = app.notice().unwrap().to_string();
    assert!(n.contains("'nope'") && n.contains("mondrian"), "{n}");
    assert!(status_line(&render(&app)).contains("'nope'"));

    command(&mut app, "theme light");
    assert_eq!(app.theme(), Theme::Light);
    command(&mut app, "mouse off");
    assert!(!app.mouse_enabled());

    // ↑ recalls the session's commands.
    app.step(&Action::OpenCommandLine);
    app.step(&Action::Up);
    assert_eq!(app.editing_line(), Some((":", "mouse off", 9)));
    app.step(&Action::Cancel);
    assert_eq!(app.editing_line(), None);

    // The commands above changed k: :q asks first, d quits without saving.
    command(&mut app, "q");
    assert!(!app.should_quit());
    assert_eq!(app.confirm(), Some(&anonlab_tui::Confirm::Quit));
    app.step(&Action::TypeChar('d'));
    assert!(app.should_quit());
}

#[test]
fn save_to_a_new_path_makes_it_the_project_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    let mut app = app(120, 20);
    command(&mut app, &format!("save {}", path.display()));
    assert!(path.exists(), "{:?}", app.notice());
    assert_eq!(app.project_path(), path);
}

#[test]
fn search_finds_the_next_row_of_the_focused_column_and_wraps() {
    let mut app = app(120, 20);
    let occupation = app.dataset().column_index("occupation").unwrap();
    for _ in 0..occupation {
        app.step(&Action::Right);
    }
    search(&mut app, "NURSE");
    // Case does not matter: Cid's "Nurse" (row 3) follows Ann's row 1.
    assert_eq!(app.data_view().row, 2);
    app.step(&Action::SearchNext);
    assert_eq!(app.data_view().row, 5);
    app.step(&Action::SearchNext);
    assert_eq!(app.data_view().row, 0, "wraps to the top");
    app.step(&Action::SearchPrev);
    assert_eq!(app.data_view().row, 5, "and back");
    // The matching cells on screen are highlighted.
    let buf = render(&app);
    let (x, y) = find(&buf, "Cid").unwrap();
    let line = text(&buf).lines().nth(y as usize).unwrap().to_string();
    let nurse = line.find("Nurse").unwrap();
    let cx = line[..nurse].chars().count() as u16;
    assert!(x < cx);
    assert_eq!(buf[(cx, y)].bg, Color::Yellow);
    let (cx, y) = find(&buf, "clerk").unwrap();
    assert_ne!(buf[(cx, y)].bg, Color::Yellow);

    search(&mut app, "pilot");
    assert_eq!(app.data_view().row, 5);
    assert!(app.notice().unwrap().contains("'pilot' not found"));
}

#[test]
fn search_in_the_published_table() {
    let mut app = app(120, 30);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.run_pending_jobs_blocking();
    let view = app.anonymize().view.as_ref().unwrap();
    let rows: Vec<Vec<String>> = (0..view.published_rows())
        .map(|i| view.row(app.dataset(), i).unwrap())
        .collect();
    let expected: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].iter().any(|v| v.to_lowercase().contains("asthma")))
        .collect();
    assert_eq!(expected.len(), 2, "{rows:?}");
    search(&mut app, "ASTHMA");
    assert_eq!(app.anonymize().table.cursor, expected[0]);
    app.step(&Action::SearchNext);
    assert_eq!(app.anonymize().table.cursor, expected[1]);
    app.step(&Action::SearchNext);
    assert_eq!(app.anonymize().table.cursor, expected[0]);
}

#[test]
fn search_in_the_hierarchies_attribute_list() {
    let mut app = app(120, 30);
    app.step(&Action::ShowScreen(Screen::Hierarchies));
    search(&mut app, "zi");
    assert_eq!(
        app.hierarchies().cursor,
        app.dataset().column_index("zip").unwrap()
    );
}

#[test]
fn clicks_switch_tabs_and_select_rows() {
    let mut app = app(120, 24);
    let buf = render(&app);
    let (x, y) = find(&buf, "3 Anonymize").unwrap();
    app.step(&Action::Click {
        column: x + 2,
        row: y,
    });
    assert_eq!(app.screen(), Screen::Anonymize);
    let (x, y) = find(&render(&app), "1 Data").unwrap();
    app.step(&Action::Click { column: x, row: y });
    assert_eq!(app.screen(), Screen::Data);

    // A cell of the Data table: Fay's zip.
    let buf = render(&app);
    let (fx, fy) = find(&buf, "Fay").unwrap();
    let line = text(&buf).lines().nth(fy as usize).unwrap().to_string();
    let zx = line[..line.find("1003").unwrap()].chars().count() as u16;
    assert!(zx > fx);
    app.step(&Action::Click {
        column: zx + 1,
        row: fy,
    });
    assert_eq!(app.data_view().row, 5);
    assert_eq!(
        app.data_view().col,
        app.dataset().column_index("zip").unwrap()
    );

    // The Hierarchies attribute list.
    app.step(&Action::ShowScreen(Screen::Hierarchies));
    let buf = render(&app);
    let (x, y) = find(&buf, "occupation").unwrap();
    app.step(&Action::Click { column: x, row: y });
    assert_eq!(
        app.hierarchies().cursor,
        app.dataset().column_index("occupation").unwrap()
    );

    // The published table of the Anonymize screen.
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.run_pending_jobs_blocking();
    assert_eq!(app.anonymize().job, JobState::Done);
    let (w, h) = app.size();
    let table = tui::anonymize_table_viewport(ratatui::layout::Rect::new(0, 0, w, h));
    app.step(&Action::Click {
        column: table.x + 1,
        row: table.y + 2,
    });
    assert_eq!(app.anonymize().table.cursor, app.anonymize().table.top + 2);
}

#[test]
fn a_left_click_becomes_a_click_action() {
    let km = anonlab_tui::KeyMap::default();
    let ev = Event::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 7,
        row: 0,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(
        km.translate(Screen::Data, &ev),
        Some(Action::Click { column: 7, row: 0 })
    );
}

#[test]
fn a_remapped_key_works_and_shows_in_help() {
    let cfg = Config::parse(
        "mouse = false\n[keys.global]\nquit = [\"ctrl-q\"]\n[keys.data]\ndown = [\"ctrl-n\"]\n",
        "test.toml",
    );
    assert!(cfg.problems.is_empty(), "{:?}", cfg.problems);
    let mut app = app(120, 60).with_config(cfg);
    assert!(!app.mouse_enabled());
    let km = app.keymap().clone();
    let key = |c, m| Event::Key(KeyEvent::new(KeyCode::Char(c), m));
    assert_eq!(
        km.translate(Screen::Data, &key('q', KeyModifiers::CONTROL)),
        Some(Action::Quit)
    );
    assert_eq!(
        km.translate(Screen::Data, &key('q', KeyModifiers::NONE)),
        None
    );
    assert_eq!(
        km.translate(Screen::Data, &key('n', KeyModifiers::CONTROL)),
        Some(Action::Down)
    );
    app.step(&Action::ToggleHelp);
    let t = text(&render(&app));
    assert!(t.contains("Ctrl-q"), "{t}");
    assert!(t.contains("Ctrl-n"), "{t}");
    assert!(!t.contains("q Ctrl-c"), "{t}");
}

#[test]
fn config_problems_show_in_a_popup_and_the_tui_still_opens() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(
        &file,
        "theme = \"dark\"\n[keys.anonymize]\nk_upp = [\"x\"]\n",
    )
    .unwrap();
    let cfg = Config::from_file(&file);
    let app = app(120, 24).with_config(cfg);
    let popup = app.popup().expect("a popup");
    assert!(popup.message.contains(&format!("{}:3", file.display())));
    assert!(popup.message.contains("'k_upp'"));
    // A missing file is the defaults, quietly.
    let none = Config::from_file(&dir.path().join("absent.toml"));
    assert!(none.problems.is_empty());
}

#[test]
fn themes_recolour_the_screen() {
    let mut app = app(120, 20);
    app.run_pending_jobs_blocking();
    let dark = render(&app);
    assert!(dark.content.iter().any(|c| c.fg == Color::DarkGray));

    command(&mut app, "theme light");
    let light = render(&app);
    // The same text (but the status bar's notice), other colours.
    let body = |b: &Buffer| {
        let t = text(b);
        t.lines()
            .take(t.lines().count() - 1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&light), body(&dark));
    for c in &light.content {
        assert!(
            !matches!(c.fg, Color::White | Color::Yellow | Color::DarkGray),
            "{c:?}"
        );
    }

    command(&mut app, "theme mono");
    let mono = render(&app);
    for c in &mono.content {
        assert_eq!((c.fg, c.bg), (Color::Reset, Color::Reset), "{c:?}");
    }
    // The cursor cell is still reversed, the roles still tagged.
    let (x, y) = find(&mono, "Ann").unwrap();
    assert!(mono[(x, y)].modifier.contains(Modifier::REVERSED));
    assert!(text(&mono).contains("QI"));
    // The selected tab too.
    let (x, y) = find(&mono, "1 Data").unwrap();
    assert!(mono[(x, y)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn no_color_selects_mono() {
    assert_eq!(
        Theme::Dark.with_no_color(Some(std::ffi::OsStr::new("1"))),
        Theme::Mono
    );
}

#[test]
fn a_job_shows_a_gauge_only_after_the_threshold() {
    let mut app = app(120, 20);
    // The risk simulation waits in the inline slot: it is running.
    assert!(app.job().is_running());
    app.on_tick_at(Instant::now());
    let line = status_line(&render(&app));
    assert!(line.contains("risk: "), "spinner: {line}");
    app.on_tick_at(Instant::now() + tui::GAUGE_AFTER + Duration::from_millis(1));
    let buf = render(&app);
    let line = status_line(&buf);
    assert!(line.contains("risk 0%"), "gauge: {line}");
    let (x, y) = find(&buf, "risk 0%").unwrap();
    // The gauge's empty part has its background.
    assert_ne!(buf[(x.saturating_sub(1), y)].bg, Color::Reset);
    app.run_pending_jobs_blocking();
    assert!(status_line(&render(&app)).contains("risk: ready"));
}

#[test]
fn help_overlay_on_each_screen() {
    for screen in Screen::ALL {
        let mut app = app(150, 60);
        // Jobs are left queued: a finished run shows its time, which
        // varies.
        app.step(&Action::ShowScreen(screen));
        app.step(&Action::ToggleHelp);
        let t = text(&render(&app));
        for line in app.keymap().help(screen) {
            assert!(
                t.contains(&line.keys),
                "{screen:?}: {} missing\n{t}",
                line.keys
            );
        }
        insta::assert_snapshot!(format!("help_{}", screen.title().to_lowercase()), t);
    }
}

#[test]
fn help_lists_the_focused_panel_first() {
    let mut app = app(150, 50);
    app.step(&Action::ShowScreen(Screen::Hierarchies));
    let sections = |app: &App| {
        app.keymap()
            .help_sections(app.screen(), app.focused_panel())
            .into_iter()
            .map(|(t, _)| t)
            .collect::<Vec<_>>()
    };
    assert_eq!(sections(&app)[0], "attribute list");
    app.step(&Action::ToggleNode);
    assert_eq!(app.focused_panel(), Some("hierarchy tree"));
    assert_eq!(sections(&app)[0], "hierarchy tree");
    assert_eq!(sections(&app).last().unwrap(), "everywhere");
}

#[test]
fn a_project_whose_data_changed_opens_with_a_popup() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("people.csv");
    std::fs::write(&csv, CSV).unwrap();
    let project = dir.path().join("p.json");
    let mut app = App::new(Session::open(&csv, CsvOptions::default()).unwrap())
        .unwrap()
        .with_project_path(project.clone());
    app.step(&Action::SaveProject);
    assert!(project.exists(), "{:?}", app.popup());

    let same = App::open_project(&project).unwrap();
    assert!(same.popup().is_none(), "{:?}", same.popup());

    std::fs::write(&csv, format!("{CSV}Ida,F,40,1004,pilot,flu\n")).unwrap();
    let changed = App::open_project(&project).unwrap();
    let popup = changed.popup().expect("the change is said");
    assert_eq!(popup.title, "Data file changed");
    assert!(popup
        .message
        .contains("changed since the project was saved"));
    assert_eq!(changed.project_path(), project);
    let mut changed = changed;
    changed.step(&Action::Resize(120, 24));
    assert!(text(&render(&changed)).contains("Data file changed"));
}

/// The demo's Risk screen with the risk simulation done (before only).
fn demo_risk() -> App {
    let mut app = common::screen::demo(130, 36);
    app.step(&Action::ShowScreen(Screen::Risk));
    app.run_pending_jobs_blocking();
    assert!(app.risk().before.is_some());
    app
}

/// The screen line (y) of the attacker picker's row for attribute `name`:
/// `[x]  2. name QI` or `[ ]     name SS`.
fn picker_line(t: &str, name: &str) -> Option<u16> {
    let after_mark = |l: &str| {
        l.split_once("] ").map(|(_, rest)| {
            rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ')
                .to_string()
        })
    };
    t.lines()
        .position(|l| after_mark(l).is_some_and(|r| r.starts_with(&format!("{name} "))))
        .map(|y| y as u16)
}

#[test]
fn clicks_on_the_risk_screen_focus_the_picker_or_select_a_record() {
    let mut app = demo_risk();
    // The picker: the last attribute of the order, with the list focused
    // first so the click has to move the focus back.
    app.step(&Action::Right);
    assert_eq!(app.risk().focus, RiskFocus::Records);
    let last = app.session().order().len() - 1;
    let name = app
        .dataset()
        .col(app.session().order()[last])
        .name()
        .to_string();
    let t = text(&render(&app));
    let y = picker_line(&t, &name).unwrap_or_else(|| panic!("{name} not drawn:\n{t}"));
    app.step(&Action::Click { column: 3, row: y });
    assert_eq!(app.risk().focus, RiskFocus::Picker);
    assert_eq!(app.risk().cursor, last);

    // A record of the list: the fourth listed, found by its row number
    // and Pr as the list draws them.
    let listed = app.risk().shown_list(app.session()).0.to_vec();
    assert!(listed.len() > 4, "{}", listed.len());
    let pick = 3;
    let l = listed[pick];
    let width = common::screen::thousands(app.dataset().n_rows())
        .len()
        .max(3);
    let needle = format!(
        "│{:>width$} {:>5} ",
        common::screen::thousands(l.row as usize + 1),
        format!("{:.3}", 1.0 / f64::from(l.matches))
    );
    let buf = render(&app);
    let (x, y) = find(&buf, &needle).unwrap_or_else(|| panic!("{needle}:\n{}", text(&buf)));
    app.step(&Action::Click {
        column: x + 2,
        row: y,
    });
    assert_eq!(app.risk().focus, RiskFocus::Records);
    assert_eq!(app.risk().list_cursor, pick);
    assert_eq!(app.risk().cursor, last, "the picker keeps its cursor");
    // A click only selects, even on the selected record; Enter jumps.
    app.step(&Action::Click {
        column: x + 2,
        row: y,
    });
    assert_eq!(app.screen(), Screen::Risk);
    app.step(&Action::JumpToRecord);
    assert_eq!(app.screen(), Screen::Data);
    assert_eq!(app.data_view().row, l.row as usize);

    // Below the last record or on the header: nothing changes.
    app.step(&Action::ShowScreen(Screen::Risk));
    let header = find(&render(&app), "known values").unwrap();
    app.step(&Action::Click {
        column: header.0,
        row: header.1,
    });
    assert_eq!(app.risk().list_cursor, pick);
}

#[test]
fn search_on_the_risk_screen_finds_records_by_row_number_or_known_value() {
    let mut app = demo_risk();
    let listed = app.risk().shown_list(app.session()).0.to_vec();
    let ds = app.dataset();
    let known = app.session().known_columns();
    // What the list shows of each record, recomputed from the data: its
    // row number (plain and with separators) and its known values, hidden
    // sensitive cells masked.
    let shown: Vec<String> = listed
        .iter()
        .map(|l| {
            let r = l.row as usize;
            let mut parts = vec![(r + 1).to_string(), common::screen::thousands(r + 1)];
            for &c in &known {
                if app.is_sensitive(r, c) {
                    parts.push(tui::SENSITIVE_MARK.to_string());
                } else {
                    let col = ds.col(c);
                    parts.push(col.display(col.code(r)).to_string());
                }
            }
            parts.join("|").to_lowercase()
        })
        .collect();
    // A value of the tenth listed record, in upper case.
    let c = known[0];
    let value = ds.col(c).display(ds.col(c).code(listed[9].row as usize));
    let query = value.to_uppercase();
    let q = value.to_lowercase();
    let expected: Vec<usize> = (0..listed.len())
        .filter(|&i| shown[i].contains(&q))
        .collect();
    assert!(expected.len() >= 2, "{expected:?}");
    search(&mut app, &query);
    // From the first record (the cursor), the next match after it.
    let first = expected.iter().copied().find(|&i| i > 0).unwrap();
    assert_eq!(app.risk().list_cursor, first);
    assert_eq!(app.risk().focus, RiskFocus::Records);
    app.step(&Action::SearchPrev);
    let before_first = expected
        .iter()
        .copied()
        .rev()
        .find(|&i| i < first)
        .unwrap_or(*expected.last().unwrap());
    assert_eq!(
        app.risk().list_cursor,
        before_first,
        "N goes back, wrapping"
    );
    // A row number, with its separators as drawn.
    let number = common::screen::thousands(listed[7].row as usize + 1);
    let n = listed.len();
    let hit = (1..=n)
        .map(|step| (before_first + step) % n)
        .find(|&i| shown[i].contains(&number))
        .unwrap();
    search(&mut app, &number);
    assert_eq!(app.risk().list_cursor, hit);
    search(&mut app, "no such value");
    assert_eq!(app.risk().list_cursor, hit);
    assert!(
        app.notice().unwrap().contains("'no such value' not found"),
        "{:?}",
        app.notice()
    );
}

/// The demo's compare set: mondrian, cbg, cbg with k one higher.
fn demo_compare() -> App {
    let mut app = common::screen::demo(130, 36);
    common::screen::choose_algorithm(&mut app, "mondrian");
    app.step(&Action::AddToCompare);
    common::screen::choose_algorithm(&mut app, "cbg");
    app.step(&Action::AddToCompare);
    app.step(&Action::AdjustK(1));
    app.step(&Action::AddToCompare);
    app.step(&Action::ShowScreen(Screen::Compare));
    assert_eq!(app.compare().entries.len(), 3);
    app
}

#[test]
fn a_click_on_a_compare_row_selects_the_entry() {
    let mut app = demo_compare();
    assert_eq!(app.compare().cursor, 0);
    for n in [2, 1] {
        let e = app.compare().entries[n].entry.clone();
        // The row's identity cells: marker and number, algorithm, k.
        let t = text(&render(&app));
        let y = t
            .lines()
            .position(|l| {
                let cells: Vec<&str> = l.trim_start_matches('│').split_whitespace().collect();
                cells.len() > 2
                    && cells[0].ends_with(&(n + 1).to_string())
                    && cells[1] == e.algorithm
                    && cells[2] == e.k.to_string()
            })
            .unwrap_or_else(|| panic!("entry {n}:\n{t}")) as u16;
        app.step(&Action::Click { column: 10, row: y });
        assert_eq!(app.compare().cursor, n);
    }
    // The header line selects nothing.
    let (x, y) = find(&render(&app), "algorithm").unwrap();
    app.step(&Action::Click { column: x, row: y });
    assert_eq!(app.compare().cursor, 1);
}

#[test]
fn search_on_the_compare_screen_matches_entry_labels() {
    let mut app = demo_compare();
    let labels: Vec<String> = app
        .compare()
        .entries
        .iter()
        .map(|e| e.entry.to_string())
        .collect();
    assert!(labels[1].starts_with("cbg k="), "{labels:?}");
    search(&mut app, "CBG");
    assert_eq!(app.compare().cursor, 1);
    app.step(&Action::SearchNext);
    assert_eq!(app.compare().cursor, 2);
    app.step(&Action::SearchNext);
    assert_eq!(app.compare().cursor, 1, "wraps past mondrian");
    app.step(&Action::SearchPrev);
    assert_eq!(app.compare().cursor, 2, "backwards, wrapping");
    // The whole label of the second entry finds only it.
    search(&mut app, &labels[1]);
    assert_eq!(app.compare().cursor, 1);
    search(&mut app, "anatomy");
    assert_eq!(app.compare().cursor, 1);
    assert!(app.notice().unwrap().contains("'anatomy' not found"));
}
