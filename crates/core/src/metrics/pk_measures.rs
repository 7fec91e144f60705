//! The cost and diversity measures of the p-sensitive k-anonymity paper
//! (Truta, Campan & Meyer, Section 3.1): cluster information loss IL
//! (Definition 9), total information loss IL(S) (Definition 10), the
//! diversity Div between a tuple and a cluster (Definition 11) and cluster
//! homogeneity Hom (Definition 12). C_DM (equation 2) and C_AVG (equation 3)
//! are `metrics::utility`'s discernibility and average class size: the
//! paper's DM = Σ |cl|² and AVG = n / (v·k) are those figures on a release
//! without suppression.
//!
//! The same primitives drive EnhancedPKClustering and GreedyPKClustering
//! (`algorithms::pk`), so the figures the algorithms optimize and the figures
//! `compare` shows are one computation.
//!
//! Choices where the paper leaves room:
//! - **IL is a property of the partition** (Definition 10 sums IL over the
//!   clusters of a solution S): each group's gen(cl) is the minimal covering
//!   tuple of its rows — the smallest interval for numeric QIs, the lowest
//!   common ancestor in the attribute's hierarchy for categorical ones —
//!   whatever cell the release publishes. Full-domain releases publish
//!   coarser cells; their IL is that of their partition, as the paper
//!   compares partitions.
//! - A categorical QI **without a hierarchy** is measured as the flat
//!   hierarchy value → `*` (height 1): a cluster with one value loses 0,
//!   with several 1.
//! - A numeric QI whose cluster mixes missing and present values loses 1
//!   (no interval contains the missing value); a numeric column with a
//!   single value loses 0.
//! - **Weights** w_i of Div and Hom are equal (1/r), as in the paper's
//!   experiments. Div and Hom are then integers divided by r; the algorithms
//!   compare the integers ("units") so ties are exact.
//! - As a release-level summary, **Hom** is averaged over the groups (0 when
//!   every group is p-sensitive, Property 1) and **Div** is averaged over the
//!   published tuples as Div(t, cl \ {t}): how much diversity each tuple
//!   brings to its own cluster (0 when every value of every sensitive
//!   attribute appears at least twice in its group or the group has more
//!   than p values without it).

use serde::{Deserialize, Serialize};

use crate::data::{Column, Dataset};
use crate::error::Result;
use crate::hierarchy::{BoundHierarchy, HierarchySet};
use crate::release::Release;
use crate::risk::check_release_fits;

/// How one quasi-identifier's generalization is measured (Definition 9).
#[derive(Debug, Clone)]
pub enum QiScale {
    /// Smallest covering interval over the column's numbers.
    Numeric {
        /// Number per code (the missing code has none).
        values: Vec<f64>,
        /// max − min over the whole table (0: nothing to lose).
        range: f64,
        missing: u32,
    },
    /// Lowest common ancestor in a hierarchy: level / height.
    Hierarchy(BoundHierarchy),
    /// No hierarchy: the flat hierarchy value → `*`.
    Flat,
}

/// The generalization of one QI over a cluster's values so far.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GenState {
    Empty,
    /// Codes of the smallest and largest present value; whether a missing
    /// value is among them.
    Numeric {
        lo: u32,
        hi: u32,
        missing: bool,
    },
    Missing,
    /// Lowest common ancestor: the node of `anchor` (any member's code) at
    /// `level`.
    Node {
        anchor: u32,
        level: u8,
    },
    Flat {
        anchor: u32,
        multi: bool,
    },
}

/// Definition 9's information loss model over a request's quasi-identifiers.
#[derive(Debug, Clone)]
pub struct IlModel {
    pub scales: Vec<QiScale>,
}

impl IlModel {
    /// Numeric columns by interval; categorical columns by their hierarchy
    /// in `hierarchies` when it has one (bound to the column, so a missing
    /// value is a node of its own), else flat.
    pub fn new(ds: &Dataset, qi: &[usize], hierarchies: &HierarchySet) -> Result<Self> {
        let scales = qi
            .iter()
            .map(|&c| {
                let col = ds.col(c);
                if col.is_numeric() {
                    Ok(numeric_scale(col))
                } else if let Some(h) = hierarchies.get(col.name()) {
                    Ok(QiScale::Hierarchy(h.bind(col)?))
                } else {
                    Ok(QiScale::Flat)
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(IlModel { scales })
    }

    pub fn empty(&self) -> Vec<GenState> {
        vec![GenState::Empty; self.scales.len()]
    }

    /// The generalization of QI `a` after adding a value with `code`.
    pub fn extend(&self, a: usize, state: GenState, code: u32) -> GenState {
        match &self.scales[a] {
            QiScale::Numeric { missing, .. } => {
                let is_missing = code == *missing;
                match state {
                    GenState::Empty if is_missing => GenState::Missing,
                    GenState::Empty => GenState::Numeric {
                        lo: code,
                        hi: code,
                        missing: false,
                    },
                    GenState::Missing if is_missing => GenState::Missing,
                    GenState::Missing => GenState::Numeric {
                        lo: code,
                        hi: code,
                        missing: true,
                    },
                    GenState::Numeric { lo, hi, .. } if is_missing => GenState::Numeric {
                        lo,
                        hi,
                        missing: true,
                    },
                    GenState::Numeric { lo, hi, missing } => GenState::Numeric {
                        lo: lo.min(code),
                        hi: hi.max(code),
                        missing,
                    },
                    other => other,
                }
            }
            QiScale::Hierarchy(h) => match state {
                GenState::Empty => GenState::Node {
                    anchor: code,
                    level: 0,
                },
                GenState::Node { anchor, level } => {
                    let mut l = level as usize;
                    while l < h.height() && h.node(l, code) != h.node(l, anchor) {
                        l += 1;
                    }
                    GenState::Node {
                        anchor,
                        level: l as u8,
                    }
                }
                other => other,
            },
            QiScale::Flat => match state {
                GenState::Empty => GenState::Flat {
                    anchor: code,
                    multi: false,
                },
                GenState::Flat { anchor, multi } => GenState::Flat {
                    anchor,
                    multi: multi || anchor != code,
                },
                other => other,
            },
        }
    }

    /// The bracketed term of equation (4) for QI `a`, in [0, 1].
    pub fn term(&self, a: usize, state: GenState) -> f64 {
        match (&self.scales[a], state) {
            (QiScale::Numeric { values, range, .. }, GenState::Numeric { lo, hi, missing }) => {
                if missing {
                    1.0
                } else if *range > 0.0 {
                    (values[hi as usize] - values[lo as usize]) / range
                } else {
                    0.0
                }
            }
            (QiScale::Hierarchy(h), GenState::Node { level, .. }) if h.height() > 0 => {
                level as f64 / h.height() as f64
            }
            (QiScale::Flat, GenState::Flat { multi: true, .. }) => 1.0,
            _ => 0.0,
        }
    }

    /// Σ of the terms over the QIs: IL(cl) / |cl|.
    pub fn cost(&self, states: &[GenState]) -> f64 {
        states
            .iter()
            .enumerate()
            .map(|(a, &s)| self.term(a, s))
            .sum()
    }

    /// IL(cl) of Definition 9 for the rows of a cluster; `codes[a]` are the
    /// codes of QI `a` per row.
    pub fn cluster_il(&self, codes: &[&[u32]], rows: &[u32]) -> f64 {
        let states: Vec<GenState> = (0..self.scales.len())
            .map(|a| {
                rows.iter().fold(GenState::Empty, |s, &r| {
                    self.extend(a, s, codes[a][r as usize])
                })
            })
            .collect();
        rows.len() as f64 * self.cost(&states)
    }
}

fn numeric_scale(col: &Column) -> QiScale {
    let values = col.numbers().to_vec();
    let present: Vec<f64> = col
        .frequencies()
        .iter()
        .zip(&values)
        .filter(|(&f, _)| f > 0)
        .map(|(_, &v)| v)
        .collect();
    let range = match (present.first(), present.last()) {
        (Some(lo), Some(hi)) => hi - lo,
        _ => 0.0,
    };
    QiScale::Numeric {
        values,
        range,
        missing: col.missing_code(),
    }
}

/// y_i of Definition 11: distinct values, capped at p.
pub fn capped(distinct: u32, p: u32) -> u32 {
    distinct.min(p)
}

/// r · Div(X, cl) with equal weights: Σ over the sensitive attributes where
/// X's value is new to the cluster of (y'_i − y_i)(p − y_i). `new[i]` says
/// whether the value is new; `distinct[i]` is the cluster's count.
pub fn div_units(new: impl IntoIterator<Item = bool>, distinct: &[u32], p: u32) -> u32 {
    new.into_iter()
        .zip(distinct)
        .map(|(is_new, &d)| {
            let y = capped(d, p);
            if is_new && y < p {
                p - y
            } else {
                0
            }
        })
        .sum()
}

/// r · Hom(cl) with equal weights: Σ (p − y_i); 0 iff p-sensitive
/// (Property 1).
pub fn hom_units(distinct: &[u32], p: u32) -> u32 {
    distinct.iter().map(|&d| p - capped(d, p)).sum()
}

/// The paper's measures of one release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PkMeasures {
    pub p: u32,
    /// Total information loss IL(S) (Definition 10).
    pub information_loss: f64,
    /// IL(S) / n: the mean loss per published tuple, in [0, |QI|].
    pub information_loss_per_tuple: f64,
    /// Mean Hom over the groups (Definition 12).
    pub mean_homogeneity: f64,
    /// Groups with Hom > 0 (not p-sensitive).
    pub groups_not_p_sensitive: usize,
    /// Mean over published tuples of Div(t, cl \ {t}) (Definition 11).
    pub mean_diversity: f64,
}

/// IL, Hom and Div of a release's groups for p, over its sensitive
/// attributes `sensitive_ids` (one value id per row each: the codes, or the
/// protected subtree of each value for extended p-sensitivity — see
/// `algorithms::pk::SensitiveView`). QI generalization is measured with
/// `hierarchies` as in [`IlModel::new`].
pub fn pk_measures(
    release: &Release,
    ds: &Dataset,
    hierarchies: &HierarchySet,
    sensitive_ids: &[Vec<u32>],
    p: u32,
) -> Result<PkMeasures> {
    check_release_fits(release, ds)?;
    let model = IlModel::new(ds, &release.quasi_identifiers, hierarchies)?;
    let codes: Vec<&[u32]> = release
        .quasi_identifiers
        .iter()
        .map(|&c| ds.col(c).codes())
        .collect();
    let r = sensitive_ids.len().max(1) as f64;
    let mut il = 0.0;
    let mut hom = 0.0;
    let mut not_p = 0;
    let mut div = 0.0;
    let mut tuples = 0usize;
    for g in &release.groups {
        il += model.cluster_il(&codes, &g.rows);
        let counts: Vec<rustc_hash::FxHashMap<u32, u32>> = sensitive_ids
            .iter()
            .map(|ids| {
                let mut m = rustc_hash::FxHashMap::default();
                for &row in &g.rows {
                    *m.entry(ids[row as usize]).or_insert(0) += 1;
                }
                m
            })
            .collect();
        let distinct: Vec<u32> = counts.iter().map(|m| m.len() as u32).collect();
        let h = hom_units(&distinct, p);
        hom += h as f64 / r;
        if h > 0 {
            not_p += 1;
        }
        for &row in &g.rows {
            // Without t, a value seen once leaves the cluster: t brings it.
            let (new, without): (Vec<bool>, Vec<u32>) = sensitive_ids
                .iter()
                .zip(&counts)
                .map(|(ids, m)| {
                    let once = m[&ids[row as usize]] == 1;
                    (once, m.len() as u32 - once as u32)
                })
                .unzip();
            div += div_units(new, &without, p) as f64 / r;
        }
        tuples += g.rows.len();
    }
    let groups = release.groups.len().max(1) as f64;
    Ok(PkMeasures {
        p,
        information_loss: il,
        information_loss_per_tuple: if tuples > 0 { il / tuples as f64 } else { 0.0 },
        mean_homogeneity: hom / groups,
        groups_not_p_sensitive: not_p,
        mean_diversity: if tuples > 0 { div / tuples as f64 } else { 0.0 },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hierarchy::Hierarchy;
    use crate::release::{Cell, EquivalenceGroup};

    /// Worked by hand. age 20, 30, 40, 60 (range 40); job x, y, z with the
    /// hierarchy x, y → XY, z → Z, root * (height 2); s the sensitive
    /// attribute. Groups {20 x a, 30 y b} and {40 z a, 60 z a}.
    /// IL: group 1: 2 · (10/40 + 1/2) = 1.5; group 2: 2 · (20/40 + 0) = 1;
    /// IL(S) = 2.5, per tuple 0.625. p = 2: Hom 0 and 1 → mean 0.5, one
    /// group not 2-sensitive. Div(t, cl \ {t}): group 1's tuples each bring
    /// their value to a cluster of 1 value: (2 − 1) = 1 each; group 2's
    /// tuples bring nothing ('a' stays): mean (1 + 1 + 0 + 0) / 4 = 0.5.
    #[test]
    fn il_hom_and_div_by_hand() {
        let ds = Dataset::from_rows(
            &["age", "job", "s"],
            &[
                vec!["20", "x", "a"],
                vec!["30", "y", "b"],
                vec!["40", "z", "a"],
                vec!["60", "z", "a"],
            ],
        )
        .unwrap();
        let mut hs = HierarchySet::new();
        hs.insert(
            Hierarchy::from_rows(
                "job",
                &[
                    vec!["x", "XY", "*"],
                    vec!["y", "XY", "*"],
                    vec!["z", "Z", "*"],
                ],
            )
            .unwrap(),
        );
        let mut r = Release::new("t", &ds, vec![0, 1], vec![2]);
        for rows in [vec![0, 1], vec![2, 3]] {
            r.groups.push(EquivalenceGroup {
                rows,
                cells: vec![Cell::Suppressed, Cell::Suppressed],
            });
        }
        let ids = vec![ds.col(2).codes().to_vec()];
        let m = pk_measures(&r, &ds, &hs, &ids, 2).unwrap();
        assert!((m.information_loss - 2.5).abs() < 1e-12, "{m:?}");
        assert!((m.information_loss_per_tuple - 0.625).abs() < 1e-12);
        assert!((m.mean_homogeneity - 0.5).abs() < 1e-12);
        assert_eq!(m.groups_not_p_sensitive, 1);
        assert!((m.mean_diversity - 0.5).abs() < 1e-12);
        // Without the hierarchy, job is flat: group 1 loses 1 there.
        let flat = pk_measures(&r, &ds, &HierarchySet::new(), &ids, 2).unwrap();
        assert!((flat.information_loss - 3.5).abs() < 1e-12, "{flat:?}");
    }

    #[test]
    fn div_and_hom_units_follow_definitions_11_and_12() {
        // p = 3, two attributes with 1 and 3 distinct values in the cluster.
        assert_eq!(hom_units(&[1, 3], 3), 2);
        // A tuple new on both: (3 − 1) + 0 (y = p already).
        assert_eq!(div_units([true, true], &[1, 3], 3), 2);
        assert_eq!(div_units([false, true], &[1, 3], 3), 0);
        assert_eq!(hom_units(&[5, 4], 3), 0);
    }
}
