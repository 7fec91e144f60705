//! Colours, number formats and overlay helpers shared by the screens, so
//! every screen draws a role, a count or a popup the same way.

use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::{Axis, Clear, Dataset, GraphType};
use ratatui::Frame;

use anonlab::data::Role;

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

pub use crate::shared::SENSITIVE_MARK;

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

pub use anonlab::format::thousands;

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

/// Counts as one line of block characters (▁ to █, scaled to the largest;
/// a count of 0 is a space), for a distribution inside a line of text.
pub fn bars(counts: &[u64]) -> String {
    const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = counts.iter().copied().max().unwrap_or(0);
    counts
        .iter()
        .map(|&n| match n {
            0 => ' ',
            // At least the lowest level for any record: a bin with few
            // records is not drawn empty.
            n => LEVELS[((n as f64 / max as f64 * 8.0).ceil() as usize).clamp(1, 8) - 1],
        })
        .collect()
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

pub use crate::layout::CHART_MIN;

/// Why a chart does not fit in `area` (inside its border), as the line
/// the panel shows instead; `None` when it fits. It names the dimension
/// that is short: "widen" for too few columns, "enlarge" for too few rows
/// (a wider terminal would not help there).
pub fn too_small(area: Rect, min_width: u16, min_height: u16) -> Option<String> {
    let inner = (area.width.saturating_sub(2), area.height.saturating_sub(2));
    let verb = match (inner.0 < min_width, inner.1 < min_height) {
        (false, false) => return None,
        (true, false) => "widen",
        (false, true) => "enlarge",
        (true, true) => "widen and enlarge",
    };
    Some(format!(
        "{verb} the terminal to see this chart (it needs {min_width} × {min_height} cells, \
         it has {} × {})",
        inner.0, inner.1
    ))
}

/// `items` (joined by ", ") cut to `width` columns so that no number is
/// cut: an item holding a digit is shown whole or not at all, a word may
/// lose its end; "…" marks the cut. A value cut by a column's edge would
/// read as another value (`43307` as `433`).
pub fn fit_items(items: &str, width: usize) -> String {
    let w = |s: &str| Span::raw(s).width();
    if w(items) <= width {
        return items.to_string();
    }
    let mut out = String::new();
    for item in items.split(", ") {
        let sep = if out.is_empty() { "" } else { ", " };
        let next = format!("{out}{sep}{item}");
        // Room for "…" after it (", …" when a whole item follows).
        if w(&next) + 3 <= width {
            out = next;
            continue;
        }
        if !item.chars().any(|c| c.is_ascii_digit()) {
            // The word's start, then "…".
            let mut part = format!("{out}{sep}");
            for c in item.chars() {
                if w(&part) + w(&c.to_string()) + 1 > width {
                    break;
                }
                part.push(c);
            }
            if part.len() > out.len() + sep.len() {
                return format!("{part}…");
            }
        }
        break;
    }
    if out.is_empty() {
        "…".to_string()
    } else {
        format!("{out}, …")
    }
}

/// A column of lists (`fit_items` each) in which two different lists
/// never read alike: where two are cut to the same text ("Female, 37, …"
/// of two records), those show the part that differs (`fit_column`).
pub fn fit_items_column(cells: &[&str], width: usize) -> Vec<String> {
    let mut shown: Vec<String> = cells.iter().map(|c| fit_items(c, width)).collect();
    let clashing: Vec<usize> = (0..cells.len())
        .filter(|&i| (0..cells.len()).any(|j| shown[j] == shown[i] && cells[j] != cells[i]))
        .collect();
    if !clashing.is_empty() {
        let fitted = fit_column(cells, width);
        for i in clashing {
            shown[i] = fitted[i].clone();
        }
    }
    shown
}

/// Part of a word or a number: a cut inside a run of these that holds a
/// digit would show another number ("1/" of "1/l", "433" of 43307).
fn in_token(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '.' | ',' | '/' | '_')
}

fn char_width(c: char) -> usize {
    Span::raw(c.to_string()).width()
}

/// The first `keep` characters of `chars` (in order), shortened to the
/// start of the token a digit-holding token cut there would leave.
fn whole_numbers(chars: &[char], keep: usize) -> usize {
    let cut_inside =
        keep > 0 && keep < chars.len() && in_token(chars[keep - 1]) && in_token(chars[keep]);
    if !cut_inside {
        return keep;
    }
    let start = chars[..keep]
        .iter()
        .rposition(|&c| !in_token(c))
        .map_or(0, |i| i + 1);
    let end = chars[keep..]
        .iter()
        .position(|&c| !in_token(c))
        .map_or(chars.len(), |i| keep + i);
    if chars[start..end].iter().any(char::is_ascii_digit) {
        start
    } else {
        keep
    }
}

/// `s` in at most `width` cells: whole when it fits, else its start and
/// "…". A cut never ends inside a number, so what is shown is never
/// another value. Every text the screens cut to a width goes through this
/// (or [`cut_start`]): a cut that does not say so reads as the whole.
pub fn cut(s: &str, width: usize) -> String {
    if Span::raw(s).width() <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let chars: Vec<char> = s.chars().collect();
    let mut used = 1;
    let mut keep = 0;
    while keep < chars.len() && used + char_width(chars[keep]) <= width {
        used += char_width(chars[keep]);
        keep += 1;
    }
    let keep = whole_numbers(&chars, keep);
    let mut out: String = chars[..keep].iter().collect();
    out.push('…');
    out
}

/// `s` in at most `width` cells, its end kept: "…" then the end. For a
/// path (the file is at its end: "…/dir/file.svg") and for values that
/// differ only at their end ("…not present").
pub fn cut_start(s: &str, width: usize) -> String {
    if Span::raw(s).width() <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut chars: Vec<char> = s.chars().collect();
    chars.reverse();
    let mut used = 1;
    let mut keep = 0;
    while keep < chars.len() && used + char_width(chars[keep]) <= width {
        used += char_width(chars[keep]);
        keep += 1;
    }
    let keep = whole_numbers(&chars, keep);
    let mut out = String::from("…");
    out.extend(chars[..keep].iter().rev());
    out
}

/// The cells of one table column in `width` cells each, cut with "…",
/// such that two different values never read alike. Where two values
/// show the same start ("spouse…" of "spouse present" and "spouse not
/// present"), they show their ends; where those are alike too
/// ("…resent"), the part from where they differ ("…not p…", "…prese…").
pub fn fit_column(cells: &[&str], width: usize) -> Vec<String> {
    let mut shown: Vec<String> = cells.iter().map(|c| cut(c, width)).collect();
    let clashing = |shown: &[String]| -> Vec<usize> {
        (0..cells.len())
            .filter(|&i| (0..cells.len()).any(|j| shown[j] == shown[i] && cells[j] != cells[i]))
            .collect()
    };
    let at_start = clashing(&shown);
    for &i in &at_start {
        shown[i] = cut_start(cells[i], width);
    }
    for i in clashing(&shown) {
        // The longest start it shares with a value it was confused with.
        let common = at_start
            .iter()
            .filter(|&&j| cells[j] != cells[i])
            .map(|&j| {
                cells[i]
                    .chars()
                    .zip(cells[j].chars())
                    .take_while(|(a, b)| a == b)
                    .count()
            })
            .max()
            .unwrap_or(0);
        let rest: String = cells[i].chars().skip(common).collect();
        shown[i] = format!("…{}", cut(&rest, width.saturating_sub(1)));
    }
    shown
}

/// `text` wrapped at spaces into lines of `width` cells, when it takes
/// more than `height` of them: the first `height` lines, the last ending
/// in "…" ([`cut`]) — a wrapped paragraph taller than its panel otherwise
/// stops mid-sentence without saying so. `None` when it fits, so the
/// caller keeps its own wrapping.
pub fn wrap_overflow(text: &str, width: usize, height: usize) -> Option<Vec<String>> {
    let w = |s: &str| Span::raw(s).width();
    let mut lines: Vec<String> = vec![String::new()];
    for word in text.split_whitespace() {
        let last = lines.last_mut().expect("one line at least");
        if last.is_empty() {
            last.push_str(word);
        } else if w(last) + 1 + w(word) <= width {
            last.push(' ');
            last.push_str(word);
        } else {
            lines.push(word.to_string());
        }
    }
    if lines.len() <= height || height == 0 {
        return None;
    }
    let rest = lines[height - 1..].join(" ");
    lines.truncate(height - 1);
    lines.push(cut(&rest, width));
    Some(lines)
}

/// The widths a `Table` of `Length(widths)` columns, `spacing` cells
/// apart, gives its columns in `room` cells (as ratatui lays them out:
/// flex start, no selection column): narrower than asked where the room
/// is short. The screens cut the cells to these widths with [`fit_column`]
/// first; the table itself would cut them without "…".
pub fn table_widths(widths: &[u16], spacing: u16, room: u16) -> Vec<u16> {
    Layout::horizontal(widths.iter().map(|&w| Constraint::Length(w)))
        .flex(Flex::Start)
        .spacing(spacing)
        .split(Rect::new(0, 0, room, 1))
        .iter()
        .map(|r| r.width)
        .collect()
}

/// The rows of a table, each column fitted to its width by
/// [`fit_column`] (two values never alike, every cut marked).
pub fn fit_rows(rows: &[Vec<String>], widths: &[u16]) -> Vec<Vec<String>> {
    let columns: Vec<Vec<String>> = widths
        .iter()
        .enumerate()
        .map(|(c, &w)| {
            let cells: Vec<&str> = rows
                .iter()
                .map(|r| r.get(c).map_or("", String::as_str))
                .collect();
            fit_column(&cells, usize::from(w))
        })
        .collect();
    (0..rows.len())
        .map(|i| {
            (0..rows[i].len().min(columns.len()))
                .map(|c| columns[c][i].clone())
                .collect()
        })
        .collect()
}

/// Clear the rows a popup covers, across the whole terminal, before the
/// popup is drawn: what the popup hides is hidden whole, never a number
/// cut in two beside its border ("52" of 11,452).
pub fn clear_under_popup(frame: &mut Frame, popup: Rect) {
    let band = Rect {
        x: frame.area().x,
        width: frame.area().width,
        ..popup
    };
    frame.render_widget(Clear, band);
}

/// One line series of a probability chart (braille, in one colour).
pub fn line_series<'a>(color: Color, data: &'a [(f64, f64)]) -> Dataset<'a> {
    Dataset::default()
        .marker(Marker::Braille)
        .graph_type(GraphType::Line)
        .style(Style::new().fg(color))
        .data(data)
}

/// A chart's "before" (the original) and "after" (a release) series: a
/// braille line and a dotted one, named with their marks in the legend,
/// so the two are told apart without colour (the mono theme, a reader
/// who does not see the colours).
pub fn before_after<'a>(
    (before_color, before): (Color, &'a [(f64, f64)]),
    (after_color, after): (Color, &'a [(f64, f64)]),
) -> [Dataset<'a>; 2] {
    [
        line_series(before_color, before).name("before ⣿"),
        line_series(after_color, after)
            .marker(Marker::Dot)
            .name("after •"),
    ]
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
    fn bars_scale_to_the_largest_count() {
        assert_eq!(bars(&[0, 1, 4, 8]), " ▁▄█");
        assert_eq!(bars(&[1000, 1]), "█▁");
        assert_eq!(bars(&[]), "");
    }

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
    fn lists_are_cut_between_items() {
        let v = "Female, 37, 43307, Prof-specialty";
        assert_eq!(fit_items(v, 40), v);
        assert_eq!(fit_items(v, 15), "Female, 37, …");
        assert_eq!(fit_items(v, 20), "Female, 37, 43307, …");
        assert_eq!(fit_items(v, 26), "Female, 37, 43307, Prof-s…");
        assert_eq!(fit_items(v, 4), "Fem…");
        assert_eq!(fit_items("43307, 5", 4), "…");
    }

    #[test]
    fn cuts_say_so_and_keep_numbers_whole() {
        assert_eq!(cut("Prof-specialty", 14), "Prof-specialty");
        assert_eq!(cut("Prof-specialty", 12), "Prof-specia…");
        assert_eq!(
            cut("Mondrian, l-diverse: p(t,s) ≤ 1/l (x)", 32),
            "Mondrian, l-diverse: p(t,s) ≤ …"
        );
        assert_eq!(cut("zip 43307", 8), "zip …");
        assert_eq!(cut("abc", 0), "");
        assert_eq!(
            cut_start("written: out/anonlab-export/dir/file.svg", 20),
            "…export/dir/file.svg"
        );
        assert_eq!(cut_start("row 43307", 4), "…");
    }

    #[test]
    fn a_paragraph_taller_than_its_panel_ends_in_an_ellipsis() {
        let text = "load a conditions file first (:conditions FILE, e.g. the G.json)";
        assert_eq!(wrap_overflow(text, 24, 4), None);
        assert_eq!(
            wrap_overflow(text, 24, 2).unwrap(),
            ["load a conditions file", "first (:conditions FILE…"]
        );
    }

    #[test]
    fn a_column_never_shows_two_values_alike() {
        let cells = ["spouse present", "spouse not present", "Never-married"];
        assert_eq!(
            fit_column(&cells, 12),
            ["spouse pres…", "spouse not …", "Never-marri…"]
        );
        // Alike at the start and at the end: the part that differs.
        assert_eq!(fit_column(&cells, 8), ["…present", "…not pr…", "Never-m…"]);
        // Values that do not clash keep their start.
        assert_eq!(fit_column(&["Female", "Male"], 4), ["Fem…", "Male"]);
        let v = [
            "Private",
            "Self-emp-not-inc",
            "Self-emp-inc",
            "Local-government",
        ];
        assert_eq!(
            fit_column(&v, 10),
            ["Private", "…p-not-inc", "…f-emp-inc", "Local-gov…"]
        );
    }

    #[test]
    fn a_column_of_lists_never_shows_two_alike() {
        let cells = ["Female, 37, 43307", "Female, 37, 43309", "Male, 82, 41091"];
        assert_eq!(
            fit_items_column(&cells, 14),
            ["…le, 37, 43307", "…le, 37, 43309", "Male, 82, …"]
        );
        assert_eq!(fit_items_column(&cells, 20), cells);
    }

    #[test]
    fn too_small_names_the_short_side() {
        assert!(too_small(Rect::new(0, 0, 40, 12), 30, 8).is_none());
        assert!(too_small(Rect::new(0, 0, 40, 4), 30, 8)
            .unwrap()
            .starts_with("enlarge"));
        assert!(too_small(Rect::new(0, 0, 20, 12), 30, 8)
            .unwrap()
            .starts_with("widen the"));
    }

    #[test]
    fn centered_fits_inside() {
        let r = centered(Rect::new(0, 0, 80, 24), 40, 10);
        assert_eq!(r, Rect::new(20, 7, 40, 10));
        let r = centered(Rect::new(0, 0, 20, 5), 40, 10);
        assert_eq!(r, Rect::new(0, 0, 20, 5));
    }
}
