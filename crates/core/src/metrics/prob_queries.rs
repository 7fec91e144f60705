//! Probabilistic aggregate-query answering (the LGB paper, Section 4.2):
//! bounds of a SUM (or COUNT) query from the probability that each
//! published tuple satisfies the query, counted per bucket of the target.
//!
//! The workload is `queries::generate_queries` with the same seed, so every
//! release — LGB, cross-bucket, Mondrian — is asked the same queries when
//! it lists the same quasi-identifiers in the same order. The workload is
//! drawn from the attributes the release publishes as quasi-identifiers:
//! a semi-sensitive attribute that a baseline leaves out of its release
//! (`Session::request_with`: "not published") is never queried on that
//! release, so no predicate reads a value it does not publish (no figure
//! rests on it, none is NaN), and such a baseline's error is over the
//! queries on what it publishes — not the same workload as LGB's, which
//! publishes the attribute. The LGB paper's own comparison, whose
//! baselines take the semi-sensitive attributes as QIs, is a request built
//! that way explicitly.
//!
//! For a published tuple t and a predicate on attribute A:
//!
//! - **Pro_t(A)**, the probability that t satisfies it, is the share of the
//!   values t might have that satisfy it. Where t's cell of A is a
//!   sensitive value, those are the values of t's local bucket of A, with
//!   their multiplicities (the bucket is all an analyst sees); where it is a
//!   QI value, the codes its group's generalized cell stands for, each
//!   counted once (an interval's dictionary values between its ends, a
//!   set's codes, every code for a suppressed cell — the missing one too
//!   when the column has missing cells — which never satisfies); an
//!   `Original` cell, or an attribute that is neither a QI nor bucketized,
//!   gives 1 or 0 from t's own value. The paper does not say how a
//!   generalized value is weighted; uniform over the cell's distinct values
//!   is Zhang et al.'s usual assumption and needs nothing but the release.
//! - **Pro(t)** = Π_A Pro_t(A) (the paper's formula: the attributes are
//!   treated as independent).
//!
//! For each bucket b of the target (its local buckets for LGB, the buckets
//! of Anatomy or CBG, and a bucket of one for a value published on its row,
//! as `risk::ValueBuckets` lays them out), P_b = Σ_{t ∈ b} Pro(t); the
//! number of b's tuples satisfying the query is taken to lie between
//! ⌊P_b⌋ and ⌈P_b⌉ (1e-9 of slack, as P_b is a float sum of fractions).
//! The paper's "help table" is read as b's values sorted: with m_lo = ⌊P_b⌋
//! and m_hi = ⌈P_b⌉, Sum_lower(b) takes the m_lo smallest values and any
//! further negative ones up to m_hi, Sum_upper(b) the m_lo largest and any
//! further positive ones up to m_hi; COUNT(target = v) takes max(0, m_lo −
//! (|b| − n_v)) and min(m_hi, n_v). Sum_lower and Sum_upper add the buckets
//! up; the relative error is (upper − lower) / |actual| as in
//! `queries::query_error`, the actual answer taken on the published rows'
//! original values.
//!
//! For a value published on its row (a bucket of one), ⌊Pro(t)⌋ is 1 only
//! when every predicate surely holds and ⌈Pro(t)⌉ is 0 only when one
//! surely fails, so on releases without buckets (Mondrian) these bounds are
//! exactly `queries::QueryEngine`'s; on bucketized releases they are
//! tighter, and no longer guaranteed (an estimate rounded, as the paper
//! does).

use std::sync::{Arc, OnceLock};

use crate::data::{Column, Dataset};
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::release::Release;
use crate::risk::check_release_fits;

use super::actual::{Actual, ActualScratch};
use super::cell_table::{Layout, Prepared, ORIGINAL};
use super::queries::{
    answer_workload, generate_queries, report_of, Aggregate, Answer, Query, QueryEngine,
    QueryReport,
};

const NONE: u32 = u32::MAX;
const SLACK: f64 = 1e-9;

/// Answers queries on one release by the paper's probabilistic counting.
pub struct ProbabilisticEngine<'a> {
    release: &'a Release,
    ds: &'a Dataset,
    target: &'a Column,
    /// QI position of each dataset column, if it is a QI.
    position: Vec<Option<usize>>,
    /// Index into `release.local_buckets` of each column that has local
    /// buckets.
    local_of_column: Vec<Option<usize>>,
    /// Per entry of `release.local_buckets`, the local bucket of each source
    /// row (`NONE` where the row's cell is not a sensitive value).
    local_bucket_of_row: Vec<Vec<u32>>,
    /// The distinct cells per QI and each group's, the target's buckets
    /// and the groups whose rows all satisfy a query alike (see
    /// `cell_table`).
    layout: Arc<Layout>,
    /// Per target bucket, its values ascending (for SUM); built when a
    /// bucket is first counted (never for the whole groups of Mondrian).
    sorted_values: OnceLock<Vec<Vec<f64>>>,
    /// The actual answers by bitsets (see `metrics::actual`), when built.
    fast: Option<Actual<'a>>,
}

impl<'a> ProbabilisticEngine<'a> {
    pub fn new(release: &'a Release, ds: &'a Dataset, target: usize) -> Result<Self> {
        check_release_fits(release, ds)?;
        if target >= ds.n_cols() {
            return Err(Error::Internal(format!(
                "query workload: column {target} does not exist ({} columns)",
                ds.n_cols()
            )));
        }
        let layout = Arc::new(Layout::new(release, ds, target));
        Ok(Self::build(release, ds, target, layout, true))
    }

    /// On a [`Layout`] built for this release and target (which must fit);
    /// `with_actual`: index the rows for actual answers (not needed when a
    /// `QueryEngine` gives them, as in [`query_errors`]).
    fn build(
        release: &'a Release,
        ds: &'a Dataset,
        target: usize,
        layout: Arc<Layout>,
        with_actual: bool,
    ) -> Self {
        let n = ds.n_rows();
        let tcol = ds.col(target);
        let mut position = vec![None; ds.n_cols()];
        for (a, &c) in release.quasi_identifiers.iter().enumerate() {
            position[c] = Some(a);
        }
        let mut local_of_column = vec![None; ds.n_cols()];
        for (i, l) in release.local_buckets.iter().enumerate() {
            local_of_column[l.column].get_or_insert(i);
        }
        let local_bucket_of_row: Vec<Vec<u32>> = release
            .local_buckets
            .iter()
            .map(|l| {
                l.bucket_of_row(n)
                    .into_iter()
                    .map(|b| b.unwrap_or(NONE))
                    .collect()
            })
            .collect();
        let fast = if with_actual {
            Actual::new(release, ds, target)
        } else {
            None
        };
        ProbabilisticEngine {
            release,
            ds,
            target: tcol,
            position,
            local_of_column,
            local_bucket_of_row,
            layout,
            sorted_values: OnceLock::new(),
            fast,
        }
    }

    fn sorted_values(&self) -> &[Vec<f64>] {
        self.sorted_values.get_or_init(|| {
            let buckets = &self.layout.buckets;
            (0..buckets.len())
                .map(|b| {
                    let mut v: Vec<f64> = buckets
                        .values(b)
                        .iter()
                        .flat_map(|v| {
                            std::iter::repeat_n(value_of(self.target, v.code), v.count as usize)
                        })
                        .collect();
                    v.sort_unstable_by(f64::total_cmp);
                    v
                })
                .collect()
        })
    }

    /// Pro(t) of every published row for a query, as (row, probability).
    pub fn match_probabilities(&self, query: &Query) -> Vec<(u32, f64)> {
        let prepared = self.prepare(query);
        let mut out = Vec::with_capacity(self.release.published_rows());
        self.for_each_probability(query, &prepared, |r, p| out.push((r, p)));
        out
    }

    fn prepare(&self, query: &Query) -> Prepared {
        let mut prepared = Prepared::default();
        self.layout
            .cells
            .prepare(self.ds, &self.position, query, &mut prepared);
        prepared
    }

    /// Lower and upper bound by the paper's counting, and the actual answer.
    pub fn answer(&self, query: &Query) -> Answer {
        let prepared = self.prepare(query);
        let (lower, upper) = self.bounds(query, &prepared, None);
        let actual = match &self.fast {
            Some(fast) if fast.covers(query) => fast.answer(query, &mut ActualScratch::default()),
            _ => self.actual(query, &prepared.tables),
        };
        Answer {
            lower,
            upper,
            actual,
        }
    }

    /// Lower and upper bound by the paper's counting.
    ///
    /// The rows of a whole group (see `cell_table`) all have the same
    /// Pro(t) when every predicate is on a QI — the product of the group's
    /// cell shares, `products` when the caller has them — and each is a
    /// bucket of one: by the rule below it counts fully in both bounds when
    /// Pro(t) is 1 and in the upper one (the lower one too if negative)
    /// when above 0, so the group adds its totals at once. Other rows go
    /// through their target buckets.
    pub(crate) fn bounds(
        &self,
        query: &Query,
        prepared: &Prepared,
        products: Option<&[(u32, f64)]>,
    ) -> (f64, f64) {
        let n_pred = query.predicates.len();
        let tables = &prepared.tables[..n_pred];
        let (mut lower, mut upper) = (0.0, 0.0);
        let qi: Vec<usize> = query
            .predicates
            .iter()
            .map_while(|p| self.position[p.column])
            .collect();
        let by_group = qi.len() == n_pred;
        if by_group {
            let mut own = Vec::new();
            let products = match products {
                Some(p) => p,
                None => {
                    self.layout
                        .whole
                        .products(prepared, &qi, query.aggregate, &mut own);
                    &own
                }
            };
            for &(i, pro) in products {
                if pro <= SLACK {
                    continue;
                }
                let sure = pro + SLACK >= 1.0;
                let (lo, up) = self.layout.whole.bounds(i as usize, query.aggregate, sure);
                lower += lo;
                upper += up;
            }
        }
        let mut expected: Vec<f64> = Vec::new();
        let mut cell_share = vec![None; n_pred];
        let mut bucket_share = None;
        // The whole groups were added above: visit the others.
        let visited = if by_group {
            self.layout.whole.partial.len()
        } else {
            self.release.groups.len()
        };
        let buckets = &self.layout.buckets;
        for v in 0..visited {
            let gi = if by_group {
                self.layout.whole.partial[v] as usize
            } else {
                v
            };
            let g = &self.release.groups[gi];
            self.cell_shares(gi, query, prepared, &mut cell_share);
            if expected.is_empty() {
                expected.resize(buckets.len(), 0.0);
            }
            let shares = bucket_share.get_or_insert_with(|| self.bucket_shares(query, tables));
            self.group_probabilities(g, query, tables, &cell_share, shares, |r, p| {
                if let Some(b) = buckets.bucket_of_row(r as usize) {
                    expected[b] += p;
                }
            });
        }
        for (b, &p) in expected.iter().enumerate() {
            if p <= SLACK {
                continue;
            }
            let size = buckets.size(b) as f64;
            let lo = (p + SLACK).floor().min(size) as usize;
            let hi = (p - SLACK).ceil().clamp(0.0, size) as usize;
            let (l, u) = self.bucket_bounds(b, lo, hi.max(lo), query.aggregate);
            lower += l;
            upper += u;
        }
        (lower, upper)
    }

    /// Calls `f(row, Pro(row))` for every published row.
    fn for_each_probability(
        &self,
        query: &Query,
        prepared: &Prepared,
        mut f: impl FnMut(u32, f64),
    ) {
        let tables = &prepared.tables[..query.predicates.len()];
        let mut cell_share = vec![None; query.predicates.len()];
        let bucket_share = self.bucket_shares(query, tables);
        for (gi, g) in self.release.groups.iter().enumerate() {
            self.cell_shares(gi, query, prepared, &mut cell_share);
            self.group_probabilities(g, query, tables, &cell_share, &bucket_share, &mut f);
        }
    }

    /// Per predicate, the share of the group's cell that satisfies it
    /// (`None` where the row's own value or local bucket decides).
    fn cell_shares(
        &self,
        gi: usize,
        query: &Query,
        prepared: &Prepared,
        cell_share: &mut [Option<f64>],
    ) {
        for (i, p) in query.predicates.iter().enumerate() {
            cell_share[i] = self.position[p.column]
                .map(|a| prepared.shares[i][self.layout.cells.id(gi, a)])
                .filter(|&s| s != ORIGINAL);
        }
    }

    /// Per predicate on a bucketized column: each local bucket's share of
    /// satisfying values. Computed once per query (it reads every row of
    /// the column's local buckets), not once per group: on an LGB release
    /// of Adult that was most of the workload's time.
    fn bucket_shares(&self, query: &Query, tables: &[Vec<bool>]) -> Vec<Option<Vec<f64>>> {
        query
            .predicates
            .iter()
            .zip(tables)
            .map(|(p, table)| {
                let i = self.local_of_column[p.column]?;
                let col = self.ds.col(p.column);
                Some(
                    self.release.local_buckets[i]
                        .buckets
                        .iter()
                        .map(|b| {
                            let hits = b
                                .rows
                                .iter()
                                .filter(|&&r| table[col.code(r as usize) as usize])
                                .count();
                            if b.rows.is_empty() {
                                0.0
                            } else {
                                hits as f64 / b.rows.len() as f64
                            }
                        })
                        .collect(),
                )
            })
            .collect()
    }

    /// Calls `f(row, Pro(row))` for every row of a group; `bucket_share`
    /// from [`Self::bucket_shares`].
    fn group_probabilities(
        &self,
        g: &crate::release::EquivalenceGroup,
        query: &Query,
        tables: &[Vec<bool>],
        cell_share: &[Option<f64>],
        bucket_share: &[Option<Vec<f64>>],
        mut f: impl FnMut(u32, f64),
    ) {
        for &r in &g.rows {
            let mut pro = 1.0;
            for (i, p) in query.predicates.iter().enumerate() {
                let bucket = self.local_of_column[p.column]
                    .map(|l| self.local_bucket_of_row[l][r as usize])
                    .filter(|&b| b != NONE);
                pro *= match (bucket, &bucket_share[i], cell_share[i]) {
                    (Some(b), Some(shares), _) => shares[b as usize],
                    (_, _, Some(share)) => share,
                    _ => {
                        let own = self.ds.col(p.column).code(r as usize);
                        f64::from(u8::from(tables[i][own as usize]))
                    }
                };
                if pro == 0.0 {
                    break;
                }
            }
            f(r, pro);
        }
    }

    /// Bounds of one target bucket when between `lo` and `hi` of its tuples
    /// satisfy the query.
    fn bucket_bounds(&self, b: usize, lo: usize, hi: usize, agg: Aggregate) -> (f64, f64) {
        match agg {
            Aggregate::Count { code } => {
                let size = self.layout.buckets.size(b);
                let n_v = self
                    .layout
                    .buckets
                    .values(b)
                    .iter()
                    .find(|v| v.code == code)
                    .map_or(0, |v| v.count as usize);
                (lo.saturating_sub(size - n_v) as f64, hi.min(n_v) as f64)
            }
            Aggregate::Sum => {
                let values = &self.sorted_values()[b];
                let negatives = values.iter().take_while(|&&x| x < 0.0).count();
                let positives = values.iter().rev().take_while(|&&x| x > 0.0).count();
                let lower: f64 = values[..negatives.clamp(lo, hi)].iter().sum();
                let upper: f64 = values[values.len() - positives.clamp(lo, hi)..]
                    .iter()
                    .sum();
                (lower, upper)
            }
        }
    }

    /// The query on the published rows' original values.
    fn actual(&self, query: &Query, tables: &[Vec<bool>]) -> f64 {
        let columns: Vec<&[u32]> = query
            .predicates
            .iter()
            .map(|p| self.ds.col(p.column).codes())
            .collect();
        let target = self.target.codes();
        self.release
            .groups
            .iter()
            .flat_map(|g| g.rows.iter())
            .filter(|&&r| {
                tables
                    .iter()
                    .zip(&columns)
                    .all(|(t, c)| t[c[r as usize] as usize])
            })
            .map(|&r| {
                let code = target[r as usize];
                match query.aggregate {
                    Aggregate::Sum => value_of(self.target, code),
                    Aggregate::Count { code: v } => f64::from(u8::from(code == v)),
                }
            })
            .sum()
    }
}

/// A numeric target's value for SUM; missing cells and categorical targets
/// add 0.
fn value_of(col: &Column, code: u32) -> f64 {
    col.number(code).unwrap_or(0.0)
}

/// The relative error of the seeded workload answered the paper's way (see
/// the module doc): the same queries as `queries::query_error` with the
/// same seed.
pub fn probabilistic_query_error(
    release: &Release,
    ds: &Dataset,
    target: usize,
    queries: usize,
    seed: u64,
    progress: &Progress,
) -> Result<QueryReport> {
    let workload = generate_queries(release, ds, target, queries, seed)?;
    let engine = ProbabilisticEngine::new(release, ds, target)?;
    let answers = answer_workload(&workload, progress, || (), |_, q| engine.answer(q))?;
    Ok(report_of(&answers, ds.col(target), seed))
}

/// Both figures of the seeded workload — `queries::query_error`'s bounds
/// and this module's probabilistic counting — from one draw of the queries
/// and one computation of each query's actual answer: the same two reports
/// as calling both functions.
pub fn query_errors(
    release: &Release,
    ds: &Dataset,
    target: usize,
    queries: usize,
    seed: u64,
    progress: &Progress,
) -> Result<(QueryReport, QueryReport)> {
    let workload = generate_queries(release, ds, target, queries, seed)?;
    // One layout for both engines (the same cells, buckets and whole
    // groups); the workload's draw has checked that the release fits.
    let layout = Arc::new(Layout::new(release, ds, target));
    let det = QueryEngine::with_layout(release, ds, target, layout.clone());
    let prob = ProbabilisticEngine::build(release, ds, target, layout, false);
    let both = answer_workload(
        &workload,
        progress,
        || det.scratch(),
        |scratch, q| {
            // Both engines hold the same cell table (built alike from the
            // release), so the predicates are evaluated once for both.
            let d = det.answer_with(q, scratch);
            let (lower, upper) = prob.bounds(q, &scratch.prepared, scratch.products.as_deref());
            let p = Answer {
                lower,
                upper,
                actual: d.actual,
            };
            (d, p)
        },
    )?;
    let (det_answers, prob_answers): (Vec<Answer>, Vec<Answer>) = both.into_iter().unzip();
    let tcol = ds.col(target);
    Ok((
        report_of(&det_answers, tcol, seed),
        report_of(&prob_answers, tcol, seed),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::queries::{CodeTest, Predicate};
    use crate::release::examples::code;
    use crate::risk::lgb_fixture::{self as fixture, AGE, DISEASE, GENDER, SALARY, ZIP};

    fn query(predicates: Vec<(usize, CodeTest)>, aggregate: Aggregate) -> Query {
        Query {
            predicates: predicates
                .into_iter()
                .map(|(column, condition)| Predicate { column, condition })
                .collect(),
            aggregate,
        }
    }

    fn assert_answer(a: Answer, lower: f64, upper: f64, actual: f64) {
        let ok = (a.lower - lower).abs() < 1e-9
            && (a.upper - upper).abs() < 1e-9
            && (a.actual - actual).abs() < 1e-9;
        assert!(ok, "{a:?} != ({lower}, {upper}, {actual})");
    }

    #[test]
    fn hand_made_release_counts_per_salary_bucket() {
        let ds = fixture::dataset();
        let r = fixture::release(&ds);
        let e = ProbabilisticEngine::new(&r, &ds, SALARY).unwrap();
        // zip ≤ 43305: G0's [43302-43305] surely (1), G1 and G3 never (0),
        // G2's [43302-43306] for 2 of its 3 zips (⅔). Salary bucket S0 =
        // rows {0, 2, 4, 6}: P = 1 + ⅔ = 5/3, so 1 to 2 of its values
        // {10, 30, 50, 70}: [10, 70 + 50]. S1 = {1, 3, 5, 7}: P = 5/3 again,
        // values {20, 40, 60, 80}: [20, 80 + 60]. Actual: rows 0, 1, 4, 5.
        let q = query(
            vec![(ZIP, CodeTest::AtMost(code(&ds, ZIP, "43305")))],
            Aggregate::Sum,
        );
        assert_answer(e.answer(&q), 30.0, 260.0, 140.0);
        let pro: Vec<f64> = e.match_probabilities(&q).iter().map(|p| p.1).collect();
        let third = 2.0 / 3.0;
        let want = [1.0, 1.0, 0.0, 0.0, third, third, 0.0, 0.0];
        assert!(
            pro.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12),
            "{pro:?}"
        );

        // gender = F AND age ≤ 25. Gender is `*` everywhere: ½. Rows 0, 1
        // publish age [22-25] (ages 22, 24, 25 all ≤ 25): Pro = ½. Rows 4, 5
        // have a sensitive age in A0 = {24, 29}: ½ · ½ = ¼. The others 0.
        // S0: P = ½ + ¼ = ¾ → 0 to 1 value: [0, 70]; S1 likewise [0, 80].
        // Actual: rows 0 (10) and 4 (50).
        let q = query(
            vec![
                (GENDER, CodeTest::OneOf(vec![code(&ds, GENDER, "F")])),
                (AGE, CodeTest::AtMost(code(&ds, AGE, "25"))),
            ],
            Aggregate::Sum,
        );
        assert_answer(e.answer(&q), 0.0, 150.0, 60.0);
    }

    #[test]
    fn count_bounds_use_the_values_of_the_bucket() {
        let ds = fixture::dataset();
        let r = fixture::release(&ds);
        let e = ProbabilisticEngine::new(&r, &ds, DISEASE).unwrap();
        // zip ≤ 43305 again: 1 to 2 tuples of each disease bucket, and each
        // holds Flu once among 4 values: at least max(0, 1 − 3) = 0, at most
        // min(2, 1) = 1 per bucket. Actual: rows 0, 1, 4, 5 hold one Flu.
        let q = query(
            vec![(ZIP, CodeTest::AtMost(code(&ds, ZIP, "43305")))],
            Aggregate::Count {
                code: code(&ds, DISEASE, "Flu"),
            },
        );
        assert_answer(e.answer(&q), 0.0, 2.0, 1.0);
    }

    #[test]
    fn cancelled_workload_stops() {
        let ds = fixture::dataset();
        let r = fixture::release(&ds);
        let p = Progress::new();
        p.cancel();
        assert!(matches!(
            probabilistic_query_error(&r, &ds, SALARY, 10, 1, &p),
            Err(Error::Cancelled)
        ));
    }
}
