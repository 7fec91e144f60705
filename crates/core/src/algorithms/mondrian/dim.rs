//! What the partitioning needs to know of one quasi-identifier, and the
//! cell a finished group publishes on it.

use rayon::prelude::*;

use crate::data::{Column, Dataset};
use crate::hierarchy::BoundHierarchy;
use crate::release::{Cell, EquivalenceGroup};

use super::order::Kind;

/// One quasi-identifier as Mondrian sees it.
pub(super) struct Dim<'a> {
    /// The number behind each code (numeric columns), else empty.
    pub numbers: &'a [f64],
    pub missing: u32,
    /// Numeric: the table's value range; categorical: its distinct codes.
    pub scale: f64,
    /// Distinct codes in the table, missing included.
    pub domain: usize,
    /// Codes range over `0..code_space`.
    pub code_space: usize,
    /// A categorical column's hierarchy, with the codes under every node
    /// per level (to label a group's set when it is exactly a node).
    pub hierarchy: Option<(BoundHierarchy, Vec<Vec<Vec<u32>>>)>,
}

/// The numeric range of a column's values that occur (largest minus
/// smallest present number; 0 when none occur): the NCP denominator that
/// Mondrian and LGB's NCP share.
pub(crate) fn present_span(col: &Column) -> f64 {
    let numbers = col.numbers();
    let freq = col.frequencies();
    let present = &freq[..col.cardinality()];
    match (
        present.iter().position(|&f| f > 0),
        present.iter().rposition(|&f| f > 0),
    ) {
        (Some(a), Some(b)) => numbers[b] - numbers[a],
        _ => 0.0,
    }
}

impl<'a> Dim<'a> {
    /// `hierarchy` is used only for a categorical column: a numeric one is
    /// cut by value, which a hierarchy of intervals can only coarsen.
    pub fn new(col: &'a Column, hierarchy: Option<BoundHierarchy>) -> Self {
        let missing = col.missing_code();
        let has_missing = col.missing_count() > 0;
        let domain = col.cardinality() + usize::from(has_missing);
        let code_space = col.code_space();
        if col.is_numeric() && !col.numbers().is_empty() {
            Dim {
                numbers: col.numbers(),
                missing,
                scale: present_span(col),
                domain,
                code_space,
                hierarchy: None,
            }
        } else {
            let hierarchy = hierarchy.map(|h| {
                let members = (0..h.levels()).map(|level| h.members(level)).collect();
                (h, members)
            });
            Dim {
                numbers: &[],
                missing,
                scale: domain as f64,
                domain,
                code_space,
                hierarchy,
            }
        }
    }

    pub fn is_numeric(&self) -> bool {
        !self.numbers.is_empty()
    }

    pub fn kind(&self) -> Kind<'_> {
        match (&self.hierarchy, self.is_numeric()) {
            (_, true) => Kind::Numeric,
            (Some((h, _)), false) => Kind::Hierarchy(h),
            (None, false) => Kind::Categorical,
        }
    }

    /// The normalized width of a node holding the distinct codes `vals`
    /// (LeFevre et al.'s choose_dimension): numeric, its range over the
    /// table's; a node holding both missing and present numbers counts as 1
    /// (no interval covers it); categorical, its distinct values over the
    /// table's.
    pub fn width(&self, vals: &[u32]) -> f64 {
        if !self.is_numeric() {
            return vals.len() as f64 / self.scale;
        }
        let (lo, hi) = vals
            .iter()
            .fold((u32::MAX, 0), |(lo, hi), &c| (lo.min(c), hi.max(c)));
        if hi == self.missing {
            return 1.0;
        }
        if self.scale > 0.0 {
            (self.numbers[hi as usize] - self.numbers[lo as usize]) / self.scale
        } else {
            0.0
        }
    }

    /// The same cell as [`Cell::covering`] for a group holding `codes`
    /// (reordered in place), without rescanning the column for each group;
    /// with a hierarchy, a set that is exactly a node's values carries the
    /// node's label.
    pub fn covering(&self, codes: &mut Vec<u32>) -> Cell {
        codes.sort_unstable();
        codes.dedup();
        match codes.as_slice() {
            [] => Cell::Suppressed,
            [c] => Cell::Value { code: *c },
            [lo, .., hi] if self.is_numeric() && *hi != self.missing => {
                Cell::Interval { lo: *lo, hi: *hi }
            }
            _ if codes.len() >= self.domain => Cell::Suppressed,
            _ => Cell::Set {
                label: self.node_label(codes),
                codes: codes.clone(),
            },
        }
    }

    /// The label of the hierarchy node whose values are exactly `codes`.
    fn node_label(&self, codes: &[u32]) -> Option<String> {
        let (h, members) = self.hierarchy.as_ref()?;
        let level = (1..h.levels()).find(|&level| {
            let first = h.node(level, codes[0]);
            codes.iter().all(|&c| h.node(level, c) == first)
        })?;
        let node = h.node(level, codes[0]);
        (members[level][node as usize] == codes).then(|| h.label(level, node).to_string())
    }
}

/// Groups of the given rows with the cells covering them on `qi` (the
/// same cells as [`Cell::covering`], without rescanning each column per
/// group). LGB_NCP publishes its groups with them.
pub(crate) fn covering_groups(
    ds: &Dataset,
    qi: &[usize],
    groups: Vec<Vec<u32>>,
) -> Vec<EquivalenceGroup> {
    let dims: Vec<Dim<'_>> = qi.iter().map(|&c| Dim::new(ds.col(c), None)).collect();
    groups
        .into_par_iter()
        .map(|rows| {
            let mut codes = Vec::with_capacity(rows.len());
            let cells = qi
                .iter()
                .zip(&dims)
                .map(|(&c, dim)| {
                    codes.clear();
                    codes.extend(rows.iter().map(|&r| ds.col(c).code(r as usize)));
                    dim.covering(&mut codes)
                })
                .collect();
            EquivalenceGroup { rows, cells }
        })
        .collect()
}
