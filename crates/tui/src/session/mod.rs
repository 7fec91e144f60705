//! The one session state of the TUI, owned by the app and read by every
//! screen: the library's [`Session`] (dataset, roles, cell sensitivity,
//! attacker, hierarchies, every release parameter, the compare set), the
//! attacker picker's order, generation counters, and the session's
//! **baseline** — the original table attacked by the session's attacker,
//! computed once per change of what it depends on, in a job slot of its
//! own, and read by the Risk, Anonymize and Compare screens, every chart
//! export and (through the project) the report.
//!
//! The session is held behind an `Arc`: a job gets a copy of the `Arc` and
//! builds its request with [`Session::request_with`], exactly as `anonlab
//! anonymize --project` and `anonlab report` build theirs, so a release on
//! screen is the release the CLI publishes for the saved project. An edit
//! copies the session only while a job still holds the old one
//! (`Arc::make_mut`); the dataset inside is shared and never copied.
//!
//! Generations say what changed: each edit bumps the counter of its part,
//! and [`Generations::session`] counts every edit. A release's inputs
//! ([`AnonymizeInputs`]) name the generations of the parts its algorithm
//! reads, so two equal inputs give the same release; the baseline is keyed
//! by the roles, cells and attacker generations.

use std::collections::BTreeMap;
use std::sync::Arc;

use fixedbitset::FixedBitSet;

use super::jobs::Job;
use super::shared::Popup;
use anonlab::algorithms::{Needs, Registry, Use};
use anonlab::data::Conditions;
use anonlab::data::{CellSensitivity, CompareEntry, Dataset, Params, Project, Role, Roles};
use anonlab::session::{
    Attacker, AttackerSummary, GroupedFile, HeldHierarchy, Session, DEMO_LABEL,
};

mod baseline;
mod edits;
pub use baseline::{most_exposed, BaselineKey, Before, Listed, MAX_LISTED};

/// Counters of edits, one per part of the session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Generations {
    /// Every edit of the session (the generation counter).
    pub session: u64,
    pub roles: u64,
    pub cells: u64,
    /// What the attacker knows and their order. The risk threshold is
    /// not part of it: every distribution is kept whole, so a new
    /// threshold recounts the records above it without a job.
    pub attacker: u64,
    pub hierarchies: u64,
    /// The release settings beyond k, l, p and the seed: t-closeness,
    /// full-domain's settings, Construction's conditions, c and t.
    pub settings: u64,
}

/// The generations of the session parts one release reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reads {
    pub roles: u64,
    /// LGB reads the sensitive cells.
    pub cells: Option<u64>,
    /// Full-domain, the p-sensitive algorithms and Construction read the
    /// hierarchies.
    pub hierarchies: Option<u64>,
    /// LGB (t-closeness), full-domain and Construction read settings.
    pub settings: Option<u64>,
    /// The attacker the view's after figures are measured for
    /// (`assess::After`): not read by the algorithm, but by its view.
    pub attacker: u64,
}

/// The inputs of one anonymization: the algorithm, the parameters it
/// reads, and the generations of what else it reads. Two equal inputs give
/// the same release.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AnonymizeInputs {
    pub algorithm: &'static str,
    pub k: u32,
    /// `None` when the algorithm does not read l.
    pub l: Option<u32>,
    /// `None` when the algorithm does not read p.
    pub p: Option<u32>,
    pub seed: u64,
    pub reads: Reads,
}

/// An algorithm of the registry, as the screens list it, with what it
/// reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlgorithmChoice {
    pub id: &'static str,
    pub name: &'static str,
    /// What it reads ([`Algorithm::needs`](anonlab::algorithms::Algorithm::needs)):
    /// which parameters the panel enables, which settings a run reads,
    /// what blocks it. An algorithm that reads the semi-sensitive cells
    /// (LGB) gets them; the others leave the semi-sensitive columns out of
    /// the release (`Session::request`).
    pub needs: Needs,
}

impl AlgorithmChoice {
    /// The algorithms of `registry` (a session's), in its order.
    pub fn all(registry: &Registry) -> Vec<AlgorithmChoice> {
        registry
            .iter()
            .map(|a| AlgorithmChoice {
                id: a.id(),
                name: a.name(),
                needs: a.needs(),
            })
            .collect()
    }

    /// The registry's entry for `id`.
    pub fn of(registry: &Registry, id: &str) -> Option<AlgorithmChoice> {
        registry.get(id).ok().map(|a| AlgorithmChoice {
            id: a.id(),
            name: a.name(),
            needs: a.needs(),
        })
    }
}

/// The algorithm id of full-domain generalization.
pub const FULL_DOMAIN: &str = "full-domain";
/// The algorithm id of Construction(D, G).
pub const CONSTRUCTION: &str = "construction";

/// Resolved sensitive cells of one column, shared with running jobs.
#[derive(Debug, Clone)]
struct Cells {
    bits: Arc<FixedBitSet>,
    /// Set bits, kept so drawing never counts.
    count: usize,
}

impl Cells {
    fn new(bits: FixedBitSet) -> Self {
        Cells {
            count: bits.count_ones(..),
            bits: Arc::new(bits),
        }
    }
}

/// What an undo restores: every part of the session the user edits —
/// roles, cell marks, what the attacker knows (and in what order, the
/// threshold), hierarchies and the release parameters — with the
/// generations they had. The compare set is not part of it: it holds
/// measured results and is edited on its own screen.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub(super) session: Arc<Session>,
    cells: Vec<Option<Cells>>,
    order: Vec<usize>,
    known: Vec<bool>,
    explicit_insensitive: Vec<usize>,
    pub(super) generations: Generations,
}

impl Snapshot {
    /// Sensitive cells of column `c` in this state.
    pub(super) fn cell_count(&self, c: usize) -> usize {
        self.cells
            .get(c)
            .and_then(Option::as_ref)
            .map_or(0, |x| x.count)
    }
    /// The attacker picker's order and who is known, in this state.
    pub(super) fn attacker_view(&self) -> (&[usize], &[bool]) {
        (&self.order, &self.known)
    }
}

/// The session state: see the module doc.
pub struct SessionState {
    session: Arc<Session>,
    /// The file's name as the status bar shows it.
    label: String,
    /// Per column: its resolved sensitive cells. Kept when a column stops
    /// being semi-sensitive, so switching back keeps hand toggles.
    cells: Vec<Option<Cells>>,
    /// Attacker-visible columns in the attacker's order (the Risk
    /// screen's picker); the known ones are `session.attacker.known`.
    order: Vec<usize>,
    /// Per column: whether the attacker knows it.
    known: Vec<bool>,
    /// Flag columns the user published on purpose (role insensitive set
    /// by hand, or named so in the project): not hidden again.
    explicit_insensitive: Vec<usize>,
    generations: Generations,
    /// The highest generation ever given to each part. Edits count from
    /// it, not from the current generation: after an undo restores older
    /// generations, a new edit still gets a number no other state had, so
    /// a cache keyed by generations never mistakes one state for another.
    high: Generations,
    baseline: Option<Arc<Before>>,
    /// The file behind a session opened through its frequency table
    /// (`anonlab tui --engine datafusion`): the dataset is the grouped
    /// table, and the Data screen pages this file's sample instead.
    grouped: Option<Arc<GroupedFile>>,
    baseline_job: Job<Box<Before>>,
    baseline_requested: Option<BaselineKey>,
}

impl SessionState {
    /// The state of `session`. Fails when a sensitivity source cannot be
    /// resolved (a rule naming a missing column, a bad flag value) or the
    /// attacker names an unknown column or a threshold outside [0, 1].
    /// Returns the state and the warnings to show (settings the screens
    /// cannot show as they are).
    pub fn new(mut session: Session) -> anonlab::Result<(Self, Vec<Popup>)> {
        let threshold = session.attacker.threshold;
        if !(0.0..=1.0).contains(&threshold) {
            return Err(anonlab::Error::invalid(
                anonlab::error::Parameter::Threshold,
                format!("risk threshold {threshold} is not between 0 and 1"),
            ));
        }
        let ds = Arc::clone(&session.dataset);
        let first: Vec<usize> = session
            .attacker
            .known
            .iter()
            .map(|n| ds.column_index(n))
            .collect::<anonlab::Result<_>>()?;
        let mut cells = vec![None; ds.n_cols()];
        for (&c, spec) in &session.sensitivity {
            cells[c] = Some(Cells::new(spec.resolve(&ds, ds.col(c).name())?));
        }
        let mut warnings = Vec::new();
        // A t-closeness attribute that is neither sensitive nor
        // semi-sensitive has no sensitive value to protect.
        let dropped: Vec<String> = session
            .params
            .t_closeness
            .iter()
            .filter(|(n, _)| {
                ds.column_index(n)
                    .is_ok_and(|c| !t_closeness_candidate(session.roles.get(c)))
            })
            .map(|(n, t)| format!("{n}={t}"))
            .collect();
        if !dropped.is_empty() {
            session
                .params
                .t_closeness
                .retain(|n, _| !dropped.iter().any(|d| d.starts_with(&format!("{n}="))));
            warnings.push(Popup::new(
                "t-closeness not applied",
                format!(
                    "The project asks t-closeness for {}, which is neither sensitive nor semi-sensitive here; it is left out (and from the project when it is saved).",
                    dropped.join(", ")
                ),
            ));
        }
        let label = match &session.source {
            Some(p) => p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            None => DEMO_LABEL.to_string(),
        };
        let n_cols = ds.n_cols();
        // Flag columns still insensitive were published on purpose
        // (`Session::hide_flag_columns` hid the others).
        let explicit_insensitive = session
            .flag_columns()
            .into_iter()
            .filter(|&c| session.roles.get(c) == Role::Insensitive)
            .collect();
        let mut s = SessionState {
            session: Arc::new(session),
            explicit_insensitive,
            label,
            cells,
            order: Vec::new(),
            known: vec![false; n_cols],
            generations: Generations::default(),
            high: Generations::default(),
            baseline: None,
            grouped: None,
            baseline_job: Job::inline(),
            baseline_requested: None,
        };
        s.ensure_semi_cells();
        let nothing = s.session.attacker.knows_nothing;
        s.sync_attacker(&first);
        if nothing {
            // Every attribute in the picker, none of them known.
            s.known.iter_mut().for_each(|k| *k = false);
            s.attacker_changed();
            s.generations = Generations::default();
        }
        s.high = s.generations;
        Ok((s, warnings))
    }

    /// Say that the session's dataset is the frequency table of `file`
    /// (see [`GroupedFile`]): the Data screen then pages its sample.
    pub fn set_grouped(&mut self, file: GroupedFile) {
        self.grouped = Some(Arc::new(file));
    }

    // ---- reading ----

    /// The file behind a grouped session, if the session is one.
    pub fn grouped(&self) -> Option<&Arc<GroupedFile>> {
        self.grouped.as_ref()
    }

    /// The table the Data screen pages: the dataset, or a grouped
    /// session's sample of its file (every column of the file, its first
    /// records), whose columns are the file's, not the dataset's.
    pub fn table(&self) -> &Arc<Dataset> {
        match &self.grouped {
            Some(g) => &g.sample,
            None => &self.session.dataset,
        }
    }

    /// The dataset's column shown as column `c` of [`Self::table`]: the
    /// same column, or for a grouped session the table's column of that
    /// name, if it grouped it.
    pub fn table_column(&self, c: usize) -> Option<usize> {
        match &self.grouped {
            Some(g) => g.table_column(&self.session.dataset, c),
            None => (c < self.session.dataset.n_cols()).then_some(c),
        }
    }

    /// The role of column `c` of [`Self::table`].
    pub fn table_role(&self, c: usize) -> Role {
        match &self.grouped {
            Some(g) => g.role(&self.session.dataset, &self.session.roles, c),
            None => self.session.roles.get(c),
        }
    }

    /// Whether a cell of [`Self::table`] is marked sensitive: never on a
    /// grouped session's sample, whose rows are not the dataset's.
    pub fn table_cell_sensitive(&self, row: usize, col: usize) -> bool {
        self.grouped.is_none() && self.is_sensitive(row, col)
    }

    /// The session as a job takes it.
    /// The algorithms the session offers, in menu order.
    pub fn algorithms(&self) -> Vec<AlgorithmChoice> {
        AlgorithmChoice::all(&self.session().registry)
    }

    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }
    pub fn dataset(&self) -> &Arc<Dataset> {
        &self.session.dataset
    }
    pub fn label(&self) -> &str {
        &self.label
    }
    pub fn roles(&self) -> &Roles {
        &self.session.roles
    }
    pub fn params(&self) -> &Params {
        &self.session.params
    }
    pub fn hierarchies(&self) -> &BTreeMap<String, HeldHierarchy> {
        &self.session.hierarchies
    }
    pub fn conditions(&self) -> Option<&Conditions> {
        self.session.conditions.as_ref()
    }
    pub fn compare_set(&self) -> &[CompareEntry] {
        &self.session.compare
    }
    pub fn generations(&self) -> Generations {
        self.generations
    }
    /// Pr(re-id) above which a record counts as at risk.
    pub fn threshold(&self) -> f64 {
        self.session.attacker.threshold
    }
    /// Attacker-visible columns in the attacker's order.
    pub fn order(&self) -> &[usize] {
        &self.order
    }
    /// Whether the attacker knows column `c`.
    pub fn knows(&self, c: usize) -> bool {
        self.known.get(c).copied().unwrap_or(false)
    }
    /// Known columns in the attacker's order.
    pub fn known_columns(&self) -> Vec<usize> {
        self.order
            .iter()
            .copied()
            .filter(|&c| self.known[c])
            .collect()
    }

    /// The session's attacker: the known columns with the sensitive cells
    /// of the semi-sensitive ones hidden.
    pub fn attacker(&self) -> Attacker {
        let known = self.known_columns();
        let hidden = known.iter().map(|&c| self.hidden_of(c).cloned()).collect();
        Attacker {
            known,
            hidden,
            visible: self.roles().attacker_visible().len(),
            threshold: self.threshold(),
            population: self.session.attacker.population.clone(),
            population_csv: self.session.csv.clone(),
        }
    }

    /// The attacker in names, as every figure for them is labelled.
    pub fn attacker_summary(&self) -> AttackerSummary {
        let known = self.known_columns();
        let ds = self.dataset();
        AttackerSummary {
            knows: known
                .iter()
                .map(|&c| ds.col(c).name().to_string())
                .collect(),
            of: self.roles().attacker_visible().len(),
            hidden_cells: known
                .iter()
                .filter_map(|&c| self.hidden_of(c).map(|b| b.count_ones(..)))
                .sum(),
            threshold: self.threshold(),
        }
    }

    /// The hidden cells of column `c`: its sensitive cells when it is
    /// semi-sensitive.
    fn hidden_of(&self, c: usize) -> Option<&Arc<FixedBitSet>> {
        (self.roles().get(c) == Role::SemiSensitive)
            .then(|| self.cells[c].as_ref().map(|s| &s.bits))
            .flatten()
    }

    /// Whether a cell is marked sensitive (only semi-sensitive columns have
    /// sensitive cells).
    pub fn is_sensitive(&self, row: usize, col: usize) -> bool {
        self.hidden_of(col).is_some_and(|b| b.contains(row))
    }

    /// Sensitive cells per semi-sensitive column, in column order.
    pub fn sensitive_counts(&self) -> Vec<(usize, usize)> {
        self.roles()
            .with(Role::SemiSensitive)
            .into_iter()
            .map(|c| (c, self.cells[c].as_ref().map_or(0, |s| s.count)))
            .collect()
    }

    /// The cell-sensitivity spec of column `c` and how many cells it marks.
    pub fn cell_spec(&self, c: usize) -> (CellSensitivity, usize) {
        (
            self.session
                .sensitivity
                .get(&c)
                .cloned()
                .unwrap_or_default(),
            self.cells[c].as_ref().map_or(0, |s| s.count),
        )
    }

    /// The seed behind randomly drawn cell sensitivity, if a semi-sensitive
    /// column uses one (shown so the figures can be reproduced).
    pub fn density_seed(&self) -> Option<u64> {
        self.roles()
            .with(Role::SemiSensitive)
            .into_iter()
            .find_map(
                |c| match self.session.sensitivity.get(&c).map(|s| &s.source) {
                    Some(anonlab::data::SensitivitySource::Density { seed, .. }) => Some(*seed),
                    _ => None,
                },
            )
    }

    /// The attributes LGB protects by t-closeness, with their t, in column
    /// order.
    pub fn t_closeness(&self) -> Vec<(usize, f64)> {
        let ds = self.dataset();
        let mut out: Vec<(usize, f64)> = self
            .params()
            .t_closeness
            .iter()
            .filter_map(|(n, &t)| ds.column_index(n).ok().map(|c| (c, t)))
            .filter(|&(c, _)| t_closeness_candidate(self.roles().get(c)))
            .collect();
        out.sort_by_key(|&(c, _)| c);
        out
    }

    /// The session as a project file.
    pub fn to_project(&self) -> Project {
        self.session.to_project()
    }

    // ---- what a release reads ----

    /// What running `algorithm` at (k, l, p, seed) reads now.
    pub fn inputs(
        &self,
        algorithm: &'static str,
        k: u32,
        l: u32,
        p: u32,
        seed: u64,
    ) -> AnonymizeInputs {
        let g = self.generations;
        let needs = AlgorithmChoice::of(&self.session().registry, algorithm)
            .map(|a| a.needs)
            .unwrap_or_default();
        // Full-domain's l and p are its privacy model's, which says what
        // it reads.
        let model = match algorithm == FULL_DOMAIN {
            true => anonlab::privacy::Model::needs_of(&self.params().full_domain.model),
            false => None,
        }
        .unwrap_or_default();
        let reads_l = needs.l || model.l;
        let reads_p_now = needs.p || model.p;
        let lgb = needs.semi_sensitive;
        let hierarchies = needs.hierarchies.read();
        AnonymizeInputs {
            algorithm,
            k,
            l: reads_l.then_some(l),
            p: reads_p_now.then_some(p),
            seed,
            reads: Reads {
                roles: g.roles,
                cells: lgb.then_some(g.cells),
                hierarchies: hierarchies.then_some(g.hierarchies),
                settings: needs.settings.then_some(g.settings),
                attacker: g.attacker,
            },
        }
    }

    /// What the session's own parameters ask of `algorithm`.
    pub fn current_inputs(&self, algorithm: &'static str) -> AnonymizeInputs {
        let p = self.params();
        self.inputs(algorithm, p.k, p.l, p.p, p.seed)
    }

    /// Why `algorithm` cannot run with the current roles, hierarchies and
    /// settings, whatever k, l and p.
    pub fn blocked(&self, algorithm: &AlgorithmChoice) -> Option<String> {
        let roles = self.roles();
        // The library refuses these on a grouped table (`require_records`);
        // said here, before any run, with the way to get them.
        if self.dataset().is_grouped() && !algorithm.needs.grouped {
            let ds = self.dataset();
            return Some(format!(
                "{} is unavailable on this session: it reads every record, and the file was \
                 opened through its frequency table ({} records in {} combinations). Mondrian, \
                 its l-diverse variants and full-domain run on the table; for {} open the file \
                 in memory (anonlab tui FILE --engine memory).",
                algorithm.name,
                anonlab::format::thousands(ds.records()),
                anonlab::format::thousands(ds.n_rows() as u64),
                algorithm.id,
            ));
        }
        if roles.with(Role::QuasiIdentifier).is_empty() {
            return Some(
                "No quasi-identifier yet: on the Data screen (key 1), give the columns an \
                 attacker may know the QI role (key Q)."
                    .into(),
            );
        }
        if algorithm.needs.semi_sensitive {
            if roles.with(Role::Sensitive).is_empty() && roles.with(Role::SemiSensitive).is_empty()
            {
                return Some(format!(
                    "{} needs a sensitive or semi-sensitive attribute: on the Data screen (key 1), \
                     mark one sensitive (key s) or semi-sensitive (key S) and mark its cells (key m).",
                    algorithm.name
                ));
            }
            return None;
        }
        if algorithm.needs.sensitive && roles.with(Role::Sensitive).is_empty() {
            return Some(format!(
                "{} needs a sensitive attribute: on the Data screen (key 1), mark one \
                 sensitive (key s).",
                algorithm.name
            ));
        }
        if algorithm.needs.hierarchies == Use::Required {
            return hierarchies_blocked(algorithm.name, self.dataset(), roles, self.hierarchies());
        }
        if algorithm.needs.conditions == Use::Required && self.conditions().is_none() {
            return Some(
                "Construction(D, G) generalizes or deletes where its conditions hold: load a \
                 conditions file first (:conditions FILE, e.g. the G.json `anonlab correlate \
                 --conditions-out` writes)."
                    .into(),
            );
        }
        None
    }

    // ---- undo ----

    /// The state an undo would come back to.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            session: Arc::clone(&self.session),
            cells: self.cells.clone(),
            order: self.order.clone(),
            known: self.known.clone(),
            explicit_insensitive: self.explicit_insensitive.clone(),
            generations: self.generations,
        }
    }

    /// Come back to `to` (an undo or redo); returns the state left, for
    /// the way back. Each part gets the generation it had then: a release
    /// or baseline computed for that state is still good for it. The
    /// compare set stays as it is (see [`Snapshot`]); the session counter
    /// moves on, so every screen follows.
    pub fn restore(&mut self, to: Snapshot) -> Snapshot {
        let left = self.snapshot();
        let compare = self.session.compare.clone();
        self.session = to.session;
        if self.session.compare != compare {
            Arc::make_mut(&mut self.session).compare = compare;
        }
        self.cells = to.cells;
        self.order = to.order;
        self.known = to.known;
        self.explicit_insensitive = to.explicit_insensitive;
        let session = self.generations.session;
        self.generations = Generations {
            session,
            ..to.generations
        };
        self.bump(|g| &mut g.session);
        left
    }

    /// Sensitive cells of column `c` now.
    pub fn cell_count(&self, c: usize) -> usize {
        self.cells
            .get(c)
            .and_then(Option::as_ref)
            .map_or(0, |x| x.count)
    }
}

/// Whether a column of this role can be protected by t-closeness.
pub fn t_closeness_candidate(role: Role) -> bool {
    matches!(role, Role::Sensitive | Role::SemiSensitive)
}

/// Why an algorithm that requires hierarchies cannot run: the
/// quasi-identifiers without one, named, or `None` when every one has one.
pub fn hierarchies_blocked(
    name: &str,
    ds: &Dataset,
    roles: &Roles,
    held: &BTreeMap<String, HeldHierarchy>,
) -> Option<String> {
    let missing: Vec<&str> = roles
        .with(Role::QuasiIdentifier)
        .into_iter()
        .map(|c| ds.col(c).name())
        .filter(|n| !held.contains_key(*n))
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "{name} needs a hierarchy for every quasi-identifier; {} {} none: build (b) or import (i) {} on the Hierarchies screen (key 4).",
            missing.join(", "),
            if missing.len() == 1 { "has" } else { "have" },
            if missing.len() == 1 { "it" } else { "them" },
        )
    })
}

#[cfg(test)]
mod tests;
