//! Breach probability of each sensitive cell of an LGB release, from
//! matching tuples and matching local buckets (the LGB paper, Section 2.2:
//! Definitions 11–12, Lemma 2), and the identity disclosure of Lemma 1 seen
//! by the same attacker.
//!
//! **The attacker** knows every individual's existence and QI values and no
//! sensitive value (Section 1.2). Knowing t's QI values means knowing which
//! of t's attributes carry QI values, QI[t]; a published tuple whose QI
//! attributes differ cannot be t (its cell on an attribute of QI[t] is a
//! bucket reference, or it shows a QI value where t's is sensitive). So a
//! **matching tuple** of t (Definition 11) is a published tuple of the same
//! QI-partition subset whose group cells on QI[t] all contain t's values;
//! the paper's walk-through of Fig. 2 (Mark matches GID 3 only) reads the
//! same way. This is the strongest attacker the paper's assumptions allow:
//! one who did not know QI[t] would have more candidates and a lower
//! probability. Within a subset, matching is `matching::Matching` on the
//! subset's groups and QI columns (so missing values and suppressed cells
//! behave as everywhere else).
//!
//! **Lemma 2**: for a sensitive cell of t on attribute A with value s,
//! p(t, s) = Σ_mb p(t, mb) · |mb(s)| / |mb| over t's matching local buckets
//! mb of A (the buckets holding a matching tuple), with p(t, mb) = (matching
//! tuples in mb) / (matching tuples). All of t's matching tuples have A
//! sensitive (they share QI[t]), so each is in one local bucket of A and the
//! p(t, mb) sum to 1. This is `breach::breach_from` on the subset with A's
//! local buckets; the paper's bound replaces |mb(s)| by the most frequent
//! value's count, which for an l-diverse bucket gives 1/l.
//!
//! The distribution of an attribute is over its sensitive cells only (its
//! QI cells are published, generalized, and have no breach probability);
//! re-identification is over all source rows like the generic linkage
//! attack, suppressed rows counting 0.

use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::Result;
use crate::progress::Progress;
use crate::release::{EquivalenceGroup, QiSubset, Release};

use super::breach::breach_from;
use super::distribution::{ProbabilityRuns, ProbabilitySummary};
use super::linkage::linkage_from;
use super::matching::{check_release_fits, Matching};
use super::{CdfPoint, HistogramBin};

/// Lemma 2 breach probabilities of one attribute's sensitive cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LocalBreach {
    pub attribute: String,
    pub column: usize,
    /// Rows whose cell of the attribute is a published sensitive value,
    /// ascending.
    pub rows: Vec<u32>,
    /// p(t, s) of each of those cells, parallel to `rows`.
    pub probabilities: Vec<f64>,
    /// Over the sensitive cells; the threshold is the release's 1/l (½
    /// without one).
    pub summary: ProbabilitySummary,
    pub histogram: Vec<HistogramBin>,
    pub cdf: Vec<CdfPoint>,
}

/// What the attacker of the module doc learns from an LGB release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LocalRisk {
    /// Per source row: Pr(re-id) = 1 / matching tuples (Lemma 1), 0 for
    /// suppressed rows.
    pub reidentification: Vec<f64>,
    pub reidentification_summary: ProbabilitySummary,
    pub reidentification_histogram: Vec<HistogramBin>,
    pub reidentification_cdf: Vec<CdfPoint>,
    /// One per attribute with local buckets, in the release's order.
    pub breaches: Vec<LocalBreach>,
}

impl LocalRisk {
    /// The breach of one column, if it has local buckets.
    pub fn breach_of(&self, column: usize) -> Option<&LocalBreach> {
        self.breaches.iter().find(|b| b.column == column)
    }
}

/// The subsets of the QI partition; a release without one (no
/// semi-sensitive attributes) is a single subset carrying every QI.
fn subsets(release: &Release) -> Vec<QiSubset> {
    if release.qi_partition.is_empty() {
        vec![QiSubset {
            qi: release.quasi_identifiers.clone(),
            groups: (0..release.groups.len() as u32).collect(),
        }]
    } else {
        release.qi_partition.clone()
    }
}

/// The release restricted to one subset: its groups, with their cells on
/// the subset's QI columns only, and every local bucket (a bucket's size
/// and values count all its cells, wherever their rows are).
fn subset_release(release: &Release, ds: &Dataset, subset: &QiSubset) -> Release {
    let positions: Vec<usize> = subset
        .qi
        .iter()
        .filter_map(|c| release.quasi_identifiers.iter().position(|q| q == c))
        .collect();
    let qi = positions
        .iter()
        .map(|&a| release.quasi_identifiers[a])
        .collect();
    let mut sub = Release::new(&release.algorithm, ds, qi, release.sensitive.clone());
    sub.params = release.params.clone();
    sub.claims = release.claims.clone();
    sub.local_buckets = release.local_buckets.clone();
    sub.groups = subset
        .groups
        .iter()
        .filter_map(|&g| release.groups.get(g as usize))
        .map(|g| EquivalenceGroup {
            rows: g.rows.clone(),
            cells: positions
                .iter()
                .filter_map(|&a| g.cells.get(a).cloned())
                .collect(),
        })
        .collect();
    sub
}

/// Re-identification and Lemma 2 breach probability of every sensitive cell
/// of a release with local buckets (see the module doc).
pub fn local_risk(release: &Release, ds: &Dataset, progress: &Progress) -> Result<LocalRisk> {
    check_release_fits(release, ds)?;
    let n = ds.n_rows();
    let mut reid = vec![0.0f64; n];
    let columns: Vec<usize> = release.local_buckets.iter().map(|l| l.column).collect();
    let bucketed: Vec<Vec<Option<u32>>> = release
        .local_buckets
        .iter()
        .map(|l| l.bucket_of_row(n))
        .collect();
    let mut per_column: Vec<Vec<f64>> = vec![vec![f64::NAN; n]; columns.len()];
    let mut thresholds = vec![0.5f64; columns.len()];
    let mut k_threshold = 0.5f64;
    for subset in subsets(release) {
        progress.check()?;
        let sub = subset_release(release, ds, &subset);
        let matching = Matching::new(&sub, ds, progress)?;
        let link = linkage_from(&matching, &sub, ds);
        k_threshold = link.summary.threshold;
        for g in &sub.groups {
            for &r in &g.rows {
                reid[r as usize] = link.probabilities[r as usize];
            }
        }
        for (i, &c) in columns.iter().enumerate() {
            // Rows carrying a QI value on the column have no sensitive cell
            // there; a subset's rows are all sensitive on it or none.
            if subset.qi.contains(&c) {
                continue;
            }
            let b = breach_from(&matching, &sub, ds, c, progress)?;
            thresholds[i] = b.summary.threshold;
            for g in &sub.groups {
                for &r in &g.rows {
                    if bucketed[i][r as usize].is_some() {
                        per_column[i][r as usize] = b.probabilities[r as usize];
                    }
                }
            }
        }
    }
    let breaches = columns
        .iter()
        .zip(per_column)
        .zip(thresholds)
        .map(|((&c, probs), threshold)| {
            let rows: Vec<u32> = (0..n as u32)
                .filter(|&r| !probs[r as usize].is_nan())
                .collect();
            let probabilities: Vec<f64> = rows.iter().map(|&r| probs[r as usize]).collect();
            let (histogram, cdf) = ProbabilityRuns::of_probabilities(&probabilities, None).shape();
            LocalBreach {
                attribute: ds.col(c).name().to_string(),
                column: c,
                summary: ProbabilitySummary::new(&probabilities, rows.len(), threshold),
                histogram,
                cdf,
                rows,
                probabilities,
            }
        })
        .collect();
    let (reid_histogram, reid_cdf) = ProbabilityRuns::of_probabilities(&reid, None).shape();
    Ok(LocalRisk {
        reidentification_summary: ProbabilitySummary::new(
            &reid,
            release.published_rows(),
            k_threshold,
        ),
        reidentification_histogram: reid_histogram,
        reidentification_cdf: reid_cdf,
        reidentification: reid,
        breaches,
    })
}

/// A hand-made LGB release in the spirit of the paper's Figs. 1–4, shared
/// by the tests of this module and of `metrics::prob_queries`.
///
/// | row | gender | age | zip   | disease    | salary | age sensitive |
/// |-----|--------|-----|-------|------------|--------|---------------|
/// | 0   | F      | 22  | 43302 | Flu        | 10     |               |
/// | 1   | M      | 25  | 43305 | Pneumonia  | 20     |               |
/// | 2   | F      | 30  | 43306 | Bronchitis | 30     |               |
/// | 3   | M      | 34  | 43309 | Flu        | 40     |               |
/// | 4   | F      | 24  | 43302 | Dyspepsia  | 50     | yes           |
/// | 5   | M      | 29  | 43305 | Gastritis  | 60     | yes           |
/// | 6   | F      | 31  | 43306 | Gastritis  | 70     | yes           |
/// | 7   | M      | 27  | 43309 | Bronchitis | 80     | yes           |
///
/// QI partition: rows 0–3 carry gender, age, zip; rows 4–7 gender, zip.
/// Groups: G0 {0, 1} = (*, [22-25], [43302-43305]); G1 {2, 3} = (*,
/// [30-34], [43306-43309]); G2 {4, 5} = (*, –, [43302-43306]); G3 {6, 7} =
/// (*, –, [43306-43309]). Local buckets: age A0 {4, 5} (24, 29), A1 {6, 7}
/// (31, 27); disease D0 {0, 2, 4, 6}, D1 {1, 3, 5, 7} (four distinct values
/// each); salary S0 {0, 2, 4, 6}, S1 {1, 3, 5, 7}.
#[cfg(test)]
pub(crate) mod fixture {
    use crate::data::Dataset;
    use crate::release::examples::interval;
    use crate::release::{Bucket, Cell, EquivalenceGroup, LocalBuckets, QiSubset, Release};

    pub const GENDER: usize = 0;
    pub const AGE: usize = 1;
    pub const ZIP: usize = 2;
    pub const DISEASE: usize = 3;
    pub const SALARY: usize = 4;

    pub fn dataset() -> Dataset {
        Dataset::from_rows(
            &["gender", "age", "zip", "disease", "salary"],
            &[
                vec!["F", "22", "43302", "Flu", "10"],
                vec!["M", "25", "43305", "Pneumonia", "20"],
                vec!["F", "30", "43306", "Bronchitis", "30"],
                vec!["M", "34", "43309", "Flu", "40"],
                vec!["F", "24", "43302", "Dyspepsia", "50"],
                vec!["M", "29", "43305", "Gastritis", "60"],
                vec!["F", "31", "43306", "Gastritis", "70"],
                vec!["M", "27", "43309", "Bronchitis", "80"],
            ],
        )
        .unwrap()
    }

    fn buckets(column: usize, sets: &[&[u32]]) -> LocalBuckets {
        LocalBuckets {
            column,
            buckets: sets
                .iter()
                .map(|rows| Bucket {
                    rows: rows.to_vec(),
                })
                .collect(),
        }
    }

    pub fn release(ds: &Dataset) -> Release {
        let mut r = Release::new("hand", ds, vec![GENDER, AGE, ZIP], vec![DISEASE, SALARY]);
        r.semi_sensitive = vec![AGE];
        let g = |rows: Vec<u32>, age: Cell, zip: Cell| EquivalenceGroup {
            rows,
            cells: vec![Cell::Suppressed, age, zip],
        };
        r.groups = vec![
            g(
                vec![0, 1],
                interval(ds, AGE, "22", "25"),
                interval(ds, ZIP, "43302", "43305"),
            ),
            g(
                vec![2, 3],
                interval(ds, AGE, "30", "34"),
                interval(ds, ZIP, "43306", "43309"),
            ),
            g(
                vec![4, 5],
                Cell::Suppressed,
                interval(ds, ZIP, "43302", "43306"),
            ),
            g(
                vec![6, 7],
                Cell::Suppressed,
                interval(ds, ZIP, "43306", "43309"),
            ),
        ];
        r.qi_partition = vec![
            QiSubset {
                qi: vec![GENDER, AGE, ZIP],
                groups: vec![0, 1],
            },
            QiSubset {
                qi: vec![GENDER, ZIP],
                groups: vec![2, 3],
            },
        ];
        r.local_buckets = vec![
            buckets(AGE, &[&[4, 5], &[6, 7]]),
            buckets(DISEASE, &[&[0, 2, 4, 6], &[1, 3, 5, 7]]),
            buckets(SALARY, &[&[0, 2, 4, 6], &[1, 3, 5, 7]]),
        ];
        r.params.k = Some(2);
        r.params.l = Some(2);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::{self, AGE, DISEASE};
    use super::*;
    use crate::error::Error;
    use crate::release::Cell;
    use crate::risk::linkage_attack;

    fn assert_close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() < 1e-12, "cell {i}: {g} != {w}");
        }
    }

    #[test]
    fn lemma_2_on_the_hand_made_release() {
        let ds = fixture::dataset();
        let risk = local_risk(&fixture::release(&ds), &ds, &Progress::new()).unwrap();
        // Age: only rows 4–7 have a sensitive age. Row 4 (F, 43302) matches
        // G2 only (43302 ∉ [43306-43309]): both matching tuples are in A0
        // = {24, 29}, which holds 24 once: p = 2 · ½ / 2 = ½. Row 5 the
        // same (29). Row 6 (F, 43306) matches G2 ([43302-43306]) and G3:
        // four tuples, two in A0 and two in A1 = {31, 27}; 31 is once in A1:
        // p = 2 · ½ / 4 = ¼. Row 7 (M, 43309) matches G3 only, both in A1:
        // p = ½.
        let age = risk.breach_of(AGE).unwrap();
        assert_eq!(age.rows, vec![4, 5, 6, 7]);
        assert_close(&age.probabilities, &[0.5, 0.5, 0.25, 0.5]);
        assert!((age.summary.mean - 7.0 / 16.0).abs() < 1e-12);
        assert_eq!(age.summary.records, 4);
        // Threshold 1/l = ½: nobody strictly above it.
        assert_eq!(age.summary.records_above_threshold, 0);
        // Disease: every row sensitive; D0 = {Flu, Bronchitis, Dyspepsia,
        // Gastritis}, D1 = {Pneumonia, Flu, Gastritis, Bronchitis}. Row 0
        // (F, 22, 43302) matches G0 only: rows 0 ∈ D0, 1 ∈ D1; Flu once in
        // each: p = (¼ + ¼) / 2 = ¼. Row 1: Pneumonia only in D1 → ⅛.
        // Rows 2, 3: G1, their value once in each bucket → ¼. Row 4: G2,
        // Dyspepsia only in D0 → ⅛. Row 5: Gastritis in both → ¼. Row 6:
        // G2 ∪ G3, two tuples per bucket, Gastritis in both: (2·¼ + 2·¼) /
        // 4 = ¼. Row 7: G3, Bronchitis in both → ¼.
        let disease = risk.breach_of(DISEASE).unwrap();
        assert_eq!(disease.rows, (0..8).collect::<Vec<u32>>());
        assert_close(
            &disease.probabilities,
            &[0.25, 0.125, 0.25, 0.25, 0.125, 0.25, 0.25, 0.25],
        );
        assert_eq!(risk.breaches.len(), 3);
    }

    #[test]
    fn the_attacker_knows_which_attributes_carry_qi_values() {
        let ds = fixture::dataset();
        let release = fixture::release(&ds);
        let risk = local_risk(&release, &ds, &Progress::new()).unwrap();
        // Row 0 (F, 22, 43302) carries age as a QI value, so the tuples of
        // G2, whose age is a bucket reference, are not it: 2 matches. Row 6
        // matches G2 and G3 (4 tuples).
        assert_close(
            &risk.reidentification,
            &[0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.5],
        );
        // Generic matching, where G2's `Suppressed` age cell contains 22,
        // would count G2 for row 0 as well (¼): the subset-aware attacker is
        // the stronger one.
        let generic = linkage_attack(&release, &ds, &Progress::new()).unwrap();
        assert_close(&generic.probabilities[..1], &[0.25]);
        assert_eq!(risk.reidentification_summary.max, 0.5);
    }

    #[test]
    fn a_release_without_a_qi_partition_is_one_subset() {
        let ds = fixture::dataset();
        let mut release = fixture::release(&ds);
        // Publish age as a QI everywhere: the buckets of disease remain.
        release.qi_partition.clear();
        release.semi_sensitive.clear();
        release.local_buckets.remove(0);
        for g in &mut release.groups[2..] {
            g.cells[1] = Cell::covering(
                ds.col(AGE),
                g.rows.iter().map(|&r| ds.col(AGE).code(r as usize)),
            );
        }
        let risk = local_risk(&release, &ds, &Progress::new()).unwrap();
        assert!(risk.breach_of(AGE).is_none());
        assert_eq!(risk.breach_of(DISEASE).unwrap().rows.len(), 8);
    }

    #[test]
    fn cancelled_and_misfit_releases_are_refused() {
        let ds = fixture::dataset();
        let p = Progress::new();
        p.cancel();
        assert!(matches!(
            local_risk(&fixture::release(&ds), &ds, &p),
            Err(Error::Cancelled)
        ));
        let mut bad = fixture::release(&ds);
        bad.local_buckets[0].buckets[0].rows.push(99);
        assert!(local_risk(&bad, &ds, &Progress::new()).is_err());
    }
}
