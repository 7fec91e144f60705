//! Information loss of a perturbed numeric file beyond IL1s
//! ([`crate::metrics::il1s`]): the eigenvalue measures of sdcMicro 5.8.1's
//! `dUtility` (R/dUtility.R, `dUtilityWORK`, methods "eigen" and
//! "robeigen", lines 60–80), the differences of means, covariances and
//! correlations of Domingo-Ferrer and Torra ("A quantitative comparison of
//! disclosure control methods for microdata", 2001, §4, the IL measures
//! the SDC Handbook, Hundepool et al. 2012, §5.4.5, lists), and IL1s per
//! record.
//!
//! Definitions (x the original, xm the perturbed file, p columns):
//! - eigen: λ and λᵐ the eigenvalues, in decreasing order, of the
//!   covariance of `scale(x)` and of `scale(xm)` (their correlation
//!   matrices); Σ |λ_i − λᵐ_i| / λ_i, as sdcMicro sums it.
//! - robeigen: the same with the MCD covariance of the standardized files
//!   (`covMcd(scale(x))$cov`, [`crate::stats::mcd`]). sdcMicro's own
//!   figure depends on R's random subsets; anonlab's equals it when both
//!   find the same h-subsets.
//! - means: the mean over columns of |x̄_j − x̄ᵐ_j| / |x̄_j|.
//! - covariances: the mean over the entries i ≤ j of the covariance
//!   matrices (denominator n − 1) of |v_ij − vᵐ_ij| / |v_ij|.
//! - correlations: the mean over the entries i < j of |r_ij − rᵐ_ij|
//!   (absolute: a correlation near 0 would make a relative one explode);
//!   none with one column.
//!   The Handbook states the last three as means over entries, relative
//!   for means and covariances and absolute for correlations; sdcMicro has
//!   no function for them (its `summary` prints the matrices), so the
//!   golden figures come from plain R in bench/sdcmicro/numeric_risk.R.
//! - IL1s per record: each record's Σ_j |x_ij − xᵐ_ij| / (√2 s_j), the
//!   cells of sdcMicro's IL1s grouped by record, so the records' figures
//!   sum to IL1s (up to the order of the additions).
//!
//! Missing values are refused (sdcMicro's "eigen" uses pairwise-complete
//! covariances; anonlab's callers pass complete numeric columns), except
//! by IL1s per record, which leaves missing cells out as IL1s does.

use crate::error::{Error, Parameter, Result};
use crate::stats::mcd::{cov_mcd, McdOptions};
use crate::stats::moments::{same_shape, sample_sd};
use crate::stats::standardize::scale_columns;

/// Differences of the first two moments.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MomentLoss {
    /// Mean relative difference of the column means.
    pub means: f64,
    /// Mean relative difference of the covariances (i ≤ j).
    pub covariances: f64,
    /// Mean absolute difference of the correlations (i < j); `None`
    /// with one column.
    pub correlations: Option<f64>,
}

fn complete(x: &[Vec<f64>], what: &str) -> Result<()> {
    for (j, col) in x.iter().enumerate() {
        if let Some(r) = col.iter().position(|v| !v.is_finite()) {
            return Err(Error::Invalid {
                parameter: Parameter::Column,
                msg: format!(
                    "{what} file, numeric column {}, record {}: the value {} is missing or infinite",
                    j + 1,
                    r + 1,
                    col[r]
                ),
            });
        }
    }
    Ok(())
}

/// Covariance matrix (p × p, row-major, denominator n − 1), two passes.
fn covariance(x: &[Vec<f64>]) -> Vec<f64> {
    let p = x.len();
    let n = x.first().map_or(0, Vec::len) as f64;
    let means: Vec<f64> = x.iter().map(|c| c.iter().sum::<f64>() / n).collect();
    let mut cov = vec![0.0; p * p];
    for a in 0..p {
        for b in a..p {
            let s: f64 = x[a]
                .iter()
                .zip(&x[b])
                .map(|(u, v)| (u - means[a]) * (v - means[b]))
                .sum();
            cov[a * p + b] = s / (n - 1.0);
            cov[b * p + a] = s / (n - 1.0);
        }
    }
    cov
}

/// Eigenvalues of a symmetric p × p matrix (row-major), decreasing, by
/// cyclic Jacobi rotations (Golub and Van Loan, §8.5), accurate to a few
/// units of rounding relative to the matrix norm.
pub fn symmetric_eigenvalues(a: &[f64], p: usize) -> Vec<f64> {
    let mut m = a.to_vec();
    for _sweep in 0..100 {
        let off: f64 = (0..p)
            .flat_map(|i| (0..p).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| m[i * p + j] * m[i * p + j])
            .sum();
        let norm: f64 = m.iter().map(|v| v * v).sum();
        if off <= 1e-32 * norm || off == 0.0 {
            break;
        }
        for i in 0..p {
            for j in i + 1..p {
                let aij = m[i * p + j];
                if aij == 0.0 {
                    continue;
                }
                let theta = (m[j * p + j] - m[i * p + i]) / (2.0 * aij);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..p {
                    let mki = m[k * p + i];
                    let mkj = m[k * p + j];
                    m[k * p + i] = c * mki - s * mkj;
                    m[k * p + j] = s * mki + c * mkj;
                }
                for k in 0..p {
                    let mik = m[i * p + k];
                    let mjk = m[j * p + k];
                    m[i * p + k] = c * mik - s * mjk;
                    m[j * p + k] = s * mik + c * mjk;
                }
            }
        }
    }
    let mut e: Vec<f64> = (0..p).map(|i| m[i * p + i]).collect();
    e.sort_by(|a, b| b.total_cmp(a));
    e
}

fn eigen_difference(e1: &[f64], e2: &[f64]) -> f64 {
    e1.iter().zip(e2).map(|(a, b)| (a - b).abs() / a).sum()
}

/// The eigenvalue measure from two p × p covariance matrices (row-major):
/// Σ |λ_i − λᵐ_i| / λ_i over the eigenvalues in decreasing order; what
/// "eigen" and "robeigen" compute once they have their matrices (for
/// checking robeigen's formula with robustbase's own MCD covariances).
pub fn eigenvalue_loss(cov_original: &[f64], cov_perturbed: &[f64], p: usize) -> f64 {
    eigen_difference(
        &symmetric_eigenvalues(cov_original, p),
        &symmetric_eigenvalues(cov_perturbed, p),
    )
}

/// sdcMicro's `dUtility(method = "eigen")`.
pub fn eigen_loss(original: &[Vec<f64>], perturbed: &[Vec<f64>]) -> Result<f64> {
    same_shape(original, perturbed)?;
    let p = original.len();
    let x = scale_columns(original, "original")?;
    let xm = scale_columns(perturbed, "perturbed")?;
    let e1 = symmetric_eigenvalues(&covariance(&x), p);
    let e2 = symmetric_eigenvalues(&covariance(&xm), p);
    Ok(eigen_difference(&e1, &e2))
}

/// sdcMicro's `dUtility(method = "robeigen")`, with anonlab's MCD.
pub fn robust_eigen_loss(
    original: &[Vec<f64>],
    perturbed: &[Vec<f64>],
    options: McdOptions,
) -> Result<f64> {
    same_shape(original, perturbed)?;
    let p = original.len();
    let x = scale_columns(original, "original")?;
    let xm = scale_columns(perturbed, "perturbed")?;
    let e1 = symmetric_eigenvalues(&cov_mcd(&x, options)?.cov, p);
    let e2 = symmetric_eigenvalues(&cov_mcd(&xm, options)?.cov, p);
    Ok(eigen_difference(&e1, &e2))
}

/// Differences of means, covariances and correlations.
pub fn moment_loss(original: &[Vec<f64>], perturbed: &[Vec<f64>]) -> Result<MomentLoss> {
    same_shape(original, perturbed)?;
    complete(original, "original")?;
    complete(perturbed, "perturbed")?;
    let p = original.len();
    if p == 0 {
        return Err(Error::Invalid {
            parameter: Parameter::Column,
            msg: "the moments' losses need at least one numeric column".into(),
        });
    }
    let n = original.first().map_or(0, Vec::len) as f64;
    let mean = |c: &Vec<f64>| c.iter().sum::<f64>() / n;
    let means = original
        .iter()
        .zip(perturbed)
        .map(|(a, b)| (mean(a) - mean(b)).abs() / mean(a).abs())
        .sum::<f64>()
        / p as f64;
    let (c1, c2) = (covariance(original), covariance(perturbed));
    let mut cov_sum = 0.0;
    let mut cor_sum = 0.0;
    for i in 0..p {
        for j in i..p {
            cov_sum += (c1[i * p + j] - c2[i * p + j]).abs() / c1[i * p + j].abs();
            if j > i {
                let r1 = c1[i * p + j] / (c1[i * p + i] * c1[j * p + j]).sqrt();
                let r2 = c2[i * p + j] / (c2[i * p + i] * c2[j * p + j]).sqrt();
                cor_sum += (r1 - r2).abs();
            }
        }
    }
    let pairs = p * (p - 1) / 2;
    Ok(MomentLoss {
        means,
        covariances: cov_sum / (p * (p + 1) / 2) as f64,
        correlations: (pairs > 0).then(|| cor_sum / pairs as f64),
    })
}

/// IL1s per record: the records' shares of sdcMicro's IL1s.
pub fn il1s_per_record(original: &[Vec<f64>], perturbed: &[Vec<f64>]) -> Result<Vec<f64>> {
    same_shape(original, perturbed)?;
    let n = original.first().map_or(0, Vec::len);
    let mut out = vec![0.0; n];
    for (x, xm) in original.iter().zip(perturbed) {
        let scale = sample_sd(x) * std::f64::consts::SQRT_2;
        for ((o, a), b) in out.iter_mut().zip(x).zip(xm) {
            let v = (a - b).abs() / scale;
            if !v.is_nan() {
                *o += v;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eigenvalues_of_a_known_matrix() {
        // [[2, 1], [1, 2]]: 3 and 1; diag(5, 1, 3): 5, 3, 1.
        let e = symmetric_eigenvalues(&[2.0, 1.0, 1.0, 2.0], 2);
        assert!((e[0] - 3.0).abs() < 1e-14 && (e[1] - 1.0).abs() < 1e-14);
        let d = symmetric_eigenvalues(&[5.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 3.0], 3);
        assert_eq!(d, vec![5.0, 3.0, 1.0]);
    }

    #[test]
    fn missing_values_and_empty_files_are_refused() {
        let x = vec![vec![1.0, 2.0, 3.0]];
        let xm = vec![vec![1.0, f64::NAN, 3.0]];
        let err = moment_loss(&x, &xm).unwrap_err().to_string();
        assert!(
            err.contains("perturbed file, numeric column 1, record 2"),
            "{err}"
        );
        let err = eigen_loss(&x, &xm).unwrap_err().to_string();
        assert!(err.contains("record 2"), "{err}");
        assert!(moment_loss(&[], &[]).is_err());
        let err = eigen_loss(&x, &[vec![1.0]]).unwrap_err().to_string();
        assert!(err.contains("3 records"), "{err}");
    }

    #[test]
    fn moments_by_hand() {
        // Means 2 and 4 → 2 and 5: (0 + 1/4) / 2.
        let x = vec![vec![1.0, 2.0, 3.0], vec![2.0, 4.0, 6.0]];
        let xm = vec![vec![1.0, 2.0, 3.0], vec![3.0, 5.0, 7.0]];
        let m = moment_loss(&x, &xm).unwrap();
        assert!((m.means - 0.125).abs() < 1e-15);
        // Covariances 1, 2, 4 → 1, 2, 4: no loss; correlation 1 → 1.
        assert!(m.covariances.abs() < 1e-15);
        assert!(m.correlations.unwrap().abs() < 1e-15);
    }
}
