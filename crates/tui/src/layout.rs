//! Where each screen puts its panels, for a terminal of a given size: one
//! set of functions used both by drawing (`ui`) and by the app (scrolling
//! by a table's height, mouse clicks), so the two cannot disagree. It reads
//! only sizes, counts and cursors, never the app, so the app and the
//! drawing both depend on it and not on each other.

use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::Span;
use ratatui::widgets::Block;

use super::shared::Screen;

/// The three horizontal bands of every screen.
pub struct Bands {
    pub tabs: Rect,
    pub body: Rect,
    pub status: Rect,
}

pub fn bands(area: Rect) -> Bands {
    let [tabs, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    Bands { tabs, body, status }
}

/// A tab's title: "1 Data".
pub fn tab_title(i: usize, s: Screen) -> String {
    format!("{} {}", i + 1, s.title())
}

/// The screen whose tab is drawn at `at`, for clicks: each title is
/// padded by one cell on both sides and tabs are one cell apart, as
/// ratatui's `Tabs` draws them.
pub fn tab_at(area: Rect, at: Position) -> Option<Screen> {
    let tabs = bands(area).tabs;
    if !tabs.contains(at) {
        return None;
    }
    let mut x = tabs.x;
    for (i, s) in Screen::ALL.iter().enumerate() {
        let w = tab_width(i, *s);
        if (x..x + w).contains(&at.x) {
            return Some(*s);
        }
        x += w + 1;
    }
    None
}

/// Cells one tab takes: its title and a cell of padding on each side.
fn tab_width(i: usize, s: Screen) -> u16 {
    Span::raw(tab_title(i, s)).width() as u16 + 2
}

/// Cells the whole tab bar takes, the tabs one cell apart.
pub fn tabs_width() -> u16 {
    let tabs = Screen::ALL.iter().enumerate();
    tabs.map(|(i, s)| tab_width(i, *s) + 1).sum::<u16>() - 1
}

// ---- Data ----

/// The Data screen's side panel width; hidden on terminals narrower than
/// [`DATA_SIDE_MIN`].
pub const DATA_SIDE_WIDTH: u16 = 34;
pub const DATA_SIDE_MIN: u16 = 80;
/// The Data table's header lines: column name, then role tag.
pub const DATA_HEADER_HEIGHT: u16 = 2;

/// The Data screen's table area and side panel area.
pub fn data_split(body: Rect) -> (Rect, Option<Rect>) {
    if body.width < DATA_SIDE_MIN + 1 {
        return (body, None);
    }
    let [table, side] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(DATA_SIDE_WIDTH)]).areas(body);
    (table, Some(side))
}

/// Data rows' area inside the table's border, below the header.
pub fn data_viewport_of(table: Rect) -> Rect {
    let inner = Block::bordered().inner(table);
    Rect {
        y: inner.y + DATA_HEADER_HEIGHT.min(inner.height),
        height: inner.height.saturating_sub(DATA_HEADER_HEIGHT),
        ..inner
    }
}

/// Where the Data screen draws its data rows, for a terminal of `area`.
pub fn data_table_viewport(area: Rect) -> Rect {
    data_viewport_of(data_split(bands(area).body).0)
}

// ---- Risk ----

/// The attacker picker's and prefix table's column.
pub const RISK_LEFT_WIDTH: u16 = 36;
/// Border, header, two rows per attack, two lines about the attackers.
pub const RISK_FIGURES_HEIGHT: u16 = 11;

/// The Risk screen's panels.
pub struct RiskAreas {
    pub picker: Rect,
    pub prefix: Rect,
    pub figures: Rect,
    pub gauge: Rect,
    /// The risk model's panel (no height without the statistics offices'
    /// measures).
    pub model: Rect,
    pub list: Rect,
    pub chart: Rect,
}

/// The heights the Risk screen's layout follows: the prefix table's rows
/// and the model panel's (0: no panel).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RiskRows {
    pub prefix: u16,
    pub model: u16,
    /// The panel a short terminal shows ([`risk_compact`]).
    pub shown: RiskPanel,
}

/// The one panel the Risk screen shows on a short terminal, where the
/// figures (eleven rows) left one row for the picker, the list and the
/// prefix table: the figures, the picker with the prefix table, or the
/// list of records, each on the whole body (← → go from one to the next).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RiskPanel {
    #[default]
    Figures,
    Picker,
    List,
}

/// Below this body height the Risk screen shows one panel at a time: the
/// figures, their gauge and a list of eight rows need it.
pub const RISK_COMPACT_BELOW_HEIGHT: u16 = RISK_FIGURES_HEIGHT + 1 + 8;

/// Whether the Risk screen shows one panel at a time in `body`.
pub fn risk_compact(body: Rect) -> bool {
    body.height < RISK_COMPACT_BELOW_HEIGHT
}

/// The Risk screen's panels in a body, the prefix table and the model
/// panel as tall as `rows` asks (the model panel with its border; on a
/// short terminal in the chart's place). Below 100 columns the picker and
/// the prefix table go under the figures, so the figures keep their width.
pub fn risk_areas(body: Rect, rows: RiskRows) -> RiskAreas {
    if risk_compact(body) {
        return risk_areas_compact(body, rows.shown);
    }
    let mut a = risk_areas_with(body, rows);
    if rows.model > 0 && body.height < RISK_MODEL_BELOW_MIN_HEIGHT {
        // Too short for one more panel: the model panel takes the chart's
        // place, so the list keeps its rows.
        a.model = a.chart;
        a.chart = Rect::default();
    }
    a
}

/// One panel on the whole body (`RiskPanel`); the others have no room.
fn risk_areas_compact(body: Rect, shown: RiskPanel) -> RiskAreas {
    let none = Rect::default();
    let mut a = RiskAreas {
        picker: none,
        prefix: none,
        figures: none,
        gauge: none,
        model: none,
        list: none,
        chart: none,
    };
    match shown {
        RiskPanel::Figures => {
            [a.figures, a.gauge] =
                Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(body);
        }
        RiskPanel::Picker => {
            [a.picker, a.prefix] =
                Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)])
                    .areas(body);
        }
        RiskPanel::List => a.list = body,
    }
    a
}

/// Below this body height the model panel takes the chart's place.
pub const RISK_MODEL_BELOW_MIN_HEIGHT: u16 = 36;

fn risk_areas_with(body: Rect, rows: RiskRows) -> RiskAreas {
    let prefix_rows = rows.prefix;
    let model_height = if rows.model == 0 || body.height < RISK_MODEL_BELOW_MIN_HEIGHT {
        0
    } else {
        rows.model + 2
    };
    let narrow = body.width < 100;
    let (left, right) = if narrow {
        let [top, model, bottom] = Layout::vertical([
            Constraint::Length(RISK_FIGURES_HEIGHT + 1),
            Constraint::Length(model_height),
            Constraint::Min(0),
        ])
        .areas(body);
        let [figures, gauge] = Layout::vertical([
            Constraint::Length(RISK_FIGURES_HEIGHT),
            Constraint::Length(1),
        ])
        .areas(top);
        let [left, rest] =
            Layout::horizontal([Constraint::Percentage(40), Constraint::Percentage(60)])
                .areas(bottom);
        let [list, chart] =
            Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(rest);
        let [picker, prefix] =
            Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(left);
        return RiskAreas {
            picker,
            prefix,
            figures,
            gauge,
            model,
            list,
            chart,
        };
    } else {
        let [left, right] =
            Layout::horizontal([Constraint::Length(RISK_LEFT_WIDTH), Constraint::Min(0)])
                .areas(body);
        (left, right)
    };
    let [picker, prefix] = Layout::vertical([
        Constraint::Min(4),
        Constraint::Length((prefix_rows + 3).min(left.height / 2)),
    ])
    .areas(left);
    let [figures, gauge, model, bottom] = Layout::vertical([
        Constraint::Length(RISK_FIGURES_HEIGHT),
        Constraint::Length(1),
        Constraint::Length(model_height),
        Constraint::Min(0),
    ])
    .areas(right);
    let [list, chart] = if bottom.width >= 80 {
        Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(bottom)
    } else {
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(bottom)
    };
    RiskAreas {
        picker,
        prefix,
        figures,
        gauge,
        model,
        list,
        chart,
    }
}

/// Where the Risk screen's list of records draws its rows (inside the
/// border, below the header), for a screen body of `body`.
pub fn risk_list_viewport_of(body: Rect, rows: RiskRows) -> Rect {
    let inner = Block::bordered().inner(risk_areas(body, rows).list);
    Rect {
        y: inner.y + 1.min(inner.height),
        height: inner.height.saturating_sub(1),
        ..inner
    }
}

/// The list's viewport for a terminal of `area`.
pub fn risk_list_viewport(area: Rect, rows: RiskRows) -> Rect {
    risk_list_viewport_of(bands(area).body, rows)
}

/// First item of a page of `height` items that shows `cursor`: lists
/// scroll by whole pages, so the position needs no state.
pub fn page_top(cursor: usize, height: usize) -> usize {
    let height = height.max(1);
    (cursor / height) * height
}

/// The attacker picker's row (an index into the attribute order) drawn at
/// `at`, for clicks: `cursor` is the picker's, `n` its attributes.
pub fn risk_picker_at(
    area: Rect,
    rows: RiskRows,
    cursor: usize,
    n: usize,
    at: Position,
) -> Option<usize> {
    let inner = Block::bordered().inner(risk_areas(bands(area).body, rows).picker);
    if !inner.contains(at) {
        return None;
    }
    let i = page_top(cursor, usize::from(inner.height)) + usize::from(at.y - inner.y);
    (i < n).then_some(i)
}

/// The record of the shown list (an index into it) drawn at `at`.
pub fn risk_record_at(
    area: Rect,
    rows: RiskRows,
    cursor: usize,
    n: usize,
    at: Position,
) -> Option<usize> {
    let vp = risk_list_viewport(area, rows);
    if !vp.contains(at) {
        return None;
    }
    let i = page_top(cursor, usize::from(vp.height)) + usize::from(at.y - vp.y);
    (i < n).then_some(i)
}

// ---- Anonymize ----

/// The parameter panel's width.
pub const ANON_PARAMS_WIDTH: u16 = 34;
/// The top band: parameters, figures, verification.
pub const ANON_TOP_HEIGHT: u16 = 10;

/// The Anonymize screen's panels.
pub struct AnonymizeAreas {
    pub params: Rect,
    pub figures: Rect,
    pub checks: Rect,
    pub gauge: Rect,
    pub breach: Rect,
    pub reid: Rect,
    pub table: Rect,
}

/// Smallest chart drawn (inside its border): below it a chart's axes and
/// labels leave no room for the curve, so the panel says so instead of
/// drawing a misleading line.
pub const CHART_MIN: (u16, u16) = (30, 8);

/// Rows the top band gains when the charts cannot be drawn: the figures'
/// two attacker lines wrap on a narrow terminal and need them.
const ANON_COMPACT_EXTRA: u16 = 3;

/// Whether the Anonymize screen's charts have too few rows to be drawn in
/// a body of `body_height`: the charts band is two fifths of what the top
/// band and the gauge leave.
pub fn anonymize_compact(body_height: u16) -> bool {
    let rest = body_height.saturating_sub(ANON_TOP_HEIGHT + 1);
    rest * 2 / 5 < CHART_MIN.1 + 2
}

/// The Anonymize screen's panels in a body. Below 120 columns the
/// verification goes under the figures, so the figures keep their width.
/// When the charts could not be drawn (a short terminal, 80 × 24), their
/// band shrinks to one line saying so and the figures and the table take
/// its rows.
pub fn anonymize_areas(body: Rect) -> AnonymizeAreas {
    let [top, gauge, charts, table] = if anonymize_compact(body.height) {
        Layout::vertical([
            Constraint::Length(ANON_TOP_HEIGHT + ANON_COMPACT_EXTRA),
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Min(0),
        ])
        .areas(body)
    } else {
        Layout::vertical([
            Constraint::Length(ANON_TOP_HEIGHT),
            Constraint::Length(1),
            Constraint::Fill(2),
            Constraint::Fill(3),
        ])
        .areas(body)
    };
    let (params, figures, checks) = if body.width >= 120 {
        let [params, figures, checks] = Layout::horizontal([
            Constraint::Length(ANON_PARAMS_WIDTH),
            Constraint::Fill(3),
            Constraint::Fill(2),
        ])
        .areas(top);
        (params, figures, checks)
    } else {
        let [params, right] =
            Layout::horizontal([Constraint::Length(ANON_PARAMS_WIDTH), Constraint::Fill(1)])
                .areas(top);
        let [figures, checks] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(3)]).areas(right);
        (params, figures, checks)
    };
    let [breach, reid] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(charts);
    AnonymizeAreas {
        params,
        figures,
        checks,
        gauge,
        breach,
        reid,
        table,
    }
}

/// Where the published table's data rows go (inside the border, below the
/// header), for a terminal of `area`.
pub fn anonymize_table_viewport(area: Rect) -> Rect {
    let inner = Block::bordered().inner(anonymize_areas(bands(area).body).table);
    Rect {
        y: inner.y + 1.min(inner.height),
        height: inner.height.saturating_sub(1),
        ..inner
    }
}

/// Rows a view taking the charts' and the table's place (the lattice,
/// before/after side by side, the sweep, a record) needs below its title
/// for more than a line or two: with fewer, it takes the whole body.
pub const ANON_VIEW_MIN_ROWS: u16 = 6;

/// Where the views that take the charts' and the table's place go: there,
/// or on a short terminal (60 × 15, where the top band left them the
/// title only) the whole body, the parameters and figures out of sight
/// until the view closes.
pub fn anonymize_view_area(body: Rect) -> Rect {
    let a = anonymize_areas(body);
    let area = a.breach.union(a.reid).union(a.table);
    if area.height < ANON_VIEW_MIN_ROWS + 2 {
        body
    } else {
        area
    }
}

/// Where the rows of the views that take the charts' and the table's
/// place (before/after side by side) go: inside the border, below the
/// header.
pub fn anonymize_views_viewport(area: Rect) -> Rect {
    let inner = Block::bordered().inner(anonymize_view_area(bands(area).body));
    Rect {
        y: inner.y + 1.min(inner.height),
        height: inner.height.saturating_sub(1),
        ..inner
    }
}

// ---- Hierarchies ----

/// Characters of a column name in the heat map's row labels.
pub const HEAT_ROW_LABEL: usize = 12;
/// Characters of a heat-map cell (a value like `0.42` and a space).
pub const HEAT_CELL: usize = 6;

/// The attribute list, the heat map and the tree's areas in a body, for a
/// matrix of `matrix_columns` columns over a dataset of `n_cols`.
pub fn hierarchies_areas(body: Rect, matrix_columns: usize, n_cols: usize) -> [Rect; 3] {
    let matrix_width = (HEAT_ROW_LABEL + 1 + HEAT_CELL * matrix_columns + 2) as u16;
    let left_width = matrix_width.clamp(36.min(body.width / 2), body.width / 2 + body.width / 6);
    let [left, right] =
        Layout::horizontal([Constraint::Length(left_width), Constraint::Min(0)]).areas(body);
    let list_height = (n_cols as u16 + 2).min(left.height / 2);
    let [list, matrix] =
        Layout::vertical([Constraint::Length(list_height), Constraint::Min(0)]).areas(left);
    [list, matrix, right]
}

/// First item of a window of `height` items that shows `cursor`.
pub fn window_top(cursor: usize, height: usize) -> usize {
    cursor.saturating_sub(height.saturating_sub(1))
}

/// The attribute (column) drawn at `at`, if any: for clicks.
pub fn hierarchies_attribute_at(
    area: Rect,
    matrix_columns: usize,
    n_cols: usize,
    cursor: usize,
    at: Position,
) -> Option<usize> {
    let list = hierarchies_areas(bands(area).body, matrix_columns, n_cols)[0];
    let inner = Block::bordered().inner(list);
    if !inner.contains(at) {
        return None;
    }
    let top = window_top(cursor, usize::from(inner.height));
    let c = top + usize::from(at.y - inner.y);
    (c < n_cols).then_some(c)
}

// ---- Compare ----

/// The Compare table's and chart's areas for `entries` entries.
pub fn compare_split(body: Rect, entries: usize) -> [Rect; 2] {
    // Header, rows, a blank line and three lines of notes inside the
    // border; at most half the screen when the chart needs the rest.
    let wanted = (entries as u16).saturating_add(7);
    Layout::vertical([
        Constraint::Length(wanted.min(body.height.saturating_sub(8).max(body.height / 2))),
        Constraint::Min(0),
    ])
    .areas(body)
}

/// The entry whose table row is drawn at `at`, for clicks: the rows
/// follow the header line inside the table's border.
pub fn compare_entry_at(area: Rect, entries: usize, at: Position) -> Option<usize> {
    if entries == 0 {
        return None;
    }
    let inner = Block::bordered().inner(compare_split(bands(area).body, entries)[0]);
    if !inner.contains(at) || at.y == inner.y {
        return None;
    }
    let i = usize::from(at.y - inner.y - 1);
    (i < entries).then_some(i)
}
