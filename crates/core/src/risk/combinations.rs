//! Every combination of the attacker's attributes, refined one attribute at
//! a time: the walk shared by the attribute risks and the special-uniques
//! search.
//!
//! The walk does not run over the records but over the distinct records:
//! every combination's classes are unions of the classes on all the
//! attributes, so the records are first grouped on all of them (by
//! hashing, [`Tuples`]) and each group becomes one item weighted by its
//! size. A combination's class counts, pairs and unique records come out
//! the same (a record is unique on a combination exactly when its class
//! there is one item of weight 1), and on a 1M-row census with 8 QIs the
//! walk reads about 270,000 items instead of 1,000,000.
//!
//! Combinations are visited depth first in the set-enumeration order
//! ({a}, {a, b}, {a, b, c}, ..., each extending its parent by a later
//! attribute), so each one's classes come from its parent's by one
//! [`Runs::refine`] — which touches only the items of multi-item classes,
//! since a class of one item stays one — and only one partition per depth
//! is alive. The first attribute's branches run in parallel (rayon).
//! Combinations are named by bit masks over the attributes' positions.
//!
//! Hidden cells (README, "How semi-sensitive cells are matched": a record
//! is matched by every record that agrees with it on each known attribute
//! where neither cell is hidden) make "matched by" a relation that is no
//! longer a partition, so refining classes does not apply: [`walk_matched`]
//! visits the same combinations and counts each one's matched sets by the
//! key count's rule itself (`risk::original_matches`, per combination).
//! Without hidden cells a matched set is a class, and the two walks give
//! the same figures (tests say so); [`walk`] is then the fast one. On a
//! combination, a record with a hidden cell is matched as on the
//! combination without that attribute, so it is never unique on an
//! attribute the attacker cannot see in it (no MSU of it names one).

use fixedbitset::FixedBitSet;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result};
use crate::partition::{Partition, RefineScratch, Runs};
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

/// The records grouped on every attribute: one item per group, with its
/// codes, its size and one of its rows.
struct Tuples {
    /// Per attribute, the code of each item.
    codes: Vec<Vec<u32>>,
    weights: Vec<u32>,
    /// A row of each item (its only row when its weight is 1).
    row: Vec<u32>,
}

impl Tuples {
    /// `multiplicities`: records per row of a grouped table, whose rows
    /// then group into items weighted by the records they stand for.
    fn of(columns: &[Codes<'_>], rows: usize, multiplicities: Option<&[u32]>) -> Self {
        let cols: Vec<(&[u32], usize)> = columns.iter().map(|c| (c.codes, c.code_space)).collect();
        let classes =
            Partition::by_codes(&cols, rows).weighted(multiplicities.map(|m| m.to_vec().into()));
        let weights = classes.sizes().to_vec();
        // Class ids come in order of first appearance.
        let mut row = Vec::with_capacity(weights.len());
        for (r, &c) in classes.class_ids().iter().enumerate() {
            if c as usize == row.len() {
                row.push(r as u32);
            }
        }
        // Items in the lexicographic order of their codes (the walk's
        // attribute order; a least-significant-first radix sort): a class
        // then holds nearby items, so refining reads memory mostly in order.
        let mut order: Vec<u32> = (0..row.len() as u32).collect();
        let mut next = vec![0u32; order.len()];
        let mut counts = Vec::new();
        for c in columns.iter().rev() {
            counts.clear();
            counts.resize(c.code_space + 1, 0u32);
            for &i in &order {
                counts[c.codes[row[i as usize] as usize] as usize + 1] += 1;
            }
            for k in 1..counts.len() {
                counts[k] += counts[k - 1];
            }
            for &i in &order {
                let code = c.codes[row[i as usize] as usize] as usize;
                next[counts[code] as usize] = i;
                counts[code] += 1;
            }
            std::mem::swap(&mut order, &mut next);
        }
        let row: Vec<u32> = order.iter().map(|&i| row[i as usize]).collect();
        let weights = order.iter().map(|&i| weights[i as usize]).collect();
        let codes = columns
            .iter()
            .map(|c| row.iter().map(|&r| c.codes[r as usize]).collect())
            .collect();
        Tuples {
            codes,
            weights,
            row,
        }
    }
}

/// Walk the combinations of `columns` (each `rows` codes long) of at most
/// `max_size` attributes, keeping the unique rows of those of at most
/// `keep_uniques`. Rows stand for `multiplicities[r]` records each when
/// given (a grouped table), one each otherwise.
pub fn walk(
    columns: &[Codes<'_>],
    rows: usize,
    multiplicities: Option<&[u32]>,
    max_size: usize,
    keep_uniques: usize,
    progress: &Progress,
) -> Result<Walk> {
    if columns.len() > MAX_ATTRIBUTES {
        return Err(Error::invalid(
            Parameter::AttackerKnows,
            format!(
                "{} attributes are more than the {MAX_ATTRIBUTES} a combination walk can name",
                columns.len()
            ),
        ));
    }
    let tuples = Tuples::of(columns, rows, multiplicities);
    let root = Runs::of_weights(&tuples.weights);
    let root_uniques = FixedBitSet::with_capacity(rows);
    let ctx = Ctx {
        tuples: &tuples,
        columns,
        max_size,
        keep_uniques,
        progress,
    };
    let mut all = Walk::default();
    ctx.children(
        &root,
        &root_uniques,
        0,
        0,
        0,
        &mut RefineScratch::default(),
        &mut all,
    )?;
    all.combinations.sort_unstable_by_key(|c| c.mask);
    Ok(all)
}

/// [`walk`]'s figures under README's rule with hidden cells (module doc):
/// every combination of at most `max_size` of the attributes `known`
/// (hidden cells `hidden`, parallel to it; at most [`MAX_ATTRIBUTES`]),
/// each counted from its records' matched sets: uniques are the records
/// matched by themselves alone, pairs Σ_r (matches(r) − 1) / 2 (the pairs
/// of records that match each other), classes the number of matched sets
/// the records fill, Σ_m ⌈(records matched by m) / m⌉ (the classes
/// themselves without hidden cells; `SizeCounts::from_frequencies` counts
/// them alike).
pub fn walk_matched(
    ds: &Dataset,
    known: &[usize],
    hidden: &[Option<&FixedBitSet>],
    max_size: usize,
    keep_uniques: usize,
    progress: &Progress,
) -> Result<Walk> {
    if known.len() > MAX_ATTRIBUTES {
        return Err(Error::invalid(
            Parameter::AttackerKnows,
            format!(
                "{} attributes are more than the {MAX_ATTRIBUTES} a combination walk can name",
                known.len()
            ),
        ));
    }
    let d = known.len();
    let masks: Vec<u32> = (1..(1u64 << d))
        .map(|m| m as u32)
        .filter(|m| m.count_ones() as usize <= max_size)
        .collect();
    let rows = ds.n_rows();
    let visited: Vec<Result<(Combination, Option<FixedBitSet>)>> = masks
        .into_par_iter()
        .map(|mask| {
            progress.check()?;
            let on: Vec<usize> = (0..d).filter(|&a| mask & (1 << a) != 0).collect();
            let columns: Vec<usize> = on.iter().map(|&a| known[a]).collect();
            let hidden: Vec<Option<&FixedBitSet>> = on
                .iter()
                .map(|&a| hidden.get(a).copied().flatten())
                .collect();
            let knowledge = super::Knowledge {
                columns: &columns,
                hidden: &hidden,
            };
            // Its own progress: the walk's is checked for cancellation
            // per combination, and its bar is not reset by each one.
            let matches = super::original_matches(ds, knowledge, None, &Progress::new())?.matches;
            let (mut uniques, mut pairs) = (0u64, 0u64);
            // Records by the size of their matched set.
            let mut by_size: FxHashMap<u32, u64> = FxHashMap::default();
            let keep = on.len() <= keep_uniques;
            let mut alone = FixedBitSet::with_capacity(if keep { rows } else { 0 });
            for (r, &m) in matches.iter().enumerate() {
                let records = ds.multiplicity(r);
                if m == 1 {
                    uniques += 1;
                    if keep {
                        alone.insert(r);
                    }
                }
                pairs += u64::from(records) * u64::from(m.saturating_sub(1));
                *by_size.entry(m.max(1)).or_default() += u64::from(records);
            }
            // Whole numbers, in no summation order: the same for a grouped
            // table as for its records.
            let sets: u64 = by_size
                .iter()
                .map(|(&m, &records)| records.div_ceil(u64::from(m)))
                .sum();
            Ok((
                Combination {
                    mask,
                    classes: sets,
                    pairs: pairs / 2,
                    uniques,
                },
                keep.then_some(alone),
            ))
        })
        .collect();
    let mut out = Walk::default();
    for v in visited {
        let (c, alone) = v?;
        if let Some(alone) = alone {
            out.uniques.insert(c.mask, alone);
        }
        out.combinations.push(c);
    }
    out.combinations.sort_unstable_by_key(|c| c.mask);
    Ok(out)
}

/// Combinations of at most this many attributes visit their children in
/// parallel (rayon tasks). The first attribute's branch holds half the
/// lattice, so splitting only there leaves one core with most of the work;
/// splitting on the first two levels gives 8 + 28 tasks for 8 attributes,
/// enough for work stealing to even out.
const PARALLEL_DEPTH: usize = 1;

struct Ctx<'a> {
    tuples: &'a Tuples,
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
        let t = self.tuples;
        // Items that become records alone in their class.
        let mut alone = Vec::new();
        // A partition of settled classes only stays as it is.
        let runs = if parent.runs() == 0 {
            parent.clone()
        } else {
            let space = self.columns[a].code_space;
            parent.refine(&t.codes[a], space, &t.weights, scratch, &mut alone)
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
            for &i in &alone {
                uniques.insert(t.row[i as usize] as usize);
            }
        }
        self.children(&runs, &uniques, mask, a + 1, size, scratch, out)?;
        if keep {
            out.uniques.insert(mask, uniques);
        }
        Ok(())
    }

    /// Visit `runs`' combination (`mask`, of `size` attributes) extended by
    /// each attribute from `first` on, and their descendants.
    #[allow(clippy::too_many_arguments)]
    fn children(
        &self,
        runs: &Runs,
        uniques: &FixedBitSet,
        mask: u32,
        first: usize,
        size: usize,
        scratch: &mut RefineScratch,
        out: &mut Walk,
    ) -> Result<()> {
        if size >= self.max_size {
            return Ok(());
        }
        let attrs = first..self.columns.len();
        if size > PARALLEL_DEPTH {
            for b in attrs {
                self.extend(runs, uniques, mask, b, size + 1, scratch, out)?;
            }
            return Ok(());
        }
        let parts: Vec<Result<Walk>> = attrs
            .into_par_iter()
            .map(|b| {
                let mut part = Walk::default();
                let mut scratch = RefineScratch::default();
                self.extend(runs, uniques, mask, b, size + 1, &mut scratch, &mut part)?;
                Ok(part)
            })
            .collect();
        for p in parts {
            let p = p?;
            out.combinations.extend(p.combinations);
            out.uniques.extend(p.uniques);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let w = walk(&cols, ds.n_rows(), None, 3, 2, &Progress::new()).unwrap();
        assert_eq!(w.combinations.len(), 7);
        for c in &w.combinations {
            let cols: Vec<usize> = (0..3).filter(|&a| c.mask & (1 << a) != 0).collect();
            let p = Partition::by_columns(&ds, &cols);
            assert_eq!(c.classes as usize, p.n_classes(), "{cols:?}");
            assert_eq!(c.uniques as usize, p.uniques(), "{cols:?}");
            let pairs: u64 = p
                .sizes()
                .iter()
                .map(|&s| u64::from(s) * u64::from(s - 1) / 2)
                .sum();
            assert_eq!(c.pairs, pairs, "{cols:?}");
            if cols.len() <= 2 {
                let u = &w.uniques[&c.mask];
                for r in 0..ds.n_rows() {
                    assert_eq!(u.contains(r), p.size_of_row(r) == 1, "{cols:?} row {r}");
                }
            } else {
                assert!(!w.uniques.contains_key(&c.mask));
            }
        }
        let limited = walk(&cols, ds.n_rows(), None, 1, 1, &Progress::new()).unwrap();
        assert_eq!(limited.combinations.len(), 3);
        // Without hidden cells a matched set is a class: the rule's walk
        // gives the same figures.
        let matched = walk_matched(&ds, &[0, 1, 2], &[], 3, 2, &Progress::new()).unwrap();
        assert_eq!(matched.combinations, w.combinations);
        assert_eq!(matched.uniques, w.uniques);
    }

    /// A hidden cell is a wildcard on both sides: the record is matched as
    /// if the attribute were not in the combination, and those it hides
    /// from match it there.
    #[test]
    fn a_hidden_cell_never_makes_its_record_unique() {
        let ds = Dataset::from_rows(
            &["a", "b"],
            &[
                vec!["1", "x"],
                vec!["1", "y"],
                vec!["2", "x"],
                vec!["3", "z"],
            ],
        )
        .unwrap();
        // Row 1's b hidden.
        let mut h = FixedBitSet::with_capacity(4);
        h.insert(1);
        let w = walk_matched(&ds, &[0, 1], &[None, Some(&h)], 2, 2, &Progress::new()).unwrap();
        let unique = |mask: u32| -> Vec<usize> { w.uniques[&mask].ones().collect() };
        // On {a}: rows 0 and 1 share 1.
        assert_eq!(unique(0b01), vec![2, 3]);
        // On {b}: row 1 matches everyone; row 3's z is matched by row 1 too.
        assert_eq!(unique(0b10), Vec::<usize>::new());
        // On {a, b}: row 1 is matched by row 0 (a = 1, b hidden), so it is
        // not unique although its visible key (1, ◆) is.
        assert_eq!(unique(0b11), vec![2, 3]);
        let ab = w.combinations.iter().find(|c| c.mask == 0b11).unwrap();
        // Pairs matching each other on {a, b}: (0, 1) only.
        assert_eq!((ab.uniques, ab.pairs), (2, 1));
    }
}
