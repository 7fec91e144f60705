//! The interval disclosure risk of a perturbed numeric file: method SDID of
//! Mateo-Sanz, Sebe and Domingo-Ferrer ("Outlier protection in continuous
//! microdata masking", PSD 2004), as sdcMicro 5.8.1 computes it in `dRisk`
//! (R/dRisk.R): around every perturbed value an interval of ± `k` times the
//! sample standard deviation of the *perturbed* column is drawn (sdcMicro's
//! default `k = 0.05`); a record is at risk when each of its original values
//! lies inside its interval (bounds included), and the risk is the share of
//! records at risk.
//!
//! The paper scales the interval by the original column's deviation;
//! sdcMicro scales by the perturbed one's, and anonlab follows sdcMicro so
//! the figures compare. A missing cell (NaN, original or perturbed) never
//! puts its record outside, as sdcMicro's `rowSums(..., na.rm = TRUE)`
//! reads it; the deviations leave missing cells out.

use crate::error::Result;
use crate::stats::moments::{same_shape, sample_sd};

/// sdcMicro's default width: 5 % of a standard deviation either side.
pub const DEFAULT_INTERVAL_K: f64 = 0.05;

/// Share of records whose original values all lie within ± `k` standard
/// deviations (of the perturbed column) of their perturbed values. Both
/// files are column-major, records in the same order; an empty file has
/// no risk (sdcMicro's `mean` of nothing would be NaN).
pub fn interval_risk(original: &[Vec<f64>], perturbed: &[Vec<f64>], k: f64) -> Result<f64> {
    same_shape(original, perturbed)?;
    let rows = original.first().map_or(0, Vec::len);
    if rows == 0 {
        return Ok(0.0);
    }
    let mut outside = vec![false; rows];
    for (x, xm) in original.iter().zip(perturbed) {
        let width = k * sample_sd(xm);
        for ((out, &a), &b) in outside.iter_mut().zip(x).zip(xm) {
            // As R compares: x < xm - k·sd | x > xm + k·sd, NaN never true.
            *out |= a < b - width || a > b + width;
        }
    }
    let inside = outside.iter().filter(|&&o| !o).count();
    Ok(inside as f64 / rows as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_risk_by_hand() {
        // Perturbed column sd(c(0, 10, 20, 30)) = 12.909944…; with k = 0.1
        // the half-width is 1.29: records 1 and 3 lie inside, 2 and 4 not.
        let xm = vec![vec![0.0, 10.0, 20.0, 30.0]];
        let x = vec![vec![1.0, 12.0, 19.0, 25.0]];
        assert_eq!(interval_risk(&x, &xm, 0.1).unwrap(), 0.5);
        // A second column puts record 1 outside too.
        let xm2 = vec![xm[0].clone(), vec![0.0, 0.0, 1.0, 1.0]];
        let x2 = vec![x[0].clone(), vec![5.0, 0.0, 1.0, 1.0]];
        assert_eq!(interval_risk(&x2, &xm2, 0.1).unwrap(), 0.25);
        assert_eq!(interval_risk(&xm, &xm, DEFAULT_INTERVAL_K).unwrap(), 1.0);
    }
}
