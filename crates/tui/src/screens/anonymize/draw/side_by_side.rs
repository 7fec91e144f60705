//! Before and after side by side: the original record on the left, its
//! published row on the right, one record per line in file order; cells
//! the release changed in yellow, a suppressed record in grey.

use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Row, Table};
use ratatui::Frame;

use crate::screens::anonymize::AnonymizeScreen;
use crate::screens::Drawn;
use crate::widgets::{dim, thousands, title_style};

pub(super) fn draw(frame: &mut Frame, area: Rect, d: &Drawn<'_, AnonymizeScreen>) {
    let s = &&d.me.state.side_by_side;
    let n = d.session.dataset().n_rows();
    let view = d.me.state.view.as_ref();
    let mut title = vec![Span::styled(" Before │ after ", title_style())];
    match view {
        Some(v) if !s.rows.is_empty() => title.push(Span::styled(
            format!(
                "records {}–{} of {}, file order; {} suppressed{} ",
                thousands(s.top as u64 + 1),
                thousands((s.top + s.rows.len()) as u64),
                thousands(n as u64),
                thousands(v.release.suppressed_rows.len() as u64),
                // The legend where there is room for it.
                if area.width >= 100 {
                    "; yellow: changed  (b closes)"
                } else {
                    ""
                }
            ),
            dim(),
        )),
        _ => title.push(Span::styled("no release yet  (b closes) ", dim())),
    }
    let block = Block::bordered().title(Line::from(title));
    let number_width = thousands(n as u64).chars().count().max(1) as u16;
    let mut header = vec![Cell::new("#").style(dim())];
    header.extend(
        s.left_headers
            .iter()
            .map(|h| Cell::new(h.as_str()).style(title_style())),
    );
    header.push(Cell::new("│").style(dim()));
    header.extend(
        s.right_headers
            .iter()
            .map(|h| Cell::new(h.as_str()).style(title_style())),
    );
    let changed = Style::new().fg(Color::Yellow);
    let selected = s.cursor.checked_sub(s.top);
    let rows = s.rows.iter().enumerate().map(|(i, r)| {
        let mut cells = vec![Cell::new(thousands(r.record as u64 + 1)).style(dim())];
        cells.extend(r.original.iter().map(|v| Cell::new(v.as_str())));
        cells.push(Cell::new("│").style(dim()));
        match &r.published {
            Some(row) => cells.extend(row.iter().zip(&r.changed).map(|(v, &c)| {
                let cell = Cell::new(v.as_str());
                if c {
                    cell.style(changed)
                } else {
                    cell
                }
            })),
            None => cells.push(Cell::new("suppressed").style(dim())),
        }
        let row = Row::new(cells);
        if Some(i) == selected {
            row.style(Style::new().add_modifier(Modifier::REVERSED))
        } else {
            row
        }
    });
    let mut widths = vec![Constraint::Length(number_width)];
    widths.extend(s.left_widths.iter().map(|&w| Constraint::Length(w)));
    widths.push(Constraint::Length(1));
    widths.extend(s.right_widths.iter().map(|&w| Constraint::Length(w)));
    let table = Table::new(rows, widths)
        .header(Row::new(header))
        .column_spacing(1)
        .block(block);
    frame.render_widget(table, area);
}
