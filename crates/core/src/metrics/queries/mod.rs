//! The aggregate-query workload of the cross-bucket paper (Section 4.2,
//! after Xiao & Tao's Anatomy): random queries answered on a Release with a
//! lower and an upper bound, and their relative error (upper − lower) /
//! actual.
//!
//! Choices where the paper is brief, each fixed here:
//!
//! - **Randomness**: one `ChaCha8Rng` seeded with the given seed draws every
//!   query in turn, so a seed reproduces the workload; the report shows it.
//! - **Predicates**: 4 distinct QIs of the release, uniformly (all of them
//!   when it has fewer). A categorical QI gets A ∈ {v_1..v_m} with m uniform
//!   in 1..=|D[A]| and the v_i distinct and uniform over D[A]; a numeric QI
//!   gets one of the paper's six forms, uniformly — A > v, A < v, A = v and
//!   their negations A ≤ v, A ≥ v, A ≠ v — with v uniform over D[A]. D[A] is
//!   the values present in the column; a missing cell satisfies no predicate
//!   (SQL's NULL), negations included.
//! - **Aggregate**: SUM of the target when it is numeric (missing cells add
//!   0), else COUNT of rows whose target is a value drawn uniformly from the
//!   target's present values. The target must be published and not a QI.
//! - **Bounds**: for each group, each predicate is evaluated on the codes the
//!   cell stands for (an interval's codes, a set's, every code for a
//!   suppressed cell, missing included when the column has it): all satisfy,
//!   none, or some. `Original` cells are evaluated on each row's own value.
//!   A row surely satisfies the query when every predicate holds for all its
//!   cell's codes, possibly when none rules it out. Where the target's values
//!   stay on their rows a sure row adds its value to both bounds and a
//!   possible one adds it to the upper (lower) bound when positive
//!   (negative). Where buckets detach the target (see `risk::ValueBuckets`),
//!   a bucket with c_s sure and c_p possible rows may give its values to its
//!   rows in any order: the lower bound takes its c_s smallest values and
//!   then any further negative ones up to c_p, the upper bound the c_s
//!   largest and further positive ones; for COUNT this is max(0, c_s − (|B|
//!   − n_v)) and min(c_p, n_v), n_v the copies of v in the bucket.
//! - **Actual answer**: on the original values of the published rows.
//!   Suppressed rows are outside what the release describes; C_DM and NCP
//!   account for them.
//! - **Relative error**: (upper − lower) / |actual|, averaged over the
//!   queries whose actual answer is not 0; the others are counted as
//!   skipped.

use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, OnceLock};

use crate::data::{Column, Dataset};
use crate::error::{Error, Parameter, Result};
use crate::progress::Progress;
use crate::release::Release;
use crate::risk::check_release_fits;

use super::actual::{Actual, ActualScratch};
use super::cell_table::{Layout, Prepared, ORIGINAL};

mod rows;
use rows::RowIndex;

/// `QueryEngine::row_bucket` of a row whose value is on the row.
pub(super) const SINGLE: u32 = u32::MAX;

/// The paper's workload size.
pub const DEFAULT_QUERIES: usize = 1000;
/// QI predicates per query in the paper.
pub const PREDICATES_PER_QUERY: usize = 4;

/// A test of one attribute's codes, the condition of a query predicate
/// (named apart from `data::Condition`, a rule of a conditions file). Numeric
/// codes are in value order, so comparisons on codes are comparisons on values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CodeTest {
    /// A ∈ {codes}, sorted.
    OneOf(Vec<u32>),
    Greater(u32),
    Less(u32),
    Equal(u32),
    /// ¬(A > v).
    AtMost(u32),
    /// ¬(A < v).
    AtLeast(u32),
    NotEqual(u32),
}

impl CodeTest {
    /// Whether a non-missing code satisfies the condition.
    pub fn holds(&self, code: u32) -> bool {
        match self {
            CodeTest::OneOf(codes) => codes.binary_search(&code).is_ok(),
            CodeTest::Greater(v) => code > *v,
            CodeTest::Less(v) => code < *v,
            CodeTest::Equal(v) => code == *v,
            CodeTest::AtMost(v) => code <= *v,
            CodeTest::AtLeast(v) => code >= *v,
            CodeTest::NotEqual(v) => code != *v,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Predicate {
    pub column: usize,
    pub condition: CodeTest,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aggregate {
    /// SUM of the (numeric) target.
    Sum,
    /// COUNT of rows whose target has this code.
    Count { code: u32 },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    pub predicates: Vec<Predicate>,
    pub aggregate: Aggregate,
}

/// A query's answer bounds from the release, and its answer on the data.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub lower: f64,
    pub upper: f64,
    pub actual: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryReport {
    /// "SUM(salary)" or "COUNT(occupation = v)".
    pub aggregate: String,
    pub mean_relative_error: f64,
    pub queries_used: usize,
    /// Queries whose actual answer is 0 (no relative error).
    pub skipped: usize,
    pub seed: u64,
}

/// The largest workload: a thousand times the paper's, each query a pass
/// over the release's groups.
pub const MAX_QUERIES: usize = 1_000_000;

/// Refuse a workload size beyond [`MAX_QUERIES`] (before any work: the
/// CLI calls this first).
pub fn check_queries(queries: usize) -> Result<()> {
    if queries > MAX_QUERIES {
        return Err(Error::invalid(Parameter::Queries, format!(
            "a workload of {queries} queries is more than the {MAX_QUERIES} anonlab runs (the papers use {DEFAULT_QUERIES})"
        )));
    }
    Ok(())
}

/// Draw the workload: `queries` queries over the release's QIs on `target`.
pub fn generate_queries(
    release: &Release,
    ds: &Dataset,
    target: usize,
    queries: usize,
    seed: u64,
) -> Result<Vec<Query>> {
    check_queries(queries)?;
    check_target(release, ds, target)?;
    let candidates: Vec<(usize, Vec<u32>)> = release
        .quasi_identifiers
        .iter()
        .map(|&c| (c, present_codes(ds.col(c))))
        .filter(|(_, d)| !d.is_empty())
        .collect();
    let tcol = ds.col(target);
    let target_values = present_codes(tcol);
    if !tcol.is_numeric() && target_values.is_empty() {
        return Err(Error::invalid(
            Parameter::Queries,
            format!("query workload: '{}' has no values to count", tcol.name()),
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let per_query = PREDICATES_PER_QUERY.min(candidates.len());
    let mut out = Vec::with_capacity(queries);
    for _ in 0..queries {
        let mut picked = sample(&mut rng, candidates.len(), per_query).into_vec();
        picked.sort_unstable();
        let predicates = picked
            .into_iter()
            .map(|i| {
                let (column, domain) = &candidates[i];
                let condition = if ds.col(*column).is_numeric() {
                    let v = domain[rng.random_range(0..domain.len())];
                    match rng.random_range(0..6) {
                        0 => CodeTest::Greater(v),
                        1 => CodeTest::Less(v),
                        2 => CodeTest::Equal(v),
                        3 => CodeTest::AtMost(v),
                        4 => CodeTest::AtLeast(v),
                        _ => CodeTest::NotEqual(v),
                    }
                } else {
                    let m = rng.random_range(1..=domain.len());
                    let mut codes: Vec<u32> = sample(&mut rng, domain.len(), m)
                        .into_iter()
                        .map(|i| domain[i])
                        .collect();
                    codes.sort_unstable();
                    CodeTest::OneOf(codes)
                };
                Predicate {
                    column: *column,
                    condition,
                }
            })
            .collect();
        let aggregate = if tcol.is_numeric() {
            Aggregate::Sum
        } else {
            Aggregate::Count {
                code: target_values[rng.random_range(0..target_values.len())],
            }
        };
        out.push(Query {
            predicates,
            aggregate,
        });
    }
    Ok(out)
}

fn present_codes(col: &Column) -> Vec<u32> {
    let freq = col.frequencies();
    (0..col.cardinality() as u32)
        .filter(|&c| freq[c as usize] > 0)
        .collect()
}

fn check_target(release: &Release, ds: &Dataset, target: usize) -> Result<()> {
    check_release_fits(release, ds)?;
    if target >= ds.n_cols() {
        return Err(Error::Internal(format!(
            "query workload: column {target} does not exist ({} columns)",
            ds.n_cols()
        )));
    }
    let name = ds.col(target).name();
    if release.quasi_identifiers.contains(&target) {
        return Err(Error::invalid(Parameter::Queries, format!(
            "query workload: '{name}' is a quasi-identifier; aggregate a sensitive or insensitive attribute"
        )));
    }
    if release.identifiers.contains(&target) {
        return Err(Error::invalid(
            Parameter::Queries,
            format!("query workload: '{name}' is an identifier and is not published"),
        ));
    }
    Ok(())
}

/// Answers queries on one release for one target attribute.
pub struct QueryEngine<'a> {
    release: &'a Release,
    ds: &'a Dataset,
    target: &'a Column,
    /// QI position of each dataset column, if it is a QI.
    position: Vec<Option<usize>>,
    /// The distinct cells per QI and each group's (a query judges each
    /// distinct cell once, then each group by lookup), the target's
    /// buckets and the whole groups (see `cell_table`); shared with the
    /// probabilistic engine when both answer one workload.
    layout: Arc<Layout>,
    /// The actual answers by bitsets over the published rows (see
    /// `metrics::actual`); `None` when that index would be too large.
    fast: Option<Actual<'a>>,
    /// What visiting groups row by row needs ([`RowIndex`]), built on the
    /// first query that visits a group so: never on a release whose groups
    /// are all whole (Mondrian's, full-domain's) under the paper's
    /// workload, whose predicates are all on QIs.
    rows: OnceLock<RowIndex>,
}

impl<'a> QueryEngine<'a> {
    pub fn new(release: &'a Release, ds: &'a Dataset, target: usize) -> Result<Self> {
        check_target(release, ds, target)?;
        let layout = Arc::new(Layout::new(release, ds, target));
        Ok(Self::with_layout(release, ds, target, layout))
    }

    /// An engine on a [`Layout`] already built for this release and
    /// target (after [`check_target`]).
    pub(crate) fn with_layout(
        release: &'a Release,
        ds: &'a Dataset,
        target: usize,
        layout: Arc<Layout>,
    ) -> Self {
        let mut position = vec![None; ds.n_cols()];
        for (a, &c) in release.quasi_identifiers.iter().enumerate() {
            position[c] = Some(a);
        }
        QueryEngine {
            release,
            ds,
            target: ds.col(target),
            position,
            layout,
            fast: Actual::new(release, ds, target),
            rows: OnceLock::new(),
        }
    }

    fn rows(&self) -> &RowIndex {
        self.rows.get_or_init(|| {
            RowIndex::new(
                self.release,
                self.ds,
                self.target,
                &self.layout.buckets,
                self.fast.is_none(),
            )
        })
    }

    /// Lower and upper bound from the release, and the actual answer.
    pub fn answer(&self, query: &Query) -> Answer {
        self.answer_with(query, &mut self.scratch())
    }

    pub(crate) fn scratch(&self) -> Scratch {
        Scratch {
            actual: ActualScratch::default(),
            sure: vec![0; self.layout.buckets.len()],
            possible: vec![0; self.layout.buckets.len()],
            touched: Vec::new(),
            row_checks: Vec::new(),
            prepared: Prepared::default(),
            qi: Vec::new(),
            products: None,
        }
    }

    pub(crate) fn answer_with(&self, query: &Query, scratch: &mut Scratch) -> Answer {
        self.layout
            .cells
            .prepare(self.ds, &self.position, query, &mut scratch.prepared);
        self.answer_prepared(query, scratch)
    }

    /// [`Self::answer_with`] once `scratch.prepared` holds the query's
    /// predicates evaluated.
    pub(crate) fn answer_prepared(&self, query: &Query, scratch: &mut Scratch) -> Answer {
        let value = |code: u32| match query.aggregate {
            Aggregate::Sum => sum_value(self.target, code),
            Aggregate::Count { code: v } => f64::from(u8::from(code == v)),
        };
        let Scratch {
            actual,
            sure,
            possible,
            touched,
            row_checks,
            prepared,
            qi,
            products,
        } = scratch;
        let n_pred = query.predicates.len();
        let tables = &prepared.tables[..n_pred];
        let columns: Vec<&[u32]> = query
            .predicates
            .iter()
            .map(|p| self.ds.col(p.column).codes())
            .collect();
        let holds = |pi: usize, r: u32| tables[pi][columns[pi][r as usize] as usize];

        let actual = match &self.fast {
            Some(fast) if fast.covers(query) => fast.answer(query, actual),
            _ => self.actual(query, tables, &columns),
        };

        let (mut lower, mut upper) = (0.0f64, 0.0f64);
        // Whole groups at once when every predicate is on a QI: a share
        // product of 1 means every cell surely satisfies its predicate, 0
        // that one surely fails.
        qi.clear();
        qi.extend(
            query
                .predicates
                .iter()
                .map_while(|p| self.position[p.column]),
        );
        let by_group = qi.len() == n_pred;
        if by_group {
            let prods = products.get_or_insert_with(Vec::new);
            self.layout
                .whole
                .products(prepared, qi, query.aggregate, prods);
            for &(i, p) in prods.iter() {
                let sure = p == 1.0;
                let (lo, up) = self.layout.whole.bounds(i as usize, query.aggregate, sure);
                lower += lo;
                upper += up;
            }
        } else {
            *products = None;
        }
        // The groups visited: the partial ones when the whole ones were
        // added above, else all.
        let visited = if by_group {
            self.layout.whole.partial.len()
        } else {
            self.release.groups.len()
        };
        let rows = if visited > 0 { Some(self.rows()) } else { None };
        for v in 0..visited {
            let gi = if by_group {
                self.layout.whole.partial[v] as usize
            } else {
                v
            };
            let g = &self.release.groups[gi];
            let rows = rows.expect("built when a group is visited");
            let mut all = true;
            row_checks.clear();
            let mut ruled_out = false;
            for (pi, p) in query.predicates.iter().enumerate() {
                // A predicate on an attribute that is not a QI is checked on
                // the rows' values.
                let Some(a) = self.position[p.column] else {
                    row_checks.push((pi, None));
                    continue;
                };
                let share = prepared.shares[pi][self.layout.cells.id(gi, a)];
                if share == ORIGINAL {
                    row_checks.push((pi, Some(a)));
                } else if share == 0.0 {
                    ruled_out = true;
                    break;
                } else if share < 1.0 {
                    all = false;
                }
            }
            if ruled_out {
                continue;
            }
            if let (true, Some(t)) = (row_checks.is_empty(), rows.totals[gi]) {
                let (sure_part, possible_part) = match query.aggregate {
                    Aggregate::Sum => (t.sum, (t.negative, t.positive)),
                    Aggregate::Count { code } => {
                        let values = &rows.group_values
                            [rows.group_values_at[gi]..rows.group_values_at[gi + 1]];
                        let n = values
                            .binary_search_by_key(&code, |v| v.code)
                            .map_or(0.0, |i| f64::from(values[i].count));
                        (n, (0.0, n))
                    }
                };
                if all {
                    lower += sure_part;
                    upper += sure_part;
                } else {
                    lower += possible_part.0;
                    upper += possible_part.1;
                }
                continue;
            }
            for i in rows.row_at[gi]..rows.row_at[gi + 1] {
                let passes = row_checks.iter().all(|&(pi, a)| match a {
                    Some(a) => tables[pi][rows.row_qi[a][i] as usize],
                    None => holds(pi, g.rows[i - rows.row_at[gi]]),
                });
                if !passes {
                    continue;
                }
                let b = rows.row_bucket[i];
                if b == SINGLE {
                    let x = value(rows.row_target[i]);
                    if all {
                        lower += x;
                        upper += x;
                    } else {
                        lower += x.min(0.0);
                        upper += x.max(0.0);
                    }
                } else {
                    let b = b as usize;
                    if possible[b] == 0 {
                        touched.push(b as u32);
                    }
                    possible[b] += 1;
                    sure[b] += u32::from(all);
                }
            }
        }
        for &b in touched.iter() {
            let b = b as usize;
            let (lo, hi) = self.bucket_bounds(b, sure[b], possible[b], query.aggregate);
            lower += lo;
            upper += hi;
            sure[b] = 0;
            possible[b] = 0;
        }
        touched.clear();
        Answer {
            lower,
            upper,
            actual,
        }
    }

    /// The query's answer on the published rows' original values.
    fn actual(&self, query: &Query, tables: &[Vec<bool>], columns: &[&[u32]]) -> f64 {
        let positions: Option<Vec<usize>> = query
            .predicates
            .iter()
            .map(|p| self.position[p.column])
            .collect();
        let tcodes = self.target.codes();
        let value = |code: u32, count: u32| match query.aggregate {
            Aggregate::Sum => sum_value(self.target, code) * f64::from(count),
            Aggregate::Count { code: v } => f64::from(if code == v { count } else { 0 }),
        };
        let Some(positions) = positions else {
            // A predicate outside the QIs: row by row.
            return self
                .rows()
                .published
                .iter()
                .filter(|&&r| {
                    tables
                        .iter()
                        .zip(columns)
                        .all(|(t, c)| t[c[r as usize] as usize])
                })
                .map(|&r| value(tcodes[r as usize], 1))
                .sum();
        };
        let d = self.release.quasi_identifiers.len();
        let mut total = 0.0;
        let rows = self.rows();
        for (i, combo) in rows.combos.chunks_exact(d.max(1)).enumerate() {
            if d == 0
                || tables
                    .iter()
                    .zip(&positions)
                    .all(|(t, &a)| t[combo[a] as usize])
            {
                let values =
                    &rows.combo_values[rows.combo_values_at[i]..rows.combo_values_at[i + 1]];
                total += values.iter().map(|v| value(v.code, v.count)).sum::<f64>();
            }
        }
        total
    }

    fn bucket_bounds(&self, b: usize, sure: u32, possible: u32, agg: Aggregate) -> (f64, f64) {
        let size = self.layout.buckets.size(b) as u32;
        match agg {
            Aggregate::Count { code } => {
                let n_v = self
                    .layout
                    .buckets
                    .values(b)
                    .iter()
                    .find(|v| v.code == code)
                    .map_or(0, |v| v.count);
                let lo = sure.saturating_sub(size - n_v);
                (f64::from(lo), f64::from(possible.min(n_v)))
            }
            Aggregate::Sum => {
                let rows = self.rows();
                let at = rows.prefix_at[b];
                let lo = rows.negatives[b].clamp(sure, possible) as usize;
                let hi = rows.positives[b].clamp(sure, possible) as usize;
                (rows.ascending[at + lo], rows.descending[at + hi])
            }
        }
    }
}

/// A numeric target's value for SUM; missing cells and categorical targets
/// add 0.
pub(super) fn sum_value(col: &Column, code: u32) -> f64 {
    col.number(code).unwrap_or(0.0)
}

/// Per-bucket counters of one query: rows that surely and possibly satisfy
/// it, and the buckets touched (to reset them).
pub(crate) struct Scratch {
    actual: ActualScratch,
    /// The query's predicates evaluated.
    pub(crate) prepared: Prepared,
    /// QI position of each predicate.
    qi: Vec<usize>,
    /// The whole groups' share products of the last query, when its
    /// predicates were all on QIs (`WholeGroups::products`;
    /// `prob_queries` reuses them).
    pub(crate) products: Option<Vec<(u32, f64)>>,
    sure: Vec<u32>,
    possible: Vec<u32>,
    touched: Vec<u32>,
    /// Predicates of the current group checked row by row, with their QI
    /// position (`None` for a predicate outside the QIs).
    row_checks: Vec<(usize, Option<usize>)>,
}

/// The relative error of the seeded workload (see the module doc).
pub fn query_error(
    release: &Release,
    ds: &Dataset,
    target: usize,
    queries: usize,
    seed: u64,
    progress: &Progress,
) -> Result<QueryReport> {
    let workload = generate_queries(release, ds, target, queries, seed)?;
    let engine = QueryEngine::new(release, ds, target)?;
    let answers = answer_workload(
        &workload,
        progress,
        || engine.scratch(),
        |scratch, q| engine.answer_with(q, scratch),
    )?;
    Ok(report_of(&answers, ds.col(target), seed))
}

/// Answer the workload in parallel with per-thread state from `init`,
/// reporting each query to `progress`. An outdated workload (the TUI asked
/// for new parameters) stops at the next query instead of keeping a core
/// busy.
pub(crate) fn answer_workload<S, T: Send>(
    workload: &[Query],
    progress: &Progress,
    init: impl Fn() -> S + Sync + Send,
    answer: impl Fn(&mut S, &Query) -> T + Sync + Send,
) -> Result<Vec<T>> {
    progress.set_total(workload.len() as u64);
    let answers: Option<Vec<T>> = workload
        .par_iter()
        .map_init(init, |state, q| {
            if progress.is_cancelled() {
                return None;
            }
            progress.advance(1);
            Some(answer(state, q))
        })
        .collect();
    answers.ok_or(Error::Cancelled)
}

/// The workload's mean relative error (upper − lower) / |actual| over the
/// answers whose actual value is not 0.
pub(crate) fn report_of(answers: &[Answer], tcol: &Column, seed: u64) -> QueryReport {
    let used: Vec<f64> = answers
        .iter()
        .filter(|a| a.actual != 0.0)
        .map(|a| (a.upper - a.lower) / a.actual.abs())
        .collect();
    QueryReport {
        aggregate: if tcol.is_numeric() {
            format!("SUM({})", tcol.name())
        } else {
            format!("COUNT({} = v)", tcol.name())
        },
        mean_relative_error: if used.is_empty() {
            0.0
        } else {
            used.iter().sum::<f64>() / used.len() as f64
        },
        queries_used: used.len(),
        skipped: answers.len() - used.len(),
        seed,
    }
}

#[cfg(test)]
mod tests;
