//! Individual risk with sampling weights (Benedetti and Franconi 1998;
//! Franconi and Polettini 2004, "Individual risk estimation in μ-Argus: a
//! review"), as sdcMicro's `measure_risk` / `indivRisk` compute it.
//!
//! A record in a sample class of f records whose weights sum to F̂ (the
//! class's grossed-up population size) has re-identification risk
//! r = E[1/F | f]: F − f given f is negative binomial with success
//! probability p = f / F̂ under the superpopulation model. Then
//! - **approx** (sdcMicro's default): r = (p/q) log(1/p) for f = 1,
//!   p/q − (p/q)² log(1/p) for f = 2, and p / (f − q) for f > 2 (q = 1 − p);
//! - **exact**: E[1/F | f] itself for every f, which equals
//!   ∫₀¹ p s^{f−1} / (p + q s) ds. sdcMicro's exact method evaluates the
//!   closed form of this integral as an alternating sum, which cancels
//!   catastrophically once f reaches a few dozen (it returns NaN or
//!   nonsense there); here J_f = ∫₀¹ s^{f−1}/(p + qs) ds comes from the
//!   recurrence q J_{f+1} = 1/f − p J_f, stable for p ≤ 1/2 (errors shrink
//!   by p/q a step), and for p > 1/2 from the series
//!   J_f = Σ_k q^k k!(f−1)!/(f+k)! (positive terms, ratio below q ≤ 1/2).
//!   The two agree with sdcMicro's closed form wherever that is accurate
//!   (tests below use sdcMicro's own test vectors).
//! - A class whose weights sum to its size (F̂ = f, e.g. all weights 1) has
//!   r = 1/f, as in sdcMicro.
//!
//! The global risk is the mean of r over records and the expected number
//! of re-identifications their sum (sdcMicro's `global_risk` and
//! `global_risk_ER`). sdcMicro treats a missing key value as matching any
//! value; anonlab treats it as a value of its own, as everywhere else.
//!
//! Weights are validated: present, finite and at least 1 (a weight is the
//! number of population members a record stands for, itself included; a
//! class with F̂ < f would make p > 1 and the risk negative).

pub use crate::data::IndividualMethod;

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result};

/// The weights column, validated: numeric, present and at least 1 in every
/// row, and not an attribute the attacker knows.
pub fn sampling_weights(ds: &Dataset, file: &str, known: &[usize], name: &str) -> Result<Vec<f64>> {
    let c = ds.column_index(name)?;
    if known.contains(&c) {
        return Err(Error::invalid(
            Parameter::Weights,
            format!(
                "'{name}' is both a sampling-weight column and an attribute the attacker knows"
            ),
        ));
    }
    let col = ds.col(c);
    let at =
        |r: usize, msg: String| Error::input(file, Some(r as u64 + 2), Some(name.to_string()), msg);
    (0..ds.n_rows())
        .map(|r| {
            let code = col.code(r);
            if col.is_missing(code) {
                return Err(at(r, "no sampling weight: every record needs one".into()));
            }
            // A column with any text in it is read as categorical: parse
            // its cells by the data's own number rule (data::number: up to
            // ±1e150, so a sum of weights stays finite and no risk figure
            // can become NaN), so the message names the cell that is not a
            // number.
            let Some(w) = col.number(code).or_else(|| {
                crate::data::number::Decimal::parse(col.display(code)).map(|d| d.to_f64())
            }) else {
                return Err(at(
                    r,
                    format!(
                        "'{}' is not a number: sampling weights must be numbers (below 1e150, as every number anonlab reads)",
                        col.display(code)
                    ),
                ));
            };
            if w <= 0.0 {
                return Err(at(
                    r,
                    format!(
                        "sampling weight {w} is not positive: a weight is the number of people a record stands for (at least 1, itself)"
                    ),
                ));
            }
            if !w.is_finite() || w < 1.0 {
                return Err(at(
                    r,
                    format!(
                        "sampling weight {w} is not a finite number of at least 1 (a record stands for itself and the people like it it represents)"
                    ),
                ));
            }
            Ok(w)
        })
        .collect()
}

/// How far above a risk threshold a computed risk may lie and still be
/// "at most" it: sums of weights and products over household members,
/// taken in different orders by different code, differ in the last bits
/// (a household of risks 0.1, 0.1, 1/9, … whose exact risk is 1/2 comes
/// out as 0.5000000000000001).
pub const ROUNDING: f64 = 1e-12;

/// The risk of a record in a class of `f` records with weights summing to
/// `weight_sum` (≥ f).
pub fn class_risk(f: u32, weight_sum: f64, method: IndividualMethod) -> f64 {
    let ff = f64::from(f);
    if f == 0 {
        return 0.0;
    }
    if weight_sum <= ff {
        return 1.0 / ff;
    }
    let p = ff / weight_sum;
    match method {
        IndividualMethod::Exact => expected_inverse(f, p),
        IndividualMethod::Approx => {
            let q = 1.0 - p;
            match f {
                1 => p / q * (1.0 / p).ln(),
                2 => p / q - (p / q) * (p / q) * (1.0 / p).ln(),
                _ => p / (ff - q),
            }
        }
    }
}

/// E[1/F | f] when F − f is negative binomial(f, p): the exact individual
/// risk (module doc), for 0 < p ≤ 1.
pub fn expected_inverse(f: u32, p: f64) -> f64 {
    if f == 0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0 / f64::from(f);
    }
    let q = 1.0 - p;
    let j = if p <= 0.5 {
        // J_1 = log(1/p)/q, then q J_{k+1} = 1/k − p J_k.
        let mut j = (1.0 / p).ln() / q;
        for k in 1..f {
            j = (1.0 / f64::from(k) - p * j) / q;
        }
        j
    } else {
        // J_f = Σ_k q^k k!(f−1)!/(f+k)!: term_0 = 1/f, term_{k+1}/term_k
        // = q (k+1)/(f+k+1).
        let ff = f64::from(f);
        let mut term = 1.0 / ff;
        let mut sum = term;
        let mut k = 0.0;
        while term > sum * 1e-18 {
            term *= q * (k + 1.0) / (ff + k + 1.0);
            sum += term;
            k += 1.0;
        }
        sum
    };
    p * j
}

#[cfg(test)]
mod tests {
    use super::*;

    /// sdcMicro's tests/testthat/test_indivRisk.R: keys and weights of its
    /// 8-row sample, expected rk for approx and exact (8 decimals).
    #[test]
    fn sdcmicro_test_vectors() {
        let w = [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51.0];
        let approx = [
            0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883, 0.01877883, 0.03931625,
            0.01369863,
        ];
        let exact = [
            0.01355297, 0.08579129, 0.01355297, 0.17707583, 0.01877883, 0.01877883, 0.03931625,
            0.01355297,
        ];
        // Column-major, as R fills the array.
        let a = [2, 3, 2, 2, 3, 3, 1, 2];
        let b = [3, 3, 3, 3, 3, 3, 4, 3];
        let c = [1, 3, 1, 2, 1, 1, 1, 1];
        for r in 0..8 {
            let key = (a[r], b[r], c[r]);
            let members: Vec<usize> = (0..8).filter(|&s| (a[s], b[s], c[s]) == key).collect();
            let f = members.len() as u32;
            let sum: f64 = members.iter().map(|&s| w[s]).sum();
            for (method, want) in [
                (IndividualMethod::Approx, approx),
                (IndividualMethod::Exact, exact),
            ] {
                let got = class_risk(f, sum, method);
                assert!(
                    (got - want[r]).abs() < 5e-9,
                    "row {r} {method:?}: {got} vs {}",
                    want[r]
                );
            }
        }
    }

    #[test]
    fn exact_is_the_negative_binomial_expectation() {
        // Σ_h C(f+h−1, h) p^f q^h / (f + h), summed directly.
        for (f, p) in [
            (1u32, 0.3f64),
            (2, 0.05),
            (5, 0.2),
            (7, 0.7),
            (30, 0.9),
            (3, 0.5),
        ] {
            let q = 1.0 - p;
            let mut term = p.powi(f as i32); // h = 0
            let mut sum = 0.0;
            for h in 0..20_000u32 {
                sum += term / f64::from(f + h);
                term *= f64::from(f + h) / f64::from(h + 1) * q;
            }
            let got = expected_inverse(f, p);
            assert!((got - sum).abs() < 1e-12, "f {f} p {p}: {got} vs {sum}");
        }
        // Large classes, where sdcMicro's closed form breaks down.
        let r = expected_inverse(200, 0.01);
        assert!(r > 0.0 && r < 1.0 / 200.0, "{r}");
        assert!((expected_inverse(1000, 0.001) * 1000.0 / 0.001 - 1.0).abs() < 0.01);
    }

    #[test]
    fn unit_weights_give_the_prosecutor_risk() {
        for f in 1..6 {
            for m in [IndividualMethod::Approx, IndividualMethod::Exact] {
                assert_eq!(class_risk(f, f64::from(f), m), 1.0 / f64::from(f));
            }
        }
    }

    proptest::proptest! {
        /// Issue 36, item 10: weights reach 1e150 each (the data's number
        /// rule), so a class's weight sum spans f to f·1e150 and beyond for
        /// a large sample; from the smallest step above f (p rounding to
        /// just below 1) to the largest, the risk is a figure in [0, 1/f],
        /// never NaN: E[1/F | f] with F ≥ f.
        #[test]
        fn risk_is_a_figure_for_every_weight_sum(
            f in 1u32..3000,
            log_factor in 0.0f64..160.0,
            ulps in 0u64..4,
        ) {
            let ff = f64::from(f);
            let sum = if log_factor < 1.0 {
                // The sums just above f, where q = 1 − p is a few ulps.
                f64::from_bits(ff.to_bits() + ulps)
            } else {
                ff * 10f64.powf(log_factor)
            };
            for m in [IndividualMethod::Approx, IndividualMethod::Exact] {
                let r = class_risk(f, sum, m);
                proptest::prop_assert!(
                    r.is_finite() && r >= 0.0 && r <= (1.0 / ff) * (1.0 + 1e-9),
                    "f {} sum {:e} {:?}: {}", f, sum, m, r
                );
            }
        }
    }
}
