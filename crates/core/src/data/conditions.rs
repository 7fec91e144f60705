//! The conditions of generalization G (the file G.json) that
//! Construction(D, G) applies (`algorithms::construction`) and the
//! correlation hierarchy writes (`hierarchy::correlated`): each condition a
//! predicate in the rule language of [`crate::data::Rule`] (`when`) and one
//! action on the rows it selects. This module is the file format only —
//! what the actions mean and how they combine is Construction's.
//!
//! ```json
//! { "conditions": [
//!     { "when": "height<150", "generalize": "height", "to": "<150" },
//!     { "when": "age>=30 and age<40", "generalize": "age", "interval": [30, 39] },
//!     { "generalize": "age", "level": 2 },
//!     { "when": "age>90 and zip=13053", "delete": "record" },
//!     { "when": "sex=Female", "delete": "cells", "columns": ["zip"] }
//! ] }
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The conditions of generalization G (the file G.json).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Conditions {
    pub conditions: Vec<Condition>,
    /// The correlation-hierarchy paper's last step of Algorithm 4's use
    /// ("we delete some records to fulfill the required conditions"): after
    /// the conditions, Construction deletes the records of every published
    /// class (equal published QI values) smaller than this k.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_below: Option<u32>,
}

/// One condition, as written in the file: `when` plus exactly one action
/// (`generalize` with one of `to` / `interval` / `level`, or `delete`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// The column to generalize.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generalize: Option<String>,
    /// Generalize to this label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Generalize to this numeric interval, both ends included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<[f64; 2]>,
    /// Generalize to this level of the column's hierarchy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<usize>,
    /// `record` or `cells`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete: Option<String>,
    /// The columns whose cells `delete: cells` removes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<String>>,
}

impl Condition {
    /// `when → generalize column to label`.
    pub fn generalize_to(when: Option<&str>, column: &str, label: &str) -> Self {
        Condition {
            when: when.map(str::to_string),
            generalize: Some(column.to_string()),
            to: Some(label.to_string()),
            ..Default::default()
        }
    }
    /// `when → generalize column to [lo, hi]`.
    pub fn generalize_interval(when: Option<&str>, column: &str, lo: f64, hi: f64) -> Self {
        Condition {
            when: when.map(str::to_string),
            generalize: Some(column.to_string()),
            interval: Some([lo, hi]),
            ..Default::default()
        }
    }
    /// `when → delete record`.
    pub fn delete_record(when: Option<&str>) -> Self {
        Condition {
            when: when.map(str::to_string),
            delete: Some("record".into()),
            ..Default::default()
        }
    }
}

impl Conditions {
    /// Read G.json.
    pub fn load(file: &Path) -> Result<Self> {
        let bytes = crate::data::input::read_text_file(file, "conditions file")?;
        serde_json::from_slice(&bytes).map_err(|e| {
            Error::input(
                file,
                Some(e.line() as u64),
                None,
                format!("not a conditions file ({e}); expected {{\"conditions\": [{{\"when\": RULE, \"generalize\": COLUMN, \"to\": LABEL}}, ...]}}"),
            )
        })
    }

    /// Write G.json through `data::output` (never over one of `inputs`).
    pub fn save(&self, file: &Path, inputs: &crate::data::Inputs) -> Result<()> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Internal(format!("conditions: {e}")))?;
        crate::data::write_bytes(file, inputs, text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_round_trip_through_the_file() {
        let c = Conditions {
            conditions: vec![
                Condition::generalize_to(Some("height<150"), "height", "<150"),
                Condition::generalize_interval(None, "age", 30.0, 39.0),
                Condition::delete_record(Some("age>90")),
            ],
            delete_below: Some(2),
        };
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("g.json");
        c.save(&f, &crate::data::Inputs::new()).unwrap();
        assert_eq!(Conditions::load(&f).unwrap(), c);
    }
}
