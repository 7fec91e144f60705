//! Household (hierarchical) risk: people in one household re-identify each
//! other, so a household is disclosed when any of its members is. The
//! Handbook on Statistical Disclosure Control (Hundepool et al., §3.4 on
//! hierarchical data) and μ-ARGUS define it, and sdcMicro's `measure_risk`
//! computes it (R/measure_risk.R, `hid`, `fast_hier = TRUE`; the slower
//! C++ path, src/Measure_Hierarchical.h, expands the same product by
//! Boole's inclusion–exclusion formula):
//!
//! - a household's risk is r_h = 1 − ∏_{i ∈ h} (1 − r_i), the probability
//!   that at least one member is re-identified when the members' events
//!   are independent, r_i being each member's individual risk
//!   (`risk::individual`; 1/f when there are no sampling weights, as
//!   sdcMicro's `indivRisk(survey = FALSE)`);
//! - every member carries its household's risk; the global figures are
//!   sdcMicro's `hier_risk_ER` (the sum of r_h over records, i.e. each
//!   household counted once per member) and `hier_risk` (its mean over
//!   records).
//!
//! Choices where sdcMicro is silent: a record is "at risk through its
//! household" when its household's risk is above the threshold while its
//! own individual risk is not (those a person-level check misses); the
//! report by household size groups households by their number of records
//! in the file. A household identifier must be present on every record:
//! sdcMicro groups the missing ones into one household of their own (R's
//! `by` drops them), which would tie strangers together; anonlab refuses
//! them and names the row.

use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result};

/// `"household_risk"` of `anonlab assess --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HouseholdReport {
    /// The household identifier column.
    pub household: String,
    /// What each member's risk is: the individual risk with sampling
    /// weights (the column named), or 1/f without them.
    pub individual_risk: String,
    /// The attributes the attacker knows, whose classes give the members'
    /// risks.
    pub key_variables: Vec<String>,
    pub households: u64,
    pub records: u64,
    /// sdcMicro's `hier_risk`: the mean over records of their household's
    /// risk.
    pub mean: f64,
    pub max: f64,
    /// sdcMicro's `hier_risk_ER`: the sum over records of their
    /// household's risk.
    pub expected_reidentifications: f64,
    pub threshold: f64,
    /// Households whose risk is above the threshold.
    pub households_above_threshold: u64,
    /// Records whose household's risk is above the threshold.
    pub records_above_threshold: u64,
    /// Of those, the records whose own risk is not: at risk through their
    /// household only.
    pub records_at_risk_through_household: u64,
    /// One row per household size (members in the file), smallest first.
    pub by_size: Vec<HouseholdSizeRow>,
}

/// The households of one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HouseholdSizeRow {
    pub size: u32,
    pub households: u64,
    pub mean_risk: f64,
    pub max_risk: f64,
    pub households_above_threshold: u64,
}

/// Each row's household, numbered from 0 in order of first appearance,
/// and the number of households. A missing identifier is refused with its
/// row (file rows count the header as row 1).
pub fn households_of(ds: &Dataset, file: &str, column: &str) -> Result<(Vec<u32>, usize)> {
    let c = ds.column_index(column)?;
    if ds.is_grouped() {
        return Err(Error::invalid(
            Parameter::Household,
            "household risk needs one row per person; a frequency table merges the people of different households",
        ));
    }
    let col = ds.col(c);
    let mut number: Vec<u32> = vec![u32::MAX; col.cardinality() + 1];
    let mut next = 0u32;
    let mut of = Vec::with_capacity(ds.n_rows());
    for r in 0..ds.n_rows() {
        let code = col.code(r);
        if col.is_missing(code) {
            return Err(Error::input(
                file,
                Some(r as u64 + 2),
                Some(column.to_string()),
                "no household identifier: every record needs one (a missing identifier would tie strangers into one household)",
            ));
        }
        let slot = &mut number[code as usize];
        if *slot == u32::MAX {
            *slot = next;
            next += 1;
        }
        of.push(*slot);
    }
    Ok((of, next as usize))
}

/// Each household's risk 1 − ∏(1 − r_i) over its members' risks
/// (`individual[r]` for the row `r` of household `household[r]`).
pub fn household_risks(household: &[u32], individual: &[f64], households: usize) -> Vec<f64> {
    // ∏(1 − r_i), accumulated per household.
    let mut safe = vec![1.0f64; households];
    for (&h, &r) in household.iter().zip(individual) {
        safe[h as usize] *= 1.0 - r;
    }
    safe.into_iter().map(|s| 1.0 - s).collect()
}

/// The report of household risk over `individual` risks per row.
pub fn household_report(
    column: &str,
    individual_risk: &str,
    key_variables: &[String],
    household: &[u32],
    households: usize,
    individual: &[f64],
    threshold: f64,
) -> (HouseholdReport, Vec<f64>) {
    let risk = household_risks(household, individual, households);
    let mut size = vec![0u32; households];
    for &h in household {
        size[h as usize] += 1;
    }
    let per_record: Vec<f64> = household.iter().map(|&h| risk[h as usize]).collect();
    let n = per_record.len();
    let sum: f64 = per_record.iter().sum();
    let above = |x: f64| x > threshold;
    let mut rows: std::collections::BTreeMap<u32, HouseholdSizeRow> = Default::default();
    for (h, &r) in risk.iter().enumerate() {
        let row = rows.entry(size[h]).or_insert(HouseholdSizeRow {
            size: size[h],
            households: 0,
            mean_risk: 0.0,
            max_risk: 0.0,
            households_above_threshold: 0,
        });
        row.households += 1;
        row.mean_risk += r;
        row.max_risk = row.max_risk.max(r);
        row.households_above_threshold += u64::from(above(r));
    }
    let by_size = rows
        .into_values()
        .map(|mut row| {
            row.mean_risk /= row.households as f64;
            row
        })
        .collect();
    let report = HouseholdReport {
        household: column.to_string(),
        individual_risk: individual_risk.to_string(),
        key_variables: key_variables.to_vec(),
        households: households as u64,
        records: n as u64,
        mean: if n == 0 { 0.0 } else { sum / n as f64 },
        max: risk.iter().copied().fold(0.0, f64::max),
        expected_reidentifications: sum,
        threshold,
        households_above_threshold: risk.iter().filter(|&&r| above(r)).count() as u64,
        records_above_threshold: per_record.iter().filter(|&&r| above(r)).count() as u64,
        records_at_risk_through_household: per_record
            .iter()
            .zip(individual)
            .filter(|&(&h, &i)| above(h) && !above(i))
            .count() as u64,
        by_size,
    };
    (report, per_record)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three households by hand: {0.5, 0.5}, {0.1}, {0.2, 0.5, 0.0}.
    #[test]
    fn a_household_is_at_risk_when_any_member_is() {
        let household = [0, 0, 1, 2, 2, 2];
        let individual = [0.5, 0.5, 0.1, 0.2, 0.5, 0.0];
        let risk = household_risks(&household, &individual, 3);
        assert!((risk[0] - 0.75).abs() < 1e-15);
        assert!((risk[1] - 0.1).abs() < 1e-15);
        assert!((risk[2] - (1.0 - 0.8 * 0.5)).abs() < 1e-15);
        let (r, per_record) = household_report("hh", "1/f", &[], &household, 3, &individual, 0.55);
        let want = [0.75, 0.75, 0.1, 0.6, 0.6, 0.6];
        for (got, want) in per_record.iter().zip(want) {
            assert!((got - want).abs() < 1e-15, "{per_record:?}");
        }
        // hier_risk_ER: each household once per member.
        let er = 2.0 * 0.75 + 0.1 + 3.0 * 0.6;
        assert!((r.expected_reidentifications - er).abs() < 1e-12);
        assert!((r.mean - er / 6.0).abs() < 1e-12);
        assert_eq!(r.max, 0.75);
        assert_eq!(r.households_above_threshold, 2);
        assert_eq!(r.records_above_threshold, 5);
        // Nobody's own risk is above 0.55: all five through the household.
        assert_eq!(r.records_at_risk_through_household, 5);
        let sizes: Vec<(u32, u64)> = r.by_size.iter().map(|s| (s.size, s.households)).collect();
        assert_eq!(sizes, [(1, 1), (2, 1), (3, 1)]);
        assert_eq!(r.by_size[2].households_above_threshold, 1);
    }

    /// Boole's formula, as sdcMicro's C++ path expands it, equals the
    /// product form.
    #[test]
    fn the_product_is_boole_s_formula() {
        let r = [0.3, 0.25, 0.6, 0.05];
        let mut boole = 0.0;
        for subset in 1u32..16 {
            let members: Vec<f64> = (0..4)
                .filter(|i| subset & (1 << i) != 0)
                .map(|i| r[i])
                .collect();
            let sign = if members.len() % 2 == 1 { 1.0 } else { -1.0 };
            boole += sign * members.iter().product::<f64>();
        }
        let risk = household_risks(&[0, 0, 0, 0], &r, 1);
        assert!((risk[0] - boole).abs() < 1e-15, "{} {boole}", risk[0]);
    }

    proptest::proptest! {
        /// A household's risk lies between its riskiest member's and the
        /// sum of its members' (Boole's bounds), and in [0, 1].
        #[test]
        fn household_risk_is_bounded_by_its_members(
            members in proptest::collection::vec((0u32..6, 0.0f64..=1.0), 1..40),
        ) {
            let household: Vec<u32> = members.iter().map(|m| m.0).collect();
            let individual: Vec<f64> = members.iter().map(|m| m.1).collect();
            let risk = household_risks(&household, &individual, 6);
            for (h, &r) in risk.iter().enumerate() {
                let mine: Vec<f64> = members
                    .iter()
                    .filter(|m| m.0 as usize == h)
                    .map(|m| m.1)
                    .collect();
                let max = mine.iter().copied().fold(0.0, f64::max);
                let sum: f64 = mine.iter().sum();
                proptest::prop_assert!((0.0..=1.0).contains(&r), "{}", r);
                proptest::prop_assert!(r >= max - 1e-12 && r <= sum + 1e-12, "{} {} {}", r, max, sum);
            }
        }
    }

    #[test]
    fn a_single_person_household_has_its_member_s_risk() {
        let risk = household_risks(&[0, 1], &[0.125, 1.0], 2);
        assert_eq!(risk, [0.125, 1.0]);
    }
}
