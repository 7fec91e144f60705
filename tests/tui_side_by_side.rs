//! Before and after side by side on the Anonymize screen (`b`), driven
//! through the app's actions on the embedded demo: each line is one record
//! of the data file, its original values on the left and its published row
//! on the right, checked here against the dataset and the release itself
//! (the record's group and its cells), the two halves scrolling together;
//! a record the release suppresses says so.
#![cfg(feature = "tui")]

use crate::common;

use anonlab::release::Cell;
use anonlab_tui::{Action, App};
use common::screen::{
    build_hierarchies, choose_algorithm, command, demo, masked_text, render, run_to_done, text,
};

fn opened(app: &mut App) {
    app.step(&Action::ToggleSideBySide);
    assert!(app.anonymize().side_by_side.open);
}

/// Where the release puts record `r`: the published row, counted group
/// by group as the published table lists them (read from the release's
/// groups, not from the screen's index), and the record's group.
fn place(app: &App, r: usize) -> Option<(usize, usize)> {
    let release = &app.anonymize().view.as_ref().unwrap().release;
    let mut at = 0;
    for (g, group) in release.groups.iter().enumerate() {
        if let Some(m) = group.rows.iter().position(|&x| x as usize == r) {
            return Some((at + m, g));
        }
        at += group.rows.len();
    }
    None
}

#[test]
fn each_line_is_one_record_before_and_after() {
    let mut app = demo(200, 50);
    choose_algorithm(&mut app, "mondrian");
    run_to_done(&mut app);
    opened(&mut app);
    let s = app.anonymize().side_by_side.clone();
    assert_eq!(s.top, 0);
    assert!(s.rows.len() > 10, "{}", s.rows.len());
    let ds = app.dataset();
    let view = app.anonymize().view.as_ref().unwrap();
    let qi = view.release.quasi_identifiers.clone();
    for (i, row) in s.rows.iter().enumerate() {
        assert_eq!(row.record, i, "file order");
        for (v, &c) in row.original.iter().zip(&s.columns) {
            assert_eq!(v, ds.col(c).display(ds.col(c).code(i)), "record {i}");
        }
        let published = row.published.as_ref().expect("Mondrian publishes everyone");
        let (at, g) = place(&app, i).expect("every record is in a group");
        assert_eq!(view.published_index(i), Some(at), "record {i}");
        assert_eq!(Some(published), view.row(ds, at).as_ref(), "record {i}");
        // An exact QI cell of the record's group reads as its value.
        for (a, &c) in qi.iter().enumerate() {
            let name = ds.col(c).name();
            let right = s.right_headers.iter().position(|h| h == name).unwrap();
            let left = s.left_headers.iter().position(|h| h == name).unwrap();
            if let Cell::Value { code } = view.release.groups[g].cells[a] {
                assert_eq!(published[right], ds.col(c).display(code), "record {i}");
            }
            assert_eq!(
                row.changed[right],
                published[right] != row.original[left],
                "record {i}, {name}"
            );
        }
    }
    let t = text(&render(&app));
    assert!(t.contains("records 1–"), "{t}");
    assert!(t.contains("of 1,500, file order"), "{t}");
    insta::assert_snapshot!("side_by_side_200x50", masked_text(&app));

    // The halves scroll together: the last record, then a page back.
    app.step(&Action::Last);
    let s = &app.anonymize().side_by_side;
    assert_eq!(s.cursor, 1499);
    assert_eq!(s.rows.last().unwrap().record, 1499);
    app.step(&Action::PageUp);
    let s = &app.anonymize().side_by_side;
    assert!(s.cursor < 1499 && s.rows.iter().any(|r| r.record == s.cursor));
    // k and the table's cursor did not move.
    assert_eq!(app.params().k, 5);
    assert_eq!(app.anonymize().table.cursor, 0);
    // Enter goes to the record's row of the published table.
    let record = app.anonymize().side_by_side.cursor;
    app.step(&Action::Confirm);
    assert!(!app.anonymize().side_by_side.open);
    let view = app.anonymize().view.as_ref().unwrap();
    assert_eq!(
        view.published_index(record),
        Some(app.anonymize().table.cursor)
    );
}

#[test]
fn suppressed_records_say_so_and_the_view_fits_80x24() {
    let mut app = demo(80, 24);
    build_hierarchies(&mut app);
    choose_algorithm(&mut app, "full-domain");
    // The bottom node: every class smaller than k is suppressed.
    command(&mut app, "node 0,0,0");
    run_to_done(&mut app);
    opened(&mut app);
    let view = app.anonymize().view.as_ref().unwrap();
    let suppressed = view.release.suppressed_rows.clone();
    assert!(!suppressed.is_empty());
    let s = &app.anonymize().side_by_side;
    for row in &s.rows {
        assert_eq!(
            row.published.is_none(),
            suppressed.contains(&(row.record as u32)),
            "record {}",
            row.record
        );
    }
    let t = text(&render(&app));
    assert!(t.contains("suppressed"), "{t}");
    insta::assert_snapshot!("side_by_side_80x24", masked_text(&app));
    // The sweep, the lattice and this view share the room: one at a time.
    app.step(&Action::ToggleLattice);
    assert!(!app.anonymize().side_by_side.open);
    app.step(&Action::ToggleSideBySide);
    assert!(!app.anonymize().lattice.open);
    app.step(&Action::Cancel);
    assert!(!app.anonymize().side_by_side.open);
}
