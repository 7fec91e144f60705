//! The Anonymize screen's component: what is asked (the session's
//! algorithm, k, l, p, seed and settings), the jobs that answer it, the
//! k/l sweep and full-domain's lattice (`views`), the neighbour prefetch
//! (`prefetch`), and what the screen draws from the answer.
//!
//! One request runs [`release::job`] — the session's own request, as
//! `anonlab anonymize --project` makes it — in the run slot. The query
//! workload is the slow part of an evaluation (hundreds of milliseconds on
//! Adult, and it cannot be cancelled), so it runs afterwards in a slot of
//! its own: the release, its checks, its fingerprint and its risk figures
//! come back within a blink, the query error a moment later, and a newer
//! request never waits behind a stale workload.
//!
//! "Before" is the session's baseline (`SessionState::baseline`), the same
//! figures as on the Risk and Compare screens, for the session's attacker;
//! "after" is the release's own evaluation, for the attacker of the
//! release (who knows every quasi-identifier it publishes). The screen
//! labels both, and names the attributes the release does not publish.
//!
//! While the app is idle, the neighbour prefetch runs the same job for the
//! focused parameter's neighbours (k ± 1, or l ± 1 / p ± 1) in a slot of
//! its own; finished runs go into the one [`ReleaseCache`], so a press
//! onto a neighbour is shown without waiting for the algorithm. A run
//! shown is freed after the frame that replaced it, and its follow-up jobs
//! (queries, prefetch, the Risk screen's "after") start after the frame
//! too (`after_draw`): measured in BENCHMARKS.md ("Issue 7 — live
//! tuning"), each kept the key press within its 100 ms.

use std::sync::Arc;

use super::lattice::{LatticeEffect, LatticeState};
use super::record::RecordDetail;
use super::release::{
    self, queries_job, AnonymizeView, CellMark, Outcome, QueryOutcome, ReleaseCache,
};
use super::side_by_side::SideBySide;
use super::sweep::{CellFigures, SweepEffect, SweepState};
use crate::chart::{self, ChartData, ChartExport, Dist};
use crate::jobs::{Job, Update};
use crate::keymap::Action;
use crate::layout;
use crate::search::{self, Scan};
use crate::session::{
    t_closeness_candidate, AlgorithmChoice, AnonymizeInputs, SessionState, FULL_DOMAIN,
};
use crate::shared::{follow, text_width, visible_window, JobState, Out, Screen, MAX_L};
use crate::worker::{JobId, WorkerMsg};
use anonlab::algorithms::pk::{self, PkBound, PkOptions};
use anonlab::data::{Dataset, Role, Roles};
use anonlab::privacy::Model;
use anonlab::release::Release;
use ratatui::layout::{Position, Rect};
use ratatui::Frame;

/// Largest record-suppression limit the keys offer, in percent.
pub const MAX_SUPPRESSION_PCT: u32 = 10;
/// Full-domain's metrics, in the order `M` cycles them.
pub const METRICS: [&str; 3] = ["loss", "dm", "height"];

/// A parameter of the Anonymize screen that ←/→ change when focused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Param {
    #[default]
    K,
    L,
    P,
}

impl Param {
    pub fn name(self) -> &'static str {
        match self {
            Param::K => "k",
            Param::L => "l",
            Param::P => "p",
        }
    }
}

/// Condition 2's bound for p over every sensitive attribute of the roles,
/// or why it cannot be computed (no sensitive attribute).
pub fn pk_bound(ds: &Dataset, roles: &Roles, p: u32) -> Result<PkBound, String> {
    let options = PkOptions {
        p,
        ..PkOptions::default()
    };
    pk::max_clusters(ds, &roles.with(Role::Sensitive), &options).map_err(|e| e.to_string())
}

/// The query workload of the shown release.
#[derive(Debug, Clone, PartialEq)]
pub enum QueriesState {
    /// Nothing to measure yet.
    Idle,
    Running {
        id: JobId,
    },
    Done(QueryOutcome),
    Failed(String),
}

/// The rows of the published table on screen, rendered when the release,
/// the scroll position or the terminal size changes — never while drawing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PublishedTable {
    /// First published row on screen.
    pub top: usize,
    /// The selected published row.
    pub cursor: usize,
    /// Rows that fit on screen.
    pub page: usize,
    /// The rows from `top`, at most `page` of them.
    pub rows: Vec<Vec<String>>,
    /// How each cell of `rows` is marked (suppressed, missing before).
    pub marks: Vec<Vec<CellMark>>,
    /// Column widths: the release's, widened by the rows on screen.
    pub widths: Vec<u16>,
}

/// Everything the Anonymize screen shows and asks. The algorithm, k, l, p,
/// the seed and the settings are the session's.
#[derive(Debug)]
pub struct AnonymizeState {
    pub algorithms: Vec<AlgorithmChoice>,
    /// Index into `algorithms`.
    pub algorithm: usize,
    /// The last finished anonymization.
    pub view: Option<AnonymizeView>,
    /// The last request failed: its inputs and what the algorithm said
    /// (infeasible parameters, such as an l the data is not eligible for).
    pub error: Option<(AnonymizeInputs, String)>,
    /// Why nothing can run with the current session.
    pub blocked: Option<String>,
    /// Inputs of the latest request sent to the worker.
    pub requested: Option<AnonymizeInputs>,
    pub job: Job<Box<AnonymizeView>>,
    pub queries: QueriesState,
    /// The query workload's slot (its progress; `queries` holds what it
    /// found).
    pub queries_job: Job<QueryOutcome>,
    pub table: PublishedTable,
    /// Whether the record detail replaces the charts.
    pub show_detail: bool,
    /// The selected record's detail, kept while `show_detail`.
    pub detail: Option<RecordDetail>,
    /// pk algorithms: Condition 2's maxClusters for the session's p and
    /// sensitive attributes, or why there is none.
    pub pk_bound: Option<Result<PkBound, String>>,
    /// The last bound computed and its (roles generation, p): counting the
    /// sensitive values of every row is O(rows), too much to repeat on the
    /// UI thread at each refresh.
    pk_memo: Option<((u64, u32), Result<PkBound, String>)>,
    /// The parameter ←/→ change (see [`AnonymizeState::focused`]).
    pub focus: Param,
    /// The phase the running anonymization named last, for the gauge.
    pub phase: Option<anonlab::progress::Phase>,
    /// Full-domain's lattice view.
    pub lattice: LatticeState,
    /// The original and published tables side by side.
    pub side_by_side: SideBySide,
}

impl AnonymizeState {
    pub fn choice(&self) -> &AlgorithmChoice {
        &self.algorithms[self.algorithm]
    }

    /// The parameters the chosen algorithm reads, in the panel's order:
    /// k, then l or p.
    pub fn params(&self) -> Vec<Param> {
        let choice = self.choice();
        let mut out = vec![Param::K];
        if choice.needs.p {
            out.push(Param::P);
        } else if choice.needs.l {
            out.push(Param::L);
        }
        out
    }

    /// The focused parameter; k when the chosen algorithm does not read
    /// the one focused last (the focus comes back when it does again).
    pub fn focused(&self) -> Param {
        if self.params().contains(&self.focus) {
            self.focus
        } else {
            Param::K
        }
    }

    fn focus_next(&mut self) {
        let params = self.params();
        let i = params
            .iter()
            .position(|&p| p == self.focused())
            .unwrap_or(0);
        self.focus = params[(i + 1) % params.len()];
    }

    /// What ←/→ (`by` = ∓1) ask: a change of the focused parameter.
    fn adjust_focused(&self, by: i32) -> Action {
        match self.focused() {
            Param::K => Action::AdjustK(by),
            Param::L => Action::AdjustL(by),
            Param::P => Action::AdjustP(by),
        }
    }

    /// Set `pk_bound` for the session's p when the chosen algorithm reads
    /// p (else clear it), reusing the last bound while the roles and p are
    /// the same.
    fn refresh_pk_bound(&mut self, session: &SessionState) {
        if !self.choice().needs.p {
            self.pk_bound = None;
            return;
        }
        let p = session.params().p;
        let key = (session.generations().roles, p);
        let bound = match &self.pk_memo {
            Some((k, b)) if *k == key => b.clone(),
            _ => {
                let b = pk_bound(session.dataset(), session.roles(), p);
                self.pk_memo = Some((key, b.clone()));
                b
            }
        };
        self.pk_bound = Some(bound);
    }

    /// What the gauge says while a run goes: the algorithm, the phase it
    /// named last (a named phase restarts the counter, so the bar going
    /// back to the start reads as the next step, not a restart) and how
    /// far that phase is.
    pub fn gauge_label(&self) -> Option<String> {
        let JobState::Running { fraction, .. } = *self.job.state() else {
            return None;
        };
        let algorithm = self.requested.as_ref().map_or("", |r| r.algorithm);
        let pct = fraction * 100.0;
        Some(match &self.phase {
            Some(p) => format!("running {algorithm}: {p}, {pct:.0}%  (Esc cancels)"),
            None => format!("running {algorithm} {pct:.0}%  (Esc cancels)"),
        })
    }

    /// Refill the rows on screen from the shown release, keep the cursor
    /// on a published row and on screen, and redo the record detail.
    pub fn refresh_table(&mut self, ds: &Dataset) {
        let t = &mut self.table;
        t.rows.clear();
        t.marks.clear();
        self.detail = None;
        let Some(view) = &self.view else {
            t.widths.clear();
            return;
        };
        self.lattice.refresh(view.full_domain.as_ref());
        self.side_by_side.refresh(Some(view), ds);
        let n = view.published_rows();
        t.cursor = t.cursor.min(n.saturating_sub(1));
        t.top = follow(t.top, t.cursor, t.page, n);
        if self.show_detail {
            self.detail = view.detail(ds, t.cursor);
        }
        t.widths = view.widths.clone();
        for i in visible_window(n, t.top, t.page) {
            if let Some(row) = view.row(ds, i) {
                for (w, cell) in t.widths.iter_mut().zip(&row) {
                    *w = (*w).max(text_width(cell).min(release::MAX_PUBLISHED_WIDTH as u16));
                }
                t.rows.push(row);
                t.marks.push(view.marks(ds, i));
            }
        }
    }
}

/// A message of one of the screen's job slots.
#[derive(Debug)]
pub enum AnonymizeMsg {
    /// Boxed: a finished anonymization is much larger than the others.
    Run(WorkerMsg<Box<AnonymizeView>>),
    Queries(WorkerMsg<QueryOutcome>),
    /// A speculative run of a neighbouring parameter value.
    Prefetch(WorkerMsg<Box<AnonymizeView>>),
    /// One cell of the k/l sweep.
    Sweep(WorkerMsg<CellFigures>),
}

/// The Anonymize screen: its state, the sweep, the cache and its four job
/// slots.
pub struct AnonymizeScreen {
    pub state: AnonymizeState,
    pub sweep: SweepState,
    pub cache: ReleaseCache,
    pub prefetch: Prefetch,
    /// Whether a neighbour prefetch runs after each run (off: every press
    /// runs the algorithm, as benchmarks' cold presses do).
    pub prefetch_enabled: bool,
    /// A release shown since the last frame: its follow-up jobs start
    /// after the frame (`after_draw`).
    followups: Option<AnonymizeInputs>,
    /// Whether the shown view, a fresh run, goes into the cache after the
    /// frame (copying it, and freeing what it evicts, would lengthen the
    /// press).
    cache_shown: bool,
    /// The view a new one replaced, freed after the frame.
    retired: Option<AnonymizeView>,
}

impl AnonymizeScreen {
    /// Starting on the session's algorithm, if it names one that exists.
    pub fn new(session: &SessionState) -> Self {
        let algorithms = session.algorithms();
        let algorithm = session
            .params()
            .algorithm
            .as_deref()
            .and_then(|id| algorithms.iter().position(|a| a.id == id))
            .unwrap_or(0);
        let mut s = AnonymizeScreen {
            state: AnonymizeState {
                algorithms,
                algorithm,
                view: None,
                error: None,
                blocked: None,
                requested: None,
                job: Job::inline(),
                queries: QueriesState::Idle,
                queries_job: Job::inline(),
                table: PublishedTable::default(),
                show_detail: false,
                detail: None,
                pk_bound: None,
                pk_memo: None,
                focus: Param::K,
                phase: None,
                lattice: LatticeState::default(),
                side_by_side: SideBySide::default(),
            },
            sweep: SweepState::new(),
            cache: ReleaseCache::default(),
            prefetch: Prefetch::default(),
            prefetch_enabled: true,
            followups: None,
            cache_shown: false,
            retired: None,
        };
        s.refresh_blocked(session);
        s
    }

    /// The slots, for the app to start their threads (`wrap` turns a
    /// message into the app's) or run them inline.
    pub fn start(
        &mut self,
        notify: impl Fn(AnonymizeMsg) + Send + Sync + Clone + 'static,
    ) -> std::io::Result<()> {
        let n = notify.clone();
        self.state.job.start(move |m| n(AnonymizeMsg::Run(m)))?;
        let n = notify.clone();
        self.state
            .queries_job
            .start(move |m| n(AnonymizeMsg::Queries(m)))?;
        let n = notify.clone();
        self.prefetch
            .job
            .start(move |m| n(AnonymizeMsg::Prefetch(m)))?;
        self.sweep
            .job
            .start(move |m| notify(AnonymizeMsg::Sweep(m)))?;
        self.prefetch.running = None;
        Ok(())
    }

    /// Restart the jobs the inline slots held when the threads took over.
    pub fn restart(&mut self, session: &SessionState) {
        if self.sweep.requeue() {
            self.request_sweep_cell(session);
        }
        if self.state.job.is_running() {
            self.request(session);
        } else if matches!(self.state.queries, QueriesState::Running { .. }) {
            self.request_queries(session);
        }
    }

    /// Run the inline slots' queued jobs and collect their messages.
    pub fn drain(&mut self, out: &mut Vec<AnonymizeMsg>) {
        out.extend(
            self.state
                .job
                .run_queued_inline()
                .into_iter()
                .map(AnonymizeMsg::Run),
        );
        out.extend(
            self.state
                .queries_job
                .run_queued_inline()
                .into_iter()
                .map(AnonymizeMsg::Queries),
        );
        out.extend(
            self.sweep
                .job
                .run_queued_inline()
                .into_iter()
                .map(AnonymizeMsg::Sweep),
        );
        out.extend(
            self.prefetch
                .job
                .run_queued_inline()
                .into_iter()
                .map(AnonymizeMsg::Prefetch),
        );
    }

    /// What an anonymization would be asked now.
    pub fn inputs(&self, session: &SessionState) -> AnonymizeInputs {
        session.current_inputs(self.state.choice().id)
    }

    /// The release on screen.
    pub fn shown_release(&self) -> Option<&Arc<Release>> {
        self.state.view.as_ref().map(|v| &v.release)
    }

    /// Follow the session after any change: stale cache entries go, the
    /// refusal follows the roles and settings, and — when the screen is in
    /// view — a changed request runs.
    pub fn sync(&mut self, session: &SessionState, visible: bool) {
        self.cache.forget_stale(&session.generations());
        self.refresh_blocked(session);
        if visible && self.state.requested.as_ref() != Some(&self.inputs(session)) {
            self.request(session);
        }
        self.sync_sweep(session, false);
        self.state.refresh_table(session.dataset());
    }

    /// Open full-domain's lattice in place of the other views, on the
    /// optimum of the search shown (however the cursor was left when the
    /// view was closed: the optimum may have moved since).
    fn open_lattice(&mut self) {
        let report = self
            .state
            .view
            .as_ref()
            .and_then(|v| v.full_domain.as_ref());
        self.state.lattice.open_on_optimum(report);
        self.sweep.open = false;
        self.state.side_by_side.open = false;
    }

    /// Apply an action of the screen.
    pub fn step(&mut self, action: &Action, session: &mut SessionState, out: &mut Out) {
        // The lattice view takes the cursor keys and Enter while open.
        if self.state.lattice.open && self.state.choice().id == FULL_DOMAIN {
            let report = self
                .state
                .view
                .as_ref()
                .and_then(|v| v.full_domain.as_ref());
            match self.state.lattice.step(action, report) {
                LatticeEffect::NotMine => {}
                LatticeEffect::Handled => return,
                LatticeEffect::Publish(node) => return self.publish_node(node, session, out),
            }
        }
        // Before/after takes the cursor keys; Enter shows the record in
        // the published table.
        if self.state.side_by_side.open {
            if self.state.side_by_side.step(action) {
                return self.state.refresh_table(session.dataset());
            }
            if *action == Action::Confirm {
                return self.leave_side_by_side(session.dataset());
            }
        }
        // The sweep view takes the cursor keys, Enter and `m` while open.
        if self.sweep.open {
            match self.sweep.step(action) {
                SweepEffect::NotMine => {}
                SweepEffect::Handled => return,
                SweepEffect::Pick { k, l } => return self.pick_sweep_point(k, l, session, out),
                SweepEffect::Resume => return self.sync_sweep(session, true),
            }
        }
        let n = session.dataset().n_rows();
        let page = self.state.table.page.max(1);
        match *action {
            Action::CycleAlgorithm(by) => {
                let count = self.state.algorithms.len() as i64;
                self.state.algorithm =
                    (self.state.algorithm as i64 + i64::from(by)).rem_euclid(count.max(1)) as usize;
                session.params_mut().algorithm = Some(self.state.choice().id.to_string());
                self.refresh_blocked(session);
                self.request(session);
            }
            // ←/→ change the focused parameter.
            Action::Left | Action::Right => {
                let by = if *action == Action::Right { 1 } else { -1 };
                let adjust = self.state.adjust_focused(by);
                return self.step(&adjust, session, out);
            }
            Action::FocusParam => {
                self.state.focus_next();
                // The neighbours worth computing follow the focus.
                if !self.state.job.is_running()
                    && self.state.requested == Some(self.inputs(session))
                {
                    let shown = self.inputs(session);
                    self.prefetch_neighbours(&shown, session);
                }
            }
            Action::ToggleSweep => {
                self.sweep.open = !self.sweep.open;
                if self.sweep.open {
                    self.state.lattice.open = false;
                    self.state.side_by_side.open = false;
                }
                self.sync_sweep(session, true);
            }
            Action::ToggleLattice => {
                if self.state.choice().id != FULL_DOMAIN && !self.state.lattice.open {
                    out.notice(
                        "the lattice is full-domain's: choose it with a / A or :algo full-domain",
                    );
                    return;
                }
                if self.state.lattice.open {
                    self.state.lattice.open = false;
                } else {
                    self.open_lattice();
                }
            }
            Action::FocusOptimum => {
                if self.state.choice().id != FULL_DOMAIN {
                    out.notice(
                        "the optimum is full-domain's: choose it with a / A or :algo full-domain",
                    );
                    return;
                }
                self.open_lattice();
            }
            Action::ToggleSideBySide => {
                // Its lines are records in file order; a frequency table's
                // rows are combinations, and the file is not in memory.
                if session.dataset().is_grouped() && !self.state.side_by_side.open {
                    out.notice(
                        "before/after pairs records of the file; this session holds its \
                         frequency table (open the file with --engine memory to see them)",
                    );
                    return;
                }
                let s = &mut self.state.side_by_side;
                s.open = !s.open;
                if s.open {
                    self.sweep.open = false;
                    self.state.lattice.open = false;
                }
            }
            Action::AdjustK(by) => {
                let max = n.clamp(1, u32::MAX as usize) as i64;
                let k = (i64::from(session.params().k) + i64::from(by)).clamp(1, max) as u32;
                if k != session.params().k {
                    session.params_mut().k = k;
                    if self.state.choice().needs.p {
                        // The pk refusal names k.
                        self.refresh_blocked(session);
                    }
                    self.request(session);
                }
            }
            Action::AdjustL(by) => {
                let l = (i64::from(session.params().l) + i64::from(by)).clamp(1, i64::from(MAX_L));
                if l as u32 != session.params().l {
                    session.params_mut().l = l as u32;
                }
                // Algorithms without l keep their release.
                self.request_if_changed(session);
            }
            Action::NextSeed => {
                let seed = session.params().seed.wrapping_add(1);
                session.params_mut().seed = seed;
                self.request_if_changed(session);
            }
            Action::AdjustP(by) => {
                let p = (i64::from(session.params().p) + i64::from(by)).clamp(1, i64::from(MAX_L));
                if p as u32 != session.params().p {
                    session.params_mut().p = p as u32;
                    self.refresh_blocked(session);
                    self.request_if_changed(session);
                }
            }
            Action::Recompute => {
                self.refresh_blocked(session);
                self.request(session);
            }
            Action::AdjustSuppression(by) => {
                let pct = (session.params().full_domain.suppression * 100.0).round() as i64;
                let new = (pct + i64::from(by)).clamp(0, i64::from(MAX_SUPPRESSION_PCT));
                if new != pct {
                    session.settings_mut().full_domain.suppression = new as f64 / 100.0;
                    self.request_if_changed(session);
                }
            }
            Action::CycleMetric => {
                let now = &session.params().full_domain.metric;
                let i = METRICS.iter().position(|m| m == now).unwrap_or(0);
                session.settings_mut().full_domain.metric = METRICS[(i + 1) % METRICS.len()].into();
                self.request_if_changed(session);
            }
            Action::CycleModel => {
                let now = &session.params().full_domain.model;
                let i = Model::NAMES.iter().position(|m| m == now).unwrap_or(0);
                let next = Model::NAMES[(i + 1) % Model::NAMES.len()];
                session.settings_mut().full_domain.model = next.into();
                self.refresh_blocked(session);
                self.request_if_changed(session);
            }
            Action::CycleTCloseness => {
                let next = next_t_closeness(session);
                let t = session.params().t;
                let ds = Arc::clone(session.dataset());
                let p = session.settings_mut();
                p.t_closeness.clear();
                if let Some(c) = next {
                    p.t_closeness.insert(ds.col(c).name().to_string(), t);
                }
                self.request_if_changed(session);
            }
            _ => return self.step_table(action, session, page),
        }
        self.state.refresh_table(session.dataset());
        self.sync_sweep(session, false);
    }

    /// The published table's keys, and Enter (the record detail).
    fn step_table(&mut self, action: &Action, session: &SessionState, page: usize) {
        let t = &mut self.state.table;
        match *action {
            // The wheel moves the view and the selected record with it;
            // `refresh_table` keeps both within the table.
            Action::Scroll(by) => {
                t.top = t.top.saturating_add_signed(by as isize);
                t.cursor = t.cursor.saturating_add_signed(by as isize);
            }
            Action::Up => t.cursor = t.cursor.saturating_sub(1),
            Action::Down => t.cursor = t.cursor.saturating_add(1),
            Action::PageUp => {
                t.top = t.top.saturating_sub(page);
                t.cursor = t.cursor.saturating_sub(page);
            }
            Action::PageDown => {
                t.top = t.top.saturating_add(page);
                t.cursor = t.cursor.saturating_add(page);
            }
            Action::First => t.cursor = 0,
            Action::Last => t.cursor = usize::MAX,
            Action::Confirm => self.state.show_detail = !self.state.show_detail,
            _ => return,
        }
        self.state.refresh_table(session.dataset());
    }

    /// Select published row `i` (a click, a search match).
    pub fn select_row(&mut self, i: usize, ds: &Dataset) {
        self.state.table.cursor = i;
        self.state.refresh_table(ds);
    }

    /// Show the algorithm the session holds (after an undo or redo brought
    /// back another one); a session that names none shows the first, as a
    /// new screen does.
    pub fn follow_algorithm(&mut self, session: &SessionState) {
        let i = session
            .params()
            .algorithm
            .as_deref()
            .and_then(|id| self.state.algorithms.iter().position(|a| a.id == id))
            .unwrap_or(0);
        if i != self.state.algorithm {
            self.state.algorithm = i;
            self.refresh_blocked(session);
        }
    }

    /// Use `entry`'s algorithm (a compare entry loaded with Enter).
    pub fn choose(&mut self, algorithm: &str, session: &mut SessionState) -> bool {
        let Some(i) = self.state.algorithms.iter().position(|a| a.id == algorithm) else {
            return false;
        };
        self.state.algorithm = i;
        session.params_mut().algorithm = Some(algorithm.to_string());
        self.refresh_blocked(session);
        true
    }

    /// Why the chosen algorithm cannot run now, whatever k and l: the
    /// session's refusal, then pk's conditions (the message says why and
    /// what p fits).
    pub fn refresh_blocked(&mut self, session: &SessionState) {
        let s = &mut self.state;
        s.blocked = session.blocked(s.choice());
        s.refresh_pk_bound(session);
        if s.blocked.is_none() {
            if let Some(Ok(bound)) = &s.pk_bound {
                if let Err(e) = pk::check(bound, session.params().k) {
                    s.blocked = Some(e.to_string());
                }
            }
        }
    }

    fn request_if_changed(&mut self, session: &SessionState) {
        if self.state.requested.as_ref() != Some(&self.inputs(session)) {
            self.request(session);
        }
    }

    /// Queue an anonymization for the current inputs (replacing a queued
    /// one and stopping the running one): shown at once from the cache
    /// when it holds them. With a session that cannot be anonymized, the
    /// running job is stopped and nothing is queued.
    pub fn request(&mut self, session: &SessionState) {
        let inputs = self.inputs(session);
        if self.state.blocked.is_some() {
            self.state.requested = Some(inputs);
            self.state.job.settle(JobState::Idle);
            return;
        }
        self.state.queries_job.settle(JobState::Idle);
        self.state.queries = QueriesState::Idle;
        if let Some(outcome) = self.cache.get(&inputs).cloned() {
            // Computed ahead by the same job: shown at once, no run
            // (`show_outcome` stops the one running).
            self.state.requested = Some(inputs.clone());
            self.show_outcome(inputs, outcome, session);
            return;
        }
        self.cancel_prefetch();
        let job = release::job(Arc::clone(session.session()), inputs.clone());
        self.state.requested = Some(inputs);
        self.state.job.submit(job);
        self.state.phase = None;
    }

    /// Show a finished anonymization (run now or taken from the cache)
    /// and plan its follow-ups.
    fn show_outcome(&mut self, inputs: AnonymizeInputs, outcome: Outcome, session: &SessionState) {
        match outcome {
            Ok(output) => {
                self.retired = self.state.view.replace(*output);
                self.state.error = None;
                self.state.job.settle(JobState::Done);
                self.state.refresh_table(session.dataset());
            }
            Err(error) => {
                // Infeasible parameters are the common failure: the screen
                // shows the algorithm's message where the figures would be.
                self.state.error = Some((inputs.clone(), error));
                self.state.job.settle(JobState::Failed);
            }
        }
        self.followups = Some(inputs);
    }

    /// Apply a message of one of the slots; whether a release was shown
    /// (the Risk screen's "after" follows it after the frame).
    pub fn on_msg(&mut self, msg: AnonymizeMsg, session: &SessionState) {
        match msg {
            AnonymizeMsg::Run(m) => self.on_run(m, session),
            AnonymizeMsg::Queries(m) => self.on_queries(m),
            AnonymizeMsg::Prefetch(m) => self.on_prefetch(m, session),
            AnonymizeMsg::Sweep(m) => {
                if self.sweep.on_worker(m) {
                    self.request_sweep_cell(session);
                }
            }
        }
    }

    fn on_run(&mut self, msg: WorkerMsg<Box<AnonymizeView>>, session: &SessionState) {
        let Some(update) = self.state.job.apply(msg) else {
            return;
        };
        match update {
            Update::Progress(_) => self.state.phase = self.state.job.phase(),
            Update::Done(output) => {
                let inputs = output.inputs.clone();
                self.cache_shown = self.cache.enabled;
                self.show_outcome(inputs, Ok(output), session);
            }
            Update::Cancelled => {}
            Update::Failed(error) => {
                let inputs = self
                    .state
                    .requested
                    .clone()
                    .unwrap_or_else(|| self.inputs(session));
                self.cache.insert(inputs.clone(), Err(error.clone()));
                self.show_outcome(inputs, Err(error), session);
            }
        }
    }

    /// After a frame: free the view a new one replaced, and start the
    /// follow-up jobs of a release shown since the last frame (its query
    /// workload and the prefetch of its neighbours). Returns the release
    /// shown, whose attacks the Risk screen then measures when in view.
    pub fn after_draw(&mut self, session: &SessionState) -> Option<Arc<Release>> {
        self.retired = None;
        let inputs = self.followups.take()?;
        let fresh = std::mem::take(&mut self.cache_shown);
        let shown = self.state.view.as_ref().filter(|v| v.inputs == inputs);
        if let (true, Some(view)) = (fresh, shown) {
            self.cache
                .insert(inputs.clone(), Ok(Box::new(view.clone())));
        }
        let release = shown.map(|v| Arc::clone(&v.release));
        if release.is_some() {
            self.request_queries(session);
        }
        self.prefetch_neighbours(&inputs, session);
        release
    }

    /// Queue the query workload of the shown release.
    fn request_queries(&mut self, session: &SessionState) {
        let Some(view) = &self.state.view else {
            return;
        };
        // The workload draws records one by one; a grouped table's rows
        // are combinations (`anonymize::evaluate` skips it there too).
        if session.dataset().is_grouped() {
            self.state.queries_job.settle(JobState::Idle);
            self.state.queries = QueriesState::Idle;
            return;
        }
        let job = queries_job(
            Arc::clone(session.dataset()),
            Arc::clone(&view.release),
            view.inputs.seed,
        );
        let id = self.state.queries_job.submit(job);
        self.state.queries = QueriesState::Running { id };
    }

    fn on_queries(&mut self, msg: WorkerMsg<QueryOutcome>) {
        match self.state.queries_job.apply(msg) {
            Some(Update::Done(output)) => self.state.queries = QueriesState::Done(output),
            Some(Update::Cancelled) => self.state.queries = QueriesState::Idle,
            Some(Update::Failed(error)) => self.state.queries = QueriesState::Failed(error),
            Some(Update::Progress(_)) | None => {}
        }
    }

    /// `Esc` on the screen: stop the sweep (or close it when idle), else
    /// the anonymization. Whether anything was stopped.
    pub fn cancel(&mut self) -> bool {
        if self.state.lattice.open && !self.state.job.is_running() {
            self.state.lattice.open = false;
            return true;
        }
        if self.state.side_by_side.open && !self.state.job.is_running() {
            self.state.side_by_side.open = false;
            return true;
        }
        if self.sweep.open {
            if self.sweep.job.is_running() {
                self.sweep.cancelled();
            } else {
                self.sweep.open = false;
            }
            return true;
        }
        self.state.job.cancel()
    }

    /// Whether one of the screen's jobs runs (the spinner turns).
    pub fn is_busy(&self) -> bool {
        self.state.job.is_running()
            || matches!(self.state.queries, QueriesState::Running { .. })
            || self.sweep.job.is_running()
    }
}

/// The next attribute for t-closeness: none, then each sensitive and
/// semi-sensitive column in column order, then none again. A project that
/// names several starts the cycle from the first of them.
fn next_t_closeness(session: &SessionState) -> Option<usize> {
    let roles = session.roles();
    let candidates: Vec<usize> = (0..roles.as_slice().len())
        .filter(|&c| t_closeness_candidate(roles.get(c)))
        .collect();
    let now = session.t_closeness().first().map(|&(c, _)| c);
    match now.and_then(|c| candidates.iter().position(|&x| x == c)) {
        None => candidates.first().copied(),
        Some(i) => candidates.get(i + 1).copied(),
    }
}

mod prefetch;
mod views;

pub use prefetch::Prefetch;
pub use views::levels_text;

mod draw;

/// Published rows rendered per `/` or `n`, so a table of a million rows
/// is searched in slices instead of freezing the screen.
const PUBLISHED_SEARCH_BUDGET: usize = 50_000;

impl super::Component for AnonymizeScreen {
    fn step(&mut self, action: &Action, cx: &mut super::Context<'_>, out: &mut Out) {
        AnonymizeScreen::step(self, action, cx.session, out);
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &super::View<'_>) {
        draw::draw(frame, area, &super::Drawn { me: self, view });
    }

    fn on_job(&mut self, msg: super::JobMsg, cx: &mut super::Context<'_>, _out: &mut Out) {
        if let super::JobMsg::Anonymize(m) = msg {
            self.on_msg(m, cx.session);
        }
    }

    /// A published row is rendered to be searched (generalized cells
    /// have no dictionary), so a long table is searched in slices; `n`
    /// goes on from where a slice stopped.
    fn search(&mut self, q: &str, forward: bool, cx: &mut super::Context<'_>) -> String {
        let ds = Arc::clone(cx.session.dataset());
        let ds = &*ds;
        let scan = self.state.view.as_ref().map(|view| {
            search::next_match_bounded(
                view.published_rows(),
                self.state.table.cursor,
                forward,
                PUBLISHED_SEARCH_BUDGET,
                |i| {
                    view.row(ds, i)
                        .is_some_and(|row| row.iter().any(|v| search::contains(v, q)))
                },
            )
        });
        match scan {
            Some(Scan::Found(i)) => {
                self.select_row(i, ds);
                format!("/{q}: published row {}", i + 1)
            }
            Some(Scan::Stopped(i)) => {
                self.select_row(i, ds);
                format!(
                    "'{q}' not found in the {} rows up to row {}; n searches on",
                    anonlab::format::thousands(PUBLISHED_SEARCH_BUDGET as u64),
                    anonlab::format::thousands(i as u64 + 1)
                )
            }
            _ => format!("'{q}' not found in the published table"),
        }
    }

    fn click(&mut self, area: Rect, at: Position, cx: &mut super::Context<'_>) {
        let vp = layout::anonymize_table_viewport(area);
        let s = &self.state;
        let rows = s.view.as_ref().map_or(0, |v| v.published_rows());
        let i = s.table.top + usize::from(at.y.saturating_sub(vp.y));
        if vp.contains(at) && i < rows {
            let ds = Arc::clone(cx.session.dataset());
            self.select_row(i, &ds);
        }
    }

    fn focused_panel(&self) -> Option<&'static str> {
        Some(if self.state.show_detail {
            "published table"
        } else {
            "parameters"
        })
    }

    fn status_jobs(&self) -> Screen {
        Screen::Anonymize
    }

    fn show(&mut self, cx: &mut super::Context<'_>) {
        let session = &*cx.session;
        self.refresh_blocked(session);
        if self.state.requested.as_ref() != Some(&self.inputs(session)) {
            self.request(session);
        }
        self.sync_sweep(session, false);
    }

    fn cancel(&mut self, _session: &mut SessionState) -> bool {
        AnonymizeScreen::cancel(self)
    }

    fn chart(&self, session: &SessionState) -> Result<ChartExport, String> {
        if self.sweep.open {
            return self.sweep_chart();
        }
        let view = self
            .state
            .view
            .as_ref()
            .ok_or("no release yet (the algorithm is running or refused the parameters)")?;
        let b = session.baseline().ok_or(chart::NOT_YET)?.baseline();
        let inputs = &view.inputs;
        let name = match inputs.l {
            Some(l) => format!("{} k={} l={l}", inputs.algorithm, inputs.k),
            None => format!("{} k={}", inputs.algorithm, inputs.k),
        };
        // The after figures of the view: the one after measurement for the
        // session's attacker, as the Risk screen draws them.
        let e = &view.after;
        let dist = |label: String, d: &anonlab::anonymize::Distribution| Dist::new(label, d);
        let data = match (&b.breach, &e.breach) {
            (Some(before), Some(after)) => ChartData::Breach(vec![
                dist("original".into(), &before.distribution),
                dist(name, &after.distribution),
            ]),
            _ => ChartData::Reidentification(vec![
                dist("original".into(), &b.linkage),
                dist(name, &e.linkage),
            ]),
        };
        let who = format!(
            "before: {}; after: {}",
            chart::attacker(session).unwrap_or_default(),
            view.attacker()
        );
        Ok(ChartExport {
            screen: "anonymize",
            data,
            attacker: Some(who),
        })
    }
}

impl AnonymizeScreen {
    /// The sweep's heat map, while the grid replaces the charts.
    fn sweep_chart(&self) -> Result<ChartExport, String> {
        let sweep = &self.sweep;
        let (measure, ks, ls, cells) = sweep.heatmap().ok_or("the sweep has not started")?;
        let base = sweep.base.as_ref().ok_or("the sweep has not started")?;
        let mut chars = measure.chars();
        let title = format!(
            "{}{} of {} by k and l{}",
            chars
                .next()
                .map(|c| c.to_uppercase().to_string())
                .unwrap_or_default(),
            chars.as_str(),
            base.algorithm,
            match crate::shared::seed_label(base.algorithm, ' ', base.seed).trim() {
                "" => String::new(),
                seed => format!(" ({seed})"),
            }
        );
        let data = ChartData::Sweep {
            measure,
            ks,
            ls,
            cells,
            title,
        };
        Ok(ChartExport {
            screen: "anonymize",
            data,
            attacker: None,
        })
    }
}

#[cfg(test)]
mod tests;
