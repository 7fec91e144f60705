//! t-closeness re-checked (Li, Li & Venkatasubramanian, "t-Closeness:
//! Privacy Beyond k-Anonymity and l-Diversity", ICDE 2007, Section 4):
//! the Earth Mover's Distance between the distribution Q of an attribute
//! in a group (or an LGB local bucket) and its distribution P in the whole
//! reference, at most t.
//!
//! The EMD is written here from the paper's two closed forms, apart from
//! `privacy::models::emd`, which LGB and full-domain use to reach t: a slip
//! there would make the algorithms and the verifier agree on a wrong
//! figure. Over the m values of the reference in their order
//! (`Column`'s code order, which for a numeric column is the numeric order
//! the verifier's structure checks confirm):
//!
//! - equal ground distance (categorical attributes):
//!   D = ½ Σ_i |q_i − p_i|;
//! - ordered distance (numeric attributes), each step between consecutive
//!   values 1/(m−1): D = 1/(m−1) Σ_i |Σ_{j≤i} (q_j − p_j)|.
//!
//! Computed densely over all m values (the definition's sum, no sparse
//! shortcut), on integers: with n rows in the group and N in the
//! reference, q_i − p_i = (Q_i·N − P_i·n)/(n·N), so each sum is an exact
//! integer and only the final division rounds. A group costs O(n + m).

use rayon::prelude::*;

use crate::data::{Column, Dataset};
use crate::release::Release;

use super::diversity::lgb_buckets;

/// The reference distribution P of one attribute over its ordered domain.
pub(super) struct Reference {
    /// Place of each code among the m values present; `u32::MAX` if absent.
    rank: Vec<u32>,
    /// Rows per value, by rank.
    counts: Vec<u64>,
    total: u64,
    /// Ordered distance (numeric attribute) or equal distance.
    ordered: bool,
}

impl Reference {
    /// The distribution of `col` over `rows`, row `r` counting
    /// `weights[r]` records in a grouped table (one each when `None`).
    pub(super) fn of_rows<'a>(
        col: &Column,
        rows: impl Iterator<Item = &'a u32>,
        weights: Option<&[u32]>,
    ) -> Self {
        let mut by_code = vec![0u64; col.code_space()];
        for &r in rows {
            by_code[col.code(r as usize) as usize] +=
                weights.map_or(1, |w| u64::from(w[r as usize]));
        }
        let mut rank = vec![u32::MAX; by_code.len()];
        let mut counts = Vec::new();
        for (code, &c) in by_code.iter().enumerate() {
            if c > 0 {
                rank[code] = counts.len() as u32;
                counts.push(c);
            }
        }
        Reference {
            rank,
            total: counts.iter().sum(),
            counts,
            ordered: col.is_numeric(),
        }
    }

    /// m, the number of values the reference holds.
    pub(super) fn values(&self) -> usize {
        self.counts.len()
    }

    /// The EMD between the distribution of `col` over `rows` and this
    /// reference. `q` is scratch space of m zeros, left zeroed. Every value
    /// of `rows` must be in the reference (the callers build it from a
    /// superset of the rows).
    pub(super) fn emd(
        &self,
        col: &Column,
        rows: &[u32],
        weights: Option<&[u32]>,
        q: &mut [u64],
    ) -> Result<f64, String> {
        let m = self.values();
        let records = |r: u32| weights.map_or(1, |w| u64::from(w[r as usize]));
        let n: u128 = rows.iter().map(|&r| u128::from(records(r))).sum();
        let total = self.total as u128;
        if n == 0 || total == 0 {
            return Ok(0.0);
        }
        for &r in rows {
            let code = col.code(r as usize);
            match self.rank.get(code as usize) {
                Some(&i) if i != u32::MAX => q[i as usize] += records(r),
                _ => {
                    q.iter_mut().for_each(|x| *x = 0);
                    return Err(format!(
                        "'{}' of row {r} is not in the reference distribution of '{}'",
                        col.display(code),
                        col.name()
                    ));
                }
            }
        }
        // Σ over the m values of |Q_i·N − P_i·n| (equal distance) or of the
        // cumulative |Σ_{j≤i} Q_j·N − Σ_{j≤i} P_j·n| (ordered distance).
        let mut sum = 0u128;
        let (mut cum_q, mut cum_p) = (0u128, 0u128);
        for (qi, &pi) in q.iter_mut().zip(&self.counts) {
            let (qi, pi) = (std::mem::take(qi) as u128 * total, pi as u128 * n);
            if self.ordered {
                cum_q += qi;
                cum_p += pi;
                sum += cum_q.abs_diff(cum_p);
            } else {
                sum += qi.abs_diff(pi);
            }
        }
        let scale = n as f64 * total as f64;
        Ok(if self.ordered {
            if m <= 1 {
                0.0
            } else {
                sum as f64 / (scale * (m - 1) as f64)
            }
        } else {
            sum as f64 / (2.0 * scale)
        })
    }

    /// The largest EMD over `sets` of rows, as (index, EMD); `None` for no
    /// sets.
    fn farthest(
        &self,
        col: &Column,
        sets: &[&[u32]],
        weights: Option<&[u32]>,
    ) -> Result<Option<(usize, f64)>, String> {
        let distances: Vec<Result<f64, String>> = sets
            .par_iter()
            .map_init(
                || vec![0u64; self.values()],
                |q, rows| self.emd(col, rows, weights, q),
            )
            .collect();
        let mut worst: Option<(usize, f64)> = None;
        for (i, d) in distances.into_iter().enumerate() {
            let d = d?;
            // The last of equally far sets is named.
            if worst.is_none_or(|(_, w)| d >= w) {
                worst = Some((i, d));
            }
        }
        Ok(worst)
    }
}

/// Above t beyond rounding: a relative slack of 1e-12.
fn exceeds(d: f64, t: f64) -> bool {
    d > t + 1e-12 * t.abs().max(1.0)
}

/// Every group within EMD t of the published table's distribution.
pub(super) fn t_closeness(
    release: &Release,
    ds: &Dataset,
    column: usize,
    t: f64,
) -> Result<String, String> {
    let col = ds.col(column);
    let weights = ds.multiplicities();
    let table = Reference::of_rows(col, release.groups.iter().flat_map(|g| &g.rows), weights);
    let groups: Vec<&[u32]> = release.groups.iter().map(|g| g.rows.as_slice()).collect();
    match table.farthest(col, &groups, weights)? {
        None => Ok("nothing published".to_string()),
        Some((g, d)) if exceeds(d, t) => Err(format!(
            "group {g} is at EMD {d:.6} from the table's '{}', more than t = {t}",
            col.name()
        )),
        Some((_, d)) => Ok(format!("largest EMD {d:.6}")),
    }
}

/// Every local bucket of the attribute within EMD t of the distribution of
/// all its bucketed (sensitive) cells.
pub(super) fn local_t_closeness(
    release: &Release,
    ds: &Dataset,
    column: usize,
    t: f64,
) -> Result<String, String> {
    let col = ds.col(column);
    let Some(buckets) = lgb_buckets(release, col, column)? else {
        return Ok(format!("0 sensitive cells of '{}'", col.name()));
    };
    let reference = Reference::of_rows(col, buckets.iter().flat_map(|b| &b.rows), None);
    let sets: Vec<&[u32]> = buckets.iter().map(|b| b.rows.as_slice()).collect();
    match reference.farthest(col, &sets, None)? {
        None => Ok("no sensitive cells".to_string()),
        Some((b, d)) if exceeds(d, t) => Err(format!(
            "local bucket {b} of '{}' is at EMD {d:.6} from the distribution of its sensitive cells, more than t = {t}",
            col.name()
        )),
        Some((_, d)) => Ok(format!(
            "{} local buckets, largest EMD {d:.6}",
            buckets.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::release::Guarantee;

    /// The EMD written again in the test, from the paper's formulas on the
    /// values' text: no codes, ranks or integer scaling of the verifier.
    /// P and Q map each value to its frequency; ordered distance walks the
    /// values by the numbers they read as.
    fn emd_by_definition(group: &[&str], table: &[&str], ordered: bool) -> f64 {
        let freq = |xs: &[&str]| {
            let mut f: BTreeMap<String, f64> = BTreeMap::new();
            for x in xs {
                *f.entry(x.to_string()).or_default() += 1.0 / xs.len() as f64;
            }
            f
        };
        let (q, p) = (freq(group), freq(table));
        let mut domain: Vec<&String> = p.keys().collect();
        let diff = |v: &String| q.get(v).copied().unwrap_or(0.0) - p[v];
        if ordered {
            let number = |v: &String| v.parse::<f64>().unwrap();
            domain.sort_by(|a, b| number(a).total_cmp(&number(b)));
            if domain.len() <= 1 {
                return 0.0;
            }
            let mut cumulative = 0.0;
            let mut sum = 0.0;
            for v in &domain {
                cumulative += diff(v);
                sum += f64::abs(cumulative);
            }
            sum / (domain.len() - 1) as f64
        } else {
            0.5 * domain.iter().map(|v| diff(v).abs()).sum::<f64>()
        }
    }

    /// A table of (group, value) rows; numeric values are spread so their
    /// text order ("10" < "3") differs from their numeric order.
    fn table(rows: &[(u32, u32)], numeric: bool) -> (Dataset, Vec<String>) {
        let value = |v: u32| {
            if numeric {
                (v * 7 + 3).to_string()
            } else {
                format!("s{v}")
            }
        };
        let text: Vec<Vec<String>> = rows
            .iter()
            .map(|&(g, v)| vec![format!("g{g}"), value(v)])
            .collect();
        let refs: Vec<Vec<&str>> = text
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        let ds = Dataset::from_rows(&["G", "S"], &refs).unwrap();
        assert_eq!(ds.col(1).is_numeric(), numeric);
        (ds, text.into_iter().map(|mut r| r.remove(1)).collect())
    }

    #[test]
    fn the_papers_example_of_ordered_distance() {
        // The t-closeness paper's salary example: P = {3k … 11k} one each,
        // Q1 = {3k, 4k, 5k}: EMD 0.375.
        let salaries: Vec<String> = (3..=11).map(|s| s.to_string()).collect();
        let rows: Vec<Vec<&str>> = salaries.iter().map(|s| vec!["x", s.as_str()]).collect();
        let ds = Dataset::from_rows(&["G", "S"], &rows).unwrap();
        let col = ds.col(1);
        let all: Vec<u32> = (0..9).collect();
        let p = Reference::of_rows(col, all.iter(), None);
        let mut q = vec![0; p.values()];
        let d = p.emd(col, &[0, 1, 2], None, &mut q).unwrap();
        assert!((d - 0.375).abs() < 1e-12, "{d}");
        assert!(q.iter().all(|&x| x == 0), "scratch left zeroed");
        // Q2 = {6k, 8k, 11k}: 0.167 in the paper (1/6).
        let d = p.emd(col, &[3, 5, 8], None, &mut q).unwrap();
        assert!((d - 1.0 / 6.0).abs() < 1e-12, "{d}");
    }

    proptest::proptest! {
        /// On random tables and groups, the verifier's EMD equals the one
        /// written here, and the claim holds exactly when t is at least the
        /// largest of them.
        #[test]
        fn the_verifiers_emd_is_the_definitions(
            rows in proptest::collection::vec((0u32..4, 0u32..6), 1..60),
            numeric in proptest::bool::ANY,
            slack in -0.01f64..0.01,
        ) {
            let (ds, values) = table(&rows, numeric);
            let col = ds.col(1);
            let mut r = Release::new("hand", &ds, vec![0], vec![1]);
            for g in 0..4 {
                let members: Vec<u32> = (0..rows.len() as u32)
                    .filter(|&i| rows[i as usize].0 == g)
                    .collect();
                if !members.is_empty() {
                    r.push_covering_group(&ds, members);
                }
            }
            let all: Vec<&str> = values.iter().map(String::as_str).collect();
            let table = Reference::of_rows(col, r.groups.iter().flat_map(|g| &g.rows), None);
            let mut q = vec![0; table.values()];
            let mut largest = 0.0f64;
            for g in &r.groups {
                let group: Vec<&str> = g.rows.iter().map(|&i| all[i as usize]).collect();
                let want = emd_by_definition(&group, &all, numeric);
                let got = table.emd(col, &g.rows, None, &mut q).unwrap();
                proptest::prop_assert!((got - want).abs() < 1e-9, "{got} vs {want}");
                largest = largest.max(want);
            }
            let t = largest + slack;
            r.claims = vec![Guarantee::TCloseness { attribute: "S".into(), t }];
            let v = crate::privacy::verify(&r, &ds);
            // Within 1e-9 of the boundary the two sums may round apart.
            if (t - largest).abs() > 1e-9 {
                proptest::prop_assert_eq!(v.all_hold(), t >= largest, "t = {}: {}", t, v);
            }
        }
    }
}
