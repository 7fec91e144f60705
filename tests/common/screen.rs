//! Drawing the TUI into ratatui's `TestBackend` and reading the result, for
//! the screen tests.

use anonlab_tui::{self as tui, Action, App, JobState, Screen};
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
        if i > 0 && (s.len() - i).is_multiple_of(3) {
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

/// The embedded demo at a terminal size.
pub fn demo(width: u16, height: u16) -> App {
    let mut app = App::new(anonlab::session::Session::demo().unwrap()).unwrap();
    app.step(&Action::Resize(width, height));
    app
}

/// Apply the actions in order.
pub fn steps(app: &mut App, actions: &[Action]) {
    for a in actions {
        app.step(a);
    }
}

/// Replace what follows `label` up to the panel's border with `#`, so a
/// figure that varies between runs (a time) does not break a snapshot.
pub fn mask(text: &str, label: &str) -> String {
    text.lines()
        .map(|l| match l.find(label) {
            Some(at) => {
                let start = at + label.len();
                let end = l[start..].find('│').map_or(l.len(), |e| start + e);
                let hashes = "#".repeat(l[start..end].chars().count());
                format!("{}{hashes}{}", &l[..start], &l[end..])
            }
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The screen with times masked, and the query error too: its workload is
/// drawn by the metrics module, whose figures have golden tests of their
/// own.
pub fn masked_text(app: &App) -> String {
    mask(&mask(&text(&render(app)), "time "), "query error ")
}

/// Type `line` into the open text field (command line, search) and press
/// Enter.
pub fn type_line(app: &mut App, line: &str) {
    for c in line.chars() {
        app.step(&Action::TypeChar(c));
    }
    app.step(&Action::Confirm);
}

/// Type `line` into the `:` command line and run it.
pub fn command(app: &mut App, line: &str) {
    app.step(&Action::OpenCommandLine);
    type_line(app, line);
}

/// The Compare table's time column (`ms`) masked: it varies from run to
/// run. The column is found by its header, in the line that also names
/// the algorithm column.
pub fn mask_time_column(t: &str) -> String {
    let Some(header) = t
        .lines()
        .find(|l| l.contains(" ms") && l.contains("algorithm"))
    else {
        return t.to_string();
    };
    let end = header.find(" ms").unwrap() + 3;
    let end = header[..end].chars().count();
    let start = end - 9;
    t.lines()
        .map(|l| {
            let chars: Vec<char> = l.chars().collect();
            let is_row = chars
                .get(start..end.min(chars.len()))
                .is_some_and(|s| s.iter().any(char::is_ascii_digit));
            if !is_row {
                return l.to_string();
            }
            chars
                .iter()
                .enumerate()
                .map(|(x, &c)| if (start..end).contains(&x) { '#' } else { c })
                .collect()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A default hierarchy for each quasi-identifier of the demo (full-domain
/// reads them): built on the Hierarchies screen (`b`, Enter).
pub fn build_hierarchies(app: &mut App) {
    app.step(&Action::ShowScreen(Screen::Hierarchies));
    for name in ["sex", "age", "zip"] {
        app.step(&Action::Left);
        app.step(&Action::First);
        let target = app.dataset().column_index(name).unwrap();
        for _ in 0..target {
            app.step(&Action::Down);
        }
        app.step(&Action::BuildHierarchy);
        app.step(&Action::Confirm);
        assert!(app.session().hierarchies().contains_key(name), "{name}");
    }
}
