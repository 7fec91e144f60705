//! The project file: everything needed to reproduce a session, as JSON.
//!
//! The TUI saves it, the CLI reads it (`--project`), so an interactive
//! session can be replayed in batch. It holds where the data is and how to
//! read it, the roles, the cell-sensitivity sources, the attacker model and
//! the algorithm parameters — never the data itself. Saving writes a
//! temporary file beside the target and renames it, so a crash never leaves
//! a half-written project.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{CellSensitivity, CsvOptions, Role};
use crate::error::{Error, Result};

pub const PROJECT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Project {
    pub version: u32,
    pub data: DataSource,
    #[serde(default)]
    pub roles: BTreeMap<String, Role>,
    #[serde(default)]
    pub sensitivity: BTreeMap<String, CellSensitivity>,
    #[serde(default)]
    pub attacker: AttackerModel,
    #[serde(default)]
    pub params: Params,
    /// Generalization hierarchies by column name. Left out of the file when
    /// there are none, so projects written before hierarchies existed load
    /// and save unchanged.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hierarchies: BTreeMap<String, HierarchySource>,
}

/// Where one of the project's hierarchies comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HierarchySource {
    /// An ARX-format CSV file; a relative path is relative to the project
    /// file, like the data path.
    File(PathBuf),
    /// The ARX rows (`leaf, level 1, ..., root`) kept in the project: a
    /// hierarchy built in the TUI has no file until it is exported.
    Inline(Vec<Vec<String>>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataSource {
    /// The CSV file; `None` for the embedded demo dataset.
    pub path: Option<PathBuf>,
    #[serde(default)]
    pub csv: CsvOptions,
}

/// What the attacker is assumed to know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AttackerModel {
    /// The attributes the attacker knows, in the order used for the prefix
    /// evaluation. Empty means: every quasi-identifier and semi-sensitive
    /// attribute, in column order.
    pub known: Vec<String>,
    /// Pr(re-id) above which a record counts as at risk.
    pub threshold: f64,
}

impl Default for AttackerModel {
    fn default() -> Self {
        Self {
            known: Vec::new(),
            threshold: 0.2,
        }
    }
}

/// Algorithm parameters. Every algorithm reads the ones it needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Params {
    /// The algorithm chosen last (an id of `algorithms::registry`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<String>,
    pub k: u32,
    pub l: u32,
    pub t: f64,
    pub c: f64,
    pub seed: u64,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            algorithm: None,
            k: 5,
            l: 2,
            t: 0.2,
            c: 3.0,
            seed: 42,
        }
    }
}

impl Project {
    pub fn new(path: Option<PathBuf>, csv: CsvOptions) -> Self {
        Self {
            version: PROJECT_VERSION,
            data: DataSource { path, csv },
            roles: BTreeMap::new(),
            sensitivity: BTreeMap::new(),
            attacker: AttackerModel::default(),
            params: Params::default(),
            hierarchies: BTreeMap::new(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    pub fn from_json(text: &str, file: &Path) -> Result<Self> {
        let p: Project = serde_json::from_str(text)
            .map_err(|e| Error::Project(file.to_path_buf(), e.to_string()))?;
        if p.version != PROJECT_VERSION {
            return Err(Error::Project(
                file.to_path_buf(),
                format!(
                    "version {} is not supported (this anonlab reads version {PROJECT_VERSION})",
                    p.version
                ),
            ));
        }
        Ok(p)
    }

    pub fn load(file: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(file).map_err(|e| Error::Io(file.to_path_buf(), e))?;
        let mut p = Self::from_json(&text, file)?;
        // A relative data path is relative to the project file, so a project
        // and its data can move together.
        if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Some(path) = p.data.path.as_mut().filter(|p| p.is_relative()) {
                *path = dir.join(&*path);
            }
            for source in p.hierarchies.values_mut() {
                if let HierarchySource::File(path) = source {
                    if path.is_relative() {
                        *path = dir.join(&*path);
                    }
                }
            }
        }
        Ok(p)
    }

    /// Write atomically: a temporary file in the same directory, renamed.
    pub fn save(&self, file: &Path) -> Result<()> {
        write_atomic(file, self.to_json().as_bytes())
    }
}

/// Write `bytes` to `file` through a temporary sibling and a rename, so
/// readers never see a partial file and an existing file survives a failure.
pub fn write_atomic(file: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(file, |w| w.write_all(bytes))
}

/// Like [`write_atomic`], streaming: `fill` writes into a buffered temporary
/// file, which is renamed over `file` only when `fill` succeeded.
pub fn write_atomic_with(
    file: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let io = |e| Error::Io(file.to_path_buf(), e);
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let f = std::fs::File::create(&tmp)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
        fill(&mut w)?;
        // Flushed but not fsynced: the rename alone makes the replacement
        // atomic for every reader, and an fsync of a large export costs
        // seconds of waiting on the disk (3 s for a 325 MB release) for
        // protection against power loss only.
        w.into_inner().map_err(|e| e.into_error())?;
        std::fs::rename(&tmp, file)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::SensitivitySource;

    #[test]
    fn save_and_load_round_trip_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = Project::new(
            Some(dir.path().join("data.csv")),
            CsvOptions {
                delimiter: Some(';'),
                ..Default::default()
            },
        );
        p.roles.insert("age".into(), Role::QuasiIdentifier);
        p.roles.insert("occupation".into(), Role::SemiSensitive);
        let mut s = CellSensitivity::new(SensitivitySource::Density {
            density: 0.1 + 0.2,
            seed: u64::MAX,
        });
        s.toggle(3);
        p.sensitivity.insert("occupation".into(), s);
        p.attacker.known = vec!["occupation".into(), "age".into()];
        p.attacker.threshold = 1.0 / 3.0;
        p.params.t = 0.15;
        p.hierarchies.insert(
            "age".into(),
            HierarchySource::File(dir.path().join("hierarchy_age.csv")),
        );
        p.hierarchies.insert(
            "occupation".into(),
            HierarchySource::Inline(vec![
                vec!["Sales".into(), "White".into(), "*".into()],
                vec!["Craft".into(), "Blue".into(), "*".into()],
            ]),
        );
        let file = dir.path().join("p.json");
        p.save(&file).unwrap();
        assert_eq!(Project::load(&file).unwrap(), p);
        // Saving what was loaded gives the same bytes.
        let again = dir.path().join("q.json");
        Project::load(&file).unwrap().save(&again).unwrap();
        assert_eq!(
            std::fs::read(&file).unwrap(),
            std::fs::read(&again).unwrap()
        );
    }

    #[test]
    fn projects_without_hierarchies_keep_their_bytes() {
        let p = Project::new(None, CsvOptions::default());
        let json = p.to_json();
        assert!(!json.contains("hierarchies"), "{json}");
        assert_eq!(Project::from_json(&json, Path::new("p.json")).unwrap(), p);
    }

    #[test]
    fn relative_hierarchy_files_are_read_beside_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = Project::new(None, CsvOptions::default());
        p.hierarchies
            .insert("zip".into(), HierarchySource::File("h/zip.csv".into()));
        let file = dir.path().join("p.json");
        p.save(&file).unwrap();
        let back = Project::load(&file).unwrap();
        assert_eq!(
            back.hierarchies["zip"],
            HierarchySource::File(dir.path().join("h/zip.csv"))
        );
    }

    #[test]
    fn bad_project_files_are_explained() {
        let f = Path::new("x.json");
        let e = Project::from_json("{\"version\":1}", f)
            .unwrap_err()
            .to_string();
        assert!(e.contains("x.json") && e.contains("data"), "{e}");
        let e = Project::from_json("{\"version\":9,\"data\":{\"path\":null}}", f)
            .unwrap_err()
            .to_string();
        assert!(e.contains("version 9"), "{e}");
    }
}
