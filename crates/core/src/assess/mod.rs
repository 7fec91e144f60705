//! One assessment of a session: the attack simulation, the session's
//! **baseline** and the privacy models of every sensitive attribute, in the
//! shape the CLI prints as JSON and the TUI draws.
//!
//! The baseline is the original table published as is, attacked by the
//! session's attacker (known attributes, hidden cells): the key count, the
//! linkage attack and the breach probability of the first sensitive
//! attribute. It is what "before" means on every screen, chart and report
//! and in `anonlab assess`; they all read it from here ([`assess_with`]),
//! labelled with its attacker ([`AttackerSummary`]'s `Display`).
//!
//! The models are evaluated on the classes the attacker sees (records
//! grouped by their published known attributes), so "k" here and in the
//! risk summary are the same number.

mod after;
mod sample;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::anonymize::{AttributeBreach, Distribution};
use crate::data::{Dataset, Role, Roles};
use crate::error::Result;
use crate::privacy::{self, ModelReport};
use crate::progress::Progress;
use crate::risk::{
    self, CdfPoint, HistogramBin, OriginalMatches, PrefixRow, ProbabilityRuns, RiskSummary,
    Simulation,
};
use crate::session::{Attacker, AttackerSummary, Session};

pub use after::{After, AfterAttacker};
pub use sample::{DeltaPresence, IndividualRiskReport, PopulationReport, SampleRisks};

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
    /// The session's baseline: what "before" means everywhere.
    pub baseline: Baseline,
    /// The statistics offices' measures (`sample`), each present when the
    /// session's population settings ask for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub population: Option<PopulationReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub individual_risk: Option<IndividualRiskReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suda: Option<crate::risk::suda::SudaReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute_risks: Option<Vec<crate::risk::attributes::AttributeRisk>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub household_risk: Option<crate::risk::household::HouseholdReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risky_cells: Option<crate::risk::risky_cells::RiskyCellsReport>,
}

/// The original table published as is, attacked by one attacker: the
/// "before" of every surface (see the module doc).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Baseline {
    /// Whose figures these are.
    pub attacker: AttackerSummary,
    /// The key-count simulator: Pr(re-id) = 1 / records sharing the known
    /// values (hidden cells as wildcards).
    pub key_count: Distribution,
    /// The linkage attack on the original table, hidden cells honoured
    /// (`risk::original_matches`); on the original table it agrees with
    /// the key count record by record.
    pub linkage: Distribution,
    /// Breach probability of the first sensitive attribute over the
    /// records matching each record.
    pub breach: Option<AttributeBreach>,
}

/// The report plus what the TUI needs beyond it (per-record figures).
#[derive(Debug, Clone)]
pub struct Assessment {
    pub report: AssessReport,
    pub simulation: Simulation,
    /// Per-record figures of the statistics offices' measures.
    pub sample: SampleRisks,
}

/// Assess a session for its attacker ([`Session::attacker`]).
///
/// On the file's data as read ([`Session::original`]): "before" is the
/// file published as is, recodings (top and bottom codes, rounding) not
/// yet applied.
pub fn assess(session: &Session, progress: &Progress) -> Result<Assessment> {
    assess_with(
        session.original(),
        session.label(),
        &session.roles,
        &session.attacker()?,
        progress,
    )
}

/// Assess `ds` with `roles` for `attacker`; `file` names the data in the
/// report. The TUI calls this with its session state, the CLI and the
/// report through [`assess`]: one function, so one figure.
pub fn assess_with(
    ds: &Dataset,
    file: String,
    roles: &Roles,
    attacker: &Attacker,
    progress: &Progress,
) -> Result<Assessment> {
    let hidden = attacker.hidden_refs();
    let knowledge = attacker.knowledge(&hidden);
    let sensitive_column = roles.with(Role::Sensitive).first().copied();
    // The simulator, the linkage attack and the walk over attribute
    // combinations (SUDA2, attribute risks) read the same table and not
    // each other: side by side on the cores rayon has.
    let ((simulation, original), lattice) = rayon::join(
        || {
            rayon::join(
                || risk::simulate(ds, knowledge, attacker.threshold, progress),
                || risk::original_matches(ds, knowledge, sensitive_column, progress),
            )
        },
        || sample::lattice_walk(ds, attacker, progress),
    );
    let (simulation, original, lattice) = (simulation?, original?, lattice?);
    progress.check()?;
    // Records (a grouped table's rows stand for several each).
    let n = ds.records() as usize;
    // The summaries of the three attacks and the sample's models read
    // what the attacks found and not each other: side by side too (on
    // 10 M records the baseline's distributions and the models' class
    // counts were a second of one core after the attacks).
    let ((baseline, models), sample) = rayon::join(
        || {
            rayon::join(
                || baseline_of(ds, attacker, &simulation, &original, sensitive_column),
                || {
                    let sensitive: Vec<_> = roles
                        .with(Role::Sensitive)
                        .into_iter()
                        .map(|c| ds.col(c))
                        .collect();
                    privacy::evaluate_all(&simulation.classes, &sensitive)
                        .into_iter()
                        .map(|m| (m.attribute.clone(), m))
                        .collect::<BTreeMap<_, _>>()
                },
            )
        },
        || sample::sample_risks(ds, &file, attacker, &simulation, lattice, progress),
    );
    let sample = sample?;
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
        file,
        rows: n,
        quasi_identifiers: names(roles.with(Role::QuasiIdentifier)),
        semi_sensitive: names(roles.with(Role::SemiSensitive)),
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
        baseline,
        population: sample.population.clone(),
        individual_risk: sample.individual.clone(),
        suda: sample.suda_report.clone(),
        attribute_risks: sample.attribute_risks.clone(),
        household_risk: sample.household.clone(),
        risky_cells: sample.risky_cells.clone(),
    };
    Ok(Assessment {
        report,
        simulation,
        sample,
    })
}

/// The baseline: the three attacks' figures on the table as it is. The
/// distributions are independent reads of the attacks' counts, each over
/// every record: side by side.
fn baseline_of(
    ds: &Dataset,
    attacker: &Attacker,
    simulation: &Simulation,
    original: &OriginalMatches,
    sensitive_column: Option<usize>,
) -> Baseline {
    let threshold = attacker.threshold;
    // Records (a grouped table's rows stand for several each).
    let n = ds.records() as usize;
    let weights = ds.multiplicities();
    let ((key_count, linkage), breach) = rayon::join(
        || {
            rayon::join(
                || {
                    Distribution::from_match_runs(
                        &ProbabilityRuns::of_matches(&simulation.matches, weights),
                        threshold,
                    )
                },
                || {
                    Distribution::from_match_runs(
                        &ProbabilityRuns::of_matches(&original.matches, weights),
                        threshold,
                    )
                },
            )
        },
        || {
            sensitive_column
                .zip(original.breach())
                .map(|(s, p)| AttributeBreach {
                    attribute: ds.col(s).name().to_string(),
                    cells: n,
                    distribution: Distribution::from_runs(
                        &ProbabilityRuns::of_probabilities(&p, weights),
                        n,
                        threshold,
                    ),
                })
        },
    );
    Baseline {
        attacker: attacker.summary(ds),
        key_count,
        linkage,
        breach,
    }
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
            "baseline",
        ] {
            assert!(json.get(f).is_some(), "missing {f}");
        }
        // On the original table the linkage attack and the key count are
        // the same attack.
        let b = &r.baseline;
        assert_eq!(b.linkage, b.key_count);
        assert_eq!(b.key_count.summary.mean, r.risk.mean);
        assert_eq!(b.attacker.hidden_cells, r.hidden_cells);
        assert_eq!(b.breach.as_ref().unwrap().attribute, "disease");
        assert_eq!(
            b.attacker.to_string(),
            format!("attacker knows 4 of 4 QIs; {} cells hidden", r.hidden_cells)
        );
    }
}
