//! Opening files: the recent files kept between sessions and the `:open`
//! picker over them and the project's folder.

use std::path::PathBuf;

use super::App;
use crate::keymap::Action;
use crate::picker::{FilePicker, PickerEffect};
use crate::recent::RecentFiles;

impl App {
    /// Keep the recent files in `recent` (its file, or memory only), and
    /// remember the file this session came from.
    pub fn with_recent(mut self, recent: RecentFiles) -> Self {
        self.recent = recent;
        if let Some(p) = self.opened_from() {
            self.recent.remember(&p);
        }
        self
    }

    /// The file the session was opened from: its project when it has one
    /// on disk, else its data file (`None` for the embedded demo).
    fn opened_from(&self) -> Option<PathBuf> {
        self.project_path
            .clone()
            .filter(|p| p.is_file())
            .or_else(|| self.session.session().source.clone())
    }

    pub fn recent(&self) -> &RecentFiles {
        &self.recent
    }

    pub fn picker(&self) -> Option<&FilePicker> {
        self.picker.as_ref()
    }

    /// Open the picker: the recent files, then the project folder's.
    pub(super) fn open_picker(&mut self) {
        let project = self.project_path();
        let folder = match project.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        self.picker = Some(FilePicker::new(&self.recent.paths, &folder));
    }

    /// A key while the picker is open.
    pub(super) fn step_picker(&mut self, action: &Action) {
        let Some(picker) = self.picker.as_mut() else {
            return;
        };
        match picker.step(action) {
            PickerEffect::Stay => {}
            PickerEffect::Close => self.picker = None,
            PickerEffect::Open(path) => {
                self.picker = None;
                self.request_open(path);
            }
        }
    }
}
