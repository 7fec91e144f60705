//! The views that take the place of the charts and the published table:
//! the k/l sweep (its grid follows the session's inputs), full-domain's
//! lattice (Enter publishes a node) and the before/after view (Enter
//! selects the record in the published table).

use std::sync::Arc;

use super::super::sweep::{self, SweepState};
use super::{AnonymizeScreen, Param};
use crate::session::SessionState;
use crate::shared::{JobState, Out};

impl AnonymizeScreen {
    /// Enter in the before/after view: close it and select the record's
    /// row in the published table (a suppressed record has none: the view
    /// stays).
    pub(super) fn leave_side_by_side(&mut self, ds: &anonlab::data::Dataset) {
        let s = &mut self.state;
        let record = s.side_by_side.cursor;
        if let Some(i) = s.view.as_ref().and_then(|v| v.published_index(record)) {
            s.side_by_side.open = false;
            s.table.cursor = i;
            s.refresh_table(ds);
        }
    }

    /// Keep the sweep's grid for the current inputs (k and l aside): a
    /// change of algorithm, seed, roles or settings starts it afresh while
    /// it is open, and stops its stale job while it is closed. `resume`
    /// also restarts the cells left pending by a cancelled sweep.
    pub fn sync_sweep(&mut self, session: &SessionState, resume: bool) {
        let inputs = self.inputs(session);
        if !self.sweep.open {
            if self.sweep.job.is_running() && !self.sweep.is_for(&inputs) {
                self.sweep.cancelled();
            }
            return;
        }
        let blocked = self.state.blocked.clone();
        if blocked != self.sweep.blocked {
            // Roles that cannot be anonymized, or can again: a new grid,
            // in the same slot (its thread, when started, stays).
            let mut job = std::mem::take(&mut self.sweep.job);
            job.settle(JobState::Idle);
            self.sweep = SweepState {
                open: true,
                blocked,
                metric: self.sweep.metric,
                job,
                ..SweepState::new()
            };
        }
        if self.sweep.blocked.is_some() {
            return;
        }
        if !self.sweep.is_for(&inputs) {
            self.sweep.job.stop();
            let uses_l = self.state.params().contains(&Param::L);
            self.sweep
                .reset(session.dataset(), session.roles(), &inputs, uses_l);
            self.request_sweep_cell(session);
        } else if resume && !self.sweep.job.is_running() {
            self.request_sweep_cell(session);
        }
    }

    /// Queue the sweep's next pending cell, if any.
    pub(super) fn request_sweep_cell(&mut self, session: &SessionState) {
        let Some(cell) = self.sweep.next_pending() else {
            return;
        };
        let Some(inputs) = self.sweep.inputs_of(cell) else {
            return;
        };
        let job = sweep::cell_job(Arc::clone(session.session()), inputs);
        // The sweep the user asked for takes the cores from the guesses.
        self.cancel_prefetch();
        self.sweep.start(cell, job);
    }

    /// Enter on a sweep cell: use its k (and l), close the grid and run.
    pub(super) fn pick_sweep_point(
        &mut self,
        k: u32,
        l: Option<u32>,
        session: &mut SessionState,
        out: &mut Out,
    ) {
        let p = session.params_mut();
        p.k = k;
        if let Some(l) = l {
            p.l = l;
        }
        self.sweep.open = false;
        out.notice(match l {
            Some(l) => format!("k = {k}, l = {l} from the sweep"),
            None => format!("k = {k} from the sweep"),
        });
        self.refresh_blocked(session);
        self.request_if_changed(session);
        self.state.refresh_table(session.dataset());
    }

    /// Enter in the lattice view: publish `node` (`None`: the optimum)
    /// as the session's full-domain node, and make its release.
    pub(super) fn publish_node(
        &mut self,
        node: Option<Vec<usize>>,
        session: &mut SessionState,
        out: &mut Out,
    ) {
        let text = |n: &Option<Vec<usize>>| match n {
            Some(levels) => format!("node {}", levels_text(levels)),
            None => "the optimum".to_string(),
        };
        if session.params().full_domain.node == node {
            out.notice(format!("{} is published already", text(&node)));
            return;
        }
        out.notice(format!(
            "publishing {}: the release is made and verified again",
            text(&node)
        ));
        session.settings_mut().full_domain.node = node;
        self.request_if_changed(session);
        self.state.refresh_table(session.dataset());
    }
}

/// A level vector as the screens write it: `[1, 0, 2]`.
pub fn levels_text(levels: &[usize]) -> String {
    let v: Vec<String> = levels.iter().map(|l| l.to_string()).collect();
    format!("[{}]", v.join(", "))
}
