//! The slide negative binomial (SNB) model of population uniqueness (Chen
//! and Keller-McNulty 1998, "Estimation of identification disclosure risk
//! in microdata"), as ARX's `ModelSNB` computes it.
//!
//! Population class sizes are 1 + a negative binomial NB(α, β), so that
//! P(F = 1) = β^α; a class of F members appears f times in a Bernoulli(π)
//! sample. With K population classes, the expected numbers of sample
//! classes of size 1 and 2 are
//!   E[u₁] = Kπ (β / (1 − d))^α (αd / (1 − d) + 1),
//!   E[u₂] = Kαβ^α π² (1 − β) / 2 · (1 − d)^{−(α+2)} (2 − (1 − α)d),
//! with d = (1 − π)(1 − β) (both from the sample's probability generating
//! function E[t^f] = G(1 − π + πt), G(s) = s (β / (1 − (1 − β)s))^α:
//! P(f = 1) = π G′(1 − π), P(f = 2) = π²/2 G″(1 − π)); (α, β) solve
//! E[u₁] = u₁, E[u₂] = u₂ by Newton–Raphson from (1, 1) with ARX's
//! settings, and the population uniques are K β^α.
//!
//! K, the number of non-empty population classes, is estimated from the
//! sample by the Shlosser-type estimator of Haas et al. (1995):
//!   K̂ = u + u₁ · Σ_i i π²(1 − π²)^{i−1} c_i / Σ_i (1 − π)^i ((1 + π)^i − 1) c_i
//!          · (Σ_i (1 − π)^i c_i / Σ_i i π (1 − π)^{i−1} c_i)².
//!
//! Choices: this follows the model, where ARX's `ModelSNB` slips twice.
//! (1) ARX writes the E[u₂] equation with (1 − d)^{+(α+2)}, the exponent's
//! sign flipped (its Jacobian is that of the flipped equation). (2) It
//! computes K̂'s second denominator as Σ_i ((1 − π)^i (1 + π)^i c_i − 1),
//! subtracting 1 per distinct class size instead of (1 − π)^i c_i (a
//! precedence slip). Its SNB figures therefore differ from these;
//! BENCHMARKS.md (issue 17) shows that ARX with both corrected agrees.
//! (3) When ARX's search (Newton from (1, 1), then its 16 start values)
//! finds no root, anonlab tries twelve more starts spread over the
//! parameter space (α ∈ {0.1, 0.5, 1, 3}, β ∈ {0.001, 0.01, 0.1}), one try
//! each, keeping α > 0 and 0 < β ≤ 1: on Adult the equations have roots at
//! β ≈ 0.005–0.06 that ARX's starts never reach, where ARX reports no
//! estimate. Only when these fail too is the model "did not converge".

use super::solver::{solve, solve_once, Equations, Evaluation, SolverSettings};
use crate::stats::SizeCounts;

/// Starts (α, β) tried, each once, when ARX's search finds no root: the
/// roots on real data often have β of 0.001–0.1, far from ARX's starts.
const WIDER_STARTS: [(f64, f64); 12] = [
    (0.1, 0.001),
    (0.1, 0.01),
    (0.1, 0.1),
    (0.5, 0.001),
    (0.5, 0.01),
    (0.5, 0.1),
    (1.0, 0.001),
    (1.0, 0.01),
    (1.0, 0.1),
    (3.0, 0.001),
    (3.0, 0.01),
    (3.0, 0.1),
];

/// Expected population uniques under the SNB model.
pub fn snb(table: &SizeCounts, population: u64, settings: &SolverSettings) -> Result<f64, String> {
    let c1 = table.of_size(1) as f64;
    let c2 = table.of_size(2) as f64;
    let f = table.records as f64 / population as f64;
    let k = population_classes(table, f);
    let mut eq = Moments { k, f, c1, c2 };
    let root = solve(&mut eq, |_| true, (1.0, 1.0), settings).or_else(|| {
        // ARX's starts miss roots with a small β; try the model's
        // parameter space more widely (module doc).
        WIDER_STARTS.iter().find_map(|&s| {
            solve_once(
                &mut eq,
                |(a, b)| a > 0.0 && b > 0.0 && b <= 1.0,
                s,
                settings,
            )
        })
    });
    let Some((alpha, beta)) = root else {
        return Err(
            "the SNB model did not converge (no root of its moment equations was found)".into(),
        );
    };
    let value = k * beta.powf(alpha);
    if value.is_finite() && value > 0.0 && value <= population as f64 {
        Ok(value)
    } else {
        Err(format!(
            "the SNB model gave α = {alpha:.6}, β = {beta:.6}: {value} population uniques, which is no estimate"
        ))
    }
}

/// Haas et al.'s Shlosser-type estimate of the number of population
/// classes from the sample's (module doc).
pub fn population_classes(table: &SizeCounts, f: f64) -> f64 {
    if f >= 1.0 {
        // A census: every class is in it.
        return table.classes as f64;
    }
    let (mut num, mut den, mut a, mut b) = (0.0, 0.0, 0.0, 0.0);
    let f2 = f * f;
    for &(size, count) in &table.counts {
        let i = f64::from(size);
        let c = count as f64;
        let q = (1.0 - f).powf(i) * c;
        num += i * f2 * (1.0 - f2).powf(i - 1.0) * c;
        den += q * ((1.0 + f).powf(i) - 1.0);
        a += q;
        b += i * f * (1.0 - f).powf(i - 1.0) * c;
    }
    table.classes as f64 + table.of_size(1) as f64 * (num / den) * (a / b) * (a / b)
}

/// The two moment equations and their Jacobian.
struct Moments {
    k: f64,
    f: f64,
    c1: f64,
    c2: f64,
}

impl Equations for Moments {
    fn eval(&mut self, (a, b): (f64, f64)) -> Option<Evaluation> {
        let Moments { k, f, c1, c2 } = *self;
        let q = 1.0 - f;
        let d = q * (1.0 - b);
        let big_d = 1.0 - d;
        let (ln_b, ln_d) = (b.ln(), big_d.ln());
        // E[u₁] = Kπ · A · B, A = β^α D^−α, B = αd/D + 1.
        let a_ = (a * (ln_b - ln_d)).exp();
        let b_ = a * d / big_d + 1.0;
        let e1 = k * f * a_ * b_ - c1;
        let a_da = a_ * (ln_b - ln_d);
        let a_db = a_ * a * (1.0 / b - q / big_d);
        let b_da = d / big_d;
        let b_db = -a * q / (big_d * big_d);
        // E[u₂] = (Kπ²/2) · P · (1 − β) · R, P = αβ^α D^−(α+2), R = 2 − (1 − α)d.
        let c = k * f * f / 2.0;
        let base = (a * ln_b - (a + 2.0) * ln_d).exp();
        let p = a * base;
        let r = 2.0 - (1.0 - a) * d;
        let e2 = c * p * (1.0 - b) * r - c2;
        let p_da = base * (1.0 + a * (ln_b - ln_d));
        let p_db = p * (a / b - (a + 2.0) * q / big_d);
        let r_da = d;
        let r_db = (1.0 - a) * q;
        Some((
            (e1, e2),
            [
                [
                    k * f * (a_da * b_ + a_ * b_da),
                    k * f * (a_db * b_ + a_ * b_db),
                ],
                [
                    c * (p_da * (1.0 - b) * r + p * (1.0 - b) * r_da),
                    c * (p_db * (1.0 - b) * r - p * r + p * (1.0 - b) * r_db),
                ],
            ],
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equations_are_the_sample_class_probabilities() {
        // P(f = 1) and P(f = 2) summed from the model's definition:
        // F = 1 + NB(α, β), f | F binomial(F, π).
        let (k, f, a, b) = (1.0, 0.3f64, 0.7f64, 0.4f64);
        let (mut p1, mut p2) = (0.0, 0.0);
        let mut log_nb = a * b.ln(); // log P(Y = 0)
        for y in 0..2000u32 {
            let big_f = f64::from(y + 1);
            let nb = log_nb.exp();
            p1 += nb * big_f * f * (1.0 - f).powf(big_f - 1.0);
            p2 += nb * big_f * (big_f - 1.0) / 2.0 * f * f * (1.0 - f).powf(big_f - 2.0);
            // P(Y = y + 1) / P(Y = y) = (y + α)/(y + 1) (1 − β)
            log_nb += ((f64::from(y) + a) / f64::from(y + 1) * (1.0 - b)).ln();
        }
        let mut m = Moments {
            k,
            f,
            c1: 0.0,
            c2: 0.0,
        };
        let ((e1, e2), _) = m.eval((a, b)).unwrap();
        assert!((e1 - p1).abs() < 1e-12, "{e1} vs {p1}");
        assert!((e2 - p2).abs() < 1e-12, "{e2} vs {p2}");
    }

    #[test]
    fn jacobian_matches_finite_differences() {
        let mut m = Moments {
            k: 5000.0,
            f: 0.3,
            c1: 400.0,
            c2: 100.0,
        };
        for (a, b) in [(1.0, 0.5), (0.7, 0.3), (2.0, 0.8)] {
            let (_, j) = m.eval((a, b)).unwrap();
            let h = 1e-6;
            let (fa, _) = m.eval((a + h, b)).unwrap();
            let (fa0, _) = m.eval((a - h, b)).unwrap();
            let (fb, _) = m.eval((a, b + h)).unwrap();
            let (fb0, _) = m.eval((a, b - h)).unwrap();
            let num = [
                [(fa.0 - fa0.0) / (2.0 * h), (fb.0 - fb0.0) / (2.0 * h)],
                [(fa.1 - fa0.1) / (2.0 * h), (fb.1 - fb0.1) / (2.0 * h)],
            ];
            for r in 0..2 {
                for c in 0..2 {
                    let (x, y) = (j[r][c], num[r][c]);
                    assert!(
                        (x - y).abs() <= 1e-4 * y.abs().max(1.0),
                        "({a},{b}) [{r}][{c}]: {x} vs {y}"
                    );
                }
            }
        }
    }

    #[test]
    fn shlosser_on_a_census_counts_the_classes() {
        // π = 1: every class is seen, K̂ = u.
        let t = SizeCounts::from_sizes(&[1, 1, 2, 5]);
        assert!((population_classes(&t, 1.0) - 4.0).abs() < 1e-12);
    }
}
