//! Every combination of the attacker's attributes, refined one attribute at
//! a time: the walk shared by the attribute risks and the special-uniques
//! search.
//!
//! Combinations are visited depth first in the set-enumeration order
//! ({a}, {a, b}, {a, b, c}, ..., each extending its parent by a later
//! attribute), so each one's classes come from its parent's by one
//! [`Runs::refine`] and only one partition per depth is alive. The first
//! attribute's branches run in parallel (rayon). Combinations are named by
//! bit masks over the attributes' positions.

use fixedbitset::FixedBitSet;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::partition::{RefineScratch, Runs};
use crate::progress::Progress;

/// Class counts of one combination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Combination {
    pub mask: u32,
    pub classes: u64,
    /// Σ C(size, 2) over classes: pairs of records the combination does not
    /// tell apart.
    pub pairs: u64,
    pub uniques: u64,
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walk {
    pub combinations: Vec<Combination>,
    /// Rows unique on each combination of at most `keep_uniques` attributes.
    pub uniques: FxHashMap<u32, FixedBitSet>,
}

/// The most attributes a walk takes (masks are `u32`; the attribute risks
/// stop at 12, i.e. 4,095 combinations).
pub const MAX_ATTRIBUTES: usize = 31;

/// One attribute as the walk reads it: a code per row, all below
/// `code_space`.
#[derive(Debug, Clone, Copy)]
pub struct Codes<'a> {
    pub codes: &'a [u32],
    pub code_space: usize,
}

impl<'a> Codes<'a> {
    /// A dataset column's codes.
    pub fn of(ds: &'a Dataset, column: usize) -> Self {
        let col = ds.col(column);
        Codes {
            codes: col.codes(),
            code_space: col.code_space(),
        }
    }
}

/// Walk the combinations of `columns` (each `rows` codes long) of at most
/// `max_size` attributes, keeping the unique rows of those of at most
/// `keep_uniques`.
pub fn walk(
    columns: &[Codes<'_>],
    rows: usize,
    max_size: usize,
    keep_uniques: usize,
    progress: &Progress,
) -> Result<Walk> {
    if columns.len() > MAX_ATTRIBUTES {
        return Err(Error::Parameter(format!(
            "{} attributes are more than the {MAX_ATTRIBUTES} a combination walk can name",
            columns.len()
        )));
    }
    let n = rows;
    let root = Runs::all(n);
    let root_uniques = FixedBitSet::with_capacity(n);
    let ctx = Ctx {
        columns,
        max_size,
        keep_uniques,
        progress,
    };
    let parts: Vec<Result<Walk>> = (0..columns.len())
        .into_par_iter()
        .map(|a| {
            let mut out = Walk::default();
            let mut scratch = RefineScratch::default();
            ctx.extend(&root, &root_uniques, 0, a, 1, &mut scratch, &mut out)?;
            Ok(out)
        })
        .collect();
    let mut all = Walk::default();
    for p in parts {
        let p = p?;
        all.combinations.extend(p.combinations);
        all.uniques.extend(p.uniques);
    }
    all.combinations.sort_unstable_by_key(|c| c.mask);
    Ok(all)
}

struct Ctx<'a> {
    columns: &'a [Codes<'a>],
    max_size: usize,
    keep_uniques: usize,
    progress: &'a Progress,
}

impl Ctx<'_> {
    /// Visit `parent ∪ {a}` (of `size` attributes) and its descendants.
    #[allow(clippy::too_many_arguments)]
    fn extend(
        &self,
        parent: &Runs,
        parent_uniques: &FixedBitSet,
        parent_mask: u32,
        a: usize,
        size: usize,
        scratch: &mut RefineScratch,
        out: &mut Walk,
    ) -> Result<()> {
        self.progress.check()?;
        let mask = parent_mask | (1 << a);
        let col = self.columns[a];
        let mut alone = Vec::new();
        // A partition of single rows stays as it is.
        let runs = if parent.runs() == 0 {
            parent.clone()
        } else {
            parent.refine(col.codes, col.code_space, scratch, &mut alone)
        };
        // A one-row table: its row is alone before any attribute, but the
        // empty set identifies nobody, so it becomes unique here.
        if parent_mask == 0 && parent.singles() > 0 {
            alone.push(0);
        }
        out.combinations.push(Combination {
            mask,
            classes: runs.classes() as u64,
            pairs: runs.pairs(),
            uniques: runs.singles() as u64,
        });
        // A combination's unique rows: its parent's and those that became
        // alone; children past `keep_uniques` need neither.
        let keep = size <= self.keep_uniques;
        let mut uniques = FixedBitSet::new();
        if keep {
            uniques = parent_uniques.clone();
            for &r in &alone {
                uniques.insert(r as usize);
            }
        }
        if size < self.max_size {
            for b in a + 1..self.columns.len() {
                self.extend(&runs, &uniques, mask, b, size + 1, scratch, out)?;
            }
        }
        if keep {
            out.uniques.insert(mask, uniques);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partition::Partition;

    #[test]
    fn every_combination_matches_hash_grouping() {
        let ds = Dataset::from_rows(
            &["a", "b", "c"],
            &[
                vec!["1", "x", "p"],
                vec!["1", "y", "p"],
                vec!["1", "x", "q"],
                vec!["2", "x", "p"],
                vec!["2", "x", "p"],
                vec!["1", "x", "p"],
            ],
        )
        .unwrap();
        let cols: Vec<Codes> = (0..3).map(|c| Codes::of(&ds, c)).collect();
        let w = walk(&cols, ds.n_rows(), 3, 2, &Progress::new()).unwrap();
        assert_eq!(w.combinations.len(), 7);
        for c in &w.combinations {
            let cols: Vec<usize> = (0..3).filter(|&a| c.mask & (1 << a) != 0).collect();
            let p = Partition::by_columns(&ds, &cols);
            assert_eq!(c.classes as usize, p.n_classes(), "{cols:?}");
            assert_eq!(c.uniques as usize, p.uniques(), "{cols:?}");
            if cols.len() <= 2 {
                let u = &w.uniques[&c.mask];
                for r in 0..ds.n_rows() {
                    assert_eq!(u.contains(r), p.size_of_row(r) == 1, "{cols:?} row {r}");
                }
            } else {
                assert!(!w.uniques.contains_key(&c.mask));
            }
        }
        let limited = walk(&cols, ds.n_rows(), 1, 1, &Progress::new()).unwrap();
        assert_eq!(limited.combinations.len(), 3);
    }
}
