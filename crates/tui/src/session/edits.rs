//! The session's edits: every change of roles, cells, attacker knowledge,
//! parameters, hierarchies, conditions and the compare set goes through
//! these methods, so each bumps the generation of the part it changes and
//! the baseline and releases that read that part know to run again.

use std::path::PathBuf;
use std::sync::Arc;

use fixedbitset::FixedBitSet;

use super::{t_closeness_candidate, Cells, Generations, SessionState};
use anonlab::data::Conditions;
use anonlab::data::{CellSensitivity, CompareEntry, Params, Role};
use anonlab::session::{HeldHierarchy, Session};

impl SessionState {
    pub(super) fn edit(&mut self) -> &mut Session {
        self.bump(|g| &mut g.session);
        Arc::make_mut(&mut self.session)
    }

    /// A new generation for one part: one more than any it ever had.
    pub(super) fn bump(&mut self, part: fn(&mut Generations) -> &mut u64) {
        let next = *part(&mut self.high) + 1;
        *part(&mut self.high) = next;
        *part(&mut self.generations) = next;
    }

    /// Give column `c` a role. A flag column newly used by a sensitivity
    /// source stays hidden (see `Session::hide_flag_columns`). Returns a
    /// notice when the change needs one.
    pub fn set_role(&mut self, c: usize, role: Role) -> Option<String> {
        let was = self.roles().get(c);
        if was == role {
            return None;
        }
        self.explicit_insensitive.retain(|&x| x != c);
        if role == Role::Insensitive {
            self.explicit_insensitive.push(c);
        }
        let s = self.edit();
        s.roles.set(c, role);
        // Protecting an attribute by t-closeness needs it sensitive.
        if !t_closeness_candidate(role) {
            let name = s.dataset.col(c).name().to_string();
            if s.params.t_closeness.remove(&name).is_some() {
                self.bump(|g| &mut g.settings);
            }
        }
        self.bump(|g| &mut g.roles);
        self.ensure_semi_cells();
        let first = self.known_columns();
        self.sync_attacker(&first);
        // Identifier and insensitive columns are invisible to the
        // attacker and the breach: a change between them keeps the
        // baseline.
        let seen = |r: Role| {
            matches!(
                r,
                Role::QuasiIdentifier | Role::SemiSensitive | Role::Sensitive
            )
        };
        if seen(was) || seen(role) {
            self.bump(|g| &mut g.attacker);
        }
        let hidden = self.hide_new_flag_columns();
        hidden.map(|n| format!("'{n}' marks sensitive cells: it is not published (role identifier; key p publishes it)"))
    }

    /// Flip one cell's sensitivity; the column must be semi-sensitive.
    pub fn toggle_cell(&mut self, c: usize, row: usize) {
        let s = self.edit();
        s.sensitivity.entry(c).or_default().toggle(row as u32);
        if let Some(cells) = self.cells[c].as_mut() {
            let bits = Arc::make_mut(&mut cells.bits);
            bits.toggle(row);
            cells.count = bits.count_ones(..);
        }
        self.cells_changed();
    }

    /// Mark column `c`'s sensitive cells by `spec`; the number marked, or
    /// why the data refuse the spec.
    /// A notice comes with it when a flag column was hidden for it.
    pub fn set_cells(
        &mut self,
        c: usize,
        spec: CellSensitivity,
    ) -> Result<(usize, Option<String>), String> {
        let ds = Arc::clone(self.dataset());
        let bits = spec
            .resolve(&ds, ds.col(c).name())
            .map_err(|e| e.to_string())?;
        let cells = Cells::new(bits);
        let count = cells.count;
        self.cells[c] = Some(cells);
        self.edit().sensitivity.insert(c, spec);
        self.cells_changed();
        let hidden = self.hide_new_flag_columns().map(|n| {
            format!("'{n}' marks sensitive cells: it is not published (role identifier; key p publishes it)")
        });
        Ok((count, hidden))
    }

    pub(super) fn cells_changed(&mut self) {
        self.bump(|g| &mut g.cells);
    }

    /// A flag column the cells now come from, insensitive by default, is
    /// not published; its name when one was hidden so.
    pub(super) fn hide_new_flag_columns(&mut self) -> Option<String> {
        let flags: Vec<usize> = self
            .session
            .flag_columns()
            .into_iter()
            .filter(|&c| self.roles().get(c) == Role::Insensitive)
            .filter(|c| !self.explicit_insensitive.contains(c))
            .collect();
        let first = flags.first().copied()?;
        let name = self.dataset().col(first).name().to_string();
        let s = self.edit();
        for c in flags {
            s.roles.set(c, Role::Identifier);
        }
        self.bump(|g| &mut g.roles);
        Some(name)
    }

    /// Toggle whether the attacker knows column `c`.
    pub fn toggle_known(&mut self, c: usize) {
        if c < self.known.len() {
            self.known[c] = !self.known[c];
            self.attacker_changed();
        }
    }

    /// The attacker knows every attribute of the picker, or (when they
    /// already do) none.
    pub fn toggle_all_known(&mut self) {
        let all = self.order.iter().all(|&c| self.known[c]);
        for &c in &self.order {
            self.known[c] = !all;
        }
        if !self.order.is_empty() {
            self.attacker_changed();
        }
    }

    /// Swap the picker's attributes at `i` and `j`.
    pub fn swap_order(&mut self, i: usize, j: usize) {
        if i < self.order.len() && j < self.order.len() {
            self.order.swap(i, j);
            self.attacker_changed();
        }
    }

    /// Set the risk threshold: only [`Generations::session`] moves (see
    /// [`Generations::attacker`]).
    pub fn set_threshold(&mut self, t: f64) {
        self.edit().attacker.threshold = t;
    }

    /// The attacker's known attributes by name as a project holds them, and
    /// whether the attacker knows nothing: an empty list means "every
    /// attribute" in a project, so knowing nothing is said explicitly.
    fn known_in_project(&self) -> (Vec<String>, bool) {
        let known: Vec<String> = self
            .known_columns()
            .into_iter()
            .map(|c| self.dataset().col(c).name().to_string())
            .collect();
        let nothing = known.is_empty() && !self.order.is_empty();
        (known, nothing)
    }

    pub(super) fn attacker_changed(&mut self) {
        let (known, nothing) = self.known_in_project();
        let a = &mut self.edit().attacker;
        a.known = known;
        a.knows_nothing = nothing;
        self.bump(|g| &mut g.attacker);
    }

    /// The statistics offices' measures the baseline computes (population,
    /// sampling weights, special uniques, attribute risks), saved in the
    /// project.
    pub fn population(&self) -> &anonlab::data::PopulationSettings {
        &self.session.attacker.population
    }

    /// Change those measures: the baseline is the attacker's assessment,
    /// so it moves with them ([`Generations::attacker`]).
    pub fn set_population(&mut self, p: anonlab::data::PopulationSettings) {
        if self.session.attacker.population != p {
            self.edit().attacker.population = p;
            self.generations.attacker += 1;
        }
    }

    /// Change the release parameters (k, l, p, seed, the algorithm).
    pub fn params_mut(&mut self) -> &mut Params {
        &mut self.edit().params
    }

    /// Change the release settings (t-closeness, full-domain's settings, c,
    /// t): what every release that reads them must follow.
    pub fn settings_mut(&mut self) -> &mut Params {
        self.bump(|g| &mut g.settings);
        &mut self.edit().params
    }

    /// Read Construction's conditions file and keep it with the session.
    pub fn load_conditions(&mut self, path: PathBuf) -> anonlab::Result<usize> {
        let conditions = Conditions::load(&path)?;
        let n = conditions.conditions.len();
        let s = self.edit();
        s.conditions = Some(conditions);
        s.params.conditions = Some(path);
        self.bump(|g| &mut g.settings);
        Ok(n)
    }

    /// Hold `hierarchy` for `name` (`None`: drop it).
    pub fn set_hierarchy(&mut self, name: &str, hierarchy: Option<HeldHierarchy>) {
        let s = self.edit();
        match hierarchy {
            Some(h) => {
                s.hierarchies.insert(name.to_string(), h);
            }
            None => {
                s.hierarchies.remove(name);
            }
        }
        self.bump(|g| &mut g.hierarchies);
    }

    /// The compare set as the Compare screen holds it.
    pub fn set_compare_set(&mut self, entries: Vec<CompareEntry>) {
        if self.session.compare != entries {
            self.edit().compare = entries;
        }
    }

    /// Every semi-sensitive column gets a (possibly empty) cell set.
    pub(super) fn ensure_semi_cells(&mut self) {
        let n = self.dataset().n_rows();
        for c in self.roles().with(Role::SemiSensitive) {
            if self.cells[c].is_none() {
                self.cells[c] = Some(Cells::new(FixedBitSet::with_capacity(n)));
            }
        }
    }

    /// Make the picker list the attacker-visible columns: keep the current
    /// order, drop columns that stopped being visible, and append new ones
    /// as known. `first` (from a project) puts those columns first, known,
    /// and the other visible ones after them, unknown.
    pub(super) fn sync_attacker(&mut self, first: &[usize]) {
        let visible = self.roles().attacker_visible();
        if !first.is_empty() && self.order.is_empty() {
            self.order = first.to_vec();
            for &c in first {
                self.known[c] = true;
            }
            for &c in &visible {
                if !self.order.contains(&c) {
                    self.order.push(c);
                }
            }
        }
        self.order.retain(|c| visible.contains(c));
        for &c in &visible {
            if !self.order.contains(&c) {
                self.order.push(c);
                self.known[c] = true;
            }
        }
        for c in 0..self.known.len() {
            if !visible.contains(&c) {
                self.known[c] = false;
            }
        }
        let (known, nothing) = self.known_in_project();
        if self.session.attacker.known != known || self.session.attacker.knows_nothing != nothing {
            let a = &mut Arc::make_mut(&mut self.session).attacker;
            a.known = known;
            a.knows_nothing = nothing;
        }
    }
}
