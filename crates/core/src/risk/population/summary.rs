//! Prosecutor, journalist and marketer risk of a sample drawn from a
//! population, as ARX's `RiskModelSampleSummary` defines them (after El
//! Emam, "Guide to the De-Identification of Personal Health Information",
//! ch. "Measuring the probability of re-identification"), and k-map and
//! δ-presence against a population table.
//!
//! For sample classes j of f_j records whose population class has F_j:
//! - journalist: a record's risk is 1/F_j; the highest is 1/min F_j; the
//!   average is ARX's max(|J| / Σ_j F_j, (1/n) Σ_j f_j / F_j);
//! - marketer: (1/n) Σ_j f_j / F_j, the expected share re-identified by an
//!   attacker who links every record;
//! - k-map: min F_j (Sweeney's k-map with the population as the attacker's
//!   identification database); δ-presence (Nergiz et al. 2007): δ_j =
//!   f_j / F_j, the chance that a population member with class j's values
//!   is in the sample, with its minimum over the population's classes (0
//!   when some population class has no sample record) and its maximum.
//!
//! Choice where ARX has nothing: ARX computes journalist and marketer risk
//! only with a population table (its research subset); with only a
//! population size, F_j is unknown. anonlab then estimates a record's
//! 1/F_j by E[1/F_j | f_j] under the superpopulation model of the
//! individual risk (Benedetti–Franconi, exact method) with every record
//! weighing N/n, i.e. p = n/N, and the average by ARX's formula with
//! F̂_j = f_j N/n. The basis is reported with the figures.
//!
//! Hidden cells (README, "How semi-sensitive cells are matched"): a
//! record's sample frequency f is the size of its matched set — the
//! records that agree with it on each known attribute where neither cell
//! is hidden (`risk::original_matches`, the key count's rule) — not the
//! size of its class with the hidden cell taken as a value of its own.
//! So a class j of the simulator's partition (its records share their
//! visible values and their hiding pattern, hence their matched set) has
//! `sizes[j]` records of frequency `frequencies[j]` ≥ `sizes[j]`; without
//! hidden cells the two are equal and the formulas above are ARX's. The
//! number of classes |J| in the journalist's average is then the number
//! of matched sets, Σ_j sizes_j / f_j (|J| itself without hidden cells).

use serde::{Deserialize, Serialize};

use super::PopulationModel;
use crate::risk::individual::expected_inverse;

/// Mean and highest risk over records, and how many records have the
/// highest.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RecordRisk {
    pub mean: f64,
    pub max: f64,
    pub records_at_max: u64,
}

/// Where the population class sizes F_j come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JournalistBasis {
    /// Counted in the population table.
    PopulationTable,
    /// Estimated from the sampling fraction (module doc).
    SamplingFraction,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SampleSummary {
    pub journalist: RecordRisk,
    pub marketer: f64,
    pub basis: JournalistBasis,
    /// Per sample class: the journalist's Pr(re-id) of its records.
    pub class_risk: Vec<f64>,
    /// With a population table.
    pub k_map: Option<u64>,
    pub delta: Option<(f64, f64)>,
}

/// `sizes[j]` = the records of sample class j, `frequencies[j]` = f_j,
/// their sample frequency (the module doc: `sizes[j]` unless hidden cells
/// widen their matched set); `population[j]` = F_j when a population table
/// was matched, and `unsampled_classes` the population classes with no
/// sample record.
pub fn sample_summary(
    sizes: &[u32],
    frequencies: &[u32],
    population: Option<&[u64]>,
    unsampled_classes: u64,
    model: &PopulationModel,
) -> SampleSummary {
    let n: u64 = sizes.iter().map(|&s| u64::from(s)).sum();
    let (class_risk, total_f_hat): (Vec<f64>, f64) = match population {
        Some(pop) => (
            pop.iter().map(|&f| 1.0 / f as f64).collect(),
            pop.iter().map(|&f| f as f64).sum(),
        ),
        None => {
            let p = model.sampling_fraction();
            let mut memo: Vec<f64> = Vec::new();
            let risk = frequencies
                .iter()
                .map(|&f| {
                    // Class sizes repeat; the recurrence is O(f).
                    let i = f as usize;
                    if memo.len() <= i {
                        memo.resize(i + 1, f64::NAN);
                    }
                    if memo[i].is_nan() {
                        memo[i] = expected_inverse(f, p);
                    }
                    memo[i]
                })
                .collect();
            (risk, n as f64 / p)
        }
    };
    let (mut max, mut at_max, mut marketer_sum) = (0.0f64, 0u64, 0.0f64);
    for (&size, &r) in sizes.iter().zip(&class_risk) {
        marketer_sum += f64::from(size) * r;
        if r > max {
            max = r;
            at_max = u64::from(size);
        } else if r == max {
            at_max += u64::from(size);
        }
    }
    let marketer = if n == 0 { 0.0 } else { marketer_sum / n as f64 };
    let matched_sets: f64 = sizes
        .iter()
        .zip(frequencies)
        .map(|(&size, &f)| f64::from(size) / f64::from(f.max(1)))
        .sum();
    let per_class = if total_f_hat > 0.0 {
        matched_sets / total_f_hat
    } else {
        0.0
    };
    let (k_map, delta) = match population {
        Some(pop) => {
            let k = pop.iter().copied().min();
            let deltas = sizes
                .iter()
                .zip(pop)
                .map(|(&f, &big)| f64::from(f) / big as f64);
            let hi = deltas.clone().fold(0.0f64, f64::max);
            let lo = if unsampled_classes > 0 {
                0.0
            } else {
                deltas.fold(f64::INFINITY, f64::min)
            };
            (k, (!sizes.is_empty()).then_some((lo, hi)))
        }
        None => (None, None),
    };
    SampleSummary {
        journalist: RecordRisk {
            mean: per_class.max(marketer),
            max,
            records_at_max: at_max,
        },
        marketer,
        basis: if population.is_some() {
            JournalistBasis::PopulationTable
        } else {
            JournalistBasis::SamplingFraction
        },
        class_risk,
        k_map,
        delta,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_a_population_table_by_hand() {
        // Classes f = 1, 2, 3 with F = 2, 2, 10; one population class unsampled.
        let m = PopulationModel::with_size(6, 20).unwrap();
        let s = sample_summary(&[1, 2, 3], &[1, 2, 3], Some(&[2, 2, 10]), 1, &m);
        // marketer = (1/2 + 2/2 + 3/10) / 6; journalist mean = max(3/14, marketer).
        let marketer = (0.5 + 1.0 + 0.3) / 6.0;
        assert!((s.marketer - marketer).abs() < 1e-15);
        assert!((s.journalist.mean - marketer.max(3.0 / 14.0)).abs() < 1e-15);
        assert_eq!((s.journalist.max, s.journalist.records_at_max), (0.5, 3));
        assert_eq!(s.k_map, Some(2));
        assert_eq!(s.delta, Some((0.0, 1.0)));
        assert_eq!(s.basis, JournalistBasis::PopulationTable);
    }

    #[test]
    fn estimated_from_the_sampling_fraction() {
        let m = PopulationModel::with_size(4, 400).unwrap();
        let s = sample_summary(&[1, 1, 2], &[1, 1, 2], None, 0, &m);
        let r1 = expected_inverse(1, 0.01);
        let r2 = expected_inverse(2, 0.01);
        assert_eq!((s.journalist.max, s.journalist.records_at_max), (r1, 2));
        assert!((s.marketer - (2.0 * r1 + 2.0 * r2) / 4.0).abs() < 1e-15);
        assert!(s.journalist.mean >= s.marketer);
        assert_eq!((s.k_map, s.delta), (None, None));
    }

    /// Hidden cells widen a class's matched set: its records take the
    /// frequency of the set, not of the class (module doc).
    #[test]
    fn a_class_whose_matched_set_is_wider_takes_its_frequency() {
        let m = PopulationModel::with_size(4, 400).unwrap();
        // Two classes of one record each, both matched by 2 records (a
        // hidden cell on one of them), and a class of 2.
        let s = sample_summary(&[1, 1, 2], &[2, 2, 2], None, 0, &m);
        let r2 = expected_inverse(2, 0.01);
        assert_eq!((s.journalist.max, s.journalist.records_at_max), (r2, 4));
        assert!((s.marketer - r2).abs() < 1e-15);
        // Two matched sets over 400 people, or the marketer's mean.
        assert!((s.journalist.mean - (2.0 / 400.0f64).max(r2)).abs() < 1e-15);
    }
}
