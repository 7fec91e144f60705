//! Importing a folder of hierarchies on the Hierarchies screen (`i` with a
//! folder's path, or `:hierarchies DIR`): every file named by ARX's
//! convention, `*hierarchy_<column>.csv` (`adult_hierarchy_age.csv`), is
//! read for its column and checked against the data as a single import
//! is ([`HeldHierarchy::load`]). The first Enter shows the preview — which
//! columns the folder covers, with their levels, which files fail and
//! why, which files name no column — and the second binds every file that
//! passed, in one edit (one undo step).

use std::path::{Path, PathBuf};

use anonlab::data::{Dataset, HierarchySource};
use anonlab::hierarchy::HierarchySet;
use anonlab::session::HeldHierarchy;

/// One file of the folder and what reading it gave.
#[derive(Debug, Clone, PartialEq)]
pub struct FolderFile {
    /// The column the file's name gives.
    pub attribute: String,
    pub file: PathBuf,
    /// The hierarchy, checked against its column, or why not.
    pub outcome: Result<HeldHierarchy, String>,
    /// The column already has a hierarchy, which this one replaces.
    pub replaces: bool,
}

/// The preview of a folder import.
#[derive(Debug, Clone, PartialEq)]
pub struct FolderPreview {
    pub dir: PathBuf,
    /// In the order of the file names.
    pub files: Vec<FolderFile>,
}

impl FolderPreview {
    /// Read every `*hierarchy_<column>.csv` of `dir` for `ds`; `has` says
    /// whether a column already has a hierarchy. A folder that cannot be
    /// read, or holds no such file, is an error naming it.
    pub fn read(dir: &Path, ds: &Dataset, has: impl Fn(&str) -> bool) -> Result<Self, String> {
        let mut pairs = HierarchySet::dir_pairs(dir).map_err(|e| e.to_string())?;
        pairs.sort_by(|a, b| a.1.cmp(&b.1));
        let files = pairs
            .into_iter()
            .map(|(attribute, file)| {
                let outcome = match ds.column_index(&attribute) {
                    Ok(c) => HeldHierarchy::load(ds, c, HierarchySource::File(file.clone()))
                        .map_err(|e| e.to_string()),
                    Err(_) => Err(format!("the data has no column '{attribute}'")),
                };
                FolderFile {
                    replaces: has(&attribute),
                    attribute,
                    file,
                    outcome,
                }
            })
            .collect();
        Ok(FolderPreview {
            dir: dir.to_path_buf(),
            files,
        })
    }

    /// The hierarchies that passed, by column name.
    pub fn passed(&self) -> impl Iterator<Item = (&str, &HeldHierarchy)> {
        self.files
            .iter()
            .filter_map(|f| f.outcome.as_ref().ok().map(|h| (f.attribute.as_str(), h)))
    }

    /// One line per file, for the dialog: `✓ age  5 levels  adult_hierarchy_age.csv`,
    /// `✗ salary-class  the data has no column …`.
    pub fn lines(&self) -> Vec<(bool, String)> {
        self.files
            .iter()
            .map(|f| {
                let name = f
                    .file
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                match &f.outcome {
                    Ok(h) => (
                        true,
                        format!(
                            "✓ {}: {} levels from {name}{}",
                            f.attribute,
                            h.hierarchy.levels(),
                            if f.replaces {
                                " (replaces the one held)"
                            } else {
                                ""
                            }
                        ),
                    ),
                    Err(e) => (false, format!("✗ {}: {e}", f.attribute)),
                }
            })
            .collect()
    }

    /// What the second Enter does, or that nothing can be bound.
    pub fn summary(&self) -> String {
        let ok = self.passed().count();
        let bad = self.files.len() - ok;
        match (ok, bad) {
            (0, _) => "no file of the folder fits the data: nothing to bind".into(),
            (_, 0) => format!("Enter binds the {ok} hierarchies"),
            _ => format!("Enter binds the {ok} hierarchies that passed; {bad} left out"),
        }
    }
}
