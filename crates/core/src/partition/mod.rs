//! Equivalence classes: the one place records are grouped (STYLE.md, habit 8).
//!
//! A `Partition` assigns every row a class id in `0..n_classes`. It is built
//! by the attack simulator's trie, by hash grouping on columns, or by an
//! algorithm's release; privacy models, risk and metrics all read it the
//! same way.

mod counts;

pub use counts::{
    class_counts, counts_of_records, counts_of_rows, ClassCounts, TableDistribution, ValueCount,
};

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::data::Dataset;

/// A class id per row, and each class's size in records. Over a grouped
/// dataset (`Dataset::is_grouped`: a row stands for several identical
/// records) the partition carries the rows' multiplicities, its sizes
/// count records, and [`class_counts`] counts values by record: every
/// model reading classes then sees the table the rows stand for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    class_of: Vec<u32>,
    sizes: Vec<u32>,
    /// Records per row; `None`: one each.
    multiplicities: Option<Arc<[u32]>>,
}

/// Rows of each class, stored contiguously (compressed sparse rows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Members {
    offsets: Vec<usize>,
    rows: Vec<u32>,
}

impl Members {
    pub fn class(&self, class: usize) -> &[u32] {
        &self.rows[self.offsets[class]..self.offsets[class + 1]]
    }
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn iter(&self) -> impl Iterator<Item = &[u32]> + '_ {
        (0..self.len()).map(move |c| self.class(c))
    }
}

impl Partition {
    /// From a class id per row. Ids must be dense in `0..n_classes`.
    pub fn from_class_ids(class_of: Vec<u32>) -> Self {
        let n = class_of.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut sizes = vec![0u32; n];
        for &c in &class_of {
            sizes[c as usize] += 1;
        }
        Self {
            class_of,
            sizes,
            multiplicities: None,
        }
    }

    /// The same classes over rows standing for `multiplicities` records
    /// each (`None`: one record per row): sizes count records.
    pub fn weighted(mut self, multiplicities: Option<Arc<[u32]>>) -> Self {
        if let Some(m) = &multiplicities {
            debug_assert_eq!(m.len(), self.class_of.len());
            self.sizes.iter_mut().for_each(|s| *s = 0);
            for (&c, &w) in self.class_of.iter().zip(m.iter()) {
                self.sizes[c as usize] += w;
            }
        }
        self.multiplicities = multiplicities;
        self
    }

    /// Records row `row` stands for (1 unless the partition is weighted).
    #[inline]
    pub fn multiplicity(&self, row: usize) -> u32 {
        self.multiplicities.as_ref().map_or(1, |m| m[row])
    }

    /// Records per row, when rows stand for several records.
    pub fn multiplicities(&self) -> Option<&[u32]> {
        self.multiplicities.as_deref()
    }

    /// Records in all classes.
    pub fn n_records(&self) -> u64 {
        match &self.multiplicities {
            Some(m) => m.iter().map(|&w| u64::from(w)).sum(),
            None => self.class_of.len() as u64,
        }
    }

    /// Every row in one class (what an attacker who knows nothing sees).
    pub fn single(rows: usize) -> Self {
        Self::from_class_ids(vec![0; rows])
    }

    /// Group rows by equal codes on `columns`, by hashing. Class ids are
    /// given in order of first appearance; over a grouped dataset the
    /// sizes count records.
    pub fn by_columns(ds: &Dataset, columns: &[usize]) -> Self {
        let cols: Vec<(&[u32], usize)> = columns
            .iter()
            .map(|&c| (ds.col(c).codes(), ds.col(c).code_space()))
            .collect();
        Self::by_codes(&cols, ds.n_rows()).weighted(ds.shared_multiplicities())
    }

    /// Group `rows` rows by equal codes on `columns` (each a code per row
    /// and its code space), by hashing; class ids in order of first
    /// appearance. A row's codes are packed into one integer when they fit
    /// in 64 bits (each column in the bits its code space needs, so the
    /// packing is one to one).
    pub fn by_codes(columns: &[(&[u32], usize)], rows: usize) -> Self {
        if columns.is_empty() {
            return Self::single(rows);
        }
        let widths: Vec<u32> = columns
            .iter()
            .map(|&(_, space)| (usize::BITS - space.saturating_sub(1).leading_zeros()).max(1))
            .collect();
        let mut class_of = Vec::with_capacity(rows);
        if widths.iter().sum::<u32>() <= 64 {
            let mut ids: FxHashMap<u64, u32> = FxHashMap::default();
            for r in 0..rows {
                let key = columns
                    .iter()
                    .zip(&widths)
                    .fold(0u64, |k, (&(codes, _), &w)| (k << w) | u64::from(codes[r]));
                let next = ids.len() as u32;
                class_of.push(*ids.entry(key).or_insert(next));
            }
        } else {
            let mut ids: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
            let mut key = Vec::with_capacity(columns.len());
            for r in 0..rows {
                key.clear();
                key.extend(columns.iter().map(|&(codes, _)| codes[r]));
                let next = ids.len() as u32;
                let id = *ids.entry(key.clone()).or_insert(next);
                class_of.push(id);
            }
        }
        Self::from_class_ids(class_of)
    }

    /// Rows partitioned (of a grouped dataset: distinct combinations, see
    /// [`Partition::n_records`]).
    pub fn n_rows(&self) -> usize {
        self.class_of.len()
    }
    pub fn n_classes(&self) -> usize {
        self.sizes.len()
    }
    pub fn class_of(&self, row: usize) -> u32 {
        self.class_of[row]
    }
    pub fn class_ids(&self) -> &[u32] {
        &self.class_of
    }
    pub fn sizes(&self) -> &[u32] {
        &self.sizes
    }
    /// Size of the class a row falls in.
    pub fn size_of_row(&self, row: usize) -> u32 {
        self.sizes[self.class_of[row] as usize]
    }
    /// Smallest class size (the k of k-anonymity); 0 for an empty table.
    pub fn min_size(&self) -> u32 {
        self.sizes.iter().copied().min().unwrap_or(0)
    }
    /// Rows alone in their class.
    pub fn uniques(&self) -> usize {
        self.sizes.iter().filter(|&&s| s == 1).count()
    }

    /// Rows of each class (of a grouped table: its combinations).
    pub fn members(&self) -> Members {
        let mut offsets = Vec::with_capacity(self.sizes.len() + 1);
        offsets.push(0);
        if self.multiplicities.is_some() {
            // Sizes count records: count the rows again.
            offsets.resize(self.sizes.len() + 1, 0);
            for &c in &self.class_of {
                offsets[c as usize + 1] += 1;
            }
            for i in 1..offsets.len() {
                offsets[i] += offsets[i - 1];
            }
        } else {
            let mut acc = 0usize;
            for &s in &self.sizes {
                acc += s as usize;
                offsets.push(acc);
            }
        }
        let mut fill = offsets.clone();
        let mut rows = vec![0u32; self.class_of.len()];
        for (r, &c) in self.class_of.iter().enumerate() {
            rows[fill[c as usize]] = r as u32;
            fill[c as usize] += 1;
        }
        Members { offsets, rows }
    }
}

/// A partition kept for refinement, over weighted items: an item is a row,
/// or a class of identical rows standing for all of them (its weight, the
/// rows it holds). Each class of two or more items is a contiguous run of
/// item ids; a class of one item is settled — no further attribute can
/// split it, so it is only counted (its pairs, and whether it is a unique
/// record: weight 1). Refining by one more column costs time in the items
/// of multi-item runs only, which is what makes walking every combination
/// of quasi-identifiers cheap (attribute risks, special uniques): deep in
/// the lattice most items are settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runs {
    items: Vec<u32>,
    /// Start of each run in `items`, then `items.len()`.
    bounds: Vec<u32>,
    /// Classes of one item.
    settled: usize,
    /// Settled classes of weight 1: records alone in their class.
    singles: usize,
    /// Σ C(weight, 2) over the settled classes.
    settled_pairs: u64,
    /// Σ C(weight, 2) over the runs.
    run_pairs: u64,
}

/// Reusable buffers of [`Runs::refine`].
#[derive(Debug, Default)]
pub struct RefineScratch {
    counts: Vec<u32>,
    /// Per code, the weight of the run's items with it.
    weight: Vec<u64>,
    touched: Vec<u32>,
    sizes: Vec<u32>,
    buf: Vec<u32>,
    pairs: Vec<u64>,
}

/// Runs at most this long are split by sorting, longer ones by counting.
const SORT_RUN: usize = 48;

/// C(w, 2).
fn pairs_of(w: u64) -> u64 {
    w * w.saturating_sub(1) / 2
}

impl Runs {
    /// Every one of `rows` rows (weight 1 each) in one class.
    pub fn all(rows: usize) -> Self {
        Self::of_weights(&vec![1; rows])
    }

    /// Every item in one class; item i stands for `weights[i]` (≥ 1) rows.
    pub fn of_weights(weights: &[u32]) -> Self {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        let mut out = Runs {
            items: Vec::new(),
            bounds: vec![0],
            settled: 0,
            singles: 0,
            settled_pairs: 0,
            run_pairs: 0,
        };
        match weights.len() {
            0 => {}
            1 => {
                out.settled = 1;
                out.singles = usize::from(weights[0] == 1);
                out.settled_pairs = pairs_of(total);
            }
            n => {
                out.items = (0..n as u32).collect();
                out.bounds.push(n as u32);
                out.run_pairs = pairs_of(total);
            }
        }
        out
    }

    /// Classes of one record.
    pub fn singles(&self) -> usize {
        self.singles
    }

    /// Classes of two or more items.
    pub fn runs(&self) -> usize {
        self.bounds.len() - 1
    }

    pub fn classes(&self) -> usize {
        self.settled + self.runs()
    }

    /// Pairs of records in the same class: Σ C(size, 2).
    pub fn pairs(&self) -> u64 {
        self.settled_pairs + self.run_pairs
    }

    /// The items of each multi-item class.
    pub fn iter(&self) -> impl Iterator<Item = &[u32]> + '_ {
        self.bounds
            .windows(2)
            .map(|w| &self.items[w[0] as usize..w[1] as usize])
    }

    /// The partition refined by `codes` (one per item, below `code_space`;
    /// `weights` as given to [`Runs::of_weights`], all 1 for [`Runs::all`]):
    /// items stay together when they agree on `codes` too. Items that
    /// become records alone in their class are appended to `new_singles`.
    pub fn refine(
        &self,
        codes: &[u32],
        code_space: usize,
        weights: &[u32],
        scratch: &mut RefineScratch,
        new_singles: &mut Vec<u32>,
    ) -> Runs {
        let mut out = Runs {
            items: Vec::with_capacity(self.items.len()),
            bounds: vec![0],
            settled: self.settled,
            singles: self.singles,
            settled_pairs: self.settled_pairs,
            run_pairs: 0,
        };
        if scratch.counts.len() < code_space {
            scratch.counts.resize(code_space, 0);
        }
        for run in self.iter() {
            if run.len() <= SORT_RUN {
                scratch.pairs.clear();
                scratch.pairs.extend(
                    run.iter()
                        .map(|&r| (u64::from(codes[r as usize]) << 32) | u64::from(r)),
                );
                scratch.pairs.sort_unstable();
                let mut i = 0;
                while i < scratch.pairs.len() {
                    let code = scratch.pairs[i] >> 32;
                    let mut j = i + 1;
                    let mut w = u64::from(weights[scratch.pairs[i] as u32 as usize]);
                    while j < scratch.pairs.len() && scratch.pairs[j] >> 32 == code {
                        w += u64::from(weights[scratch.pairs[j] as u32 as usize]);
                        j += 1;
                    }
                    out.push_run(
                        scratch.pairs[i..j].iter().map(|&p| p as u32),
                        w,
                        new_singles,
                    );
                    i = j;
                }
            } else {
                // Counting sort, stable, over the codes this run uses:
                // found by scanning the counts when the code space is
                // small next to the run (no unpredictable branch per
                // item), else listed as they first appear.
                let RefineScratch {
                    counts,
                    weight,
                    touched,
                    sizes,
                    buf,
                    ..
                } = scratch;
                if weight.len() < code_space {
                    weight.resize(code_space, 0);
                }
                touched.clear();
                if code_space <= 4 * run.len() {
                    for &r in run {
                        let c = codes[r as usize] as usize;
                        counts[c] += 1;
                        weight[c] += u64::from(weights[r as usize]);
                    }
                    touched.extend((0..code_space as u32).filter(|&c| counts[c as usize] > 0));
                } else {
                    for &r in run {
                        let c = codes[r as usize] as usize;
                        if counts[c] == 0 {
                            touched.push(c as u32);
                        }
                        counts[c] += 1;
                        weight[c] += u64::from(weights[r as usize]);
                    }
                }
                sizes.clear();
                let mut at = 0u32;
                for &c in touched.iter() {
                    let size = counts[c as usize];
                    sizes.push(size);
                    counts[c as usize] = at;
                    at += size;
                }
                buf.clear();
                buf.resize(run.len(), 0);
                for &r in run {
                    let c = codes[r as usize] as usize;
                    buf[counts[c] as usize] = r;
                    counts[c] += 1;
                }
                let mut start = 0usize;
                for (&c, &size) in touched.iter().zip(sizes.iter()) {
                    counts[c as usize] = 0;
                    let w = std::mem::take(&mut weight[c as usize]);
                    let size = size as usize;
                    out.push_run(buf[start..start + size].iter().copied(), w, new_singles);
                    start += size;
                }
            }
        }
        out
    }

    /// Add one class of the refined partition: its items and their total
    /// weight.
    fn push_run(&mut self, items: impl Iterator<Item = u32>, w: u64, new_singles: &mut Vec<u32>) {
        let start = self.items.len();
        self.items.extend(items);
        if self.items.len() - start == 1 {
            let item = self.items.pop().expect("one item");
            self.settled += 1;
            self.settled_pairs += pairs_of(w);
            if w == 1 {
                self.singles += 1;
                new_singles.push(item);
            }
        } else {
            self.run_pairs += pairs_of(w);
            self.bounds.push(self.items.len() as u32);
        }
    }
}

/// Which of `shards` a key of hash (or value) `hash` goes to, when keys
/// are split across cores, one map per core: Fibonacci hashing's top
/// bits. A key's low bits are its last attribute's codes, and FxHash's
/// low bits pick a map's buckets, so a shard taken from either would split
/// unevenly or leave part of each map unused.
pub fn shard_of(hash: u64, shards: usize) -> usize {
    ((hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize * shards) >> 32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_by_columns() {
        let ds = Dataset::from_rows(
            &["a", "b"],
            &[
                vec!["1", "x"],
                vec!["1", "y"],
                vec!["1", "x"],
                vec!["2", "x"],
            ],
        )
        .unwrap();
        let p = Partition::by_columns(&ds, &[0, 1]);
        assert_eq!(p.n_classes(), 3);
        assert_eq!(p.class_ids(), &[0, 1, 0, 2]);
        assert_eq!(p.min_size(), 1);
        assert_eq!(p.uniques(), 2);
        let m = p.members();
        assert_eq!(m.class(0), &[0, 2]);
        assert_eq!(m.class(2), &[3]);
        assert_eq!(Partition::by_columns(&ds, &[]).n_classes(), 1);
    }

    #[test]
    fn refining_runs_agrees_with_hash_grouping() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        // Long runs (counting sort) and short ones (sorting) both occur.
        let rows: Vec<Vec<String>> = (0..400)
            .map(|_| {
                (0..3)
                    .map(|c| rng.random_range(0..[2, 5, 40][c]).to_string())
                    .collect()
            })
            .collect();
        let refs: Vec<Vec<&str>> = rows
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        let ds = Dataset::from_rows(&["a", "b", "c"], &refs).unwrap();
        let mut runs = Runs::all(ds.n_rows());
        let ones = vec![1; ds.n_rows()];
        let mut scratch = RefineScratch::default();
        let mut alone = Vec::new();
        for upto in 1..=3 {
            let col = ds.col(upto - 1);
            runs = runs.refine(
                col.codes(),
                col.code_space(),
                &ones,
                &mut scratch,
                &mut alone,
            );
            let p = Partition::by_columns(&ds, &(0..upto).collect::<Vec<_>>());
            assert_eq!(runs.classes(), p.n_classes());
            assert_eq!(runs.singles(), p.uniques());
            let pairs: u64 = p
                .sizes()
                .iter()
                .map(|&s| u64::from(s) * u64::from(s.saturating_sub(1)) / 2)
                .sum();
            assert_eq!(runs.pairs(), pairs);
            for run in runs.iter() {
                assert!(run
                    .iter()
                    .all(|&r| p.class_of(r as usize) == p.class_of(run[0] as usize)));
                assert_eq!(run.len() as u32, p.size_of_row(run[0] as usize));
            }
            let mut singles: Vec<u32> = (0..ds.n_rows() as u32)
                .filter(|&r| p.size_of_row(r as usize) == 1)
                .collect();
            let mut got = alone.clone();
            got.sort_unstable();
            singles.sort_unstable();
            assert_eq!(got, singles);
        }
        assert_eq!(Runs::all(1).singles(), 1);
        assert_eq!(Runs::all(0).classes(), 0);
    }
}
