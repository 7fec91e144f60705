//! The sample standard deviation, as R's `sd(x, na.rm = TRUE)` computes
//! it: the numeric risk and information-loss measures of perturbed files
//! (`risk::interval`, `metrics::il1s`) scale by it, and sdcMicro calls R's
//! `sd` for both, so the figures agree with sdcMicro's when the same
//! standard deviation is used.

use crate::error::{Error, Parameter, Result};

/// Refuses an original and a perturbed file (column-major: one `Vec` per
/// column, one value per record) of different shapes. sdcMicro's `dRisk`
/// and `dUtility` warn and cut the perturbed file to the original's rows;
/// a perturbed file of another size is not the original's, so anonlab
/// says so instead.
pub fn same_shape(original: &[Vec<f64>], perturbed: &[Vec<f64>]) -> Result<()> {
    let invalid = |msg: String| Error::Invalid {
        parameter: Parameter::Column,
        msg,
    };
    if original.len() != perturbed.len() {
        return Err(invalid(format!(
            "the original has {} numeric columns and the perturbed file {}",
            original.len(),
            perturbed.len()
        )));
    }
    for (j, (x, xm)) in original.iter().zip(perturbed).enumerate() {
        if x.len() != xm.len() {
            return Err(invalid(format!(
                "column {}: the original has {} records and the perturbed file {}",
                j + 1,
                x.len(),
                xm.len()
            )));
        }
    }
    Ok(())
}

/// Sample standard deviation (denominator n − 1) of the values that are
/// not NaN; NaN when fewer than two are. Two passes (the mean, then the
/// squared deviations from it), as R's `var` does; R accumulates in long
/// double, so the last bits may differ, far below the 1e-9 the comparisons
/// with sdcMicro ask for.
pub fn sample_sd(values: &[f64]) -> f64 {
    let (n, sum) = values
        .iter()
        .filter(|v| !v.is_nan())
        .fold((0usize, 0.0), |(n, s), v| (n + 1, s + v));
    if n < 2 {
        return f64::NAN;
    }
    let mean = sum / n as f64;
    let squares: f64 = values
        .iter()
        .filter(|v| !v.is_nan())
        .map(|v| (v - mean) * (v - mean))
        .sum();
    (squares / (n - 1) as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_sd_matches_r() {
        // R: sd(c(1, 2, 3, 4, NA), na.rm = TRUE) = 1.2909944487358056
        let sd = sample_sd(&[1.0, 2.0, 3.0, 4.0, f64::NAN]);
        assert!((sd - 1.290_994_448_735_805_6).abs() < 1e-15);
        assert!(sample_sd(&[5.0]).is_nan());
        assert_eq!(sample_sd(&[2.0, 2.0, 2.0]), 0.0);
    }
}
