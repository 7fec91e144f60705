//! Drawing the frame: the tabs, the screen in view (each screen draws
//! itself, `Component::draw`), the status bar and the modals over it
//! (help, popups, the picker, the unsaved-changes question). Every
//! function here takes `&App` and only reads it (STYLE.md, habit 5): what
//! is expensive to compute was derived when the state changed. Where
//! each panel goes is `tui::layout`'s, shared with the app (which needs a
//! table's height to scroll and a row's place for clicks), so the two
//! cannot disagree.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Cell, Gauge, Paragraph, Row, Table, Tabs, Wrap};
use ratatui::Frame;

use super::app::App;

use super::keymap::HelpLine;
use super::layout::{self, bands, tab_title};
use super::shared::{text_width, JobState, Screen};
use super::widgets::{self, centered, dim, thousands};
use anonlab::data::Role;

/// Draw the whole app, then recolour it for the app's theme.
pub fn draw(frame: &mut Frame, app: &App) {
    draw_screens(frame, app);
    app.theme().apply(frame.buffer_mut());
}

fn draw_screens(frame: &mut Frame, app: &App) {
    let b = bands(frame.area());
    draw_tabs(frame, b.tabs, app);
    app.in_view_ref().draw(frame, b.body, &app.view());
    draw_status(frame, b.status, app);
    if app.help_visible() {
        draw_help(frame, b.body, app);
    }
    if let Some(p) = app.popup() {
        draw_popup(frame, b.body, &p.title, &p.message);
    }
    if let Some(p) = app.picker() {
        draw_picker(frame, b.body, p);
    }
    if app.confirm().is_some() {
        draw_confirm(frame, b.body, app);
    }
}
/// The `:open` picker: the filter typed so far, the recent files, then the
/// project folder's files, the selected one reversed.
fn draw_picker(frame: &mut Frame, area: Rect, picker: &super::picker::FilePicker) {
    use super::picker::Origin;
    let width = area.width.saturating_sub(4).min(100);
    let height = area.height.saturating_sub(2).min(24);
    let popup = centered(area, width, height);
    let shown = picker.shown();
    let mut lines = vec![
        Line::from(vec![
            Span::styled("open: ", dim()),
            Span::raw(picker.filter.clone()),
            Span::styled("▏", dim()),
        ]),
        Line::from(Span::styled(
            "type to filter · ↑↓ select · Enter opens · Esc closes",
            dim(),
        )),
    ];
    let room = usize::from(height.saturating_sub(4));
    let start = picker.cursor.saturating_sub(room.saturating_sub(1));
    let mut last = None;
    for (i, (path, origin)) in shown.iter().enumerate().skip(start).take(room) {
        if last != Some(*origin) && lines.len() < room + 1 {
            // A section title where the origin changes.
            lines.push(Line::from(Span::styled(
                match origin {
                    Origin::Recent => "recent files".to_string(),
                    Origin::Folder => format!("in {}", picker.folder.display()),
                },
                Style::new().fg(Color::Cyan),
            )));
            last = Some(*origin);
        }
        let text = match origin {
            Origin::Recent => path.display().to_string(),
            Origin::Folder => path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
        };
        let style = if i == picker.cursor {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new()
        };
        lines.push(Line::from(Span::styled(format!("  {text}"), style)));
    }
    if shown.is_empty() {
        lines.push(Line::from(Span::styled(
            "no file matches (recent files, and .csv / .json files of the project's folder)",
            dim(),
        )));
    }
    let p = Paragraph::new(lines).block(
        Block::bordered()
            .border_type(BorderType::Rounded)
            .title(" Open a file "),
    );
    widgets::clear_under_popup(frame, popup);
    frame.render_widget(p, popup);
}

/// The question before quitting (or opening another file) with unsaved
/// changes: what changed since the project was saved, and the answers.
fn draw_confirm(frame: &mut Frame, area: Rect, app: &App) {
    let key = |k: &str| Span::styled(format!("{k:<11}"), Style::new().fg(Color::Cyan));
    let file = app.project_path();
    let file = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let then = match app.confirm() {
        Some(super::Confirm::Open(_)) => "open the file",
        _ => "quit",
    };
    let mut text = vec![Line::from(format!("Changes not saved to {file}:"))];
    let changes = app.unsaved_changes().unwrap_or_default();
    text.extend(
        changes
            .split("; ")
            .map(|l| Line::from(Span::styled(format!("  {l}"), dim()))),
    );
    text.extend([
        Line::from(""),
        Line::from(vec![
            key("w Enter"),
            Span::raw(format!("save {file}, then {then}")),
        ]),
        Line::from(vec![key("d"), Span::raw(format!("{then} without saving"))]),
        Line::from(vec![key("Esc"), Span::raw("back to work")]),
    ]);
    let width = (text.iter().map(Line::width).max().unwrap_or(0) as u16 + 4).min(area.width);
    // Long change lines wrap: the height counts their rows.
    let inner = usize::from(width.saturating_sub(2)).max(1);
    let rows: usize = text.iter().map(|l| l.width().max(1).div_ceil(inner)).sum();
    let popup = centered(area, width, rows as u16 + 2);
    let p = Paragraph::new(text).wrap(Wrap { trim: false }).block(
        Block::bordered()
            .border_type(BorderType::Rounded)
            .border_style(Style::new().fg(Color::Yellow))
            .title(" Unsaved changes "),
    );
    widgets::clear_under_popup(frame, popup);
    frame.render_widget(p, popup);
}

fn draw_tabs(frame: &mut Frame, area: Rect, app: &App) {
    let titles = Screen::ALL
        .iter()
        .enumerate()
        .map(|(i, s)| tab_title(i, *s));
    let tabs = Tabs::new(titles)
        .select(app.screen().index())
        .style(dim())
        .highlight_style(
            Style::new()
                .fg(Color::White)
                .add_modifier(Modifier::BOLD | Modifier::REVERSED),
        )
        .divider(" ");
    // The program's name only where the tabs leave room for it: on a
    // narrow terminal it would cut the last tab ("5 Canonlab").
    let label = Line::from("anonlab ").right_aligned().style(dim());
    let room = area.width.saturating_sub(layout::tabs_width());
    if room >= label.width() as u16 {
        let [left, right] =
            Layout::horizontal([Constraint::Min(0), Constraint::Length(8)]).areas(area);
        frame.render_widget(tabs, left);
        frame.render_widget(label, right);
    } else {
        frame.render_widget(tabs, area);
    }
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

/// One part of the status bar; parts with a larger `drop` go first when
/// the terminal is too narrow.
struct Part {
    drop: u8,
    spans: Vec<Span<'static>>,
    /// A job drawn as a gauge over the part's cells: (ratio, label).
    gauge: Option<(f64, String)>,
}

impl Part {
    fn new(drop: u8, spans: Vec<Span<'static>>) -> Self {
        Part {
            drop,
            spans,
            gauge: None,
        }
    }
    fn width(&self) -> usize {
        self.spans.iter().map(Span::width).sum()
    }
}

/// Cells a job's gauge takes in the status bar.
const GAUGE_WIDTH: usize = 22;

/// The parts of the status bar, most important first in `drop` order:
/// the file, a notice, the screen's job, the density seed, the
/// parameters of the algorithms, other running jobs, the table's size.
fn status_parts(app: &App) -> Vec<Part> {
    let ds = app.dataset();
    let mut parts = vec![Part::new(
        0,
        vec![Span::styled(
            app.label().to_string(),
            Style::new().add_modifier(Modifier::BOLD),
        )],
    )];
    let qis = app.roles().with(Role::QuasiIdentifier).len();
    let semi = app.roles().with(Role::SemiSensitive).len();
    let mut size = vec![
        Span::raw(if ds.is_grouped() {
            format!(
                "{} records in {} combinations · ",
                thousands(ds.records()),
                thousands(ds.n_rows() as u64)
            )
        } else {
            format!(
                "{} rows · {} cols · ",
                thousands(ds.n_rows() as u64),
                ds.n_cols()
            )
        }),
        Span::styled(
            format!("{qis} QI"),
            widgets::role_style(Role::QuasiIdentifier),
        ),
    ];
    if semi > 0 {
        size.push(Span::raw(" "));
        size.push(Span::styled(
            format!("{semi} SS"),
            widgets::role_style(Role::SemiSensitive),
        ));
    }
    parts.push(Part::new(6, size));
    let i = app.anonymize_inputs();
    // pk algorithms read p where the others read l.
    let l = match (i.l, i.p) {
        (_, Some(p)) => format!(" p={p}"),
        (Some(l), None) => format!(" l={l}"),
        (None, None) => " l=-".to_string(),
    };
    parts.push(Part::new(
        4,
        vec![Span::styled(
            format!(
                "{} k={}{l}{}",
                i.algorithm,
                i.k,
                super::shared::seed_label(i.algorithm, '=', i.seed)
            ),
            Style::new().add_modifier(Modifier::BOLD),
        )],
    ));
    // The screen's own job first; the Data screen's figures come from the
    // risk simulation. Other slots show only while they run.
    let jobs = app.job_lines();
    let own = app.in_view_ref().status_jobs();
    // The screen's first job is always shown; its other jobs (queries
    // after an anonymization) and other screens' jobs only while they run.
    let mut own_shown = false;
    for j in &jobs {
        let first_own = j.screen == own && !own_shown;
        own_shown |= j.screen == own;
        if !first_own && !j.state.is_running() {
            continue;
        }
        let mine = j.screen == own;
        let mut part = Part::new(
            if mine { 2 } else { 5 },
            vec![job_span(j.name, &j.state, app.spinner())],
        );
        if let JobState::Running { fraction, .. } = j.state {
            if app.job_clock().long_running(j.name) {
                let label = format!("{} {:.0}%", j.name, fraction * 100.0);
                part.spans = vec![Span::raw(" ".repeat(GAUGE_WIDTH))];
                part.gauge = Some((fraction.clamp(0.0, 1.0), label));
            }
        }
        parts.push(part);
    }
    if let Some(seed) = app.seed() {
        parts.push(Part::new(
            3,
            vec![Span::raw(format!("density seed {seed}"))],
        ));
    }
    if let Some(o) = app.opening() {
        parts.push(Part::new(
            1,
            vec![Span::styled(o, Style::new().fg(Color::Cyan))],
        ));
    }
    if let Some(n) = app.notice() {
        parts.push(Part::new(
            1,
            vec![Span::styled(n.to_string(), Style::new().fg(Color::Yellow))],
        ));
    }
    parts
}

/// Drop the least important parts until the rest fit in `width` cells
/// with their separators. The file and a notice are never dropped: the
/// notice is cut to the room left, and the file by the terminal's edge if
/// it alone is too wide.
fn fit_parts(mut parts: Vec<Part>, width: usize) -> Vec<Part> {
    let total = |ps: &[Part]| {
        ps.iter().map(Part::width).sum::<usize>() + 3 * ps.len().saturating_sub(1) + 1
    };
    while total(&parts) > width {
        let worst = parts
            .iter()
            .enumerate()
            .filter(|(_, p)| p.drop > 1)
            .max_by_key(|(i, p)| (p.drop, *i))
            .map(|(i, _)| i);
        match worst {
            Some(i) => {
                parts.remove(i);
            }
            None => break,
        }
    }
    let over = total(&parts).saturating_sub(width);
    if over > 0 {
        if let Some(notice) = parts.iter_mut().find(|p| p.drop == 1) {
            let keep = notice.width().saturating_sub(over);
            let style = notice.spans.first().map(|s| s.style).unwrap_or_default();
            let text: String = notice.spans.iter().map(|s| s.content.as_ref()).collect();
            notice.spans = vec![Span::styled(cut_notice(&text, keep), style)];
        }
    }
    parts
}

/// A notice in `width` cells. A path after its label ("written: PATH")
/// is cut at its start, so the end of the path, where the file's name
/// is, stays ("written: …/dir/file.svg", not "written: anonlab-expor…");
/// any other notice is cut at its end.
fn cut_notice(text: &str, width: usize) -> String {
    match text.split_once(": ") {
        Some((label, rest)) if rest.contains(['/', '\\']) && label.len() + 2 + 8 <= width => {
            let head = format!("{label}: ");
            let room = width - usize::from(text_width(&head));
            format!("{head}{}", widgets::cut_start(rest, room))
        }
        _ => widgets::cut(text, width),
    }
}

/// The status bar: the file, the algorithms' parameters and seed, the
/// density seed when cells were drawn at random, the screen's job and any
/// other running job (a gauge once it has run for
/// [`super::jobs::GAUGE_AFTER`]), a notice, and the keys to help and the command
/// line. On a narrow terminal the least important parts are left out.
/// While the command line or a search is edited, the row holds it.
fn draw_status(frame: &mut Frame, area: Rect, app: &App) {
    if let Some((prompt, text, cursor)) = app.editing_line() {
        // The text around the cursor, the cursor drawn as a reversed cell.
        let at = text
            .char_indices()
            .nth(cursor)
            .map_or(text.len(), |(i, _)| i);
        let (before, rest) = text.split_at(at);
        let mut chars = rest.chars();
        let under = chars.next().map_or(" ".to_string(), |c| c.to_string());
        let line = Line::from(vec![
            Span::styled(prompt, Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(before.to_string()),
            Span::styled(under, widgets::cursor_style()),
            Span::raw(chars.as_str().to_string()),
        ]);
        // Tab's matches, when it found several, right of the line.
        let room = usize::from(area.width).saturating_sub(line.width() + 2);
        let matches = app
            .notice()
            .filter(|_| room > 8)
            .map(|n| Line::from(Span::styled(widgets::cut(n, room), dim())).right_aligned());
        frame.render_widget(line, area);
        if let Some(m) = matches {
            frame.render_widget(m, area);
        }
        return;
    }
    let help = Line::from(vec![Span::styled(" ? help  : cmd ", dim())]).right_aligned();
    let width = usize::from(area.width);
    // The keys hint goes before the file does.
    let hint = help.width();
    let room = if width >= hint + 20 {
        width - hint
    } else {
        width
    };
    let parts = fit_parts(status_parts(app), room);
    let mut spans = vec![Span::raw(" ")];
    let mut gauges = Vec::new();
    let mut x = 1usize;
    for (i, p) in parts.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" │ ", dim()));
            x += 3;
        }
        if let Some(g) = p.gauge.clone() {
            gauges.push((x, p.width(), g));
        }
        x += p.width();
        spans.extend(p.spans);
    }
    let [left, right] = if room < width {
        Layout::horizontal([Constraint::Min(0), Constraint::Length(hint as u16)]).areas(area)
    } else {
        [area, Rect::new(area.right(), area.y, 0, 1)]
    };
    frame.render_widget(Line::from(spans), left);
    for (x, w, (ratio, label)) in gauges {
        let r = Rect::new(left.x + x as u16, left.y, w as u16, 1).intersection(left);
        frame.render_widget(
            Gauge::default()
                .ratio(ratio)
                .label(label)
                .gauge_style(Style::new().fg(Color::Yellow).bg(Color::DarkGray)),
            r,
        );
    }
    frame.render_widget(help, right);
}

/// The help overlay, on one of its two pages: the focused panel's
/// bindings, then the screen's, then the global ones; or every `:`
/// command with its arguments. Each section under a title.
fn draw_help(frame: &mut Frame, area: Rect, app: &App) {
    let sections = app.help_sections();
    // A section title is a line with no help text; it is drawn in the
    // help column, over the lines it names.
    let lines: Vec<HelpLine> = sections
        .iter()
        .flat_map(|(title, lines)| {
            std::iter::once(HelpLine {
                keys: title.clone(),
                help: "",
            })
            .chain(lines.iter().cloned())
        })
        .collect();
    let lines = wrap_help(lines, usize::from(area.width));
    // Too many lines for the terminal's height: two columns of bindings,
    // when two fit its width; still too many, the lines scroll (the title
    // says so) rather than being cut.
    let fit = usize::from(area.height.saturating_sub(2)).max(1);
    let two_fit = {
        let half = lines.len().div_ceil(2);
        let w = |h: usize| {
            let part = lines.iter().skip(h * half).take(half);
            part.map(|l| Span::raw(&l.keys).width() + Span::raw(l.help).width() + 4)
                .max()
                .unwrap_or(0)
        };
        w(0) + w(1) < usize::from(area.width)
    };
    let halves = if lines.len() > fit && two_fit { 2 } else { 1 };
    let all = lines.len().div_ceil(halves);
    let rows_shown = all.min(fit);
    let scroll = app.help_scroll().min(all - rows_shown);
    let per_column = all;
    let column_widths = |h: usize| {
        let part = lines.iter().skip(h * per_column).take(per_column);
        let keys = keys_width(part.clone());
        let help = part
            .map(|l| {
                if l.help.is_empty() {
                    Span::raw(&l.keys).width()
                } else {
                    Span::raw(l.help).width()
                }
            })
            .max()
            .unwrap_or(0);
        (keys as u16, help as u16)
    };
    let sizes: Vec<(u16, u16)> = (0..halves).map(column_widths).collect();
    fn cells(l: Option<&HelpLine>) -> [Cell<'_>; 2] {
        match l {
            None => [Cell::new(""), Cell::new("")],
            Some(l) if l.help.is_empty() => [
                Cell::new(""),
                Cell::new(l.keys.as_str()).style(Style::new().add_modifier(Modifier::BOLD)),
            ],
            Some(l) => [
                Cell::new(l.keys.as_str()).style(Style::new().fg(Color::Cyan)),
                Cell::new(l.help),
            ],
        }
    }
    let rows = (scroll..scroll + rows_shown)
        .map(|i| Row::new((0..halves).flat_map(|h| cells(lines.get(h * per_column + i)))));
    let widths = sizes
        .iter()
        .flat_map(|&(k, t)| [Constraint::Length(k), Constraint::Length(t)]);
    let width = sizes.iter().map(|&(k, t)| k + t + 4).sum::<u16>() + 1;
    let (page, other) = match app.help_page() {
        super::HelpPage::Keys => (format!("Keys: {}", app.screen().title()), "→ commands"),
        super::HelpPage::Commands => ("Commands".to_string(), "← keys"),
    };
    let mut title = match app.help_page() {
        super::HelpPage::Keys => format!(" {page} screen ({other}; Esc closes) "),
        super::HelpPage::Commands => format!(" {page} ({other}; Esc closes) "),
    };
    if rows_shown < all {
        let below = all - rows_shown - scroll;
        title = format!(
            " {page} (↑↓ {}–{} of {}; {below} below; {other}) ",
            scroll + 1,
            scroll + rows_shown,
            all
        );
    }
    let popup = centered(area, width, rows_shown as u16 + 2);
    let table = Table::new(rows, widths).column_spacing(2).block(
        Block::bordered()
            .border_type(BorderType::Rounded)
            .title(title),
    );
    widgets::clear_under_popup(frame, popup);
    frame.render_widget(table, popup);
}

/// The width of the keys column: the widest keys of the lines that are
/// not section titles (a title is drawn in the help column).
fn keys_width<'a>(lines: impl Iterator<Item = &'a HelpLine>) -> usize {
    lines
        .filter(|l| !l.help.is_empty())
        .map(|l| Span::raw(&l.keys).width())
        .max()
        .unwrap_or(0)
}

/// Help lines too wide for a terminal `width` cells wide, their help text
/// wrapped at spaces onto lines of their own under it (no keys), so a long
/// explanation is read whole rather than cut at the border.
fn wrap_help(lines: Vec<HelpLine>, width: usize) -> Vec<HelpLine> {
    let keys = keys_width(lines.iter());
    // The popup's two borders, the column spacing of two and one cell
    // to spare, as `draw_help` sizes it.
    let room = width.saturating_sub(keys + 5).max(20);
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        // A section title is drawn in the help column too: its words go
        // onto as many title lines as they need.
        if line.help.is_empty() {
            let mut title = String::new();
            for word in line.keys.split(' ') {
                if !title.is_empty() && Span::raw(&title).width() + 1 + word.len() > room {
                    out.push(HelpLine {
                        keys: std::mem::take(&mut title),
                        help: "",
                    });
                }
                if !title.is_empty() {
                    title.push(' ');
                }
                title.push_str(word);
            }
            out.push(HelpLine {
                keys: title,
                help: "",
            });
            continue;
        }
        let mut rest = line.help;
        let mut keys = line.keys;
        while Span::raw(rest).width() > room {
            let cut = rest
                .char_indices()
                .take_while(|&(i, _)| Span::raw(&rest[..i]).width() <= room)
                .filter(|&(_, c)| c == ' ')
                .last()
                .map_or(room.min(rest.len()), |(i, _)| i);
            let cut = (1..=cut)
                .rev()
                .find(|&i| rest.is_char_boundary(i))
                .unwrap_or(rest.len());
            out.push(HelpLine {
                keys: std::mem::take(&mut keys),
                help: &rest[..cut],
            });
            rest = rest[cut..].trim_start();
        }
        // A help text that ended at a space is not a section title.
        if !(rest.is_empty() && keys.is_empty()) {
            out.push(HelpLine { keys, help: rest });
        }
    }
    out
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
    widgets::clear_under_popup(frame, popup);
    frame.render_widget(p, popup);
}

#[cfg(test)]
mod tests {
    use super::cut_notice;

    /// "written: anonlab-expor…" (issue 32, item 4): the file's name is at
    /// the path's end, so that end is what a short status bar keeps.
    #[test]
    fn a_written_path_keeps_its_end() {
        let notice = "written: anonlab-export/charts/risk-breach-cdf.svg";
        assert_eq!(
            cut_notice(notice, 36),
            "written: …charts/risk-breach-cdf.svg"
        );
        assert_eq!(cut_notice(notice, 80), notice);
        assert_eq!(cut_notice("k must be at least 2", 10), "k must be…");
    }
}
