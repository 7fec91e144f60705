//! Every background job slot of the TUI in one list, for the status bar
//! (the screen's job, plus any other job running) and the progress gauge,
//! and the clock that decides when a job has run long enough to show a
//! gauge instead of just the spinner.
//!
//! A slot added to the app gets one line in `App::job_lines`; the status
//! bar and the gauge then follow it without further changes. This module
//! reads nothing of the app (the layers run one way).
//!
//! [`Job`] is one slot: its worker and the state of its latest request,
//! with the one place that drops a superseded request's messages and moves
//! the state, so the screens only say what a result means to them.

use std::time::{Duration, Instant};

use super::shared::{JobState, Screen};
use super::worker::{JobFn, JobId, Worker, WorkerMsg};

/// One background job slot: the worker that runs its requests and the
/// state of the latest one, as the status bar shows it.
pub struct Job<T> {
    worker: Worker<T>,
    state: JobState,
}

/// A message of the slot's current request, once [`Job::apply`] has
/// dropped the stale ones and moved the state: what the owner acts on.
#[derive(Debug)]
pub enum Update<T> {
    Progress(f64),
    Done(T),
    Cancelled,
    Failed(String),
}

impl<T> std::fmt::Debug for Job<T> {
    // The worker is a thread handle; its state is what a reader wants.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job").field("state", &self.state).finish()
    }
}

/// A slot reads as its state: `job == JobState::Done`.
impl<T> PartialEq<JobState> for Job<T> {
    fn eq(&self, state: &JobState) -> bool {
        self.state == *state
    }
}

impl<T: Send + 'static> Default for Job<T> {
    fn default() -> Self {
        Self::inline()
    }
}

impl<T: Send + 'static> Job<T> {
    /// An idle slot whose requests wait for
    /// [`run_queued_inline`](Self::run_queued_inline) (tests; the app
    /// until its workers start).
    pub fn inline() -> Self {
        Job {
            worker: Worker::inline(),
            state: JobState::Idle,
        }
    }

    /// Run the slot's requests on a thread of its own, handing their
    /// messages to `notify`. A request queued inline is dropped with the
    /// inline worker: its owner asks again.
    pub fn start(&mut self, notify: impl Fn(WorkerMsg<T>) + Send + 'static) -> std::io::Result<()> {
        self.worker = Worker::threaded(notify)?;
        Ok(())
    }

    /// Run the queued request, if any, on this thread (inline slots).
    pub fn run_queued_inline(&mut self) -> Vec<WorkerMsg<T>> {
        self.worker.run_queued_inline()
    }

    pub fn state(&self) -> &JobState {
        &self.state
    }

    /// Whether the latest request is queued or running.
    pub fn is_running(&self) -> bool {
        self.state.is_running()
    }

    /// The latest request's progress, 0 when none runs.
    pub fn fraction(&self) -> f64 {
        match self.state {
            JobState::Running { fraction, .. } => fraction,
            _ => 0.0,
        }
    }

    /// The phase the running request named last, if any.
    pub fn phase(&self) -> Option<anonlab::progress::Phase> {
        self.worker.phase()
    }

    /// Queue a request, replacing a queued one and stopping the running
    /// one: its messages are stale from now on.
    pub fn submit(&mut self, job: JobFn<T>) -> JobId {
        let id = self.worker.submit(job);
        self.state = JobState::Running { id, fraction: 0.0 };
        id
    }

    /// Stop the running request; whether one was running.
    pub fn cancel(&mut self) -> bool {
        if !self.is_running() {
            return false;
        }
        self.worker.cancel();
        self.state = JobState::Cancelled;
        true
    }

    /// Stop whatever runs and show `state` instead (a result taken from a
    /// cache is `Done` without a run; a request that cannot run is `Idle`).
    pub fn settle(&mut self, state: JobState) {
        self.worker.cancel();
        self.state = state;
    }

    /// Stop whatever runs, leaving the state as it is: a request a newer
    /// one of another slot makes pointless, whose state the owner resets.
    pub fn stop(&mut self) {
        self.worker.cancel();
    }

    /// Show the running request's progress as `fraction` (a grid's or a
    /// pass's share, of which the request is one part).
    pub fn set_fraction(&mut self, fraction: f64) {
        if let JobState::Running { id, .. } = self.state {
            self.state = JobState::Running { id, fraction };
        }
    }

    /// Apply a worker message: `None` for one of a superseded request (or
    /// when none is awaited), else the state moves and the message's
    /// content is returned for the owner to act on.
    pub fn apply(&mut self, msg: WorkerMsg<T>) -> Option<Update<T>> {
        let JobState::Running { id: current, .. } = self.state else {
            return None;
        };
        if msg.id() != current {
            return None;
        }
        Some(match msg {
            WorkerMsg::Progress { id, fraction } => {
                self.state = JobState::Running { id, fraction };
                Update::Progress(fraction)
            }
            WorkerMsg::Done { output, .. } => {
                self.state = JobState::Done;
                Update::Done(output)
            }
            WorkerMsg::Cancelled { .. } => {
                self.state = JobState::Cancelled;
                Update::Cancelled
            }
            WorkerMsg::Failed { error, .. } => {
                self.state = JobState::Failed;
                Update::Failed(error)
            }
        })
    }
}

/// Jobs that have run this long show a gauge; shorter ones only the
/// spinner, so a quick re-run does not make the screen flicker.
pub const GAUGE_AFTER: Duration = Duration::from_millis(200);

/// One job slot as the status bar shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobLine {
    /// Short name: "risk", "anonymize".
    pub name: &'static str,
    /// The screen whose computation it is.
    pub screen: Screen,
    pub state: JobState,
}

impl JobLine {
    /// The running job's id, if it runs.
    pub fn running(&self) -> Option<JobId> {
        match self.state {
            JobState::Running { id, .. } => Some(id),
            _ => None,
        }
    }
}

/// Whether a job started at `started` has run long enough at `now` to show
/// a gauge.
pub fn shows_gauge(started: Instant, now: Instant) -> bool {
    now.saturating_duration_since(started) >= GAUGE_AFTER
}

/// When each running job started, as seen by the app. Key presses note the
/// jobs they start ([`note`](Self::note)); ticks and worker messages also
/// move the clock ([`sync`](Self::sync)), so a gauge appears on the first of
/// those after [`GAUGE_AFTER`]. Tests pass a later instant to
/// [`App::on_tick_at`](super::App::on_tick_at) instead of sleeping.
#[derive(Debug, Clone)]
pub struct JobClock {
    started: Vec<(&'static str, JobId, Instant)>,
    now: Instant,
}

impl Default for JobClock {
    fn default() -> Self {
        JobClock {
            started: Vec::new(),
            now: Instant::now(),
        }
    }
}

impl JobClock {
    /// Record the jobs that started since the last sync (a new id in a
    /// slot) and forget the ones that stopped; `now` is the time of this
    /// sync. Time never goes back: an earlier `now` is ignored.
    pub fn sync(&mut self, jobs: &[JobLine], now: Instant) {
        self.now = self.now.max(now);
        self.note(jobs, self.now);
    }

    /// Record the jobs that started since the last sync at `now` and forget
    /// the ones that stopped, without moving the clock: a job noted after
    /// the clock's time has not run at all as far as the gauge is concerned.
    pub fn note(&mut self, jobs: &[JobLine], now: Instant) {
        self.started.retain(|&(name, id, _)| {
            jobs.iter()
                .any(|j| j.name == name && j.running() == Some(id))
        });
        for j in jobs {
            if let Some(id) = j.running() {
                if !self.started.iter().any(|&(n, i, _)| n == j.name && i == id) {
                    self.started.push((j.name, id, now));
                }
            }
        }
    }

    /// Whether the job of this slot has run long enough for a gauge.
    pub fn long_running(&self, name: &str) -> bool {
        self.started
            .iter()
            .any(|&(n, _, started)| n == name && shows_gauge(started, self.now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running(name: &'static str, id: JobId) -> JobLine {
        JobLine {
            name,
            screen: Screen::Risk,
            state: JobState::Running { id, fraction: 0.5 },
        }
    }

    #[test]
    fn a_job_drops_stale_messages_and_moves_its_state() {
        let mut job: Job<u32> = Job::inline();
        assert!(job.apply(WorkerMsg::Cancelled { id: 1 }).is_none());
        let first = job.submit(Box::new(|_| Ok(1)));
        let second = job.submit(Box::new(|_| Ok(2)));
        let stale = WorkerMsg::Done {
            id: first,
            output: 1,
            elapsed: Duration::ZERO,
        };
        assert!(job.apply(stale).is_none());
        assert!(matches!(
            job.apply(WorkerMsg::Progress {
                id: second,
                fraction: 0.5
            }),
            Some(Update::Progress(f)) if f == 0.5
        ));
        assert_eq!(job.fraction(), 0.5);
        let msgs = job.run_queued_inline();
        let [msg] = <[_; 1]>::try_from(msgs).unwrap();
        assert!(matches!(job.apply(msg), Some(Update::Done(2))));
        assert_eq!(job.state(), &JobState::Done);
        assert!(!job.cancel());
    }

    #[test]
    fn the_gauge_waits_for_the_threshold() {
        let t0 = Instant::now();
        assert!(!shows_gauge(t0, t0));
        assert!(!shows_gauge(t0, t0 + Duration::from_millis(199)));
        assert!(shows_gauge(t0, t0 + GAUGE_AFTER));
        // A clock that went back is not a long job.
        assert!(!shows_gauge(t0 + GAUGE_AFTER, t0));
    }

    #[test]
    fn a_new_request_restarts_the_clock() {
        let t0 = Instant::now();
        let mut clock = JobClock::default();
        clock.sync(&[running("risk", 1)], t0);
        assert!(!clock.long_running("risk"));
        clock.sync(&[running("risk", 1)], t0 + Duration::from_millis(300));
        assert!(clock.long_running("risk"));
        assert!(!clock.long_running("anonymize"));
        // A newer request in the slot starts from zero.
        clock.sync(&[running("risk", 2)], t0 + Duration::from_millis(301));
        assert!(!clock.long_running("risk"));
        let idle = JobLine {
            state: JobState::Done,
            ..running("risk", 2)
        };
        clock.sync(&[idle], t0 + Duration::from_secs(5));
        assert!(!clock.long_running("risk"));
    }
}
