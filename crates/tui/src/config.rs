//! The TUI's config file: theme, mouse, and key remapping.
//!
//! The file is `<config dir>/anonlab/config.toml` (`~/.config` on Linux,
//! `~/Library/Application Support` on macOS, `%APPDATA%` on Windows), or the
//! file named by `ANONLAB_CONFIG`. A missing file means the defaults.
//!
//! ```toml
//! theme = "light"          # dark | light | mono
//! mouse = false            # clicks and wheel
//!
//! [keys.global]
//! quit = ["q", "ctrl-q"]
//!
//! [keys.anonymize]
//! k_up = ["right", "]", "K"]
//! ```
//!
//! A `[keys.SCOPE]` table (`global`, `dialog`, or a screen: `data`, `risk`,
//! `anonymize`, `hierarchies`, `compare`) maps binding ids ([`binding_id`]:
//! the action in snake_case, listed in the README) to the inputs that
//! replace the binding's. A bad entry — unknown scope, id or key name, or a
//! key that would then be bound twice in one scope — is reported with the
//! file and line and left out (for a double binding, the whole scope keeps
//! its defaults); a TOML syntax error leaves the whole file out. The TUI
//! opens either way and shows the problems in a popup.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyModifiers};
use serde::Deserialize;
use toml::Spanned;

use super::keymap::{Action, Input, KeyMap, Scope};
use super::shared::Screen;
use super::theme::Theme;

/// The variable naming a config file to use instead of the default one.
pub const CONFIG_ENV: &str = "ANONLAB_CONFIG";

/// What the config file asks, with the problems found in it.
#[derive(Debug, Clone)]
pub struct Config {
    pub theme: Theme,
    pub mouse: bool,
    pub keymap: KeyMap,
    /// One message per problem, naming the file, the line and the entry.
    pub problems: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            theme: Theme::Dark,
            mouse: true,
            keymap: KeyMap::default(),
            problems: Vec::new(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    theme: Option<Spanned<String>>,
    mouse: Option<bool>,
    #[serde(default)]
    keys: BTreeMap<String, BTreeMap<String, Spanned<Vec<String>>>>,
}

/// Where the config file is: `ANONLAB_CONFIG`, else the platform's config
/// directory; `None` when neither is known.
pub fn config_path() -> Option<PathBuf> {
    match std::env::var_os(CONFIG_ENV) {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => dirs::config_dir().map(|d| d.join("anonlab").join("config.toml")),
    }
}

impl Config {
    /// The user's config (see [`config_path`]), with `NO_COLOR` applied.
    pub fn load() -> Config {
        let mut config = match config_path() {
            Some(path) => Config::from_file(&path),
            None => Config::default(),
        };
        config.theme = config
            .theme
            .with_no_color(std::env::var_os("NO_COLOR").as_deref());
        config
    }

    /// Read a config file; a missing file is the defaults.
    pub fn from_file(path: &Path) -> Config {
        match std::fs::read_to_string(path) {
            Ok(text) => Config::parse(&text, &path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Config::default(),
            Err(e) => Config {
                problems: vec![format!("{}: cannot read: {e}", path.display())],
                ..Config::default()
            },
        }
    }

    /// Parse a config's text; `file` names it in messages.
    pub fn parse(text: &str, file: &str) -> Config {
        let mut config = Config::default();
        let at = |span: std::ops::Range<usize>| format!("{file}:{}", line_of(text, span.start));
        let raw: RawConfig = match toml::from_str(text) {
            Ok(r) => r,
            Err(e) => {
                let place = e.span().map_or_else(|| file.to_string(), at);
                config.problems.push(format!(
                    "{place}: {}; the defaults are used",
                    e.message().trim_end()
                ));
                return config;
            }
        };
        if let Some(t) = raw.theme {
            match Theme::parse(t.get_ref()) {
                Some(theme) => config.theme = theme,
                None => config.problems.push(format!(
                    "{}: unknown theme '{}' (dark, light or mono)",
                    at(t.span()),
                    t.get_ref()
                )),
            }
        }
        if let Some(m) = raw.mouse {
            config.mouse = m;
        }
        for (scope_name, entries) in &raw.keys {
            let Some(scope) = scope_by_name(scope_name) else {
                let line = text
                    .find(&format!("keys.{scope_name}"))
                    .map_or_else(|| file.to_string(), |i| at(i..i));
                config.problems.push(format!(
                    "{line}: unknown key scope [keys.{scope_name}] (one of: {})",
                    scope_names().join(", ")
                ));
                continue;
            };
            let mut keymap = config.keymap.clone();
            let mut changed = Vec::new();
            for (id, inputs) in entries {
                let place = at(inputs.span());
                let Some(i) = keymap
                    .bindings
                    .iter()
                    .position(|b| b.scope == scope && binding_id(b.action) == *id)
                else {
                    let ids: Vec<String> = keymap
                        .bindings
                        .iter()
                        .filter(|b| b.scope == scope)
                        .map(|b| binding_id(b.action))
                        .collect();
                    config.problems.push(format!(
                        "{place}: unknown action '{id}' in [keys.{scope_name}] (one of: {})",
                        ids.join(", ")
                    ));
                    continue;
                };
                let parsed: Result<Vec<Input>, String> =
                    inputs.get_ref().iter().map(|k| parse_input(k)).collect();
                match parsed {
                    Ok(list) if !list.is_empty() => {
                        keymap.bindings[i].inputs = list;
                        changed.push(i);
                    }
                    Ok(_) => config.problems.push(format!(
                        "{place}: {scope_name}.{id} has no keys; it keeps its defaults"
                    )),
                    Err(e) => config
                        .problems
                        .push(format!("{place}: {scope_name}.{id}: {e}")),
                }
            }
            // A key bound twice in the scope would make one binding
            // unreachable: the scope keeps its defaults.
            match double_binding(&keymap, scope) {
                Some((input, a, b)) => config.problems.push(format!(
                    "{file}: in [keys.{scope_name}], {} would be bound to both '{a}' and '{b}'; [keys.{scope_name}] keeps its defaults",
                    input.label()
                )),
                None if !changed.is_empty() => config.keymap = keymap,
                None => {}
            }
        }
        config
    }
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

fn scope_by_name(name: &str) -> Option<Scope> {
    match name {
        "global" => Some(Scope::Global),
        "dialog" => Some(Scope::Dialog),
        _ => Screen::ALL
            .into_iter()
            .find(|s| s.title().eq_ignore_ascii_case(name))
            .map(Scope::Screen),
    }
}

fn scope_names() -> Vec<String> {
    let mut names = vec!["global".to_string(), "dialog".to_string()];
    names.extend(Screen::ALL.iter().map(|s| s.title().to_lowercase()));
    names
}

/// The first input bound to two bindings of one scope, with their ids.
fn double_binding(keymap: &KeyMap, scope: Scope) -> Option<(Input, String, String)> {
    let bs: Vec<_> = keymap
        .bindings
        .iter()
        .filter(|b| b.scope == scope)
        .collect();
    for (i, a) in bs.iter().enumerate() {
        for b in &bs[i + 1..] {
            if let Some(input) = a.inputs.iter().find(|x| b.inputs.contains(x)) {
                return Some((*input, binding_id(a.action), binding_id(b.action)));
            }
        }
    }
    None
}

/// The stable name of a binding in the config file: the action's variant
/// in snake_case (strum), with its direction or target (`k_up`,
/// `screen_data`, `role_quasi_identifier`). Unique within a scope (a unit
/// test checks).
pub fn binding_id(action: Action) -> String {
    use Action as A;
    let dir = |name: &str, by: i32| format!("{name}_{}", if by > 0 { "up" } else { "down" });
    match action {
        A::AdjustK(by) => dir("k", by),
        A::AdjustL(by) => dir("l", by),
        A::AdjustP(by) => dir("p", by),
        A::AdjustSuppression(by) => dir("suppression", by),
        A::Scroll(by) => dir("scroll", -by),
        A::CycleAlgorithm(by) => {
            format!("{}_algorithm", if by > 0 { "next" } else { "previous" })
        }
        A::CycleMeasure(by) => format!("{}_measure", if by > 0 { "next" } else { "previous" }),
        A::ShowScreen(s) => format!("screen_{}", s.title().to_lowercase()),
        A::SetRole(r) => format!("role_{}", r.label().replace('-', "_")),
        A::OpenAllNodes(open) => format!("{}_all_nodes", if open { "open" } else { "close" }),
        A::Sort { descending } => format!(
            "sort_{}",
            if descending {
                "descending"
            } else {
                "ascending"
            }
        ),
        A::WidenColumn(by) => format!("{}_column", if by > 0 { "widen" } else { "narrow" }),
        other => <&'static str>::from(other).to_string(),
    }
}

/// An input as the config file writes it: `ctrl-x`, `shift-tab`, `f5`,
/// `space`, `left`, `]`.
pub fn parse_input(text: &str) -> Result<Input, String> {
    let bad = || {
        format!("unknown key '{text}' (examples: x, X, ctrl-x, alt-x, shift-tab, f5, enter, esc, space, left, pgdn)")
    };
    if text == "wheel-up" || text == "wheelup" {
        return Ok(Input::WheelUp);
    }
    if text == "wheel-down" || text == "wheeldown" {
        return Ok(Input::WheelDown);
    }
    let mut rest = text;
    let mut mods = KeyModifiers::NONE;
    loop {
        let lower = rest.to_ascii_lowercase();
        let prefix = [
            ("ctrl-", KeyModifiers::CONTROL),
            ("alt-", KeyModifiers::ALT),
            ("shift-", KeyModifiers::SHIFT),
        ]
        .into_iter()
        .find(|(p, _)| lower.starts_with(p) && rest.len() > p.len());
        match prefix {
            Some((p, m)) => {
                mods |= m;
                rest = &rest[p.len()..];
            }
            None => break,
        }
    }
    let mut chars = rest.chars();
    let code = match (chars.next(), chars.next()) {
        (Some(c), None) => KeyCode::Char(c),
        _ => match rest.to_ascii_lowercase().as_str() {
            "space" => KeyCode::Char(' '),
            "enter" | "return" => KeyCode::Enter,
            "esc" | "escape" => KeyCode::Esc,
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "backspace" => KeyCode::Backspace,
            "delete" | "del" => KeyCode::Delete,
            "insert" | "ins" => KeyCode::Insert,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "pgup" | "pageup" => KeyCode::PageUp,
            "pgdn" | "pagedown" => KeyCode::PageDown,
            f if f.starts_with('f') => match f[1..].parse::<u8>() {
                Ok(n) if (1..=24).contains(&n) => KeyCode::F(n),
                _ => return Err(bad()),
            },
            _ => return Err(bad()),
        },
    };
    // Keys arrive the way `Input::from_key` normalises them: Shift is part
    // of a character (`shift-x` is `X`), and Shift-Tab is BackTab.
    Ok(match code {
        KeyCode::Char(c) if mods.contains(KeyModifiers::SHIFT) => {
            mods.remove(KeyModifiers::SHIFT);
            Input::Key(KeyCode::Char(c.to_ascii_uppercase()), mods)
        }
        KeyCode::Tab if mods.contains(KeyModifiers::SHIFT) => {
            mods.remove(KeyModifiers::SHIFT);
            Input::Key(KeyCode::BackTab, mods)
        }
        code => Input::Key(code, mods),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_parse() {
        let k = |c| Input::Key(c, KeyModifiers::NONE);
        assert_eq!(parse_input("x"), Ok(k(KeyCode::Char('x'))));
        assert_eq!(parse_input("]"), Ok(k(KeyCode::Char(']'))));
        assert_eq!(parse_input("-"), Ok(k(KeyCode::Char('-'))));
        assert_eq!(
            parse_input("ctrl-x"),
            Ok(Input::Key(KeyCode::Char('x'), KeyModifiers::CONTROL))
        );
        assert_eq!(
            parse_input("ctrl--"),
            Ok(Input::Key(KeyCode::Char('-'), KeyModifiers::CONTROL))
        );
        assert_eq!(
            parse_input("alt-x"),
            Ok(Input::Key(KeyCode::Char('x'), KeyModifiers::ALT))
        );
        assert_eq!(parse_input("shift-x"), Ok(k(KeyCode::Char('X'))));
        assert_eq!(parse_input("shift-tab"), Ok(k(KeyCode::BackTab)));
        assert_eq!(
            parse_input("shift-up"),
            Ok(Input::Key(KeyCode::Up, KeyModifiers::SHIFT))
        );
        assert_eq!(parse_input("f5"), Ok(k(KeyCode::F(5))));
        assert_eq!(parse_input("Enter"), Ok(k(KeyCode::Enter)));
        assert_eq!(parse_input("space"), Ok(k(KeyCode::Char(' '))));
        assert_eq!(parse_input("pgdn"), Ok(k(KeyCode::PageDown)));
        assert!(parse_input("f99").unwrap_err().contains("'f99'"));
        assert!(parse_input("hyper-x").unwrap_err().contains("'hyper-x'"));
    }

    #[test]
    fn binding_ids_are_unique_per_scope() {
        let km = KeyMap::default();
        for (i, a) in km.bindings.iter().enumerate() {
            for b in &km.bindings[i + 1..] {
                if a.scope == b.scope {
                    assert_ne!(binding_id(a.action), binding_id(b.action), "{a:?} / {b:?}");
                }
            }
        }
        assert_eq!(binding_id(Action::AdjustK(1)), "k_up");
        assert_eq!(binding_id(Action::Quit), "quit");
        assert_eq!(binding_id(Action::ShowScreen(Screen::Data)), "screen_data");
        assert_eq!(binding_id(Action::OpenCommandLine), "open_command_line");
        assert_eq!(binding_id(Action::Scroll(-3)), "scroll_up");
        assert_eq!(
            binding_id(Action::SetRole(anonlab::data::Role::QuasiIdentifier)),
            "role_quasi_identifier"
        );
        assert_eq!(
            binding_id(Action::Sort { descending: true }),
            "sort_descending"
        );
    }

    /// The action enum and the key table agree: every action a key can
    /// send is bound in the default table, and the actions no key sends
    /// (events the loop makes from resizes, clicks and typing) are named
    /// here; a new action without a key fails this test.
    #[test]
    fn the_key_table_binds_every_action() {
        use strum::VariantNames;
        const NOT_KEYS: [&str; 3] = ["resize", "click", "type_char"];
        let km = KeyMap::default();
        let bound: std::collections::BTreeSet<&str> = km
            .bindings
            .iter()
            .map(|b| <&'static str>::from(b.action))
            .collect();
        for &name in Action::VARIANTS {
            assert_ne!(
                bound.contains(name),
                NOT_KEYS.contains(&name),
                "action {name}: bound in the key table exactly when a key sends it"
            );
        }
    }

    #[test]
    fn a_remap_replaces_the_bindings_inputs() {
        let c = Config::parse(
            "theme = \"light\"\nmouse = false\n[keys.anonymize]\nk_up = [\"ctrl-k\", \"alt-k\"]\n",
            "c.toml",
        );
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        assert_eq!(c.theme, Theme::Light);
        assert!(!c.mouse);
        let ctrl_k = Input::Key(KeyCode::Char('k'), KeyModifiers::CONTROL);
        assert_eq!(
            c.keymap.action_for(Screen::Anonymize, ctrl_k),
            Some(Action::AdjustK(1))
        );
        // The default inputs no longer raise k.
        let defaults = KeyMap::default();
        let old = defaults
            .bindings
            .iter()
            .find(|b| b.scope == Scope::Screen(Screen::Anonymize) && b.action == Action::AdjustK(1))
            .unwrap();
        for input in &old.inputs {
            assert_ne!(
                c.keymap.action_for(Screen::Anonymize, *input),
                Some(Action::AdjustK(1))
            );
        }
    }

    #[test]
    fn problems_name_the_file_line_and_entry() {
        let c = Config::parse(
            "theme = \"dark\"\n[keys.anonymize]\nk_upp = [\"x\"]\n",
            "c.toml",
        );
        assert_eq!(c.problems.len(), 1);
        assert!(c.problems[0].starts_with("c.toml:3:"), "{}", c.problems[0]);
        assert!(c.problems[0].contains("'k_upp'"));

        let c = Config::parse("[keys.nowhere]\nquit = [\"x\"]\n", "c.toml");
        assert!(c.problems[0].starts_with("c.toml:1:"), "{}", c.problems[0]);
        assert!(c.problems[0].contains("nowhere"));

        let c = Config::parse("\n[keys.global]\nquit = [\"ctrl-hyper\"]\n", "c.toml");
        assert!(c.problems[0].starts_with("c.toml:3:"), "{}", c.problems[0]);
        assert!(c.problems[0].contains("'ctrl-hyper'"));

        let c = Config::parse("theme = \"neon\"\n", "c.toml");
        assert!(c.problems[0].contains("'neon'"));
        assert_eq!(c.theme, Theme::Dark);

        let c = Config::parse("theme = \n", "c.toml");
        assert!(c.problems[0].starts_with("c.toml:1"), "{}", c.problems[0]);
    }

    #[test]
    fn a_key_bound_twice_keeps_the_scopes_defaults() {
        // `[` is k_down's default key.
        let c = Config::parse("[keys.anonymize]\nk_up = [\"[\"]\n", "c.toml");
        assert_eq!(c.problems.len(), 1, "{:?}", c.problems);
        assert!(c.problems[0].contains("k_up") && c.problems[0].contains("k_down"));
        let bracket = Input::Key(KeyCode::Char(']'), KeyModifiers::NONE);
        assert_eq!(
            c.keymap.action_for(Screen::Anonymize, bracket),
            Some(Action::AdjustK(1))
        );
    }
}
