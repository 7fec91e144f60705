//! What `QueryEngine` needs to visit groups row by row — groups that are
//! not whole (see `cell_table`), and every group for a query with a
//! predicate outside the QIs — and to answer a query's actual value by a
//! scan when `metrics::actual`'s index declined. Built on first need: the
//! paper's workload on a release whose groups are all whole (Mondrian's,
//! full-domain's) never needs it.

use rustc_hash::FxHashMap;

use crate::data::{Column, Dataset};
use crate::privacy::{counts_of_rows, ValueCount};
use crate::release::Release;
use crate::risk::ValueBuckets;

use super::{sum_value, SINGLE};

pub(super) struct RowIndex {
    /// Published rows, ascending.
    pub published: Vec<u32>,
    /// Per bucket: prefix sums of its values ascending, then descending
    /// (|B| + 1 each, at `prefix_at[b]`), and its negative and positive
    /// value counts.
    pub prefix_at: Vec<usize>,
    pub ascending: Vec<f64>,
    pub descending: Vec<f64>,
    pub negatives: Vec<u32>,
    pub positives: Vec<u32>,
    /// Per group whose rows all keep their target value on the row (no
    /// bucket of more than one row): its totals, so that a group that
    /// satisfies a query as a whole is added without visiting its rows.
    pub totals: Vec<Option<GroupTotals>>,
    /// Target values per group, (code, count) in code order, at
    /// `group_values_at[g]..group_values_at[g + 1]`.
    pub group_values_at: Vec<usize>,
    pub group_values: Vec<ValueCount>,
    /// Group rows concatenated (group g at `row_at[g]..row_at[g + 1]`), with
    /// per position the row's multi-row bucket (`SINGLE` when its value is
    /// on the row), its target code and its QI codes, so that the per-row
    /// pass of a query reads memory in order.
    pub row_at: Vec<usize>,
    pub row_bucket: Vec<u32>,
    pub row_target: Vec<u32>,
    pub row_qi: Vec<Vec<u32>>,
    /// Without the bitset index: the published rows' distinct QI
    /// combinations (d codes each, flat), with the target values of their
    /// rows, for the actual answers: rows with equal QI values satisfy the
    /// same queries.
    pub combos: Vec<u32>,
    pub combo_values_at: Vec<usize>,
    pub combo_values: Vec<ValueCount>,
}

/// Σ of a group's target values, and of its negative and positive ones.
#[derive(Debug, Clone, Copy)]
pub(super) struct GroupTotals {
    pub sum: f64,
    pub negative: f64,
    pub positive: f64,
}

impl RowIndex {
    /// `with_combos`: also the combinations for actual answers by scan.
    pub fn new(
        release: &Release,
        ds: &Dataset,
        tcol: &Column,
        buckets: &ValueBuckets,
        with_combos: bool,
    ) -> Self {
        let mut published: Vec<u32> = release
            .groups
            .iter()
            .flat_map(|g| g.rows.iter().copied())
            .collect();
        published.sort_unstable();
        let mut prefix_at = Vec::with_capacity(buckets.len());
        let (mut ascending, mut descending) = (Vec::new(), Vec::new());
        let (mut negatives, mut positives) = (Vec::new(), Vec::new());
        let mut values = Vec::new();
        for b in 0..buckets.len() {
            prefix_at.push(ascending.len());
            values.clear();
            for v in buckets.values(b) {
                let x = sum_value(tcol, v.code);
                values.extend(std::iter::repeat_n(x, v.count as usize));
            }
            values.sort_unstable_by(f64::total_cmp);
            negatives.push(values.iter().filter(|&&x| x < 0.0).count() as u32);
            positives.push(values.iter().filter(|&&x| x > 0.0).count() as u32);
            let mut acc = 0.0;
            ascending.push(0.0);
            for &x in &values {
                acc += x;
                ascending.push(acc);
            }
            acc = 0.0;
            descending.push(0.0);
            for &x in values.iter().rev() {
                acc += x;
                descending.push(acc);
            }
        }
        let mut totals = Vec::with_capacity(release.groups.len());
        let mut group_values_at = vec![0usize];
        let mut group_values = Vec::new();
        for g in &release.groups {
            let on_rows = g.rows.iter().all(|&r| {
                buckets
                    .bucket_of_row(r as usize)
                    .is_some_and(|b| buckets.size(b) == 1)
            });
            let values = counts_of_rows(&g.rows, tcol);
            totals.push(on_rows.then(|| {
                let mut t = GroupTotals {
                    sum: 0.0,
                    negative: 0.0,
                    positive: 0.0,
                };
                for v in &values {
                    let x = sum_value(tcol, v.code) * f64::from(v.count);
                    t.sum += x;
                    t.negative += x.min(0.0);
                    t.positive += x.max(0.0);
                }
                t
            }));
            group_values.extend(values);
            group_values_at.push(group_values.len());
        }
        let (combos, combo_values_at, combo_values) = if with_combos {
            combinations(release, ds, &published, tcol)
        } else {
            (Vec::new(), Vec::new(), Vec::new())
        };
        let mut row_at = vec![0usize];
        let (mut row_bucket, mut row_target) = (Vec::new(), Vec::new());
        let mut row_qi: Vec<Vec<u32>> = vec![Vec::new(); release.quasi_identifiers.len()];
        for g in &release.groups {
            for &r in &g.rows {
                let r = r as usize;
                row_bucket.push(match buckets.bucket_of_row(r) {
                    Some(b) if buckets.size(b) > 1 => b as u32,
                    _ => SINGLE,
                });
                row_target.push(tcol.code(r));
                for (codes, &c) in row_qi.iter_mut().zip(&release.quasi_identifiers) {
                    codes.push(ds.col(c).code(r));
                }
            }
            row_at.push(row_bucket.len());
        }
        RowIndex {
            published,
            prefix_at,
            ascending,
            descending,
            negatives,
            positives,
            totals,
            group_values_at,
            group_values,
            row_at,
            row_bucket,
            row_target,
            row_qi,
            combos,
            combo_values_at,
            combo_values,
        }
    }
}

/// The distinct QI combinations of the published rows, flat, with each
/// combination's target values (code order).
fn combinations(
    release: &Release,
    ds: &Dataset,
    published: &[u32],
    target: &Column,
) -> (Vec<u32>, Vec<usize>, Vec<ValueCount>) {
    let qi = &release.quasi_identifiers;
    let mut ids: FxHashMap<Box<[u32]>, usize> = FxHashMap::default();
    let mut members: Vec<Vec<u32>> = Vec::new();
    let mut combos = Vec::new();
    let mut key = Vec::with_capacity(qi.len());
    for &r in published {
        key.clear();
        key.extend(qi.iter().map(|&c| ds.col(c).code(r as usize)));
        let id = *ids
            .entry(key.clone().into_boxed_slice())
            .or_insert_with(|| {
                combos.extend_from_slice(&key);
                members.push(Vec::new());
                members.len() - 1
            });
        members[id].push(r);
    }
    if qi.is_empty() && !published.is_empty() {
        // One combination, with no codes: every row.
        members = vec![published.to_vec()];
    }
    let mut at = vec![0usize];
    let mut values = Vec::new();
    for rows in &members {
        values.extend(counts_of_rows(rows, target));
        at.push(values.len());
    }
    (combos, at, values)
}
