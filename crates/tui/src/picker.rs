//! The `:open` file picker (`:open` without a path, or `Ctrl-o`): the
//! recent files first (those still on disk), then the CSV and project
//! files of the project's folder, filtered by what is typed; Enter opens
//! the selected one through `:open` (so unsaved work is asked about
//! first), Esc closes.

use std::path::{Path, PathBuf};

use super::keymap::Action;

/// Most files of the folder listed.
pub const MAX_FOLDER_FILES: usize = 200;

/// Where an entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Recent,
    Folder,
}

/// The picker's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePicker {
    /// The folder listed after the recent files.
    pub folder: PathBuf,
    /// Every entry, recent ones first.
    pub entries: Vec<(PathBuf, Origin)>,
    /// Typed text: entries whose path contains it (ignoring case) are shown.
    pub filter: String,
    /// Index into [`FilePicker::shown`].
    pub cursor: usize,
}

/// What a key did in the picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerEffect {
    Stay,
    Close,
    Open(PathBuf),
}

/// A data file in a format other than plain CSV that this build reads.
fn data_file(p: &Path) -> bool {
    use anonlab::data::InputFormat;
    InputFormat::from_extension(p).is_some_and(|f| f != InputFormat::Csv && f.available())
}

impl FilePicker {
    /// The recent files that still exist, then `folder`'s `.csv` and
    /// `.json` files and the other data files this build reads (Parquet,
    /// Arrow, compressed CSV), by name, those not listed already.
    pub fn new(recent: &[PathBuf], folder: &Path) -> Self {
        let mut entries: Vec<(PathBuf, Origin)> = recent
            .iter()
            .filter(|p| p.is_file())
            .map(|p| (p.clone(), Origin::Recent))
            .collect();
        let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
            .map(|rd| {
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| {
                        p.is_file()
                            && (p.extension().is_some_and(|x| {
                                x.eq_ignore_ascii_case("csv") || x.eq_ignore_ascii_case("json")
                            }) || data_file(p))
                    })
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        for f in files.into_iter().take(MAX_FOLDER_FILES) {
            if !entries.iter().any(|(p, _)| absolute(p) == absolute(&f)) {
                entries.push((f, Origin::Folder));
            }
        }
        FilePicker {
            folder: folder.to_path_buf(),
            entries,
            filter: String::new(),
            cursor: 0,
        }
    }

    /// The entries the filter keeps, in order.
    pub fn shown(&self) -> Vec<&(PathBuf, Origin)> {
        let f = self.filter.to_lowercase();
        self.entries
            .iter()
            .filter(|(p, _)| p.display().to_string().to_lowercase().contains(&f))
            .collect()
    }

    /// Apply a key of the open picker.
    pub fn step(&mut self, action: &Action) -> PickerEffect {
        let n = self.shown().len();
        match *action {
            Action::Up => self.cursor = self.cursor.saturating_sub(1),
            Action::Down => self.cursor = (self.cursor + 1).min(n.saturating_sub(1)),
            Action::TypeChar(c) => {
                self.filter.push(c);
                self.cursor = 0;
            }
            Action::DeleteChar => {
                self.filter.pop();
                self.cursor = 0;
            }
            Action::Cancel => return PickerEffect::Close,
            Action::Confirm => {
                return match self.shown().get(self.cursor) {
                    Some((p, _)) => PickerEffect::Open(p.clone()),
                    None => PickerEffect::Stay,
                }
            }
            _ => {}
        }
        PickerEffect::Stay
    }
}
