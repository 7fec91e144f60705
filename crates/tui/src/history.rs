//! Undo and redo of the session's edits (`u`, `Ctrl-r`), and what "unsaved
//! changes" means.
//!
//! An entry is the whole edited state before one action ([`Snapshot`]: an
//! `Arc` of the library's session and the picker's small vectors, so
//! keeping one costs a few pointers, never the data). The app records an
//! entry after every action that changed the session, named by what
//! changed ("age: QI → semi-sensitive", "k 5 → 6"), so the status bar can
//! say what an undo undid. Recording by difference rather than by action
//! catches every way an edit is made — a key, a dialog, a `:` command —
//! with one hook, and an action that changed nothing leaves no entry.

use super::session::{SessionState, Snapshot};
use anonlab::data::Params;
use anonlab::session::Session;

/// How many edits an undo can go back.
pub const DEPTH: usize = 500;

/// One edit: what it did, and the state before it (after it, on the redo
/// stack).
#[derive(Debug, Clone)]
struct Entry {
    what: String,
    state: Snapshot,
}

/// The undo and redo stacks.
#[derive(Debug, Clone, Default)]
pub struct History {
    undo: Vec<Entry>,
    redo: Vec<Entry>,
}

impl History {
    /// Record the action that led from `before` to `now`, when it changed
    /// anything undo restores; returns its name. A new edit forgets what
    /// was undone.
    pub fn record(&mut self, before: Snapshot, now: &SessionState) -> Option<String> {
        // Most actions (moving, scrolling, drawing) edit nothing: no
        // generation moved, nothing to compare.
        if before.generations == now.generations() {
            return None;
        }
        let what = describe(&before, now)?;
        self.undo.push(Entry {
            what: what.clone(),
            state: before,
        });
        if self.undo.len() > DEPTH {
            self.undo.remove(0);
        }
        self.redo.clear();
        Some(what)
    }

    /// Undo the last edit; its name, or `None` when there is none.
    pub fn undo(&mut self, session: &mut SessionState) -> Option<String> {
        let e = self.undo.pop()?;
        let left = session.restore(e.state);
        self.redo.push(Entry {
            what: e.what.clone(),
            state: left,
        });
        Some(e.what)
    }

    /// Redo the last undone edit; its name, or `None`.
    pub fn redo(&mut self, session: &mut SessionState) -> Option<String> {
        let e = self.redo.pop()?;
        let left = session.restore(e.state);
        self.undo.push(Entry {
            what: e.what.clone(),
            state: left,
        });
        Some(e.what)
    }

    /// Edits an undo can go back, and undone edits a redo can replay.
    pub fn depth(&self) -> (usize, usize) {
        (self.undo.len(), self.redo.len())
    }
}

/// Whether `now` differs from `saved` in anything the project file holds:
/// what undo restores, and the compare set.
pub fn unsaved(saved: &Snapshot, now: &SessionState) -> bool {
    describe(saved, now).is_some() || saved.session.compare != now.session().compare
}

/// What changed from `before` to `now`, in the words of the screens; at
/// most three changes named, then how many more. `None` when nothing undo
/// restores changed.
pub fn describe(before: &Snapshot, now: &SessionState) -> Option<String> {
    let (a, b): (&Session, &Session) = (&before.session, now.session());
    let ds = now.dataset();
    let name = |c: usize| ds.col(c).name().to_string();
    let mut parts = Vec::new();
    let mut roles_changed = false;
    for c in 0..ds.n_cols() {
        let (x, y) = (a.roles.get(c), b.roles.get(c));
        if x != y {
            roles_changed = true;
            parts.push(format!("{}: {} → {}", name(c), x.label(), y.label()));
        }
    }
    for c in 0..ds.n_cols() {
        let (x, y) = (before.cell_count(c), now.cell_count(c));
        if x != y || a.sensitivity.get(&c) != b.sensitivity.get(&c) {
            parts.push(format!("sensitive cells of {}: {x} → {y}", name(c)));
        }
    }
    // The attacker follows a role change by itself: named only when the
    // roles did not change.
    if !roles_changed {
        let (order, known) = before.attacker_view();
        let learned: Vec<String> = (0..ds.n_cols())
            .filter(|&c| now.knows(c) && !known.get(c).copied().unwrap_or(false))
            .map(name)
            .collect();
        let forgot: Vec<String> = (0..ds.n_cols())
            .filter(|&c| !now.knows(c) && known.get(c).copied().unwrap_or(false))
            .map(name)
            .collect();
        if !learned.is_empty() {
            parts.push(format!("attacker knows {}", learned.join(", ")));
        }
        if !forgot.is_empty() {
            parts.push(format!("attacker forgets {}", forgot.join(", ")));
        }
        if learned.is_empty() && forgot.is_empty() && order != now.order() {
            parts.push("attacker's order".to_string());
        }
    }
    if a.attacker.threshold != b.attacker.threshold {
        parts.push(format!(
            "threshold {:.3} → {:.3}",
            a.attacker.threshold, b.attacker.threshold
        ));
    }
    for n in a.hierarchies.keys().chain(b.hierarchies.keys()) {
        let change = match (a.hierarchies.get(n), b.hierarchies.get(n)) {
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            (Some(x), Some(y)) if x != y => "replaced",
            _ => continue,
        };
        let line = format!("hierarchy of {n} {change}");
        if !parts.contains(&line) {
            parts.push(line);
        }
    }
    params_changes(&a.params, &b.params, &mut parts);
    if parts.is_empty() {
        return None;
    }
    let more = parts.len().saturating_sub(3);
    parts.truncate(3);
    let mut out = parts.join("; ");
    if more > 0 {
        out.push_str(&format!(" (+{more} more)"));
    }
    Some(out)
}

/// The release parameters that changed, as "k 5 → 6".
fn params_changes(a: &Params, b: &Params, parts: &mut Vec<String>) {
    let algo = |p: &Params| p.algorithm.clone().unwrap_or_else(|| "-".into());
    if a.algorithm != b.algorithm {
        parts.push(format!("algorithm {} → {}", algo(a), algo(b)));
    }
    let mut num = |name: &str, x: String, y: String| {
        if x != y {
            parts.push(format!("{name} {x} → {y}"));
        }
    };
    num("k", a.k.to_string(), b.k.to_string());
    num("l", a.l.to_string(), b.l.to_string());
    num("p", a.p.to_string(), b.p.to_string());
    num("seed", a.seed.to_string(), b.seed.to_string());
    num("t", a.t.to_string(), b.t.to_string());
    num("c", a.c.to_string(), b.c.to_string());
    let fd = |p: &Params| {
        format!(
            "suppression {:.0}%, metric {}, model {}",
            p.full_domain.suppression * 100.0,
            p.full_domain.metric,
            p.full_domain.model
        )
    };
    let node = |p: &Params| match &p.full_domain.node {
        Some(levels) => format!(
            "node [{}]",
            levels
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "the optimum".to_string(),
    };
    if a.full_domain.node != b.full_domain.node {
        parts.push(format!("full-domain published {} → {}", node(a), node(b)));
    }
    if fd(a) != fd(b) {
        parts.push(format!("full-domain {} → {}", fd(a), fd(b)));
    }
    if a.t_closeness != b.t_closeness {
        let tc = |p: &Params| {
            if p.t_closeness.is_empty() {
                "none".to_string()
            } else {
                p.t_closeness.keys().cloned().collect::<Vec<_>>().join(", ")
            }
        };
        parts.push(format!("t-closeness on {} → {}", tc(a), tc(b)));
    }
    if a.conditions != b.conditions {
        parts.push("conditions file".to_string());
    }
    if a.local_suppression != b.local_suppression {
        let ls = |p: &Params| {
            let l = &p.local_suppression;
            let or = |v: String| if v.is_empty() { "-".to_string() } else { v };
            format!(
                "importance {}, combs {}, * {}, strata {}",
                or(l.importance.join(">")),
                or(l.combs
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(",")),
                l.missing_matches.as_deref().unwrap_or("any"),
                l.strata.as_deref().unwrap_or("-")
            )
        };
        parts.push(format!("local suppression {} → {}", ls(a), ls(b)));
    }
}
