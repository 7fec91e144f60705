//! Drawing the TUI into ratatui's `TestBackend` and reading the result, for
//! the screen tests.

use anonlab::tui::{self, Action, App, JobState, Screen};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::Terminal;

/// The app drawn once at its current size.
pub fn render(app: &App) -> Buffer {
    let (w, h) = app.size();
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| tui::draw(f, app)).unwrap();
    terminal.backend().buffer().clone()
}

/// The buffer's text, one line per row, trailing spaces cut.
pub fn text(buf: &Buffer) -> String {
    let area = buf.area;
    (0..area.height)
        .map(|y| {
            let line: String = (0..area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect();
            line.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Digits grouped by commas, as the screens show counts.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `app` on the Anonymize screen with `algorithm` chosen, cycling through
/// the list at most once (the test fails when it is not offered).
pub fn choose_algorithm(app: &mut App, algorithm: &str) {
    app.step(&Action::ShowScreen(Screen::Anonymize));
    for _ in 0..app.anonymize().algorithms.len() {
        if app.anonymize().choice().id == algorithm {
            break;
        }
        app.step(&Action::CycleAlgorithm(1));
    }
    assert_eq!(app.anonymize().choice().id, algorithm);
}

/// Every pending job run; the test fails unless the anonymization finished.
pub fn run_to_done(app: &mut App) {
    app.run_pending_jobs_blocking();
    assert_eq!(
        app.anonymize().job,
        JobState::Done,
        "{:?}",
        app.anonymize().error
    );
}
