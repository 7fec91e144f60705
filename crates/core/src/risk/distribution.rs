//! One probability distribution type for every per-record risk figure —
//! Pr(re-identification) from the simulator and the linkage attack, breach
//! probability, LGB's local figures: its histogram and its CDF, made by one
//! binning rule, so a figure's chart and table read alike whichever attack
//! computed it.
//!
//! The rule: probabilities within [`TOLERANCE`] (1e-9) of each other are
//! one value. Breach probabilities are sums of fractions, so 0.3 may come
//! out as 0.30000000000000004; Pr(re-id) = 1/m is exact as a fraction and
//! binned the same way (for 1/m the tolerance never moves a value across a
//! bin edge: 10/m is an integer or at least 1/10 from one for m ≤ 10, and
//! below 1 otherwise).
//!
//! - Histogram: [`HISTOGRAM_BINS`] equal bins over [0, 1], right-closed —
//!   (0.1, 0.2] holds a 1-in-5 chance, the last bin the uniques (1.0), and
//!   the first bin also holds 0 (suppressed records).
//! - CDF: one point per distinct probability in ascending order, with the
//!   share of records at or below it; a probability within the tolerance of
//!   the point before it joins that point.

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Bins of every risk histogram.
pub const HISTOGRAM_BINS: usize = 10;

/// Probabilities this close are one value (bin edges, CDF steps,
/// thresholds).
pub const TOLERANCE: f64 = 1e-9;

/// Distinct values counted in a map at most before the records are sorted
/// instead ([`ProbabilityRuns::of_probabilities`]).
const DISTINCT_COUNTED: usize = 1 << 16;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistogramBin {
    /// The bin is (lower, upper]; the first bin includes nothing below 0.
    pub lower: f64,
    pub upper: f64,
    pub records: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CdfPoint {
    /// A probability that occurs.
    pub probability: f64,
    /// Share of records whose probability is at most `probability`.
    pub share: f64,
}

/// Points at which compare reports the breach CDF: the share of records
/// whose breach probability is at most each value.
pub const CDF_POINTS: [f64; 5] = [0.05, 0.1, 0.2, 0.3, 0.5];

/// A distribution of per-record probabilities: its summary, its
/// histogram and CDF by the rule above, and the CDF at [`CDF_POINTS`]. The
/// one type every surface holds — the baseline, the after measurement,
/// the Evaluation, the TUI's figures and every chart's data — so a count
/// above a threshold is read off one CDF the same way everywhere.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Distribution {
    pub summary: ProbabilitySummary,
    pub histogram: Vec<HistogramBin>,
    pub cdf: Vec<CdfPoint>,
    /// (p, share of records with probability ≤ p) at [`CDF_POINTS`].
    pub cdf_at: Vec<(f64, f64)>,
}

impl Distribution {
    /// Per-record probabilities over `published` published records.
    pub fn from_probabilities(probabilities: &[f64], published: usize, threshold: f64) -> Self {
        Self::from_runs(
            &ProbabilityRuns::of_probabilities(probabilities, None),
            published,
            threshold,
        )
    }

    /// The distribution of per-record probabilities given as runs (so a
    /// grouped table's rows count as the records they stand for).
    pub fn from_runs(runs: &ProbabilityRuns, published: usize, threshold: f64) -> Self {
        let (histogram, cdf) = runs.shape();
        Self::new(
            ProbabilitySummary::of_runs(runs, published, threshold),
            histogram,
            cdf,
        )
    }

    /// Pr(re-id) = 1 / matches per record, every record published, summed
    /// by the key-count simulator's `risk::summarize` and binned by the
    /// rule above, so a distribution of match counts reads the same
    /// whichever attack counted them.
    pub fn from_matches(matches: &[u32], threshold: f64) -> Self {
        Self::from_match_runs(&ProbabilityRuns::of_matches(matches, None), threshold)
    }

    /// [`Distribution::from_matches`] from the match counts' runs.
    pub fn from_match_runs(runs: &ProbabilityRuns, threshold: f64) -> Self {
        let s = super::summarize_runs(runs, 0, threshold);
        let records = s.records;
        let summary = ProbabilitySummary {
            records,
            published: records,
            mean: s.mean,
            max: s.max,
            threshold,
            records_above_threshold: s.records_above_threshold,
            share_above_threshold: if records == 0 {
                0.0
            } else {
                s.records_above_threshold as f64 / records as f64
            },
        };
        let (histogram, cdf) = runs.shape();
        Self::new(summary, histogram, cdf)
    }

    /// Records whose probability is at most `p`, read off the CDF (values
    /// within 1e-9 of `p` count as `p`).
    pub fn at_most(&self, p: f64) -> usize {
        let share = self
            .cdf
            .iter()
            .take_while(|c| c.probability <= p + 1e-9)
            .last()
            .map_or(0.0, |c| c.share);
        ((share * self.summary.records as f64).round() as usize).min(self.summary.records)
    }

    /// Records whose probability is above `threshold`.
    pub fn above(&self, threshold: f64) -> usize {
        self.summary.records - self.at_most(threshold)
    }

    /// Records whose probability is 1: singled out (re-identification) or
    /// whose sensitive value is certain (breach).
    pub fn certain(&self) -> usize {
        self.summary.records - self.at_most(1.0 - 2e-9)
    }

    /// The same distribution with its summary counting the records above
    /// `threshold` (read off the CDF, as [`above`](Self::above) reads it):
    /// a figure measured for one threshold restated for another.
    pub fn set_threshold(&mut self, threshold: f64) {
        let above = self.above(threshold);
        let s = &mut self.summary;
        s.threshold = threshold;
        s.records_above_threshold = above;
        s.share_above_threshold = if s.records == 0 {
            0.0
        } else {
            above as f64 / s.records as f64
        };
    }

    pub(crate) fn new(
        summary: ProbabilitySummary,
        histogram: Vec<HistogramBin>,
        cdf: Vec<CdfPoint>,
    ) -> Self {
        let cdf_at = CDF_POINTS
            .iter()
            .map(|&p| {
                let share = cdf
                    .iter()
                    .take_while(|c| c.probability <= p + 1e-9)
                    .last()
                    .map_or(0.0, |c| c.share);
                (p, share)
            })
            .collect();
        Distribution {
            summary,
            histogram,
            cdf,
            cdf_at,
        }
    }
}

/// The histogram and the CDF of `runs`: (probability, records) in
/// ascending probability, `n` records in all.
fn shape_of(runs: &[(f64, u64)], n: u64) -> (Vec<HistogramBin>, Vec<CdfPoint>) {
    let mut counts = [0usize; HISTOGRAM_BINS];
    let mut cdf: Vec<CdfPoint> = Vec::new();
    let mut at_most = 0u64;
    for &(p, records) in runs {
        counts[bin(p)] += records as usize;
        at_most += records;
        let share = at_most as f64 / n as f64;
        match cdf.last_mut() {
            Some(last) if p - last.probability <= TOLERANCE => last.share = share,
            _ => cdf.push(CdfPoint {
                probability: p,
                share,
            }),
        }
    }
    let histogram = counts
        .iter()
        .enumerate()
        .map(|(i, &records)| HistogramBin {
            lower: i as f64 / HISTOGRAM_BINS as f64,
            upper: (i + 1) as f64 / HISTOGRAM_BINS as f64,
            records,
        })
        .collect();
    (histogram, cdf)
}

/// Per-record probabilities as runs: each distinct probability with the
/// records that have it, in ascending order. Every summary and
/// distribution of per-record figures is computed from runs, so a figure
/// does not depend on the order of the records nor on whether they come
/// one per row or as a grouped table's rows standing for several records
/// (`Dataset::is_grouped`): sums run over the runs in ascending
/// probability, each adding p × records, and come out bit for bit the
/// same either way.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbabilityRuns {
    runs: Vec<(f64, u64)>,
    records: u64,
}

impl ProbabilityRuns {
    /// One probability per row; row `r` stands for `weights[r]` records
    /// (one each without weights).
    ///
    /// Per-record figures mostly take few values (a breach probability is
    /// one of few ratios), so the records are first counted per value in a
    /// map and only the distinct values sorted: on 10 M records, sorting
    /// them all was the longest step of `assess` after the load. When the
    /// values turn out to be mostly distinct the records are sorted, on
    /// every core. Either way a run is the records with equal values.
    pub fn of_probabilities(probabilities: &[f64], weights: Option<&[u32]>) -> Self {
        let weight = |r: usize| weights.map_or(1, |w| u64::from(w[r]));
        let mut sorted: Vec<(f64, u64)> = Vec::new();
        let mut by_bits: FxHashMap<u64, u64> = FxHashMap::default();
        let mut distinct = true;
        for (r, &p) in probabilities.iter().enumerate() {
            if p.is_nan() {
                // NaN equals nothing: a run of its own, as in a sort.
                sorted.push((p, weight(r)));
            } else if by_bits.len() < DISTINCT_COUNTED {
                *by_bits.entry(p.to_bits()).or_default() += weight(r);
            } else {
                distinct = false;
                break;
            }
        }
        if distinct {
            sorted.extend(by_bits.into_iter().map(|(b, c)| (f64::from_bits(b), c)));
        } else {
            sorted = (0..probabilities.len())
                .into_par_iter()
                .map(|r| (probabilities[r], weight(r)))
                .collect();
        }
        // Equal under `total_cmp` is equal bits: the order, and so each
        // run's value, do not depend on the sort.
        sorted.par_sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        Self::from_runs(merge_equal(sorted))
    }

    /// Pr(re-id) = 1/m per row from its match count m, each row standing
    /// for `weights[r]` records. Counted per distinct m first: a million
    /// records have few distinct counts.
    pub fn of_matches(matches: &[u32], weights: Option<&[u32]>) -> Self {
        let mut records: FxHashMap<u32, u64> = FxHashMap::default();
        match weights {
            None => matches
                .iter()
                .for_each(|&m| *records.entry(m).or_default() += 1),
            Some(w) => matches
                .iter()
                .zip(w)
                .for_each(|(&m, &w)| *records.entry(m).or_default() += u64::from(w)),
        }
        let mut counts: Vec<(u32, u64)> = records.into_iter().collect();
        // Descending match count = ascending probability.
        counts.sort_unstable_by_key(|&(m, _)| std::cmp::Reverse(m));
        Self::from_runs(
            counts
                .into_iter()
                .map(|(m, c)| (1.0 / f64::from(m), c))
                .collect(),
        )
    }

    fn from_runs(runs: Vec<(f64, u64)>) -> Self {
        let records = runs.iter().map(|r| r.1).sum();
        ProbabilityRuns { runs, records }
    }

    /// (probability, records), ascending.
    pub fn runs(&self) -> &[(f64, u64)] {
        &self.runs
    }
    pub fn records(&self) -> u64 {
        self.records
    }
    /// The sum of the probabilities over the records.
    pub fn sum(&self) -> f64 {
        self.runs.iter().map(|&(p, c)| p * c as f64).sum()
    }
    /// The mean probability over the records (0 without records).
    pub fn mean(&self) -> f64 {
        if self.records == 0 {
            return 0.0;
        }
        self.sum() / self.records as f64
    }
    /// The largest probability (0 without records).
    pub fn max(&self) -> f64 {
        self.runs.last().map_or(0.0, |r| r.0.max(0.0))
    }
    /// Records whose probability passes `above`.
    pub fn count(&self, above: impl Fn(f64) -> bool) -> u64 {
        self.runs.iter().filter(|r| above(r.0)).map(|r| r.1).sum()
    }
    /// The histogram and CDF, by the rule above.
    pub fn shape(&self) -> (Vec<HistogramBin>, Vec<CdfPoint>) {
        shape_of(&self.runs, self.records)
    }
}

/// Sorted (probability, records) pairs with equal probabilities merged
/// into one run.
fn merge_equal(sorted: Vec<(f64, u64)>) -> Vec<(f64, u64)> {
    let mut runs: Vec<(f64, u64)> = Vec::new();
    for (p, c) in sorted {
        match runs.last_mut() {
            Some((q, n)) if *q == p => *n += c,
            _ => runs.push((p, c)),
        }
    }
    runs
}

/// The bin of `p`: the b with b/10 < p ≤ (b+1)/10 up to the tolerance,
/// 0 for p = 0.
fn bin(p: f64) -> usize {
    let scaled = (p * HISTOGRAM_BINS as f64 - TOLERANCE).ceil();
    (scaled.max(1.0) as usize).min(HISTOGRAM_BINS) - 1
}

/// Summary of per-record probabilities, over every source row (suppressed
/// rows count with probability 0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbabilitySummary {
    pub records: usize,
    pub published: usize,
    pub mean: f64,
    pub max: f64,
    /// A record is above when its probability is strictly greater.
    pub threshold: f64,
    pub records_above_threshold: usize,
    pub share_above_threshold: f64,
}

impl ProbabilitySummary {
    pub fn new(probabilities: &[f64], published: usize, threshold: f64) -> Self {
        Self::of_runs(
            &ProbabilityRuns::of_probabilities(probabilities, None),
            published,
            threshold,
        )
    }

    /// The summary of `runs`, of which `published` records are published.
    pub fn of_runs(runs: &ProbabilityRuns, published: usize, threshold: f64) -> Self {
        let n = runs.records() as usize;
        let above = runs.count(|p| p > threshold + TOLERANCE) as usize;
        ProbabilitySummary {
            records: n,
            published,
            mean: runs.mean(),
            max: runs.max(),
            threshold,
            records_above_threshold: above,
            share_above_threshold: if n == 0 { 0.0 } else { above as f64 / n as f64 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The histogram and CDF of one probability per record.
    fn of_probabilities(p: &[f64]) -> Distribution {
        Distribution::from_probabilities(p, p.len(), 1.0)
    }

    /// The runs by sorting every record, as the definition has them.
    fn runs_by_sorting(probabilities: &[f64], weights: Option<&[u32]>) -> Vec<(f64, u64)> {
        let mut sorted: Vec<(f64, u64)> = probabilities
            .iter()
            .enumerate()
            .map(|(r, &p)| (p, weights.map_or(1, |w| u64::from(w[r]))))
            .collect();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        merge_equal(sorted)
    }

    #[test]
    fn counted_runs_are_the_sorted_runs() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        // Few values (counted in a map) and mostly distinct ones (sorted),
        // with signed zeros, on rows of one record and on weighted rows.
        for distinct in [5u32, 3 * DISTINCT_COUNTED as u32] {
            let n = 4 * DISTINCT_COUNTED;
            let p: Vec<f64> = (0..n)
                .map(|_| match rng.random_range(0..20) {
                    0 => -0.0,
                    1 => 0.0,
                    _ => f64::from(rng.random_range(1..=distinct)) / f64::from(distinct),
                })
                .collect();
            let w: Vec<u32> = (0..n).map(|_| rng.random_range(1..4)).collect();
            for weights in [None, Some(&w[..])] {
                let runs = ProbabilityRuns::of_probabilities(&p, weights);
                let expected = runs_by_sorting(&p, weights);
                assert_eq!(runs.runs().len(), expected.len());
                for (a, b) in runs.runs().iter().zip(&expected) {
                    assert_eq!((a.0.to_bits(), a.1), (b.0.to_bits(), b.1));
                }
            }
        }
    }

    #[test]
    fn histogram_edges_are_right_closed() {
        let h = of_probabilities(&[0.0, 0.1, 0.1000001, 0.3, 1.0, 0.25]).histogram;
        let counts: Vec<usize> = h.iter().map(|b| b.records).collect();
        assert_eq!(counts, vec![2, 1, 2, 0, 0, 0, 0, 0, 0, 1]);
        let c = of_probabilities(&[0.5, 0.25, 0.25, 0.5 + 1e-15]).cdf;
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].share, 0.5);
        assert_eq!(c[1].share, 1.0);
    }

    #[test]
    fn bins_are_right_closed() {
        let d = of_probabilities(&[0.0, 0.1, 0.2, 0.1 + 0.2, 0.35, 1.0]);
        let records: Vec<usize> = d.histogram.iter().map(|b| b.records).collect();
        // 0 and 0.1 in the first bin, 0.2 in the second, 0.30000000000000004
        // in the third (within the tolerance of 0.3), 0.35 in the fourth.
        assert_eq!(records, vec![2, 1, 1, 1, 0, 0, 0, 0, 0, 1]);
        let shares: Vec<(f64, f64)> = d.cdf.iter().map(|c| (c.probability, c.share)).collect();
        assert_eq!(shares.len(), 6);
        assert_eq!(shares[5], (1.0, 1.0));
    }

    /// For Pr(re-id) = 1/m the one rule is the exact one: p ≤ b/10 ⇔
    /// 10 ≤ b·m on integers, and match counts give the distribution their
    /// probabilities give.
    #[test]
    fn match_counts_bin_exactly() {
        for m in 1u32..=2000 {
            let exact = (10u64.div_ceil(u64::from(m)) as usize).clamp(1, HISTOGRAM_BINS) - 1;
            assert_eq!(bin(1.0 / f64::from(m)), exact, "m = {m}");
        }
        let matches: Vec<u32> = (1..300u32)
            .flat_map(|m| vec![m; (m % 7) as usize])
            .collect();
        let probabilities: Vec<f64> = matches.iter().map(|&m| 1.0 / f64::from(m)).collect();
        let (a, b) = (
            Distribution::from_matches(&matches, 1.0),
            of_probabilities(&probabilities),
        );
        assert_eq!((a.histogram, a.cdf), (b.histogram, b.cdf));
    }

    #[test]
    fn probabilities_within_the_tolerance_are_one_step() {
        let d = of_probabilities(&[0.25, 0.25 + 1e-12, 0.5]);
        assert_eq!(d.cdf.len(), 2);
        assert_eq!(d.cdf[0].probability, 0.25);
        assert!((d.cdf[0].share - 2.0 / 3.0).abs() < 1e-15);
        let empty = of_probabilities(&[]);
        assert!(empty.cdf.is_empty());
        assert_eq!(empty.histogram.iter().map(|b| b.records).sum::<usize>(), 0);
    }
}
