//! The app's read access, for drawing and for tests: the session, each
//! screen's state, the job slots and the figures the screens share. A child
//! module of `app`, so `app/mod.rs` keeps the dispatch of changes.

use std::path::PathBuf;

use super::App;
use crate::jobs::{JobClock, JobLine};
use crate::keymap::KeyMap;
use crate::screens::anonymize::{AnonymizeState, QueriesState};
use crate::screens::compare::CompareState;
use crate::screens::data::{ColumnStats, DataView};
use crate::screens::hierarchies::HierarchiesState;
use crate::screens::mark::MarkDialog;
use crate::screens::risk::RiskState;
use crate::screens::sweep::SweepState;
use crate::session::SessionState;
use crate::shared::{JobState, Popup, Screen, DEFAULT_PROJECT_FILE};
use anonlab::data::{Dataset, Params, Project, Roles};

impl App {
    /// The one session state.
    pub fn session(&self) -> &SessionState {
        &self.session
    }
    pub fn dataset(&self) -> &Dataset {
        self.session.dataset()
    }
    pub fn label(&self) -> &str {
        self.session.label()
    }
    pub fn roles(&self) -> &Roles {
        self.session.roles()
    }
    /// The release parameters (saved with the project).
    pub fn params(&self) -> &Params {
        self.session.params()
    }
    pub fn screen(&self) -> Screen {
        self.screen
    }
    pub fn keymap(&self) -> &KeyMap {
        &self.keymap
    }
    pub fn help_visible(&self) -> bool {
        self.help
    }
    pub fn help_page(&self) -> super::HelpPage {
        self.help_page
    }
    /// The help page's sections, each a title and its lines: the keys of
    /// the focused panel, the screen and every screen, from the key map
    /// (so remapped keys show their new inputs); or every command of the
    /// `:` line with its arguments, from the command table.
    pub fn help_sections(&self) -> Vec<(String, Vec<crate::keymap::HelpLine>)> {
        match self.help_page {
            super::HelpPage::Keys => self.keymap.help_sections(self.screen, self.focused_panel()),
            super::HelpPage::Commands => vec![(
                "type : then a command; Tab completes names and arguments".to_string(),
                crate::cmdline::COMMANDS
                    .iter()
                    .map(|c| crate::keymap::HelpLine {
                        keys: c.usage(),
                        help: c.help,
                    })
                    .collect(),
            )],
        }
    }
    /// The first help line asked for (clamped when drawn).
    pub fn help_scroll(&self) -> usize {
        self.help_scroll
    }
    pub fn popup(&self) -> Option<&Popup> {
        self.popup.as_ref()
    }
    /// The open "mark sensitive cells" dialog; while it is open, input is
    /// translated with [`KeyMap::translate_dialog`].
    pub fn mark_dialog(&self) -> Option<&MarkDialog> {
        self.data.mark.as_ref()
    }
    /// Sensitive cells per semi-sensitive column, in column order.
    pub fn sensitive_counts(&self) -> Vec<(usize, usize)> {
        self.session.sensitive_counts()
    }
    /// A `:` command line as the app reads it (its session's algorithms
    /// are the ones `:algo` names).
    pub fn parse_command(&self, line: &str) -> Result<crate::cmdline::Command, String> {
        crate::cmdline::parse(line, &self.session.algorithms())
    }
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }
    pub fn should_quit(&self) -> bool {
        self.quit
    }
    /// Whether Ctrl-Z asked to suspend the process since the last call;
    /// the terminal loop then gives the terminal back, stops, and takes
    /// it again when the shell resumes it.
    pub fn take_suspend(&mut self) -> bool {
        std::mem::take(&mut self.suspend)
    }
    pub fn size(&self) -> (u16, u16) {
        self.size
    }
    pub fn data_view(&self) -> &DataView {
        &self.data.view
    }
    /// The Data screen's frequency table (`F`), when open.
    pub fn data_screen_freq(&self) -> Option<&crate::screens::explore::FrequencyView> {
        self.data.freq.as_ref()
    }
    pub fn column_stats(&self) -> &ColumnStats {
        &self.data.stats
    }
    pub fn risk(&self) -> &RiskState {
        &self.risk.state
    }
    /// The values the Risk screen's list shows, in full, for row `r`.
    pub fn risk_record_values(&self, r: usize) -> String {
        let mark = crate::widgets::SENSITIVE_MARK;
        self.risk.record_values(&self.session, r, mark).1
    }
    /// The session baseline's job (the Risk screen's "before").
    pub fn job(&self) -> &JobState {
        self.session.baseline_job()
    }
    pub fn anonymize(&self) -> &AnonymizeState {
        &self.anon.state
    }
    /// The Anonymize screen's k/l sweep; its grid as the sweep heat map
    /// chart takes it: [`SweepState::heatmap`].
    pub fn sweep(&self) -> &SweepState {
        &self.anon.sweep
    }
    /// The Hierarchies screen.
    pub fn hierarchies(&self) -> &HierarchiesState {
        &self.hier.state
    }
    /// The Compare screen.
    pub fn compare(&self) -> &CompareState {
        &self.compare.state
    }
    /// The one cache of finished runs and the neighbour prefetch.
    pub fn release_cache(&self) -> &crate::screens::release::ReleaseCache {
        &self.anon.cache
    }
    pub fn prefetch(&self) -> &crate::screens::anonymize::Prefetch {
        &self.anon.prefetch
    }
    /// Whether a modal dialog is open; its input is translated with
    /// [`KeyMap::translate_dialog`].
    pub fn dialog_open(&self) -> bool {
        self.confirm.is_some()
            || self.picker.is_some()
            || self.data.mark.is_some()
            || self.hier.dialog_open()
            || self.cmdline.is_open()
            || self.search.editor.is_open()
    }
    /// What an anonymization would be asked now.
    pub fn anonymize_inputs(&self) -> crate::session::AnonymizeInputs {
        self.anon.inputs(&self.session)
    }
    /// Where `SaveProject` writes.
    pub fn project_path(&self) -> PathBuf {
        self.project_path
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_PROJECT_FILE))
    }
    /// When the running jobs started (see [`crate::jobs::GAUGE_AFTER`]).
    pub fn job_clock(&self) -> &JobClock {
        &self.clock
    }
    pub fn spinner(&self) -> usize {
        self.spinner
    }
    /// Every job slot, in a fixed order (the status bar's order).
    pub fn job_lines(&self) -> Vec<JobLine> {
        let app = self;
        let line = |name, screen, state: &JobState| JobLine {
            name,
            screen,
            state: state.clone(),
        };
        let queries = match &app.anonymize().queries {
            QueriesState::Running { .. } => app.anonymize().queries_job.state().clone(),
            _ => JobState::Idle,
        };
        let mut lines = vec![
            line("risk", Screen::Risk, app.job()),
            line("release risk", Screen::Risk, app.risk().after_job.state()),
            line("anonymize", Screen::Anonymize, app.anonymize().job.state()),
            line("queries", Screen::Anonymize, &queries),
            line(
                "correlation",
                Screen::Hierarchies,
                app.hierarchies().matrix.job.state(),
            ),
            line("compare", Screen::Compare, &app.compare().pass_state()),
        ];
        // Charts and reports are written from whichever screen is in view; the
        // line shows once one was asked for.
        if *app.export_job() != JobState::Idle {
            lines.push(line("export", app.screen(), app.export_job()));
        }
        lines
    }

    /// Whether a cell is marked sensitive (only semi-sensitive columns have
    /// sensitive cells).
    pub fn is_sensitive(&self, row: usize, col: usize) -> bool {
        self.session.is_sensitive(row, col)
    }
    /// The seed behind randomly drawn cell sensitivity, if any column
    /// currently uses one (shown so the figures can be reproduced).
    pub fn seed(&self) -> Option<u64> {
        self.session.density_seed()
    }
    /// The attributes LGB protects by t-closeness, with their t.
    pub fn t_closeness(&self) -> Vec<(usize, f64)> {
        self.session.t_closeness()
    }
    /// The session as a project file (data source, roles, sensitivity,
    /// attacker model in the picker's order, every release setting, the
    /// compare set), for saving. The algorithm is the one the Anonymize
    /// screen shows, even when the user never changed it: `anonlab
    /// anonymize --project` and the report then make the release on
    /// screen.
    pub fn to_project(&self) -> Project {
        let mut p = self.session.to_project();
        p.params
            .algorithm
            .get_or_insert_with(|| self.anon.state.choice().id.to_string());
        p
    }
}
