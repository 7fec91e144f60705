//! The "mark sensitive cells" dialog, drawn over the Data screen.

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Wrap};
use ratatui::Frame;

use super::{MarkDialog, MarkField, MarkMode};
use crate::keymap::{Action, Scope};
use crate::screens::View;
use crate::widgets::{centered, dim, role_style, title_style};
use anonlab::data::Role;

const WIDTH: u16 = 76;
const LABEL: usize = 9;

pub(crate) fn draw(frame: &mut Frame, area: Rect, view: &View<'_>, d: &MarkDialog) {
    let ds = view.session.dataset();
    let focus = d.field();
    let label = |f: MarkField| {
        let text = format!("{:<LABEL$}", f.label());
        if f == focus {
            Span::styled(format!("▸{text}"), title_style().fg(Color::Cyan))
        } else {
            Span::styled(format!(" {text}"), dim())
        }
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!(" {:<LABEL$}", "now"), dim()),
            Span::raw(d.current.clone()),
        ]),
        Line::from(""),
    ];
    let mut modes = vec![label(MarkField::Mode)];
    for m in MarkMode::ALL {
        modes.push(if m == d.mode {
            Span::styled(
                format!("[{}]", m.label()),
                role_style(Role::SemiSensitive).add_modifier(Modifier::BOLD),
            )
        } else {
            Span::styled(format!(" {} ", m.label()), dim())
        });
        modes.push(Span::raw(" "));
    }
    lines.push(Line::from(modes));
    let text = |f: MarkField, value: &str| {
        let mut spans = vec![label(f), Span::styled(value.to_string(), title_style())];
        if f == focus {
            spans.push(Span::styled("▏", Style::new().fg(Color::Cyan)));
        }
        Line::from(spans)
    };
    let hint = |s: &str| Line::from(Span::styled(format!(" {:<LABEL$} {s}", ""), dim()));
    match d.mode {
        MarkMode::Rule => {
            lines.push(text(MarkField::Rule, &d.rule));
            lines.push(hint(
                "e.g. age>=60, or job in {Sales,Tech-support} and sex=F",
            ));
        }
        MarkMode::Density => {
            lines.push(text(MarkField::Density, &d.density));
            lines.push(text(MarkField::Seed, &d.seed));
            lines.push(hint(
                "a share (0.2) or percentage (20%), drawn with the seed",
            ));
        }
        MarkMode::Flag => {
            let value = match d.flags.get(d.flag) {
                Some(&c) => Span::styled(format!("‹ {} ›", ds.col(c).name()), title_style()),
                None => Span::styled("no column of 0/1, true/false or yes/no values", dim()),
            };
            lines.push(Line::from(vec![label(MarkField::Flag), value]));
            lines.push(hint("cells of the rows whose flag is 1, true or yes"));
        }
        MarkMode::Clear => lines.push(hint(
            "no cell sensitive; mark cells one by one afterwards (Space)",
        )),
    }
    let rows = ds.n_rows() as u64;
    lines.push(match &d.preview {
        Ok(n) => Line::from(Span::styled(
            format!(
                " {:<LABEL$} Enter marks {} of {} cells ({})",
                "",
                anonlab::format::thousands(*n as u64),
                anonlab::format::thousands(rows),
                crate::widgets::percent(*n as u64, rows)
            ),
            role_style(Role::Sensitive),
        )),
        Err(e) => hint(&format!("not yet a source: {e}")),
    });
    lines.push(hint("replaces the column's marks, hand toggles too"));
    lines.push(Line::from(""));
    if let Some(e) = &d.error {
        lines.push(Line::from(Span::styled(
            format!(" {e}"),
            Style::new().fg(Color::Red),
        )));
        lines.push(Line::from(""));
    }
    let keys = view.keymap;
    let key = |a: Action, what: &str| {
        vec![
            Span::styled(
                keys.keys_for(Scope::Dialog, a),
                Style::new().fg(Color::Cyan),
            ),
            Span::styled(format!(" {what}  "), dim()),
        ]
    };
    let mut hints = vec![Span::raw(" ")];
    hints.extend(key(Action::Confirm, "apply"));
    // Tab (completion on the command line) moves to the next field here.
    hints.push(Span::styled(
        format!(
            "{} {}",
            keys.keys_for(Scope::Dialog, Action::Complete),
            keys.keys_for(Scope::Dialog, Action::Down)
        )
        .trim()
        .to_string(),
        Style::new().fg(Color::Cyan),
    ));
    hints.push(Span::styled(" next field  ", dim()));
    hints.push(Span::styled(
        format!(
            "{}{}",
            keys.keys_for(Scope::Dialog, Action::Left),
            keys.keys_for(Scope::Dialog, Action::Right)
        ),
        Style::new().fg(Color::Cyan),
    ));
    hints.push(Span::styled(" choose  ", dim()));
    hints.extend(key(Action::Cancel, "close"));
    lines.push(Line::from(hints));

    // The dialog is as wide as the terminal allows; the error, and on a
    // narrow terminal the longer lines, wrap.
    let width = WIDTH.min(area.width);
    let inner_width = usize::from(width.saturating_sub(2).max(1));
    let rows = |lines: &[Line]| -> usize {
        lines
            .iter()
            .map(|l| l.width().div_ceil(inner_width).max(1))
            .sum()
    };
    // Too tall for the terminal: the spacing lines go first, so the keys
    // line at the bottom stays in view.
    if rows(&lines) + 2 > usize::from(area.height) {
        lines.retain(|l| l.width() > 0);
    }
    let popup = centered(area, width, rows(&lines) as u16 + 2);
    let title = format!(" Mark sensitive cells: {} ", ds.col(d.column).name());
    let p = Paragraph::new(lines).wrap(Wrap { trim: false }).block(
        Block::bordered()
            .border_type(BorderType::Rounded)
            .border_style(role_style(Role::SemiSensitive))
            .title(Span::styled(title, title_style())),
    );
    crate::widgets::clear_under_popup(frame, popup);
    frame.render_widget(p, popup);
}
