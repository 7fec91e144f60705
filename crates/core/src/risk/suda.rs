//! Special uniques: minimal sample uniques (MSUs), the SUDA score and
//! DIS-SUDA, as sdcMicro's `suda2` reports them.
//!
//! An MSU of a record is a set of its attribute values that no other record
//! shares (a sample unique) while no proper subset of it is unique (Elliot,
//! Manning and Ford 2002; Manning, Haglin and Keane 2008, "A recursive
//! search algorithm for statistical disclosure assessment", whose SUDA2
//! finds them). Uniqueness only grows with the attribute set, so a unique
//! set is minimal exactly when none of its subsets one attribute smaller is
//! unique — the property SUDA2's search is built on.
//!
//! Choice of search: SUDA2 recurses over attribute values to scale to
//! dozens of attributes. With the few quasi-identifiers a release has (the
//! attribute risks stop at 12) and a maximum MSU size m (default 4), the
//! lattice of attribute combinations of at most m attributes is small
//! (162 for 8 attributes), so anonlab walks it once ([`super::combinations`]),
//! shared with the attribute risks: the records unique on a combination S
//! come from refining its parent's classes, and S is an MSU of record r when
//! r is unique on S and on no S ∖ {a}. The MSUs found are the same (the
//! property test compares both with a brute-force search).
//!
//! Scores, as sdcMicro computes them with its default `original_scores`
//! (Elliot et al., "SUDA: a program for detecting special uniques"):
//! - an MSU of size k adds (M − k)! to its record's SUDA score, M being the
//!   number of attributes; MSUs larger than m are not searched, so they add
//!   nothing (sdcMicro searches every size);
//! - DIS-SUDA spreads the file-level DIS probability over the records with
//!   a score: with U sample uniques and P records in pairs on all M
//!   attributes and sampling fraction π, Dis = Uπ / (Uπ + P(1 − π)); with
//!   q = 1 + (8 − M)/20 and A = Σ_r s_r^{−q} over scored records, a scored
//!   record gets 1 / (1 + (U/Dis − U) / (s_r^q A)) and the others 0. π is
//!   the population model's sampling fraction, or sdcMicro's default 0.01
//!   when no population is given;
//! - an attribute's contribution is the share of all score carried by MSUs
//!   that contain it (each MSU counts for every attribute in it, so the
//!   contributions add up to more than 100 %).

use serde::{Deserialize, Serialize};

use super::combinations::Walk;
use crate::stats::SizeCounts;

/// sdcMicro's `DisFraction` default, used when no population is given.
pub const DEFAULT_DIS_FRACTION: f64 = 0.01;

/// Default maximum MSU size.
pub const DEFAULT_MAX_MSU_SIZE: usize = 4;

/// Per-record results of the search.
#[derive(Debug, Clone, PartialEq)]
pub struct Suda {
    pub max_msu_size: usize,
    /// Number of attributes M.
    pub attributes: usize,
    /// MSUs of record r: `masks[offsets[r]..offsets[r + 1]]`, each a bit
    /// mask over the attributes, smallest first.
    offsets: Vec<u32>,
    masks: Vec<u32>,
    pub score: Vec<f64>,
    pub dis: Vec<f64>,
    /// Total MSUs of size 1, 2, ..., m.
    pub msu_counts_by_size: Vec<u64>,
    pub records_with_msu: u64,
    /// Per attribute, in percent (module doc).
    pub contribution: Vec<f64>,
    pub dis_fraction: f64,
    /// Records of the table (its rows, or the records a grouped table's
    /// rows stand for): what the DIS-SUDA mean is over.
    pub records: u64,
}

impl Suda {
    /// The MSUs of a record, as attribute bit masks.
    pub fn msus(&self, row: usize) -> &[u32] {
        &self.masks[self.offsets[row] as usize..self.offsets[row + 1] as usize]
    }
}

/// Mean and highest DIS-SUDA.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DisSummary {
    pub mean: f64,
    pub max: f64,
}

/// One attribute's share of the SUDA scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttributeContribution {
    pub attribute: String,
    /// Percent of all SUDA score carried by MSUs containing the attribute.
    pub contribution: f64,
}

/// The special-uniques figures of `anonlab assess --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SudaReport {
    pub max_msu_size: usize,
    pub records_with_msu: u64,
    pub msu_counts_by_size: Vec<u64>,
    pub dis_suda: DisSummary,
    /// The sampling fraction DIS-SUDA used.
    pub dis_fraction: f64,
    pub attribute_contributions: Vec<AttributeContribution>,
}

impl Suda {
    pub fn report(&self, names: &[String]) -> SudaReport {
        // Over the records (a grouped table's rows of several records
        // have no MSU: their DIS is 0).
        let n = self.records;
        let mean = if n == 0 {
            0.0
        } else {
            self.dis.iter().sum::<f64>() / n as f64
        };
        SudaReport {
            max_msu_size: self.max_msu_size,
            records_with_msu: self.records_with_msu,
            msu_counts_by_size: self.msu_counts_by_size.clone(),
            dis_suda: DisSummary {
                mean,
                max: self.dis.iter().copied().fold(0.0, f64::max),
            },
            dis_fraction: self.dis_fraction,
            attribute_contributions: names
                .iter()
                .zip(&self.contribution)
                .map(|(a, &c)| AttributeContribution {
                    attribute: a.clone(),
                    contribution: c,
                })
                .collect(),
        }
    }
}

/// (M − k)! for k = 1..=M, index k − 1.
fn weights(m: usize) -> Vec<f64> {
    (1..=m)
        .map(|k| (1..=(m - k)).map(|i| i as f64).product())
        .collect()
}

/// MSUs, scores and DIS-SUDA from a walk that kept the unique rows of every
/// combination of at most `max_msu_size` of `attributes` attributes.
/// `records` is the rows the walk's bitsets span, `population` the records
/// they stand for (the same unless the table is grouped; a row of several
/// records is never unique). `full_key` is the class-size table on all
/// attributes; `dis_fraction` the sampling fraction π.
pub fn special_uniques(
    walk: &Walk,
    attributes: usize,
    records: usize,
    population: u64,
    max_msu_size: usize,
    full_key: &SizeCounts,
    dis_fraction: f64,
) -> Suda {
    let m = max_msu_size.min(attributes);
    let w = weights(attributes);
    let empty = fixedbitset::FixedBitSet::with_capacity(records);
    // (row, mask) of every MSU, masks by size then value so each record's
    // list comes out smallest first.
    let mut masks: Vec<u32> = walk
        .uniques
        .keys()
        .copied()
        .filter(|&mask| (mask.count_ones() as usize) <= m)
        .collect();
    masks.sort_unstable_by_key(|&mask| (mask.count_ones(), mask));
    let mut found: Vec<(u32, u32)> = Vec::new();
    let mut msu_counts_by_size = vec![0u64; m];
    for &mask in &masks {
        let mut minimal = walk.uniques[&mask].clone();
        let mut bits = mask;
        while bits != 0 {
            let a = bits.trailing_zeros();
            bits &= bits - 1;
            let sub = mask & !(1 << a);
            minimal.difference_with(walk.uniques.get(&sub).unwrap_or(&empty));
        }
        for r in minimal.ones() {
            found.push((r as u32, mask));
        }
        msu_counts_by_size[mask.count_ones() as usize - 1] += minimal.count_ones(..) as u64;
    }
    // Group by record (stable: keeps the size order).
    let mut offsets = vec![0u32; records + 1];
    for &(r, _) in &found {
        offsets[r as usize + 1] += 1;
    }
    for i in 0..records {
        offsets[i + 1] += offsets[i];
    }
    let mut fill = offsets.clone();
    let mut by_row = vec![0u32; found.len()];
    for &(r, mask) in &found {
        by_row[fill[r as usize] as usize] = mask;
        fill[r as usize] += 1;
    }
    let mut score = vec![0.0f64; records];
    let mut contribution = vec![0.0f64; attributes];
    let mut records_with_msu = 0u64;
    for r in 0..records {
        let list = &by_row[offsets[r] as usize..offsets[r + 1] as usize];
        if !list.is_empty() {
            records_with_msu += 1;
        }
        for &mask in list {
            let wk = w[mask.count_ones() as usize - 1];
            score[r] += wk;
            let mut bits = mask;
            while bits != 0 {
                contribution[bits.trailing_zeros() as usize] += wk;
                bits &= bits - 1;
            }
        }
    }
    let total: f64 = score.iter().sum();
    if total > 0.0 {
        for c in &mut contribution {
            *c *= 100.0 / total;
        }
    }
    let dis = dis_suda(&score, attributes, full_key, dis_fraction);
    Suda {
        max_msu_size: m,
        attributes,
        offsets,
        masks: by_row,
        score,
        dis,
        msu_counts_by_size,
        records_with_msu,
        contribution,
        dis_fraction,
        records: population,
    }
}

/// DIS-SUDA per record (module doc).
fn dis_suda(score: &[f64], attributes: usize, full_key: &SizeCounts, fraction: f64) -> Vec<f64> {
    let u = full_key.of_size(1) as f64;
    let pairs = 2.0 * full_key.of_size(2) as f64;
    let dis = u * fraction / (u * fraction + pairs * (1.0 - fraction));
    let q = 1.0 + (8.0 - attributes as f64) / 20.0;
    let adj: f64 = score
        .iter()
        .filter(|&&s| s > 0.0)
        .map(|&s| s.powf(-q))
        .sum();
    score
        .iter()
        .map(|&s| {
            if s > 0.0 && dis > 0.0 {
                1.0 / (1.0 + (u / dis - u) / (s.powf(q) * adj))
            } else {
                0.0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use crate::progress::Progress;
    use crate::risk::combinations::{walk, Codes};

    #[test]
    fn msus_of_a_hand_made_table() {
        let ds = Dataset::from_rows(
            &["a", "b", "c"],
            &[
                vec!["1", "x", "p"],
                vec!["1", "y", "p"],
                vec!["2", "x", "q"],
                vec!["2", "y", "p"],
                vec!["1", "x", "p"],
            ],
        )
        .unwrap();
        let cols: Vec<Codes> = (0..3).map(|c| Codes::of(&ds, c)).collect();
        let w = walk(&cols, ds.n_rows(), None, 3, 3, &Progress::new()).unwrap();
        let full = SizeCounts::from_sizes(&[2, 1, 1, 1]);
        let s = special_uniques(&w, 3, 5, 5, 3, &full, 0.1);
        // Row 2: c = q alone → MSU {c}; {a,b} = (2,x) also unique and
        // contains no unique single → MSU {a,b}.
        assert_eq!(s.msus(2), &[0b100, 0b011]);
        // Row 1: (1,y) unique → {a,b}; (y,p) shared with row 3; (1,p) shared.
        assert_eq!(s.msus(1), &[0b011]);
        // Row 3: (2,y) unique → {a,b}; (2,p) unique → {a,c}.
        assert_eq!(s.msus(3), &[0b011, 0b101]);
        // Rows 0 and 4 are identical: no MSU.
        assert!(s.msus(0).is_empty() && s.msus(4).is_empty());
        assert_eq!(s.msu_counts_by_size, vec![1, 4, 0]);
        assert_eq!(s.records_with_msu, 3);
        // Scores with M = 3: size 1 → 2! = 2, size 2 → 1! = 1.
        assert_eq!((s.score[2], s.score[1], s.score[3]), (3.0, 1.0, 2.0));
        // Contributions: a in 4 size-2 MSUs... a: {a,b}×3 + {a,c} = 4; total score 6.
        assert!((s.contribution[0] - 400.0 / 6.0).abs() < 1e-12);
        // DIS: U = 3, P = 2, π = 0.1: Dis = 0.3/(0.3 + 1.8) = 1/7.
        let q = 1.0 + 5.0 / 20.0;
        let adj = 3f64.powf(-q) + 1.0 + 2f64.powf(-q);
        let want = 1.0 / (1.0 + (21.0 - 3.0) / (3f64.powf(q) * adj));
        assert!((s.dis[2] - want).abs() < 1e-12);
        assert_eq!(s.dis[0], 0.0);
    }
}
