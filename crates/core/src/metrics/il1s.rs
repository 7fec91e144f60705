//! IL1s, the information loss of a perturbed numeric file (Mateo-Sanz,
//! Sebe and Domingo-Ferrer, "Outlier protection in continuous microdata
//! masking", PSD 2004), as sdcMicro 5.8.1 computes it in
//! `dUtility(method = "IL1s")` (R/dUtility.R): for every cell, the absolute
//! difference between the original and the perturbed value, divided by
//! √2 times the sample standard deviation of the original column, summed
//! over all cells.
//!
//! The paper (and sdcMicro's older `IL1old`) divide the sum by the number of
//! cells; sdcMicro's IL1s, the figure its objects store and its reports
//! show, does not, and anonlab follows it so the figures compare: divide by
//! records × columns for the per-cell mean. Missing cells (NaN) are left
//! out of the sum and of the standard deviation, as R's `na.rm = TRUE`
//! does.

use crate::error::Result;
use crate::stats::moments::{same_shape, sample_sd};

/// IL1s of `perturbed` against `original`, both column-major (one `Vec`
/// per numeric column, one value per record, records in the same order).
/// A column whose original values are all equal has no standard deviation:
/// its cells add +∞ where they changed and nothing where they did not
/// (0/0 is NaN, which R's `sum(na.rm = TRUE)` drops too).
pub fn il1s(original: &[Vec<f64>], perturbed: &[Vec<f64>]) -> Result<f64> {
    same_shape(original, perturbed)?;
    let mut total = 0.0;
    for (x, xm) in original.iter().zip(perturbed) {
        let scale = sample_sd(x) * std::f64::consts::SQRT_2;
        total += x
            .iter()
            .zip(xm)
            .map(|(a, b)| (a - b).abs() / scale)
            .filter(|v| !v.is_nan())
            .sum::<f64>();
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn il1s_by_hand() {
        // sd(c(1, 2, 3)) = 1: |1 - 2| + |3 - 2| over √2.
        let x = vec![vec![1.0, 2.0, 3.0]];
        let xm = vec![vec![2.0, 2.0, 2.0]];
        let v = il1s(&x, &xm).unwrap();
        assert!((v - 2.0 / std::f64::consts::SQRT_2).abs() < 1e-15);
        assert_eq!(il1s(&x, &x).unwrap(), 0.0);
    }

    #[test]
    fn il1s_refuses_files_of_different_sizes() {
        let err = il1s(&[vec![1.0, 2.0]], &[vec![1.0]]).unwrap_err();
        assert!(err.to_string().contains("2 records"), "{err}");
    }
}
