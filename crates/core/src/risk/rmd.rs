//! Robust-Mahalanobis-distance disclosure risk of a perturbed numeric file
//! (methods RMDID1, RMDID1w and RMDID2 of Templ and Meindl, "Robust
//! statistics meets SDC: new disclosure risk measures for continuous
//! microdata masking", PSD 2008), as sdcMicro 5.8.1 computes them in
//! `dRiskRMD` (R/dRiskRMD.R, `dRiskRMDWORK`, lines 80–150):
//!
//! 1. Both files are standardized, each by its own means and deviations
//!    (`scale(x)`, `scale(xm)`; [`crate::stats::standardize`]).
//! 2. The robust squared Mahalanobis distance of every original record,
//!    centred at the column means of the standardized original and with
//!    the MCD covariance (`robustbase::covMcd(x)$cov`,
//!    [`crate::stats::mcd`]); sdcMicro multiplies its square root by 0.05:
//!    rmd = 0.05 √d².
//! 3. RMDID1: a record is at risk when, in *any* column, its perturbed
//!    value lies strictly inside (x − k·rmd, x + k·rmd), k = 0.01 by
//!    default; risk1 is the share of such records, and wrisk1 (RMDID1w)
//!    = (number at risk) × (sum of their rmd) / n — sdcMicro's formula,
//!    which grows with the square of the count; anonlab keeps it so the
//!    figures compare.
//! 4. RMDID2: of those, the records whose perturbed record is farther
//!    than k2 = 0.05 (Euclidean, standardized) from every other perturbed
//!    record; risk2 and wrisk2 likewise. sdcMicro builds the full n × n
//!    matrix of `stats::dist` for this (O(n²) memory); anonlab asks a
//!    k-d tree for the nearest other perturbed record
//!    ([`crate::stats::kdtree`]), the same minimum.
//!
//! Where the figures can differ from sdcMicro's: only through the MCD
//! covariance when robustbase's random subsets end in another h-subset
//! than anonlab's search (see [`crate::stats::mcd`]);
//! [`rmd_risk_with_cov`] takes a covariance (R's, for instance) to check
//! the rest of the formula alone. Files of different sizes and missing
//! values are refused (sdcMicro cuts the perturbed file and `covMcd`
//! drops incomplete records).

use crate::error::{Error, Parameter, Result};
use crate::stats::kdtree::KdTree;
use crate::stats::mcd::{cov_mcd, inverse, Mcd, McdOptions};
use crate::stats::moments::same_shape;
use crate::stats::standardize::scale_columns;

/// sdcMicro's default interval factor `k` of `dRiskRMD`.
pub const DEFAULT_RMD_K: f64 = 0.01;
/// sdcMicro's default isolation distance `k2` of `dRiskRMD`.
pub const DEFAULT_RMD_K2: f64 = 0.05;

/// The parameters of [`rmd_risk`].
#[derive(Debug, Clone, Copy)]
pub struct RmdOptions {
    /// Interval half-width per unit of rmd (sdcMicro's `k`).
    pub k: f64,
    /// Least distance to the nearest other perturbed record (`k2`).
    pub k2: f64,
    /// How the MCD looks for its subset.
    pub mcd: McdOptions,
}

impl Default for RmdOptions {
    fn default() -> Self {
        RmdOptions {
            k: DEFAULT_RMD_K,
            k2: DEFAULT_RMD_K2,
            mcd: McdOptions::default(),
        }
    }
}

/// sdcMicro's `dRiskRMD` result, record numbers from 0.
#[derive(Debug, Clone)]
pub struct RmdRisk {
    /// Share of records at risk by RMDID1.
    pub risk1: f64,
    /// Share at risk by RMDID2.
    pub risk2: f64,
    /// RMDID1w: (records at risk) × (their summed rmd) / n.
    pub wrisk1: f64,
    /// The same for RMDID2.
    pub wrisk2: f64,
    /// Records at risk by RMDID1 (sdcMicro's `indexRisk1`), ascending.
    pub index_risk1: Vec<usize>,
    /// Records at risk by RMDID2 (`indexRisk2`), ascending.
    pub index_risk2: Vec<usize>,
    /// Every record's 0.05 √d² (sdcMicro's `rmd`; its `riskvec1` is this
    /// on the records at risk and 0 elsewhere).
    pub rmd: Vec<f64>,
    /// The MCD used (`None` when the covariance was given).
    pub mcd: Option<Mcd>,
}

/// sdcMicro's `dRiskRMD(x, xm, k, k2)`: the MCD of the standardized
/// original, then [`rmd_risk_with_cov`].
pub fn rmd_risk(
    original: &[Vec<f64>],
    perturbed: &[Vec<f64>],
    options: RmdOptions,
) -> Result<RmdRisk> {
    same_shape(original, perturbed)?;
    let x = scale_columns(original, "original")?;
    let mcd = cov_mcd(&x, options.mcd)?;
    let mut risk = risk_scaled(&x, perturbed, &mcd.cov, options.k, options.k2)?;
    risk.mcd = Some(mcd);
    Ok(risk)
}

/// The formula of `dRiskRMD` with the covariance of the standardized
/// original given (p × p, row-major), not estimated.
pub fn rmd_risk_with_cov(
    original: &[Vec<f64>],
    perturbed: &[Vec<f64>],
    cov: &[f64],
    k: f64,
    k2: f64,
) -> Result<RmdRisk> {
    same_shape(original, perturbed)?;
    let x = scale_columns(original, "original")?;
    risk_scaled(&x, perturbed, cov, k, k2)
}

fn risk_scaled(
    x: &[Vec<f64>],
    perturbed: &[Vec<f64>],
    cov: &[f64],
    k: f64,
    k2: f64,
) -> Result<RmdRisk> {
    let invalid = |msg: String| Error::Invalid {
        parameter: Parameter::Column,
        msg,
    };
    let p = x.len();
    let n = x.first().map_or(0, Vec::len);
    if cov.len() != p * p {
        return Err(invalid(format!(
            "a covariance of {p} columns has {} entries, this one {}",
            p * p,
            cov.len()
        )));
    }
    if !(k.is_finite() && k >= 0.0 && k2.is_finite() && k2 >= 0.0) {
        return Err(Error::Invalid {
            parameter: Parameter::Threshold,
            msg: format!("dRiskRMD's k = {k} and k2 = {k2} must be finite and not negative"),
        });
    }
    let xm = scale_columns(perturbed, "perturbed")?;
    let inv = inverse(cov, p).ok_or_else(|| {
        invalid("the robust covariance is singular: no Mahalanobis distance exists".into())
    })?;
    // R: cent <- colMeans(x) of the standardized original (≈ 0).
    let centre: Vec<f64> = x.iter().map(|c| c.iter().sum::<f64>() / n as f64).collect();
    let rmd: Vec<f64> = (0..n)
        .map(|i| crate::stats::mcd::mahalanobis(x, i, &centre, &inv).sqrt() * 0.05)
        .collect();
    let index_risk1: Vec<usize> = (0..n)
        .filter(|&i| {
            let half = k * rmd[i];
            // R: xm > x - k·rmd & xm < x + k·rmd, in any column.
            (0..p).any(|j| xm[j][i] > x[j][i] - half && xm[j][i] < x[j][i] + half)
        })
        .collect();
    let mut index_risk2 = Vec::new();
    if !index_risk1.is_empty() {
        let tree = KdTree::new(&xm);
        let mut q = vec![0.0; p];
        for &i in &index_risk1 {
            for (j, c) in xm.iter().enumerate() {
                q[j] = c[i];
            }
            // stats::dist: √ of the summed squares; min over the others.
            let nearest = tree.nearest_other(&q, i).sqrt();
            if nearest > k2 {
                index_risk2.push(i);
            }
        }
    }
    let nf = n as f64;
    // Folded from +0: an empty `sum` of floats is −0, which would print
    // as "-0" for a file with nobody at risk.
    let weighted = |idx: &[usize]| idx.len() as f64 * idx.iter().fold(0.0, |s, &i| s + rmd[i]) / nf;
    Ok(RmdRisk {
        risk1: index_risk1.len() as f64 / nf,
        risk2: index_risk2.len() as f64 / nf,
        wrisk1: weighted(&index_risk1),
        wrisk2: weighted(&index_risk2),
        index_risk1,
        index_risk2,
        rmd,
        mcd: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_file_puts_every_isolated_record_at_risk() {
        // xm = x: every perturbed value lies inside its own interval, as
        // long as rmd > 0 (the centre itself has rmd 0 and an empty
        // interval).
        let x = vec![
            vec![1.0, 2.0, 4.0, 7.0, 11.0, 16.0, 22.0, 29.0],
            vec![3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0],
        ];
        let r = rmd_risk(&x, &x, RmdOptions::default()).unwrap();
        assert!(r.rmd.iter().all(|&d| d > 0.0));
        assert_eq!(r.risk1, 1.0);
        assert_eq!(r.index_risk1, (0..8).collect::<Vec<_>>());
        // All records are more than 0.05 apart once standardized.
        assert_eq!(r.risk2, 1.0);
        let sum: f64 = r.rmd.iter().sum();
        assert!((r.wrisk1 - 8.0 * sum / 8.0).abs() < 1e-12);
    }

    #[test]
    fn refuses_missing_values_short_files_and_bad_parameters() {
        let x = vec![vec![1.0, 2.0, 4.0, 7.0], vec![3.0, 1.0, 4.0, 1.0]];
        let mut xm = x.clone();
        xm[1][2] = f64::NAN;
        let err = rmd_risk(&x, &xm, RmdOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("perturbed file, numeric column 2, record 3"),
            "{err}"
        );
        // The MCD of two columns needs n > p + 1 = 3 records.
        let short: Vec<Vec<f64>> = x.iter().map(|c| c[..3].to_vec()).collect();
        let err = rmd_risk(&short, &short, RmdOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("needs more than 3 records"), "{err}");
        let err = rmd_risk_with_cov(&x, &x, &[1.0, 0.0, 0.0, 1.0], -1.0, 0.05).unwrap_err();
        assert!(err.to_string().contains("k = -1"), "{err}");
        let err = rmd_risk_with_cov(&x, &x, &[1.0], 0.01, 0.05).unwrap_err();
        assert!(err.to_string().contains("4 entries"), "{err}");
    }

    #[test]
    fn refuses_a_constant_column() {
        let x = vec![vec![1.0, 2.0, 3.0, 4.0], vec![2.0; 4]];
        let err = rmd_risk(&x, &x, RmdOptions::default()).unwrap_err();
        assert!(err.to_string().contains("column 2"), "{err}");
    }
}
