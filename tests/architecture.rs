//! The shape of the program (../shared/DESIGN.md, "Shape of the program";
//! README, "Architecture"): layers in one direction.
//!
//! Between crates, the crate graph enforces it: `anonlab-core` (the
//! library `anonlab`) depends on no other crate of the workspace,
//! `anonlab-scale` on the core, `anonlab-tui` on the core (and the scale
//! crate with its `engine` feature), and the `anonlab` binary on all of
//! them (`the_crate_graph_goes_one_way`); and the core's own dependency tree
//! holds no Arrow, DataFusion, Ballista or terminal crate
//! (`the_core_alone_compiles_no_engine_and_no_terminal`).
//!
//! Inside the core, a module of `crates/core/src/` uses only modules of
//! its own layer or below, and the top-level modules use one another
//! without a cycle. Highest first, as README draws it:
//!
//! ```text
//! 10  report, charts                reports (HTML, Markdown, JSON), plots
//!  9  session, anonymize, assess    session state; run + verify + measure; one assessment
//!  8  algorithms                    every algorithm (Construction(D, G) included), one trait, one registry
//!  7  metrics                       utility metrics, query workloads
//!  6  privacy                       privacy models, the independent verifier
//!  5  risk                          attack simulator, linkage, breach probability
//!  4  release                       the Release model and its published files
//!  3  hierarchy                     hierarchy model, ARX format, builders
//!  2  partition, stats              equivalence classes, value counts; correlations
//!  1  data, synth                   dataset, CSV, roles, rules, conditions, project file; synthetic data
//!  0  error, progress, format       errors, progress/cancellation, number formatting
//! ```
//!
//! The test reads every `crate::…` path in the core's code (comments left
//! out), including grouped ones (`use crate::{data, risk}`), as an edge
//! from the file's top-level module to the one named, and fails on an
//! edge that goes up a layer or a cycle between top-level modules.
//!
//! `KNOWN` would list edges the code still has against the layering, each
//! with what removes it; it is empty, and may only stay so or shrink: an
//! upward edge not in it fails, and so does a listed edge the code no
//! longer has. README's diagram is read too (`readme_draws_the_layers`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const LAYERS: &[&[&str]] = &[
    &["error", "progress", "format"],
    &["data", "synth"],
    &["partition", "stats"],
    &["hierarchy"],
    &["release"],
    &["risk"],
    &["privacy"],
    &["metrics"],
    &["algorithms"],
    &["session", "anonymize", "assess"],
    &["report", "charts"],
];

/// The core crate's sources, whose modules the layers are.
fn core_src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/core/src")
}

/// Edges that break the layering today, and what removes them: none.
const KNOWN: &[(&str, &str, &str)] = &[];

fn layer_of() -> BTreeMap<&'static str, usize> {
    LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, ms)| ms.iter().map(move |&m| (m, i)))
        .collect()
}

/// `text` without `//` comments (doc comments included) and string
/// literals' contents, so that prose naming `crate::x` is not an edge.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => {
                    in_string = false;
                    out.push('"');
                }
                '\n' => out.push('\n'),
                _ => {}
            }
            continue;
        }
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                in_string = true;
                out.push('"');
            }
            // A char literal '"' would open a string: skip it whole.
            '\'' if chars.peek() == Some(&'"') => {
                chars.next();
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// The top-level modules a piece of code names by `crate::` paths.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in code.match_indices("crate::") {
        // `anonlab::crate` cannot occur; `$crate::` is a macro's own crate.
        if code[..at].ends_with('$') || code[..at].ends_with(|c: char| c.is_alphanumeric()) {
            continue;
        }
        let rest = code[at + "crate::".len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            // The names at depth 1 of the group: `{a::X, b::{Y, Z}, c}`.
            let mut depth = 1;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => start = true,
                    c if c.is_whitespace() => {}
                    _ if start && depth == 1 => {
                        found.insert(ident(&group[i..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident(rest));
        }
    }
    found
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// (from, to) → the files making the edge, between top-level modules.
fn edges() -> BTreeMap<(String, String), Vec<String>> {
    let src = core_src();
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for path in all {
        let rel = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let top = rel
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        let code = code_only(&std::fs::read_to_string(&path).unwrap());
        // Capitalized names (`crate::Error`) are the root's re-exports of
        // layer-0 items, not modules.
        for to in named_modules(&code) {
            if to != top && to.starts_with(|c: char| c.is_ascii_lowercase()) {
                edges
                    .entry((top.clone(), to))
                    .or_default()
                    .push(rel.clone());
            }
        }
    }
    edges
}

#[test]
fn every_module_is_in_a_layer() {
    let layer = layer_of();
    let mut tops = BTreeSet::new();
    for ((from, to), _) in edges() {
        tops.insert(from);
        tops.insert(to);
    }
    let missing: Vec<&String> = tops
        .iter()
        .filter(|m| !layer.contains_key(m.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "modules in no layer (add them to LAYERS and README's diagram): {missing:?}"
    );
    // And the list names nothing that does not exist.
    let src = core_src();
    for m in layer.keys() {
        assert!(
            src.join(m).is_dir() || src.join(format!("{m}.rs")).is_file(),
            "LAYERS names '{m}', which is not a module of crates/core/src/"
        );
    }
}

#[test]
fn no_edge_goes_up_a_layer() {
    let layer = layer_of();
    let known: BTreeSet<(&str, &str)> = KNOWN.iter().map(|&(a, b, _)| (a, b)).collect();
    let mut up = Vec::new();
    let mut seen = BTreeSet::new();
    for ((from, to), files) in edges() {
        let (Some(&lf), Some(&lt)) = (layer.get(from.as_str()), layer.get(to.as_str())) else {
            continue;
        };
        let key = (from.as_str(), to.as_str());
        if known.contains(&key) {
            seen.insert((from.clone(), to.clone()));
        } else if lt > lf {
            up.push(format!(
                "{from} (layer {lf}) -> {to} (layer {lt}) in {files:?}"
            ));
        }
    }
    assert!(up.is_empty(), "edges going up a layer:\n{}", up.join("\n"));
    let gone: Vec<String> = KNOWN
        .iter()
        .filter(|(a, b, _)| !seen.contains(&(a.to_string(), b.to_string())))
        .map(|(a, b, _)| format!("{a} -> {b}"))
        .collect();
    assert!(
        gone.is_empty(),
        "KNOWN lists edges the code no longer has; remove them from the list: {gone:?}"
    );
}

#[test]
fn no_cycle_between_top_level_modules() {
    let known: BTreeSet<(&str, &str)> = KNOWN.iter().map(|&(a, b, _)| (a, b)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for ((from, to), _) in edges() {
        if !known.contains(&(from.as_str(), to.as_str())) {
            graph.entry(from).or_default().insert(to);
        }
    }
    // Depth-first search with colours: grey on the stack, black done.
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        colour: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        colour.insert(m.to_string(), 1);
        path.push(m.to_string());
        for next in graph.get(m).into_iter().flatten() {
            match colour.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = path.iter().position(|p| p == next).unwrap();
                    let mut cycle = path[at..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(next, graph, colour, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        colour.insert(m.to_string(), 2);
        None
    }
    let mut colour = BTreeMap::new();
    for m in graph.keys() {
        if colour.get(m.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(cycle) = visit(m, &graph, &mut colour, &mut Vec::new()) {
                panic!("a cycle between top-level modules: {}", cycle.join(" -> "));
            }
        }
    }
}

/// The reader itself: grouped paths, comments and strings.
#[test]
fn the_reader_finds_grouped_paths_and_skips_prose() {
    let code = code_only(
        "use crate::{data::{A, B}, risk, stats::x};\n\
         // crate::tui in a comment\n\
         let s = \"crate::cli in a string\";\n\
         let c = '\"'; crate::release::Release::new();\n\
         $crate::format::x();",
    );
    let found = named_modules(&code);
    let want: BTreeSet<String> = ["data", "risk", "stats", "release"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(found, want);
}

/// No mutable process-wide state in the libraries: no `static` holding a
/// lock or cell, no `thread_local!`, in the core or the scale crate (the
/// front ends, the TUI and the binary, may keep their own).
#[test]
fn no_hidden_global_state_in_the_core() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for krate in ["crates/core/src", "crates/scale/src"] {
        let src = root.join(krate);
        let mut all = Vec::new();
        files(&src, &mut all);
        assert!(!all.is_empty(), "{krate} holds no source");
        for path in all {
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let code = code_only(&std::fs::read_to_string(&path).unwrap());
            for (i, line) in code.lines().enumerate() {
                let t = line.trim_start();
                let global = t.starts_with("static ") || t.starts_with("pub static ");
                let mutable = [
                    "Mutex", "RwLock", "Cell", "Atomic", "OnceLock", "LazyLock", "mut ",
                ]
                .iter()
                .any(|w| t.contains(w));
                if (global && mutable) || t.contains("thread_local!") {
                    found.push(format!("{rel}:{}: {t}", i + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "hidden global state:\n{}",
        found.join("\n")
    );
}

/// The workspace's crates and which of them each may depend on: the
/// layers between crates, highest last.
const CRATES: &[(&str, &str, &[&str])] = &[
    ("anonlab-core", "crates/core/Cargo.toml", &[]),
    (
        "anonlab-scale",
        "crates/scale/Cargo.toml",
        &["anonlab-core"],
    ),
    (
        "anonlab-tui",
        "crates/tui/Cargo.toml",
        &["anonlab-core", "anonlab-scale"],
    ),
    (
        "anonlab",
        "Cargo.toml",
        &["anonlab-core", "anonlab-scale", "anonlab-tui"],
    ),
];

/// The workspace crates a manifest depends on (any section: normal,
/// build, dev, target-specific).
fn workspace_deps(manifest: &str) -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    let mut in_deps = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line.ends_with("dependencies]") && !line.starts_with("[workspace");
            continue;
        }
        if !in_deps {
            continue;
        }
        let name = line
            .split(['=', '.', ' '])
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        if name.starts_with("anonlab") {
            deps.insert(name);
        }
    }
    deps
}

#[test]
fn the_crate_graph_goes_one_way() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    for (name, _, _) in CRATES.iter().filter(|(n, _, _)| *n != "anonlab") {
        let dir = name.trim_start_matches("anonlab-");
        assert!(
            workspace.contains(&format!("\"crates/{dir}\"")),
            "the workspace's members name crates/{dir}"
        );
    }
    for (name, manifest, allowed) in CRATES {
        let text = std::fs::read_to_string(root.join(manifest)).unwrap();
        let deps = workspace_deps(&text);
        let extra: Vec<&String> = deps
            .iter()
            .filter(|d| !allowed.contains(&d.as_str()))
            .collect();
        assert!(
            extra.is_empty(),
            "{name} depends on {extra:?}, above it in the layers (it may use {allowed:?})"
        );
    }
    // The reader itself.
    let probe = "[dependencies]\nanonlab-core.workspace = true\nanonlab-tui = { workspace = true }\n[workspace.dependencies]\nanonlab-scale = 1\n";
    let found: Vec<String> = workspace_deps(probe).into_iter().collect();
    assert_eq!(found, ["anonlab-core", "anonlab-tui"]);
}

/// `cargo test -p anonlab-core` compiles no Arrow, DataFusion, Ballista or
/// terminal crate: the core's tree, dev-dependencies included, as Cargo
/// resolves it for the core alone (its `formats` feature off).
#[test]
fn the_core_alone_compiles_no_engine_and_no_terminal() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "--locked",
            "-p",
            "anonlab-core",
            "-e",
            "normal,build,dev",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    let crates: BTreeSet<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(crates.contains("csv"), "the tree was read: {tree}");
    let banned = [
        "arrow",
        "parquet",
        "datafusion",
        "ballista",
        "ratatui",
        "crossterm",
        "tonic",
        "tokio",
    ];
    let found: Vec<&&str> = crates
        .iter()
        .filter(|c| banned.iter().any(|b| c.starts_with(b)))
        .collect();
    assert!(found.is_empty(), "the core alone compiles {found:?}");
}

/// README's "Architecture" diagram names the same modules in the same
/// layers as `LAYERS`, so the picture a reader trusts is the one tested.
#[test]
fn readme_draws_the_layers() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let section = readme
        .split("### Architecture")
        .nth(1)
        .expect("README has an Architecture section");
    // The code blocks are every other piece; the layers' block is the one
    // naming layer 0 (the crate graph is drawn before it).
    let diagram = section
        .split("```")
        .skip(1)
        .step_by(2)
        .find(|b| b.contains("error, progress, format"))
        .expect("the Architecture section draws the layers in a ``` block");
    let mut drawn: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for line in diagram.lines().filter(|l| !l.trim().is_empty()) {
        let line = line.trim_start();
        let (n, rest) = line
            .split_once(' ')
            .expect("a layer number, then its modules");
        let layer: usize = n
            .parse()
            .unwrap_or_else(|_| panic!("not a layer line: {line}"));
        // Modules, up to the two spaces before the description.
        let names = rest.trim_start().split("  ").next().unwrap();
        drawn.insert(
            layer,
            names.split(',').map(|m| m.trim().to_string()).collect(),
        );
    }
    let want: BTreeMap<usize, Vec<String>> = LAYERS
        .iter()
        .enumerate()
        .map(|(i, ms)| (i, ms.iter().map(|m| m.to_string()).collect()))
        .collect();
    assert_eq!(
        drawn, want,
        "README's Architecture diagram differs from LAYERS"
    );
}

/// Every file of `tests/` runs: with `autotests = false` (Cargo.toml), a
/// file that is neither a `[[test]]` binary's root nor a `mod` of one would
/// compile into nothing and its tests would silently never run.
#[test]
fn every_test_file_is_in_a_test_binary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    // The `path = "tests/…"` lines of the [[test]] sections.
    let mut roots = BTreeSet::new();
    let mut in_test = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_test = line == "[[test]]";
        } else if let Some(path) = line.strip_prefix("path = \"tests/") {
            if in_test {
                roots.insert(path.trim_end_matches('"').to_string());
            }
        }
    }
    assert!(
        roots.contains("suite.rs"),
        "Cargo.toml names the test binaries"
    );
    let mut covered = roots.clone();
    for r in &roots {
        let text = std::fs::read_to_string(root.join("tests").join(r)).unwrap();
        for line in text.lines() {
            if let Some(m) = line.trim().strip_prefix("mod ") {
                covered.insert(format!("{}.rs", m.trim_end_matches(';')));
            }
        }
    }
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".rs") && !covered.contains(&name) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "tests/ files in no test binary (add `mod NAME;` to tests/suite.rs or tests/screens.rs): {missing:?}"
    );
}

/// One module style (issue 31): a module with submodules is `x/mod.rs`,
/// never `x.rs` beside an `x/` directory, in every crate of the workspace.
#[test]
fn one_module_style_x_mod_rs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("src")];
    for c in ["core", "scale", "tui"] {
        dirs.push(root.join("crates").join(c).join("src"));
    }
    let mut mixed = Vec::new();
    let mut sources = Vec::new();
    for d in &dirs {
        files(d, &mut sources);
    }
    for f in &sources {
        let stem = f.with_extension("");
        if f.extension().is_some_and(|e| e == "rs") && stem.is_dir() {
            mixed.push(f.strip_prefix(root).unwrap_or(f).display().to_string());
        }
    }
    assert!(
        mixed.is_empty(),
        "modules written as x.rs beside an x/ directory (move x.rs to x/mod.rs): {mixed:?}"
    );
}
