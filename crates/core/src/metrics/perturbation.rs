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
//!   `metrics::il1s`) and its mean per cell, with its distribution over
//!   the records (each record's share of the sum: quantiles and a
//!   histogram, which the report draws); the relative change of each
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
    /// sdcMicro's dRisk: share of records at risk by the interval measure
    /// (`None` without perturbed numeric attributes).
    pub interval_risk: Option<f64>,
    /// Its interval half-width, in standard deviations of the published
    /// column.
    pub interval_k: f64,
    /// sdcMicro's IL1s (a sum over cells); `None` when a constant column
    /// changed (its standard deviation is 0).
    pub il1s: Option<f64>,
    /// IL1s per cell (IL1s / (records × attributes)).
    pub il1s_per_cell: Option<f64>,
    /// How IL1s is spread over the records (each record's share of the
    /// sum); `None` where IL1s is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub il1s_records: Option<LossDistribution>,
    /// Per attribute: the relative change of its mean and of its standard
    /// deviation.
    pub moments: Vec<MomentChange>,
    /// sdcMicro's dRiskRMD (robust Mahalanobis distances, `risk::rmd`):
    /// `None` without numeric attributes or when it cannot be computed
    /// (`rmd_unavailable` says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rmd: Option<RmdFigures>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rmd_unavailable: Option<String>,
    /// Distance-based record linkage (`risk::linkage_numeric`): the share
    /// of records whose nearest published record is their own, and the
    /// distribution of their own record's rank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linkage: Option<LinkageFigures>,
    /// sdcMicro's eigen measure (dUtility "eigen") and the differences of
    /// the moments (`metrics::numeric_loss`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eigen: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moment_loss: Option<MomentLossFigures>,
    /// PRAM'd attributes: the cells changed, against the matrices'
    /// expectation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categorical: Vec<CategoricalChange>,
    /// Half the L1 distance between the original and published contingency
    /// tables of the PRAM'd attributes, per record
    /// (`metrics::categorical_loss`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contingency_distance: Option<f64>,
    /// PRAM's transition matrices, as the release records them: what a
    /// user needs to correct an analysis (the external report shows them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matrices: Vec<MatrixShown>,
}

/// A per-record loss over the records: its quantiles (nearest rank: the
/// least value at or above which a share q of the records lie at or
/// below) and a histogram of [`LOSS_BINS`] equal widths from 0 to the
/// largest value.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LossDistribution {
    pub records: usize,
    pub mean: f64,
    pub median: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
    /// Records per bin, bin i covering (i·w, (i+1)·w] with w = max /
    /// bins (the first bin also holds 0).
    pub bins: Vec<u64>,
    /// The bins' width.
    pub bin_width: f64,
}

/// Bins of a [`LossDistribution`]'s histogram.
pub const LOSS_BINS: usize = 20;

impl LossDistribution {
    /// The distribution of `values` (finite, ≥ 0); `None` when there are
    /// none or one is not finite.
    pub fn of(values: &[f64]) -> Option<LossDistribution> {
        if values.is_empty() || values.iter().any(|v| !v.is_finite() || *v < 0.0) {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let rank = |q: f64| sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        let max = sorted[n - 1];
        let mut bins = vec![0u64; if max > 0.0 { LOSS_BINS } else { 1 }];
        let bin_width = if max > 0.0 {
            max / LOSS_BINS as f64
        } else {
            0.0
        };
        for &v in &sorted {
            let i = if max > 0.0 {
                ((v / bin_width).ceil() as usize).saturating_sub(1)
            } else {
                0
            };
            let last = bins.len() - 1;
            bins[i.min(last)] += 1;
        }
        Some(LossDistribution {
            records: n,
            mean: sorted.iter().sum::<f64>() / n as f64,
            median: rank(0.5),
            p90: rank(0.9),
            p99: rank(0.99),
            max,
            bins,
            bin_width,
        })
    }
}

impl PerturbationFigures {
    /// The share of the PRAM'd attributes' non-missing cells published as
    /// another category (`None` without PRAM'd attributes or cells).
    pub fn changed_share(&self) -> Option<f64> {
        let cells: u64 = self.categorical.iter().map(|c| c.cells).sum();
        let changed: u64 = self.categorical.iter().map(|c| c.changed).sum();
        (cells > 0).then(|| changed as f64 / cells as f64)
    }
}

/// One PRAM matrix of one attribute (and stratum).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MatrixShown {
    pub attribute: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stratum: Option<String>,
    pub categories: Vec<String>,
    /// Row i: the chances a record of category i is published as each.
    pub rows: Vec<Vec<f64>>,
}

/// sdcMicro's dRiskRMD figures.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RmdFigures {
    /// Share of records at risk by RMDID1.
    pub risk1: f64,
    /// Share at risk by RMDID2 (no other published record close).
    pub risk2: f64,
    /// RMDID1w and its RMDID2 counterpart (weighted by the distances).
    pub wrisk1: f64,
    pub wrisk2: f64,
}

/// Distance-based record linkage.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LinkageFigures {
    /// Share of records linked to their own published record (a tie among
    /// t counts 1/t).
    pub share: f64,
    /// Records whose own published record is the r-th nearest, r = 1..10;
    /// the last entry counts those ranked below 10.
    pub rank_histogram: Vec<usize>,
}

/// Differences of the first two moments.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MomentLossFigures {
    pub means: f64,
    pub covariances: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlations: Option<f64>,
}

/// How many cells of a PRAM'd attribute changed.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CategoricalChange {
    pub attribute: String,
    /// Cells published as another category.
    pub changed: u64,
    /// `changed` over the attribute's non-missing cells.
    pub share: f64,
    /// The attribute's non-missing cells.
    pub cells: u64,
    /// What the matrices expect: Σ over strata and categories of
    /// frequency × (1 − diagonal).
    pub expected: f64,
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
    let (categorical, contingency_distance) = categorical_figures(release, ds)?;
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
    let (rmd, rmd_unavailable, linkage, eigen, moment_loss) = if numeric.is_empty() {
        (None, None, None, None, None)
    } else {
        // The robust measure needs a covariance of full rank: a constant
        // column (or too few records) makes it undefined, said, not NaN.
        let (rmd, unavailable) = match crate::risk::rmd_risk(
            &original,
            &published,
            crate::risk::RmdOptions::default(),
        ) {
            Ok(r)
                if [r.risk1, r.risk2, r.wrisk1, r.wrisk2]
                    .iter()
                    .all(|v| v.is_finite()) =>
            {
                (
                    Some(RmdFigures {
                        risk1: r.risk1,
                        risk2: r.risk2,
                        wrisk1: r.wrisk1,
                        wrisk2: r.wrisk2,
                    }),
                    None,
                )
            }
            Ok(_) => (
                None,
                Some("the robust distances are not finite".to_string()),
            ),
            Err(e) => (None, Some(e.to_string())),
        };
        let linkage = crate::risk::distance_linkage(&original, &published, 10)
            .ok()
            .filter(|l| l.share.is_finite())
            .map(|l| LinkageFigures {
                share: l.share,
                rank_histogram: l.rank_histogram(10),
            });
        let eigen = crate::metrics::eigen_loss(&original, &published)
            .ok()
            .filter(|v| v.is_finite());
        let moment_loss = crate::metrics::moment_loss(&original, &published)
            .ok()
            .filter(|m| m.means.is_finite() && m.covariances.is_finite())
            .map(|m| MomentLossFigures {
                means: m.means,
                covariances: m.covariances,
                correlations: m.correlations.filter(|v| v.is_finite()),
            });
        (rmd, unavailable, linkage, eigen, moment_loss)
    };
    let (interval, il1s) = if numeric.is_empty() {
        (None, None)
    } else {
        let interval = interval_risk(&original, &published, DEFAULT_INTERVAL_K)?;
        if !interval.is_finite() {
            return Err(Error::Internal("the interval risk is not a number".into()));
        }
        let il1s = crate::metrics::il1s(&original, &published)?;
        (Some(interval), il1s.is_finite().then_some(il1s))
    };
    let il1s_records = match il1s {
        Some(_) => LossDistribution::of(&crate::metrics::il1s_per_record(&original, &published)?),
        None => None,
    };
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
    Ok(Some(PerturbationFigures {
        methods: p.methods.iter().map(|m| describe(m, ds)).collect(),
        attributes,
        records: rows.len(),
        interval_risk: interval,
        interval_k: DEFAULT_INTERVAL_K,
        il1s,
        il1s_per_cell: il1s.filter(|_| cells > 0).map(|v| v / cells as f64),
        il1s_records,
        moments,
        rmd,
        rmd_unavailable,
        linkage,
        eigen,
        moment_loss,
        categorical,
        contingency_distance,
        matrices: p
            .methods
            .iter()
            .flat_map(|m| match m {
                PerturbationMethod::Pram { matrices, .. } => matrices.iter().collect::<Vec<_>>(),
                _ => Vec::new(),
            })
            .map(|m| MatrixShown {
                attribute: ds.col(m.column).name().to_string(),
                stratum: m.stratum.clone(),
                categories: m.categories.clone(),
                rows: m.rows(),
            })
            .collect(),
    }))
}

/// The PRAM'd attributes' changed cells (against the matrices'
/// expectation) and their contingency-table distance.
fn categorical_figures(
    release: &Release,
    ds: &Dataset,
) -> Result<(Vec<CategoricalChange>, Option<f64>)> {
    let Some(p) = release.perturbation.as_ref() else {
        return Ok((Vec::new(), None));
    };
    let columns = p.categorical();
    if columns.is_empty() {
        return Ok((Vec::new(), None));
    }
    let matrices: Vec<&crate::release::PramMatrix> = p
        .methods
        .iter()
        .flat_map(|m| match m {
            PerturbationMethod::Pram { matrices, .. } => matrices.iter().collect::<Vec<_>>(),
            _ => Vec::new(),
        })
        .collect();
    let mut changes = Vec::with_capacity(columns.len());
    for &(c, _) in &columns {
        let col = ds.col(c);
        let original = col.codes();
        let missing = col.missing_code();
        let present = original.iter().filter(|&&o| o != missing).count();
        // PRAM recorded its changed cells per stratum matrix.
        let of_column = || matrices.iter().filter(|m| m.column == c);
        let changed: u64 = of_column().map(|m| m.changed).sum();
        let expected = of_column()
            .map(|m| {
                let l = m.categories.len();
                (0..l)
                    .map(|i| m.frequencies[i] as f64 * (1.0 - m.entries[i * l + i]))
                    .sum::<f64>()
            })
            .sum();
        changes.push(CategoricalChange {
            attribute: col.name().to_string(),
            changed,
            share: if present == 0 {
                0.0
            } else {
                changed as f64 / present as f64
            },
            cells: present as u64,
            expected,
        });
    }
    let original: Vec<&[u32]> = columns.iter().map(|&(c, _)| ds.col(c).codes()).collect();
    let published: Vec<&[u32]> = columns.iter().map(|&(_, codes)| codes).collect();
    let distance = crate::metrics::contingency_distance(&original, &published)?;
    Ok((changes, distance.is_finite().then_some(distance)))
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
            weights,
            n_groups,
            ..
        } => {
            let names: Vec<&str> = columns.iter().map(|&c| ds.col(c).name()).collect();
            let weighted = weights.map_or(String::new(), |w| {
                format!(" weighted by '{}'", ds.col(w).name())
            });
            let method = if kind == "mdav" {
                "MDAV"
            } else {
                "optimal univariate"
            };
            let mut s = format!(
                "{method} microaggregation of {}, k = {k}, group {}s{weighted}, {n_groups} groups",
                names.join(", "),
                aggregation.as_str()
            );
            if let Some(c) = strata {
                s.push_str(&format!(", within each value of '{}'", ds.col(*c).name()));
            }
            s
        }
        PerturbationMethod::Noise {
            kind,
            parameter,
            columns,
            strata,
            noise_sd,
            covariance_factor,
        } => {
            let each: Vec<String> = columns
                .iter()
                .zip(noise_sd)
                .map(|(&c, sd)| format!("{} (noise sd {sd:.6e})", ds.col(c).name()))
                .collect();
            let mut s = if kind == "additive" {
                format!(
                    "additive noise of {parameter}% of each standard deviation on {}",
                    each.join(", ")
                )
            } else {
                format!(
                    "correlated noise (correlated2, delta = {parameter}) on {}, covariances × {covariance_factor:.4} in expectation",
                    each.join(", ")
                )
            };
            if let Some(c) = strata {
                s.push_str(&format!(", within each value of '{}'", ds.col(*c).name()));
            }
            // The file's recodings of a noised attribute, applied again to
            // its noisy values (`algorithms::numeric_perturbation`).
            let recoded: Vec<&str> = columns
                .iter()
                .map(|&c| ds.col(c).name())
                .filter(|n| ds.recodings().iter().any(|a| a.column == *n))
                .collect();
            if !recoded.is_empty() {
                s.push_str(&format!(
                    "; the top/bottom codes and roundings of {} applied again after the noise",
                    recoded.join(", ")
                ));
            }
            s
        }
        PerturbationMethod::RankSwap {
            p,
            columns,
            strata,
            swaps,
        } => {
            let each: Vec<String> = columns
                .iter()
                .zip(swaps)
                .map(|(&c, n)| format!("{} ({n} swaps)", ds.col(c).name()))
                .collect();
            let mut s = format!(
                "rank swapping of {} within {p}% of the ranks",
                each.join(", ")
            );
            if let Some(c) = strata {
                s.push_str(&format!(", within each value of '{}'", ds.col(*c).name()));
            }
            s
        }
        PerturbationMethod::Pram {
            columns,
            strata,
            sources,
            matrices,
            ..
        } => {
            let each: Vec<String> = columns
                .iter()
                .zip(sources)
                .map(|(&c, source)| format!("{} ({source})", ds.col(c).name()))
                .collect();
            let mut s = format!(
                "PRAM of {}, {} transition matri{}",
                each.join(", "),
                matrices.len(),
                if matrices.len() == 1 { "x" } else { "ces" }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_distribution_has_nearest_rank_quantiles_and_equal_bins() {
        let v: Vec<f64> = (0..=100).map(f64::from).collect();
        let d = LossDistribution::of(&v).unwrap();
        assert_eq!(d.records, 101);
        assert_eq!(d.mean, 50.0);
        // ceil(0.5 × 101) = 51st value: 50; ceil(0.9 × 101) = 91st: 90;
        // ceil(0.99 × 101) = 100th: 99.
        assert_eq!((d.median, d.p90, d.p99, d.max), (50.0, 90.0, 99.0, 100.0));
        assert_eq!(d.bin_width, 5.0);
        // (0, 5] holds 0 (the first bin's own) and 1..=5; the others 5.
        assert_eq!(d.bins[0], 6);
        assert!(d.bins[1..].iter().all(|&b| b == 5));
        assert_eq!(d.bins.iter().sum::<u64>(), 101);
        let zero = LossDistribution::of(&[0.0, 0.0]).unwrap();
        assert_eq!((zero.bins.clone(), zero.max), (vec![2], 0.0));
        assert!(LossDistribution::of(&[]).is_none());
        assert!(LossDistribution::of(&[1.0, f64::NAN]).is_none());
    }
}
