//! The roles a front end gives a session's columns, by name: one
//! [`RoleSpec`] that every command and the TUI build from their own flags
//! or keys and [`Session::apply_roles`] applies, so that a column given
//! two roles, an unknown column or a rule marking nobody's cells is
//! refused by the same code, with the same words, wherever it is given.

use crate::data::{CellSensitivity, Role, Roles, Rule, SensitivitySource};
use crate::error::{Error, Parameter, Result, Setting};

use super::{check_known, Session};

/// Column roles by name, as a front end gives them.
///
/// Empty role lists (`identifiers`, `quasi_identifiers`, `sensitive`,
/// `semi_sensitive` all empty) keep the roles the session has (a
/// project's, the demo's); any role given replaces them all, and with
/// them the session's sensitive cells, as flags replace a project's roles.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoleSpec {
    /// Never published.
    pub identifiers: Vec<String>,
    /// In the order the attacker learns them (the prefix table's order).
    pub quasi_identifiers: Vec<String>,
    pub sensitive: Vec<String>,
    /// Some cells sensitive (given by `cells`), the others quasi-identifying.
    pub semi_sensitive: Vec<String>,
    /// Which cells of the semi-sensitive attributes are sensitive.
    pub cells: Vec<Cells>,
    /// What the attacker knows, in order; empty: the quasi-identifiers
    /// then the semi-sensitive attributes when roles are given, else the
    /// session's attacker.
    pub attacker_knows: Vec<String>,
    /// Other columns the session reads (a population's weights): a
    /// frequency table must group them too ([`RoleSpec::grouped_columns`]).
    pub also_read: Vec<String>,
}

/// One source of sensitive cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Cells {
    /// The semi-sensitive attribute whose cells `source` marks. `None`:
    /// for a rule, the semi-sensitive attributes it names (or the only
    /// one); for a flag column or a density, every semi-sensitive
    /// attribute that no other source marks.
    pub column: Option<String>,
    pub source: SensitivitySource,
}

impl Cells {
    /// The cells of `column` marked by `source`.
    pub fn of(column: impl Into<String>, source: SensitivitySource) -> Self {
        Cells {
            column: Some(column.into()),
            source,
        }
    }

    /// Whether the source marks attributes no other source marks (applied
    /// after the targeted ones, so their order does not matter).
    fn fills_in(&self) -> bool {
        self.column.is_none() && !matches!(self.source, SensitivitySource::Rule { .. })
    }
}

/// A column named for two roles: the message is the same from flags,
/// project files and the TUI.
fn two_roles(name: &str, first: Role, second: Role) -> Error {
    Error::invalid(
        Parameter::Roles,
        if first == second {
            // The words a request uses for it (`Request::check`).
            format!("column '{name}' is named twice as a {first}")
        } else {
            format!("column '{name}' is given two roles ({first} and {second})")
        },
    )
}

impl RoleSpec {
    /// Whether any role is given (else the session's roles are kept).
    pub fn gives_roles(&self) -> bool {
        !(self.identifiers.is_empty()
            && self.quasi_identifiers.is_empty()
            && self.sensitive.is_empty()
            && self.semi_sensitive.is_empty())
    }

    /// The role lists, in the order a conflict is told (the first role a
    /// column is given, then the second).
    fn by_role(&self) -> [(&[String], Role); 4] {
        [
            (&self.identifiers, Role::Identifier),
            (&self.quasi_identifiers, Role::QuasiIdentifier),
            (&self.sensitive, Role::Sensitive),
            (&self.semi_sensitive, Role::SemiSensitive),
        ]
    }

    /// Refuse a column named for two roles, by names alone: a front end
    /// can say so before it reads the file (and takes the terminal).
    pub fn check(&self) -> Result<()> {
        let given = self.by_role();
        for (i, (names, role)) in given.iter().enumerate() {
            for name in names.iter() {
                if let Some((_, other)) = given[i + 1..].iter().find(|(n, _)| n.contains(name)) {
                    return Err(two_roles(name, *role, *other));
                }
            }
        }
        Ok(())
    }

    /// The columns a frequency table of the file must group for this
    /// spec: every role's but the identifiers' (a column unique per
    /// record would make the table as large as the file; they are checked
    /// against the file and left out), the attacker's, the columns the
    /// cells' sources read, and `also_read`; each once, in that order.
    pub fn grouped_columns(&self) -> Result<Vec<String>> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |name: &str| {
            if !out.iter().any(|o| o == name) {
                out.push(name.to_string());
            }
        };
        for name in self
            .quasi_identifiers
            .iter()
            .chain(&self.sensitive)
            .chain(&self.semi_sensitive)
            .chain(&self.attacker_knows)
        {
            add(name);
        }
        // Flag columns before the rules' columns: the order the engine
        // sessions of `assess` always grouped them in.
        for cells in &self.cells {
            if let SensitivitySource::FlagColumn { column } = &cells.source {
                if let Some(c) = &cells.column {
                    add(c);
                }
                add(column);
            }
        }
        for cells in &self.cells {
            if let SensitivitySource::Rule { rule } = &cells.source {
                for c in Rule::parse(rule)?.columns() {
                    add(c);
                }
            }
        }
        for name in &self.also_read {
            add(name);
        }
        Ok(out)
    }
}

impl Session {
    /// Apply `spec`: the roles (when it gives any, replacing the session's
    /// roles and sensitive cells, the attacker then learning the
    /// quasi-identifiers in the order given and the semi-sensitive
    /// attributes after them), the attacker's attributes, and the sources
    /// of sensitive cells, each resolved once so that a bad one is refused
    /// before any work. An unknown column, a column given two roles, an
    /// attacker knowing what no attacker can, and a source whose
    /// attribute is not semi-sensitive are refused, naming the column. A
    /// flag column marking cells that is given no role becomes an
    /// identifier ([`Session::hide_flag_columns`]).
    ///
    /// Over a frequency table (`Dataset::is_grouped`) identifiers that are
    /// not columns of the table are skipped: they were checked against
    /// the file when it was opened and are left out of the table
    /// ([`Session::identifiers_outside`]).
    pub fn apply_roles(&mut self, spec: &RoleSpec) -> Result<()> {
        if spec.gives_roles() {
            let ds = &self.dataset;
            let mut roles = Roles::new(ds.n_cols());
            for (names, role) in spec.by_role() {
                for name in names {
                    if role == Role::Identifier && ds.is_grouped() && ds.column_index(name).is_err()
                    {
                        continue;
                    }
                    let c = ds.column_index(name)?;
                    if roles.get(c) != Role::Insensitive {
                        return Err(two_roles(name, roles.get(c), role));
                    }
                    roles.set(c, role);
                }
            }
            self.roles = roles;
            self.sensitivity.clear();
            self.attacker.known = spec
                .quasi_identifiers
                .iter()
                .chain(&spec.semi_sensitive)
                .cloned()
                .collect();
        }
        if !spec.attacker_knows.is_empty() {
            check_known(&self.dataset, &self.roles, &spec.attacker_knows)?;
            self.attacker.known = spec.attacker_knows.clone();
        }
        self.apply_cells(&spec.cells)
    }

    /// The sources of sensitive cells: the targeted ones first (a rule's
    /// attributes, a named attribute), then those that fill in every
    /// semi-sensitive attribute still without a source.
    fn apply_cells(&mut self, cells: &[Cells]) -> Result<()> {
        if cells.is_empty() {
            return Ok(());
        }
        let semi = self.roles.with(Role::SemiSensitive);
        if semi.is_empty() {
            return Err(Error::unmet(
                "marking sensitive cells needs a semi-sensitive attribute",
                Setting::SemiSensitiveAttribute,
            ));
        }
        // Rules read the file's values, as `Session::sensitive_cells` does.
        let ds = self.original().clone();
        let targeted = cells.iter().filter(|c| !c.fills_in());
        for cells in targeted {
            let targets = match (&cells.column, &cells.source) {
                (Some(name), source) => {
                    let c = ds.column_index(name)?;
                    if let SensitivitySource::FlagColumn { column } = source {
                        ds.column_index(column)?;
                    }
                    if let SensitivitySource::Rule { rule } = source {
                        Rule::parse(rule)?.compile(&ds)?;
                    }
                    if !semi.contains(&c) {
                        return Err(Error::invalid(
                            Parameter::SensitiveCells,
                            format!("'{name}' is not semi-sensitive: only the cells of a semi-sensitive attribute are marked sensitive"),
                        ));
                    }
                    vec![c]
                }
                (None, SensitivitySource::Rule { rule }) => {
                    let parsed = Rule::parse(rule)?;
                    // Compiled now so that a typo is told before any work.
                    parsed.compile(&ds)?;
                    let named: Vec<usize> = semi
                        .iter()
                        .copied()
                        .filter(|&c| parsed.columns().contains(&ds.col(c).name()))
                        .collect();
                    match (named.is_empty(), semi.len()) {
                        (false, _) => named,
                        (true, 1) => semi.clone(),
                        (true, _) => {
                            return Err(Error::invalid(
                                Parameter::SensitiveCells,
                                format!("the rule '{rule}' names none of the semi-sensitive attributes, so it is unclear whose cells it marks"),
                            ))
                        }
                    }
                }
                (None, _) => unreachable!("filtered out: fills in"),
            };
            for c in targets {
                if self.sensitivity.contains_key(&c) {
                    return Err(Error::invalid(
                        Parameter::SensitiveCells,
                        format!("two sources of sensitive cells for '{}'", ds.col(c).name()),
                    ));
                }
                self.sensitivity
                    .insert(c, CellSensitivity::new(cells.source.clone()));
            }
        }
        for cells in cells.iter().filter(|c| c.fills_in()) {
            if let SensitivitySource::FlagColumn { column } = &cells.source {
                ds.column_index(column)?;
            }
            for &c in &semi {
                self.sensitivity
                    .entry(c)
                    .or_insert_with(|| CellSensitivity::new(cells.source.clone()));
            }
        }
        // Resolved once now, so that a bad source (a flag column of other
        // values) is told before the work starts.
        for &c in self.sensitivity.keys() {
            self.sensitive_cells(c)?;
        }
        // A flag column given no role is not published, as a project
        // hides it: it says who considers a value sensitive.
        self.hide_flag_columns(&std::collections::BTreeMap::new());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{CsvOptions, Dataset};

    fn session() -> Session {
        let ds = Dataset::from_rows(
            &["name", "age", "zip", "job", "flag", "disease"],
            &[
                vec!["a", "30", "1000", "x", "1", "flu"],
                vec!["b", "61", "1001", "y", "0", "cold"],
                vec!["c", "45", "1000", "x", "0", "flu"],
            ],
        )
        .unwrap();
        Session::new(ds, None, CsvOptions::default())
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn spec() -> RoleSpec {
        RoleSpec {
            identifiers: names(&["name"]),
            quasi_identifiers: names(&["zip", "age"]),
            sensitive: names(&["disease"]),
            semi_sensitive: names(&["job"]),
            ..RoleSpec::default()
        }
    }

    #[test]
    fn roles_and_the_attackers_order_are_applied() {
        let mut s = session();
        s.apply_roles(&spec()).unwrap();
        let col = |n| s.dataset.column_index(n).unwrap();
        assert_eq!(s.roles.get(col("name")), Role::Identifier);
        assert_eq!(s.roles.get(col("age")), Role::QuasiIdentifier);
        assert_eq!(s.roles.get(col("job")), Role::SemiSensitive);
        assert_eq!(s.roles.get(col("disease")), Role::Sensitive);
        assert_eq!(s.roles.get(col("flag")), Role::Insensitive);
        assert_eq!(s.attacker.known, names(&["zip", "age", "job"]));
        // No role given: the session's roles stay.
        let before = s.roles.clone();
        s.apply_roles(&RoleSpec::default()).unwrap();
        assert_eq!(s.roles, before);
    }

    #[test]
    fn a_column_in_two_roles_is_refused_naming_it() {
        let mut both = spec();
        both.sensitive.push("age".into());
        let e = both.check().unwrap_err();
        assert_eq!(e.parameter(), Some(Parameter::Roles));
        assert!(
            e.to_string()
                .contains("column 'age' is given two roles (quasi-identifier and sensitive)"),
            "{e}"
        );
        let mut s = session();
        let e = s.apply_roles(&both).unwrap_err().to_string();
        assert!(e.contains("column 'age' is given two roles"), "{e}");
        // Named twice for one role: said so.
        let mut twice = spec();
        twice.quasi_identifiers.push("zip".into());
        let e = session().apply_roles(&twice).unwrap_err().to_string();
        assert!(
            e.contains("column 'zip' is named twice as a quasi-identifier"),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_column_is_refused_naming_it() {
        let mut typo = spec();
        typo.quasi_identifiers.push("agee".into());
        let e = session().apply_roles(&typo).unwrap_err();
        assert!(
            matches!(&e, Error::UnknownColumn { name, .. } if name == "agee"),
            "{e}"
        );
        let mut known = spec();
        known.attacker_knows = names(&["disease"]);
        let e = session().apply_roles(&known).unwrap_err().to_string();
        assert!(e.contains("'disease'"), "{e}");
    }

    #[test]
    fn cells_are_marked_by_rule_flag_and_density() {
        let mut with_cells = spec();
        with_cells.semi_sensitive = names(&["job"]);
        with_cells.cells = vec![Cells {
            column: None,
            source: SensitivitySource::Rule {
                rule: "age>=60".into(),
            },
        }];
        let mut s = session();
        s.apply_roles(&with_cells).unwrap();
        let job = s.dataset.column_index("job").unwrap();
        // The rule names no semi-sensitive attribute; job is the only one.
        assert_eq!(
            s.sensitive_cells(job).unwrap().ones().collect::<Vec<_>>(),
            [1]
        );
        // A density fills in after a targeted source: no conflict.
        with_cells.cells.insert(
            0,
            Cells {
                column: None,
                source: SensitivitySource::Density {
                    density: 0.5,
                    seed: 1,
                },
            },
        );
        let mut s = session();
        s.apply_roles(&with_cells).unwrap();
        assert!(matches!(
            s.sensitivity[&job].source,
            SensitivitySource::Rule { .. }
        ));
        // Two targeted sources for one attribute are refused.
        with_cells.cells.push(Cells::of(
            "job",
            SensitivitySource::FlagColumn {
                column: "flag".into(),
            },
        ));
        let e = session().apply_roles(&with_cells).unwrap_err().to_string();
        assert!(
            e.contains("two sources of sensitive cells for 'job'"),
            "{e}"
        );
        // Cells of an attribute that is not semi-sensitive are refused.
        let mut wrong = spec();
        wrong.cells = vec![Cells::of(
            "age",
            SensitivitySource::FlagColumn {
                column: "flag".into(),
            },
        )];
        let e = session().apply_roles(&wrong).unwrap_err().to_string();
        assert!(e.contains("'age' is not semi-sensitive"), "{e}");
        // And cells with no semi-sensitive attribute at all.
        let mut none = spec();
        none.semi_sensitive.clear();
        none.cells = wrong.cells.clone();
        let e = session().apply_roles(&none).unwrap_err();
        assert_eq!(e.setting(), Some(Setting::SemiSensitiveAttribute));
    }

    #[test]
    fn the_grouped_columns_leave_identifiers_out() {
        let mut s = spec();
        s.attacker_knows = names(&["age"]);
        s.cells = vec![
            Cells {
                column: None,
                source: SensitivitySource::Rule {
                    rule: "disease=flu".into(),
                },
            },
            Cells::of(
                "job",
                SensitivitySource::FlagColumn {
                    column: "flag".into(),
                },
            ),
        ];
        s.also_read = names(&["w"]);
        assert_eq!(
            s.grouped_columns().unwrap(),
            names(&["zip", "age", "disease", "job", "flag", "w"])
        );
    }
}
