//! One assessment of a session: the attack simulation plus the privacy
//! models of every sensitive attribute, in the shape the CLI prints as JSON
//! and the TUI draws.
//!
//! The models are evaluated on the classes the attacker sees (records
//! grouped by their published known attributes), so "k" here and in the
//! risk summary are the same number.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::data::Role;
use crate::error::Result;
use crate::privacy::{self, ModelReport};
use crate::progress::Progress;
use crate::risk::{self, CdfPoint, HistogramBin, Knowledge, PrefixRow, RiskSummary, Simulation};
use crate::session::Session;

/// Risk figures as printed by `anonlab assess --json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RiskFigures {
    pub mean: f64,
    pub max: f64,
    pub threshold: f64,
    pub records_above_threshold: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AssessReport {
    pub file: String,
    pub rows: usize,
    pub quasi_identifiers: Vec<String>,
    pub semi_sensitive: Vec<String>,
    /// The attacker's attributes, in the order of the prefix table.
    pub attacker_knows: Vec<String>,
    pub hidden_cells: usize,
    pub classes: usize,
    pub k: u32,
    pub uniques: usize,
    pub risk: RiskFigures,
    pub histogram: Vec<HistogramBin>,
    pub cdf: Vec<CdfPoint>,
    pub prefix: Vec<PrefixRow>,
    pub models: BTreeMap<String, ModelReport>,
}

/// The report plus what the TUI needs beyond it (per-record figures).
#[derive(Debug, Clone)]
pub struct Assessment {
    pub report: AssessReport,
    pub simulation: Simulation,
}

pub fn assess(session: &Session, progress: &Progress) -> Result<Assessment> {
    let ds = &session.dataset;
    let known = session.known_columns()?;
    let hidden = session.hidden_cells(&known)?;
    let hidden_refs: Vec<_> = hidden.iter().map(Option::as_ref).collect();
    let simulation = risk::simulate(
        ds,
        Knowledge {
            columns: &known,
            hidden: &hidden_refs,
        },
        session.attacker.threshold,
        progress,
    )?;
    progress.check()?;
    let sensitive: Vec<_> = session
        .roles
        .with(Role::Sensitive)
        .into_iter()
        .map(|c| ds.col(c))
        .collect();
    let models = privacy::evaluate_all(&simulation.classes, &sensitive)
        .into_iter()
        .map(|m| (m.attribute.clone(), m))
        .collect();
    let names = |cols: Vec<usize>| -> Vec<String> {
        cols.into_iter()
            .map(|c| ds.col(c).name().to_string())
            .collect()
    };
    let RiskSummary {
        classes,
        k,
        uniques,
        mean,
        max,
        threshold,
        records_above_threshold,
        ..
    } = simulation.summary.clone();
    let report = AssessReport {
        file: session.label(),
        rows: ds.n_rows(),
        quasi_identifiers: names(session.roles.with(Role::QuasiIdentifier)),
        semi_sensitive: names(session.roles.with(Role::SemiSensitive)),
        attacker_knows: simulation.attributes.clone(),
        hidden_cells: simulation.hidden_cells,
        classes,
        k,
        uniques,
        risk: RiskFigures {
            mean,
            max,
            threshold,
            records_above_threshold,
        },
        histogram: simulation.histogram.clone(),
        cdf: simulation.cdf.clone(),
        prefix: simulation.prefix.clone(),
        models,
    };
    Ok(Assessment { report, simulation })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_assessment_is_consistent() {
        let s = Session::demo().unwrap();
        let a = assess(&s, &Progress::new()).unwrap();
        let r = &a.report;
        assert_eq!(r.rows, s.dataset.n_rows());
        assert_eq!(r.attacker_knows.len(), 4);
        assert!(r.hidden_cells > 0);
        assert!(r.models.contains_key("disease"));
        assert_eq!(r.models["disease"].k, r.k);
        assert_eq!(r.prefix.len(), 4);
        let json = serde_json::to_value(r).unwrap();
        for f in [
            "rows",
            "quasi_identifiers",
            "classes",
            "k",
            "uniques",
            "risk",
            "histogram",
            "prefix",
            "models",
        ] {
            assert!(json.get(f).is_some(), "missing {f}");
        }
    }
}
