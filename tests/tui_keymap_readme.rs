//! README's key map and the key table agree: every key the README's table
//! names for a screen is bound there (or everywhere), and every binding of
//! the table (`src/tui/keymap/table.rs`, which `?` help is generated from)
//! is named in the README's rows for its screen. A key added to one and not
//! the other fails here.
#![cfg(feature = "tui")]

use std::collections::BTreeSet;

use anonlab_tui::{Input, KeyMap, Scope, Screen};

/// The README's key map rows: (screen column, the backticked keys of the
/// keys column).
fn readme_rows() -> Vec<(String, Vec<String>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let text = std::fs::read_to_string(path).unwrap();
    let start = text.find("\n## Key map").expect("README has a key map");
    // The section's first table: its lines from the header to the first
    // line that is not a row.
    let table = text[start..]
        .lines()
        .skip_while(|l| !l.starts_with("| Screen"))
        .take_while(|l| l.starts_with('|'));
    let mut rows = Vec::new();
    for line in table {
        if line.starts_with("| Screen") {
            continue;
        }
        // Columns split on `|` not escaped as `\|`.
        let line = line.replace("\\|", "\u{1}");
        let cols: Vec<&str> = line.split('|').map(str::trim).collect();
        if cols.len() < 4 || cols[1].starts_with("---") {
            continue;
        }
        let keys: Vec<String> = cols[2]
            .split('`')
            .skip(1)
            .step_by(2)
            .map(|k| k.replace('\u{1}', "|"))
            .collect();
        rows.push((cols[1].to_string(), keys));
    }
    assert!(rows.len() > 40, "the key map was not found: {rows:?}");
    rows
}

/// The scope a README row's screen column names.
fn scope(screen: &str) -> Scope {
    match screen {
        "all" => Scope::Global,
        "dialog" => Scope::Dialog,
        "Data" => Scope::Screen(Screen::Data),
        "Risk" => Scope::Screen(Screen::Risk),
        // The sweep and the lattice are views of the Anonymize screen.
        "Anonymize" | "Sweep" | "Lattice" => Scope::Screen(Screen::Anonymize),
        "Hierarchies" => Scope::Screen(Screen::Hierarchies),
        "Compare" => Scope::Screen(Screen::Compare),
        other => panic!("README's key map names an unknown screen {other:?}"),
    }
}

#[test]
fn readme_key_map_and_the_key_table_agree() {
    let km = KeyMap::default();
    let bound = |s: Scope| -> BTreeSet<String> {
        km.bindings
            .iter()
            .filter(|b| b.scope == s)
            .flat_map(|b| b.inputs.iter())
            .filter(|i| !matches!(i, Input::WheelUp | Input::WheelDown))
            .map(Input::label)
            .collect()
    };
    let mut named: Vec<(Scope, String)> = Vec::new();
    let mut unbound = Vec::new();
    for (screen, keys) in readme_rows() {
        let s = scope(&screen);
        let own = bound(s);
        let global = bound(Scope::Global);
        for k in keys {
            // Screen rows may name a global key acting there (Esc); a
            // dialog's keys are its own.
            let anywhere = s != Scope::Dialog && global.contains(&k);
            if !(own.contains(&k) || anywhere) {
                unbound.push(format!("{screen}: `{k}`"));
            }
            named.push((s, k));
        }
    }
    assert!(
        unbound.is_empty(),
        "README names keys the key table does not bind: {unbound:?}"
    );
    let mut missing = Vec::new();
    for b in &km.bindings {
        for i in &b.inputs {
            if matches!(i, Input::WheelUp | Input::WheelDown) {
                continue;
            }
            let label = i.label();
            if !named.iter().any(|(s, k)| *s == b.scope && *k == label) {
                missing.push(format!("{:?} `{label}`: {}", b.scope, b.help));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "README's key map lacks bindings of the key table: {missing:#?}"
    );
}
