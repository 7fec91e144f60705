//! The Risk screen: which attributes the attacker knows (and in what
//! order), the three attacks before and after anonymization side by side,
//! the records above the threshold, an overlaid CDF of one attack, and the
//! prefix table (classes and uniques as the attacker learns the first j
//! attributes).

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Cell, Chart, Dataset, Gauge, GraphType, Paragraph, Row, Table, Wrap,
};
use ratatui::Frame;

use super::widgets::{
    cursor_style, dim, fit_items, line_series, percent, role_style, thousands, title_style,
    too_small, unit_axis, CHART_MIN,
};
use crate::tui::app::App;
use crate::tui::layout::{page_top, risk_areas};
use crate::tui::screens::risk::{Figures, Measures, RecordList, RiskFocus};
use crate::tui::shared::JobState;

/// Colours and markers of the CDF's two series: told apart in monochrome
/// too.
const BEFORE_COLOR: Color = Color::Cyan;
const AFTER_COLOR: Color = Color::Magenta;
const AFTER_MARKER: Marker = Marker::Dot;

pub(super) fn draw(frame: &mut Frame, body: Rect, app: &App) {
    let a = risk_areas(body, app.prefix_rows());
    draw_picker(frame, a.picker, app);
    draw_prefix(frame, a.prefix, app);
    draw_figures(frame, a.figures, app);
    draw_gauge(frame, a.gauge, app);
    draw_list(frame, a.list, app);
    draw_cdf(frame, a.chart, app);
}

/// A panel's border, highlighted when it has the focus.
fn panel(title: String, focused: bool) -> Block<'static> {
    let block = Block::bordered().title(Span::styled(title, title_style()));
    if focused {
        block.border_style(Style::new().fg(Color::Yellow))
    } else {
        block
    }
}

fn draw_picker(frame: &mut Frame, area: Rect, app: &App) {
    let risk = app.risk();
    let session = app.session();
    let ds = app.dataset();
    let order = session.order();
    let known = session.known_columns().len();
    let block = panel(
        format!(" Attacker knows {known} of {} ", order.len()),
        risk.focus == RiskFocus::Picker,
    );
    if order.is_empty() {
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
    let first = page_top(risk.cursor, inner_height);
    let mut position = 0;
    let lines: Vec<Line> = order
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let known = session.knows(c);
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
            if i == risk.cursor && risk.focus == RiskFocus::Picker {
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
    let title = |t: String| Block::bordered().title(Span::styled(t, title_style()));
    let Some(before) = app.session().baseline() else {
        frame.render_widget(title(" Knowing the first j ".into()), area);
        return;
    };
    let prefix = &before.assessment.simulation.prefix;
    // On a short terminal the rows that fit, and how many there are.
    let room = usize::from(area.height.saturating_sub(3));
    let block = title(if room < prefix.len() {
        format!(" First j: 1–{room} of {} ", prefix.len())
    } else {
        " Knowing the first j ".into()
    });
    let header = Row::new(["j", "+ attribute", "classes", "uniques"]).style(dim());
    // The counts as wide as the largest (the header's 7 at least): a
    // count is never cut.
    let count_width = prefix
        .iter()
        .map(|p| thousands(p.classes as u64).len() as u16)
        .max()
        .unwrap_or(0)
        .max(7);
    let rows = prefix.iter().enumerate().map(|(j, p)| {
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
            Constraint::Length(count_width),
            Constraint::Length(count_width),
        ],
    )
    .header(header)
    .column_spacing(1)
    .block(block);
    frame.render_widget(table, area);
}

/// The cells of one row of figures: mean, max, above, certain.
fn figure_cells(f: &Figures, threshold: f64) -> [Cell<'static>; 4] {
    let n = f.records() as u64;
    let count = |c: usize| {
        Cell::new(
            Line::from(format!(
                "{} ({})",
                thousands(c as u64),
                percent(c as u64, n)
            ))
            .right_aligned(),
        )
    };
    [
        Cell::new(Line::from(format!("{:.4}", f.mean())).right_aligned()),
        Cell::new(Line::from(format!("{:.4}", f.max())).right_aligned()),
        count(f.above(threshold)),
        count(f.certain()),
    ]
}

/// Why the after rows are empty, or `None` when they have figures.
fn after_note(app: &App) -> Option<String> {
    let risk = app.risk();
    if app.anonymize().view.is_none() {
        return Some("no release yet: 3 Anonymize, then run".into());
    }
    match (&risk.after, &risk.after_job) {
        (_, JobState::Running { .. }) => Some("measuring the release…".into()),
        (Some(_), _) => None,
        (None, JobState::Failed) => Some("failed (see the popup); R retries".into()),
        (None, JobState::Cancelled) => Some("cancelled; R measures again".into()),
        (None, _) => Some("not measured yet".into()),
    }
}

fn draw_figures(frame: &mut Frame, area: Rect, app: &App) {
    let risk = app.risk();
    let session = app.session();
    let threshold = session.threshold();
    let mut title = vec![Span::styled(
        format!(" Before → after, threshold {threshold:.3} "),
        title_style(),
    )];
    if !session.baseline_current() && risk.before.is_some() {
        title.push(Span::styled(
            "(out of date) ",
            Style::new().fg(Color::Yellow),
        ));
    }
    let block = Block::bordered().title(Line::from(title));
    let (Some(measures), Some(before)) = (&risk.before, session.baseline()) else {
        frame.render_widget(
            Paragraph::new("not computed yet").style(dim()).block(block),
            area,
        );
        return;
    };
    let after = risk.after.as_ref().map(|a| &a.measures);
    let note = after_note(app);
    let breach_name = measures
        .breach
        .as_ref()
        .map_or("breach".to_string(), |(n, _)| format!("breach {n}"));
    type Pick = fn(&Measures) -> Option<&Figures>;
    let attacks: [(String, Pick); 3] = [
        ("key count".into(), |m| Some(&m.simulator)),
        ("linkage".into(), |m| Some(&m.linkage)),
        (breach_name, |m| m.breach.as_ref().map(|(_, f)| f)),
    ];
    let mut rows = Vec::new();
    for (name, pick) in &attacks {
        let mut first = vec![Cell::new(name.clone()), Cell::new("before").style(dim())];
        match pick(measures) {
            Some(f) => first.extend(figure_cells(f, threshold)),
            None => first.push(Cell::new("no sensitive attribute").style(dim())),
        }
        rows.push(Row::new(first));
        let mut row = vec![Cell::new(""), Cell::new("after").style(dim())];
        match after.map(pick) {
            Some(Some(f)) => row.extend(figure_cells(f, threshold)),
            Some(None) => row.push(Cell::new("no sensitive attribute").style(dim())),
            // Why there are no figures is said below the table.
            None => row.extend((0..4).map(|_| Cell::new(Line::from("–").right_aligned()))),
        }
        rows.push(Row::new(row).style(Style::new().fg(AFTER_COLOR)));
    }
    let header = Row::new(vec![
        Cell::new("attack"),
        Cell::new(""),
        Cell::new(Line::from("mean").right_aligned()),
        Cell::new(Line::from("max").right_aligned()),
        Cell::new(Line::from("above").right_aligned()),
        Cell::new(Line::from("Pr = 1").right_aligned()),
    ])
    .style(dim());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [table_area, info] =
        Layout::vertical([Constraint::Length(7), Constraint::Min(0)]).areas(inner);
    // Counts as wide as the records with separators, and a percentage.
    let records = measures.simulator.records() as u64;
    let count_width = (thousands(records).len() + " (100.0%)".len()) as u16;
    let table = Table::new(
        rows,
        [
            Constraint::Length(15),
            Constraint::Length(6),
            Constraint::Length(6),
            Constraint::Length(6),
            Constraint::Length(count_width),
            Constraint::Length(count_width),
        ],
    )
    .header(header)
    .column_spacing(1);
    frame.render_widget(table, table_area);

    // Whose figures: the session's attacker before, the same attacker on
    // the release after (unpublished attributes named).
    let mut lines = vec![Line::from(vec![
        Span::styled("before: ", dim()),
        Span::raw(before.attacker().to_string()),
    ])];
    if let Some(n) = note {
        lines.push(Line::from(vec![
            Span::styled("after: ", dim()),
            Span::styled(n, dim()),
        ]));
    } else if let (Some(a), Some(v)) = (&risk.after, &app.anonymize().view) {
        let mut release = vec![
            Span::styled("after: ", dim()),
            Span::raw(format!(
                "{} k={}{} seed {}",
                v.evaluation.algorithm,
                v.inputs.k,
                v.inputs.l.map_or(String::new(), |l| format!(" l={l}")),
                v.inputs.seed
            )),
            Span::styled(", same attacker", dim()),
        ];
        if !a.unpublished.is_empty() {
            release.push(Span::styled(
                format!("; not published: {}", a.unpublished.join(", ")),
                dim(),
            ));
        }
        lines.push(Line::from(release));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), info);
}

fn draw_gauge(frame: &mut Frame, area: Rect, app: &App) {
    let (what, fraction) = match (app.job(), &app.risk().after_job) {
        (JobState::Running { fraction, .. }, _) => ("simulating", *fraction),
        (_, JobState::Running { fraction, .. }) => ("measuring the release", *fraction),
        _ => return,
    };
    let gauge = Gauge::default()
        .ratio(fraction.clamp(0.0, 1.0))
        .label(format!("{what} {:.0}%  (Esc cancels)", fraction * 100.0))
        .gauge_style(Style::new().fg(Color::Yellow).bg(Color::DarkGray));
    frame.render_widget(gauge, area);
}

fn draw_list(frame: &mut Frame, area: Rect, app: &App) {
    let risk = app.risk();
    let focused = risk.focus == RiskFocus::Records;
    let session = app.session();
    let (listed, above) = risk.shown_list(session);
    let which = match risk.list {
        RecordList::Before => "before",
        RecordList::After => "after",
    };
    let mut title = format!(
        " {which}: {} above {:.3} ",
        thousands(above as u64),
        session.threshold()
    );
    if listed.len() < above {
        title.push_str(&format!("(first {}) ", thousands(listed.len() as u64)));
    }
    let block = panel(title, focused);
    let after = risk.after.as_ref();
    let unavailable = match risk.list {
        RecordList::Before if risk.before.is_none() => Some("not computed yet".to_string()),
        RecordList::After if after.is_none() => after_note(app),
        _ => None,
    };
    if let Some(note) = unavailable {
        frame.render_widget(Paragraph::new(note).style(dim()).block(block), area);
        return;
    }
    let ds = app.dataset();
    let page = usize::from(block.inner(area).height.saturating_sub(1)).max(1);
    // The row number as wide as the largest, with separators.
    let row_width = thousands(ds.n_rows() as u64).len().max(3) as u16;
    let widths = [row_width, 5, 6, 5, 5];
    // What the values' column has: the inner width less the fixed
    // columns and the six columns' five gaps.
    let values_width = usize::from(
        block
            .inner(area)
            .width
            .saturating_sub(widths.iter().sum::<u16>() + 5),
    );
    let first = page_top(risk.list_cursor, page);
    let end = (first + page).min(listed.len());
    let rows = listed[first..end].iter().enumerate().map(|(i, l)| {
        let r = l.row as usize;
        let (gid, values) = app.risk_record_values(r);
        let after_pr = match (risk.list, after) {
            (RecordList::Before, Some(a)) => probability(a.matches[r]),
            _ => String::new(),
        };
        let row = Row::new(vec![
            Cell::new(Line::from(thousands(r as u64 + 1)).right_aligned()),
            Cell::new(Line::from(probability(l.matches)).right_aligned()),
            Cell::new(Line::from(thousands(u64::from(l.matches))).right_aligned()),
            Cell::new(Line::from(after_pr).right_aligned()),
            Cell::new(
                Line::from(gid.map_or(String::new(), |g| (g + 1).to_string())).right_aligned(),
            ),
            Cell::new(fit_items(&values, values_width)),
        ]);
        if focused && first + i == risk.list_cursor {
            row.style(cursor_style())
        } else {
            row
        }
    });
    let (pr_after, values) = match risk.list {
        RecordList::Before => ("after", "known values"),
        RecordList::After => ("", "published cells"),
    };
    let header = Row::new(vec![
        Cell::new(Line::from("row").right_aligned()),
        Cell::new(Line::from("Pr").right_aligned()),
        Cell::new(Line::from("class").right_aligned()),
        Cell::new(Line::from(pr_after).right_aligned()),
        Cell::new(Line::from("GID").right_aligned()),
        Cell::new(values),
    ])
    .style(dim());
    let table = Table::new(
        rows,
        widths
            .map(Constraint::Length)
            .into_iter()
            .chain([Constraint::Min(8)]),
    )
    .header(header)
    .column_spacing(1)
    .block(block);
    frame.render_widget(table, area);
}

/// Pr(re-id) = 1 / matches, as the list shows it (`-`: not published).
fn probability(matches: u32) -> String {
    if matches == 0 {
        "-".into()
    } else {
        format!("{:.3}", 1.0 / f64::from(matches))
    }
}

fn draw_cdf(frame: &mut Frame, area: Rect, app: &App) {
    let risk = app.risk();
    let block = Block::bordered().title(Span::styled(
        format!(" CDF, {} (m) ", risk.chart.title()),
        title_style(),
    ));
    let Some(measures) = &risk.before else {
        frame.render_widget(block, area);
        return;
    };
    if let Some(why) = too_small(area, CHART_MIN.0, CHART_MIN.1) {
        frame.render_widget(
            Paragraph::new(why)
                .style(dim())
                .wrap(Wrap { trim: true })
                .block(block),
            area,
        );
        return;
    }
    let t = app.session().threshold();
    let threshold_line = [(t, 0.0), (t, 1.0)];
    let mut datasets = vec![line_series(Color::Red, &threshold_line).name("threshold")];
    if let Some(f) = risk.chart.of(measures) {
        datasets.push(line_series(BEFORE_COLOR, &f.series).name("before ⣿"));
    }
    if let Some(f) = risk.after.as_ref().and_then(|a| risk.chart.of(&a.measures)) {
        datasets.push(
            Dataset::default()
                .marker(AFTER_MARKER)
                .graph_type(GraphType::Line)
                .style(Style::new().fg(AFTER_COLOR))
                .data(&f.series)
                .name("after •"),
        );
    }
    let chart = Chart::new(datasets)
        .x_axis(unit_axis("Pr"))
        .y_axis(unit_axis("share"))
        .legend_position(Some(ratatui::widgets::LegendPosition::BottomRight))
        .hidden_legend_constraints((Constraint::Percentage(60), Constraint::Percentage(60)))
        .block(block);
    frame.render_widget(chart, area);
}
