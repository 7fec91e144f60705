//! The kd-tree over the rows cross-bucket generalization has not placed
//! yet: Alg. 3's upper levels without scanning the table for every batch,
//! and the nearest-neighbour search of `select_tuples` on large regions
//! (module doc of `cbg`: "`pick_tuples` starts from a kd-tree", "Small and
//! large regions").

use rand::seq::IndexedRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::plan::SenSet;
use super::space::{Metric, Space, WORDS};
use super::NONE;

/// Node × value counters the kd-tree may hold; leaves grow to stay under it.
pub(super) const MAX_COUNTERS: usize = 1 << 24;
/// Words the kd-tree's per-value bounds may take (128 MiB); beyond it
/// `nearest` bounds by the nodes' bounds alone.
const MAX_VALUE_BOUNDS: usize = 1 << 24;
/// Anchors the nearest-neighbour `select_tuples` of a large region tries.
const NEAR_ANCHORS: usize = 1;

/// Whether (distance, row) is below `best`; the sentinel `(limit, NONE)`
/// admits only distances below the limit.
fn beats(d: u64, row: u32, best: &(u64, u32)) -> bool {
    d < best.0 || (d == best.0 && best.1 != NONE && row < best.1)
}

/// The union of two code ranges packed as `lo | hi << 32`.
fn merge_range(x: u64, y: u64) -> u64 {
    let lo = (x as u32).min(y as u32);
    let hi = ((x >> 32) as u32).max((y >> 32) as u32);
    u64::from(lo) | u64::from(hi) << 32
}

/// A row as a query of `KdIndex::nearest`: its categorical bits and coded
/// codes.
struct Query<'a> {
    bits: [u64; WORDS],
    coded: &'a [u32],
}

#[derive(Debug, Clone, Copy)]
struct Node {
    start: u32,
    end: u32,
    left: u32,
    right: u32,
    parent: u32,
}

/// A kd-tree over the rows not yet placed, with per-node counts of the
/// remaining rows of each sensitive value: the upper levels of Alg. 3's
/// search without scanning the table for every batch. Rows are stored in
/// tree order with their QI codes side by side, so that scanning a leaf
/// reads memory in order.
#[derive(Clone)]
pub(super) struct KdIndex {
    n_values: usize,
    /// Row id at each position (tree order).
    perm: Vec<u32>,
    /// Categorical bits of the row at each position (`Metric`).
    bits: Vec<[u64; WORDS]>,
    /// Coded attributes' codes at each position: `coded[pos * n_coded + i]`.
    coded: Vec<u32>,
    /// Sensitive value at each position; NONE once the row is placed.
    value: Vec<u32>,
    /// Leaf holding each position.
    leaf_at: Vec<u32>,
    /// Position of each row id (NONE for rows not in the tree).
    pos_of: Vec<u32>,
    nodes: Vec<Node>,
    /// The least row id under each node, as built (a lower bound once rows
    /// are placed): `nearest` breaks ties by row id.
    min_row: Vec<u32>,
    /// `counts[v * nodes + node]`: remaining rows of value v in node (by
    /// value, as `value_bounds`).
    counts: Vec<u32>,
    /// What the rows under each node hold, as built (still a bound once
    /// some are placed): `stride` words per node — the union of their
    /// categorical bits, then per coded attribute the range `lo | hi << 32`.
    bounds: Vec<u64>,
    /// The same per sensitive value and node, at `(v * nodes + node) *
    /// stride` (a search, for one value, reads one block): far tighter for
    /// `nearest` than the node's, whose categorical sets hold most codes.
    /// Empty when the tree is too large for it (`MAX_VALUE_BOUNDS`).
    value_bounds: Vec<u64>,
    stride: usize,
    metric: Metric,
    built_with: usize,
    live: usize,
}

/// Set bits of `set` at positions [from, to).
fn count_bits(set: &[u64; WORDS], from: usize, to: usize) -> u32 {
    (from..to)
        .filter(|&b| set[b / 64] >> (b % 64) & 1 == 1)
        .count() as u32
}

/// Add one row (its bits and coded codes) to a bound of `stride` words.
fn widen(bound: &mut [u64], bits: &[u64; WORDS], coded: &[u32]) {
    for (b, &w) in bound.iter_mut().zip(bits) {
        *b |= w;
    }
    for (b, &c) in bound[WORDS..].iter_mut().zip(coded) {
        *b = merge_range(*b, u64::from(c) | u64::from(c) << 32);
    }
}

/// Merge the bound `from` into `into`.
fn merge_bound(into: &mut [u64], from: &[u64]) {
    for (t, &f) in into[..WORDS].iter_mut().zip(from) {
        *t |= f;
    }
    for (t, &f) in into[WORDS..].iter_mut().zip(&from[WORDS..]) {
        *t = merge_range(*t, f);
    }
}

impl KdIndex {
    pub(super) fn build(
        rows: Vec<u32>,
        space: &mut Space<'_>,
        value: &[u32],
        n_values: usize,
        leaf_cap: usize,
    ) -> Self {
        let mut perm = rows;
        let len = perm.len();
        let d = space.d();
        // Each row's categorical bits and coded codes (`Metric`), in tree
        // order: built first and moved with the rows while they are split,
        // so that a node's spreads are a pass over memory in order (an OR of
        // bit sets for the categorical attributes).
        let metric = space.metric.clone();
        let n_coded = metric.coded.len();
        let stride = WORDS + n_coded;
        let mut bits = vec![[0u64; WORDS]; len];
        let mut coded = Vec::with_capacity(len * n_coded);
        for (pos, &r) in perm.iter().enumerate() {
            for a in 0..d {
                if metric.offset[a] != NONE {
                    let bit = metric.offset[a] + space.cols[a][r as usize];
                    bits[pos][bit as usize / 64] |= 1 << (bit % 64);
                }
            }
            coded.extend(metric.coded.iter().map(|&a| space.cols[a][r as usize]));
        }
        let mut coded_at = vec![NONE; d];
        for (i, &a) in metric.coded.iter().enumerate() {
            coded_at[a] = i as u32;
        }
        let mut nodes = vec![Node {
            start: 0,
            end: len as u32,
            left: NONE,
            right: NONE,
            parent: NONE,
        }];
        let mut stack = vec![0usize];
        let mut lo = vec![0u32; n_coded];
        let mut hi = vec![0u32; n_coded];
        while let Some(id) = stack.pop() {
            let Node { start, end, .. } = nodes[id];
            let (s, e) = (start as usize, end as usize);
            if e - s <= leaf_cap {
                continue;
            }
            let mut union = [0u64; WORDS];
            for row in &bits[s..e] {
                for (u, &w) in union.iter_mut().zip(row) {
                    *u |= w;
                }
            }
            lo.fill(u32::MAX);
            hi.fill(0);
            if n_coded > 0 {
                for row in coded[s * n_coded..e * n_coded].chunks_exact(n_coded) {
                    for (i, &c) in row.iter().enumerate() {
                        lo[i] = lo[i].min(c);
                        hi[i] = hi[i].max(c);
                    }
                }
            }
            // Alg. 3's choose_attri: the widest normalized spread (the
            // first of equal ones), as `Space::spread` counts it.
            let (a, width) = (0..d)
                .map(|a| {
                    let spread = if metric.offset[a] != NONE {
                        let from = metric.offset[a] as usize;
                        count_bits(&union, from, from + space.stamps[a].len()) - 1
                    } else if space.numeric[a] {
                        let i = coded_at[a] as usize;
                        hi[i] - lo[i]
                    } else {
                        space.spread(&perm[s..e], a)
                    };
                    (a, spread as f64 * space.unit[a])
                })
                .fold(
                    (0, -1.0),
                    |best, cur| if cur.1 > best.1 { cur } else { best },
                );
            if width <= 0.0 {
                continue;
            }
            // T_l = {≤ cut} to the front, the rows' bits and codes with them.
            let cut = space.cut_value(&perm[s..e], a);
            let col = space.cols[a];
            let mut i = s;
            for j in s..e {
                if col[perm[j] as usize] <= cut {
                    if i != j {
                        perm.swap(i, j);
                        bits.swap(i, j);
                        for c in 0..n_coded {
                            coded.swap(i * n_coded + c, j * n_coded + c);
                        }
                    }
                    i += 1;
                }
            }
            let mid = i as u32;
            let left = nodes.len();
            nodes.push(Node {
                start,
                end: mid,
                left: NONE,
                right: NONE,
                parent: id as u32,
            });
            nodes.push(Node {
                start: mid,
                end,
                left: NONE,
                right: NONE,
                parent: id as u32,
            });
            nodes[id].left = left as u32;
            nodes[id].right = left as u32 + 1;
            stack.push(left);
            stack.push(left + 1);
        }

        let pos_value: Vec<u32> = perm.iter().map(|&r| value[r as usize]).collect();
        let mut pos_of = vec![NONE; value.len()];
        for (pos, &r) in perm.iter().enumerate() {
            pos_of[r as usize] = pos as u32;
        }
        // An empty bound: no bits, empty ranges (lo = u32::MAX, hi = 0).
        let mut empty = vec![0u64; stride];
        empty[WORDS..].fill(u64::from(u32::MAX));
        let mut leaf_at = vec![NONE; len];
        let mut counts = vec![0u32; nodes.len() * n_values];
        let mut bounds = empty.repeat(nodes.len());
        // Per value, what the rows of that value hold, when it fits.
        let mut value_bounds = Vec::new();
        if nodes.len() * n_values * stride <= MAX_VALUE_BOUNDS {
            value_bounds = empty.repeat(nodes.len() * n_values);
        }
        let mut min_row = vec![NONE; nodes.len()];
        for (id, node) in nodes.iter().enumerate() {
            if node.left != NONE {
                continue;
            }
            for pos in node.start as usize..node.end as usize {
                leaf_at[pos] = id as u32;
                let v = pos_value[pos] as usize;
                counts[v * nodes.len() + id] += 1;
                min_row[id] = min_row[id].min(perm[pos]);
                let row_coded = &coded[pos * n_coded..][..n_coded];
                widen(&mut bounds[id * stride..][..stride], &bits[pos], row_coded);
                if !value_bounds.is_empty() {
                    let at = (v * nodes.len() + id) * stride;
                    widen(&mut value_bounds[at..][..stride], &bits[pos], row_coded);
                }
            }
        }
        // Children come after their parent, so a reverse pass sums upwards.
        for id in (1..nodes.len()).rev() {
            let p = nodes[id].parent as usize;
            min_row[p] = min_row[p].min(min_row[id]);
            for v in 0..n_values {
                counts[v * nodes.len() + p] += counts[v * nodes.len() + id];
            }
            let (parent, child) = bounds.split_at_mut(id * stride);
            merge_bound(&mut parent[p * stride..][..stride], &child[..stride]);
            if !value_bounds.is_empty() {
                for v in 0..n_values {
                    let (parent, child) =
                        value_bounds.split_at_mut((v * nodes.len() + id) * stride);
                    let at = (v * nodes.len() + p) * stride;
                    merge_bound(&mut parent[at..][..stride], &child[..stride]);
                }
            }
        }
        KdIndex {
            n_values,
            perm,
            bits,
            coded,
            value: pos_value,
            leaf_at,
            pos_of,
            nodes,
            min_row,
            counts,
            bounds,
            value_bounds,
            stride,
            metric,
            built_with: len,
            live: len,
        }
    }

    fn node_holds(&self, node: u32, s_set: &[u32]) -> bool {
        s_set.iter().all(|&v| self.count(node, v) > 0)
    }

    /// Alg. 3's recursion on the tree: descend while a child still holds
    /// every value of S_set (the one with fewer remaining rows first); the
    /// node where that stops.
    pub(super) fn region(&self, s_set: &[u32]) -> u32 {
        let mut id = 0u32;
        loop {
            let node = self.nodes[id as usize];
            if node.left == NONE {
                return id;
            }
            let (l, r) = (
                self.node_holds(node.left, s_set),
                self.node_holds(node.right, s_set),
            );
            id = match (l, r) {
                (true, true) => {
                    if self.live_in(node.left) <= self.live_in(node.right) {
                        node.left
                    } else {
                        node.right
                    }
                }
                (true, false) => node.left,
                (false, true) => node.right,
                _ => return id,
            };
        }
    }

    fn count(&self, node: u32, v: u32) -> u32 {
        self.counts[v as usize * self.nodes.len() + node as usize]
    }

    /// Remaining rows under `node`.
    pub(super) fn live_in(&self, node: u32) -> usize {
        (0..self.n_values as u32)
            .map(|v| self.count(node, v) as usize)
            .sum()
    }

    /// Remaining rows under `node`, as row ids.
    /// In row order, so that what is done with them does not depend on how
    /// the build happened to arrange rows inside a node.
    pub(super) fn rows_of(&self, node: u32) -> Vec<u32> {
        let mut rows = self.live_under(node);
        rows.sort_unstable();
        rows
    }

    /// Remaining rows under `node`, in tree order.
    fn live_under(&self, node: u32) -> Vec<u32> {
        let node = self.nodes[node as usize];
        (node.start as usize..node.end as usize)
            .filter(|&pos| self.value[pos] != NONE)
            .map(|pos| self.perm[pos])
            .collect()
    }

    /// Every remaining row, for a rebuild (which does not depend on their
    /// order).
    pub(super) fn live_rows(&self) -> Vec<u32> {
        self.live_under(0)
    }

    /// A row in the tree as a query.
    fn query(&self, row: u32) -> Query<'_> {
        let pos = self.pos_of[row as usize] as usize;
        let n_coded = self.metric.coded.len();
        Query {
            bits: self.bits[pos],
            coded: &self.coded[pos * n_coded..][..n_coded],
        }
    }

    /// `Space::distance` between the query and the row at `pos`.
    fn distance_at(&self, q: &Query<'_>, pos: usize) -> u64 {
        let n_coded = self.metric.coded.len();
        let row = &self.bits[pos];
        let mut missing = [0u64; WORDS];
        for ((m, &qw), &rw) in missing.iter_mut().zip(&q.bits).zip(row) {
            *m = qw & !rw;
        }
        let codes = &self.coded[pos * n_coded..][..n_coded];
        let mut sum = self.metric.missing_weight(&missing);
        for ((&a, &qc), &rc) in self.metric.coded.iter().zip(q.coded).zip(codes) {
            sum += self.metric.term(a, qc, rc);
        }
        sum
    }

    /// A lower bound of the distance from the query to any row a bound
    /// (`bounds`' layout) covers: the query's categorical codes the rows
    /// never hold, and the gaps to the coded ranges.
    fn bound_distance(&self, bound: &[u64], q: &Query<'_>) -> u64 {
        let mut missing = [0u64; WORDS];
        for ((m, &qw), &bw) in missing.iter_mut().zip(&q.bits).zip(bound) {
            *m = qw & !bw;
        }
        let mut sum = self.metric.missing_weight(&missing);
        for ((&a, &qc), &range) in self.metric.coded.iter().zip(q.coded).zip(&bound[WORDS..]) {
            sum += self.metric.gap_term(a, qc, range);
        }
        sum
    }

    /// A lower bound of the distance from the query to the rows of value `v`
    /// under `node`: by what they hold when the tree keeps that, else by the
    /// node's rows.
    fn value_bound(&self, node: u32, v: u32, q: &Query<'_>) -> u64 {
        let stride = self.stride;
        let bound = if self.value_bounds.is_empty() {
            &self.bounds[node as usize * stride..][..stride]
        } else {
            let at = (v as usize * self.nodes.len() + node as usize) * stride;
            &self.value_bounds[at..][..stride]
        };
        self.bound_distance(bound, q)
    }

    /// Settle a tie of Alg. 2 (any choice keeps the plan dealable, by
    /// Ryser's lemma): from an anchor — a remaining row of the forced value
    /// rarest in the forced values' region, or of a random tied value when
    /// none is forced — take the tied values whose nearest remaining row is
    /// closest, so that S_set's tuples can be picked close together.
    pub(super) fn settle_ties(
        &self,
        sen: &SenSet,
        rng: &mut ChaCha8Rng,
        stack: &mut Vec<(u64, u32)>,
    ) -> Vec<u32> {
        let anchor = if sen.forced.is_empty() {
            sen.tied.choose(rng).and_then(|&v| self.sample(0, v, rng))
        } else {
            let region = self.region(&sen.forced);
            sen.forced
                .iter()
                .copied()
                .min_by_key(|&v| self.count(region, v))
                .and_then(|v| self.sample(region, v, rng))
        };
        let Some(anchor) = anchor else {
            return sen.with(sen.tied.iter().copied().take(sen.take));
        };
        let anchor_value = self.value[self.pos_of[anchor as usize] as usize];
        // The `take` nearest so far, by (distance, value); a value farther
        // than the last of them cannot enter, so its search stops there.
        let mut kept: Vec<(u64, u32)> = Vec::with_capacity(sen.take + 1);
        for &v in &sen.tied {
            let limit = if kept.len() < sen.take {
                u64::MAX
            } else {
                kept[sen.take - 1].0
            };
            let d = if anchor_value == v {
                Some(0)
            } else {
                self.nearest(stack, 0, anchor, v, limit).map(|(d, _)| d)
            };
            if let Some(d) = d {
                let at = kept.partition_point(|&(e, _)| e <= d);
                kept.insert(at, (d, v));
                kept.truncate(sen.take);
            }
        }
        // Values beyond every limit (none when the tree holds them all) fill
        // the rest in value order.
        for &v in &sen.tied {
            if kept.len() == sen.take {
                break;
            }
            if !kept.iter().any(|&(_, w)| w == v) {
                kept.push((u64::MAX, v));
            }
        }
        sen.with(kept.into_iter().map(|(_, v)| v))
    }

    /// `select_tuples` on a large region: anchors are remaining rows of the
    /// value rarest under `node`, drawn by the seeded RNG; for each, the
    /// nearest remaining row of every other value of S_set under `node`; the
    /// anchor whose picks are closest in total wins.
    pub(super) fn select_near(
        &self,
        node: u32,
        s_set: &[u32],
        rng: &mut ChaCha8Rng,
        stack: &mut Vec<(u64, u32)>,
    ) -> Vec<u32> {
        let Some((rarest, &v_star)) = s_set
            .iter()
            .enumerate()
            .min_by_key(|&(_, &v)| self.count(node, v))
        else {
            return Vec::new();
        };
        let mut anchors: Vec<u32> = Vec::with_capacity(NEAR_ANCHORS);
        for _ in 0..NEAR_ANCHORS {
            if let Some(r) = self.sample(node, v_star, rng) {
                if !anchors.contains(&r) {
                    anchors.push(r);
                }
            }
        }
        let mut best: Option<(u64, Vec<u32>)> = None;
        for &anchor in &anchors {
            let mut total = Some(0u64);
            let mut picked = Vec::with_capacity(s_set.len());
            for (i, &v) in s_set.iter().enumerate() {
                if i == rarest {
                    picked.push(anchor);
                    continue;
                }
                let Some(sum) = total else { break };
                // Only rows that can still bring the total below the best.
                let limit = best.as_ref().map_or(u64::MAX, |b| b.0).saturating_sub(sum);
                total = self.nearest(stack, node, anchor, v, limit).map(|(d, r)| {
                    picked.push(r);
                    sum + d
                });
            }
            if let Some(total) = total {
                if best.as_ref().is_none_or(|(b, _)| total < *b) {
                    best = Some((total, picked));
                }
            }
        }
        best.map(|(_, p)| p).unwrap_or_default()
    }

    /// A remaining row of value `v` under `node`, uniformly at random.
    fn sample(&self, mut node: u32, v: u32, rng: &mut ChaCha8Rng) -> Option<u32> {
        loop {
            let n = self.nodes[node as usize];
            if self.count(node, v) == 0 {
                return None;
            }
            if n.left == NONE {
                let mut rows: Vec<u32> = (n.start as usize..n.end as usize)
                    .filter(|&pos| self.value[pos] == v)
                    .map(|pos| self.perm[pos])
                    .collect();
                // Row order: the draw does not depend on the leaf's layout.
                rows.sort_unstable();
                return rows.choose(rng).copied();
            }
            let (l, r) = (self.count(n.left, v), self.count(n.right, v));
            node = if rng.random_range(0..l + r) < l {
                n.left
            } else {
                n.right
            };
        }
    }

    /// The remaining row of value `v` under `top` nearest to the row
    /// `anchor` (which must be in the tree under `top`), with its distance,
    /// if one is nearer than `limit`. Among equally near rows the first in
    /// the table: the result is the least (distance, row), one definite row
    /// whatever order the search visits nodes in or the tree keeps rows in.
    ///
    /// The search starts at the anchor's leaf, where the nearest rows
    /// usually are, and climbs to `top`, searching each sibling subtree
    /// depth-first (nearer child first) unless its box of value-`v` rows
    /// says no row there can beat the best so far. Started from `top`, a
    /// search computes both children's bounds at every level on its way
    /// down; climbing computes one per level.
    ///
    /// `stack` is the caller's scratch for the depth-first search, so that
    /// the tens of thousands of searches of a run do not allocate.
    fn nearest(
        &self,
        stack: &mut Vec<(u64, u32)>,
        top: u32,
        anchor: u32,
        v: u32,
        limit: u64,
    ) -> Option<(u64, u32)> {
        let q = &self.query(anchor);
        // (distance, row); the sentinel admits exactly the rows nearer than
        // `limit`.
        let mut best = (limit, NONE);
        let mut child = self.leaf_at[self.pos_of[anchor as usize] as usize];
        self.search_subtree(stack, child, q, v, &mut best);
        while child != top {
            let parent = self.nodes[child as usize].parent;
            let n = self.nodes[parent as usize];
            let sibling = if n.left == child { n.right } else { n.left };
            self.search_subtree(stack, sibling, q, v, &mut best);
            child = parent;
        }
        (best.1 != NONE).then_some(best)
    }

    /// Whether a row under `node`, at least `lower` away, may beat `best`
    /// by (distance, row).
    fn may_beat(&self, lower: u64, node: u32, best: &(u64, u32)) -> bool {
        beats(lower, self.min_row[node as usize], best)
    }

    /// The depth-first part of `nearest`: lower `best` to the least
    /// (distance, row) of the value-`v` rows under `node`.
    fn search_subtree(
        &self,
        stack: &mut Vec<(u64, u32)>,
        node: u32,
        q: &Query<'_>,
        v: u32,
        best: &mut (u64, u32),
    ) {
        if self.count(node, v) == 0 {
            return;
        }
        let lower = self.value_bound(node, v, q);
        if !self.may_beat(lower, node, best) {
            return;
        }
        stack.clear();
        stack.push((lower, node));
        while let Some((lower, id)) = stack.pop() {
            if !self.may_beat(lower, id, best) {
                continue;
            }
            let n = self.nodes[id as usize];
            if n.left == NONE {
                for pos in n.start as usize..n.end as usize {
                    if self.value[pos] != v {
                        continue;
                    }
                    let d = self.distance_at(q, pos);
                    let row = self.perm[pos];
                    if beats(d, row, best) {
                        *best = (d, row);
                    }
                }
                continue;
            }
            let mut near = [(u64::MAX, NONE); 2];
            for (slot, child) in near.iter_mut().zip([n.left, n.right]) {
                if self.count(child, v) > 0 {
                    let lower = self.value_bound(child, v, q);
                    if self.may_beat(lower, child, best) {
                        *slot = (lower, child);
                    }
                }
            }
            if near[1].0 < near[0].0 {
                near.swap(0, 1);
            }
            for &(lower, child) in near.iter().rev() {
                if child != NONE {
                    stack.push((lower, child));
                }
            }
        }
    }

    /// Mark a placed row: gone from its leaf scan and from the counts on its
    /// path.
    pub(super) fn remove(&mut self, row: u32) {
        let pos = self.pos_of[row as usize];
        if pos == NONE || self.value[pos as usize] == NONE {
            return;
        }
        let v = self.value[pos as usize] as usize;
        self.value[pos as usize] = NONE;
        let mut id = self.leaf_at[pos as usize];
        while id != NONE {
            self.counts[v * self.nodes.len() + id as usize] -= 1;
            id = self.nodes[id as usize].parent;
        }
        self.live -= 1;
    }

    pub(super) fn should_rebuild(&self) -> bool {
        self.live > 0 && self.live * 2 <= self.built_with
    }
}

#[cfg(test)]
mod tests;
