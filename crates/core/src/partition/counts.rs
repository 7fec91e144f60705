//! Sensitive-value counts per equivalence class and for the whole table: the
//! only input every privacy model needs, and what risk (breach
//! probability), the release's bucket tables and the metrics count too —
//! so they live here, below all of them.
//!
//! Every model in `privacy` (l-diversity, t-closeness, δ-disclosure,
//! β-likeness, (α,k)-anonymity) reads a class as the multiset of its
//! sensitive values and compares it with the table's distribution. This file
//! builds those multisets once, sparsely: a class stores only the values it
//! holds, as `(code, count)` pairs in code order, so the cost is O(rows +
//! domain) whatever the number of classes — never a classes × domain matrix.
//!
//! A missing sensitive cell (`Column::missing_code()`) is counted as a value
//! of its own, shown as `?`. Dropping those rows would hide them from every
//! model, and merging them with some real value would invent data; as its
//! own value it is what an attacker sees in the published table. Because the
//! missing code is one past the dictionary, `?` ranks after every other value
//! in ordered distance.

use super::Partition;
use crate::data::Column;

/// How many rows of a class hold one sensitive value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ValueCount {
    pub code: u32,
    pub count: u32,
}

/// The sensitive values of every class of a partition, in compressed rows:
/// class `c`'s values are `entries[offsets[c]..offsets[c + 1]]`, in code
/// order, with non-zero counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassCounts {
    offsets: Vec<usize>,
    entries: Vec<ValueCount>,
    table: TableDistribution,
}

impl ClassCounts {
    pub fn n_classes(&self) -> usize {
        self.offsets.len() - 1
    }
    /// The values held by one class, in code order.
    pub fn class(&self, class: usize) -> &[ValueCount] {
        &self.entries[self.offsets[class]..self.offsets[class + 1]]
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[ValueCount]> + '_ {
        (0..self.n_classes()).map(move |c| self.class(c))
    }
    /// The distribution of the whole table the classes are compared with.
    pub fn table(&self) -> &TableDistribution {
        &self.table
    }
}

/// Count the sensitive values of every class of `partition`.
///
/// Two counting sorts (by value, then stably by class) leave each class's
/// codes sorted, so run-length encoding gives the counts in O(rows +
/// domain + classes) time, without hashing.
///
/// # Panics
///
/// If the partition and the column do not have the same number of rows:
/// that is a programming error, not bad input.
pub fn class_counts(partition: &Partition, sensitive: &Column) -> ClassCounts {
    assert_eq!(
        partition.n_rows(),
        sensitive.len(),
        "partition and sensitive column '{}' differ in row count",
        sensitive.name()
    );
    match partition.multiplicities() {
        None => plain_counts(partition, sensitive),
        Some(w) => weighted_counts(partition, sensitive, w),
    }
}

/// [`class_counts`] with one record per row.
fn plain_counts(partition: &Partition, sensitive: &Column) -> ClassCounts {
    let table = TableDistribution::new(sensitive);
    let codes = sensitive.codes();
    let class_of = partition.class_ids();
    let n = codes.len();

    let mut code_start = Vec::with_capacity(table.counts.len() + 1);
    let mut acc = 0usize;
    code_start.push(0);
    for &c in &table.counts {
        acc += c as usize;
        code_start.push(acc);
    }
    let mut fill = code_start.clone();
    let mut classes_by_code = vec![0u32; n];
    for (&code, &class) in codes.iter().zip(class_of) {
        let slot = &mut fill[code as usize];
        classes_by_code[*slot] = class;
        *slot += 1;
    }

    let sizes = partition.sizes();
    let mut class_fill = Vec::with_capacity(sizes.len());
    let mut acc = 0usize;
    for &s in sizes {
        class_fill.push(acc);
        acc += s as usize;
    }
    let class_start = class_fill.clone();
    let mut codes_by_class = vec![0u32; n];
    for code in 0..table.counts.len() {
        for &class in &classes_by_code[code_start[code]..code_start[code + 1]] {
            let slot = &mut class_fill[class as usize];
            codes_by_class[*slot] = code as u32;
            *slot += 1;
        }
    }
    drop(classes_by_code);

    let mut offsets = Vec::with_capacity(sizes.len() + 1);
    let mut entries = Vec::new();
    offsets.push(0);
    for (class, &start) in class_start.iter().enumerate() {
        run_length(
            &codes_by_class[start..start + sizes[class] as usize],
            &mut entries,
        );
        offsets.push(entries.len());
    }
    ClassCounts {
        offsets,
        entries,
        table,
    }
}

/// [`class_counts`] of a grouped table: row `r` stands for `weights[r]`
/// records. The same two counting sorts, over rows, each run of equal
/// codes in a class then summing its rows' records.
fn weighted_counts(partition: &Partition, sensitive: &Column, weights: &[u32]) -> ClassCounts {
    let table = TableDistribution::weighted(sensitive, weights);
    let codes = sensitive.codes();
    let class_of = partition.class_ids();
    let n = codes.len();
    let mut code_start = vec![0usize; sensitive.code_space() + 1];
    for &c in codes {
        code_start[c as usize + 1] += 1;
    }
    for i in 1..code_start.len() {
        code_start[i] += code_start[i - 1];
    }
    let mut fill = code_start;
    let mut rows_by_code = vec![0u32; n];
    for (r, &code) in codes.iter().enumerate() {
        let slot = &mut fill[code as usize];
        rows_by_code[*slot] = r as u32;
        *slot += 1;
    }
    let mut class_start = vec![0usize; partition.n_classes() + 1];
    for &c in class_of {
        class_start[c as usize + 1] += 1;
    }
    for i in 1..class_start.len() {
        class_start[i] += class_start[i - 1];
    }
    let mut class_fill = class_start.clone();
    let mut by_class = vec![0u32; n];
    for &r in &rows_by_code {
        let slot = &mut class_fill[class_of[r as usize] as usize];
        by_class[*slot] = r;
        *slot += 1;
    }
    drop(rows_by_code);
    let mut offsets = Vec::with_capacity(class_start.len());
    let mut entries = Vec::new();
    offsets.push(0);
    for class in 0..partition.n_classes() {
        let rows = &by_class[class_start[class]..class_start[class + 1]];
        entries.extend(
            rows.chunk_by(|&a, &b| codes[a as usize] == codes[b as usize])
                .map(|run| ValueCount {
                    code: codes[run[0] as usize],
                    count: run.iter().map(|&r| weights[r as usize]).sum(),
                }),
        );
        offsets.push(entries.len());
    }
    ClassCounts {
        offsets,
        entries,
        table,
    }
}

/// The sensitive values of an arbitrary set of rows (a candidate group of an
/// algorithm, a bucket), in code order. O(r log r) in the number of rows.
pub fn counts_of_rows(rows: &[u32], sensitive: &Column) -> Vec<ValueCount> {
    let mut codes: Vec<u32> = rows.iter().map(|&r| sensitive.code(r as usize)).collect();
    codes.sort_unstable();
    let mut out = Vec::new();
    run_length(&codes, &mut out);
    out
}

/// [`counts_of_rows`] counting records: row `r` stands for
/// `multiplicities[r]` of them in a grouped table (one each when `None`).
pub fn counts_of_records(
    rows: &[u32],
    sensitive: &Column,
    multiplicities: Option<&[u32]>,
) -> Vec<ValueCount> {
    let Some(w) = multiplicities else {
        return counts_of_rows(rows, sensitive);
    };
    let mut pairs: Vec<(u32, u32)> = rows
        .iter()
        .map(|&r| (sensitive.code(r as usize), w[r as usize]))
        .collect();
    pairs.sort_unstable_by_key(|p| p.0);
    pairs
        .chunk_by(|a, b| a.0 == b.0)
        .map(|run| ValueCount {
            code: run[0].0,
            count: run.iter().map(|p| p.1).sum(),
        })
        .collect()
}

fn run_length(sorted: &[u32], out: &mut Vec<ValueCount>) {
    out.extend(sorted.chunk_by(|a, b| a == b).map(|run| ValueCount {
        code: run[0],
        count: run.len() as u32,
    }));
}

/// The distribution of a sensitive attribute over the whole table, with the
/// prefix sums ordered-distance EMD needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDistribution {
    /// Rows per code, indexed `0..=missing_code`.
    counts: Vec<u64>,
    total: u64,
    /// Whether the attribute's values are ordered (numeric columns): chooses
    /// ordered rather than equal distance for t-closeness.
    ordered: bool,
    /// Codes present in the table, ascending: the rank order of ordered
    /// distance.
    present: Vec<u32>,
    /// Rank of each code among `present`; `u32::MAX` for absent codes.
    rank: Vec<u32>,
    /// `cum[i]` = rows whose value has rank ≤ i.
    cum: Vec<u64>,
    /// `cum_sum[i]` = Σ_{r < i} cum[r], so a run of ranks sums in O(1).
    cum_sum: Vec<u128>,
}

impl TableDistribution {
    pub fn new(sensitive: &Column) -> Self {
        Self::from_counts(sensitive.frequencies(), sensitive.is_numeric())
    }

    /// The distribution of a grouped table's column: row `r` stands for
    /// `multiplicities[r]` records.
    pub fn weighted(sensitive: &Column, multiplicities: &[u32]) -> Self {
        let mut counts = vec![0u64; sensitive.code_space()];
        for (&c, &w) in sensitive.codes().iter().zip(multiplicities) {
            counts[c as usize] += u64::from(w);
        }
        Self::from_counts(counts, sensitive.is_numeric())
    }

    /// From rows per code (`counts[code]`); `ordered` selects ordered
    /// distance for t-closeness.
    pub fn from_counts(counts: Vec<u64>, ordered: bool) -> Self {
        let total = counts.iter().sum();
        let present: Vec<u32> = (0..counts.len() as u32)
            .filter(|&c| counts[c as usize] > 0)
            .collect();
        let mut rank = vec![u32::MAX; counts.len()];
        let mut cum = Vec::with_capacity(present.len());
        let mut cum_sum = Vec::with_capacity(present.len() + 1);
        let (mut c_acc, mut s_acc) = (0u64, 0u128);
        cum_sum.push(0);
        for (i, &code) in present.iter().enumerate() {
            rank[code as usize] = i as u32;
            c_acc += counts[code as usize];
            cum.push(c_acc);
            s_acc += c_acc as u128;
            cum_sum.push(s_acc);
        }
        Self {
            counts,
            total,
            ordered,
            present,
            rank,
            cum,
            cum_sum,
        }
    }

    /// Rows in the table.
    pub fn total(&self) -> u64 {
        self.total
    }
    /// Rows holding `code` in the whole table.
    pub fn count(&self, code: u32) -> u64 {
        self.counts.get(code as usize).copied().unwrap_or(0)
    }
    /// The table-wide frequency p(s) of a value.
    pub fn frequency(&self, code: u32) -> f64 {
        self.count(code) as f64 / self.total as f64
    }
    /// Number of distinct values in the table (`?` included when present):
    /// the m of ordered distance.
    pub fn distinct(&self) -> usize {
        self.present.len()
    }
    /// Codes present in the table, ascending.
    pub fn present(&self) -> &[u32] {
        &self.present
    }
    pub fn is_ordered(&self) -> bool {
        self.ordered
    }
    pub(crate) fn rank(&self, code: u32) -> u32 {
        self.rank[code as usize]
    }
    pub(crate) fn cum(&self) -> &[u64] {
        &self.cum
    }
    pub(crate) fn cum_sum(&self) -> &[u128] {
        &self.cum_sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;

    #[test]
    fn counts_per_class_are_sparse_and_sorted() {
        let ds = Dataset::from_rows(
            &["q", "s"],
            &[
                vec!["a", "y"],
                vec!["b", "x"],
                vec!["a", "x"],
                vec!["a", "y"],
                vec!["b", ""],
            ],
        )
        .unwrap();
        let p = Partition::by_columns(&ds, &[0]);
        let cc = class_counts(&p, ds.col(1));
        // Codes: x = 0, y = 1, missing = 2.
        assert_eq!(
            cc.class(0),
            &[
                ValueCount { code: 0, count: 1 },
                ValueCount { code: 1, count: 2 }
            ]
        );
        assert_eq!(
            cc.class(1),
            &[
                ValueCount { code: 0, count: 1 },
                ValueCount { code: 2, count: 1 }
            ]
        );
        assert_eq!(cc.table().total(), 5);
        assert_eq!(cc.table().distinct(), 3);
        assert_eq!(counts_of_rows(&[3, 0, 1], ds.col(1)), {
            vec![
                ValueCount { code: 0, count: 1 },
                ValueCount { code: 1, count: 2 },
            ]
        });
    }

    #[test]
    fn absent_codes_have_no_rank() {
        let t = TableDistribution::from_counts(vec![2, 0, 3], true);
        assert_eq!(t.present(), &[0, 2]);
        assert_eq!(t.rank(1), u32::MAX);
        assert_eq!(t.cum(), &[2, 5]);
        assert_eq!(t.cum_sum(), &[0, 2, 7]);
    }
}
