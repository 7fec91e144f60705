//! Generalization hierarchies (DESIGN.md, "Hierarchy per attribute").
//!
//! A [`Hierarchy`] for one attribute maps each leaf value to one ancestor
//! label per level: level 0 is the leaf itself, the last level is the single
//! root (ARX writes it `*`). This is ARX's model and file format (one row per
//! leaf, `leaf;level1;...;*`, see [`arx`]), so the Adult hierarchies shipped
//! with ARX load unchanged.
//!
//! A node is identified by its label *within a level*: two rows that carry
//! the same label at level `l` name the same node, so they must also agree on
//! every level above `l` — otherwise the node would have two parents and
//! generalizing to level `l + 1` would not be a function of the level-`l`
//! value. [`Hierarchy::from_rows`] enforces this (each level a coarsening of
//! the previous one), a single root at the top, no duplicate leaves and no
//! empty labels, and names the offending value, level and row when it fails.
//!
//! Algorithms do not look labels up per row: [`Hierarchy::bind`] turns a
//! hierarchy into a [`BoundHierarchy`] over a dataset column — a table per
//! level from the column's codes to node ids — after checking that every
//! value of the column is a leaf (naming the ones that are not). A missing
//! cell generalizes to a `?` node of its own at every level below the top
//! (or to the hierarchy's `?` leaf when it has one) and to the root at the
//! top, so missing values stay distinguishable until full generalization.

pub mod arx;
pub mod builders;
pub mod correlated;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::data::number::{Decimal, NumericLabel};
use crate::data::{Column, Dataset};
use crate::error::{Error, Parameter, Result};

/// The most levels (leaves and root included) a hierarchy may have: far
/// above ARX's Adult hierarchies (at most 6) and what the builders make on
/// real data, and a bound on the labels a file or builder can ask for.
pub const MAX_LEVELS: usize = 64;

/// Why a set of rows is not a hierarchy: the 0-based row it concerns (when
/// one row is to blame) and a message naming the value and level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RowsError {
    pub row: Option<usize>,
    pub msg: String,
}

/// One attribute's generalization hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct Hierarchy {
    attribute: String,
    /// Shared by clones: a session hands its hierarchies to every request
    /// (`Session::request`), which must not copy the trees each time.
    tree: Arc<Tree>,
}

/// The levels of a hierarchy; never changed once built.
#[derive(Debug, PartialEq)]
struct Tree {
    /// Distinct labels per level, in order of first appearance; the index is
    /// the node id at that level. `labels[0]` are the leaves in file order.
    labels: Vec<Vec<Box<str>>>,
    /// `nodes[level][leaf]`: the node id of the leaf's ancestor at `level`
    /// (`nodes[0][leaf] == leaf`).
    nodes: Vec<Vec<u32>>,
    leaf_index: FxHashMap<Box<str>, u32>,
}

impl Hierarchy {
    /// Build from rows `leaf, level1, ..., root`, validating the structure.
    /// `attribute` names the column the hierarchy is for (used in messages
    /// and by [`HierarchySet`]).
    pub fn from_rows<S: AsRef<str>>(attribute: &str, rows: &[Vec<S>]) -> Result<Self> {
        Self::build(attribute, rows, &|r| r as u64 + 1).map_err(|e| {
            let at = e
                .row
                .map(|r| format!(", row {}", r + 1))
                .unwrap_or_default();
            Error::invalid(
                Parameter::Hierarchy,
                format!("hierarchy of '{attribute}'{at}: {}", e.msg),
            )
        })
    }

    /// [`Self::from_rows`] with the error's row left apart; `line` numbers
    /// row `r` for messages (1-based, the file's line when read from one).
    pub(crate) fn build<S: AsRef<str>>(
        attribute: &str,
        rows: &[Vec<S>],
        line: &dyn Fn(usize) -> u64,
    ) -> std::result::Result<Self, RowsError> {
        let err = |row: Option<usize>, msg: String| RowsError { row, msg };
        let Some(first) = rows.first() else {
            return Err(err(
                None,
                "no rows: a hierarchy needs at least one leaf".into(),
            ));
        };
        let n_levels = first.len();
        if n_levels == 0 {
            return Err(err(Some(0), "empty row".into()));
        }
        if n_levels > MAX_LEVELS {
            return Err(err(
                Some(0),
                format!("{n_levels} levels, more than the {MAX_LEVELS} a hierarchy may have"),
            ));
        }
        let mut labels: Vec<Vec<Box<str>>> = vec![Vec::new(); n_levels];
        let mut nodes: Vec<Vec<u32>> = vec![Vec::with_capacity(rows.len()); n_levels];
        // Per level: label -> (node id, row that introduced it).
        let mut ids: Vec<FxHashMap<&str, (u32, usize)>> = vec![FxHashMap::default(); n_levels];
        // Per level below the top: node id -> parent node id at the next level.
        let mut parent: Vec<Vec<u32>> = vec![Vec::new(); n_levels];
        for (r, row) in rows.iter().enumerate() {
            if row.len() != n_levels {
                return Err(err(
                    Some(r),
                    format!(
                        "{} fields, but the first row has {n_levels}: every leaf needs a label at every level",
                        row.len()
                    ),
                ));
            }
            let mut below: Option<u32> = None;
            for (level, cell) in row.iter().enumerate() {
                let label = cell.as_ref();
                if label.is_empty() {
                    return Err(err(Some(r), format!("empty label at level {level}")));
                }
                let id = match ids[level].get(label) {
                    Some(&(id, first_row)) => {
                        if level == 0 {
                            return Err(err(
                                Some(r),
                                format!(
                                    "leaf '{label}' appears twice (rows {} and {})",
                                    line(first_row),
                                    line(r)
                                ),
                            ));
                        }
                        id
                    }
                    None => {
                        let id = labels[level].len() as u32;
                        if level == n_levels - 1 && id > 0 {
                            return Err(err(
                                Some(r),
                                format!(
                                    "a second root '{label}' at the top level {level} (row {} has '{}'): a hierarchy needs a single root; end every row with the same label, e.g. '*'",
                                    line(ids[level][&*labels[level][0]].1),
                                    labels[level][0]
                                ),
                            ));
                        }
                        labels[level].push(label.into());
                        ids[level].insert(label, (id, r));
                        parent[level].push(u32::MAX);
                        id
                    }
                };
                if let Some(child) = below {
                    let p = &mut parent[level - 1][child as usize];
                    if *p == u32::MAX {
                        *p = id;
                    } else if *p != id {
                        let child_label = &labels[level - 1][child as usize];
                        let first_row = ids[level - 1][&**child_label].1;
                        return Err(err(
                            Some(r),
                            format!(
                                "'{child_label}' at level {} has two parents at level {level}: '{}' (row {}) and '{label}' (row {}); each level must be a coarsening of the one below",
                                level - 1,
                                labels[level][*p as usize],
                                line(first_row),
                                line(r)
                            ),
                        ));
                    }
                }
                nodes[level].push(id);
                below = Some(id);
            }
        }
        let leaf_index: FxHashMap<Box<str>, u32> = labels[0]
            .iter()
            .enumerate()
            .map(|(i, l)| (l.clone(), i as u32))
            .collect();
        // A label that is another leaf's value must stand for that leaf:
        // `Male;Female;*` and `Female;Male;*` would publish every man as
        // "Female", and nothing in the published cell would tell.
        for (level, names) in labels.iter().enumerate().skip(1) {
            for (id, label) in names.iter().enumerate() {
                let Some(&leaf) = leaf_index.get(label) else {
                    continue;
                };
                if nodes[level][leaf as usize] != id as u32 {
                    let first_row = ids[level][&**label].1;
                    return Err(err(
                        Some(first_row),
                        format!(
                            "the label '{label}' at level {level} is also the leaf '{label}' (row {}), which it does not contain: a cell generalized to it would read as that value; rename the label",
                            line(leaf as usize)
                        ),
                    ));
                }
            }
        }
        Ok(Self {
            attribute: attribute.to_string(),
            tree: Arc::new(Tree {
                labels,
                nodes,
                leaf_index,
            }),
        })
    }

    /// The attribute (column name) this hierarchy is for.
    pub fn attribute(&self) -> &str {
        &self.attribute
    }

    /// Rename the attribute (e.g. a file loaded for another column).
    pub fn with_attribute(mut self, attribute: &str) -> Self {
        self.attribute = attribute.to_string();
        self
    }

    /// Number of levels including the leaves: ARX's "height", the number of
    /// fields per row. Levels are `0..levels()`; `levels() - 1` is the root.
    pub fn levels(&self) -> usize {
        self.tree.labels.len()
    }

    /// Number of generalization steps from the leaves to the root
    /// (`levels() - 1`).
    pub fn height(&self) -> usize {
        self.tree.labels.len() - 1
    }

    /// The leaves in file order.
    pub fn leaves(&self) -> &[Box<str>] {
        &self.tree.labels[0]
    }

    /// Index of a leaf, if the hierarchy has it.
    pub fn leaf_index(&self, leaf: &str) -> Option<usize> {
        self.tree.leaf_index.get(leaf).map(|&i| i as usize)
    }

    /// Number of distinct nodes at `level`.
    pub fn n_nodes(&self, level: usize) -> usize {
        self.tree.labels[level].len()
    }

    /// Labels of the nodes at `level`, indexed by node id.
    pub fn labels(&self, level: usize) -> &[Box<str>] {
        &self.tree.labels[level]
    }

    /// Node id of leaf number `leaf`'s ancestor at `level`.
    pub fn node(&self, leaf: usize, level: usize) -> u32 {
        self.tree.nodes[level][leaf]
    }

    /// The label of `leaf`'s ancestor at `level`; `None` for an unknown leaf
    /// or a level beyond the root.
    pub fn ancestor(&self, leaf: &str, level: usize) -> Option<&str> {
        let i = self.leaf_index(leaf)?;
        let ids = self.tree.nodes.get(level)?;
        Some(&self.tree.labels[level][ids[i] as usize])
    }

    /// One row per leaf, `leaf, level1, ..., root`: the ARX layout.
    pub fn rows(&self) -> impl Iterator<Item = Vec<&str>> + '_ {
        (0..self.leaves().len()).map(move |leaf| {
            (0..self.levels())
                .map(|level| &*self.tree.labels[level][self.tree.nodes[level][leaf] as usize])
                .collect()
        })
    }

    /// Number of leaves under each node at `level`, indexed by node id.
    pub fn leaf_counts(&self, level: usize) -> Vec<usize> {
        let mut n = vec![0usize; self.n_nodes(level)];
        for &id in &self.tree.nodes[level] {
            n[id as usize] += 1;
        }
        n
    }

    /// Tie the hierarchy to a dataset column: every value of the column must
    /// be a leaf. Leaves the column lacks are allowed (a hierarchy may cover
    /// a wider domain than one file). Numeric columns match leaves by number,
    /// so a leaf `7` finds the value `7.0`.
    pub fn bind(&self, col: &Column) -> Result<BoundHierarchy> {
        let space = col.code_space();
        let unset = u32::MAX;
        let mut leaf_of_code = vec![unset; space];
        for (i, code) in self.leaf_codes(col).into_iter().enumerate() {
            if let Some(c) = code {
                let leaf = &self.leaves()[i];
                let slot = &mut leaf_of_code[c as usize];
                if *slot != unset {
                    return Err(Error::invalid(Parameter::Hierarchy, format!(
                        "hierarchy of '{}': leaves '{}' and '{leaf}' both match the value '{}' of column '{}'",
                        self.attribute,
                        self.leaves()[*slot as usize],
                        col.display(c),
                        col.name()
                    )));
                }
                *slot = i as u32;
            }
        }
        let missing: Vec<u32> = (0..col.missing_code())
            .filter(|&c| leaf_of_code[c as usize] == unset)
            .collect();
        if !missing.is_empty() {
            let freq = col.frequencies();
            let shown: Vec<String> = missing
                .iter()
                .take(5)
                .map(|&c| format!("'{}' ({} rows)", col.display(c), freq[c as usize]))
                .collect();
            let more = if missing.len() > 5 {
                format!(" and {} more", missing.len() - 5)
            } else {
                String::new()
            };
            return Err(Error::invalid(Parameter::Hierarchy, format!(
                "hierarchy of '{}' lacks {} value(s) of column '{}': {}{more}; every value of the column must be a leaf",
                self.attribute,
                missing.len(),
                col.name(),
                shown.join(", ")
            )));
        }
        if col.is_numeric() {
            self.check_numeric_labels(col, &leaf_of_code)?;
        }
        let top = self.height();
        let missing_leaf = self.leaf_index("?");
        let mut labels: Vec<Vec<Box<str>>> = self.tree.labels.clone();
        let mut ids = Vec::with_capacity(self.levels());
        for (level, (names, nodes)) in labels.iter_mut().zip(&self.tree.nodes).enumerate() {
            let mut t: Vec<u32> = leaf_of_code[..col.missing_code() as usize]
                .iter()
                .map(|&leaf| nodes[leaf as usize])
                .collect();
            t.push(match missing_leaf {
                Some(leaf) => nodes[leaf],
                None if level == top => 0,
                None => {
                    names.push("?".into());
                    (names.len() - 1) as u32
                }
            });
            ids.push(t);
        }
        Ok(BoundHierarchy {
            attribute: self.attribute.clone(),
            column: col.name().to_string(),
            ids,
            labels,
        })
    }

    /// The column code each leaf matches, by leaf. A numeric column is
    /// matched by exact number (`data::number`): every leaf and value is
    /// read once and the two sorted lists are merged.
    fn leaf_codes(&self, col: &Column) -> Vec<Option<u32>> {
        let leaves = self.leaves();
        if !col.is_numeric() {
            return leaves.iter().map(|l| col.code_of(l)).collect();
        }
        let mut numbered: Vec<(Decimal, usize)> = leaves
            .iter()
            .enumerate()
            .filter_map(|(i, l)| Decimal::parse(l).map(|d| (d, i)))
            .collect();
        numbered.sort();
        let values: Vec<Decimal> = (0..col.cardinality() as u32)
            .map(|c| col.decimal(c).unwrap_or_else(Decimal::zero))
            .collect();
        let mut out = vec![None; leaves.len()];
        let mut v = 0;
        for (d, i) in &numbered {
            while v < values.len() && values[v] < *d {
                v += 1;
            }
            if v < values.len() && values[v] == *d {
                out[*i] = Some(v as u32);
            }
        }
        out
    }

    /// On a numeric column, a label that reads as numbers (`39`,
    /// `[20-29]`, `<150`; `data::number::NumericLabel`) must
    /// contain every value under it: a cell published as `39` for people
    /// aged 70 would lie.
    fn check_numeric_labels(&self, col: &Column, leaf_of_code: &[u32]) -> Result<()> {
        let mut values: Option<Vec<Decimal>> = None;
        for level in 1..self.levels() {
            let claims: Vec<Option<NumericLabel>> = self.tree.labels[level]
                .iter()
                .map(|l| NumericLabel::parse(l))
                .collect();
            if claims.iter().all(Option::is_none) {
                continue;
            }
            let values = values.get_or_insert_with(|| {
                (0..col.cardinality() as u32)
                    .map(|c| col.decimal(c).unwrap_or_else(Decimal::zero))
                    .collect()
            });
            for (code, x) in values.iter().enumerate() {
                let node = self.tree.nodes[level][leaf_of_code[code] as usize];
                if let Some(claim) = &claims[node as usize] {
                    if !claim.covers(x) {
                        return Err(Error::invalid(Parameter::Hierarchy, format!(
                            "hierarchy of '{}': the label '{}' at level {level} does not contain the value '{}' of column '{}' under it, so a cell generalized to it would misstate the value",
                            self.attribute,
                            self.tree.labels[level][node as usize],
                            col.display(code as u32),
                            col.name()
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// Check the hierarchy covers every value of `col`; see [`Self::bind`].
    pub fn validate(&self, col: &Column) -> Result<()> {
        self.bind(col).map(|_| ())
    }
}

/// A hierarchy tied to one dataset column: per level, a node id for every
/// code of the column (missing code included), so generalizing a row is
/// one table lookup.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundHierarchy {
    attribute: String,
    column: String,
    /// `ids[level][code]`, `code` in `0..=missing_code`.
    ids: Vec<Vec<u32>>,
    /// Node labels per level (the hierarchy's, plus `?` for missing cells
    /// where the hierarchy has no `?` leaf).
    labels: Vec<Vec<Box<str>>>,
}

impl BoundHierarchy {
    pub fn attribute(&self) -> &str {
        &self.attribute
    }
    /// The column it was bound to.
    pub fn column(&self) -> &str {
        &self.column
    }
    /// Number of levels including the leaves.
    pub fn levels(&self) -> usize {
        self.ids.len()
    }
    /// Index of the root level.
    pub fn height(&self) -> usize {
        self.ids.len() - 1
    }
    /// Node id of `code`'s ancestor at `level`.
    pub fn node(&self, level: usize, code: u32) -> u32 {
        self.ids[level][code as usize]
    }
    /// The table code -> node id at `level`.
    pub fn table(&self, level: usize) -> &[u32] {
        &self.ids[level]
    }
    /// Number of node ids at `level` (ids range over `0..n_nodes`; nodes no
    /// value of the column reaches are included).
    pub fn n_nodes(&self, level: usize) -> usize {
        self.labels[level].len()
    }
    pub fn label(&self, level: usize, node: u32) -> &str {
        &self.labels[level][node as usize]
    }
    /// The generalized value of `code` at `level`.
    pub fn generalize(&self, level: usize, code: u32) -> &str {
        self.label(level, self.node(level, code))
    }
    /// The column codes under each node at `level`, sorted (for
    /// `release::Cell::Set`); nodes no code reaches have an empty list.
    pub fn members(&self, level: usize) -> Vec<Vec<u32>> {
        let mut m = vec![Vec::new(); self.n_nodes(level)];
        for (code, &id) in self.ids[level].iter().enumerate() {
            m[id as usize].push(code as u32);
        }
        m
    }

    /// Records under each node at `level`, indexed by node id; `freq` is
    /// `Column::frequencies()`.
    pub fn node_records(&self, level: usize, freq: &[u64]) -> Vec<u64> {
        let mut n = vec![0u64; self.n_nodes(level)];
        for (code, &f) in freq.iter().enumerate() {
            n[self.ids[level][code] as usize] += f;
        }
        n
    }

    /// What generalizing the column to each level would give: the number of
    /// distinct generalized values present in the data and the records per
    /// value (min / median / max). `freq` is `Column::frequencies()`.
    pub fn level_stats(&self, freq: &[u64]) -> Vec<LevelStats> {
        (0..self.levels())
            .map(|level| {
                let n = self.node_records(level, freq);
                let mut sizes: Vec<u64> = n.into_iter().filter(|&x| x > 0).collect();
                sizes.sort_unstable();
                LevelStats::from_sorted(level, &sizes)
            })
            .collect()
    }
}

/// Class counts one level of a hierarchy gives on the data.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LevelStats {
    pub level: usize,
    /// Distinct generalized values that occur in the data.
    pub classes: usize,
    pub min: u64,
    /// Lower median of the records per value.
    pub median: u64,
    pub max: u64,
}

impl LevelStats {
    fn from_sorted(level: usize, sizes: &[u64]) -> Self {
        let pick = |i: usize| sizes.get(i).copied().unwrap_or(0);
        Self {
            level,
            classes: sizes.len(),
            min: pick(0),
            median: pick(sizes.len().saturating_sub(1) / 2),
            max: sizes.last().copied().unwrap_or(0),
        }
    }
}

/// Hierarchies for several attributes, by attribute name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HierarchySet {
    by_attribute: BTreeMap<String, Hierarchy>,
}

impl HierarchySet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Add or replace the hierarchy for its attribute.
    pub fn insert(&mut self, h: Hierarchy) {
        self.by_attribute.insert(h.attribute().to_string(), h);
    }

    pub fn get(&self, attribute: &str) -> Option<&Hierarchy> {
        self.by_attribute.get(attribute)
    }

    pub fn len(&self) -> usize {
        self.by_attribute.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_attribute.is_empty()
    }

    /// Attribute names, sorted.
    pub fn attributes(&self) -> impl Iterator<Item = &str> {
        self.by_attribute.keys().map(String::as_str)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Hierarchy> {
        self.by_attribute.values()
    }

    /// Every `*hierarchy_<attribute>.csv` in `dir` (ARX's naming, as in
    /// `adult_hierarchy_age.csv`). Other files are ignored; a directory with
    /// no such file is an error.
    pub fn load_dir(dir: &Path) -> Result<Self> {
        Self::load_pairs(&Self::dir_pairs(dir)?)
    }

    /// The (attribute, file) pairs of a directory, as [`Self::load_dir`]
    /// reads them (the TUI's folder import previews them one by one).
    pub fn dir_pairs(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
        let io = |e| Error::Io(dir.to_path_buf(), e);
        let mut files: Vec<(String, PathBuf)> = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let path = entry.map_err(io)?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if let Some(attr) = arx::attribute_from_file_name(name) {
                files.push((attr.to_string(), path));
            }
        }
        if files.is_empty() {
            return Err(Error::invalid(
                Parameter::Hierarchy,
                format!(
                    "{}: no hierarchy files (named like 'data_hierarchy_<column>.csv')",
                    dir.display()
                ),
            ));
        }
        Ok(files)
    }

    /// One file per attribute.
    pub fn load_pairs(pairs: &[(String, PathBuf)]) -> Result<Self> {
        let mut set = Self::new();
        for (attr, file) in pairs {
            set.insert(arx::read_as(file, attr)?);
        }
        Ok(set)
    }

    /// The CLI's `--hierarchies` value: a directory, comma-separated
    /// `column=FILE` pairs, or one file named like `*hierarchy_<column>.csv`.
    pub fn load_spec(spec: &str) -> Result<Self> {
        Self::load_pairs(&Self::spec_pairs(spec)?)
    }

    /// The files a `--hierarchies` value names (the inputs a command must
    /// not write over, `data::output`).
    pub fn spec_files(spec: &str) -> Result<Vec<PathBuf>> {
        Ok(Self::spec_pairs(spec)?
            .into_iter()
            .map(|(_, f)| f)
            .collect())
    }

    /// The (attribute, file) pairs a `--hierarchies` value names.
    fn spec_pairs(spec: &str) -> Result<Vec<(String, PathBuf)>> {
        if spec.contains('=') {
            let pairs = spec
                .split(',')
                .filter(|p| !p.trim().is_empty())
                .map(|p| match p.split_once('=') {
                    Some((c, f)) if !c.trim().is_empty() && !f.trim().is_empty() => {
                        Ok((c.trim().to_string(), PathBuf::from(f.trim())))
                    }
                    _ => Err(Error::invalid(
                        Parameter::Hierarchy,
                        format!("hierarchies: '{p}' is not 'column=FILE'"),
                    )),
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(pairs)
        } else {
            let path = Path::new(spec);
            let named = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(arx::attribute_from_file_name);
            if path.is_dir() {
                Self::dir_pairs(path)
            } else if let (true, Some(attr)) = (path.is_file(), named) {
                Ok(vec![(attr.to_string(), path.to_path_buf())])
            } else {
                Err(Error::invalid(Parameter::Hierarchy, format!(
                    "hierarchies: '{spec}' is neither a directory nor a '*hierarchy_<column>.csv' file; give a directory of '*hierarchy_<column>.csv' files or 'column=FILE,...' pairs"
                )))
            }
        }
    }

    /// Bind the hierarchies of `columns` (indices into `ds`), in that order;
    /// a column without a hierarchy is an error naming it.
    pub fn bind(&self, ds: &Dataset, columns: &[usize]) -> Result<Vec<BoundHierarchy>> {
        columns
            .iter()
            .map(|&c| {
                let col = ds.col(c);
                let h = self.get(col.name()).ok_or_else(|| {
                    Error::invalid(
                        Parameter::Hierarchy,
                        format!(
                            "no hierarchy for column '{}' (hierarchies are given for: {})",
                            col.name(),
                            self.attributes().collect::<Vec<_>>().join(", ")
                        ),
                    )
                })?;
                h.bind(col)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
