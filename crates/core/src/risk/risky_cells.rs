//! μ-ARGUS's threshold rule ("risky cells"): for every combination of up
//! to m key variables, the cells of their cross-table (value combinations
//! present in the file) whose sample frequency is at most a threshold.
//! Statistics offices apply it before a release (μ-ARGUS manual, "the
//! threshold rule"; Hundepool et al., Handbook on SDC §3.3), and sdcMicro
//! computes it as `riskyCells(..., maxDim = m, threshold = t)`
//! (R/riskyCells.R, `riskycells_upto_dimension`), which this follows:
//!
//! - the combinations of 1, 2, …, m key variables, each size in the
//!   lexicographic order of the variables (R's `combn`);
//! - a cell is risky when its frequency N satisfies N ≤ t (sdcMicro's
//!   `N <= threshold`: "below t" in the handbook's words means at most t
//!   here, so t = 1 flags the sample uniques);
//! - a missing value is a value of its own (a `data.table` group by keeps
//!   NA as one group), so anonlab's convention and sdcMicro's agree here;
//! - frequencies count records: a row of a frequency table counts as the
//!   records it stands for.
//!
//! Beside sdcMicro's count of risky cells per combination, each
//! combination reports the records in its risky cells, and the report the
//! records in at least one risky cell (those a threshold rule would touch).

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result};

/// `"risky_cells"` of `anonlab assess --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RiskyCellsReport {
    /// The key variables: the attributes the attacker knows.
    pub key_variables: Vec<String>,
    /// The largest number of key variables combined (m).
    pub max_size: usize,
    /// A cell is risky when its frequency is at most this.
    pub threshold: u64,
    /// Every combination of up to m key variables, in sdcMicro's order.
    pub combinations: Vec<RiskyCombination>,
    /// Risky cells over every combination.
    pub total_cells: u64,
    /// Records in at least one risky cell.
    pub records_in_risky_cells: u64,
}

/// One combination of key variables and its risky cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RiskyCombination {
    pub attributes: Vec<String>,
    /// sdcMicro's `unsafe_cells`.
    pub cells: u64,
    /// Records in those cells.
    pub records: u64,
}

/// The combinations of `0..n` of size `k`, lexicographic (R's `combn`).
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    if k == 0 || k > n {
        return out;
    }
    let mut c: Vec<usize> = (0..k).collect();
    loop {
        out.push(c.clone());
        let Some(i) = (0..k).rev().find(|&i| c[i] < n - k + i) else {
            return out;
        };
        c[i] += 1;
        for j in i + 1..k {
            c[j] = c[j - 1] + 1;
        }
    }
}

/// The risky cells of the key variables `columns` of `ds` (in the order
/// given), for combinations of up to `max_size` of them and a threshold
/// `threshold` (module doc).
pub fn risky_cells(
    ds: &Dataset,
    columns: &[usize],
    max_size: usize,
    threshold: u64,
) -> Result<RiskyCellsReport> {
    risky_cells_of(ds, columns, max_size, threshold, &|r| {
        u64::from(ds.multiplicity(r))
    })
}

/// [`risky_cells`] with each row standing for `records(row)` records: a
/// published table built row by row from a frequency table's rows.
pub fn risky_cells_of(
    ds: &Dataset,
    columns: &[usize],
    max_size: usize,
    threshold: u64,
    records: &dyn Fn(usize) -> u64,
) -> Result<RiskyCellsReport> {
    if max_size == 0 || max_size > columns.len() {
        return Err(Error::invalid(
            Parameter::RiskyCells,
            format!(
                "combinations of up to {max_size} key variables: m must be between 1 and the {} key variables",
                columns.len()
            ),
        ));
    }
    if threshold == 0 {
        return Err(Error::invalid(
            Parameter::RiskyCells,
            "the threshold must be at least 1 (a cell is risky when at most that many records share it)",
        ));
    }
    let n = ds.n_rows();
    let weight = records;
    let mut in_risky = vec![false; n];
    let mut out = Vec::new();
    for size in 1..=max_size {
        for combo in combinations(columns.len(), size) {
            let cols: Vec<usize> = combo.iter().map(|&i| columns[i]).collect();
            let keys = cell_keys(ds, &cols);
            let mut counts: FxHashMap<u32, u64> = FxHashMap::default();
            for (r, &k) in keys.iter().enumerate() {
                *counts.entry(k).or_default() += weight(r);
            }
            let risky = |k: &u32| counts[k] <= threshold;
            let cells = counts.values().filter(|&&c| c <= threshold).count() as u64;
            let mut records = 0;
            for (r, k) in keys.iter().enumerate() {
                if risky(k) {
                    records += weight(r);
                    in_risky[r] = true;
                }
            }
            out.push(RiskyCombination {
                attributes: cols.iter().map(|&c| ds.col(c).name().to_string()).collect(),
                cells,
                records,
            });
        }
    }
    Ok(RiskyCellsReport {
        key_variables: columns
            .iter()
            .map(|&c| ds.col(c).name().to_string())
            .collect(),
        max_size,
        threshold,
        total_cells: out.iter().map(|c| c.cells).sum(),
        records_in_risky_cells: (0..n).filter(|&r| in_risky[r]).map(weight).sum(),
        combinations: out,
    })
}

/// Each row's cell of the cross-table of `cols`, numbered densely: the
/// columns are folded in one at a time, each step renumbering the pairs
/// (cell so far, code) it meets, so no key outgrows a `u32`.
fn cell_keys(ds: &Dataset, cols: &[usize]) -> Vec<u32> {
    let n = ds.n_rows();
    let mut keys = vec![0u32; n];
    for &c in cols {
        let col = ds.col(c);
        let mut numbers: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        for (r, key) in keys.iter_mut().enumerate() {
            let next = numbers.len() as u32;
            *key = *numbers.entry((*key, col.code(r))).or_insert(next);
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(csv: &str) -> Dataset {
        let mut lines = csv.lines();
        let names: Vec<&str> = lines.next().unwrap().split(',').collect();
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        Dataset::from_rows(&names, &rows).unwrap()
    }

    #[test]
    fn combinations_are_in_combn_order() {
        assert_eq!(
            combinations(4, 2),
            [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
        );
        assert_eq!(combinations(3, 3), [[0, 1, 2]]);
        assert!(combinations(2, 3).is_empty());
    }

    /// A table by hand: a appears as x×3, y×2, z×1; b as p×4, q×2; the
    /// pairs (x,p)×2, (x,q)×1, (y,p)×2, (z,q)×1; c is missing twice.
    #[test]
    fn risky_cells_by_hand() {
        let csv = "a,b,c\nx,p,1\nx,p,1\nx,q,2\ny,p,2\ny,p,\nz,q,\n";
        let ds = table(csv);
        let r = risky_cells(&ds, &[0, 1, 2], 2, 1).unwrap();
        let cells: Vec<(String, u64, u64)> = r
            .combinations
            .iter()
            .map(|c| (c.attributes.join("×"), c.cells, c.records))
            .collect();
        assert_eq!(
            cells,
            [
                ("a".to_string(), 1, 1),
                ("b".to_string(), 0, 0),
                // c: 1×2, 2×2, missing×2: none at most 1.
                ("c".to_string(), 0, 0),
                ("a×b".to_string(), 2, 2),
                // (x,1)×2 (x,2) (y,2) (y,-) (z,-).
                ("a×c".to_string(), 4, 4),
                // (p,1)×2 (q,2) (p,2) (p,-) (q,-).
                ("b×c".to_string(), 4, 4),
            ]
        );
        assert_eq!(r.total_cells, 11);
        // Every row but the first two is in a risky cell.
        assert_eq!(r.records_in_risky_cells, 4);
        // t = 2: every cell of a alone but x.
        let r = risky_cells(&ds, &[0], 1, 2).unwrap();
        assert_eq!((r.combinations[0].cells, r.combinations[0].records), (2, 3));
    }

    proptest::proptest! {
        /// Each combination's risky cells and their records, counted by
        /// brute force over the rows; a threshold of the file's size makes
        /// every cell risky.
        #[test]
        fn risky_cells_agree_with_brute_force(
            cells in proptest::collection::vec(proptest::collection::vec(0u8..3, 3), 1..30),
            threshold in 1u64..4,
        ) {
            let text: Vec<Vec<String>> = cells
                .iter()
                .map(|r| r.iter().map(|v| if *v == 0 { String::new() } else { v.to_string() }).collect())
                .collect();
            let rows: Vec<Vec<&str>> = text.iter().map(|r| r.iter().map(String::as_str).collect()).collect();
            let ds = Dataset::from_rows(&["a", "b", "c"], &rows).unwrap();
            let r = risky_cells(&ds, &[0, 1, 2], 3, threshold).unwrap();
            proptest::prop_assert_eq!(r.combinations.len(), 7);
            for combo in &r.combinations {
                let cols: Vec<usize> = combo
                    .attributes
                    .iter()
                    .map(|a| ["a", "b", "c"].iter().position(|x| x == a).unwrap())
                    .collect();
                let key = |i: usize| -> Vec<u8> { cols.iter().map(|&c| cells[i][c]).collect() };
                let n = |i: usize| (0..cells.len()).filter(|&j| key(j) == key(i)).count() as u64;
                let risky: Vec<usize> = (0..cells.len()).filter(|&i| n(i) <= threshold).collect();
                let mut distinct: Vec<Vec<u8>> = risky.iter().map(|&i| key(i)).collect();
                distinct.sort();
                distinct.dedup();
                proptest::prop_assert_eq!(combo.records, risky.len() as u64);
                proptest::prop_assert_eq!(combo.cells, distinct.len() as u64);
            }
            let all = risky_cells(&ds, &[0, 1, 2], 1, cells.len() as u64).unwrap();
            proptest::prop_assert_eq!(all.records_in_risky_cells, cells.len() as u64);
        }
    }

    #[test]
    fn m_beyond_the_key_variables_is_refused() {
        let ds = table("a,b\nx,p\n");
        let e = risky_cells(&ds, &[0, 1], 3, 1).unwrap_err().to_string();
        assert!(e.contains("between 1 and the 2 key variables"), "{e}");
        assert!(risky_cells(&ds, &[0, 1], 0, 1).is_err());
        let e = risky_cells(&ds, &[0, 1], 1, 0).unwrap_err().to_string();
        assert!(e.contains("at least 1"), "{e}");
    }
}
