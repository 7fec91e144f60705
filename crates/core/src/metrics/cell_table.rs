//! The distinct published cells of a release, per quasi-identifier, and
//! each group's cell among them: the query workload judges a predicate
//! once per distinct cell, not once per group.
//!
//! Groups of a generalized release share few cells per attribute (on Adult
//! with Mondrian at k = 5: 2,962 groups, a few hundred age intervals and a
//! few dozen sets elsewhere), so a query first computes, for each of its
//! predicates, the share of every distinct cell's codes that satisfy it —
//! what `queries::QueryEngine` reads as all / some / none and
//! `prob_queries::ProbabilisticEngine` as Pro_t(A) — and the pass over the
//! groups is then one table lookup per group and predicate.
//!
//! Most groups of most releases are *whole*: no `Original` cell, each row's
//! target value on its own row (no bucket detaches it) and no local bucket
//! on any of its rows. A query whose predicates are all on QIs gives every
//! row of a whole group the same chance to satisfy it — the product of its
//! cells' shares ([`WholeGroups::products`], one pass over a group-major
//! table of cell ids, a group left at its first share of 0, and under
//! COUNT(target = v) only over the groups holding v) — so both engines add
//! such a group's target totals at once; only the other groups are visited
//! row by row ([`WholeGroups::partial`]). The share of a set of codes is a
//! popcount of two bit masks when the column has at most 128 codes. The
//! cell table, the target's buckets and the whole groups ([`Layout`]) are
//! built once for both readings of one workload.

use rustc_hash::FxHashMap;

use crate::data::{Column, Dataset};
use crate::privacy::{counts_of_rows, ValueCount};
use crate::release::{Cell, Release};
use crate::risk::ValueBuckets;

use super::queries::{Aggregate, Query};

/// The share of an `Original` cell: each row's own value decides.
pub(crate) const ORIGINAL: f64 = -1.0;

/// A cell as the codes it stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Compact {
    Original,
    /// Codes `lo..=hi`: an exact value, an interval, a suppressed cell
    /// (every code, the missing one too when the column has missing cells).
    Range(u32, u32),
    /// A slice of `set_codes`.
    Set(u32, u32),
}

pub(crate) struct CellTable {
    /// Per QI position: its distinct cells.
    cells: Vec<Vec<Compact>>,
    set_codes: Vec<u32>,
    /// Per QI position whose codes fit in 128 bits: each cell's set of
    /// codes as a bit mask (0 for a cell that is no set), so that a
    /// predicate's share of a set is one popcount instead of a look-up per
    /// code. `None` for a wider column, or one whose sets repeat a code.
    masks: Vec<Option<Vec<u128>>>,
    groups: usize,
    /// `ids[a * groups + g]`: group g's cell on QI a.
    ids: Vec<u32>,
}

/// One query's predicates evaluated: per predicate, whether each code of
/// its column satisfies it (the missing code never does), the satisfying
/// codes below each code, and — for a predicate on a QI — the share of
/// each distinct cell of that QI that satisfies it ([`ORIGINAL`] for an
/// `Original` cell).
#[derive(Debug, Default)]
pub(crate) struct Prepared {
    pub tables: Vec<Vec<bool>>,
    pub prefix: Vec<Vec<u32>>,
    pub shares: Vec<Vec<f64>>,
}

impl CellTable {
    pub fn new(release: &Release, ds: &Dataset) -> Self {
        let d = release.quasi_identifiers.len();
        let n_groups = release.groups.len();
        let mut set_codes = Vec::new();
        let mut cells = vec![Vec::new(); d];
        let mut ids = vec![0u32; release.groups.len() * d];
        for (a, &c) in release.quasi_identifiers.iter().enumerate() {
            let col = ds.col(c);
            let missing = col.missing_code();
            let top = if col.missing_count() > 0 {
                missing
            } else {
                missing.saturating_sub(1)
            };
            let mut ranges: FxHashMap<Compact, u32> = FxHashMap::default();
            let mut sets: FxHashMap<&[u32], u32> = FxHashMap::default();
            for (g, group) in release.groups.iter().enumerate() {
                let id = match &group.cells[a] {
                    Cell::Set { codes, .. } => *sets.entry(codes.as_slice()).or_insert_with(|| {
                        let start = set_codes.len() as u32;
                        set_codes.extend_from_slice(codes);
                        cells[a].push(Compact::Set(start, set_codes.len() as u32));
                        (cells[a].len() - 1) as u32
                    }),
                    other => {
                        let compact = match other {
                            Cell::Original => Compact::Original,
                            Cell::Value { code } => Compact::Range(*code, *code),
                            Cell::Interval { lo, hi } => Compact::Range(*lo, *hi),
                            _ => Compact::Range(0, top),
                        };
                        *ranges.entry(compact).or_insert_with(|| {
                            cells[a].push(compact);
                            (cells[a].len() - 1) as u32
                        })
                    }
                };
                ids[a * n_groups + g] = id;
            }
        }
        let masks = release
            .quasi_identifiers
            .iter()
            .zip(&cells)
            .map(|(&c, cells)| {
                if ds.col(c).code_space() > 128 {
                    return None;
                }
                cells
                    .iter()
                    .map(|cell| match *cell {
                        Compact::Set(start, end) => {
                            let codes = &set_codes[start as usize..end as usize];
                            if codes.is_empty() || codes.iter().any(|&c| c >= 128) {
                                return None;
                            }
                            let mask = codes.iter().fold(0u128, |m, &c| m | 1 << c);
                            (mask.count_ones() as usize == codes.len()).then_some(mask)
                        }
                        _ => Some(0),
                    })
                    .collect()
            })
            .collect();
        CellTable {
            groups: n_groups,
            cells,
            set_codes,
            masks,
            ids,
        }
    }

    /// Group `g`'s cell id on QI position `a`.
    pub fn id(&self, g: usize, a: usize) -> usize {
        self.ids[a * self.groups + g] as usize
    }

    fn qis(&self) -> usize {
        self.cells.len()
    }

    /// Evaluate `query`'s predicates; `position[c]` is the QI position of
    /// dataset column c, if it is a QI.
    pub fn prepare(
        &self,
        ds: &Dataset,
        position: &[Option<usize>],
        query: &Query,
        out: &mut Prepared,
    ) {
        let n = query.predicates.len();
        out.tables.resize_with(n.max(out.tables.len()), Vec::new);
        out.prefix.resize_with(n.max(out.prefix.len()), Vec::new);
        out.shares.resize_with(n.max(out.shares.len()), Vec::new);
        for (i, p) in query.predicates.iter().enumerate() {
            let col = ds.col(p.column);
            let missing = col.missing_code();
            let table = &mut out.tables[i];
            table.clear();
            table
                .extend((0..col.code_space() as u32).map(|c| c != missing && p.condition.holds(c)));
            let pre = &mut out.prefix[i];
            pre.clear();
            pre.push(0);
            let mut acc = 0;
            for &t in table.iter() {
                acc += u32::from(t);
                pre.push(acc);
            }
            let shares = &mut out.shares[i];
            shares.clear();
            let Some(a) = position[p.column] else {
                continue;
            };
            match &self.masks[a] {
                Some(masks) => {
                    let satisfying = table
                        .iter()
                        .enumerate()
                        .filter(|(_, &t)| t)
                        .fold(0u128, |m, (c, _)| m | 1 << c);
                    shares.extend(self.cells[a].iter().zip(masks).map(
                        |(&cell, &mask)| match cell {
                            Compact::Set(start, end) => {
                                let sat = (mask & satisfying).count_ones();
                                f64::from(sat) / f64::from(end - start)
                            }
                            _ => self.share(cell, table, pre, missing),
                        },
                    ));
                }
                None => shares.extend(
                    self.cells[a]
                        .iter()
                        .map(|&cell| self.share(cell, table, pre, missing)),
                ),
            }
        }
    }

    /// The share of the codes `cell` stands for that satisfy the predicate
    /// of `table` / `prefix`: satisfying codes / codes, 0 for no codes.
    fn share(&self, cell: Compact, table: &[bool], prefix: &[u32], missing: u32) -> f64 {
        let (total, sat) = match cell {
            Compact::Original => return ORIGINAL,
            Compact::Range(lo, hi) => {
                let hi = hi.min(missing);
                if lo > hi {
                    return 0.0;
                }
                (hi - lo + 1, prefix[hi as usize + 1] - prefix[lo as usize])
            }
            Compact::Set(start, end) => {
                let codes = &self.set_codes[start as usize..end as usize];
                let sat = codes
                    .iter()
                    .filter(|&&c| table.get(c as usize).copied().unwrap_or(false))
                    .count();
                (codes.len() as u32, sat as u32)
            }
        };
        if total == 0 {
            0.0
        } else {
            f64::from(sat) / f64::from(total)
        }
    }
}

/// What both readings of the workload (`queries::QueryEngine`,
/// `prob_queries::ProbabilisticEngine`) build alike from a release and a
/// target: built once when one workload is answered both ways.
pub(crate) struct Layout {
    pub cells: CellTable,
    /// The target's buckets (`risk::ValueBuckets`).
    pub buckets: ValueBuckets,
    pub whole: WholeGroups,
}

impl Layout {
    pub fn new(release: &Release, ds: &Dataset, target: usize) -> Self {
        let cells = CellTable::new(release, ds);
        let buckets = ValueBuckets::new(release, ds, target);
        let whole = WholeGroups::new(release, &cells, ds.col(target), &buckets);
        Layout {
            cells,
            buckets,
            whole,
        }
    }
}

/// The whole groups of a release (see the module doc) and their target
/// values.
pub(crate) struct WholeGroups {
    /// Indices of the whole groups, ascending.
    pub groups: Vec<u32>,
    /// Indices of the other groups, ascending: the only ones a query whose
    /// predicates are all on QIs visits (none on Mondrian's releases).
    pub partial: Vec<u32>,
    /// The whole groups' cell ids (`CellTable::id`), group-major: the
    /// i-th whole group's at `ids[i * qis..(i + 1) * qis]`, so the product
    /// pass reads one group's cells together and stops at a 0.
    ids: Vec<u32>,
    qis: usize,
    /// Per QI position, per cell id: the whole groups with that cell (how
    /// many groups a predicate rules out is the sum over its cells of
    /// share 0).
    groups_of_cell: Vec<Vec<u32>>,
    /// The whole groups holding each target code, ascending (the i-th
    /// whole group as i): `holding[holding_at[code]..holding_at[code + 1]]`.
    /// Only they can add to COUNT(target = code).
    holding: Vec<u32>,
    holding_at: Vec<usize>,
    /// Rows per target code of each whole group: `dense[code * W + i]` for
    /// the i-th whole group when codes × W is small, else `sparse[i]`.
    dense: Vec<u32>,
    sparse: Vec<Vec<ValueCount>>,
    /// Per whole group: Σ of its (numeric) target values, of the negative
    /// ones and of the positive ones.
    pub sum: Vec<f64>,
    pub negative: Vec<f64>,
    pub positive: Vec<f64>,
}

/// The largest dense count table, in entries.
const MAX_DENSE: usize = 1 << 22;

impl WholeGroups {
    /// `buckets` are the target's (`ValueBuckets::new(release, ds, target)`).
    pub fn new(
        release: &Release,
        cells: &CellTable,
        target: &Column,
        buckets: &ValueBuckets,
    ) -> Self {
        let mut local = vec![false; release.source_rows];
        for l in &release.local_buckets {
            for b in &l.buckets {
                for &r in &b.rows {
                    local[r as usize] = true;
                }
            }
        }
        let is_whole: Vec<bool> = release
            .groups
            .iter()
            .map(|g| {
                !g.cells.iter().any(|c| matches!(c, Cell::Original))
                    && g.rows.iter().all(|&r| {
                        !local[r as usize]
                            && buckets
                                .bucket_of_row(r as usize)
                                .is_some_and(|b| buckets.size(b) == 1)
                    })
            })
            .collect();
        let (groups, partial): (Vec<u32>, Vec<u32>) =
            (0..release.groups.len() as u32).partition(|&g| is_whole[g as usize]);
        let w = groups.len();
        let space = target.code_space();
        let counts: Vec<Vec<ValueCount>> = groups
            .iter()
            .map(|&g| counts_of_rows(&release.groups[g as usize].rows, target))
            .collect();
        let (mut sum, mut negative, mut positive) = (vec![0.0; w], vec![0.0; w], vec![0.0; w]);
        for (i, values) in counts.iter().enumerate() {
            for v in values {
                let x = target.number(v.code).unwrap_or(0.0) * f64::from(v.count);
                sum[i] += x;
                negative[i] += x.min(0.0);
                positive[i] += x.max(0.0);
            }
        }
        let mut holding_at = vec![0usize; space + 1];
        for v in counts.iter().flatten() {
            holding_at[v.code as usize + 1] += 1;
        }
        for c in 0..space {
            holding_at[c + 1] += holding_at[c];
        }
        let mut fill = holding_at.clone();
        let mut holding = vec![0u32; holding_at[space]];
        for (i, values) in counts.iter().enumerate() {
            for v in values {
                let slot = &mut fill[v.code as usize];
                holding[*slot] = i as u32;
                *slot += 1;
            }
        }
        let (dense, sparse) = if space.saturating_mul(w) <= MAX_DENSE {
            let mut dense = vec![0u32; space * w];
            for (i, values) in counts.iter().enumerate() {
                for v in values {
                    dense[v.code as usize * w + i] = v.count;
                }
            }
            (dense, Vec::new())
        } else {
            (Vec::new(), counts)
        };
        let qis = cells.qis();
        let mut ids = Vec::with_capacity(w * qis);
        let mut groups_of_cell: Vec<Vec<u32>> =
            cells.cells.iter().map(|c| vec![0; c.len()]).collect();
        for &g in &groups {
            for (a, of_cell) in groups_of_cell.iter_mut().enumerate() {
                let id = cells.id(g as usize, a);
                ids.push(id as u32);
                of_cell[id] += 1;
            }
        }
        WholeGroups {
            groups,
            partial,
            ids,
            qis,
            groups_of_cell,
            holding,
            holding_at,
            dense,
            sparse,
            sum,
            negative,
            positive,
        }
    }

    /// What the i-th whole group adds to a query's (lower, upper) answer:
    /// all of its count or sum when every row surely satisfies the
    /// predicates (`sure`); otherwise nothing at least and all at most for a
    /// count, and its negative and positive parts for a sum.
    pub fn bounds(&self, i: usize, aggregate: Aggregate, sure: bool) -> (f64, f64) {
        match aggregate {
            Aggregate::Count { code } => {
                let n = self.count(i, code);
                (if sure { n } else { 0.0 }, n)
            }
            Aggregate::Sum if sure => (self.sum[i], self.sum[i]),
            Aggregate::Sum => (self.negative[i], self.positive[i]),
        }
    }

    /// Rows of the i-th whole group whose target has `code`.
    pub fn count(&self, i: usize, code: u32) -> f64 {
        let w = self.groups.len();
        if self.sparse.is_empty() {
            self.dense
                .get(code as usize * w + i)
                .map_or(0.0, |&c| f64::from(c))
        } else {
            let values = &self.sparse[i];
            values
                .binary_search_by_key(&code, |v| v.code)
                .map_or(0.0, |j| f64::from(values[j].count))
        }
    }

    /// For a query whose predicates are all on QIs (`qi[i]` the QI
    /// position of predicate i): the whole groups that can add to its
    /// answer, as (i, product of the i-th whole group's cells' shares in
    /// predicate order — each row's chance to satisfy the query), ascending
    /// in i, those whose product is 0 left out. Under COUNT(target = v)
    /// only the groups holding v can add anything (a third of them on
    /// Adult's occupation); under SUM every group can. Both readings add
    /// the same groups' bounds in the same order from this list, so their
    /// sums are those of a pass over every group.
    pub fn products(
        &self,
        prepared: &Prepared,
        qi: &[usize],
        aggregate: Aggregate,
        out: &mut Vec<(u32, f64)>,
    ) {
        out.clear();
        let holding = match aggregate {
            Aggregate::Count { code } => {
                let code = code as usize;
                if code + 1 >= self.holding_at.len() {
                    return;
                }
                Some(&self.holding[self.holding_at[code]..self.holding_at[code + 1]])
            }
            Aggregate::Sum => None,
        };
        let all = 0..self.groups.len() as u32;
        if self.qis == 0 {
            match holding {
                Some(h) => out.extend(h.iter().map(|&i| (i, 1.0))),
                None => out.extend(all.map(|i| (i, 1.0))),
            }
            return;
        }
        let shares: Vec<&[f64]> = (0..qi.len()).map(|i| &prepared.shares[i][..]).collect();
        // A group with a share of 0 has product 0, whichever predicate
        // gives it: look for the 0 first with the predicates that rule out
        // the most groups, and multiply (in predicate order, as the rows
        // would) only the groups none rules out.
        let mut order: Vec<(u32, usize)> = shares
            .iter()
            .zip(qi)
            .enumerate()
            .map(|(i, (s, &a))| {
                let out: u32 = s
                    .iter()
                    .zip(&self.groups_of_cell[a])
                    .filter(|(&share, _)| share == 0.0)
                    .map(|(_, &n)| n)
                    .sum();
                (out, i)
            })
            .collect();
        order.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        let first: Vec<(&[f64], usize)> = order.iter().map(|&(_, i)| (shares[i], qi[i])).collect();
        let product = |i: u32| {
            let at = i as usize * self.qis;
            let cells = &self.ids[at..at + self.qis];
            if first.iter().any(|(s, a)| s[cells[*a] as usize] == 0.0) {
                return None;
            }
            let mut p = 1.0;
            for (s, &a) in shares.iter().zip(qi) {
                p *= s[cells[a] as usize];
            }
            (p != 0.0).then_some((i, p))
        };
        match holding {
            Some(h) => out.extend(h.iter().filter_map(|&i| product(i))),
            None => out.extend(all.filter_map(product)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::queries::{Aggregate, CodeTest, Predicate};
    use crate::release::EquivalenceGroup;

    #[test]
    fn groups_share_their_distinct_cells_and_shares_count_codes() {
        let rows: Vec<Vec<&str>> = ["1", "2", "3", "4", "5", "6"]
            .iter()
            .map(|a| vec![*a, "x"])
            .collect();
        let ds = Dataset::from_rows(&["age", "t"], &rows).unwrap();
        let mut r = Release::new("hand", &ds, vec![0], vec![1]);
        let cells = [
            Cell::Interval { lo: 0, hi: 3 },
            Cell::Interval { lo: 0, hi: 3 },
            Cell::Set {
                codes: vec![4, 5],
                label: None,
            },
        ];
        for (i, cell) in cells.into_iter().enumerate() {
            r.groups.push(EquivalenceGroup {
                rows: vec![2 * i as u32, 2 * i as u32 + 1],
                cells: vec![cell],
            });
        }
        let t = CellTable::new(&r, &ds);
        assert_eq!(t.id(0, 0), t.id(1, 0));
        assert_ne!(t.id(0, 0), t.id(2, 0));
        // age ≥ 3 (code 2): [1-4] holds 2 of its 4 codes, {5,6} both.
        let q = Query {
            predicates: vec![Predicate {
                column: 0,
                condition: CodeTest::AtLeast(2),
            }],
            aggregate: Aggregate::Count { code: 0 },
        };
        let mut p = Prepared::default();
        t.prepare(&ds, &[Some(0), None], &q, &mut p);
        assert_eq!(p.shares[0][t.id(0, 0)], 0.5);
        assert_eq!(p.shares[0][t.id(2, 0)], 1.0);
    }
}
