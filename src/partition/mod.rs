//! Equivalence classes: the one place records are grouped (STYLE.md, habit 8).
//!
//! A `Partition` assigns every row a class id in `0..n_classes`. It is built
//! by the attack simulator's trie, by hash grouping on columns, or by an
//! algorithm's release; privacy models, risk and metrics all read it the
//! same way.

mod counts;

pub use counts::{class_counts, counts_of_rows, ClassCounts, TableDistribution, ValueCount};

use rustc_hash::FxHashMap;

use crate::data::Dataset;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    class_of: Vec<u32>,
    sizes: Vec<u32>,
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
        Self { class_of, sizes }
    }

    /// Every row in one class (what an attacker who knows nothing sees).
    pub fn single(rows: usize) -> Self {
        Self::from_class_ids(vec![0; rows])
    }

    /// Group rows by equal codes on `columns`, by hashing. Class ids are
    /// given in order of first appearance.
    pub fn by_columns(ds: &Dataset, columns: &[usize]) -> Self {
        let n = ds.n_rows();
        if columns.is_empty() {
            return Self::single(n);
        }
        let cols: Vec<&[u32]> = columns.iter().map(|&c| ds.col(c).codes()).collect();
        let mut ids: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
        let mut class_of = Vec::with_capacity(n);
        let mut key = Vec::with_capacity(cols.len());
        for r in 0..n {
            key.clear();
            key.extend(cols.iter().map(|c| c[r]));
            let next = ids.len() as u32;
            let id = *ids.entry(key.clone()).or_insert(next);
            class_of.push(id);
        }
        Self::from_class_ids(class_of)
    }

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

    pub fn members(&self) -> Members {
        let mut offsets = Vec::with_capacity(self.sizes.len() + 1);
        let mut acc = 0usize;
        offsets.push(0);
        for &s in &self.sizes {
            acc += s as usize;
            offsets.push(acc);
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

/// A partition kept for refinement: each class of two or more rows is a
/// contiguous run of row ids; rows alone in their class are only counted,
/// since no further attribute can split them. Refining by one more column
/// costs time in the rows of multi-row classes only, which is what makes
/// walking every combination of quasi-identifiers cheap (attribute risks,
/// special uniques): deep in the lattice most rows are alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runs {
    rows: Vec<u32>,
    /// Start of each run in `rows`, then `rows.len()`.
    bounds: Vec<u32>,
    singles: usize,
}

/// Reusable buffers of [`Runs::refine`].
#[derive(Debug, Default)]
pub struct RefineScratch {
    counts: Vec<u32>,
    touched: Vec<u32>,
    sizes: Vec<u32>,
    buf: Vec<u32>,
    pairs: Vec<u64>,
}

/// Runs at most this long are split by sorting, longer ones by counting.
const SORT_RUN: usize = 48;

impl Runs {
    /// Every one of `rows` rows in one class.
    pub fn all(rows: usize) -> Self {
        if rows <= 1 {
            return Self {
                rows: Vec::new(),
                bounds: vec![0],
                singles: rows,
            };
        }
        Self {
            rows: (0..rows as u32).collect(),
            bounds: vec![0, rows as u32],
            singles: 0,
        }
    }

    /// Classes of one row.
    pub fn singles(&self) -> usize {
        self.singles
    }

    /// Classes of two or more rows.
    pub fn runs(&self) -> usize {
        self.bounds.len() - 1
    }

    pub fn classes(&self) -> usize {
        self.singles + self.runs()
    }

    /// Pairs of rows in the same class: Σ C(size, 2).
    pub fn pairs(&self) -> u64 {
        self.bounds
            .windows(2)
            .map(|w| {
                let s = u64::from(w[1] - w[0]);
                s * (s - 1) / 2
            })
            .sum()
    }

    /// The rows of each multi-row class.
    pub fn iter(&self) -> impl Iterator<Item = &[u32]> + '_ {
        self.bounds
            .windows(2)
            .map(|w| &self.rows[w[0] as usize..w[1] as usize])
    }

    /// The partition refined by `codes` (one per row, below `code_space`):
    /// rows stay together when they agree on `codes` too. Rows that become
    /// alone are appended to `new_singles`.
    pub fn refine(
        &self,
        codes: &[u32],
        code_space: usize,
        scratch: &mut RefineScratch,
        new_singles: &mut Vec<u32>,
    ) -> Runs {
        let mut out = Runs {
            rows: Vec::with_capacity(self.rows.len()),
            bounds: vec![0],
            singles: self.singles,
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
                    while j < scratch.pairs.len() && scratch.pairs[j] >> 32 == code {
                        j += 1;
                    }
                    out.push_run(
                        scratch.pairs[i..j].iter().map(|&p| p as u32),
                        j - i,
                        new_singles,
                    );
                    i = j;
                }
            } else {
                // Counting sort, stable, over the codes this run uses.
                let RefineScratch {
                    counts,
                    touched,
                    sizes,
                    buf,
                    ..
                } = scratch;
                touched.clear();
                for &r in run {
                    let c = codes[r as usize] as usize;
                    if counts[c] == 0 {
                        touched.push(c as u32);
                    }
                    counts[c] += 1;
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
                    let size = size as usize;
                    out.push_run(buf[start..start + size].iter().copied(), size, new_singles);
                    start += size;
                }
            }
        }
        out
    }

    fn push_run(
        &mut self,
        rows: impl Iterator<Item = u32>,
        len: usize,
        new_singles: &mut Vec<u32>,
    ) {
        if len == 1 {
            self.singles += 1;
            new_singles.extend(rows);
        } else {
            self.rows.extend(rows);
            self.bounds.push(self.rows.len() as u32);
        }
    }
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
        let mut scratch = RefineScratch::default();
        let mut alone = Vec::new();
        for upto in 1..=3 {
            let col = ds.col(upto - 1);
            runs = runs.refine(col.codes(), col.code_space(), &mut scratch, &mut alone);
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
