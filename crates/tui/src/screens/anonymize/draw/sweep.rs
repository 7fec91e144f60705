//! The k/l sweep view of the Anonymize screen: the grid of (k, l) points,
//! each cell coloured by the chosen measure and showing its value (so the
//! grid reads in monochrome too), the focused point's figures or why the
//! algorithm refused it, and the sweep's progress.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Gauge, Paragraph, Row, Table, Wrap};
use ratatui::Frame;

use crate::screens::anonymize::AnonymizeScreen;
use crate::screens::sweep::{CellFigures, SweepCell, SweepMetric, SweepState};
use crate::screens::Drawn;
use crate::shared::JobState;
use crate::widgets::{dim, thousands, title_style};

/// Width of the grid's first column ("k = 100").
const K_WIDTH: u16 = 8;
/// Narrowest cell.
const MIN_CELL: u16 = 7;

pub(super) fn draw(frame: &mut Frame, area: Rect, d: &Drawn<'_, AnonymizeScreen>) {
    let s = &d.me.sweep;
    let algorithm = d.me.state.choice().id;
    let title = Line::from(vec![
        Span::styled(format!(" k/l sweep: {algorithm} "), title_style()),
        Span::styled(format!("colour: {} (m) ", s.metric_name(s.metric)), dim()),
    ]);
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if let Some(why) = &s.blocked {
        frame.render_widget(
            Paragraph::new(why.as_str())
                .style(Style::new().fg(Color::Yellow))
                .wrap(Wrap { trim: true }),
            inner,
        );
        return;
    }
    let [body, gauge] = Layout::vertical([Constraint::Fill(1), Constraint::Length(1)]).areas(inner);
    let cell_width = cell_width(s);
    let grid_width = K_WIDTH + (cell_width + 1) * s.ls.len() as u16;
    let [grid, detail] =
        Layout::horizontal([Constraint::Length(grid_width + 1), Constraint::Fill(1)]).areas(body);
    draw_grid(frame, grid, s, cell_width);
    draw_detail(frame, detail, s);
    draw_progress(frame, gauge, s);
}

/// The measure's value as a cell shows it.
fn format_value(metric: SweepMetric, v: f64) -> String {
    match metric {
        SweepMetric::Discernibility => thousands(v as u64),
        SweepMetric::Risk | SweepMetric::Ncp => format!("{v:.3}"),
    }
}

/// What a cell shows: the value (with `!` when the verifier found a
/// claimed guarantee broken), ✗ when refused, · before it is computed.
fn cell_text(s: &SweepState, cell: &SweepCell) -> String {
    match cell {
        SweepCell::Done(f) => {
            let mut t = format_value(s.metric, f.value(s.metric));
            if !f.verified {
                t.push('!');
            }
            t
        }
        SweepCell::Infeasible(_) => "✗".into(),
        SweepCell::Running => "…".into(),
        SweepCell::Pending => "·".into(),
    }
}

fn cell_width(s: &SweepState) -> u16 {
    let widest = s
        .cells
        .iter()
        .flatten()
        .map(|c| cell_text(s, c).chars().count())
        .max()
        .unwrap_or(0) as u16;
    // Two for the focus brackets.
    (widest + 2).max(MIN_CELL)
}

/// Green (lowest) through yellow to red (highest): every measure here is
/// better low (risk, loss).
fn heat(v: f64, (lo, hi): (f64, f64)) -> Color {
    let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.0 };
    let t = t.clamp(0.0, 1.0);
    let (r, g) = if t < 0.5 {
        ((510.0 * t) as u8, 200)
    } else {
        (255, (200.0 * (2.0 - 2.0 * t)) as u8)
    };
    Color::Rgb(r, g, 60)
}

fn draw_grid(frame: &mut Frame, area: Rect, s: &SweepState, cell_width: u16) {
    let range = s.range();
    let header = Row::new(std::iter::once(Cell::new("k \\ l").style(dim())).chain(
        s.ls.iter().map(|l| {
            let label = match l {
                Some(l) => format!("l = {l}"),
                None => "l unused".into(),
            };
            Cell::new(label).style(title_style())
        }),
    ));
    let rows = s.ks.iter().enumerate().map(|(r, k)| {
        let cells = s.cells[r].iter().enumerate().map(|(c, cell)| {
            let focused = s.cursor == (r, c);
            let text = cell_text(s, cell);
            let text = if focused {
                format!("[{text}]")
            } else {
                format!(" {text}")
            };
            let mut style = match (cell, range) {
                (SweepCell::Done(f), Some(range)) => Style::new()
                    .fg(Color::Black)
                    .bg(heat(f.value(s.metric), range)),
                (SweepCell::Infeasible(_), _) => Style::new().fg(Color::Red),
                _ => dim(),
            };
            if focused {
                style = style.add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
            }
            Cell::new(text).style(style)
        });
        Row::new(std::iter::once(Cell::new(format!("k = {k}")).style(title_style())).chain(cells))
    });
    let widths = std::iter::once(Constraint::Length(K_WIDTH))
        .chain(s.ls.iter().map(|_| Constraint::Length(cell_width)));
    frame.render_widget(
        Table::new(rows, widths).header(header).column_spacing(1),
        area,
    );
}

fn figures_lines(f: &CellFigures) -> Vec<Line<'static>> {
    let label = |t: &str| Span::styled(format!("{t:<15}"), dim());
    let value = |v: String| Span::styled(v, title_style());
    let mut lines = Vec::new();
    if let (Some(mean), Some(max)) = (f.mean_breach, f.max_breach) {
        lines.push(Line::from(vec![
            label("breach"),
            value(format!("mean {mean:.3}  max {max:.3}")),
        ]));
    }
    lines.extend([
        Line::from(vec![
            label("Pr(re-id)"),
            value(format!("mean {:.4}", f.mean_reid)),
        ]),
        Line::from(vec![label("C_DM"), value(thousands(f.discernibility))]),
        Line::from(vec![
            label("mean NCP (GCP)"),
            value(format!("{:.3}", f.mean_ncp)),
        ]),
        Line::from(vec![
            label("groups"),
            value(thousands(f.groups as u64)),
            Span::styled("  suppressed ", dim()),
            value(thousands(f.suppressed as u64)),
        ]),
        Line::from(vec![
            label("verification"),
            if f.verified {
                Span::styled("every claim holds", Style::new().fg(Color::Green))
            } else {
                Span::styled(
                    "a claim FAILS (!)",
                    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
                )
            },
        ]),
        Line::from(vec![label("time"), value(format!("{:.1} ms", f.time_ms))]),
    ]);
    lines
}

fn draw_detail(frame: &mut Frame, area: Rect, s: &SweepState) {
    let (r, c) = s.cursor;
    let mut lines = Vec::new();
    if let (Some(k), Some(l)) = (s.ks.get(r), s.ls.get(c)) {
        let point = match l {
            Some(l) => format!("k = {k}, l = {l}"),
            None => format!("k = {k}"),
        };
        lines.push(Line::from(Span::styled(point, title_style())));
    }
    match s.focused() {
        Some(SweepCell::Done(f)) => {
            lines.extend(figures_lines(f));
            lines.push(Line::from(Span::styled("Enter uses this point", dim())));
        }
        Some(SweepCell::Infeasible(why)) => {
            lines.push(Line::from(Span::styled(
                "✗ the algorithm refused this point:",
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            )));
            lines.push(Line::from(Span::styled(
                why.clone(),
                Style::new().fg(Color::Red),
            )));
        }
        Some(SweepCell::Running) => lines.push(Line::from(Span::styled("computing…", dim()))),
        Some(SweepCell::Pending) => lines.push(Line::from(Span::styled("not computed yet", dim()))),
        None => {}
    }
    if let Some((lo, hi)) = s.range() {
        lines.push(Line::from(""));
        lines.push(Line::from(vec![
            Span::styled("low ", dim()),
            Span::styled(
                format_value(s.metric, lo),
                Style::new().fg(Color::Black).bg(heat(lo, (lo, hi))),
            ),
            Span::styled(" … high ", dim()),
            Span::styled(
                format_value(s.metric, hi),
                Style::new().fg(Color::Black).bg(heat(hi, (lo, hi))),
            ),
        ]));
    }
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .block(Block::new().borders(ratatui::widgets::Borders::LEFT)),
        area,
    );
}

fn draw_progress(frame: &mut Frame, area: Rect, s: &SweepState) {
    let (done, total) = s.counts();
    match s.job.state() {
        JobState::Running { fraction, .. } => {
            let gauge = Gauge::default()
                .ratio(fraction.clamp(0.0, 1.0))
                .label(format!(
                    "sweeping: {done} of {total} points  (Esc stops)"
                ))
                .gauge_style(Style::new().fg(Color::Yellow).bg(Color::DarkGray));
            frame.render_widget(gauge, area);
        }
        JobState::Cancelled => frame.render_widget(
            Line::from(Span::styled(
                format!("stopped at {done} of {total} points: R resumes"),
                Style::new().fg(Color::Yellow),
            )),
            area,
        ),
        _ => frame.render_widget(
            Line::from(Span::styled(
                format!(
                    "{done} of {total} points   hjkl/arrows move  Enter uses the point  m measure  v closes"
                ),
                dim(),
            )),
            area,
        ),
    }
}
