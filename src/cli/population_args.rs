//! `anonlab assess` flags for the statistics offices' measures:
//! the population, sampling weights, special uniques and attribute risks,
//! and their part of the readable report.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use anonlab::assess::AssessReport;
use anonlab::data::{IndividualMethod, PopulationSettings};
use anonlab::risk::population::JournalistBasis;

#[derive(Debug, Args)]
pub struct PopulationArgs {
    /// The file is a sample of a population of N people (journalist and
    /// marketer risk, population uniqueness).
    #[arg(long = "population-size", value_name = "N", group = "population_model")]
    pub population_size: Option<u64>,
    /// The file is this share of its population (N = round(rows / F)).
    #[arg(
        long = "sampling-fraction",
        value_name = "F",
        group = "population_model"
    )]
    pub sampling_fraction: Option<f64>,
    /// A CSV of the whole population with the same attribute columns:
    /// journalist risk, k-map and δ-presence counted in it.
    #[arg(long = "population", value_name = "FILE", group = "population_model")]
    pub population: Option<PathBuf>,
    /// Column of sampling weights: sdcMicro's individual risk per record.
    #[arg(long, value_name = "COL")]
    pub weights: Option<String>,
    /// Individual-risk method: approx (sdcMicro's default) or exact.
    #[arg(
        long = "individual-method",
        value_name = "METHOD",
        requires = "weights"
    )]
    pub individual_method: Option<IndividualMethod>,
    /// Search minimal sample uniques (SUDA) up to this many attributes
    /// (4 when given without a value).
    #[arg(long, value_name = "MAX", num_args = 0..=1, default_missing_value = "4")]
    pub suda: Option<usize>,
    /// Distinction, separation and uniques of every combination of the
    /// attacker's attributes (at most 12 attributes).
    #[arg(long = "attribute-risks")]
    pub attribute_risks: bool,
    /// Column of household identifiers: household risk 1 − ∏(1 − r_i) of
    /// its members' individual risks (sdcMicro's measure_risk with hid).
    #[arg(long, value_name = "COL")]
    pub household: Option<String>,
    /// μ-ARGUS's threshold rule: count the cells of every combination of
    /// up to M of the attacker's attributes holding at most
    /// --risky-threshold records (sdcMicro's riskyCells).
    #[arg(long = "risky-cells", value_name = "M")]
    pub risky_cells: Option<usize>,
    /// A cell is risky when at most this many records share it (default 1:
    /// the sample uniques of each combination).
    #[arg(long = "risky-threshold", value_name = "T", requires = "risky_cells")]
    pub risky_threshold: Option<u64>,
}

impl PopulationArgs {
    /// Override the project's settings with the flags given.
    pub fn apply(&self, s: &mut PopulationSettings) {
        if self.population_size.is_some()
            || self.sampling_fraction.is_some()
            || self.population.is_some()
        {
            s.size = self.population_size;
            s.sampling_fraction = self.sampling_fraction;
            s.table = self.population.clone();
        }
        if let Some(w) = &self.weights {
            s.weights = Some(w.clone());
        }
        if let Some(m) = self.individual_method {
            s.individual_method = m;
        }
        if let Some(m) = self.suda {
            s.suda_max_size = Some(m);
        }
        if self.attribute_risks {
            s.attribute_risks = true;
        }
        if let Some(h) = &self.household {
            s.household = Some(h.clone());
        }
        if let Some(m) = self.risky_cells {
            s.risky_cells = Some(anonlab::data::RiskyCellsRule {
                max_size: m,
                threshold: self.risky_threshold.unwrap_or(1),
            });
        }
    }
}

fn share(x: Option<f64>) -> String {
    match x {
        Some(v) => format!("{:.4}%", 100.0 * v),
        None => "did not converge".into(),
    }
}

/// The readable report's part for these measures.
pub fn human(r: &AssessReport) -> String {
    let mut o = String::new();
    let th = r.risk.threshold;
    if let Some(p) = &r.population {
        let _ = writeln!(
            o,
            "\nthe file as a sample: population {} people, sampling fraction {:.6}",
            anonlab::format::thousands(p.population_size),
            p.sampling_fraction
        );
        let basis = match p.journalist_basis {
            JournalistBasis::PopulationTable => "counted in the population table".to_string(),
            JournalistBasis::SamplingFraction => {
                "estimated from the sampling fraction (Benedetti–Franconi, every record standing for N/n)".to_string()
            }
        };
        let _ = writeln!(
            o,
            "  prosecutor (the file is the population)  mean {:.4}   max {:.4} ({} records)",
            p.prosecutor.mean, p.prosecutor.max, p.prosecutor.records_at_max
        );
        let _ = writeln!(
            o,
            "  journalist (look-alikes in the population) mean {:.4}   max {:.4} ({} records); {basis}",
            p.journalist.mean, p.journalist.max, p.journalist.records_at_max
        );
        let _ = writeln!(
            o,
            "  marketer (expected share re-identified)  {:.4}",
            p.marketer
        );
        let u = &p.population_uniques;
        let _ = writeln!(
            o,
            "  unique in the file {:.2}% of records; estimated unique in the population: Pitman {}, Zayatz {}, SNB {}",
            100.0 * p.sample_uniques,
            share(u.pitman),
            share(u.zayatz),
            share(u.snb)
        );
        match (u.dankar, u.dankar_model) {
            (Some(v), Some(m)) => {
                let _ = writeln!(
                    o,
                    "  Dankar et al.'s rule picks {} (sampling fraction {} 0.1): {} of the population is unique",
                    m.label(),
                    if p.sampling_fraction <= 0.1 { "≤" } else { ">" },
                    share(Some(v))
                );
            }
            (Some(v), None) => {
                let _ = writeln!(o, "  population uniques: {}", share(Some(v)));
            }
            _ => {
                let _ = writeln!(o, "  Dankar et al.'s rule: no estimate");
            }
        }
        for note in &u.notes {
            let _ = writeln!(o, "    note: {note}");
        }
        if let Some(k) = p.k_map {
            let _ = writeln!(
                o,
                "  k-map {k} (smallest population class of a sample record)"
            );
        }
        if let Some(d) = p.delta_presence {
            let _ = writeln!(o, "  δ-presence: δ from {:.4} to {:.4}", d.min, d.max);
        }
    }
    if let Some(i) = &r.individual_risk {
        let _ = writeln!(
            o,
            "\nindividual risk with sampling weights '{}' (sdcMicro, {}): mean {:.4}, max {:.4}, expected re-identifications {:.1}, above {th:.2}: {} records",
            i.weights,
            i.method.name(),
            i.mean,
            i.max,
            i.expected_reidentifications,
            i.records_above_threshold
        );
    }
    if let Some(h) = &r.household_risk {
        let _ = writeln!(
            o,
            "\nhousehold risk by '{}' ({} households; each member's risk: {}): mean {:.4} over records, max {:.4}, expected re-identifications {:.1}; above {th:.2}: {} households, {} records, of them {} at risk through their household only",
            h.household,
            anonlab::format::thousands(h.households),
            h.individual_risk,
            h.mean,
            h.max,
            h.expected_reidentifications,
            anonlab::format::thousands(h.households_above_threshold),
            anonlab::format::thousands(h.records_above_threshold),
            anonlab::format::thousands(h.records_at_risk_through_household),
        );
        let _ = writeln!(
            o,
            "  by household size: size  households  mean risk  max risk  above {th:.2}"
        );
        for s in &h.by_size {
            let _ = writeln!(
                o,
                "  {:>23}  {:>10}  {:>9.4}  {:>8.4}  {:>10}",
                s.size,
                anonlab::format::thousands(s.households),
                s.mean_risk,
                s.max_risk,
                anonlab::format::thousands(s.households_above_threshold)
            );
        }
    }
    if let Some(c) = &r.risky_cells {
        let _ = writeln!(
            o,
            "\nrisky cells (μ-ARGUS threshold rule, sdcMicro's riskyCells): {} cells of at most {} records over {} combinations of up to {} of {}; {} records in at least one",
            anonlab::format::thousands(c.total_cells),
            c.threshold,
            c.combinations.len(),
            c.max_size,
            c.key_variables.join(", "),
            anonlab::format::thousands(c.records_in_risky_cells),
        );
        for x in &c.combinations {
            let _ = writeln!(
                o,
                "  {:<48} {:>8} cells  {:>8} records",
                format!("{{{}}}", x.attributes.join(", ")),
                anonlab::format::thousands(x.cells),
                anonlab::format::thousands(x.records)
            );
        }
    }
    if let Some(s) = &r.suda {
        let _ = writeln!(
            o,
            "\nspecial uniques (SUDA, MSUs up to {} attributes): {} records have an MSU; MSUs by size {:?}; DIS-SUDA mean {:.4}, max {:.4} (sampling fraction {})",
            s.max_msu_size,
            s.records_with_msu,
            s.msu_counts_by_size,
            s.dis_suda.mean,
            s.dis_suda.max,
            s.dis_fraction
        );
        let mut contrib: Vec<_> = s.attribute_contributions.iter().collect();
        contrib.sort_by(|a, b| b.contribution.total_cmp(&a.contribution));
        let list: Vec<String> = contrib
            .iter()
            .map(|c| format!("{} {:.1}%", c.attribute, c.contribution))
            .collect();
        let _ = writeln!(o, "  attribute contributions: {}", list.join(", "));
    }
    if let Some(a) = &r.attribute_risks {
        let _ = writeln!(
            o,
            "\nwhich attributes make people unique ({} combinations; the riskiest of each size)",
            a.len()
        );
        let mut shown = 0;
        let mut last = 0;
        for x in a {
            if x.attributes.len() != last {
                last = x.attributes.len();
                shown = 0;
            }
            if shown < 3 {
                let _ = writeln!(
                    o,
                    "  {:<48} uniques {:>6.2}%  distinction {:.4}  separation {:.4}",
                    format!("{{{}}}", x.attributes.join(", ")),
                    100.0 * x.uniques,
                    x.distinction,
                    x.separation
                );
                shown += 1;
            }
        }
    }
    o
}
