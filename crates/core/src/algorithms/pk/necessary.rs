//! The two necessary conditions of p-sensitive k-anonymity (the p-sensitive
//! paper, Section 2.2) and the extended model's reading of sensitive values
//! as protected subtrees (Section 2.3).
//!
//! - **Condition 1**: every sensitive attribute has at least p distinct
//!   values.
//! - **Condition 2**: at most maxClusters = min over i = 1..p of
//!   ⌊(n − cf_{p−i}) / i⌋ p-sensitive clusters exist, with cf_i the largest
//!   over the attributes of the i-th cumulative descending frequency (cf_0 =
//!   0). It is an upper bound, not the number the data allows: the paper's
//!   Fig. 1 has maxClusters = 2 while only one 2-sensitive group exists.
//!   When Condition 1 fails, cf_{p−1} = n for the attribute with too few
//!   values (cumulating past its last value keeps n), so maxClusters = 0:
//!   the two conditions give one message.
//!
//! **Extended p-sensitivity** (Definitions 4–6): a sensitive attribute with
//! a hierarchy and protected values is read at the level of its *protected
//! subtrees*. A value's subtree is its first protected ancestor from the
//! root down (its strong ancestor); a ground value with no protected
//! ancestor is strong itself (every ground value is protected). The paper's
//! two-step procedure — generalize to the strong ancestors, run any
//! p-sensitive algorithm, restore the values — is how the algorithms use a
//! [`SensitiveView`]: they see subtree ids instead of values, and the
//! release publishes the original values.

use rustc_hash::FxHashMap;

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result, Setting};
use crate::release::ProtectedSubtree;

use super::PkOptions;

/// One sensitive attribute as the algorithms see it: a value id per row —
/// the value's code, or its protected subtree under the extended model.
#[derive(Debug, Clone)]
pub struct SensitiveView {
    pub column: usize,
    pub name: String,
    /// Id per row, in `0..n_ids`.
    pub ids: Vec<u32>,
    pub n_ids: usize,
    /// The protected subtrees with a strong value above the leaves (extended
    /// model only); ground values outside them are subtrees of their own.
    pub subtrees: Option<Vec<ProtectedSubtree>>,
}

impl SensitiveView {
    /// Rows per id, with at least one row, in descending order of count
    /// (ties by id): the paper's f_1 ≥ f_2 ≥ … with the SECs' values.
    pub fn descending(&self) -> Vec<(u32, usize)> {
        let mut f = vec![0usize; self.n_ids];
        for &v in &self.ids {
            f[v as usize] += 1;
        }
        let mut out: Vec<(u32, usize)> = f
            .into_iter()
            .enumerate()
            .filter(|(_, c)| *c > 0)
            .map(|(v, c)| (v as u32, c))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

/// Build the views of the request's sensitive attributes: plain codes, or
/// protected subtrees where `options` gives the attribute a hierarchy.
pub fn views(ds: &Dataset, sensitive: &[usize], options: &PkOptions) -> Result<Vec<SensitiveView>> {
    if sensitive.is_empty() {
        return Err(Error::unmet(
            "p-sensitive k-anonymity needs at least one sensitive attribute",
            Setting::SensitiveAttribute,
        ));
    }
    for a in options.sa_hierarchies.attributes() {
        let c = ds.column_index(a)?;
        if !sensitive.contains(&c) {
            return Err(Error::unmet(
                format!("a sensitive attribute's hierarchy is given for '{a}', which is not a sensitive attribute"),
                Setting::SensitiveAttribute,
            ));
        }
    }
    if !options.protected.is_empty() && options.sa_hierarchies.is_empty() {
        return Err(Error::unmet(
            "protected values name values of a sensitive attribute's hierarchy, and no such hierarchy is given",
            Setting::SensitiveHierarchy,
        ));
    }
    let mut used = vec![false; options.protected.len()];
    let mut out = Vec::with_capacity(sensitive.len());
    for &c in sensitive {
        let col = ds.col(c);
        let Some(h) = options.sa_hierarchies.get(col.name()) else {
            out.push(SensitiveView {
                column: c,
                name: col.name().to_string(),
                ids: col.codes().to_vec(),
                n_ids: col.code_space(),
                subtrees: None,
            });
            continue;
        };
        let bound = h.bind(col)?;
        // The strong ancestor of each code: the first protected node from the
        // root down; the code itself when none is.
        let mut subtree_of_node: FxHashMap<(usize, u32), u32> = FxHashMap::default();
        let mut subtrees: Vec<ProtectedSubtree> = Vec::new();
        let own_base = col.code_space() as u32;
        let mut ids = vec![0u32; col.code_space()];
        for code in 0..col.code_space() as u32 {
            let mut id = None;
            for level in (1..bound.levels()).rev() {
                let node = bound.node(level, code);
                let label = bound.label(level, node);
                if let Some(i) = options.protected.iter().position(|p| p == label) {
                    used[i] = true;
                    let next = subtrees.len() as u32;
                    let s = *subtree_of_node.entry((level, node)).or_insert(next);
                    if s == next {
                        subtrees.push(ProtectedSubtree {
                            root: label.to_string(),
                            values: Vec::new(),
                        });
                    }
                    subtrees[s as usize]
                        .values
                        .push(col.display(code).to_string());
                    id = Some(s);
                    break;
                }
            }
            // Ground values are protected: one with no protected ancestor is
            // a subtree of its own (ids after the listed subtrees).
            if let Some(i) = options
                .protected
                .iter()
                .position(|p| p == col.display(code))
            {
                used[i] = true;
            }
            ids[code as usize] = id.unwrap_or(own_base + code);
        }
        let n_ids = (own_base + col.code_space() as u32) as usize;
        // Compact: the algorithms size per-cluster counts by n_ids.
        let mut compact = vec![u32::MAX; n_ids];
        let mut next = 0u32;
        let row_ids: Vec<u32> = col
            .codes()
            .iter()
            .map(|&code| {
                let id = ids[code as usize] as usize;
                if compact[id] == u32::MAX {
                    compact[id] = next;
                    next += 1;
                }
                compact[id]
            })
            .collect();
        out.push(SensitiveView {
            column: c,
            name: col.name().to_string(),
            ids: row_ids,
            n_ids: next as usize,
            subtrees: Some(subtrees),
        });
    }
    if let Some(i) = used.iter().position(|u| !u) {
        let names: Vec<&str> = options.sa_hierarchies.attributes().collect();
        return Err(Error::unmet(
            format!(
                "the protected value '{}' is not a value of the hierarchy of {}",
                options.protected[i],
                names.join(", ")
            ),
            Setting::ProtectedValues,
        ));
    }
    Ok(out)
}

/// What Conditions 1 and 2 say about p on a table.
#[derive(Debug, Clone, PartialEq)]
pub struct PkBound {
    pub p: u32,
    pub n: usize,
    /// Condition 2's upper bound on the number of p-sensitive clusters (0
    /// when Condition 1 fails).
    pub max_clusters: usize,
    /// The smallest i attaining the minimum (the paper's iValue), 1..=p.
    pub i_value: usize,
    /// The attribute whose cumulative frequency cf_{p−iValue} is the largest,
    /// i.e. limits maxClusters; `None` when iValue = p (the bound is ⌊n/p⌋).
    pub limiting: Option<String>,
    /// Per attribute: name, distinct values (or protected subtrees), and its
    /// own maxClusters (Definition 13's "harder to make sensitive" order).
    pub per_attribute: Vec<(String, usize, usize)>,
}

impl PkBound {
    /// Whether Condition 1 holds (and so maxClusters ≥ 1).
    pub fn feasible(&self) -> bool {
        self.max_clusters > 0
    }

    /// One line for people: the bound, what limits it, and that it is an
    /// upper bound.
    pub fn describe(&self) -> String {
        let by = match &self.limiting {
            Some(a) => format!(
                "i = {}: ⌊(n − cf_{}) / {}⌋, cf_{} set by '{a}'",
                self.i_value,
                self.p as usize - self.i_value,
                self.i_value,
                self.p as usize - self.i_value
            ),
            None => format!("i = p: ⌊n / p⌋ = ⌊{} / {}⌋", self.n, self.p),
        };
        format!(
            "maxClusters = {} for p = {} (Condition 2, {by}); an upper bound — the data may allow fewer p-sensitive clusters",
            self.max_clusters, self.p
        )
    }
}

/// maxClusters of Condition 2 over the views.
pub fn bound_of(views: &[SensitiveView], n: usize, p: u32) -> PkBound {
    let p_us = p as usize;
    let desc: Vec<Vec<(u32, usize)>> = views.iter().map(SensitiveView::descending).collect();
    // cf^j_i for i in 0..=p (saturating at n past the last value).
    let cum = |d: &[(u32, usize)], i: usize| -> usize { d.iter().take(i).map(|x| x.1).sum() };
    let over = |which: &[usize], n: usize| -> (usize, usize, Option<usize>) {
        let mut best = (usize::MAX, 0, None);
        for i in 1..=p_us {
            let (cf, arg) = which.iter().map(|&j| (cum(&desc[j], p_us - i), j)).fold(
                (0, None),
                |acc, (cf, j)| {
                    if acc.1.is_none() || cf > acc.0 {
                        (cf, Some(j))
                    } else {
                        acc
                    }
                },
            );
            let m = (n - cf.min(n)) / i;
            if m < best.0 {
                best = (m, i, if i == p_us { None } else { arg });
            }
            // Nothing is below 0: a p beyond an attribute's distinct
            // values (Condition 1) ends here, not after p rounds (p =
            // 4,294,967,295 took 22 s to refuse).
            if best.0 == 0 {
                break;
            }
        }
        best
    };
    let all: Vec<usize> = (0..views.len()).collect();
    let (max_clusters, i_value, limiting) = if p == 0 { (n, 1, None) } else { over(&all, n) };
    let per_attribute = views
        .iter()
        .enumerate()
        .map(|(j, v)| {
            let m = if p == 0 { n } else { over(&[j], n).0 };
            (v.name.clone(), desc[j].len(), m)
        })
        .collect();
    PkBound {
        p,
        n,
        max_clusters,
        i_value,
        limiting: limiting.map(|j| views[j].name.clone()),
        per_attribute,
    }
}

/// maxClusters for the TUI's p control and the CLI: the views of the
/// request's sensitive attributes (extended where `options` says) and
/// Condition 2's bound.
pub fn max_clusters(ds: &Dataset, sensitive: &[usize], options: &PkOptions) -> Result<PkBound> {
    let v = views(ds, sensitive, options)?;
    Ok(bound_of(&v, ds.n_rows(), options.p))
}

/// Refuse a request Conditions 1–2 rule out, with maxClusters and the
/// attribute to blame.
pub fn check(bound: &PkBound, k: u32) -> Result<()> {
    if bound.p == 0 {
        return Err(Error::invalid(Parameter::P, "p must be at least 1"));
    }
    if !bound.feasible() {
        let (name, distinct, _) = bound
            .per_attribute
            .iter()
            .min_by_key(|a| a.1)
            .cloned()
            .unwrap_or_default();
        let fewest = bound.per_attribute.iter().map(|a| a.1).min().unwrap_or(0);
        return Err(Error::invalid(Parameter::P, format!(
            "{p}-sensitive {k}-anonymity is impossible: '{name}' has only {distinct} distinct values (Condition 1 needs at least p = {p}), so maxClusters = 0 (Condition 2); lower p to at most {fewest}",
            p = bound.p
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hierarchy::{Hierarchy, HierarchySet};

    /// The paper's Fig. 1: three sensitive attributes with two values each.
    fn fig1() -> Dataset {
        Dataset::from_rows(
            &["q", "A", "B", "C"],
            &[
                vec!["1", "1", "a", "α"],
                vec!["2", "1", "b", "β"],
                vec!["3", "2", "a", "β"],
                vec!["4", "2", "b", "α"],
            ],
        )
        .unwrap()
    }

    #[test]
    fn fig1_max_clusters_is_two() {
        let ds = fig1();
        let o = PkOptions {
            p: 2,
            ..Default::default()
        };
        let b = max_clusters(&ds, &[1, 2, 3], &o).unwrap();
        assert_eq!(b.max_clusters, 2);
        assert_eq!(b.i_value, 1);
        assert_eq!(b.limiting.as_deref(), Some("A"));
        assert!(b.describe().contains("maxClusters = 2"), "{}", b.describe());
        assert!(b.describe().contains("upper bound"));
        check(&b, 2).unwrap();
    }

    #[test]
    fn a_huge_p_is_refused_at_once() {
        let ds = fig1();
        let o = PkOptions {
            p: u32::MAX,
            ..Default::default()
        };
        let b = max_clusters(&ds, &[1, 2, 3], &o).unwrap();
        assert_eq!(b.max_clusters, 0);
        let e = check(&b, 2).unwrap_err().to_string();
        assert!(
            e.contains("only 2 distinct values") && e.contains("lower p to at most 2"),
            "{e}"
        );
    }

    #[test]
    fn condition_1_gives_max_clusters_zero_and_names_the_attribute() {
        let ds = fig1();
        let o = PkOptions {
            p: 3,
            ..Default::default()
        };
        let b = max_clusters(&ds, &[1, 2, 3], &o).unwrap();
        assert_eq!(b.max_clusters, 0);
        let e = check(&b, 2).unwrap_err().to_string();
        assert!(e.contains("'A' has only 2 distinct values"), "{e}");
        assert!(e.contains("maxClusters = 0"), "{e}");
        assert!(e.contains("at most 2"), "{e}");
    }

    #[test]
    fn max_clusters_by_hand() {
        // s: x×5, y×3, z×2 (n = 10). p = 2: i=1: 10−5 = 5; i=2: 10/2 = 5.
        // p = 3: i=1: 10−8 = 2; i=2: (10−5)/2 = 2; i=3: 3 → 2, iValue 1.
        let rows: Vec<Vec<&str>> = ["x", "x", "x", "x", "x", "y", "y", "y", "z", "z"]
            .iter()
            .enumerate()
            .map(|(i, s)| vec![["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"][i], *s])
            .collect();
        let ds = Dataset::from_rows(&["q", "s"], &rows).unwrap();
        let b2 = max_clusters(
            &ds,
            &[1],
            &PkOptions {
                p: 2,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!((b2.max_clusters, b2.i_value), (5, 1));
        let b3 = max_clusters(
            &ds,
            &[1],
            &PkOptions {
                p: 3,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!((b3.max_clusters, b3.i_value), (2, 1));
        assert_eq!(b3.per_attribute, vec![("s".to_string(), 3, 2)]);
    }

    #[test]
    fn protected_subtrees_map_values_to_strong_ancestors() {
        let ds = Dataset::from_rows(
            &["q", "ill"],
            &[
                vec!["1", "colon"],
                vec!["2", "breast"],
                vec!["3", "flu"],
                vec!["4", "cold"],
            ],
        )
        .unwrap();
        let h = Hierarchy::from_rows(
            "ill",
            &[
                vec!["colon", "cancer", "*"],
                vec!["breast", "cancer", "*"],
                vec!["flu", "infection", "*"],
                vec!["cold", "infection", "*"],
            ],
        )
        .unwrap();
        let mut set = HierarchySet::new();
        set.insert(h);
        let o = PkOptions {
            p: 2,
            sa_hierarchies: set,
            protected: vec!["cancer".into()],
        };
        let v = views(&ds, &[1], &o).unwrap();
        // colon and breast share the cancer subtree; flu and cold are their own.
        assert_eq!(v[0].ids[0], v[0].ids[1]);
        assert_ne!(v[0].ids[2], v[0].ids[3]);
        assert_eq!(v[0].n_ids, 3);
        let s = v[0].subtrees.as_ref().unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].root, "cancer");
        assert_eq!(s[0].values, vec!["breast".to_string(), "colon".to_string()]);
        let bad = PkOptions {
            protected: vec!["tumour".into()],
            ..o
        };
        let e = views(&ds, &[1], &bad).unwrap_err().to_string();
        assert!(e.contains("'tumour'"), "{e}");
    }
}
