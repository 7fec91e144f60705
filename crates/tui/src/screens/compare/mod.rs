//! The Compare screen's component: the compare set (algorithms and
//! parameter sets run side by side), what each entry measured, and the job
//! slot that measures them.
//!
//! An entry is an algorithm with its k, l, p and seed ([`CompareEntry`],
//! saved in the session and its project). Everything else a run reads —
//! roles, sensitive cells, hierarchies, t-closeness, full-domain's
//! settings, Construction's conditions — is the session's at the time of
//! the run, exactly as on the Anonymize screen: an entry's inputs are the
//! [`AnonymizeInputs`] the session gives for it, and `R` re-runs only the
//! entries whose inputs changed since they were measured.
//!
//! Each entry runs the Anonymize screen's own job (`release::make_view`:
//! the session's request, `anonymize::run` and `evaluate`, the
//! fingerprint), one entry per job of the compare slot, so results fill in
//! as they arrive and `Esc` stops the pass; an entry whose inputs the
//! release cache holds is not run again, and a run's view goes into the
//! cache (Enter then shows it on the Anonymize screen at once). The query
//! workload, the slow measure, runs after every entry's cheap measures, in
//! the same pass (`…` until then). An infeasible entry shows the
//! algorithm's message in its row. The chart's "original" curve is the
//! session's baseline, as on the Risk and Anonymize screens.

use std::collections::VecDeque;
use std::sync::Arc;

use super::release::{self, queries_job, AnonymizeView, ReleaseCache};
use crate::chart::{self, ChartData, ChartExport, Dist};
use crate::cmdline::CompareCommand;
use crate::jobs::{Job, Update};
use crate::keymap::Action;
use crate::layout;
use crate::search;
use crate::session::{AlgorithmChoice, AnonymizeInputs, SessionState};
use crate::shared::{step_series, JobState, Out, Screen};
use crate::worker::{JobFn, JobId, WorkerMsg};
use anonlab::algorithms::Request;
use anonlab::anonymize::{self as pipeline, Distribution, Evaluation};
use anonlab::assess::After;
use anonlab::data::{CompareEntry, Role, Roles};
use anonlab::release::Release;
use anonlab::session::Session;
use ratatui::layout::{Position, Rect};
use ratatui::Frame;

/// Which probability the table's risk columns and the chart show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probability {
    /// Breach probability of the first sensitive attribute: the session
    /// has one.
    Breach,
    /// Pr(re-id) of the linkage attack: no sensitive attribute.
    Reidentification,
}

impl Probability {
    fn of(roles: &Roles) -> Self {
        if roles.with(Role::Sensitive).is_empty() {
            Probability::Reidentification
        } else {
            Probability::Breach
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Probability::Breach => "breach probability",
            Probability::Reidentification => "Pr(re-id)",
        }
    }

    /// The after figure shown: the one after measurement for the
    /// session's attacker (`assess::After`), as every screen has it.
    fn distribution(self, a: &After) -> Option<&Distribution> {
        match self {
            Probability::Breach => a.breach.as_ref().map(|b| &b.distribution),
            Probability::Reidentification => Some(&a.linkage),
        }
    }
}

/// The query error of one entry.
#[derive(Debug, Clone, PartialEq)]
pub enum QueryError {
    /// Not measured yet (shown as `…`).
    Waiting,
    /// Mean relative error of the seeded workload; `None` without a
    /// sensitive attribute to aggregate.
    Done(Option<f64>),
    Failed(String),
}

/// What a finished entry measured.
#[derive(Debug, Clone)]
pub struct Measured {
    /// `anonymize::evaluate` without the query workload.
    pub evaluation: Evaluation,
    /// The after figures for the session's attacker (the view's).
    pub after: After,
    /// The p-sensitive paper's total information loss IL (Definition 10)
    /// of the release's partition, categorical QIs measured on the
    /// session's hierarchies (`metrics::pk_measures`: flat when a QI has
    /// none); `None` when the release cannot be measured so.
    pub il: Option<f64>,
    pub queries: QueryError,
    /// The CDF of the probability shown, as a step line.
    pub curve: Vec<(f64, f64)>,
    /// `release::fingerprint` of the published files.
    pub fingerprint: String,
    /// Kept until the query workload has read it.
    release: Option<Arc<Release>>,
    shown: Probability,
}

impl Measured {
    fn new(view: &AnonymizeView, il: Option<f64>, shown: Probability) -> Self {
        let evaluation = view.evaluation.clone();
        let after = view.after.clone();
        let curve = shown.distribution(&after).map_or_else(Vec::new, |d| {
            step_series(d.cdf.iter().map(|p| (p.probability, p.share)))
        });
        Measured {
            evaluation,
            after,
            il,
            queries: QueryError::Waiting,
            curve,
            fingerprint: view.fingerprint.clone(),
            release: Some(Arc::clone(&view.release)),
            shown,
        }
    }

    /// The distribution of the probability the screen shows.
    pub fn shown(&self) -> Option<&Distribution> {
        self.shown.distribution(&self.after)
    }

    /// Share of records whose probability is above `threshold` (the
    /// session's), read off the distribution as every screen reads it.
    pub fn share_above(&self, threshold: f64) -> Option<f64> {
        self.shown().map(|d| {
            let n = d.summary.records;
            if n == 0 {
                0.0
            } else {
                d.above(threshold) as f64 / n as f64
            }
        })
    }
}

/// Where an entry stands.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Never run, or its inputs changed since.
    Pending,
    Running,
    Measured(Box<Measured>),
    /// The algorithm's (or the screen's) reason it cannot run.
    Infeasible(String),
    /// The run failed for another reason (shown in the row too).
    Failed(String),
}

/// What an entry's figures depend on: the inputs the session gives for
/// it, and the session's hierarchies (IL reads them for every algorithm,
/// not only the ones whose inputs name them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryKey {
    pub inputs: AnonymizeInputs,
    pub hierarchies_generation: u64,
}

/// One entry of the compare set and its result.
#[derive(Debug, Clone)]
pub struct EntryState {
    pub entry: CompareEntry,
    pub outcome: Outcome,
    /// Stable identity while entries are removed during a pass.
    id: u64,
    /// The inputs the outcome answers.
    measured: Option<EntryKey>,
}

impl EntryState {
    /// Whether the outcome answers `inputs` and nothing of it is left to
    /// measure.
    fn is_current(&self, key: &EntryKey) -> bool {
        self.measured.as_ref() == Some(key)
            && match &self.outcome {
                Outcome::Measured(m) => m.queries != QueryError::Waiting,
                Outcome::Infeasible(_) => true,
                _ => false,
            }
    }
}

/// One unit of work of a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Task {
    Entry(u64),
    Queries(u64),
}

/// What a compare job reports.
#[derive(Debug)]
pub enum CompareOutput {
    Entry {
        id: u64,
        key: EntryKey,
        /// Measured or infeasible.
        outcome: Outcome,
        /// The run's view, for the release cache.
        view: Option<Box<AnonymizeView>>,
    },
    Queries {
        id: u64,
        error: Option<f64>,
    },
}

/// Everything the Compare screen shows and asks.
#[derive(Debug)]
pub struct CompareState {
    pub entries: Vec<EntryState>,
    /// The selected entry.
    pub cursor: usize,
    /// First metric column on screen (`h`/`l` scroll the metrics).
    pub left: usize,
    pub job: Job<Box<CompareOutput>>,
    /// The probability the risk columns show, fixed at the start of a pass.
    pub shown: Probability,
    queue: VecDeque<Task>,
    running: Option<Task>,
    /// Tasks finished in this pass, for the progress fraction.
    done: usize,
    /// The first job of the running pass: the pass's identity for the
    /// status bar's clock (each task is a job of its own).
    pass: Option<JobId>,
    next_id: u64,
}

impl CompareState {
    /// The saved set, nothing measured yet.
    pub fn new(entries: &[CompareEntry]) -> Self {
        let mut s = CompareState {
            entries: Vec::new(),
            cursor: 0,
            left: 0,
            job: Job::inline(),
            shown: Probability::Breach,
            queue: VecDeque::new(),
            running: None,
            done: 0,
            pass: None,
            next_id: 0,
        };
        for e in entries {
            s.push(e.clone());
        }
        s
    }

    fn push(&mut self, entry: CompareEntry) {
        self.next_id += 1;
        self.entries.push(EntryState {
            entry,
            outcome: Outcome::Pending,
            id: self.next_id,
            measured: None,
        });
    }

    /// The set as the project saves it.
    pub fn entries(&self) -> Vec<CompareEntry> {
        self.entries.iter().map(|e| e.entry.clone()).collect()
    }

    /// The original table's distribution of the probability shown: the
    /// session's baseline (linkage for Pr(re-id)).
    pub fn original<'a>(&self, session: &'a SessionState) -> Option<&'a Distribution> {
        let b = session.baseline()?.baseline();
        match self.shown {
            Probability::Breach => b.breach.as_ref().map(|a| &a.distribution),
            Probability::Reidentification => Some(&b.linkage),
        }
    }

    /// The fraction of the pass done: tasks finished, plus the running
    /// one's own fraction, over the tasks known so far (each entry still
    /// to run brings its query workload).
    pub fn fraction(&self) -> f64 {
        let JobState::Running { fraction, .. } = *self.job.state() else {
            return 0.0;
        };
        let queued_entries = self
            .queue
            .iter()
            .chain(self.running.iter())
            .filter(|t| matches!(t, Task::Entry(_)))
            .count();
        let total =
            self.done + self.queue.len() + usize::from(self.running.is_some()) + queued_entries;
        if total == 0 {
            return 0.0;
        }
        ((self.done as f64 + fraction) / total as f64).min(1.0)
    }

    /// The pass as one job, for the status bar: running with the pass's
    /// fraction while any of its tasks runs.
    pub fn pass_state(&self) -> JobState {
        match (self.job.state(), self.pass) {
            (JobState::Running { .. }, Some(id)) => JobState::Running {
                id,
                fraction: self.fraction(),
            },
            (state, _) => state.clone(),
        }
    }

    fn index_of(&self, id: u64) -> Option<usize> {
        self.entries.iter().position(|e| e.id == id)
    }

    /// Stop the pass: entries left waiting go back to pending (or keep
    /// their cheap measures, their query error left `…`).
    fn stop(&mut self) {
        self.queue.clear();
        self.running = None;
        for e in &mut self.entries {
            if matches!(e.outcome, Outcome::Running) {
                e.outcome = Outcome::Pending;
                e.measured = None;
            }
        }
    }
}

/// The job measuring one entry: the Anonymize screen's job (run, verify,
/// measure without the query workload, fingerprint), and IL on the
/// session's hierarchies.
fn entry_job(
    session: Arc<Session>,
    id: u64,
    key: EntryKey,
    shown: Probability,
) -> JobFn<Box<CompareOutput>> {
    Box::new(move |progress| {
        let (outcome, view) = match release::make_view(&session, key.inputs.clone(), progress) {
            // A run its parameters or its data refuse is an infeasible
            // entry with the reason bare, as `anonlab compare` shows it.
            Err(
                anonlab::Error::Invalid { msg: why, .. }
                | anonlab::Error::Internal(why)
                | anonlab::Error::Limit(why),
            ) => (Outcome::Infeasible(why), None),
            Err(e @ anonlab::Error::Unmet { .. }) => (Outcome::Infeasible(e.to_string()), None),
            Err(e) => return Err(e),
            Ok(view) => {
                let il = measure_il(&session, &view, &key.inputs);
                let measured = Measured::new(&view, il, shown);
                (Outcome::Measured(Box::new(measured)), Some(Box::new(view)))
            }
        };
        Ok(Box::new(CompareOutput::Entry {
            id,
            key,
            outcome,
            view,
        }))
    })
}

/// The p-sensitive paper's information loss IL of a view's release: every
/// release alike, on the session's hierarchies whatever the algorithm read.
fn measure_il(session: &Session, view: &AnonymizeView, inputs: &AnonymizeInputs) -> Option<f64> {
    let req = release::request(session, inputs).ok()?;
    let mut evaluation = view.evaluation.clone();
    let il_req = Request {
        options: anonlab::algorithms::Options {
            hierarchies: session.hierarchy_set(),
            pk: req.options.pk.clone(),
            ..Default::default()
        },
        ..req
    };
    pipeline::measure_pk(&mut evaluation, &view.release, &il_req)
        .ok()
        .and_then(|()| evaluation.pk.as_ref().map(|m| m.information_loss))
}

/// Which probability a session's roles make the table show.
fn probability_of(roles: &Roles) -> Probability {
    Probability::of(roles)
}

/// A message of the compare slot.
pub type CompareMsg = WorkerMsg<Box<CompareOutput>>;

/// The Compare screen: its state and its job slot.
pub struct CompareScreen {
    pub state: CompareState,
}

impl CompareScreen {
    pub fn new(session: &SessionState) -> Self {
        CompareScreen {
            state: CompareState::new(session.compare_set()),
        }
    }

    pub fn job_mut(&mut self) -> &mut Job<Box<CompareOutput>> {
        &mut self.state.job
    }

    /// The Compare screen's keys.
    pub fn step(
        &mut self,
        action: &Action,
        session: &mut SessionState,
        cache: &ReleaseCache,
        out: &mut Out,
    ) {
        let last = self.state.entries.len().saturating_sub(1);
        let c = &mut self.state;
        match *action {
            Action::Up => c.cursor = c.cursor.saturating_sub(1),
            Action::Down => c.cursor = (c.cursor + 1).min(last),
            Action::First => c.cursor = 0,
            Action::Last => c.cursor = last,
            Action::Left => c.left = c.left.saturating_sub(1),
            Action::Right => c.left = (c.left + 1).min(METRIC_COLUMNS - 1),
            Action::RemoveFromCompare => self.remove(session, cache, out),
            Action::Recompute => self.run(session, cache, out),
            Action::Confirm => {
                if let Some(e) = self.state.entries.get(self.state.cursor) {
                    out.show = Some(Screen::Anonymize);
                    out.notice(format!("{} loaded from the compare set", e.entry));
                }
            }
            _ => {}
        }
    }

    /// The selected entry (Enter loads it on the Anonymize screen).
    pub fn selected(&self) -> Option<&CompareEntry> {
        self.state.entries.get(self.state.cursor).map(|e| &e.entry)
    }

    /// Called when the screen is shown: until a pass has measured
    /// something the probability named is the current roles'.
    pub fn show(&mut self, session: &SessionState) {
        if self.state.entries.iter().all(|e| e.measured.is_none()) {
            self.state.shown = probability_of(session.roles());
        }
    }

    /// `c` on the Anonymize screen: add `entry`, what that screen would
    /// run now.
    pub fn add(&mut self, entry: CompareEntry, session: &mut SessionState, out: &mut Out) {
        if let Some(i) = self.state.entries.iter().position(|e| e.entry == entry) {
            out.notice(format!(
                "{entry} is already entry {} of the compare set",
                i + 1
            ));
            return;
        }
        out.notice(format!(
            "{entry} added to the compare set as entry {} (Compare screen: key 5)",
            self.state.entries.len() + 1
        ));
        self.state.push(entry);
        session.set_compare_set(self.state.entries());
    }

    fn remove(&mut self, session: &mut SessionState, cache: &ReleaseCache, out: &mut Out) {
        let c = &mut self.state;
        if c.cursor >= c.entries.len() {
            out.notice("the compare set is empty");
            return;
        }
        let removed = c.entries.remove(c.cursor);
        let id = removed.id;
        if c.running == Some(Task::Entry(id)) || c.running == Some(Task::Queries(id)) {
            // Its result would have nowhere to go: go on with the next.
            self.state.job.stop();
            self.state.running = None;
            let in_pass = self.state.job.is_running();
            self.next_task(session, cache, in_pass);
        }
        let c = &mut self.state;
        c.queue
            .retain(|t| *t != Task::Entry(id) && *t != Task::Queries(id));
        c.cursor = c.cursor.min(c.entries.len().saturating_sub(1));
        session.set_compare_set(self.state.entries());
        out.notice(format!("{} removed from the compare set", removed.entry));
    }

    /// What running `entry` reads now, and why it cannot run, if it
    /// cannot.
    fn entry_key(
        entry: &CompareEntry,
        session: &SessionState,
    ) -> Result<(EntryKey, Option<String>), String> {
        let choice = AlgorithmChoice::of(&session.session().registry, &entry.algorithm)
            .ok_or_else(|| format!("unknown algorithm '{}'", entry.algorithm))?;
        let p = session.params();
        let inputs = session.inputs(
            choice.id,
            entry.k,
            entry.l.unwrap_or(p.l),
            entry.p.unwrap_or(p.p),
            entry.seed,
        );
        let mut blocked = session.blocked(&choice);
        if blocked.is_none() && choice.needs.p {
            let bound = super::anonymize::pk_bound(
                session.dataset(),
                session.roles(),
                entry.p.unwrap_or(p.p),
            );
            if let Ok(b) = bound {
                if let Err(e) = anonlab::algorithms::pk::check(&b, entry.k) {
                    blocked = Some(e.to_string());
                }
            }
        }
        Ok((
            EntryKey {
                inputs,
                hierarchies_generation: session.generations().hierarchies,
            },
            blocked,
        ))
    }

    /// `R`: run every entry whose inputs changed since it was measured
    /// (all of them the first time), then the query workloads.
    pub fn run(&mut self, session: &SessionState, cache: &ReleaseCache, out: &mut Out) {
        if self.state.entries.is_empty() {
            out.notice("the compare set is empty: add entries on the Anonymize screen");
            return;
        }
        self.state.job.stop();
        self.state.stop();
        let shown = probability_of(session.roles());
        if shown != self.state.shown {
            self.state.shown = shown;
            // Every curve and share changes meaning: measure afresh.
            for e in &mut self.state.entries {
                e.measured = None;
            }
        }
        self.state.done = 0;
        let mut waiting_queries = Vec::new();
        for idx in 0..self.state.entries.len() {
            let entry = self.state.entries[idx].entry.clone();
            let (key, blocked) = match Self::entry_key(&entry, session) {
                Ok((key, blocked)) => (Some(key), blocked),
                Err(why) => (None, Some(why)),
            };
            let e = &mut self.state.entries[idx];
            if key.as_ref().is_some_and(|k| e.is_current(k)) {
                continue;
            }
            if let Some(why) = blocked {
                e.outcome = Outcome::Infeasible(why);
                e.measured = key;
                continue;
            }
            let current = e.measured.is_some() && e.measured == key;
            match &e.outcome {
                // Cheap measures current, the workload cut short: only it.
                Outcome::Measured(m) if current && m.queries == QueryError::Waiting => {
                    waiting_queries.push(Task::Queries(e.id));
                }
                _ => {
                    e.outcome = Outcome::Running;
                    self.state.queue.push_back(Task::Entry(e.id));
                }
            }
        }
        self.state.queue.extend(waiting_queries);
        if self.state.queue.is_empty() {
            out.notice("every entry is up to date");
        }
        let in_pass = self.state.job.is_running();
        self.next_task(session, cache, in_pass);
    }

    /// Start the next task of the pass, or end the pass. An entry whose
    /// inputs the release cache holds is taken from it, not run. `in_pass`:
    /// a pass is under way (its first job names it on the status bar's
    /// clock, so a task that follows another does not restart the gauge).
    fn next_task(&mut self, session: &SessionState, cache: &ReleaseCache, in_pass: bool) {
        loop {
            let Some(task) = self.state.queue.pop_front() else {
                self.state.running = None;
                if in_pass {
                    self.state.job.settle(JobState::Done);
                }
                return;
            };
            let job: JobFn<Box<CompareOutput>> = match task {
                Task::Entry(id) => {
                    let Some(idx) = self.state.index_of(id) else {
                        continue;
                    };
                    let entry = self.state.entries[idx].entry.clone();
                    match Self::entry_key(&entry, session) {
                        Ok((key, None)) => {
                            if let Some(Ok(view)) = cache.get(&key.inputs) {
                                let il = measure_il(session.session(), view, &key.inputs);
                                let outcome = Outcome::Measured(Box::new(Measured::new(
                                    view,
                                    il,
                                    self.state.shown,
                                )));
                                self.state.apply(CompareOutput::Entry {
                                    id,
                                    key,
                                    outcome,
                                    view: None,
                                });
                                continue;
                            }
                            entry_job(Arc::clone(session.session()), id, key, self.state.shown)
                        }
                        // The session changed since the pass started.
                        Ok((key, Some(why))) => {
                            let e = &mut self.state.entries[idx];
                            e.outcome = Outcome::Infeasible(why);
                            e.measured = Some(key);
                            continue;
                        }
                        Err(why) => {
                            self.state.entries[idx].outcome = Outcome::Infeasible(why);
                            continue;
                        }
                    }
                }
                Task::Queries(id) => {
                    // The entry's seed seeds the workload, as the Anonymize
                    // screen seeds it with its seed.
                    let release = self.state.index_of(id).and_then(|i| {
                        let e = &self.state.entries[i];
                        match &e.outcome {
                            Outcome::Measured(m) => Some((m.release.clone()?, e.entry.seed)),
                            _ => None,
                        }
                    });
                    let Some((release, seed)) = release else {
                        continue;
                    };
                    let workload = queries_job(Arc::clone(session.dataset()), release, seed);
                    Box::new(move |progress| {
                        let error = workload(progress)?.report.map(|r| r.mean_relative_error);
                        Ok(Box::new(CompareOutput::Queries { id, error }))
                    })
                }
            };
            let id = self.state.job.submit(job);
            if !in_pass {
                self.state.pass = Some(id);
            }
            self.state.running = Some(task);
            return;
        }
    }

    /// Apply what the compare slot reports, then start the next task.
    /// Returns a finished run's view, for the release cache.
    pub fn on_msg(
        &mut self,
        msg: CompareMsg,
        session: &SessionState,
        cache: &ReleaseCache,
    ) -> Option<Box<AnonymizeView>> {
        let task = self.state.running;
        let mut view = None;
        match self.state.job.apply(msg)? {
            Update::Progress(_) => return None,
            Update::Done(output) => view = self.state.apply(*output),
            Update::Cancelled => {
                self.state.stop();
                return None;
            }
            Update::Failed(error) => {
                // One failed entry does not stop the others: the message
                // goes in its row.
                if let Some(Task::Entry(id) | Task::Queries(id)) = task {
                    if let Some(i) = self.state.index_of(id) {
                        let e = &mut self.state.entries[i];
                        match (&mut e.outcome, task) {
                            (Outcome::Measured(m), Some(Task::Queries(_))) => {
                                m.queries = QueryError::Failed(error);
                                m.release = None;
                            }
                            (o, _) => {
                                *o = Outcome::Failed(error);
                                e.measured = None;
                            }
                        }
                    }
                }
            }
        }
        self.state.done += 1;
        self.state.running = None;
        // The task's job is over, but not the pass it belongs to.
        self.next_task(session, cache, true);
        view
    }

    /// `:compare add|remove|run`; `entry` is what `add` adds. Removing and
    /// running show the Compare screen, where their effect is seen.
    pub fn command(
        &mut self,
        command: CompareCommand,
        entry: CompareEntry,
        session: &mut SessionState,
        cache: &ReleaseCache,
        out: &mut Out,
    ) {
        match command {
            CompareCommand::Add => self.add(entry, session, out),
            CompareCommand::Remove => {
                out.show = Some(Screen::Compare);
                self.remove(session, cache, out);
            }
            CompareCommand::Run => {
                out.show = Some(Screen::Compare);
                self.run(session, cache, out);
            }
        }
    }

    /// `Esc` on the Compare screen: stop the pass; whether one ran.
    pub fn cancel(&mut self) -> bool {
        if self.state.job.cancel() {
            self.state.stop();
            return true;
        }
        false
    }
}

impl CompareState {
    /// Record a finished task; returns a run's view for the cache.
    fn apply(&mut self, output: CompareOutput) -> Option<Box<AnonymizeView>> {
        match output {
            CompareOutput::Entry {
                id,
                key,
                outcome,
                view,
            } => {
                let i = self.index_of(id)?;
                let e = &mut self.entries[i];
                e.measured = Some(key);
                e.outcome = outcome;
                if let Outcome::Measured(_) = &e.outcome {
                    // The workload of every entry runs after the cheap
                    // measures of all.
                    self.queue.push_back(Task::Queries(id));
                }
                view
            }
            CompareOutput::Queries { id, error } => {
                if let Some(i) = self.index_of(id) {
                    if let Outcome::Measured(m) = &mut self.entries[i].outcome {
                        m.queries = QueryError::Done(error);
                        m.release = None;
                    }
                }
                None
            }
        }
    }
}

/// Metric columns of the table, left to right (the ones `h`/`l` scroll).
pub const METRIC_COLUMNS: usize = 16;

mod draw;

impl super::Component for CompareScreen {
    fn draw(&self, frame: &mut Frame, area: Rect, view: &super::View<'_>) {
        draw::draw(frame, area, &super::Drawn { me: self, view });
    }

    /// A finished run goes into the Anonymize screen's release cache too,
    /// so loading its entry there shows it at once.
    fn on_job(&mut self, msg: super::JobMsg, cx: &mut super::Context<'_>, _out: &mut Out) {
        let (super::JobMsg::Compare(m), Some(cache)) = (msg, cx.cache.as_deref_mut()) else {
            return;
        };
        if let Some(v) = self.on_msg(m, cx.session, cache) {
            cache.insert(v.inputs.clone(), Ok(v));
        }
    }

    fn search(&mut self, q: &str, forward: bool, _cx: &mut super::Context<'_>) -> String {
        let entries = &self.state.entries;
        let found = search::next_match(entries.len(), self.state.cursor, forward, |i| {
            search::contains(&entries[i].entry.to_string(), q)
        });
        match found {
            Some(i) => {
                self.state.cursor = i;
                format!("/{q}: entry {} {}", i + 1, self.state.entries[i].entry)
            }
            None => format!("'{q}' not found in the compare set"),
        }
    }

    fn click(&mut self, area: Rect, at: Position, _cx: &mut super::Context<'_>) {
        let n = self.state.entries.len();
        if let Some(i) = layout::compare_entry_at(area, n, at) {
            self.state.cursor = i;
        }
    }

    fn status_jobs(&self) -> Screen {
        Screen::Compare
    }

    fn step(&mut self, action: &Action, cx: &mut super::Context<'_>, out: &mut Out) {
        // The app lends the cache to every screen but its owner.
        let Some(cache) = cx.cache.as_deref() else {
            return;
        };
        CompareScreen::step(self, action, cx.session, cache, out);
        if *action == Action::Confirm {
            out.load = self.selected().cloned();
        }
    }

    fn show(&mut self, cx: &mut super::Context<'_>) {
        CompareScreen::show(self, cx.session);
    }

    fn cancel(&mut self, _session: &mut SessionState) -> bool {
        CompareScreen::cancel(self)
    }

    fn chart(&self, session: &SessionState) -> Result<ChartExport, String> {
        let c = &self.state;
        let mut dists = Vec::new();
        let original = c.original(session);
        if let Some(d) = original {
            dists.push(Dist::new("original", d));
        }
        for e in &c.entries {
            if let Outcome::Measured(m) = &e.outcome {
                if let Some(d) = m.shown() {
                    dists.push(Dist::new(e.entry.to_string(), d));
                }
            }
        }
        if dists.len() < 1 + usize::from(original.is_some()) {
            return Err("no entry measured yet".into());
        }
        let data = match c.shown {
            Probability::Breach => ChartData::Breach(dists),
            Probability::Reidentification => ChartData::Reidentification(dists),
        };
        // Every entry is measured for the session's attacker: one label,
        // the entries' own when one has been measured.
        let who = c
            .entries
            .iter()
            .find_map(|e| match &e.outcome {
                Outcome::Measured(m) => Some(m.after.attacker.label.clone()),
                _ => None,
            })
            .or_else(|| chart::attacker(session))
            .unwrap_or_default();
        Ok(ChartExport {
            screen: "compare",
            data,
            attacker: Some(who),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_set_reopens_unmeasured_and_in_order() {
        let entries = vec![
            CompareEntry {
                algorithm: "mondrian".into(),
                k: 5,
                l: None,
                p: None,
                seed: 42,
            },
            CompareEntry {
                algorithm: "cbg".into(),
                k: 3,
                l: Some(2),
                p: None,
                seed: 42,
            },
        ];
        let s = CompareState::new(&entries);
        assert_eq!(s.entries(), entries);
        assert!(s
            .entries
            .iter()
            .all(|e| matches!(e.outcome, Outcome::Pending)));
    }
}
