//! The lattice as the search left it, node by node: what a viewer (ARX's
//! lattice view, the TUI's) draws. Nothing here is recomputed: each node
//! carries the search's own answer — anonymous or not, whether its classes
//! were computed or its answer was inferred by predictive tagging, and
//! never looked at at all (pruned by the branch and bound of a
//! non-monotone search) — with its figures where it was measured and the
//! lower bound of its metric the branch and bound ordered it by.

use serde::{Deserialize, Serialize};

use super::lattice::{Lattice, Status};

/// What the search knows about whether a node satisfies the privacy model
/// within the suppression limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeStatus {
    Anonymous,
    NotAnonymous,
    /// Never resolved: the search stopped before it needed this node (a
    /// non-monotone model, where nothing is inferred, and a lower bound
    /// above the best metric found).
    Pruned,
}

/// A measured node's figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NodeFigures {
    /// Published equivalence classes (after suppression).
    pub classes: usize,
    pub suppressed_rows: u64,
    pub metric: f64,
}

/// One node of the lattice as the search left it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatticeNode {
    pub status: NodeStatus,
    /// Whether its classes were computed (else its status was inferred
    /// from a checked node by predictive tagging, or it was pruned).
    pub checked: bool,
    /// The figures, when checked and anonymous.
    pub figures: Option<NodeFigures>,
    /// The lower bound of the metric that needs no data pass (the
    /// metric itself for `height`, and for `loss` without suppression).
    pub bound: f64,
}

/// Every node of the lattice with what the search knows of it, numbered
/// as [`LatticeMap::vector`] and [`LatticeMap::index`] say (mixed radix,
/// the first quasi-identifier varying slowest).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LatticeMap {
    lattice: Lattice,
    pub nodes: Vec<LatticeNode>,
}

impl LatticeMap {
    pub(super) fn new(
        lattice: &Lattice,
        status: &[Status],
        results: &[Option<super::eval::NodeResult>],
        bound: impl Fn(&[usize]) -> f64,
    ) -> Self {
        let nodes = (0..lattice.size())
            .map(|v| {
                let r = results[v];
                LatticeNode {
                    status: match status[v] {
                        Status::Anonymous => NodeStatus::Anonymous,
                        Status::NotAnonymous => NodeStatus::NotAnonymous,
                        Status::Unknown => NodeStatus::Pruned,
                    },
                    checked: r.is_some(),
                    figures: r.filter(|r| r.anonymous).map(|r| NodeFigures {
                        classes: r.classes,
                        suppressed_rows: r.suppressed_rows,
                        metric: r.metric,
                    }),
                    bound: bound(&lattice.vector(v)),
                }
            })
            .collect();
        LatticeMap {
            lattice: lattice.clone(),
            nodes,
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Levels per attribute (the hierarchy's height + 1), in request order.
    pub fn levels(&self) -> &[usize] {
        self.lattice.levels()
    }

    /// The level vector of node `i`.
    pub fn vector(&self, i: usize) -> Vec<usize> {
        self.lattice.vector(i)
    }

    /// The node of a level vector, when it is one of the lattice.
    pub fn index(&self, levels: &[usize]) -> Option<usize> {
        let fits = levels.len() == self.levels().len()
            && levels.iter().zip(self.levels()).all(|(&l, &n)| l < n);
        fits.then(|| self.lattice.index(levels))
    }

    /// Sum of the levels of node `i`: its row in the lattice.
    pub fn height(&self, i: usize) -> usize {
        self.lattice.height(i)
    }

    /// The top node's height (every attribute at its root).
    pub fn max_height(&self) -> usize {
        self.levels().iter().map(|l| l.saturating_sub(1)).sum()
    }

    /// Direct generalizations of node `i` (one attribute one level up).
    pub fn successors(&self, i: usize) -> Vec<usize> {
        self.lattice.successors(i).collect()
    }

    /// Direct specializations of node `i` (one attribute one level down).
    pub fn predecessors(&self, i: usize) -> Vec<usize> {
        self.lattice.predecessors(i).collect()
    }

    /// The nodes of each height, lowest first, each row in index order.
    pub fn rows(&self) -> Vec<Vec<usize>> {
        let mut rows = vec![Vec::new(); self.max_height() + 1];
        for i in 0..self.len() {
            rows[self.height(i)].push(i);
        }
        rows
    }
}
