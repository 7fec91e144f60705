//! Types every part of the TUI shares, in a leaf module: the screens, a
//! job's state as the status bar shows it, a popup, what a component asks
//! the app to do, and small helpers. It imports nothing of the TUI, so the
//! session state, the screens and the app can all use it without an
//! import cycle (the TUI's layers: shared → session → screens → app → ui).

use std::ops::Range;

use super::worker::JobId;

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
    pub fn offset(self, by: isize) -> Screen {
        let n = Screen::ALL.len() as isize;
        Screen::ALL[(self.index() as isize + by).rem_euclid(n) as usize]
    }
}

/// A background computation, as the status bar shows it.
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

/// A failure shown over the screen until `Esc`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Popup {
    pub title: String,
    pub message: String,
}

impl Popup {
    pub fn new(title: &str, message: impl Into<String>) -> Self {
        Popup {
            title: title.to_string(),
            message: message.into(),
        }
    }
}

/// What a screen asks of the app after handling an action or a job's
/// message: screens change only their own state and the session, and say
/// here what else should happen.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Out {
    /// A line for the status bar.
    pub notice: Option<String>,
    /// A failure to show over the screen.
    pub popup: Option<Popup>,
    /// Show this screen.
    pub show: Option<Screen>,
    /// Show this source row on the Data screen.
    pub jump: Option<usize>,
    /// Load this compare entry's algorithm and parameters on the
    /// Anonymize screen (Enter on the Compare screen).
    pub load: Option<anonlab::data::CompareEntry>,
}

impl Out {
    pub fn notice(&mut self, n: impl Into<String>) {
        self.notice = Some(n.into());
    }
    pub fn popup(&mut self, title: &str, message: impl Into<String>) {
        self.popup = Some(Popup::new(title, message));
    }
}

/// Pr(re-id) thresholds offered by `+` / `-`.
pub const THRESHOLDS: [f64; 9] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 1.0 / 3.0, 0.5, 1.0];

/// Largest l (and p) offered: more than any attribute's distinct values in
/// practice, and the algorithms say when l is too large for the data.
pub const MAX_L: u32 = 100;

/// Where the project is saved when the command line named no file.
pub const DEFAULT_PROJECT_FILE: &str = "anonlab-project.json";

/// The rows of a window of `page` rows starting at `top`, clipped to the
/// table. O(1): the table is never scanned.
pub fn visible_window(n_rows: usize, top: usize, page: usize) -> Range<usize> {
    let start = top.min(n_rows);
    start..(start + page).min(n_rows)
}

/// The first row of a window of `page` rows over `n` rows that keeps
/// `cursor` in view, moving `top` as little as possible: the scrolling of
/// every table that follows a cursor.
pub fn follow(top: usize, cursor: usize, page: usize, n: usize) -> usize {
    let page = page.max(1);
    let top = if cursor < top {
        cursor
    } else if cursor >= top + page {
        cursor + 1 - page
    } else {
        top
    };
    top.min(n.saturating_sub(page))
}

/// An empirical CDF's points as a line that steps up at each point and
/// runs from 0 to 1 on the x axis: how the screens draw a distribution.
pub fn step_series(points: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, 0.0)];
    let mut share = 0.0;
    for (p, s) in points {
        out.push((p, share));
        out.push((p, s));
        share = s;
    }
    out.push((1.0, share));
    out
}

/// Cells a text takes on the terminal.
pub fn text_width(s: &str) -> u16 {
    ratatui::text::Span::raw(s).width().min(u16::MAX as usize) as u16
}

/// Prefix of a sensitive cell's text, so the mark survives a terminal
/// without colours (and shows in text snapshots).
pub const SENSITIVE_MARK: &str = "◆";

/// " seed N" (with `sep` between the word and N) when the algorithm
/// `id` draws random numbers, else nothing: a seed shown beside an
/// algorithm that reads none would claim it reproduces something it does
/// not change (issue 32, item 5).
pub fn seed_label(id: &str, sep: char, seed: u64) -> String {
    let reads_seed = anonlab::algorithms::by_id(id).map_or(true, |a| a.needs().seed);
    if reads_seed {
        format!(" seed{sep}{seed}")
    } else {
        String::new()
    }
}

/// What a background open read: the session of a data file, or of a
/// project (with its grouped file when it opens through the query
/// engine's table, and the warning of a data file changed since it was
/// saved). The app is built from it on the UI thread, which reads nothing.
pub struct Loaded {
    pub(crate) session: anonlab::session::Session,
    pub(crate) grouped: Option<anonlab::session::GroupedFile>,
    /// `Some` for a project: the app saves back to it.
    pub(crate) project: Option<std::path::PathBuf>,
    pub(crate) changed: Option<String>,
}

impl std::fmt::Debug for Loaded {
    // A session is large; what was opened is what a reader wants.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded")
            .field("label", &self.session.label())
            .field("project", &self.project)
            .finish()
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
