//! Columns standardized as R's `scale(x)` standardizes them (centre by
//! the column mean, divide by the sample standard deviation, denominator
//! n − 1): sdcMicro's `dRiskRMD` and `dUtility(method = "eigen")` scale
//! the original and the perturbed file each by its own means and
//! deviations before measuring, and the numeric risk and loss measures
//! here do the same so that their figures compare with sdcMicro's.
//!
//! R sums in long double; anonlab in double, so the last bits may differ.
//! Missing values are refused (the callers need complete records).

use crate::error::{Error, Parameter, Result};

/// `scale(x)` of column-major `x`; `what` names the file in messages
/// ("original", "perturbed"). A constant column has no deviation to
/// divide by, and a missing value no place: both are errors naming the
/// column (and record).
pub fn scale_columns(x: &[Vec<f64>], what: &str) -> Result<Vec<Vec<f64>>> {
    let invalid = |msg: String| Error::Invalid {
        parameter: Parameter::Column,
        msg,
    };
    x.iter()
        .enumerate()
        .map(|(j, col)| {
            if let Some(r) = col.iter().position(|v| !v.is_finite()) {
                return Err(invalid(format!(
                    "{what} file, numeric column {}, record {}: the value {} is missing or infinite",
                    j + 1,
                    r + 1,
                    col[r]
                )));
            }
            let n = col.len() as f64;
            let mean = col.iter().sum::<f64>() / n;
            let centred: Vec<f64> = col.iter().map(|v| v - mean).collect();
            let sd = (centred.iter().map(|v| v * v).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
            if sd.is_nan() || sd <= 0.0 {
                return Err(invalid(format!(
                    "{what} file, numeric column {}: all {} values are equal, so it cannot be standardized",
                    j + 1,
                    col.len()
                )));
            }
            Ok(centred.into_iter().map(|v| v / sd).collect())
        })
        .collect()
}
