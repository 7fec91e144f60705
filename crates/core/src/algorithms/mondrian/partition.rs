//! The recursion: a node (a set of rows) is cut in two at the allowable
//! cut nearest its median on the widest dimension that has one, until no
//! dimension has one.
//!
//! Cost: records of (row id, QI codes[, sensitive code]) are stored flat and
//! partitioned in place, so every pass over a node reads memory
//! sequentially. Per node, one pass gathers each dimension's distinct codes
//! and counts (a table per dimension from code to slot, stamped with the
//! node's epoch so it is never cleared), the widest dimension's values are
//! ordered (O(V log V) for V distinct values), and the candidate cuts are
//! judged from prefix sums — or, when the model reads the sensitive values,
//! from one sweep of the records in that order ([`Tally`]). O(n·d) per tree
//! level. The two sides of large nodes run in parallel (rayon); leaves come
//! back in the same order either way.

use std::ops::Range;
use std::sync::Mutex;

use crate::error::Result;
use crate::progress::Progress;

use super::allowable::{Allowable, Tally};
use super::dim::Dim;
use super::order::order;

/// Nodes at least this large on both sides of a cut are split in parallel.
const PARALLEL_MIN_ROWS: usize = 8192;

/// One cut as a property test sees it: the rows of each side (read by the
/// tests only).
#[derive(Debug, Clone)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct TracedCut {
    pub dim: usize,
    pub left: Vec<u32>,
    pub right: Vec<u32>,
}

pub(super) struct Ctx<'a> {
    pub dims: Vec<Dim<'a>>,
    /// 1 + QIs (+ 1 with a sensitive code, + 1 with a weight).
    pub stride: usize,
    /// Where a record holds its sensitive code (when the model reads one).
    pub sens_at: usize,
    /// Where a record holds the records its row stands for, in a grouped
    /// table (`Dataset::is_grouped`); `None`: one record per row.
    pub weight_at: Option<usize>,
    pub allow: Allowable,
    /// Sensitive codes range over `0..sensitive_space` (0 without one).
    pub sensitive_space: usize,
    pub progress: &'a Progress,
    /// Every cut made, for tests.
    pub trace: Option<&'a Mutex<Vec<TracedCut>>>,
}

/// Buffers reused from node to node (one set per parallel branch).
pub(super) struct Scratch {
    epoch: u32,
    /// Per dimension: code → (epoch, slot in `vals`).
    slots: Vec<Vec<(u32, u32)>>,
    /// Per dimension: the node's distinct codes and their rows.
    vals: Vec<Vec<u32>>,
    counts: Vec<Vec<u32>>,
    dims: Vec<(f64, usize)>,
    order: Vec<u32>,
    cuts: Vec<u32>,
    /// Position in `order` of each slot.
    pos: Vec<u32>,
    /// Records before each position of `order`.
    before: Vec<usize>,
    /// Rows (items) before each position of `order`, when rows are
    /// weighted.
    before_rows: Vec<usize>,
    /// Sensitive codes of the node's records, by position.
    sens: Vec<u32>,
    /// Their weights, when rows are weighted.
    sens_weight: Vec<u32>,
    /// Records in the node last gathered.
    records: usize,
    fill: Vec<usize>,
    ok: Vec<bool>,
    left: Tally,
    right: Tally,
}

impl Scratch {
    pub fn new(ctx: &Ctx<'_>) -> Self {
        let d = ctx.dims.len();
        Scratch {
            epoch: 0,
            slots: ctx
                .dims
                .iter()
                .map(|dim| vec![(0, 0); dim.code_space])
                .collect(),
            vals: vec![Vec::new(); d],
            counts: vec![Vec::new(); d],
            dims: Vec::with_capacity(d),
            order: Vec::new(),
            cuts: Vec::new(),
            pos: Vec::new(),
            before: Vec::new(),
            before_rows: Vec::new(),
            sens: Vec::new(),
            sens_weight: Vec::new(),
            records: 0,
            fill: Vec::new(),
            ok: Vec::new(),
            left: Tally::default(),
            right: Tally::default(),
        }
    }
}

/// Partition `records` (whose first record is record `base` of the whole
/// table) into leaves, returned left to right as record ranges.
///
/// Nodes are processed from an explicit stack, so a long chain of lopsided
/// cuts cannot overflow the call stack; only cuts whose two sides are both
/// large recurse, through `rayon::join`.
pub(super) fn partition(
    ctx: &Ctx<'_>,
    records: &mut [u32],
    base: usize,
    scratch: &mut Scratch,
) -> Result<Vec<Range<usize>>> {
    let w = ctx.stride;
    let mut leaves = Vec::new();
    let mut stack: Vec<Range<usize>> = Vec::new();
    stack.push(0..records.len() / w);
    while let Some(node) = stack.pop() {
        ctx.progress.check()?;
        let slice = &mut records[node.start * w..node.end * w];
        let Some(left) = split(ctx, slice, scratch) else {
            ctx.progress.advance(node.len() as u64);
            leaves.push(base + node.start..base + node.end);
            continue;
        };
        let mid = node.start + left;
        if left >= PARALLEL_MIN_ROWS && node.end - mid >= PARALLEL_MIN_ROWS {
            let (l, r) = slice.split_at_mut(left * w);
            let (a, b) = rayon::join(
                || partition(ctx, l, base + node.start, scratch),
                || partition(ctx, r, base + mid, &mut Scratch::new(ctx)),
            );
            leaves.extend(a?);
            leaves.extend(b?);
        } else {
            // Right first: the stack is LIFO, so leaves come out left to right.
            stack.push(mid..node.end);
            stack.push(node.start..mid);
        }
    }
    Ok(leaves)
}

/// Find the cut of the node (see the module doc) and apply it: returns the
/// size of the left side after reordering the records in place, or `None`
/// for a leaf.
fn split(ctx: &Ctx<'_>, node: &mut [u32], sc: &mut Scratch) -> Option<usize> {
    let w = ctx.stride;
    // Rows of a grouped table stand for several records each: only the
    // gathered counts tell the records.
    if ctx.weight_at.is_none() && node.len() / w < ctx.allow.smallest_cuttable() {
        return None;
    }
    gather(ctx, node, sc);
    if sc.records < ctx.allow.smallest_cuttable() {
        return None;
    }
    let d = ctx.dims.len();
    sc.dims.clear();
    for j in 0..d {
        if sc.vals[j].len() > 1 {
            sc.dims.push((ctx.dims[j].width(&sc.vals[j]), j));
        }
    }
    // Widest first; ties to the earlier quasi-identifier.
    sc.dims
        .sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for di in 0..sc.dims.len() {
        let j = sc.dims[di].1;
        if let Some(at) = best_cut(ctx, node, j, sc) {
            let left = cut(node, w, j, at, sc);
            if let Some(trace) = ctx.trace {
                let rows = |part: &[u32]| part.chunks_exact(w).map(|r| r[0]).collect();
                let (l, r) = node.split_at(left * w);
                trace.lock().unwrap().push(TracedCut {
                    dim: j,
                    left: rows(l),
                    right: rows(r),
                });
            }
            return Some(left);
        }
    }
    None
}

/// Each dimension's distinct codes in the node, with their rows.
fn gather(ctx: &Ctx<'_>, node: &[u32], sc: &mut Scratch) {
    if sc.epoch == u32::MAX {
        for s in &mut sc.slots {
            s.fill((0, 0));
        }
        sc.epoch = 0;
    }
    sc.epoch += 1;
    let epoch = sc.epoch;
    // One dimension at a time: its slot table, values and counts stay in
    // registers and cache for the whole pass (each dimension's values come
    // out in the order of first appearance either way).
    let weight = |rec: &[u32]| ctx.weight_at.map_or(1, |at| rec[at]);
    let tables = sc.slots.iter_mut().zip(&mut sc.vals).zip(&mut sc.counts);
    for (j, ((slots, vals), counts)) in tables.enumerate() {
        vals.clear();
        counts.clear();
        for rec in node.chunks_exact(ctx.stride) {
            let (c, n) = (rec[1 + j], weight(rec));
            let slot = &mut slots[c as usize];
            if slot.0 == epoch {
                counts[slot.1 as usize] += n;
            } else {
                *slot = (epoch, vals.len() as u32);
                vals.push(c);
                counts.push(n);
            }
        }
    }
    sc.records = match ctx.weight_at {
        None => node.len() / ctx.stride,
        Some(at) => node
            .chunks_exact(ctx.stride)
            .map(|rec| rec[at] as usize)
            .sum(),
    };
}

/// The allowable cut of dimension `j` nearest the node's median: a
/// position of the dimension's order whose left side's rows are closest to
/// half the node (ties to the earlier position), among the positions where
/// both sides are allowable. Leaves the order in `sc.order` / `sc.pos`.
fn best_cut(ctx: &Ctx<'_>, node: &[u32], j: usize, sc: &mut Scratch) -> Option<usize> {
    let n = sc.records;
    let dim = &ctx.dims[j];
    let vals = &sc.vals[j];
    let counts = &sc.counts[j];
    order(&dim.kind(), vals, counts, &mut sc.order, &mut sc.cuts);
    sc.pos.clear();
    sc.pos.resize(vals.len(), 0);
    sc.before.clear();
    sc.before.push(0);
    for (p, &i) in sc.order.iter().enumerate() {
        sc.pos[i as usize] = p as u32;
        let b = sc.before[p] + counts[i as usize] as usize;
        sc.before.push(b);
    }
    let k = ctx.allow.k.max(1);
    if ctx.allow.reads_sensitive() {
        sweep(ctx, node, j, sc);
    }
    let mut best: Option<(usize, usize)> = None;
    for (ci, &p) in sc.cuts.iter().enumerate() {
        let left = sc.before[p as usize];
        if left < k || n - left < k {
            continue;
        }
        if ctx.allow.reads_sensitive() && !sc.ok[ci] {
            continue;
        }
        let off = (2 * left).abs_diff(n);
        if best.is_none_or(|(_, o)| off < o) {
            best = Some((p as usize, off));
        }
    }
    best.map(|(p, _)| p)
}

/// Judge every candidate cut of dimension `j` by the model: `sc.ok[i]`
/// says whether both sides of `sc.cuts[i]` are allowable. One pass moves
/// the records, position by position of the order, from the right side's
/// tally to the left's.
fn sweep(ctx: &Ctx<'_>, node: &[u32], j: usize, sc: &mut Scratch) {
    if let Some(at) = ctx.weight_at {
        return sweep_weighted(ctx, node, j, at, sc);
    }
    let w = ctx.stride;
    let n = node.len() / w;
    let positions = sc.order.len();
    // Counting sort of the sensitive codes by position.
    sc.fill.clear();
    sc.fill.extend_from_slice(&sc.before[..positions]);
    sc.sens.clear();
    sc.sens.resize(n, 0);
    let slots = &sc.slots[j];
    for rec in node.chunks_exact(w) {
        let p = sc.pos[slots[rec[1 + j] as usize].1 as usize] as usize;
        sc.sens[sc.fill[p]] = rec[ctx.sens_at];
        sc.fill[p] += 1;
    }
    sc.left.reset(ctx.sensitive_space, n);
    sc.right.reset(ctx.sensitive_space, n);
    for &s in &sc.sens {
        sc.right.add(s);
    }
    sc.ok.clear();
    let mut moved = 0;
    for &p in &sc.cuts {
        let to = sc.before[p as usize];
        for &s in &sc.sens[moved..to] {
            sc.right.remove(s);
            sc.left.add(s);
        }
        moved = to;
        sc.ok
            .push(ctx.allow.allows(&sc.left.side()) && ctx.allow.allows(&sc.right.side()));
    }
    sc.left.clear(sc.sens.iter().copied());
    sc.right.clear(sc.sens.iter().copied());
}

/// [`sweep`] over a grouped table's rows: each row moves its records at
/// once, and the rows before each position are counted apart from the
/// records (the cut is judged by records, the sort places rows).
fn sweep_weighted(ctx: &Ctx<'_>, node: &[u32], j: usize, weight_at: usize, sc: &mut Scratch) {
    let w = ctx.stride;
    let rows = node.len() / w;
    let positions = sc.order.len();
    let slots = &sc.slots[j];
    let mut per_position = vec![0usize; positions];
    for rec in node.chunks_exact(w) {
        per_position[sc.pos[slots[rec[1 + j] as usize].1 as usize] as usize] += 1;
    }
    sc.before_rows.clear();
    sc.before_rows.push(0);
    for &c in &per_position {
        let b = sc.before_rows[sc.before_rows.len() - 1] + c;
        sc.before_rows.push(b);
    }
    sc.fill.clear();
    sc.fill.extend_from_slice(&sc.before_rows[..positions]);
    sc.sens.clear();
    sc.sens.resize(rows, 0);
    sc.sens_weight.clear();
    sc.sens_weight.resize(rows, 0);
    for rec in node.chunks_exact(w) {
        let p = sc.pos[slots[rec[1 + j] as usize].1 as usize] as usize;
        sc.sens[sc.fill[p]] = rec[ctx.sens_at];
        sc.sens_weight[sc.fill[p]] = rec[weight_at];
        sc.fill[p] += 1;
    }
    sc.left.reset_weighted(ctx.sensitive_space);
    sc.right.reset_weighted(ctx.sensitive_space);
    for (&s, &n) in sc.sens.iter().zip(&sc.sens_weight) {
        sc.right.add_n(s, n);
    }
    sc.ok.clear();
    let mut moved = 0;
    for &p in &sc.cuts {
        let to = sc.before_rows[p as usize];
        for (&s, &n) in sc.sens[moved..to].iter().zip(&sc.sens_weight[moved..to]) {
            sc.right.remove_n(s, n);
            sc.left.add_n(s, n);
        }
        moved = to;
        sc.ok
            .push(ctx.allow.allows(&sc.left.side()) && ctx.allow.allows(&sc.right.side()));
    }
    sc.left.clear(sc.sens.iter().copied());
    sc.right.clear(sc.sens.iter().copied());
}

/// Move the records whose code on `j` comes before position `at` of the
/// order before the others; returns how many there are.
fn cut(node: &mut [u32], w: usize, j: usize, at: usize, sc: &Scratch) -> usize {
    let col = 1 + j;
    let slots = &sc.slots[j];
    let left = |rec: &[u32]| (sc.pos[slots[rec[col] as usize].1 as usize] as usize) < at;
    let (mut i, mut e) = (0, node.len() / w);
    loop {
        while i < e && left(&node[i * w..(i + 1) * w]) {
            i += 1;
        }
        while i < e && !left(&node[(e - 1) * w..e * w]) {
            e -= 1;
        }
        if i >= e {
            return i;
        }
        let (a, b) = node.split_at_mut((e - 1) * w);
        a[i * w..(i + 1) * w].swap_with_slice(&mut b[..w]);
        i += 1;
        e -= 1;
    }
}
