//! Zayatz's model of population uniqueness (Zayatz 1991, "Estimation of
//! the number of unique population elements using a sample"), as ARX's
//! `ModelZayatz` computes it.
//!
//! A sample unique is a population unique with probability
//!   P(F = 1 | f = 1) = P(F = 1) P(f = 1 | F = 1) / Σ_K P(F = K) P(f = 1 | F = K),
//! where P(f = 1 | F = K) is hypergeometric (one of the class's K members in
//! a simple random sample of n from N) and the distribution of population
//! class sizes P(F = K) is estimated by the sample's, c_K / u. The estimated
//! number of population uniques is then u₁ · P(F = 1 | f = 1) / (n / N).
//!
//! Choice: ARX casts N and n to 32-bit integers for the hypergeometric
//! distribution, which overflows above 2³¹ − 1; here they stay 64-bit.

use super::special::hypergeometric_one;
use crate::stats::SizeCounts;

/// Expected population uniques under Zayatz's model.
pub fn zayatz(table: &SizeCounts, population: u64) -> Result<f64, String> {
    let n = table.records;
    let u = table.classes as f64;
    let u1 = table.of_size(1) as f64;
    let weighted: f64 = table
        .counts
        .iter()
        .map(|&(size, count)| count as f64 / u * hypergeometric_one(population, u64::from(size), n))
        .sum();
    let conditional = u1 / u * hypergeometric_one(population, 1, n) / weighted;
    let fraction = n as f64 / population as f64;
    let value = u1 * conditional / fraction;
    if value.is_finite() && value > 0.0 && value <= population as f64 {
        Ok(value)
    } else {
        Err(format!("Zayatz's model gave {value}, which is no estimate"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_census_has_exactly_its_uniques() {
        // n = N: every sample unique is a population unique.
        let t = SizeCounts::from_sizes(&[1, 1, 1, 2, 3]);
        let z = zayatz(&t, t.records).unwrap();
        assert!((z - 3.0).abs() < 1e-12, "{z}");
    }

    #[test]
    fn by_hand_on_a_small_table() {
        // N = 20, n = 8: classes 1,1,2,4 (u = 4, u1 = 2).
        // P1 = 8/20; P2 = 2·C(18,7)/C(20,8); P4 = 4·C(16,7)/C(20,8).
        let choose = |n: u64, k: u64| -> f64 {
            (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
        };
        let p = |k: u64| k as f64 * choose(20 - k, 7) / choose(20, 8);
        let cond = (2.0 / 4.0 * p(1)) / (2.0 / 4.0 * p(1) + 0.25 * p(2) + 0.25 * p(4));
        let want = 2.0 * cond / (8.0 / 20.0);
        let t = SizeCounts::from_sizes(&[1, 1, 2, 4]);
        assert!((zayatz(&t, 20).unwrap() - want).abs() < 1e-12);
    }
}
