//! Drawing. Every function here takes `&App` and only reads it (STYLE.md,
//! habit 5): what is expensive to compute was derived when the state
//! changed. The layout functions are shared with the app, which needs the
//! table's size to scroll, so the two cannot disagree.

mod anonymize;
mod compare;
mod data;
mod hierarchies;
mod mark;
mod record;
mod risk;
mod sweep;
pub mod widgets;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Cell, Clear, Paragraph, Row, Table, Tabs, Wrap};
use ratatui::Frame;

use super::app::{App, JobState, Screen};
use super::keymap::HelpLine;
use crate::data::Role;
use widgets::{centered, dim, thousands};

/// The three horizontal bands of every screen.
struct Bands {
    tabs: Rect,
    body: Rect,
    status: Rect,
}

fn bands(area: Rect) -> Bands {
    let [tabs, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    Bands { tabs, body, status }
}

/// Where the Data screen draws its data rows (inside the border, below the
/// header), for a terminal of `area`.
pub fn data_table_viewport(area: Rect) -> Rect {
    data::viewport(data::split(bands(area).body).0)
}

/// Where the Anonymize screen draws the published table's rows, for a
/// terminal of `area`.
pub fn anonymize_table_viewport(area: Rect) -> Rect {
    anonymize::table_viewport(bands(area).body)
}

/// Draw the whole app.
pub fn draw(frame: &mut Frame, app: &App) {
    let b = bands(frame.area());
    draw_tabs(frame, b.tabs, app);
    match app.screen() {
        Screen::Data => data::draw(frame, b.body, app),
        Screen::Risk => risk::draw(frame, b.body, app),
        Screen::Anonymize => anonymize::draw(frame, b.body, app),
        Screen::Hierarchies => hierarchies::draw(frame, b.body, app),
        Screen::Compare => compare::draw(frame, b.body, app),
    }
    draw_status(frame, b.status, app);
    if app.help_visible() {
        draw_help(frame, b.body, app);
    }
    if let Some(d) = app.mark_dialog() {
        mark::draw(frame, b.body, app, d);
    }
    if let Some(p) = app.popup() {
        draw_popup(frame, b.body, &p.title, &p.message);
    }
}

fn draw_tabs(frame: &mut Frame, area: Rect, app: &App) {
    let titles = Screen::ALL
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{} {}", i + 1, s.title()));
    let tabs = Tabs::new(titles)
        .select(app.screen().index())
        .style(dim())
        .highlight_style(
            Style::new()
                .fg(Color::White)
                .add_modifier(Modifier::BOLD | Modifier::REVERSED),
        )
        .divider(" ");
    let [left, right] = Layout::horizontal([Constraint::Min(0), Constraint::Length(8)]).areas(area);
    frame.render_widget(tabs, left);
    frame.render_widget(Line::from("anonlab ").right_aligned().style(dim()), right);
}

const SPINNER: [&str; 4] = ["|", "/", "-", "\\"];

/// How the status bar shows a job: "risk: ready", a spinner while running.
fn job_span(name: &str, job: &JobState, spinner: usize) -> Span<'static> {
    match job {
        JobState::Idle => Span::styled(format!("{name}: idle"), dim()),
        JobState::Running { fraction, .. } => Span::styled(
            format!(
                "{name}: {} {:.0}%",
                SPINNER[spinner % SPINNER.len()],
                fraction * 100.0
            ),
            Style::new().fg(Color::Yellow),
        ),
        JobState::Done => Span::styled(format!("{name}: ready"), Style::new().fg(Color::Green)),
        JobState::Cancelled => {
            Span::styled(format!("{name}: cancelled"), Style::new().fg(Color::Yellow))
        }
        JobState::Failed => Span::styled(format!("{name}: failed"), Style::new().fg(Color::Red)),
    }
}

/// The status bar: what is loaded, how many quasi-identifiers, what the
/// worker is doing (on the Anonymize screen: the algorithm and its
/// parameters, and the anonymization), the seed when one is in play, and a
/// notice.
fn draw_status(frame: &mut Frame, area: Rect, app: &App) {
    let ds = app.dataset();
    let sep = || Span::styled(" │ ", dim());
    let qis = app.roles().with(Role::QuasiIdentifier).len();
    let semi = app.roles().with(Role::SemiSensitive).len();
    let mut spans = vec![
        Span::styled(
            format!(" {}", app.label()),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        sep(),
        Span::raw(format!("{} rows", thousands(ds.n_rows() as u64))),
        sep(),
        Span::raw(format!("{} cols", ds.n_cols())),
        sep(),
        Span::styled(
            format!("{qis} QI"),
            widgets::role_style(Role::QuasiIdentifier),
        ),
    ];
    if semi > 0 {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            format!("{semi} SS"),
            widgets::role_style(Role::SemiSensitive),
        ));
    }
    spans.push(sep());
    if app.screen() == Screen::Anonymize {
        let i = app.anonymize_inputs();
        // pk algorithms read p where the others read l.
        let l = match (i.l, i.pk) {
            (_, Some(pk)) => format!("p={}", pk.p),
            (Some(l), None) => format!("l={l}"),
            (None, None) => "l=-".to_string(),
        };
        spans.push(Span::styled(
            format!("{} k={} {l} seed={}", i.algorithm, i.k, i.seed),
            Style::new().add_modifier(Modifier::BOLD),
        ));
        spans.push(sep());
        spans.push(job_span("anonymize", &app.anonymize().job, app.spinner()));
    } else if app.screen() == Screen::Hierarchies {
        let job = &app.hierarchies().matrix.job;
        spans.push(job_span("correlation", job, app.spinner()));
    } else {
        spans.push(job_span("risk", app.job(), app.spinner()));
    }
    if let Some(seed) = app.seed() {
        spans.push(sep());
        spans.push(Span::raw(format!("seed {seed}")));
    }
    if let Some(n) = app.notice() {
        spans.push(sep());
        spans.push(Span::styled(n.to_string(), Style::new().fg(Color::Yellow)));
    }
    let help = Line::from(vec![Span::styled("? help  q quit ", dim())]).right_aligned();
    let [left, right] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(help.width() as u16)])
            .areas(area);
    frame.render_widget(Line::from(spans), left);
    frame.render_widget(help, right);
}

/// The help overlay: the focused screen's bindings, then the global ones,
/// straight from the keymap.
fn draw_help(frame: &mut Frame, area: Rect, app: &App) {
    let lines = app.keymap().help(app.screen());
    let key_width = lines
        .iter()
        .map(|l| Span::raw(&l.keys).width())
        .max()
        .unwrap_or(0) as u16;
    let text_width = lines.iter().map(|l| l.help.len()).max().unwrap_or(0) as u16;
    // Too many lines for the terminal's height: two columns of bindings.
    let fit = usize::from(area.height.saturating_sub(2)).max(1);
    let halves = if lines.len() > fit { 2 } else { 1 };
    let per_column = lines.len().div_ceil(halves);
    fn cells(l: Option<&HelpLine>) -> [Cell<'_>; 2] {
        let (keys, help) = l.map_or(("", ""), |l| (l.keys.as_str(), l.help));
        [
            Cell::new(keys).style(Style::new().fg(Color::Cyan)),
            Cell::new(help),
        ]
    }
    let rows = (0..per_column)
        .map(|i| Row::new((0..halves).flat_map(|h| cells(lines.get(h * per_column + i)))));
    let widths = (0..halves).flat_map(|_| {
        [
            Constraint::Length(key_width),
            Constraint::Length(text_width),
        ]
    });
    let title = format!(" Keys: {} screen (Esc closes) ", app.screen().title());
    let width = halves as u16 * (key_width + text_width + 4) + 1;
    let popup = centered(area, width, per_column as u16 + 2);
    let table = Table::new(rows, widths).column_spacing(2).block(
        Block::bordered()
            .border_type(BorderType::Rounded)
            .title(title),
    );
    frame.render_widget(Clear, popup);
    frame.render_widget(table, popup);
}

fn draw_popup(frame: &mut Frame, area: Rect, title: &str, message: &str) {
    let width = (message.len() as u16 + 4).clamp(30, area.width.saturating_sub(4).max(30));
    let inner_width = width.saturating_sub(2).max(1);
    let height = (message.len() as u16).div_ceil(inner_width) + 4;
    let popup = centered(area, width, height);
    let text = vec![
        Line::from(message.to_string()),
        Line::from(""),
        Line::from(Span::styled("Esc closes", dim())),
    ];
    let p = Paragraph::new(text).wrap(Wrap { trim: true }).block(
        Block::bordered()
            .border_type(BorderType::Rounded)
            .border_style(Style::new().fg(Color::Red))
            .title(format!(" {title} ")),
    );
    frame.render_widget(Clear, popup);
    frame.render_widget(p, popup);
}
