//! The Anonymize screen: the parameters, the release's figures and its
//! verification, the breach-probability and re-identification CDFs before
//! and after, and the published table (only the rows on screen, rendered
//! by the app when they changed).

use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Chart, Gauge, LegendPosition, Paragraph, Row, Table, Wrap};
use ratatui::Frame;

mod lattice;
mod record;
mod side_by_side;
mod sweep;

use crate::layout::{anonymize_areas, anonymize_compact, anonymize_view_area, ANON_PARAMS_WIDTH};
use crate::screens::anonymize::AnonymizeScreen;
use crate::screens::anonymize::{Param, QueriesState};
use crate::screens::release::{AnonymizeView, CellMark, Curve};
use crate::screens::Drawn;
use crate::session::{CONSTRUCTION, FULL_DOMAIN};
use crate::shared::JobState;
use crate::theme;
use crate::widgets::{
    self, before_after, dim, thousands, title_style, too_small, unit_axis, CHART_MIN,
};
use anonlab::algorithms::local_suppression::ID as LOCAL_SUPPRESSION;
use anonlab::release::short_fingerprint;

pub(super) fn draw(frame: &mut Frame, body: Rect, d: &Drawn<'_, AnonymizeScreen>) {
    let a = anonymize_areas(body);
    // A view over the charts and the table: on a short terminal it has the
    // whole body (`anonymize_view_area`), drawn over nothing.
    let views = anonymize_view_area(body);
    let compact = anonymize_compact(body.height);
    let open = d.me.sweep.open
        || d.me.state.lattice.open
        || d.me.state.side_by_side.open
        || (d.me.state.show_detail && compact);
    if !open || views != body {
        draw_params(frame, a.params, d);
        if d.me.state.blocked.is_some() && a.checks.x == a.figures.x {
            // Nothing to verify: the reason it cannot run has the checks'
            // rows too, so it is read whole on a short terminal.
            draw_figures(frame, a.figures.union(a.checks), d);
        } else {
            draw_figures(frame, a.figures, d);
            if a.checks.height > 0 {
                draw_checks(frame, a.checks, d);
            }
        }
        draw_gauge(frame, a.gauge, d);
    }
    if d.me.sweep.open {
        sweep::draw(frame, views, d);
        return;
    }
    if d.me.state.lattice.open {
        lattice::draw(frame, views, d);
        return;
    }
    if d.me.state.side_by_side.open {
        side_by_side::draw(frame, views, d);
        return;
    }
    let view = d.me.state.view.as_ref();
    if d.me.state.show_detail {
        if compact {
            // No room for both: the record takes the table's rows.
            record::draw(frame, views, d);
        } else {
            record::draw(frame, a.breach.union(a.reid), d);
            draw_table(frame, a.table, d);
        }
        return;
    }
    let baseline = d.session.baseline().map(|b| b.baseline());
    let breach = view.and_then(|v| {
        let (name, after) = v.breach.as_ref()?;
        let before = baseline?
            .breach
            .as_ref()
            .map(|b| Curve::of(&b.distribution))?;
        Some((name.as_str(), before, after))
    });
    if compact {
        let note = match (view, &breach) {
            (None, _) => "",
            (Some(_), None) => {
                " No sensitive attribute: mark one on the Data screen to see breach probabilities."
            }
            (Some(_), Some(_)) => fit(
                " CDF charts: enlarge the terminal to see them; e exports them",
                " charts: enlarge the terminal; e exports them",
                a.breach.union(a.reid).width,
            ),
        };
        frame.render_widget(Paragraph::new(note).style(dim()), a.breach.union(a.reid));
        draw_table(frame, a.table, d);
        return;
    }
    match breach {
        Some((name, before, after)) => draw_cdf(
            frame,
            a.breach,
            &format!(" Breach p(t, {name}) CDF "),
            &before,
            after,
            d,
        ),
        None => {
            let text = if view.is_some() {
                "No sensitive attribute: mark one on the Data screen to see breach probabilities."
            } else {
                ""
            };
            frame.render_widget(
                Paragraph::new(text)
                    .style(dim())
                    .wrap(Wrap { trim: true })
                    .block(Block::bordered().title(Span::styled(" Breach CDF ", title_style()))),
                a.breach,
            );
        }
    }
    match (view, baseline) {
        (Some(v), Some(b)) => draw_cdf(
            frame,
            a.reid,
            " Pr(re-id) CDF, linkage ",
            &Curve::of(&b.linkage),
            &v.reidentification,
            d,
        ),
        _ => frame.render_widget(
            Block::bordered().title(Span::styled(" Pr(re-id) CDF ", title_style())),
            a.reid,
        ),
    }
    draw_table(frame, a.table, d);
}

fn key_hint(keys: &str) -> Span<'static> {
    Span::styled(format!("  {keys}"), dim())
}

/// The line of parameter `param`: its name, value and keys. The focused
/// one (the one ←/→ change) has its name reversed and names ← → as its
/// keys; the others name their own keys.
fn param_line(
    d: &Drawn<'_, AnonymizeScreen>,
    param: Param,
    value: u32,
    keys: &str,
) -> Line<'static> {
    let focused = d.me.state.focused() == param;
    let (label_style, keys) = if focused {
        (title_style().add_modifier(Modifier::REVERSED), "← →")
    } else {
        (dim(), keys)
    };
    Line::from(vec![
        Span::styled(param.name(), label_style),
        Span::raw(" ".repeat(9)),
        Span::styled(value.to_string(), title_style()),
        key_hint(keys),
    ])
}

/// A parameter the chosen algorithm does not read: its value dimmed,
/// "not used", so a change of it is seen to change nothing.
fn unused_line(name: &str, value: String) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name:<10}"), dim()),
        Span::styled(format!("{value} (not used)"), dim()),
    ])
}

fn draw_params(frame: &mut Frame, area: Rect, d: &Drawn<'_, AnonymizeScreen>) {
    let s = &d.me.state;
    let choice = s.choice();
    let p = d.session.params();
    let label = |t: &str| Span::styled(format!("{t:<10}"), dim());
    let value = |v: String| Span::styled(v, title_style());
    let k_line = if choice.needs.k {
        param_line(d, Param::K, p.k, "[ ]")
    } else {
        unused_line("k", p.k.to_string())
    };
    let l_line = if choice.needs.l {
        param_line(d, Param::L, p.l, "- +")
    } else {
        unused_line("l", p.l.to_string())
    };
    // The seed of an algorithm that draws no random numbers is dimmed as
    // "not used", as k and l are: a seed shown beside it would claim to
    // reproduce something it does not change.
    let seed_line = if choice.needs.seed {
        Line::from(vec![
            label("seed"),
            value(p.seed.to_string()),
            key_hint("s"),
        ])
    } else {
        unused_line("seed", p.seed.to_string())
    };
    let mut lines = vec![
        Line::from(vec![
            label("algorithm"),
            value(choice.id.to_string()),
            key_hint("a A"),
        ]),
        Line::from(Span::styled(
            widgets::cut(choice.name, usize::from(area.width.saturating_sub(2))),
            dim(),
        )),
        k_line,
        l_line,
        seed_line,
        Line::from(Span::styled("f focus  v sweep  R run  w save", dim())),
    ];
    if choice.needs.semi_sensitive {
        // LGB: which attributes use t-closeness instead of l-diversity.
        let ds = d.session.dataset();
        let t = d.session.t_closeness();
        let text = if t.is_empty() {
            Span::styled("none (l-diversity)", dim())
        } else {
            value(
                t.iter()
                    .map(|&(c, t)| format!("{} t={t}", ds.col(c).name()))
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        };
        lines[5] = Line::from(vec![label("t-close"), text, key_hint("T")]);
    }
    if choice.needs.p {
        // pk algorithms read p instead of l; Condition 2's bound takes the
        // line of the run/save hint.
        lines[3] = param_line(d, Param::P, p.p, "p P");
        lines[5] = match &s.pk_bound {
            Some(Ok(b)) if b.feasible() => {
                let by = b
                    .limiting
                    .as_ref()
                    .map_or_else(|| format!(" (n/{})", b.p), |a| format!(" ({a})"));
                Line::from(vec![
                    label("maxClust"),
                    value(thousands(b.max_clusters as u64)),
                    Span::styled(by, dim()),
                ])
            }
            Some(Ok(_)) => Line::from(vec![
                label("maxClust"),
                Span::styled("0: p too large", Style::new().fg(Color::Red)),
            ]),
            Some(Err(_)) | None => Line::from(vec![label("maxClust"), Span::styled("-", dim())]),
        };
    }
    if choice.id == FULL_DOMAIN {
        // Full-domain's own settings and the optimum found take the
        // lines of the long name and the seed (it reads no seed).
        lines.truncate(4);
        lines.remove(1);
        if !full_domain_reads_l(d) {
            lines[2] = unused_line("l", p.l.to_string());
        }
        lines.extend(full_domain_lines(d));
    }
    if choice.id == LOCAL_SUPPRESSION {
        // Local suppression reads k and its own settings, not l (shown
        // "not used", as for every algorithm) nor the seed: they take the
        // lines of the long name and the seed.
        lines.truncate(4);
        lines.remove(1);
        lines.extend(local_suppression_lines(
            d,
            usize::from(area.width.saturating_sub(2)),
        ));
    }
    if choice.needs.numeric {
        // A perturbation reads its attributes (microaggregation also k
        // and the aggregation, the others the seed): they take the lines
        // of the long name and of what it does not read.
        let microaggregation = choice.id == "mdav" || choice.id == "optimal-univariate";
        lines.truncate(if microaggregation { 4 } else { 5 });
        lines.remove(1);
        let p = &d.session.params().perturbation;
        let width = usize::from(area.width.saturating_sub(2));
        let attributes = if p.attributes.is_empty() {
            "none: set :perturb COL,...".to_string()
        } else {
            p.attributes.join(",")
        };
        lines.extend([Line::from(vec![
            Span::styled("perturb   ", dim()),
            Span::styled(
                widgets::cut(&attributes, width.saturating_sub(10)),
                title_style(),
            ),
        ])]);
        let setting = |label: &str, v: String| {
            Line::from(vec![
                Span::styled(format!("{label:<10}"), dim()),
                Span::styled(widgets::cut(&v, width.saturating_sub(10)), title_style()),
            ])
        };
        if microaggregation {
            let how = p.aggregation.clone().unwrap_or_else(|| "mean".into());
            lines.push(setting(
                "aggregate",
                match &p.weights {
                    Some(w) => format!("{how} weighted by {w}"),
                    None => how,
                },
            ));
        }
        lines.extend(
            perturbation_settings(choice.id, p)
                .into_iter()
                .map(|(l, v)| setting(l, v)),
        );
        lines.push(setting(
            "strata",
            p.strata
                .clone()
                .unwrap_or_else(|| "none (:strata COL)".into()),
        ));
    }
    if choice.id == CONSTRUCTION {
        // Construction reads its conditions, not k, l nor the seed.
        lines.truncate(1);
        lines.extend(conditions_lines(
            d,
            usize::from(area.height.saturating_sub(3)),
        ));
    }
    let block = Block::bordered().title(Span::styled(" Anonymize ", title_style()));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The numbers a perturbation reads beside its attributes, as the session
/// holds them (its default when unset: what the next run reads), labelled
/// by the command that sets them.
fn perturbation_settings(
    id: &str,
    p: &anonlab::data::PerturbationParams,
) -> Vec<(&'static str, String)> {
    use anonlab::algorithms::numeric_perturbation::NoiseOptions;
    use anonlab::algorithms::pram::PramOptions;
    let (pram, noise) = (PramOptions::default(), NoiseOptions::default());
    match id {
        "pram" => {
            let mut v = vec![
                ("pd", p.pd.unwrap_or(pram.pd).to_string()),
                ("pram-alpha", p.alpha.unwrap_or(pram.alpha).to_string()),
            ];
            if !p.matrices.is_empty() {
                let given: Vec<String> = p
                    .matrices
                    .iter()
                    .map(|(c, f)| {
                        let file = f.file_name().unwrap_or(f.as_os_str());
                        format!("{c}={}", file.to_string_lossy())
                    })
                    .collect();
                v.push(("matrix", given.join(",")));
            }
            v
        }
        "noise-additive" => vec![(
            "noise",
            format!("{} % of each sd", p.noise.unwrap_or(noise.noise)),
        )],
        "noise-correlated2" => vec![("delta", p.noise_delta.unwrap_or(noise.delta).to_string())],
        "rank-swap" => vec![(
            "swap-p",
            format!("{} % of the ranks", p.swap_p.unwrap_or(noise.swap_p)),
        )],
        _ => Vec::new(),
    }
}

/// Local suppression's settings as the session holds them (what the next
/// run reads; the figures panel says what the shown release did), with
/// the commands that set them.
fn local_suppression_lines(d: &Drawn<'_, AnonymizeScreen>, width: usize) -> Vec<Line<'static>> {
    let ls = &d.session.params().local_suppression;
    let label = |t: &str| Span::styled(format!("{t:<10}"), dim());
    let value = |v: String| Span::styled(widgets::cut(&v, width.saturating_sub(10)), title_style());
    let convention = match ls.missing_matches.as_deref() {
        Some("own") => "* is its own value",
        _ => "* matches any value",
    };
    let importance = if ls.importance.is_empty() {
        // sdcMicro's: the fewer categories, the more important.
        "default (categories)".to_string()
    } else {
        ls.importance.join(">")
    };
    let combs = if ls.combs.is_empty() {
        "-".to_string()
    } else {
        ls.combs
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let strata = ls.strata.clone().unwrap_or_else(|| "-".into());
    vec![
        Line::from(vec![label("missing"), value(convention.into())]),
        // The one label of ten letters: a space of its own.
        Line::from(vec![
            Span::styled("importance ", dim()),
            Span::styled(
                widgets::cut(&importance, width.saturating_sub(11)),
                title_style(),
            ),
        ]),
        Line::from(vec![
            label("combs"),
            Span::styled(combs, title_style()),
            Span::styled("  strata ", dim()),
            Span::styled(
                widgets::cut(&strata, width.saturating_sub(22)),
                title_style(),
            ),
        ]),
        // Each label above is its command's name.
        Line::from(Span::styled(
            widgets::cut("set: :missing own, :combs 2, …", width),
            dim(),
        )),
    ]
}

/// What a local suppression's release suppressed, from its
/// `CellSuppression` (the figures `anonymize --json` prints under
/// `local_suppression`): the cells in all, how they match, the
/// sdcMicro greedy's count on the same input labelled as that baseline,
/// then the cells per attribute and those missing in the input.
fn suppression_lines(s: &anonlab::release::CellSuppression) -> Vec<Line<'static>> {
    let label = |k: &str| Span::styled(format!("{k} "), dim());
    let value = |v: String| Span::styled(v, title_style());
    let mut first = vec![
        label("cells suppressed"),
        Span::styled(thousands(s.total), theme::suppressed_cell_style()),
        Span::styled(
            match s.convention {
                anonlab::release::Convention::AnyValue => " (* any value)",
                anonlab::release::Convention::OwnValue => " (* own value)",
            },
            dim(),
        ),
        Span::raw("  "),
        // One word, so a narrow panel wraps it whole.
        label("sdcMicro-greedy"),
    ];
    match s.greedy_total {
        Some(g) if s.greedy_stopped => first.push(value(format!("≥{}", thousands(g)))),
        Some(g) => first.push(value(thousands(g))),
        None => first.push(Span::styled("n/a for * own", dim())),
    }
    if s.method != "search" {
        first.push(Span::styled(" (kept)", dim()));
    }
    let mut per = vec![label("per attribute")];
    for (i, a) in s.suppressed_cells.iter().enumerate() {
        if i > 0 {
            per.push(Span::styled(", ", dim()));
        }
        per.push(Span::raw(format!("{} ", a.attribute)));
        per.push(value(thousands(a.cells)));
    }
    let missing: Vec<String> = s
        .missing_before
        .iter()
        .filter(|a| a.cells > 0)
        .map(|a| format!("{} {}", a.attribute, thousands(a.cells)))
        .collect();
    if !missing.is_empty() {
        per.push(Span::styled("  missing before: ", dim()));
        per.push(Span::styled(
            missing.join(", "),
            theme::missing_cell_style(),
        ));
    }
    vec![Line::from(first), Line::from(per)]
}

/// Whether full-domain's model reads l.
fn full_domain_reads_l(d: &Drawn<'_, AnonymizeScreen>) -> bool {
    anonlab::privacy::Model::needs_of(&d.session.params().full_domain.model).is_some_and(|n| n.l)
}

/// Construction(D, G)'s conditions, one per line as far as they fit, or
/// how to load them.
fn conditions_lines(d: &Drawn<'_, AnonymizeScreen>, room: usize) -> Vec<Line<'static>> {
    let Some(c) = d.session.conditions() else {
        return vec![
            Line::from(Span::styled(
                "no conditions loaded:",
                Style::new().fg(Color::Yellow),
            )),
            Line::from(Span::styled(":conditions FILE reads", dim())),
            Line::from(Span::styled("a G.json (anonlab correlate", dim())),
            Line::from(Span::styled("--conditions-out writes one)", dim())),
        ];
    };
    let path = d
        .session
        .params()
        .conditions
        .as_ref()
        .and_then(|p| p.file_name())
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{:<10}", "G"), dim()),
        Span::styled(path, Style::new().add_modifier(Modifier::BOLD)),
        Span::styled(format!(" ({})", c.conditions.len()), dim()),
    ])];
    let width = usize::from(ANON_PARAMS_WIDTH - 2);
    for (i, cond) in c.conditions.iter().enumerate() {
        if lines.len() >= room {
            let left = c.conditions.len() - i;
            lines.push(Line::from(Span::styled(format!("… {left} more"), dim())));
            break;
        }
        let text = format!("{}. {}", i + 1, describe(cond));
        lines.push(Line::from(Span::raw(widgets::cut(&text, width))));
    }
    lines
}

/// A condition of G in one line: `age>=70 → age to 70+`.
fn describe(c: &anonlab::data::Condition) -> String {
    let when = c.when.as_deref().unwrap_or("always");
    let what = match (&c.generalize, &c.delete) {
        (Some(col), _) => match (&c.to, &c.interval, c.level) {
            (Some(to), _, _) => format!("{col} to {to}"),
            (_, Some([lo, hi]), _) => format!("{col} to [{lo}-{hi}]"),
            (_, _, Some(level)) => format!("{col} to level {level}"),
            _ => format!("generalize {col}"),
        },
        (None, Some(d)) => match &c.columns {
            Some(cols) => format!("delete {d} {}", cols.join(",")),
            None => format!("delete {d}"),
        },
        (None, None) => "nothing".into(),
    };
    format!("{when} → {what}")
}

/// Full-domain's model by name, with α, δ or β when it reads one (l, p and
/// t are shown with the other parameters).
fn model_shown(fd: &anonlab::data::FullDomainParams) -> String {
    let needs = anonlab::privacy::Model::needs_of(&fd.model).unwrap_or_default();
    match () {
        _ if needs.alpha => format!("{} α={}", fd.model, fd.alpha),
        _ if needs.delta => format!("{} δ={}", fd.model, fd.delta),
        _ if needs.beta => format!("{} β={}", fd.model, fd.beta),
        _ => fd.model.clone(),
    }
}

/// Full-domain's suppression limit, metric and model, and the optimal
/// level per quasi-identifier with the release's suppressed rows and
/// metric value.
fn full_domain_lines(d: &Drawn<'_, AnonymizeScreen>) -> Vec<Line<'static>> {
    let fd = &d.session.params().full_domain;
    let mut lines = vec![
        Line::from(vec![
            Span::styled("suppress  ", dim()),
            Span::styled(
                format!("≤{}%", (fd.suppression * 100.0).round()),
                title_style(),
            ),
            key_hint("< >"),
            Span::styled("  metric ", dim()),
            Span::styled(fd.metric.clone(), title_style()),
            key_hint("M"),
        ]),
        Line::from(vec![
            Span::styled("model     ", dim()),
            Span::styled(model_shown(fd), title_style()),
            key_hint("O"),
        ]),
    ];
    let report =
        d.me.state
            .view
            .as_ref()
            .and_then(|v| v.full_domain.as_ref());
    if let Some(r) = report {
        // "age 3/5": the level chosen of the hierarchy's height, packed
        // into the panel's lines under the "levels" label.
        let room = usize::from(ANON_PARAMS_WIDTH - 2) - 10;
        let mut rows: Vec<String> = vec![String::new()];
        let published = r.published();
        for ((a, l), h) in r.attributes.iter().zip(&published.levels).zip(&r.heights) {
            let item = format!("{a} {l}/{h}");
            let last = rows.last_mut().expect("one row");
            if last.is_empty() {
                *last = item;
            } else if last.chars().count() + 2 + item.chars().count() <= room {
                last.push_str(", ");
                last.push_str(&item);
            } else {
                rows.push(item);
            }
        }
        // A chosen node says so where the optimum's levels would be.
        let first = if r.chosen.is_some() {
            "chosen    "
        } else {
            "levels    "
        };
        for (i, row) in rows.into_iter().enumerate() {
            let label = if i == 0 { first } else { "          " };
            lines.push(Line::from(vec![
                Span::styled(label, dim()),
                Span::styled(row, title_style()),
            ]));
        }
        // Attributes searched on the flat hierarchy (no hierarchy held),
        // as the CLI names them: each kept or suppressed whole.
        if !r.flat.is_empty() {
            lines.push(Line::from(vec![
                Span::styled("flat      ", dim()),
                Span::styled(r.flat.join(", "), title_style()),
            ]));
        }
        lines.push(Line::from(vec![
            Span::styled(format!("{} ", r.metric), dim()),
            Span::styled(format!("{:.4}", published.metric), title_style()),
            Span::styled("  suppressed ", dim()),
            Span::styled(thousands(published.suppressed_rows), title_style()),
        ]));
        lines.push(Line::from(Span::styled(
            "L: the lattice, publish another node",
            dim(),
        )));
    }
    lines
}

/// "(out of date)" when the shown release was made from other inputs.
fn out_of_date(d: &Drawn<'_, AnonymizeScreen>, view: &AnonymizeView) -> Option<Span<'static>> {
    (view.inputs != d.me.inputs(d.session))
        .then(|| Span::styled("(out of date) ", Style::new().fg(Color::Yellow)))
}

fn draw_figures(frame: &mut Frame, area: Rect, d: &Drawn<'_, AnonymizeScreen>) {
    let s = &d.me.state;
    let mut title = vec![Span::styled(" Release ", title_style())];
    let block_with = |title: Vec<Span<'static>>| Block::bordered().title(Line::from(title));
    if let Some(why) = &s.blocked {
        let inner = Block::bordered().inner(area);
        let fitted =
            widgets::wrap_overflow(why, usize::from(inner.width), usize::from(inner.height));
        let p = match fitted {
            Some(lines) => Paragraph::new(lines.into_iter().map(Line::from).collect::<Vec<_>>()),
            None => Paragraph::new(why.as_str()).wrap(Wrap { trim: true }),
        };
        let p = p
            .style(Style::new().fg(Color::Yellow))
            .block(block_with(title));
        frame.render_widget(p, area);
        return;
    }
    let current = d.me.inputs(d.session);
    if let Some((inputs, message)) = &s.error {
        if *inputs == current {
            let text = vec![
                Line::from(Span::styled(
                    "Cannot anonymize with these parameters:",
                    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
                )),
                Line::from(Span::styled(message.clone(), Style::new().fg(Color::Red))),
            ];
            let p = Paragraph::new(text)
                .wrap(Wrap { trim: true })
                .block(block_with(title));
            frame.render_widget(p, area);
            return;
        }
    }
    let Some(view) = &s.view else {
        let p = Paragraph::new("not computed yet")
            .style(dim())
            .block(block_with(title));
        frame.render_widget(p, area);
        return;
    };
    if let Some(span) = out_of_date(d, view) {
        title.push(span);
    }
    let e = &view.evaluation;
    let u = &e.utility;
    let label = |k: &str| Span::styled(format!("{k} "), dim());
    let value = |v: String| Span::styled(v, title_style());
    let gap = || Span::raw("  ");
    let queries = match &s.queries {
        QueriesState::Done(q) => match &q.report {
            Some(r) => vec![
                value(format!("{:.3}", r.mean_relative_error)),
                Span::styled(format!(" ({} queries)", r.queries_used), dim()),
            ],
            None => vec![Span::styled("no sensitive attribute", dim())],
        },
        QueriesState::Running { .. } => vec![Span::styled("measuring…", dim())],
        QueriesState::Failed(e) => vec![Span::styled(e.clone(), Style::new().fg(Color::Red))],
        QueriesState::Idle if d.session.dataset().is_grouped() => vec![Span::styled(
            "not run on the frequency table (it draws records one by one)",
            dim(),
        )],
        QueriesState::Idle => vec![Span::styled("-", dim())],
    };
    let mut query_line = vec![label("query error")];
    query_line.extend(queries);
    let before = d.session.baseline().map(|b| b.baseline());
    let arrow = |name: &str, before: Option<&anonlab::anonymize::Distribution>, after: &Curve| {
        let b = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.3}"));
        Line::from(vec![
            Span::styled(format!("{name:<7}"), dim()),
            label("mean"),
            Span::raw(b(before.map(|d| d.summary.mean))),
            Span::styled("→", dim()),
            value(format!("{:.3}", after.mean)),
            gap(),
            label("max"),
            Span::raw(b(before.map(|d| d.summary.max))),
            Span::styled("→", dim()),
            value(format!("{:.3}", after.max)),
        ])
    };
    // The fingerprint and the verifier's verdict in the title: a reader
    // checks a report against it (`anonlab anonymize --json`, the report
    // and the Compare table print the same one).
    let holds = view.checks.iter().all(|c| c.holds);
    // A grouped session's published table is made by the publishing
    // pass over the file, which gives its fingerprint (`:write`).
    let fingerprint = if view.fingerprint.is_empty() {
        "fingerprint on :write ".to_string()
    } else {
        format!("{} ", short_fingerprint(&view.fingerprint))
    };
    title.push(Span::styled(fingerprint, title_style()));
    // The title's words give way to its marks on a narrow panel.
    let used = Line::from(title.clone()).width() as u16;
    let room = area.width.saturating_sub(2).saturating_sub(used);
    title.push(if holds {
        Span::styled(
            fit("verified ✓ ", "✓ ", room),
            Style::new().fg(Color::Green),
        )
    } else {
        Span::styled(
            fit("verification FAILED ", "FAILED ", room),
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        )
    });
    let mut lines = suppression_figures(view);
    lines.extend(perturbation_figures(view));
    lines.extend([
        Line::from(vec![
            label("groups"),
            value(thousands(e.groups as u64)),
            gap(),
            label("buckets"),
            value(thousands(e.buckets as u64)),
            gap(),
            label("suppressed"),
            value(thousands(e.suppressed as u64)),
        ]),
        Line::from(vec![
            label("C_DM"),
            value(thousands(u.discernibility)),
            gap(),
            label("C_AVG"),
            value(
                u.average_class_size
                    .map_or("-".into(), |a| format!("{a:.2}")),
            ),
            gap(),
            label("GCP share"),
            value(format!("{:.3}", u.gcp)),
        ]),
    ]);
    if let Some((_, after)) = &view.breach {
        let b = before
            .and_then(|b| b.breach.as_ref())
            .map(|b| &b.distribution);
        lines.push(arrow("breach", b, after));
    }
    lines.push(arrow(
        "re-id",
        before.map(|b| &b.linkage),
        &view.reidentification,
    ));
    // Whose figures: before, the session's attacker; after, the after
    // measurement's (`assess::After`: the same attacker facing the
    // release, what it leaves out named). Said
    // before the query error and the times, which give way first on a
    // short terminal.
    // One line when before and after are the same attacker (the
    // after's label, which adds what the release leaves out), so the
    // panel keeps its lines for the figures below.
    let after = &view.after.attacker.summary;
    match d.session.baseline().map(|b| b.attacker()) {
        Some(b) if b.knows == after.knows && b.hidden_cells == after.hidden_cells => {
            lines.push(Line::from(vec![
                Span::styled("before, after: ", dim()),
                Span::raw(view.attacker()),
            ]));
        }
        before => {
            if let Some(b) = before {
                lines.push(Line::from(vec![
                    Span::styled("before: ", dim()),
                    Span::raw(b.to_string()),
                ]));
            }
            lines.push(Line::from(vec![
                Span::styled("after: ", dim()),
                Span::raw(view.attacker()),
            ]));
        }
    }
    lines.push(Line::from(query_line));
    lines.push(time_line(view));
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .block(block_with(title)),
        area,
    );
}

/// A local suppression's counts first (`suppression_lines`): the
/// figure its release is about, read before the others.
fn suppression_figures(view: &AnonymizeView) -> Vec<Line<'static>> {
    view.release
        .suppression
        .as_ref()
        .map_or_else(Vec::new, suppression_lines)
}

/// A perturbation's figures (`metrics::perturbation`, what `anonymize
/// --json` prints under `perturbation`): the numeric attributes' interval
/// risk and IL1s, labelled with whose attacker.
fn perturbation_figures(view: &AnonymizeView) -> Vec<Line<'static>> {
    let Some(f) = &view.evaluation.perturbation else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    if let Some(risk) = f.interval_risk {
        let il1s = match (f.il1s, f.il1s_per_cell) {
            (Some(s), Some(c)) => format!("{s:.2} ({c:.4}/cell)"),
            _ => "undefined".to_string(),
        };
        lines.push(Line::from(vec![
            Span::styled("perturbed ", dim()),
            Span::styled(f.attributes.join(", "), title_style()),
        ]));
        lines.push(Line::from(vec![
            Span::styled("dRisk ", dim()),
            Span::styled(format!("{:.2}%", risk * 100.0), title_style()),
            Span::styled(
                format!(" within ±{} sd of the truth  IL1s ", f.interval_k),
                dim(),
            ),
            Span::styled(il1s, title_style()),
        ]));
        let mut more = Vec::new();
        if let Some(r) = &f.rmd {
            more.push(Span::styled("RMD risk1 ", dim()));
            more.push(Span::styled(
                format!("{:.2}%  ", r.risk1 * 100.0),
                title_style(),
            ));
        }
        if let Some(l) = &f.linkage {
            more.push(Span::styled("linked ", dim()));
            more.push(Span::styled(
                format!("{:.2}%", l.share * 100.0),
                title_style(),
            ));
        }
        if !more.is_empty() {
            lines.push(Line::from(more));
        }
        if let Some(d) = &f.il1s_records {
            lines.push(Line::from(vec![
                Span::styled("IL1s/record ", dim()),
                Span::styled(format!("median {:.4}", d.median), title_style()),
                Span::styled(format!(" · p90 {:.4} · max {:.4} ", d.p90, d.max), dim()),
                Span::raw(widgets::bars(&d.bins)),
            ]));
        }
    }
    if !f.categorical.is_empty() {
        let changed: Vec<String> = f
            .categorical
            .iter()
            .map(|c| format!("{} {:.1}%", c.attribute, c.share * 100.0))
            .collect();
        lines.push(Line::from(vec![
            Span::styled("PRAM changed ", dim()),
            Span::styled(changed.join(", "), title_style()),
        ]));
    }
    lines
}

/// The algorithm's time, with the time of the whole job; for p-sensitive
/// and bucketized releases their papers' measures take the second part
/// (the panel has no line to spare): IL per tuple, mean Div and Hom
/// (p-sensitive paper, Definitions 10–12), or GLP (refining-partition
/// paper, Definition 3).
fn time_line(view: &AnonymizeView) -> Line<'static> {
    let e = &view.evaluation;
    let mut line = vec![
        Span::styled("time ", dim()),
        Span::styled(format!("{:.1} ms", e.time_ms), title_style()),
    ];
    let figure = |name: &str, v: String| {
        [
            Span::styled(format!("  {name} "), dim()),
            Span::styled(v, title_style()),
        ]
    };
    if let Some(m) = &e.pk {
        line.extend(figure(
            "IL/n",
            format!("{:.3}", m.information_loss_per_tuple),
        ));
        line.extend(figure("Div", format!("{:.2}", m.mean_diversity)));
        line.extend(figure("Hom", format!("{:.2}", m.mean_homogeneity)));
    } else if let Some(c) = &e.correspondence {
        line.extend(figure("GLP", format!("{:.4}", c.glp)));
        line.push(Span::styled(
            format!(" ({} with loss)", thousands(c.records_with_loss as u64)),
            dim(),
        ));
    } else {
        line.push(Span::styled(
            format!(" ({:.1} ms with measurements)", view.total_ms),
            dim(),
        ));
    }
    Line::from(line)
}

fn draw_checks(frame: &mut Frame, area: Rect, d: &Drawn<'_, AnonymizeScreen>) {
    let mut title = vec![Span::styled(" Verification ", title_style())];
    let Some(view) = &&d.me.state.view else {
        frame.render_widget(Block::bordered().title(Line::from(title)), area);
        return;
    };
    if let Some(span) = out_of_date(d, view) {
        title.push(span);
    }
    // On a short panel the count, so a check out of sight is not taken
    // for one that was not made.
    if usize::from(area.height.saturating_sub(2)) < view.checks.len() {
        // A narrow panel's title keeps the count, not the word.
        let count_room = 12;
        if usize::from(area.width) < Line::from(title.clone()).width() + count_room + 2 {
            title[0] = Span::styled(" Checks ", title_style());
        }
        let failed = view.checks.iter().filter(|c| !c.holds).count();
        title.push(Span::styled(
            if failed == 0 {
                format!("(all {} hold) ", view.checks.len())
            } else {
                format!("({failed} of {} FAIL) ", view.checks.len())
            },
            dim(),
        ));
    }
    let block = Block::bordered().title(Line::from(title));
    let lines: Vec<Line> = view
        .checks
        .iter()
        .map(|c| {
            let mark = if c.holds {
                Span::styled("ok   ", Style::new().fg(Color::Green))
            } else {
                Span::styled(
                    "FAIL ",
                    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
                )
            };
            Line::from(vec![
                mark,
                Span::raw(c.claim.clone()),
                Span::styled(format!(": {}", c.detail), dim()),
            ])
        })
        .collect();
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(block),
        area,
    );
}

fn draw_gauge(frame: &mut Frame, area: Rect, d: &Drawn<'_, AnonymizeScreen>) {
    let s = &d.me.state;
    if let JobState::Running { fraction, .. } = *s.job.state() {
        let gauge = Gauge::default()
            .ratio(fraction.clamp(0.0, 1.0))
            .label(s.gauge_label().unwrap_or_default())
            .gauge_style(Style::new().fg(Color::Yellow).bg(Color::DarkGray));
        frame.render_widget(gauge, area);
    } else if matches!(s.queries, QueriesState::Running { .. }) {
        frame.render_widget(
            Line::from(Span::styled(" measuring the query workload…", dim())),
            area,
        );
    } else if s.view.is_some() {
        let what = fit(
            ": the original table, the session's attacker   ",
            ": the original   ",
            area.width.saturating_sub(22),
        );
        frame.render_widget(
            Line::from(vec![
                Span::styled(" before", Style::new().fg(Color::Red)),
                Span::styled(what, dim()),
                Span::styled("after", Style::new().fg(Color::Cyan)),
                Span::styled(": this release", dim()),
            ]),
            area,
        );
    }
}

/// `long` where it fits in `width` cells, else `short`.
fn fit<'a>(long: &'a str, short: &'a str, width: u16) -> &'a str {
    if Span::raw(long).width() <= usize::from(width) {
        long
    } else {
        short
    }
}

fn draw_cdf(
    frame: &mut Frame,
    area: Rect,
    title: &str,
    before: &Curve,
    after: &Curve,
    d: &Drawn<'_, AnonymizeScreen>,
) {
    let mut spans = vec![Span::styled(title.to_string(), title_style())];
    if let Some(view) = &&d.me.state.view {
        if let Some(s) = out_of_date(d, view) {
            spans.push(s);
        }
    }
    if let Some(why) = too_small(area, CHART_MIN.0, CHART_MIN.1) {
        frame.render_widget(
            Paragraph::new(why)
                .style(dim())
                .wrap(Wrap { trim: true })
                .block(Block::bordered().title(Line::from(spans))),
            area,
        );
        return;
    }
    let datasets =
        before_after((Color::Red, &before.series), (Color::Cyan, &after.series)).to_vec();
    let chart = Chart::new(datasets)
        .x_axis(unit_axis("p"))
        .y_axis(unit_axis("share"))
        .legend_position(Some(LegendPosition::BottomRight))
        .hidden_legend_constraints((Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)))
        .block(Block::bordered().title(Line::from(spans)));
    frame.render_widget(chart, area);
}

fn draw_table(frame: &mut Frame, area: Rect, d: &Drawn<'_, AnonymizeScreen>) {
    let s = &d.me.state;
    let t = &s.table;
    let Some(view) = &s.view else {
        frame.render_widget(
            Block::bordered().title(Span::styled(" Published table ", title_style())),
            area,
        );
        return;
    };
    let n = view.published_rows();
    let mut title = vec![Span::styled(
        if n == 0 {
            " Published table: no rows ".to_string()
        } else if d.session.dataset().is_grouped() {
            // Rows are the frequency table's combinations, each standing
            // for its records; `:write` publishes every record.
            format!(
                " Published combinations: rows {}–{} of {} (for {} records; :write publishes them) ",
                thousands(t.top as u64 + 1),
                thousands((t.top + t.rows.len()) as u64),
                thousands(n as u64),
                thousands(view.evaluation.reidentification.summary.published as u64)
            )
        } else {
            format!(
                " Published table: rows {}–{} of {} ",
                thousands(t.top as u64 + 1),
                thousands((t.top + t.rows.len()) as u64),
                thousands(n as u64)
            )
        },
        title_style(),
    )];
    if let Some(span) = out_of_date(d, view) {
        title.push(span);
    }
    // What the release leaves out is said where the table is read, not
    // only on the Risk screen.
    if !view.not_published.is_empty() {
        title.push(Span::styled(
            format!("not published: {} ", view.not_published.join(", ")),
            Style::new().fg(Color::Yellow),
        ));
    }
    // Recodings change the values every row shows: said with the table.
    let recodings = d.session.dataset().recodings();
    if !recodings.is_empty() {
        let said: Vec<String> = recodings.iter().map(|r| r.short()).collect();
        title.push(Span::styled(
            format!("recoded: {} ", said.join(", ")),
            Style::new().fg(Color::Yellow),
        ));
    }
    let block = Block::bordered().title(Line::from(title));
    let widths = widgets::table_widths(&t.widths, 1, block.inner(area).width);
    let header = Row::new(view.headers.iter().zip(&widths).map(|(h, &w)| {
        let style = if h == "GID" || h == "BID" {
            Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
        } else {
            title_style()
        };
        Cell::new(widgets::cut(h, usize::from(w))).style(style)
    }));
    let selected = t.cursor.checked_sub(t.top);
    let rows = widgets::fit_rows(&t.rows, &widths);
    let rows = rows.into_iter().enumerate().map(|(i, r)| {
        let marks = t.marks.get(i).map_or(&[][..], Vec::as_slice);
        let row = Row::new(
            r.into_iter()
                .enumerate()
                .map(|(c, v)| marked_cell(v, marks.get(c).copied().unwrap_or_default())),
        );
        if Some(i) == selected {
            row.style(Style::new().add_modifier(Modifier::REVERSED))
        } else {
            row
        }
    });
    let table = Table::new(rows, widths.into_iter().map(Constraint::Length))
        .header(header)
        .column_spacing(1)
        .block(block);
    frame.render_widget(table, area);
}

/// A published cell drawn with its mark's style (`theme`): suppressed by
/// local suppression, or missing in the input; plain otherwise.
pub(super) fn marked_cell(text: String, mark: CellMark) -> Cell<'static> {
    match mark {
        CellMark::Plain => Cell::new(text),
        CellMark::Suppressed => Cell::new(text).style(theme::suppressed_cell_style()),
        CellMark::Missing => Cell::new(text).style(theme::missing_cell_style()),
    }
}
