//! The project file: everything needed to reproduce a session, as JSON.
//!
//! The TUI saves it, the CLI reads it (`--project`), so an interactive
//! session can be replayed in batch. It holds where the data is and how to
//! read it, the roles, the cell-sensitivity sources (a random density with
//! its seed), the attacker model, the hierarchies and everything that
//! determines a release: the algorithm with k, l, p, c, t and its seed,
//! the t-closeness choices, full-domain's suppression, metric and model,
//! Construction's conditions file, and the compare set — never the data
//! itself. `anonlab anonymize --project` on a saved project publishes the
//! release the TUI showed, byte for byte (same fingerprint). Saving goes
//! through `data::output` (a temporary file beside the target, synced and
//! renamed), so a crash never leaves a half-written project and the data
//! file is never replaced by one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::output::{write_bytes, Inputs};
use super::{CellSensitivity, CsvOptions, PopulationSettings, Role};
use crate::error::{Error, Result};

pub const PROJECT_VERSION: u32 = 1;

/// The most entries a compare set (a project's, or `compare`'s
/// algorithms × k × l) may hold: each is a full run and evaluation.
pub const MAX_COMPARE_ENTRIES: usize = 1000;

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
    /// The compare set: algorithms and parameter sets to run side by side
    /// (the TUI's Compare screen; `anonlab compare --project` without
    /// `--algorithms`). Left out of the file when empty, so projects
    /// written before it existed load and save unchanged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compare: Vec<CompareEntry>,
    /// Top and bottom codes and roundings of numeric columns, applied in
    /// order to the file's data before any algorithm runs
    /// (`data::recode`). Left out of the file when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recodes: Vec<super::Recode>,
}

/// One entry of the compare set: an algorithm and the parameters it is
/// run with. Everything else a run reads (roles, sensitive cells,
/// hierarchies, t-closeness, full-domain settings) is the session's at
/// the time of the run, so changing the session re-runs every entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareEntry {
    /// An id of `algorithms::registry`.
    pub algorithm: String,
    pub k: u32,
    /// Only for algorithms that read l.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l: Option<u32>,
    /// Only for algorithms that read p (p-sensitive k-anonymity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<u32>,
    pub seed: u64,
}

impl std::fmt::Display for CompareEntry {
    /// `cbg k=3 l=2 seed=42`, as the screens and messages name an entry.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} k={}", self.algorithm, self.k)?;
        if let Some(l) = self.l {
            write!(f, " l={l}")?;
        }
        if let Some(p) = self.p {
            write!(f, " p={p}")?;
        }
        write!(f, " seed={}", self.seed)
    }
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
    /// Size and hash of the data file when the project was saved, so that
    /// opening the project can say the file changed since (the figures of
    /// the saved session may then differ). Absent in projects saved before
    /// fingerprints existed and for the embedded demo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<DataFingerprint>,
    /// The file is opened through the query engine's frequency table of
    /// these columns, not read whole (a session saved from one: `anonlab
    /// tui --engine datafusion`, issue 19). Left out of the file for data
    /// read in memory, so projects written before it load and save
    /// unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grouped: Option<GroupedSource>,
}

/// How a project's data file is opened through the query engine: the
/// columns its frequency table groups (every column given a role the
/// figures read) and the identifier columns, which the table never holds
/// (a column unique per record would make it as large as the file) and
/// which are never published.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupedSource {
    /// The grouped columns, in the table's order.
    pub columns: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub identifiers: Vec<String>,
}

/// What identifies the content of a data file: its size and a 64-bit
/// FNV-1a hash of its bytes. FNV detects accidental change (an edited,
/// re-exported or replaced file), which is all this is for; it is not a
/// cryptographic hash and guards nothing against a deliberate collision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataFingerprint {
    pub size: u64,
    /// `fnv1a64:` and 16 hex digits.
    pub hash: String,
}

impl DataFingerprint {
    /// Read `file` once, in blocks (a large CSV is never held whole). A
    /// regular file only: a device (`/dev/zero`) would be read forever, a
    /// FIFO waited on.
    pub fn of_file(file: &Path) -> Result<Self> {
        use std::io::Read;
        let io = |e| Error::Io(file.to_path_buf(), e);
        let meta = std::fs::metadata(file).map_err(io)?;
        if !meta.is_file() {
            return Err(Error::input(
                file,
                None,
                None,
                "is not a regular file, so it has no fingerprint (a project's data file is one)",
            ));
        }
        let mut f = crate::data::input::open_input(file).map_err(io)?;
        let mut buf = vec![0u8; 1 << 16];
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut size = 0u64;
        loop {
            let n = f.read(&mut buf).map_err(io)?;
            if n == 0 {
                break;
            }
            size += n as u64;
            for &b in &buf[..n] {
                hash ^= u64::from(b);
                hash = hash.wrapping_mul(0x0100_0000_01b3);
            }
        }
        Ok(DataFingerprint {
            size,
            hash: format!("fnv1a64:{hash:016x}"),
        })
    }
}

/// What the attacker is assumed to know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AttackerModel {
    /// The attributes the attacker knows, in the order used for the prefix
    /// evaluation. Empty means: every quasi-identifier and semi-sensitive
    /// attribute, in column order — unless `knows_nothing`.
    pub known: Vec<String>,
    /// The attacker knows none of the attributes they could know (the
    /// TUI's picker with every box cleared). Saved only when set, so
    /// older projects read as before.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub knows_nothing: bool,
    /// The probability (of re-identification, of a breach) above which a
    /// record counts as at risk: every "above threshold" figure of the
    /// assessment and of a release's evaluation reads it.
    pub threshold: f64,
    /// The file as a sample of a population, and the statistics offices'
    /// measures to compute (`data::population`). Left out when unset.
    #[serde(skip_serializing_if = "is_unset")]
    pub population: PopulationSettings,
}

fn is_unset(p: &PopulationSettings) -> bool {
    *p == PopulationSettings::default()
}

/// The threshold of a new session, a project that names none, and a
/// command given no `--threshold`: one default everywhere.
pub const DEFAULT_THRESHOLD: f64 = 0.2;

impl Default for AttackerModel {
    fn default() -> Self {
        Self {
            known: Vec::new(),
            knows_nothing: false,
            threshold: DEFAULT_THRESHOLD,
            population: PopulationSettings::default(),
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
    /// Attributes LGB protects by t-closeness instead of l-diversity, with
    /// their t, by column name (the TUI's `T` choice; it offers one
    /// attribute, at t = `t`). Left out of the file when empty, so
    /// projects written before it existed load and save unchanged.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub t_closeness: BTreeMap<String, f64>,
    /// p of p-sensitive k-anonymity (pk-enhanced, pk-greedy). Left out of
    /// the file at its default, so projects written before it existed load
    /// and save unchanged.
    #[serde(skip_serializing_if = "is_default_p")]
    pub p: u32,
    /// Full-domain generalization's settings (record suppression, metric,
    /// privacy model). Left out of the file at their defaults, so projects
    /// written before they were saved load and save unchanged.
    #[serde(skip_serializing_if = "FullDomainParams::is_default")]
    pub full_domain: FullDomainParams,
    /// Construction(D, G)'s conditions file (`data::Conditions`);
    /// a relative path is relative to the project file, like the data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<PathBuf>,
    /// Local suppression's settings (importance, combs, what a `*`
    /// matches, strata). Left out of the file at their defaults, so
    /// projects written before they were saved load and save unchanged.
    #[serde(skip_serializing_if = "LocalSuppressionParams::is_default")]
    pub local_suppression: LocalSuppressionParams,
    /// Microaggregation's settings (the numeric attributes to perturb, a
    /// stratum column, mean or median). Left out of the file at their
    /// defaults, so projects written before they existed load and save
    /// unchanged.
    #[serde(skip_serializing_if = "PerturbationParams::is_default")]
    pub perturbation: PerturbationParams,
}

/// Microaggregation's settings by name, as `anonymize`'s flags give them
/// (`--perturb`, `--strata`, `--aggregation`); the session resolves them
/// (`Session::request_with`), the algorithm refuses what does not fit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PerturbationParams {
    /// The numeric attributes to perturb (sdcMicro's numerical key
    /// variables).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<String>,
    /// A column within each of whose values the groups are formed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strata: Option<String>,
    /// `mean` (the default) or `median`; a name the session parses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aggregation: Option<String>,
    /// Microaggregation: the sampling-weight column a group's mean or
    /// median is weighted by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<String>,
    /// PRAM's least diagonal (sdcMicro's `pd`, default 0.8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pd: Option<f64>,
    /// PRAM's `alpha` (default 0.5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// Additive noise in percent of the standard deviation (default 150).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noise: Option<f64>,
    /// correlated2's δ (default 0.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noise_delta: Option<f64>,
    /// Rank swapping's p, in percent (default 5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swap_p: Option<f64>,
    /// PRAM's transition matrices given as files (`--matrix COL=FILE`,
    /// `:matrix`), by attribute; the others are drawn from pd and alpha.
    /// Inputs: no output may name them.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub matrices: BTreeMap<String, PathBuf>,
}

impl PerturbationParams {
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// Local suppression's settings by name, as `anonymize`'s flags give
/// them (`--importance`, `--combs`, `--missing-matches`, `--strata`); the
/// session resolves them against the quasi-identifiers of a run
/// (`Session::request_with`), which refuses names that do not fit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LocalSuppressionParams {
    /// Every quasi-identifier by name, from the most important
    /// (suppressed last) to the least; empty: fewest categories = most
    /// important.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub importance: Vec<String>,
    /// Sizes of key subsets made k-anonymous first (sdcMicro's combs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub combs: Vec<u32>,
    /// What a suppressed or missing key cell matches: `any` (the
    /// default, sdcMicro's alpha = 1) or `own` (alpha = 0); a name the
    /// session parses, since this layer knows no release.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_matches: Option<String>,
    /// A column within each of whose values k holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strata: Option<String>,
}

impl LocalSuppressionParams {
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// Full-domain generalization's settings, as names the algorithm layer
/// parses (`algorithms::full_domain`); l, c, t and p of its privacy model
/// are the project's own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FullDomainParams {
    /// The largest share of rows that may be suppressed, in [0, 1].
    pub suppression: f64,
    /// What the optimum minimizes: `loss`, `dm` or `height`.
    pub metric: String,
    /// The privacy model besides k, by its name (`privacy::Model::NAMES`:
    /// `k`, `l-distinct`, `l-entropy`, `l-recursive`, `t-closeness`,
    /// `p-sensitive`, `alpha-k`, `delta-disclosure`, `beta-likeness`).
    pub model: String,
    /// α of (α,k)-anonymity, δ of δ-disclosure and β of β-likeness: read
    /// by those models only, so they live here rather than beside l and t.
    /// Left out of the file at their defaults, so projects written before
    /// they existed load and save unchanged.
    #[serde(skip_serializing_if = "is_default_alpha")]
    pub alpha: f64,
    #[serde(skip_serializing_if = "is_default_delta")]
    pub delta: f64,
    #[serde(skip_serializing_if = "is_default_beta")]
    pub beta: f64,
    /// A node of the lattice to publish instead of the optimum: one level
    /// per quasi-identifier, in the order of the columns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<Vec<usize>>,
}

impl Default for FullDomainParams {
    fn default() -> Self {
        FullDomainParams {
            suppression: 0.0,
            metric: "loss".into(),
            model: "k".into(),
            alpha: DEFAULT_ALPHA,
            delta: DEFAULT_DELTA,
            beta: DEFAULT_BETA,
            node: None,
        }
    }
}

/// α, δ and β when a project does not say.
pub const DEFAULT_ALPHA: f64 = 0.5;
pub const DEFAULT_DELTA: f64 = 1.0;
pub const DEFAULT_BETA: f64 = 1.0;

fn is_default_alpha(x: &f64) -> bool {
    *x == DEFAULT_ALPHA
}
fn is_default_delta(x: &f64) -> bool {
    *x == DEFAULT_DELTA
}
fn is_default_beta(x: &f64) -> bool {
    *x == DEFAULT_BETA
}

impl FullDomainParams {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// p when a project does not say.
pub const DEFAULT_P: u32 = 2;

fn is_default_p(p: &u32) -> bool {
    *p == DEFAULT_P
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
            t_closeness: BTreeMap::new(),
            p: DEFAULT_P,
            full_domain: FullDomainParams::default(),
            conditions: None,
            local_suppression: LocalSuppressionParams::default(),
            perturbation: PerturbationParams::default(),
        }
    }
}

impl Project {
    pub fn new(path: Option<PathBuf>, csv: CsvOptions) -> Self {
        Self {
            version: PROJECT_VERSION,
            data: DataSource {
                path,
                csv,
                fingerprint: None,
                grouped: None,
            },
            roles: BTreeMap::new(),
            sensitivity: BTreeMap::new(),
            attacker: AttackerModel::default(),
            params: Params::default(),
            hierarchies: BTreeMap::new(),
            compare: Vec::new(),
            recodes: Vec::new(),
        }
    }

    /// This project with its data read whole instead of through the
    /// query engine's frequency table (`--engine memory` on a project
    /// saved from a grouped session): the identifier columns the table
    /// left out are named as identifiers, so that they stay unpublished.
    pub fn in_memory(&self) -> Project {
        let mut p = self.clone();
        if let Some(grouped) = p.data.grouped.take() {
            for id in grouped.identifiers {
                p.roles.insert(id, Role::Identifier);
            }
        }
        p
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    pub fn from_json(text: &str, file: &Path) -> Result<Self> {
        let p: Project = serde_json::from_str(text)
            .map_err(|e| Error::Project(file.to_path_buf(), e.to_string()))?;
        if p.compare.len() > MAX_COMPARE_ENTRIES {
            return Err(Error::Project(
                file.to_path_buf(),
                format!(
                    "the compare set has {} entries, more than the {MAX_COMPARE_ENTRIES} anonlab runs",
                    p.compare.len()
                ),
            ));
        }
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
        let text = super::input::read_text_string(file, "project file")?;
        let mut p = Self::from_json(&text, file)?;
        p.resolve_paths(file);
        Ok(p)
    }

    /// Read the relative data and hierarchy paths of a project written to
    /// `file` as relative to `file`'s directory, so a project and its data
    /// can move together ([`Project::load`] does this).
    pub fn resolve_paths(&mut self, file: &Path) {
        let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) else {
            return;
        };
        if let Some(path) = self.data.path.as_mut().filter(|p| p.is_relative()) {
            *path = dir.join(&*path);
        }
        for source in self.hierarchies.values_mut() {
            if let HierarchySource::File(path) = source {
                if path.is_relative() {
                    *path = dir.join(&*path);
                }
            }
        }
        if let Some(path) = self.params.conditions.as_mut().filter(|p| p.is_relative()) {
            *path = dir.join(&*path);
        }
        if let Some(path) = self.attacker.population.table.as_mut() {
            if path.is_relative() {
                *path = dir.join(&*path);
            }
        }
        for path in self.params.perturbation.matrices.values_mut() {
            if path.is_relative() {
                *path = dir.join(&*path);
            }
        }
    }

    /// This project (its paths as the process opens them, relative to the
    /// working directory) as it is written to `file`: the data path and
    /// hierarchy files relative to `file`'s directory when they lie beside
    /// or below it, else absolute, so the written project opens from any
    /// working directory ([`Project::resolve_paths`] undoes it).
    pub fn relative_to(&self, file: &Path) -> Project {
        let cwd = std::env::current_dir().unwrap_or_default();
        let absolute = cwd.join(file);
        let dir = absolute.parent().unwrap_or(&cwd).to_path_buf();
        let relative = |p: &Path| {
            let p = cwd.join(p);
            match p.strip_prefix(&dir) {
                Ok(rel) => rel.to_path_buf(),
                Err(_) => p,
            }
        };
        let mut project = self.clone();
        if let Some(data) = &project.data.path {
            project.data.path = Some(relative(data));
        }
        for source in project.hierarchies.values_mut() {
            if let HierarchySource::File(p) = source {
                *p = relative(p);
            }
        }
        if let Some(c) = &project.params.conditions {
            project.params.conditions = Some(relative(c));
        }
        if let Some(p) = project.attacker.population.table.as_mut() {
            *p = relative(p);
        }
        for p in project.params.perturbation.matrices.values_mut() {
            *p = relative(p);
        }
        project
    }

    /// Write through `data::output` (atomic, synced), refusing to replace
    /// the data file or a hierarchy file the project names. The data
    /// file's current fingerprint is written with it (saving describes the
    /// data as it is now); a data file that cannot be read gets none rather
    /// than failing the save.
    pub fn save(&self, file: &Path) -> Result<()> {
        self.save_with(file, &Inputs::new())
    }

    /// [`Project::save`], refusing also to replace one of `inputs` (the
    /// other files of the command that saves).
    pub fn save_with(&self, file: &Path, inputs: &Inputs) -> Result<()> {
        let mut p = self.clone();
        p.data.fingerprint = self
            .data_file(file)
            .and_then(|d| DataFingerprint::of_file(&d).ok());
        // The paths as given and as read back beside `file`: either may be
        // how the caller meant them.
        let mut inputs = inputs.clone();
        inputs.extend(&self.inputs());
        let mut at = self.clone();
        at.resolve_paths(file);
        inputs.extend(&at.inputs());
        write_bytes(file, &inputs, p.to_json().as_bytes())
    }

    /// The files this project reads — its data file, hierarchy files and
    /// conditions file — by their paths as the process opens them (after
    /// [`Project::load`]).
    pub fn inputs(&self) -> Inputs {
        let mut inputs = Inputs::new();
        if let Some(d) = &self.data.path {
            inputs.add(d);
        }
        for source in self.hierarchies.values() {
            if let HierarchySource::File(h) = source {
                inputs.add(h);
            }
        }
        if let Some(c) = &self.params.conditions {
            inputs.add(c);
        }
        inputs
    }

    /// The data path as a file name the process can open: a relative path
    /// is relative to the project file `file`, as [`Project::load`] reads it.
    fn data_file(&self, file: &Path) -> Option<PathBuf> {
        let path = self.data.path.as_ref()?;
        match file.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(dir) if path.is_relative() => Some(dir.join(path)),
            _ => Some(path.clone()),
        }
    }

    /// A warning when the data file is not the one the project was saved
    /// with (size or hash differ), `None` when it is the same, when the
    /// project has no fingerprint (older projects, the demo) or when the
    /// file cannot be read (loading it will say why). Call after
    /// [`Project::load`], which has made the data path openable.
    pub fn data_changed(&self) -> Option<String> {
        let saved = self.data.fingerprint.as_ref()?;
        let path = self.data.path.as_ref()?;
        let now = DataFingerprint::of_file(path).ok()?;
        if &now == saved {
            return None;
        }
        let size = if now.size == saved.size {
            format!("same size, {} bytes, but different content", now.size)
        } else {
            format!("{} bytes then, {} bytes now", saved.size, now.size)
        };
        Some(format!(
            "the data file {} changed since the project was saved ({size}); figures may differ from the saved session",
            path.display()
        ))
    }
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
        p.params.t_closeness.insert("occupation".into(), 0.15);
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
    fn t_closeness_choices_round_trip_and_are_absent_when_empty() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.json");
        let mut p = Project::new(None, CsvOptions::default());
        assert!(!p.to_json().contains("t_closeness"), "{}", p.to_json());
        p.params.t_closeness.insert("sex".into(), 0.2);
        p.params
            .t_closeness
            .insert("salary-class".into(), 1.0 / 3.0);
        p.save(&file).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["params"]["t_closeness"]["sex"], 0.2);
        let back = Project::load(&file).unwrap();
        assert_eq!(back, p);
        assert_eq!(back.params.t_closeness["salary-class"], 1.0 / 3.0);
        // A project written before the field existed reads as none.
        let old =
            r#"{"version":1,"data":{"path":null},"params":{"k":3,"l":2,"t":0.2,"c":3.0,"seed":1}}"#;
        let p = Project::from_json(old, &file).unwrap();
        assert!(p.params.t_closeness.is_empty());
        assert_eq!(Project::from_json(&p.to_json(), &file).unwrap(), p);
    }

    #[test]
    fn the_compare_set_round_trips_and_is_absent_when_empty() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.json");
        let mut p = Project::new(None, CsvOptions::default());
        assert!(!p.to_json().contains("compare"), "{}", p.to_json());
        p.compare = vec![
            CompareEntry {
                algorithm: "mondrian".into(),
                k: 5,
                l: None,
                p: None,
                seed: 42,
            },
            CompareEntry {
                algorithm: "pk-enhanced".into(),
                k: 3,
                l: None,
                p: Some(2),
                seed: 7,
            },
        ];
        p.save(&file).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["compare"][1]["p"], 2);
        assert!(json["compare"][0].get("l").is_none(), "{text}");
        assert_eq!(Project::load(&file).unwrap(), p);
        assert_eq!(p.compare[1].to_string(), "pk-enhanced k=3 p=2 seed=7");
        let bad = r#"{"version":1,"data":{"path":null},"compare":[{"algorithm":"cbg","k":3,"seed":1,"q":2}]}"#;
        let err = Project::from_json(bad, &file).unwrap_err().to_string();
        assert!(err.contains("unknown field"), "{err}");
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
    fn a_changed_data_file_is_reported_and_old_projects_still_load() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("d.csv");
        std::fs::write(&data, "a,b\n1,2\n").unwrap();
        let file = dir.path().join("p.json");
        Project::new(Some("d.csv".into()), CsvOptions::default())
            .save(&file)
            .unwrap();
        let p = Project::load(&file).unwrap();
        let f = p.data.fingerprint.clone().expect("stamped on save");
        assert_eq!(f.size, 8);
        assert_eq!(p.data_changed(), None);
        // Same size, other bytes: the hash tells.
        std::fs::write(&data, "a,b\n1,3\n").unwrap();
        let w = p.data_changed().expect("changed");
        assert!(w.contains("d.csv") && w.contains("same size"), "{w}");
        std::fs::write(&data, "a,b\n1,2\n3,4\n").unwrap();
        assert!(p
            .data_changed()
            .unwrap()
            .contains("8 bytes then, 12 bytes now"));
        // A project written before fingerprints existed loads and warns of nothing.
        let old = r#"{"version":1,"data":{"path":"d.csv"}}"#;
        std::fs::write(&file, old).unwrap();
        let p = Project::load(&file).unwrap();
        assert_eq!(p.data.fingerprint, None);
        assert_eq!(p.data_changed(), None);
        // FNV-1a 64 of "a": the published test vector.
        std::fs::write(&data, "a").unwrap();
        assert_eq!(
            DataFingerprint::of_file(&data).unwrap().hash,
            "fnv1a64:af63dc4c8601ec8c"
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
