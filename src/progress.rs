//! Progress reporting and cancellation for long core functions.
//!
//! Core functions stay blocking (STYLE.md, habit 2); the TUI worker and the
//! CLI decide which thread they run on. They take a `&Progress` that carries
//! a shared stop flag and a counter the caller can poll.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

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
