//! The TUI's modules form layers that only use those below them (STYLE.md,
//! "Shape of the program"; the order is crates/tui/src/lib.rs's doc): no
//! import cycle between the TUI crate's modules, nor between the screens.
//! Read from the sources: a `use` of `super::X`, `crate::X` or
//! `super::super::X` is an edge to module X.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every .rs file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(sources(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

/// The identifiers after each occurrence of `prefix` in `text`.
fn after(text: &str, prefix: &str) -> BTreeSet<String> {
    text.match_indices(prefix)
        .map(|(i, _)| {
            text[i + prefix.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// Code only: `//` comments (docs included) name modules without using them.
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A cycle in `graph`, if any (depth-first search).
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            let mut c = path[i..].to_vec();
            c.push(n.to_string());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_tui_modules_have_no_import_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/tui/src");
    let top: BTreeSet<String> = sources(&root)
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap();
            let first = rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy();
            first.trim_end_matches(".rs").to_string()
        })
        .filter(|m| m != "lib")
        .collect();
    let screens_dir = root.join("screens");
    // A screen is a file (screens/risk.rs) or a directory module
    // (screens/anonymize/mod.rs with its tests.rs).
    let screens: BTreeSet<String> = sources(&screens_dir)
        .iter()
        .map(|p| {
            let first = p.strip_prefix(&screens_dir).unwrap().components().next();
            let name = first.unwrap().as_os_str().to_string_lossy();
            name.trim_end_matches(".rs").to_string()
        })
        .filter(|m| m != "mod")
        .collect();
    assert!(top.contains("app") && top.contains("session") && top.contains("shared"));
    assert!(screens.contains("risk") && screens.contains("anonymize"));

    let mut modules: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut between_screens: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in sources(&root) {
        let rel = p.strip_prefix(&root).unwrap();
        let parts: Vec<String> = rel
            .components()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .collect();
        let module = parts[0].clone();
        if module == "lib" {
            continue;
        }
        let text = code(&std::fs::read_to_string(&p).unwrap());
        // The module's path below the crate's src (a directory module's mod.rs is
        // the directory): `super::` repeated once per level names a sibling
        // of the crate root; in a screen, once less names another screen.
        let depth = parts.len() - usize::from(parts[parts.len() - 1] == "mod");
        let mut used = after(&text, "crate::");
        used.extend(after(&text, &"super::".repeat(depth)));
        if module == "screens" && depth > 1 {
            let inner: BTreeSet<String> = after(&text, &"super::".repeat(depth - 1))
                .into_iter()
                .filter(|m| screens.contains(m))
                .collect();
            between_screens
                .entry(parts[1].clone())
                .or_default()
                .extend(inner);
        }
        let entry = modules.entry(module.clone()).or_default();
        entry.extend(used.into_iter().filter(|m| top.contains(m) && *m != module));
    }
    assert!(
        modules["session"]
            .iter()
            .all(|m| m != "screens" && m != "app" && m != "ui"),
        "the session reads no screen: {:?}",
        modules["session"]
    );
    assert!(
        !modules["screens"].contains("app") && !modules["screens"].contains("ui"),
        "screens read neither the app nor the drawing: {:?}",
        modules["screens"]
    );
    if let Some(c) = cycle(&modules) {
        panic!("import cycle in the TUI crate: {}", c.join(" → "));
    }
    if let Some(c) = cycle(&between_screens) {
        panic!("import cycle between screens: {}", c.join(" → "));
    }
}
