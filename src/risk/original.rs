//! The linkage attack and the breach probability on the original table
//! published as is, for an attacker facing hidden cells: the "before" of
//! every screen, chart, report and of `anonlab assess`.
//!
//! The original table is published with each known attribute's value on
//! its row, except the hidden cells (sensitive cells of semi-sensitive
//! attributes), which are not published as quasi-identifier values and
//! which the attacker does not know of the target either (README, "How
//! semi-sensitive cells are matched"). So the published record s matches
//! the target r when they agree on every known attribute where neither
//! cell is hidden: a hidden cell is a wildcard on both sides. Then
//!
//! - Pr(re-id of r) = 1 / matches(r), matches(r) counting r itself;
//! - the breach probability of r's sensitive value v is the share of r's
//!   matches whose value is v (the cross-bucket paper's p(t, s) with every
//!   published row its own bucket).
//!
//! This is the relation of the key-count simulator (`simulator`), which
//! counts the records sharing a key with the same wildcards; on the
//! original table the two attacks agree record by record, and tests say so.
//! It is computed here on its own — by hash maps per pair of hiding
//! patterns, not by the simulator's radix trees — so that the linkage
//! figure is the linkage attack's and the agreement is a check, not an
//! identity.
//!
//! A missing value is a value like any other, as everywhere in `risk`.

use rustc_hash::FxHashMap;

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::progress::Progress;

use super::Knowledge;

/// Hiding patterns beyond this many are refused (as by the simulator):
/// the cost is patterns² passes over the records.
const MAX_PATTERNS: usize = 4096;

/// Per record of the original table: how many records match it and, for
/// the sensitive attribute, how many of those share its value. Of a grouped
/// table (`Dataset::is_grouped`), per row: the figures of each of the
/// identical records it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginalMatches {
    /// Records matching each record, itself included (at least 1).
    pub matches: Vec<u32>,
    /// Of those, the records with the record's own sensitive value;
    /// `None` without a sensitive attribute.
    pub same_value: Option<Vec<u32>>,
}

impl OriginalMatches {
    /// Pr(re-id) of every record: 1 / matches.
    pub fn reidentification(&self) -> Vec<f64> {
        self.matches.iter().map(|&m| 1.0 / f64::from(m)).collect()
    }

    /// The breach probability of every record's own sensitive value.
    pub fn breach(&self) -> Option<Vec<f64>> {
        let same = self.same_value.as_ref()?;
        Some(
            same.iter()
                .zip(&self.matches)
                .map(|(&s, &m)| f64::from(s) / f64::from(m))
                .collect(),
        )
    }
}

/// Match every record of `ds` against the table published as is, for the
/// attacker of `knowledge` (see the module doc); `sensitive` is the
/// attribute whose breach is measured.
pub fn original_matches(
    ds: &Dataset,
    knowledge: Knowledge<'_>,
    sensitive: Option<usize>,
    progress: &Progress,
) -> Result<OriginalMatches> {
    let n = ds.n_rows();
    let d = knowledge.columns.len();
    if d > 64 {
        return Err(Error::Parameter(
            "the attacker may know at most 64 attributes".into(),
        ));
    }
    let hidden = |a: usize, r: usize| {
        knowledge
            .hidden
            .get(a)
            .copied()
            .flatten()
            .is_some_and(|b| b.contains(r))
    };
    // Records by hiding pattern (bit a: the cell of known attribute a is
    // hidden), patterns in increasing order.
    let mut by_pattern: FxHashMap<u64, Vec<u32>> = FxHashMap::default();
    for r in 0..n {
        let p = (0..d).fold(0u64, |m, a| m | (u64::from(hidden(a, r)) << a));
        by_pattern.entry(p).or_default().push(r as u32);
    }
    if by_pattern.len() > MAX_PATTERNS {
        return Err(Error::Parameter(format!(
            "{} different patterns of hidden cells: too many to attack; mark fewer attributes semi-sensitive",
            by_pattern.len()
        )));
    }
    let mut patterns: Vec<(u64, Vec<u32>)> = by_pattern.into_iter().collect();
    patterns.sort_unstable_by_key(|(p, _)| *p);
    let codes: Vec<&[u32]> = knowledge
        .columns
        .iter()
        .map(|&c| ds.col(c).codes())
        .collect();
    let values = sensitive.map(|s| ds.col(s).codes());
    progress.set_total((patterns.len() * patterns.len()) as u64);

    let mut matches = vec![0u32; n];
    let mut same = values.map(|_| vec![0u32; n]);
    // Keys are the codes a record shows, packed into one integer when they
    // fit (each attribute in the bits its code space needs, so the packing
    // is one to one), else a boxed slice: the same counts, fewer
    // allocations and comparisons.
    let widths: Vec<u32> = knowledge
        .columns
        .iter()
        .map(|&c| bits_for(ds.col(c).code_space()))
        .collect();
    let value_width = sensitive.map_or(0, |s| bits_for(ds.col(s).code_space()));
    let bits = widths.iter().sum::<u32>() + value_width;
    let tables = Tables {
        codes: &codes,
        weights: ds.multiplicities(),
        values,
        widths: &widths,
        value_width,
    };
    for (q, sources) in &patterns {
        for (p, targets) in &patterns {
            progress.check()?;
            // The records of pattern q, projected on what neither hides.
            let pass = Pass {
                sources,
                targets,
                skip: p | q,
            };
            if bits <= 64 {
                tables.count(&pass, &mut matches, same.as_mut(), pack::<u64>);
            } else if bits <= 128 {
                tables.count(&pass, &mut matches, same.as_mut(), pack::<u128>);
            } else {
                tables.count(&pass, &mut matches, same.as_mut(), boxed);
            }
            progress.advance(1);
        }
    }
    Ok(OriginalMatches {
        matches,
        same_value: same,
    })
}

/// The tables a pass reads.
struct Tables<'a> {
    codes: &'a [&'a [u32]],
    /// Records per row of a grouped table (one each when `None`).
    weights: Option<&'a [u32]>,
    values: Option<&'a [u32]>,
    /// Bits of each known attribute's codes, and of the sensitive one's.
    widths: &'a [u32],
    value_width: u32,
}

/// One pair of hiding patterns: the records of one pattern counted, the
/// records of the other matched against them, on what neither hides.
struct Pass<'a> {
    sources: &'a [u32],
    targets: &'a [u32],
    skip: u64,
}

impl Tables<'_> {
    /// Count the sources' keys and add each target's matches (and matches
    /// with its own sensitive value) to `matches` and `same`.
    fn count<K: std::hash::Hash + Eq>(
        &self,
        pass: &Pass<'_>,
        matches: &mut [u32],
        mut same: Option<&mut Vec<u32>>,
        key: impl Fn(&Self, u32, u64, Option<u32>) -> K,
    ) {
        let skip = pass.skip;
        let mut count: FxHashMap<K, u32> = FxHashMap::default();
        let mut count_value: FxHashMap<K, u32> = FxHashMap::default();
        for &s in pass.sources {
            let records = self.weights.map_or(1, |w| w[s as usize]);
            *count.entry(key(self, s, skip, None)).or_default() += records;
            if let Some(v) = self.values {
                *count_value
                    .entry(key(self, s, skip, Some(v[s as usize])))
                    .or_default() += records;
            }
        }
        for &t in pass.targets {
            matches[t as usize] += count.get(&key(self, t, skip, None)).copied().unwrap_or(0);
            if let (Some(v), Some(same)) = (self.values, same.as_mut()) {
                same[t as usize] += count_value
                    .get(&key(self, t, skip, Some(v[t as usize])))
                    .copied()
                    .unwrap_or(0);
            }
        }
    }
}

/// Bits that hold every code below `space`.
fn bits_for(space: usize) -> u32 {
    (usize::BITS - space.saturating_sub(1).leading_zeros()).max(1)
}

/// A record's visible codes (and sensitive code), packed.
fn pack<K>(t: &Tables<'_>, r: u32, skip: u64, value: Option<u32>) -> K
where
    K: From<u32> + std::ops::Shl<u32, Output = K> + std::ops::BitOr<Output = K>,
{
    let mut k = K::from(0u32);
    for (a, codes) in t.codes.iter().enumerate() {
        if skip & (1 << a) == 0 {
            k = (k << t.widths[a]) | K::from(codes[r as usize]);
        }
    }
    match value {
        Some(v) => (k << t.value_width) | K::from(v),
        None => k,
    }
}

/// A record's visible codes (and sensitive code), as a slice.
fn boxed(t: &Tables<'_>, r: u32, skip: u64, value: Option<u32>) -> Box<[u32]> {
    (0..t.codes.len())
        .filter(|a| skip & (1 << a) == 0)
        .map(|a| t.codes[a][r as usize])
        .chain(value)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fixedbitset::FixedBitSet;
    use proptest::prelude::*;

    fn table() -> Dataset {
        Dataset::from_rows(
            &["sex", "age", "disease"],
            &[
                vec!["M", "30", "flu"],
                vec!["M", "30", "hiv"],
                vec!["M", "65", "flu"],
                vec!["F", "30", "flu"],
                vec!["F", "70", "cold"],
            ],
        )
        .unwrap()
    }

    #[test]
    fn hidden_cells_are_wildcards_on_both_sides() {
        let ds = table();
        // Ages of 60 and more are hidden.
        let mut old = FixedBitSet::with_capacity(5);
        old.insert(2);
        old.insert(4);
        let hidden = [None, Some(&old)];
        let k = Knowledge {
            columns: &[0, 1],
            hidden: &hidden,
        };
        let m = original_matches(&ds, k, Some(2), &Progress::new()).unwrap();
        // Row 0 (M, 30): rows 0, 1 and row 2 (M, hidden). Row 2 (M,
        // hidden): every M. Row 3 (F, 30): itself and row 4 (F, hidden).
        assert_eq!(m.matches, vec![3, 3, 3, 2, 2]);
        // Flu among row 0's three matches: rows 0 and 2.
        assert_eq!(m.same_value, Some(vec![2, 1, 2, 1, 1]));
        let b = m.breach().unwrap();
        assert!((b[0] - 2.0 / 3.0).abs() < 1e-15);
        // Nothing hidden: classes of equal values.
        let plain =
            original_matches(&ds, Knowledge::plain(&[0, 1]), None, &Progress::new()).unwrap();
        assert_eq!(plain.matches, vec![2, 2, 1, 1, 1]);
        assert_eq!(plain.same_value, None);
    }

    #[test]
    fn the_key_count_agrees_record_by_record() {
        let ds = table();
        let mut a = FixedBitSet::with_capacity(5);
        a.insert(1);
        let mut b = FixedBitSet::with_capacity(5);
        b.insert(3);
        b.insert(1);
        let hidden = [Some(&a), Some(&b)];
        let k = Knowledge {
            columns: &[1, 0],
            hidden: &hidden,
        };
        let m = original_matches(&ds, k, None, &Progress::new()).unwrap();
        let sim = super::super::simulate(&ds, k, 0.2, &Progress::new()).unwrap();
        assert_eq!(m.matches, sim.matches);
    }

    proptest! {
        /// The counts equal the definition applied pair by pair: s matches
        /// r when every known attribute agrees or is hidden on either side.
        #[test]
        fn counts_equal_the_pairwise_definition(
            cells in prop::collection::vec((0u8..3, 0u8..3, 0u8..2, any::<bool>(), any::<bool>()), 1..40),
        ) {
            let n = cells.len();
            let rows: Vec<Vec<String>> = cells
                .iter()
                .map(|(a, b, s, _, _)| vec![a.to_string(), b.to_string(), s.to_string()])
                .collect();
            let rows: Vec<Vec<&str>> = rows
                .iter()
                .map(|r| r.iter().map(String::as_str).collect())
                .collect();
            let ds = Dataset::from_rows(&["a", "b", "s"], &rows).unwrap();
            let mut hide_a = FixedBitSet::with_capacity(n);
            let mut hide_b = FixedBitSet::with_capacity(n);
            for (r, (_, _, _, ha, hb)) in cells.iter().enumerate() {
                hide_a.set(r, *ha);
                hide_b.set(r, *hb);
            }
            let hidden = [Some(&hide_a), Some(&hide_b)];
            let k = Knowledge { columns: &[0, 1], hidden: &hidden };
            let m = original_matches(&ds, k, Some(2), &Progress::new()).unwrap();
            let agree = |col: &[u32], hide: &FixedBitSet, r: usize, s: usize| {
                hide.contains(r) || hide.contains(s) || col[r] == col[s]
            };
            let (ca, cb, cs) = (ds.col(0).codes(), ds.col(1).codes(), ds.col(2).codes());
            for r in 0..n {
                let matching: Vec<usize> = (0..n)
                    .filter(|&s| agree(ca, &hide_a, r, s) && agree(cb, &hide_b, r, s))
                    .collect();
                prop_assert_eq!(m.matches[r] as usize, matching.len());
                let same = matching.iter().filter(|&&s| cs[s] == cs[r]).count();
                prop_assert_eq!(m.same_value.as_ref().unwrap()[r] as usize, same);
            }
        }
    }
}
