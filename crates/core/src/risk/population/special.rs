//! Special functions the population models need: ψ (digamma), ψ′
//! (trigamma), log Γ, and the hypergeometric probability of drawing exactly
//! one member of a class.
//!
//! ψ and ψ′ follow the usual scheme (reflection for negative arguments, a
//! Taylor term near 0, the recurrence ψ(x) = ψ(x + 1) − 1/x up to a large
//! argument, then the asymptotic series), the scheme of Minka's Lightspeed
//! toolbox that ARX also uses, with the same cut-over points for ψ so the
//! Newton iterations of Pitman's model take the same path. ARX's ψ′ stops
//! the recurrence at 8 but adds its asymptotic tail only from 12, so below
//! 12 it drops the tail (≈ 1/8); here the recurrence runs to 12 and the
//! tail is always added (error below 1e-14). ψ′ enters
//! only the Newton step's Jacobian, never the equations solved, so a root
//! found either way solves the same equations (BENCHMARKS.md, issue 17,
//! compares the results with ARX's).

/// Euler–Mascheroni constant, −ψ(1).
const EULER: f64 = 0.577_215_664_901_532_9;
/// ψ′(1) = π²/6.
const TRIGAMMA_1: f64 = std::f64::consts::PI * std::f64::consts::PI / 6.0;
/// ψ″(1) = −2ζ(3).
const TETRAGAMMA_1: f64 = -2.0 * 1.202_056_903_159_594_3;

/// ψ(x); NaN for NaN or infinite x, −∞ at 0.
pub fn digamma(mut x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x < 0.0 {
        // ψ(−x) = ψ(x + 1) + π cot(πx), written for x < 0.
        let pi = std::f64::consts::PI;
        return digamma(1.0 - x) + pi / (-pi * x).tan();
    }
    if x <= 1e-6 {
        return -EULER - 1.0 / x + TRIGAMMA_1 * x;
    }
    let mut result = 0.0;
    while x < 12.0 {
        result -= 1.0 / x;
        x += 1.0;
    }
    let r = 1.0 / x;
    result += x.ln() - 0.5 * r;
    let r2 = r * r;
    result
        - r2 * (1.0 / 12.0
            - r2 * (1.0 / 120.0 - r2 * (1.0 / 252.0 - r2 * (1.0 / 240.0 - r2 * (1.0 / 132.0)))))
}

/// ψ′(x); NaN for NaN or infinite x.
pub fn trigamma(mut x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::INFINITY;
    }
    if x < 0.0 {
        // Reflection: ψ′(1 − x) + ψ′(x) = π² / sin²(πx).
        let r = std::f64::consts::PI / (std::f64::consts::PI * x).sin();
        return -trigamma(1.0 - x) + r * r;
    }
    if x <= 1e-4 {
        return 1.0 / (x * x) + TRIGAMMA_1 + TETRAGAMMA_1 * x;
    }
    let mut result = 0.0;
    while x < 12.0 {
        result += 1.0 / (x * x);
        x += 1.0;
    }
    // Asymptotic series with Bernoulli numbers B2..B10.
    let r = 1.0 / (x * x);
    result
        + 0.5 * r
        + (1.0
            + r * (1.0 / 6.0
                + r * (-1.0 / 30.0 + r * (1.0 / 42.0 + r * (-1.0 / 30.0 + r * (5.0 / 66.0))))))
            / x
}

/// log Γ(x) for x > 0 (the musl implementation).
pub fn ln_gamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// P(X = 1) for X hypergeometric: `draws` drawn without replacement from
/// `population` items of which `successes` are marked — the probability
/// that a population class of `successes` members appears in a simple
/// random sample of `draws` exactly once. Computed as the product
/// (K n / N) · Π_{i=1}^{K−1} (1 − (n − 1)/(N − i)), in logs, so no
/// factorial is formed; exact in exact arithmetic.
pub fn hypergeometric_one(population: u64, successes: u64, draws: u64) -> f64 {
    let (n_pop, k, n) = (population as f64, successes as f64, draws as f64);
    if successes == 0 || draws == 0 || successes > population || draws > population {
        return 0.0;
    }
    // More marked items than unmarked places left for the other draws:
    // drawing exactly one is impossible.
    if population - successes < draws - 1 {
        return 0.0;
    }
    let mut log = (k * n / n_pop).ln();
    for i in 1..successes {
        log += (-(n - 1.0) / (n_pop - i as f64)).ln_1p();
    }
    log.exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol * b.abs().max(1.0), "{a} vs {b}");
    }

    #[test]
    fn digamma_and_trigamma_known_values() {
        close(digamma(1.0), -EULER, 1e-14);
        close(digamma(0.5), -EULER - 2.0 * 2f64.ln(), 1e-14);
        close(digamma(10.0), 2.251_752_589_066_721, 1e-14);
        close(digamma(-0.5), 0.036_489_973_978_576_52, 1e-13);
        close(trigamma(1.0), TRIGAMMA_1, 1e-14);
        close(trigamma(0.5), std::f64::consts::PI.powi(2) / 2.0, 1e-14);
        close(trigamma(10.0), 0.105_166_335_681_685_6, 1e-14);
        close(trigamma(3.5), 0.330_357_756_100_234_9, 1e-13);
        assert!(digamma(f64::NAN).is_nan() && trigamma(f64::INFINITY).is_nan());
    }

    #[test]
    fn ln_gamma_known_values() {
        close(ln_gamma(1.0), 0.0, 1e-15);
        close(ln_gamma(10.0), (362_880f64).ln(), 1e-14);
        close(ln_gamma(0.5), std::f64::consts::PI.sqrt().ln(), 1e-14);
    }

    #[test]
    fn hypergeometric_one_by_binomials() {
        // C(K,1) C(N−K, n−1) / C(N, n) by hand.
        let choose = |n: u64, k: u64| -> f64 {
            (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
        };
        for (pop, k, n) in [(100, 1, 10), (100, 5, 10), (50, 7, 20), (30, 25, 6)] {
            let want = k as f64 * choose(pop - k, n - 1) / choose(pop, n);
            close(hypergeometric_one(pop, k, n), want, 1e-12);
        }
        assert_eq!(hypergeometric_one(10, 8, 5), 0.0);
        assert_eq!(hypergeometric_one(10, 0, 5), 0.0);
    }
}
