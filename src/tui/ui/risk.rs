//! The Risk screen: which attributes the attacker knows (and in what order),
//! the distribution of Pr(re-id) as a histogram and a CDF, the summary, and
//! the prefix table (classes and uniques as the attacker learns the first j
//! attributes).

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, Block, Cell, Chart, Gauge, Paragraph, Row, Table};
use ratatui::Frame;

use super::widgets::{
    compact, cursor_style, dim, line_series, percent, role_style, thousands, title_style, unit_axis,
};
use crate::tui::app::{App, JobState};

const LEFT_WIDTH: u16 = 36;

pub(super) fn draw(frame: &mut Frame, body: Rect, app: &App) {
    let [left, right] =
        Layout::horizontal([Constraint::Length(LEFT_WIDTH), Constraint::Min(0)]).areas(body);
    let prefix_rows = app.risk().view.as_ref().map_or(0, |v| v.prefix.len()) as u16;
    let [picker, prefix] = Layout::vertical([
        Constraint::Min(4),
        Constraint::Length((prefix_rows + 3).min(left.height / 2)),
    ])
    .areas(left);
    draw_picker(frame, picker, app);
    draw_prefix(frame, prefix, app);

    let [summary, gauge, charts] = Layout::vertical([
        Constraint::Length(6),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(right);
    draw_summary(frame, summary, app);
    draw_gauge(frame, gauge, app);
    let [histogram, cdf] = if charts.width >= 60 {
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(charts)
    } else {
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(charts)
    };
    draw_histogram(frame, histogram, app);
    draw_cdf(frame, cdf, app);
}

fn draw_picker(frame: &mut Frame, area: Rect, app: &App) {
    let risk = app.risk();
    let ds = app.dataset();
    let block = Block::bordered().title(Span::styled(" Attacker knows ", title_style()));
    if risk.order.is_empty() {
        let text = Paragraph::new(vec![
            Line::from("No quasi-identifier or semi-sensitive"),
            Line::from("column yet: give columns a role on"),
            Line::from("the Data screen."),
        ])
        .style(dim())
        .block(block);
        frame.render_widget(text, area);
        return;
    }
    let inner_height = usize::from(block.inner(area).height).max(1);
    // Keep the cursor on screen without state: scroll by whole pages.
    let first = (risk.cursor / inner_height) * inner_height;
    let mut position = 0;
    let lines: Vec<Line> = risk
        .order
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let known = risk.known[c];
            let mark = if known {
                position += 1;
                format!("[x] {position:>2}. ")
            } else {
                "[ ]     ".to_string()
            };
            let role = app.roles().get(c);
            let mut line = Line::from(vec![
                Span::raw(mark),
                Span::styled(ds.col(c).name().to_string(), role_style(role)),
                Span::styled(format!(" {}", role.tag()), dim()),
            ]);
            if !known {
                line = line.style(Style::new().add_modifier(Modifier::DIM));
            }
            if i == risk.cursor {
                line = line.patch_style(cursor_style());
            }
            line
        })
        .skip(first)
        .take(inner_height)
        .collect();
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn draw_prefix(frame: &mut Frame, area: Rect, app: &App) {
    let block = Block::bordered().title(Span::styled(" Knowing the first j ", title_style()));
    let Some(view) = &app.risk().view else {
        frame.render_widget(block, area);
        return;
    };
    let header = Row::new(["j", "+ attribute", "classes", "uniques"]).style(dim());
    let rows = view.prefix.iter().enumerate().map(|(j, p)| {
        Row::new([
            Cell::new(format!("{}", j + 1)),
            Cell::new(p.attributes.last().cloned().unwrap_or_default()),
            Cell::new(Line::from(thousands(p.classes as u64)).right_aligned()),
            Cell::new(Line::from(thousands(p.uniques as u64)).right_aligned()),
        ])
    });
    let table = Table::new(
        rows,
        [
            Constraint::Length(2),
            Constraint::Min(8),
            Constraint::Length(9),
            Constraint::Length(9),
        ],
    )
    .header(header)
    .column_spacing(1)
    .block(block);
    frame.render_widget(table, area);
}

fn draw_summary(frame: &mut Frame, area: Rect, app: &App) {
    let risk = app.risk();
    let mut title = vec![Span::styled(" Pr(re-id) ", title_style())];
    if risk.stale && risk.view.is_some() {
        title.push(Span::styled(
            "(out of date) ",
            Style::new().fg(Color::Yellow),
        ));
    }
    let block = Block::bordered().title(Line::from(title));
    let Some(view) = &risk.view else {
        frame.render_widget(
            Paragraph::new("not computed yet").style(dim()).block(block),
            area,
        );
        return;
    };
    let s = &view.summary;
    let n = s.records as u64;
    let label = |k: &str| Span::styled(format!("{k} "), dim());
    let value = |v: String| Span::styled(v, title_style());
    let gap = || Span::raw("   ");
    let above = s.records_above_threshold as u64;
    let lines = vec![
        Line::from(vec![
            label("records"),
            value(thousands(n)),
            gap(),
            label("classes"),
            value(thousands(s.classes as u64)),
            gap(),
            label("k"),
            value(s.k.to_string()),
        ]),
        Line::from(vec![
            label("uniques"),
            value(thousands(s.uniques as u64)),
            Span::raw(format!(" ({})", percent(s.uniques as u64, n))),
            gap(),
            label("mean"),
            value(format!("{:.4}", s.mean)),
            gap(),
            label("max"),
            value(format!("{:.4}", s.max)),
        ]),
        Line::from(vec![
            label(&format!("records above {:.3}:", s.threshold)),
            value(thousands(above)),
            Span::raw(format!(" ({})", percent(above, n))),
        ]),
        Line::from(vec![
            label("attacker knows"),
            Span::raw(if view.attributes.is_empty() {
                "nothing".to_string()
            } else {
                view.attributes.join(", ")
            }),
            Span::styled(
                if view.hidden_cells > 0 {
                    format!(
                        "  ({} sensitive cells hidden)",
                        thousands(view.hidden_cells as u64)
                    )
                } else {
                    String::new()
                },
                dim(),
            ),
        ]),
    ];
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn draw_gauge(frame: &mut Frame, area: Rect, app: &App) {
    if let JobState::Running { fraction, .. } = app.job() {
        let gauge = Gauge::default()
            .ratio(fraction.clamp(0.0, 1.0))
            .label(format!(
                "simulating {:.0}%  (Esc cancels)",
                fraction * 100.0
            ))
            .gauge_style(Style::new().fg(Color::Yellow).bg(Color::DarkGray));
        frame.render_widget(gauge, area);
    }
}

fn draw_histogram(frame: &mut Frame, area: Rect, app: &App) {
    let block = Block::bordered().title(Span::styled(" Records by Pr(re-id) ", title_style()));
    let Some(view) = &app.risk().view else {
        frame.render_widget(block, area);
        return;
    };
    let inner = block.inner(area);
    let bins = view.histogram.len().max(1) as u16;
    let bar_width = (inner.width.saturating_sub(bins - 1) / bins).max(1);
    let threshold = view.summary.threshold;
    let bars: Vec<Bar> = view
        .histogram
        .iter()
        .enumerate()
        .map(|(i, (label, records))| {
            // A bin wholly above the threshold holds records at risk.
            let lower = i as f64 / bins as f64;
            let color = if lower >= threshold {
                Color::Red
            } else {
                Color::Blue
            };
            Bar::with_label(label.as_str(), *records)
                .text_value(compact(*records))
                .style(Style::new().fg(color))
        })
        .collect();
    let chart = BarChart::vertical(bars)
        .bar_width(bar_width)
        .bar_gap(1)
        .value_style(Style::new().fg(Color::White).add_modifier(Modifier::BOLD))
        .block(block);
    frame.render_widget(chart, area);
}

fn draw_cdf(frame: &mut Frame, area: Rect, app: &App) {
    let block = Block::bordered().title(Span::styled(" CDF, red: threshold ", title_style()));
    let Some(view) = &app.risk().view else {
        frame.render_widget(block, area);
        return;
    };
    let t = view.summary.threshold;
    let threshold_line = [(t, 0.0), (t, 1.0)];
    let datasets = vec![
        line_series(Color::Red, &threshold_line),
        line_series(Color::Cyan, &view.cdf),
    ];
    let chart = Chart::new(datasets)
        .x_axis(unit_axis("Pr"))
        .y_axis(unit_axis("share"))
        .block(block);
    frame.render_widget(chart, area);
}
