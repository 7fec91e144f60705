//! The issue's six figures, each built from what the core computed: the
//! caller passes the series (labelled "original", "mondrian k=5", ...),
//! nothing is recomputed or invented here beyond binning and percentages.

use serde::Serialize;

use super::{Chart, Plot, Series, DEFAULT_HEIGHT, DEFAULT_WIDTH};
use crate::error::{Error, Result};
use crate::metrics::LossDistribution;
use crate::release::{CellSuppression, HouseholdCells, Release};
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
        return Err(Error::Internal(format!(
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
            return Err(Error::Internal(format!(
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
        return Err(Error::Internal(
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
        format!(
            "Correlation between attributes: {}",
            measure_title(m.measure)
        ),
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

/// The measure's name for a title (its `describe` is a sentence).
fn measure_title(m: Measure) -> &'static str {
    match m {
        Measure::Phi2 => "φ² (mean-square contingency)",
        Measure::Cramer => "Cramér's V",
        Measure::Pearson => "Pearson's r",
        Measure::Mi => "mutual information (bits)",
        Measure::Nmi => "normalized mutual information",
    }
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
        return Err(Error::Internal(
            "the (k, l) sweep needs at least one k and one l".into(),
        ));
    }
    if cells.len() != ls.len() || cells.iter().any(|r| r.len() != ks.len()) {
        return Err(Error::Internal(format!(
            "the (k, l) sweep grid must have {} rows (one per l) of {} cells (one per k)",
            ls.len(),
            ks.len()
        )));
    }
    let values: Vec<f64> = cells.iter().flatten().flatten().copied().collect();
    if let Some(v) = values.iter().find(|v| !v.is_finite()) {
        return Err(Error::Internal(format!(
            "the (k, l) sweep has a value that is not a number: {v}"
        )));
    }
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // The scale spans the values found, not 0..max: the sweep is for telling
    // neighbouring points apart, which a scale from 0 washes out.
    let range = if values.is_empty() {
        (0.0, 1.0)
    } else if low < high {
        (low, high)
    } else {
        (low.min(0.0), high.max(0.0))
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

/// Local suppression: cells suppressed per key variable, one bar per
/// release in each attribute (the release's `CellSuppression`, as the
/// CLI, the TUI and the report read it). All releases must share their
/// keys.
pub fn suppressed_cells(series: &[(&str, &CellSuppression)]) -> Result<Chart> {
    need_series("suppressed-cells", series)?;
    let categories: Vec<String> = series[0]
        .1
        .suppressed_cells
        .iter()
        .map(|a| a.attribute.clone())
        .collect();
    for (label, s) in series {
        let keys: Vec<&str> = s
            .suppressed_cells
            .iter()
            .map(|a| a.attribute.as_str())
            .collect();
        if keys != categories.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(Error::Internal(format!(
                "the suppressed-cells chart needs the same key variables in every release; {label} has others"
            )));
        }
    }
    let series = series
        .iter()
        .map(|(label, s)| Series {
            label: format!("{label} ({} cells)", s.total),
            points: s
                .suppressed_cells
                .iter()
                .enumerate()
                .map(|(i, a)| (i as f64, a.cells as f64))
                .collect(),
        })
        .collect();
    Ok(chart(
        "Cells suppressed per key variable".into(),
        "key variable",
        "cells suppressed (published as *)",
        Plot::Bars { categories, series },
    ))
}

/// A perturbation's loss per record (IL1s, each record's share of the
/// sum): records per bin of the evaluation's [`LossDistribution`], the
/// bins labelled by their upper bound.
pub fn loss_per_record(d: &LossDistribution) -> Result<Chart> {
    let categories = (1..=d.bins.len())
        .map(|i| short_number(i as f64 * d.bin_width))
        .collect();
    let series = vec![Series {
        label: format!(
            "{} records (median {}, 90th percentile {}, max {})",
            d.records,
            short_number(d.median),
            short_number(d.p90),
            short_number(d.max)
        ),
        points: d
            .bins
            .iter()
            .enumerate()
            .map(|(i, &n)| (i as f64, n as f64))
            .collect(),
    }];
    Ok(chart(
        "Information loss per record (IL1s)".into(),
        "IL1s of the record, up to",
        "records",
        Plot::Bars { categories, series },
    ))
}

/// Distance-based record linkage: how many records have their own
/// published record as the nearest (rank 1), second nearest, …, and
/// beyond the last rank counted (`LinkageFigures::rank_histogram`).
pub fn linkage_ranks(histogram: &[usize]) -> Result<Chart> {
    need_series("linkage-ranks", histogram)?;
    let last = histogram.len();
    let categories = (1..=last)
        .map(|r| {
            if r == last {
                format!("> {}", r - 1)
            } else {
                r.to_string()
            }
        })
        .collect();
    let series = vec![Series {
        label: "records".into(),
        points: histogram
            .iter()
            .enumerate()
            .map(|(i, &n)| (i as f64, n as f64))
            .collect(),
    }];
    Ok(chart(
        "Rank of a record's own published record among the nearest".into(),
        "rank (1 = linked)",
        "records",
        Plot::Bars { categories, series },
    ))
}

/// A number for an axis label: at most four significant digits.
fn short_number(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Local suppression with a household column: cells suppressed in the
/// households of each size, one bar per key variable (the Handbook on
/// SDC's report for hierarchical files).
pub fn suppressed_by_household_size(h: &HouseholdCells) -> Result<Chart> {
    need_series("household-size", &h.by_size)?;
    let categories = h.by_size.iter().map(|r| r.size.to_string()).collect();
    let keys = h.by_size[0].cells.len();
    let series = (0..keys)
        .map(|a| Series {
            label: h.by_size[0].cells[a].attribute.clone(),
            points: h
                .by_size
                .iter()
                .enumerate()
                .map(|(i, r)| (i as f64, r.cells[a].cells as f64))
                .collect(),
        })
        .collect();
    Ok(chart(
        format!("Cells suppressed by household size ('{}')", h.column),
        "household size (members in the file)",
        "cells suppressed (published as *)",
        Plot::Bars { categories, series },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loss_chart_draws_the_distributions_bins() {
        let v: Vec<f64> = (0..=100).map(f64::from).collect();
        let d = LossDistribution::of(&v).unwrap();
        let c = loss_per_record(&d).unwrap();
        let Plot::Bars { categories, series } = &c.plot else {
            panic!("{:?}", c.plot)
        };
        assert_eq!(categories.first().map(String::as_str), Some("5"));
        assert_eq!(categories.last().map(String::as_str), Some("100"));
        let heights: Vec<u64> = series[0].points.iter().map(|p| p.1 as u64).collect();
        assert_eq!(heights, d.bins);
        assert!(c.to_svg().unwrap().contains("IL1s"));
        let ranks = linkage_ranks(&[5, 2, 0, 1]).unwrap();
        let Plot::Bars { categories, .. } = &ranks.plot else {
            panic!()
        };
        assert_eq!(categories, &["1", "2", "3", "> 3"]);
        assert_eq!(short_number(0.012345), "0.01235");
        assert_eq!(short_number(1234.6), "1235");
    }
    use crate::data::Dataset;
    use crate::progress::Progress;
    use crate::risk::{simulate, Knowledge, Simulation};

    fn simulation() -> Simulation {
        // Classes by (sex, age): 3 × (M,30), 1 × (M,41), 2 × (F,30), 1 × (F,52).
        let ds = Dataset::from_rows(
            &["sex", "age"],
            &[
                vec!["M", "30"],
                vec!["M", "30"],
                vec!["M", "30"],
                vec!["M", "41"],
                vec!["F", "30"],
                vec!["F", "30"],
                vec!["F", "52"],
            ],
        )
        .unwrap();
        simulate(&ds, Knowledge::plain(&[0, 1]), 0.2, &Progress::new()).unwrap()
    }

    fn bars(c: &Chart) -> (&[String], &[Series]) {
        match &c.plot {
            Plot::Bars { categories, series } => (categories, series),
            other => panic!("expected bars, got {other:?}"),
        }
    }

    #[test]
    fn histogram_bars_are_the_simulators_bins() {
        let sim = simulation();
        let c = reid_histogram(&[("original", &sim.histogram)]).unwrap();
        let (categories, series) = bars(&c);
        assert_eq!(categories.len(), sim.histogram.len());
        assert_eq!(categories[0], "0–0.1");
        let heights: Vec<usize> = series[0].points.iter().map(|p| p.1 as usize).collect();
        let expected: Vec<usize> = sim.histogram.iter().map(|b| b.records).collect();
        assert_eq!(heights, expected);
        // By hand: two uniques in (0.9, 1], two at 1/2, three at 1/3.
        assert_eq!(heights[9], 2);
        assert_eq!(heights[4], 2);
        assert_eq!(heights[3], 3);
    }

    #[test]
    fn histograms_with_other_bins_are_refused() {
        let sim = simulation();
        let short = &sim.histogram[..5];
        let e = reid_histogram(&[("a", &sim.histogram), ("b", short)]).unwrap_err();
        assert!(e.to_string().contains("'b' has other bins"), "{e}");
        assert!(reid_histogram(&[]).is_err());
    }

    #[test]
    fn cdf_steps_run_from_zero_to_one_through_the_simulators_points() {
        let sim = simulation();
        let c = reid_cdf(&[("original", &sim.cdf)]).unwrap();
        let Plot::Steps { series, .. } = &c.plot else {
            panic!("expected steps")
        };
        let p = &series[0].points;
        assert_eq!(p[0], (0.0, 0.0));
        assert_eq!(*p.last().unwrap(), (1.0, 100.0));
        // 1/3 → 3 of 7 records, 1/2 → 5 of 7, 1 → 7 of 7.
        let inner: Vec<(f64, f64)> = sim
            .cdf
            .iter()
            .map(|c| (c.probability, c.share * 100.0))
            .collect();
        assert_eq!(&p[1..], &inner[..]);
        assert!((p[1].1 - 300.0 / 7.0).abs() < 1e-9);
    }

    #[test]
    fn step_path_holds_each_value_until_the_next_point() {
        let path = super::super::draw::step_path(&[(0.0, 0.0), (0.5, 40.0), (1.0, 100.0)]);
        assert_eq!(
            path,
            vec![
                (0.0, 0.0),
                (0.5, 0.0),
                (0.5, 40.0),
                (1.0, 40.0),
                (1.0, 100.0)
            ]
        );
    }

    #[test]
    fn class_sizes_count_records_per_size() {
        let sim = simulation();
        let c = class_sizes(&[("original", &sim.matches)]).unwrap();
        let (categories, series) = bars(&c);
        // Largest class 3: one bin per size 1..=3.
        assert_eq!(categories, ["1", "2", "3"]);
        let heights: Vec<f64> = series[0].points.iter().map(|p| p.1).collect();
        assert_eq!(heights, [2.0, 2.0, 3.0]);
    }

    #[test]
    fn size_bins_double_above_sixteen_and_cover_the_largest() {
        assert_eq!(size_bins(1), [SizeBin { from: 1, to: 1 }]);
        assert_eq!(size_bins(16).len(), 16);
        let b = size_bins(1000);
        assert_eq!(b[0], SizeBin { from: 1, to: 1 });
        assert_eq!(b[1], SizeBin { from: 2, to: 2 });
        assert_eq!(b[2], SizeBin { from: 3, to: 4 });
        assert_eq!(b.last().unwrap().to, 1024);
        for w in b.windows(2) {
            assert_eq!(w[1].from, w[0].to + 1);
        }
        // A size lands in exactly one bin.
        let c = class_sizes(&[("x", &[1, 2, 3, 4, 5, 17, 1000][..])]).unwrap();
        let (cats, series) = bars(&c);
        assert_eq!(cats[2], "3–4");
        let total: f64 = series[0].points.iter().map(|p| p.1).sum();
        assert_eq!(total, 7.0);
        assert_eq!(series[0].points[2].1, 2.0);
    }

    #[test]
    fn prefix_points_are_the_simulators_uniques() {
        let sim = simulation();
        let c = prefix_chart(&[("original", &sim.prefix)]).unwrap();
        let Plot::Markers { categories, series } = &c.plot else {
            panic!("expected markers")
        };
        assert_eq!(categories, &["+sex", "+age"]);
        let uniques: Vec<f64> = sim.prefix.iter().map(|r| r.uniques as f64).collect();
        let drawn: Vec<f64> = series[0].points.iter().map(|p| p.1).collect();
        assert_eq!(drawn, uniques);
        // Sex alone singles nobody out; with age, (M,41) and (F,52).
        assert_eq!(drawn, [0.0, 2.0]);
    }

    #[test]
    fn sweep_grid_is_checked_and_kept() {
        let cells = vec![vec![Some(0.2), None], vec![Some(0.1), Some(0.05)]];
        let c = sweep_heatmap("mean breach", &[2, 5], &[2, 3], cells.clone()).unwrap();
        let Plot::HeatMap {
            rows,
            columns,
            cells: kept,
            range,
            decimals,
            ..
        } = &c.plot
        else {
            panic!("expected a heat map")
        };
        assert_eq!(rows, &["l = 2", "l = 3"]);
        assert_eq!(columns, &["k = 2", "k = 5"]);
        assert_eq!(kept, &cells);
        assert_eq!(*range, (0.05, 0.2));
        assert_eq!(*decimals, 3);
        let e = sweep_heatmap("m", &[2, 5], &[2], cells).unwrap_err();
        assert!(
            e.to_string().contains("1 rows (one per l) of 2 cells"),
            "{e}"
        );
        assert!(sweep_heatmap("m", &[2], &[2], vec![vec![Some(f64::NAN)]]).is_err());
    }

    #[test]
    fn correlation_heat_map_keeps_the_matrix() {
        let ds = Dataset::from_rows(
            &["a", "b"],
            &[
                vec!["x", "1"],
                vec!["x", "1"],
                vec!["y", "2"],
                vec!["y", "3"],
            ],
        )
        .unwrap();
        let m = cramer(&ds);
        let c = correlation_heatmap(&m).unwrap();
        let Plot::HeatMap { cells, range, .. } = &c.plot else {
            panic!("expected a heat map")
        };
        assert_eq!(cells, &m.matrix);
        assert_eq!(*range, (0.0, 1.0));
        assert!(c.title.contains("Cramér"));
    }

    /// The `<text>` elements of `svg` in document order: x, y, font size
    /// and content. plotters writes a font's size divided by 1.24 (its
    /// ratio of em to pixel height), so the size drawn is that times 1.24.
    fn svg_texts(svg: &str) -> Vec<(f64, f64, u32, String)> {
        let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
        doc.descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| {
                let number = |name| n.attribute(name)?.parse::<f64>().ok();
                Some((
                    number("x")?,
                    number("y")?,
                    (number("font-size")? * 1.24).round() as u32,
                    n.text().unwrap_or_default().trim().to_string(),
                ))
            })
            .collect()
    }

    /// The Cramér's V matrix of `ds`'s first two columns.
    fn cramer(ds: &Dataset) -> crate::stats::correlation::CorrelationMatrix {
        crate::stats::correlation_matrix(
            ds,
            &[0, 1],
            Measure::Cramer,
            &crate::stats::Discretization {
                bins: 10,
                missing: Default::default(),
            },
        )
        .unwrap()
    }

    /// Exported chart titles were cut at both edges ("bility of the
    /// sensitive value, by algorithm (attacker knows 6 of 7 QIs; …", issue
    /// 32, item 4). Every chart kind, at the default size and the smallest
    /// allowed, with a long title: the title's text elements, measured with
    /// the font the charts draw with, lie inside the width and read as the
    /// whole title.
    #[test]
    fn chart_titles_fit_the_width_of_every_chart() {
        use plotters::prelude::*;
        let sim = simulation();
        let ds = Dataset::from_rows(&["a", "b"], &[vec!["x", "1"], vec!["y", "2"]]).unwrap();
        let m = cramer(&ds);
        let charts = [
            reid_histogram(&[("original", &sim.histogram)]).unwrap(),
            reid_cdf(&[("original", &sim.cdf)]).unwrap(),
            breach_cdfs(&[("original", &sim.cdf), ("mondrian k=5", &sim.cdf)]).unwrap(),
            class_sizes(&[("original", &sim.matches)]).unwrap(),
            correlation_heatmap(&m).unwrap(),
            prefix_chart(&[("original", &sim.prefix)]).unwrap(),
            sweep_heatmap("mean breach", &[2, 5], &[2], vec![vec![Some(0.2), None]]).unwrap(),
        ];
        let title = "Breach probability of the sensitive value, by algorithm \
                     (attacker knows 6 of 7 QIs; 2,082 cells hidden; not published: workclass)";
        for chart in charts {
            for (w, h) in [(1200, 720), (1000, 600)] {
                let mut c = chart.clone().with_size(w, h).unwrap();
                c.title = title.to_string();
                let svg = c.to_svg().unwrap();
                let texts = svg_texts(&svg);
                let mut shown = String::new();
                let mut lines = 0;
                for (x, _, size, text) in &texts {
                    if shown.len() >= title.len() {
                        break;
                    }
                    let mut scratch = String::new();
                    let area = SVGBackend::with_string(&mut scratch, (w, h)).into_drawing_area();
                    let font = TextStyle::from((super::super::FONT, *size).into_font());
                    let (width, _) = area.estimate_text_size(text, &font).unwrap();
                    let half = f64::from(width) / 2.0;
                    assert!(
                        x - half >= 0.0 && x + half <= f64::from(w),
                        "{:?} {w}×{h}: {text:?} at x {x}, {width} px wide",
                        c.plot
                    );
                    if !shown.is_empty() {
                        shown.push(' ');
                    }
                    shown.push_str(text);
                    lines += 1;
                }
                assert_eq!(shown, title, "{w}×{h}: {texts:?}");
                assert!(lines <= 2, "{lines} lines");
            }
        }
    }

    #[test]
    fn a_title_takes_one_line_then_two_then_a_smaller_font() {
        // A character as wide as half the font size.
        let measure = |t: &str, size: u32| t.chars().count() as u32 * size / 2;
        let (lines, size) = super::super::draw::title_lines("one two three", 300, measure);
        assert_eq!((lines, size), (vec!["one two three".to_string()], 30));
        let (lines, size) = super::super::draw::title_lines("one two three", 120, measure);
        assert_eq!((lines, size), (vec!["one two".into(), "three".into()], 30));
        let (lines, size) = super::super::draw::title_lines("one two three", 80, measure);
        assert_eq!((lines, size), (vec!["one two".into(), "three".into()], 22));
    }

    #[test]
    fn a_too_small_size_is_refused() {
        let sim = simulation();
        let c = reid_cdf(&[("o", &sim.cdf)]).unwrap();
        assert!(c.clone().with_size(300, 200).is_err());
        assert_eq!(c.with_size(1000, 600).unwrap().width, 1000);
    }
}
