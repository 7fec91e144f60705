//! The Anonymize screen's record detail (Enter on the published table):
//! the selected record's matching tuples, and per sensitive cell its
//! matching local buckets and breach probability. It takes the charts'
//! place while open.

use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

use crate::screens::anonymize::AnonymizeScreen;
use crate::screens::record::MAX_BUCKETS_SHOWN;
use crate::screens::Drawn;
use crate::widgets::{dim, role_style, thousands, title_style};
use anonlab::data::Role;
use anonlab::release::bucket_reference;

/// Source rows of matching tuples listed before "+N more".
const ROWS_SHOWN: usize = 8;

pub(super) fn draw(frame: &mut Frame, area: Rect, d: &Drawn<'_, AnonymizeScreen>) {
    let s = &d.me.state;
    let ds = d.session.dataset();
    let block = |title: String| Block::bordered().title(Span::styled(title, title_style()));
    let (Some(view), Some(d)) = (&s.view, &s.detail) else {
        frame.render_widget(
            Paragraph::new("no record selected")
                .style(dim())
                .block(block(" Record ".into())),
            area,
        );
        return;
    };
    let title = format!(
        " Record {} of {} · source row {} · GID {} ",
        thousands(d.published as u64 + 1),
        thousands(view.published_rows() as u64),
        thousands(d.row as u64 + 1),
        d.group + 1
    );
    let label = |k: &str| Span::styled(format!("{k:<11}"), dim());
    let names = |cols: &mut dyn Iterator<Item = usize>| {
        cols.map(|c| ds.col(c).name().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut lines = vec![Line::from(vec![
        label("QI[t]"),
        Span::styled(
            names(&mut d.qi.iter().copied()),
            role_style(Role::QuasiIdentifier),
        ),
        Span::styled("   sensitive cells ", dim()),
        Span::styled(
            if d.cells.is_empty() {
                "none".to_string()
            } else {
                names(&mut d.cells.iter().map(|c| c.column))
            },
            role_style(Role::Sensitive),
        ),
    ])];
    let mut shown: Vec<String> = d
        .matching_tuples
        .iter()
        .take(ROWS_SHOWN)
        .map(|&r| (r + 1).to_string())
        .collect();
    if d.matching_tuples.len() > ROWS_SHOWN {
        shown.push(format!("+{}", d.matching_tuples.len() - ROWS_SHOWN));
    }
    let groups: Vec<String> = d
        .matching_groups
        .iter()
        .take(ROWS_SHOWN)
        .map(|g| (g + 1).to_string())
        .collect();
    let mut matching = vec![
        label("matching"),
        Span::styled(
            format!("{} tuples", thousands(d.matching_tuples.len() as u64)),
            title_style(),
        ),
        Span::styled(
            format!(
                " in GID {}{}: rows {}",
                groups.join(", "),
                if d.matching_groups.len() > ROWS_SHOWN {
                    ", …"
                } else {
                    ""
                },
                shown.join(", ")
            ),
            dim(),
        ),
    ];
    if let Some(p) = d.reidentification {
        matching.push(Span::styled("   Pr(re-id) ", dim()));
        matching.push(Span::styled(format!("{p:.3}"), title_style()));
    }
    lines.push(Line::from(matching));
    lines.push(Line::from(""));
    if view.release.local_buckets.is_empty() {
        lines.push(Line::from(Span::styled(
            "This release has no local buckets (an LGB algorithm makes them): \
             no per-cell breach to show.",
            dim(),
        )));
    } else if d.cells.is_empty() {
        lines.push(Line::from(Span::styled(
            "Every attribute of this record carries a QI value: it has no sensitive cell.",
            dim(),
        )));
    } else {
        lines.push(Line::from(Span::styled(
            format!(
                "{:<14}{:<18}{:<7}{:<8}matching local buckets: BID tuples/matching, own value/size",
                "attribute", "value", "bucket", "p(t,s)"
            ),
            dim(),
        )));
    }
    for c in &d.cells {
        let p = c
            .breach
            .map_or_else(|| "-".to_string(), |p| format!("{p:.3}"));
        let mut buckets: Vec<String> = c
            .matching
            .iter()
            .take(MAX_BUCKETS_SHOWN)
            .map(|m| {
                format!(
                    "{} {}/{} {}/{}",
                    bucket_reference(m.bucket),
                    m.tuples,
                    c.bucketed_tuples,
                    m.own,
                    m.size
                )
            })
            .collect();
        if c.matching.len() > MAX_BUCKETS_SHOWN {
            buckets.push(format!("+{} more", c.matching.len() - MAX_BUCKETS_SHOWN));
        }
        let attribute = ds.col(c.column).name();
        lines.push(Line::from(vec![
            Span::styled(format!("{attribute:<14}"), role_style(Role::SemiSensitive)),
            Span::raw(format!("{:<18}", c.value)),
            Span::raw(format!(
                "{:<7}",
                c.bucket.map_or_else(String::new, bucket_reference)
            )),
            Span::styled(format!("{p:<8}"), Style::new().fg(Color::Yellow)),
            Span::raw(buckets.join(" · ")),
        ]));
    }
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(title)),
        area,
    );
}
