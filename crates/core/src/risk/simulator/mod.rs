//! The attack simulator of the risk-assessment paper
//! (correlation-hierarchy-and-risk-tool.txt, Section 4.2.2, Algorithms 2–3).
//!
//! `indexRepeats` puts every published record into a radix tree keyed by the
//! concatenation of the attributes the attacker knows; the value counts the
//! records sharing the key. `attackSimulation` then gives each record
//! Pr(re-id) = 1 / (records sharing its key) and the distribution of those
//! probabilities. We use the `radix_trie` crate, as the paper does, for the
//! reason it gives: no collision handling, and insertion and search cost
//! O(|K|).
//!
//! Choices made where the paper is silent:
//! - **Keys** are dictionary codes written big-endian in a fixed width per
//!   attribute (1–4 bytes, the fewest that hold the column's codes), so key
//!   order is tuple order and the key of the first j attributes is a byte
//!   prefix of the full key.
//! - **Prefix evaluation** ("what if the attacker knows only the first j
//!   attributes") comes from the same trie: its iterator yields keys in byte
//!   order, so records sharing a j-attribute prefix are consecutive, and one
//!   walk counts the classes and uniques for every j.
//! - **Missing values** are a value like any other: a published `?` is
//!   visible to the attacker and groups with the other `?`s.
//! - **Semi-sensitive attributes.** A cell marked sensitive is not known to
//!   the attacker and is not published as a quasi-identifier value (it goes
//!   to a bucket). So a record r is matched by every record r' that agrees
//!   with r on each known attribute where *neither* cell is hidden: hidden
//!   cells are wildcards on both sides, and the relation is symmetric.
//!   Pr(re-id of r) = 1 / |{r' : r' matches r}|. With no hidden cells this is
//!   exactly the paper's key count. It is computed per pair of hiding
//!   patterns (which known attributes a record hides): for each pair, a trie
//!   over the projection onto the attributes neither pattern hides, so the
//!   cost is O(n · patterns) lookups rather than O(n²). "Classes" then count
//!   distinct published keys, with a hidden cell as its own symbol.
//! - **Threshold**: a record is "above" when its Pr(re-id) is strictly
//!   greater, so a k-anonymous table has none above 1/k.

use fixedbitset::FixedBitSet;
use radix_trie::{NibbleVec, Trie, TrieCommon, TrieKey};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result};
use crate::partition::Partition;
use crate::progress::Progress;

use super::distribution::{CdfPoint, HistogramBin, ProbabilityRuns};

/// What the attacker knows: columns in order, and per column the rows whose
/// cell is hidden (sensitive cells of semi-sensitive attributes).
#[derive(Debug, Clone, Copy)]
pub struct Knowledge<'a> {
    pub columns: &'a [usize],
    /// Parallel to `columns`; `None` where no cell is hidden.
    pub hidden: &'a [Option<&'a FixedBitSet>],
}

impl<'a> Knowledge<'a> {
    /// Columns fully known, no hidden cells.
    pub fn plain(columns: &'a [usize]) -> Self {
        Knowledge {
            columns,
            hidden: &[],
        }
    }
    fn hidden_at(&self, a: usize) -> Option<&'a FixedBitSet> {
        self.hidden.get(a).copied().flatten()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RiskSummary {
    pub records: usize,
    /// Distinct published keys.
    pub classes: usize,
    /// The smallest number of records any record is matched by.
    pub k: u32,
    /// Records matched by themselves only (Pr(re-id) = 1).
    pub uniques: usize,
    pub mean: f64,
    pub max: f64,
    pub threshold: f64,
    pub records_above_threshold: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrefixRow {
    /// The first j attributes of the attacker's order.
    pub attributes: Vec<String>,
    pub classes: usize,
    pub uniques: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    pub attributes: Vec<String>,
    /// Per record: how many records (itself included) it cannot be told from.
    pub matches: Vec<u32>,
    /// Records grouped by published key.
    pub classes: Partition,
    pub summary: RiskSummary,
    pub histogram: Vec<HistogramBin>,
    pub cdf: Vec<CdfPoint>,
    pub prefix: Vec<PrefixRow>,
    /// Known cells hidden from the attacker (sensitive semi-sensitive cells).
    pub hidden_cells: usize,
}

impl Simulation {
    pub fn probability(&self, row: usize) -> f64 {
        1.0 / f64::from(self.matches[row])
    }
    pub fn probabilities(&self) -> Vec<f64> {
        self.matches.iter().map(|&m| 1.0 / f64::from(m)).collect()
    }
    /// Rows whose Pr(re-id) exceeds the threshold, most exposed first.
    pub fn records_above(&self, threshold: f64) -> Vec<u32> {
        let mut rows: Vec<u32> = (0..self.matches.len() as u32)
            .filter(|&r| self.probability(r as usize) > threshold)
            .collect();
        rows.sort_by_key(|&r| (self.matches[r as usize], r));
        rows
    }
}

/// Keys up to this many bytes are held inline (16 one-byte codes, 8
/// two-byte codes).
const INLINE_KEY: usize = 16;

/// A record's key: its known codes, fixed-width big-endian (see the module
/// doc). Its own type rather than the crate's `Vec<u8>` key, which copies
/// itself into a fresh allocation on every lookup (more time than the
/// lookup itself on a million records): `encode` writes the nibbles straight
/// into the trie's inline buffer, and a short key is stored without an
/// allocation of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
enum RecordKey {
    /// Bytes past `len` are zero, so equal keys compare equal.
    Short {
        len: u8,
        bytes: [u8; INLINE_KEY],
    },
    Long(Vec<u8>),
}

impl Default for RecordKey {
    fn default() -> Self {
        RecordKey::Short {
            len: 0,
            bytes: [0; INLINE_KEY],
        }
    }
}

impl RecordKey {
    /// Make this key `bytes`, reusing a long key's buffer.
    fn set(&mut self, bytes: &[u8]) {
        match self {
            RecordKey::Long(v) if bytes.len() > INLINE_KEY => {
                v.clear();
                v.extend_from_slice(bytes);
            }
            _ if bytes.len() > INLINE_KEY => *self = RecordKey::Long(bytes.to_vec()),
            _ => {
                let mut inline = [0; INLINE_KEY];
                inline[..bytes.len()].copy_from_slice(bytes);
                *self = RecordKey::Short {
                    len: bytes.len() as u8,
                    bytes: inline,
                };
            }
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            RecordKey::Short { len, bytes } => &bytes[..*len as usize],
            RecordKey::Long(v) => v,
        }
    }
}

impl TrieKey for RecordKey {
    fn encode(&self) -> NibbleVec<[u8; 64]> {
        let mut v = NibbleVec::new();
        for &b in self.as_bytes() {
            v.push(b >> 4);
            v.push(b & 0x0f);
        }
        v
    }
}

/// The repeat detector RT of Algorithm 2: key → class id.
type KeyTrie = Trie<RecordKey, u32>;

/// Fixed-width big-endian key layout over the known attributes.
struct KeyLayout {
    widths: Vec<usize>,
    offsets: Vec<usize>,
    len: usize,
}

impl KeyLayout {
    fn new(ds: &Dataset, columns: &[usize]) -> Self {
        Self::from_widths(
            columns
                .iter()
                // +1: room for the "hidden" symbol after the missing code.
                .map(|&c| bytes_for(ds.col(c).code_space() as u64 + 1))
                .collect(),
        )
    }

    fn from_widths(widths: Vec<usize>) -> Self {
        let mut offsets = Vec::with_capacity(widths.len() + 1);
        let mut acc = 0;
        for w in &widths {
            offsets.push(acc);
            acc += w;
        }
        offsets.push(acc);
        KeyLayout {
            widths,
            offsets,
            len: acc,
        }
    }
}

fn bytes_for(values: u64) -> usize {
    match values {
        0..=0x100 => 1,
        0x101..=0x1_0000 => 2,
        0x1_0001..=0x100_0000 => 3,
        _ => 4,
    }
}

fn put_code(key: &mut Vec<u8>, code: u32, width: usize) {
    key.extend_from_slice(&code.to_be_bytes()[4 - width..]);
}

/// Run the attack: Algorithm 2 (`indexRepeats`) and Algorithm 3
/// (`attackSimulation`) plus the prefix evaluation.
pub fn simulate(
    ds: &Dataset,
    knowledge: Knowledge<'_>,
    threshold: f64,
    progress: &Progress,
) -> Result<Simulation> {
    simulate_in_forest(ds, knowledge, threshold, RECORDS_PER_TREE, progress)
}

/// `simulate` with the forest's tree size as a parameter, so tests can
/// check that the split never changes a figure.
fn simulate_in_forest(
    ds: &Dataset,
    knowledge: Knowledge<'_>,
    threshold: f64,
    records_per_tree: usize,
    progress: &Progress,
) -> Result<Simulation> {
    if !(0.0..=1.0).contains(&threshold) {
        return Err(Error::invalid(
            Parameter::Threshold,
            format!("risk threshold {threshold} is not between 0 and 1"),
        ));
    }
    let n = ds.n_rows();
    let cols = knowledge.columns;
    let d = cols.len();
    // Cells, i.e. records' cells: a grouped table's row counts once per
    // record it stands for.
    let hidden_cells: usize = (0..d)
        .filter_map(|a| knowledge.hidden_at(a))
        .map(|b| match ds.multiplicities() {
            None => b.count_ones(..),
            Some(w) => b.ones().map(|r| w[r] as usize).sum(),
        })
        .sum();
    progress.set_total((n * (d + 2)) as u64);

    let layout = KeyLayout::new(ds, cols);
    let forest = Forest::new(ds, cols, records_per_tree);
    let repeats = index_repeats(ds, knowledge, &layout, &forest, hidden_cells == 0, progress)?;
    let classes = Partition::from_class_ids(repeats.class_of).weighted(ds.shared_multiplicities());

    let (matches, prefix_counts) = if hidden_cells == 0 {
        let m: Vec<u32> = (0..n).map(|r| classes.size_of_row(r)).collect();
        (m, repeats.prefix)
    } else {
        let m = wildcard_matches(ds, knowledge, d, progress)?;
        let mut rows = Vec::with_capacity(d);
        for j in 1..=d {
            progress.check()?;
            let sub = Knowledge {
                columns: &cols[..j],
                hidden: &knowledge.hidden[..j.min(knowledge.hidden.len())],
            };
            let mj = wildcard_matches(ds, sub, j, &Progress::new())?;
            let sub_layout = KeyLayout::new(ds, &cols[..j]);
            let sub_forest = Forest::new(ds, sub.columns, records_per_tree);
            let sub_classes =
                index_repeats(ds, sub, &sub_layout, &sub_forest, false, &Progress::new())?.classes;
            rows.push((sub_classes, mj.iter().filter(|&&c| c == 1).count()));
        }
        (m, rows)
    };
    progress.check()?;

    let prefix = prefix_counts
        .into_iter()
        .enumerate()
        .map(|(j, (classes, uniques))| PrefixRow {
            attributes: cols[..=j]
                .iter()
                .map(|&c| ds.col(c).name().to_string())
                .collect(),
            classes,
            uniques,
        })
        .collect();
    let runs = ProbabilityRuns::of_matches(&matches, ds.multiplicities());
    let summary = summarize_runs(&runs, classes.n_classes(), threshold);
    let (histogram, cdf) = runs.shape();
    Ok(Simulation {
        attributes: cols.iter().map(|&c| ds.col(c).name().to_string()).collect(),
        histogram,
        cdf,
        matches,
        classes,
        summary,
        prefix,
        hidden_cells,
    })
}

/// Split the records over at least one tree per this many records, when
/// the leading attributes allow it...
const RECORDS_PER_TREE: usize = 256;
/// ...and over at most this many trees.
const MAX_TREES: usize = 1 << 16;

/// How the radix tree is cut into a forest: one tree per combination of the
/// codes of the first `attrs` known attributes.
///
/// The records of a tree share their first `attrs` codes, so the forest is
/// the one big tree with its top levels replaced by an array index: each
/// tree is the big tree's subtree below that prefix, keyed by the rest of
/// the key, in the same order. Trees are kept small, about
/// [`RECORDS_PER_TREE`] records on average, so that each stays in cache
/// while it is built: the one big tree of a million records was some 100 MB
/// of nodes and most of its lookups were cache misses. The trees are built
/// in parallel and each is dropped as soon as it is walked. The last
/// attribute is never split on, so the trees always tell records apart on
/// at least one attribute.
struct Forest {
    attrs: usize,
    /// Codes per split attribute: the code space plus the hidden symbol.
    spaces: Vec<usize>,
    trees: usize,
}

impl Forest {
    /// Split on the leading attributes until there is one tree per
    /// `records_per_tree` records.
    fn new(ds: &Dataset, columns: &[usize], records_per_tree: usize) -> Self {
        let mut f = Forest {
            attrs: 0,
            spaces: Vec::new(),
            trees: 1,
        };
        let wanted = ds.n_rows() / records_per_tree.max(1);
        while f.trees < wanted && f.attrs + 1 < columns.len() {
            let space = ds.col(columns[f.attrs]).code_space() + 1;
            match f.trees.checked_mul(space) {
                Some(t) if t <= MAX_TREES => {
                    f.trees = t;
                    f.spaces.push(space);
                    f.attrs += 1;
                }
                _ => break,
            }
        }
        f
    }

    /// The tree of a record, from its codes on the split attributes: mixed
    /// radix, first attribute most significant, so tree order is key order.
    fn tree(&self, code: impl Fn(usize) -> u32) -> usize {
        (0..self.attrs).fold(0, |t, a| t * self.spaces[a] + code(a) as usize)
    }

    /// (classes, uniques) for the prefix lengths 1..=attrs, from the number
    /// of records in each tree.
    fn prefix_rows(&self, tree_size: impl Fn(usize) -> u64) -> Vec<(usize, usize)> {
        (1..=self.attrs)
            .map(|len| {
                // Trees that share the first `len` codes are consecutive.
                let per_group: usize = self.spaces[len..].iter().product();
                let (mut classes, mut uniques) = (0, 0);
                for g in 0..self.trees / per_group {
                    let size: u64 = (g * per_group..(g + 1) * per_group).map(&tree_size).sum();
                    classes += usize::from(size > 0);
                    uniques += usize::from(size == 1);
                }
                (classes, uniques)
            })
            .collect()
    }
}

/// What Algorithm 2 leaves once its trees are dropped.
struct Repeats {
    /// Class id per record, in order of first appearance.
    class_of: Vec<u32>,
    /// Distinct keys.
    classes: usize,
    /// (classes, uniques) for each prefix length 1..=d, when asked for.
    prefix: Vec<(usize, usize)>,
}

/// Algorithm 2, `indexRepeats`: every record's key goes into the radix tree
/// (a forest, see [`Forest`]). The value is the class id given at first
/// insertion, so the count lookup of Algorithm 3 is an array read instead of
/// a second walk down the tree. With `walk`, each tree is also walked in key
/// order for the prefix table before it is dropped.
fn index_repeats(
    ds: &Dataset,
    knowledge: Knowledge<'_>,
    layout: &KeyLayout,
    forest: &Forest,
    walk: bool,
    progress: &Progress,
) -> Result<Repeats> {
    let n = ds.n_rows();
    let d = knowledge.columns.len();
    let codes: Vec<&[u32]> = knowledge
        .columns
        .iter()
        .map(|&c| ds.col(c).codes())
        .collect();
    let hidden: Vec<Option<&FixedBitSet>> = (0..d).map(|a| knowledge.hidden_at(a)).collect();
    let hidden_code: Vec<u32> = knowledge
        .columns
        .iter()
        .map(|&c| ds.col(c).code_space() as u32)
        .collect();
    let code_at = |a: usize, r: usize| {
        if hidden[a].is_some_and(|h| h.contains(r)) {
            hidden_code[a]
        } else {
            codes[a][r]
        }
    };

    // Records by tree, stably (a counting sort), so each tree sees its
    // records in file order. The keys are written out in that order in the
    // same pass: reading the columns row by row is sequential, whereas
    // gathering a tree's scattered rows from each column later was one
    // cache miss per attribute and record. `local` holds the tree of each
    // record until it holds class ids.
    let mut local = vec![0u32; n];
    let mut start = vec![0usize; forest.trees + 1];
    for (r, t) in local.iter_mut().enumerate() {
        *t = forest.tree(|a| code_at(a, r)) as u32;
        start[*t as usize + 1] += 1;
    }
    for t in 0..forest.trees {
        start[t + 1] += start[t];
    }
    progress.check()?;
    // A tree's keys leave out the codes its records share: the tree is the
    // big tree's subtree below that prefix.
    let suffix = KeyLayout::from_widths(layout.widths[forest.attrs..].to_vec());
    let len = suffix.len;
    let mut order = vec![0u32; n];
    let mut keys = vec![0u8; n * len];
    let mut fill = start.clone();
    // A grouped table's records per row, in tree order, and per tree.
    let weights = ds.multiplicities();
    let mut slot_weight = vec![0u32; if weights.is_some() { n } else { 0 }];
    let mut tree_records = vec![0u64; if weights.is_some() { forest.trees } else { 0 }];
    for (r, &t) in local.iter().enumerate() {
        let slot = fill[t as usize];
        fill[t as usize] += 1;
        if let Some(w) = weights {
            slot_weight[slot] = w[r];
            tree_records[t as usize] += u64::from(w[r]);
        }
        let mut key = &mut keys[slot * len..(slot + 1) * len];
        for (a, &w) in layout.widths.iter().enumerate().skip(forest.attrs) {
            let (head, tail) = key.split_at_mut(w);
            head.copy_from_slice(&code_at(a, r).to_be_bytes()[4 - w..]);
            key = tail;
        }
        order[slot] = r as u32;
    }
    drop(fill);

    // Per tree, a class id local to the tree for each of its records.
    let mut jobs = Vec::new();
    let mut rest: &mut [u32] = &mut local;
    for t in 0..forest.trees {
        let (a, b) = (start[t], start[t + 1]);
        if a == b {
            continue;
        }
        let (ids, tail) = std::mem::take(&mut rest).split_at_mut(b - a);
        let w = if weights.is_some() {
            Some(&slot_weight[a..b])
        } else {
            None
        };
        jobs.push((&keys[a * len..b * len], ids, w));
        rest = tail;
    }
    let built: Vec<(usize, Vec<(usize, usize)>)> = jobs
        .into_par_iter()
        .map(|(tree_keys, ids, w)| {
            progress.check()?;
            let mut trie = KeyTrie::new();
            let mut sizes: Vec<u32> = Vec::new();
            let mut key = RecordKey::default();
            for (i, id) in ids.iter_mut().enumerate() {
                if i % 8192 == 8191 {
                    progress.check()?;
                    progress.advance(8192);
                }
                key.set(&tree_keys[i * len..(i + 1) * len]);
                let records = w.map_or(1, |w| w[i]);
                *id = match trie.get(&key) {
                    Some(&c) => {
                        sizes[c as usize] += records;
                        c
                    }
                    None => {
                        let c = sizes.len() as u32;
                        trie.insert(key.clone(), c);
                        sizes.push(records);
                        c
                    }
                };
            }
            progress.advance((ids.len() % 8192) as u64);
            let levels = if walk {
                prefix_from_trie(&trie, &sizes, &suffix)
            } else {
                Vec::new()
            };
            Ok((sizes.len(), levels))
        })
        .collect::<Result<_>>()?;
    drop((keys, slot_weight));

    let mut prefix = Vec::new();
    if walk {
        prefix = forest.prefix_rows(|t| match weights {
            None => (start[t + 1] - start[t]) as u64,
            Some(_) => tree_records[t],
        });
        prefix.resize(d, (0, 0));
        for (_, levels) in &built {
            for (p, l) in prefix[forest.attrs..].iter_mut().zip(levels) {
                p.0 += l.0;
                p.1 += l.1;
            }
        }
    }

    // Global ids: trees in key order, then renumbered by first appearance.
    let mut class_of = vec![0u32; n];
    let mut base = 0u32;
    let mut tree_classes = built.iter().map(|b| b.0 as u32);
    for t in 0..forest.trees {
        let range = start[t]..start[t + 1];
        if range.is_empty() {
            continue;
        }
        for (&r, &id) in order[range.clone()].iter().zip(&local[range]) {
            class_of[r as usize] = base + id;
        }
        base += tree_classes.next().unwrap_or(0);
    }
    drop((order, local));
    let classes = base as usize;
    let mut renumber = vec![u32::MAX; classes];
    let mut next = 0u32;
    for c in class_of.iter_mut() {
        let id = &mut renumber[*c as usize];
        if *id == u32::MAX {
            *id = next;
            next += 1;
        }
        *c = *id;
    }
    Ok(Repeats {
        class_of,
        classes,
        prefix,
    })
}

/// Classes and uniques for every prefix length, from one ordered walk of a
/// tree (no hidden cells); `sizes` are the records per class id.
fn prefix_from_trie(trie: &KeyTrie, sizes: &[u32], layout: &KeyLayout) -> Vec<(usize, usize)> {
    let d = layout.widths.len();
    let mut out = vec![(0usize, 0usize); d];
    // Records in the currently open group at each prefix length.
    let mut open = vec![0u64; d];
    let mut prev: Option<&RecordKey> = None;
    for (key, &id) in trie.iter() {
        let size = u64::from(sizes[id as usize]);
        // Number of leading attributes this key shares with the previous one.
        let shared = match prev {
            None => 0,
            Some(p) => (0..d)
                .take_while(|&a| {
                    let (s, e) = (layout.offsets[a], layout.offsets[a + 1]);
                    p.as_bytes()[s..e] == key.as_bytes()[s..e]
                })
                .count(),
        };
        for j in shared..d {
            if prev.is_some() && open[j] == 1 {
                out[j].1 += 1;
            }
            out[j].0 += 1;
            open[j] = 0;
        }
        for o in open.iter_mut() {
            *o += size;
        }
        prev = Some(key);
    }
    if prev.is_some() {
        for j in 0..d {
            if open[j] == 1 {
                out[j].1 += 1;
            }
        }
    }
    out
}

/// Match counts with hidden cells as wildcards on both sides (see the
/// module doc). Records are grouped by hiding pattern; for each pair of
/// patterns the attributes neither hides are looked up in a trie.
fn wildcard_matches(
    ds: &Dataset,
    knowledge: Knowledge<'_>,
    d: usize,
    progress: &Progress,
) -> Result<Vec<u32>> {
    let n = ds.n_rows();
    if d > 63 {
        return Err(Error::invalid(
            Parameter::AttackerKnows,
            "the attacker may know at most 63 attributes",
        ));
    }
    let pattern: Vec<u64> = (0..n)
        .map(|r| {
            (0..d).fold(0u64, |m, a| {
                let h = knowledge.hidden_at(a).is_some_and(|b| b.contains(r));
                m | (u64::from(h) << a)
            })
        })
        .collect();
    let mut patterns: Vec<u64> = pattern.clone();
    patterns.sort_unstable();
    patterns.dedup();
    if patterns.len() > 4096 {
        return Err(Error::invalid(Parameter::Roles, format!(
            "{} different patterns of hidden cells: too many to simulate; mark fewer attributes semi-sensitive",
            patterns.len()
        )));
    }
    let codes: Vec<&[u32]> = knowledge
        .columns
        .iter()
        .map(|&c| ds.col(c).codes())
        .collect();
    let widths: Vec<usize> = knowledge
        .columns
        .iter()
        .map(|&c| bytes_for(ds.col(c).code_space() as u64))
        .collect();
    let pattern = &pattern;
    let rows_of = |p: u64| (0..n).filter(move |&r| pattern[r] == p);
    let mut buf = Vec::new();
    let mut key_of = |r: usize, skip: u64, key: &mut RecordKey| {
        buf.clear();
        for a in 0..d {
            if skip & (1 << a) == 0 {
                put_code(&mut buf, codes[a][r], widths[a]);
            }
        }
        key.set(&buf);
    };
    let mut matches = vec![0u32; n];
    let mut key = RecordKey::default();
    for &q in &patterns {
        for &p in &patterns {
            progress.check()?;
            let skip = p | q;
            // Trie of the pattern-q records projected on what neither hides.
            let mut trie = KeyTrie::new();
            for r in rows_of(q) {
                key_of(r, skip, &mut key);
                let records = ds.multiplicity(r);
                match trie.get_mut(&key) {
                    Some(c) => *c += records,
                    None => {
                        trie.insert(key.clone(), records);
                    }
                }
            }
            for r in rows_of(p) {
                key_of(r, skip, &mut key);
                matches[r] += trie.get(&key).copied().unwrap_or(0);
            }
        }
    }
    Ok(matches)
}

/// The summary of per-record match counts (Pr(re-id) = 1 / count) over
/// `classes` keys. The report summarizes a release's published class sizes
/// with it too, so its before and after columns are computed alike.
pub fn summarize(matches: &[u32], classes: usize, threshold: f64) -> RiskSummary {
    summarize_runs(
        &ProbabilityRuns::of_matches(matches, None),
        classes,
        threshold,
    )
}

/// [`summarize`] from the match counts' runs (a grouped table's rows
/// weighted by the records they stand for): the same figures, summed in the
/// same order, whichever way the records came.
pub fn summarize_runs(runs: &ProbabilityRuns, classes: usize, threshold: f64) -> RiskSummary {
    let n = runs.records() as usize;
    // Runs ascend in probability: the largest is the smallest count.
    let max = runs.max();
    let k = if n == 0 {
        0
    } else {
        (1.0 / max).round() as u32
    };
    RiskSummary {
        records: n,
        classes,
        k,
        uniques: runs.count(|p| p == 1.0) as usize,
        mean: runs.mean(),
        max,
        threshold,
        records_above_threshold: runs.count(|p| p > threshold) as usize,
    }
}

#[cfg(test)]
mod tests;
