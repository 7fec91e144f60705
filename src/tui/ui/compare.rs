//! The Compare screen: the compare set's metrics table and the overlaid
//! CDFs of every finished entry.

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

use super::widgets::{dim, title_style};
use crate::tui::app::{App, Screen};
use crate::tui::keymap::Action;

pub(super) fn draw(frame: &mut Frame, body: Rect, app: &App) {
    draw_empty(frame, body, app);
}

/// No entry yet: how to add one.
fn draw_empty(frame: &mut Frame, area: Rect, app: &App) {
    let add = app
        .keymap()
        .keys_for(
            crate::tui::keymap::Scope::Screen(Screen::Anonymize),
            Action::AddToCompare,
        )
        .to_string();
    let text = vec![
        Line::from("The compare set is empty."),
        Line::from(""),
        Line::from(format!(
            "On the Anonymize screen (key 3), choose an algorithm and its k, l, p and seed, \
             then press {add} to add them here. Add as many as you like, then run them all \
             side by side."
        )),
    ];
    let p = Paragraph::new(text)
        .style(dim())
        .wrap(Wrap { trim: true })
        .block(Block::bordered().title(ratatui::text::Span::styled(" Compare ", title_style())));
    frame.render_widget(p, area);
}
