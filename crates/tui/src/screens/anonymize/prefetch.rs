//! The neighbour prefetch: while the app is idle, the focused parameter's
//! neighbours are run in a slot of their own and kept in the cache.

use std::sync::Arc;

use super::super::release::{self, AnonymizeView};
use super::{AnonymizeScreen, Param};
use crate::jobs::{Job, Update};
use crate::session::{AnonymizeInputs, SessionState};
use crate::shared::JobState;
use crate::shared::MAX_L;
use crate::worker::WorkerMsg;

/// Speculative runs for the parameter values the user is most likely to
/// pick next (the focused parameter ±1), made while the app is idle in a
/// slot of their own; their outcomes go into the [`ReleaseCache`].
#[derive(Debug, Default)]
pub struct Prefetch {
    /// The inputs the running speculative job answers.
    pub running: Option<AnonymizeInputs>,
    /// The slot the speculative jobs run in.
    pub job: Job<Box<AnonymizeView>>,
    /// Inputs still to prefetch, next first.
    pub pending: Vec<AnonymizeInputs>,
}

impl Prefetch {
    /// Whether a speculative job is queued or running.
    pub fn is_busy(&self) -> bool {
        self.running.is_some() || !self.pending.is_empty()
    }

    /// Plan the neighbours of `shown` for the focused parameter: −1, then
    /// +1, within the values the controls allow (k in 1..=`max_k`, l and p
    /// in 1..=`max_lp`), leaving out those `cached`.
    pub(super) fn plan(
        &mut self,
        shown: &AnonymizeInputs,
        focused: Param,
        max_k: u32,
        cached: impl Fn(&AnonymizeInputs) -> bool,
    ) {
        self.pending.clear();
        for by in [-1i64, 1] {
            let mut n = shown.clone();
            let step = |v: u32, max: u32| {
                let x = i64::from(v) + by;
                (1..=i64::from(max)).contains(&x).then_some(x as u32)
            };
            let moved = match focused {
                Param::K => step(n.k, max_k).map(|k| n.k = k),
                Param::L => n.l.and_then(|l| step(l, MAX_L)).map(|l| n.l = Some(l)),
                Param::P => n.p.and_then(|p| step(p, MAX_L)).map(|p| n.p = Some(p)),
            };
            if moved.is_some() && n != *shown && !cached(&n) {
                self.pending.push(n);
            }
        }
    }
}

impl AnonymizeScreen {
    /// Plan and start the prefetch of `shown`'s neighbours for the focused
    /// parameter.
    pub(super) fn prefetch_neighbours(&mut self, shown: &AnonymizeInputs, session: &SessionState) {
        if !self.prefetch_enabled {
            self.prefetch.pending.clear();
            return;
        }
        let max_k = session.dataset().n_rows().clamp(1, u32::MAX as usize) as u32;
        let cache = &self.cache;
        self.prefetch.plan(shown, self.state.focused(), max_k, |i| {
            cache.get(i).is_some()
        });
        if let Some(running) = &self.prefetch.running {
            let running = running.clone();
            self.prefetch.pending.retain(|i| *i != running);
        }
        self.request_prefetch(session);
    }

    /// Start the next planned neighbour, unless one runs or the user's
    /// anonymization does (the two would share the cores).
    pub(super) fn request_prefetch(&mut self, session: &SessionState) {
        if self.prefetch.running.is_some() || self.state.job.is_running() {
            return;
        }
        if self.prefetch.pending.is_empty() {
            return;
        }
        let inputs = self.prefetch.pending.remove(0);
        let job = release::job(Arc::clone(session.session()), inputs.clone());
        self.prefetch.job.submit(job);
        self.prefetch.running = Some(inputs);
    }

    pub(super) fn on_prefetch(
        &mut self,
        msg: WorkerMsg<Box<AnonymizeView>>,
        session: &SessionState,
    ) {
        if self.prefetch.running.is_none() {
            return;
        }
        let outcome = match self.prefetch.job.apply(msg) {
            None | Some(Update::Progress(_)) => return,
            Some(Update::Done(output)) => Some(Ok(output)),
            Some(Update::Failed(error)) => Some(Err(error)),
            Some(Update::Cancelled) => None,
        };
        if let Some(inputs) = self.prefetch.running.take() {
            if let Some(o) = outcome {
                self.cache.insert(inputs, o);
            }
        }
        self.request_prefetch(session);
    }

    /// Stop the speculative runs: the user's request needs the cores.
    pub fn cancel_prefetch(&mut self) {
        self.prefetch.job.settle(JobState::Idle);
        self.prefetch.running = None;
        self.prefetch.pending.clear();
    }

    /// Turn the neighbour prefetch and the cache on or off (off: every
    /// press runs the algorithm, as benchmarks' cold presses do; the cache
    /// is emptied).
    pub fn set_prefetch(&mut self, on: bool) {
        if !on {
            self.cancel_prefetch();
            self.cache.clear();
        }
        self.prefetch_enabled = on;
        self.cache.enabled = on;
    }
}
