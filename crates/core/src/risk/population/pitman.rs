//! Pitman's model of population uniqueness (Hoshino 2001, "Applying
//! Pitman's sampling formula to microdata disclosure risk assessment"), as
//! ARX's `ModelPitman` computes it.
//!
//! The sample's classes are taken to follow the Ewens–Pitman sampling
//! formula with parameters θ > −α, 0 ≤ α < 1. With u classes among n
//! records and c_s classes of size s, the log-likelihood is
//!   L(θ, α) = Σ_{i=1}^{u−1} log(θ + iα) − Σ_{i=1}^{n−1} log(θ + i)
//!             + Σ_s c_s Σ_{l=1}^{s−1} log(l − α),
//! and the maximum-likelihood (θ, α) solve ∂L/∂θ = ∂L/∂α = 0:
//!   Σ_{i<u} 1/(θ + iα) − Σ_{i<n} 1/(θ + i) = 0,
//!   Σ_{i<u} i/(θ + iα) − Σ_s c_s Σ_{l<s} 1/(l − α) = 0.
//! The expected number of population uniques in a population of N is then
//! Γ(θ + 1) / Γ(θ + α) · N^α (Hoshino's eq. for E[U₁]).
//!
//! Choices, ARX's:
//! - Newton–Raphson (`solver`) from Hoshino's moment-type start
//!   c = c₁(c₁ − 1)/c₂ (c₂ taken as 1 when there are no pairs),
//!   θ₀ = (nuc − c₁(n − 1)(2u + c)) / (2c₁u + c₁c − nc),
//!   α₀ = (θ₀(c₁ − n) + (n − 1)c₁) / (nu), under the constraint θ ≥ 0.
//! - The sums over i are first taken in closed form with ψ and ψ′
//!   (Σ_{i=1}^{u−1} 1/(θ + iα) = (ψ(θ/α + u) − ψ(θ/α + 1))/α, and so on). A
//!   root found that way is accepted only if the term-by-term equations are
//!   also within the accuracy there; otherwise, or when the closed form
//!   found nothing, the search is repeated on the term-by-term equations.
//! - The estimate must lie in [0, N]; anything else is "did not converge".
//! - Work budget (ours): the term-by-term equations cost O(u + n) a step; a
//!   search that has spent 3·10⁸ terms (about a second) stops and reports
//!   that the model did not converge, where ARX stops after one second of
//!   wall time. On data where ARX converges this never binds.

use super::solver::{solve, Equations, Evaluation, SolverSettings};
use super::special::{digamma, ln_gamma, trigamma};
use crate::stats::SizeCounts;

/// Term budget of the term-by-term equations (see the module doc).
const WORK_BUDGET: u64 = 300_000_000;

/// Expected population uniques under Pitman's model, or why there is none.
pub fn pitman(
    table: &SizeCounts,
    population: u64,
    settings: &SolverSettings,
) -> Result<f64, String> {
    let c1 = table.of_size(1) as f64;
    let mut c2 = table.of_size(2) as f64;
    let u = table.classes as f64;
    let n = table.records as f64;
    if c2 == 0.0 {
        c2 = 1.0;
    }
    let c = c1 * (c1 - 1.0) / c2;
    let t = (n * u * c - c1 * (n - 1.0) * (2.0 * u + c)) / (2.0 * c1 * u + c1 * c - n * c);
    let a = (t * (c1 - n) + (n - 1.0) * c1) / (n * u);
    let theta_ok = |x: (f64, f64)| x.0 >= 0.0;

    let mut closed = Closed { table, u, n };
    let mut root = solve(&mut closed, theta_ok, (t, a), settings);
    let mut terms = Terms {
        table,
        u,
        n,
        budget: WORK_BUDGET,
        exhausted: false,
    };
    let accepted = root.filter(|&x| {
        terms
            .objective(x)
            .is_some_and(|f| f.0.abs() <= settings.accuracy && f.1.abs() <= settings.accuracy)
    });
    if accepted.is_none() {
        root = solve(&mut terms, theta_ok, (t, a), settings);
    }
    let Some((theta, alpha)) = root else {
        return Err(if terms.exhausted {
            "Pitman's model did not converge within its work budget".into()
        } else {
            "Pitman's model did not converge (no root of its likelihood equations was found)".into()
        });
    };
    estimate(theta, alpha, population as f64)
}

/// Γ(θ + 1)/Γ(θ + α) · N^α, required to lie in [0, N].
fn estimate(theta: f64, alpha: f64, population: f64) -> Result<f64, String> {
    if alpha == 0.0 || theta.is_nan() || alpha.is_nan() {
        return Err(format!(
            "Pitman's model gave θ = {theta}, α = {alpha}, which yields no estimate"
        ));
    }
    let value = (ln_gamma(theta + 1.0) - ln_gamma(theta + alpha)).exp() * population.powf(alpha);
    if value.is_finite() && (0.0..=population).contains(&value) {
        Ok(value)
    } else {
        Err(format!(
            "Pitman's model gave θ = {theta:.6}, α = {alpha:.6}, an estimate outside the population"
        ))
    }
}

/// The likelihood equations with the sums in closed form (ψ, ψ′).
struct Closed<'a> {
    table: &'a SizeCounts,
    u: f64,
    n: f64,
}

impl Equations for Closed<'_> {
    fn eval(&mut self, (t, a): (f64, f64)) -> Option<Evaluation> {
        let (u, n) = (self.u, self.n);
        // Σ_{i=1}^{u−1} 1/(t + ia) and friends through ψ(t/a + ·).
        let psi_hi = digamma(t / a + u);
        let psi_lo = digamma(t / a + 1.0);
        let tri_hi = trigamma(t / a + u);
        let tri_lo = trigamma(t / a + 1.0);
        let a2 = a * a;
        let s1 = (psi_hi - psi_lo) / a; // Σ 1/(t+ia)
        let s_i = ((u - 1.0) * a - t * (psi_hi - psi_lo)) / a2; // Σ i/(t+ia)
        let s1_sq = (tri_lo - tri_hi) / a2; // Σ 1/(t+ia)²
        let s_i_sq = (a * (psi_hi - psi_lo) + t * (tri_hi - tri_lo)) / (a2 * a); // Σ i/(t+ia)²
        let s_ii_sq =
            (a2 * (u - 1.0) - t * t * (tri_hi - tri_lo) - 2.0 * a * t * (psi_hi - psi_lo))
                / (a2 * a2); // Σ i²/(t+ia)²
        let n1 = digamma(n + t) - digamma(t + 1.0); // Σ_{i<n} 1/(t+i)
        let n1_sq = trigamma(t + 1.0) - trigamma(n + t); // Σ_{i<n} 1/(t+i)²
        let (psi_a, tri_a) = (digamma(1.0 - a), trigamma(1.0 - a));
        let (mut l1, mut l1_sq) = (0.0, 0.0);
        for &(size, count) in &self.table.counts {
            if size != 1 {
                let s = f64::from(size);
                l1 += count as f64 * (digamma(s - a) - psi_a); // Σ_{l<s} 1/(l−a)
                l1_sq += count as f64 * (tri_a - trigamma(s - a)); // Σ_{l<s} 1/(l−a)²
            }
        }
        Some((
            (s1 - n1, s_i - l1),
            [[n1_sq - s1_sq, -s_i_sq], [-s_i_sq, -s_ii_sq - l1_sq]],
        ))
    }
}

/// The likelihood equations summed term by term.
struct Terms<'a> {
    table: &'a SizeCounts,
    u: f64,
    n: f64,
    budget: u64,
    exhausted: bool,
}

impl Terms<'_> {
    fn spend(&mut self) -> bool {
        let largest = self.table.largest().unwrap_or(0) as u64;
        let cost = self.u as u64 + self.n as u64 + largest;
        if self.budget < cost {
            self.exhausted = true;
            return false;
        }
        self.budget -= cost;
        true
    }

    /// The equations and the second derivatives, summed term by term.
    fn sums(&mut self, (t, a): (f64, f64)) -> Option<[f64; 9]> {
        if !self.spend() {
            return None;
        }
        let (mut s1, mut s_i, mut s1_sq, mut s_i_sq, mut s_ii_sq) = (0.0, 0.0, 0.0, 0.0, 0.0);
        let mut i = 1.0;
        while i < self.u {
            let v = 1.0 / (t + i * a);
            s1 += v;
            s_i += i * v;
            s1_sq += v * v;
            s_i_sq += i * v * v;
            s_ii_sq += i * i * v * v;
            i += 1.0;
        }
        let (mut n1, mut n1_sq) = (0.0, 0.0);
        let mut i = 1.0;
        while i < self.n {
            let v = 1.0 / (t + i);
            n1 += v;
            n1_sq += v * v;
            i += 1.0;
        }
        // Σ_{l<s} 1/(l − a) for every size, by one running sum over l.
        let (mut l1, mut l1_sq) = (0.0, 0.0);
        let (mut run, mut run_sq, mut l) = (0.0, 0.0, 1u32);
        for &(size, count) in &self.table.counts {
            while l < size {
                let v = 1.0 / (f64::from(l) - a);
                run += v;
                run_sq += v * v;
                l += 1;
            }
            l1 += count as f64 * run;
            l1_sq += count as f64 * run_sq;
        }
        Some([s1, n1, s_i, l1, s1_sq, n1_sq, s_i_sq, s_ii_sq, l1_sq])
    }

    fn objective(&mut self, x: (f64, f64)) -> Option<(f64, f64)> {
        let [s1, n1, s_i, l1, ..] = self.sums(x)?;
        Some((s1 - n1, s_i - l1))
    }
}

impl Equations for Terms<'_> {
    fn eval(&mut self, x: (f64, f64)) -> Option<Evaluation> {
        let [s1, n1, s_i, l1, s1_sq, n1_sq, s_i_sq, s_ii_sq, l1_sq] = self.sums(x)?;
        Some((
            (s1 - n1, s_i - l1),
            [[n1_sq - s1_sq, -s_i_sq], [-s_i_sq, -s_ii_sq - l1_sq]],
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(sizes: &[u32]) -> SizeCounts {
        SizeCounts::from_sizes(sizes)
    }

    #[test]
    fn closed_and_term_by_term_equations_agree() {
        let t = table(&[1, 1, 1, 1, 2, 2, 3, 5, 8, 1, 1, 4]);
        let (u, n) = (t.classes as f64, t.records as f64);
        let mut closed = Closed { table: &t, u, n };
        let mut terms = Terms {
            table: &t,
            u,
            n,
            budget: WORK_BUDGET,
            exhausted: false,
        };
        for x in [(2.0, 0.3), (10.0, 0.7), (0.5, 0.1)] {
            let (fc, jc) = closed.eval(x).unwrap();
            let (ft, jt) = terms.eval(x).unwrap();
            for (a, b) in [(fc.0, ft.0), (fc.1, ft.1)]
                .into_iter()
                .chain((0..4).map(|k| (jc[k / 2][k % 2], jt[k / 2][k % 2])))
            {
                assert!((a - b).abs() < 1e-9 * b.abs().max(1.0), "{x:?}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn the_root_solves_the_likelihood_equations() {
        // Many uniques: a heavy-tailed sample where Pitman's α is clearly > 0.
        let mut sizes = vec![1; 400];
        sizes.extend([2; 80]);
        sizes.extend([3; 30]);
        sizes.extend([5, 7, 9, 12, 20, 40]);
        let t = table(&sizes);
        let s = SolverSettings::default();
        let est = pitman(&t, 100 * t.records, &s).unwrap();
        assert!(est > t.of_size(1) as f64 && est < 100.0 * t.records as f64);
    }
}
