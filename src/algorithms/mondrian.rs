//! Mondrian: strict multidimensional median partitioning for k-anonymity
//! (LeFevre, DeWitt & Ramakrishnan, "Mondrian Multidimensional
//! K-Anonymity", ICDE 2006, Section 4: the greedy `Anonymize` recursion
//! with strict partitioning, `choose_dimension` and `find_median`), and
//! its l-diverse variant, the baseline of the cross-bucket paper (its
//! Section 4, where "Mondrian complies with l-diversity").
//!
//! A node (a set of rows) is cut in two on one quasi-identifier at the
//! median; the cut is *allowable* when both halves keep at least k rows
//! (and, for `mondrian-l`, at least l distinct sensitive values each).
//! When no cut is allowable the node becomes an equivalence group, published
//! with the smallest cells covering its rows ([`Cell::covering`]).
//!
//! Choices where the paper leaves room:
//!
//! - **Which dimension.** The widest normalized range first. Numeric:
//!   (largest − smallest value in the node) / (largest − smallest in the
//!   table). Categorical: distinct values in the node / distinct values in
//!   the table. A node holding both missing and present values of a numeric
//!   attribute counts as 1 (the widest), since no interval can cover it.
//!   Ties go to the earlier quasi-identifier. A dimension with one value in
//!   the node is never tried.
//! - **Median and strictness.** The median is the lower median of the
//!   node's codes (index ⌊(n−1)/2⌋ in sorted order); the left half takes
//!   the rows with code ≤ median, the right those > median (strict
//!   partitioning: equal values never straddle the cut). When the median is
//!   the node's largest value, or a half is too small, the next widest
//!   dimension is tried; the paper's "if no allowable cut, return" applies
//!   only once every dimension has failed.
//! - **Categorical attributes** are cut, like numbers, on code order —
//!   codes of a categorical column are ordered by name — and published as
//!   the set of values the group holds (or `*` when it holds them all).
//!   Without a hierarchy that is the only order there is; cuts along a
//!   user's generalization hierarchy come with hierarchies in a later issue.
//! - **Missing values** carry the column's missing code, which sorts after
//!   every value, so they are cut off like a largest value; a missing
//!   sensitive value counts as a value of its own (as in `privacy`).
//! - **l-diverse variant**: distinct l-diversity (at least l different
//!   sensitive values per group), checked on both halves of every candidate
//!   cut; the whole table is l-diverse when it passes `check_l`, so every
//!   group is.
//!
//! Deterministic: no randomness, so no seed is recorded. Groups are listed
//! left to right in the order of the cuts, rows in each in source order.
//!
//! Cost: records of (row id, QI codes[, sensitive code]) are stored flat and
//! partitioned in place, so every pass over a node reads memory
//! sequentially; the median is a `select_nth_unstable` on the node's codes.
//! O(n·d) per tree level. The two halves of large nodes run in parallel
//! (rayon); leaves come back in the same order either way. Each leaf's
//! cells are the ones [`Cell::covering`] gives (a property test compares
//! them) but are built from precomputed domain sizes, in parallel, rather
//! than through `Release::push_covering_group`: `Cell::covering` counts the
//! column's missing cells on every call, O(rows) per group.

use std::ops::Range;

use crate::error::Result;
use crate::progress::Progress;
use rayon::prelude::*;

use crate::release::{Cell, EquivalenceGroup, Guarantee, Release, ReleaseParams};

use super::{check_k, check_l, Algorithm, Request};

/// Nodes at least this large on both sides of a cut are split in parallel.
const PARALLEL_MIN_ROWS: usize = 8192;

/// Mondrian for k-anonymity (`mondrian`) or with distinct l-diversity on
/// the first sensitive attribute (`mondrian-l`).
#[derive(Debug, Clone, Copy)]
pub struct Mondrian {
    l_diverse: bool,
}

impl Mondrian {
    pub fn k_anonymous() -> Self {
        Self { l_diverse: false }
    }
    pub fn l_diverse() -> Self {
        Self { l_diverse: true }
    }
}

impl Algorithm for Mondrian {
    fn id(&self) -> &'static str {
        if self.l_diverse {
            "mondrian-l"
        } else {
            "mondrian"
        }
    }

    fn name(&self) -> &'static str {
        if self.l_diverse {
            "Mondrian, l-diverse (LeFevre et al. 2006)"
        } else {
            "Mondrian (LeFevre et al. 2006)"
        }
    }

    fn uses_l(&self) -> bool {
        self.l_diverse
    }

    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        check_k(req)?;
        let sensitive = if self.l_diverse {
            Some(check_l(req)?)
        } else {
            None
        };
        let ds = req.ds;
        let n = ds.n_rows();
        progress.set_total(n as u64);
        let rows: Vec<u32> = (0..n as u32).collect();
        let l = if self.l_diverse { req.l as usize } else { 0 };
        let groups = median_partition(ds, &req.qi, &rows, sensitive, req.k as usize, l, progress)?;

        let mut release = Release::new(self.id(), ds, req.qi.clone(), req.sensitive.clone());
        release.identifiers = req.identifiers.clone();
        release.params = ReleaseParams {
            k: Some(req.k),
            l: self.l_diverse.then_some(req.l),
            t: None,
            seed: None,
        };
        release.groups = groups;
        release.claims.push(Guarantee::KAnonymity { k: req.k });
        if let Some(s) = sensitive {
            release.claims.push(Guarantee::GroupLDiversity {
                attribute: ds.col(s).name().to_string(),
                l: req.l,
            });
        }
        Ok(release)
    }
}

/// The strict median partition of `rows` on the columns `qi` into groups
/// of at least `k` rows (and `l` distinct values of `sensitive` when `l` >
/// 0), each with the cells covering its rows, in the order of the cuts.
/// Mondrian runs it on the whole table; LGB's Algorithm 3 inside each
/// subset of its QI partition.
pub(super) fn median_partition(
    ds: &crate::data::Dataset,
    qi: &[usize],
    rows: &[u32],
    sensitive: Option<usize>,
    k: usize,
    l: usize,
    progress: &Progress,
) -> Result<Vec<EquivalenceGroup>> {
    let dims: Vec<Dim<'_>> = qi.iter().map(|&c| Dim::new(ds.col(c))).collect();
    let d = dims.len();
    let stride = 1 + d + usize::from(sensitive.is_some());
    let mut records = Vec::with_capacity(rows.len() * stride);
    for &row in rows {
        records.push(row);
        records.extend(qi.iter().map(|&c| ds.col(c).code(row as usize)));
        if let Some(s) = sensitive {
            records.push(ds.col(s).code(row as usize));
        }
    }
    let ctx = Ctx {
        dims,
        stride,
        k,
        l: if sensitive.is_some() { l } else { 0 },
        progress,
    };
    let leaves = partition(&ctx, &mut records, 0, &mut Scratch::new(d))?;
    Ok(leaves
        .par_iter()
        .map(|leaf| {
            let part = &records[leaf.start * stride..leaf.end * stride];
            let mut rows: Vec<u32> = part.chunks_exact(stride).map(|r| r[0]).collect();
            rows.sort_unstable();
            let mut codes = Vec::with_capacity(rows.len());
            let cells = (0..d)
                .map(|j| {
                    codes.clear();
                    codes.extend(part.chunks_exact(stride).map(|r| r[1 + j]));
                    ctx.dims[j].covering(&mut codes)
                })
                .collect();
            EquivalenceGroup { rows, cells }
        })
        .collect())
}

/// Groups of the given rows with the cells covering them on `qi` (the
/// same cells as [`Cell::covering`], without rescanning each column per
/// group). LGB_NCP publishes its groups with them.
pub(super) fn covering_groups(
    ds: &crate::data::Dataset,
    qi: &[usize],
    groups: Vec<Vec<u32>>,
) -> Vec<EquivalenceGroup> {
    let dims: Vec<Dim<'_>> = qi.iter().map(|&c| Dim::new(ds.col(c))).collect();
    groups
        .into_par_iter()
        .map(|rows| {
            let mut codes = Vec::with_capacity(rows.len());
            let cells = qi
                .iter()
                .zip(&dims)
                .map(|(&c, dim)| {
                    codes.clear();
                    codes.extend(rows.iter().map(|&r| ds.col(c).code(r as usize)));
                    dim.covering(&mut codes)
                })
                .collect();
            EquivalenceGroup { rows, cells }
        })
        .collect()
}

/// What the partitioning needs to know of one quasi-identifier.
struct Dim<'a> {
    /// The number behind each code (numeric columns), else empty.
    numbers: &'a [f64],
    missing: u32,
    /// Numeric: the table's value range; categorical: its distinct codes.
    scale: f64,
    /// Distinct codes in the table, missing included.
    domain: usize,
}

/// The numeric range of a column's values that occur (largest minus
/// smallest present number; 0 when none occur): the NCP denominator that
/// Mondrian and LGB's NCP share.
pub(crate) fn present_span(col: &crate::data::Column) -> f64 {
    let numbers = col.numbers();
    let freq = col.frequencies();
    let present = &freq[..col.cardinality()];
    match (
        present.iter().position(|&f| f > 0),
        present.iter().rposition(|&f| f > 0),
    ) {
        (Some(a), Some(b)) => numbers[b] - numbers[a],
        _ => 0.0,
    }
}

impl<'a> Dim<'a> {
    fn new(col: &'a crate::data::Column) -> Self {
        let missing = col.missing_code();
        let has_missing = col.missing_count() > 0;
        let domain = col.cardinality() + usize::from(has_missing);
        if col.is_numeric() {
            let numbers = col.numbers();
            let scale = present_span(col);
            Dim {
                numbers,
                missing,
                scale,
                domain,
            }
        } else {
            Dim {
                numbers: &[],
                missing,
                scale: domain as f64,
                domain,
            }
        }
    }

    fn is_numeric(&self) -> bool {
        !self.numbers.is_empty()
    }

    /// The same cell as [`Cell::covering`] for a group holding `codes`
    /// (reordered in place), without rescanning the column for each group.
    fn covering(&self, codes: &mut Vec<u32>) -> Cell {
        codes.sort_unstable();
        codes.dedup();
        match codes.as_slice() {
            [] => Cell::Suppressed,
            [c] => Cell::Value { code: *c },
            [lo, .., hi] if self.is_numeric() && *hi != self.missing => {
                Cell::Interval { lo: *lo, hi: *hi }
            }
            _ if codes.len() >= self.domain => Cell::Suppressed,
            _ => Cell::Set {
                codes: codes.clone(),
                label: None,
            },
        }
    }
}

struct Ctx<'a> {
    dims: Vec<Dim<'a>>,
    stride: usize,
    k: usize,
    /// Distinct sensitive values each half must keep; 0 for plain Mondrian.
    l: usize,
    progress: &'a Progress,
}

/// Buffers reused from node to node (one set per parallel branch).
struct Scratch {
    lo: Vec<u32>,
    hi: Vec<u32>,
    order: Vec<(f64, usize)>,
    codes: Vec<u32>,
    bits: Vec<u64>,
    seen_left: Vec<u32>,
    seen_right: Vec<u32>,
}

impl Scratch {
    fn new(d: usize) -> Self {
        Scratch {
            lo: vec![0; d],
            hi: vec![0; d],
            order: Vec::with_capacity(d),
            codes: Vec::new(),
            bits: Vec::new(),
            seen_left: Vec::new(),
            seen_right: Vec::new(),
        }
    }
}

/// Partition `records` (whose first record is record `base` of the whole
/// table) into leaves, returned left to right as record ranges.
///
/// Nodes are processed from an explicit stack, so a long chain of lopsided
/// cuts cannot overflow the call stack; only cuts whose two halves are both
/// large recurse, through `rayon::join`.
fn partition(
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
                || partition(ctx, r, base + mid, &mut Scratch::new(ctx.dims.len())),
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

/// Find an allowable cut of the node and apply it: returns the size of the
/// left half after reordering the records in place, or `None` for a leaf.
fn split(ctx: &Ctx<'_>, node: &mut [u32], sc: &mut Scratch) -> Option<usize> {
    let w = ctx.stride;
    let n = node.len() / w;
    let k = ctx.k;
    if n < 2 * k.max(1) || n < 2 * ctx.l {
        return None;
    }
    let d = ctx.dims.len();
    sc.lo.fill(u32::MAX);
    sc.hi.fill(0);
    for rec in node.chunks_exact(w) {
        for (j, &c) in rec[1..=d].iter().enumerate() {
            sc.lo[j] = sc.lo[j].min(c);
            sc.hi[j] = sc.hi[j].max(c);
        }
    }
    sc.order.clear();
    for j in 0..d {
        if sc.lo[j] < sc.hi[j] {
            let width = width(ctx, node, j, sc);
            sc.order.push((width, j));
        }
    }
    // Widest first; ties to the earlier quasi-identifier.
    sc.order
        .sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));

    for oi in 0..sc.order.len() {
        let j = sc.order[oi].1;
        sc.codes.clear();
        sc.codes.extend(node.chunks_exact(w).map(|r| r[1 + j]));
        let (_, &mut median, _) = sc.codes.select_nth_unstable((n - 1) / 2);
        if median >= sc.hi[j] {
            continue;
        }
        let left = sc.codes.iter().filter(|&&c| c <= median).count();
        if left < k || n - left < k {
            continue;
        }
        if ctx.l > 0 && !halves_l_diverse(node, w, j, median, ctx.l, sc) {
            continue;
        }
        return Some(cut(node, w, j, median));
    }
    None
}

/// The normalized range of dimension `j` over the node (see the module doc).
fn width(ctx: &Ctx<'_>, node: &[u32], j: usize, sc: &mut Scratch) -> f64 {
    let dim = &ctx.dims[j];
    let (lo, hi) = (sc.lo[j], sc.hi[j]);
    if dim.is_numeric() {
        if hi == dim.missing {
            return 1.0;
        }
        if dim.scale > 0.0 {
            return (dim.numbers[hi as usize] - dim.numbers[lo as usize]) / dim.scale;
        }
        return 0.0;
    }
    distinct_in(node, ctx.stride, 1 + j, lo, hi, sc) as f64 / dim.scale
}

/// Distinct codes at offset `at` of the node's records, all in `lo..=hi`:
/// a bitset over that span when it is no larger than the node, else sort.
fn distinct_in(node: &[u32], w: usize, at: usize, lo: u32, hi: u32, sc: &mut Scratch) -> usize {
    let n = node.len() / w;
    let span = (hi - lo) as usize + 1;
    if span / 64 <= n {
        sc.bits.clear();
        sc.bits.resize(span.div_ceil(64), 0);
        for rec in node.chunks_exact(w) {
            let i = (rec[at] - lo) as usize;
            sc.bits[i / 64] |= 1 << (i % 64);
        }
        sc.bits.iter().map(|b| b.count_ones() as usize).sum()
    } else {
        sc.codes.clear();
        sc.codes.extend(node.chunks_exact(w).map(|r| r[at]));
        sc.codes.sort_unstable();
        sc.codes.dedup();
        sc.codes.len()
    }
}

/// Whether both halves of the cut at `median` on `j` hold at least `l`
/// distinct sensitive values (the last code of each record). Stops as soon
/// as both have `l`.
fn halves_l_diverse(
    node: &[u32],
    w: usize,
    j: usize,
    median: u32,
    l: usize,
    sc: &mut Scratch,
) -> bool {
    sc.seen_left.clear();
    sc.seen_right.clear();
    for rec in node.chunks_exact(w) {
        let s = rec[w - 1];
        let seen = if rec[1 + j] <= median {
            &mut sc.seen_left
        } else {
            &mut sc.seen_right
        };
        if seen.len() < l && !seen.contains(&s) {
            seen.push(s);
            if sc.seen_left.len() >= l && sc.seen_right.len() >= l {
                return true;
            }
        }
    }
    false
}

/// Move records with code ≤ `median` on `j` before the others; returns how
/// many there are.
fn cut(node: &mut [u32], w: usize, j: usize, median: u32) -> usize {
    let at = 1 + j;
    let (mut i, mut e) = (0, node.len() / w);
    loop {
        while i < e && node[i * w + at] <= median {
            i += 1;
        }
        while i < e && node[(e - 1) * w + at] > median {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use crate::error::Error;
    use crate::privacy::counts_of_rows;
    use proptest::prelude::*;

    fn table() -> Dataset {
        // Ages 1..=8, sex alternating, disease in pairs.
        let rows: Vec<Vec<String>> = (1..=8)
            .map(|i| {
                vec![
                    i.to_string(),
                    if i % 2 == 0 { "M" } else { "F" }.to_string(),
                    ["a", "b", "c", "d"][(i - 1) % 4].to_string(),
                ]
            })
            .collect();
        let rows: Vec<Vec<&str>> = rows
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        Dataset::from_rows(&["age", "sex", "disease"], &rows).unwrap()
    }

    fn req(ds: &Dataset, k: u32, l: u32) -> Request<'_> {
        Request {
            ds,
            qi: vec![0, 1],
            sensitive: vec![2],
            identifiers: vec![],
            k,
            l,
            seed: 7,
            options: Default::default(),
        }
    }

    fn ages(ds: &Dataset, cell: &Cell) -> String {
        cell.render(ds.col(0), 0)
    }

    #[test]
    fn widest_dimension_first_then_median() {
        // Root: age spans 7/7 = 1 and sex 2/2 = 1, a tie that goes to age;
        // the lower median of 1..=8 is 4: {1-4} | {5-8}. In {1-4} age spans
        // only 3/7 while sex still spans 2/2, so sex is cut (F ≤ median F):
        // {1,3} | {2,4}, and likewise {5,7} | {6,8}. Pairs can't be cut for
        // k = 2.
        let ds = table();
        let p = Progress::new();
        let r = Mondrian::k_anonymous().run(&req(&ds, 2, 0), &p).unwrap();
        let got: Vec<(Vec<u32>, String, String)> = r
            .groups
            .iter()
            .map(|g| {
                (
                    g.rows.clone(),
                    ages(&ds, &g.cells[0]),
                    g.cells[1].render(ds.col(1), 0),
                )
            })
            .collect();
        let want = [
            (vec![0, 2], "[1-3]", "F"),
            (vec![1, 3], "[2-4]", "M"),
            (vec![4, 6], "[5-7]", "F"),
            (vec![5, 7], "[6-8]", "M"),
        ];
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert_eq!(
                (g.0.as_slice(), g.1.as_str(), g.2.as_str()),
                (&w.0[..], w.1, w.2)
            );
        }
        assert_eq!(r.claims, vec![Guarantee::KAnonymity { k: 2 }]);
        assert_eq!(r.params.k, Some(2));
        assert_eq!(r.params.l, None);
        assert_eq!(p.fraction(), 1.0);
    }

    #[test]
    fn k_of_three_stops_at_halves() {
        // 8 rows, k = 3: {1-4} | {5-8}; 4 rows can't give two halves of 3.
        let ds = table();
        let r = Mondrian::k_anonymous()
            .run(&req(&ds, 3, 0), &Progress::new())
            .unwrap();
        assert_eq!(r.group_sizes(), vec![4, 4]);
        assert_eq!(ages(&ds, &r.groups[0].cells[0]), "[1-4]");
    }

    #[test]
    fn l_diverse_variant_refuses_cuts_that_lose_diversity() {
        // Diseases a,b,c,d,a,b,c,d by age. With l = 3 and k = 2, every cut
        // of {1-4} (by sex: {a,c} | {b,d}; by age: {a,b} | {c,d}) leaves 2
        // values per half, so only {1-4} | {5-8} stays (4 values each).
        let ds = table();
        let r = Mondrian::l_diverse()
            .run(&req(&ds, 2, 3), &Progress::new())
            .unwrap();
        assert_eq!(r.group_sizes(), vec![4, 4]);
        for g in &r.groups {
            assert!(counts_of_rows(&g.rows, ds.col(2)).len() >= 3);
        }
        assert_eq!(
            r.claims,
            vec![
                Guarantee::KAnonymity { k: 2 },
                Guarantee::GroupLDiversity {
                    attribute: "disease".into(),
                    l: 3
                }
            ]
        );
        // l = 2 allows the cuts by sex: each pair holds 2 values.
        let r = Mondrian::l_diverse()
            .run(&req(&ds, 2, 2), &Progress::new())
            .unwrap();
        assert_eq!(r.group_sizes(), vec![2, 2, 2, 2]);
    }

    #[test]
    fn a_median_at_the_top_tries_the_next_dimension() {
        // age: 1,1,1,1,1,2 — lower median 1 leaves 5 | 1, not allowable for
        // k = 2; median of sex (F,F,F,M,M,M) is F: 3 | 3.
        let rows = [
            ["1", "F"],
            ["1", "F"],
            ["1", "F"],
            ["1", "M"],
            ["1", "M"],
            ["2", "M"],
        ];
        let rows: Vec<Vec<&str>> = rows.iter().map(|r| r.to_vec()).collect();
        let ds = Dataset::from_rows(&["age", "sex"], &rows).unwrap();
        let mut q = req(&ds, 2, 0);
        q.sensitive = vec![];
        let r = Mondrian::k_anonymous().run(&q, &Progress::new()).unwrap();
        assert_eq!(r.groups.len(), 2);
        assert_eq!(r.groups[0].rows, vec![0, 1, 2]);
        assert_eq!(r.groups[0].cells[0], Cell::Value { code: 0 });
        assert_eq!(r.groups[1].cells[0].render(ds.col(0), 0), "[1-2]");
    }

    #[test]
    fn missing_numbers_are_cut_off_like_the_largest_value() {
        let rows = [["1"], ["2"], ["3"], [""], [""], [""]];
        let rows: Vec<Vec<&str>> = rows.iter().map(|r| r.to_vec()).collect();
        let ds = Dataset::from_rows(&["age"], &rows).unwrap();
        let q = Request {
            ds: &ds,
            qi: vec![0],
            sensitive: vec![],
            identifiers: vec![],
            k: 3,
            l: 0,
            seed: 0,
            options: Default::default(),
        };
        let r = Mondrian::k_anonymous().run(&q, &Progress::new()).unwrap();
        assert_eq!(r.groups.len(), 2);
        assert_eq!(r.groups[0].cells[0].render(ds.col(0), 0), "[1-3]");
        assert_eq!(r.groups[1].cells[0].render(ds.col(0), 3), "?");
    }

    #[test]
    fn cancellation_stops_the_run() {
        let ds = table();
        let p = Progress::new();
        p.cancel();
        let e = Mondrian::k_anonymous()
            .run(&req(&ds, 2, 0), &p)
            .unwrap_err();
        assert!(matches!(e, Error::Cancelled));
    }

    #[test]
    fn refusals() {
        let ds = table();
        let e = Mondrian::k_anonymous()
            .run(&req(&ds, 9, 0), &Progress::new())
            .unwrap_err();
        assert!(e.to_string().contains("larger than the data"), "{e}");
        let e = Mondrian::l_diverse()
            .run(&req(&ds, 2, 5), &Progress::new())
            .unwrap_err();
        assert!(e.to_string().contains("4 distinct values"), "{e}");
        let rows: Vec<Vec<&str>> = (0..4)
            .map(|i| vec![["1", "2", "3", "4"][i], "M", if i < 3 { "x" } else { "y" }])
            .collect();
        let skew = Dataset::from_rows(&["age", "sex", "disease"], &rows).unwrap();
        let e = Mondrian::l_diverse()
            .run(&req(&skew, 2, 2), &Progress::new())
            .unwrap_err();
        assert!(e.to_string().contains("'x'"), "{e}");
    }

    #[test]
    fn large_tables_split_in_parallel_and_in_order() {
        // 40 000 rows on a grid: the first cuts run through rayon::join.
        let n = 40_000u32;
        let a: Vec<String> = (0..n).map(|i| (i % 200).to_string()).collect();
        let b: Vec<String> = (0..n).map(|i| (i / 200).to_string()).collect();
        let rows: Vec<Vec<&str>> = (0..n as usize).map(|i| vec![&*a[i], &*b[i]]).collect();
        let ds = Dataset::from_rows(&["a", "b"], &rows).unwrap();
        let q = Request {
            ds: &ds,
            qi: vec![0, 1],
            sensitive: vec![],
            identifiers: vec![],
            k: 5,
            l: 0,
            seed: 0,
            options: Default::default(),
        };
        let r = Mondrian::k_anonymous().run(&q, &Progress::new()).unwrap();
        let again = Mondrian::k_anonymous().run(&q, &Progress::new()).unwrap();
        assert_eq!(r, again);
        assert_eq!(r.published_rows(), n as usize);
        assert!(r.groups.iter().all(|g| g.rows.len() >= 5));
        assert!(r.group_of_row().iter().all(Option::is_some));
    }

    /// Random tables: a numeric and a categorical QI (both with missing
    /// cells) and a skewed sensitive attribute.
    fn random_table() -> impl Strategy<Value = Dataset> {
        prop::collection::vec((0u8..12, 0u8..6, 0u8..5), 1..80).prop_map(|rows| {
            let text: Vec<[String; 3]> = rows
                .iter()
                .map(|&(a, c, s)| {
                    [
                        if a == 11 {
                            String::new()
                        } else {
                            (a * 3).to_string()
                        },
                        if c == 5 {
                            String::new()
                        } else {
                            ((b'p' + c) as char).to_string()
                        },
                        ((b'a' + s.min(s / 2 + 1)) as char).to_string(),
                    ]
                })
                .collect();
            let rows: Vec<Vec<&str>> = text
                .iter()
                .map(|r| r.iter().map(String::as_str).collect())
                .collect();
            Dataset::from_rows(&["age", "city", "disease"], &rows).unwrap()
        })
    }

    proptest! {
        #[test]
        fn groups_are_k_anonymous_covering_and_l_diverse(
            ds in random_table(), k in 1u32..6, l in 1u32..4, diverse in any::<bool>()
        ) {
            let q = req(&ds, k, l);
            let algo = if diverse { Mondrian::l_diverse() } else { Mondrian::k_anonymous() };
            let r = match algo.run(&q, &Progress::new()) {
                Ok(r) => r,
                Err(Error::Parameter(_)) => {
                    prop_assert!(check_k(&q).is_err() || (diverse && check_l(&q).is_err()));
                    return Ok(());
                }
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
            };
            let v = crate::privacy::verify(&r, &ds);
            prop_assert!(v.all_hold(), "{}", v);
            prop_assert!(r.group_of_row().iter().all(Option::is_some));
            prop_assert_eq!(r.published_rows(), ds.n_rows());
            for g in &r.groups {
                prop_assert!(g.rows.len() >= k as usize);
                for (cell, &c) in g.cells.iter().zip(&q.qi) {
                    let col = ds.col(c);
                    let codes: Vec<u32> = g.rows.iter().map(|&x| col.code(x as usize)).collect();
                    prop_assert_eq!(cell, &Cell::covering(col, codes.iter().copied()));
                    prop_assert!(codes.iter().all(|&x| cell.contains(x, x)));
                }
                if diverse {
                    prop_assert!(counts_of_rows(&g.rows, ds.col(2)).len() >= l as usize);
                }
            }
        }
    }
}
