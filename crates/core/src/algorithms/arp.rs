//! Anonymization on refining partition (ARP) and its baselines AIP and AT,
//! from "Anonymization on refining partition: same privacy, more utility"
//! (the refining-partition paper, Sections 4.1–4.2 and 5).
//!
//! - **Ordering** (Section 4.1, 1): the non-sensitive attributes (NSAs, the
//!   request's quasi-identifiers) are sorted by φ² with the sensitive
//!   attribute (SA), descending ([`nsa_order`], `stats::correlation`: numeric
//!   columns cut into the default quantile bins, as the paper discretizes
//!   continuous attributes; a missing cell is a category of its own), and the
//!   records are sorted lexicographically on the NSAs in that order.
//! - **Initial partition** (Algorithm 1, [`initial_partition`]): a block is
//!   split into runs of equal value on the next attribute; a run that fails
//!   the "anonymizing demands of ℓ-diversity" (Definition 1: at least ℓ
//!   distinct SA values, none on more than ⌊|B|/ℓ⌋ records) is merged with a
//!   neighbouring run; blocks with one value recurse on the next attribute,
//!   merged blocks (several values) and blocks of the last attribute are
//!   output.
//! - **Refining** (Algorithm 2, [`refine`]): per block, hash by SA value and
//!   take one record from each of the ℓ largest hash buckets while ℓ are
//!   non-empty ([`refine_block`], lines 4–8); the |B| mod ℓ residues
//!   (Property 2) are pooled with those of the neighbouring blocks and a
//!   sub-block is formed whenever the pool holds ℓ distinct values (lines
//!   11–15); the last residues go into a sub-block of their own initial
//!   block that lacks their value (lines 17–21, Properties 3–4).
//! - **Publishing** (line 23): `arp` publishes each sub-block by anatomy (QI
//!   values exact, one bucket per sub-block, `BucketLDiversity`: no SA value
//!   twice), `arp-gen` by generalization (the smallest covering cell per QI,
//!   SA values on their rows, `GroupLDiversity`: ℓ distinct values, each
//!   once). Two registry ids rather than an option, so the CLI and the TUI's
//!   algorithm list offer both without extra controls.
//!
//! Baselines of Section 5:
//! - `aip` publishes the initial partition itself by bucketization: one
//!   group with exact QI values and one bucket per block. Blocks may repeat
//!   SA values (at most ⌊|B|/ℓ⌋ times each), so it claims the breach bound
//!   p(t, s) ≤ 1/ℓ (`BreachProbability`, which holds because records with
//!   equal NSAs always share a block) and ℓ distinct values per group.
//! - `at` is anatomy's own partition, published by anatomy: exactly the
//!   `anatomy` algorithm (same code, same seed, same release) under the id
//!   the paper uses.
//! - NG (non-homogeneous generalization), the paper's fourth method, is
//!   `ng` (`algorithms::ng`): ring handling on this file's Algorithm 1,
//!   one generalized tuple per record with its ℓ-regular assignment.
//!
//! Choices the paper leaves open:
//! - Partitioning uses exact values (dictionary codes; numeric codes are in
//!   value order, so neighbouring runs hold neighbouring values); the bins
//!   serve only the φ² ranking. NSAs with undefined φ² (one value) go last;
//!   ties keep the request's order. Rows equal on every NSA keep row order.
//! - "Random find B_x as a neighbouring block": runs are scanned left to
//!   right; a failing run merges with the block before it or the run after
//!   it, chosen by a fair coin of a `ChaCha8Rng` seeded with the request's
//!   seed when both exist, and is re-checked until it meets the demands.
//! - "Random remove a record" of a hash bucket: each bucket is shuffled once
//!   with the same generator; ties among the ℓ largest buckets go to the
//!   smaller code.
//! - The residue pool takes, whenever it holds ℓ distinct values, the oldest
//!   record of each of the ℓ values whose oldest record arrived first, so
//!   residues are combined with those of the nearest blocks.
//! - A last residue goes to the sub-block of its own block without its value
//!   that holds the most records with its NSA values (so its correspondence
//!   is kept where possible, GLP), then the smallest, then the first.
//! - A missing SA value is a value of its own; parameters are checked with
//!   `check_l` (the table must meet the demands: Algorithm 2's precondition).
//!
//! Cost: O(n·(d + log n)) for the sort and the d levels of Algorithm 1, and
//! O(n log m) for the refining (m distinct SA values per block).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::ops::Range;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result};
use crate::privacy::{counts_of_rows, ValueCount};
use crate::progress::Progress;
use crate::release::{Guarantee, Release};
use crate::stats::{categorize, Contingency, Discretization};

use super::anatomy::{new_release, push_bucketized, Anatomy};
use super::{check_l, Algorithm, Needs, Request, BUCKETIZATION};

/// How ARP publishes its sub-blocks (Algorithm 2, line 23).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Publish {
    /// Exact QI values, SA values detached per sub-block (the default).
    Anatomy,
    /// The smallest covering cell per QI, SA values on their rows.
    Generalization,
}

/// ARP (`arp`, `arp-gen`).
#[derive(Debug, Clone, Copy)]
pub struct Arp {
    pub publish: Publish,
}

impl Arp {
    /// `arp`: sub-blocks published by anatomy.
    pub fn anatomy() -> Self {
        Arp {
            publish: Publish::Anatomy,
        }
    }

    /// `arp-gen`: sub-blocks published by generalization.
    pub fn generalization() -> Self {
        Arp {
            publish: Publish::Generalization,
        }
    }
}

/// AIP (`aip`): the initial partition of Algorithm 1 published by bucketization.
#[derive(Debug, Clone, Copy)]
pub struct Aip;

/// AT (`at`): anatomy's partition, i.e. [`Anatomy`] under the paper's name.
#[derive(Debug, Clone, Copy)]
pub struct At;

/// Records between two cancellation checks.
const CHECK_EVERY: usize = 4096;

impl Algorithm for Arp {
    fn id(&self) -> &'static str {
        match self.publish {
            Publish::Anatomy => "arp",
            Publish::Generalization => "arp-gen",
        }
    }

    fn name(&self) -> &'static str {
        match self.publish {
            Publish::Anatomy => "ARP, refining partition + anatomy",
            Publish::Generalization => "ARP, refining partition + generalization",
        }
    }

    fn needs(&self) -> Needs {
        BUCKETIZATION
    }

    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        let sa = check_l(req)?;
        let mut rng = ChaCha8Rng::seed_from_u64(req.seed);
        let ip = initial_partition(req, sa, &mut rng, progress)?;
        let refined = refine(req.ds, sa, &ip, req.l as usize, &mut rng, progress)?;
        let mut release = new_release(self.id(), req);
        let attribute = req.ds.col(sa).name().to_string();
        match self.publish {
            Publish::Anatomy => {
                for rows in refined.sub_blocks {
                    push_bucketized(&mut release, rows);
                }
                release.claims.push(Guarantee::BucketLDiversity {
                    attribute,
                    l: req.l,
                });
            }
            Publish::Generalization => {
                for mut rows in refined.sub_blocks {
                    rows.sort_unstable();
                    release.push_covering_group(req.ds, rows);
                }
                release.claims.push(Guarantee::GroupLDiversity {
                    attribute,
                    l: req.l,
                });
            }
        }
        Ok(release)
    }
}

impl Algorithm for Aip {
    fn id(&self) -> &'static str {
        "aip"
    }

    fn name(&self) -> &'static str {
        "AIP, initial partition + anatomy (ARP baseline)"
    }

    fn needs(&self) -> Needs {
        BUCKETIZATION
    }

    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        let sa = check_l(req)?;
        let mut rng = ChaCha8Rng::seed_from_u64(req.seed);
        let ip = initial_partition(req, sa, &mut rng, progress)?;
        let mut release = new_release(self.id(), req);
        for block in &ip.blocks {
            push_bucketized(&mut release, ip.rows[block.clone()].to_vec());
        }
        let attribute = req.ds.col(sa).name().to_string();
        release.claims.push(Guarantee::BreachProbability {
            attribute: attribute.clone(),
            l: req.l,
        });
        release.claims.push(Guarantee::GroupLDiversity {
            attribute,
            l: req.l,
        });
        Ok(release)
    }
}

impl Algorithm for At {
    fn id(&self) -> &'static str {
        "at"
    }

    fn name(&self) -> &'static str {
        "AT, anatomy's partition (ARP baseline; same release as anatomy)"
    }

    fn needs(&self) -> Needs {
        BUCKETIZATION
    }

    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        let mut release = Anatomy.run(req, progress)?;
        release.algorithm = self.id().to_string();
        Ok(release)
    }
}

/// The NSAs by decreasing φ² with the SA (undefined last, ties in the given
/// order), with their φ².
pub fn nsa_order(ds: &Dataset, nsas: &[usize], sa: usize) -> Result<Vec<(usize, Option<f64>)>> {
    let d = Discretization::default();
    let sa_cats = categorize(ds.col(sa), &d)?;
    let mut ranked = nsas
        .iter()
        .map(|&c| {
            Ok((
                c,
                Contingency::count(&categorize(ds.col(c), &d)?, &sa_cats).phi2(),
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    let key = |v: Option<f64>| v.unwrap_or(f64::NEG_INFINITY);
    ranked.sort_by(|a, b| key(b.1).total_cmp(&key(a.1)));
    Ok(ranked)
}

/// Algorithm 1's result: the records in lexicographic NSA order and the
/// blocks as ranges of that order.
#[derive(Debug, Clone, PartialEq)]
pub struct InitialPartition {
    /// NSAs in partitioning order, with their φ² with the SA.
    pub order: Vec<(usize, Option<f64>)>,
    /// Every row, sorted lexicographically on the NSAs in `order`.
    pub rows: Vec<u32>,
    /// Blocks, consecutive and covering `rows`.
    pub blocks: Vec<Range<usize>>,
}

/// SA value counts of a block, sorted by code.
type Counts = Vec<ValueCount>;

/// Definition 1's demands on a block of `size` records.
fn meets_demands(counts: &Counts, size: usize, l: usize) -> bool {
    counts.len() >= l && counts.iter().all(|c| c.count as usize * l <= size)
}

fn merge_counts(a: &Counts, b: &Counts) -> Counts {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x.code == y.code {
            out.push(ValueCount {
                code: x.code,
                count: x.count + y.count,
            });
            i += 1;
            j += 1;
        } else if x.code < y.code {
            out.push(x);
            i += 1;
        } else {
            out.push(y);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// A block under construction: a range of the sorted rows, its SA counts,
/// and whether it was merged from runs of different values.
struct Run {
    range: Range<usize>,
    counts: Counts,
    merged: bool,
}

impl Run {
    fn absorb(self, next: Run) -> Run {
        Run {
            range: self.range.start..next.range.end,
            counts: merge_counts(&self.counts, &next.counts),
            merged: true,
        }
    }
}

/// Algorithm 1 over the whole table (which must meet the demands: the
/// caller checks it with `check_l`).
pub fn initial_partition(
    req: &Request<'_>,
    sa: usize,
    rng: &mut ChaCha8Rng,
    progress: &Progress,
) -> Result<InitialPartition> {
    let ds = req.ds;
    let order = nsa_order(ds, &req.qi, sa)?;
    progress.set_total(ds.n_rows() as u64 * 2);
    progress.check()?;
    let cols: Vec<&[u32]> = order.iter().map(|&(c, _)| ds.col(c).codes()).collect();
    let mut rows: Vec<u32> = (0..ds.n_rows() as u32).collect();
    rows.sort_by(|&a, &b| {
        cols.iter()
            .map(|c| c[a as usize].cmp(&c[b as usize]))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    progress.check()?;
    let mut blocks = Vec::new();
    let ctx = Partitioning {
        cols: &cols,
        sa: ds.col(sa),
        rows: &rows,
        l: req.l as usize,
        progress,
    };
    if !rows.is_empty() {
        ctx.partition(0..rows.len(), 0, rng, &mut blocks)?;
    }
    Ok(InitialPartition {
        order,
        rows,
        blocks,
    })
}

struct Partitioning<'a> {
    cols: &'a [&'a [u32]],
    sa: &'a crate::data::Column,
    rows: &'a [u32],
    l: usize,
    progress: &'a Progress,
}

impl Partitioning<'_> {
    /// Partitioning(B, ℓ, A_level) of Algorithm 1; blocks are appended to `out`.
    fn partition(
        &self,
        block: Range<usize>,
        level: usize,
        rng: &mut ChaCha8Rng,
        out: &mut Vec<Range<usize>>,
    ) -> Result<()> {
        let Some(col) = self.cols.get(level) else {
            out.push(block);
            return Ok(());
        };
        let value = |i: usize| col[self.rows[i] as usize];
        // Line 1: runs of equal A_i value (the rows are sorted on it).
        let mut runs: VecDeque<Run> = VecDeque::new();
        let mut start = block.start;
        for i in block.start + 1..=block.end {
            if i == block.end || value(i) != value(start) {
                runs.push_back(Run {
                    range: start..i,
                    counts: counts_of_rows(&self.rows[start..i], self.sa),
                    merged: false,
                });
                start = i;
            }
        }
        // Lines 2–5: a failing run merges with a neighbour until it passes;
        // every block in `done` passes.
        let mut done: Vec<Run> = Vec::with_capacity(runs.len());
        while let Some(mut current) = runs.pop_front() {
            while !meets_demands(&current.counts, current.range.len(), self.l) {
                if done.is_empty() && runs.is_empty() {
                    return Err(Error::invalid(Parameter::L, format!(
                        "a block of {} records does not meet the demands of {}-diversity: the table must hold at least {} distinct sensitive values, none on more than 1/{} of the records",
                        current.range.len(), self.l, self.l, self.l
                    )));
                }
                let take_left = if !done.is_empty() && !runs.is_empty() {
                    rng.random_bool(0.5)
                } else {
                    !done.is_empty()
                };
                current = if take_left {
                    match done.pop() {
                        Some(left) => left.absorb(current),
                        None => current,
                    }
                } else {
                    match runs.pop_front() {
                        Some(next) => current.absorb(next),
                        None => current,
                    }
                };
            }
            done.push(current);
        }
        // Lines 6–12.
        let last = level + 1 == self.cols.len();
        for run in done {
            if run.merged || last {
                self.progress.advance(run.range.len() as u64);
                if out.len().is_multiple_of(CHECK_EVERY) {
                    self.progress.check()?;
                }
                out.push(run.range);
            } else {
                self.partition(run.range, level + 1, rng, out)?;
            }
        }
        Ok(())
    }
}

/// Lines 3–9 of Algorithm 2 on one block: sub-blocks of ℓ records with
/// distinct SA values taken from the ℓ largest hash buckets, and the
/// residues (|B| mod ℓ records with distinct values, Property 2, when the
/// block meets the demands). `sa` is the SA code per row.
pub fn refine_block(
    block: &[u32],
    sa: &[u32],
    l: usize,
    rng: &mut ChaCha8Rng,
) -> (Vec<Vec<u32>>, Vec<u32>) {
    let mut by_value: Vec<u32> = block.to_vec();
    by_value.sort_by_key(|&r| (sa[r as usize], r));
    let mut buckets: Vec<Vec<u32>> = by_value
        .chunk_by(|&a, &b| sa[a as usize] == sa[b as usize])
        .map(<[u32]>::to_vec)
        .collect();
    for b in &mut buckets {
        b.shuffle(rng);
    }
    // Largest first, ties to the smaller code (buckets are in code order).
    let mut heap: BinaryHeap<(usize, Reverse<usize>)> = buckets
        .iter()
        .enumerate()
        .map(|(i, b)| (b.len(), Reverse(i)))
        .collect();
    let mut subs = Vec::with_capacity(block.len() / l.max(1));
    let mut taken = Vec::with_capacity(l);
    while l > 0 && heap.len() >= l {
        taken.clear();
        taken.extend((0..l).filter_map(|_| heap.pop()));
        let mut sub = Vec::with_capacity(l + 1);
        for &(size, Reverse(i)) in &taken {
            sub.extend(buckets[i].pop());
            if size > 1 {
                heap.push((size - 1, Reverse(i)));
            }
        }
        subs.push(sub);
    }
    let residues = buckets.into_iter().flatten().collect();
    (subs, residues)
}

/// Algorithm 2's partition before publishing.
#[derive(Debug, Clone, PartialEq)]
pub struct Refined {
    /// Sub-blocks, each with distinct SA values and at least ℓ records.
    pub sub_blocks: Vec<Vec<u32>>,
    /// Sub-blocks formed from the residues of neighbouring blocks (lines 11–15).
    pub pooled: usize,
    /// The last residues (R_B at line 17) and the sub-block each joined:
    /// r = `inserted.len()` in Property 8.
    pub inserted: Vec<(u32, usize)>,
    /// The initial block of each sub-block (`None` for pooled sub-blocks).
    pub origin: Vec<Option<usize>>,
}

/// Algorithm 2, lines 2–22, over an initial partition.
pub fn refine(
    ds: &Dataset,
    sa: usize,
    ip: &InitialPartition,
    l: usize,
    rng: &mut ChaCha8Rng,
    progress: &Progress,
) -> Result<Refined> {
    let codes = ds.col(sa).codes();
    // Rows with equal NSAs are consecutive in the sorted order: one key each.
    let cols: Vec<&[u32]> = ip.order.iter().map(|&(c, _)| ds.col(c).codes()).collect();
    let mut nsa_key = vec![0u32; ds.n_rows()];
    let mut key = 0u32;
    for (i, w) in ip.rows.iter().enumerate() {
        if i > 0 {
            let p = ip.rows[i - 1] as usize;
            if cols.iter().any(|c| c[p] != c[*w as usize]) {
                key += 1;
            }
        }
        nsa_key[*w as usize] = key;
    }
    let mut block_of = vec![0u32; ds.n_rows()];
    let mut sub_blocks: Vec<Vec<u32>> = Vec::new();
    let mut origin: Vec<Option<usize>> = Vec::new();
    let mut own: Vec<Range<usize>> = Vec::with_capacity(ip.blocks.len());
    // R_B: per SA value, its residues in arrival order (with a sequence number).
    let mut pool: FxHashMap<u32, VecDeque<(u64, u32)>> = FxHashMap::default();
    let mut seq = 0u64;
    let mut pooled = 0;
    for (b, block) in ip.blocks.iter().enumerate() {
        if b % CHECK_EVERY == 0 {
            progress.check()?;
        }
        let rows = &ip.rows[block.clone()];
        for &r in rows {
            block_of[r as usize] = b as u32;
        }
        let (subs, residues) = refine_block(rows, codes, l, rng);
        own.push(sub_blocks.len()..sub_blocks.len() + subs.len());
        origin.extend(std::iter::repeat_n(Some(b), subs.len()));
        sub_blocks.extend(subs);
        for r in residues {
            pool.entry(codes[r as usize])
                .or_default()
                .push_back((seq, r));
            seq += 1;
        }
        // Lines 11–15.
        while pool.len() >= l && l > 0 {
            let mut heads: Vec<(u64, u32)> = pool.iter().map(|(&v, q)| (q[0].0, v)).collect();
            heads.sort_unstable();
            let mut sub = Vec::with_capacity(l);
            for &(_, v) in &heads[..l] {
                let q = pool.get_mut(&v).expect("value in the pool");
                sub.extend(q.pop_front().map(|(_, r)| r));
                if q.is_empty() {
                    pool.remove(&v);
                }
            }
            sub_blocks.push(sub);
            origin.push(None);
            pooled += 1;
        }
        progress.advance(rows.len() as u64);
    }
    // Lines 17–21, in arrival order.
    let mut last: Vec<(u64, u32)> = pool.into_values().flatten().collect();
    last.sort_unstable();
    let mut inserted = Vec::with_capacity(last.len());
    for (_, t) in last {
        let value = codes[t as usize];
        let b = block_of[t as usize] as usize;
        let target = own[b]
            .clone()
            .filter(|&j| sub_blocks[j].iter().all(|&x| codes[x as usize] != value))
            .min_by_key(|&j| {
                let same = sub_blocks[j]
                    .iter()
                    .filter(|&&x| nsa_key[x as usize] == nsa_key[t as usize])
                    .count();
                (Reverse(same), sub_blocks[j].len(), j)
            });
        let Some(j) = target else {
            return Err(Error::invalid(Parameter::L, format!(
                "ARP could not place residue row {} ('{}' = '{}'): every sub-block of its block holds that value; the block does not meet the demands of {l}-diversity",
                t + 1,
                ds.col(sa).name(),
                ds.col(sa).display(value)
            )));
        };
        sub_blocks[j].push(t);
        inserted.push((t, j));
    }
    Ok(Refined {
        sub_blocks,
        pooled,
        inserted,
        origin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &[[&str; 3]]) -> Dataset {
        let rows: Vec<Vec<&str>> = rows.iter().map(|r| r.to_vec()).collect();
        Dataset::from_rows(&["a", "b", "s"], &rows).unwrap()
    }

    fn req(ds: &Dataset, l: u32) -> Request<'_> {
        Request {
            ds,
            qi: vec![0, 1],
            sensitive: vec![2],
            identifiers: vec![],
            k: 1,
            l,
            seed: 3,
            options: Default::default(),
        }
    }

    #[test]
    fn nsas_are_ordered_by_phi2_with_the_sa() {
        // b determines s (φ² = 1); a is independent of s (φ² = 0).
        let ds = table(&[
            ["x", "p", "1"],
            ["y", "p", "1"],
            ["x", "q", "2"],
            ["y", "q", "2"],
        ]);
        let order = nsa_order(&ds, &[0, 1], 2).unwrap();
        assert_eq!(order[0].0, 1);
        assert!((order[0].1.unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(order[1], (0, Some(0.0)));
    }

    #[test]
    fn failing_runs_merge_and_passing_runs_recurse() {
        // l = 2, on a alone: run x (s = 1,2,1,2) passes; run y (s = 3)
        // fails and has only the left neighbour x, so x and y merge into one
        // block of 5 (values 1:2, 2:2, 3:1; 2·2 ≤ 5), output as merged.
        let ds = table(&[
            ["x", "p", "1"],
            ["x", "p", "2"],
            ["x", "q", "1"],
            ["x", "q", "2"],
            ["y", "p", "3"],
        ]);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let mut r = req(&ds, 2);
        r.qi = vec![0];
        let ip = initial_partition(&r, 2, &mut rng, &Progress::new()).unwrap();
        assert_eq!(ip.blocks, vec![0..5]);
        // s is independent of a and of b (φ² = 0 each, request order kept):
        // on a, x = {1,2,1,2} and z = {1,2} pass and recurse on b, where
        // (x,p), (x,q) and (z,p) each hold {1,2} and are output.
        let ds = table(&[
            ["x", "p", "1"],
            ["x", "p", "2"],
            ["x", "q", "1"],
            ["x", "q", "2"],
            ["z", "p", "1"],
            ["z", "p", "2"],
        ]);
        let ip = initial_partition(&req(&ds, 2), 2, &mut rng, &Progress::new()).unwrap();
        assert_eq!(ip.order, vec![(0, Some(0.0)), (1, Some(0.0))]);
        assert_eq!(ip.blocks, vec![0..2, 2..4, 4..6]);
    }

    #[test]
    fn refine_block_takes_the_largest_buckets_first() {
        // Values 0×3, 1×2, 2×2, 3×1 and l = 2 (Anatomy's example): sizes
        // (3,2,2,1) take 0,1 → (2,1,2,1) take 0,2 → (1,1,1,1) take 0,1 →
        // (0,0,1,1) take 2,3; no residue (8 mod 2 = 0).
        let sa = [0, 0, 0, 1, 1, 2, 2, 3];
        let rows: Vec<u32> = (0..8).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let (subs, residues) = refine_block(&rows, &sa, 2, &mut rng);
        let values: Vec<Vec<u32>> = subs
            .iter()
            .map(|s| {
                let mut v: Vec<u32> = s.iter().map(|&r| sa[r as usize]).collect();
                v.sort_unstable();
                v
            })
            .collect();
        assert_eq!(values, [[0, 1], [0, 2], [0, 1], [2, 3]]);
        assert!(residues.is_empty());
    }

    #[test]
    fn residues_pool_across_neighbouring_blocks_and_the_rest_is_inserted() {
        // l = 2, one NSA with values x, y. Block x: s = 1,2,3 (residue one
        // of them); block y: s = 1,2,4 → residue. Pooled: the two residues
        // form a sub-block when their values differ, else both are inserted.
        let ds = table(&[
            ["x", "p", "1"],
            ["x", "p", "2"],
            ["x", "p", "3"],
            ["y", "p", "1"],
            ["y", "p", "2"],
            ["y", "p", "4"],
        ]);
        for seed in 0..8 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut r = req(&ds, 2);
            r.qi = vec![0];
            let ip = initial_partition(&r, 2, &mut rng, &Progress::new()).unwrap();
            assert_eq!(ip.blocks, vec![0..3, 3..6]);
            let rf = refine(&ds, 2, &ip, 2, &mut rng, &Progress::new()).unwrap();
            let n: usize = rf.sub_blocks.iter().map(Vec::len).sum();
            assert_eq!(n, 6);
            assert_eq!(rf.pooled + rf.inserted.len() / 2, 1, "seed {seed}: {rf:?}");
            for s in &rf.sub_blocks {
                let c = counts_of_rows(s, ds.col(2));
                assert!(c.len() == s.len() && s.len() >= 2);
            }
        }
    }

    #[test]
    fn arp_aip_at_verify_on_a_small_table() {
        let ds = table(&[
            ["x", "p", "1"],
            ["x", "p", "2"],
            ["x", "q", "3"],
            ["x", "q", "1"],
            ["y", "p", "2"],
            ["y", "p", "3"],
            ["y", "q", "4"],
            ["y", "q", "1"],
        ]);
        let algos: [&dyn Algorithm; 4] = [
            &Arp {
                publish: Publish::Anatomy,
            },
            &Arp {
                publish: Publish::Generalization,
            },
            &Aip,
            &At,
        ];
        for a in algos {
            let r = a.run(&req(&ds, 2), &Progress::new()).unwrap();
            assert_eq!(r.algorithm, a.id());
            let v = crate::privacy::verify(&r, &ds);
            assert!(v.all_hold(), "{}: {v}", a.id());
        }
        let at = At.run(&req(&ds, 2), &Progress::new()).unwrap();
        let anatomy = Anatomy.run(&req(&ds, 2), &Progress::new()).unwrap();
        assert_eq!(at.groups, anatomy.groups);
        assert_eq!(at.buckets, anatomy.buckets);
    }

    #[test]
    fn refusal_and_cancellation() {
        let ds = table(&[["x", "p", "1"], ["x", "p", "1"], ["y", "p", "2"]]);
        let arp = Arp {
            publish: Publish::Anatomy,
        };
        let e = arp.run(&req(&ds, 2), &Progress::new()).unwrap_err();
        assert!(e.to_string().contains("2-eligible"), "{e}");
        let ds = table(&[["x", "p", "1"], ["y", "p", "2"]]);
        let p = Progress::new();
        p.cancel();
        assert!(matches!(arp.run(&req(&ds, 2), &p), Err(Error::Cancelled)));
    }
}
