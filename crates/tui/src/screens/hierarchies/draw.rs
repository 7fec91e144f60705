//! The Hierarchies screen: the attributes with their hierarchies, the
//! focused one's hierarchy as a tree with the class counts of each level,
//! the correlation matrix as a heat map, and the build / import / export
//! dialog. Lists and the tree scroll so the cursor stays on screen, which
//! needs only the cursor and the height (no state written while drawing).

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Wrap};
use ratatui::Frame;

use crate::layout::{
    hierarchies_areas, window_top, HEAT_CELL as CELL, HEAT_ROW_LABEL as ROW_LABEL,
};
use crate::screens::hierarchies::HierarchiesScreen;
use crate::screens::hierarchies::{DialogKind, Focus, HierarchyDialog, TreeView};
use crate::screens::Drawn;
use crate::shared::JobState;
use crate::widgets::{centered, compact, cursor_style, dim, role_style, thousands, title_style};
use anonlab::data::Role;
use anonlab::hierarchy::LevelStats;
use anonlab::stats::{CorrelationMatrix, Measure};

/// The attribute list, the heat map and the tree's areas in a body.
fn areas(body: Rect, d: &Drawn<'_, HierarchiesScreen>) -> [Rect; 3] {
    hierarchies_areas(
        body,
        d.me.state.matrix.columns.len(),
        d.session.dataset().n_cols(),
    )
}

pub(super) fn draw(frame: &mut Frame, body: Rect, d: &Drawn<'_, HierarchiesScreen>) {
    let h = &d.me.state;
    let [list, matrix, right] = areas(body, d);
    draw_attributes(frame, list, d);
    draw_matrix(frame, matrix, d);
    draw_tree(frame, right, d);
    if let Some(d) = &h.dialog {
        draw_dialog(frame, body, d);
    }
}

fn focus_border(focused: bool) -> Style {
    if focused {
        Style::new().fg(Color::Cyan)
    } else {
        Style::new()
    }
}

fn role_tag(role: Role) -> &'static str {
    match role {
        Role::Identifier => "ID",
        Role::QuasiIdentifier => "QI",
        Role::Sensitive => "S ",
        Role::SemiSensitive => "SS",
        Role::Insensitive => "  ",
    }
}

fn draw_attributes(frame: &mut Frame, area: Rect, d: &Drawn<'_, HierarchiesScreen>) {
    let ds = d.session.dataset();
    let h = &d.me.state;
    let block = Block::bordered()
        .border_style(focus_border(h.focus == Focus::Attributes))
        .title(Span::styled(" Attributes ", title_style()))
        .title_bottom(Span::styled(
            " b build  i import  a export  x remove ",
            dim(),
        ));
    let inner = block.inner(area);
    let top = window_top(h.cursor, usize::from(inner.height));
    // Two names never alike in the column (`fit_column`).
    let all: Vec<&str> = (0..ds.n_cols()).map(|c| ds.col(c).name()).collect();
    let names = crate::widgets::fit_column(&all, 16);
    let lines: Vec<Line> = (top..ds.n_cols())
        .take(usize::from(inner.height))
        .map(|c| {
            let col = ds.col(c);
            let role = d.session.roles().get(c);
            let what = match d.session.hierarchies().get(col.name()) {
                Some(x) => Span::raw(format!("{} levels", x.hierarchy.levels())),
                None if role == Role::QuasiIdentifier => {
                    Span::styled("no hierarchy", Style::new().fg(Color::Yellow))
                }
                None => Span::styled("-", dim()),
            };
            let mut line = Line::from(vec![
                Span::styled(format!("{} ", role_tag(role)), role_style(role)),
                Span::raw(format!("{:<16} ", names[c])),
                what,
            ]);
            if c == h.cursor {
                line = line.style(cursor_style());
            }
            line
        })
        .collect();
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// Background of a heat-map cell for a strength in [0, 1].
fn heat(x: f64) -> Style {
    let (bg, fg) = match x {
        x if x < 0.1 => return Style::new(),
        x if x < 0.2 => (Color::Blue, Color::White),
        x if x < 0.4 => (Color::Cyan, Color::Black),
        x if x < 0.6 => (Color::Yellow, Color::Black),
        x if x < 0.8 => (Color::LightRed, Color::Black),
        _ => (Color::Red, Color::White),
    };
    Style::new().bg(bg).fg(fg)
}

/// How strong a value is on the heat scale: |r| for Pearson, a share of
/// the largest off-diagonal value for mutual information in bits (which has
/// no upper bound), the value itself for the measures in [0, 1].
fn strength(m: &CorrelationMatrix, v: f64) -> f64 {
    match m.measure {
        Measure::Pearson => v.abs(),
        Measure::Mi => {
            let n = m.columns.len();
            let max = (0..n)
                .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
                .filter_map(|(i, j)| m.get(i, j))
                .fold(0.0f64, f64::max);
            if max > 0.0 {
                v / max
            } else {
                0.0
            }
        }
        _ => v,
    }
}

fn draw_matrix(frame: &mut Frame, area: Rect, d: &Drawn<'_, HierarchiesScreen>) {
    let s = &&d.me.state.matrix;
    let mut title = vec![Span::styled(
        format!(" Correlation: {} ", s.measure.name()),
        title_style(),
    )];
    match s.job.state() {
        JobState::Running { .. } => title.push(Span::styled("computing… ", dim())),
        JobState::Cancelled => title.push(Span::styled("cancelled ", dim())),
        _ => {}
    }
    let block = Block::bordered()
        .title(Line::from(title))
        .title_bottom(Span::styled(" m measure ", dim()));
    if let Some(e) = &s.error {
        render_error(frame, area, block, e);
        return;
    }
    let Some(m) = s.view.as_ref().filter(|m| m.measure == s.measure) else {
        frame.render_widget(block, area);
        return;
    };
    // The columns that fit the panel: a row wrapped onto the next line
    // would read as another row. The title says how many are shown; the
    // chart (`e`) has them all.
    let n = m.columns.len();
    let inner = usize::from(area.width.saturating_sub(2));
    let shown = (inner.saturating_sub(ROW_LABEL + 1) / CELL).clamp(1, n.max(1));
    let block = if shown < n {
        block.title(Span::styled(format!("{shown}/{n} columns "), dim()))
    } else {
        block
    };
    let mut lines = vec![Line::from(Span::styled(s.measure.describe(), dim()))];
    // Two columns' names never alike ("occupation" and "occupation_2"
    // were both "occu…").
    let names: Vec<&str> = m.columns.iter().map(String::as_str).collect();
    let heads = crate::widgets::fit_column(&names, CELL - 1);
    let labels = crate::widgets::fit_column(&names, ROW_LABEL);
    let mut header = vec![Span::raw(" ".repeat(ROW_LABEL + 1))];
    header.extend(
        heads
            .iter()
            .take(shown)
            .map(|c| Span::styled(format!("{c:<CELL$}"), dim())),
    );
    lines.push(Line::from(header));
    for (i, label) in labels.iter().enumerate() {
        let mut row = vec![Span::styled(format!("{label:<w$} ", w = ROW_LABEL), dim())];
        for j in 0..shown.min(n) {
            let cell = match m.get(i, j) {
                None => Span::styled(format!("{:^w$}", "–", w = CELL - 1), dim()),
                Some(v) => {
                    let text = if v.abs() >= 10.0 {
                        format!("{v:>w$.1}", w = CELL - 1)
                    } else {
                        format!("{v:>w$.2}", w = CELL - 1)
                    };
                    let style = if i == j { dim() } else { heat(strength(m, v)) };
                    Span::styled(text, style)
                }
            };
            row.push(cell);
            row.push(Span::raw(" "));
        }
        lines.push(Line::from(row));
    }
    // Numeric columns with many values are binned for the measure: say so.
    let binned: Vec<String> = m
        .discretization
        .columns
        .iter()
        .filter(|c| !c.bins.is_empty())
        .map(|c| format!("{} into {} quantile bins", c.column, c.bins.len()))
        .collect();
    if !binned.is_empty() {
        lines.push(Line::from(Span::styled(
            format!("binned: {}", binned.join(", ")),
            dim(),
        )));
    }
    // The rows fit the panel (as many columns as it holds); only the
    // measure's description and the binning may need a second line.
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block),
        area,
    );
}

/// "level  values  records per value (min / median / max)" rows.
fn level_lines(levels: &[LevelStats]) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled(
        "level  values  records per value: min / median / max",
        dim(),
    ))];
    out.extend(levels.iter().map(|l| {
        Line::from(vec![
            Span::raw(format!("{:>5}  ", l.level)),
            Span::styled(format!("{:>6}", thousands(l.classes as u64)), title_style()),
            Span::raw(format!(
                "  {} / {} / {}",
                thousands(l.min),
                thousands(l.median),
                thousands(l.max)
            )),
        ])
    }));
    out
}

fn draw_tree(frame: &mut Frame, area: Rect, d: &Drawn<'_, HierarchiesScreen>) {
    let ds = d.session.dataset();
    let h = &d.me.state;
    let name = if ds.n_cols() > 0 {
        ds.col(h.cursor).name()
    } else {
        ""
    };
    let block = Block::bordered()
        .border_style(focus_border(h.focus == Focus::Tree))
        .title(Span::styled(
            format!(" Hierarchy of {name} "),
            title_style(),
        ))
        .title_bottom(Span::styled(
            " Space open/close  o open all  c close all ",
            dim(),
        ));
    let t: &TreeView = match &h.tree {
        None => {
            let p = Paragraph::new(vec![
                Line::from(format!("'{name}' has no hierarchy yet.")),
                Line::from(""),
                Line::from(Span::styled(
                    "b builds one from the data (intervals, quantiles, masking, grouping);",
                    dim(),
                )),
                Line::from(Span::styled(
                    "i imports an ARX file (leaf;level 1;...;*).",
                    dim(),
                )),
            ])
            .wrap(Wrap { trim: true })
            .block(block);
            frame.render_widget(p, area);
            return;
        }
        Some(Err(e)) => {
            render_error(frame, area, block, e);
            return;
        }
        Some(Ok(t)) => t,
    };
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut head = level_lines(&t.levels);
    head.push(Line::from(""));
    let head_height = (head.len() as u16).min(inner.height / 2);
    let [top, rest] =
        Layout::vertical([Constraint::Length(head_height), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(head), top);
    let height = usize::from(rest.height);
    let first = window_top(t.cursor, height);
    let lines: Vec<Line> = t
        .lines
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|(i, l)| {
            let mark = match l.open {
                Some(true) => "▾ ",
                Some(false) => "▸ ",
                None => "· ",
            };
            let mut spans = vec![
                Span::raw("  ".repeat(l.depth)),
                Span::styled(mark, dim()),
                Span::raw(l.label.clone()),
                Span::styled(format!("  {} rec", compact(l.records)), dim()),
            ];
            if l.level > 0 {
                let noun = if l.leaves == 1 { "leaf" } else { "leaves" };
                spans.push(Span::styled(format!(", {} {noun}", l.leaves), dim()));
            }
            let line = Line::from(spans);
            if i == t.cursor && h.focus == Focus::Tree {
                line.style(cursor_style())
            } else {
                line
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), rest);
}

fn draw_dialog(frame: &mut Frame, body: Rect, d: &HierarchyDialog) {
    let title = match d.kind {
        DialogKind::Build => format!(" Build a hierarchy for {} ", d.attribute),
        DialogKind::Import => format!(" Import a hierarchy for {} ", d.attribute),
        DialogKind::Export => format!(" Export the hierarchy of {} ", d.attribute),
    };
    let focus = |row: usize| {
        if d.focus == row {
            Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
        } else {
            dim()
        }
    };
    let mut lines = Vec::new();
    let mut level_rows = 0..0;
    let mut row = 0;
    if d.kind == DialogKind::Build {
        lines.push(Line::from(vec![
            Span::styled(format!("{:<16}", "builder"), focus(0)),
            Span::raw(format!("◂ {} ▸", d.builder.name())),
        ]));
        row = 1;
    }
    for (i, f) in d.fields.iter().enumerate() {
        let cursor = if d.focus == row + i { "█" } else { "" };
        lines.push(Line::from(vec![
            Span::styled(format!("{:<16}", f.label), focus(row + i)),
            Span::raw(format!("{}{cursor}", f.value)),
        ]));
    }
    if d.kind == DialogKind::Build {
        lines.push(Line::from(""));
        lines.push(Line::from(Span::styled(
            "Preview on the data",
            title_style(),
        )));
        if let Some(n) = &d.note {
            lines.push(Line::from(Span::styled(n.clone(), dim())));
        }
        match &d.preview {
            Ok(levels) => {
                // The level rows, after the table's header line.
                let first = lines.len() + 1;
                lines.extend(level_lines(levels));
                level_rows = first..lines.len();
            }
            Err(e) => lines.push(Line::from(Span::styled(
                e.clone(),
                Style::new().fg(Color::Red),
            ))),
        }
    }
    if let Some(f) = &d.folder {
        lines.push(Line::from(""));
        lines.push(Line::from(Span::styled(
            format!("{} file(s) named *hierarchy_<column>.csv", f.files.len()),
            title_style(),
        )));
        for (ok, text) in f.lines() {
            let colour = if ok { Color::Green } else { Color::Red };
            lines.push(Line::from(Span::styled(text, Style::new().fg(colour))));
        }
        lines.push(Line::from(Span::styled(f.summary(), dim())));
    }
    if let Some(e) = &d.error {
        lines.push(Line::from(""));
        lines.push(Line::from(Span::styled(
            e.clone(),
            Style::new().fg(Color::Red),
        )));
    }
    lines.push(Line::from(""));
    let enter = match d.kind {
        DialogKind::Build => "keep",
        DialogKind::Import if d.folder.is_some() => "bind",
        DialogKind::Import => "read (a folder: preview)",
        DialogKind::Export => "write",
    };
    let choose = if d.kind == DialogKind::Build {
        "   ←→ builder"
    } else {
        ""
    };
    lines.push(Line::from(Span::styled(
        format!("Enter {enter}   Tab/↑↓ field{choose}   Esc cancel"),
        dim(),
    )));
    let width = 72.min(body.width.saturating_sub(2));
    let inner_width = usize::from(width.saturating_sub(2)).max(1);
    // Long lines (errors) wrap: count the rows they take.
    let rows = |lines: &[Line]| -> usize {
        lines
            .iter()
            .map(|l| l.width().div_ceil(inner_width).max(1))
            .sum()
    };
    // Too tall for the terminal: the middle levels of the preview give
    // way (the first and the last stay, a line says how many are left
    // out), so the keys line at the bottom stays in view.
    let room = usize::from(body.height.saturating_sub(2));
    let over = rows(&lines).saturating_sub(room);
    if over > 0 && level_rows.len() > over + 2 {
        let cut = level_rows.start + 1..level_rows.start + 2 + over;
        let left_out = cut.len();
        lines.splice(
            cut,
            [Line::from(Span::styled(
                format!("    … {left_out} levels (a taller terminal shows them)"),
                dim(),
            ))],
        );
    }
    let popup = centered(body, width, rows(&lines) as u16 + 2);
    let p = Paragraph::new(lines).wrap(Wrap { trim: false }).block(
        Block::bordered()
            .border_type(BorderType::Rounded)
            .border_style(Style::new().fg(Color::Cyan))
            .title(title),
    );
    crate::widgets::clear_under_popup(frame, popup);
    frame.render_widget(p, popup);
}

/// A failed computation's message in red, wrapped inside the pane's block.
fn render_error(frame: &mut Frame, area: Rect, block: Block<'_>, message: &str) {
    let p = Paragraph::new(message)
        .style(Style::new().fg(Color::Red))
        .wrap(Wrap { trim: true })
        .block(block);
    frame.render_widget(p, area);
}
