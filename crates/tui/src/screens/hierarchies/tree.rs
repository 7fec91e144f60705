//! The focused attribute's hierarchy as a collapsible tree, with the class
//! counts each level gives on the data.

use std::collections::HashSet;

use anonlab::data::Dataset;
use anonlab::hierarchy::{Hierarchy, LevelStats};

/// One node of a hierarchy, as the tree shows it.
#[derive(Debug, Clone, PartialEq)]
struct Node {
    label: String,
    /// Records of the data under the node.
    records: u64,
    /// Hierarchy leaves under the node.
    leaves: usize,
    /// Node ids one level down, in file order.
    children: Vec<u32>,
}

/// One line of the visible tree.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeLine {
    /// Steps below the root.
    pub depth: usize,
    pub level: usize,
    pub label: String,
    pub records: u64,
    pub leaves: usize,
    /// `None` for a leaf, else whether the node is open.
    pub open: Option<bool>,
    node: u32,
}

/// The focused attribute's hierarchy, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeView {
    pub attribute: String,
    /// What each level gives on the data (missing cells count as one more
    /// value below the root).
    pub levels: Vec<LevelStats>,
    /// `nodes[level][id]`.
    nodes: Vec<Vec<Node>>,
    open: HashSet<(usize, u32)>,
    pub lines: Vec<TreeLine>,
    pub cursor: usize,
}

impl TreeView {
    pub(super) fn new(ds: &Dataset, column: usize, h: &Hierarchy) -> anonlab::Result<Self> {
        let col = ds.col(column);
        let levels = h.bind(col)?.level_stats(&col.frequencies());
        let freq = col.frequencies();
        let leaf_records: Vec<u64> = h
            .leaves()
            .iter()
            .map(|l| col.code_of(l).map_or(0, |c| freq[c as usize]))
            .collect();
        let mut nodes: Vec<Vec<Node>> = (0..h.levels())
            .map(|level| {
                h.labels(level)
                    .iter()
                    .map(|l| Node {
                        label: l.to_string(),
                        records: 0,
                        leaves: 0,
                        children: Vec::new(),
                    })
                    .collect()
            })
            .collect();
        let mut linked: HashSet<(usize, u32)> = HashSet::new();
        for (leaf, &records) in leaf_records.iter().enumerate() {
            for (level, row) in nodes.iter_mut().enumerate() {
                let n = &mut row[h.node(leaf, level) as usize];
                n.records += records;
                n.leaves += 1;
            }
            for level in 1..h.levels() {
                let child = h.node(leaf, level - 1);
                if linked.insert((level - 1, child)) {
                    nodes[level][h.node(leaf, level) as usize]
                        .children
                        .push(child);
                }
            }
        }
        let top = h.levels() - 1;
        let mut t = TreeView {
            attribute: h.attribute().to_string(),
            levels,
            nodes,
            open: [(top, 0)].into_iter().collect(),
            lines: Vec::new(),
            cursor: 0,
        };
        t.relist();
        Ok(t)
    }

    /// Recompute the visible lines: every node under an open path.
    pub(super) fn relist(&mut self) {
        let top = self.nodes.len() - 1;
        let mut lines = Vec::new();
        let mut stack: Vec<(usize, u32)> = (0..self.nodes[top].len() as u32)
            .rev()
            .map(|id| (top, id))
            .collect();
        while let Some((level, id)) = stack.pop() {
            let n = &self.nodes[level][id as usize];
            let open = self.open.contains(&(level, id));
            lines.push(TreeLine {
                depth: top - level,
                level,
                label: n.label.clone(),
                records: n.records,
                leaves: n.leaves,
                open: (level > 0).then_some(open),
                node: id,
            });
            if level > 0 && open {
                stack.extend(n.children.iter().rev().map(|&c| (level - 1, c)));
            }
        }
        self.lines = lines;
        self.cursor = self.cursor.min(self.lines.len().saturating_sub(1));
    }

    /// Open or close the node under the cursor.
    pub(super) fn toggle(&mut self) {
        let Some(l) = self.lines.get(self.cursor) else {
            return;
        };
        if l.level == 0 {
            return;
        }
        let key = (l.level, l.node);
        if !self.open.remove(&key) {
            self.open.insert(key);
        }
        self.relist();
    }

    /// Open every node (`true`) or close all but the root.
    pub(super) fn open_all(&mut self, open: bool) {
        let top = self.nodes.len() - 1;
        self.open.clear();
        if open {
            for (level, row) in self.nodes.iter().enumerate().skip(1) {
                self.open
                    .extend((0..row.len() as u32).map(|id| (level, id)));
            }
        } else {
            self.open.insert((top, 0));
        }
        self.relist();
    }
}
