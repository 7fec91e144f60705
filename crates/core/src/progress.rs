//! Progress reporting and cancellation for long core functions.
//!
//! Core functions stay blocking (STYLE.md, habit 2); the TUI worker and the
//! CLI decide which thread they run on. They take a `&Progress` that carries
//! a shared stop flag and a counter the caller can poll.
//!
//! A job made of several steps names them ([`Progress::set_phase`]): each
//! phase restarts the counter, and the label ("building the kd-tree 1/3")
//! tells the watcher why the bar went back to the start.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::{Error, Result};

/// Shared stop flag and progress counter. Cloning shares the same state.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    cancelled: AtomicBool,
    done: AtomicU64,
    total: AtomicU64,
    /// The phases started, in order; the last is running.
    phases: Mutex<Vec<Phase>>,
}

/// One named step of a job: `index` of `count` (`count` 0: not numbered,
/// a step of the caller's around the numbered ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phase {
    pub name: &'static str,
    pub index: u32,
    pub count: u32,
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.count == 0 {
            f.write_str(self.name)
        } else {
            write!(f, "{} {}/{}", self.name, self.index, self.count)
        }
    }
}

impl Progress {
    pub fn new() -> Self {
        Self::default()
    }

    /// Ask the running job to stop at its next check.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Relaxed)
    }

    /// Returns `Err(Cancelled)` once `cancel` was called.
    pub fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            Err(Error::Cancelled)
        } else {
            Ok(())
        }
    }

    /// Start a named phase: the counter starts again from nothing, and
    /// [`Progress::phase`] names it.
    pub fn set_phase(&self, name: &'static str, index: u32, count: u32) {
        self.set_total(0);
        self.inner
            .phases
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Phase { name, index, count });
    }

    /// The phase running now, if the job named one.
    pub fn phase(&self) -> Option<Phase> {
        let phases = self
            .inner
            .phases
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        phases.last().copied()
    }

    /// Every phase started, in order.
    pub fn phases(&self) -> Vec<Phase> {
        self.inner
            .phases
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn set_total(&self, total: u64) {
        self.inner.total.store(total, Ordering::Relaxed);
        self.inner.done.store(0, Ordering::Relaxed);
    }

    pub fn advance(&self, by: u64) {
        self.inner.done.fetch_add(by, Ordering::Relaxed);
    }

    /// Fraction done in [0, 1]; 0 when no total was set.
    pub fn fraction(&self) -> f64 {
        let total = self.inner.total.load(Ordering::Relaxed);
        if total == 0 {
            return 0.0;
        }
        (self.inner.done.load(Ordering::Relaxed) as f64 / total as f64).min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_restarts_the_counter_and_names_itself() {
        let p = Progress::new();
        assert_eq!(p.phase(), None);
        p.set_total(10);
        p.advance(9);
        p.set_phase("building the kd-tree", 1, 3);
        assert_eq!(p.fraction(), 0.0);
        assert_eq!(p.phase().unwrap().to_string(), "building the kd-tree 1/3");
        p.set_phase("measuring the release", 0, 0);
        assert_eq!(p.phase().unwrap().to_string(), "measuring the release");
        assert_eq!(p.phases().len(), 2);
    }
}
