//! MDAV at scale (issue 34): the same groups as the quadratic reference
//! ([`super::mdav::mdav_groups_reference`], which follows sdcMicro 5.8.1's
//! Mdav.cpp step for step) in O(n log n)-ish time, from a k-d tree over the
//! records with deletion (Bentley, "Multidimensional binary search trees
//! used for associative searching", CACM 18(9), 1975; Friedman, Bentley
//! and Finkel's branch-and-bound nearest-neighbour search, ACM TOMS 3(3),
//! 1977). No crate was used: `kiddo` and `kdtree` answer nearest and
//! within-radius queries in f64 with no deletion and no control over the
//! order of equal distances, and MDAV needs farthest-point queries,
//! deletion, sdcMicro's single-precision distances and its tie rules.
//!
//! The tree answers the two questions MDAV asks of the remaining records:
//! - the farthest record from a point (the first in record order among
//!   equal distances), and
//! - the k closest records to a record (ties to the *later* record, as
//!   sdcMicro's hash sort orders them), closest first.
//!
//! Every node keeps the bounding box, count and least/greatest record
//! number of its remaining records; a deletion refreshes them from the
//! leaf up. Pruning is exact, not approximate, under rounding: a node's
//! bound on the distance of its records is the distance function itself
//! (the same operations: difference in f64, square, times the weight,
//! rounded to f32 and summed in f32 for [`Precision::Single`]) applied to
//! the box corner nearest to (farthest from) the query, and every one of
//! those operations is monotone, so the bound's rounded value is never
//! above (below) the rounded distance of any record in the box. A node
//! whose bound equals the best distance so far is pruned only when its
//! record numbers cannot win the tie.
//!
//! The centroid is the hard part: the reference (and sdcMicro) sums the
//! remaining records in record order, anew for every pair of groups, and
//! that sum's rounding decides which record is farthest when two are
//! close. Here the sums are kept exactly enough (a double-double per
//! column, updated at each deletion), and the sequential sum's error is
//! bounded by γₙ·Σ|x| (Higham, Accuracy and Stability of Numerical
//! Algorithms, 2nd ed., §4.2), which gives an interval holding sdcMicro's
//! centroid. Each record's distance to the centroid is then known within an
//! interval (same monotone operations, at the interval's ends); when the
//! farthest record is not decided by the intervals (two records whose
//! intervals overlap the top, unless they are the same point, whose
//! distances are equal whatever the centroid), the centroid is summed as
//! the reference sums it, over the remaining records in record order, and
//! the undecided records compared with it. On continuous data that
//! happens for a small share of the steps (BENCHMARKS.md). The candidates
//! for the farthest record from the centroid come from a list sorted by
//! distance to an earlier centroid ([`Shell`]), not from the tree: the
//! remaining records end up a ball around the centroid, where box bounds
//! prune little.
//!
//! Speed (BENCHMARKS.md, "Issue 34: MDAV at scale"): 1M × 3 continuous
//! values at k = 3 in about 9 s on a loaded 2-core machine; integer columns
//! with many equal points take longer (about 14 s), because nodes whose
//! bound ties the best distance are pruned only by record number.

use super::mdav::{inverse_variance, Precision};
use crate::error::Result;
use crate::progress::Progress;

/// Records per leaf.
const LEAF: usize = 16;
const NONE: u32 = u32::MAX;

/// MDAV's distance: the squared weighted Euclidean distance, each term in
/// f64, summed in f32 (`Single`, sdcMicro's `TDist`) or in f64 (`Double`).
/// The same operations, in the same order, as the reference.
#[derive(Clone)]
struct Metric {
    weights: Vec<f64>,
    single: bool,
}

impl Metric {
    #[inline]
    fn term(&self, c: usize, diff: f64) -> f64 {
        diff * diff * self.weights[c]
    }

    /// Sums terms `term(c)` for c = 0..d in the metric's precision.
    #[inline]
    fn sum(&self, mut term: impl FnMut(usize) -> f64) -> f64 {
        if self.single {
            let mut s = 0f32;
            for c in 0..self.weights.len() {
                s += term(c) as f32;
            }
            f64::from(s)
        } else {
            let mut s = 0f64;
            for c in 0..self.weights.len() {
                s += term(c);
            }
            s
        }
    }
}

struct Node {
    /// Positions start..end of the tree order.
    start: u32,
    end: u32,
    left: u32,
    right: u32,
    parent: u32,
    alive: u32,
    /// Least and greatest record number of the remaining records.
    min_id: u32,
    max_id: u32,
}

/// A k-d tree over the records of one stratum with deletion.
pub(super) struct Tree {
    d: usize,
    metric: Metric,
    /// Coordinates in tree order, row-major: `pts[pos * d + c]`.
    pts: Vec<f64>,
    /// Record number at each tree position.
    ids: Vec<u32>,
    /// Tree position of each record.
    pos: Vec<u32>,
    alive: Vec<bool>,
    /// Leaf holding each tree position.
    leaf_of: Vec<u32>,
    nodes: Vec<Node>,
    /// Box of each node's remaining records: `lo[node * d + c]`.
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl Tree {
    fn new(x: &[Vec<f64>], metric: Metric) -> Tree {
        let d = x.len();
        let n = x.first().map_or(0, Vec::len);
        let mut ids: Vec<u32> = (0..n as u32).collect();
        let mut nodes = Vec::with_capacity(2 * n / LEAF + 2);
        build(x, &mut ids, 0, n, NONE, &mut nodes);
        let mut pts = vec![0.0; n * d];
        let mut pos = vec![0u32; n];
        for (p, &id) in ids.iter().enumerate() {
            pos[id as usize] = p as u32;
            for c in 0..d {
                pts[p * d + c] = x[c][id as usize];
            }
        }
        let mut leaf_of = vec![0u32; n];
        for (i, node) in nodes.iter().enumerate() {
            if node.left == NONE {
                for p in node.start..node.end {
                    leaf_of[p as usize] = i as u32;
                }
            }
        }
        let m = nodes.len();
        let mut tree = Tree {
            d,
            metric,
            pts,
            ids,
            pos,
            alive: vec![true; n],
            leaf_of,
            nodes,
            lo: vec![0.0; m * d],
            hi: vec![0.0; m * d],
        };
        // Children come after their parent in `nodes`: refresh backwards.
        for i in (0..m).rev() {
            tree.refresh(i);
        }
        tree
    }

    fn point(&self, p: usize) -> &[f64] {
        &self.pts[p * self.d..(p + 1) * self.d]
    }

    /// Recomputes node `i`'s count, record range and box from its leaf
    /// records or its children.
    fn refresh(&mut self, i: usize) {
        let d = self.d;
        let (mut alive, mut min_id, mut max_id) = (0u32, u32::MAX, 0u32);
        for c in 0..d {
            self.lo[i * d + c] = f64::INFINITY;
            self.hi[i * d + c] = f64::NEG_INFINITY;
        }
        let (start, end, left, right) = {
            let n = &self.nodes[i];
            (n.start as usize, n.end as usize, n.left, n.right)
        };
        if left == NONE {
            for p in start..end {
                if !self.alive[p] {
                    continue;
                }
                alive += 1;
                min_id = min_id.min(self.ids[p]);
                max_id = max_id.max(self.ids[p]);
                for c in 0..d {
                    let v = self.pts[p * d + c];
                    self.lo[i * d + c] = self.lo[i * d + c].min(v);
                    self.hi[i * d + c] = self.hi[i * d + c].max(v);
                }
            }
        } else {
            for child in [left as usize, right as usize] {
                let ch = &self.nodes[child];
                if ch.alive == 0 {
                    continue;
                }
                alive += ch.alive;
                min_id = min_id.min(ch.min_id);
                max_id = max_id.max(ch.max_id);
                for c in 0..d {
                    self.lo[i * d + c] = self.lo[i * d + c].min(self.lo[child * d + c]);
                    self.hi[i * d + c] = self.hi[i * d + c].max(self.hi[child * d + c]);
                }
            }
        }
        let node = &mut self.nodes[i];
        node.alive = alive;
        node.min_id = min_id;
        node.max_id = max_id;
    }

    fn remove(&mut self, id: usize) {
        let p = self.pos[id] as usize;
        debug_assert!(self.alive[p]);
        self.alive[p] = false;
        let mut i = self.leaf_of[p];
        while i != NONE {
            self.refresh(i as usize);
            i = self.nodes[i as usize].parent;
        }
    }

    /// Distance of the record at tree position `p` to `q`.
    #[inline]
    fn dist(&self, p: usize, q: &[f64]) -> f64 {
        let pt = self.point(p);
        self.metric.sum(|c| self.metric.term(c, pt[c] - q[c]))
    }

    /// Least distance any record in node `i`'s box can have to `q`.
    fn min_bound(&self, i: usize, q: &[f64]) -> f64 {
        if self.nodes[i].alive == 0 {
            return f64::INFINITY;
        }
        let (lo, hi) = self.bx(i);
        self.metric.sum(|c| {
            let e = q[c].clamp(lo[c], hi[c]);
            self.metric.term(c, e - q[c])
        })
    }

    /// Greatest distance any record in node `i`'s box can have to any point
    /// of the box `[ql, qh]` (a point when `ql == qh`).
    fn max_bound(&self, i: usize, ql: &[f64], qh: &[f64]) -> f64 {
        if self.nodes[i].alive == 0 {
            return f64::NEG_INFINITY;
        }
        let (lo, hi) = self.bx(i);
        self.metric.sum(|c| {
            let a = self.metric.term(c, hi[c] - ql[c]);
            let b = self.metric.term(c, lo[c] - qh[c]);
            a.max(b)
        })
    }

    fn bx(&self, i: usize) -> (&[f64], &[f64]) {
        let d = self.d;
        (&self.lo[i * d..(i + 1) * d], &self.hi[i * d..(i + 1) * d])
    }

    /// The remaining record farthest from `q`, the first in record order
    /// among equal distances.
    /// `seeds`: tree positions (remaining or not) measured first, so that
    /// the search starts from a good answer and prunes more.
    fn farthest(&self, q: &[f64], seeds: &[(f64, u32)]) -> usize {
        let mut best = (f64::NEG_INFINITY, u32::MAX);
        for &(_, p) in seeds {
            let p = p as usize;
            if self.alive[p] {
                let (dist, id) = (self.dist(p, q), self.ids[p]);
                if dist > best.0 || (dist == best.0 && id < best.1) {
                    best = (dist, id);
                }
            }
        }
        self.farthest_in(0, self.max_bound(0, q, q), q, &mut best);
        best.1 as usize
    }

    /// `bound`: node `i`'s [`Tree::max_bound`] (computed by the caller,
    /// which ordered the children by it).
    fn farthest_in(&self, i: usize, bound: f64, q: &[f64], best: &mut (f64, u32)) {
        let node = &self.nodes[i];
        if node.alive == 0 {
            return;
        }
        if bound < best.0 || (bound == best.0 && node.min_id > best.1) {
            return;
        }
        if node.left == NONE {
            for p in node.start as usize..node.end as usize {
                if !self.alive[p] {
                    continue;
                }
                let dist = self.dist(p, q);
                let id = self.ids[p];
                if dist > best.0 || (dist == best.0 && id < best.1) {
                    *best = (dist, id);
                }
            }
            return;
        }
        let (l, r) = (node.left as usize, node.right as usize);
        let bl = self.max_bound(l, q, q);
        let br = self.max_bound(r, q, q);
        if bl >= br {
            self.farthest_in(l, bl, q, best);
            self.farthest_in(r, br, q, best);
        } else {
            self.farthest_in(r, br, q, best);
            self.farthest_in(l, bl, q, best);
        }
    }

    /// The `k` remaining records closest to `q` (by distance, ties to the
    /// later record), closest first.
    fn closest(&self, q: &[f64], k: usize) -> Vec<usize> {
        // Kept sorted best first: (distance, record), a record better when
        // nearer or, at equal distance, later.
        let mut best: Vec<(f64, u32)> = Vec::with_capacity(k + 1);
        self.closest_in(0, self.min_bound(0, q), q, k, &mut best);
        best.into_iter().map(|(_, id)| id as usize).collect()
    }

    /// `bound`: node `i`'s [`Tree::min_bound`].
    fn closest_in(&self, i: usize, bound: f64, q: &[f64], k: usize, best: &mut Vec<(f64, u32)>) {
        let node = &self.nodes[i];
        if node.alive == 0 {
            return;
        }
        if best.len() == k {
            let worst = best[k - 1];
            if bound > worst.0 || (bound == worst.0 && node.max_id < worst.1) {
                return;
            }
        }
        if node.left == NONE {
            for p in node.start as usize..node.end as usize {
                if !self.alive[p] {
                    continue;
                }
                let cand = (self.dist(p, q), self.ids[p]);
                let better =
                    |a: &(f64, u32), b: &(f64, u32)| a.0 < b.0 || (a.0 == b.0 && a.1 > b.1);
                if best.len() == k && !better(&cand, &best[k - 1]) {
                    continue;
                }
                let at = best.partition_point(|b| better(b, &cand));
                best.insert(at, cand);
                best.truncate(k);
            }
            return;
        }
        let (l, r) = (node.left as usize, node.right as usize);
        let bl = self.min_bound(l, q);
        let br = self.min_bound(r, q);
        if bl <= br {
            self.closest_in(l, bl, q, k, best);
            self.closest_in(r, br, q, k, best);
        } else {
            self.closest_in(r, br, q, k, best);
            self.closest_in(l, bl, q, k, best);
        }
    }

    /// Bounds `[lo, hi]` of the distance of the record at position `p` to
    /// any point of the box `[ql, qh]`.
    fn dist_bounds(&self, p: usize, ql: &[f64], qh: &[f64]) -> (f64, f64) {
        let pt = self.point(p);
        let lo = self.metric.sum(|c| {
            let x = pt[c];
            if x > qh[c] {
                self.metric.term(c, x - qh[c])
            } else if x < ql[c] {
                self.metric.term(c, x - ql[c])
            } else {
                0.0
            }
        });
        let hi = self.metric.sum(|c| {
            let a = self.metric.term(c, pt[c] - ql[c]);
            let b = self.metric.term(c, pt[c] - qh[c]);
            a.max(b)
        });
        (lo, hi)
    }
}

/// Builds the subtree of records `ids[start..end]`, splitting at the median
/// of the widest coordinate (ties by record number, so equal points split
/// in record order and the record-number bounds prune them), and returns
/// its node number.
fn build(
    x: &[Vec<f64>],
    ids: &mut [u32],
    start: usize,
    end: usize,
    parent: u32,
    nodes: &mut Vec<Node>,
) -> u32 {
    let me = nodes.len() as u32;
    nodes.push(Node {
        start: start as u32,
        end: end as u32,
        left: NONE,
        right: NONE,
        parent,
        alive: 0,
        min_id: 0,
        max_id: 0,
    });
    if end - start <= LEAF {
        return me;
    }
    let slice = &mut ids[start..end];
    let mut axis = 0;
    let mut widest = f64::NEG_INFINITY;
    for (c, col) in x.iter().enumerate() {
        let (lo, hi) = slice
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &i| {
                let v = col[i as usize];
                (l.min(v), h.max(v))
            });
        if hi - lo > widest {
            widest = hi - lo;
            axis = c;
        }
    }
    let mid = slice.len() / 2;
    let col = &x[axis];
    slice.select_nth_unstable_by(mid, |&a, &b| {
        col[a as usize].total_cmp(&col[b as usize]).then(a.cmp(&b))
    });
    let left = build(x, ids, start, start + mid, me, nodes);
    let right = build(x, ids, start + mid, end, me, nodes);
    nodes[me as usize].left = left;
    nodes[me as usize].right = right;
    me
}

/// Whether the tree's exactness argument holds for these columns: weights
/// positive and finite, and values small enough that no difference or
/// square overflows. Otherwise the reference runs.
pub(super) fn tree_applies(x: &[Vec<f64>], weights: &[f64]) -> bool {
    weights.iter().all(|w| w.is_finite() && *w > 0.0)
        && x.iter().flatten().all(|v| v.abs() < 1e100)
        && x.first().map_or(0, Vec::len) < u32::MAX as usize
}

/// MDAV groups as [`super::mdav::mdav_groups_reference`] forms them, with
/// the tree. `x` column-major, finite values.
pub(super) fn mdav_groups_tree(
    x: &[Vec<f64>],
    k: usize,
    precision: Precision,
    progress: &Progress,
) -> Result<Vec<Vec<usize>>> {
    let n = x.first().map_or(0, Vec::len);
    let weights: Vec<f64> = x.iter().map(|col| inverse_variance(col)).collect();
    let metric = Metric {
        weights,
        single: precision == Precision::Single,
    };
    let mut tree = Tree::new(x, metric);
    let mut centroid = Centroid::new(x);
    let mut shell = Shell::default();
    // Remaining records in record order, compacted when the centroid must
    // be summed as the reference sums it.
    let mut order: Vec<usize> = (0..n).collect();
    let mut remaining = n;
    let mut groups = Vec::with_capacity(n / k.max(1));
    progress.set_total(n as u64);
    while k > 0 && remaining >= 2 * k {
        progress.check()?;
        let pairs = if remaining < 3 * k { 1 } else { 2 };
        let mut from =
            farthest_from_centroid(&tree, &mut shell, &centroid, x, &mut order, remaining);
        for _ in 0..pairs {
            let origin: Vec<f64> = x.iter().map(|col| col[from]).collect();
            // The records farthest from the last centroid are likely
            // candidates for the farthest from `origin`.
            let next = tree.farthest(&origin, shell.top(32));
            let group = tree.closest(&origin, k);
            for &i in &group {
                tree.remove(i);
                centroid.remove(x, i);
            }
            remaining -= group.len();
            groups.push(group);
            from = next;
        }
        progress.advance((pairs * k) as u64);
    }
    if remaining > 0 {
        progress.advance(remaining as u64);
        let last: Vec<usize> = order
            .into_iter()
            .filter(|&i| tree.alive[tree.pos[i] as usize])
            .collect();
        groups.push(last);
    }
    Ok(groups)
}

/// The reference's farthest record from the centroid of the remaining
/// records (the first in record order among equals).
fn farthest_from_centroid(
    tree: &Tree,
    shell: &mut Shell,
    centroid: &Centroid,
    x: &[Vec<f64>],
    order: &mut Vec<usize>,
    remaining: usize,
) -> usize {
    let (ql, qh) = centroid.interval(remaining);
    let cands = shell.candidates(tree, &ql, &qh, remaining);
    let decided = |cands: &[(usize, f64, f64)]| -> Option<usize> {
        let first = cands[0].0;
        let same_point = cands
            .iter()
            .all(|&(p, _, _)| tree.point(p) == tree.point(first));
        if same_point {
            return cands
                .iter()
                .map(|&(p, _, _)| tree.ids[p])
                .min()
                .map(|i| i as usize);
        }
        if cands.iter().all(|&(_, lo, hi)| lo == hi) {
            let top = cands.iter().map(|c| c.2).fold(f64::NEG_INFINITY, f64::max);
            return cands
                .iter()
                .filter(|c| c.2 == top)
                .map(|&(p, _, _)| tree.ids[p])
                .min()
                .map(|i| i as usize);
        }
        None
    };
    if let Some(i) = decided(&cands) {
        return i;
    }
    // Undecided: the centroid as the reference sums it.
    order.retain(|&i| tree.alive[tree.pos[i] as usize]);
    let center: Vec<f64> = x
        .iter()
        .map(|col| order.iter().map(|&i| col[i]).sum::<f64>() / order.len() as f64)
        .collect();
    let mut best = (f64::NEG_INFINITY, u32::MAX);
    for &(p, _, _) in &cands {
        let dist = tree.dist(p, &center);
        let id = tree.ids[p];
        if dist > best.0 || (dist == best.0 && id < best.1) {
            best = (dist, id);
        }
    }
    best.1 as usize
}

/// The farthest-from-centroid query. The remaining records end up a ball
/// around the centroid (MDAV peels the outermost first), so many records
/// are almost equally far from it and a k-d tree's box bounds prune
/// little. Instead the records are sorted once by their (f64) distance to
/// a fixed point `c0`, and a query at a centroid `c` scans them from the
/// farthest down: by the triangle inequality a record's distance to `c` is
/// at most (√d₀ + ρ)², ρ the (weighted) distance from `c0` to the
/// centroid's interval, so the scan stops when that bound, widened by far
/// more than f32 rounding can move a distance, is below the best lower
/// bound found. The sort is redone at the current centroid
/// when the scans since the last sort have cost more than a sort does.
#[derive(Default)]
struct Shell {
    c0: Vec<f64>,
    /// (distance to `c0`, tree position), farthest first.
    sorted: Vec<(f64, u32)>,
    /// Entries before `head` are all removed records.
    head: usize,
    scanned: usize,
}

impl Shell {
    fn rebuild(&mut self, tree: &Tree, ql: &[f64], qh: &[f64]) {
        self.c0 = ql.iter().zip(qh).map(|(l, h)| l + (h - l) / 2.0).collect();
        let w = &tree.metric.weights;
        self.sorted.clear();
        for p in 0..tree.alive.len() {
            if tree.alive[p] {
                let pt = tree.point(p);
                let d0: f64 = (0..w.len())
                    .map(|c| (pt[c] - self.c0[c]).powi(2) * w[c])
                    .sum();
                self.sorted.push((d0, p as u32));
            }
        }
        self.sorted.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        self.head = 0;
        self.scanned = 0;
    }

    /// Up to `m` entries from the farthest remaining one on.
    fn top(&self, m: usize) -> &[(f64, u32)] {
        let end = (self.head + m).min(self.sorted.len());
        &self.sorted[self.head..end]
    }

    fn candidates(
        &mut self,
        tree: &Tree,
        ql: &[f64],
        qh: &[f64],
        remaining: usize,
    ) -> Vec<(usize, f64, f64)> {
        if self.sorted.is_empty() || self.scanned > 4 * remaining + 1024 {
            self.rebuild(tree, ql, qh);
        }
        let w = &tree.metric.weights;
        let rho2: f64 = (0..w.len())
            .map(|c| {
                let a = (ql[c] - self.c0[c]).abs().max((qh[c] - self.c0[c]).abs());
                a * a * w[c]
            })
            .sum();
        let rho = rho2.sqrt() * (1.0 + 1e-9);
        while self.head < self.sorted.len() && !tree.alive[self.sorted[self.head].1 as usize] {
            self.head += 1;
        }
        // A single-precision distance of d terms is within (d + 1)·2⁻²⁴
        // (relative) of the exact one; the widening is twenty times that and
        // at least 10⁻⁵.
        let widen = 1.0 + (1e-5f64).max(10.0 * (w.len() + 1) as f64 * f64::from(f32::EPSILON));
        let mut floor = f64::NEG_INFINITY;
        let mut out = Vec::new();
        for &(d0, p) in &self.sorted[self.head..] {
            self.scanned += 1;
            let reach = d0.sqrt() + rho;
            if reach * reach * widen + 1e-300 < floor {
                break;
            }
            let p = p as usize;
            if !tree.alive[p] {
                continue;
            }
            let (lo, hi) = tree.dist_bounds(p, ql, qh);
            if hi >= floor {
                floor = floor.max(lo);
                out.push((p, lo, hi));
            }
        }
        out.retain(|&(_, _, hi)| hi >= floor);
        out
    }
}

/// The sums of the remaining records per column, as double-doubles (each
/// deletion subtracted with an error-free TwoSum), and the sums of their
/// absolute values, for the bound on the reference's sequential sum.
struct Centroid {
    hi: Vec<f64>,
    lo: Vec<f64>,
    abs: Vec<f64>,
    /// Σ|x| of all records, and the number of updates so far: the running
    /// sums' own rounding is at most `updates · u · total` (Σ|x|) and
    /// `updates · u² · total` (the double-double).
    total: Vec<f64>,
    updates: f64,
}

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

impl Centroid {
    fn new(x: &[Vec<f64>]) -> Centroid {
        let mut c = Centroid {
            hi: vec![0.0; x.len()],
            lo: vec![0.0; x.len()],
            abs: vec![0.0; x.len()],
            total: vec![0.0; x.len()],
            updates: 0.0,
        };
        for (j, col) in x.iter().enumerate() {
            for &v in col {
                c.add(j, v);
            }
        }
        c.total = c.abs.clone();
        c.updates = x.first().map_or(0, Vec::len) as f64;
        c
    }

    fn add(&mut self, j: usize, v: f64) {
        let (s, e) = two_sum(self.hi[j], v);
        let (s, e2) = two_sum(s, self.lo[j] + e);
        self.hi[j] = s;
        self.lo[j] = e2;
        self.abs[j] += v.abs();
    }

    fn remove(&mut self, x: &[Vec<f64>], i: usize) {
        for (j, col) in x.iter().enumerate() {
            let v = col[i];
            self.add(j, -v);
            // `add` added |v|; take it and |v| off again.
            self.abs[j] -= 2.0 * v.abs();
        }
        self.updates += 1.0;
    }

    /// An interval per column holding the reference's centroid of the `n`
    /// remaining records: the sequential sum is within γ_{n−1}·Σ|x| of the
    /// exact sum (Higham, §4.2), the division adds half an ulp, and the
    /// double-double and the running Σ|x| their own (smaller) errors; all
    /// are covered with a factor 2 and an absolute floor.
    fn interval(&self, n: usize) -> (Vec<f64>, Vec<f64>) {
        let u = f64::EPSILON / 2.0;
        let nf = n as f64;
        let gamma = (nf - 1.0).max(1.0) * u / (1.0 - nf * u);
        let mut ql = Vec::with_capacity(self.hi.len());
        let mut qh = Vec::with_capacity(self.hi.len());
        for j in 0..self.hi.len() {
            let mean = (self.hi[j] + self.lo[j]) / nf;
            let drift = (self.updates + 2.0) * u * self.total[j];
            let abs = self.abs[j].abs() * (1.0 + 4.0 * u) + drift;
            let delta = 2.0 * (gamma * abs / nf + drift * u / nf + 4.0 * u * mean.abs()) + 1e-300;
            ql.push(mean - delta);
            qh.push(mean + delta);
        }
        (ql, qh)
    }
}
