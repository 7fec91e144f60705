//! The k/l sweep: a small grid of (k, l) points for the chosen algorithm,
//! each anonymized and measured, to pick a point by eye.
//!
//! Rows are k over a preset range ([`SWEEP_KS`], those the data has rows
//! for), columns are l from 1 to the largest l the data could satisfy
//! (the distinct values of its sensitive or semi-sensitive attributes),
//! capped at [`MAX_SWEEP_L`]; an algorithm that reads no l gets one column,
//! at l = 1 (no diversity asked, which every release satisfies). Each cell
//! is one job in the sweep's own worker slot — `anonymize::run` and
//! `anonymize::evaluate` without the query workload, the same figures the
//! Anonymize screen shows for that (k, l) — and the next cell is queued
//! when one finishes, so cells fill in as they are done, `Esc` stops the
//! sweep between (and inside) cells, and a change of algorithm, seed or
//! roles starts the grid afresh. A cell the algorithm refuses (an l the
//! data is not eligible for, a k larger than the data) keeps the refusal,
//! shown when the cell is focused.
//!
//! Cells are coloured by one measure at a time, cycled with `m`: the mean
//! breach probability of the sensitive attribute (the mean linkage
//! Pr(re-id) when there is none), C_DM (discernibility) or the mean NCP
//! (GCP). The query error is left out: its workload costs several times
//! a release on Adult (see BENCHMARKS.md, "Issue 7 — live tuning"), which
//! would make the sweep several times slower for one more colour.

use std::sync::Arc;

use super::release;
use crate::jobs::{Job, Update};
use crate::keymap::Action;
use crate::session::AnonymizeInputs;
use crate::shared::JobState;
use crate::worker::{JobFn, JobId, WorkerMsg};
use anonlab::anonymize::{self, Evaluation, Measure};
use anonlab::assess::After;
use anonlab::data::{Dataset, Role, Roles};
use anonlab::session::Session;

/// The values of k the sweep tries, those not above the data's rows.
pub const SWEEP_KS: [u32; 7] = [2, 3, 5, 10, 20, 50, 100];
/// Largest l the sweep tries.
pub const MAX_SWEEP_L: u32 = 6;

/// What colours the cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepMetric {
    /// Mean breach probability, or mean Pr(re-id) without a sensitive
    /// attribute.
    Risk,
    /// C_DM: Σ of squared class sizes (suppressed rows count n each).
    Discernibility,
    /// Mean NCP of the QI cells (GCP).
    Ncp,
}

impl SweepMetric {
    pub const ALL: [SweepMetric; 3] = [
        SweepMetric::Risk,
        SweepMetric::Discernibility,
        SweepMetric::Ncp,
    ];

    fn next(self) -> SweepMetric {
        let i = Self::ALL.iter().position(|&m| m == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }
}

/// The figures of one finished cell, from its [`Evaluation`] and its
/// after measurement for the session's attacker (`assess::After`: the
/// risk figures every screen shows).
#[derive(Debug, Clone, PartialEq)]
pub struct CellFigures {
    /// Mean breach probability of the first sensitive attribute.
    pub mean_breach: Option<f64>,
    pub max_breach: Option<f64>,
    /// Mean linkage Pr(re-id).
    pub mean_reid: f64,
    pub discernibility: u64,
    /// GCP: mean NCP over the QI cells.
    pub mean_ncp: f64,
    pub groups: usize,
    pub suppressed: usize,
    /// Whether the verifier confirmed every claimed guarantee.
    pub verified: bool,
    /// Milliseconds of the algorithm.
    pub time_ms: f64,
}

impl CellFigures {
    pub fn from_evaluation(e: &Evaluation, after: &After) -> Self {
        let breach = after.breach.as_ref().map(|b| &b.distribution.summary);
        CellFigures {
            mean_breach: breach.map(|b| b.mean),
            max_breach: breach.map(|b| b.max),
            mean_reid: after.linkage.summary.mean,
            discernibility: e.utility.discernibility,
            mean_ncp: e.utility.gcp,
            groups: e.groups,
            suppressed: e.suppressed,
            verified: e.verification.all_hold(),
            time_ms: e.time_ms,
        }
    }

    /// The cell's value of `metric`.
    pub fn value(&self, metric: SweepMetric) -> f64 {
        match metric {
            SweepMetric::Risk => self.mean_breach.unwrap_or(self.mean_reid),
            SweepMetric::Discernibility => self.discernibility as f64,
            SweepMetric::Ncp => self.mean_ncp,
        }
    }
}

/// One (k, l) point of the grid.
#[derive(Debug, Clone, PartialEq)]
pub enum SweepCell {
    /// Not computed yet.
    Pending,
    Running,
    Done(CellFigures),
    /// The algorithm refused the point; its message.
    Infeasible(String),
}

/// The grid as `charts::sweep_heatmap` takes it: the measure's name, the
/// ks, the ls and `cells[i][j]` at `l = ls[i]`, `k = ks[j]`.
pub type SweepHeatmap = (String, Vec<u32>, Vec<u32>, Vec<Vec<Option<f64>>>);

/// What a sweep action asks of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepEffect {
    /// Not a sweep action: the Anonymize screen handles it.
    NotMine,
    /// Handled (a cursor move, the next measure).
    Handled,
    /// Use this point: set k (and l) and run the algorithm.
    Pick { k: u32, l: Option<u32> },
    /// Go on with the points a cancelled sweep left.
    Resume,
}

/// The sweep view and its grid.
#[derive(Debug)]
pub struct SweepState {
    /// Whether the grid replaces the charts and table.
    pub open: bool,
    /// The inputs the grid was made for, with k = 0 and l = `None` (the
    /// grid's axes); `None` before the first sweep.
    pub base: Option<AnonymizeInputs>,
    pub ks: Vec<u32>,
    /// l per column; `None` for an algorithm that reads no l.
    pub ls: Vec<Option<u32>>,
    /// `cells[row][column]`: row = index into `ks`, column into `ls`.
    pub cells: Vec<Vec<SweepCell>>,
    /// (row, column) of the focused cell.
    pub cursor: (usize, usize),
    pub metric: SweepMetric,
    pub job: Job<CellFigures>,
    /// The cell its job computes.
    pub running: Option<(usize, usize)>,
    /// Why nothing can be swept with the current roles.
    pub blocked: Option<String>,
}

impl Default for SweepState {
    fn default() -> Self {
        Self::new()
    }
}

impl SweepState {
    pub fn new() -> Self {
        SweepState {
            open: false,
            base: None,
            ks: Vec::new(),
            ls: Vec::new(),
            cells: Vec::new(),
            cursor: (0, 0),
            metric: SweepMetric::Risk,
            job: Job::inline(),
            running: None,
            blocked: None,
        }
    }

    /// The grid's key for `inputs`: everything but k and l.
    pub fn base_of(inputs: &AnonymizeInputs) -> AnonymizeInputs {
        AnonymizeInputs {
            k: 0,
            l: None,
            ..inputs.clone()
        }
    }

    /// Whether the grid was made for these inputs (k and l aside).
    pub fn is_for(&self, inputs: &AnonymizeInputs) -> bool {
        self.base.as_ref() == Some(&Self::base_of(inputs))
    }

    /// Start a fresh grid for `inputs` on `ds` with `roles` (`uses_l`: the
    /// algorithm reads l). The cursor goes to the point nearest to the
    /// current k and l. The caller queues the first cell.
    pub fn reset(&mut self, ds: &Dataset, roles: &Roles, inputs: &AnonymizeInputs, uses_l: bool) {
        let n = ds.n_rows();
        self.ks = SWEEP_KS
            .iter()
            .copied()
            .filter(|&k| k as usize <= n)
            .collect();
        if self.ks.is_empty() && n > 0 {
            self.ks.push(n.min(u32::MAX as usize) as u32);
        }
        self.ls = if uses_l {
            (1..=largest_l(ds, roles)).map(Some).collect()
        } else {
            vec![None]
        };
        self.cells = vec![vec![SweepCell::Pending; self.ls.len()]; self.ks.len()];
        let nearest = |values: &mut dyn Iterator<Item = u32>, to: u32| {
            values
                .enumerate()
                .min_by_key(|&(_, v)| v.abs_diff(to))
                .map_or(0, |(i, _)| i)
        };
        self.cursor = (
            nearest(&mut self.ks.iter().copied(), inputs.k),
            nearest(
                &mut self.ls.iter().map(|l| l.unwrap_or(1)),
                inputs.l.unwrap_or(1),
            ),
        );
        self.base = Some(Self::base_of(inputs));
        self.running = None;
        self.job.settle(JobState::Idle);
    }

    /// The next cell to compute, in row order.
    pub fn next_pending(&self) -> Option<(usize, usize)> {
        self.cells.iter().enumerate().find_map(|(r, row)| {
            row.iter()
                .position(|c| *c == SweepCell::Pending)
                .map(|c| (r, c))
        })
    }

    /// The inputs of cell (row, column): the grid's base with its k and l.
    pub fn inputs_of(&self, (row, col): (usize, usize)) -> Option<AnonymizeInputs> {
        let base = self.base.as_ref()?;
        Some(AnonymizeInputs {
            k: *self.ks.get(row)?,
            l: *self.ls.get(col)?,
            ..base.clone()
        })
    }

    /// Queue `job`, computing `cell`, in the sweep's slot.
    pub fn start(&mut self, cell: (usize, usize), job: JobFn<CellFigures>) -> JobId {
        let id = self.job.submit(job);
        self.cells[cell.0][cell.1] = SweepCell::Running;
        self.running = Some(cell);
        self.job.set_fraction(self.done_fraction(0.0));
        id
    }

    /// (finished or refused points, all points) of the grid.
    pub fn counts(&self) -> (usize, usize) {
        let done = self
            .cells
            .iter()
            .flatten()
            .filter(|c| matches!(c, SweepCell::Done(_) | SweepCell::Infeasible(_)))
            .count();
        (done, self.ks.len() * self.ls.len())
    }

    /// Share of the grid finished, counting `partial` of the running cell.
    fn done_fraction(&self, partial: f64) -> f64 {
        let (done, total) = self.counts();
        if total == 0 {
            return 1.0;
        }
        (done as f64 + partial.clamp(0.0, 1.0)) / total as f64
    }

    /// Apply a message of the sweep's job slot. Returns whether the next
    /// cell should be queued. Messages of superseded jobs are dropped.
    pub fn on_worker(&mut self, msg: WorkerMsg<CellFigures>) -> bool {
        let Some((r, c)) = self.running else {
            return false;
        };
        let cell = match self.job.apply(msg) {
            None => return false,
            Some(Update::Progress(fraction)) => {
                self.job.set_fraction(self.done_fraction(fraction));
                return false;
            }
            Some(Update::Done(output)) => SweepCell::Done(output),
            Some(Update::Failed(error)) => {
                // Infeasible parameters are a finished point of the grid,
                // not a failed sweep.
                self.job.settle(JobState::Done);
                SweepCell::Infeasible(error)
            }
            Some(Update::Cancelled) => {
                self.cells[r][c] = SweepCell::Pending;
                self.running = None;
                return false;
            }
        };
        self.cells[r][c] = cell;
        self.running = None;
        self.next_pending().is_some()
    }

    /// After the job slot was replaced (its queued job is gone): the
    /// running cell goes back to pending. Returns whether there was one,
    /// to be queued again.
    pub fn requeue(&mut self) -> bool {
        match self.running.take() {
            Some((r, c)) => {
                self.cells[r][c] = SweepCell::Pending;
                self.job.settle(JobState::Idle);
                true
            }
            None => false,
        }
    }

    /// Stopped by the user: the running cell goes back to pending, and the
    /// grid keeps what is done.
    pub fn cancelled(&mut self) {
        if let Some((r, c)) = self.running.take() {
            self.cells[r][c] = SweepCell::Pending;
        }
        self.job.settle(JobState::Cancelled);
    }

    /// Cursor moves, the measure, picking a point and resuming.
    pub fn step(&mut self, action: &Action) -> SweepEffect {
        let rows = self.ks.len();
        let cols = self.ls.len();
        let (r, c) = &mut self.cursor;
        match *action {
            Action::Up => *r = r.saturating_sub(1),
            Action::Down => *r = (*r + 1).min(rows.saturating_sub(1)),
            Action::Left => *c = c.saturating_sub(1),
            Action::Right => *c = (*c + 1).min(cols.saturating_sub(1)),
            Action::First => *r = 0,
            Action::Last => *r = rows.saturating_sub(1),
            Action::RowStart => *c = 0,
            Action::RowEnd => *c = cols.saturating_sub(1),
            Action::CycleMeasure(_) => self.metric = self.metric.next(),
            Action::Recompute => return SweepEffect::Resume,
            Action::Confirm => {
                return match (self.ks.get(*r), self.ls.get(*c)) {
                    (Some(&k), Some(&l)) => SweepEffect::Pick { k, l },
                    _ => SweepEffect::Handled,
                }
            }
            _ => return SweepEffect::NotMine,
        }
        SweepEffect::Handled
    }

    /// The focused cell.
    pub fn focused(&self) -> Option<&SweepCell> {
        self.cells.get(self.cursor.0)?.get(self.cursor.1)
    }

    /// Whether the risk measure is the breach probability (a finished cell
    /// has one) rather than Pr(re-id).
    pub fn risk_is_breach(&self) -> bool {
        self.cells.iter().flatten().any(|c| match c {
            SweepCell::Done(f) => f.mean_breach.is_some(),
            _ => false,
        })
    }

    /// What `metric` is called on the screen and in the chart.
    pub fn metric_name(&self, metric: SweepMetric) -> &'static str {
        match metric {
            SweepMetric::Risk if self.risk_is_breach() => "mean breach probability",
            SweepMetric::Risk => "mean Pr(re-id)",
            SweepMetric::Discernibility => "C_DM",
            SweepMetric::Ncp => "GCP share (mean NCP)",
        }
    }

    /// (lowest, highest) value of the measure over the finished cells.
    pub fn range(&self) -> Option<(f64, f64)> {
        let mut values = self.cells.iter().flatten().filter_map(|c| match c {
            SweepCell::Done(f) => Some(f.value(self.metric)),
            _ => None,
        });
        let first = values.next()?;
        Some(values.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
    }

    /// The grid as `charts::sweep_heatmap` takes it: the measure's name,
    /// the ks, the ls (1 for an algorithm without l) and `cells[i][j]` at
    /// `l = ls[i]`, `k = ks[j]` — `None` where the point is not computed or
    /// was refused. `None` before a sweep.
    pub fn heatmap(&self) -> Option<SweepHeatmap> {
        if self.base.is_none() || self.ks.is_empty() || self.ls.is_empty() {
            return None;
        }
        let ls: Vec<u32> = self.ls.iter().map(|l| l.unwrap_or(1)).collect();
        let cells = (0..self.ls.len())
            .map(|c| {
                self.cells
                    .iter()
                    .map(|row| match &row[c] {
                        SweepCell::Done(f) => Some(f.value(self.metric)),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        Some((
            self.metric_name(self.metric).to_string(),
            self.ks.clone(),
            ls,
            cells,
        ))
    }
}

/// Largest l worth trying: the most distinct values among the sensitive
/// and semi-sensitive attributes (no release is l-diverse beyond them),
/// at most [`MAX_SWEEP_L`], at least 1.
fn largest_l(ds: &Dataset, roles: &Roles) -> u32 {
    let mut columns = roles.with(Role::Sensitive);
    columns.extend(roles.with(Role::SemiSensitive));
    columns
        .iter()
        .map(|&c| {
            let col = ds.col(c);
            // Past the dictionary, the frequencies count missing values.
            let freq = col.frequencies();
            freq.iter()
                .take(col.cardinality())
                .filter(|&&f| f > 0)
                .count()
        })
        .max()
        .unwrap_or(1)
        .clamp(1, MAX_SWEEP_L as usize) as u32
}

/// The job computing one cell: the inputs' algorithm at their (k, l) on
/// the session's request, then its evaluation without the query workload
/// and its after figures for the session's attacker.
pub fn cell_job(session: Arc<Session>, inputs: AnonymizeInputs) -> JobFn<CellFigures> {
    Box::new(move |progress| {
        let req = release::request(&session, &inputs)?;
        let (release, ms, _) = release::run_release(&session, inputs.algorithm, &req, progress)?;
        let skip_queries = Measure {
            queries: 0,
            query_seed: inputs.seed,
            threshold: session.attacker.threshold,
        };
        let ds = &session.dataset;
        let e = anonymize::evaluate(&release, ds, ms, &skip_queries, progress)?;
        let attacker = session.attacker()?;
        let threshold = session.attacker.threshold;
        let after = After::measure_with(ds, &release, &attacker, threshold, Some(&e), progress)?;
        Ok(CellFigures::from_evaluation(&e, &after))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(k: u32, l: Option<u32>) -> AnonymizeInputs {
        AnonymizeInputs {
            algorithm: "mondrian-l",
            k,
            l,
            p: None,
            seed: 1,
            reads: crate::session::Reads {
                roles: 0,
                cells: None,
                hierarchies: None,
                settings: None,
                attacker: 0,
            },
        }
    }

    fn demo() -> (Arc<Dataset>, Roles) {
        let s = anonlab::session::Session::demo().unwrap();
        (s.dataset, s.roles)
    }

    #[test]
    fn the_grid_spans_the_preset_ks_the_data_has_rows_for_and_its_ls() {
        let (ds, roles) = demo();
        let mut s = SweepState::new();
        s.reset(&ds, &roles, &inputs(4, Some(2)), true);
        let n = ds.n_rows() as u32;
        assert!(s.ks.iter().all(|&k| k <= n) && !s.ks.is_empty());
        assert_eq!(s.ls.first(), Some(&Some(1)));
        assert!(s.ls.len() <= MAX_SWEEP_L as usize);
        // k = 4 is as near to 3 as to 5: the first wins.
        assert_eq!(s.cursor, (1, 1));
        assert_eq!(s.next_pending(), Some((0, 0)));
        assert!(s.is_for(&inputs(50, Some(6))));
        assert!(!s.is_for(&AnonymizeInputs {
            seed: 2,
            ..inputs(4, Some(2))
        }));
        s.reset(&ds, &roles, &inputs(4, None), false);
        assert_eq!(s.ls, vec![None]);
    }

    #[test]
    fn cells_fill_in_from_messages_and_stale_ones_are_dropped() {
        let (ds, roles) = demo();
        let mut s = SweepState::new();
        s.reset(&ds, &roles, &inputs(2, None), false);
        // The jobs are never run: the test hands their messages in.
        let never =
            || -> JobFn<CellFigures> { Box::new(|_| Err(anonlab::error::Error::Cancelled)) };
        let first = s.start((0, 0), never());
        let figures = CellFigures {
            mean_breach: Some(0.25),
            max_breach: Some(0.5),
            mean_reid: 0.1,
            discernibility: 40,
            mean_ncp: 0.3,
            groups: 3,
            suppressed: 0,
            verified: true,
            time_ms: 1.0,
        };
        let done = |id| WorkerMsg::Done {
            id,
            output: figures.clone(),
            elapsed: std::time::Duration::ZERO,
        };
        assert!(!s.on_worker(done(first - 1)));
        assert_eq!(s.cells[0][0], SweepCell::Running);
        assert!(s.on_worker(done(first)));
        assert_eq!(s.cells[0][0], SweepCell::Done(figures.clone()));
        assert_eq!(s.next_pending(), Some((1, 0)));
        let second = s.start((1, 0), never());
        s.on_worker(WorkerMsg::Failed {
            id: second,
            error: "k too large".into(),
        });
        assert_eq!(s.cells[1][0], SweepCell::Infeasible("k too large".into()));
        assert_eq!(s.range(), Some((0.25, 0.25)));
        let (name, ks, ls, grid) = s.heatmap().unwrap();
        assert_eq!(name, "mean breach probability");
        assert_eq!((ks.len(), ls), (s.ks.len(), vec![1]));
        assert_eq!(grid[0][0], Some(0.25));
        assert_eq!(grid[0][1], None);
        s.metric = SweepMetric::Discernibility;
        assert_eq!(s.heatmap().unwrap().3[0][0], Some(40.0));
    }

    #[test]
    fn the_cursor_stays_on_the_grid_and_enter_picks_its_point() {
        let (ds, roles) = demo();
        let mut s = SweepState::new();
        s.reset(&ds, &roles, &inputs(2, Some(1)), true);
        for _ in 0..20 {
            s.step(&Action::Right);
            s.step(&Action::Down);
        }
        assert_eq!(s.cursor, (s.ks.len() - 1, s.ls.len() - 1));
        assert_eq!(
            s.step(&Action::Confirm),
            SweepEffect::Pick {
                k: *s.ks.last().unwrap(),
                l: *s.ls.last().unwrap()
            }
        );
        assert_eq!(s.step(&Action::NextSeed), SweepEffect::NotMine);
        s.step(&Action::CycleMeasure(1));
        assert_eq!(s.metric, SweepMetric::Discernibility);
    }
}
