//! The linkage attack on a Release (the cross-bucket paper, Section 4.1):
//! the attacker holds every individual's original quasi-identifier values,
//! and Pr(re-id of t) = 1 / (published tuples matching t), the published
//! tuples that match as `matching` defines them. It is the Release
//! counterpart of the key-count simulator in `simulator` (which compares
//! published keys for equality); its figures are one
//! `distribution::Distribution`, binned by its one rule.

use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::Result;
use crate::progress::Progress;
use crate::release::{Guarantee, Release};

use super::distribution::{CdfPoint, HistogramBin, ProbabilityRuns, ProbabilitySummary};
use super::matching::Matching;

/// Re-identification risk of every source row under the linkage attack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Linkage {
    /// Per source row: published tuples matching its QI values (0 for a
    /// suppressed row).
    pub matches: Vec<u32>,
    /// Per source row: Pr(re-id) = 1/matches when the row is among them, 0
    /// for suppressed rows.
    pub probabilities: Vec<f64>,
    pub summary: ProbabilitySummary,
    pub histogram: Vec<HistogramBin>,
    pub cdf: Vec<CdfPoint>,
}

/// The linkage attack: Pr(re-id of t) = 1 / (published tuples whose cells
/// contain t's original QI values). The summary's threshold is the 1/k the
/// release promises (its `k` parameter or k-anonymity claim), or ½ when it
/// promises none.
pub fn linkage_attack(release: &Release, ds: &Dataset, progress: &Progress) -> Result<Linkage> {
    let matching = Matching::new(release, ds, progress)?;
    Ok(linkage_from(&matching, release, ds))
}

/// The linkage attack from an already built `Matching` (shared with
/// breach probability).
pub fn linkage_from(matching: &Matching, release: &Release, ds: &Dataset) -> Linkage {
    let n = release.source_rows;
    let mut matches = vec![0u32; n];
    let mut probabilities = vec![0.0f64; n];
    for t in 0..matching.n_targets() {
        let units = matching.matched_units(t);
        let total = matching.matched_tuples(t);
        for &r in matching.target_rows(t) {
            let r = r as usize;
            matches[r] = total.min(u32::MAX as u64) as u32;
            let own = matching.unit_of_row(r);
            if total > 0 && own.is_some_and(|u| units.contains(&(u as u32))) {
                probabilities[r] = 1.0 / total as f64;
            }
        }
    }
    let threshold = promised_k(release).map_or(0.5, |k| 1.0 / f64::from(k.max(1)));
    // Per record: a grouped table's row counts for the records it stands for.
    let runs = ProbabilityRuns::of_probabilities(&probabilities, ds.multiplicities());
    let (histogram, cdf) = runs.shape();
    let published = release.groups.iter().map(|g| ds.records_of(&g.rows)).sum();
    Linkage {
        summary: ProbabilitySummary::of_runs(&runs, published, threshold),
        histogram,
        cdf,
        matches,
        probabilities,
    }
}

fn promised_k(release: &Release) -> Option<u32> {
    release.params.k.or_else(|| {
        release.claims.iter().find_map(|c| match c {
            Guarantee::KAnonymity { k } => Some(*k),
            _ => None,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::{Cell, EquivalenceGroup};

    fn ds() -> Dataset {
        Dataset::from_rows(
            &["age", "sex"],
            &[
                vec!["20", "F"],
                vec!["25", "F"],
                vec!["30", "M"],
                vec!["30", "M"],
                vec!["40", ""],
            ],
        )
        .unwrap()
    }

    fn release(d: &Dataset, groups: Vec<(Vec<u32>, Vec<Cell>)>) -> Release {
        let mut r = Release::new("test", d, vec![0, 1], vec![]);
        r.groups = groups
            .into_iter()
            .map(|(rows, cells)| EquivalenceGroup { rows, cells })
            .collect();
        r
    }

    #[test]
    fn overlapping_cells_widen_the_crowd() {
        let d = ds();
        let age = |v: &str| d.col(0).code_of(v).unwrap();
        // Group 0: [20-30] × F holds rows 0, 1; group 1: [25-40] × * holds 2, 3, 4.
        let r = release(
            &d,
            vec![
                (
                    vec![0, 1],
                    vec![
                        Cell::Interval {
                            lo: age("20"),
                            hi: age("30"),
                        },
                        Cell::Value { code: 0 },
                    ],
                ),
                (
                    vec![2, 3, 4],
                    vec![
                        Cell::Interval {
                            lo: age("25"),
                            hi: age("40"),
                        },
                        Cell::Suppressed,
                    ],
                ),
            ],
        );
        let l = linkage_attack(&r, &d, &Progress::new()).unwrap();
        // Row 1 (25, F) matches both groups: 5 tuples; row 0 (20, F) only
        // group 0; rows 2–4 only group 1 (M and ? are not F).
        assert_eq!(l.matches, vec![2, 5, 3, 3, 3]);
        assert_eq!(l.probabilities[1], 0.2);
        assert_eq!(l.summary.max, 0.5);
    }

    #[test]
    fn original_cells_match_equal_values_and_suppressed_rows_nothing() {
        let d = ds();
        let mut r = release(
            &d,
            vec![(vec![0, 1, 2, 3], vec![Cell::Original, Cell::Suppressed])],
        );
        r.suppressed_rows = vec![4];
        let l = linkage_attack(&r, &d, &Progress::new()).unwrap();
        assert_eq!(l.matches, vec![1, 1, 2, 2, 0]);
        assert_eq!(l.probabilities, vec![1.0, 1.0, 0.5, 0.5, 0.0]);
        assert_eq!(l.summary.published, 4);
    }

    #[test]
    fn an_untruthful_group_does_not_find_its_own_rows() {
        let d = ds();
        // Row 4 is 40 but published as [20-30]: the attacker finds nobody.
        let r = release(
            &d,
            vec![(
                vec![0, 1, 2, 3, 4],
                vec![Cell::Interval { lo: 0, hi: 2 }, Cell::Suppressed],
            )],
        );
        let l = linkage_attack(&r, &d, &Progress::new()).unwrap();
        assert_eq!(l.matches[4], 0);
        assert_eq!(l.probabilities[4], 0.0);
        assert_eq!(l.probabilities[0], 0.2);
    }

    #[test]
    fn misfit_release_is_refused() {
        let d = ds();
        let r = release(
            &d,
            vec![(vec![0, 9], vec![Cell::Suppressed, Cell::Suppressed])],
        );
        let e = Matching::new(&r, &d, &Progress::new())
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 9"), "{e}");
    }

    #[test]
    fn chunked_bitsets_agree_with_one_chunk() {
        // 200 rows in single-row groups, generalized on age only: with a
        // one-word budget the groups are matched 64 at a time.
        let rows: Vec<Vec<String>> = (0..200)
            .map(|i| vec![(i % 17).to_string(), ["F", "M"][i % 2].to_string()])
            .collect();
        let rows: Vec<Vec<&str>> = rows
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        let d = Dataset::from_rows(&["age", "sex"], &rows).unwrap();
        let mut r = Release::new("test", &d, vec![0, 1], vec![]);
        for row in 0..200u32 {
            let a = d.col(0).code(row as usize);
            r.groups.push(EquivalenceGroup {
                rows: vec![row],
                cells: vec![
                    Cell::Interval {
                        lo: a.saturating_sub(1),
                        hi: a + 1,
                    },
                    Cell::Original,
                ],
            });
        }
        let one = Matching::new(&r, &d, &Progress::new()).unwrap();
        let many = Matching::with_budget(&r, &d, &Progress::new(), 1).unwrap();
        assert_eq!(one.n_targets(), many.n_targets());
        for t in 0..one.n_targets() {
            let mut a = one.matched_units(t).to_vec();
            let mut b = many.matched_units(t).to_vec();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b);
            assert!(one.matched_tuples(t) >= 1);
        }
    }

    #[test]
    fn no_quasi_identifier_matches_everyone() {
        let d = ds();
        let mut r = Release::new("test", &d, vec![], vec![]);
        for row in 0..5 {
            r.groups.push(EquivalenceGroup {
                rows: vec![row],
                cells: vec![],
            });
        }
        let m = Matching::new(&r, &d, &Progress::new()).unwrap();
        assert_eq!(m.n_targets(), 1);
        assert_eq!(m.matched_tuples(0), 5);
    }

    /// Random small releases mixing every kind of cell (single codes,
    /// intervals, sets, suppressed and `Original` cells, some groups all
    /// `Original`): the index matches exactly the published rows whose
    /// cells contain the target's values, and lists its units with those of
    /// all-`Original` groups first, then in unit order (the order consumers
    /// sum in).
    mod matches_brute_force {
        use super::*;
        use proptest::prelude::*;

        fn cell(kind: u8, a: u32, b: u32, codes: &[u32]) -> Cell {
            let (lo, hi) = (a.min(b), a.max(b));
            match kind {
                0 => Cell::Value { code: a },
                1 => Cell::Interval { lo, hi },
                2 => Cell::Interval { lo: a, hi: a },
                3 => {
                    let mut c = vec![a, b];
                    c.sort_unstable();
                    c.dedup();
                    Cell::Set {
                        codes: c,
                        label: None,
                    }
                }
                4 => Cell::Suppressed,
                _ => Cell::Value {
                    code: codes.first().copied().unwrap_or(0),
                },
            }
        }

        proptest! {
            #[test]
            fn matching_is_the_definition(
                rows in proptest::collection::vec((0u32..3, 0u32..4, 0u32..2), 2..40),
                sizes in proptest::collection::vec(1usize..4, 40),
                kinds in proptest::collection::vec((0u8..6, 0u32..4, 0u32..4, 0u8..4), 160),
            ) {
                let text: Vec<Vec<String>> = rows
                    .iter()
                    .map(|&(a, b, c)| vec![a.to_string(), b.to_string(), c.to_string()])
                    .collect();
                let text: Vec<Vec<&str>> =
                    text.iter().map(|r| r.iter().map(String::as_str).collect()).collect();
                let d = Dataset::from_rows(&["a", "b", "c"], &text).unwrap();
                let mut r = Release::new("test", &d, vec![0, 1, 2], vec![]);
                let n = rows.len() as u32;
                let (mut next, mut g) = (0u32, 0usize);
                while next < n {
                    let members: Vec<u32> = (next..(next + sizes[g] as u32).min(n)).collect();
                    next += members.len() as u32;
                    let all_original = kinds[4 * g].3 == 0;
                    let cells = (0..3)
                        .map(|a| {
                            let (kind, x, y, original) = kinds[4 * g + a];
                            let own: Vec<u32> =
                                members.iter().map(|&m| d.col(a).code(m as usize)).collect();
                            if all_original || original == 1 {
                                Cell::Original
                            } else {
                                cell(kind, x, y, &own)
                            }
                        })
                        .collect();
                    r.groups.push(EquivalenceGroup { rows: members, cells });
                    g += 1;
                }
                let m = Matching::new(&r, &d, &Progress::new()).unwrap();
                let group_of = |row: u32| r.groups.iter().position(|g| g.rows.contains(&row)).unwrap();
                for t in 0..m.n_targets() {
                    let target = m.target_rows(t)[0] as usize;
                    let mut expected: Vec<u32> = (0..n)
                        .filter(|&p| {
                            let cells = &r.groups[group_of(p)].cells;
                            (0..3).all(|a| {
                                let col = d.col(a);
                                cells[a].contains(col.code(p as usize), col.code(target))
                            })
                        })
                        .collect();
                    let mut found: Vec<u32> = m
                        .matched_units(t)
                        .iter()
                        .flat_map(|&u| m.unit_rows(u as usize).to_vec())
                        .collect();
                    expected.sort_unstable();
                    found.sort_unstable();
                    prop_assert_eq!(&found, &expected);
                    prop_assert_eq!(m.matched_tuples(t), expected.len() as u64);
                    let exact = |u: u32| {
                        r.groups[m.unit_group(u as usize)]
                            .cells
                            .iter()
                            .all(|c| matches!(c, Cell::Original))
                    };
                    let units = m.matched_units(t);
                    let split = units.iter().take_while(|&&u| exact(u)).count();
                    prop_assert!(units[split..].iter().all(|&u| !exact(u)));
                    prop_assert!(units[split..].windows(2).all(|w| w[0] < w[1]));
                }
            }
        }
    }
}
