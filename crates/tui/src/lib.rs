//! The terminal UI: five screens (Data, Risk, Anonymize, Hierarchies,
//! Compare) over one session.
//!
//! This module owns the terminal: it sets it up, restores it on every exit
//! path (a guard's `Drop` and a panic hook), and runs the event loop, which
//! waits for one event — a key or mouse input, a worker message, or a tick —
//! applies it to the [`App`], then draws once. The rest, in layers that
//! only use those before them (a test checks there is no cycle):
//!
//! - `shared`, `worker`, `jobs`, `keymap`, `config`, `recent`, `picker`,
//!   `theme`, `cmdline`, `search`, `layout`: types and tools every part uses
//!   (the screens, a worker thread and the job slot over it, the key map,
//!   the config file, the recent files and the `:open` picker, the line
//!   editor, the panels' areas);
//! - `session`: the one session state — the library's session, the
//!   attacker picker's order, generation counters and the session's
//!   baseline, computed in a job slot of its own;
//! - `history`: undo and redo of the session's edits, and what "unsaved"
//!   means;
//! - `screens`: one component per screen, each owning its state, its job
//!   slots and their messages, and drawing itself (`screens/*/draw.rs`)
//!   with the `widgets` every screen shares;
//! - `export`: the chart and report jobs;
//! - `app`: the router, the modal stack (popup, help, command line,
//!   search) and the session;
//! - `ui`: drawing the frame around the screen in view (tabs, status bar,
//!   modals), which only reads the app.

mod app;
mod chart;
mod cmdline;
mod config;
mod export;
mod history;
mod jobs;
mod keymap;
mod layout;
mod picker;
mod recent;
mod screens;
mod search;
mod session;
mod shared;
mod theme;
mod ui;
mod widgets;
mod worker;

use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Once};
use std::thread;
use std::time::Duration;

use crossterm::event::{self as cevent, DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

use anonlab::session::Session;

// The public API: the app and what drives it (actions, keys, the config,
// ticks, `draw` on any backend), the screen ids, and the few types of what
// the app's readers return that tests and benches name to match on (a
// figure shown, a job's state, a worker message they feed the app). The
// screens' states are reached through the app's readers, not re-exported:
// 130 names before issue 31, 66 before its screen trait, 52 after.
pub use app::{App, Confirm, HelpPage, JobMsg};
pub use cmdline::{Command, COMMANDS};
pub use config::Config;
pub use export::{ChartData, Dist, EXPORT_DIR, REPORT_DIR};
pub use jobs::GAUGE_AFTER;
pub use keymap::{Action, Input, KeyMap, Scope};
pub use layout::anonymize_table_viewport;
pub use picker::Origin;
pub use recent::{RecentFiles, MAX_RECENT};
pub use screens::anonymize::{AnonymizeMsg, Param, QueriesState};
pub use screens::compare::{Measured, Outcome, QueryError, METRIC_COLUMNS};
pub use screens::hierarchies::{Builder, DialogKind};
pub use screens::mark::MarkMode;
pub use screens::release::{verification_lines, CellMark};
pub use screens::risk::{Measures, RecordList, RiskChart, RiskFocus, RiskModel};
pub use screens::sweep::{SweepCell, SweepMetric, MAX_SWEEP_L, SWEEP_KS};
pub use session::{AnonymizeInputs, FULL_DOMAIN, MAX_LISTED};
pub use shared::{step_series, JobState, Loaded, Screen, DEFAULT_PROJECT_FILE};
pub use theme::{missing_cell_style, suppressed_cell_style, Theme};
pub use ui::draw;
pub use widgets::{role_color, sensitive_cell_style, too_small, SENSITIVE_MARK};
pub use worker::WorkerMsg;

/// Wake-up interval when nothing happens (animates the busy spinner).
const TICK: Duration = Duration::from_millis(250);
/// How long the input thread blocks before checking whether to stop.
const INPUT_POLL: Duration = Duration::from_millis(100);

/// One thing for the event loop to handle.
enum Event {
    Input(cevent::Event),
    InputFailed(io::Error),
    /// A job's message, with the number of the app it belongs to (`:open`
    /// replaces the app; its old jobs' messages are dropped).
    Worker(u64, JobMsg),
}

/// Run the TUI on a session until the user quits. The terminal is restored
/// however this returns, panics included. A session that cannot be shown
/// (see [`App::new`]) is an error before the terminal is touched. The
/// project is saved to [`DEFAULT_PROJECT_FILE`].
pub fn run(session: Session) -> anyhow::Result<()> {
    run_app(
        App::new(session)?
            .with_config(Config::load())
            .with_recent(RecentFiles::load_default()),
    )
}

/// Run the TUI on a session whose dataset is the frequency table of
/// `file` (see [`App::with_grouped`]).
pub fn run_grouped(session: Session, file: anonlab::session::GroupedFile) -> anyhow::Result<()> {
    run_app(
        App::new(session)?
            .with_grouped(file)
            .with_config(Config::load())
            .with_recent(RecentFiles::load_default()),
    )
}

/// Like [`run`], saving the project to `project` (the file the session was
/// opened from, or one named on the command line).
pub fn run_with_project(session: Session, project: std::path::PathBuf) -> anyhow::Result<()> {
    run_app(
        App::new(session)?
            .with_project_path(project)
            .with_config(Config::load())
            .with_recent(RecentFiles::load_default()),
    )
}

/// Run the TUI on a project file (see [`App::open_project`]), saving back
/// to it.
pub fn run_project(path: &std::path::Path) -> anyhow::Result<()> {
    run_app(
        App::open_project(path)?
            .with_config(Config::load())
            .with_recent(RecentFiles::load_default()),
    )
}

/// Refuse, with a message saying why, when there is no terminal to draw
/// on and read keys from: standard output must be a terminal, and so must
/// standard input or the process's controlling terminal (`/dev/tty`).
/// Call it before loading anything, so a missing terminal costs nothing.
pub fn check_terminal() -> anyhow::Result<()> {
    use std::io::IsTerminal;
    let why = if !io::stdout().is_terminal() {
        Some("standard output is not a terminal (redirected to a file or a pipe?)")
    } else if !io::stdin().is_terminal() && std::fs::File::open("/dev/tty").is_err() {
        Some("there is no terminal to read keys from (no controlling terminal)")
    } else {
        None
    };
    match why {
        Some(why) => anyhow::bail!(
            "the terminal UI needs a terminal: {why}; run it in a terminal, or use a subcommand (anonlab --help)"
        ),
        None => Ok(()),
    }
}

/// Run the TUI on an app built by the caller.
pub fn run_app(mut app: App) -> anyhow::Result<()> {
    check_terminal()?;
    let mut guard = TerminalGuard::enter()?;
    // Declared after the terminal's guard, so dropped before it: the
    // signal thread stops before the terminal is restored on return.
    let _signals = SignalGuard::install()?;
    let mut mouse = true;
    let (tx, rx) = mpsc::channel();
    let mut epoch = 0u64;
    let start = |app: &mut App, epoch: u64| {
        let worker_tx = tx.clone();
        app.start_worker(move |m| {
            let _ = worker_tx.send(Event::Worker(epoch, m));
        })
    };
    start(&mut app, epoch)?;
    let _input = InputThread::spawn(tx.clone());

    let size = guard.terminal.size()?;
    app.step(&Action::Resize(size.width, size.height));
    let keymap = app.keymap().clone();
    loop {
        // `mouse = false` in the config, or `:mouse off`: the terminal
        // handles the mouse itself (selecting text, its own scrolling).
        if app.mouse_enabled() != mouse {
            mouse = app.mouse_enabled();
            if mouse {
                execute!(io::stdout(), EnableMouseCapture)?;
            } else {
                execute!(io::stdout(), DisableMouseCapture)?;
            }
        }
        guard.terminal.draw(|f| draw(f, &app))?;
        app.after_draw();
        if app.should_quit() {
            return Ok(());
        }
        match rx.recv_timeout(TICK) {
            Ok(Event::Input(ev)) => {
                let action = if app.dialog_open() {
                    keymap.translate_dialog(&ev)
                } else {
                    keymap.translate(app.screen(), &ev)
                };
                if let Some(action) = action {
                    app.step(&action);
                }
                if app.take_suspend() {
                    guard.suspend(mouse)?;
                }
            }
            Ok(Event::Worker(e, msg)) if e == epoch => app.on_worker(msg),
            Ok(Event::Worker(..)) => {}
            Ok(Event::InputFailed(e)) => {
                return Err(anyhow::anyhow!("cannot read the terminal: {e}"))
            }
            Err(RecvTimeoutError::Timeout) => app.on_tick(),
            Err(RecvTimeoutError::Disconnected) => return Ok(()),
        }
        // `:open`: the file, read off this thread, becomes the session in
        // place of this one.
        if let Some(opened) = app.take_open() {
            app = opened;
            epoch += 1;
            start(&mut app, epoch)?;
        }
    }
}

/// Reads terminal events on its own thread so the loop can wait on one
/// channel; stops when dropped.
struct InputThread {
    stop: Arc<AtomicBool>,
    handle: Option<thread::JoinHandle<()>>,
}

impl InputThread {
    fn spawn(tx: Sender<Event>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle = thread::Builder::new()
            .name("anonlab-input".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    let ev = match cevent::poll(INPUT_POLL) {
                        Ok(false) => continue,
                        Ok(true) => cevent::read().map(Event::Input),
                        Err(e) => Err(e),
                    };
                    let failed = ev.is_err();
                    let ev = ev.unwrap_or_else(Event::InputFailed);
                    if tx.send(ev).is_err() || failed {
                        return;
                    }
                }
            })
            .ok();
        InputThread { stop, handle }
    }
}

impl Drop for InputThread {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Owns the terminal while the TUI runs: raw mode, the alternate screen and
/// mouse capture are set up by [`enter`](Self::enter) and undone by `Drop`,
/// on every exit path. A panic hook undoes them too, before the panic
/// message is printed, so the message is readable.
///
/// `ratatui::init` is not used: its hook does not know about mouse capture,
/// and it would chain a second restore onto ours.
struct TerminalGuard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl TerminalGuard {
    fn enter() -> io::Result<Self> {
        install_panic_hook();
        enable_raw_mode()?;
        let setup = execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)
            .and_then(|()| Terminal::new(CrosstermBackend::new(io::stdout())));
        match setup {
            Ok(terminal) => Ok(TerminalGuard { terminal }),
            Err(e) => {
                restore_terminal();
                Err(e)
            }
        }
    }
}

impl TerminalGuard {
    /// Ctrl-Z: give the terminal back, stop the process as the shell's
    /// job (raw mode swallowed the key, so the TUI raises SIGTSTP itself),
    /// and once `fg` continues it take the terminal again and clear it, so
    /// the next draw repaints every cell.
    #[cfg(unix)]
    fn suspend(&mut self, mouse: bool) -> io::Result<()> {
        restore_terminal();
        signal_hook::low_level::raise(signal_hook::consts::SIGTSTP)?;
        enable_raw_mode()?;
        execute!(io::stdout(), EnterAlternateScreen)?;
        if mouse {
            execute!(io::stdout(), EnableMouseCapture)?;
        }
        self.terminal.clear()
    }

    /// Elsewhere there is no job control to suspend to.
    #[cfg(not(unix))]
    fn suspend(&mut self, _mouse: bool) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
        let _ = self.terminal.show_cursor();
    }
}

/// Gives the terminal back when the process is told to end — SIGTERM (a
/// `kill`), SIGHUP (the terminal window closed), SIGINT (sent by `kill`;
/// Ctrl-C is a key in raw mode) — then ends the process as the signal
/// would have, so the shell sees 128 + the signal. On a thread of its own,
/// not the event loop's: a loop busy or blocked must not keep the terminal
/// raw. Stops listening when dropped (the TUI returned normally).
#[cfg(unix)]
struct SignalGuard {
    handle: signal_hook::iterator::Handle,
    thread: Option<thread::JoinHandle<()>>,
}

#[cfg(unix)]
impl SignalGuard {
    fn install() -> io::Result<Self> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT])?;
        let handle = signals.handle();
        let thread = thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                restore_terminal();
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                // Only reached if the default action did not end us.
                std::process::exit(128 + signal);
            }
        });
        Ok(SignalGuard {
            handle,
            thread: Some(thread),
        })
    }
}

#[cfg(unix)]
impl Drop for SignalGuard {
    fn drop(&mut self) {
        self.handle.close();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Elsewhere the default actions stand.
#[cfg(not(unix))]
struct SignalGuard;

#[cfg(not(unix))]
impl SignalGuard {
    fn install() -> io::Result<Self> {
        Ok(SignalGuard)
    }
}

/// Undo the TUI's terminal setup. Safe to call more than once.
fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

/// Restore the terminal before the previous hook prints the panic. A panic
/// inside a worker job is caught and shown in a popup instead, so the
/// terminal is left alone and nothing is printed over the screen.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if worker::in_job() {
                return;
            }
            restore_terminal();
            previous(info);
        }));
    });
}
