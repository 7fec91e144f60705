//! The Risk screen: which attributes the attacker knows (and in what
//! order), the three attacks before and after anonymization side by side,
//! the records above the threshold, an overlaid CDF of one attack, and the
//! prefix table (classes and uniques as the attacker learns the first j
//! attributes).

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Chart, Gauge, Paragraph, Row, Table, Wrap};
use ratatui::Frame;

use crate::layout::{page_top, risk_areas};
use crate::screens::risk::RiskScreen;
use crate::screens::risk::{Figures, Measures, RecordList, RiskChart, RiskFocus};
use crate::screens::risk_models::{model_lines, msu_text, riskiest_by_size, share, RiskModel};
use crate::screens::Drawn;
use crate::shared::text_width;
use crate::shared::{JobState, SENSITIVE_MARK};
use crate::widgets::{
    self, before_after, cursor_style, dim, line_series, percent, role_style, thousands,
    title_style, too_small, unit_axis, CHART_MIN,
};

/// Colours of the CDF's two series (their markers tell them apart in
/// monochrome too: `widgets::before_after`).
const BEFORE_COLOR: Color = Color::Cyan;
const AFTER_COLOR: Color = Color::Magenta;

pub(super) fn draw(frame: &mut Frame, body: Rect, d: &Drawn<'_, RiskScreen>) {
    let a = risk_areas(body, super::layout_rows(d.session, &d.me.state));
    draw_picker(frame, a.picker, d);
    draw_prefix(frame, a.prefix, d);
    draw_figures(frame, a.figures, d);
    draw_gauge(frame, a.gauge, d);
    draw_model(frame, a.model, d);
    draw_list(frame, a.list, d);
    if a.chart.height == 0 {
        // The model panel has the chart's place (a short terminal).
    } else if d.me.state.chart == RiskChart::Combinations {
        draw_combinations(frame, a.chart, d);
    } else {
        draw_cdf(frame, a.chart, d);
    }
}

/// The model selector's panel: the selected reading of the file's risk
/// (`risk_models::model_lines`, off the baseline's assessment).
fn draw_model(frame: &mut Frame, area: Rect, d: &Drawn<'_, RiskScreen>) {
    if area.height == 0 {
        return;
    }
    let Some(before) = d.session.baseline() else {
        return;
    };
    let model = d.me.state.model.or_prosecutor(&before.assessment.sample);
    let offered: Vec<&str> = RiskModel::ALL
        .iter()
        .filter(|m| m.available(&before.assessment.sample))
        .map(|m| m.title())
        .collect();
    let block = Block::bordered().title(Line::from(vec![
        Span::styled(format!(" Risk model: {} ", model.title()), title_style()),
        Span::styled(format!("(M: {}) ", offered.join(" / ")), dim()),
    ]));
    let lines: Vec<Line> = model_lines(&before.assessment, model, d.session.threshold())
        .into_iter()
        .map(Line::from)
        .collect();
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(block),
        area,
    );
}

/// The attribute combinations by uniqueness: for each number of
/// attributes, the combination singling out the most records.
fn draw_combinations(frame: &mut Frame, area: Rect, d: &Drawn<'_, RiskScreen>) {
    let block = Block::bordered().title(Span::styled(
        " Unique records by attribute combination (m) ",
        title_style(),
    ));
    let bars = d
        .session
        .baseline()
        .map(|b| riskiest_by_size(&b.assessment.sample))
        .unwrap_or_default();
    if bars.is_empty() {
        let text = Paragraph::new("no attribute risks: :attributes on")
            .style(dim())
            .block(block);
        frame.render_widget(text, area);
        return;
    }
    if let Some(why) = too_small(area, 24, 4) {
        frame.render_widget(Paragraph::new(why).style(dim()).block(block), area);
        return;
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // One line per combination: its share as a bar, then its attributes.
    let bar_width = (inner.width / 3).clamp(6, 30) as usize;
    let lines: Vec<Line> = bars
        .iter()
        .take(usize::from(inner.height))
        .map(|(label, u)| {
            let filled = (u.clamp(0.0, 1.0) * bar_width as f64).round() as usize;
            Line::from(vec![
                Span::styled("█".repeat(filled), Style::new().fg(BEFORE_COLOR)),
                Span::styled("·".repeat(bar_width - filled), dim()),
                Span::raw(format!(" {:>7} ", share(*u))),
                Span::raw(label.clone()),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
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

fn draw_picker(frame: &mut Frame, area: Rect, d: &Drawn<'_, RiskScreen>) {
    let risk = &d.me.state;
    let session = d.session;
    let ds = d.session.dataset();
    let order = session.order();
    let known = session.known_columns().len();
    let mut title = format!(" Attacker knows {known} of {} ", order.len());
    if risk.compact {
        title.push_str("(← figures → records) ");
    }
    let block = panel(title, risk.focus == RiskFocus::Picker);
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
            let role = d.session.roles().get(c);
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

fn draw_prefix(frame: &mut Frame, area: Rect, d: &Drawn<'_, RiskScreen>) {
    let title = |t: String| Block::bordered().title(Span::styled(t, title_style()));
    let Some(before) = d.session.baseline() else {
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
fn after_note(d: &Drawn<'_, RiskScreen>) -> Option<String> {
    let risk = &d.me.state;
    if d.shown.is_none() {
        return Some("no release yet: 3 Anonymize, then run".into());
    }
    match (&risk.after, risk.after_job.state()) {
        (_, JobState::Running { .. }) => Some("measuring the release…".into()),
        (Some(_), _) => None,
        (None, JobState::Failed) => Some("failed (see the popup); R retries".into()),
        (None, JobState::Cancelled) => Some("cancelled; R measures again".into()),
        (None, _) => Some("not measured yet".into()),
    }
}

fn draw_figures(frame: &mut Frame, area: Rect, d: &Drawn<'_, RiskScreen>) {
    let risk = &d.me.state;
    let session = d.session;
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
    if risk.compact {
        title.push(Span::styled("→ attacker, records ", dim()));
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
    let note = after_note(d);
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
    // The attack column as wide as its longest name ("breach occupation"
    // was cut to "breach occupati" at every width). The figures keep
    // their room: on a narrow panel the "Pr = 1" column goes first (the
    // Record list and models say who is certain), then a long name is cut
    // with "…".
    let records = measures.simulator.records() as u64;
    // Counts as wide as the records with separators, and a percentage.
    let count_width = (thousands(records).len() + " (100.0%)".len()) as u16;
    let longest = attacks
        .iter()
        .map(|(n, _)| text_width(n))
        .max()
        .unwrap_or(0);
    let room = |figures: u16| area.width.saturating_sub(2 + figures);
    let all_figures = 6 + 6 + 6 + 2 * count_width + 5;
    let figures = if room(all_figures) >= text_width("key count") {
        4
    } else {
        3
    };
    let figures_width = all_figures - if figures == 4 { 0 } else { count_width + 1 };
    let name_width = longest.min(room(figures_width)).max(1);
    let mut rows = Vec::new();
    for (name, pick) in &attacks {
        let name = widgets::cut(name, usize::from(name_width));
        let mut first = vec![Cell::new(name), Cell::new("before").style(dim())];
        match pick(measures) {
            Some(f) => first.extend(figure_cells(f, threshold).into_iter().take(figures)),
            None => first.push(Cell::new("no sensitive attribute").style(dim())),
        }
        rows.push(Row::new(first));
        let mut row = vec![Cell::new(""), Cell::new("after").style(dim())];
        match after.map(pick) {
            Some(Some(f)) => row.extend(figure_cells(f, threshold).into_iter().take(figures)),
            Some(None) => row.push(Cell::new("no sensitive attribute").style(dim())),
            // Why there are no figures is said below the table.
            None => row.extend((0..figures).map(|_| Cell::new(Line::from("–").right_aligned()))),
        }
        rows.push(Row::new(row).style(Style::new().fg(AFTER_COLOR)));
    }
    let header = ["attack", "", "mean", "max", "above", "Pr = 1"]
        .into_iter()
        .take(2 + figures)
        .enumerate()
        .map(|(i, h)| match i {
            0 | 1 => Cell::new(h),
            _ => Cell::new(Line::from(h).right_aligned()),
        });
    let header = Row::new(header).style(dim());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [table_area, info] =
        Layout::vertical([Constraint::Length(7), Constraint::Min(0)]).areas(inner);
    let table = Table::new(
        rows,
        [
            Constraint::Length(name_width),
            Constraint::Length(6),
            Constraint::Length(6),
            Constraint::Length(6),
            Constraint::Length(count_width),
            Constraint::Length(count_width),
        ]
        .into_iter()
        .take(2 + figures),
    )
    .header(header)
    .column_spacing(1);
    frame.render_widget(table, table_area);

    // Whose figures: the session's attacker before; after, the attacker
    // the after measurement names (`assess::AfterAttacker`).
    let mut lines = vec![Line::from(vec![
        Span::styled("before: ", dim()),
        Span::raw(before.attacker().to_string()),
    ])];
    if let Some(n) = note {
        lines.push(Line::from(vec![
            Span::styled("after: ", dim()),
            Span::styled(n, dim()),
        ]));
    } else if let (Some(a), Some(v)) = (&risk.after, &d.shown) {
        let release = vec![
            Span::styled("after: ", dim()),
            Span::raw(format!(
                "{} k={}{}{}",
                v.evaluation.algorithm,
                v.inputs.k,
                v.inputs.l.map_or(String::new(), |l| format!(" l={l}")),
                crate::shared::seed_label(v.inputs.algorithm, ' ', v.inputs.seed)
            )),
        ];
        // The before line names the attacker; an after for the same one
        // says so and adds what the release leaves out (the after label's
        // own words), another one is named whole.
        let who = &a.after.attacker;
        let b = before.attacker();
        let mut release = release;
        if b.knows == who.summary.knows && b.hidden_cells == who.summary.hidden_cells {
            release.push(Span::styled(", same attacker", dim()));
            if !who.not_published.is_empty() {
                release.push(Span::styled(
                    format!("; not published: {}", who.not_published.join(", ")),
                    dim(),
                ));
            }
        } else {
            release.push(Span::styled(format!(", {who}"), dim()));
        }
        lines.push(Line::from(release));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), info);
}

fn draw_gauge(frame: &mut Frame, area: Rect, d: &Drawn<'_, RiskScreen>) {
    let (what, fraction) = match (d.session.baseline_job(), d.me.state.after_job.state()) {
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

fn draw_list(frame: &mut Frame, area: Rect, d: &Drawn<'_, RiskScreen>) {
    let risk = &d.me.state;
    let focused = risk.focus == RiskFocus::Records;
    let session = d.session;
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
    if risk.compact {
        title.push_str("(← attacker) ");
    }
    let block = panel(title, focused);
    let after = risk.after.as_ref();
    let unavailable = match risk.list {
        RecordList::Before if risk.before.is_none() => Some("not computed yet".to_string()),
        RecordList::After if after.is_none() => after_note(d),
        _ => None,
    };
    if let Some(note) = unavailable {
        frame.render_widget(Paragraph::new(note).style(dim()).block(block), area);
        return;
    }
    let ds = d.session.dataset();
    // The original's figures of the statistics offices' measures: the
    // selected model's per-record figure and the record's MSUs (the list
    // before anonymization only).
    let sample = session
        .baseline()
        .map(|b| &b.assessment.sample)
        .filter(|_| risk.list == RecordList::Before);
    let model_column = sample.and_then(|s| {
        let m = risk.model.or_prosecutor(s);
        m.column().map(|header| (m, header))
    });
    let with_msus = sample.is_some_and(|s| s.suda.is_some());
    let page = usize::from(block.inner(area).height.saturating_sub(1)).max(1);
    // The row number as wide as the largest, with separators.
    let row_width = thousands(ds.n_rows() as u64).len().max(3) as u16;
    // A narrow list with MSUs keeps the row, Pr and the MSUs: class, after,
    // GID and the values get no width.
    let compact = with_msus && area.width < 80;
    // What the values' column has, so that fit_items cuts between items
    // (a number whole or not at all): the inner width less the fixed
    // columns and the gaps between columns; beside the MSUs it has two of
    // the five shares the two fill.
    let fixed: u16 = if compact {
        row_width + 5
    } else {
        row_width + 21
    } + if model_column.is_some() { 5 } else { 0 };
    let columns: u16 = 6 + u16::from(model_column.is_some()) + u16::from(with_msus);
    let rest = block.inner(area).width.saturating_sub(fixed + columns - 1);
    let values_width = usize::from(if compact {
        0
    } else if with_msus {
        rest * 2 / 5
    } else {
        rest
    });
    let first = page_top(risk.list_cursor, page);
    let end = (first + page).min(listed.len());
    // The values of the rows on screen, cut so that two records' values
    // never read alike.
    let shown: Vec<(Option<u32>, String)> = listed[first..end]
        .iter()
        .map(|l| {
            d.me.record_values(d.session, l.row as usize, SENSITIVE_MARK)
        })
        .collect();
    let texts: Vec<&str> = shown.iter().map(|(_, v)| v.as_str()).collect();
    let fitted = widgets::fit_items_column(&texts, values_width);
    let rows = listed[first..end].iter().enumerate().map(|(i, l)| {
        let r = l.row as usize;
        let gid = shown[i].0;
        let values = &fitted[i];
        let after_pr = match (risk.list, after) {
            (RecordList::Before, Some(a)) => probability(a.matches[r]),
            _ => String::new(),
        };
        let mut extra = Vec::new();
        if let (Some(s), Some((m, _))) = (sample, model_column) {
            let x = m
                .per_record(s, r)
                .map_or(String::new(), |x| format!("{x:.3}"));
            extra.push(Cell::new(Line::from(x).right_aligned()));
        }
        if let (Some(s), true) = (sample, with_msus) {
            extra.push(Cell::new(msu_text(s, r).unwrap_or_else(|| "no MSU".into())));
        }
        let row = Row::new(
            vec![
                Cell::new(Line::from(thousands(r as u64 + 1)).right_aligned()),
                Cell::new(Line::from(probability(l.matches)).right_aligned()),
                Cell::new(Line::from(thousands(u64::from(l.matches))).right_aligned()),
                Cell::new(Line::from(after_pr).right_aligned()),
                Cell::new(
                    Line::from(gid.map_or(String::new(), |g| (g + 1).to_string())).right_aligned(),
                ),
            ]
            .into_iter()
            .chain(extra)
            .chain([Cell::new(values.clone())])
            .collect::<Vec<_>>(),
        );
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
    let mut header = vec![
        Cell::new(Line::from("row").right_aligned()),
        Cell::new(Line::from("Pr").right_aligned()),
        Cell::new(Line::from("class").right_aligned()),
        Cell::new(Line::from(pr_after).right_aligned()),
        Cell::new(Line::from("GID").right_aligned()),
    ];
    let w = |x: u16| Constraint::Length(if compact { 0 } else { x });
    let mut widths = vec![
        Constraint::Length(row_width),
        Constraint::Length(5),
        w(6),
        w(5),
        w(5),
    ];
    if let Some((_, name)) = model_column {
        header.push(Cell::new(Line::from(name).right_aligned()));
        widths.push(Constraint::Length(5));
    }
    if compact {
        header.push(Cell::new("minimal sample uniques"));
        widths.push(Constraint::Fill(1));
        widths.push(Constraint::Length(0));
    } else if with_msus {
        header.push(Cell::new("minimal sample uniques"));
        widths.push(Constraint::Fill(3));
        widths.push(Constraint::Fill(2));
    } else {
        widths.push(Constraint::Min(8));
    }
    header.push(Cell::new(values));
    let header = Row::new(header).style(dim());
    let table = Table::new(rows, widths)
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

fn draw_cdf(frame: &mut Frame, area: Rect, d: &Drawn<'_, RiskScreen>) {
    let risk = &d.me.state;
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
    let t = d.session.threshold();
    let threshold_line = [(t, 0.0), (t, 1.0)];
    let mut datasets = vec![line_series(Color::Red, &threshold_line).name("threshold")];
    let before = risk.chart.of(measures).map(|f| f.series.as_slice());
    let after = risk.after.as_ref().and_then(|a| risk.chart.of(&a.measures));
    let after = after.map(|f| f.series.as_slice());
    let [b, a] = before_after(
        (BEFORE_COLOR, before.unwrap_or_default()),
        (AFTER_COLOR, after.unwrap_or_default()),
    );
    datasets.extend(before.and(Some(b)));
    datasets.extend(after.and(Some(a)));
    let chart = Chart::new(datasets)
        .x_axis(unit_axis("Pr"))
        .y_axis(unit_axis("share"))
        .legend_position(Some(ratatui::widgets::LegendPosition::BottomRight))
        .hidden_legend_constraints((Constraint::Percentage(60), Constraint::Percentage(60)))
        .block(block);
    frame.render_widget(chart, area);
}
