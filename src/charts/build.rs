//! The six figures, each built from what the core computed: the
//! caller passes the series (labelled "original", "mondrian k=5", ...),
//! nothing is recomputed or invented here beyond binning and percentages.

use serde::Serialize;

use super::{Chart, Plot, Series, DEFAULT_HEIGHT, DEFAULT_WIDTH};
use crate::error::{Error, Result};
use crate::release::Release;
use crate::risk::{CdfPoint, HistogramBin, PrefixRow};
use crate::stats::{CorrelationMatrix, Measure};

fn chart(title: String, x_label: &str, y_label: &str, plot: Plot) -> Chart {
    Chart {
        title,
        x_label: x_label.to_string(),
        y_label: y_label.to_string(),
        plot,
        width: DEFAULT_WIDTH,
        height: DEFAULT_HEIGHT,
    }
}

fn need_series<T>(what: &str, series: &[T]) -> Result<()> {
    if series.is_empty() {
        return Err(Error::Parameter(format!(
            "the {what} chart needs at least one series"
        )));
    }
    Ok(())
}

/// A probability as a short label: 0.1, 0.25, 1.
fn prob(p: f64) -> String {
    let s = format!("{p:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Records per Pr(re-id) bin (the simulator's or the linkage attack's
/// `HistogramBin`s), one bar per series in each bin. All series must use
/// the same bins.
pub fn reid_histogram(series: &[(&str, &[HistogramBin])]) -> Result<Chart> {
    need_series("Pr(re-id) histogram", series)?;
    let bins = series[0].1;
    for (label, other) in &series[1..] {
        let same = other.len() == bins.len()
            && other
                .iter()
                .zip(bins)
                .all(|(a, b)| a.lower == b.lower && a.upper == b.upper);
        if !same {
            return Err(Error::Parameter(format!(
                "the Pr(re-id) histogram of '{label}' has other bins than '{}'",
                series[0].0
            )));
        }
    }
    let categories = bins
        .iter()
        .map(|b| format!("{}–{}", prob(b.lower), prob(b.upper)))
        .collect();
    let series = series
        .iter()
        .map(|(label, bins)| Series {
            label: label.to_string(),
            points: bins
                .iter()
                .enumerate()
                .map(|(i, b)| (i as f64, b.records as f64))
                .collect(),
        })
        .collect();
    Ok(chart(
        "Chance of being singled out: records by Pr(re-id)".into(),
        "Pr(re-id) = 1 / records sharing the attacker's key (bins, upper end included)",
        "records",
        Plot::Bars { categories, series },
    ))
}

/// Step points of a CDF in percent, from (0, 0) to (1, last share): the
/// share at x is that of the last point at or below x.
fn cdf_percent(cdf: &[CdfPoint]) -> Vec<(f64, f64)> {
    let mut points = vec![(0.0, 0.0)];
    for c in cdf {
        if c.probability == 0.0 {
            points[0].1 = c.share * 100.0;
        } else {
            points.push((c.probability, c.share * 100.0));
        }
    }
    let last = points.last().map_or(0.0, |p| p.1);
    if points.last().is_some_and(|p| p.0 < 1.0) {
        points.push((1.0, last));
    }
    points
}

fn cdf_chart(title: &str, x_label: &str, y_label: &str, series: &[(&str, &[CdfPoint])]) -> Chart {
    let series = series
        .iter()
        .map(|(label, cdf)| Series {
            label: label.to_string(),
            points: cdf_percent(cdf),
        })
        .collect();
    chart(
        title.into(),
        x_label,
        y_label,
        Plot::Steps {
            series,
            x_range: (0.0, 1.0),
            y_range: (0.0, 100.0),
        },
    )
}

/// The empirical CDF of Pr(re-id), one step line per series (before/after).
pub fn reid_cdf(series: &[(&str, &[CdfPoint])]) -> Result<Chart> {
    need_series("Pr(re-id) CDF", series)?;
    Ok(cdf_chart(
        "Share of records at or below each chance of being singled out",
        "Pr(re-id) (probability)",
        "records with Pr(re-id) ≤ x (%)",
        series,
    ))
}

/// Breach-probability CDFs, one line per algorithm: the cross-bucket
/// paper's Figure 5 (x = breach probability, y = share of records).
pub fn breach_cdfs(series: &[(&str, &[CdfPoint])]) -> Result<Chart> {
    need_series("breach probability", series)?;
    Ok(cdf_chart(
        "Breach probability of the sensitive value, by algorithm",
        "breach probability p(t, s) (probability)",
        "records with breach probability ≤ x (%)",
        series,
    ))
}

/// A bin of class sizes `from ≤ size ≤ to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SizeBin {
    pub from: u32,
    pub to: u32,
}

impl SizeBin {
    fn label(self) -> String {
        if self.from == self.to {
            self.from.to_string()
        } else {
            format!("{}–{}", self.from, self.to)
        }
    }
}

/// One bin per size up to 16; above, bins doubling in width (1, 2, 3–4,
/// 5–8, ...) so a tail of classes in the thousands fits beside the small
/// classes that matter for risk.
pub fn size_bins(max_size: u32) -> Vec<SizeBin> {
    const LINEAR: u32 = 16;
    if max_size <= LINEAR {
        return (1..=max_size.max(1))
            .map(|s| SizeBin { from: s, to: s })
            .collect();
    }
    let mut bins = vec![SizeBin { from: 1, to: 1 }];
    let mut to = 1u32;
    while to < max_size {
        let from = to + 1;
        to = to.saturating_mul(2);
        bins.push(SizeBin { from, to });
    }
    bins
}

/// Records by the size of their equivalence class. Each series is one size
/// per record: `Simulation::matches` for the original data, [`group_sizes`]
/// for a release. Records with size 0 (none published) are not counted.
pub fn class_sizes(series: &[(&str, &[u32])]) -> Result<Chart> {
    need_series("class-size", series)?;
    let max = series
        .iter()
        .flat_map(|(_, s)| s.iter().copied())
        .max()
        .unwrap_or(1);
    let bins = size_bins(max);
    let bin_of = |size: u32| bins.partition_point(|b| b.to < size);
    let series = series
        .iter()
        .map(|(label, sizes)| {
            let mut counts = vec![0usize; bins.len()];
            for &s in sizes.iter().filter(|&&s| s > 0) {
                counts[bin_of(s)] += 1;
            }
            Series {
                label: label.to_string(),
                points: counts
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| (i as f64, c as f64))
                    .collect(),
            }
        })
        .collect();
    Ok(chart(
        "Records by the size of their equivalence class".into(),
        if max > 16 {
            "class size (records sharing the published key; bins double in width)"
        } else {
            "class size (records sharing the published key)"
        },
        "records",
        Plot::Bars {
            categories: bins.iter().map(|b| b.label()).collect(),
            series,
        },
    ))
}

/// Each published record's class size in a release (the classes of
/// `metrics::class_sizes`: groups split by their exact cells), for
/// [`class_sizes`].
pub fn group_sizes(release: &Release, ds: &crate::data::Dataset) -> Vec<u32> {
    crate::metrics::class_sizes(release, ds)
        .into_iter()
        .flat_map(|s| std::iter::repeat_n(s as u32, s))
        .collect()
}

/// The correlation matrix as a heat map with the value in every cell.
pub fn correlation_heatmap(m: &CorrelationMatrix) -> Result<Chart> {
    if m.columns.is_empty() {
        return Err(Error::Parameter(
            "the correlation heat map needs at least one attribute".into(),
        ));
    }
    let values = m.matrix.iter().flatten().flatten().copied();
    let range = match m.measure {
        Measure::Pearson => (-1.0, 1.0),
        // Bits are unbounded: the diagonal (an attribute's entropy) sets the top.
        Measure::Mi => (0.0, values.fold(1.0, f64::max)),
        _ => (0.0, 1.0),
    };
    Ok(chart(
        format!("Correlation between attributes: {}", m.measure.describe()),
        "attribute",
        "attribute",
        Plot::HeatMap {
            rows: m.columns.clone(),
            columns: m.columns.clone(),
            cells: m.matrix.clone(),
            range,
            measure: m.measure.name().to_string(),
            decimals: 2,
        },
    ))
}

/// Unique records as the attacker learns one more attribute, in the
/// attacker's order (the simulator's prefix table), one line per series.
pub fn prefix_chart(series: &[(&str, &[PrefixRow])]) -> Result<Chart> {
    need_series("prefix", series)?;
    let longest = series
        .iter()
        .map(|(_, rows)| *rows)
        .max_by_key(|rows| rows.len())
        .unwrap_or(&[]);
    let categories = longest
        .iter()
        .map(|r| format!("+{}", r.attributes.last().map_or("", String::as_str)))
        .collect();
    let series = series
        .iter()
        .map(|(label, rows)| Series {
            label: label.to_string(),
            points: rows
                .iter()
                .enumerate()
                .map(|(j, r)| (j as f64, r.uniques as f64))
                .collect(),
        })
        .collect();
    Ok(chart(
        "Records singled out as the attacker learns more attributes".into(),
        "attributes known, in the attacker's order (each point adds one)",
        "unique records (Pr(re-id) = 1)",
        Plot::Markers { categories, series },
    ))
}

/// A (k, l) grid coloured by a metric: `cells[i][j]` is the value at
/// `l = ls[i]`, `k = ks[j]`; `None` where the point was not run or was
/// infeasible.
pub fn sweep_heatmap(
    metric: &str,
    ks: &[u32],
    ls: &[u32],
    cells: Vec<Vec<Option<f64>>>,
) -> Result<Chart> {
    if ks.is_empty() || ls.is_empty() {
        return Err(Error::Parameter(
            "the (k, l) sweep needs at least one k and one l".into(),
        ));
    }
    if cells.len() != ls.len() || cells.iter().any(|r| r.len() != ks.len()) {
        return Err(Error::Parameter(format!(
            "the (k, l) sweep grid must have {} rows (one per l) of {} cells (one per k)",
            ls.len(),
            ks.len()
        )));
    }
    let values: Vec<f64> = cells.iter().flatten().flatten().copied().collect();
    if let Some(v) = values.iter().find(|v| !v.is_finite()) {
        return Err(Error::Parameter(format!(
            "the (k, l) sweep has a value that is not a number: {v}"
        )));
    }
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let range = if values.is_empty() {
        (0.0, 1.0)
    } else if low >= 0.0 {
        (0.0, high.max(low))
    } else {
        (low, high)
    };
    // Probabilities and normalized losses need decimals; counts do not.
    let decimals = if high.abs() <= 1.0 && low.abs() <= 1.0 {
        3
    } else if high.abs() < 100.0 {
        1
    } else {
        0
    };
    Ok(chart(
        format!("(k, l) sweep: {metric}"),
        "k (least records per group)",
        "l (distinct sensitive values)",
        Plot::HeatMap {
            rows: ls.iter().map(|l| format!("l = {l}")).collect(),
            columns: ks.iter().map(|k| format!("k = {k}")).collect(),
            cells,
            range,
            measure: metric.to_string(),
            decimals,
        },
    ))
}
