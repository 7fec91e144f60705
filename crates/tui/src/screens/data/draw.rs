//! The Data screen: the table (only the rows and columns on screen are
//! turned into widgets, so a million rows scroll as fast as ten) and a side
//! panel on the focused column.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Bar, BarChart, Block, Cell, Paragraph, Row, Table};
use ratatui::Frame;

use crate::keymap::{Action, Scope};
use crate::layout::{data_split, DATA_HEADER_HEIGHT as HEADER_HEIGHT};
use crate::screens::data::DataScreen;
use crate::screens::explore::FrequencyView;
use crate::screens::Drawn;
use crate::shared::Screen;
use crate::widgets::{
    self, cursor_style, dim, percent, role_style, sensitive_cell_style, thousands, title_style,
    SENSITIVE_MARK,
};
use anonlab::data::Role;

pub(super) fn draw(frame: &mut Frame, body: Rect, d: &Drawn<'_, DataScreen>) {
    let (table, side) = data_split(body);
    draw_table(frame, table, d);
    if let Some(side) = side {
        draw_side(frame, side, d);
    }
    if let Some(f) = d.me.freq.as_ref() {
        draw_frequencies(frame, body, f);
    }
    if let Some(m) = &d.me.mark {
        crate::screens::mark::draw::draw(frame, body, d.view, m);
    }
}

/// The focused column's frequency table (`F`) over the screen: value,
/// count, share, and the records of the value in classes smaller than k
/// on what the attacker knows.
fn draw_frequencies(frame: &mut Frame, area: Rect, f: &FrequencyView) {
    let small_head = format!("in classes < {}", f.k);
    let header = Row::new(vec![
        Cell::new("value"),
        Cell::new(Line::from("count").right_aligned()),
        Cell::new(Line::from("share").right_aligned()),
        Cell::new(Line::from(small_head.clone()).right_aligned()),
    ])
    .style(title_style());
    let widest = f
        .values
        .iter()
        .map(|v| Span::raw(v.value.as_str()).width())
        .max()
        .unwrap_or(5)
        .clamp(5, 40) as u16;
    let count_w = thousands(f.rows as u64).len().max(5) as u16;
    let small_w = small_head.chars().count() as u16;
    let known = if f.known.is_empty() {
        "the attacker knows no attribute".to_string()
    } else {
        format!("classes on {}", f.known.join(", "))
    };
    let footer = format!(" {known} · Esc closes ");
    // Wide enough for the footer too, which says whose classes these are.
    let table_w = widest + count_w + 7 + small_w + 3 + 2;
    let footer_w = Span::raw(footer.as_str()).width() as u16 + 2;
    let width = table_w.max(footer_w).min(area.width);
    let height = (f.values.len() as u16 + 5).min(area.height);
    let popup = widgets::centered(area, width, height);
    let room = usize::from(popup.height.saturating_sub(4)).max(1);
    let first = f.scroll.min(f.values.len().saturating_sub(room));
    let rows = f.values.iter().skip(first).take(room).map(|v| {
        Row::new(vec![
            Cell::new(v.value.clone()),
            Cell::new(Line::from(thousands(v.count)).right_aligned()),
            Cell::new(Line::from(percent(v.count, f.rows as u64)).right_aligned()),
            Cell::new(
                Line::from(v.in_small_classes.map_or("–".to_string(), thousands)).right_aligned(),
            ),
        ])
    });
    let title = format!(
        " {}: {} values ({}–{}) ",
        f.name,
        thousands(f.values.len() as u64),
        first + 1,
        (first + room).min(f.values.len())
    );
    let table = Table::new(
        rows,
        [
            Constraint::Length(widest),
            Constraint::Length(count_w),
            Constraint::Length(7),
            Constraint::Length(small_w),
        ],
    )
    .header(header)
    .column_spacing(1)
    .block(
        Block::bordered()
            .title(Span::styled(title, title_style()))
            .title_bottom(Span::styled(footer, dim())),
    );
    widgets::clear_under_popup(frame, popup);
    frame.render_widget(table, popup);
}

fn draw_table(frame: &mut Frame, area: Rect, d: &Drawn<'_, DataScreen>) {
    let session = d.session;
    let ds = session.table();
    let view = &d.me.view;
    let rows_on_screen = view.visible_rows(ds.n_rows());
    let shown = view.order.len(ds.n_rows());
    let grouped = session.grouped().is_some();
    let mut title = if shown == 0 {
        " no rows ".to_string()
    } else if grouped {
        // Said first, where the eye lands: these rows are not the data
        // the figures are computed on.
        format!(
            " SAMPLE: rows {}–{} of the file's first {} records ",
            thousands(rows_on_screen.start as u64 + 1),
            thousands(rows_on_screen.end as u64),
            thousands(shown as u64)
        )
    } else {
        format!(
            " rows {}–{} of {} ",
            thousands(rows_on_screen.start as u64 + 1),
            thousands(rows_on_screen.end as u64),
            thousands(shown as u64)
        )
    };
    if let Some(rule) = &view.order.filter {
        title.push_str(&format!(
            "(of {}, where {rule}) ",
            thousands(ds.n_rows() as u64)
        ));
    }
    if let Some(s) = view.order.sort {
        title.push_str(&format!(
            "sorted by {} {} ",
            ds.col(s.column).name(),
            if s.descending { "↓" } else { "↑" }
        ));
    }
    let mut block = Block::bordered().title(Span::styled(title, title_style()));
    let counts = sensitive_counts(d);
    if grouped {
        let table = d.session.dataset();
        block = block.title_bottom(Span::styled(
            format!(
                " figures: all {} records, {} combinations (frequency table) ",
                thousands(table.records()),
                thousands(table.n_rows() as u64)
            ),
            title_style(),
        ));
    } else if !counts.spans.is_empty() {
        block = block.title_bottom(counts);
    } else if let Some(hint) = first_run_hint(d, area.width.saturating_sub(2) as usize) {
        block = block.title_bottom(Span::styled(hint, role_style(Role::QuasiIdentifier)));
    }
    if ds.n_cols() == 0 {
        frame.render_widget(
            Paragraph::new("The data has no columns.").block(block),
            area,
        );
        return;
    }

    let header = Row::new(
        std::iter::once(Cell::new("")).chain(view.columns.iter().map(|&(c, _)| {
            let role = session.table_role(c);
            let mut name = role_style(role).add_modifier(Modifier::BOLD);
            if c == view.col {
                name = name.add_modifier(Modifier::UNDERLINED);
            }
            let text = Text::from(vec![
                Line::styled(ds.col(c).name(), name),
                Line::styled(role.tag(), role_style(role)),
            ]);
            // Numbers are right-aligned, and so are their headers.
            if ds.col(c).is_numeric() {
                Cell::new(text.right_aligned())
            } else {
                Cell::new(text)
            }
        })),
    )
    .height(HEADER_HEIGHT);

    // Each column's cells on screen cut to its width with "…", two
    // different values never alike ("Handlers-clea…" beside
    // "Handlers-clea…" for two values; a narrowed column (<) cut them
    // without a mark).
    let fitted: Vec<Vec<String>> = view
        .columns
        .iter()
        .map(|&(c, w)| {
            let col = ds.col(c);
            let texts: Vec<String> = rows_on_screen
                .clone()
                .map(|pos| {
                    let r = view.order.record(pos);
                    let text = col.display(col.code(r));
                    if session.table_cell_sensitive(r, c) {
                        format!("{SENSITIVE_MARK}{text}")
                    } else {
                        text.to_string()
                    }
                })
                .collect();
            let cells: Vec<&str> = texts.iter().map(String::as_str).collect();
            widgets::fit_column(&cells, usize::from(w))
        })
        .collect();
    let first = rows_on_screen.start;
    let rows = rows_on_screen.map(|pos| {
        let r = view.order.record(pos);
        let number_style = if pos == view.row {
            Style::new().add_modifier(Modifier::BOLD)
        } else {
            dim()
        };
        let number = Cell::new(Line::from((r + 1).to_string()).right_aligned()).style(number_style);
        Row::new(
            std::iter::once(number).chain(view.columns.iter().enumerate().map(|(i, &(c, _))| {
                let col = ds.col(c);
                let sensitive = session.table_cell_sensitive(r, c);
                let line = Line::from(fitted[i][pos - first].clone());
                let line = if col.is_numeric() {
                    line.right_aligned()
                } else {
                    line
                };
                let mut style = if sensitive {
                    sensitive_cell_style()
                } else {
                    Style::new()
                };
                // A search match: underlined too, so it shows without
                // colour (the mono theme reverses it).
                if d.search.highlights(c, col.code(r)) {
                    style = style.patch(widgets::search_match_style());
                }
                if pos == view.row && c == view.col {
                    style = style.patch(cursor_style());
                }
                Cell::new(line).style(style)
            })),
        )
    });

    let widths = std::iter::once(Constraint::Length(view.gutter))
        .chain(view.columns.iter().map(|&(_, w)| Constraint::Length(w)));
    let table = Table::new(rows, widths)
        .header(header)
        .column_spacing(1)
        .block(block);
    frame.render_widget(table, area);
}

/// What to do first on a file no column of which has a role yet (every
/// figure waits for quasi-identifiers), with the keys of the key map, in
/// `width` columns: the sentence, else its short form, else that cut
/// with "…" (a border clips a title without a mark).
fn first_run_hint(d: &Drawn<'_, DataScreen>, width: usize) -> Option<String> {
    let ds = d.session.table();
    let roles = d.session.roles();
    if ds.n_cols() == 0 || roles.with(Role::Insensitive).len() < ds.n_cols() {
        return None;
    }
    // A key's first input, as the help shows it.
    let key = |scope, action| {
        let keys = d.keymap.keys_for(scope, action);
        keys.split(' ').next().unwrap_or_default().to_string()
    };
    let data = Scope::Screen(Screen::Data);
    let (qi, sensitive, risk) = (
        key(data, Action::SetRole(Role::QuasiIdentifier)),
        key(data, Action::SetRole(Role::Sensitive)),
        key(Scope::Global, Action::ShowScreen(Screen::Risk)),
    );
    let long = format!(
        " mark quasi-identifiers with {qi}, sensitive attributes with {sensitive}, then {risk} for Risk "
    );
    if Span::raw(long.as_str()).width() <= width {
        return Some(long);
    }
    let short = format!(" {qi} quasi-identifier, {sensitive} sensitive, {risk} Risk ");
    Some(crate::widgets::cut(&short, width))
}

/// "◆ sensitive cells: occupation 300 (20.0%) · age 12 (0.8%)": one count
/// per semi-sensitive column, on the table's bottom border.
fn sensitive_counts(d: &Drawn<'_, DataScreen>) -> Line<'static> {
    let counts = d.session.sensitive_counts();
    if counts.is_empty() {
        return Line::default();
    }
    let rows = d.session.dataset().n_rows() as u64;
    let mut spans = vec![Span::styled(
        format!(" {SENSITIVE_MARK} sensitive cells: "),
        role_style(Role::Sensitive),
    )];
    for (i, (c, n)) in counts.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", dim()));
        }
        spans.push(Span::styled(
            d.session.dataset().col(c).name().to_string(),
            role_style(Role::SemiSensitive),
        ));
        spans.push(Span::raw(format!(
            " {} ({})",
            thousands(n as u64),
            percent(n as u64, rows)
        )));
    }
    spans.push(Span::raw(" "));
    Line::from(spans)
}

fn draw_side(frame: &mut Frame, area: Rect, d: &Drawn<'_, DataScreen>) {
    let s = &d.me.stats;
    let block = Block::bordered().title(Span::styled(" Column ", title_style()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if d.session.table().n_cols() == 0 {
        return;
    }
    let label = |k: &str| Span::styled(format!("{k:<10}"), dim());
    let mut lines = vec![
        Line::from(vec![
            label("name"),
            Span::styled(s.name.clone(), title_style()),
        ]),
        Line::from(vec![label("kind"), Span::raw(s.kind.to_string())]),
        Line::from(vec![
            label("role"),
            Span::styled(s.role.label(), role_style(s.role)),
        ]),
        Line::from(vec![
            label("distinct"),
            Span::raw(thousands(s.distinct as u64)),
        ]),
        Line::from(vec![
            label("missing"),
            Span::raw(format!(
                "{} ({})",
                thousands(s.missing),
                percent(s.missing, s.rows as u64)
            )),
        ]),
    ];
    if let Some(n) = s.sensitive {
        lines.push(Line::from(vec![
            label("sensitive"),
            Span::styled(
                format!(
                    "{} cells ({})",
                    thousands(n as u64),
                    percent(n as u64, s.rows as u64)
                ),
                role_style(Role::Sensitive),
            ),
        ]));
    }
    let info_height = lines.len() as u16 + 1;
    let [info, chart] =
        Layout::vertical([Constraint::Length(info_height), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(lines), info);

    if chart.height < 2 || s.top.is_empty() {
        return;
    }
    let [caption, bars_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(chart);
    let caption_text = match (s.other > 0, s.of_sample) {
        (true, false) => format!("top values, +{} other rows", thousands(s.other)),
        (false, false) => "values".to_string(),
        (true, true) => format!("in the sample, +{} other", thousands(s.other)),
        (false, true) => "values in the sample".to_string(),
    };
    frame.render_widget(Line::styled(caption_text, dim()), caption);
    let fit = usize::from(bars_area.height);
    let values: Vec<&str> = s.top.iter().take(fit).map(|t| t.0.as_str()).collect();
    let labels = widgets::fit_column(&values, 10);
    let bars: Vec<Bar> = s
        .top
        .iter()
        .take(fit)
        .zip(labels)
        .map(|((_, count), label)| {
            Bar::with_label(label, *count)
                .text_value(thousands(*count))
                .style(role_style(s.role))
        })
        .collect();
    let chart = BarChart::horizontal(bars)
        .bar_width(1)
        .bar_gap(0)
        .value_style(Style::new().add_modifier(Modifier::REVERSED));
    frame.render_widget(chart, bars_area);
}
