//! Equivalence classes: the one place records are grouped (STYLE.md, habit 8).
//!
//! A `Partition` assigns every row a class id in `0..n_classes`. It is built
//! by the attack simulator's trie, by hash grouping on columns, or by an
//! algorithm's release; privacy models, risk and metrics all read it the
//! same way.

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
}
