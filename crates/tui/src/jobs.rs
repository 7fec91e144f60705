//! Every background job slot of the TUI in one list, for the status bar
//! (the screen's job, plus any other job running) and the progress gauge,
//! and the clock that decides when a job has run long enough to show a
//! gauge instead of just the spinner.
//!
//! A slot added to the app gets one line in `App::job_lines`; the status
//! bar and the gauge then follow it without further changes. This module
//! reads nothing of the app (the layers run one way).

use std::time::{Duration, Instant};

use super::shared::{JobState, Screen};
use super::worker::JobId;

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
