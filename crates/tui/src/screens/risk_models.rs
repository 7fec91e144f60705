//! The Risk screen's model selector: the statistics offices' readings of
//! the same file (the file as a sample of a population) beside the
//! prosecutor's.
//!
//! Every figure here is read off the session's baseline
//! ([`crate::session::Before`]), i.e. off `anonlab assess`'s
//! `Assessment` for the session's attacker and population settings — the
//! screen computes nothing of its own, so its figures are `assess --json`'s
//! and the report's (tests/tui_risk_models.rs checks both). What the
//! selector offers follows the settings (`:population`, `:weights`,
//! `:suda`, `:attributes`): the prosecutor always; journalist, marketer and
//! population uniqueness with a population; individual risk with weights.
//!
//! The record list keeps the prosecutor's order (records above the
//! threshold by the key count); the selected model adds its own per-record
//! figure where it has one (journalist, individual risk) and SUDA2's
//! minimal sample uniques name the attribute sets each record is unique on.

use anonlab::assess::Assessment;
use anonlab::assess::SampleRisks;

/// One reading of the file's risk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RiskModel {
    /// The file is the whole population: Pr = 1 / records sharing the
    /// known values.
    Prosecutor,
    /// The person must be found in the population (ARX's journalist).
    Journalist,
    /// Everyone matched at once: the expected share re-identified.
    Marketer,
    /// Estimated share of the population unique on the known values.
    PopulationUniqueness,
    /// sdcMicro's individual risk from the sampling weights.
    Individual,
}

impl RiskModel {
    pub const ALL: [RiskModel; 5] = [
        RiskModel::Prosecutor,
        RiskModel::Journalist,
        RiskModel::Marketer,
        RiskModel::PopulationUniqueness,
        RiskModel::Individual,
    ];

    pub fn title(self) -> &'static str {
        match self {
            RiskModel::Prosecutor => "prosecutor",
            RiskModel::Journalist => "journalist",
            RiskModel::Marketer => "marketer",
            RiskModel::PopulationUniqueness => "population uniqueness",
            RiskModel::Individual => "individual risk",
        }
    }

    /// Whether the assessment has this model's figures.
    pub fn available(self, s: &SampleRisks) -> bool {
        match self {
            RiskModel::Prosecutor => true,
            RiskModel::Journalist | RiskModel::Marketer | RiskModel::PopulationUniqueness => {
                s.population.is_some()
            }
            RiskModel::Individual => s.individual.is_some(),
        }
    }

    /// The next available model `by` places on (wrapping), from `self`.
    pub fn cycle(self, s: &SampleRisks, by: i32) -> RiskModel {
        let all = Self::ALL;
        let n = all.len() as i32;
        let at = all.iter().position(|&m| m == self).unwrap_or(0) as i32;
        let step = if by < 0 { -1 } else { 1 };
        (1..=n)
            .map(|i| all[(at + step * i).rem_euclid(n) as usize])
            .find(|m| m.available(s))
            .unwrap_or(RiskModel::Prosecutor)
    }

    /// This model when the assessment has it, else the prosecutor's.
    pub fn or_prosecutor(self, s: &SampleRisks) -> RiskModel {
        if self.available(s) {
            self
        } else {
            RiskModel::Prosecutor
        }
    }

    /// The model's figure for one record, when it has one per record, and
    /// the list's column header for it.
    pub fn per_record(self, s: &SampleRisks, row: usize) -> Option<f64> {
        match self {
            RiskModel::Journalist => s.journalist.as_ref().and_then(|j| j.get(row).copied()),
            RiskModel::Individual => s.individual_risk.as_ref().and_then(|r| r.get(row).copied()),
            _ => None,
        }
    }

    /// Header of the list's column of [`RiskModel::per_record`].
    pub fn column(self) -> Option<&'static str> {
        match self {
            RiskModel::Journalist => Some("journ"),
            RiskModel::Individual => Some("indiv"),
            _ => None,
        }
    }
}

/// Lines of the model panel inside its border.
pub const MODEL_PANEL_LINES: u16 = 4;

/// Whether the session asked for any of the statistics offices' measures
/// (the screen then shows the model panel).
pub fn has_measures(s: &SampleRisks) -> bool {
    s.population.is_some()
        || s.individual.is_some()
        || s.suda.is_some()
        || s.attribute_risks.is_some()
        || s.household.is_some()
        || s.risky_cells.is_some()
}

/// A probability as the screen prints it (the figures table's 4 decimals).
pub fn p4(x: f64) -> String {
    format!("{x:.4}")
}

/// A share of records or people, with enough digits for small shares.
pub fn share(x: f64) -> String {
    if x > 0.0 && x < 0.001 {
        format!("{:.4}%", 100.0 * x)
    } else {
        format!("{:.2}%", 100.0 * x)
    }
}

/// The selected model's figures in lines of text: what the model panel
/// draws, most important first (the panel shows as many as fit).
pub fn model_lines(a: &Assessment, model: RiskModel, threshold: f64) -> Vec<String> {
    let s = &a.sample;
    let r = &a.report;
    let n = r.rows as u64;
    let count = |x: u64| anonlab::format::thousands(x);
    let mut lines = Vec::new();
    match (model, &s.population, &s.individual) {
        (RiskModel::Prosecutor, pop, _) => {
            let at_max = pop
                .as_ref()
                .map(|p| p.prosecutor.records_at_max)
                .unwrap_or_else(|| {
                    let min = a.simulation.matches.iter().copied().min().unwrap_or(0);
                    a.simulation.matches.iter().filter(|&&m| m == min).count() as u64
                });
            lines.push(format!(
                "the file is the population: mean {}, max {} ({} records at the max)",
                p4(r.risk.mean),
                p4(r.risk.max),
                count(at_max)
            ));
            lines.push(format!(
                "sample uniques {} ({} of {} records)",
                share(if n == 0 {
                    0.0
                } else {
                    r.uniques as f64 / n as f64
                }),
                count(r.uniques as u64),
                count(n)
            ));
        }
        (RiskModel::Journalist, Some(p), _) => {
            lines.push(format!(
                "found in a population of {} (F = {}): mean {}, max {} ({} records at the max)",
                count(p.population_size),
                fraction(p.sampling_fraction),
                p4(p.journalist.mean),
                p4(p.journalist.max),
                count(p.journalist.records_at_max)
            ));
            lines.push(match p.journalist_basis {
                anonlab::risk::population::JournalistBasis::PopulationTable => {
                    "population class sizes counted in the population table".to_string()
                }
                anonlab::risk::population::JournalistBasis::SamplingFraction => {
                    "population class sizes estimated from F (Benedetti–Franconi)".to_string()
                }
            });
            if let (Some(k), Some(d)) = (p.k_map, p.delta_presence) {
                lines.push(format!("k-map {k}, δ-presence {:.4} – {:.4}", d.min, d.max));
            }
        }
        (RiskModel::Marketer, Some(p), _) => {
            lines.push(format!(
                "everyone matched at once: {} of the records re-identified (marketer {}), population {} (F = {})",
                share(p.marketer),
                p4(p.marketer),
                count(p.population_size),
                fraction(p.sampling_fraction)
            ));
        }
        (RiskModel::PopulationUniqueness, Some(p), _) => {
            let u = &p.population_uniques;
            let or_none = |x: Option<f64>| x.map_or_else(|| "did not converge".into(), share);
            lines.push(match (u.dankar, u.dankar_model) {
                (Some(v), Some(m)) => format!(
                    "Dankar's rule picks {}: {} of the population unique ({} in the file)",
                    m.label(),
                    share(v),
                    share(p.sample_uniques)
                ),
                _ => format!(
                    "no model gives an estimate ({} unique in the file)",
                    share(p.sample_uniques)
                ),
            });
            lines.push(format!(
                "Pitman {}, Zayatz {}, SNB {}; population {} (F = {})",
                or_none(u.pitman),
                or_none(u.zayatz),
                or_none(u.snb),
                count(p.population_size),
                fraction(p.sampling_fraction)
            ));
        }
        (RiskModel::Individual, _, Some(i)) => {
            lines.push(format!(
                "weights '{}', {} method: mean {}, max {}, {} above {threshold:.3}",
                i.weights,
                i.method.name(),
                p4(i.mean),
                p4(i.max),
                count(i.records_above_threshold)
            ));
            lines.push(format!(
                "global risk {}, expected re-identifications {:.2}",
                p4(i.global_risk),
                i.expected_reidentifications
            ));
        }
        // The model is not available: the caller falls back first.
        _ => {}
    }
    if let Some(su) = &r.suda {
        lines.push(format!(
            "SUDA2 (MSUs of ≤ {}): {} records with an MSU, DIS-SUDA mean {} max {}",
            su.max_msu_size,
            count(su.records_with_msu),
            p4(su.dis_suda.mean),
            p4(su.dis_suda.max)
        ));
    }
    if let Some(h) = &s.household {
        lines.push(format!(
            "households by '{}': mean {}, max {}; {} of {} households above {threshold:.3}, {} records only through theirs",
            h.household,
            p4(h.mean),
            p4(h.max),
            count(h.households_above_threshold),
            count(h.households),
            count(h.records_at_risk_through_household)
        ));
    }
    if let Some(c) = &s.risky_cells {
        lines.push(format!(
            "risky cells (≤ {} records, up to {} attributes): {} cells, {} records in one",
            c.threshold,
            c.max_size,
            count(c.total_cells),
            count(c.records_in_risky_cells)
        ));
    }
    lines
}

/// The sampling fraction without trailing zeros.
pub fn fraction(f: f64) -> String {
    let s = format!("{f:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A record's minimal sample uniques in words: "unique on {age, zip};
/// {sex, occupation}" (smallest first), or `None` without SUDA2 or MSUs.
pub fn msu_text(s: &SampleRisks, row: usize) -> Option<String> {
    let suda = s.suda.as_ref()?;
    let msus = suda.msus(row);
    if msus.is_empty() {
        return None;
    }
    let sets: Vec<String> = msus
        .iter()
        .map(|&mask| {
            let names: Vec<&str> = s
                .attributes
                .iter()
                .enumerate()
                .filter(|(a, _)| mask & (1 << a) != 0)
                .map(|(_, n)| n.as_str())
                .collect();
            format!("{{{}}}", names.join(", "))
        })
        .collect();
    Some(format!("unique on {}", sets.join("; ")))
}

/// The attribute combinations for the chart: the one singling out the most
/// records of each size (ties: the higher distinction, then the earlier),
/// as (label, share of records unique).
pub fn riskiest_by_size(s: &SampleRisks) -> Vec<(String, f64)> {
    let Some(risks) = &s.attribute_risks else {
        return Vec::new();
    };
    let largest = risks.iter().map(|r| r.attributes.len()).max().unwrap_or(0);
    (1..=largest)
        .filter_map(|size| {
            risks
                .iter()
                .filter(|r| r.attributes.len() == size)
                .reduce(|best, r| {
                    let better = r.uniques > best.uniques
                        || (r.uniques == best.uniques && r.distinction > best.distinction);
                    if better {
                        r
                    } else {
                        best
                    }
                })
                .map(|r| (format!("{{{}}}", r.attributes.join(", ")), r.uniques))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use anonlab::progress::Progress;
    use anonlab::session::Session;

    fn demo_with(f: impl FnOnce(&mut anonlab::data::PopulationSettings)) -> Assessment {
        let mut s = Session::demo().unwrap();
        f(&mut s.attacker.population);
        anonlab::assess::assess(&s, &Progress::new()).unwrap()
    }

    #[test]
    fn the_selector_offers_only_what_was_computed() {
        let a = demo_with(|_| {});
        let s = &a.sample;
        assert!(!has_measures(s));
        assert_eq!(RiskModel::Prosecutor.cycle(s, 1), RiskModel::Prosecutor);
        let a = demo_with(|p| p.sampling_fraction = Some(0.1));
        let s = &a.sample;
        let order: Vec<RiskModel> =
            std::iter::successors(Some(RiskModel::Prosecutor), |m| Some(m.cycle(s, 1)))
                .take(5)
                .collect();
        assert_eq!(
            order,
            [
                RiskModel::Prosecutor,
                RiskModel::Journalist,
                RiskModel::Marketer,
                RiskModel::PopulationUniqueness,
                RiskModel::Prosecutor
            ]
        );
        assert_eq!(
            RiskModel::Prosecutor.cycle(s, -1),
            RiskModel::PopulationUniqueness
        );
        assert_eq!(
            RiskModel::Individual.or_prosecutor(s),
            RiskModel::Prosecutor
        );
    }

    #[test]
    fn msus_are_named_by_attribute() {
        let a = demo_with(|p| p.suda_max_size = Some(2));
        let suda = a.sample.suda.as_ref().unwrap();
        let row = (0..a.report.rows)
            .find(|&r| !suda.msus(r).is_empty())
            .expect("the demo has special uniques");
        let text = msu_text(&a.sample, row).unwrap();
        assert!(text.starts_with("unique on {"), "{text}");
        let sets = text.trim_start_matches("unique on ").split("; ").count();
        assert_eq!(sets, suda.msus(row).len());
    }

    #[test]
    fn the_chart_takes_the_riskiest_combination_of_each_size() {
        let a = demo_with(|p| p.attribute_risks = true);
        let bars = riskiest_by_size(&a.sample);
        let risks = a.sample.attribute_risks.as_ref().unwrap();
        let largest = risks.iter().map(|r| r.attributes.len()).max().unwrap();
        assert_eq!(bars.len(), largest);
        for (size, (_, u)) in bars.iter().enumerate() {
            let best = risks
                .iter()
                .filter(|r| r.attributes.len() == size + 1)
                .map(|r| r.uniques)
                .fold(0.0, f64::max);
            assert_eq!(*u, best);
        }
        // More attributes never single out fewer people.
        assert!(bars.windows(2).all(|w| w[0].1 <= w[1].1));
    }
}
