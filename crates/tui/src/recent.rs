//! The files the TUI opened lately, remembered between sessions for the
//! `:open` picker: one absolute path a line, most recent first, at most
//! [`MAX_RECENT`], in `recent.txt` beside the config file
//! (`<config dir>/anonlab/recent.txt`, or the folder of `ANONLAB_CONFIG`).
//! The config file itself is the user's and is never written; this file is
//! anonlab's, rewritten through the library's safe writer (a temporary
//! file renamed over it). A file that cannot be read is an empty list, and
//! a failure to write it is left unsaid beyond the list in memory: it only
//! costs the next session its memory.

use std::path::{Path, PathBuf};

use anonlab::data::Inputs;

/// Most files remembered.
pub const MAX_RECENT: usize = 10;

/// The recent files and where they are kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecentFiles {
    /// The file the list is kept in; `None`: in memory only.
    pub file: Option<PathBuf>,
    /// Most recent first.
    pub paths: Vec<PathBuf>,
}

impl RecentFiles {
    /// The list kept in `file` (empty when it is missing or unreadable).
    pub fn load(file: PathBuf) -> Self {
        let paths = std::fs::read_to_string(&file)
            .map(|text| {
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(PathBuf::from)
                    .take(MAX_RECENT)
                    .collect()
            })
            .unwrap_or_default();
        RecentFiles {
            file: Some(file),
            paths,
        }
    }

    /// The list beside the config file (see the module doc).
    pub fn load_default() -> Self {
        match super::config::config_path().and_then(|c| c.parent().map(Path::to_path_buf)) {
            Some(dir) => Self::load(dir.join("recent.txt")),
            None => Self::default(),
        }
    }

    /// Put `path` first (made absolute; once only) and keep the list.
    pub fn remember(&mut self, path: &Path) {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        self.paths.retain(|p| *p != path);
        self.paths.insert(0, path);
        self.paths.truncate(MAX_RECENT);
        let Some(file) = &self.file else {
            return;
        };
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let text: String = self
            .paths
            .iter()
            .map(|p| format!("{}\n", p.display()))
            .collect();
        let _ = anonlab::data::write_bytes(file, &Inputs::new(), text.as_bytes());
    }
}
