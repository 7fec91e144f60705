//! The actual answers of a query workload, on the published rows' original
//! values, from bitsets over those rows instead of a scan per query.
//!
//! Every query of the workload is a conjunction of predicates on QI
//! columns. Per QI column, the published rows are indexed once by code: a
//! categorical column keeps a bitset of the rows holding each code; a
//! numeric one keeps cumulative bitsets, the rows whose code is at most
//! each code (codes of a numeric column are in value order), so a
//! predicate that is a range of values — all of the paper's six numeric
//! forms but ≠, whose complement is one — is two bitsets whatever its
//! width. A predicate becomes one bitset (a range, its complement, or the
//! union of the fewer of its codes or of the codes it rules out), the
//! query the AND of them; COUNT(target = v) is a popcount against the
//! target's bitset of v, SUM adds the target's values over the set bits.
//! A query of p predicates on columns of c codes costs O(p · min(c, 2) ·
//! rows / 64) word operations, against O(rows · p) for a scan.
//!
//! Memory: (codes of the QI columns + codes of a categorical target) ×
//! rows / 8 bytes, some 0.6 MB on Adult. Above [`MAX_WORDS`] (a column of
//! many codes on many rows) [`Actual::new`] declines and the caller scans.

use crate::data::{Column, Dataset};
use crate::release::Release;

use super::queries::{Aggregate, Query};

/// The largest index built, in 64-bit words (64 MB).
const MAX_WORDS: usize = 8 << 20;

/// One QI column's rows by code.
enum Index {
    /// `eq[c]`: the rows holding code c.
    Codes { eq: Vec<Vec<u64>> },
    /// `le[c]`: the rows whose code is at most c.
    Cumulative { le: Vec<Vec<u64>> },
}

/// The actual answers of queries on one release and target.
pub(crate) struct Actual<'a> {
    ds: &'a Dataset,
    /// The published rows, ascending: bit i stands for `rows[i]`.
    rows: Vec<u32>,
    words: usize,
    /// Per dataset column: its index, if it is a QI.
    index: Vec<Option<Index>>,
    /// Per column with an index, the rows whose cell is not missing.
    present: Vec<Vec<u64>>,
    /// A categorical target's rows by code.
    target_eq: Option<Vec<Vec<u64>>>,
    /// A numeric target's value per published row (SUM).
    target_value: Vec<f64>,
}

/// Buffers of one thread.
#[derive(Default)]
pub(crate) struct ActualScratch {
    acc: Vec<u64>,
    one: Vec<u64>,
    tmp: Vec<u64>,
    codes: Vec<u32>,
}

impl<'a> Actual<'a> {
    /// The index over `release`'s published rows and QI columns, or `None`
    /// when it would exceed [`MAX_WORDS`].
    pub fn new(release: &Release, ds: &'a Dataset, target: usize) -> Option<Self> {
        let mut rows: Vec<u32> = release
            .groups
            .iter()
            .flat_map(|g| g.rows.iter().copied())
            .collect();
        rows.sort_unstable();
        let words = rows.len().div_ceil(64);
        let tcol = ds.col(target);
        let target_codes = if tcol.is_numeric() {
            0
        } else {
            tcol.code_space()
        };
        let codes: usize = release
            .quasi_identifiers
            .iter()
            .map(|&c| ds.col(c).code_space() + 1)
            .sum::<usize>()
            + target_codes;
        if codes.saturating_mul(words.max(1)) > MAX_WORDS {
            return None;
        }
        let by_code = |col: &Column| {
            let mut eq = vec![vec![0u64; words]; col.code_space()];
            for (i, &r) in rows.iter().enumerate() {
                eq[col.code(r as usize) as usize][i / 64] |= 1 << (i % 64);
            }
            eq
        };
        let mut index: Vec<Option<Index>> = (0..ds.n_cols()).map(|_| None).collect();
        let mut present = vec![Vec::new(); ds.n_cols()];
        for &c in &release.quasi_identifiers {
            let col = ds.col(c);
            let eq = by_code(col);
            let missing = col.missing_code() as usize;
            let mut p = vec![0u64; words];
            for e in &eq[..missing] {
                or_into(&mut p, e);
            }
            present[c] = p;
            index[c] = Some(if col.is_numeric() {
                let mut le = eq;
                for code in 1..le.len() {
                    let (before, here) = le.split_at_mut(code);
                    or_into(&mut here[0], &before[code - 1]);
                }
                Index::Cumulative { le }
            } else {
                Index::Codes { eq }
            });
        }
        let target_eq = (!tcol.is_numeric()).then(|| by_code(tcol));
        let target_value = if tcol.is_numeric() {
            rows.iter()
                .map(|&r| tcol.number(tcol.code(r as usize)).unwrap_or(0.0))
                .collect()
        } else {
            Vec::new()
        };
        Some(Actual {
            ds,
            rows,
            words,
            index,
            present,
            target_eq,
            target_value,
        })
    }

    /// Whether every predicate of `query` is on an indexed column.
    pub fn covers(&self, query: &Query) -> bool {
        query
            .predicates
            .iter()
            .all(|p| self.index.get(p.column).is_some_and(Option::is_some))
    }

    /// The query's answer on the published rows' original values; the
    /// query must be [`Self::covers`]ed.
    pub fn answer(&self, query: &Query, sc: &mut ActualScratch) -> f64 {
        let words = self.words;
        sc.acc.clear();
        sc.acc.resize(words, !0);
        if let Some(last) = sc.acc.last_mut() {
            let tail = self.rows.len() % 64;
            if tail != 0 {
                *last = (1u64 << tail) - 1;
            }
        }
        for p in &query.predicates {
            let col = self.ds.col(p.column);
            let missing = col.missing_code();
            sc.codes.clear();
            sc.codes
                .extend((0..missing).filter(|&c| p.condition.holds(c)));
            self.predicate(p.column, missing, sc);
            and_into(&mut sc.acc, &sc.one);
        }
        match query.aggregate {
            Aggregate::Count { code } => match &self.target_eq {
                Some(eq) if (code as usize) < eq.len() => eq[code as usize]
                    .iter()
                    .zip(&sc.acc)
                    .map(|(a, b)| (a & b).count_ones() as f64)
                    .sum(),
                _ => 0.0,
            },
            Aggregate::Sum => {
                let mut total = 0.0;
                for (w, &bits) in sc.acc.iter().enumerate() {
                    let mut bits = bits;
                    while bits != 0 {
                        let i = w * 64 + bits.trailing_zeros() as usize;
                        total += self.target_value.get(i).copied().unwrap_or(0.0);
                        bits &= bits - 1;
                    }
                }
                total
            }
        }
    }

    /// The rows satisfying a predicate whose satisfying codes (missing
    /// excluded) are `sc.codes`, ascending, into `sc.one`.
    fn predicate(&self, column: usize, missing: u32, sc: &mut ActualScratch) {
        let words = self.words;
        let present = &self.present[column];
        sc.one.clear();
        sc.one.resize(words, 0);
        let codes = &sc.codes;
        let (Some(&first), Some(&last)) = (codes.first(), codes.last()) else {
            return;
        };
        let contiguous = (last - first) as usize + 1 == codes.len();
        match self.index[column].as_ref() {
            Some(Index::Cumulative { le }) => {
                if contiguous {
                    range(le, first, last, &mut sc.one);
                } else {
                    // Not a range: its complement among the present codes
                    // is (for ≠, one value); else the union of its values.
                    let gaps = missing as usize - codes.len();
                    if gaps <= codes.len() {
                        sc.one.copy_from_slice(present);
                        let mut prev = None;
                        for c in (0..missing).filter(|c| codes.binary_search(c).is_err()) {
                            // Runs of ruled-out codes, each one range.
                            match prev {
                                Some((a, b)) if b + 1 == c => prev = Some((a, c)),
                                Some((a, b)) => {
                                    sc.tmp.clear();
                                    sc.tmp.resize(words, 0);
                                    range(le, a, b, &mut sc.tmp);
                                    and_not_into(&mut sc.one, &sc.tmp);
                                    prev = Some((c, c));
                                }
                                None => prev = Some((c, c)),
                            }
                        }
                        if let Some((a, b)) = prev {
                            sc.tmp.clear();
                            sc.tmp.resize(words, 0);
                            range(le, a, b, &mut sc.tmp);
                            and_not_into(&mut sc.one, &sc.tmp);
                        }
                    } else {
                        for &c in codes {
                            sc.tmp.clear();
                            sc.tmp.resize(words, 0);
                            range(le, c, c, &mut sc.tmp);
                            or_into(&mut sc.one, &sc.tmp);
                        }
                    }
                }
            }
            Some(Index::Codes { eq }) => {
                let gaps = missing as usize - codes.len();
                if gaps < codes.len() {
                    sc.one.copy_from_slice(present);
                    for c in (0..missing).filter(|c| codes.binary_search(c).is_err()) {
                        and_not_into(&mut sc.one, &eq[c as usize]);
                    }
                } else {
                    for &c in codes {
                        or_into(&mut sc.one, &eq[c as usize]);
                    }
                }
            }
            None => {}
        }
    }
}

/// Rows with a code in `a..=b`, from cumulative bitsets, into `out`.
fn range(le: &[Vec<u64>], a: u32, b: u32, out: &mut [u64]) {
    out.copy_from_slice(&le[b as usize]);
    if a > 0 {
        and_not_into(out, &le[a as usize - 1]);
    }
}

fn or_into(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x |= y;
    }
}

fn and_into(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x &= y;
    }
}

fn and_not_into(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x &= !y;
    }
}
