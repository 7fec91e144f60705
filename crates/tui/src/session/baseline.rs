//! The session's baseline as the screens hold it: `anonlab assess`'s
//! figures for the session's attacker, the records it lists as most
//! exposed, and the worker job that computes them.

use std::sync::Arc;

use super::super::jobs::{Job, Update};
use super::super::shared::JobState;
use super::super::worker::{JobFn, WorkerMsg};
use anonlab::assess::{assess_with, Assessment, Baseline};
use anonlab::data::{Dataset, Roles};
use anonlab::session::{Attacker, AttackerSummary};

/// The baseline and what the screens draw from it, derived on the worker
/// thread.
#[derive(Debug, Clone)]
pub struct Before {
    /// The generations it was computed for.
    pub key: BaselineKey,
    /// `anonlab assess`'s figures: the baseline, the simulation (classes,
    /// per-record matches, the prefix table) and the privacy models.
    pub assessment: Assessment,
    /// The most exposed records by the key count, at most [`MAX_LISTED`].
    pub listed: Vec<Listed>,
}

impl Before {
    pub fn baseline(&self) -> &Baseline {
        &self.assessment.report.baseline
    }
    /// Whose figures these are.
    pub fn attacker(&self) -> &AttackerSummary {
        &self.baseline().attacker
    }
}

/// What a baseline depends on: the cells and the attacker (known
/// attributes and their order; a role change the attacker can see — to
/// or from quasi-identifier, semi-sensitive or sensitive — moves it too).
pub type BaselineKey = (u64, u64);

/// Records kept for the Risk screen's list (most exposed first); the
/// screen says how many more there are.
pub const MAX_LISTED: usize = 5000;

/// A listed record: its source row and how many records it cannot be told
/// from (Pr(re-id) = 1 / matches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listed {
    pub row: u32,
    pub matches: u32,
}

/// The most exposed records first (fewest matches, then row order), at
/// most [`MAX_LISTED`]; rows with no match (not published) are left out.
pub fn most_exposed(matches: &[u32]) -> Vec<Listed> {
    let mut rows: Vec<Listed> = (0..matches.len() as u32)
        .filter(|&r| matches[r as usize] > 0)
        .map(|row| Listed {
            row,
            matches: matches[row as usize],
        })
        .collect();
    let key = |l: &Listed| (l.matches, l.row);
    if rows.len() > MAX_LISTED {
        rows.select_nth_unstable_by_key(MAX_LISTED, key);
        rows.truncate(MAX_LISTED);
    }
    rows.sort_unstable_by_key(key);
    rows
}

/// The job computing the baseline: `assess::assess_with`, the function
/// behind `anonlab assess` and the report.
pub(super) fn baseline_job(
    ds: Arc<Dataset>,
    label: String,
    roles: Roles,
    attacker: Attacker,
    key: BaselineKey,
) -> JobFn<Box<Before>> {
    Box::new(move |progress| {
        let assessment = assess_with(&ds, label, &roles, &attacker, progress)?;
        let listed = most_exposed(&assessment.simulation.matches);
        Ok(Box::new(Before {
            key,
            assessment,
            listed,
        }))
    })
}

/// The baseline as the session holds it: keyed by the generations it
/// depends on, computed in its own job slot.
impl super::SessionState {
    /// What the current baseline depends on.
    pub fn baseline_key(&self) -> BaselineKey {
        let g = self.generations;
        (g.cells, g.attacker)
    }

    /// The baseline, when one was computed for the current session;
    /// `stale` marks one computed for an earlier attacker (shown dimmed
    /// until the new one arrives).
    pub fn baseline(&self) -> Option<&Arc<Before>> {
        self.baseline.as_ref()
    }

    /// Whether the baseline shown is for the current session.
    pub fn baseline_current(&self) -> bool {
        self.baseline
            .as_ref()
            .is_some_and(|b| b.key == self.baseline_key())
    }

    pub fn baseline_job(&self) -> &JobState {
        self.baseline_job.state()
    }

    /// Queue the baseline for the current session unless it is computed
    /// or queued already (`force`: again anyway).
    pub fn request_baseline(&mut self, force: bool) {
        let key = self.baseline_key();
        if !force && (self.baseline_current() || self.baseline_requested == Some(key)) {
            return;
        }
        // "Before" is the file as read: recodings are part of the release.
        let job = baseline_job(
            Arc::clone(self.session().original()),
            self.label.clone(),
            self.roles().clone(),
            self.attacker(),
            key,
        );
        self.baseline_requested = Some(key);
        self.baseline_job.submit(job);
    }

    /// Stop the baseline's job; whether one was running.
    pub fn cancel_baseline(&mut self) -> bool {
        if !self.baseline_job.cancel() {
            return false;
        }
        self.baseline_requested = None;
        true
    }

    /// The baseline's job slot, for the app to start its thread or run it
    /// inline.
    pub fn job_mut(&mut self) -> &mut Job<Box<Before>> {
        &mut self.baseline_job
    }

    /// Apply a message of the baseline's job; a failure's message is
    /// returned for a popup.
    pub fn on_baseline(&mut self, msg: WorkerMsg<Box<Before>>) -> Option<String> {
        match self.baseline_job.apply(msg)? {
            Update::Done(output) => self.baseline = Some(Arc::from(output)),
            Update::Failed(error) => {
                self.baseline_requested = None;
                return Some(error);
            }
            Update::Progress(_) | Update::Cancelled => {}
        }
        None
    }
}
