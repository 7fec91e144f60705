//! The app: the router between the screens, the modal stack (popup, help,
//! command line, search; a screen's own dialog), and the one session state.
//!
//! [`App::step`] applies an [`Action`]: a modal takes it first, then the
//! global keys, then the screen in view. [`App::on_worker`] routes a job's
//! message to the component that owns the job. After either, every screen
//! follows the session's generations ([`App::follow_session`]): a change
//! of roles, cells, attacker, hierarchies or settings — made on any screen
//! — reaches the others there, and the session's baseline is asked for
//! again when what it depends on changed. Drawing only reads (STYLE.md,
//! habit 5); tests build an `App`, step it with actions and render it into
//! a `TestBackend`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use ratatui::layout::Rect;

use super::cmdline::LineEditor;
use super::history::{self, History};
use super::jobs::{Job, JobClock};
use super::keymap::{Action, KeyMap};
use super::layout;
use super::screens::anonymize::AnonymizeScreen;
use super::screens::compare::CompareScreen;
use super::screens::data::DataScreen;
use super::screens::hierarchies::HierarchiesScreen;
use super::screens::risk::RiskScreen;
pub use super::screens::JobMsg;
use super::screens::{Component, Context, View};
use super::search::SearchState;
use super::session::{SessionState, Snapshot};
use super::shared::{JobState, Out, Popup, Screen};
use super::theme::Theme;
use super::worker::WorkerMsg;
use anonlab::data::CompareEntry;
use anonlab::session::Session;

mod exports;
mod infra;
mod open;
mod read;

/// Where the job slots' threads hand their messages.
type Notify = Arc<dyn Fn(JobMsg) + Send + Sync>;

/// Put a job slot on a thread of its own, its messages wrapped by `wrap`.
fn threaded<T: Send + 'static>(
    job: &mut Job<T>,
    notify: &Notify,
    wrap: fn(WorkerMsg<T>) -> JobMsg,
) -> std::io::Result<()> {
    let notify = Arc::clone(notify);
    job.start(move |m| notify(wrap(m)))
}

/// Run an inline slot's queued job, if any, and collect its messages.
fn drain<T: Send + 'static>(
    job: &mut Job<T>,
    wrap: fn(WorkerMsg<T>) -> JobMsg,
    out: &mut Vec<JobMsg>,
) {
    out.extend(job.run_queued_inline().into_iter().map(wrap));
}

pub struct App {
    session: SessionState,
    screen: Screen,
    data: DataScreen,
    risk: RiskScreen,
    anon: AnonymizeScreen,
    hier: HierarchiesScreen,
    compare: CompareScreen,
    // The modal stack, top first: a popup, the command line, the search
    // line, a screen's dialog (Data's marking, Hierarchies' builder), help.
    popup: Option<Popup>,
    cmdline: LineEditor,
    search: SearchState,
    help: bool,
    /// The keys, or the `:` commands.
    help_page: HelpPage,
    /// First help line shown, when the help does not fit the terminal.
    help_scroll: usize,
    /// Charts and reports being written (`e`, `E`).
    export_job: Job<super::export::Exported>,
    keymap: KeyMap,
    theme: Theme,
    /// Whether the terminal reports the mouse (clicks and wheel).
    mouse: bool,
    notice: Option<String>,
    quit: bool,
    /// Ctrl-Z was pressed: the terminal loop suspends the process
    /// ([`take_suspend`](Self::take_suspend)).
    suspend: bool,
    size: (u16, u16),
    spinner: usize,
    /// When each running job started, for the status bar's gauge.
    clock: JobClock,
    /// Where `SaveProject` writes; [`DEFAULT_PROJECT_FILE`] when unset.
    project_path: Option<PathBuf>,
    /// The session generation the screens followed last.
    seen: u64,
    /// Undo and redo of the session's edits.
    history: History,
    /// The session as last saved (or opened): what "unsaved changes"
    /// compares with.
    saved: Snapshot,
    /// The question asked before quitting or opening another file with
    /// unsaved changes.
    confirm: Option<Confirm>,
    /// The file being read off the UI thread (`:open`, `app/open.rs`).
    opening: Option<open::Opening>,
    /// The number of the latest open request.
    open_seq: u64,
    /// A file read, for the terminal loop to pick up with
    /// [`take_open`](Self::take_open) in place of this session.
    opened: Option<(PathBuf, Box<super::shared::Loaded>)>,
    /// Where the job threads hand their messages, once the workers run
    /// (each open starts a thread of its own).
    notify: Option<Notify>,
    /// The files opened lately (`app/open.rs`).
    recent: super::recent::RecentFiles,
    /// The `:open` picker, while open.
    picker: Option<super::picker::FilePicker>,
}

/// The two pages of the help overlay; ← and → switch between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HelpPage {
    /// The keys of the screen in view (`?`).
    Keys,
    /// Every command of the `:` line with its arguments (`:help`).
    Commands,
}

/// What waits for the user's answer about unsaved changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirm {
    Quit,
    /// Open this file (a CSV or a project) in place of the session.
    Open(PathBuf),
}

impl App {
    /// An app editing a session. Fails when a sensitivity source cannot be
    /// resolved (a rule naming a missing column, a bad flag value) or the
    /// attacker model names an unknown column or a threshold outside
    /// [0, 1].
    ///
    /// Nothing runs yet: the baseline waits in its job slot until
    /// [`start_worker`](Self::start_worker) (the terminal program) or
    /// [`run_pending_jobs_blocking`](Self::run_pending_jobs_blocking) (tests).
    pub fn new(session: Session) -> anonlab::Result<Self> {
        let (session, warnings) = SessionState::new(session)?;
        let mut app = App {
            screen: Screen::Data,
            data: DataScreen::new(session.dataset()),
            risk: RiskScreen::new(),
            anon: AnonymizeScreen::new(&session),
            hier: HierarchiesScreen::new(&session),
            compare: CompareScreen::new(&session),
            saved: session.snapshot(),
            history: History::default(),
            confirm: None,
            opening: None,
            open_seq: 0,
            opened: None,
            notify: None,
            recent: Default::default(),
            picker: None,
            session,
            popup: None,
            cmdline: LineEditor::default(),
            search: SearchState::default(),
            help: false,
            help_page: HelpPage::Keys,
            help_scroll: 0,
            export_job: Job::inline(),
            keymap: KeyMap::default(),
            theme: Theme::default(),
            mouse: true,
            notice: None,
            quit: false,
            suspend: false,
            size: (80, 24),
            spinner: 0,
            clock: JobClock::default(),
            project_path: None,
            seen: u64::MAX,
        };
        for w in warnings {
            app = app.with_warning(&w.title, &w.message);
        }
        app.relayout();
        app.data.refresh_stats(&app.session);
        app.follow_session();
        Ok(app)
    }

    /// The app on a session whose dataset is the frequency table of
    /// `file` (`anonlab tui --engine datafusion`): every screen works on
    /// the table, and the Data screen pages the file's sample and says so.
    pub fn with_grouped(mut self, file: anonlab::session::GroupedFile) -> Self {
        self.session.set_grouped(file);
        let semi_key = std::mem::take(&mut self.data.semi_key);
        self.data = DataScreen::new(self.session.table());
        self.data.semi_key = semi_key;
        self.relayout();
        self.data.refresh_stats(&self.session);
        self
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
        self.notify = Some(Arc::clone(&notify));
        threaded(self.session.job_mut(), &notify, JobMsg::Baseline)?;
        threaded(self.risk.job_mut(), &notify, JobMsg::RiskAfter)?;
        threaded(self.hier.job_mut(), &notify, JobMsg::Correlation)?;
        threaded(self.compare.job_mut(), &notify, JobMsg::Compare)?;
        threaded(&mut self.export_job, &notify, JobMsg::Export)?;
        let n = Arc::clone(&notify);
        self.anon.start(move |m| n(JobMsg::Anonymize(m)))?;
        // The inline slots' queued jobs are gone with them: ask again.
        if self.hier.state.matrix.job.is_running() {
            self.hier.request_matrix(&self.session);
        }
        self.session.request_baseline(true);
        self.anon.restart(&self.session);
        Ok(())
    }

    /// Run the queued computations on this thread and apply their results,
    /// until none is left (a finished anonymization queues its query
    /// workload). With the default inline workers this is how tests make
    /// progress.
    pub fn run_pending_jobs_blocking(&mut self) {
        self.run_open_inline();
        loop {
            self.after_draw();
            let mut msgs: Vec<JobMsg> = Vec::new();
            drain(self.session.job_mut(), JobMsg::Baseline, &mut msgs);
            drain(self.risk.job_mut(), JobMsg::RiskAfter, &mut msgs);
            let mut anon = Vec::new();
            self.anon.drain(&mut anon);
            msgs.extend(anon.into_iter().map(JobMsg::Anonymize));
            drain(self.hier.job_mut(), JobMsg::Correlation, &mut msgs);
            drain(self.compare.job_mut(), JobMsg::Compare, &mut msgs);
            drain(&mut self.export_job, JobMsg::Export, &mut msgs);
            if msgs.is_empty() {
                break;
            }
            for m in msgs {
                self.on_worker(m);
            }
        }
    }

    // ---- changes ----

    /// Apply one action. An action that changed the session is recorded
    /// for undo, named by what it changed.
    pub fn step(&mut self, action: &Action) {
        let before = self.session.snapshot();
        self.step_action(action);
        if !matches!(action, Action::Undo | Action::Redo) {
            self.history.record(before, &self.session);
        }
    }

    /// Whether the session differs from the project as last saved (or
    /// opened).
    pub fn unsaved(&self) -> bool {
        history::unsaved(&self.saved, &self.session)
    }

    /// What changed since the project was saved (or opened), named as
    /// undo names it; `None` when nothing did.
    pub fn unsaved_changes(&self) -> Option<String> {
        history::describe(&self.saved, &self.session)
            .or_else(|| self.unsaved().then(|| "the compare set".to_string()))
    }

    /// The question open about unsaved changes.
    pub fn confirm(&self) -> Option<&Confirm> {
        self.confirm.as_ref()
    }

    /// Edits an undo can go back, and undone edits a redo can replay.
    pub fn history_depth(&self) -> (usize, usize) {
        self.history.depth()
    }

    /// Open the help on `page`, at its top however far it was scrolled
    /// when it was closed.
    pub(super) fn open_help(&mut self, page: HelpPage) {
        self.help = true;
        self.help_page = page;
        self.help_scroll = 0;
    }

    /// Quit, asking first when there are unsaved changes.
    pub(super) fn request_quit(&mut self) {
        if self.unsaved() {
            self.confirm = Some(Confirm::Quit);
        } else {
            self.quit = true;
        }
    }

    /// Open `path` (a CSV file, or a project when it ends in `.json`) in
    /// place of the session, asking first when there are unsaved changes.
    pub(super) fn request_open(&mut self, path: PathBuf) {
        if self.unsaved() {
            self.confirm = Some(Confirm::Open(path));
        } else {
            self.start_open(path);
        }
    }

    /// The answer to the question about unsaved changes: `w` (or Enter)
    /// saves first, `d` discards them, Esc goes back to work. Ctrl-c
    /// discards too: pressed twice it always quits.
    fn step_confirm(&mut self, action: &Action) {
        let proceed = match *action {
            Action::TypeChar('w' | 'W' | 's' | 'y' | 'Y') | Action::Confirm => {
                if !self.save_project() {
                    self.confirm = None;
                    return;
                }
                true
            }
            Action::TypeChar('d' | 'D' | 'n' | 'N') | Action::Quit => true,
            Action::Cancel | Action::TypeChar(_) => false,
            _ => return,
        };
        match (proceed, self.confirm.take()) {
            (true, Some(Confirm::Quit)) => self.quit = true,
            (true, Some(Confirm::Open(path))) => self.start_open(path),
            _ => {}
        }
    }

    /// Apply one action (see [`step`](Self::step)).
    fn step_action(&mut self, action: &Action) {
        self.notice = None;
        // Tab completes on the command line; in every other dialog it is
        // the next field.
        let action = &match *action {
            Action::Complete if !self.cmdline.is_open() => Action::Down,
            a => a,
        };
        let mut out = Out::default();
        match *action {
            Action::Resize(w, h) => {
                self.size = (w, h);
                self.relayout();
            }
            _ if self.confirm.is_some() => self.step_confirm(action),
            Action::Quit => self.request_quit(),
            Action::Suspend => self.suspend = true,
            Action::Undo | Action::Redo
                if self.popup.is_none() && !self.dialog_open() && !self.help =>
            {
                let undo = *action == Action::Undo;
                let done = if undo {
                    self.history.undo(&mut self.session)
                } else {
                    self.history.redo(&mut self.session)
                };
                let (back, forth) = self.history.depth();
                self.notice = Some(match (done, undo) {
                    (Some(what), true) => {
                        format!("undone: {what} ({back} more to undo; Ctrl-r redoes)")
                    }
                    (Some(what), false) => {
                        format!("redone: {what} ({forth} more to redo; u undoes)")
                    }
                    (None, true) => "nothing to undo".to_string(),
                    (None, false) => "nothing to redo".to_string(),
                });
                self.anon.follow_algorithm(&self.session);
            }
            // A popup or the help overlay is modal: it takes Esc (and `?`
            // for help) and swallows the rest.
            _ if self.popup.is_some() => {
                if *action == Action::Cancel {
                    self.popup = None;
                }
            }
            _ if self.cmdline.is_open() => self.step_cmdline(action),
            _ if self.picker.is_some() => self.step_picker(action),
            _ if self.search.editor.is_open() => self.step_search_line(action),
            _ if self.data.mark.is_some() => {
                self.data.step_mark(action, &mut self.session, &mut out)
            }
            _ if self.data.freq.is_some() && self.screen == Screen::Data => {
                self.data.step_freq(action)
            }
            _ if self.hier.dialog_open() => {
                let inputs = self.inputs();
                self.hier.step(action, &mut self.session, &inputs, &mut out)
            }
            // Help is modal too; on a short terminal ↑/↓, the page keys
            // and the wheel scroll it (the drawing clamps the scroll).
            _ if self.help => match *action {
                Action::Cancel | Action::ToggleHelp => self.help = false,
                Action::Left | Action::Right => self.open_help(match self.help_page {
                    HelpPage::Keys => HelpPage::Commands,
                    HelpPage::Commands => HelpPage::Keys,
                }),
                Action::Up => self.help_scroll = self.help_scroll.saturating_sub(1),
                Action::Down => self.help_scroll = self.help_scroll.saturating_add(1),
                Action::PageUp => self.help_scroll = self.help_scroll.saturating_sub(10),
                Action::PageDown => self.help_scroll = self.help_scroll.saturating_add(10),
                Action::First => self.help_scroll = 0,
                Action::Last => self.help_scroll = usize::MAX / 2,
                Action::Scroll(by) => {
                    self.help_scroll = self.help_scroll.saturating_add_signed(by as isize)
                }
                _ => {}
            },
            Action::ToggleHelp => self.open_help(HelpPage::Keys),
            Action::OpenCommandLine => self.cmdline.open(),
            Action::OpenFile => self.open_picker(),
            Action::OpenFilter if self.screen == Screen::Data => {
                self.cmdline.open();
                let current = self.data.view.order.filter.clone().unwrap_or_default();
                self.cmdline.set_text(format!("filter {current}"));
            }
            Action::OpenSearch => self.search.editor.open(),
            Action::SearchNext => self.search_next(true),
            Action::SearchPrev => self.search_next(false),
            Action::Click { column, row } => self.click(column, row),
            Action::ShowScreen(s) => self.show(s),
            Action::NextScreen => self.show(self.screen.offset(1)),
            Action::PrevScreen => self.show(self.screen.offset(-1)),
            Action::Cancel => self.cancel_job(),
            Action::SaveProject => {
                self.save_project();
            }
            Action::ExportChart => self.export_chart(None),
            Action::ExportReport => self.export_report(None, anonlab::report::Audience::Internal),
            Action::WriteRelease => self.write_release(None),
            Action::AddToCompare => {
                let entry = self.entry_now();
                self.compare.add(entry, &mut self.session, &mut out);
            }
            _ => {
                let (screen, mut cx) = self.in_view();
                screen.step(action, &mut cx, &mut out);
            }
        }
        self.apply(out);
        self.follow_session();
        // A key press notes the jobs it started but does not move the
        // clock: only time the app waited for (a tick, a worker's message)
        // does, so what a sequence of steps draws never depends on how fast
        // the machine ran them.
        let list = self.job_lines();
        self.clock.note(&list, Instant::now());
    }

    /// Apply a worker message. Messages of superseded requests are dropped.
    pub fn on_worker(&mut self, msg: JobMsg) {
        let mut out = Out::default();
        match msg {
            JobMsg::Baseline(m) => {
                if let Some(error) = self.session.on_baseline(m) {
                    out.popup("Risk computation failed", error);
                }
                self.risk.sync(&self.session);
            }
            JobMsg::Export(m) => self.on_export(m, &mut out),
            JobMsg::Open(m) => self.on_open(m),
            msg => {
                if let Some(owner) = msg.owner() {
                    let (screen, mut cx) = self.screen_mut(owner);
                    screen.on_job(msg, &mut cx, &mut out);
                }
            }
        }
        self.apply(out);
        self.sync_clock(Instant::now());
    }

    /// The screen in view, as a component, with what it reads of the
    /// session and of the other screens.
    fn in_view(&mut self) -> (&mut dyn Component, Context<'_>) {
        self.screen_mut(self.screen)
    }

    /// A screen, as a component, with what it reads of the session and
    /// of the other screens: the one place the app picks a screen by its
    /// id (with [`screen_ref`](Self::screen_ref)).
    fn screen_mut(&mut self, id: Screen) -> (&mut dyn Component, Context<'_>) {
        let shown = self.anon.shown_release().cloned();
        let inputs = self.screen_ref(id).needs_inputs().then(|| self.inputs());
        let (screen, cache): (&mut dyn Component, _) = match id {
            Screen::Data => (&mut self.data, Some(&mut self.anon.cache)),
            Screen::Risk => (&mut self.risk, Some(&mut self.anon.cache)),
            // The Anonymize screen owns the cache: it is not lent to it.
            Screen::Anonymize => (&mut self.anon, None),
            Screen::Hierarchies => (&mut self.hier, Some(&mut self.anon.cache)),
            Screen::Compare => (&mut self.compare, Some(&mut self.anon.cache)),
        };
        let cx = Context {
            session: &mut self.session,
            shown,
            cache,
            inputs,
            search: &mut self.search,
        };
        (screen, cx)
    }

    /// The screen in view, to read.
    pub(crate) fn in_view_ref(&self) -> &dyn Component {
        self.screen_ref(self.screen)
    }

    /// A screen, to read.
    fn screen_ref(&self, id: Screen) -> &dyn Component {
        match id {
            Screen::Data => &self.data,
            Screen::Risk => &self.risk,
            Screen::Anonymize => &self.anon,
            Screen::Hierarchies => &self.hier,
            Screen::Compare => &self.compare,
        }
    }

    /// What the screens' drawing reads beyond their own state.
    pub(crate) fn view(&self) -> View<'_> {
        View {
            session: &self.session,
            keymap: &self.keymap,
            search: &self.search,
            shown: self.anon.state.view.as_ref(),
        }
    }

    /// What a screen asked of the app.
    fn apply(&mut self, out: Out) {
        // Before the notice: the screen's own notice about the entry
        // has the last word.
        if let Some(entry) = out.load {
            self.load_compare_entry(entry);
        }
        if let Some(n) = out.notice {
            self.notice = Some(n);
        }
        if let Some(p) = out.popup {
            self.popup = Some(p);
        }
        if let Some(row) = out.jump {
            if self.session.grouped().is_some() {
                // The row is a combination of the frequency table; the Data
                // screen pages the file's first records, not combinations.
                self.notice = Some(format!(
                    "row {} is a combination of the frequency table, standing for {} records; the Data screen shows a sample of the file's records, not combinations",
                    row + 1,
                    self.session.dataset().multiplicity(row)
                ));
            } else {
                self.data.select(row, None, &self.session);
                self.show(Screen::Data);
            }
        }
        if let Some(s) = out.show {
            self.show(s);
        }
    }

    /// Let every screen follow a change of the session, made anywhere, and
    /// ask for the baseline when what it depends on changed.
    fn follow_session(&mut self) {
        let now = self.session.generations().session;
        if now == self.seen {
            return;
        }
        self.seen = now;
        self.session.request_baseline(false);
        self.data.refresh_stats(&self.session);
        self.risk.sync(&self.session);
        self.anon
            .sync(&self.session, self.screen == Screen::Anonymize);
        self.hier
            .sync(&self.session, self.screen == Screen::Hierarchies);
        if self.screen == Screen::Risk {
            self.risk
                .request_after(&self.session, self.anon.shown_release());
        }
    }

    /// After a frame is drawn: free what a new view replaced and start the
    /// follow-up jobs of a release shown since the last frame (its query
    /// workload, the prefetch of its neighbours, and the Risk screen's
    /// "after" when that screen is open). The terminal loop calls this
    /// after each draw.
    pub fn after_draw(&mut self) {
        if let Some(release) = self.anon.after_draw(&self.session) {
            if self.screen == Screen::Risk {
                self.risk.request_after(&self.session, Some(&release));
            }
        }
    }

    /// Turn the neighbour prefetch and the release cache on or off (off:
    /// every press runs the algorithm, as benchmarks' cold presses do).
    pub fn set_prefetch(&mut self, on: bool) {
        self.anon.set_prefetch(on);
    }

    /// Advance the spinner shown while a job runs.
    pub fn on_tick(&mut self) {
        self.on_tick_at(Instant::now());
    }

    /// [`on_tick`](Self::on_tick) at a given time: tests pass a later
    /// instant to see a long job's gauge without sleeping.
    pub fn on_tick_at(&mut self, now: Instant) {
        self.sync_clock(now);
        self.tick_open(now);
        if self.opening.is_some()
            || self.session.baseline_job().is_running()
            || self.anon.is_busy()
            || self.hier.state.matrix.job.is_running()
            || self.compare.state.job.is_running()
        {
            self.spinner = self.spinner.wrapping_add(1);
        }
    }

    /// Note which jobs started or stopped since the last change.
    fn sync_clock(&mut self, now: Instant) {
        let list = self.job_lines();
        self.clock.sync(&list, now);
    }

    /// Stop the computation of the screen in view (on the Data screen, the
    /// one that is running).
    fn cancel_job(&mut self) {
        if self.cancel_open() || self.cancel_export() {
            return;
        }
        let (screen, cx) = self.in_view();
        let stopped = screen.cancel(cx.session);
        // The Data screen has no job of its own: with no baseline running,
        // Esc there stops the anonymization.
        if !stopped && self.screen == Screen::Data {
            self.anon.cancel();
        }
    }

    fn show(&mut self, screen: Screen) {
        self.screen = screen;
        let (screen, mut cx) = self.in_view();
        screen.show(&mut cx);
    }

    /// The compare entry of what the Anonymize screen would run now.
    fn entry_now(&self) -> CompareEntry {
        let choice = self.anon.state.choice();
        let p = self.session.params();
        CompareEntry {
            algorithm: choice.id.to_string(),
            k: p.k,
            l: choice.needs.l.then_some(p.l),
            p: choice.needs.p.then_some(p.p),
            seed: p.seed,
        }
    }

    /// Enter on the Compare screen: the entry's algorithm and parameters
    /// on the Anonymize screen (shown at once when the cache holds its
    /// run).
    fn load_compare_entry(&mut self, entry: CompareEntry) {
        if !self.anon.choose(&entry.algorithm, &mut self.session) {
            self.notice = Some(format!("unknown algorithm '{}'", entry.algorithm));
            return;
        }
        let p = self.session.params_mut();
        p.k = entry.k;
        if let Some(l) = entry.l {
            p.l = l;
        }
        if let Some(x) = entry.p {
            p.p = x;
        }
        p.seed = entry.seed;
        self.show(Screen::Anonymize);
    }

    /// The files the session reads (data, hierarchy files, the project
    /// file): no export may replace one of them.
    pub fn inputs(&self) -> anonlab::data::Inputs {
        let file = self.project_path();
        self.to_project().inputs().with(&file)
    }

    /// Write the session to the project file. The data path and hierarchy
    /// and conditions file paths are written relative to the project file
    /// when the file lies beside or below it (`Project::load` reads them
    /// relative to the project file), else absolute, so the project opens
    /// from any working directory.
    /// Whether it was saved.
    fn save_project(&mut self) -> bool {
        let path = self.project_path();
        let project = self.to_project().relative_to(&path);
        let absolute = std::env::current_dir().unwrap_or_default().join(&path);
        match project.save(&path) {
            Ok(()) => {
                self.notice = Some(format!("project saved to {}", absolute.display()));
                self.saved = self.session.snapshot();
                true
            }
            Err(e) => {
                self.popup = Some(Popup::new("Cannot save the project", e.to_string()));
                false
            }
        }
    }

    /// Recompute the screens' page sizes from the terminal size.
    fn relayout(&mut self) {
        let area = Rect::new(0, 0, self.size.0, self.size.1);
        let table = layout::data_table_viewport(area);
        self.data.relayout(
            usize::from(table.height),
            table.width,
            self.session.table().n_rows(),
        );
        self.data.follow_cursor(self.session.table().n_rows());
        // The list's page as drawn when it is shown (on a short terminal
        // it has the body to itself).
        let list = layout::RiskRows {
            shown: layout::RiskPanel::List,
            ..self.risk_rows()
        };
        self.risk.state.list_page =
            usize::from(layout::risk_list_viewport(area, list).height).max(1);
        self.risk.state.compact = layout::risk_compact(layout::bands(area).body);
        let published = layout::anonymize_table_viewport(area);
        self.anon.state.table.page = usize::from(published.height).max(1);
        let views = layout::anonymize_views_viewport(area);
        self.anon.state.side_by_side.page = usize::from(views.height).max(1);
        self.anon.state.refresh_table(self.session.dataset());
    }

    /// Rows of the Risk screen's prefix table (its height follows them).
    /// The Risk screen's layout heights: the prefix table's rows and the
    /// model panel's lines (none without the statistics offices' measures).
    pub fn risk_rows(&self) -> layout::RiskRows {
        crate::screens::risk::layout_rows(&self.session, &self.risk.state)
    }
}
