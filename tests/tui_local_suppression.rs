//! Local suppression on the Anonymize screen (issue 33, the TUI part),
//! driven through the app's actions and `:` commands on the embedded demo,
//! a small table with missing key cells, and Adult: the cells suppressed
//! per attribute and in all, the convention and the sdcMicro greedy's
//! count, as the release (`Release::suppression`) and the library's own
//! run of the same setting have them, following k; suppressed cells
//! marked in the published table and before/after in their own style,
//! apart from cells missing in the input, at 200 × 50 and at 60 × 15; the
//! settings set by `:importance`, `:combs`, `:missing` and `:strata`,
//! refused with a message when they do not fit, saved with the project
//! and published alike by `anonlab anonymize --project --json`.
#![cfg(feature = "tui")]

use std::path::Path;

use anonlab::algorithms::Registry;
use anonlab::data::{CsvOptions, Role, Roles};
use anonlab::progress::Progress;
use anonlab::release::{Cell, CellSuppression, Convention};
use anonlab::session::Session;
use anonlab_tui::{missing_cell_style, suppressed_cell_style, Action, App, CellMark, Screen};
use ratatui::buffer::Buffer;
use ratatui::style::Style;

use crate::common;
use common::cli::{anonlab, json_of};
use common::screen::{choose_algorithm, command, demo, masked_text, render, run_to_done, text};

const LS: &str = "local-suppression";

/// The release the library makes for the session's own request at `k`
/// (`Session::request`, as `anonlab anonymize --project` builds it), run
/// by the registry's algorithm: what the screen must agree with.
fn library_suppression(session: &Session, k: u32) -> CellSuppression {
    let req = session.request(LS, k, session.params.l).unwrap();
    let algo = Registry::standard().get(LS).unwrap();
    let (release, _) = anonlab::anonymize::run_algorithm(&*algo, &req, &Progress::new()).unwrap();
    release
        .suppression
        .expect("local suppression says what it did")
}

/// The shown release's suppression.
fn shown(app: &App) -> CellSuppression {
    let view = app.anonymize().view.as_ref().expect("a release");
    view.release
        .suppression
        .clone()
        .expect("a local suppression")
}

/// The line the figures panel gives the counts per attribute, as the
/// release has them.
fn per_attribute_line(s: &CellSuppression) -> String {
    let items: Vec<String> = s
        .suppressed_cells
        .iter()
        .map(|a| {
            format!(
                "{} {}",
                a.attribute,
                common::screen::thousands(a.cells as usize)
            )
        })
        .collect();
    format!("per attribute {}", items.join(", "))
}

/// Count, over every published row (not only those on screen), the cells
/// the view marks, per column of the published table.
fn marked_per_column(app: &App, mark: CellMark) -> Vec<u64> {
    let view = app.anonymize().view.as_ref().unwrap();
    let ds = app.dataset();
    let mut counts = vec![0u64; view.headers.len()];
    for i in 0..view.published_rows() {
        for (c, m) in view.marks(ds, i).into_iter().enumerate() {
            if m == mark {
                counts[c] += 1;
            }
        }
    }
    counts
}

/// The screen's cells below the line holding `title` (a panel's title),
/// with their text and style.
fn cells_below(buf: &Buffer, title: &str) -> Vec<(String, Style)> {
    let t = text(buf);
    let top = t
        .lines()
        .position(|l| l.contains(title))
        .unwrap_or_else(|| panic!("no {title:?} on screen:\n{t}"));
    let area = buf.area;
    let mut out = Vec::new();
    for y in (top as u16 + 1)..area.height {
        for x in 0..area.width {
            let c = &buf[(x, y)];
            out.push((c.symbol().to_string(), c.style()));
        }
    }
    out
}

fn is_suppressed(style: Style) -> bool {
    let s = suppressed_cell_style();
    style.bg == s.bg && style.fg == s.fg && style.add_modifier.contains(s.add_modifier)
}

fn is_missing(style: Style) -> bool {
    let s = missing_cell_style();
    style.fg == s.fg
        && style.add_modifier.contains(s.add_modifier)
        && style.bg != suppressed_cell_style().bg
}

#[test]
fn the_counts_per_attribute_follow_k_and_are_the_librarys() {
    let mut app = demo(200, 50);
    choose_algorithm(&mut app, LS);
    run_to_done(&mut app);
    let mut totals = Vec::new();
    for k in [2u32, 5, 9] {
        command(&mut app, &format!("k {k}"));
        run_to_done(&mut app);
        assert_eq!(app.params().k, k);
        let s = shown(&app);
        // One truth: the library's own run of the session's request.
        let library = library_suppression(app.session().session(), k);
        assert_eq!(s, library, "k = {k}");
        assert_eq!(
            s.total,
            s.suppressed_cells.iter().map(|a| a.cells).sum::<u64>()
        );
        let names: Vec<&str> = s
            .suppressed_cells
            .iter()
            .map(|a| a.attribute.as_str())
            .collect();
        assert_eq!(names, ["sex", "age", "zip"]);
        // The screen says the release's figures, labelled.
        let t = text(&render(&app));
        let total = common::screen::thousands(s.total as usize);
        assert!(
            t.contains(&format!("cells suppressed {total} (* any value)")),
            "k = {k}:\n{t}"
        );
        assert!(t.contains(&per_attribute_line(&s)), "k = {k}:\n{t}");
        let greedy = s.greedy_total.expect("alpha = 1 runs the greedy too");
        let greedy = common::screen::thousands(greedy as usize);
        assert!(
            t.contains(&format!("sdcMicro-greedy {greedy}"))
                || t.contains(&format!("sdcMicro-greedy ≥{greedy}")),
            "k = {k}:\n{t}"
        );
        assert!(t.contains("missing   * matches any value"), "{t}");
        // The marks over the whole table are the release's counts.
        let marked = marked_per_column(&app, CellMark::Suppressed);
        let per: Vec<u64> = s.suppressed_cells.iter().map(|a| a.cells).collect();
        assert_eq!(marked[..3], per[..], "k = {k}");
        assert!(marked[3..].iter().all(|&n| n == 0));
        assert!(marked_per_column(&app, CellMark::Missing)
            .iter()
            .all(|&n| n == 0));
        totals.push(s.total);
    }
    // A larger k suppresses more.
    assert!(totals[0] < totals[1] && totals[1] < totals[2], "{totals:?}");
}

/// The first published row with a suppressed cell, selected.
fn select_a_suppressed_row(app: &mut App) -> usize {
    let view = app.anonymize().view.as_ref().unwrap();
    let ds = app.dataset();
    let i = (0..view.published_rows())
        .find(|&i| view.marks(ds, i).contains(&CellMark::Suppressed))
        .expect("some cell is suppressed");
    app.step(&Action::First);
    for _ in 0..i {
        app.step(&Action::Down);
    }
    assert_eq!(app.anonymize().table.cursor, i);
    i
}

/// On screen, in the panel under `title`: every cell in the suppressed
/// style reads `*`, and there are as many as the marks of the rows on
/// screen say.
fn marks_on_screen(app: &App, title: &str, expected: usize) {
    let buf = render(app);
    let cells = cells_below(&buf, title);
    // The style fills the cell's width: its text is the `*`.
    let marked: Vec<&(String, Style)> = cells
        .iter()
        .filter(|(t, s)| is_suppressed(*s) && t != " ")
        .collect();
    assert!(
        marked.iter().all(|(t, _)| t == "*"),
        "{title}: {marked:?}\n{}",
        text(&buf)
    );
    assert_eq!(marked.len(), expected, "{title}\n{}", text(&buf));
    // A `*` drawn plain would be a suppression not marked.
    let plain_stars = cells
        .iter()
        .filter(|(t, s)| t == "*" && !is_suppressed(*s) && !is_missing(*s))
        .count();
    assert_eq!(plain_stars, 0, "{title}\n{}", text(&buf));
}

#[test]
fn suppressed_cells_are_marked_in_the_table_and_before_after_at_every_size() {
    for size in [(200u16, 50u16), (80, 24), (60, 15)] {
        let mut app = demo(size.0, size.1);
        choose_algorithm(&mut app, LS);
        command(&mut app, "k 6");
        run_to_done(&mut app);
        let i = select_a_suppressed_row(&mut app);
        let t = &app.anonymize().table;
        assert!(t.rows.len() <= t.page.max(1));
        let on_screen: usize = t
            .marks
            .iter()
            .map(|m| m.iter().filter(|&&x| x == CellMark::Suppressed).count())
            .sum();
        assert!(on_screen >= 1, "{size:?}");
        // The table's marks are the release's: its group's cell is `*`
        // and the record's value is not missing.
        let view = app.anonymize().view.as_ref().unwrap();
        let row = &t.marks[i - t.top];
        let (mut at, mut group) = (0, None);
        for (g, gr) in view.release.groups.iter().enumerate() {
            if i < at + gr.rows.len() {
                group = Some((g, gr.rows[i - at] as usize));
                break;
            }
            at += gr.rows.len();
        }
        let (g, r) = group.unwrap();
        let ds = app.dataset();
        for (a, &c) in view.release.quasi_identifiers.iter().enumerate() {
            let suppressed = view.release.groups[g].cells[a] == Cell::Suppressed
                && !ds.col(c).is_missing(ds.col(c).code(r));
            assert_eq!(row[a] == CellMark::Suppressed, suppressed, "{size:?}");
        }
        // At 60 × 15 the screen has no room for the table under the
        // figures; before/after, below, takes the whole body.
        if size.1 > 15 {
            marks_on_screen(&app, "Published table", on_screen);
        }
        if size == (80, 24) {
            insta::assert_snapshot!("local_suppression_80x24", masked_text(&app));
        }
        // Before and after: the record's published cells marked, the
        // original values beside them plain.
        app.step(&Action::ToggleSideBySide);
        let view = app.anonymize().view.as_ref().unwrap();
        let ds = app.dataset();
        let s = &app.anonymize().side_by_side;
        let expected: usize = s
            .rows
            .iter()
            .map(|r| {
                r.marks
                    .iter()
                    .filter(|&&m| m == CellMark::Suppressed)
                    .count()
            })
            .sum();
        for r in &s.rows {
            let at = view.published_index(r.record).unwrap();
            assert_eq!(r.marks, view.marks(ds, at), "record {}", r.record);
        }
        assert!(expected >= 1, "{size:?}: the first records lose no cell");
        marks_on_screen(&app, "Before │ after", expected);
        if size == (60, 15) {
            insta::assert_snapshot!("local_suppression_side_by_side_60x15", masked_text(&app));
        }
        // The release's count of cells in the title (cut with "…" at
        // 60 × 15).
        let t = text(&render(&app));
        let total = common::screen::thousands(shown(&app).total as usize);
        assert!(
            t.contains(&format!("; {total} cells suppress")),
            "{size:?}\n{t}"
        );
    }
}

/// A table of 60 records whose key `age` is missing in 4 of them.
fn with_missing_cells(dir: &Path) -> std::path::PathBuf {
    let mut csv = String::from("sex,age,zip,disease\n");
    for r in 0..60 {
        let sex = if r % 2 == 0 { "F" } else { "M" };
        let age = if r % 15 == 7 {
            String::new()
        } else {
            (20 + (r * 7) % 9).to_string()
        };
        let zip = 1000 + (r * 13) % 5;
        let disease = ["flu", "cold", "hiv"][r % 3];
        csv.push_str(&format!("{sex},{age},{zip},{disease}\n"));
    }
    let path = dir.join("missing.csv");
    std::fs::write(&path, csv).unwrap();
    path
}

fn session_of(path: &Path) -> Session {
    let ds = anonlab::data::load_csv(path, &CsvOptions::default()).unwrap();
    let mut s = Session::new(ds, Some(path.to_path_buf()), CsvOptions::default());
    let mut roles = std::collections::BTreeMap::new();
    for qi in ["sex", "age", "zip"] {
        roles.insert(qi.to_string(), Role::QuasiIdentifier);
    }
    roles.insert("disease".to_string(), Role::Sensitive);
    s.roles = Roles::from_map(&s.dataset, &roles).unwrap();
    s
}

#[test]
fn cells_missing_in_the_input_are_told_apart_from_suppressions() {
    let dir = tempfile::tempdir().unwrap();
    let path = with_missing_cells(dir.path());
    let mut app = App::new(session_of(&path)).unwrap();
    app.step(&Action::Resize(200, 50));
    choose_algorithm(&mut app, LS);
    command(&mut app, "k 3");
    run_to_done(&mut app);
    let s = shown(&app);
    let missing: Vec<u64> = s.missing_before.iter().map(|a| a.cells).collect();
    assert_eq!(missing, [0, 4, 0]);
    assert_eq!(marked_per_column(&app, CellMark::Missing)[..3], missing[..]);
    let per: Vec<u64> = s.suppressed_cells.iter().map(|a| a.cells).collect();
    assert_eq!(marked_per_column(&app, CellMark::Suppressed)[..3], per[..]);
    let t = text(&render(&app));
    assert!(t.contains("missing before: age 4"), "{t}");
    // Record 7's age is missing: before/after draws its `*` in the
    // missing style, not as a suppression.
    app.step(&Action::ToggleSideBySide);
    let row = app
        .anonymize()
        .side_by_side
        .rows
        .iter()
        .find(|r| r.record == 7)
        .unwrap()
        .clone();
    let age = app
        .anonymize()
        .side_by_side
        .right_headers
        .iter()
        .position(|h| h == "age")
        .unwrap();
    assert_eq!(row.marks[age], CellMark::Missing);
    assert_eq!(row.published.as_ref().unwrap()[age], "*");
    let buf = render(&app);
    let cells = cells_below(&buf, "Before │ after");
    let missing_stars = cells
        .iter()
        .filter(|(t, st)| t == "*" && is_missing(*st))
        .count();
    let expected: usize = app
        .anonymize()
        .side_by_side
        .rows
        .iter()
        .map(|r| r.marks.iter().filter(|&&m| m == CellMark::Missing).count())
        .sum();
    assert!(expected >= 1);
    assert_eq!(missing_stars, expected, "{}", text(&buf));
}

#[test]
fn the_settings_are_set_by_commands_and_bad_ones_are_messages() {
    let mut app = demo(200, 50);
    choose_algorithm(&mut app, LS);
    run_to_done(&mut app);
    let before = shown(&app);
    // Refusals: a message in the status line, nothing changed, no run.
    for (line, says) in [
        ("importance sex,age,nope", "no column 'nope'"),
        (
            "importance sex,age,disease",
            "'disease' is not a key variable",
        ),
        ("importance sex,age", "'zip' is missing"),
        ("importance sex,sex,age", "'sex' is named twice"),
        ("combs 4", "combs 4"),
        ("combs 0", "out of range"),
        ("combs two", "'two'"),
        ("strata sex", "'sex' is a key variable"),
        ("strata nowhere", "no column 'nowhere'"),
        ("missing maybe", "'maybe'"),
    ] {
        command(&mut app, line);
        let notice = app.notice().unwrap_or_default().to_string();
        assert!(notice.contains(says), ":{line}: {notice}");
        assert!(
            app.params().local_suppression.is_default(),
            ":{line} changed the settings"
        );
        assert!(text(&render(&app)).contains(says), ":{line}");
    }
    assert_eq!(shown(&app), before);

    command(&mut app, "importance zip,age,sex");
    command(&mut app, "combs 2");
    run_to_done(&mut app);
    let p = app.params().local_suppression.clone();
    assert_eq!(p.importance, ["zip", "age", "sex"]);
    assert_eq!(p.combs, [2]);
    let s = shown(&app);
    assert_eq!(s, library_suppression(app.session().session(), 5));
    let t = text(&render(&app));
    assert!(t.contains("importance zip>age>sex"), "{t}");
    assert!(t.contains("combs     2"), "{t}");

    command(&mut app, "missing own");
    run_to_done(&mut app);
    let s = shown(&app);
    assert_eq!(s.convention, Convention::OwnValue);
    assert_eq!(s.greedy_total, None);
    assert_eq!(s, library_suppression(app.session().session(), 5));
    let t = text(&render(&app));
    assert!(t.contains("(* own value)"), "{t}");
    assert!(t.contains("sdcMicro-greedy n/a"), "{t}");
    assert!(t.contains("* is its own value"), "{t}");

    // An edit like the others: undo takes the convention back and says
    // what it undid; redo replays it.
    app.step(&Action::Undo);
    assert_eq!(app.params().local_suppression.missing_matches, None);
    let notice = app.notice().unwrap_or_default().to_string();
    assert!(notice.contains("local suppression"), "{notice}");
    app.step(&Action::Redo);
    assert_eq!(
        app.params().local_suppression.missing_matches.as_deref(),
        Some("own")
    );

    // Back to the defaults.
    for line in [
        "importance default",
        "combs off",
        "missing any",
        "strata off",
    ] {
        command(&mut app, line);
    }
    assert!(app.params().local_suppression.is_default());
    run_to_done(&mut app);
    assert_eq!(shown(&app), before);
}

#[test]
fn a_stratum_too_small_for_k_is_said_where_the_figures_go() {
    let mut app = demo(200, 50);
    choose_algorithm(&mut app, LS);
    command(&mut app, "strata disease");
    assert_eq!(
        app.params().local_suppression.strata.as_deref(),
        Some("disease")
    );
    run_to_done(&mut app);
    let s = shown(&app);
    assert_eq!(s, library_suppression(app.session().session(), 5));
    // k above the smallest stratum: the library's refusal, no crash.
    command(&mut app, "k 1000");
    app.run_pending_jobs_blocking();
    let t = text(&render(&app));
    assert!(t.contains("Cannot anonymize with these parameters"), "{t}");
    let (_, error) = app.anonymize().error.clone().expect("a refusal");
    assert!(error.contains("stratum 'disease'"), "{error}");
}

#[test]
fn the_settings_are_saved_and_the_cli_publishes_the_same_cells() {
    let dir = tempfile::tempdir().unwrap();
    let path = with_missing_cells(dir.path());
    let project = dir.path().join("ls.json");
    let mut app = App::new(session_of(&path))
        .unwrap()
        .with_project_path(project.clone());
    app.step(&Action::Resize(140, 44));
    choose_algorithm(&mut app, LS);
    command(&mut app, "k 4");
    command(&mut app, "importance age,zip,sex");
    command(&mut app, "missing own");
    command(&mut app, "strata disease");
    run_to_done(&mut app);
    let s = shown(&app);
    app.step(&Action::SaveProject);
    // Restored: the same settings, the same release.
    let p = anonlab::data::Project::load(&project).unwrap();
    let ls = &p.params.local_suppression;
    assert_eq!(ls.importance, ["age", "zip", "sex"]);
    assert_eq!(ls.missing_matches.as_deref(), Some("own"));
    assert_eq!(ls.strata.as_deref(), Some("disease"));
    let mut back = App::new(Session::from_project(&p).unwrap()).unwrap();
    back.step(&Action::Resize(140, 44));
    back.step(&Action::ShowScreen(Screen::Anonymize));
    run_to_done(&mut back);
    assert_eq!(back.anonymize().choice().id, LS);
    assert_eq!(shown(&back), s);
    // The CLI's JSON for the saved project: the same object.
    let run = anonlab()
        .args(["anonymize", "--project"])
        .arg(&project)
        .args(["--json", "--queries", "0"])
        .output()
        .unwrap();
    let v = json_of(&run);
    assert_eq!(v["local_suppression"], serde_json::to_value(&s).unwrap());
    let fingerprint = &app.anonymize().view.as_ref().unwrap().fingerprint;
    assert_eq!(
        v["fingerprint"].as_str(),
        Some(fingerprint.as_str()),
        "{v:#}"
    );
}

/// Adult with its eight keys: every attribute's count on the screen is
/// the library's, and the marks over the whole table add up to them.
#[test]
fn adult_counts_per_attribute_are_the_librarys() {
    let Some(ds) = common::adult() else {
        return;
    };
    let path = Path::new(common::ADULT).to_path_buf();
    let mut s = Session::new(ds, Some(path), CsvOptions::default());
    let mut roles = std::collections::BTreeMap::new();
    for qi in common::ADULT_QI8 {
        roles.insert(qi.to_string(), Role::QuasiIdentifier);
    }
    s.roles = Roles::from_map(&s.dataset, &roles).unwrap();
    let mut app = App::new(s).unwrap();
    // Wide enough for the eight counts on one line.
    app.step(&Action::Resize(300, 50));
    choose_algorithm(&mut app, LS);
    command(&mut app, "k 5");
    run_to_done(&mut app);
    let s = shown(&app);
    assert_eq!(s, library_suppression(app.session().session(), 5));
    assert_eq!(s.suppressed_cells.len(), 8);
    assert!(s.total > 0 && s.total <= s.greedy_total.unwrap());
    let marked = marked_per_column(&app, CellMark::Suppressed);
    let per: Vec<u64> = s.suppressed_cells.iter().map(|a| a.cells).collect();
    assert_eq!(marked[..8], per[..]);
    let t = text(&render(&app));
    assert!(t.contains(&per_attribute_line(&s)), "{t}");
}
