//! Before and after side by side: the original record on the left, its
//! published row on the right, one record per line in file order; cells
//! the release changed in yellow, a suppressed record in grey, cells of a
//! local suppression in their theme styles (suppressed; missing before).

use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Row, Table};
use ratatui::Frame;

use crate::screens::anonymize::AnonymizeScreen;
use crate::screens::release::CellMark;
use crate::screens::Drawn;
use crate::widgets::{self, dim, thousands, title_style};

pub(super) fn draw(frame: &mut Frame, area: Rect, d: &Drawn<'_, AnonymizeScreen>) {
    let s = &&d.me.state.side_by_side;
    let n = d.session.dataset().n_rows();
    let view = d.me.state.view.as_ref();
    let mut title = vec![Span::styled(" Before │ after ", title_style())];
    match view {
        Some(v) if !s.rows.is_empty() => {
            let records = format!(
                "records {}–{} of {}",
                thousands(s.top as u64 + 1),
                thousands((s.top + s.rows.len()) as u64),
                thousands(n as u64),
            );
            // A local suppression suppresses cells, not records: its
            // count and its legend.
            let (suppressed, legend) = match &v.release.suppression {
                Some(c) => (
                    format!("{} cells suppressed", thousands(c.total)),
                    "yellow: changed, blue: suppressed, italic: missing before",
                ),
                None => (
                    format!(
                        "{} suppressed",
                        thousands(v.release.suppressed_rows.len() as u64)
                    ),
                    "yellow: changed",
                ),
            };
            // The legend where there is room for it; on a narrow view the
            // short form, then that cut with "…" (the border clipped
            // "0 suppressed" to "0 suppr").
            let room = usize::from(area.width.saturating_sub(2)).saturating_sub(16);
            let long = if area.width >= 100 {
                format!("{records}, file order; {suppressed}; {legend}  (b closes) ")
            } else {
                format!("{records}, file order; {suppressed} ")
            };
            let text = if Span::raw(long.as_str()).width() <= room {
                long
            } else {
                widgets::cut(&format!("{records}; {suppressed} "), room)
            };
            title.push(Span::styled(text, dim()));
        }
        _ => title.push(Span::styled("no release yet  (b closes) ", dim())),
    }
    let block = Block::bordered().title(Line::from(title));
    let number_width = thousands(n as u64).chars().count().max(1) as u16;
    let mut asked = vec![number_width];
    asked.extend(&s.left_widths);
    asked.push(1);
    asked.extend(&s.right_widths);
    // The widths the table gives, so each side's cells are cut with "…"
    // and two different values never read alike (widgets::fit_column).
    let given = widgets::table_widths(&asked, 1, block.inner(area).width);
    let (left_w, right_w) = given[1..].split_at(s.left_widths.len());
    let right_w = &right_w[1..];
    let originals: Vec<Vec<String>> = s.rows.iter().map(|r| r.original.clone()).collect();
    let originals = widgets::fit_rows(&originals, left_w);
    let published: Vec<Vec<String>> = s
        .rows
        .iter()
        .map(|r| r.published.clone().unwrap_or_default())
        .collect();
    let published = widgets::fit_rows(&published, right_w);
    let heading = |hs: &[String], ws: &[u16]| -> Vec<Cell<'static>> {
        hs.iter()
            .zip(ws)
            .map(|(h, &w)| Cell::new(widgets::cut(h, usize::from(w))).style(title_style()))
            .collect()
    };
    let mut header = vec![Cell::new("#").style(dim())];
    header.extend(heading(&s.left_headers, left_w));
    header.push(Cell::new("│").style(dim()));
    header.extend(heading(&s.right_headers, right_w));
    let changed = Style::new().fg(Color::Yellow);
    let selected = s.cursor.checked_sub(s.top);
    let rows = s.rows.iter().zip(originals).zip(published);
    let rows = rows.enumerate().map(|(i, ((r, original), published))| {
        let mut cells = vec![Cell::new(thousands(r.record as u64 + 1)).style(dim())];
        cells.extend(original.into_iter().map(Cell::new));
        cells.push(Cell::new("│").style(dim()));
        if r.published.is_some() {
            cells.extend(published.into_iter().enumerate().map(|(j, v)| {
                match r.marks.get(j).copied().unwrap_or_default() {
                    // Suppressed or missing says more than "changed".
                    CellMark::Plain if r.changed.get(j) == Some(&true) => {
                        Cell::new(v).style(changed)
                    }
                    mark => super::marked_cell(v, mark),
                }
            }));
        } else {
            cells.push(Cell::new("suppressed").style(dim()));
        }
        let row = Row::new(cells);
        if Some(i) == selected {
            row.style(Style::new().add_modifier(Modifier::REVERSED))
        } else {
            row
        }
    });
    let widths = given.into_iter().map(Constraint::Length);
    let table = Table::new(rows, widths)
        .header(Row::new(header))
        .column_spacing(1)
        .block(block);
    frame.render_widget(table, area);
}
