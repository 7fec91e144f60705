//! Colours, number formats and overlay helpers shared by the screens, so
//! every screen draws a role, a count or a popup the same way.

use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::{Axis, Dataset, GraphType};

use crate::data::Role;

/// The colour of a role, wherever a column's role is shown.
pub fn role_color(role: Role) -> Color {
    match role {
        Role::Identifier => Color::Red,
        Role::QuasiIdentifier => Color::Yellow,
        Role::Sensitive => Color::Magenta,
        Role::SemiSensitive => Color::Cyan,
        Role::Insensitive => Color::Gray,
    }
}

pub fn role_style(role: Role) -> Style {
    Style::new().fg(role_color(role))
}

/// A cell marked sensitive in a semi-sensitive column: drawn in the
/// sensitive role's colour, reversed, so it stands out in any column.
pub fn sensitive_cell_style() -> Style {
    Style::new()
        .fg(Color::Black)
        .bg(role_color(Role::Sensitive))
}

pub use crate::tui::shared::SENSITIVE_MARK;

pub fn cursor_style() -> Style {
    Style::new().add_modifier(Modifier::REVERSED)
}

/// A cell matching the last `/` search.
pub fn search_match_style() -> Style {
    Style::new()
        .fg(Color::Black)
        .bg(Color::Yellow)
        .add_modifier(Modifier::UNDERLINED)
}

pub fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

pub fn title_style() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

pub use crate::format::thousands;

/// `1234567` as `1.2M`: for bar values in narrow bars.
pub fn compact(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{}k", n / 1000),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// `part / whole` as a percentage with one decimal; 0 of nothing is 0 %.
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0.0%".into();
    }
    format!("{:.1}%", part as f64 * 100.0 / whole as f64)
}

/// A rectangle of at most `width` × `height` centred in `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let [v] = Layout::vertical([Constraint::Length(height.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [h] = Layout::horizontal([Constraint::Length(width.min(area.width))])
        .flex(Flex::Center)
        .areas(v);
    h
}

/// Smallest chart drawn: below it a chart's axes and labels leave no room
/// for the curve, so it says so instead of drawing a misleading line.
pub const CHART_MIN: (u16, u16) = (30, 8);

/// Why a chart does not fit in `area` (inside its border), as the line
/// the panel shows instead; `None` when it fits.
pub fn too_small(area: Rect, min_width: u16, min_height: u16) -> Option<String> {
    let inner = (area.width.saturating_sub(2), area.height.saturating_sub(2));
    (inner.0 < min_width || inner.1 < min_height).then(|| {
        format!(
            "widen the terminal to see this chart (it needs {min_width} × {min_height} cells, \
             it has {} × {})",
            inner.0, inner.1
        )
    })
}

/// One line series of a probability chart (braille, in one colour).
pub fn line_series<'a>(color: Color, data: &'a [(f64, f64)]) -> Dataset<'a> {
    Dataset::default()
        .marker(Marker::Braille)
        .graph_type(GraphType::Line)
        .style(Style::new().fg(color))
        .data(data)
}

/// An axis over [0, 1], the range of every probability and share charted.
pub fn unit_axis(title: &'static str) -> Axis<'static> {
    Axis::default()
        .title(Span::styled(title, dim()))
        .bounds([0.0, 1.0])
        .labels(["0", "0.5", "1"])
        .style(dim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(compact(30_162), "30k");
        assert_eq!(compact(1_250_000), "1.2M");
        assert_eq!(percent(1, 3), "33.3%");
        assert_eq!(percent(0, 0), "0.0%");
    }

    #[test]
    fn centered_fits_inside() {
        let r = centered(Rect::new(0, 0, 80, 24), 40, 10);
        assert_eq!(r, Rect::new(20, 7, 40, 10));
        let r = centered(Rect::new(0, 0, 20, 5), 40, 10);
        assert_eq!(r, Rect::new(0, 0, 20, 5));
    }
}
