//! Full-domain's lattice view on the Anonymize screen: one row per height
//! of the lattice (the top node first), each node written as its status
//! mark and level vector (`+120`), so the view reads without colour too:
//! `+` anonymous (green), `-` not anonymous (red), `?` pruned, never
//! resolved (grey), `*` the optimum (yellow); bold when the search checked
//! the node, dim when it inferred the answer by predictive tagging; the
//! published node in brackets, the focused one reversed. Below the rows,
//! the focused node's levels, what the search knows of it with its metric
//! (or the metric's lower bound when it was not measured), and whether it
//! is published and verified. Rows wider than the panel show a window
//! around the cursor, with the count of nodes left out on each side.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

use crate::screens::anonymize::levels_text;
use crate::screens::anonymize::AnonymizeScreen;
use crate::screens::lattice::LatticeState;
use crate::screens::release::AnonymizeView;
use crate::screens::Drawn;
use crate::session::FULL_DOMAIN;
use crate::shared::JobState;
use crate::widgets::{dim, thousands, title_style};
use anonlab::algorithms::full_domain::{LatticeMap, LatticeNode, Metric, NodeStatus, SearchReport};

/// Width of a row's label ("h 12").
const LABEL: u16 = 5;
/// Width of the markers counting the nodes left out of a row on each side.
const MARKER: u16 = 5;

pub(super) fn draw(frame: &mut Frame, area: Rect, d: &Drawn<'_, AnonymizeScreen>) {
    let s = &d.me.state;
    let view = s.view.as_ref();
    let report = view.and_then(|v| v.full_domain.as_ref());
    let title = match report {
        Some(r) => Line::from(vec![
            Span::styled(" Lattice ", title_style()),
            // Cut with "…" to the border (it clipped "(L closes" there).
            Span::styled(
                crate::widgets::cut(
                    &format!(
                        "of {}: {} nodes, {} checked  (L closes) ",
                        r.attributes.join(", "),
                        thousands(r.lattice_size as u64),
                        thousands(r.checked as u64)
                    ),
                    usize::from(area.width.saturating_sub(2 + 9)),
                ),
                dim(),
            ),
        ]),
        None => Line::from(Span::styled(" Lattice ", title_style())),
    };
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let note = |frame: &mut Frame, text: String, color: Color| {
        frame.render_widget(
            Paragraph::new(text)
                .style(Style::new().fg(color))
                .wrap(Wrap { trim: true }),
            inner,
        );
    };
    if s.choice().id != FULL_DOMAIN {
        return note(
            frame,
            "The lattice is full-domain's: choose it with a / A (L closes this view).".into(),
            Color::Yellow,
        );
    }
    let Some(r) = report else {
        let text = match (s.job.state(), &s.error, &s.blocked) {
            (_, _, Some(why)) => why.clone(),
            (JobState::Running { .. }, _, _) => "searching the lattice…".into(),
            (_, Some((_, e)), _) => e.clone(),
            _ => "not searched yet (R runs)".into(),
        };
        return note(frame, text, Color::Yellow);
    };
    let view = view.expect("a report comes with its view");
    let [legend, rows, detail] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(3),
    ])
    .areas(inner);
    frame.render_widget(legend_line(&s.lattice), legend);
    draw_rows(frame, rows, &s.lattice, r);
    frame.render_widget(
        Paragraph::new(detail_lines(d, &s.lattice, r, view)).wrap(Wrap { trim: true }),
        detail,
    );
}

fn legend_line(s: &LatticeState) -> Line<'static> {
    let c = &s.counts;
    let mut spans = vec![
        Span::styled("+", status_style(NodeStatus::Anonymous, true, false)),
        Span::styled(format!(" anonymous {}  ", c.anonymous.0), dim()),
        Span::styled("-", status_style(NodeStatus::NotAnonymous, true, false)),
        Span::styled(format!(" not anonymous {}  ", c.not_anonymous.0), dim()),
    ];
    if c.pruned > 0 {
        spans.push(Span::styled(
            "?",
            status_style(NodeStatus::Pruned, false, false),
        ));
        spans.push(Span::styled(format!(" pruned {}  ", c.pruned), dim()));
    }
    spans.push(Span::styled(
        "*",
        status_style(NodeStatus::Anonymous, true, true),
    ));
    spans.push(Span::styled(
        " optimum  [ ] published  bold: checked, dim: inferred",
        dim(),
    ));
    Line::from(spans)
}

/// A node's colour: its status, the optimum yellow; bold when checked,
/// dim when inferred.
fn status_style(status: NodeStatus, checked: bool, optimum: bool) -> Style {
    let color = match status {
        _ if optimum => Color::Yellow,
        NodeStatus::Anonymous => Color::Green,
        NodeStatus::NotAnonymous => Color::Red,
        NodeStatus::Pruned => Color::DarkGray,
    };
    let style = Style::new().fg(color);
    if checked {
        style.add_modifier(Modifier::BOLD)
    } else {
        style.add_modifier(Modifier::DIM)
    }
}

fn mark(status: NodeStatus, optimum: bool) -> char {
    match status {
        _ if optimum => '*',
        NodeStatus::Anonymous => '+',
        NodeStatus::NotAnonymous => '-',
        NodeStatus::Pruned => '?',
    }
}

/// The level vector packed: one digit per attribute when every hierarchy
/// has at most ten levels, else the levels joined by dots.
fn packed(map: &LatticeMap, levels: &[usize]) -> String {
    let digits = map.levels().iter().all(|&n| n <= 10);
    let parts: Vec<String> = levels.iter().map(|l| l.to_string()).collect();
    parts.join(if digits { "" } else { "." })
}

/// The first of `len` nodes to draw when `fit` fit, centred on `at`.
fn window_start(at: f64, len: usize, fit: usize) -> usize {
    let start = (at - fit as f64 / 2.0).round().max(0.0) as usize;
    start.min(len.saturating_sub(fit))
}

fn draw_rows(frame: &mut Frame, area: Rect, s: &LatticeState, r: &SearchReport) {
    let map = &r.lattice;
    let Some(focus) = s.focused(map) else {
        return;
    };
    let published = map.index(&r.published().levels);
    let optimum = map.index(&r.optimum.levels);
    let focus_h = map.height(focus);
    let focus_row = &s.rows[focus_h];
    let focus_pos = focus_row.binary_search(&focus).unwrap_or(0);
    let frac = (focus_pos as f64 + 0.5) / focus_row.len().max(1) as f64;
    let cell = packed(map, &map.vector(0)).chars().count() + 3;
    let room = area.width.saturating_sub(LABEL + 2 * MARKER) as usize;
    let fit = (room / cell).max(1);
    // Rows top down: the top node first.
    let total = s.rows.len();
    let visible = usize::from(area.height).min(total);
    let focus_line = total - 1 - focus_h;
    let top = window_start(focus_line as f64 + 0.5, total, visible);
    let mut lines = Vec::with_capacity(visible);
    for line in top..top + visible {
        let h = total - 1 - line;
        let row = &s.rows[h];
        let at = if h == focus_h {
            focus_pos as f64 + 0.5
        } else {
            frac * row.len() as f64
        };
        let start = window_start(at, row.len(), fit);
        let end = (start + fit).min(row.len());
        let mut spans = vec![Span::styled(format!("h {h:<3}"), dim())];
        spans.push(Span::styled(side_marker(start, true), dim()));
        // Rows centred, so the lattice reads as its diagram does.
        spans.push(Span::raw(
            " ".repeat(room.saturating_sub((end - start) * cell) / 2),
        ));
        for &i in &row[start..end] {
            let node: &LatticeNode = &map.nodes[i];
            let is_opt = Some(i) == optimum;
            let (open, close) = if Some(i) == published {
                ("[", "]")
            } else {
                (" ", " ")
            };
            let mut style = status_style(node.status, node.checked || is_opt, is_opt);
            if i == focus {
                style = style.add_modifier(Modifier::REVERSED);
            }
            spans.push(Span::raw(open));
            spans.push(Span::styled(
                format!(
                    "{}{}",
                    mark(node.status, is_opt),
                    packed(map, &map.vector(i))
                ),
                style,
            ));
            spans.push(Span::raw(close));
        }
        spans.push(Span::styled(side_marker(row.len() - end, false), dim()));
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// "‹12 " before a row's window, " 12›" after it: the nodes left out.
fn side_marker(hidden: usize, before: bool) -> String {
    let w = usize::from(MARKER);
    match (hidden, before) {
        (0, _) => " ".repeat(w),
        (n, true) if n < 1000 => format!("‹{n:<3} "),
        (n, false) if n < 1000 => format!(" {n:>3}›"),
        (_, true) => "‹…   ".into(),
        (_, false) => "   …›".into(),
    }
}

fn metric_text(metric: Metric, v: f64) -> String {
    match metric {
        Metric::Loss => format!("{v:.4}"),
        Metric::Discernibility | Metric::Height => thousands(v.round() as u64),
    }
}

/// The focused node: its levels, what the search knows of it, and whether
/// it is published.
fn detail_lines(
    d: &Drawn<'_, AnonymizeScreen>,
    s: &LatticeState,
    r: &SearchReport,
    view: &AnonymizeView,
) -> Vec<Line<'static>> {
    let map = &r.lattice;
    let Some(i) = s.focused(map) else {
        return Vec::new();
    };
    let levels = map.vector(i);
    let node = &map.nodes[i];
    let is_opt = levels == r.optimum.levels;
    let per_attribute: Vec<String> = r
        .attributes
        .iter()
        .zip(&levels)
        .zip(&r.heights)
        .map(|((a, l), h)| format!("{a} {l}/{h}"))
        .collect();
    let first = Line::from(vec![
        Span::styled(format!("node {} ", levels_text(&levels)), title_style()),
        Span::styled(per_attribute.join(", "), dim()),
    ]);
    let m = r.metric;
    let limit = thousands(r.suppression_limit_rows);
    let figures = |f: &anonlab::algorithms::full_domain::NodeFigures| {
        format!(
            "{m} {}, {} classes, {} rows suppressed",
            metric_text(m, f.metric),
            thousands(f.classes as u64),
            thousands(f.suppressed_rows)
        )
    };
    let known = match (node.status, node.checked, &node.figures) {
        (NodeStatus::Anonymous, true, Some(f)) => format!(
            "{}anonymous, checked: {}",
            if is_opt { "the optimum: " } else { "" },
            figures(f)
        ),
        (NodeStatus::Anonymous, _, _) => format!(
            "anonymous, inferred from a checked node below it (not measured): {m} ≥ {}",
            metric_text(m, node.bound)
        ),
        (NodeStatus::NotAnonymous, true, _) => {
            format!("not anonymous, checked: more than {limit} rows (the limit) fail the model")
        }
        (NodeStatus::NotAnonymous, false, _) => format!(
            "not anonymous, inferred from a checked node above it: more than {limit} rows would be suppressed"
        ),
        (NodeStatus::Pruned, _, _) => format!(
            "pruned: never resolved, its {m} is at least {}, not below the optimum's {}",
            metric_text(m, node.bound),
            metric_text(m, r.optimum.metric)
        ),
    };
    let color = match node.status {
        _ if is_opt => Color::Yellow,
        NodeStatus::Anonymous => Color::Green,
        NodeStatus::NotAnonymous => Color::Red,
        NodeStatus::Pruned => Color::DarkGray,
    };
    let second = Line::from(Span::styled(known, Style::new().fg(color)));
    let third = Line::from(publish_spans(d, r, view, &levels, is_opt));
    vec![first, second, third]
}

/// Whether the focused node is the one published, verified, or what Enter
/// does.
fn publish_spans(
    d: &Drawn<'_, AnonymizeScreen>,
    r: &SearchReport,
    view: &AnonymizeView,
    levels: &[usize],
    is_opt: bool,
) -> Vec<Span<'static>> {
    let s = &d.me.state;
    if s.job.is_running() {
        return vec![Span::styled(
            "making the release of the node asked for…",
            Style::new().fg(Color::Yellow),
        )];
    }
    if r.published().levels != levels || view.inputs != d.me.inputs(d.session) {
        let what = if is_opt {
            "Enter publishes the optimum again"
        } else {
            "Enter publishes this node instead of the optimum (verified like every release)"
        };
        return vec![Span::styled(what, dim())];
    }
    let mut spans = vec![Span::styled(
        match &r.chosen {
            Some(c) if c.within_limit => "published (chosen), within the suppression limit: ",
            Some(_) => "published (chosen), above the suppression limit: ",
            None => "published (the optimum): ",
        },
        dim(),
    )];
    if let Some(c) = &r.chosen {
        spans.push(Span::styled(
            format!(
                "{} rows suppressed, {m} {}; ",
                thousands(c.node.suppressed_rows),
                metric_text(r.metric, c.node.metric),
                m = r.metric
            ),
            dim(),
        ));
    }
    let v = &view.evaluation.verification;
    spans.push(if v.all_hold() {
        Span::styled("verified ✓", Style::new().fg(Color::Green))
    } else {
        let failed: Vec<String> = v.failures().map(|c| c.claim.clone()).collect();
        Span::styled(
            format!("refused by the verifier: {}", failed.join("; ")),
            Style::new().fg(Color::Red),
        )
    });
    spans
}
