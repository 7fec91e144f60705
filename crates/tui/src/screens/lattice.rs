//! The full-domain lattice view (ARX's main view of a full-domain search):
//! the nodes of the generalization lattice, one row per height (the sum of
//! the levels, the top node first), each node drawn with what the search
//! found — anonymous, not anonymous, pruned (never resolved), the optimum
//! — taken from the search's own [`LatticeMap`], never recomputed here.
//!
//! The cursor walks the lattice: ←/→ within a row, ↑ to a direct
//! generalization and ↓ to a direct specialization (the one nearest in
//! its row to where the cursor is, so the cursor moves along the lattice's
//! edges, not just between rows). Enter publishes the focused node instead
//! of the optimum: it becomes the session's full-domain node
//! (`FullDomainParams::node`, saved with the project and read by
//! `anonlab anonymize --project`), the release is made again for it and
//! verified like every release; Enter on the optimum goes back to it.
//!
//! The focus is kept as a level vector. The view opens on the optimum,
//! and `o` goes back to it; a cursor on the optimum follows it when a run
//! moves it (a new k, another suppression limit), while a cursor moved to
//! another node stays on that node, and falls back to the optimum when the
//! lattice changed shape.

use crate::keymap::Action;
use anonlab::algorithms::full_domain::{LatticeMap, NodeStatus, SearchReport};

/// What a key did in the lattice view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LatticeEffect {
    /// Not a key of the view: the screen handles it.
    NotMine,
    Handled,
    /// Publish this node (`None`: the optimum).
    Publish(Option<Vec<usize>>),
}

/// The lattice view's state: whether it is open, the focused node, and
/// the map's rows (derived when a new map arrives, not while drawing).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LatticeState {
    pub open: bool,
    /// The focused node's level vector.
    pub focus: Option<Vec<usize>>,
    /// Node indices per height, lowest first (`LatticeMap::rows`).
    pub rows: Vec<Vec<usize>>,
    /// How many nodes the search left in each state, for the legend.
    pub counts: LatticeCounts,
    /// The levels per attribute of the map `rows` were made for: a new
    /// map of the same shape keeps them.
    shape: Vec<usize>,
    /// The optimum of the search last followed, to tell a cursor left on
    /// it (which follows the next optimum) from one moved elsewhere.
    optimum: Option<Vec<usize>>,
}

/// Nodes per state: (all, checked) for anonymous and not anonymous, and
/// the pruned ones (never checked).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LatticeCounts {
    pub anonymous: (usize, usize),
    pub not_anonymous: (usize, usize),
    pub pruned: usize,
}

impl LatticeCounts {
    fn of(map: &LatticeMap) -> Self {
        let mut c = LatticeCounts::default();
        for n in &map.nodes {
            let slot = match n.status {
                NodeStatus::Anonymous => &mut c.anonymous,
                NodeStatus::NotAnonymous => &mut c.not_anonymous,
                NodeStatus::Pruned => {
                    c.pruned += 1;
                    continue;
                }
            };
            slot.0 += 1;
            slot.1 += usize::from(n.checked);
        }
        c
    }
}

impl LatticeState {
    /// Follow the shown search: recompute the rows when the lattice has
    /// another shape, and keep the focus on a node of it: the optimum
    /// when there is none yet or when it was on the previous optimum.
    pub fn refresh(&mut self, report: Option<&SearchReport>) {
        let Some(r) = report else {
            return;
        };
        let map = &r.lattice;
        if self.shape != map.levels() {
            self.shape = map.levels().to_vec();
            self.rows = map.rows();
        }
        self.counts = LatticeCounts::of(map);
        let follow = match &self.focus {
            None => true,
            Some(f) => map.index(f).is_none() || self.optimum.as_ref() == Some(f),
        };
        if follow {
            self.focus = Some(r.optimum.levels.clone());
        }
        self.optimum = Some(r.optimum.levels.clone());
    }

    /// Open the view on the optimum of `report`, or, while a search runs,
    /// on the optimum it will report.
    pub fn open_on_optimum(&mut self, report: Option<&SearchReport>) {
        self.open = true;
        self.focus = None;
        self.refresh(report);
    }

    /// The focused node's index in `map`.
    pub fn focused(&self, map: &LatticeMap) -> Option<usize> {
        map.index(self.focus.as_deref()?)
    }

    /// Where node `i` sits: (height, position in its row).
    fn place(&self, map: &LatticeMap, i: usize) -> Option<(usize, usize)> {
        let h = map.height(i);
        let pos = self.rows.get(h)?.binary_search(&i).ok()?;
        Some((h, pos))
    }

    /// Apply a key while the view is open.
    pub fn step(&mut self, action: &Action, report: Option<&SearchReport>) -> LatticeEffect {
        let Some(r) = report else {
            // Nothing searched yet: the view's keys do nothing but stay
            // its own (the published table is not on screen).
            return match action {
                Action::Up
                | Action::Down
                | Action::Left
                | Action::Right
                | Action::First
                | Action::Last
                | Action::Confirm => LatticeEffect::Handled,
                _ => LatticeEffect::NotMine,
            };
        };
        self.refresh(Some(r));
        let map = &r.lattice;
        let Some(i) = self.focused(map) else {
            return LatticeEffect::NotMine;
        };
        let Some((h, pos)) = self.place(map, i) else {
            return LatticeEffect::NotMine;
        };
        let row = &self.rows[h];
        let next = match *action {
            Action::Left => Some(row[pos.saturating_sub(1)]),
            Action::Right => Some(row[(pos + 1).min(row.len() - 1)]),
            Action::Up => self.nearest(map, &map.successors(i), (pos, row.len()), h + 1),
            Action::Down if h > 0 => {
                self.nearest(map, &map.predecessors(i), (pos, row.len()), h - 1)
            }
            Action::Down => None,
            // The bottom node, the top node.
            Action::First => Some(0),
            Action::Last => Some(map.len().saturating_sub(1)),
            Action::Confirm => {
                let levels = map.vector(i);
                let optimum = levels == r.optimum.levels;
                return LatticeEffect::Publish((!optimum).then_some(levels));
            }
            _ => return LatticeEffect::NotMine,
        };
        if let Some(n) = next {
            self.focus = Some(map.vector(n));
        }
        LatticeEffect::Handled
    }

    /// Of `candidates` (all in row `h`), the one whose place in its row is
    /// nearest the cursor's relative place (`pos` of `len`) in its own.
    fn nearest(
        &self,
        map: &LatticeMap,
        candidates: &[usize],
        (pos, len): (usize, usize),
        h: usize,
    ) -> Option<usize> {
        let target_len = self.rows.get(h)?.len();
        let target = (pos as f64 + 0.5) / len.max(1) as f64 * target_len as f64;
        candidates.iter().copied().min_by(|&a, &b| {
            let d = |v: usize| {
                let p = self.place(map, v).map_or(0, |(_, p)| p) as f64 + 0.5;
                (p - target).abs()
            };
            d(a).total_cmp(&d(b)).then(a.cmp(&b))
        })
    }
}
