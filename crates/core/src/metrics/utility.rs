//! Information-loss measures of a Release: discernibility C_DM, normalized
//! average class size C_AVG, and NCP / GCP.
//!
//! - **C_DM** (Bayardo & Agrawal, ICDE 2005; the cross-bucket paper, Section
//!   4.2): Σ |EG|² over the published classes, plus |T| for each suppressed
//!   row (the usual penalty: a suppressed tuple is indistinguishable from the
//!   whole table). A class is a group — or, where a group publishes `Original`
//!   cells (bucketization), the rows of the group that agree on those cells,
//!   since those values tell its rows apart. Without `Original` cells this is
//!   the paper's Σ |EG|².
//! - **C_AVG** (LeFevre et al., "Mondrian", ICDE 2006): (published rows /
//!   classes) / k, with the k the release promises (its parameter or
//!   k-anonymity claim); `None` when it promises none.
//! - **NCP** of a cell (Xu et al., "Utility-based anonymization using local
//!   recoding", KDD 2006): numeric, (hi − lo)/(max − min) of the values, the
//!   range over the column's values; categorical, (values in the set − 1) /
//!   (values of the column − 1), the missing value counting as a value when
//!   the column has one. Exact and `Original` cells lose 0, suppressed cells
//!   and suppressed rows 1. A numeric cell that also stands for the missing
//!   value (a set such as {?, 30, 40}) loses the larger of its range ratio
//!   and its set ratio. A column with a single value loses nothing.
//! - **GCP** (Ghinita et al., "Fast data anonymization with low information
//!   loss", VLDB 2007): the NCP of every row and QI summed, divided by rows ×
//!   QIs, so it lies in [0, 1]; suppressed rows count 1 per QI.
//! - **LGB releases** (the LGB paper, Section 4.1): a row's cell on a
//!   semi-sensitive column where it holds a sensitive value is published as
//!   a local-bucket reference, not generalized, so it is left out of NCP and
//!   of the cells GCP and the per-attribute means divide by; C_DM is Σ
//!   |LEG|² over the local equivalence groups.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::data::{Column, Dataset};
use crate::error::Result;
use crate::release::{Cell, Guarantee, Release};
use crate::risk::check_release_fits;

/// Information loss on one quasi-identifier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttributeLoss {
    pub attribute: String,
    /// Mean NCP over the rows with a QI cell on the attribute (all rows
    /// outside LGB; suppressed rows count 1).
    pub ncp: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Utility {
    pub groups: usize,
    /// Published classes: groups split by their `Original` cells.
    pub classes: usize,
    pub published: usize,
    pub suppressed: usize,
    /// C_DM.
    pub discernibility: u64,
    /// C_AVG; `None` without a promised k or without published rows.
    pub average_class_size: Option<f64>,
    /// Σ over rows and QIs of the cell NCP (Xu et al.'s table NCP).
    pub ncp: f64,
    /// `ncp` / QI cells (rows × QIs outside LGB).
    pub gcp: f64,
    pub per_attribute: Vec<AttributeLoss>,
}

/// Sizes of the published classes: each group, split by the values of its
/// `Original` cells.
pub fn class_sizes(release: &Release, ds: &Dataset) -> Vec<usize> {
    let mut sizes = Vec::with_capacity(release.groups.len());
    for g in &release.groups {
        let original: Vec<usize> = g
            .cells
            .iter()
            .zip(&release.quasi_identifiers)
            .filter(|(c, _)| matches!(c, Cell::Original))
            .map(|(_, &col)| col)
            .collect();
        if original.is_empty() {
            sizes.push(ds.records_of(&g.rows));
            continue;
        }
        let mut split: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
        for &r in &g.rows {
            let key = original
                .iter()
                .map(|&c| ds.col(c).code(r as usize))
                .collect();
            *split.entry(key).or_default() += ds.multiplicity(r as usize) as usize;
        }
        sizes.extend(split.into_values());
    }
    sizes
}

/// C_DM = Σ |class|² + |T| · |suppressed rows|.
pub fn discernibility(release: &Release, ds: &Dataset) -> u64 {
    let classes: u64 = class_sizes(release, ds)
        .iter()
        .map(|&s| (s as u64) * (s as u64))
        .sum();
    classes + ds.records() * ds.records_of(&release.suppressed_rows) as u64
}

/// C_AVG = (published rows / classes) / k; `None` when nothing is published
/// or k is 0.
pub fn average_class_size(published: usize, classes: usize, k: u32) -> Option<f64> {
    (classes > 0 && k > 0).then(|| published as f64 / classes as f64 / f64::from(k))
}

/// The k a release promises: its parameter, else its k-anonymity claim.
pub fn promised_k(release: &Release) -> Option<u32> {
    release.params.k.or_else(|| {
        release.claims.iter().find_map(|c| match c {
            Guarantee::KAnonymity { k } => Some(*k),
            _ => None,
        })
    })
}

/// Normalized certainty penalty of one published cell of `col`.
pub fn cell_ncp(cell: &Cell, col: &Column) -> f64 {
    Scale::new(col).ncp(cell)
}

/// What NCP needs of a column, read once (counting missing cells scans it).
struct Scale<'a> {
    col: &'a Column,
    missing: u32,
    /// Values of the column, the missing value included when present.
    domain: usize,
}

impl<'a> Scale<'a> {
    fn new(col: &'a Column) -> Self {
        Scale {
            col,
            missing: col.missing_code(),
            domain: col.cardinality() + usize::from(col.missing_count() > 0),
        }
    }

    fn set_ratio(&self, size: usize) -> f64 {
        if self.domain <= 1 {
            0.0
        } else {
            (size.min(self.domain).saturating_sub(1)) as f64 / (self.domain - 1) as f64
        }
    }

    fn ncp(&self, cell: &Cell) -> f64 {
        let (col, missing) = (self.col, self.missing);
        match cell {
            Cell::Original | Cell::Value { .. } => 0.0,
            Cell::Suppressed => 1.0,
            Cell::Interval { lo, hi } if col.is_numeric() => {
                let top = (*hi).min(missing.saturating_sub(1));
                let span = numeric_span(col, *lo, top);
                if *hi >= missing {
                    span.max(self.set_ratio((missing.saturating_sub(*lo) + 1) as usize))
                } else {
                    span
                }
            }
            Cell::Set { codes, .. } if col.is_numeric() => {
                let present: Vec<u32> = codes.iter().copied().filter(|&c| c < missing).collect();
                let span = match (present.first(), present.last()) {
                    (Some(&a), Some(&b)) => numeric_span(col, a, b),
                    _ => 0.0,
                };
                if present.len() < codes.len() {
                    span.max(self.set_ratio(codes.len()))
                } else {
                    span
                }
            }
            Cell::Interval { lo, hi } => self.set_ratio((hi.saturating_sub(*lo) + 1) as usize),
            Cell::Set { codes, .. } => self.set_ratio(codes.len()),
        }
    }
}

/// (value(b) − value(a)) / (max − min) over a numeric column's values.
fn numeric_span(col: &Column, a: u32, b: u32) -> f64 {
    let numbers = col.numbers();
    let (Some(&min), Some(&max)) = (numbers.first(), numbers.last()) else {
        return 0.0;
    };
    if max <= min || b <= a {
        return 0.0;
    }
    match (col.number(a), col.number(b)) {
        (Some(x), Some(y)) => ((y - x) / (max - min)).clamp(0.0, 1.0),
        _ => 0.0,
    }
}

/// Every utility figure of a release. Refuses a release that does not fit
/// the dataset.
pub fn utility(release: &Release, ds: &Dataset) -> Result<Utility> {
    check_release_fits(release, ds)?;
    // Records: a grouped table's rows stand for several each.
    let n = ds.records();
    let qi = &release.quasi_identifiers;
    let d = qi.len();
    let suppressed = ds.records_of(&release.suppressed_rows);
    let published: usize = release.groups.iter().map(|g| ds.records_of(&g.rows)).sum();
    let scales: Vec<Scale> = qi.iter().map(|&c| Scale::new(ds.col(c))).collect();
    let mut per_attr = vec![suppressed as f64; d];
    // QI cells per attribute: in an LGB release a group's cell on a column
    // its rows hold sensitive values of is a bucket reference, neither
    // generalized nor counted (the LGB paper's NCP sums over QI values).
    let mut cells = vec![suppressed; d];
    // Outside LGB every group carries every column: no per-group list to
    // build (30,162 of them for a k = 1 release).
    let carried = release.is_local().then(|| release.carries_qi());
    for (i, g) in release.groups.iter().enumerate() {
        let carried = carried.as_ref().map(|c| c[i].as_slice());
        let records = ds.records_of(&g.rows);
        for (a, cell) in g.cells.iter().enumerate() {
            if carried.is_none_or(|c| c.get(a).copied().unwrap_or(true)) {
                per_attr[a] += scales[a].ncp(cell) * records as f64;
                cells[a] += records;
            }
        }
    }
    let ncp: f64 = per_attr.iter().sum();
    let qi_cells: usize = cells.iter().sum();
    let sizes = class_sizes(release, ds);
    let classes = sizes.len();
    let discernibility =
        sizes.iter().map(|&s| (s as u64) * (s as u64)).sum::<u64>() + n * suppressed as u64;
    Ok(Utility {
        groups: release.groups.len(),
        classes,
        published,
        suppressed,
        discernibility,
        average_class_size: promised_k(release)
            .and_then(|k| average_class_size(published, classes, k)),
        ncp,
        gcp: if qi_cells == 0 {
            0.0
        } else {
            ncp / qi_cells as f64
        },
        per_attribute: qi
            .iter()
            .zip(&per_attr)
            .zip(&cells)
            .map(|((&c, &loss), &cells)| AttributeLoss {
                attribute: ds.col(c).name().to_string(),
                ncp: if cells == 0 { 0.0 } else { loss / cells as f64 },
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::{Bucket, EquivalenceGroup};

    fn ds() -> Dataset {
        Dataset::from_rows(
            &["age", "sex", "city"],
            &[
                vec!["20", "F", "a"],
                vec!["30", "M", "b"],
                vec!["40", "F", "c"],
                vec!["60", "M", ""],
                vec!["20", "F", "a"],
                vec!["30", "M", "b"],
                vec!["40", "F", "c"],
                vec!["60", "M", "d"],
            ],
        )
        .unwrap()
    }

    #[test]
    fn discernibility_of_the_papers_tables() {
        let d = ds();
        let mut r = Release::new("hand", &d, vec![0], vec![]);
        // Fig. 2a's shape: groups of 3, 2, 3 → 9 + 4 + 9 = 22.
        r.push_covering_group(&d, vec![0, 1, 2]);
        r.push_covering_group(&d, vec![3, 4]);
        r.push_covering_group(&d, vec![5, 6, 7]);
        assert_eq!(discernibility(&r, &d), 22);
        // Fig. 4's shape: four groups of 2 → 16.
        r.groups.clear();
        for p in 0..4 {
            r.push_covering_group(&d, vec![2 * p, 2 * p + 1]);
        }
        assert_eq!(discernibility(&r, &d), 16);
        // Two groups of 3 and two suppressed rows of 8: 9 + 9 + 8·2 = 34.
        r.groups.clear();
        r.push_covering_group(&d, vec![0, 1, 2]);
        r.push_covering_group(&d, vec![3, 4, 5]);
        r.suppressed_rows = vec![6, 7];
        assert_eq!(discernibility(&r, &d), 34);
        r.params.k = Some(3);
        let u = utility(&r, &d).unwrap();
        assert_eq!(u.discernibility, 34);
        assert_eq!(u.average_class_size, Some(1.0));
    }

    #[test]
    fn original_cells_split_a_group_into_classes() {
        let d = ds();
        let mut r = Release::new("hand", &d, vec![0, 1], vec![2]);
        // One group keeping ages and sexes: classes {0,4} (20,F), {1,5},
        // {2,6}, {3,7} → 4 · 2² = 16, not 8² = 64.
        r.groups = vec![EquivalenceGroup {
            rows: (0..8).collect(),
            cells: vec![Cell::Original, Cell::Original],
        }];
        r.buckets = vec![Bucket {
            rows: (0..8).collect(),
        }];
        assert_eq!(discernibility(&r, &d), 16);
        let u = utility(&r, &d).unwrap();
        assert_eq!(u.classes, 4);
        assert_eq!(u.gcp, 0.0);
        assert_eq!(u.average_class_size, None);
    }

    #[test]
    fn ncp_by_hand() {
        let d = ds();
        let age = d.col(0);
        // Ages 20..60: [30-40] spans 10/40.
        let c = Cell::Interval { lo: 1, hi: 2 };
        assert_eq!(cell_ncp(&c, age), 0.25);
        assert_eq!(cell_ncp(&Cell::Suppressed, age), 1.0);
        assert_eq!(cell_ncp(&Cell::Value { code: 1 }, age), 0.0);
        // city: a, b, c, d and missing → 5 values; {a, b, c} → 2/4.
        let city = d.col(2);
        let set = Cell::Set {
            codes: vec![0, 1, 2],
            label: None,
        };
        assert_eq!(cell_ncp(&set, city), 0.5);
        // A 2-value column: {F, M} loses everything.
        let both = Cell::Set {
            codes: vec![0, 1],
            label: None,
        };
        assert_eq!(cell_ncp(&both, d.col(1)), 1.0);

        // GCP: group {0, 4} is (20, F) exactly and loses nothing.
        let mut r = Release::new("hand", &d, vec![0, 1], vec![]);
        r.push_covering_group(&d, vec![0, 4]);
        r.push_covering_group(&d, vec![1, 2, 3, 5, 6, 7]);
        let u = utility(&r, &d).unwrap();
        // Second group: age [30-60] → 30/40 = 0.75, sex {F, M} → * → 1.
        // NCP = 6·0.75 + 6·1 = 10.5; GCP = 10.5 / (8·2).
        assert!((u.ncp - 10.5).abs() < 1e-12);
        assert!((u.gcp - 10.5 / 16.0).abs() < 1e-12);
        assert!((u.per_attribute[0].ncp - 4.5 / 8.0).abs() < 1e-12);
    }
}
