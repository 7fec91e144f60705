//! The statistics offices' measures of one session: the file as
//! a sample of a population (journalist, marketer, population uniqueness,
//! k-map and δ-presence with a population table), individual risk with
//! sampling weights, special uniques and attribute risks — under the one
//! rule of the attack simulation (README, "How semi-sensitive cells are
//! matched": a record is matched by every record that agrees with it on
//! each known attribute where neither cell is hidden), so "sample uniques",
//! the prosecutor's, the journalist's and the marketer's figures, the
//! MSUs and the attribute risks count the same records as unique:
//!
//! - a record's sample frequency is the size of its matched set
//!   (`Simulation::matches`, the key count's), which the population
//!   models, the journalist and the marketer read
//!   (`risk::population::sample_summary`, `SizeCounts::from_frequencies`);
//! - SUDA2 and the attribute risks count matched sets on each combination
//!   of the known attributes (`risk::combinations::walk_matched` when a
//!   cell is hidden), so no record is unique on an attribute the attacker
//!   cannot see in it;
//! - the individual risk's class is the simulator's class (visible values
//!   and hiding pattern alike, hence one matched set), with the matched
//!   set's size as its frequency f and the weights of the class scaled to
//!   it (f / class size: the class's mean weight for each record of the
//!   set).

use std::path::Path;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::data::{load, IndividualMethod, PopulationSettings};
use crate::data::{CsvOptions, Dataset};
use crate::error::{Error, Parameter, Result};
use crate::progress::Progress;
use crate::risk::attributes::{attribute_risks, AttributeRisk, MAX_ATTRIBUTE_RISK_ATTRIBUTES};
use crate::risk::combinations::{walk, walk_matched, Codes, Walk};
use crate::risk::household::{household_report, households_of, HouseholdReport};
use crate::risk::individual::class_risk;
use crate::risk::population::{
    population_uniques, sample_summary, JournalistBasis, PopulationModel, PopulationUniques,
    RecordRisk, SampleSummary, SizeCounts, SolverSettings,
};
use crate::risk::risky_cells::{risky_cells, RiskyCellsReport};
use crate::risk::suda::{special_uniques, Suda, SudaReport, DEFAULT_DIS_FRACTION};
use crate::risk::{ProbabilityRuns, Simulation};
use crate::session::Attacker;

/// δ-presence against a population table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DeltaPresence {
    pub min: f64,
    pub max: f64,
}

/// `"population"` of `anonlab assess --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PopulationReport {
    pub population_size: u64,
    pub sampling_fraction: f64,
    pub prosecutor: RecordRisk,
    pub journalist: RecordRisk,
    pub marketer: f64,
    /// Share of the file's records unique in it.
    pub sample_uniques: f64,
    pub population_uniques: PopulationUniques,
    /// Where the journalist's population class sizes come from.
    pub journalist_basis: JournalistBasis,
    /// With a population table: its file, k-map's k and δ-presence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub population_table: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k_map: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_presence: Option<DeltaPresence>,
}

/// `"individual_risk"` of `anonlab assess --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndividualRiskReport {
    pub weights: String,
    pub method: IndividualMethod,
    pub mean: f64,
    pub max: f64,
    pub global_risk: f64,
    pub expected_reidentifications: f64,
    pub records_above_threshold: u64,
}

/// The figures and what the TUI needs per record.
#[derive(Debug, Clone, Default)]
pub struct SampleRisks {
    /// Household risk (`--household`).
    pub household: Option<HouseholdReport>,
    /// Per record: its household's risk.
    pub household_risk: Option<Vec<f64>>,
    /// μ-ARGUS's threshold rule (`--risky-cells`).
    pub risky_cells: Option<RiskyCellsReport>,
    pub population: Option<PopulationReport>,
    /// Per record: the journalist's Pr(re-id).
    pub journalist: Option<Vec<f64>>,
    pub individual: Option<IndividualRiskReport>,
    /// Per record: the individual risk.
    pub individual_risk: Option<Vec<f64>>,
    pub suda: Option<Suda>,
    pub suda_report: Option<SudaReport>,
    pub attribute_risks: Option<Vec<AttributeRisk>>,
    /// Names of the attributes the masks of `suda` refer to.
    pub attributes: Vec<String>,
}

/// Every measure the session's settings ask for.
pub fn sample_risks(
    ds: &Dataset,
    file: &str,
    attacker: &Attacker,
    simulation: &Simulation,
    lattice: Option<Walk>,
    progress: &Progress,
) -> Result<SampleRisks> {
    let settings = &attacker.population;
    let known = &attacker.known[..];
    // Rows, and the records they stand for (more in a grouped table).
    let n = ds.n_rows();
    let records = ds.records();
    let classes = &simulation.classes;
    let sizes = classes.sizes();
    let frequencies = class_frequencies(simulation);
    let table = SizeCounts::from_frequencies(sizes, &frequencies);
    let names: Vec<String> = known
        .iter()
        .map(|&c| ds.col(c).name().to_string())
        .collect();
    let mut out = SampleRisks {
        attributes: names.clone(),
        ..SampleRisks::default()
    };
    let hidden = simulation.hidden_cells > 0;

    let model = population_model(&attacker.population_csv, settings, records)?;
    if let Some((model, pop_table)) = &model {
        let matched = match pop_table {
            Some(path) => {
                if hidden {
                    return Err(Error::invalid(Parameter::Population,
                        "a population table cannot be matched on hidden (sensitive) cells: assess without semi-sensitive attributes, or give a population size",
                    ));
                }
                Some(match_population(
                    ds,
                    &attacker.population_csv,
                    known,
                    simulation,
                    path,
                )?)
            }
            None => None,
        };
        progress.check()?;
        let summary: SampleSummary = sample_summary(
            sizes,
            &frequencies,
            matched.as_ref().map(|m| m.sizes.as_slice()),
            matched.as_ref().map_or(0, |m| m.unsampled_classes),
            model,
        );
        let uniques = population_uniques(&table, model, &SolverSettings::default());
        progress.check()?;
        let min_matches = simulation.matches.iter().copied().min().unwrap_or(0);
        let prosecutor = RecordRisk {
            mean: simulation.summary.mean,
            max: simulation.summary.max,
            records_at_max: simulation
                .matches
                .iter()
                .enumerate()
                .filter(|&(_, &m)| m == min_matches)
                .map(|(r, _)| u64::from(ds.multiplicity(r)))
                .sum(),
        };
        out.journalist = Some(
            (0..n)
                .map(|r| summary.class_risk[classes.class_of(r) as usize])
                .collect(),
        );
        out.population = Some(PopulationReport {
            population_size: model.population_size,
            sampling_fraction: model.sampling_fraction(),
            prosecutor,
            journalist: summary.journalist,
            marketer: summary.marketer,
            sample_uniques: if records == 0 {
                0.0
            } else {
                simulation.summary.uniques as f64 / records as f64
            },
            population_uniques: uniques,
            journalist_basis: summary.basis,
            population_table: pop_table.as_ref().map(|p| p.display().to_string()),
            k_map: summary.k_map,
            delta_presence: summary.delta.map(|(min, max)| DeltaPresence { min, max }),
        });
    }

    if let Some(col) = &settings.weights {
        let w = crate::risk::individual::sampling_weights(ds, file, known, col)?;
        // Σ weights per class: a grouped row adds its weight once per
        // record it stands for.
        let mut sums = vec![0.0f64; classes.n_classes()];
        for (r, &x) in w.iter().enumerate() {
            sums[classes.class_of(r) as usize] += x * f64::from(ds.multiplicity(r));
        }
        let method = settings.individual_method;
        let per_class: Vec<f64> = sizes
            .iter()
            .zip(&frequencies)
            .zip(&sums)
            .map(|((&size, &f), &s)| {
                class_risk(f, s * f64::from(f) / f64::from(size.max(1)), method)
            })
            .collect();
        let risk: Vec<f64> = (0..n)
            .map(|r| per_class[classes.class_of(r) as usize])
            .collect();
        let runs = ProbabilityRuns::of_probabilities(&risk, ds.multiplicities());
        let mean = runs.mean();
        out.individual = Some(IndividualRiskReport {
            weights: col.clone(),
            method,
            mean,
            max: runs.max(),
            global_risk: mean,
            expected_reidentifications: runs.sum(),
            records_above_threshold: runs.count(|x| x > attacker.threshold),
        });
        out.individual_risk = Some(risk);
    }

    if let Some(col) = &settings.household {
        if known.iter().any(|&c| ds.col(c).name() == col) {
            return Err(Error::invalid(
                Parameter::Household,
                format!(
                    "'{col}' is both the household identifier and an attribute the attacker knows"
                ),
            ));
        }
        let (of, households) = households_of(ds, file, col)?;
        // Each member's individual risk: with sampling weights, sdcMicro's
        // (above); without, 1/f as sdcMicro's indivRisk(survey = FALSE).
        let (individual, basis) = match (&out.individual_risk, &settings.weights) {
            (Some(r), Some(w)) => (
                r.clone(),
                format!(
                    "individual risk with sampling weights '{w}' ({})",
                    settings.individual_method.name()
                ),
            ),
            _ => (
                (0..n)
                    .map(|r| 1.0 / f64::from(frequencies[classes.class_of(r) as usize].max(1)))
                    .collect(),
                "1/f, f the records sharing the known values (no sampling weights)".to_string(),
            ),
        };
        let (report, per_record) = household_report(
            col,
            &basis,
            &names,
            &of,
            households,
            &individual,
            attacker.threshold,
        );
        out.household = Some(report);
        out.household_risk = Some(per_record);
    }

    if let Some(rule) = settings.risky_cells {
        if hidden {
            return Err(Error::invalid(
                Parameter::RiskyCells,
                "risky cells count the cross-tables of the key variables as published; with hidden (sensitive) cells they have no single count: assess without semi-sensitive attributes",
            ));
        }
        out.risky_cells = Some(risky_cells(ds, known, rule.max_size, rule.threshold)?);
        progress.check()?;
    }

    if let Some(w) = lattice {
        if settings.attribute_risks {
            out.attribute_risks = Some(attribute_risks(&w, &names, records));
        }
        if let Some(m) = settings.suda_max_size {
            let fraction = out
                .population
                .as_ref()
                .map_or(DEFAULT_DIS_FRACTION, |p| p.sampling_fraction);
            let s = special_uniques(&w, known.len(), n, records, m, &table, fraction);
            out.suda_report = Some(s.report(&names));
            out.suda = Some(s);
        }
    }
    Ok(out)
}

/// The walk over the attacker's attribute combinations that SUDA2 and the
/// attribute risks read, when the settings ask for either. It needs only
/// the table, so `assess` runs it beside the simulator and the linkage.
pub fn lattice_walk(
    ds: &Dataset,
    attacker: &Attacker,
    progress: &Progress,
) -> Result<Option<Walk>> {
    let settings = &attacker.population;
    let known = &attacker.known[..];
    let suda_size = settings.suda_max_size;
    if suda_size.is_none() && !settings.attribute_risks {
        return Ok(None);
    }
    if suda_size == Some(0) {
        return Err(Error::invalid(
            Parameter::Suda,
            "the largest minimal sample unique searched must be at least 1",
        ));
    }
    if settings.attribute_risks && known.len() > MAX_ATTRIBUTE_RISK_ATTRIBUTES {
        return Err(Error::invalid(Parameter::AttributeRisks, format!(
            "attribute risks cover every combination of at most {MAX_ATTRIBUTE_RISK_ATTRIBUTES} attributes; the attacker knows {}",
            known.len()
        )));
    }
    let keep = suda_size.unwrap_or(0).min(known.len());
    let depth = if settings.attribute_risks {
        known.len()
    } else {
        keep
    };
    let hidden = attacker.hidden_refs();
    if hidden.iter().flatten().any(|h| h.count_ones(..) > 0) {
        return walk_matched(ds, known, &hidden, depth, keep, progress).map(Some);
    }
    let cols: Vec<Codes> = known.iter().map(|&c| Codes::of(ds, c)).collect();
    walk(
        &cols,
        ds.n_rows(),
        ds.multiplicities(),
        depth,
        keep,
        progress,
    )
    .map(Some)
}

/// Per class of the simulation, its records' sample frequency: the size
/// of their matched set (one per class: its records share their visible
/// values and hiding pattern), the class size when no cell is hidden.
fn class_frequencies(simulation: &Simulation) -> Vec<u32> {
    let classes = &simulation.classes;
    let mut f = vec![0u32; classes.n_classes()];
    for (r, &m) in simulation.matches.iter().enumerate() {
        f[classes.class_of(r) as usize] = m;
    }
    f
}

/// The population model the settings describe, and the population table's
/// path when one is given.
fn population_model(
    csv: &CsvOptions,
    s: &PopulationSettings,
    rows: u64,
) -> Result<Option<(PopulationModel, Option<std::path::PathBuf>)>> {
    let given = [
        s.size.is_some(),
        s.sampling_fraction.is_some(),
        s.table.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if given > 1 {
        return Err(Error::invalid(
            Parameter::Population,
            "give the population once: as a size, a sampling fraction or a table",
        ));
    }
    if let Some(path) = &s.table {
        let pop = load(path, csv)?;
        return Ok(Some((
            PopulationModel::with_size(rows, pop.n_rows() as u64)?,
            Some(path.clone()),
        )));
    }
    if let Some(n) = s.size {
        return Ok(Some((PopulationModel::with_size(rows, n)?, None)));
    }
    if let Some(f) = s.sampling_fraction {
        return Ok(Some((PopulationModel::with_fraction(rows, f)?, None)));
    }
    Ok(None)
}

struct Matched {
    /// F_j per sample class.
    sizes: Vec<u64>,
    unsampled_classes: u64,
}

/// Count each sample class's records in the population table.
fn match_population(
    ds: &Dataset,
    csv: &CsvOptions,
    known: &[usize],
    simulation: &Simulation,
    path: &Path,
) -> Result<Matched> {
    let pop = load(path, csv)?;
    // Per known column: population code → sample code (None: a value the
    // sample does not hold).
    let mut maps: Vec<(&[u32], Vec<Option<u32>>)> = Vec::with_capacity(known.len());
    for &c in known {
        let col = ds.col(c);
        let pc = pop.column(col.name()).map_err(|_| {
            Error::input(
                path,
                None,
                Some(col.name().to_string()),
                "the population table has no such column; it needs every attribute the attacker knows",
            )
        })?;
        let mut map: Vec<Option<u32>> = pc.dictionary().iter().map(|v| col.code_of(v)).collect();
        map.push(Some(col.missing_code()));
        maps.push((pc.codes(), map));
    }
    let classes = &simulation.classes;
    let mut key_of: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
    let mut seen = vec![false; classes.n_classes()];
    for r in 0..ds.n_rows() {
        let c = classes.class_of(r) as usize;
        if !seen[c] {
            seen[c] = true;
            key_of.insert(known.iter().map(|&k| ds.col(k).code(r)).collect(), c as u32);
        }
    }
    let mut sizes = vec![0u64; classes.n_classes()];
    let mut unsampled: rustc_hash::FxHashSet<Vec<Option<u32>>> = Default::default();
    let mut key = Vec::with_capacity(known.len());
    for r in 0..pop.n_rows() {
        key.clear();
        key.extend(maps.iter().map(|(codes, map)| map[codes[r] as usize]));
        match key
            .iter()
            .copied()
            .collect::<Option<Vec<u32>>>()
            .and_then(|k| key_of.get(&k).copied())
        {
            Some(c) => sizes[c as usize] += 1,
            None => {
                unsampled.insert(key.clone());
            }
        }
    }
    for (c, (&big, &f)) in sizes.iter().zip(classes.sizes()).enumerate() {
        if big < u64::from(f) {
            let row = (0..ds.n_rows())
                .find(|&r| classes.class_of(r) as usize == c)
                .unwrap_or(0);
            let values: Vec<String> = known
                .iter()
                .map(|&k| {
                    format!(
                        "{}={}",
                        ds.col(k).name(),
                        ds.col(k).display(ds.col(k).code(row))
                    )
                })
                .collect();
            return Err(Error::input(
                path,
                None,
                None,
                format!(
                    "holds {big} record(s) with {{{}}} but the sample holds {f}: a population must contain every sample record",
                    values.join(", ")
                ),
            ));
        }
    }
    Ok(Matched {
        sizes,
        unsampled_classes: unsampled.len() as u64,
    })
}
