//! The Compare screen: the compare set's metrics table (one row per entry,
//! the best value of each column in bold) and the overlaid CDFs of every
//! finished entry over the original data's curve.
//!
//! The table keeps the entry's identity on the left (number, algorithm,
//! k, l or p, seed) and scrolls the metric columns with `h`/`l` when the
//! terminal is too narrow for all of them; `◀`/`▶` in the header say that
//! columns are hidden on that side. Every curve of the chart has its own
//! marker as well as its own colour, and the legend shows the marker, so
//! the chart reads in the monochrome theme too.

use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Chart, Dataset, GraphType, LegendPosition, Paragraph, Wrap};
use ratatui::Frame;

use crate::keymap::{Action, Scope};
use crate::layout::compare_split;
use crate::screens::compare::CompareScreen;
use crate::screens::compare::{EntryState, Measured, Outcome, QueryError, METRIC_COLUMNS};
use crate::screens::Drawn;
use crate::shared::{step_series, text_width};
use crate::shared::{JobState, Screen};
use crate::widgets::{
    self, cursor_style, dim, thousands, title_style, too_small, unit_axis, CHART_MIN,
};
use anonlab::release::short_fingerprint;

/// Marker and colour of entry i's curve (cycled past the end).
const MARKERS: [char; 8] = ['•', '+', 'x', 'o', '*', '#', '%', '@'];
const COLORS: [Color; 8] = [
    Color::Cyan,
    Color::Yellow,
    Color::Magenta,
    Color::Green,
    Color::Blue,
    Color::Red,
    Color::LightCyan,
    Color::LightMagenta,
];
/// The original data's curve: dim braille, the reference under the others.
const ORIGINAL_MARK: &str = "⠤";

/// Widths of the identity columns: #, algorithm, k, l/p, seed.
const ID_WIDTHS: [u16; 5] = [3, 12, 4, 5, 6];

/// Which way a metric is better, for the highlight.
#[derive(Clone, Copy, PartialEq)]
enum Better {
    Lower,
    Higher,
    Neither,
}

/// One metric column: its header, width, and the value of a measured entry
/// (text, and the number compared for the highlight).
struct Metric {
    title: String,
    width: u16,
    better: Better,
    value: fn(&Measured, f64) -> (String, Option<f64>),
}

/// The table's metric columns; a perturbation's own columns only when an
/// entry has its figures (a set of generalizations would show four columns
/// of dashes in their place).
fn metrics(threshold: f64, perturbed_entries: bool) -> Vec<Metric> {
    let mut all = Vec::from(all_metrics(threshold));
    if !perturbed_entries {
        all.retain(|m| !PERTURBATION_COLUMNS.contains(&m.title.as_str()));
    }
    all
}

/// The headers of the columns only a perturbation fills.
const PERTURBATION_COLUMNS: [&str; 4] = ["dRisk", "linked", "IL1s/cell", "changed"];

fn all_metrics(threshold: f64) -> [Metric; METRIC_COLUMNS] {
    fn num(v: f64, digits: usize) -> (String, Option<f64>) {
        (format!("{v:.digits$}"), Some(v))
    }
    [
        Metric {
            title: "ok".into(),
            width: 3,
            better: Better::Neither,
            value: |m, _| {
                let ok = m.evaluation.verification.all_hold();
                ((if ok { "✓" } else { "✗" }).into(), None)
            },
        },
        Metric {
            title: "mean".into(),
            width: 7,
            better: Better::Lower,
            value: |m, _| m.shown().map_or_else(dash_pair, |d| num(d.summary.mean, 4)),
        },
        Metric {
            title: "max".into(),
            width: 7,
            better: Better::Lower,
            value: |m, _| m.shown().map_or_else(dash_pair, |d| num(d.summary.max, 4)),
        },
        Metric {
            title: format!(">{threshold:.2}"),
            width: 7,
            better: Better::Lower,
            value: |m, t| {
                m.share_above(t)
                    .map_or_else(dash_pair, |s| (format!("{:.1}%", s * 100.0), Some(s)))
            },
        },
        Metric {
            title: "C_DM".into(),
            width: 13,
            better: Better::Lower,
            value: |m, _| {
                let d = m.evaluation.utility.discernibility;
                (thousands(d), Some(d as f64))
            },
        },
        Metric {
            title: "NCP sum".into(),
            width: 10,
            better: Better::Lower,
            value: |m, _| num(m.evaluation.utility.ncp, 1),
        },
        Metric {
            title: "IL".into(),
            width: 10,
            better: Better::Lower,
            value: |m, _| m.il.map_or_else(dash_pair, |v| num(v, 1)),
        },
        Metric {
            title: "GLP".into(),
            width: 7,
            better: Better::Lower,
            value: |m, _| {
                m.evaluation
                    .correspondence
                    .as_ref()
                    .map_or_else(dash_pair, |c| num(c.glp, 4))
            },
        },
        Metric {
            title: "query err".into(),
            width: 9,
            better: Better::Lower,
            value: |m, _| match &m.queries {
                QueryError::Waiting => ("…".into(), None),
                QueryError::Done(Some(e)) => num(*e, 4),
                QueryError::Done(None) => dash_pair(),
                QueryError::Failed(_) => ("failed".into(), None),
            },
        },
        // A perturbation's own figures (the evaluation's, as `compare`
        // prints them): the interval measure and record linkage of the
        // numeric attributes, their IL1s per cell, PRAM's changed cells.
        // A generalization has none ("—"); its risk is the class columns'.
        Metric {
            title: "dRisk".into(),
            width: 7,
            better: Better::Lower,
            value: |m, _| {
                perturbed(m)
                    .and_then(|f| f.interval_risk)
                    .map_or_else(dash_pair, percent)
            },
        },
        Metric {
            title: "linked".into(),
            width: 7,
            better: Better::Lower,
            value: |m, _| {
                perturbed(m)
                    .and_then(|f| f.linkage.as_ref())
                    .map_or_else(dash_pair, |l| percent(l.share))
            },
        },
        Metric {
            title: "IL1s/cell".into(),
            width: 9,
            better: Better::Lower,
            value: |m, _| {
                perturbed(m)
                    .and_then(|f| f.il1s_per_cell)
                    .map_or_else(dash_pair, |v| num(v, 4))
            },
        },
        Metric {
            title: "changed".into(),
            width: 7,
            better: Better::Lower,
            value: |m, _| {
                perturbed(m)
                    .and_then(|f| f.changed_share())
                    .map_or_else(dash_pair, percent)
            },
        },
        Metric {
            title: "groups".into(),
            width: 7,
            better: Better::Higher,
            value: |m, _| {
                let g = m.evaluation.groups;
                (thousands(g as u64), Some(g as f64))
            },
        },
        Metric {
            title: "ms".into(),
            width: 9,
            better: Better::Lower,
            value: |m, _| num(m.evaluation.time_ms, 1),
        },
        Metric {
            title: "release".into(),
            width: 12,
            better: Better::Neither,
            value: |m, _| (short_fingerprint(&m.fingerprint).to_string(), None),
        },
    ]
}

fn dash_pair() -> (String, Option<f64>) {
    ("—".to_string(), None)
}

fn percent(share: f64) -> (String, Option<f64>) {
    (format!("{:.1}%", share * 100.0), Some(share))
}

fn perturbed(m: &Measured) -> Option<&anonlab::metrics::PerturbationFigures> {
    m.evaluation.perturbation.as_ref()
}

pub(super) fn draw(frame: &mut Frame, body: Rect, d: &Drawn<'_, CompareScreen>) {
    let c = &d.me.state;
    if c.entries.is_empty() {
        draw_empty(frame, body, d);
        return;
    }
    let [table, chart] = compare_split(body, c.entries.len());
    draw_table(frame, table, d);
    draw_chart(frame, chart, d);
}

/// No entry yet: how to add one.
fn draw_empty(frame: &mut Frame, area: Rect, d: &Drawn<'_, CompareScreen>) {
    let add = d
        .keymap
        .keys_for(Scope::Screen(Screen::Anonymize), Action::AddToCompare);
    let text = vec![
        Line::from("The compare set is empty."),
        Line::from(""),
        Line::from(format!(
            "On the Anonymize screen (key 3), choose an algorithm and its k, l, p and seed, \
             then press {add} to add them here. Add as many as you like, then run them all \
             side by side (R): a metrics table and their CDFs overlaid."
        )),
        Line::from(""),
        Line::from(
            "Each entry keeps its algorithm, k, l, p and seed; the roles, sensitive cells, \
             hierarchies, t-closeness and full-domain settings are the session's when it runs.",
        ),
    ];
    let p = Paragraph::new(text)
        .style(dim())
        .wrap(Wrap { trim: true })
        .block(Block::bordered().title(Span::styled(" Compare ", title_style())));
    frame.render_widget(p, area);
}

fn draw_table(frame: &mut Frame, area: Rect, d: &Drawn<'_, CompareScreen>) {
    let c = &d.me.state;
    let status = match c.job.state() {
        JobState::Running { .. } => Span::styled(
            format!(" running {:.0}% (Esc stops) ", c.fraction() * 100.0),
            Style::new().fg(Color::Yellow),
        ),
        JobState::Cancelled => Span::styled(" stopped ", Style::new().fg(Color::Yellow)),
        _ => Span::raw(""),
    };
    let n = c.entries.len();
    let title = Line::from(vec![
        Span::styled(
            format!(
                " Compare set · {n} {} · risk: {} ",
                if n == 1 { "entry" } else { "entries" },
                c.shown.label()
            ),
            title_style(),
        ),
        status,
    ]);
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);

    let threshold = d.session.threshold();
    let perturbed_entries = c.entries.iter().any(|e| match &e.outcome {
        Outcome::Measured(m) => perturbed(m).is_some(),
        _ => false,
    });
    let metrics = metrics(threshold, perturbed_entries);
    let columns = metrics.len();
    let width = inner.width;
    let id_width: u16 = ID_WIDTHS.iter().map(|w| w + 1).sum();
    // Metric columns from `left` while they fit; scrolled to the end, the
    // last columns fill the width rather than leaving it blank.
    let fits_from =
        |from: usize| id_width + metrics[from..].iter().map(|m| m.width + 1).sum::<u16>() <= width;
    let last_left = (0..columns).find(|&i| fits_from(i)).unwrap_or(columns - 1);
    let left = c.left.min(last_left);
    let mut shown = Vec::new();
    let mut used = id_width;
    for (i, m) in metrics.iter().enumerate().skip(left) {
        if used + m.width + 1 > width {
            break;
        }
        used += m.width + 1;
        shown.push(i);
    }
    let more_right = shown.last().is_some_and(|&i| i + 1 < columns) || shown.is_empty();
    let best: Vec<Option<f64>> = metrics
        .iter()
        .map(|m| best_of(m, &c.entries, threshold))
        .collect();

    let mut lines = Vec::with_capacity(c.entries.len() + 5);
    let pad = |s: &str, w: u16| format!("{s:>w$} ", w = usize::from(w));
    let mut header: Vec<Span> = ["#", "algorithm", "k", "l/p", "seed"]
        .iter()
        .zip(ID_WIDTHS)
        .enumerate()
        .map(|(i, (t, w))| {
            let text = if i == 1 {
                format!("{t:<w$} ", w = usize::from(w))
            } else {
                pad(t, w)
            };
            Span::styled(text, title_style())
        })
        .collect();
    if left > 0 {
        header.push(Span::styled("◀", dim()));
    }
    for &i in &shown {
        header.push(Span::styled(
            pad(&metrics[i].title, metrics[i].width),
            title_style(),
        ));
    }
    if more_right {
        header.push(Span::styled("▶", dim()));
    }
    lines.push(Line::from(header));

    for (n, e) in c.entries.iter().enumerate() {
        let mut spans = identity(n, e);
        match &e.outcome {
            Outcome::Measured(m) => {
                for &i in &shown {
                    let metric = &metrics[i];
                    let (text, v) = (metric.value)(m, threshold);
                    let mut style = Style::new();
                    if v.is_some() && v == best[i] {
                        style = style.fg(Color::Green).add_modifier(Modifier::BOLD);
                    }
                    if i == 0 && !m.evaluation.verification.all_hold() {
                        style = style.fg(Color::Red);
                    }
                    spans.push(Span::styled(pad(&text, metric.width), style));
                }
            }
            Outcome::Pending => spans.push(Span::styled("not run yet (R runs it)", dim())),
            Outcome::Running => spans.push(Span::styled("running…", dim())),
            Outcome::Infeasible(why) => spans.push(Span::styled(
                format!("infeasible: {why}"),
                Style::new().fg(Color::Yellow),
            )),
            Outcome::Failed(why) => spans.push(Span::styled(
                format!("failed: {why}"),
                Style::new().fg(Color::Red),
            )),
        }
        let mut line = Line::from(spans);
        if n == c.cursor {
            line = line.style(cursor_style());
        }
        lines.push(line);
    }
    lines.push(Line::from(""));
    let notes = [
        format!(
            "mean, max: {} (breach with a sensitive attribute, else Pr(re-id)) · >{:.2}: share \
             above the Risk screen's threshold · best in bold",
            c.shown.label(),
            threshold
        ),
        "NCP sum: over the QI cells (the Anonymize screen's GCP share is it per cell) · \
         release: SHA-256 fingerprint of the published files"
            .to_string(),
        "entry = algorithm, k, l/p, seed; roles, cells, hierarchies, t-closeness: the \
         session's · R runs what changed · Enter loads · x removes · h/l scroll"
            .to_string(),
        "IL: p-sensitive paper, Def. 10 · GLP: bucketized releases · query err: relative, \
         workload seeded by the entry's seed · ms: algorithm"
            .to_string(),
    ];
    lines.extend(notes.into_iter().map(|n| Line::styled(n, dim())));
    // The rows fit the width (the metric columns scroll); a note too long
    // wraps rather than losing its end.
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// The entry's identity cells: number, algorithm, k, l or p, seed.
fn identity(n: usize, e: &EntryState) -> Vec<Span<'static>> {
    let en = &e.entry;
    let lp = match (en.l, en.p) {
        (_, Some(p)) => format!("p={p}"),
        (Some(l), None) => l.to_string(),
        (None, None) => "–".into(),
    };
    let [wn, wa, wk, wl, ws] = ID_WIDTHS.map(usize::from);
    vec![
        Span::styled(
            format!("{:>wn$} ", format!("{}{}", marker_of(n), n + 1)),
            Style::new().fg(color_of(n)),
        ),
        // An id longer than the column ("local-suppression") is cut with
        // "…"; padding alone pushed k, l and the seed off their headers.
        Span::raw(format!("{:<wa$} ", widgets::cut(&en.algorithm, wa))),
        Span::raw(format!("{:>wk$} ", en.k)),
        Span::raw(format!("{lp:>wl$} ")),
        Span::raw(format!("{:>ws$} ", en.seed)),
    ]
}

/// The best value of a metric over the measured entries, if it has a
/// direction and at least two entries to compare.
fn best_of(metric: &Metric, entries: &[EntryState], threshold: f64) -> Option<f64> {
    let values = entries.iter().filter_map(|e| match &e.outcome {
        Outcome::Measured(m) => (metric.value)(m, threshold).1,
        _ => None,
    });
    let values: Vec<f64> = values.collect();
    if values.len() < 2 {
        return None;
    }
    match metric.better {
        Better::Lower => values.into_iter().reduce(f64::min),
        Better::Higher => values.into_iter().reduce(f64::max),
        Better::Neither => None,
    }
}

fn marker_of(n: usize) -> char {
    MARKERS[n % MARKERS.len()]
}

fn color_of(n: usize) -> Color {
    COLORS[n % COLORS.len()]
}

/// The CDFs of every measured entry over the original data's curve.
fn draw_chart(frame: &mut Frame, area: Rect, d: &Drawn<'_, CompareScreen>) {
    if area.height < 5 {
        return;
    }
    let c = &d.me.state;
    let probability = c.shown.label();
    // The title whole, or its short form, or cut with "…": a block's
    // title is otherwise cut at the border without saying so.
    let room = usize::from(area.width.saturating_sub(2));
    let long = format!(" CDF of the {probability}: share of records at or below ");
    let short = format!(" CDF of the {probability} ");
    let title = if text_width(&long) as usize <= room {
        long
    } else {
        widgets::cut(&short, room)
    };
    let block = Block::bordered().title(Span::styled(title, title_style()));
    let names: Vec<String> = c
        .entries
        .iter()
        .enumerate()
        .map(|(n, e)| format!("{} {} {}", marker_of(n), n + 1, e.entry.algorithm))
        .collect();
    if let Some(why) = too_small(area, CHART_MIN.0, CHART_MIN.1) {
        let why = Paragraph::new(why).wrap(Wrap { trim: true });
        frame.render_widget(why.style(dim()).block(block), area);
        return;
    }
    let original = c
        .original(d.session)
        .map(|d| step_series(d.cdf.iter().map(|p| (p.probability, p.share))));
    let mut datasets = Vec::new();
    if let Some(curve) = &original {
        datasets.push(
            Dataset::default()
                .name(format!("{ORIGINAL_MARK} original"))
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(dim())
                .data(curve),
        );
    }
    for (n, e) in c.entries.iter().enumerate() {
        let Outcome::Measured(m) = &e.outcome else {
            continue;
        };
        if m.curve.is_empty() {
            continue;
        }
        datasets.push(
            Dataset::default()
                .name(names[n].clone())
                .marker(Marker::Custom(marker_of(n)))
                .graph_type(GraphType::Line)
                .style(Style::new().fg(color_of(n)))
                .data(&m.curve),
        );
    }
    if datasets.is_empty() {
        let p = Paragraph::new("Run the set (R) to draw the entries' CDFs here.")
            .style(dim())
            .block(block);
        frame.render_widget(p, area);
        return;
    }
    let chart = Chart::new(datasets)
        .block(block)
        .x_axis(unit_axis(probability))
        .y_axis(unit_axis("share"))
        .legend_position(Some(LegendPosition::BottomRight))
        .hidden_legend_constraints((Constraint::Percentage(60), Constraint::Percentage(90)));
    frame.render_widget(chart, area);
}
