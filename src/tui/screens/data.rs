//! The Data screen's component: the table's cursor and viewport, the
//! focused column's statistics, and the dialog marking sensitive cells.
//! Roles and cells are the session's: this screen edits them through
//! [`SessionState`], which counts the change, and every other screen
//! follows the session's generations.

use std::ops::Range;

use ratatui::text::Span;

use super::mark::MarkDialog;
use crate::data::{CellSensitivity, ColumnKind, Dataset, Role};
use crate::tui::keymap::Action;
use crate::tui::session::SessionState;
use crate::tui::shared::{visible_window, Out};

/// Most frequent values kept for the side panel's bar chart.
const TOP_VALUES: usize = 12;
/// Widest a data column is drawn; longer values are cut.
const MAX_COLUMN_WIDTH: usize = 24;

/// Statistics of the focused column, for the Data screen's side panel.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnStats {
    pub column: usize,
    pub name: String,
    pub kind: ColumnKind,
    pub role: Role,
    pub distinct: usize,
    pub missing: u64,
    pub rows: usize,
    /// Most frequent values, most frequent first (ties by code order).
    pub top: Vec<(String, u64)>,
    /// Rows holding a value not in `top`.
    pub other: u64,
    /// Cells marked sensitive, for semi-sensitive columns.
    pub sensitive: Option<usize>,
}

/// Cursor and viewport of the Data screen's table.
#[derive(Debug, Clone, PartialEq)]
pub struct DataView {
    pub row: usize,
    pub col: usize,
    /// First row on screen.
    pub top: usize,
    /// First column on screen.
    pub left: usize,
    /// Data rows that fit on screen.
    pub page: usize,
    /// Columns on screen, left to right, with their drawn widths.
    pub columns: Vec<(usize, u16)>,
    /// Width of the row-number gutter.
    pub gutter: u16,
    /// Drawn width of every column (header, role tag and values, capped).
    widths: Vec<u16>,
    /// Room for data columns, right of the gutter.
    room: u16,
}

impl DataView {
    /// The rows on screen. Its length is at most `page`, whatever the size
    /// of the table: only these rows are ever turned into widgets.
    pub fn visible_rows(&self, n_rows: usize) -> Range<usize> {
        visible_window(n_rows, self.top, self.page)
    }
}

/// The Data screen.
pub struct DataScreen {
    pub view: DataView,
    pub stats: ColumnStats,
    /// The open "mark sensitive cells" dialog (modal).
    pub mark: Option<MarkDialog>,
    /// The keys of "role: semi-sensitive" (from the key map, which the
    /// user may remap), for the notice that only its cells can be marked.
    pub semi_key: String,
}

impl DataScreen {
    pub fn new(ds: &Dataset) -> Self {
        let mut s = DataScreen {
            view: DataView {
                row: 0,
                col: 0,
                top: 0,
                left: 0,
                page: 1,
                columns: Vec::new(),
                gutter: digits(ds.n_rows()) as u16,
                widths: column_widths(ds),
                room: 0,
            },
            stats: empty_stats(),
            mark: None,
            semi_key: "S".into(),
        };
        s.follow_cursor(ds.n_rows());
        s
    }

    /// A new terminal size: `page` data rows and `width` cells for the
    /// table (gutter included).
    pub fn relayout(&mut self, page: usize, width: u16, n_rows: usize) {
        self.view.page = page.max(1);
        self.view.room = width.saturating_sub(self.view.gutter + 1);
        self.follow_cursor(n_rows);
    }

    /// Apply an action of the screen.
    pub fn step(&mut self, action: &Action, session: &mut SessionState, out: &mut Out) {
        let n = session.dataset().n_rows();
        let last_row = n.saturating_sub(1);
        let last_col = session.dataset().n_cols().saturating_sub(1);
        let page = self.view.page.max(1);
        let d = &mut self.view;
        let old_col = d.col;
        match *action {
            Action::Up => d.row = d.row.saturating_sub(1),
            Action::Down => d.row = (d.row + 1).min(last_row),
            Action::Left => d.col = d.col.saturating_sub(1),
            Action::Right => d.col = (d.col + 1).min(last_col),
            Action::PageUp => {
                d.row = d.row.saturating_sub(page);
                d.top = d.top.saturating_sub(page);
            }
            Action::PageDown => {
                d.row = (d.row + page).min(last_row);
                d.top = (d.top + page).min(n.saturating_sub(page));
            }
            Action::First => d.row = 0,
            Action::Last => d.row = last_row,
            Action::RowStart => d.col = 0,
            Action::RowEnd => d.col = last_col,
            Action::Scroll(by) => {
                let max_top = n.saturating_sub(page);
                d.top = d.top.saturating_add_signed(by as isize).min(max_top);
                d.row = d.row.clamp(d.top, (d.top + page - 1).min(last_row));
            }
            Action::CycleRole => {
                let role = session.roles().get(d.col).next();
                return self.set_role(role, session, out);
            }
            Action::SetRole(role) => return self.set_role(role, session, out),
            Action::ToggleSensitivity => return self.toggle_sensitivity(session, out),
            Action::MarkCells => return self.open_mark_dialog(session, out),
            _ => return,
        }
        self.follow_cursor(n);
        if self.view.col != old_col {
            self.refresh_stats(session);
        }
    }

    fn explain_not_semi_sensitive(&self, out: &mut Out) {
        out.notice(format!(
            "only cells of semi-sensitive columns can be marked sensitive (key {})",
            self.semi_key
        ));
    }

    /// Put the cursor on a cell (a click, a search match, a jump from the
    /// Risk screen).
    pub fn select(&mut self, row: usize, col: Option<usize>, session: &SessionState) {
        let n = session.dataset().n_rows();
        if row >= n {
            return;
        }
        self.view.row = row;
        let old = self.view.col;
        if let Some(c) = col {
            self.view.col = c;
        }
        self.follow_cursor(n);
        if self.view.col != old {
            self.refresh_stats(session);
        }
    }

    fn set_role(&mut self, role: Role, session: &mut SessionState, out: &mut Out) {
        if let Some(n) = session.set_role(self.view.col, role) {
            out.notice(n);
        }
        self.refresh_stats(session);
    }

    fn toggle_sensitivity(&mut self, session: &mut SessionState, out: &mut Out) {
        let (row, col) = (self.view.row, self.view.col);
        if session.dataset().n_rows() == 0 {
            return;
        }
        if session.roles().get(col) != Role::SemiSensitive {
            return self.explain_not_semi_sensitive(out);
        }
        session.toggle_cell(col, row);
        self.refresh_stats(session);
    }

    fn open_mark_dialog(&mut self, session: &SessionState, out: &mut Out) {
        let col = self.view.col;
        if session.dataset().n_cols() == 0 {
            return;
        }
        if session.roles().get(col) != Role::SemiSensitive {
            return self.explain_not_semi_sensitive(out);
        }
        let (spec, count) = session.cell_spec(col);
        self.mark = Some(MarkDialog::open(
            session.dataset(),
            col,
            &spec,
            count,
            session.params().seed,
        ));
    }

    /// The dialog is modal: it takes every action but quitting and resizing
    /// (handled before), and Enter applies it — or, when the fields do not
    /// make a source the data accepts, shows why and stays open.
    pub fn step_mark(&mut self, action: &Action, session: &mut SessionState, out: &mut Out) {
        let Some(d) = self.mark.as_mut() else {
            return;
        };
        match *action {
            Action::Cancel => self.mark = None,
            Action::Up => d.move_focus(-1),
            Action::Down => d.move_focus(1),
            Action::Left => d.choose(-1),
            Action::Right => d.choose(1),
            Action::TypeChar(c) => d.type_char(c),
            Action::DeleteChar => d.delete_char(),
            Action::Confirm => {
                let col = d.column;
                let name = session.dataset().col(col).name().to_string();
                let applied = d
                    .source(session.dataset())
                    .and_then(|source| session.set_cells(col, CellSensitivity::new(source)));
                match applied {
                    Ok((count, hidden)) => {
                        let mut n = format!(
                            "{name}: {} sensitive cells",
                            crate::format::thousands(count as u64)
                        );
                        if let Some(h) = hidden {
                            n.push_str("; ");
                            n.push_str(&h);
                        }
                        out.notice(n);
                        self.mark = None;
                        self.refresh_stats(session);
                    }
                    Err(e) => d.error = Some(e),
                }
            }
            _ => {}
        }
    }

    /// Bring the side panel's statistics up to date. Counting values is
    /// O(rows), so it is done only when the focused column changes; a role
    /// change or a toggle only updates the role and the sensitive count.
    pub fn refresh_stats(&mut self, session: &SessionState) {
        let ds = session.dataset();
        if ds.n_cols() == 0 {
            self.stats = empty_stats();
            return;
        }
        let c = self.view.col;
        let role = session.roles().get(c);
        let sensitive = (role == Role::SemiSensitive).then(|| session.cell_spec(c).1);
        if self.stats.column == c && !self.stats.name.is_empty() {
            self.stats.role = role;
            self.stats.sensitive = sensitive;
            return;
        }
        let col = ds.col(c);
        let freq = col.frequencies();
        let missing = freq.last().copied().unwrap_or(0);
        let mut order: Vec<usize> = (0..col.cardinality()).filter(|&v| freq[v] > 0).collect();
        let by_count = |a: &usize, b: &usize| freq[*b].cmp(&freq[*a]).then(a.cmp(b));
        // Only the top few need sorting; an identifier column has as many
        // values as rows.
        if order.len() > TOP_VALUES {
            order.select_nth_unstable_by(TOP_VALUES, by_count);
            order.truncate(TOP_VALUES);
        }
        order.sort_by(by_count);
        let top: Vec<(String, u64)> = order
            .iter()
            .map(|&v| (col.display(v as u32).to_string(), freq[v]))
            .collect();
        let shown: u64 = top.iter().map(|t| t.1).sum();
        self.stats = ColumnStats {
            column: c,
            name: col.name().to_string(),
            kind: col.kind(),
            role,
            distinct: col.cardinality(),
            missing,
            rows: ds.n_rows(),
            other: ds.n_rows() as u64 - shown - missing,
            top,
            sensitive,
        };
    }

    /// Scroll so the cursor is on screen, and recompute the visible columns.
    pub fn follow_cursor(&mut self, n: usize) {
        let d = &mut self.view;
        let page = d.page.max(1);
        if d.row < d.top {
            d.top = d.row;
        } else if d.row >= d.top + page {
            d.top = d.row + 1 - page;
        }
        d.top = d.top.min(n.saturating_sub(page));
        if d.col < d.left {
            d.left = d.col;
        }
        while d.left < d.col && !fits(&d.widths[d.left..=d.col], d.room) {
            d.left += 1;
        }
        d.columns.clear();
        let mut used = 0u16;
        for c in d.left..d.widths.len() {
            let w = d.widths[c];
            let need = if d.columns.is_empty() { w } else { w + 1 };
            if used + need > d.room {
                if d.columns.is_empty() {
                    d.columns.push((c, d.room.max(1)));
                }
                break;
            }
            used += need;
            d.columns.push((c, w));
        }
    }
}

/// Whether columns of these widths fit side by side, one space apart.
fn fits(widths: &[u16], room: u16) -> bool {
    let total: u32 = widths.iter().map(|&w| u32::from(w) + 1).sum::<u32>();
    total.saturating_sub(1) <= u32::from(room)
}

fn column_widths(ds: &Dataset) -> Vec<u16> {
    ds.columns()
        .iter()
        .map(|col| {
            let widest = col
                .dictionary()
                .iter()
                .map(|v| Span::raw(&**v).width())
                .max()
                .unwrap_or(1);
            // The header shows the name and the role tag ("SS"); the
            // sensitive marker takes one more cell.
            let w = widest.max(Span::raw(col.name()).width()).max(2) + 2;
            w.min(MAX_COLUMN_WIDTH) as u16
        })
        .collect()
}

fn digits(n: usize) -> usize {
    n.max(1).ilog10() as usize + 1
}

fn empty_stats() -> ColumnStats {
    ColumnStats {
        column: 0,
        name: String::new(),
        kind: ColumnKind::Categorical,
        role: Role::Insensitive,
        distinct: 0,
        missing: 0,
        rows: 0,
        top: Vec::new(),
        other: 0,
        sensitive: None,
    }
}
