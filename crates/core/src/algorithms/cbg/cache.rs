//! The first kd-tree of a cross-bucket run kept between runs, by a caller
//! that asks for it ([`TreeCache`]); the library keeps nothing itself.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::kd_tree::KdIndex;
use super::space::Space;

/// Trees of at most this many rows are kept in a [`TreeCache`].
const KEEP_TREE_ROWS: usize = 1 << 18;

/// What the first tree of a run was built from: the QI and sensitive codes
/// and how the QIs are read. Nothing else (not k, l or the seed) enters it.
struct TreeInputs {
    qi: Vec<Vec<u32>>,
    numeric: Vec<bool>,
    code_spaces: Vec<usize>,
    value: Vec<u32>,
    n_values: usize,
    leaf_cap: usize,
}

impl TreeInputs {
    fn of(space: &Space<'_>, value: &[u32], n_values: usize, leaf_cap: usize) -> Self {
        TreeInputs {
            qi: space.cols.iter().map(|c| c.to_vec()).collect(),
            numeric: space.numeric.clone(),
            code_spaces: space.stamps.iter().map(Vec::len).collect(),
            value: value.to_vec(),
            n_values,
            leaf_cap,
        }
    }

    /// Whether a run with these inputs builds the tree these were taken
    /// from: compared in place, without copying the run's columns.
    fn same(&self, space: &Space<'_>, value: &[u32], n_values: usize, leaf_cap: usize) -> bool {
        self.n_values == n_values
            && self.leaf_cap == leaf_cap
            && self.numeric == space.numeric
            && self.code_spaces.len() == space.stamps.len()
            && self
                .code_spaces
                .iter()
                .zip(&space.stamps)
                .all(|(&c, s)| c == s.len())
            && self.qi.len() == space.cols.len()
            && self
                .qi
                .iter()
                .zip(&space.cols)
                .all(|(a, b)| a.as_slice() == *b)
            && self.value == value
    }
}

/// The first kd-tree of a cross-bucket run (over all rows), kept by the
/// caller for later runs on the same table and roles at other k, l or seed
/// — the TUI's live tuning, its neighbour prefetch, sweep and compare —
/// which then start from a copy instead of building it (a tenth of a run on
/// Adult). The library keeps nothing itself: a run without a cache
/// (`Options::cbg_tree` = `None`) builds its tree; a run with one reuses
/// the kept tree only when the inputs it was built from equal the run's
/// (compared in full), and otherwise replaces it. Trees of more than 2^18
/// rows are not kept. Shared between threads (`Arc<TreeCache>`).
#[derive(Default)]
pub struct TreeCache {
    kept: Mutex<Option<(TreeInputs, KdIndex)>>,
    hits: AtomicUsize,
}

impl TreeCache {
    pub fn new() -> Self {
        Self::default()
    }

    /// How many runs started from the kept tree.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::Relaxed)
    }

    /// Whether a tree is kept.
    pub fn is_empty(&self) -> bool {
        self.kept.lock().map_or(true, |k| k.is_none())
    }
}

impl std::fmt::Debug for TreeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeCache")
            .field("kept", &!self.is_empty())
            .field("hits", &self.hits())
            .finish()
    }
}

/// The tree over all rows (`KdIndex::build`), or a copy of the one `cache`
/// keeps from a run with the same inputs; a newly built tree replaces the
/// kept one.
pub(super) fn first_tree(
    space: &mut Space<'_>,
    value: &[u32],
    n_values: usize,
    leaf_cap: usize,
    cache: Option<&TreeCache>,
) -> KdIndex {
    let n = value.len();
    if let Some(cache) = cache {
        if let Ok(kept) = cache.kept.lock() {
            if let Some((from, tree)) = kept.as_ref() {
                if from.same(space, value, n_values, leaf_cap) {
                    cache.hits.fetch_add(1, Ordering::Relaxed);
                    return tree.clone();
                }
            }
        }
    }
    let tree = KdIndex::build((0..n as u32).collect(), space, value, n_values, leaf_cap);
    if let Some(cache) = cache {
        if n <= KEEP_TREE_ROWS {
            let inputs = TreeInputs::of(space, value, n_values, leaf_cap);
            if let Ok(mut kept) = cache.kept.lock() {
                *kept = Some((inputs, tree.clone()));
            }
        }
    }
    tree
}
