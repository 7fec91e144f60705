//! Colour themes: dark (the colours the screens are drawn with), light
//! (readable on a white background) and monochrome (no colour at all, for
//! `NO_COLOR` and `theme = "mono"`).
//!
//! The screens draw in the dark palette; [`Theme::apply`] then rewrites the
//! frame buffer's colours once per frame. That keeps the theme out of every
//! draw function, and a screen added later is themed without knowing it.
//! Monochrome keeps every distinction colour made by other means: the
//! cursor and selections are reversed, roles carry their tag text,
//! sensitive cells their ◆ mark, jobs their state in words; cells whose
//! background colour marked something (a sensitive cell, a search match)
//! are reversed. Cells of a local suppression keep their mark the same
//! way: a suppressed cell has a background (reversed in mono), a cell
//! missing in the input is italic ([`suppressed_cell_style`],
//! [`missing_cell_style`]).

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};

/// A key cell local suppression suppressed (published as `*`): a
/// background of its own (sensitive cells are magenta, search matches
/// yellow), so it stands out from a `*` that only reads alike; in mono the
/// background becomes reversed video and the bold stays.
pub fn suppressed_cell_style() -> Style {
    Style::new()
        .fg(Color::Black)
        .bg(Color::LightBlue)
        .add_modifier(Modifier::BOLD)
}

/// A key cell missing in the input, published as `*` too but not a
/// suppression the release made (`CellSuppression::missing_before`):
/// dim and italic, no background, in every theme.
pub fn missing_cell_style() -> Style {
    Style::new()
        .fg(Color::DarkGray)
        .add_modifier(Modifier::ITALIC)
}

/// A colour theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    #[default]
    Dark,
    Light,
    Mono,
}

impl Theme {
    pub const ALL: [Theme; 3] = [Theme::Dark, Theme::Light, Theme::Mono];

    /// The name used by the config file and `:theme`.
    pub fn name(self) -> &'static str {
        match self {
            Theme::Dark => "dark",
            Theme::Light => "light",
            Theme::Mono => "mono",
        }
    }

    pub fn parse(name: &str) -> Option<Theme> {
        Theme::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name.trim()))
    }

    /// `NO_COLOR` set to anything but the empty string asks for no colour
    /// (no-color.org); it wins over the configured theme.
    pub fn with_no_color(self, no_color: Option<&std::ffi::OsStr>) -> Theme {
        match no_color {
            Some(v) if !v.is_empty() => Theme::Mono,
            _ => self,
        }
    }

    /// Rewrite the colours of a buffer drawn in the dark palette.
    pub fn apply(self, buf: &mut Buffer) {
        match self {
            Theme::Dark => {}
            Theme::Light => {
                for cell in buf.content.iter_mut() {
                    cell.fg = light_fg(cell.fg);
                    cell.bg = light_bg(cell.bg);
                }
            }
            Theme::Mono => {
                for cell in buf.content.iter_mut() {
                    if cell.bg != Color::Reset {
                        cell.modifier.toggle(Modifier::REVERSED);
                    }
                    cell.fg = Color::Reset;
                    cell.bg = Color::Reset;
                }
            }
        }
    }
}

/// Text colours for a white background: white and yellow would vanish,
/// the bright colours are washed out, and DarkGray (the dim text) is too
/// light on some terminals, so each becomes a darker shade.
fn light_fg(c: Color) -> Color {
    match c {
        Color::White | Color::Gray => Color::Rgb(40, 40, 40),
        Color::DarkGray => Color::Rgb(96, 96, 96),
        Color::Yellow | Color::LightYellow => Color::Rgb(150, 100, 0),
        Color::Cyan | Color::LightCyan => Color::Rgb(0, 115, 140),
        Color::Green | Color::LightGreen => Color::Rgb(0, 120, 0),
        Color::Magenta | Color::LightMagenta => Color::Rgb(150, 0, 150),
        Color::Red | Color::LightRed => Color::Rgb(180, 0, 0),
        Color::Blue | Color::LightBlue => Color::Rgb(0, 60, 200),
        // Black text was drawn on a coloured background; keep it.
        other => other,
    }
}

/// Backgrounds for a white background: the dark grey of gauges' empty
/// part becomes light grey; coloured backgrounds (sensitive cells, heat
/// map cells) keep their hue.
fn light_bg(c: Color) -> Color {
    match c {
        Color::DarkGray | Color::Black => Color::Rgb(215, 215, 215),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    /// A suppressed `*` and a missing `*` read apart in every theme, and
    /// apart from plain text: by background (reversed in mono) and bold,
    /// and by italics.
    #[test]
    fn local_suppression_marks_survive_every_theme() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 3, 1));
        buf.set_string(0, 0, "*", suppressed_cell_style());
        buf.set_string(1, 0, "*", missing_cell_style());
        buf.set_string(2, 0, "*", Style::new());
        for theme in Theme::ALL {
            let mut b = buf.clone();
            theme.apply(&mut b);
            let [s, m, plain] = [0, 1, 2].map(|i| b.content[i].style());
            assert!(s != m && s != plain && m != plain, "{theme:?}");
            assert!(s.add_modifier.contains(Modifier::BOLD), "{theme:?}");
            assert!(m.add_modifier.contains(Modifier::ITALIC), "{theme:?}");
            assert!(!m.add_modifier.contains(Modifier::BOLD), "{theme:?}");
        }
        let mut mono = buf.clone();
        Theme::Mono.apply(&mut mono);
        assert!(mono.content[0].modifier.contains(Modifier::REVERSED));
        assert!(!mono.content[1].modifier.contains(Modifier::REVERSED));
    }

    #[test]
    fn names_round_trip() {
        for t in Theme::ALL {
            assert_eq!(Theme::parse(t.name()), Some(t));
        }
        assert_eq!(Theme::parse(" Light "), Some(Theme::Light));
        assert_eq!(Theme::parse("solarized"), None);
    }

    #[test]
    fn no_color_means_mono_only_when_not_empty() {
        use std::ffi::OsStr;
        assert_eq!(Theme::Dark.with_no_color(None), Theme::Dark);
        assert_eq!(
            Theme::Light.with_no_color(Some(OsStr::new(""))),
            Theme::Light
        );
        assert_eq!(
            Theme::Light.with_no_color(Some(OsStr::new("1"))),
            Theme::Mono
        );
    }

    #[test]
    fn light_has_no_white_or_yellow_text_and_mono_no_colour() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 3, 1));
        buf.set_string(0, 0, "a", Style::new().fg(Color::White));
        buf.set_string(1, 0, "b", Style::new().fg(Color::Yellow));
        buf.set_string(2, 0, "c", Style::new().fg(Color::Black).bg(Color::Magenta));
        let mut light = buf.clone();
        Theme::Light.apply(&mut light);
        for cell in &light.content {
            assert!(!matches!(
                cell.fg,
                Color::White | Color::Yellow | Color::Gray
            ));
        }
        let mut mono = buf.clone();
        Theme::Mono.apply(&mut mono);
        for cell in &mono.content {
            assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset));
        }
        // The coloured background still stands out.
        assert!(mono.content[2].modifier.contains(Modifier::REVERSED));
        assert!(!mono.content[0].modifier.contains(Modifier::REVERSED));
    }
}
