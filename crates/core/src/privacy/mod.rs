//! Privacy models evaluated on any grouping of records.
//!
//! Whatever produced the equivalence classes (grouping on QI columns, an
//! algorithm's Release, the attack simulator), the models read the same
//! thing: a `Partition` and a sensitive `Column`. `evaluate` gives the
//! strongest parameter each model reaches on that partition, following the
//! original papers (see `models` for the references); `models` holds the
//! per-class checks that algorithms and the verifier reuse.
//!
//! Choices where the papers leave room, and where anonlab deliberately
//! differs from pycanon 1.3.5:
//!
//! - A missing sensitive cell counts as a value of its own, `?` (see
//!   `counts`); it ranks after every other value in ordered distance.
//! - Recursive (c,l)-diversity sorts the class counts descending, so r_1 is
//!   the most frequent value, as in Machanavajjhala et al.; pycanon sorts
//!   ascending and so almost always reports c = 1 or 2.
//! - δ-disclosure is infinite (`None`) when a class lacks a value of the
//!   table, as in Brickell & Shmatikov; pycanon's figure, which skips absent
//!   values, is reported alongside as `delta_disclosure_present_only`.
//! - Enhanced β-likeness reports the smallest β the partition satisfies, or
//!   `None` when none does; pycanon reports min(basic β, −ln min p).
//! - Entropy l is exp(H_min) unrounded; pycanon reports ⌊exp(H_min)⌋.

// The counts moved to `partition` (below risk and release, which count
// too); `counts` stays the name the verifier imports them by.
use crate::partition as counts;
mod model;
pub mod models;
pub mod verify;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::data::Column;
use crate::partition::Partition;

pub use crate::partition::{
    class_counts, counts_of_rows, ClassCounts, TableDistribution, ValueCount,
};
pub use model::{Model, ModelNeeds, ModelParams};
pub use models::{
    alpha, beta_basic, beta_enhanced, class_size, delta_disclosure, delta_disclosure_present_only,
    distinct_l, emd, emd_equal, emd_ordered, entropy, is_l_eligible, recursive_min_c,
    recursive_ratio, satisfies_distinct_l, satisfies_entropy_l, satisfies_recursive_cl,
};
pub use verify::{verify, Check, Verification};

/// Recursive (c,l)-diversity as reached by a partition: with `l` the
/// partition's distinct l, every class has r_1 < c·(r_l + … + r_m), the
/// counts sorted descending as in Machanavajjhala et al. (pycanon 1.3.5 sorts
/// them ascending, so its c differs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecursiveCL {
    /// The smallest integer c that works, ⌊ratio⌋ + 1. `None` when l = 1,
    /// where (c,1)-diversity says nothing worth reporting.
    pub c: Option<u64>,
    pub l: u32,
    /// max over classes of r_1 / (r_l + … + r_m).
    pub ratio: f64,
}

/// (α,k)-anonymity as reached by a partition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlphaK {
    /// max over classes and values of the value's frequency in the class.
    pub alpha: f64,
    pub k: u32,
}

/// All models for one sensitive attribute on one partition: for each, the
/// strongest parameter every class satisfies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelReport {
    pub attribute: String,
    /// Smallest class size.
    pub k: u32,
    /// min over classes of distinct sensitive values.
    pub l_distinct: u32,
    /// exp(entropy_min): the largest l for which entropy l-diversity holds.
    pub l_entropy: f64,
    /// min over classes of the Shannon entropy (natural log).
    pub entropy_min: f64,
    pub recursive_c_l: RecursiveCL,
    /// max over classes of the EMD to the table: equal distance for
    /// categorical attributes, ordered distance for numeric ones.
    pub t_closeness: f64,
    pub alpha_k: AlphaK,
    /// `None` (JSON null) when infinite: a class lacks a value of the table.
    pub delta_disclosure: Option<f64>,
    pub delta_disclosure_present_only: f64,
    pub beta_likeness_basic: f64,
    /// `None` when no β satisfies enhanced β-likeness.
    pub beta_likeness_enhanced: Option<f64>,
    /// p-sensitive k-anonymity (Truta et al., Definition 3) holds with the
    /// `k` above for every p up to this: it equals `l_distinct`.
    pub p_sensitive: u32,
}

/// All models for one sensitive attribute on one partition.
///
/// A missing sensitive cell counts as a value of its own, `?`, so rows with
/// a missing value are never dropped from a class. O(rows + domain) to count, then O(Σ values per class × log) for the
/// models. An empty table reports zeros (and `None` for c).
///
/// # Panics
///
/// If the partition and the column differ in row count.
pub fn evaluate(partition: &Partition, sensitive: &Column) -> ModelReport {
    report(sensitive.name(), &class_counts(partition, sensitive))
}

/// `evaluate` for several sensitive attributes, one report each, in order.
pub fn evaluate_all(partition: &Partition, sensitive: &[&Column]) -> Vec<ModelReport> {
    sensitive
        .par_iter()
        .map(|c| evaluate(partition, c))
        .collect()
}

/// The largest p for which the partition is p-sensitive over all the given
/// sensitive attributes (Truta et al., Definition 3): every class holds at
/// least p distinct values of each, so the minimum over attributes of
/// distinct l.
/// With no sensitive attribute the condition is vacuous and every p holds:
/// `u32::MAX`.
pub fn p_sensitive_multi(partition: &Partition, sensitive: &[&Column]) -> u32 {
    sensitive
        .par_iter()
        .map(|c| {
            class_counts(partition, c)
                .iter()
                .map(distinct_l)
                .min()
                .unwrap_or(0)
        })
        .min()
        .unwrap_or(u32::MAX)
}

/// The table-level figures from precomputed class counts, for callers that
/// already hold them.
pub fn report(attribute: &str, counts: &ClassCounts) -> ModelReport {
    let table = counts.table();
    if counts.n_classes() == 0 {
        return ModelReport {
            attribute: attribute.to_string(),
            k: 0,
            l_distinct: 0,
            l_entropy: 0.0,
            entropy_min: 0.0,
            recursive_c_l: RecursiveCL {
                c: None,
                l: 0,
                ratio: 0.0,
            },
            t_closeness: 0.0,
            alpha_k: AlphaK { alpha: 0.0, k: 0 },
            delta_disclosure: Some(0.0),
            delta_disclosure_present_only: 0.0,
            beta_likeness_basic: 0.0,
            beta_likeness_enhanced: Some(0.0),
            p_sensitive: 0,
        };
    }

    let mut k = u64::MAX;
    let mut l_distinct = u32::MAX;
    let mut entropy_min = f64::INFINITY;
    let mut t = 0.0f64;
    let mut alpha_max = 0.0f64;
    let mut delta = Some(0.0f64);
    let mut delta_present = 0.0f64;
    let mut beta = 0.0f64;
    let mut beta_enh = Some(0.0f64);
    for class in counts.iter() {
        k = k.min(class_size(class));
        l_distinct = l_distinct.min(distinct_l(class));
        entropy_min = entropy_min.min(entropy(class));
        t = t.max(emd(class, table));
        alpha_max = alpha_max.max(alpha(class));
        delta = delta
            .zip(delta_disclosure(class, table))
            .map(|(a, b)| a.max(b));
        delta_present = delta_present.max(delta_disclosure_present_only(class, table));
        beta = beta.max(beta_basic(class, table));
        beta_enh = beta_enh
            .zip(beta_enhanced(class, table))
            .map(|(a, b)| a.max(b));
    }

    // l is only known after the first pass, and (c,l) depends on it.
    let mut ratio = 0.0f64;
    let mut c = 0u64;
    for class in counts.iter() {
        ratio = ratio.max(recursive_ratio(class, l_distinct));
        c = c.max(recursive_min_c(class, l_distinct).unwrap_or(u64::MAX));
    }
    let c = (l_distinct > 1 && c != u64::MAX).then_some(c);

    let k = k as u32;
    ModelReport {
        attribute: attribute.to_string(),
        k,
        l_distinct,
        l_entropy: entropy_min.exp(),
        entropy_min,
        recursive_c_l: RecursiveCL {
            c,
            l: l_distinct,
            ratio,
        },
        t_closeness: t,
        alpha_k: AlphaK {
            alpha: alpha_max,
            k,
        },
        delta_disclosure: delta,
        delta_disclosure_present_only: delta_present,
        beta_likeness_basic: beta,
        beta_likeness_enhanced: beta_enh,
        p_sensitive: l_distinct,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    /// Ten patients in three classes of ZIP code:
    ///
    /// | class | diseases                      |
    /// |-------|-------------------------------|
    /// | 130** | flu, flu, cancer, hiv         |
    /// | 148** | flu, cancer, cancer           |
    /// | 153** | flu, flu, hiv                 |
    ///
    /// Table: flu 5, cancer 3, hiv 2 → p = (0.5, 0.3, 0.2).
    fn hospital() -> Dataset {
        let rows = [
            ("130**", "flu"),
            ("130**", "flu"),
            ("130**", "cancer"),
            ("130**", "hiv"),
            ("148**", "flu"),
            ("148**", "cancer"),
            ("148**", "cancer"),
            ("153**", "flu"),
            ("153**", "flu"),
            ("153**", "hiv"),
        ];
        let rows: Vec<Vec<&str>> = rows.iter().map(|&(z, d)| vec![z, d]).collect();
        Dataset::from_rows(&["zip", "disease"], &rows).unwrap()
    }

    #[test]
    fn hospital_figures_by_hand() {
        let ds = hospital();
        let r = evaluate(&Partition::by_columns(&ds, &[0]), ds.col(1));
        // Class sizes 4, 3, 3.
        assert_eq!(r.k, 3);
        // Distinct values 3, 2, 2.
        assert_eq!(r.l_distinct, 2);
        assert_eq!(r.p_sensitive, 2);
        // H(130**) = −(½ln½ + 2·¼ln¼) = 1.5 ln 2 = 1.0397;
        // H(148**) = H(153**) = −(⅓ln⅓ + ⅔ln⅔) = ln 3 − ⅔ ln 2 = 0.6365 = min;
        // l = exp(0.6365) = 3 / 2^(2/3) = 1.8899.
        let h = 3f64.ln() - 2.0 / 3.0 * 2f64.ln();
        assert!(close(r.entropy_min, h));
        assert!(close(r.l_entropy, 3.0 / 2f64.powf(2.0 / 3.0)));
        // l = 2, counts descending: 130** (2,1,1) → 2/(1+1) = 1;
        // 148** (2,1) → 2/1 = 2; 153** (2,1) → 2. ratio 2, c = ⌊2⌋ + 1 = 3.
        assert_eq!(
            r.recursive_c_l,
            RecursiveCL {
                c: Some(3),
                l: 2,
                ratio: 2.0
            }
        );
        // Equal-distance EMD ½Σ|q − p| over (flu, cancer, hiv):
        // 130**: ½(|.5−.5| + |.25−.3| + |.25−.2|) = 0.05;
        // 148**: ½(|⅓−.5| + |⅔−.3| + |0−.2|) = ½(5+11+6)/30 = 11/30;
        // 153**: ½(|⅔−.5| + |0−.3| + |⅓−.2|) = ½(5+9+4)/30 = 9/30. Max 11/30.
        assert!(close(r.t_closeness, 11.0 / 30.0));
        // Largest frequency in a class: ⅔ (cancer in 148**, flu in 153**).
        assert_eq!(
            r.alpha_k,
            AlphaK {
                alpha: 2.0 / 3.0,
                k: 3
            }
        );
        // 148** has no hiv and 153** no cancer: δ is infinite.
        assert_eq!(r.delta_disclosure, None);
        // Over present values: |ln(.25/.3)| = .182, ln(.25/.2) = .223;
        // |ln(⅓/.5)| = .405, ln(⅔/.3) = ln(20/9) = .7985; ln(⅔/.5) = .288,
        // ln(⅓/.2) = .511. Max ln(20/9).
        assert!(close(r.delta_disclosure_present_only, (20.0f64 / 9.0).ln()));
        // Gains (q−p)/p where q > p: hiv in 130** (.25−.2)/.2 = .25;
        // cancer in 148** (⅔−.3)/.3 = 11/9; flu in 153** ⅓, hiv in 153** ⅔.
        assert!(close(r.beta_likeness_basic, 11.0 / 9.0));
        // Enhanced: cancer's 11/9 = 1.222 exceeds −ln .3 = 1.204, so no β works.
        assert_eq!(r.beta_likeness_enhanced, None);
    }

    #[test]
    fn missing_sensitive_cells_are_a_value_of_their_own() {
        let ds = Dataset::from_rows(
            &["zip", "disease"],
            &[
                vec!["1", "flu"],
                vec!["1", ""],
                vec!["2", "flu"],
                vec!["2", ""],
            ],
        )
        .unwrap();
        let r = evaluate(&Partition::by_columns(&ds, &[0]), ds.col(1));
        // Each class holds flu and ?, like the table: l = 2, t = 0, δ = 0.
        assert_eq!(r.l_distinct, 2);
        assert_eq!(r.t_closeness, 0.0);
        assert_eq!(r.delta_disclosure, Some(0.0));
    }

    /// Li et al. (2007), the ordered-distance example: salaries 3k..11k, one each.
    #[test]
    fn ordered_distance_example_of_the_t_closeness_paper() {
        let salaries = [
            ("a", "3"),
            ("a", "4"),
            ("a", "5"),
            ("b", "6"),
            ("c", "7"),
            ("b", "8"),
            ("c", "9"),
            ("c", "10"),
            ("b", "11"),
        ];
        let rows: Vec<Vec<&str>> = salaries.iter().map(|&(g, s)| vec![g, s]).collect();
        let ds = Dataset::from_rows(&["group", "salary"], &rows).unwrap();
        assert!(ds.col(1).is_numeric());
        let p = Partition::by_columns(&ds, &[0]);
        let cc = class_counts(&p, ds.col(1));
        let t = cc.table();
        // q_i = 1/9 each, m = 9. {3k,4k,5k}: cumulative q − p over ranks is
        // (2,4,6,5,4,3,2,1,0)/9, Σ = 27/9, /8 = 0.375.
        assert!(close(emd_ordered(cc.class(0), t), 0.375));
        // {6k,8k,11k}: (−1,−2,−3,−1,−2,0,−1,−2,0)/9, Σ|·| = 12/9, /8 = 1/6.
        assert!(close(emd_ordered(cc.class(1), t), 1.0 / 6.0));
        // {7k,9k,10k}: (−1,−2,−3,−4,−2,−3,−1,1,0)/9, Σ|·| = 17/9, /8 = 17/72.
        assert!(close(emd_ordered(cc.class(2), t), 17.0 / 72.0));
        assert!(close(evaluate(&p, ds.col(1)).t_closeness, 0.375));
    }

    #[test]
    fn p_sensitive_is_the_weakest_attribute() {
        let ds = Dataset::from_rows(
            &["zip", "a", "b"],
            &[
                vec!["1", "x", "u"],
                vec!["1", "y", "u"],
                vec!["2", "x", "u"],
                vec!["2", "y", "v"],
            ],
        )
        .unwrap();
        let p = Partition::by_columns(&ds, &[0]);
        assert_eq!(p_sensitive_multi(&p, &[ds.col(1), ds.col(2)]), 1);
        assert_eq!(p_sensitive_multi(&p, &[ds.col(1)]), 2);
        assert_eq!(p_sensitive_multi(&p, &[]), u32::MAX);
        let reports = evaluate_all(&p, &[ds.col(1), ds.col(2)]);
        assert_eq!(reports[0].attribute, "a");
        assert_eq!(reports[1].p_sensitive, 1);
    }

    #[test]
    fn empty_table_reports_zeros() {
        let ds = Dataset::from_rows(&["zip", "d"], &[]).unwrap();
        let r = evaluate(&Partition::single(0), ds.col(1));
        assert_eq!(r.k, 0);
        assert_eq!(r.recursive_c_l.c, None);
    }

    /// Ordered-distance EMD straight from the definition, dense over ranks.
    fn emd_ordered_dense(class: &[u32], all: &[u32]) -> f64 {
        let mut table: BTreeMap<u32, f64> = BTreeMap::new();
        for &c in all {
            *table.entry(c).or_default() += 1.0 / all.len() as f64;
        }
        let m = table.len();
        if m <= 1 {
            return 0.0;
        }
        let (mut acc, mut sum) = (0.0, 0.0);
        for (&code, &p) in &table {
            let q = class.iter().filter(|&&c| c == code).count() as f64 / class.len() as f64;
            acc += q - p;
            sum += f64::abs(acc);
        }
        sum / (m - 1) as f64
    }

    fn table_strategy() -> impl Strategy<Value = (Vec<(u8, u8)>, bool)> {
        (
            prop::collection::vec((0u8..6, 0u8..8), 1..120),
            any::<bool>(),
        )
    }

    fn build(rows: &[(u8, u8)], numeric: bool) -> Dataset {
        let text: Vec<(String, String)> = rows
            .iter()
            .map(|&(q, s)| {
                let s = match (s, numeric) {
                    (7, _) => String::new(),
                    (s, true) => (s as u32 * 10).to_string(),
                    (s, false) => ((b'a' + s) as char).to_string(),
                };
                (q.to_string(), s)
            })
            .collect();
        let rows: Vec<Vec<&str>> = text.iter().map(|(q, s)| vec![&**q, &**s]).collect();
        Dataset::from_rows(&["q", "s"], &rows).unwrap()
    }

    /// Every figure of [`evaluate`] from the models' definitions, on the
    /// raw rows (class = the QI byte, value = the sensitive byte, 7 the
    /// missing cell, ordered by the byte when numeric, so missing last),
    /// in floating point and without `models` or `counts`: the check of
    /// `evaluate` that does not share its helpers.
    fn brute_force(rows: &[(u8, u8)], numeric: bool) -> ModelReport {
        let n = rows.len() as f64;
        let mut table: BTreeMap<u8, f64> = BTreeMap::new();
        let mut classes: BTreeMap<u8, BTreeMap<u8, f64>> = BTreeMap::new();
        for &(q, s) in rows {
            *table.entry(s).or_default() += 1.0;
            *classes.entry(q).or_default().entry(s).or_default() += 1.0;
        }
        let p = |s: &u8| table[s] / n;
        let m = table.len();
        let max = |a: f64, b: f64| if b > a { b } else { a };
        let (mut k, mut l) = (f64::INFINITY, usize::MAX);
        let mut h_min = f64::INFINITY;
        let (mut t, mut alpha, mut delta_present, mut beta) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        let (mut delta_finite, mut beta_capped) = (true, true);
        for class in classes.values() {
            let size: f64 = class.values().sum();
            let q = |s: &u8| class.get(s).copied().unwrap_or(0.0) / size;
            k = k.min(size);
            l = l.min(class.len());
            h_min = h_min.min(class.values().map(|c| -(c / size) * (c / size).ln()).sum());
            let emd = if numeric {
                // Ordered distance: ranks over the table's values.
                let mut acc = 0.0;
                let mut sum = 0.0;
                for s in table.keys() {
                    acc += q(s) - p(s);
                    sum += f64::abs(acc);
                }
                if m > 1 {
                    sum / (m - 1) as f64
                } else {
                    0.0
                }
            } else {
                table.keys().map(|s| (q(s) - p(s)).abs()).sum::<f64>() / 2.0
            };
            t = max(t, emd);
            for s in table.keys() {
                let (q, p) = (q(s), p(s));
                if q == 0.0 {
                    delta_finite = false;
                    continue;
                }
                alpha = max(alpha, q);
                delta_present = max(delta_present, (q / p).ln().abs());
                if q > p {
                    beta = max(beta, (q - p) / p);
                    beta_capped &= (q - p) / p <= -p.ln();
                }
            }
        }
        // Recursive (c, l) at l = distinct l: r_1 < c (r_l + … + r_m).
        let (mut ratio, mut c) = (0.0f64, 0u64);
        for class in classes.values() {
            let mut r: Vec<f64> = class.values().copied().collect();
            r.sort_by(|a, b| b.total_cmp(a));
            let tail: f64 = r.iter().skip(l.max(1) - 1).sum();
            ratio = max(ratio, r[0] / tail);
            c = c.max((r[0] / tail).floor() as u64 + 1);
        }
        ModelReport {
            attribute: "s".into(),
            k: k as u32,
            l_distinct: l as u32,
            l_entropy: h_min.exp(),
            entropy_min: h_min,
            recursive_c_l: RecursiveCL {
                c: (l > 1).then_some(c),
                l: l as u32,
                ratio,
            },
            t_closeness: t,
            alpha_k: AlphaK { alpha, k: k as u32 },
            delta_disclosure: delta_finite.then_some(delta_present),
            delta_disclosure_present_only: delta_present,
            beta_likeness_basic: beta,
            beta_likeness_enhanced: beta_capped.then_some(beta),
            p_sensitive: l as u32,
        }
    }

    fn near(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    proptest! {
        #[test]
        fn evaluate_is_the_definitions_brute_force((rows, numeric) in table_strategy()) {
            let ds = build(&rows, numeric);
            let got = evaluate(&Partition::by_columns(&ds, &[0]), ds.col(1));
            let want = brute_force(&rows, numeric);
            let whole = |r: &ModelReport| {
                (r.k, r.l_distinct, r.p_sensitive, r.alpha_k.k, r.recursive_c_l.l, r.recursive_c_l.c)
            };
            prop_assert_eq!(whole(&got), whole(&want), "{:?}", got);
            let figures = |r: &ModelReport| {
                [
                    r.l_entropy,
                    r.entropy_min,
                    r.recursive_c_l.ratio,
                    r.t_closeness,
                    r.alpha_k.alpha,
                    r.delta_disclosure.unwrap_or(-1.0),
                    r.delta_disclosure_present_only,
                    r.beta_likeness_basic,
                    r.beta_likeness_enhanced.unwrap_or(-1.0),
                ]
            };
            for (i, (g, w)) in figures(&got).into_iter().zip(figures(&want)).enumerate() {
                prop_assert!(near(g, w), "figure {i}: {g} vs {w}\n{got:?}\n{want:?}");
            }
        }

        #[test]
        fn figures_stay_in_range((rows, numeric) in table_strategy()) {
            let ds = build(&rows, numeric);
            let p = Partition::by_columns(&ds, &[0]);
            let r = evaluate(&p, ds.col(1));
            prop_assert_eq!(r.k, p.min_size());
            prop_assert!(r.l_distinct >= 1);
            prop_assert_eq!(r.p_sensitive, r.l_distinct);
            prop_assert!(r.entropy_min >= 0.0);
            prop_assert!(r.l_entropy >= 1.0 - 1e-12);
            prop_assert!(r.l_entropy <= r.l_distinct as f64 * (1.0 + 1e-12));
            prop_assert!((0.0..=1.0 + 1e-12).contains(&r.t_closeness));
            prop_assert!(r.alpha_k.alpha > 0.0 && r.alpha_k.alpha <= 1.0);
            prop_assert!(r.beta_likeness_basic >= 0.0);
            prop_assert!(r.delta_disclosure_present_only >= 0.0);
            if let Some(d) = r.delta_disclosure {
                prop_assert_eq!(d, r.delta_disclosure_present_only);
            }
            if let Some(b) = r.beta_likeness_enhanced {
                prop_assert_eq!(b, r.beta_likeness_basic);
            }
            let cc = class_counts(&p, ds.col(1));
            for class in cc.iter() {
                prop_assert!(satisfies_distinct_l(class, r.l_distinct));
                prop_assert!(satisfies_entropy_l(class, r.l_entropy));
            }
            if let Some(c) = r.recursive_c_l.c {
                let l = r.recursive_c_l.l;
                prop_assert!(cc.iter().all(|cl| satisfies_recursive_cl(cl, c as f64, l)));
                prop_assert!(!cc.iter().all(|cl| satisfies_recursive_cl(cl, (c - 1) as f64, l)));
            } else {
                prop_assert_eq!(r.l_distinct, 1);
            }
        }

        #[test]
        fn sparse_counts_and_emd_match_the_definition((rows, numeric) in table_strategy()) {
            let ds = build(&rows, numeric);
            let p = Partition::by_columns(&ds, &[0]);
            let cc = class_counts(&p, ds.col(1));
            let codes = ds.col(1).codes();
            for (class, members) in p.members().iter().enumerate() {
                let mut naive: BTreeMap<u32, u32> = BTreeMap::new();
                for &row in members {
                    *naive.entry(codes[row as usize]).or_default() += 1;
                }
                let naive: Vec<ValueCount> =
                    naive.into_iter().map(|(code, count)| ValueCount { code, count }).collect();
                prop_assert_eq!(cc.class(class), &naive[..]);
                let class_codes: Vec<u32> = members.iter().map(|&r| codes[r as usize]).collect();
                let dense = emd_ordered_dense(&class_codes, codes);
                prop_assert!((emd_ordered(cc.class(class), cc.table()) - dense).abs() < 1e-12);
            }
        }

        #[test]
        fn one_class_is_its_own_table((rows, numeric) in table_strategy()) {
            let ds = build(&rows, numeric);
            let r = evaluate(&Partition::single(ds.n_rows()), ds.col(1));
            prop_assert_eq!(r.t_closeness, 0.0);
            prop_assert_eq!(r.delta_disclosure, Some(0.0));
            prop_assert_eq!(r.beta_likeness_basic, 0.0);
            prop_assert_eq!(r.beta_likeness_enhanced, Some(0.0));
        }
    }
}
