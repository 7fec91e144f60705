//! Before and after side by side on the Anonymize screen (`b`): the
//! original table in file order and, on the same line, the release's
//! published row of the same record, so the two scroll together and every
//! line is one person. The left half shows the columns the release
//! publishes, with their original values; the right half the published
//! row as the published table draws it (`AnonymizeView::row`); a
//! suppressed record says so. A published cell that reads otherwise than
//! the original value of its column is marked as changed; a cell local
//! suppression suppressed, or one missing in the input, is marked as
//! such instead (`AnonymizeView::marks`).
//!
//! The rows on screen are rendered when the release, the cursor or the
//! terminal size change (`refresh`), never while drawing.

use super::release::{AnonymizeView, CellMark, MAX_PUBLISHED_WIDTH};
use crate::keymap::Action;
use crate::shared::{follow, text_width, visible_window};
use anonlab::data::Dataset;

/// Widest an original column is drawn.
const MAX_ORIGINAL_WIDTH: u16 = 20;

/// One record: its original values and its published row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairRow {
    /// The record's row in the data file (0-based).
    pub record: usize,
    pub original: Vec<String>,
    /// `None`: the release suppresses the record.
    pub published: Option<Vec<String>>,
    /// Per published cell: whether it differs from the original value of
    /// the column of the same name.
    pub changed: Vec<bool>,
    /// Per published cell: suppressed, missing in the input, or plain
    /// (`AnonymizeView::marks`).
    pub marks: Vec<CellMark>,
}

/// The side-by-side view's state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SideBySide {
    pub open: bool,
    /// First record on screen, and the selected one (file order).
    pub top: usize,
    pub cursor: usize,
    /// Records that fit on screen.
    pub page: usize,
    /// The original columns shown, in the published table's order.
    pub columns: Vec<usize>,
    /// Their headers, and the published table's.
    pub left_headers: Vec<String>,
    pub right_headers: Vec<String>,
    pub left_widths: Vec<u16>,
    pub right_widths: Vec<u16>,
    /// The records on screen, from `top`.
    pub rows: Vec<PairRow>,
}

impl SideBySide {
    /// Move the cursor; whether the key was the view's.
    pub fn step(&mut self, action: &Action) -> bool {
        let page = self.page.max(1);
        match *action {
            Action::Up => self.cursor = self.cursor.saturating_sub(1),
            Action::Down => self.cursor = self.cursor.saturating_add(1),
            Action::PageUp => {
                self.top = self.top.saturating_sub(page);
                self.cursor = self.cursor.saturating_sub(page);
            }
            Action::PageDown => {
                self.top = self.top.saturating_add(page);
                self.cursor = self.cursor.saturating_add(page);
            }
            Action::Scroll(by) => {
                self.top = self.top.saturating_add_signed(by as isize);
                self.cursor = self.cursor.saturating_add_signed(by as isize);
            }
            Action::First => self.cursor = 0,
            Action::Last => self.cursor = usize::MAX,
            _ => return false,
        }
        true
    }

    /// Render the records on screen from the shown release.
    pub fn refresh(&mut self, view: Option<&AnonymizeView>, ds: &Dataset) {
        self.rows.clear();
        let Some(view) = view.filter(|_| self.open) else {
            return;
        };
        let n = ds.n_rows();
        self.cursor = self.cursor.min(n.saturating_sub(1));
        self.top = follow(self.top, self.cursor, self.page, n);
        self.columns = view
            .headers
            .iter()
            .filter_map(|h| ds.column_index(h).ok())
            .collect();
        self.left_headers = self
            .columns
            .iter()
            .map(|&c| ds.col(c).name().to_string())
            .collect();
        self.right_headers = view.headers.clone();
        self.left_widths = self.left_headers.iter().map(|h| text_width(h)).collect();
        self.right_widths = view.widths.clone();
        // The file's values, before any top code or rounding (the same
        // columns and rows as `ds`).
        let file = ds.file_data().map_or(ds, |f| &**f);
        for record in visible_window(n, self.top, self.page) {
            let original: Vec<String> = self
                .columns
                .iter()
                .map(|&c| {
                    let col = file.col(c);
                    col.display(col.code(record)).to_string()
                })
                .collect();
            let at = view.published_index(record);
            let published = at.and_then(|i| view.row(ds, i));
            let marks = at.map_or_else(Vec::new, |i| view.marks(ds, i));
            let changed = match &published {
                Some(row) => row
                    .iter()
                    .zip(&view.headers)
                    .map(|(cell, h)| {
                        self.left_headers
                            .iter()
                            .position(|l| l == h)
                            .is_some_and(|i| original[i] != *cell)
                    })
                    .collect(),
                None => Vec::new(),
            };
            for (w, v) in self.left_widths.iter_mut().zip(&original) {
                *w = (*w).max(text_width(v)).min(MAX_ORIGINAL_WIDTH);
            }
            if let Some(row) = &published {
                for (w, v) in self.right_widths.iter_mut().zip(row) {
                    *w = (*w).max(text_width(v).min(MAX_PUBLISHED_WIDTH as u16));
                }
            }
            self.rows.push(PairRow {
                record,
                original,
                published,
                changed,
                marks,
            });
        }
        // A suppressed record's one word needs its room.
        if self.rows.iter().any(|r| r.published.is_none()) {
            if let Some(w) = self.right_widths.first_mut() {
                *w = (*w).max(text_width("suppressed"));
            }
        }
    }
}
