//! The Data screen's component: the table's cursor and viewport, the
//! focused column's statistics, and the dialog marking sensitive cells.
//! Roles and cells are the session's: this screen edits them through
//! [`SessionState`], which counts the change, and every other screen
//! follows the session's generations.

use std::ops::Range;

use ratatui::layout::{Position, Rect};
use ratatui::text::Span;
use ratatui::Frame;

use super::explore::{FrequencyView, RowOrder, Sort};
use super::mark::MarkDialog;
use crate::chart::{self, ChartData, ChartExport};
use crate::keymap::Action;
use crate::layout;
use crate::search;
use crate::session::SessionState;
use crate::shared::{follow, visible_window, Out, Screen};
use anonlab::data::{CellSensitivity, ColumnKind, Dataset, Role};

/// Most frequent values kept for the side panel's bar chart.
const TOP_VALUES: usize = 12;
/// Widest a data column is drawn at first; longer values are cut until
/// the column is widened (`>`).
const MAX_COLUMN_WIDTH: usize = 24;
/// Widest `>` makes a column.
const WIDEST_COLUMN: u16 = 120;

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
    /// Counted in a grouped session's sample (a column its frequency
    /// table does not hold), not over every record.
    pub of_sample: bool,
}

/// Cursor and viewport of the Data screen's table.
#[derive(Debug, Clone, PartialEq)]
pub struct DataView {
    /// The cursor's position in the view's order (see `order`).
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
    /// The rows in view and their order (sorted, filtered); positions
    /// (`row`, `top`) count in it.
    pub order: RowOrder,
}

impl DataView {
    /// The rows on screen. Its length is at most `page`, whatever the size
    /// of the table: only these rows are ever turned into widgets.
    pub fn visible_rows(&self, n_rows: usize) -> Range<usize> {
        visible_window(self.order.len(n_rows), self.top, self.page)
    }

    /// The record under the cursor.
    pub fn record(&self) -> usize {
        self.order.record(self.row)
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
    /// The focused column's frequency table (`F`), over the table.
    pub freq: Option<FrequencyView>,
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
                order: RowOrder::default(),
            },
            stats: empty_stats(),
            mark: None,
            semi_key: "S".into(),
            freq: None,
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
        let n = self.view.order.len(session.table().n_rows());
        let last_row = n.saturating_sub(1);
        let last_col = session.table().n_cols().saturating_sub(1);
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
                let role = session.table_role(d.col).next();
                return self.set_role(role, session, out);
            }
            Action::SetRole(role) => return self.set_role(role, session, out),
            Action::ToggleSensitivity => return self.toggle_sensitivity(session, out),
            Action::MarkCells => return self.open_mark_dialog(session, out),
            Action::Sort { descending } => return self.sort(descending, session, out),
            Action::WidenColumn(by) => {
                if let Some(w) = d.widths.get_mut(d.col) {
                    *w = w.saturating_add_signed(by as i16).clamp(3, WIDEST_COLUMN);
                }
            }
            Action::ShowFrequencies => {
                if session.table().n_cols() == 0 {
                    return;
                }
                // Over every record: a grouped session's column is counted
                // in its frequency table, not in the sample.
                match session.table_column(d.col) {
                    Some(c) => {
                        self.freq = Some(FrequencyView::new(
                            session.dataset(),
                            c,
                            &session.known_columns(),
                            session.params().k,
                        ))
                    }
                    None => out.notice(not_in_table(session, d.col)),
                }
                return;
            }
            Action::Confirm => return self.row_detail(session, out),
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

    /// `[` / `]`: sort the view by the focused column, ascending or
    /// descending; the same key again goes back to file order. The cursor
    /// stays on its record.
    fn sort(&mut self, descending: bool, session: &SessionState, out: &mut Out) {
        let ds = session.table();
        if ds.n_cols() == 0 {
            return;
        }
        let record = self.view.record();
        let sort = Sort {
            column: self.view.col,
            descending,
        };
        let o = &mut self.view.order;
        o.sort = (o.sort != Some(sort)).then_some(sort);
        let _ = o.rebuild(ds);
        out.notice(match o.sort {
            Some(s) => format!(
                "sorted by {} {}",
                ds.col(s.column).name(),
                if s.descending {
                    "descending"
                } else {
                    "ascending"
                }
            ),
            None => "file order".to_string(),
        });
        self.select(record, None, session);
    }

    /// `:filter RULE` (`|`): show only the rows the rule keeps; no rule
    /// shows every row again. A rule the data does not accept is named in
    /// a popup and the view stays.
    pub fn set_filter(&mut self, rule: Option<String>, session: &SessionState, out: &mut Out) {
        let ds = session.table();
        let record = self.view.record();
        let mut order = self.view.order.clone();
        order.filter = rule;
        if let Err(e) = order.rebuild(ds) {
            out.popup("The filter was not applied", e);
            return;
        }
        let shown = order.len(ds.n_rows());
        out.notice(match &order.filter {
            Some(r) => format!(
                "{} of {} rows satisfy {r} (| changes the filter, :filter alone clears it)",
                anonlab::format::thousands(shown as u64),
                anonlab::format::thousands(ds.n_rows() as u64)
            ),
            None => "every row shown".to_string(),
        });
        // The cursor stays on its record when the filter keeps it, else
        // goes to the first row kept.
        let pos = order.position(record).unwrap_or(0);
        self.view.order = order;
        self.view.top = 0;
        self.view.row = pos;
        self.follow_cursor(shown);
    }

    /// Enter: every value of the record under the cursor, in a popup.
    fn row_detail(&mut self, session: &SessionState, out: &mut Out) {
        let ds = session.table();
        if ds.n_rows() == 0 {
            return;
        }
        let r = self.view.record();
        let width = ds
            .columns()
            .iter()
            .map(|c| c.name().chars().count())
            .max()
            .unwrap_or(0);
        let lines: Vec<String> = (0..ds.n_cols())
            .map(|c| {
                let col = ds.col(c);
                let mark = if session.table_cell_sensitive(r, c) {
                    " (sensitive cell)"
                } else {
                    ""
                };
                format!(
                    "{:<width$}  {}  {}{mark}",
                    col.name(),
                    session.table_role(c).tag(),
                    col.display(col.code(r))
                )
            })
            .collect();
        out.popup(&format!("Record {}", r + 1), lines.join("\n"));
    }

    /// The frequency table is modal: ↑↓ and the page keys scroll it, Esc
    /// or `F` closes it.
    pub fn step_freq(&mut self, action: &Action) {
        let Some(f) = self.freq.as_mut() else {
            return;
        };
        let last = f.values.len().saturating_sub(1);
        match *action {
            Action::Cancel | Action::ShowFrequencies => self.freq = None,
            Action::Up => f.scroll = f.scroll.saturating_sub(1),
            Action::Down => f.scroll = (f.scroll + 1).min(last),
            Action::PageUp => f.scroll = f.scroll.saturating_sub(10),
            Action::PageDown => f.scroll = (f.scroll + 10).min(last),
            Action::First => f.scroll = 0,
            Action::Last => f.scroll = last,
            Action::Scroll(by) => f.scroll = f.scroll.saturating_add_signed(by as isize).min(last),
            _ => {}
        }
    }

    /// Put the cursor on a record (a click's row is a view position: see
    /// [`select_position`](Self::select_position); a search match, a jump
    /// from the Risk screen). A record the filter hides clears the filter.
    pub fn select(&mut self, record: usize, col: Option<usize>, session: &SessionState) {
        let n = session.table().n_rows();
        if record >= n {
            return;
        }
        let pos = match self.view.order.position(record) {
            Some(p) => p,
            None => {
                self.view.order.filter = None;
                let _ = self.view.order.rebuild(session.table());
                self.view.order.position(record).unwrap_or(record)
            }
        };
        self.select_position(pos, col, session);
    }

    /// Put the cursor on a view position.
    pub fn select_position(&mut self, row: usize, col: Option<usize>, session: &SessionState) {
        let n = self.view.order.len(session.table().n_rows());
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
        let Some(c) = session.table_column(self.view.col) else {
            // A grouped session's table holds only the columns given a
            // role when the file was opened: another column's figures
            // would need the file grouped again.
            if role != session.table_role(self.view.col) {
                out.popup(
                    "The role was not changed",
                    not_in_table(session, self.view.col),
                );
            }
            return;
        };
        if let Some(n) = session.set_role(c, role) {
            out.notice(n);
        }
        self.refresh_stats(session);
    }

    fn toggle_sensitivity(&mut self, session: &mut SessionState, out: &mut Out) {
        let (row, col) = (self.view.record(), self.view.col);
        if session.table().n_rows() == 0 {
            return;
        }
        if session.grouped().is_some() {
            return out.notice(CELLS_NEED_RECORDS);
        }
        if session.roles().get(col) != Role::SemiSensitive {
            return self.explain_not_semi_sensitive(out);
        }
        session.toggle_cell(col, row);
        self.refresh_stats(session);
    }

    fn open_mark_dialog(&mut self, session: &SessionState, out: &mut Out) {
        let col = self.view.col;
        if session.table().n_cols() == 0 {
            return;
        }
        if session.grouped().is_some() {
            return out.notice(CELLS_NEED_RECORDS);
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
            Action::Left => {
                d.choose(-1);
                d.refresh_preview(session.dataset());
            }
            Action::Right => {
                d.choose(1);
                d.refresh_preview(session.dataset());
            }
            Action::TypeChar(c) => {
                d.type_char(c);
                d.refresh_preview(session.dataset());
            }
            Action::DeleteChar => {
                d.delete_char();
                d.refresh_preview(session.dataset());
            }
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
                            anonlab::format::thousands(count as u64)
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
        if session.table().n_cols() == 0 {
            self.stats = empty_stats();
            return;
        }
        let c = self.view.col;
        let role = session.table_role(c);
        // A grouped session's column is counted over every record in its
        // frequency table; a column the table does not hold, in the sample.
        let (ds, at, of_sample) = match (session.grouped(), session.table_column(c)) {
            (None, _) => (session.dataset(), c, false),
            (Some(_), Some(t)) => (session.dataset(), t, false),
            (Some(_), None) => (session.table(), c, true),
        };
        let sensitive = (role == Role::SemiSensitive).then(|| session.cell_spec(at).1);
        if self.stats.column == c && !self.stats.name.is_empty() {
            self.stats.role = role;
            self.stats.sensitive = sensitive;
            return;
        }
        let col = ds.col(at);
        let freq = if ds.is_grouped() {
            let mut f = vec![0u64; col.code_space()];
            for (r, &v) in col.codes().iter().enumerate() {
                f[v as usize] += u64::from(ds.multiplicity(r));
            }
            f
        } else {
            col.frequencies()
        };
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
            rows: ds.records() as usize,
            other: ds.records() - shown - missing,
            top,
            sensitive,
            of_sample,
        };
    }

    /// Scroll so the cursor is on screen, and recompute the visible columns.
    pub fn follow_cursor(&mut self, n: usize) {
        let d = &mut self.view;
        d.top = follow(d.top, d.row, d.page, n);
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
        of_sample: false,
    }
}

/// Marking cells by hand or by a rule reads the rows of the dataset; a
/// grouped session's rows are combinations and the sample's are not its.
const CELLS_NEED_RECORDS: &str = "sensitive cells are marked on records, and this session holds the file's frequency table (combinations); open the file with --engine memory to mark them";

/// Why column `c` of a grouped session's sample has no role to change.
fn not_in_table(session: &SessionState, c: usize) -> String {
    let name = session.table().col(c).name();
    format!(
        "'{name}' is not in the frequency table: the file was opened through the query engine, \
         which grouped only the columns given a role on the command line. To give '{name}' a \
         role, open the file again naming it (anonlab tui FILE --engine datafusion --qi ... or \
         --sensitive {name}), or with --engine memory."
    )
}

mod draw;

impl super::Component for DataScreen {
    fn step(&mut self, action: &Action, cx: &mut super::Context<'_>, out: &mut Out) {
        DataScreen::step(self, action, cx.session, out);
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &super::View<'_>) {
        draw::draw(frame, area, &super::Drawn { me: self, view });
    }

    /// The screen has no job slot of its own.
    fn on_job(&mut self, _msg: super::JobMsg, _cx: &mut super::Context<'_>, _out: &mut Out) {}

    /// Every column, in the view's order (sorted, filtered), from the
    /// cursor's row.
    fn search(&mut self, q: &str, forward: bool, cx: &mut super::Context<'_>) -> String {
        let ds = std::sync::Arc::clone(cx.session.table());
        if ds.n_cols() == 0 {
            return format!("'{q}' not found: the table has no column");
        }
        let hits: Vec<(usize, Vec<bool>)> = (0..ds.n_cols())
            .map(|c| (c, search::matching_codes(ds.col(c).dictionary(), q)))
            .collect();
        let order = &self.view.order;
        let in_row = |pos: usize| {
            let r = order.record(pos);
            hits.iter()
                .find(|(c, h)| h.get(ds.col(*c).code(r) as usize) == Some(&true))
                .map(|(c, _)| *c)
        };
        let n = order.len(ds.n_rows());
        let found = search::next_match(n, self.view.row, forward, |p| in_row(p).is_some());
        let found = found.map(|p| (p, in_row(p).unwrap_or(0), order.record(p)));
        cx.search.hits = Some(hits);
        match found {
            Some((pos, c, r)) => {
                self.select_position(pos, Some(c), cx.session);
                format!("/{q}: row {} ({})", r + 1, ds.col(c).name())
            }
            None => format!("'{q}' not found in any column"),
        }
    }

    fn click(&mut self, area: Rect, at: Position, cx: &mut super::Context<'_>) {
        let vp = layout::data_table_viewport(area);
        if !vp.contains(at) {
            return;
        }
        let d = &self.view;
        let r = d.top + usize::from(at.y - vp.y);
        if r >= d.order.len(cx.session.table().n_rows()) {
            return;
        }
        // The row-number gutter, then the columns one space apart.
        let mut x = vp.x + d.gutter + 1;
        let mut col = None;
        for &(c, w) in &d.columns {
            if (x..x + w + 1).contains(&at.x) {
                col = Some(c);
                break;
            }
            x += w + 1;
        }
        self.select_position(r, col, cx.session);
    }

    /// The figures of the Data screen come from the risk simulation.
    fn status_jobs(&self) -> Screen {
        Screen::Risk
    }

    fn show(&mut self, _cx: &mut super::Context<'_>) {}

    /// The screen has no job of its own; its figures are the baseline's.
    fn cancel(&mut self, session: &mut SessionState) -> bool {
        session.cancel_baseline()
    }

    fn chart(&self, session: &SessionState) -> Result<ChartExport, String> {
        if session.known_columns().is_empty() {
            return Err(
                "the attacker knows no attribute yet (key Q gives a column the QI role)".into(),
            );
        }
        let b = session.baseline().ok_or(chart::NOT_YET)?;
        Ok(ChartExport {
            screen: "data",
            data: ChartData::ClassSizes(std::sync::Arc::clone(b)),
            attacker: chart::attacker(session),
        })
    }
}
