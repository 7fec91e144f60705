//! The figures of a release of perturbed values (issue 34), computed once
//! here for every surface (the CLI's text and JSON, the TUI, the report):
//! the perturbed numerical key variables compared with their originals.
//!
//! - **Risk**: the interval measure (sdcMicro's `dRisk`, method SDID,
//!   `risk::interval`): the share of records whose original values all lie
//!   within ± k standard deviations of their published ones. Its attacker
//!   holds a record's true values and looks for published values close to
//!   them; it is the numeric counterpart of the class-based figures, which
//!   keep measuring the quasi-identifiers.
//! - **Information loss**: IL1s (sdcMicro's, a sum over cells,
//!   `metrics::il1s`) and its mean per cell; the relative change of each
//!   attribute's mean and of its standard deviation.
//!
//! A figure that is undefined (IL1s of a constant column that changed) is
//! `None` with the reason, never NaN or infinity.

use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::release::{PerturbationMethod, Release};
use crate::risk::{interval_risk, DEFAULT_INTERVAL_K};
use crate::stats::moments::sample_sd;

/// What a perturbation release's numeric attributes lost and risk.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PerturbationFigures {
    /// The methods, in words (`MDAV, k = 3, group means`).
    pub methods: Vec<String>,
    /// The perturbed numeric attributes, in the methods' order.
    pub attributes: Vec<String>,
    /// Records compared.
    pub records: usize,
    /// sdcMicro's dRisk: share of records at risk by the interval measure.
    pub interval_risk: f64,
    /// Its interval half-width, in standard deviations of the published
    /// column.
    pub interval_k: f64,
    /// sdcMicro's IL1s (a sum over cells); `None` when a constant column
    /// changed (its standard deviation is 0).
    pub il1s: Option<f64>,
    /// IL1s per cell (IL1s / (records × attributes)).
    pub il1s_per_cell: Option<f64>,
    /// Per attribute: the relative change of its mean and of its standard
    /// deviation.
    pub moments: Vec<MomentChange>,
}

/// How one attribute's mean and standard deviation moved.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MomentChange {
    pub attribute: String,
    pub mean_before: f64,
    pub mean_after: f64,
    pub sd_before: f64,
    pub sd_after: f64,
}

/// The figures of `release` on `ds`; `None` for a release without
/// perturbed numeric values.
pub fn perturbation_figures(
    release: &Release,
    ds: &Dataset,
) -> Result<Option<PerturbationFigures>> {
    let Some(p) = release.perturbation.as_ref() else {
        return Ok(None);
    };
    let numeric = p.numeric();
    if numeric.is_empty() {
        return Ok(None);
    }
    // Published records only: a perturbation publishes every record, but a
    // release may suppress some, and those have no published value.
    let rows: Vec<usize> = {
        let mut r: Vec<usize> = release
            .groups
            .iter()
            .flat_map(|g| g.rows.iter().map(|&r| r as usize))
            .collect();
        r.sort_unstable();
        r
    };
    let mut original = Vec::with_capacity(numeric.len());
    let mut published = Vec::with_capacity(numeric.len());
    let mut attributes = Vec::with_capacity(numeric.len());
    for &(c, values) in &numeric {
        let col = ds.col(c);
        let mut x = Vec::with_capacity(rows.len());
        for &r in &rows {
            x.push(col.number(col.code(r)).unwrap_or(f64::NAN));
        }
        let xm: Vec<f64> = rows
            .iter()
            .map(|&r| values.get(r).copied().unwrap_or(f64::NAN))
            .collect();
        original.push(x);
        published.push(xm);
        attributes.push(col.name().to_string());
    }
    let interval = interval_risk(&original, &published, DEFAULT_INTERVAL_K)?;
    let il1s = crate::metrics::il1s(&original, &published)?;
    let il1s = il1s.is_finite().then_some(il1s);
    let cells = rows.len() * numeric.len();
    let moments = attributes
        .iter()
        .zip(original.iter().zip(&published))
        .map(|(name, (x, xm))| MomentChange {
            attribute: name.clone(),
            mean_before: mean(x),
            mean_after: mean(xm),
            sd_before: finite(sample_sd(x)),
            sd_after: finite(sample_sd(xm)),
        })
        .collect();
    if !interval.is_finite() {
        return Err(Error::Internal("the interval risk is not a number".into()));
    }
    Ok(Some(PerturbationFigures {
        methods: p.methods.iter().map(|m| describe(m, ds)).collect(),
        attributes,
        records: rows.len(),
        interval_risk: interval,
        interval_k: DEFAULT_INTERVAL_K,
        il1s,
        il1s_per_cell: il1s.filter(|_| cells > 0).map(|v| v / cells as f64),
        moments,
    }))
}

/// A method in words, with its parameters (never a seed).
pub fn describe(m: &PerturbationMethod, ds: &Dataset) -> String {
    match m {
        PerturbationMethod::Microaggregation {
            kind,
            k,
            aggregation,
            columns,
            strata,
            n_groups,
            ..
        } => {
            let names: Vec<&str> = columns.iter().map(|&c| ds.col(c).name()).collect();
            let method = if kind == "mdav" {
                "MDAV"
            } else {
                "optimal univariate"
            };
            let mut s = format!(
                "{method} microaggregation of {}, k = {k}, group {}s, {n_groups} groups",
                names.join(", "),
                aggregation.as_str()
            );
            if let Some(c) = strata {
                s.push_str(&format!(", within each value of '{}'", ds.col(*c).name()));
            }
            s
        }
    }
}

/// Mean of the finite values (0 when there are none).
fn mean(v: &[f64]) -> f64 {
    let (n, s) = v
        .iter()
        .filter(|x| x.is_finite())
        .fold((0usize, 0.0), |(n, s), x| (n + 1, s + x));
    if n == 0 {
        0.0
    } else {
        s / n as f64
    }
}

fn finite(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}
