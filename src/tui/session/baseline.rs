//! The session's baseline as the screens hold it: `anonlab assess`'s
//! figures for the session's attacker, the records it lists as most
//! exposed, and the worker job that computes them.

use std::sync::Arc;

use super::super::worker::JobFn;
use crate::assess::{assess_with, Assessment, Baseline};
use crate::data::{Dataset, Roles};
use crate::session::{Attacker, AttackerSummary};

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
