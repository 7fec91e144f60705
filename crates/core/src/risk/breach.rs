//! Breach probability p(t, s): how likely an attacker who knows every
//! individual's original QI values learns t's sensitive value s from a
//! Release (the cross-bucket paper, Definition 5 and Section 4.1).
//!
//! Matching is `matching::Matching` (read its doc for missing values,
//! `Original` cells and suppressed rows). Over the published tuples matching
//! t, Num_tuples(t) of them:
//!
//! - **without buckets**, sensitive values stay on their rows and
//!   p(t, s) = Num_sen(t) / Num_tuples(t), Num_sen(t) the matching tuples
//!   carrying s;
//! - **with buckets**, p(t, s) = Σ_MB Num(t, MB) · Num(s, MB) /
//!   (Num_tuples(t) · |MB|) over t's matching buckets MB (the buckets holding
//!   a matching tuple), Num(t, MB) the matching tuples in MB and Num(s, MB)
//!   the copies of s in MB.
//!
//! The second formula is the first when every bucket is a single row, and
//! that is how the code treats a published row outside every bucket: its
//! value is published on it, a bucket of one. Which buckets detach an
//! attribute's values ([`ValueBuckets`]): the attribute's local buckets if
//! the release has them (LGB), else the release's buckets if the attribute
//! is one of its sensitive attributes, else none (the attribute's values are
//! on the rows).
//!
//! s is t's own value; a missing sensitive cell is a value of its own, `?`,
//! as in `privacy::counts`. Suppressed rows are not published, so their own
//! breach probability is 0; they count as 0 in the mean. Summing Σ_MB in
//! floating point, values such as 1/4 may come out one ulp away: compare
//! with a tolerance.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::distribution::{CdfPoint, HistogramBin, ProbabilityRuns, ProbabilitySummary, TOLERANCE};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::partition::{counts_of_records, ValueCount};
use crate::progress::Progress;
use crate::release::{Bucket, Guarantee, Release};

use super::matching::Matching;

const NONE: u32 = u32::MAX;

/// The buckets that detach `column`'s values in a release, if any.
pub fn detaching_buckets(release: &Release, column: usize) -> Option<&[Bucket]> {
    if let Some(local) = release.local_buckets.iter().find(|l| l.column == column) {
        return Some(&local.buckets);
    }
    (release.sensitive.contains(&column) && release.is_bucketized()).then_some(&release.buckets)
}

/// The values of one attribute as the attacker sees them: every published
/// row in exactly one bucket — a bucket of the release, or a bucket of its
/// own when its value is published on the row.
#[derive(Debug, Clone)]
pub struct ValueBuckets {
    bucket_of_row: Vec<u32>,
    offsets: Vec<usize>,
    rows: Vec<u32>,
    value_offsets: Vec<usize>,
    values: Vec<ValueCount>,
    /// Records per bucket (its rows, or what a grouped table's rows
    /// stand for).
    records: Vec<u32>,
    from_release: usize,
}

impl ValueBuckets {
    /// Buckets of `column` for the published rows of `release`. A row listed
    /// in two buckets (which the verifier rejects) is taken in the first.
    pub fn new(release: &Release, ds: &Dataset, column: usize) -> Self {
        let col = ds.col(column);
        let n = ds.n_rows();
        let mut published = vec![false; n];
        for g in &release.groups {
            for &r in &g.rows {
                if let Some(p) = published.get_mut(r as usize) {
                    *p = true;
                }
            }
        }
        let mut bucket_of_row = vec![NONE; n];
        let release_buckets = detaching_buckets(release, column).unwrap_or(&[]);
        // A row's own bucket for (nearly) every published row: sized at
        // once rather than grown, as they are as long as the table.
        let most = release_buckets.len() + release.published_rows();
        let mut offsets = Vec::with_capacity(most + 1);
        offsets.push(0usize);
        let mut rows = Vec::with_capacity(release.published_rows());
        for (b, bucket) in release_buckets.iter().enumerate() {
            for &r in bucket.rows.iter().filter(|&&r| (r as usize) < n) {
                rows.push(r);
                if bucket_of_row[r as usize] == NONE {
                    bucket_of_row[r as usize] = b as u32;
                }
            }
            offsets.push(rows.len());
        }
        let from_release = release_buckets.len();
        for r in 0..n {
            if published[r] && bucket_of_row[r] == NONE {
                bucket_of_row[r] = (offsets.len() - 1) as u32;
                rows.push(r as u32);
                offsets.push(rows.len());
            }
        }
        let mut value_offsets = Vec::with_capacity(offsets.len());
        value_offsets.push(0);
        let mut values = Vec::with_capacity(rows.len());
        let weights = ds.multiplicities();
        let mut records = Vec::with_capacity(offsets.len() - 1);
        for b in 0..offsets.len() - 1 {
            match &rows[offsets[b]..offsets[b + 1]] {
                // A row's own bucket (every row of a generalized release):
                // its one value, without counting. A grouped table's row
                // stands for records that all hold it.
                &[r] => {
                    let count = ds.multiplicity(r as usize);
                    values.push(ValueCount {
                        code: col.code(r as usize),
                        count,
                    });
                    records.push(count);
                }
                bucket => {
                    values.extend(counts_of_records(bucket, col, weights));
                    records.push(ds.records_of(bucket) as u32);
                }
            }
            value_offsets.push(values.len());
        }
        ValueBuckets {
            bucket_of_row,
            offsets,
            rows,
            value_offsets,
            values,
            records,
            from_release,
        }
    }

    /// Buckets, the release's first (same indices), then one per published
    /// row outside them.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// How many of the buckets are the release's own.
    pub fn from_release(&self) -> usize {
        self.from_release
    }
    /// The bucket of a published row; `None` for unpublished rows.
    pub fn bucket_of_row(&self, row: usize) -> Option<usize> {
        let b = self.bucket_of_row[row];
        (b != NONE).then_some(b as usize)
    }
    pub fn rows(&self, bucket: usize) -> &[u32] {
        &self.rows[self.offsets[bucket]..self.offsets[bucket + 1]]
    }
    /// |B|, in records.
    pub fn size(&self, bucket: usize) -> usize {
        self.records[bucket] as usize
    }
    /// The bucket's values with their counts, in code order.
    pub fn values(&self, bucket: usize) -> &[ValueCount] {
        &self.values[self.value_offsets[bucket]..self.value_offsets[bucket + 1]]
    }
}

/// Breach probability of every source row for one attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Breach {
    pub attribute: String,
    /// Per source row: p(t, s) for its own value s; 0 for suppressed rows.
    pub probabilities: Vec<f64>,
    pub summary: ProbabilitySummary,
    pub histogram: Vec<HistogramBin>,
    pub cdf: Vec<CdfPoint>,
}

impl Breach {
    /// Share of all records whose breach probability exceeds `threshold`.
    pub fn share_above(&self, threshold: f64) -> f64 {
        let n = self.probabilities.len();
        if n == 0 {
            return 0.0;
        }
        let above = self
            .probabilities
            .iter()
            .filter(|&&p| p > threshold + TOLERANCE)
            .count();
        above as f64 / n as f64
    }
}

/// Breach probability p(t, s) of every record for the attribute `attribute`
/// (a column index). The summary's threshold is the 1/l the release
/// promises (its `l` parameter or an l-diversity claim), or ½ when it
/// promises none.
pub fn breach_probability(
    release: &Release,
    ds: &Dataset,
    attribute: usize,
    progress: &Progress,
) -> Result<Breach> {
    let matching = Matching::new(release, ds, progress)?;
    breach_from(&matching, release, ds, attribute, progress)
}

/// `breach_probability` from an already built `Matching`, so the linkage
/// attack and several attributes share one index.
pub fn breach_from(
    matching: &Matching,
    release: &Release,
    ds: &Dataset,
    attribute: usize,
    progress: &Progress,
) -> Result<Breach> {
    if attribute >= ds.n_cols() {
        return Err(Error::Internal(format!(
            "breach probability: column {attribute} does not exist ({} columns)",
            ds.n_cols()
        )));
    }
    let col = ds.col(attribute);
    let buckets = ValueBuckets::new(release, ds, attribute);
    let weights = UnitWeights::new(matching, &buckets, col.code_space(), ds.multiplicities());
    let codes = col.codes();
    let n_targets = matching.n_targets();
    progress.set_total(n_targets as u64);

    // p(t, s) only for the values s that t's rows hold: Σ over matched
    // units of the unit's weight for s, added in the units' order — the
    // same additions as accumulating every value, so the same figures.
    let blocks: Option<Vec<Vec<f64>>> = (0..n_targets.div_ceil(TARGET_BLOCK))
        .into_par_iter()
        .map_init(Vec::<(u32, f64)>::new, |sums, b| {
            let mut out = Vec::new();
            for t in b * TARGET_BLOCK..((b + 1) * TARGET_BLOCK).min(n_targets) {
                if progress.is_cancelled() {
                    return None;
                }
                let total = matching.matched_tuples(t);
                let units = matching.matched_units(t);
                sums.clear();
                for &r in matching.target_rows(t) {
                    if total == 0 {
                        out.push(0.0);
                        continue;
                    }
                    let code = codes[r as usize];
                    let sum = match sums.iter().find(|(c, _)| *c == code) {
                        Some(&(_, sum)) => sum,
                        None => {
                            let sum = weights.sum(units, code);
                            sums.push((code, sum));
                            sum
                        }
                    };
                    out.push(sum / total as f64);
                }
                progress.advance(1);
            }
            Some(out)
        })
        .collect();
    let blocks = blocks.ok_or(Error::Cancelled)?;
    let mut probabilities = vec![0.0f64; ds.n_rows()];
    let rows = (0..n_targets).flat_map(|t| matching.target_rows(t));
    for (&r, p) in rows.zip(blocks.into_iter().flatten()) {
        probabilities[r as usize] = p;
    }
    let threshold = promised_l(release, col.name()).map_or(0.5, |l| 1.0 / f64::from(l.max(1)));
    // Per record: a grouped table's row counts for the records it stands for.
    let runs = ProbabilityRuns::of_probabilities(&probabilities, ds.multiplicities());
    let (histogram, cdf) = runs.shape();
    let published = release.groups.iter().map(|g| ds.records_of(&g.rows)).sum();
    Ok(Breach {
        attribute: col.name().to_string(),
        summary: ProbabilitySummary::of_runs(&runs, published, threshold),
        histogram,
        cdf,
        probabilities,
    })
}

fn promised_l(release: &Release, attribute: &str) -> Option<u32> {
    release.params.l.or_else(|| {
        release.claims.iter().find_map(|c| match c {
            Guarantee::GroupLDiversity { attribute: a, l }
            | Guarantee::BucketLDiversity { attribute: a, l }
            | Guarantee::CrossBucketLDiversity { attribute: a, l }
                if a == attribute =>
            {
                Some(*l)
            }
            _ => None,
        })
    })
}

/// Targets handled this many at a time, each block writing one list.
const TARGET_BLOCK: usize = 256;

/// Dense unit × value weights up to this many entries (32 MiB), sparse
/// lists beyond.
const DENSE_WEIGHTS: usize = 1 << 22;

/// Per unit, Σ over its tuples t' of Num(s, B(t')) / |B(t')| for each value
/// s: what the unit adds to Σ_MB Num(t, MB) · Num(s, MB) / |MB| when it
/// matches.
enum UnitWeights {
    /// `weights[u × values + s]`, 0 where the unit has no s.
    Dense { values: usize, weights: Vec<f64> },
    /// Per unit, (s, weight) sorted by s.
    Sparse {
        offsets: Vec<usize>,
        weights: Vec<(u32, f64)>,
    },
}

impl UnitWeights {
    /// `multiplicities`: records per row of a grouped table (each of
    /// them a tuple of the unit).
    fn new(
        matching: &Matching,
        buckets: &ValueBuckets,
        code_space: usize,
        multiplicities: Option<&[u32]>,
    ) -> Self {
        Self::with_limit(matching, buckets, code_space, multiplicities, DENSE_WEIGHTS)
    }

    fn with_limit(
        matching: &Matching,
        buckets: &ValueBuckets,
        code_space: usize,
        multiplicities: Option<&[u32]>,
        dense_limit: usize,
    ) -> Self {
        // One unit's weights, merged by value. The pairs are summed in the
        // order the sort leaves them, whichever layout stores the result.
        let unit = |u: usize, pairs: &mut Vec<(u32, f64)>, merged: &mut Vec<(u32, f64)>| {
            pairs.clear();
            merged.clear();
            for &r in matching.unit_rows(u) {
                let Some(b) = buckets.bucket_of_row(r as usize) else {
                    continue;
                };
                let size = buckets.size(b) as f64;
                match multiplicities.map(|m| m[r as usize]) {
                    None => pairs.extend(
                        buckets
                            .values(b)
                            .iter()
                            .map(|v| (v.code, f64::from(v.count) / size)),
                    ),
                    Some(w) => pairs.extend(
                        buckets
                            .values(b)
                            .iter()
                            .map(|v| (v.code, f64::from(w) * f64::from(v.count) / size)),
                    ),
                }
            }
            pairs.sort_unstable_by_key(|p| p.0);
            for &(code, w) in pairs.iter() {
                match merged.last_mut() {
                    Some(last) if last.0 == code => last.1 += w,
                    _ => merged.push((code, w)),
                }
            }
        };
        let n_units = matching.n_units();
        let values = code_space.max(1);
        if n_units.saturating_mul(values) <= dense_limit {
            let mut weights = vec![0.0f64; n_units * values];
            weights.par_chunks_mut(values).enumerate().for_each_init(
                || (Vec::new(), Vec::new()),
                |(pairs, merged), (u, row)| {
                    unit(u, pairs, merged);
                    for &(code, w) in merged.iter() {
                        row[code as usize] = w;
                    }
                },
            );
            return UnitWeights::Dense { values, weights };
        }
        let per_unit: Vec<Vec<(u32, f64)>> = (0..n_units)
            .into_par_iter()
            .map_init(Vec::new, |pairs, u| {
                let mut merged = Vec::new();
                unit(u, pairs, &mut merged);
                merged
            })
            .collect();
        let mut offsets = vec![0usize];
        let mut weights = Vec::new();
        for w in per_unit {
            weights.extend(w);
            offsets.push(weights.len());
        }
        UnitWeights::Sparse { offsets, weights }
    }

    /// Σ over `units`, in their order, of each unit's weight for `code`.
    fn sum(&self, units: &[u32], code: u32) -> f64 {
        match self {
            UnitWeights::Dense { values, weights } => {
                // Adding the 0 of a unit without the value leaves a
                // non-negative sum unchanged, bit for bit.
                let code = code as usize;
                units
                    .iter()
                    .map(|&u| weights[u as usize * values + code])
                    .fold(0.0, |acc, w| acc + w)
            }
            UnitWeights::Sparse { offsets, weights } => units
                .iter()
                .filter_map(|&u| {
                    let pairs = &weights[offsets[u as usize]..offsets[u as usize + 1]];
                    pairs
                        .binary_search_by_key(&code, |p| p.0)
                        .ok()
                        .map(|i| pairs[i].1)
                })
                .fold(0.0, |acc, w| acc + w),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::examples::cross_bucket_fig1b as fig1b;
    use crate::release::examples::{
        cross_bucket_fig2a as fig2a, cross_bucket_fig2b as fig2b, cross_bucket_fig4 as fig4,
        interval,
    };
    use crate::release::Cell;

    #[test]
    fn dense_and_sparse_weights_sum_to_the_same_bits() {
        let ds = fig1b();
        let disease = ds.column_index("Disease").unwrap();
        for r in [fig2a(&ds), fig2b(&ds), fig4(&ds)] {
            let m = Matching::new(&r, &ds, &Progress::new()).unwrap();
            let buckets = ValueBuckets::new(&r, &ds, disease);
            let cs = ds.col(disease).code_space();
            let dense = UnitWeights::with_limit(&m, &buckets, cs, None, usize::MAX);
            let sparse = UnitWeights::with_limit(&m, &buckets, cs, None, 0);
            assert!(matches!(dense, UnitWeights::Dense { .. }));
            assert!(matches!(sparse, UnitWeights::Sparse { .. }));
            for t in 0..m.n_targets() {
                for code in 0..cs as u32 {
                    let units = m.matched_units(t);
                    let (a, b) = (dense.sum(units, code), sparse.sum(units, code));
                    assert_eq!(a.to_bits(), b.to_bits(), "target {t}, code {code}");
                }
            }
        }
    }

    fn breach(r: &Release, ds: &Dataset) -> Breach {
        breach_probability(r, ds, 4, &Progress::new()).unwrap()
    }

    fn assert_close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() < 1e-12, "row {i}: {g} != {w}");
        }
    }

    #[test]
    fn fig2a_generalization_exposes_the_bronchitis_pair() {
        let ds = fig1b();
        let b = breach(&fig2a(&ds), &ds);
        // 101 (16, F, 43307) matches group 1 only: 3 tuples, one Flu → 1/3.
        // 104 (26, M, 43307) and 105 (29, M, 43309) match group 2 only
        // (26 ∉ [16-24], 29 ∉ [31-35]): both Bronchitis → 1.
        // 106–108 match group 3 only → 1/3 each.
        let third = 1.0 / 3.0;
        assert_close(
            &b.probabilities,
            &[third, third, third, 1.0, 1.0, third, third, third],
        );
        assert_eq!(b.summary.max, 1.0);
        // Threshold ½ (no promise): the two Bronchitis patients are above.
        assert_eq!(b.summary.records_above_threshold, 2);
        assert_eq!(b.histogram[3].records, 6);
        assert_eq!(b.histogram[9].records, 2);
    }

    #[test]
    fn fig2b_bucketization_gives_a_quarter_to_everyone() {
        let ds = fig1b();
        let b = breach(&fig2b(&ds), &ds);
        // Every QI combination is unique, so each tuple matches only
        // itself: one matching bucket of 4 distinct values, p = 1·1/(1·4).
        assert_close(&b.probabilities, &[0.25; 8]);
        assert_eq!(b.cdf.len(), 1);
        assert_eq!(b.histogram[2].records, 8);
    }

    #[test]
    fn fig4_cross_bucket_gives_the_protection_of_fig2b() {
        let ds = fig1b();
        let r = fig4(&ds);
        let b = breach(&r, &ds);
        // 101 (16, F, 43307): only group {101, 103} contains it (group
        // {102, 104} is Male), so Num_tuples = 2, matching buckets B1 ∋ 101
        // and B2 ∋ 103, one tuple each; Flu is once in B1 (|B1| = 2), never
        // in B2: p = 1·1/(2·2) = 1/4. The same reasoning holds for every
        // tuple: its group's two tuples sit in two buckets of two, and its
        // disease is once in exactly one of them.
        assert_close(&b.probabilities, &[0.25; 8]);
        assert_eq!(b.probabilities, breach(&fig2b(&ds), &ds).probabilities);
    }

    #[test]
    fn overlapping_groups_spread_the_matching_buckets() {
        let ds = fig1b();
        let mut r = fig4(&ds);
        // Widen group {101, 103} to any age and sex, zip [43306-43307]:
        // 104 (26, M, 43307) now matches it as well as its own group
        // {102, 104}: Num_tuples = 4, tuples 101, 102 in B1 and 103, 104 in
        // B2, so Num(t, B1) = Num(t, B2) = 2. Bronchitis is once in B2
        // (|B2| = 2) and absent from B1: p = 2·1/(4·2) = 1/4.
        r.groups[0].cells = vec![
            Cell::Suppressed,
            Cell::Suppressed,
            interval(&ds, 3, "43306", "43307"),
        ];
        let b = breach(&r, &ds);
        assert!((b.probabilities[3] - 0.25).abs() < 1e-12);
        // 102 (zip 43302) still matches only its own group.
        assert!((b.probabilities[1] - 0.25).abs() < 1e-12);
    }

    #[test]
    fn unbucketed_rows_publish_their_value() {
        let ds = fig1b();
        let mut r = fig2b(&ds);
        r.buckets.pop();
        r.suppressed_rows = vec![];
        let b = breach(&r, &ds);
        assert_close(&b.probabilities[..4], &[0.25; 4]);
        assert_close(&b.probabilities[4..], &[1.0; 4]);
        let vb = ValueBuckets::new(&r, &ds, 4);
        assert_eq!(vb.len(), 5);
        assert_eq!(vb.from_release(), 1);
    }

    #[test]
    fn suppressed_rows_have_no_breach() {
        let ds = fig1b();
        let mut r = fig2a(&ds);
        r.groups.remove(1);
        r.suppressed_rows = vec![3, 4];
        let b = breach(&r, &ds);
        assert_eq!(b.probabilities[3], 0.0);
        assert_eq!(b.probabilities[4], 0.0);
        assert_eq!(b.summary.published, 6);
        assert!((b.summary.mean - 6.0 / 3.0 / 8.0).abs() < 1e-12);
    }

    #[test]
    fn unknown_attribute_is_refused() {
        let ds = fig1b();
        assert!(breach_probability(&fig2a(&ds), &ds, 9, &Progress::new()).is_err());
    }

    #[test]
    fn cancelled_before_start() {
        let ds = fig1b();
        let p = Progress::new();
        p.cancel();
        assert!(matches!(
            breach_probability(&fig2a(&ds), &ds, 4, &p),
            Err(Error::Cancelled)
        ));
    }
}
