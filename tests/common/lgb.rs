//! What every LGB release must satisfy, checked against the request's cell
//! masks rather than the algorithm's bookkeeping (shared by the Adult and
//! property tests of LGB).

use std::collections::HashMap;

use anonlab::algorithms::Request;
use anonlab::privacy::verify;
use anonlab::release::Release;
use fixedbitset::FixedBitSet;

/// Rows of the QI-partition subsets smaller than k: one key per row, the
/// pattern of its sensitive semi-sensitive cells.
pub fn rows_of_small_subsets(req: &Request<'_>) -> Vec<u32> {
    let n = req.ds.n_rows();
    let key = |row: usize| -> Vec<bool> {
        req.options
            .semi_sensitive
            .iter()
            .map(|(_, b)| b.contains(row))
            .collect()
    };
    let mut sizes: HashMap<Vec<bool>, usize> = HashMap::new();
    for row in 0..n {
        *sizes.entry(key(row)).or_default() += 1;
    }
    (0..n as u32)
        .filter(|&r| sizes[&key(r as usize)] < req.k as usize)
        .collect()
}

/// The verifier accepts every claim; rows of subsets smaller than k, and
/// only they, are suppressed; every published sensitive cell of each
/// semi-sensitive and sensitive attribute is in one of its local buckets,
/// and no other cell; every group has k rows. Returns the published rows.
pub fn check_release(r: &Release, req: &Request<'_>) -> Result<FixedBitSet, String> {
    let ds = req.ds;
    let v = verify(r, ds);
    if !v.all_hold() {
        return Err(format!("{}: {v}", r.algorithm));
    }
    if r.suppressed_rows != rows_of_small_subsets(req) {
        return Err(format!("suppressed {:?}", r.suppressed_rows));
    }
    let n = ds.n_rows();
    let mut published = FixedBitSet::with_capacity(n);
    for g in &r.groups {
        if g.rows.len() < req.k as usize {
            return Err(format!("a group of {} rows", g.rows.len()));
        }
        published.extend(g.rows.iter().map(|&row| row as usize));
    }
    let all = {
        let mut b = FixedBitSet::with_capacity(n);
        b.insert_range(..);
        b
    };
    let masks = req
        .options
        .semi_sensitive
        .iter()
        .map(|(c, b)| (*c, b))
        .chain(req.sensitive.iter().map(|&c| (c, &all)));
    for (c, bits) in masks {
        let mut want = bits.clone();
        want.intersect_with(&published);
        let mut got = FixedBitSet::with_capacity(n);
        for b in r.local_buckets_of(c).map_or(&[][..], |l| &l.buckets) {
            got.extend(b.rows.iter().map(|&row| row as usize));
        }
        if got != want {
            return Err(format!(
                "the local buckets of '{}' hold {} cells, {} are sensitive and published",
                ds.col(c).name(),
                got.count_ones(..),
                want.count_ones(..)
            ));
        }
    }
    Ok(published)
}
