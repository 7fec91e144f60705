//! Checking one lattice node: its equivalence classes, which of them the
//! privacy model suppresses, and the metric.
//!
//! The rows are first grouped once by their original QI codes (the bottom
//! node's classes); every node's classes are unions of those, so a node is
//! evaluated over the distinct bottom tuples, not over the rows: each bottom
//! class gets a key from the per-level node tables of the bound hierarchies
//! (`BoundHierarchy::table`) and equal keys form one class. Rows are
//! touched again only for models that read sensitive values.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::data::{Column, Dataset};
use crate::hierarchy::BoundHierarchy;
use crate::partition::Partition;
use crate::privacy::{class_counts, ClassCounts, Model, TableDistribution};

use super::Metric;

/// Bottom classes per task when a node's keys are computed.
const KEY_CHUNK: usize = 1 << 15;

/// The classes of one node.
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(super) struct Classes {
    /// Class id of every bottom class.
    pub of_bottom: Vec<u32>,
    pub sizes: Vec<u32>,
    /// One bottom class of each class, to read its generalized values.
    pub representative: Vec<u32>,
}

/// What checking a node found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct NodeResult {
    pub anonymous: bool,
    /// Published classes (after suppression), when anonymous.
    pub classes: usize,
    pub suppressed_rows: u64,
    /// The metric, when anonymous.
    pub metric: f64,
}

pub(super) struct Evaluator<'a> {
    hierarchies: &'a [BoundHierarchy],
    /// Records: the rows, or what a grouped table's rows stand for.
    n: usize,
    /// Records per row of a grouped table.
    multiplicities: Option<std::sync::Arc<[u32]>>,
    /// `bottom[a][b]`: the code of attribute `a` in bottom class `b`.
    bottom: Vec<Vec<u32>>,
    bottom_sizes: Vec<u32>,
    bottom_of_row: Vec<u32>,
    sensitive: Vec<&'a Column>,
    model: Model,
    k: u32,
    max_suppressed: u64,
    metric: Metric,
    /// `loss[a][level][node]`: Iyengar's loss of a cell generalized to that
    /// node.
    loss: Vec<Vec<Vec<f64>>>,
    /// `row_loss[a][level]`: the loss of attribute `a` summed over all rows
    /// at that level (nothing suppressed).
    row_loss: Vec<Vec<f64>>,
}

/// Everything the evaluator needs besides the data.
pub(super) struct Setup<'a> {
    pub ds: &'a Dataset,
    pub qi: &'a [usize],
    pub hierarchies: &'a [BoundHierarchy],
    /// `leaf_counts[a][level][node]`: leaves of the hierarchy under each
    /// node (`Hierarchy::leaf_counts`), and the hierarchy's leaf total.
    pub leaf_counts: Vec<(Vec<Vec<usize>>, usize)>,
    pub sensitive: Vec<&'a Column>,
    pub model: Model,
    pub k: u32,
    pub max_suppressed: u64,
    pub metric: Metric,
}

impl<'a> Evaluator<'a> {
    pub(super) fn new(s: Setup<'a>) -> Self {
        let n = s.ds.records() as usize;
        // Weighted by a grouped table's multiplicities: sizes in records.
        let bottom_part = Partition::by_columns(s.ds, s.qi);
        let members = bottom_part.members();
        let bottom: Vec<Vec<u32>> =
            s.qi.iter()
                .map(|&c| {
                    let col = s.ds.col(c);
                    members
                        .iter()
                        .map(|rows| col.code(rows[0] as usize))
                        .collect()
                })
                .collect();
        let loss: Vec<Vec<Vec<f64>>> = s
            .hierarchies
            .iter()
            .zip(&s.leaf_counts)
            .map(|(h, (counts, total))| {
                (0..h.levels())
                    .map(|level| {
                        (0..h.n_nodes(level))
                            .map(|node| iyengar_loss(counts[level].get(node).copied(), *total))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let row_loss =
            s.qi.iter()
                .zip(s.hierarchies)
                .zip(&loss)
                .map(|((&c, h), per_level)| {
                    let freq = frequencies(s.ds.col(c), s.ds.multiplicities());
                    (0..h.levels())
                        .map(|level| {
                            freq.iter()
                                .enumerate()
                                .map(|(code, &f)| {
                                    f as f64 * per_level[level][h.node(level, code as u32) as usize]
                                })
                                .sum()
                        })
                        .collect()
                })
                .collect();
        Evaluator {
            hierarchies: s.hierarchies,
            n,
            multiplicities: s.ds.shared_multiplicities(),
            bottom,
            bottom_sizes: bottom_part.sizes().to_vec(),
            bottom_of_row: bottom_part.class_ids().to_vec(),
            sensitive: s.sensitive,
            model: s.model,
            k: s.k,
            max_suppressed: s.max_suppressed,
            metric: s.metric,
            loss,
            row_loss,
        }
    }

    /// A lower bound of the node's metric that needs no data pass: the
    /// metric with nothing suppressed for `loss` (a suppressed cell loses 1,
    /// at least as much as any generalization) and the exact value for
    /// `height`. `dm` has none better than 0 without counting classes.
    pub(super) fn lower_bound(&self, levels: &[usize]) -> f64 {
        match self.metric {
            Metric::Loss => self.generalization_loss(levels),
            Metric::Discernibility => 0.0,
            Metric::Height => levels.iter().sum::<usize>() as f64,
        }
    }

    /// Whether `lower_bound` is the metric itself: always for `height`, and
    /// for `loss` when nothing may be suppressed.
    pub(super) fn bound_is_exact(&self) -> bool {
        match self.metric {
            Metric::Height => true,
            Metric::Loss => self.max_suppressed == 0,
            Metric::Discernibility => false,
        }
    }

    /// How far apart two metric values may be and still tie: loss values
    /// are rounded sums of fractions; dm and height are integers.
    pub(super) fn tie_tolerance(&self, value: f64) -> f64 {
        match self.metric {
            Metric::Loss => 1e-9 * value.abs().max(1.0),
            Metric::Discernibility | Metric::Height => 0.0,
        }
    }

    pub(super) fn generalization_loss(&self, levels: &[usize]) -> f64 {
        let d = levels.len();
        if self.n == 0 || d == 0 {
            return 0.0;
        }
        let sum: f64 = levels
            .iter()
            .enumerate()
            .map(|(a, &l)| self.row_loss[a][l])
            .sum();
        sum / (self.n * d) as f64
    }

    /// The node's equivalence classes, numbered in the order of their first
    /// bottom class (the release's groups follow it).
    ///
    /// Each bottom class's key is its generalized codes in mixed radix,
    /// computed on every core a chunk at a time. Where the keys index an
    /// array (few possible keys) the numbering is one sweep; else the keys
    /// are split into one shard per core by a hash, each shard numbers its
    /// own classes in order of first appearance in its own map, and a
    /// merge of the shards by first bottom class gives the same numbering
    /// a single map would: the fine nodes near the bottom, with millions
    /// of classes, are most of the search's time.
    pub(super) fn classes(&self, levels: &[usize]) -> Classes {
        let nb = self.bottom_sizes.len();
        let widths: Vec<u64> = levels
            .iter()
            .enumerate()
            .map(|(a, &level)| self.hierarchies[a].n_nodes(level) as u64)
            .collect();
        let Some(span) = widths.iter().try_fold(1u64, |s, &w| s.checked_mul(w)) else {
            return self.classes_serial(levels);
        };
        let mut keys = vec![0u64; nb];
        keys.par_chunks_mut(KEY_CHUNK)
            .enumerate()
            .for_each(|(i, chunk)| {
                let at = i * KEY_CHUNK;
                for (a, &level) in levels.iter().enumerate() {
                    let table = self.hierarchies[a].table(level);
                    let w = widths[a];
                    let bottom = &self.bottom[a][at..at + chunk.len()];
                    for (key, &code) in chunk.iter_mut().zip(bottom) {
                        *key = *key * w + table[code as usize] as u64;
                    }
                }
            });
        let shards = rayon::current_num_threads().clamp(1, 64);
        if u128::from(span) <= (4 * nb as u128).max(1 << 16) || shards == 1 || nb < 1 << 16 {
            return number(&keys, &self.bottom_sizes, span);
        }
        number_sharded(&keys, &self.bottom_sizes, shards)
    }

    /// [`Self::classes`] for the nodes whose code spaces multiply past
    /// `u64`: the keys are computed one attribute at a time and renumbered
    /// densely whenever their mixed radix would overflow.
    fn classes_serial(&self, levels: &[usize]) -> Classes {
        let nb = self.bottom_sizes.len();
        let mut keys = vec![0u64; nb];
        let mut span: u128 = 1;
        for (a, &level) in levels.iter().enumerate() {
            let h = &self.hierarchies[a];
            let width = h.n_nodes(level) as u128;
            if span * width > u64::MAX as u128 {
                // Renumber the keys so far densely (at most `nb` of them)
                // before the mixed-radix key would overflow.
                span = densify(&mut keys) as u128;
            }
            let table = h.table(level);
            let w = width as u64;
            for (key, &code) in keys.iter_mut().zip(&self.bottom[a]) {
                *key = *key * w + table[code as usize] as u64;
            }
            span *= width;
        }
        // At most `u64::MAX`: the keys were renumbered before it overflowed.
        number(&keys, &self.bottom_sizes, span as u64)
    }

    /// The code of attribute `a` in bottom class `b`.
    pub(super) fn bottom_code(&self, a: usize, b: usize) -> u32 {
        self.bottom[a][b]
    }

    /// Class id of every row.
    pub(super) fn class_of_row(&self, classes: &Classes) -> Vec<u32> {
        self.bottom_of_row
            .iter()
            .map(|&b| classes.of_bottom[b as usize])
            .collect()
    }

    /// Which classes the model suppresses, or `None` when they hold more
    /// rows than `limit` (the search's limit, or `u64::MAX`: every failing
    /// class, however many rows).
    pub(super) fn suppressed_within(
        &self,
        classes: &Classes,
        limit: u64,
    ) -> Option<(Vec<bool>, u64)> {
        let mut fail: Vec<bool> = classes.sizes.iter().map(|&s| s < self.k).collect();
        let mut rows: u64 = sum_failing(&fail, &classes.sizes);
        if rows > limit {
            return None;
        }
        if matches!(self.model, Model::K) || self.sensitive.is_empty() {
            return Some((fail, rows));
        }
        let partition = Partition::from_class_ids(self.class_of_row(classes))
            .weighted(self.multiplicities.clone());
        let counts: Vec<ClassCounts> = self
            .sensitive
            .iter()
            .map(|col| class_counts(&partition, col))
            .collect();
        for cc in &counts {
            for (c, class) in cc.iter().enumerate() {
                if !fail[c] && !self.model.class_ok(class) {
                    fail[c] = true;
                }
            }
        }
        rows = sum_failing(&fail, &classes.sizes);
        if rows > limit {
            return None;
        }
        if self.model.is_table_relative() {
            rows = self.table_fixpoint(&counts, &mut fail, &classes.sizes, limit)?;
        }
        Some((fail, rows))
    }

    /// The table-relative models (t-closeness, δ-disclosure, β-likeness)
    /// are measured against the published table (as the verifier does),
    /// which loses the suppressed classes' rows; suppressing a class moves
    /// the table, so this repeats until every published class is close
    /// enough. Each round suppresses at least one more class, so it ends.
    fn table_fixpoint(
        &self,
        counts: &[ClassCounts],
        fail: &mut [bool],
        sizes: &[u32],
        limit: u64,
    ) -> Option<u64> {
        loop {
            let mut changed = false;
            for (cc, col) in counts.iter().zip(&self.sensitive) {
                let mut published = frequencies(col, self.multiplicities.as_deref());
                for (c, class) in cc.iter().enumerate() {
                    if fail[c] {
                        for v in class {
                            published[v.code as usize] -= v.count as u64;
                        }
                    }
                }
                let table = TableDistribution::from_counts(published, col.is_numeric());
                for (c, class) in cc.iter().enumerate() {
                    if !fail[c] && !self.model.close_to_table(class, &table) {
                        fail[c] = true;
                        changed = true;
                    }
                }
            }
            let rows = sum_failing(fail, sizes);
            if rows > limit {
                return None;
            }
            if !changed {
                return Some(rows);
            }
        }
    }

    /// Check a node and, when it is anonymous, measure it.
    pub(super) fn evaluate(&self, levels: &[usize]) -> NodeResult {
        self.evaluate_within(levels, self.max_suppressed)
    }

    /// As [`Evaluator::evaluate`] with another suppression limit.
    pub(super) fn evaluate_within(&self, levels: &[usize], limit: u64) -> NodeResult {
        let classes = self.classes(levels);
        match self.suppressed_within(&classes, limit) {
            None => NodeResult {
                anonymous: false,
                classes: 0,
                suppressed_rows: 0,
                metric: f64::INFINITY,
            },
            Some((fail, rows)) => NodeResult {
                anonymous: true,
                classes: fail.iter().filter(|&&f| !f).count(),
                suppressed_rows: rows,
                metric: self.metric_of(levels, &classes, &fail, rows),
            },
        }
    }

    fn metric_of(&self, levels: &[usize], classes: &Classes, fail: &[bool], rows: u64) -> f64 {
        match self.metric {
            Metric::Height => levels.iter().sum::<usize>() as f64,
            Metric::Discernibility => {
                let kept: u64 = classes
                    .sizes
                    .iter()
                    .zip(fail)
                    .filter(|(_, &f)| !f)
                    .map(|(&s, _)| s as u64 * s as u64)
                    .sum();
                (kept + self.n as u64 * rows) as f64
            }
            Metric::Loss => {
                let d = levels.len();
                if self.n == 0 || d == 0 {
                    return 0.0;
                }
                // A suppressed row loses 1 per attribute instead of its
                // generalized cells' loss.
                let mut extra = 0.0;
                for (c, (&size, &f)) in classes.sizes.iter().zip(fail).enumerate() {
                    if !f {
                        continue;
                    }
                    let b = classes.representative[c] as usize;
                    let cells: f64 = levels
                        .iter()
                        .enumerate()
                        .map(|(a, &l)| {
                            let node = self.hierarchies[a].node(l, self.bottom[a][b]);
                            1.0 - self.loss[a][l][node as usize]
                        })
                        .sum();
                    extra += size as f64 * cells;
                }
                self.generalization_loss(levels) + extra / (self.n * d) as f64
            }
        }
    }
}

/// Iyengar's loss of a node with `leaves` hierarchy leaves below it, out of
/// `total`: (leaves − 1)/(total − 1). A node that is not in the hierarchy
/// (the `?` node binding adds for missing cells) says nothing and loses 1.
fn iyengar_loss(leaves: Option<usize>, total: usize) -> f64 {
    match leaves {
        Some(m) if m >= 1 && total > 1 => (m - 1) as f64 / (total - 1) as f64,
        Some(_) if total <= 1 => 0.0,
        _ => 1.0,
    }
}

/// Records per code of `col`: its rows, or what a grouped table's rows
/// stand for.
fn frequencies(col: &Column, multiplicities: Option<&[u32]>) -> Vec<u64> {
    match multiplicities {
        None => col.frequencies(),
        Some(w) => {
            let mut f = vec![0u64; col.code_space()];
            for (&c, &m) in col.codes().iter().zip(w) {
                f[c as usize] += u64::from(m);
            }
            f
        }
    }
}

fn sum_failing(fail: &[bool], sizes: &[u32]) -> u64 {
    fail.iter()
        .zip(sizes)
        .filter(|(&f, _)| f)
        .map(|(_, &s)| s as u64)
        .sum()
}

/// Classes of bottom keys, numbered in one sweep: by an array indexed
/// by the key when the keys are few (`span` of them), else by a map.
fn number(keys: &[u64], bottom_sizes: &[u32], span: u64) -> Classes {
    let nb = keys.len();
    let mut classes = Classes {
        of_bottom: Vec::with_capacity(nb),
        sizes: Vec::new(),
        representative: Vec::new(),
    };
    // Generalized nodes have few possible keys: index an array by the
    // key (slot = class id + 1) instead of hashing.
    if u128::from(span) <= (4 * nb as u128).max(1 << 16) {
        let mut slot = vec![0u32; span as usize];
        for (b, &key) in keys.iter().enumerate() {
            let s = &mut slot[key as usize];
            if *s == 0 {
                *s = classes.sizes.len() as u32 + 1;
                classes.sizes.push(0);
                classes.representative.push(b as u32);
            }
            classes.sizes[*s as usize - 1] += bottom_sizes[b];
            classes.of_bottom.push(*s - 1);
        }
    } else {
        let mut ids: FxHashMap<u64, u32> = FxHashMap::default();
        for (b, &key) in keys.iter().enumerate() {
            let next = ids.len() as u32;
            let id = *ids.entry(key).or_insert(next);
            if id == next {
                classes.sizes.push(0);
                classes.representative.push(b as u32);
            }
            classes.sizes[id as usize] += bottom_sizes[b];
            classes.of_bottom.push(id);
        }
    }
    classes
}

/// [`number`]'s map, split into `shards` maps filled side by side.
fn number_sharded(keys: &[u64], bottom_sizes: &[u32], shards: usize) -> Classes {
    let shard_of = |key: u64| crate::partition::shard_of(key, shards);
    // Per shard: each of its bottom classes' local id in bottom order,
    // and per local class its first bottom class and its size.
    let locals: Vec<(Vec<u32>, Vec<u32>, Vec<u32>)> = (0..shards)
        .into_par_iter()
        .map(|shard| {
            let mut ids: FxHashMap<u64, u32> = FxHashMap::default();
            let (mut of_bottom, mut first, mut sizes) = (Vec::new(), Vec::new(), Vec::new());
            for (b, &key) in keys.iter().enumerate() {
                if shard_of(key) != shard {
                    continue;
                }
                let next = ids.len() as u32;
                let id = *ids.entry(key).or_insert(next);
                if id == next {
                    first.push(b as u32);
                    sizes.push(0);
                }
                sizes[id as usize] += bottom_sizes[b];
                of_bottom.push(id);
            }
            (of_bottom, first, sizes)
        })
        .collect();
    // Global ids in order of first bottom class: a merge of the shards'
    // lists, each ascending already.
    let total: usize = locals.iter().map(|(_, first, _)| first.len()).sum();
    let mut global: Vec<Vec<u32>> = locals.iter().map(|(_, f, _)| vec![0; f.len()]).collect();
    let mut classes = Classes {
        of_bottom: Vec::with_capacity(keys.len()),
        sizes: Vec::with_capacity(total),
        representative: Vec::with_capacity(total),
    };
    let mut next = vec![0usize; shards];
    while classes.sizes.len() < total {
        let (s, &b) = locals
            .iter()
            .enumerate()
            .filter_map(|(s, (_, first, _))| first.get(next[s]).map(|b| (s, b)))
            .min_by_key(|&(_, &b)| b)
            .expect("a shard has classes left");
        global[s][next[s]] = classes.sizes.len() as u32;
        classes.sizes.push(locals[s].2[next[s]]);
        classes.representative.push(b);
        next[s] += 1;
    }
    next.iter_mut().for_each(|n| *n = 0);
    for &key in keys {
        let s = shard_of(key);
        classes
            .of_bottom
            .push(global[s][locals[s].0[next[s]] as usize]);
        next[s] += 1;
    }
    classes
}

/// Replace keys by dense ids in order of first appearance; returns how many.
fn densify(keys: &mut [u64]) -> usize {
    let mut ids: FxHashMap<u64, u64> = FxHashMap::default();
    for key in keys.iter_mut() {
        let next = ids.len() as u64;
        *key = *ids.entry(*key).or_insert(next);
    }
    ids.len()
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    #[test]
    fn loss_of_nodes() {
        assert_eq!(iyengar_loss(Some(1), 5), 0.0);
        assert_eq!(iyengar_loss(Some(5), 5), 1.0);
        assert_eq!(iyengar_loss(Some(3), 5), 0.5);
        assert_eq!(iyengar_loss(None, 5), 1.0);
        assert_eq!(iyengar_loss(Some(1), 1), 0.0);
    }

    /// The sharded numbering is the one-map numbering: the same ids in the
    /// same order, sizes and first bottom classes, for any number of
    /// shards, on keys with repeats and singletons.
    #[test]
    fn sharded_numbering_is_the_one_map_numbering() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut next = |n: u64| rng.random_range(0..n);
        for (n, distinct) in [
            (0, 1),
            (1, 1),
            (1_000, 10),
            (20_000, 30_000),
            (5_000, 1 << 40),
        ] {
            let keys: Vec<u64> = (0..n).map(|_| next(distinct) * 1_000_003).collect();
            let sizes: Vec<u32> = (0..n).map(|_| 1 + next(5) as u32).collect();
            let one = number(&keys, &sizes, u64::MAX);
            for shards in 1..=5 {
                assert_eq!(
                    number_sharded(&keys, &sizes, shards),
                    one,
                    "{n} keys, {shards} shards"
                );
            }
        }
    }

    #[test]
    fn densify_keeps_equal_keys_equal() {
        let mut k = vec![90, 7, 90, 3];
        assert_eq!(densify(&mut k), 3);
        assert_eq!(k, vec![0, 1, 0, 2]);
    }
}
