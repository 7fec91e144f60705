//! The report's part for the statistics offices' measures: the
//! file as a sample of a population, individual risk with sampling weights,
//! special uniques and attribute risks — the figures `assess` computed for
//! the project's attacker (the same values `anonlab assess --json` prints),
//! put in plain words that name each model and its parameters.

use serde::{Deserialize, Serialize};

use super::doc::{Block, Section};
use super::plain::{at_most, chance, count, list, percent};
use super::Report;
use crate::assess::{AssessReport, IndividualRiskReport, PopulationReport};
use crate::risk::attributes::AttributeRisk;
use crate::risk::household::HouseholdReport;
use crate::risk::population::JournalistBasis;
use crate::risk::risky_cells::RiskyCellsReport;
use crate::risk::suda::SudaReport;

/// Attribute combinations the report lists of each size (the riskiest).
const PER_SIZE: usize = 3;

/// The measures the project asked for; each `None` when not asked.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SampleFigures {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub population: Option<PopulationReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub individual_risk: Option<IndividualRiskReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suda: Option<SudaReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute_risks: Option<Vec<AttributeRisk>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub household_risk: Option<HouseholdReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risky_cells: Option<RiskyCellsReport>,
}

impl SampleFigures {
    pub fn of(a: &AssessReport) -> Self {
        SampleFigures {
            population: a.population.clone(),
            individual_risk: a.individual_risk.clone(),
            suda: a.suda.clone(),
            attribute_risks: a.attribute_risks.clone(),
            household_risk: a.household_risk.clone(),
            risky_cells: a.risky_cells.clone(),
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

fn share_or(x: Option<f64>) -> String {
    x.map_or_else(|| "no estimate".to_string(), percent_fine)
}

/// A share with enough digits for small population shares (0.0682%).
fn percent_fine(x: f64) -> String {
    if x > 0.0 && x < 0.001 {
        format!("{:.4}%", 100.0 * x)
    } else {
        percent(x)
    }
}

/// The population-based risk in one sentence, for the report's headline.
pub fn headline(r: &Report) -> Option<String> {
    let p = r.sample.population.as_ref()?;
    let u = &p.population_uniques;
    let unique = match (u.dankar, u.dankar_model) {
        (Some(v), Some(m)) => format!(
            "; an estimated {} of the population is unique on what the attacker knows ({}'s model, picked by Dankar et al.'s rule)",
            percent_fine(v),
            m.label()
        ),
        _ => String::new(),
    };
    Some(format!(
        "The file is a sample of about {} people (sampling fraction {}): someone who must find a person in the whole population identifies them {}, {} on average{unique}.",
        count(p.population_size as usize),
        fraction(p.sampling_fraction),
        at_most(p.journalist.max),
        chance(p.journalist.mean),
    ))
}

fn fraction(f: f64) -> String {
    let s = format!("{f:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn population_blocks(p: &PopulationReport, rows: usize, out: &mut Vec<Block>) {
    let basis = match p.journalist_basis {
        JournalistBasis::PopulationTable => format!(
            "the population's group sizes are counted in the population table{}",
            p.population_table
                .as_ref()
                .map(|t| format!(" ({t})"))
                .unwrap_or_default()
        ),
        JournalistBasis::SamplingFraction => "the population's group sizes are estimated from the sampling fraction (each record standing for N / n people, Benedetti–Franconi)".into(),
    };
    out.push(Block::Para(format!(
        "The figures above assume the file is everybody (the prosecutor's view). This file holds {} of about {} people (sampling fraction {}). An attacker who must find the person in the whole population (the journalist) finds them {}, and on average with {}; a marketer matching everyone at once re-identifies {} of the records. Here {basis}.",
        count(rows),
        count(p.population_size as usize),
        fraction(p.sampling_fraction),
        at_most(p.journalist.max),
        chance(p.journalist.mean),
        percent_fine(p.marketer),
    )));
    let u = &p.population_uniques;
    let mut table = vec![
        vec![
            "prosecutor (the file is the population)".into(),
            chance(p.prosecutor.max),
            chance(p.prosecutor.mean),
            count(p.prosecutor.records_at_max as usize),
        ],
        vec![
            "journalist (found in the population)".into(),
            chance(p.journalist.max),
            chance(p.journalist.mean),
            count(p.journalist.records_at_max as usize),
        ],
    ];
    table.push(vec![
        "marketer (share re-identified)".into(),
        "–".into(),
        percent_fine(p.marketer),
        "–".into(),
    ]);
    out.push(Block::Table {
        head: ["attacker", "most exposed", "average", "people at the most"]
            .map(String::from)
            .to_vec(),
        rows: table,
    });
    let rule = match (u.dankar, u.dankar_model) {
        (Some(v), Some(m)) => format!(
            "Dankar et al.'s (2012) rule picks {} (the sampling fraction is {} 0.1): about {} of the population is unique on the attacker's attributes, against {} unique in the file.",
            m.label(),
            if p.sampling_fraction <= 0.1 { "at most" } else { "above" },
            percent_fine(v),
            percent_fine(p.sample_uniques)
        ),
        (Some(v), None) => format!(
            "About {} of the population is unique on the attacker's attributes ({} in the file).",
            percent_fine(v),
            percent_fine(p.sample_uniques)
        ),
        _ => "No model gives an estimate of the people unique in the population.".into(),
    };
    out.push(Block::Para(format!(
        "{rule} The models (ARX's solver settings): Pitman {}, Zayatz {}, SNB {}.{}",
        share_or(u.pitman),
        share_or(u.zayatz),
        share_or(u.snb),
        if u.notes.is_empty() {
            String::new()
        } else {
            format!(" Notes: {}.", u.notes.join("; "))
        }
    )));
    if let (Some(k), Some(d)) = (p.k_map, p.delta_presence) {
        out.push(Block::Para(format!(
            "Against the population table: k-map {k} (the smallest group in the population sharing a sample record's values), δ-presence from {:.4} to {:.4} (the chance that a person of the population is in the file, by group).",
            d.min, d.max
        )));
    }
}

/// The section, when the project asked for any of the measures.
pub fn section(r: &Report) -> Option<Section> {
    let s = &r.sample;
    if s.is_empty() {
        return None;
    }
    // The simulator treats a hidden cell as a wildcard; the walk over
    // attribute combinations (special uniques, attribute risks) cannot, and
    // counts it as a value of its own: say so where it matters.
    let hidden_note = if r.attacker.hidden_cells > 0 {
        format!(
            " Here the {} hidden cells count as a value of their own, not as wildcards, so these uniques can exceed the figures above.",
            count(r.attacker.hidden_cells)
        )
    } else {
        String::new()
    };
    let mut blocks = Vec::new();
    if let Some(p) = &s.population {
        population_blocks(p, r.dataset.rows, &mut blocks);
    }
    if let Some(i) = &s.individual_risk {
        blocks.push(Block::Para(format!(
            "With the sampling weights in '{}' (sdcMicro's individual risk, Benedetti–Franconi, {} method): the most exposed person has {}, on average {}; about {:.1} people are expected to be re-identified; {} people are above {}.",
            i.weights,
            i.method.name(),
            chance(i.max),
            chance(i.mean),
            i.expected_reidentifications,
            count(i.records_above_threshold as usize),
            super::plain::odds(r.risk.threshold)
        )));
    }
    if let Some(h) = &s.household_risk {
        let exposed: Vec<_> = h
            .by_size
            .iter()
            .filter(|x| x.households_above_threshold > 0)
            .collect();
        // The smallest sizes, where one can read them; the rest summed.
        const SIZES: usize = 5;
        let mut sizes: Vec<String> = exposed
            .iter()
            .take(SIZES)
            .map(|x| {
                format!(
                    "{} of {} households of {}",
                    count(x.households_above_threshold as usize),
                    count(x.households as usize),
                    x.size
                )
            })
            .collect();
        if exposed.len() > SIZES {
            let rest = &exposed[SIZES..];
            sizes.push(format!(
                "{} households of {} to {} people",
                count(
                    rest.iter()
                        .map(|x| x.households_above_threshold as usize)
                        .sum()
                ),
                rest[0].size,
                rest[rest.len() - 1].size
            ));
        }
        blocks.push(Block::Para(format!(
            "People in one household recognise each other, so a household is exposed when any member is (household risk 1 − ∏(1 − r), over the members' risks: {}; households by '{}'): {} of {} households are above {}, holding {} people, {} of whom are not above it on their own{}. On average a person's household has {}; about {:.1} people are expected to be re-identified through their household.",
            h.individual_risk,
            h.household,
            count(h.households_above_threshold as usize),
            count(h.households as usize),
            super::plain::odds(r.risk.threshold),
            count(h.records_above_threshold as usize),
            count(h.records_at_risk_through_household as usize),
            if sizes.is_empty() {
                String::new()
            } else {
                format!(" (by size: {})", list(&sizes))
            },
            chance(h.mean),
            h.expected_reidentifications
        )));
    }
    if let Some(c) = &s.risky_cells {
        let worst: Vec<String> = {
            let mut v: Vec<_> = c.combinations.iter().filter(|x| x.cells > 0).collect();
            v.sort_by_key(|x| std::cmp::Reverse(x.cells));
            v.iter()
                .take(PER_SIZE)
                .map(|x| {
                    format!(
                        "{{{}}} with {} cells",
                        x.attributes.join(", "),
                        count(x.cells as usize)
                    )
                })
                .collect()
        };
        blocks.push(Block::Para(format!(
            "The threshold rule (μ-ARGUS, sdcMicro's riskyCells): of the tables crossing up to {} of the attacker's attributes, {} cells hold at most {} {}, and {} people sit in at least one such cell{}.",
            c.max_size,
            count(c.total_cells as usize),
            c.threshold,
            if c.threshold == 1 { "person" } else { "people" },
            count(c.records_in_risky_cells as usize),
            if worst.is_empty() {
                String::new()
            } else {
                format!("; the most: {}", list(&worst))
            }
        )));
    }
    if let Some(su) = &s.suda {
        let sizes: Vec<String> = su
            .msu_counts_by_size
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{} of {} attribute(s)", count(*n as usize), i + 1))
            .collect();
        blocks.push(Block::Para(format!(
            "Special uniques (SUDA2, minimal sample uniques of up to {} attributes): {} people are unique on some small set of what the attacker knows; the sets found are {}. DIS-SUDA (the chance a special unique is also unique in the population, at sampling fraction {}) is {} on average and at most {}.{hidden_note}",
            su.max_msu_size,
            count(su.records_with_msu as usize),
            list(&sizes),
            fraction(su.dis_fraction),
            percent_fine(su.dis_suda.mean),
            percent_fine(su.dis_suda.max),
        )));
        let mut contrib = su.attribute_contributions.clone();
        contrib.sort_by(|a, b| b.contribution.total_cmp(&a.contribution));
        blocks.push(Block::Table {
            head: [
                "attribute",
                "share of the SUDA score from sets that contain it",
            ]
            .map(String::from)
            .to_vec(),
            rows: contrib
                .iter()
                .map(|c| vec![c.attribute.clone(), format!("{:.1}%", c.contribution)])
                .collect(),
        });
    }
    if let Some(a) = &s.attribute_risks {
        // The riskiest few of each size: the smallest combinations that
        // single many people out name the attributes to generalize first.
        let mut ranked: Vec<&AttributeRisk> = a.iter().collect();
        ranked.sort_by(|x, y| {
            x.attributes
                .len()
                .cmp(&y.attributes.len())
                .then(y.uniques.total_cmp(&x.uniques))
        });
        let mut shown: Vec<&AttributeRisk> = Vec::new();
        for x in ranked {
            let same = shown
                .iter()
                .filter(|y| y.attributes.len() == x.attributes.len())
                .count();
            if same < PER_SIZE {
                shown.push(x);
            }
        }
        blocks.push(Block::Para(format!(
            "Which attributes make people unique: of the {} combinations of the attacker's attributes, the {PER_SIZE} of each size that single out the most people (distinction and separation as ARX's attribute risks define them). An attribute in the riskiest small combinations is the one to generalize first.{hidden_note}",
            a.len(),
        )));
        blocks.push(Block::Table {
            head: ["attributes", "people unique", "distinction", "separation"]
                .map(String::from)
                .to_vec(),
            rows: shown
                .iter()
                .map(|x| {
                    vec![
                        list(&x.attributes),
                        percent_fine(x.uniques),
                        format!("{:.4}", x.distinction),
                        format!("{:.4}", x.separation),
                    ]
                })
                .collect(),
        });
    }
    Some(Section {
        title: "The file as a sample: population, weights, special uniques",
        blocks,
    })
}
