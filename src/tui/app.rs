//! The TUI's whole state and the one place it changes.
//!
//! [`App::step`] applies an [`Action`]; [`App::on_worker`] applies what the
//! background worker reports. Everything the screens draw that takes work to
//! compute (visible columns, the focused column's statistics, chart series)
//! is derived here when the state changes, so drawing only reads
//! (STYLE.md, habit 5). Tests build an `App`, step it with actions and
//! render it into a `TestBackend`.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use fixedbitset::FixedBitSet;
use ratatui::layout::Rect;
use ratatui::text::Span;

use super::anonymize::{
    self as anon, AnonymizeInputs, AnonymizeState, AnonymizeView, Before, BeforeKey, QueriesState,
    QueryOutcome,
};
use super::cmdline::LineEditor;
use super::hierarchies::{self as hier, HierarchiesState};
use super::jobs::{self, JobClock};
use super::keymap::{Action, KeyMap};
use super::mark::MarkDialog;
use super::risk::{self as riskscreen, AfterView, RiskEffect};
pub use super::risk::{RiskState, RiskView};
use super::search::SearchState;
use super::sweep::{self, CellFigures, SweepEffect, SweepState};
use super::theme::Theme;
use super::ui;
use super::worker::{JobFn, JobId, Worker, WorkerMsg};
use crate::data::{
    CellSensitivity, ColumnKind, CsvOptions, Dataset, Params, Project, Role, Roles,
    SensitivitySource,
};
use crate::session::{Session, DEMO_LABEL};
use crate::stats::CorrelationMatrix;

// The Compare screen's glue reads the session's state, so it is a child
// of this module; its file sits beside the other screens' models.
#[path = "compare.rs"]
pub mod compare;
use compare::{CompareOutput, CompareState};

mod infra;
// `e` and `E`: the chart in view and the report (see `tui::export`).
mod exports;

/// The screens, in tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Screen {
    Data,
    Risk,
    Anonymize,
    Hierarchies,
    Compare,
}

impl Screen {
    pub const ALL: [Screen; 5] = [
        Screen::Data,
        Screen::Risk,
        Screen::Anonymize,
        Screen::Hierarchies,
        Screen::Compare,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Screen::Data => "Data",
            Screen::Risk => "Risk",
            Screen::Anonymize => "Anonymize",
            Screen::Hierarchies => "Hierarchies",
            Screen::Compare => "Compare",
        }
    }
    pub fn index(self) -> usize {
        Screen::ALL.iter().position(|&s| s == self).unwrap_or(0)
    }
    fn offset(self, by: isize) -> Screen {
        let n = Screen::ALL.len() as isize;
        Screen::ALL[(self.index() as isize + by).rem_euclid(n) as usize]
    }
}

/// Pr(re-id) thresholds offered by `+` / `-`.
pub const THRESHOLDS: [f64; 9] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 1.0 / 3.0, 0.5, 1.0];

/// Largest l offered: more than any attribute's distinct values in practice,
/// and the algorithms say when l is too large for the data.
pub const MAX_L: u32 = 100;

/// Where the project is saved when the command line named no file.
pub const DEFAULT_PROJECT_FILE: &str = "anonlab-project.json";

/// A message from one of the background job slots.
#[derive(Debug)]
pub enum JobMsg {
    /// Boxed, as the others: the figures of three attacks.
    Risk(WorkerMsg<Box<RiskView>>),
    /// The Risk screen's attacks on the shown release (boxed, as above).
    RiskAfter(WorkerMsg<Box<AfterView>>),
    /// Boxed: a finished anonymization is much larger than the other messages.
    Anonymize(WorkerMsg<Box<AnonymizeView>>),
    Queries(WorkerMsg<QueryOutcome>),
    Correlation(WorkerMsg<CorrelationMatrix>),
    /// One task of the Compare screen's pass (boxed: an evaluation).
    Compare(WorkerMsg<Box<CompareOutput>>),
    /// One cell of the Anonymize screen's k/l sweep.
    Sweep(WorkerMsg<CellFigures>),
    /// A chart or report written by the export slot.
    Export(WorkerMsg<super::export::Exported>),
    /// A speculative anonymization of a neighbouring parameter value.
    Prefetch(WorkerMsg<Box<AnonymizeView>>),
}

/// Where the job slots' threads hand their messages.
type Notify = Arc<dyn Fn(JobMsg) + Send + Sync>;

/// A job slot on a thread of its own, its messages wrapped by `wrap`.
fn threaded<T: Send + 'static>(
    notify: &Notify,
    wrap: fn(WorkerMsg<T>) -> JobMsg,
) -> std::io::Result<Worker<T>> {
    let notify = Arc::clone(notify);
    Worker::threaded(move |m| notify(wrap(m)))
}

/// Run an inline slot's queued job, if any, and collect its messages.
fn drain<T: Send + 'static>(
    worker: &mut Worker<T>,
    wrap: fn(WorkerMsg<T>) -> JobMsg,
    out: &mut Vec<JobMsg>,
) {
    out.extend(worker.run_queued_inline().into_iter().map(wrap));
}

/// Most frequent values kept for the side panel's bar chart.
const TOP_VALUES: usize = 12;
/// Widest a data column is drawn; longer values are cut.
const MAX_COLUMN_WIDTH: usize = 24;

/// Cell sensitivity of one semi-sensitive column: the user-facing spec
/// (saved in the project) and the resolved bitset. The bitset is shared
/// with a running job and copied only when toggled meanwhile.
#[derive(Debug, Clone)]
struct SemiCells {
    spec: CellSensitivity,
    bits: Arc<FixedBitSet>,
    /// Set bits of `bits`, kept so drawing never counts.
    count: usize,
}

impl SemiCells {
    fn new(spec: CellSensitivity, bits: FixedBitSet) -> Self {
        let count = bits.count_ones(..);
        SemiCells {
            spec,
            bits: Arc::new(bits),
            count,
        }
    }
}

/// A failure shown over the screen until `Esc`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Popup {
    pub title: String,
    pub message: String,
}

/// The background computation, as the status bar shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum JobState {
    Idle,
    Running { id: JobId, fraction: f64 },
    Done,
    Cancelled,
    Failed,
}

impl JobState {
    /// Whether a job is queued or running (its messages are awaited).
    pub fn is_running(&self) -> bool {
        matches!(self, JobState::Running { .. })
    }
}

/// Statistics of the focused column, for the Data screen's side panel.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnStats {
    pub column: usize,
    pub name: String,
    pub kind: ColumnKind,
    pub role: Role,
    pub distinct: usize,
    pub missing: u64,
    pub rows: usize,
    /// Most frequent values, most frequent first (ties by code order).
    pub top: Vec<(String, u64)>,
    /// Rows holding a value not in `top`.
    pub other: u64,
    /// Cells marked sensitive, for semi-sensitive columns.
    pub sensitive: Option<usize>,
}

/// Cursor and viewport of the Data screen's table.
#[derive(Debug, Clone, PartialEq)]
pub struct DataView {
    pub row: usize,
    pub col: usize,
    /// First row on screen.
    pub top: usize,
    /// First column on screen.
    pub left: usize,
    /// Data rows that fit on screen.
    pub page: usize,
    /// Columns on screen, left to right, with their drawn widths.
    pub columns: Vec<(usize, u16)>,
    /// Width of the row-number gutter.
    pub gutter: u16,
    /// Drawn width of every column (header, role tag and values, capped).
    widths: Vec<u16>,
    /// Room for data columns, right of the gutter.
    room: u16,
}

impl DataView {
    /// The rows on screen. Its length is at most `page`, whatever the size
    /// of the table: only these rows are ever turned into widgets.
    pub fn visible_rows(&self, n_rows: usize) -> Range<usize> {
        visible_window(n_rows, self.top, self.page)
    }
}

/// The rows of a window of `page` rows starting at `top`, clipped to the
/// table. O(1): the table is never scanned.
pub fn visible_window(n_rows: usize, top: usize, page: usize) -> Range<usize> {
    let start = top.min(n_rows);
    start..(start + page).min(n_rows)
}

pub struct App {
    /// The shown anonymization's follow-up jobs (query workload, Risk's
    /// "after", neighbour prefetch), started by `after_draw` once the new
    /// view is on screen, so that they do not take the cores from the draw
    /// a key press waits for.
    followups: Option<AnonymizeInputs>,
    /// Whether the shown view, a fresh run, goes into the prefetch cache
    /// after the frame (copying it, and freeing what it evicts, would
    /// otherwise lengthen the press).
    cache_shown: bool,
    /// The view a new one replaced, freed after the frame (a release of
    /// thirty thousand groups takes milliseconds to free).
    retired: Option<AnonymizeView>,
    ds: Arc<Dataset>,
    label: String,
    source: Option<PathBuf>,
    csv: CsvOptions,
    params: Params,
    roles: Roles,
    /// Per column; kept when a column stops being semi-sensitive, so
    /// switching back does not lose hand toggles.
    cells: Vec<Option<SemiCells>>,
    keymap: KeyMap,
    screen: Screen,
    help: bool,
    popup: Option<Popup>,
    /// The open "mark sensitive cells" dialog (modal).
    mark: Option<MarkDialog>,
    notice: Option<String>,
    quit: bool,
    size: (u16, u16),
    data: DataView,
    stats: ColumnStats,
    risk: RiskState,
    worker: Worker<Box<RiskView>>,
    after_worker: Worker<Box<AfterView>>,
    job: JobState,
    spinner: usize,
    anon: AnonymizeState,
    anon_worker: Worker<Box<AnonymizeView>>,
    query_worker: Worker<QueryOutcome>,
    /// Bumped on every role change: anonymization inputs include it.
    roles_generation: u64,
    /// Bumped on every change of cell sensitivity, for the same reason.
    cells_generation: u64,
    /// The original table's risk for the roles it was measured with.
    before: Option<(BeforeKey, Arc<Before>)>,
    /// Where `SaveProject` writes; [`DEFAULT_PROJECT_FILE`] when unset.
    project_path: Option<PathBuf>,
    /// The Hierarchies screen and the session's hierarchies.
    hier: HierarchiesState,
    corr_worker: Worker<CorrelationMatrix>,
    /// The Compare screen and its job slot.
    compare: CompareState,
    compare_worker: Worker<Box<CompareOutput>>,
    /// The Anonymize screen's k/l sweep and its job slot.
    sweep: SweepState,
    sweep_worker: Worker<CellFigures>,
    /// When each running job started, for the status bar's gauge.
    clock: JobClock,
    /// The query workload's progress (its state has no room for it).
    queries_fraction: f64,
    /// The `:` command line (open while editing) and its history.
    cmdline: LineEditor,
    /// The `/` search line and the last search.
    search: SearchState,
    theme: Theme,
    /// Whether the terminal reports the mouse (clicks and wheel).
    mouse: bool,
    /// Charts and reports being written (`e`, `E`).
    export_worker: Worker<super::export::Exported>,
    export_job: JobState,
    /// Views of the neighbouring parameter values, computed while idle.
    prefetch: anon::Prefetch,
    prefetch_worker: Worker<Box<AnonymizeView>>,
}

impl App {
    /// An app editing a session: its dataset, roles, cell sensitivity and
    /// attacker model. Fails when a sensitivity source cannot be resolved
    /// (a rule naming a missing column, a bad flag value) or the attacker
    /// model names an unknown column or a threshold outside [0, 1].
    ///
    /// Nothing runs yet: the first risk computation waits in the job slot
    /// until [`start_worker`](Self::start_worker) (the terminal program) or
    /// [`run_pending_jobs_blocking`](Self::run_pending_jobs_blocking) (tests).
    pub fn new(session: Session) -> crate::Result<Self> {
        let Session {
            dataset: ds,
            source,
            csv,
            roles,
            sensitivity,
            attacker,
            mut params,
            hierarchies,
            compare: compare_set,
            conditions: _,
            cbg_tree: _,
        } = session;
        let threshold = attacker.threshold;
        if !(0.0..=1.0).contains(&threshold) {
            return Err(crate::Error::Parameter(format!(
                "risk threshold {threshold} is not between 0 and 1"
            )));
        }
        let known: Vec<usize> = attacker
            .known
            .iter()
            .map(|n| ds.column_index(n))
            .collect::<crate::Result<_>>()?;
        let mut cells = vec![None; ds.n_cols()];
        for (&c, spec) in &sensitivity {
            let bits = spec.resolve(&ds, ds.col(c).name())?;
            cells[c] = Some(SemiCells::new(spec.clone(), bits));
        }
        let label = match &source {
            Some(p) => p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            None => DEMO_LABEL.to_string(),
        };
        let n_cols = ds.n_cols();
        let mut anon = AnonymizeState::starting_with(params.algorithm.as_deref());
        let (t_closeness, t_left_out) = restore_t_closeness(&ds, &roles, &mut params)?;
        anon.t_closeness = t_closeness;
        let hier = HierarchiesState::new(&ds, &roles, hierarchies);
        let mut app = App {
            ds: Arc::new(ds),
            label,
            source,
            csv,
            params,
            roles,
            cells,
            keymap: KeyMap::default(),
            screen: Screen::Data,
            help: false,
            popup: None,
            mark: None,
            notice: None,
            quit: false,
            size: (80, 24),
            data: DataView {
                row: 0,
                col: 0,
                top: 0,
                left: 0,
                page: 1,
                columns: Vec::new(),
                gutter: 0,
                widths: Vec::new(),
                room: 0,
            },
            stats: empty_stats(),
            risk: RiskState::new(n_cols, threshold),
            worker: Worker::inline(),
            after_worker: Worker::inline(),
            job: JobState::Idle,
            spinner: 0,
            anon,
            anon_worker: Worker::inline(),
            query_worker: Worker::inline(),
            roles_generation: 0,
            cells_generation: 0,
            before: None,
            project_path: None,
            hier,
            corr_worker: Worker::inline(),
            compare: CompareState::new(compare_set, threshold),
            compare_worker: Worker::inline(),
            sweep: SweepState::new(),
            sweep_worker: Worker::inline(),
            clock: JobClock::default(),
            queries_fraction: 0.0,
            cmdline: LineEditor::default(),
            search: SearchState::default(),
            theme: Theme::default(),
            mouse: true,
            export_worker: Worker::inline(),
            export_job: JobState::Idle,
            prefetch: anon::Prefetch::default(),
            followups: None,
            cache_shown: false,
            retired: None,
            prefetch_worker: Worker::inline(),
        };
        if let Some(message) = t_left_out {
            app.popup = Some(Popup {
                title: "t-closeness not applied".into(),
                message,
            });
        }
        app.data.widths = column_widths(&app.ds);
        app.data.gutter = digits(app.ds.n_rows()) as u16;
        app.ensure_semi_cells();
        app.sync_attacker(&known);
        app.relayout();
        app.refresh_stats();
        app.request_risk();
        Ok(app)
    }

    /// Save the project to `path` instead of [`DEFAULT_PROJECT_FILE`] (the
    /// project the session was opened from, or a file the user named).
    pub fn with_project_path(mut self, path: PathBuf) -> Self {
        self.project_path = Some(path);
        self
    }

    /// Replace the inline workers by background threads, one per job slot,
    /// that hand their messages to `notify`, and start the pending
    /// computations on them.
    pub fn start_worker(
        &mut self,
        notify: impl Fn(JobMsg) + Send + Sync + 'static,
    ) -> std::io::Result<()> {
        let notify: Notify = Arc::new(notify);
        self.worker = threaded(&notify, JobMsg::Risk)?;
        self.anon_worker = threaded(&notify, JobMsg::Anonymize)?;
        self.query_worker = threaded(&notify, JobMsg::Queries)?;
        self.after_worker = threaded(&notify, JobMsg::RiskAfter)?;
        self.sweep_worker = threaded(&notify, JobMsg::Sweep)?;
        self.compare_worker = threaded(&notify, JobMsg::Compare)?;
        self.export_worker = threaded(&notify, JobMsg::Export)?;
        self.prefetch_worker = threaded(&notify, JobMsg::Prefetch)?;
        self.prefetch.running = None;
        self.corr_worker = threaded(&notify, JobMsg::Correlation)?;
        if self.sweep.requeue() {
            self.request_sweep_cell();
        }
        if self.hier.matrix.job.is_running() {
            self.request_matrix();
        }
        self.request_risk();
        if self.anon.job.is_running() {
            self.request_anonymize();
        } else if matches!(self.anon.queries, QueriesState::Running { .. }) {
            self.request_queries();
        }
        Ok(())
    }

    /// Run the queued computations on this thread and apply their results,
    /// until none is left (a finished anonymization queues its query
    /// workload). With the default inline workers this is how tests make
    /// progress.
    pub fn run_pending_jobs_blocking(&mut self) {
        loop {
            self.after_draw();
            let mut msgs: Vec<JobMsg> = Vec::new();
            drain(&mut self.worker, JobMsg::Risk, &mut msgs);
            drain(&mut self.after_worker, JobMsg::RiskAfter, &mut msgs);
            drain(&mut self.anon_worker, JobMsg::Anonymize, &mut msgs);
            drain(&mut self.query_worker, JobMsg::Queries, &mut msgs);
            drain(&mut self.corr_worker, JobMsg::Correlation, &mut msgs);
            drain(&mut self.compare_worker, JobMsg::Compare, &mut msgs);
            drain(&mut self.sweep_worker, JobMsg::Sweep, &mut msgs);
            drain(&mut self.export_worker, JobMsg::Export, &mut msgs);
            drain(&mut self.prefetch_worker, JobMsg::Prefetch, &mut msgs);
            if msgs.is_empty() {
                break;
            }
            for m in msgs {
                self.on_worker(m);
            }
        }
    }

    // ---- read access for drawing and tests ----

    pub fn dataset(&self) -> &Dataset {
        &self.ds
    }
    pub fn label(&self) -> &str {
        &self.label
    }
    pub fn roles(&self) -> &Roles {
        &self.roles
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
    pub fn popup(&self) -> Option<&Popup> {
        self.popup.as_ref()
    }
    /// The open "mark sensitive cells" dialog; while it is open, input is
    /// translated with [`KeyMap::translate_dialog`].
    pub fn mark_dialog(&self) -> Option<&MarkDialog> {
        self.mark.as_ref()
    }
    /// Sensitive cells per semi-sensitive column, in column order.
    pub fn sensitive_counts(&self) -> Vec<(usize, usize)> {
        self.roles
            .with(Role::SemiSensitive)
            .into_iter()
            .map(|c| (c, self.cells[c].as_ref().map_or(0, |s| s.count)))
            .collect()
    }
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }
    pub fn should_quit(&self) -> bool {
        self.quit
    }
    pub fn size(&self) -> (u16, u16) {
        self.size
    }
    pub fn data_view(&self) -> &DataView {
        &self.data
    }
    pub fn column_stats(&self) -> &ColumnStats {
        &self.stats
    }
    pub fn risk(&self) -> &RiskState {
        &self.risk
    }
    /// The risk simulation's job.
    pub fn job(&self) -> &JobState {
        &self.job
    }
    pub fn anonymize(&self) -> &AnonymizeState {
        &self.anon
    }
    /// The Anonymize screen's k/l sweep; its grid as the sweep heat map
    /// chart takes it: [`SweepState::heatmap`].
    pub fn sweep(&self) -> &SweepState {
        &self.sweep
    }
    /// The Hierarchies screen, the session's hierarchies and the
    /// full-domain settings.
    pub fn hierarchies(&self) -> &HierarchiesState {
        &self.hier
    }
    /// Whether a modal dialog is open; its input is translated with
    /// [`KeyMap::translate_dialog`].
    pub fn dialog_open(&self) -> bool {
        self.mark.is_some()
            || self.hier.dialog.is_some()
            || self.cmdline.is_open()
            || self.search.editor.is_open()
    }
    /// k, l and the seed of the algorithms (saved with the project).
    pub fn params(&self) -> &Params {
        &self.params
    }
    /// What an anonymization would be asked now.
    pub fn anonymize_inputs(&self) -> AnonymizeInputs {
        let choice = self.anon.choice();
        AnonymizeInputs {
            algorithm: choice.id,
            k: self.params.k,
            l: choice.uses_l.then_some(self.params.l),
            seed: self.params.seed,
            roles_generation: self.roles_generation,
            lgb: choice.reads_cells.then(|| anon::LgbInputs {
                cells_generation: self.cells_generation,
                t_closeness: self
                    .t_closeness()
                    .map(|(c, t)| (c, (t * 1000.0).round() as u32)),
            }),
            full_domain: (choice.id == hier::FULL_DOMAIN).then_some(anon::FullDomainInputs {
                suppression_pct: self.hier.full_domain.suppression_pct,
                metric: self.hier.full_domain.metric,
                hierarchies_generation: self.hier.generation,
            }),
            pk: anon::reads_p(choice.id).then_some(anon::PkInputs {
                p: self.params.p,
                hierarchies_generation: self.hier.generation,
            }),
        }
    }
    /// Where `SaveProject` writes.
    pub fn project_path(&self) -> PathBuf {
        self.project_path
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_PROJECT_FILE))
    }
    /// When the running jobs started (see [`jobs::GAUGE_AFTER`]).
    pub fn job_clock(&self) -> &JobClock {
        &self.clock
    }
    /// The query workload's progress while it runs.
    pub fn queries_fraction(&self) -> f64 {
        self.queries_fraction
    }
    pub fn spinner(&self) -> usize {
        self.spinner
    }
    /// Whether a cell is marked sensitive (only semi-sensitive columns have
    /// sensitive cells).
    pub fn is_sensitive(&self, row: usize, col: usize) -> bool {
        self.roles.get(col) == Role::SemiSensitive
            && self.cells[col]
                .as_ref()
                .is_some_and(|c| c.bits.contains(row))
    }
    /// The seed behind randomly drawn cell sensitivity, if any column
    /// currently uses one (shown so the figures can be reproduced).
    pub fn seed(&self) -> Option<u64> {
        self.roles
            .with(Role::SemiSensitive)
            .into_iter()
            .find_map(|c| match self.cells[c].as_ref().map(|s| &s.spec.source) {
                Some(SensitivitySource::Density { seed, .. }) => Some(*seed),
                _ => None,
            })
    }
    /// The session as a project file (data source, roles, sensitivity,
    /// attacker model in the picker's order, parameters), for saving.
    pub fn to_project(&self) -> Project {
        let mut p = Project::new(self.source.clone(), self.csv.clone());
        p.roles = self.roles.to_map(&self.ds);
        p.sensitivity = self
            .cells
            .iter()
            .enumerate()
            .filter(|(c, _)| self.roles.get(*c) == Role::SemiSensitive)
            .filter_map(|(c, s)| {
                s.as_ref()
                    .map(|s| (self.ds.col(c).name().to_string(), s.spec.clone()))
            })
            .collect();
        p.attacker.known = self
            .risk
            .known_columns()
            .into_iter()
            .map(|c| self.ds.col(c).name().to_string())
            .collect();
        p.attacker.threshold = self.risk.threshold;
        p.params = self.params.clone();
        p.params.algorithm = Some(self.anon.choice().id.to_string());
        p.params.t_closeness = self
            .t_closeness()
            .map(|(c, t)| (self.ds.col(c).name().to_string(), t))
            .into_iter()
            .collect();
        p.hierarchies = self.hier.sources();
        p.compare = self.compare.entries();
        p
    }

    // ---- changes ----

    /// Apply one action.
    pub fn step(&mut self, action: &Action) {
        self.notice = None;
        match *action {
            Action::Quit => self.quit = true,
            Action::Resize(w, h) => {
                self.size = (w, h);
                self.relayout();
            }
            // A popup or the help overlay is modal: it takes Esc (and `?`
            // for help) and swallows the rest.
            _ if self.popup.is_some() => {
                if *action == Action::Cancel {
                    self.popup = None;
                }
            }
            _ if self.cmdline.is_open() => self.step_cmdline(action),
            _ if self.search.editor.is_open() => self.step_search_line(action),
            _ if self.mark.is_some() => self.step_mark(action),
            _ if self.hier.dialog.is_some() => {
                let effect = self.hier.step_dialog(action, &self.ds, self.params.k);
                self.apply_hier_effect(effect);
            }
            _ if self.help => {
                if matches!(action, Action::Cancel | Action::ToggleHelp) {
                    self.help = false;
                }
            }
            Action::ToggleHelp => self.help = true,
            Action::OpenCommandLine => self.cmdline.open(),
            Action::OpenSearch => self.search.editor.open(),
            Action::SearchNext => self.search_next(true),
            Action::SearchPrev => self.search_next(false),
            Action::Click { column, row } => self.click(column, row),
            Action::ShowScreen(s) => self.show(s),
            Action::NextScreen => self.show(self.screen.offset(1)),
            Action::PrevScreen => self.show(self.screen.offset(-1)),
            Action::Cancel => self.cancel_job(),
            Action::SaveProject => self.save_project(),
            Action::ExportChart => self.export_chart(None),
            Action::ExportReport => self.export_report(None),
            _ => match self.screen {
                Screen::Data => self.step_data(action),
                Screen::Risk => self.step_risk(action),
                Screen::Anonymize => self.step_anonymize(action),
                Screen::Hierarchies => {
                    let effect = self.hier.step(action, &self.ds, self.params.k);
                    self.apply_hier_effect(effect);
                }
                Screen::Compare => self.step_compare(action),
            },
        }
        self.sync_clock(Instant::now());
    }

    /// Apply a worker message. Messages of superseded requests are dropped.
    pub fn on_worker(&mut self, msg: JobMsg) {
        match msg {
            JobMsg::Risk(m) => self.on_risk(m),
            JobMsg::RiskAfter(m) => {
                if let Some(error) = self.risk.on_after(m) {
                    self.popup = Some(Popup {
                        title: "Risk of the release failed".into(),
                        message: error,
                    });
                }
            }
            JobMsg::Anonymize(m) => self.on_anonymize(m),
            JobMsg::Queries(m) => self.on_queries(m),
            JobMsg::Correlation(m) => self.hier.on_matrix(m),
            JobMsg::Compare(m) => self.on_compare(m),
            JobMsg::Export(m) => self.on_export(m),
            JobMsg::Prefetch(m) => self.on_prefetch(m),
            JobMsg::Sweep(m) => {
                if self.sweep.on_worker(m) {
                    self.request_sweep_cell();
                }
            }
        }
        self.sync_clock(Instant::now());
    }

    fn on_risk(&mut self, msg: WorkerMsg<Box<RiskView>>) {
        if let Some(error) = self.risk.on_before(&mut self.job, msg) {
            self.popup = Some(Popup {
                title: "Risk computation failed".into(),
                message: error,
            });
        }
    }

    fn on_anonymize(&mut self, msg: WorkerMsg<Box<AnonymizeView>>) {
        let current = match self.anon.job {
            JobState::Running { id, .. } => id,
            _ => return,
        };
        if msg.id() != current {
            return;
        }
        match msg {
            WorkerMsg::Progress { id, fraction } => {
                self.anon.job = JobState::Running { id, fraction };
            }
            WorkerMsg::Done { output, .. } => {
                let inputs = output.inputs.clone();
                self.cache_shown = self.prefetch.enabled;
                self.show_outcome(inputs, Ok(output));
            }
            WorkerMsg::Cancelled { .. } => self.anon.job = JobState::Cancelled,
            WorkerMsg::Failed { error, .. } => {
                let inputs = self
                    .anon
                    .requested
                    .clone()
                    .unwrap_or_else(|| self.anonymize_inputs());
                self.prefetch.insert(inputs.clone(), Err(error.clone()));
                self.show_outcome(inputs, Err(error));
            }
        }
    }

    /// Show a finished anonymization (run now or taken from the prefetch
    /// cache), start its follow-ups and prefetch its neighbours.
    fn show_outcome(&mut self, inputs: AnonymizeInputs, outcome: anon::Outcome) {
        match outcome {
            Ok(output) => {
                self.before = Some((output.before_key.clone(), Arc::clone(&output.before)));
                self.retired = self.anon.view.replace(*output);
                self.anon.error = None;
                self.anon.job = JobState::Done;
                self.anon.refresh_table(&self.ds);
            }
            Err(error) => {
                // Infeasible parameters are the common failure: the screen
                // shows the algorithm's message where the figures would be.
                self.anon.error = Some((inputs.clone(), error));
                self.anon.job = JobState::Failed;
            }
        }
        self.followups = Some(inputs);
    }

    /// Start the follow-up jobs of an anonymization shown since the last
    /// frame: its query workload, Risk's "after" when that screen is open,
    /// and the prefetch of its neighbours. The terminal loop calls this
    /// after each draw.
    pub fn after_draw(&mut self) {
        self.retired = None;
        let Some(inputs) = self.followups.take() else {
            return;
        };
        let fresh = std::mem::take(&mut self.cache_shown);
        let shown = self.anon.view.as_ref().filter(|v| v.inputs == inputs);
        if let (true, Some(view)) = (fresh, shown) {
            self.prefetch
                .insert(inputs.clone(), Ok(Box::new(view.clone())));
        }
        if shown.is_some() {
            self.request_queries();
            if self.screen == Screen::Risk {
                self.request_after();
            }
        }
        self.prefetch_neighbours(&inputs);
    }

    /// Plan and start the prefetch of `shown`'s neighbours for the focused
    /// parameter.
    fn prefetch_neighbours(&mut self, shown: &AnonymizeInputs) {
        let max_k = self.ds.n_rows().clamp(1, u32::MAX as usize) as u32;
        self.prefetch.plan(shown, self.anon.focused(), max_k, MAX_L);
        if let Some((_, running)) = &self.prefetch.running {
            let running = running.clone();
            self.prefetch.pending.retain(|i| *i != running);
        }
        self.request_prefetch();
    }

    /// Start the next planned neighbour, unless one runs or the user's
    /// anonymization does (the two would share the cores).
    fn request_prefetch(&mut self) {
        if self.prefetch.running.is_some() || self.anon.job.is_running() {
            return;
        }
        if self.prefetch.pending.is_empty() {
            return;
        }
        let inputs = self.prefetch.pending.remove(0);
        let job = self.anonymize_job(&inputs);
        let id = self.prefetch_worker.submit(job);
        self.prefetch.running = Some((id, inputs));
    }

    fn on_prefetch(&mut self, msg: WorkerMsg<Box<AnonymizeView>>) {
        let Some((current, _)) = &self.prefetch.running else {
            return;
        };
        if msg.id() != *current {
            return;
        }
        let outcome = match msg {
            WorkerMsg::Progress { .. } => return,
            WorkerMsg::Done { output, .. } => Some(Ok(output)),
            WorkerMsg::Failed { error, .. } => Some(Err(error)),
            WorkerMsg::Cancelled { .. } => None,
        };
        if let Some((_, inputs)) = self.prefetch.running.take() {
            if let Some(o) = outcome {
                self.prefetch.insert(inputs, o);
            }
        }
        self.request_prefetch();
    }

    /// Stop the speculative runs: the user's request needs the cores.
    fn cancel_prefetch(&mut self) {
        self.prefetch_worker.cancel();
        self.prefetch.running = None;
        self.prefetch.pending.clear();
    }

    /// Turn the neighbour prefetch on or off (off: every press runs the
    /// algorithm, as benchmarks' cold presses do); off also empties the
    /// cache.
    pub fn set_prefetch(&mut self, on: bool) {
        if !on {
            self.cancel_prefetch();
            self.prefetch.clear();
        }
        self.prefetch.enabled = on;
    }

    /// The neighbour prefetch's cache and plan.
    pub fn prefetch(&self) -> &anon::Prefetch {
        &self.prefetch
    }

    fn on_queries(&mut self, msg: WorkerMsg<QueryOutcome>) {
        let QueriesState::Running { id: current } = self.anon.queries else {
            return;
        };
        if msg.id() != current {
            return;
        }
        match msg {
            WorkerMsg::Progress { fraction, .. } => self.queries_fraction = fraction,
            WorkerMsg::Done { output, .. } => self.anon.queries = QueriesState::Done(output),
            WorkerMsg::Cancelled { .. } => self.anon.queries = QueriesState::Idle,
            WorkerMsg::Failed { error, .. } => self.anon.queries = QueriesState::Failed(error),
        }
    }

    /// Advance the spinner shown while a job runs.
    pub fn on_tick(&mut self) {
        self.on_tick_at(Instant::now());
    }

    /// [`on_tick`](Self::on_tick) at a given time: tests pass a later
    /// instant to see a long job's gauge without sleeping.
    pub fn on_tick_at(&mut self, now: Instant) {
        self.sync_clock(now);
        if self.job.is_running()
            || self.anon.job.is_running()
            || matches!(self.anon.queries, QueriesState::Running { .. })
            || self.hier.matrix.job.is_running()
            || self.sweep.job.is_running()
            || self.compare.job.is_running()
        {
            self.spinner = self.spinner.wrapping_add(1);
        }
    }

    /// Note which jobs started or stopped since the last change.
    fn sync_clock(&mut self, now: Instant) {
        let list = jobs::list(self);
        self.clock.sync(&list, now);
    }

    /// Stop the computation of the screen in view (on the Data screen, the
    /// one that is running).
    fn cancel_job(&mut self) {
        if self.cancel_export() {
            return;
        }
        if self.screen == Screen::Anonymize && self.sweep.open {
            self.cancel_sweep();
            return;
        }
        let risk_running = self.job.is_running();
        let anon_running = self.anon.job.is_running();
        let anonymize = match self.screen {
            Screen::Anonymize => true,
            Screen::Risk => false,
            Screen::Data => anon_running && !risk_running,
            Screen::Hierarchies => {
                if self.hier.matrix.job.is_running() {
                    self.corr_worker.cancel();
                    self.hier.matrix.job = JobState::Cancelled;
                }
                return;
            }
            Screen::Compare => {
                self.cancel_compare();
                return;
            }
        };
        if anonymize {
            if anon_running {
                self.anon_worker.cancel();
                self.anon.job = JobState::Cancelled;
            }
        } else {
            if risk_running {
                self.worker.cancel();
                self.job = JobState::Cancelled;
            }
            if self.risk.after_job.is_running() {
                self.after_worker.cancel();
                self.risk.after_job = JobState::Cancelled;
                self.risk.after_requested = None;
            }
        }
    }

    fn show(&mut self, screen: Screen) {
        self.screen = screen;
        if screen == Screen::Compare {
            self.show_compare();
        }
        if screen == Screen::Anonymize {
            self.refresh_blocked();
            if self.anon.requested.as_ref() != Some(&self.anonymize_inputs()) {
                self.request_anonymize();
            }
            self.sync_sweep(false);
        }
        if screen == Screen::Risk {
            self.request_after();
        }
        if screen == Screen::Hierarchies && self.hier.matrix_stale() {
            self.request_matrix();
        }
    }

    /// Queue the correlation matrix for the current measure and columns.
    fn request_matrix(&mut self) {
        let job = self.hier.matrix_job(Arc::clone(&self.ds));
        let id = self.corr_worker.submit(job);
        self.hier.matrix.job = JobState::Running { id, fraction: 0.0 };
    }

    fn apply_hier_effect(&mut self, effect: hier::Effect) {
        match effect {
            hier::Effect::None => {}
            hier::Effect::RequestMatrix => self.request_matrix(),
            hier::Effect::Notice(n) => self.notice = Some(n),
            hier::Effect::HierarchiesChanged(n) => {
                self.notice = Some(n);
                self.refresh_blocked();
            }
        }
    }

    /// Write the session to the project file. The data path and hierarchy
    /// file paths are written relative to the project file when the file
    /// lies beside or below it (`Project::load` reads them relative to the
    /// project file), else absolute, so the project opens from any working
    /// directory.
    fn save_project(&mut self) {
        let path = self.project_path();
        let project = self.to_project().relative_to(&path);
        let absolute = std::env::current_dir().unwrap_or_default().join(&path);
        match project.save(&path) {
            Ok(()) => self.notice = Some(format!("project saved to {}", absolute.display())),
            Err(e) => {
                self.popup = Some(Popup {
                    title: "Cannot save the project".into(),
                    message: e.to_string(),
                })
            }
        }
    }

    fn step_data(&mut self, action: &Action) {
        let n = self.ds.n_rows();
        let last_row = n.saturating_sub(1);
        let last_col = self.ds.n_cols().saturating_sub(1);
        let page = self.data.page.max(1);
        let d = &mut self.data;
        let old_col = d.col;
        match *action {
            Action::Up => d.row = d.row.saturating_sub(1),
            Action::Down => d.row = (d.row + 1).min(last_row),
            Action::Left => d.col = d.col.saturating_sub(1),
            Action::Right => d.col = (d.col + 1).min(last_col),
            Action::PageUp => {
                d.row = d.row.saturating_sub(page);
                d.top = d.top.saturating_sub(page);
            }
            Action::PageDown => {
                d.row = (d.row + page).min(last_row);
                d.top = (d.top + page).min(n.saturating_sub(page));
            }
            Action::First => d.row = 0,
            Action::Last => d.row = last_row,
            Action::RowStart => d.col = 0,
            Action::RowEnd => d.col = last_col,
            Action::Scroll(by) => {
                let max_top = n.saturating_sub(page);
                d.top = d.top.saturating_add_signed(by as isize).min(max_top);
                d.row = d.row.clamp(d.top, (d.top + page - 1).min(last_row));
            }
            Action::CycleRole => {
                let role = self.roles.get(d.col).next();
                self.set_role(role);
                return;
            }
            Action::SetRole(role) => {
                self.set_role(role);
                return;
            }
            Action::ToggleSensitivity => {
                self.toggle_sensitivity();
                return;
            }
            Action::MarkCells => {
                self.open_mark_dialog();
                return;
            }
            _ => return,
        }
        self.follow_cursor();
        if self.data.col != old_col {
            self.refresh_stats();
        }
    }

    fn step_risk(&mut self, action: &Action) {
        match self.risk.step(action) {
            RiskEffect::None => {}
            RiskEffect::Recompute => self.request_risk(),
            RiskEffect::Jump(row) => self.jump_to_record(row),
        }
    }

    /// The Data screen with its cursor on a source row.
    fn jump_to_record(&mut self, row: usize) {
        if row >= self.ds.n_rows() {
            return;
        }
        self.data.row = row;
        self.show(Screen::Data);
        self.follow_cursor();
    }

    fn step_anonymize(&mut self, action: &Action) {
        // The sweep view takes the cursor keys, Enter and `m` while open.
        if self.sweep.open {
            match self.sweep.step(action) {
                SweepEffect::NotMine => {}
                SweepEffect::Handled => return,
                SweepEffect::Pick { k, l } => return self.pick_sweep_point(k, l),
                SweepEffect::Resume => return self.sync_sweep(true),
            }
        }
        let n = self.ds.n_rows();
        let page = self.anon.table.page.max(1);
        let t = &mut self.anon.table;
        match *action {
            Action::CycleAlgorithm(by) => {
                let count = self.anon.algorithms.len() as i64;
                self.anon.algorithm =
                    (self.anon.algorithm as i64 + i64::from(by)).rem_euclid(count.max(1)) as usize;
                self.refresh_blocked();
                self.request_anonymize();
            }
            // ←/→ change the focused parameter.
            Action::Left | Action::Right => {
                let by = if *action == Action::Right { 1 } else { -1 };
                let adjust = self.anon.adjust_focused(by);
                return self.step_anonymize(&adjust);
            }
            Action::FocusParam => {
                self.anon.focus_next();
                // The neighbours worth computing follow the focus.
                if !self.anon.job.is_running()
                    && self.anon.requested == Some(self.anonymize_inputs())
                {
                    let shown = self.anonymize_inputs();
                    self.prefetch_neighbours(&shown);
                }
            }
            Action::ToggleSweep => {
                self.sweep.open = !self.sweep.open;
                self.sync_sweep(true);
            }
            Action::AdjustK(by) => {
                let max = n.clamp(1, u32::MAX as usize) as i64;
                let k = (i64::from(self.params.k) + i64::from(by)).clamp(1, max) as u32;
                if k != self.params.k {
                    self.params.k = k;
                    if anon::reads_p(self.anon.choice().id) {
                        // The pk refusal names k.
                        self.refresh_blocked();
                    }
                    self.request_anonymize();
                }
            }
            Action::AdjustL(by) => {
                let l = (i64::from(self.params.l) + i64::from(by)).clamp(1, i64::from(MAX_L));
                self.params.l = l as u32;
                // Algorithms without l keep their release.
                if self.anon.requested.as_ref() != Some(&self.anonymize_inputs()) {
                    self.request_anonymize();
                }
            }
            Action::NextSeed => {
                self.params.seed = self.params.seed.wrapping_add(1);
                self.request_anonymize();
            }
            Action::AdjustP(by) => {
                let p = (i64::from(self.params.p) + i64::from(by)).clamp(1, i64::from(MAX_L));
                if p as u32 != self.params.p {
                    self.params.p = p as u32;
                    if anon::reads_p(self.anon.choice().id) {
                        self.refresh_blocked();
                        self.request_anonymize();
                    }
                }
            }
            Action::Recompute => {
                self.refresh_blocked();
                self.request_anonymize();
            }
            Action::AdjustSuppression(by) => {
                if self.hier.adjust_suppression(by) && self.anon.choice().id == hier::FULL_DOMAIN {
                    self.request_anonymize();
                }
            }
            Action::CycleMetric => {
                self.hier.cycle_metric();
                if self.anon.choice().id == hier::FULL_DOMAIN {
                    self.request_anonymize();
                }
            }
            // The wheel moves the view and the selected record with it;
            // `refresh_table` keeps both within the table.
            Action::Scroll(by) => {
                t.top = t.top.saturating_add_signed(by as isize);
                t.cursor = t.cursor.saturating_add_signed(by as isize);
            }
            Action::Up => t.cursor = t.cursor.saturating_sub(1),
            Action::Down => t.cursor = t.cursor.saturating_add(1),
            Action::PageUp => {
                t.top = t.top.saturating_sub(page);
                t.cursor = t.cursor.saturating_sub(page);
            }
            Action::PageDown => {
                t.top = t.top.saturating_add(page);
                t.cursor = t.cursor.saturating_add(page);
            }
            Action::First => t.cursor = 0,
            Action::Last => t.cursor = usize::MAX,
            Action::Confirm => self.anon.show_detail = !self.anon.show_detail,
            Action::AddToCompare => {
                self.add_to_compare();
                return;
            }
            Action::CycleTCloseness => {
                self.anon.t_closeness = next_t_closeness(&self.roles, self.anon.t_closeness);
                if self.anon.choice().reads_cells {
                    self.request_anonymize();
                }
            }
            _ => return,
        }
        self.anon.refresh_table(&self.ds);
        self.sync_sweep(false);
    }

    /// Why the chosen algorithm cannot run with the current roles (and,
    /// for full-domain, hierarchies), whatever k and l.
    fn roles_blocked(&self) -> Option<String> {
        anon::blocked(&self.roles, self.anon.choice()).or_else(|| {
            (self.anon.choice().id == hier::FULL_DOMAIN)
                .then(|| hier::full_domain_blocked(&self.ds, &self.roles, &self.hier.held))
                .flatten()
        })
    }

    fn refresh_blocked(&mut self) {
        self.anon.blocked = self.roles_blocked();
        // pk algorithms: the bound next to the p control, and no run when
        // the conditions rule p out (the message says why and what p fits).
        self.anon
            .refresh_pk_bound(&self.ds, &self.roles, self.roles_generation, self.params.p);
        if self.anon.blocked.is_none() {
            if let Some(Ok(bound)) = &self.anon.pk_bound {
                if let Err(e) = crate::algorithms::pk::check(bound, self.params.k) {
                    self.anon.blocked = Some(e.to_string());
                }
            }
        }
    }

    /// Queue an anonymization for the current inputs (replacing a queued
    /// one and stopping the running one). With roles that cannot be
    /// anonymized, the running job is stopped and nothing is queued.
    fn request_anonymize(&mut self) {
        let inputs = self.anonymize_inputs();
        if self.anon.blocked.is_some() {
            self.anon_worker.cancel();
            self.anon.requested = Some(inputs);
            self.anon.job = JobState::Idle;
            return;
        }
        self.prefetch.forget_stale(&inputs);
        self.query_worker.cancel();
        self.anon.queries = QueriesState::Idle;
        if let Some(outcome) = self.prefetch.get(&inputs).cloned() {
            // Computed ahead by the same job: shown at once, no run.
            self.anon_worker.cancel();
            self.anon.requested = Some(inputs.clone());
            self.show_outcome(inputs, outcome);
            return;
        }
        self.cancel_prefetch();
        let job = self.anonymize_job(&inputs);
        self.anon.requested = Some(inputs);
        let id = self.anon_worker.submit(job);
        self.anon.job = JobState::Running { id, fraction: 0.0 };
    }

    /// Keep the sweep's grid for the current inputs (k and l aside): a
    /// change of algorithm, seed, roles or settings starts it afresh while
    /// it is open, and stops its stale job while it is closed. `resume`
    /// also restarts the cells left pending by a cancelled sweep.
    fn sync_sweep(&mut self, resume: bool) {
        let inputs = self.anonymize_inputs();
        if !self.sweep.open {
            if self.sweep.job.is_running() && !self.sweep.is_for(&inputs) {
                self.sweep_worker.cancel();
                self.sweep.cancelled();
            }
            return;
        }
        let blocked = self.roles_blocked();
        if blocked != self.sweep.blocked {
            // Roles that cannot be anonymized, or can again: a new grid.
            self.sweep_worker.cancel();
            self.sweep = SweepState {
                open: true,
                blocked,
                metric: self.sweep.metric,
                ..SweepState::new()
            };
        }
        if self.sweep.blocked.is_some() {
            return;
        }
        if !self.sweep.is_for(&inputs) {
            self.sweep_worker.cancel();
            let uses_l = self.anon.params().contains(&anon::Param::L);
            self.sweep.reset(&self.ds, &self.roles, &inputs, uses_l);
            self.request_sweep_cell();
        } else if resume && !self.sweep.job.is_running() {
            self.request_sweep_cell();
        }
    }

    /// Queue the sweep's next pending cell, if any.
    fn request_sweep_cell(&mut self) {
        let Some(cell) = self.sweep.next_pending() else {
            return;
        };
        let Some(inputs) = self.sweep.inputs_of(cell) else {
            return;
        };
        let job = sweep::cell_job(
            Arc::clone(&self.ds),
            self.roles.clone(),
            inputs,
            self.algorithm_options(),
        );
        // The sweep the user asked for takes the cores from the guesses.
        self.cancel_prefetch();
        let id = self.sweep_worker.submit(job);
        self.sweep.started(cell, id);
    }

    /// `Esc` with the sweep open: stop its job, or close it when idle.
    fn cancel_sweep(&mut self) {
        if self.sweep.job.is_running() {
            self.sweep_worker.cancel();
            self.sweep.cancelled();
        } else {
            self.sweep.open = false;
        }
    }

    /// Enter on a sweep cell: use its k (and l), close the grid and run.
    fn pick_sweep_point(&mut self, k: u32, l: Option<u32>) {
        self.params.k = k;
        if let Some(l) = l {
            self.params.l = l;
        }
        self.sweep.open = false;
        self.notice = Some(match l {
            Some(l) => format!("k = {k}, l = {l} from the sweep"),
            None => format!("k = {k} from the sweep"),
        });
        self.refresh_blocked();
        if self.anon.requested.as_ref() != Some(&self.anonymize_inputs()) {
            self.request_anonymize();
        }
        self.anon.refresh_table(&self.ds);
    }

    /// Algorithm-specific options of a request: the session's hierarchies
    /// and the full-domain settings (when full-domain is chosen).
    fn algorithm_options(&self) -> crate::algorithms::Options {
        let mut o = crate::algorithms::Options::default();
        if self.anon.choice().id == hier::FULL_DOMAIN {
            o.hierarchies = self.hier.set();
            o.full_domain.suppression = f64::from(self.hier.full_domain.suppression_pct) / 100.0;
            o.full_domain.metric = self.hier.full_domain.metric;
        }
        if anon::reads_p(self.anon.choice().id) {
            // The QIs' information loss is measured on the session's
            // hierarchies (lowest common ancestors); the extended model's
            // protected values have no control here (CLI: --protected).
            o.hierarchies = self.hier.set();
            o.pk.p = self.params.p;
        }
        if self.anon.choice().reads_cells {
            o.semi_sensitive = self
                .roles
                .with(Role::SemiSensitive)
                .into_iter()
                .filter_map(|c| self.cells[c].as_ref().map(|s| (c, (*s.bits).clone())))
                .collect();
            o.t_closeness = self.t_closeness().into_iter().collect();
        }
        o
    }

    /// The anonymization job for `inputs`: one job function for the
    /// user's runs and the prefetch, so a prefetched view is what a run
    /// would show.
    fn anonymize_job(&self, inputs: &AnonymizeInputs) -> JobFn<Box<AnonymizeView>> {
        anon::job(
            Arc::clone(&self.ds),
            self.roles.clone(),
            inputs.clone(),
            self.before.clone(),
            self.options_for(inputs),
        )
    }

    /// The algorithm options for `inputs`, which may differ from the
    /// session's in p (a prefetched neighbour).
    fn options_for(&self, inputs: &AnonymizeInputs) -> crate::algorithms::Options {
        let mut o = self.algorithm_options();
        if let Some(pk) = inputs.pk {
            o.pk.p = pk.p;
        }
        o
    }

    /// The attribute LGB protects by t-closeness, with t, while it is still
    /// sensitive or semi-sensitive.
    pub fn t_closeness(&self) -> Option<(usize, f64)> {
        self.anon
            .t_closeness
            .filter(|&c| t_closeness_candidate(self.roles.get(c)))
            .map(|c| (c, self.params.t))
    }

    /// Queue the query workload of the shown release.
    fn request_queries(&mut self) {
        let Some(view) = &self.anon.view else {
            return;
        };
        let job = anon::queries_job(
            Arc::clone(&self.ds),
            Arc::clone(&view.release),
            view.inputs.seed,
        );
        let id = self.query_worker.submit(job);
        self.anon.queries = QueriesState::Running { id };
    }

    fn set_role(&mut self, role: Role) {
        let c = self.data.col;
        if self.roles.get(c) == role {
            return;
        }
        let was = self.roles.get(c);
        let breached = self.roles.with(Role::Sensitive).first().copied();
        self.roles.set(c, role);
        self.roles_generation += 1;
        // No cached run can be asked for again: free them.
        self.cancel_prefetch();
        self.prefetch.clear();
        self.hier.sync_roles(&self.roles);
        self.ensure_semi_cells();
        self.sync_attacker(&[]);
        self.refresh_stats();
        // Identifiers, sensitive and insensitive columns are all invisible
        // to the attacker: moving between them changes no risk figure but
        // the breach of the first sensitive attribute, when that changes.
        if was.attacker_visible()
            || role.attacker_visible()
            || breached != self.roles.with(Role::Sensitive).first().copied()
        {
            self.request_risk();
        }
    }

    fn toggle_sensitivity(&mut self) {
        let (row, col) = (self.data.row, self.data.col);
        if self.ds.n_rows() == 0 {
            return;
        }
        if self.roles.get(col) != Role::SemiSensitive {
            self.explain_not_semi_sensitive();
            return;
        }
        let Some(cells) = self.cells[col].as_mut() else {
            return;
        };
        cells.spec.toggle(row as u32);
        let bits = Arc::make_mut(&mut cells.bits);
        bits.toggle(row);
        cells.count = bits.count_ones(..);
        self.cells_changed(col);
    }

    /// After `col`'s sensitive cells changed: anonymization inputs, the
    /// side panel and (when the attacker knows `col`) the risk follow.
    fn cells_changed(&mut self, col: usize) {
        self.cells_generation += 1;
        self.cancel_prefetch();
        self.prefetch.clear();
        self.refresh_stats();
        if self.risk.known[col] {
            self.request_risk();
        }
    }

    fn explain_not_semi_sensitive(&mut self) {
        let key = self
            .keymap
            .help(Screen::Data)
            .into_iter()
            .find(|l| l.help == "role: semi-sensitive")
            .map_or_else(String::new, |l| format!(" (key {})", l.keys));
        self.notice = Some(format!(
            "only cells of semi-sensitive columns can be marked sensitive{key}"
        ));
    }

    fn open_mark_dialog(&mut self) {
        let col = self.data.col;
        if self.ds.n_cols() == 0 {
            return;
        }
        if self.roles.get(col) != Role::SemiSensitive {
            self.explain_not_semi_sensitive();
            return;
        }
        let Some(cells) = &self.cells[col] else {
            return;
        };
        self.mark = Some(MarkDialog::open(
            &self.ds,
            col,
            &cells.spec,
            cells.count,
            self.params.seed,
        ));
    }

    /// The dialog is modal: it takes every action but quitting and resizing
    /// (handled before), and Enter applies it — or, when the fields do not
    /// make a source the data accepts, shows why and stays open.
    fn step_mark(&mut self, action: &Action) {
        let Some(d) = self.mark.as_mut() else {
            return;
        };
        match *action {
            Action::Cancel => self.mark = None,
            Action::Up => d.move_focus(-1),
            Action::Down => d.move_focus(1),
            Action::Left => d.choose(-1),
            Action::Right => d.choose(1),
            Action::TypeChar(c) => d.type_char(c),
            Action::DeleteChar => d.delete_char(),
            Action::Confirm => {
                let col = d.column;
                let name = self.ds.col(col).name();
                let resolved = d.source(&self.ds).and_then(|source| {
                    let spec = CellSensitivity::new(source);
                    let bits = spec.resolve(&self.ds, name).map_err(|e| e.to_string())?;
                    Ok(SemiCells::new(spec, bits))
                });
                match resolved {
                    Ok(cells) => {
                        self.notice = Some(format!(
                            "{name}: {} sensitive cells",
                            crate::format::thousands(cells.count as u64)
                        ));
                        self.cells[col] = Some(cells);
                        self.mark = None;
                        self.cells_changed(col);
                    }
                    Err(e) => d.error = Some(e),
                }
            }
            _ => {}
        }
    }

    /// Every semi-sensitive column gets a (possibly empty) cell set.
    fn ensure_semi_cells(&mut self) {
        for c in self.roles.with(Role::SemiSensitive) {
            if self.cells[c].is_none() {
                self.cells[c] = Some(SemiCells::new(
                    CellSensitivity::default(),
                    FixedBitSet::with_capacity(self.ds.n_rows()),
                ));
            }
        }
    }

    /// Make the picker list the attacker-visible columns: keep the current
    /// order, drop columns that stopped being visible, and append new ones
    /// as known. `first` (from a project) puts those columns first, known,
    /// and the other visible ones after them, unknown.
    fn sync_attacker(&mut self, first: &[usize]) {
        let visible = self.roles.attacker_visible();
        let r = &mut self.risk;
        if !first.is_empty() {
            r.order = first.to_vec();
            r.known.iter_mut().for_each(|k| *k = false);
            for &c in first {
                r.known[c] = true;
            }
            for &c in &visible {
                if !r.order.contains(&c) {
                    r.order.push(c);
                }
            }
        }
        r.order.retain(|c| visible.contains(c));
        for &c in &visible {
            if !r.order.contains(&c) {
                r.order.push(c);
                r.known[c] = true;
            }
        }
        for c in 0..r.known.len() {
            if !visible.contains(&c) {
                r.known[c] = false;
            }
        }
        r.cursor = r.cursor.min(r.order.len().saturating_sub(1));
    }

    /// Queue the Risk screen's attacks for the current inputs (replacing
    /// queued ones): on the original table, and on the shown release.
    fn request_risk(&mut self) {
        self.risk.stale = true;
        let columns = self.risk.known_columns();
        let hidden: Vec<Option<Arc<FixedBitSet>>> = columns
            .iter()
            .map(|&c| match self.roles.get(c) {
                Role::SemiSensitive => self.cells[c].as_ref().map(|s| Arc::clone(&s.bits)),
                _ => None,
            })
            .collect();
        let sensitive = self.roles.with(Role::Sensitive).first().copied();
        let job = riskscreen::before_job(
            Arc::clone(&self.ds),
            columns,
            hidden,
            sensitive,
            self.risk.threshold,
        );
        let id = self.worker.submit(job);
        self.job = JobState::Running { id, fraction: 0.0 };
        self.risk.after_requested = None;
        self.request_after();
    }

    /// Queue the attacks on the release shown on the Anonymize screen, for
    /// the picker's attacker, unless they are computed or queued already.
    fn request_after(&mut self) {
        let Some(view) = &self.anon.view else {
            self.risk.after = None;
            return;
        };
        let known = self.risk.known_columns();
        let release = Arc::clone(&view.release);
        let done = self
            .risk
            .after
            .as_ref()
            .is_some_and(|a| a.is_for(&release, &known));
        let queued = self
            .risk
            .after_requested
            .as_ref()
            .is_some_and(|(r, k)| Arc::ptr_eq(r, &release) && *k == known);
        if done || queued {
            return;
        }
        let job = riskscreen::after_job(
            Arc::clone(&self.ds),
            Arc::clone(&release),
            known.clone(),
            self.risk.threshold,
        );
        self.risk.after_requested = Some((release, known));
        let id = self.after_worker.submit(job);
        self.risk.after_job = JobState::Running { id, fraction: 0.0 };
    }

    /// Bring the side panel's statistics up to date. Counting values is
    /// O(rows), so it is done only when the focused column changes; a role
    /// change or a toggle only updates the role and the sensitive count.
    fn refresh_stats(&mut self) {
        if self.ds.n_cols() == 0 {
            self.stats = empty_stats();
            return;
        }
        let c = self.data.col;
        let role = self.roles.get(c);
        let sensitive =
            (role == Role::SemiSensitive).then(|| self.cells[c].as_ref().map_or(0, |s| s.count));
        if self.stats.column == c && !self.stats.name.is_empty() {
            self.stats.role = role;
            self.stats.sensitive = sensitive;
            return;
        }
        let col = self.ds.col(c);
        let freq = col.frequencies();
        let missing = freq.last().copied().unwrap_or(0);
        let mut order: Vec<usize> = (0..col.cardinality()).filter(|&v| freq[v] > 0).collect();
        let by_count = |a: &usize, b: &usize| freq[*b].cmp(&freq[*a]).then(a.cmp(b));
        // Only the top few need sorting; an identifier column has as many
        // values as rows.
        if order.len() > TOP_VALUES {
            order.select_nth_unstable_by(TOP_VALUES, by_count);
            order.truncate(TOP_VALUES);
        }
        order.sort_by(by_count);
        let top: Vec<(String, u64)> = order
            .iter()
            .map(|&v| (col.display(v as u32).to_string(), freq[v]))
            .collect();
        let shown: u64 = top.iter().map(|t| t.1).sum();
        self.stats = ColumnStats {
            column: c,
            name: col.name().to_string(),
            kind: col.kind(),
            role,
            distinct: col.cardinality(),
            missing,
            rows: self.ds.n_rows(),
            other: self.ds.n_rows() as u64 - shown - missing,
            top,
            sensitive,
        };
    }

    /// Recompute the table's page size and room from the terminal size.
    fn relayout(&mut self) {
        let area = Rect::new(0, 0, self.size.0, self.size.1);
        let table = ui::data_table_viewport(area);
        self.data.page = usize::from(table.height).max(1);
        self.data.room = table.width.saturating_sub(self.data.gutter + 1);
        self.follow_cursor();
        self.risk.list_page = usize::from(ui::risk_list_viewport(area).height).max(1);
        let published = ui::anonymize_table_viewport(area);
        self.anon.table.page = usize::from(published.height).max(1);
        self.anon.refresh_table(&self.ds);
    }

    /// Scroll so the cursor is on screen, and recompute the visible columns.
    fn follow_cursor(&mut self) {
        let n = self.ds.n_rows();
        let d = &mut self.data;
        let page = d.page.max(1);
        if d.row < d.top {
            d.top = d.row;
        } else if d.row >= d.top + page {
            d.top = d.row + 1 - page;
        }
        d.top = d.top.min(n.saturating_sub(page));
        if d.col < d.left {
            d.left = d.col;
        }
        while d.left < d.col && !fits(&d.widths[d.left..=d.col], d.room) {
            d.left += 1;
        }
        d.columns.clear();
        let mut used = 0u16;
        for c in d.left..d.widths.len() {
            let w = d.widths[c];
            let need = if d.columns.is_empty() { w } else { w + 1 };
            if used + need > d.room {
                if d.columns.is_empty() {
                    d.columns.push((c, d.room.max(1)));
                }
                break;
            }
            used += need;
            d.columns.push((c, w));
        }
    }
}

/// The t-closeness choice of an opened project, taken out of `params`:
/// the screen protects one attribute by t-closeness at t = `params.t`, so
/// the first sensitive or semi-sensitive attribute of
/// `params.t_closeness` in column order is chosen and its t becomes
/// `params.t` (equal already in projects the TUI saved). The other entries
/// (a hand-edited project naming several, or a column of another role) are
/// left out, and the message returned names them.
fn restore_t_closeness(
    ds: &Dataset,
    roles: &Roles,
    params: &mut Params,
) -> crate::Result<(Option<usize>, Option<String>)> {
    let mut saved = std::mem::take(&mut params.t_closeness)
        .into_iter()
        .map(|(name, t)| Ok((ds.column_index(&name)?, name, t)))
        .collect::<crate::Result<Vec<_>>>()?;
    saved.sort_by_key(|&(c, _, _)| c);
    let mut chosen = None;
    let mut left_out = Vec::new();
    for (c, name, t) in saved {
        if chosen.is_none() && t_closeness_candidate(roles.get(c)) {
            chosen = Some(c);
            params.t = t;
        } else {
            left_out.push(format!("{name}={t}"));
        }
    }
    let message = (!left_out.is_empty()).then(|| {
        format!(
            "The project asks t-closeness for {}. This screen protects one sensitive or semi-sensitive attribute by t-closeness{}; the others use l-diversity here (and lose the setting when the project is saved).",
            left_out.join(", "),
            chosen.map_or(String::new(), |c| format!(" ('{}')", ds.col(c).name()))
        )
    });
    Ok((chosen, message))
}

/// Whether a column of this role can be protected by t-closeness.
fn t_closeness_candidate(role: Role) -> bool {
    matches!(role, Role::Sensitive | Role::SemiSensitive)
}

/// The next attribute for t-closeness: none, then each sensitive and
/// semi-sensitive column in column order, then none again.
fn next_t_closeness(roles: &Roles, now: Option<usize>) -> Option<usize> {
    let candidates: Vec<usize> = (0..roles.as_slice().len())
        .filter(|&c| t_closeness_candidate(roles.get(c)))
        .collect();
    match now.and_then(|c| candidates.iter().position(|&x| x == c)) {
        None => candidates.first().copied(),
        Some(i) => candidates.get(i + 1).copied(),
    }
}

/// Whether columns of these widths fit side by side, one space apart.
fn fits(widths: &[u16], room: u16) -> bool {
    let total: u32 = widths.iter().map(|&w| u32::from(w) + 1).sum::<u32>();
    total.saturating_sub(1) <= u32::from(room)
}

fn column_widths(ds: &Dataset) -> Vec<u16> {
    ds.columns()
        .iter()
        .map(|col| {
            let widest = col
                .dictionary()
                .iter()
                .map(|v| Span::raw(&**v).width())
                .max()
                .unwrap_or(1);
            // The header shows the name and the role tag ("SS"); the
            // sensitive marker takes one more cell.
            let w = widest.max(Span::raw(col.name()).width()).max(2) + 2;
            w.min(MAX_COLUMN_WIDTH) as u16
        })
        .collect()
}

fn digits(n: usize) -> usize {
    n.max(1).ilog10() as usize + 1
}

fn empty_stats() -> ColumnStats {
    ColumnStats {
        column: 0,
        name: String::new(),
        kind: ColumnKind::Categorical,
        role: Role::Insensitive,
        distinct: 0,
        missing: 0,
        rows: 0,
        top: Vec::new(),
        other: 0,
        sensitive: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_window_is_clipped_and_bounded() {
        assert_eq!(visible_window(1_000_000, 999_990, 20), 999_990..1_000_000);
        assert_eq!(visible_window(1_000_000, 500, 20), 500..520);
        assert_eq!(visible_window(5, 0, 20), 0..5);
        assert_eq!(visible_window(0, 0, 20), 0..0);
    }
}
