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
use radix_trie::{Trie, TrieCommon};
use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::partition::Partition;
use crate::progress::Progress;

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
pub struct HistogramBin {
    /// The bin is (lower, upper]; the first bin includes nothing below 0.
    pub lower: f64,
    pub upper: f64,
    pub records: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CdfPoint {
    /// A Pr(re-id) value that occurs.
    pub probability: f64,
    /// Share of records whose Pr(re-id) is at most `probability`.
    pub share: f64,
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

pub const HISTOGRAM_BINS: usize = 10;

/// The repeat detector RT of Algorithm 2: key → class id.
type KeyTrie = Trie<Vec<u8>, u32>;

/// Fixed-width big-endian key layout over the known attributes.
struct KeyLayout {
    widths: Vec<usize>,
    offsets: Vec<usize>,
    len: usize,
}

impl KeyLayout {
    fn new(ds: &Dataset, columns: &[usize]) -> Self {
        let widths: Vec<usize> = columns
            .iter()
            // +1: room for the "hidden" symbol after the missing code.
            .map(|&c| bytes_for(ds.col(c).code_space() as u64 + 1))
            .collect();
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
    if !(0.0..=1.0).contains(&threshold) {
        return Err(Error::Parameter(format!(
            "risk threshold {threshold} is not between 0 and 1"
        )));
    }
    let n = ds.n_rows();
    let cols = knowledge.columns;
    let d = cols.len();
    let hidden_cells: usize = (0..d)
        .filter_map(|a| knowledge.hidden_at(a))
        .map(|b| b.count_ones(..))
        .sum();
    progress.set_total((n * (d + 2)) as u64);

    let layout = KeyLayout::new(ds, cols);
    let (trie, class_of) = index_repeats(ds, knowledge, &layout, progress)?;
    let classes = Partition::from_class_ids(class_of);

    let (matches, prefix_counts) = if hidden_cells == 0 {
        let m: Vec<u32> = (0..n).map(|r| classes.size_of_row(r)).collect();
        (m, prefix_from_trie(&trie, &classes, &layout))
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
            let (t, _) = index_repeats(ds, sub, &sub_layout, &Progress::new())?;
            rows.push((t.len(), mj.iter().filter(|&&c| c == 1).count()));
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
    let summary = summarize(&matches, classes.n_classes(), threshold);
    Ok(Simulation {
        attributes: cols.iter().map(|&c| ds.col(c).name().to_string()).collect(),
        histogram: histogram(&matches),
        cdf: cdf(&matches),
        matches,
        classes,
        summary,
        prefix,
        hidden_cells,
    })
}

/// Algorithm 2, `indexRepeats`: the radix tree of keys. The value is the
/// class id given at first insertion, so the count lookup of Algorithm 3 is
/// an array read instead of a second walk down the tree.
fn index_repeats(
    ds: &Dataset,
    knowledge: Knowledge<'_>,
    layout: &KeyLayout,
    progress: &Progress,
) -> Result<(KeyTrie, Vec<u32>)> {
    let n = ds.n_rows();
    let codes: Vec<&[u32]> = knowledge
        .columns
        .iter()
        .map(|&c| ds.col(c).codes())
        .collect();
    let hidden_code: Vec<u32> = knowledge
        .columns
        .iter()
        .map(|&c| ds.col(c).code_space() as u32)
        .collect();
    let mut trie: Trie<Vec<u8>, u32> = Trie::new();
    let mut class_of = Vec::with_capacity(n);
    let mut key = Vec::with_capacity(layout.len);
    let mut next = 0u32;
    for r in 0..n {
        if r % 8192 == 0 {
            progress.check()?;
            progress.advance(8192.min(n - r) as u64);
        }
        key.clear();
        for (a, col) in codes.iter().enumerate() {
            let hidden = knowledge.hidden_at(a).is_some_and(|h| h.contains(r));
            let code = if hidden { hidden_code[a] } else { col[r] };
            put_code(&mut key, code, layout.widths[a]);
        }
        let id = match trie.get(&key) {
            Some(&id) => id,
            None => {
                trie.insert(key.clone(), next);
                next += 1;
                next - 1
            }
        };
        class_of.push(id);
    }
    Ok((trie, class_of))
}

/// Classes and uniques for every prefix length, from one ordered walk of
/// the trie (no hidden cells).
fn prefix_from_trie(
    trie: &KeyTrie,
    classes: &Partition,
    layout: &KeyLayout,
) -> Vec<(usize, usize)> {
    let d = layout.widths.len();
    let mut out = vec![(0usize, 0usize); d];
    // Records in the currently open group at each prefix length.
    let mut open = vec![0u64; d];
    let mut prev: Option<&Vec<u8>> = None;
    for (key, &id) in trie.iter() {
        let size = u64::from(classes.sizes()[id as usize]);
        // Number of leading attributes this key shares with the previous one.
        let shared = match prev {
            None => 0,
            Some(p) => (0..d)
                .take_while(|&a| {
                    let (s, e) = (layout.offsets[a], layout.offsets[a + 1]);
                    p[s..e] == key[s..e]
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
        return Err(Error::Parameter(
            "the attacker may know at most 63 attributes".into(),
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
        return Err(Error::Parameter(format!(
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
    let key_of = |r: usize, skip: u64, key: &mut Vec<u8>| {
        key.clear();
        for a in 0..d {
            if skip & (1 << a) == 0 {
                put_code(key, codes[a][r], widths[a]);
            }
        }
    };
    let mut matches = vec![0u32; n];
    let mut key = Vec::new();
    for &q in &patterns {
        for &p in &patterns {
            progress.check()?;
            let skip = p | q;
            // Trie of the pattern-q records projected on what neither hides.
            let mut trie: Trie<Vec<u8>, u32> = Trie::new();
            for r in rows_of(q) {
                key_of(r, skip, &mut key);
                match trie.get_mut(&key) {
                    Some(c) => *c += 1,
                    None => {
                        trie.insert(key.clone(), 1);
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

fn summarize(matches: &[u32], classes: usize, threshold: f64) -> RiskSummary {
    let n = matches.len();
    let sum: f64 = matches.iter().map(|&m| 1.0 / f64::from(m)).sum();
    let k = matches.iter().copied().min().unwrap_or(0);
    RiskSummary {
        records: n,
        classes,
        k,
        uniques: matches.iter().filter(|&&m| m == 1).count(),
        mean: if n == 0 { 0.0 } else { sum / n as f64 },
        max: if k == 0 { 0.0 } else { 1.0 / f64::from(k) },
        threshold,
        records_above_threshold: matches
            .iter()
            .filter(|&&m| 1.0 / f64::from(m) > threshold)
            .count(),
    }
}

/// Ten equal bins over (0, 1], right-closed so uniques (1.0) land in the
/// last bin and a 1-in-5 chance in (0.1, 0.2].
pub fn histogram(matches: &[u32]) -> Vec<HistogramBin> {
    let mut counts = [0usize; HISTOGRAM_BINS];
    for &m in matches {
        let p = 1.0 / f64::from(m);
        // ceil(p·10) − 1, computed on integers to avoid 0.1·3 ≠ 0.3 edges:
        // p ≤ b/10  ⇔  10 ≤ b·m.
        let bin = (10u64.div_ceil(u64::from(m)) as usize).clamp(1, HISTOGRAM_BINS) - 1;
        debug_assert!(p <= (bin + 1) as f64 / 10.0 + 1e-12);
        counts[bin] += 1;
    }
    counts
        .iter()
        .enumerate()
        .map(|(i, &records)| HistogramBin {
            lower: i as f64 / HISTOGRAM_BINS as f64,
            upper: (i + 1) as f64 / HISTOGRAM_BINS as f64,
            records,
        })
        .collect()
}

/// The empirical CDF of Pr(re-id): one point per distinct value.
pub fn cdf(matches: &[u32]) -> Vec<CdfPoint> {
    let n = matches.len();
    if n == 0 {
        return Vec::new();
    }
    let mut sorted = matches.to_vec();
    // Descending match count = ascending probability.
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let mut out: Vec<CdfPoint> = Vec::new();
    for (i, &m) in sorted.iter().enumerate() {
        let share = (i + 1) as f64 / n as f64;
        let probability = 1.0 / f64::from(m);
        match out.last_mut() {
            Some(last) if last.probability == probability => last.share = share,
            _ => out.push(CdfPoint { probability, share }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Dataset {
        Dataset::from_rows(
            &["sex", "age", "zip"],
            &[
                vec!["M", "30", "100"],
                vec!["M", "30", "100"],
                vec!["M", "30", "200"],
                vec!["F", "30", "100"],
                vec!["F", "40", "100"],
                vec!["F", "40", "100"],
            ],
        )
        .unwrap()
    }

    #[test]
    fn key_counts_give_probabilities() {
        let ds = table();
        let s = simulate(&ds, Knowledge::plain(&[0, 1, 2]), 0.4, &Progress::new()).unwrap();
        assert_eq!(s.matches, vec![2, 2, 1, 1, 2, 2]);
        assert_eq!(s.summary.classes, 4);
        assert_eq!(s.summary.k, 1);
        assert_eq!(s.summary.uniques, 2);
        assert!((s.summary.mean - 4.0 / 6.0).abs() < 1e-12);
        assert_eq!(s.summary.records_above_threshold, 6);
        assert_eq!(s.histogram[4].records, 4, "0.5 falls in (0.4, 0.5]");
        assert_eq!(s.histogram[9].records, 2);
        assert_eq!(s.cdf.len(), 2);
        assert_eq!(s.cdf[0].probability, 0.5);
        assert!((s.cdf[0].share - 4.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn prefix_table_by_attacker_knowledge() {
        let ds = table();
        let s = simulate(&ds, Knowledge::plain(&[0, 1, 2]), 0.2, &Progress::new()).unwrap();
        let rows: Vec<(usize, usize)> = s.prefix.iter().map(|p| (p.classes, p.uniques)).collect();
        // sex: {M×3, F×3}; sex+age: {M30×3, F30×1, F40×2}; all: 4 classes, 2 uniques.
        assert_eq!(rows, vec![(2, 0), (3, 1), (4, 2)]);
        assert_eq!(s.prefix[1].attributes, vec!["sex", "age"]);
    }

    #[test]
    fn hidden_cells_are_wildcards_on_both_sides() {
        let ds = table();
        // Hide row 2's zip (the only 200) and row 3's sex.
        let mut zip_hidden = FixedBitSet::with_capacity(6);
        zip_hidden.insert(2);
        let mut sex_hidden = FixedBitSet::with_capacity(6);
        sex_hidden.insert(3);
        let hidden = [Some(&sex_hidden), None, Some(&zip_hidden)];
        let k = Knowledge {
            columns: &[0, 1, 2],
            hidden: &hidden,
        };
        let s = simulate(&ds, k, 0.2, &Progress::new()).unwrap();
        // Row 2 (M,30,*) matches rows 0,1 (M,30,100), row 3 (*,30,100) —
        // between 2 and 3 only age is visible on both — and itself; row 3
        // likewise matches 0,1,2; rows 0,1 match 0,1,2,3. Rows 4,5 (age 40)
        // stay a pair.
        assert_eq!(s.matches, vec![4, 4, 4, 4, 2, 2]);
        assert_eq!(s.hidden_cells, 2);
        assert_eq!(s.summary.uniques, 0);
        assert_eq!(s.prefix.last().map(|p| p.uniques), Some(0));
    }

    #[test]
    fn no_knowledge_means_one_class() {
        let ds = table();
        let s = simulate(&ds, Knowledge::plain(&[]), 0.2, &Progress::new()).unwrap();
        assert_eq!(s.summary.classes, 1);
        assert_eq!(s.summary.k, 6);
        assert!(s.prefix.is_empty());
    }

    #[test]
    fn cancelled_run_stops() {
        let p = Progress::new();
        p.cancel();
        assert!(matches!(
            simulate(&table(), Knowledge::plain(&[0]), 0.2, &p),
            Err(Error::Cancelled)
        ));
    }
}
