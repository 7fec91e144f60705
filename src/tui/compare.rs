//! The Compare screen's model: the compare set (algorithms and parameter
//! sets run side by side), what each entry measured, and the jobs that
//! measure them.
//!
//! An entry is an algorithm with its k, l, p and seed
//! ([`CompareEntry`], saved in the project). Everything else a run reads —
//! roles, sensitive cells, hierarchies, t-closeness, the full-domain
//! settings — is the session's at the time of the run, exactly as on the
//! Anonymize screen: an entry's inputs are the [`AnonymizeInputs`] that
//! screen would build for it, and `R` re-runs only the entries whose
//! inputs changed since they were measured.
//!
//! Each entry runs through `anonymize::run` and `anonymize::evaluate` (the
//! pipeline of the Anonymize screen and of `anonlab compare`), one entry
//! per job of the compare slot, so results fill in as they arrive and `Esc`
//! stops the pass. The query workload, the slow measure, runs after every
//! entry's cheap measures, in the same pass (`…` until then). An
//! infeasible entry (the algorithm refuses its parameters, or the roles
//! cannot be anonymized by it) shows the algorithm's message in its row.
//!
//! This module is a child of `app` (declared there) so that the glue below
//! can read the session's state without app.rs growing: app.rs holds the
//! field, the job slot and one dispatch line per hook.

use std::collections::VecDeque;
use std::sync::Arc;

use super::{App, JobState, Screen};
use crate::algorithms::{Options, Request};
use crate::anonymize::{self as pipeline, Distribution, Evaluation, Measure};
use crate::data::{CompareEntry, Dataset, Role, Roles};
use crate::hierarchy::HierarchySet;
use crate::release::Release;
use crate::tui::anonymize::{
    self as anon, measure_before, request, step_series, AnonymizeInputs, Before, BeforeKey,
};
use crate::tui::cmdline::CompareCommand;
use crate::tui::keymap::Action;
use crate::tui::worker::{JobFn, JobId, WorkerMsg};

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

    fn distribution(self, e: &Evaluation) -> Option<&Distribution> {
        match self {
            Probability::Breach => e.breach.as_ref(),
            Probability::Reidentification => Some(&e.reidentification),
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
    /// The p-sensitive paper's total information loss IL (Definition 10)
    /// of the release's partition, categorical QIs measured on the
    /// session's hierarchies (`metrics::pk_measures`: flat when a QI has
    /// none); `None` when the release cannot be measured so.
    pub il: Option<f64>,
    pub queries: QueryError,
    /// The CDF of the probability shown, as a step line.
    pub curve: Vec<(f64, f64)>,
    /// Share of records whose probability is above the threshold.
    pub share_above: Option<f64>,
    /// Kept until the query workload has read it.
    release: Option<Arc<Release>>,
    shown: Probability,
}

impl Measured {
    fn new(evaluation: Evaluation, il: Option<f64>, release: Release, shown: Probability) -> Self {
        let curve = shown.distribution(&evaluation).map_or_else(Vec::new, |d| {
            step_series(d.cdf.iter().map(|p| (p.probability, p.share)))
        });
        Measured {
            evaluation,
            il,
            queries: QueryError::Waiting,
            curve,
            share_above: None,
            release: Some(Arc::new(release)),
            shown,
        }
    }

    /// The distribution of the probability the screen shows.
    pub fn shown(&self) -> Option<&Distribution> {
        self.shown.distribution(&self.evaluation)
    }

    fn set_threshold(&mut self, threshold: f64) {
        self.share_above = self.shown().map(|d| share_above(d, threshold));
    }
}

/// Share of records with a probability above `threshold`, read off the
/// CDF. Above means strictly greater (beyond the rounding tolerance), as
/// `ProbabilitySummary` counts records above its threshold.
fn share_above(d: &Distribution, threshold: f64) -> f64 {
    let at_most = d
        .cdf
        .iter()
        .take_while(|p| p.probability <= threshold + 1e-9)
        .last()
        .map_or(0.0, |p| p.share);
    (1.0 - at_most).max(0.0)
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

/// What an entry's figures depend on: the inputs the Anonymize screen
/// would build for it, and the session's hierarchies (IL reads them for
/// every algorithm, not only the ones whose inputs name them).
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
    /// The original table's curve, the chart's reference.
    Original,
    Entry(u64),
    Queries(u64),
}

/// What a compare job reports.
#[derive(Debug)]
pub enum CompareOutput {
    Original(BeforeKey, Arc<Before>),
    Entry {
        id: u64,
        key: EntryKey,
        /// Measured or infeasible.
        outcome: Outcome,
    },
    Queries {
        id: u64,
        error: Option<f64>,
    },
}

/// Everything the Compare screen shows and asks.
#[derive(Debug, Clone)]
pub struct CompareState {
    pub entries: Vec<EntryState>,
    /// The selected entry.
    pub cursor: usize,
    /// First metric column on screen (`h`/`l` scroll the metrics).
    pub left: usize,
    pub job: JobState,
    /// The probability the risk columns show, fixed at the start of a pass.
    pub shown: Probability,
    /// The Risk screen's threshold, for the share above it.
    pub threshold: f64,
    /// The original table's risk: the chart's reference curve.
    pub original: Option<(BeforeKey, Arc<Before>)>,
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
    pub fn new(entries: Vec<CompareEntry>, threshold: f64) -> Self {
        let mut s = CompareState {
            entries: Vec::new(),
            cursor: 0,
            left: 0,
            job: JobState::Idle,
            shown: Probability::Breach,
            threshold,
            original: None,
            queue: VecDeque::new(),
            running: None,
            done: 0,
            pass: None,
            next_id: 0,
        };
        for e in entries {
            s.push(e);
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

    /// The original table's curve of the probability shown.
    pub fn original_curve(&self) -> Option<&[(f64, f64)]> {
        let (_, b) = self.original.as_ref()?;
        let curve = match self.shown {
            Probability::Breach => b.breach.as_ref()?,
            Probability::Reidentification => &b.reidentification,
        };
        Some(&curve.series)
    }

    /// The fraction of the pass done: tasks finished, plus the running
    /// one's own fraction, over the tasks known so far (each entry still
    /// to run brings its query workload).
    pub fn fraction(&self) -> f64 {
        let JobState::Running { fraction, .. } = self.job else {
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
        match (&self.job, self.pass) {
            (JobState::Running { .. }, Some(id)) => JobState::Running {
                id,
                fraction: self.fraction(),
            },
            (state, _) => state.clone(),
        }
    }

    fn set_threshold(&mut self, threshold: f64) {
        self.threshold = threshold;
        for e in &mut self.entries {
            if let Outcome::Measured(m) = &mut e.outcome {
                m.set_threshold(threshold);
            }
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

/// The job measuring one entry: run, verify and measure (query workload
/// left for later), and IL on the session's hierarchies.
fn entry_job(
    ds: Arc<Dataset>,
    roles: Roles,
    id: u64,
    key: EntryKey,
    options: Options,
    hierarchies: HierarchySet,
    shown: Probability,
) -> JobFn<Box<CompareOutput>> {
    Box::new(move |progress| {
        let inputs = &key.inputs;
        let mut pk = options.pk.clone();
        if let Some(p) = inputs.pk.map(|p| p.p) {
            pk.p = p;
        }
        let req = request(&ds, &roles, inputs, options);
        let outcome = match pipeline::run(inputs.algorithm, &req, progress) {
            Err(crate::Error::Parameter(why)) => Outcome::Infeasible(why),
            Err(e) => return Err(e),
            Ok((release, ms)) => {
                let measure = Measure {
                    queries: 0,
                    query_seed: inputs.seed,
                };
                let mut evaluation = pipeline::evaluate(&release, &ds, ms, &measure, progress)?;
                // IL is measured on every release alike: with the
                // session's hierarchies whatever the algorithm read.
                let il_req = Request {
                    options: Options {
                        hierarchies,
                        pk,
                        ..Options::default()
                    },
                    ..req
                };
                let il = pipeline::measure_pk(&mut evaluation, &release, &il_req)
                    .ok()
                    .and_then(|()| evaluation.pk.as_ref().map(|m| m.information_loss));
                Outcome::Measured(Box::new(Measured::new(evaluation, il, release, shown)))
            }
        };
        Ok(Box::new(CompareOutput::Entry { id, key, outcome }))
    })
}

impl App {
    /// The Compare screen.
    pub fn compare(&self) -> &CompareState {
        &self.compare
    }

    /// The Compare screen's keys.
    pub(super) fn step_compare(&mut self, action: &Action) {
        let last = self.compare.entries.len().saturating_sub(1);
        let c = &mut self.compare;
        match *action {
            Action::Up => c.cursor = c.cursor.saturating_sub(1),
            Action::Down => c.cursor = (c.cursor + 1).min(last),
            Action::First => c.cursor = 0,
            Action::Last => c.cursor = last,
            Action::Left => c.left = c.left.saturating_sub(1),
            Action::Right => c.left = (c.left + 1).min(METRIC_COLUMNS - 1),
            Action::RemoveFromCompare => self.remove_from_compare(),
            Action::Recompute => self.run_compare(),
            Action::Confirm => self.load_compare_entry(),
            _ => {}
        }
    }

    /// Called when the Compare screen is shown: the share above the
    /// threshold follows the Risk screen's threshold, and until a pass has
    /// measured something the probability named is the current roles'.
    pub(super) fn show_compare(&mut self) {
        if self.compare.entries.iter().all(|e| e.measured.is_none()) {
            self.compare.shown = Probability::of(&self.roles);
        }
        let t = self.risk().threshold;
        if t != self.compare.threshold {
            self.compare.set_threshold(t);
        }
    }

    /// `c` on the Anonymize screen: add what the screen would run now.
    pub(super) fn add_to_compare(&mut self) {
        let choice = self.anon.choice();
        let entry = CompareEntry {
            algorithm: choice.id.to_string(),
            k: self.params.k,
            l: choice.uses_l.then_some(self.params.l),
            p: anon::reads_p(choice.id).then_some(self.params.p),
            seed: self.params.seed,
        };
        if let Some(i) = self.compare.entries.iter().position(|e| e.entry == entry) {
            self.notice = Some(format!(
                "{entry} is already entry {} of the compare set",
                i + 1
            ));
            return;
        }
        self.notice = Some(format!(
            "{entry} added to the compare set as entry {} (Compare screen: key 5)",
            self.compare.entries.len() + 1
        ));
        self.compare.push(entry);
    }

    pub(super) fn remove_from_compare(&mut self) {
        let c = &mut self.compare;
        if c.cursor >= c.entries.len() {
            self.notice = Some("the compare set is empty".into());
            return;
        }
        let removed = c.entries.remove(c.cursor);
        let id = removed.id;
        if c.running == Some(Task::Entry(id)) || c.running == Some(Task::Queries(id)) {
            // Its result would have nowhere to go: go on with the next.
            self.compare_worker.cancel();
            self.compare.running = None;
            self.next_compare_task();
        }
        let c = &mut self.compare;
        c.queue
            .retain(|t| *t != Task::Entry(id) && *t != Task::Queries(id));
        c.cursor = c.cursor.min(c.entries.len().saturating_sub(1));
        self.notice = Some(format!("{} removed from the compare set", removed.entry));
    }

    /// Enter: the entry's algorithm and parameters on the Anonymize screen.
    fn load_compare_entry(&mut self) {
        let Some(e) = self.compare.entries.get(self.compare.cursor) else {
            return;
        };
        let entry = e.entry.clone();
        let Some(i) = self
            .anon
            .algorithms
            .iter()
            .position(|a| a.id == entry.algorithm)
        else {
            self.notice = Some(format!("unknown algorithm '{}'", entry.algorithm));
            return;
        };
        self.lend_entry(i, &entry);
        self.show(Screen::Anonymize);
        self.notice = Some(format!("{entry} loaded from the compare set"));
    }

    /// Make `entry` the Anonymize screen's choice (algorithm `i` of the
    /// list) and return what it replaced.
    fn lend_entry(&mut self, i: usize, entry: &CompareEntry) -> (usize, crate::data::Params) {
        let saved = (self.anon.algorithm, self.params.clone());
        self.anon.algorithm = i;
        self.params.k = entry.k;
        if let Some(l) = entry.l {
            self.params.l = l;
        }
        if let Some(p) = entry.p {
            self.params.p = p;
        }
        self.params.seed = entry.seed;
        saved
    }

    /// What running `entry` would read now: its inputs, the algorithm's
    /// options, and why it cannot run, if it cannot. The Anonymize screen's
    /// own code derives all three from its current choice, so the entry
    /// is lent to it for the moment (one derivation, not a copy of it).
    fn entry_inputs(
        &mut self,
        entry: &CompareEntry,
    ) -> Result<(EntryKey, Options, Option<String>), String> {
        let i = self
            .anon
            .algorithms
            .iter()
            .position(|a| a.id == entry.algorithm)
            .ok_or_else(|| format!("unknown algorithm '{}'", entry.algorithm))?;
        let (algorithm, params) = self.lend_entry(i, entry);
        self.refresh_blocked();
        let key = EntryKey {
            inputs: self.anonymize_inputs(),
            hierarchies_generation: self.hier.generation,
        };
        let out = (key, self.algorithm_options(), self.anon.blocked.clone());
        // Give the screen its own choice back, and its refusal for it.
        self.anon.algorithm = algorithm;
        self.params = params;
        self.refresh_blocked();
        Ok(out)
    }

    /// `R`: run every entry whose inputs changed since it was measured
    /// (all of them the first time), then the query workloads.
    pub(super) fn run_compare(&mut self) {
        if self.compare.entries.is_empty() {
            self.notice =
                Some("the compare set is empty: add entries on the Anonymize screen".into());
            return;
        }
        self.compare_worker.cancel();
        self.compare.stop();
        let shown = Probability::of(&self.roles);
        if shown != self.compare.shown {
            self.compare.shown = shown;
            // Every curve and share changes meaning: measure afresh.
            for e in &mut self.compare.entries {
                e.measured = None;
            }
        }
        self.compare.done = 0;
        let qi = self.roles.with(Role::QuasiIdentifier);
        let key: BeforeKey = (qi, self.roles.with(Role::Sensitive).first().copied());
        if self.compare.original.as_ref().map(|o| &o.0) != Some(&key) {
            match &self.before {
                Some((k, b)) if *k == key => {
                    self.compare.original = Some((key, Arc::clone(b)));
                }
                _ if !key.0.is_empty() => self.compare.queue.push_back(Task::Original),
                _ => self.compare.original = None,
            }
        }
        let mut waiting_queries = Vec::new();
        for idx in 0..self.compare.entries.len() {
            let entry = self.compare.entries[idx].entry.clone();
            let (inputs, blocked) = match self.entry_inputs(&entry) {
                Ok((inputs, _, blocked)) => (Some(inputs), blocked),
                Err(why) => (None, Some(why)),
            };
            let e = &mut self.compare.entries[idx];
            if inputs.as_ref().is_some_and(|i| e.is_current(i)) {
                continue;
            }
            if let Some(why) = blocked {
                e.outcome = Outcome::Infeasible(why);
                e.measured = inputs;
                continue;
            }
            let current = e.measured.is_some() && e.measured == inputs;
            match &e.outcome {
                // Cheap measures current, the workload cut short: only it.
                Outcome::Measured(m) if current && m.queries == QueryError::Waiting => {
                    waiting_queries.push(Task::Queries(e.id));
                }
                _ => {
                    e.outcome = Outcome::Running;
                    self.compare.queue.push_back(Task::Entry(e.id));
                }
            }
        }
        self.compare.queue.extend(waiting_queries);
        let n = self.compare.queue.len();
        if n == 0 {
            self.notice = Some("every entry is up to date".into());
        }
        self.next_compare_task();
    }

    /// Start the next task of the pass, or end the pass.
    fn next_compare_task(&mut self) {
        let Some(task) = self.compare.queue.pop_front() else {
            self.compare.running = None;
            if self.compare.job.is_running() {
                self.compare.job = JobState::Done;
            }
            return;
        };
        let ds = Arc::clone(&self.ds);
        let job: JobFn<Box<CompareOutput>> = match task {
            Task::Original => {
                let (qi, sensitive) = (
                    self.roles.with(Role::QuasiIdentifier),
                    self.roles.with(Role::Sensitive).first().copied(),
                );
                Box::new(move |progress| {
                    let before = measure_before(&ds, &qi, sensitive, progress)?;
                    Ok(Box::new(CompareOutput::Original(
                        (qi, sensitive),
                        Arc::new(before),
                    )))
                })
            }
            Task::Entry(id) => {
                let Some(idx) = self.compare.index_of(id) else {
                    return self.next_compare_task();
                };
                let entry = self.compare.entries[idx].entry.clone();
                match self.entry_inputs(&entry) {
                    Ok((inputs, options, None)) => entry_job(
                        ds,
                        self.roles.clone(),
                        id,
                        inputs,
                        options,
                        self.hier.set(),
                        self.compare.shown,
                    ),
                    // The session changed since the pass started.
                    Ok((inputs, _, Some(why))) => {
                        let e = &mut self.compare.entries[idx];
                        e.outcome = Outcome::Infeasible(why);
                        e.measured = Some(inputs);
                        return self.next_compare_task();
                    }
                    Err(why) => {
                        self.compare.entries[idx].outcome = Outcome::Infeasible(why);
                        return self.next_compare_task();
                    }
                }
            }
            Task::Queries(id) => {
                // The entry's seed seeds the workload, as the Anonymize
                // screen seeds it with its seed (a deterministic
                // algorithm's release records none).
                let release = self.compare.index_of(id).and_then(|i| {
                    let e = &self.compare.entries[i];
                    match &e.outcome {
                        Outcome::Measured(m) => Some((m.release.clone()?, e.entry.seed)),
                        _ => None,
                    }
                });
                let Some((release, seed)) = release else {
                    return self.next_compare_task();
                };
                let workload = anon::queries_job(ds, release, seed);
                Box::new(move |progress| {
                    let error = workload(progress)?.report.map(|r| r.mean_relative_error);
                    Ok(Box::new(CompareOutput::Queries { id, error }))
                })
            }
        };
        let starting = !self.compare.job.is_running();
        let id = self.compare_worker.submit(job);
        if starting {
            self.compare.pass = Some(id);
        }
        self.compare.running = Some(task);
        self.compare.job = JobState::Running { id, fraction: 0.0 };
    }

    /// Apply what the compare slot reports, then start the next task.
    pub(super) fn on_compare(&mut self, msg: WorkerMsg<Box<CompareOutput>>) {
        let JobState::Running { id: current, .. } = self.compare.job else {
            return;
        };
        if msg.id() != current {
            return;
        }
        let task = self.compare.running;
        match msg {
            WorkerMsg::Progress { id, fraction } => {
                self.compare.job = JobState::Running { id, fraction };
                return;
            }
            WorkerMsg::Done { output, .. } => self.apply_compare_output(*output),
            WorkerMsg::Cancelled { .. } => {
                self.compare.stop();
                self.compare.job = JobState::Cancelled;
                return;
            }
            WorkerMsg::Failed { error, .. } => {
                // One failed entry does not stop the others: the message
                // goes in its row.
                if let Some(Task::Entry(id) | Task::Queries(id)) = task {
                    if let Some(i) = self.compare.index_of(id) {
                        let e = &mut self.compare.entries[i];
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
                } else {
                    self.notice = Some(format!("original table: {error}"));
                }
            }
        }
        self.compare.done += 1;
        self.compare.running = None;
        self.next_compare_task();
    }

    fn apply_compare_output(&mut self, output: CompareOutput) {
        let c = &mut self.compare;
        match output {
            CompareOutput::Original(key, before) => c.original = Some((key, before)),
            CompareOutput::Entry { id, key, outcome } => {
                let Some(i) = c.index_of(id) else {
                    return;
                };
                let e = &mut c.entries[i];
                e.measured = Some(key);
                e.outcome = outcome;
                if let Outcome::Measured(m) = &mut e.outcome {
                    m.set_threshold(c.threshold);
                    // The workload of every entry runs after the cheap
                    // measures of all.
                    c.queue.push_back(Task::Queries(id));
                }
            }
            CompareOutput::Queries { id, error } => {
                if let Some(i) = c.index_of(id) {
                    if let Outcome::Measured(m) = &mut c.entries[i].outcome {
                        m.queries = QueryError::Done(error);
                        m.release = None;
                    }
                }
            }
        }
    }

    /// `:compare add|remove|run`. Removing and running show the Compare
    /// screen, where their effect is seen.
    pub(super) fn run_compare_command(&mut self, command: CompareCommand) {
        match command {
            CompareCommand::Add => self.add_to_compare(),
            CompareCommand::Remove => {
                self.show(Screen::Compare);
                self.remove_from_compare();
            }
            CompareCommand::Run => {
                self.show(Screen::Compare);
                self.run_compare();
            }
        }
    }

    /// `Esc` on the Compare screen: stop the pass.
    pub(super) fn cancel_compare(&mut self) {
        if self.compare.job.is_running() {
            self.compare_worker.cancel();
            self.compare.stop();
            self.compare.job = JobState::Cancelled;
        }
    }
}

/// Metric columns of the table, left to right (the ones `h`/`l` scroll).
pub const METRIC_COLUMNS: usize = 11;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::risk::{CdfPoint, ProbabilitySummary};

    #[test]
    fn the_share_above_counts_records_strictly_above() {
        let probabilities = [0.1, 0.1, 0.5, 0.5];
        let cdf = vec![
            CdfPoint {
                probability: 0.1,
                share: 0.5,
            },
            CdfPoint {
                probability: 0.5,
                share: 1.0,
            },
        ];
        let d = Distribution {
            summary: ProbabilitySummary::new(&probabilities, 4, 0.1),
            histogram: Vec::new(),
            cdf,
            cdf_at: Vec::new(),
        };
        for (t, above) in [(0.05, 1.0), (0.1, 0.5), (0.2, 0.5), (0.5, 0.0)] {
            assert_eq!(share_above(&d, t), above, "threshold {t}");
            let s = ProbabilitySummary::new(&probabilities, 4, t);
            assert_eq!(s.records_above_threshold as f64 / 4.0, above);
        }
    }
}
