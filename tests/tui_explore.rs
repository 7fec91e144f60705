//! Exploring the data on the Data screen, against counts made here from
//! the raw lines of Adult's file (split on ';', not through the
//! library's reader, rule engine or dictionary): sort (`[` `]`), filter by
//! a rule (`:filter`, `|`), the frequency table (`F`) with its records in
//! small classes, the mark dialog's count before Enter, search across all
//! columns, the row detail (Enter) and widening a column (`>`).
#![cfg(feature = "tui")]

use crate::common;

use std::collections::HashMap;

use anonlab::data::{CsvOptions, Role};
use anonlab::session::Session;
use anonlab_tui::{Action, App, Screen};
use common::screen::{command, render, text};

/// Adult's header and rows as the file has them.
fn raw() -> (Vec<String>, Vec<Vec<String>>) {
    let body = std::fs::read_to_string(common::adult_path()).unwrap();
    let mut lines = body.lines().filter(|l| !l.trim().is_empty());
    let header = lines
        .next()
        .unwrap()
        .split(';')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| l.split(';').map(|v| v.trim().to_string()).collect())
        .collect();
    (header, rows)
}

fn adult_app() -> Option<App> {
    if !common::require(common::have_adult(), "Adult (../shared/data/adult)") {
        return None;
    }
    let s = Session::open(&common::adult_path(), CsvOptions::default()).unwrap();
    let mut app = App::new(s).unwrap();
    app.step(&Action::Resize(160, 40));
    Some(app)
}

fn focus(app: &mut App, name: &str) {
    app.step(&Action::ShowScreen(Screen::Data));
    app.step(&Action::RowStart);
    let c = app.dataset().column_index(name).unwrap();
    for _ in 0..c {
        app.step(&Action::Right);
    }
}

/// The records the view shows, in its order.
fn view_records(app: &App) -> Vec<usize> {
    let v = app.data_view();
    (0..v.order.len(app.dataset().n_rows()))
        .map(|p| v.order.record(p))
        .collect()
}

#[test]
fn sort_and_filter_give_the_rows_an_independent_count_gives() {
    let Some(mut app) = adult_app() else { return };
    let (header, rows) = raw();
    let age = header.iter().position(|h| h == "age").unwrap();
    assert_eq!(rows.len(), app.dataset().n_rows());

    // Sorted by age, ascending then descending; equal ages keep file order.
    focus(&mut app, "age");
    app.step(&Action::Sort { descending: false });
    let mut expected: Vec<usize> = (0..rows.len()).collect();
    expected.sort_by_key(|&r| rows[r][age].parse::<u32>().unwrap());
    assert_eq!(view_records(&app), expected);
    assert!(text(&render(&app)).contains("sorted by age ↑"));
    app.step(&Action::Sort { descending: true });
    let mut down: Vec<usize> = (0..rows.len()).collect();
    down.sort_by_key(|&r| std::cmp::Reverse(rows[r][age].parse::<u32>().unwrap()));
    assert_eq!(view_records(&app), down);
    // The same key again: file order.
    app.step(&Action::Sort { descending: true });
    assert_eq!(app.data_view().order.records(), None);

    // Filtered by a rule, then sorted within the filter.
    command(&mut app, "filter age>=60 and sex=Female");
    assert!(
        app.popup().is_none(),
        "{:?} {:?}",
        app.popup(),
        app.notice()
    );
    let sex = header.iter().position(|h| h == "sex").unwrap();
    let kept: Vec<usize> = (0..rows.len())
        .filter(|&r| rows[r][age].parse::<u32>().unwrap() >= 60 && rows[r][sex] == "Female")
        .collect();
    assert!(!kept.is_empty());
    assert_eq!(view_records(&app), kept);
    let t = text(&render(&app));
    let n = common::screen::thousands(kept.len());
    assert!(
        t.contains(&format!("of {n} (of 30,162, where age>=60 and sex=Female)")),
        "{t}"
    );
    assert!(app
        .notice()
        .unwrap_or_default()
        .starts_with(&format!("{n} of ")));
    app.step(&Action::Sort { descending: false });
    let mut sorted = kept.clone();
    sorted.sort_by_key(|&r| rows[r][age].parse::<u32>().unwrap());
    assert_eq!(view_records(&app), sorted);
    // The cursor's record is the one a toggle or the detail reads.
    app.step(&Action::First);
    app.step(&Action::Down);
    assert_eq!(app.data_view().record(), sorted[1]);
    app.step(&Action::Confirm);
    let popup = app.popup().expect("the record's values").clone();
    assert_eq!(popup.title, format!("Record {}", sorted[1] + 1));
    for (h, v) in header.iter().zip(&rows[sorted[1]]) {
        assert!(
            popup
                .message
                .lines()
                .any(|l| l.starts_with(h.as_str()) && l.ends_with(v.as_str())),
            "{h}={v}: {}",
            popup.message
        );
    }
    app.step(&Action::Cancel);

    // `|` opens the command line with the filter to edit; an empty rule
    // shows every row; a bad rule is refused naming it.
    app.step(&Action::OpenFilter);
    assert_eq!(
        app.editing_line().map(|(_, t, _)| t.to_string()),
        Some("filter age>=60 and sex=Female".into())
    );
    app.step(&Action::Cancel);
    command(&mut app, "filter agee>3");
    assert!(
        app.popup().unwrap().message.contains("agee"),
        "{:?}",
        app.popup()
    );
    app.step(&Action::Cancel);
    assert_eq!(view_records(&app), sorted, "the view stays");
    command(&mut app, "filter");
    assert_eq!(view_records(&app).len(), rows.len());
}

#[test]
fn frequencies_and_small_classes_match_an_independent_count() {
    let Some(mut app) = adult_app() else { return };
    let (header, rows) = raw();
    // The attacker knows sex, age and race.
    for q in ["sex", "age", "race"] {
        focus(&mut app, q);
        app.step(&Action::SetRole(Role::QuasiIdentifier));
    }
    focus(&mut app, "occupation");
    app.step(&Action::ShowFrequencies);
    let f = app.data_screen_freq().expect("the frequency table").clone();
    let occ = header.iter().position(|h| h == "occupation").unwrap();
    let mut counts: HashMap<&str, u64> = HashMap::new();
    for r in &rows {
        *counts.entry(r[occ].as_str()).or_default() += 1;
    }
    let qi: Vec<usize> = ["sex", "age", "race"]
        .iter()
        .map(|q| header.iter().position(|h| h == q).unwrap())
        .collect();
    let key = |r: &Vec<String>| qi.iter().map(|&q| r[q].clone()).collect::<Vec<_>>();
    let mut size: HashMap<Vec<String>, u32> = HashMap::new();
    for r in &rows {
        *size.entry(key(r)).or_default() += 1;
    }
    let k = app.params().k;
    let mut small: HashMap<&str, u64> = HashMap::new();
    for r in &rows {
        if size[&key(r)] < k {
            *small.entry(r[occ].as_str()).or_default() += 1;
        }
    }
    assert_eq!(f.values.len(), counts.len());
    for v in &f.values {
        assert_eq!(Some(&v.count), counts.get(v.value.as_str()), "{}", v.value);
        assert_eq!(
            v.in_small_classes,
            Some(small.get(v.value.as_str()).copied().unwrap_or(0)),
            "{}",
            v.value
        );
    }
    assert!(f.values.windows(2).all(|w| w[0].count >= w[1].count));
    assert!(
        small.values().sum::<u64>() > 0,
        "the test must see small classes"
    );
    let t = text(&render(&app));
    assert!(
        t.contains("in classes < 5") && t.contains("classes on sex, age, race"),
        "{t}"
    );
    let top = &f.values[0];
    assert!(
        t.contains(&common::screen::thousands(top.count as usize)),
        "{t}"
    );
    // Modal: ↓ scrolls, Esc closes.
    app.step(&Action::Down);
    assert_eq!(app.data_screen_freq().unwrap().scroll, 1);
    app.step(&Action::Cancel);
    assert!(app.data_screen_freq().is_none());
}

#[test]
fn the_mark_dialog_counts_before_enter_and_search_spans_every_column() {
    let Some(mut app) = adult_app() else { return };
    let (header, rows) = raw();
    focus(&mut app, "occupation");
    app.step(&Action::SetRole(Role::SemiSensitive));
    app.step(&Action::MarkCells);
    while app.mark_dialog().unwrap().mode != anonlab_tui::MarkMode::Rule {
        app.step(&Action::Left);
    }
    for c in "age>=60".chars() {
        app.step(&Action::TypeChar(c));
    }
    let age = header.iter().position(|h| h == "age").unwrap();
    let expected = rows
        .iter()
        .filter(|r| r[age].parse::<u32>().unwrap() >= 60)
        .count();
    assert_eq!(app.mark_dialog().unwrap().preview, Ok(expected));
    let t = text(&render(&app));
    assert!(
        t.contains(&format!(
            "Enter marks {} of 30,162 cells",
            common::screen::thousands(expected)
        )),
        "{t}"
    );
    // A rule still being typed says so instead of counting.
    app.step(&Action::TypeChar('>'));
    assert!(app.mark_dialog().unwrap().preview.is_err());
    app.step(&Action::Cancel);

    // `/` finds a value in any column, from the cursor's row on.
    app.step(&Action::ShowScreen(Screen::Data));
    app.step(&Action::First);
    app.step(&Action::OpenSearch);
    for c in "holand".chars() {
        app.step(&Action::TypeChar(c));
    }
    app.step(&Action::Confirm);
    let first = rows
        .iter()
        .position(|r| r.iter().any(|v| v.to_lowercase().contains("holand")))
        .unwrap();
    assert_eq!(app.data_view().record(), first);
    let nc = app.dataset().column_index("native-country").unwrap();
    assert_eq!(app.data_view().col, nc, "the cursor on the matching column");

    // `>` widens the focused column.
    let w = |app: &App| {
        app.data_view()
            .columns
            .iter()
            .find(|c| c.0 == nc)
            .map(|c| c.1)
    };
    let before = w(&app).unwrap();
    app.step(&Action::WidenColumn(4));
    assert_eq!(w(&app), Some(before + 4));
}
