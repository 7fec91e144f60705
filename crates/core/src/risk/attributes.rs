//! Which attributes make people unique: for every combination of the
//! attacker's attributes, ARX's `RiskModelAttributes` figures (after
//! Motwani and Xu, "Efficient algorithms for masking and finding
//! quasi-identifiers", VLDB 2007) and the share of unique records.
//!
//! For a combination with u classes over n records:
//! - **distinction** = u / n (the fraction of records that would remain
//!   after removing all but one of each class: 1 means the combination is
//!   a key);
//! - **separation** = 1 − Σ_j C(f_j, 2) / C(n, 2), the share of pairs of
//!   records it tells apart (ARX gives 0 when n < 2, where no pair exists);
//! - **uniques** = records alone in their class / n.
//!
//! Ranking (ours; ARX sorts by size, then distinction): combinations of
//! fewer attributes first, since a small combination that singles people
//! out is what to generalize first; among equal sizes the most uniques,
//! then the highest distinction and separation, then the attacker's order.

use serde::{Deserialize, Serialize};

use super::combinations::Walk;

/// At most this many attributes: 2¹² − 1 = 4,095 combinations.
pub const MAX_ATTRIBUTE_RISK_ATTRIBUTES: usize = 12;

/// One combination's figures, as `anonlab assess --json` prints them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttributeRisk {
    pub attributes: Vec<String>,
    pub distinction: f64,
    pub separation: f64,
    pub uniques: f64,
}

/// The figures of every combination in `walk`, ranked (module doc).
/// `names` are the walked attributes' names in the walk's order.
pub fn attribute_risks(walk: &Walk, names: &[String], records: u64) -> Vec<AttributeRisk> {
    let n = records as f64;
    let all_pairs = n * (n - 1.0) / 2.0;
    let mut ranked: Vec<(u32, AttributeRisk)> = walk
        .combinations
        .iter()
        .map(|c| {
            let attributes = names
                .iter()
                .enumerate()
                .filter(|(a, _)| c.mask & (1 << a) != 0)
                .map(|(_, name)| name.clone())
                .collect();
            let share = |x: u64| if records == 0 { 0.0 } else { x as f64 / n };
            let separation = if records < 2 {
                0.0
            } else {
                1.0 - c.pairs as f64 / all_pairs
            };
            (
                c.mask,
                AttributeRisk {
                    attributes,
                    distinction: share(c.classes),
                    separation,
                    uniques: share(c.uniques),
                },
            )
        })
        .collect();
    ranked.sort_by(|(ma, a), (mb, b)| {
        a.attributes
            .len()
            .cmp(&b.attributes.len())
            .then(b.uniques.total_cmp(&a.uniques))
            .then(b.distinction.total_cmp(&a.distinction))
            .then(b.separation.total_cmp(&a.separation))
            .then(ma.reverse_bits().cmp(&mb.reverse_bits()).reverse())
    });
    ranked.into_iter().map(|(_, r)| r).collect()
}
