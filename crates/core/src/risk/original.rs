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

use std::hash::BuildHasher;

use rayon::prelude::*;
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result};
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
    let shards = rayon::current_num_threads();
    original_matches_in(ds, knowledge, sensitive, progress, shards)
}

/// [`original_matches`] with the keys split into `shards` (tests check
/// that the split never changes a count).
fn original_matches_in(
    ds: &Dataset,
    knowledge: Knowledge<'_>,
    sensitive: Option<usize>,
    progress: &Progress,
    shards: usize,
) -> Result<OriginalMatches> {
    let n = ds.n_rows();
    let d = knowledge.columns.len();
    if d > 64 {
        return Err(Error::invalid(
            Parameter::AttackerKnows,
            "the attacker may know at most 64 attributes",
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
        return Err(Error::invalid(Parameter::Roles, format!(
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
    let bits = widths.iter().sum::<u32>();
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
                same: p == q,
                skip: p | q,
            };
            if bits <= 64 {
                tables.count(&pass, &mut matches, same.as_mut(), pack::<u64>, shards);
            } else if bits <= 128 {
                tables.count(&pass, &mut matches, same.as_mut(), pack::<u128>, shards);
            } else {
                tables.count(&pass, &mut matches, same.as_mut(), boxed, shards);
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
    /// The sources are the targets (one pattern against itself).
    same: bool,
    skip: u64,
}

/// The most slots of a dense (class, sensitive value) count array per
/// shard: above it the counts go to a hash map (a sensitive attribute of
/// many values over many classes).
const DENSE_VALUE_SLOTS: usize = 1 << 24;

/// What one shard found: the matches (and matches with the same value) of
/// its targets, in the targets' order.
struct ShardCounts {
    matches: Vec<u32>,
    same: Vec<u32>,
}

impl Tables<'_> {
    /// Count the sources' keys and add each target's matches (and matches
    /// with its own sensitive value) to `matches` and `same`.
    ///
    /// The keys are split into `shards` by a hash of the key, one shard
    /// per core: each shard numbers its own keys in a map of its own, so
    /// no lock is taken and each map is a fraction of the whole (on 10 M
    /// records this count was one core's work for most of `assess`).
    /// A key's records all fall in one shard, so every count is the one a
    /// single map gives; the shards' answers are put back in target order.
    /// Each record is looked up once: the sensitive values are counted per
    /// (class, value) in an array, not by a second key.
    fn count<K>(
        &self,
        pass: &Pass<'_>,
        matches: &mut [u32],
        mut same: Option<&mut Vec<u32>>,
        key: impl Fn(&Self, u32, u64) -> K + Sync,
        shards: usize,
    ) where
        K: std::hash::Hash + Eq + Send,
        Self: Sync,
    {
        let skip = pass.skip;
        let shards = shards.clamp(1, usize::from(u8::MAX));
        let shard_of = |r: u32| {
            crate::partition::shard_of(FxBuildHasher.hash_one(key(self, r, skip)), shards) as u8
        };
        let shard_list = |rows: &[u32]| -> Vec<u8> {
            if shards == 1 {
                vec![0; rows.len()]
            } else {
                rows.par_iter().map(|&r| shard_of(r)).collect()
            }
        };
        let source_shards = shard_list(pass.sources);
        let target_shards = if pass.same {
            None
        } else {
            Some(shard_list(pass.targets))
        };
        let counts: Vec<ShardCounts> = (0..shards)
            .into_par_iter()
            .map(|shard| {
                self.count_shard(
                    pass,
                    &source_shards,
                    target_shards.as_deref(),
                    shard as u8,
                    &key,
                )
            })
            .collect();
        // Back in target order: each shard's answers come in that order.
        let shard_of_target = target_shards.as_deref().unwrap_or(&source_shards);
        let mut next = vec![0usize; shards];
        for (&t, &shard) in pass.targets.iter().zip(shard_of_target) {
            let (c, i) = (&counts[shard as usize], next[shard as usize]);
            matches[t as usize] += c.matches[i];
            if let Some(same) = same.as_mut() {
                same[t as usize] += c.same[i];
            }
            next[shard as usize] += 1;
        }
    }

    /// One shard of [`Self::count`]: its sources' keys numbered and
    /// counted, and its targets' answers.
    fn count_shard<K: std::hash::Hash + Eq>(
        &self,
        pass: &Pass<'_>,
        source_shards: &[u8],
        target_shards: Option<&[u8]>,
        shard: u8,
        key: &impl Fn(&Self, u32, u64) -> K,
    ) -> ShardCounts {
        let skip = pass.skip;
        let weight = |r: u32| self.weights.map_or(1, |w| w[r as usize]);
        let mut ids: FxHashMap<K, u32> = FxHashMap::default();
        let mut sizes: Vec<u32> = Vec::new();
        // The class of each of the shard's sources, in source order (the
        // rows themselves are filtered again where needed rather than held:
        // a byte per row read is cheaper than four more per row kept).
        let mut source_ids: Vec<u32> = Vec::new();
        let own = |rows, shards| own_rows(rows, shards, shard);
        for s in own(pass.sources, source_shards) {
            let next = sizes.len() as u32;
            let id = *ids.entry(key(self, s, skip)).or_insert(next);
            if id == next {
                sizes.push(0);
            }
            sizes[id as usize] += weight(s);
            source_ids.push(id);
        }
        // Records per (class, sensitive value).
        let values = self.values.map(|v| {
            let mut by_value = ValueCounts::new(sizes.len(), self.value_width);
            for (s, &id) in own(pass.sources, source_shards).zip(&source_ids) {
                by_value.add(id, v[s as usize], weight(s));
            }
            by_value
        });
        let value_of = |id: u32, t: u32| match (&values, self.values) {
            (Some(counts), Some(v)) => counts.get(id, v[t as usize]),
            _ => 0,
        };
        let mut out = ShardCounts {
            matches: Vec::new(),
            same: Vec::new(),
        };
        match target_shards {
            // The targets are the sources: their classes are known.
            None => {
                for (t, &id) in own(pass.sources, source_shards).zip(&source_ids) {
                    out.matches.push(sizes[id as usize]);
                    if values.is_some() {
                        out.same.push(value_of(id, t));
                    }
                }
            }
            Some(target_shards) => {
                for t in own(pass.targets, target_shards) {
                    let id = ids.get(&key(self, t, skip)).copied();
                    out.matches.push(id.map_or(0, |id| sizes[id as usize]));
                    if values.is_some() {
                        out.same.push(id.map_or(0, |id| value_of(id, t)));
                    }
                }
            }
        }
        out
    }
}

/// The rows of `rows` in shard `shard` (`shards`: each row's shard).
fn own_rows<'a>(rows: &'a [u32], shards: &'a [u8], shard: u8) -> impl Iterator<Item = u32> + 'a {
    rows.iter()
        .zip(shards)
        .filter(move |(_, &s)| s == shard)
        .map(|(&r, _)| r)
}

/// Records per (class, sensitive value): an array indexed by class and
/// value code when it is small enough, else a map.
enum ValueCounts {
    Dense { counts: Vec<u32>, width: u32 },
    Sparse(FxHashMap<(u32, u32), u32>),
}

impl ValueCounts {
    fn new(classes: usize, width: u32) -> Self {
        // Classes × 2^width slots, refused to the map when that overflows
        // (a shift alone would drop the high bits and index past the array).
        let slots = 1usize
            .checked_shl(width)
            .and_then(|per_class| classes.checked_mul(per_class));
        match slots {
            Some(slots) if slots <= DENSE_VALUE_SLOTS => ValueCounts::Dense {
                counts: vec![0; slots],
                width,
            },
            _ => ValueCounts::Sparse(FxHashMap::default()),
        }
    }

    fn add(&mut self, class: u32, value: u32, records: u32) {
        match self {
            ValueCounts::Dense { counts, width } => {
                counts[((class as usize) << *width) | value as usize] += records;
            }
            ValueCounts::Sparse(map) => *map.entry((class, value)).or_default() += records,
        }
    }

    fn get(&self, class: u32, value: u32) -> u32 {
        match self {
            ValueCounts::Dense { counts, width } => {
                counts[((class as usize) << *width) | value as usize]
            }
            ValueCounts::Sparse(map) => map.get(&(class, value)).copied().unwrap_or(0),
        }
    }
}

/// Bits that hold every code below `space`.
fn bits_for(space: usize) -> u32 {
    (usize::BITS - space.saturating_sub(1).leading_zeros()).max(1)
}

/// A record's visible codes, packed.
fn pack<K>(t: &Tables<'_>, r: u32, skip: u64) -> K
where
    K: From<u32> + std::ops::Shl<u32, Output = K> + std::ops::BitOr<Output = K>,
{
    let mut k = K::from(0u32);
    for (a, codes) in t.codes.iter().enumerate() {
        if skip & (1 << a) == 0 {
            k = (k << t.widths[a]) | K::from(codes[r as usize]);
        }
    }
    k
}

/// A record's visible codes, as a slice.
fn boxed(t: &Tables<'_>, r: u32, skip: u64) -> Box<[u32]> {
    (0..t.codes.len())
        .filter(|a| skip & (1 << a) == 0)
        .map(|a| t.codes[a][r as usize])
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

    /// A table of columns a, b and s holding `rows`.
    fn three_columns(rows: impl Iterator<Item = [u8; 3]>) -> Dataset {
        let rows: Vec<Vec<String>> = rows.map(|r| r.map(|v| v.to_string()).to_vec()).collect();
        let rows: Vec<Vec<&str>> = rows
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        Dataset::from_rows(&["a", "b", "s"], &rows).unwrap()
    }

    proptest! {
        /// Splitting the keys into shards changes no count, with hidden
        /// cells (passes between two patterns) or without, on a grouped
        /// table too.
        #[test]
        fn shards_never_change_a_count(
            cells in prop::collection::vec((0u8..4, 0u8..3, 0u8..3, any::<bool>(), 1u32..4), 1..60),
            shards in 2usize..5,
        ) {
            let n = cells.len();
            let ds = three_columns(cells.iter().map(|c| [c.0, c.1, c.2]));
            let mut hide = FixedBitSet::with_capacity(n);
            for (r, c) in cells.iter().enumerate() {
                hide.set(r, c.3);
            }
            let hidden = [None, Some(&hide)];
            let weights: Vec<u32> = cells.iter().map(|c| c.4).collect();
            let grouped = ds.clone().grouped(weights).unwrap();
            for table in [&ds, &grouped] {
                for k in [Knowledge::plain(&[0, 1]), Knowledge { columns: &[0, 1], hidden: &hidden }] {
                    let one = original_matches_in(table, k, Some(2), &Progress::new(), 1).unwrap();
                    let many = original_matches_in(table, k, Some(2), &Progress::new(), shards).unwrap();
                    prop_assert_eq!(one, many);
                }
            }
        }

        /// The counts equal the definition applied pair by pair: s matches
        /// r when every known attribute agrees or is hidden on either side.
        #[test]
        fn counts_equal_the_pairwise_definition(
            cells in prop::collection::vec((0u8..3, 0u8..3, 0u8..2, any::<bool>(), any::<bool>()), 1..40),
        ) {
            let n = cells.len();
            let ds = three_columns(cells.iter().map(|c| [c.0, c.1, c.2]));
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
