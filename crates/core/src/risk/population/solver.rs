//! The two-dimensional Newton–Raphson solver behind Pitman's and the SNB
//! model, with ARX's settings (its `ARXSolverConfiguration` defaults on the
//! de.linearbits newtonraphson 0.0.1 solver it ships).
//!
//! The iteration is plain Newton: x ← x − J(x)⁻¹ F(x), stopping when both
//! |F₁| and |F₂| are at most the accuracy (1e-6). A try ends when x leaves
//! the constraint (Pitman: θ ≥ 0), becomes NaN or has taken more than 1000
//! steps; the next try starts from the next of ARX's 16 prepared start
//! values {0, 0.33, 0.66, 0.99}², in that order, after the caller's own
//! start. As in that solver, taking the last prepared start value ends the
//! search after its first step, and no new try starts once 10,000 steps
//! were taken in all.
//!
//! Choice: ARX also stops a try after 100 ms and the search after 1 s of
//! wall time. Those limits make a result depend on the machine's speed and
//! load, so they are left out; the step limits alone bound the work (the
//! equations cost O(1) per step, except Pitman's term-by-term form, which
//! `pitman` bounds by its own work budget).

/// Accuracy, iteration limits and start values of the search.
#[derive(Debug, Clone, PartialEq)]
pub struct SolverSettings {
    pub accuracy: f64,
    pub iterations_per_try: u32,
    pub iterations_total: u32,
    pub start_values: Vec<(f64, f64)>,
}

impl Default for SolverSettings {
    /// ARX's defaults: accuracy 1e-6, 1000 steps a try, 10,000 in all,
    /// start values built by adding 0.33 from 0 while below 1 (so the same
    /// floating-point values as ARX's loop, 0.99 being 0.33 + 0.33 + 0.33).
    fn default() -> Self {
        let mut axis = Vec::new();
        let mut d = 0.0f64;
        while d < 1.0 {
            axis.push(d);
            d += 0.33;
        }
        let start_values = axis
            .iter()
            .flat_map(|&a| axis.iter().map(move |&b| (a, b)))
            .collect();
        Self {
            accuracy: 1e-6,
            iterations_per_try: 1000,
            iterations_total: 10_000,
            start_values,
        }
    }
}

/// F(x) and J(x) = [[∂F₁/∂x, ∂F₁/∂y], [∂F₂/∂x, ∂F₂/∂y]] at a point.
pub type Evaluation = ((f64, f64), [[f64; 2]; 2]);

/// The equations F(x) = 0 and their Jacobian at a point; `None` when they
/// cannot be evaluated there (the caller's work budget ran out).
pub trait Equations {
    fn eval(&mut self, x: (f64, f64)) -> Option<Evaluation>;
}

/// A root of `eq` from `start`, or `None` when the search gave up.
/// `allowed` is the constraint a step must keep (a failed step ends the
/// try, not the search).
pub fn solve(
    eq: &mut impl Equations,
    allowed: impl Fn((f64, f64)) -> bool,
    start: (f64, f64),
    settings: &SolverSettings,
) -> Option<(f64, f64)> {
    let mut total = 0u32;
    let mut next_start = 0usize;
    let mut first = true;
    while total <= settings.iterations_total {
        let mut x = if first {
            first = false;
            start
        } else {
            let s = *settings.start_values.get(next_start)?;
            next_start += 1;
            s
        };
        let mut steps = 0u32;
        loop {
            total += 1;
            let (f, j) = eq.eval(x)?;
            if f.0.abs() <= settings.accuracy && f.1.abs() <= settings.accuracy {
                return Some(x);
            }
            x = newton_step(x, f, j);
            if next_start == settings.start_values.len() {
                return None;
            }
            if !allowed(x) || x.0.is_nan() || x.1.is_nan() {
                break;
            }
            if steps >= settings.iterations_per_try {
                break;
            }
            steps += 1;
        }
    }
    None
}

/// x − J⁻¹ F.
fn newton_step(x: (f64, f64), f: (f64, f64), j: [[f64; 2]; 2]) -> (f64, f64) {
    let inv = 1.0 / (j[0][0] * j[1][1] - j[0][1] * j[1][0]);
    let dx = (
        inv * (j[1][1] * f.0 - j[0][1] * f.1),
        inv * (-j[1][0] * f.0 + j[0][0] * f.1),
    );
    (x.0 - dx.0, x.1 - dx.1)
}

/// One try from `start`: at most `iterations_per_try` Newton steps, ending
/// early when `allowed` fails or x becomes NaN.
pub fn solve_once(
    eq: &mut impl Equations,
    allowed: impl Fn((f64, f64)) -> bool,
    start: (f64, f64),
    settings: &SolverSettings,
) -> Option<(f64, f64)> {
    let mut x = start;
    for _ in 0..=settings.iterations_per_try {
        let (f, j) = eq.eval(x)?;
        if f.0.abs() <= settings.accuracy && f.1.abs() <= settings.accuracy {
            return Some(x);
        }
        x = newton_step(x, f, j);
        if !allowed(x) || x.0.is_nan() || x.1.is_nan() {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Circle;
    impl Equations for Circle {
        // x² + y² = 4, x = y: root (√2, √2) from a positive start.
        fn eval(&mut self, (x, y): (f64, f64)) -> Option<Evaluation> {
            Some((
                (x * x + y * y - 4.0, x - y),
                [[2.0 * x, 2.0 * y], [1.0, -1.0]],
            ))
        }
    }

    #[test]
    fn finds_a_root_and_honours_the_constraint() {
        let s = SolverSettings::default();
        assert_eq!(s.start_values.len(), 16);
        assert_eq!(s.start_values[15], (0.33 + 0.33 + 0.33, 0.33 + 0.33 + 0.33));
        let (x, y) = solve(&mut Circle, |_| true, (1.0, 0.5), &s).unwrap();
        assert!((x - 2f64.sqrt()).abs() < 1e-6 && (y - x).abs() < 1e-6);
        // From a negative start the root is (−√2, −√2), which the
        // constraint forbids; the prepared start values find the other.
        let (x, _) = solve(&mut Circle, |(x, _)| x >= 0.0, (-1.0, -0.5), &s).unwrap();
        assert!(x > 0.0);
    }

    struct NoRoot;
    impl Equations for NoRoot {
        fn eval(&mut self, (x, y): (f64, f64)) -> Option<Evaluation> {
            Some(((x * x + 1.0, y), [[2.0 * x, 0.0], [0.0, 1.0]]))
        }
    }

    #[test]
    fn gives_up_without_a_root() {
        assert_eq!(
            solve(
                &mut NoRoot,
                |_| true,
                (1.0, 1.0),
                &SolverSettings::default()
            ),
            None
        );
    }
}
