//! Information loss of perturbed categorical attributes (issue 34, for
//! PRAM): the share of changed values per attribute, and a distance
//! between the contingency tables of the original and the published key
//! variables.
//!
//! The contingency-table distance over attributes A₁..A_m of n records is
//!
//!   D = (1 / 2n) · Σ_c |T(c) − T'(c)|,
//!
//! the sum running over every combination c of values of A₁..A_m that
//! occurs in either file, T(c) and T'(c) its counts in the original and the
//! published file. It is half the L1 distance between the two tables of
//! counts divided by n, i.e. the total-variation distance between the two
//! empirical joint distributions: 0 when the tables are equal, 1 when they
//! share no combination, and the least share of records that would have to
//! change combination to turn one table into the other. The L1 distance
//! between contingency tables is the contingency-table-based information
//! loss (CTBIL) of Domingo-Ferrer and Torra, "Disclosure control methods
//! and information loss for microdata", in Doyle et al. (eds.),
//! Confidentiality, Disclosure and Data Access, Elsevier 2001, pp. 91–110,
//! which sums it over all tables up to a given dimension; anonlab takes the
//! one table of the attributes listed, scaled by 1/(2n) so that files of
//! different sizes compare. A missing cell is a value of its own (PRAM
//! leaves missing cells missing, so they add nothing).
//!
//! The share of changed values of an attribute is sdcMicro's
//! `percChanges / 100` (R/pram.R: records whose published value differs
//! from the original, missing compared as a value, over all records).

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};

/// Share of records whose published code differs from the original one;
/// 0 for no records.
pub fn changed_share(original: &[u32], published: &[u32]) -> Result<f64> {
    if original.len() != published.len() {
        return Err(Error::Internal(format!(
            "{} original and {} published values",
            original.len(),
            published.len()
        )));
    }
    if original.is_empty() {
        return Ok(0.0);
    }
    let changed = original
        .iter()
        .zip(published)
        .filter(|(a, b)| a != b)
        .count();
    Ok(changed as f64 / original.len() as f64)
}

/// The contingency-table distance D (module header) between the original
/// columns `original[a]` and the published `published[a]` (codes of the
/// same dictionaries, one per record, the same records in the same order);
/// 0 for no records.
pub fn contingency_distance(original: &[&[u32]], published: &[&[u32]]) -> Result<f64> {
    if original.len() != published.len() || original.is_empty() {
        return Err(Error::Internal(format!(
            "{} original and {} published attributes; the distance needs the same, at least one",
            original.len(),
            published.len()
        )));
    }
    let n = original[0].len();
    if original.iter().chain(published).any(|c| c.len() != n) {
        return Err(Error::Internal(
            "columns of different lengths for the contingency-table distance".into(),
        ));
    }
    if n == 0 {
        return Ok(0.0);
    }
    // Combinations as dense ids, built attribute by attribute over both
    // files at once so that one combination has one id in both.
    let mut ids_o: Vec<u32> = original[0].to_vec();
    let mut ids_p: Vec<u32> = published[0].to_vec();
    for (o, p) in original.iter().zip(published).skip(1) {
        let mut dense: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        let mut id = |prev: u32, code: u32| {
            let next = dense.len() as u32;
            *dense.entry((prev, code)).or_insert(next)
        };
        for (x, &c) in ids_o.iter_mut().zip(o.iter()) {
            *x = id(*x, c);
        }
        for (x, &c) in ids_p.iter_mut().zip(p.iter()) {
            *x = id(*x, c);
        }
    }
    let mut diff: FxHashMap<u32, i64> = FxHashMap::default();
    for &c in &ids_o {
        *diff.entry(c).or_default() += 1;
    }
    for &c in &ids_p {
        *diff.entry(c).or_default() -= 1;
    }
    let l1: u64 = diff.values().map(|d| d.unsigned_abs()).sum();
    Ok(l1 as f64 / (2.0 * n as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_by_hand() {
        // Original (a, x) ×2, (b, y) ×2; published (a, x), (a, y), (b, y) ×2:
        // counts differ by 1 in (a, x) and (a, y): L1 = 2, D = 2 / 8.
        let a = [0, 0, 1, 1];
        let x = [0, 0, 1, 1];
        let a2 = [0, 0, 1, 1];
        let x2 = [0, 1, 1, 1];
        let d = contingency_distance(&[&a, &x], &[&a2, &x2]).unwrap();
        assert_eq!(d, 0.25);
        assert_eq!(contingency_distance(&[&a, &x], &[&a, &x]).unwrap(), 0.0);
        // A swap between records leaves the table, not the values, equal.
        let swapped = [1, 1, 0, 0];
        assert_eq!(contingency_distance(&[&a], &[&swapped]).unwrap(), 0.0);
        assert_eq!(changed_share(&a, &swapped).unwrap(), 1.0);
        assert_eq!(changed_share(&x, &x2).unwrap(), 0.25);
        // Disjoint tables: 1.
        assert_eq!(contingency_distance(&[&[0, 0]], &[&[1, 1]]).unwrap(), 1.0);
    }
}
