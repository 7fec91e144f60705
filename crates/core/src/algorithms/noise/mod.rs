//! Noise addition to numeric attributes (issue 34): sdcMicro 5.8.1's
//! `addNoise` methods `additive` and `correlated2` (R/addNoise.r,
//! `addNoiseWORK`), as the SDC Handbook §3.4.6 (Hundepool et al., 2012)
//! and Brand, "Microdata protection through noise addition" (LNCS 2316,
//! 2002) describe them.
//!
//! - **additive**: each column gets independent normal noise of standard
//!   deviation `noise`% of the column's standard deviation:
//!   x' = x + N(0, (noise/100 · sd(x))²). Means are preserved in
//!   expectation, covariances between columns too, variances grow by the
//!   factor 1 + (noise/100)².
//! - **correlated2** (Brand's method with a linear transformation):
//!   x' = d·x + (1 − d)·mean(x) + δ·sd(x)·z, z ~ N(0, 1), d = √(1 − δ²).
//!   (sdcMicro writes the last two terms as δ·N((1 − d)/δ · mean, sd²),
//!   the same distribution.) Each column's mean and variance are preserved
//!   in expectation, and the covariance of two columns becomes d² = 1 − δ²
//!   times the original's, so the correlation structure is kept up to that
//!   stated factor. sdcMicro ignores `noise` for this method and uses
//!   `delta` (default 0.1); so does anonlab.
//!
//! Choices where sdcMicro is silent or differs:
//! - The random draws: R's `rnorm` cannot be reproduced without R's
//!   generator; here a ChaCha8 stream seeded by the caller, normal deviates
//!   by the Box–Muller transform (both values of each pair used), drawn
//!   column by column, records in file order, as R's `apply` draws them.
//! - `sd` is the sample standard deviation (n − 1), as R's `sd`.
//! - Strata (sdcMicro has none): when a stratum column is given, the mean
//!   and standard deviation are each stratum's own, so the noise follows
//!   the stratum's spread; a stratum of fewer than 2 records has no
//!   standard deviation and is refused. A missing stratum cell is a
//!   stratum of its own.
//! - Missing values are refused, naming record and column (sdcMicro adds
//!   NA noise to them, and its `sd` drops them).
//! - What is stated: per column (and per stratum) the standard deviation of
//!   the random term added, which the external report may publish (the
//!   Practice Guide's step 11: the noise level, never the seed).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::microaggregation::{numeric_columns_for, require_finite, strata_of};
use crate::data::Dataset;
use crate::error::{Error, Parameter, Result};
use crate::progress::Progress;

/// Which of sdcMicro's noise methods.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NoiseMethod {
    /// `additive`: noise of `noise` percent of each column's standard
    /// deviation (sdcMicro's default 150).
    Additive { noise: f64 },
    /// `correlated2`: Brand's transformation with `delta` in (0, 1]
    /// (sdcMicro's default 0.1).
    Correlated2 { delta: f64 },
}

/// The result, shaped as [`Microaggregated`](super::microaggregation::Microaggregated):
/// the perturbed columns' values column-major, and what the method states.
#[derive(Debug, Clone, PartialEq)]
pub struct Noised {
    /// The perturbed columns, in the order given.
    pub columns: Vec<usize>,
    /// Perturbed values, column-major: `values[c][record]` for `columns[c]`.
    pub values: Vec<Vec<f64>>,
    pub method: NoiseMethod,
    /// Per column, the standard deviation of the random term added over the
    /// whole file (with strata, √(Σ nₛ·sdₛ² / n) of the strata's).
    pub noise_sd: Vec<f64>,
    /// Per stratum (in order of first appearance; one without strata), per
    /// column, the standard deviation of the random term added.
    pub stratum_noise_sd: Vec<Vec<f64>>,
    /// The factor the original values are multiplied by: 1 for additive,
    /// √(1 − δ²) for correlated2.
    pub scale: f64,
    /// The factor covariances between two columns are multiplied by in
    /// expectation: 1 for additive, 1 − δ² for correlated2.
    pub covariance_factor: f64,
}

/// Adds noise to numeric `columns` of `ds` (within the strata of column
/// `strata` when given), from the ChaCha8 stream of `seed`.
pub fn add_noise(
    ds: &Dataset,
    columns: &[usize],
    strata: Option<usize>,
    method: NoiseMethod,
    seed: u64,
    progress: &Progress,
) -> Result<Noised> {
    let x = numeric_columns_for(ds, columns, "noise addition")?;
    let codes = strata.map(|s| ds.col(s).codes());
    let name = |code: u32| match strata {
        Some(s) => format!("stratum '{}'", ds.col(s).display(code)),
        None => "the file".to_string(),
    };
    let mut out = noise_values(&x, codes, &name, method, seed, progress)?;
    out.columns = columns.to_vec();
    Ok(out)
}

/// [`add_noise`] on column-major values `x` (finite), strata given as one
/// code per record; `name` names a stratum code in messages. Columns of the
/// result are numbered 0..
pub fn noise_values(
    x: &[Vec<f64>],
    strata: Option<&[u32]>,
    name: &dyn Fn(u32) -> String,
    method: NoiseMethod,
    seed: u64,
    progress: &Progress,
) -> Result<Noised> {
    let (factor, scale) = match method {
        NoiseMethod::Additive { noise } => {
            if !(noise.is_finite() && noise >= 0.0) {
                return Err(Error::Invalid {
                    parameter: Parameter::Delta,
                    msg: format!(
                        "noise must be a percentage of the standard deviation, 0 or more; got {noise}"
                    ),
                });
            }
            (noise / 100.0, 1.0)
        }
        NoiseMethod::Correlated2 { delta } => {
            if !(delta > 0.0 && delta <= 1.0) {
                return Err(Error::Invalid {
                    parameter: Parameter::Delta,
                    msg: format!("correlated2's delta must be in (0, 1]; got {delta}"),
                });
            }
            (delta, (1.0 - delta * delta).sqrt())
        }
    };
    let rows = x.first().map_or(0, Vec::len);
    require_finite(x, "noise addition")?;
    let groups = strata_of(rows, strata);
    // Per stratum: each column's mean and sample standard deviation.
    let mut moments: Vec<Vec<(f64, f64)>> = Vec::with_capacity(groups.len());
    for (code, members) in &groups {
        if members.len() < 2 {
            let whole = code.map_or_else(|| "the file".to_string(), name);
            return Err(Error::Invalid {
                parameter: Parameter::Strata,
                msg: format!(
                    "{whole} has {} record(s): a standard deviation needs at least 2; merge strata",
                    members.len()
                ),
            });
        }
        moments.push(x.iter().map(|col| mean_sd(members, col)).collect());
    }
    let mut stratum_of = vec![0usize; rows];
    for (s, (_, members)) in groups.iter().enumerate() {
        for &r in members {
            stratum_of[r] = s;
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut normal = Normal::default();
    progress.set_total((rows * x.len()) as u64);
    let mut values = Vec::with_capacity(x.len());
    for (c, col) in x.iter().enumerate() {
        progress.check()?;
        let out: Vec<f64> = col
            .iter()
            .zip(&stratum_of)
            .map(|(&v, &s)| {
                let (mean, sd) = moments[s][c];
                let z = normal.sample(&mut rng);
                match method {
                    NoiseMethod::Additive { .. } => v + factor * sd * z,
                    NoiseMethod::Correlated2 { .. } => {
                        scale * v + (1.0 - scale) * mean + factor * sd * z
                    }
                }
            })
            .collect();
        values.push(out);
        progress.advance(rows as u64);
    }
    let stratum_noise_sd: Vec<Vec<f64>> = moments
        .iter()
        .map(|m| m.iter().map(|&(_, sd)| factor * sd).collect())
        .collect();
    let noise_sd = (0..x.len())
        .map(|c| {
            let pooled: f64 = groups
                .iter()
                .zip(&stratum_noise_sd)
                .map(|((_, members), sd)| members.len() as f64 * sd[c] * sd[c])
                .sum();
            (pooled / rows as f64).sqrt()
        })
        .collect();
    Ok(Noised {
        columns: (0..x.len()).collect(),
        values,
        method,
        noise_sd,
        stratum_noise_sd,
        scale,
        covariance_factor: scale * scale,
    })
}

/// Mean and sample standard deviation of `col` over `members` (two passes,
/// so large means do not cancel the variance away).
fn mean_sd(members: &[usize], col: &[f64]) -> (f64, f64) {
    let n = members.len() as f64;
    let mean = members.iter().map(|&r| col[r]).sum::<f64>() / n;
    let ss: f64 = members.iter().map(|&r| (col[r] - mean).powi(2)).sum();
    (mean, (ss / (n - 1.0)).sqrt())
}

/// Standard normal deviates by the Box–Muller transform, both values of
/// each pair used in turn.
#[derive(Default)]
struct Normal {
    spare: Option<f64>,
}

impl Normal {
    fn sample(&mut self, rng: &mut ChaCha8Rng) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        // u1 in (0, 1] so that ln u1 is finite.
        let u1 = 1.0 - rng.random::<f64>();
        let u2: f64 = rng.random();
        let r = (-2.0 * u1.ln()).sqrt();
        let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
        self.spare = Some(r * s);
        r * c
    }
}

#[cfg(test)]
mod tests;
