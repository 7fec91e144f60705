//! What each attribute is to an attacker and to the publisher.
//!
//! Five roles, as in DESIGN.md: identifiers are never published;
//! quasi-identifiers are what an attacker may know; sensitive attributes are
//! what must not be disclosed; semi-sensitive attributes are decided per
//! cell (a cell marked sensitive is a sensitive value, the others act as
//! quasi-identifier values — the LGB paper's model); insensitive attributes
//! are published as they are and play no part in the risk.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Dataset;
use crate::error::{Error, Parameter, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    Identifier,
    QuasiIdentifier,
    Sensitive,
    SemiSensitive,
    Insensitive,
}

impl Role {
    pub const ALL: [Role; 5] = [
        Role::Identifier,
        Role::QuasiIdentifier,
        Role::Sensitive,
        Role::SemiSensitive,
        Role::Insensitive,
    ];

    /// Short label for table headers and reports.
    pub fn label(self) -> &'static str {
        match self {
            Role::Identifier => "identifier",
            Role::QuasiIdentifier => "quasi-identifier",
            Role::Sensitive => "sensitive",
            Role::SemiSensitive => "semi-sensitive",
            Role::Insensitive => "insensitive",
        }
    }

    /// Two-letter tag for narrow places (column headers).
    pub fn tag(self) -> &'static str {
        match self {
            Role::Identifier => "ID",
            Role::QuasiIdentifier => "QI",
            Role::Sensitive => "S",
            Role::SemiSensitive => "SS",
            Role::Insensitive => "-",
        }
    }

    /// The next role in `ALL`, wrapping; for cycling with one key.
    pub fn next(self) -> Role {
        let i = Role::ALL.iter().position(|&r| r == self).unwrap_or(0);
        Role::ALL[(i + 1) % Role::ALL.len()]
    }

    /// Whether an attacker may know (some of) this attribute's cells.
    pub fn attacker_visible(self) -> bool {
        matches!(self, Role::QuasiIdentifier | Role::SemiSensitive)
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

impl std::str::FromStr for Role {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim().to_ascii_lowercase().replace('_', "-");
        Ok(match t.as_str() {
            "identifier" | "id" => Role::Identifier,
            "quasi-identifier" | "qi" => Role::QuasiIdentifier,
            "sensitive" | "s" => Role::Sensitive,
            "semi-sensitive" | "ss" => Role::SemiSensitive,
            "insensitive" | "-" => Role::Insensitive,
            _ => {
                return Err(Error::invalid(Parameter::Roles, format!(
                    "unknown role '{s}' (use identifier, quasi-identifier, sensitive, semi-sensitive or insensitive)"
                )))
            }
        })
    }
}

/// A role per column of a dataset, in column order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roles(Vec<Role>);

impl Roles {
    /// Every column insensitive.
    pub fn new(columns: usize) -> Self {
        Roles(vec![Role::Insensitive; columns])
    }

    /// From a name → role map; names not in the dataset are an error,
    /// columns not named are insensitive.
    pub fn from_map(ds: &Dataset, map: &BTreeMap<String, Role>) -> Result<Self> {
        let mut r = Roles::new(ds.n_cols());
        for (name, &role) in map {
            r.0[ds.column_index(name)?] = role;
        }
        Ok(r)
    }

    pub fn to_map(&self, ds: &Dataset) -> BTreeMap<String, Role> {
        ds.column_names()
            .into_iter()
            .zip(&self.0)
            .filter(|(_, &r)| r != Role::Insensitive)
            .map(|(n, &r)| (n.to_string(), r))
            .collect()
    }

    pub fn get(&self, column: usize) -> Role {
        self.0[column]
    }
    pub fn set(&mut self, column: usize, role: Role) {
        self.0[column] = role;
    }
    pub fn as_slice(&self) -> &[Role] {
        &self.0
    }
    /// Columns with the given role, in column order.
    pub fn with(&self, role: Role) -> Vec<usize> {
        (0..self.0.len()).filter(|&i| self.0[i] == role).collect()
    }
    /// Columns the attacker may know: quasi-identifiers and semi-sensitive
    /// ones, in column order.
    pub fn attacker_visible(&self) -> Vec<usize> {
        (0..self.0.len())
            .filter(|&i| self.0[i].attacker_visible())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_cycle() {
        assert_eq!("QI".parse::<Role>().unwrap(), Role::QuasiIdentifier);
        assert_eq!(
            "semi_sensitive".parse::<Role>().unwrap(),
            Role::SemiSensitive
        );
        assert!("boss".parse::<Role>().is_err());
        let mut r = Role::Identifier;
        for _ in 0..Role::ALL.len() {
            r = r.next();
        }
        assert_eq!(r, Role::Identifier);
        assert_eq!(
            serde_json::to_string(&Role::QuasiIdentifier).unwrap(),
            "\"quasi-identifier\""
        );
    }

    #[test]
    fn map_round_trip() {
        let ds = Dataset::from_rows(&["a", "b", "c"], &[vec!["1", "2", "3"]]).unwrap();
        let mut m = BTreeMap::new();
        m.insert("b".to_string(), Role::QuasiIdentifier);
        m.insert("c".to_string(), Role::Sensitive);
        let r = Roles::from_map(&ds, &m).unwrap();
        assert_eq!(r.with(Role::QuasiIdentifier), vec![1]);
        assert_eq!(r.to_map(&ds), m);
        m.insert("zz".into(), Role::Sensitive);
        assert!(Roles::from_map(&ds, &m).is_err());
    }
}
