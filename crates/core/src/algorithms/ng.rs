//! NG, non-homogeneous generalization, as the refining-partition paper's
//! fourth method (Section 5: "since non-homogeneous generalization (denoted
//! by NG) also is used to reduce the information loss caused by
//! generalization, as stated in literature [19], we compare the GLP of NG
//! with ARP … we also generate the partition of NG by Algorithm 1"), with
//! the "ring handling" of Section 2: "first arranges the records of the
//! blocks in a cycle, in which the adjacent ℓ records have mutual different
//! SA values. Then, the NSAs of each adjacent ℓ records respectively are
//! anonymized to an anonymized record". Reference [19] is Wong, Mamoulis
//! and Cheung, "Non-homogeneous generalization in privacy preserving data
//! publishing" (SIGMOD 2010).
//!
//! - **Partition**: Algorithm 1 ([`initial_partition`]), the very blocks
//!   ARP and AIP start from for the same seed (the same generator, drawn in
//!   the same order), so NG and ARP differ only in how a block is published.
//! - **Ring** ([`ring`]): a block of m records meets the demands of
//!   ℓ-diversity (no SA value on more than q = ⌊m/ℓ⌋ records), and that is
//!   exactly what a cycle whose every ℓ adjacent records hold distinct
//!   values needs. The cycle is cut into q segments of ⌊m/q⌋ or ⌊m/q⌋ + 1
//!   positions (the longer first, each at least ℓ long) and filled column
//!   by column — position c of segment 0, of segment 1, …, then position
//!   c + 1 — with the records grouped by SA value, the most frequent value
//!   first. A value with q records fills one column (one position in each
//!   segment, each a segment apart); a value with fewer may wrap into the
//!   next column but then skips at least one segment; either way two
//!   records of one value are at least ℓ positions apart around the cycle.
//! - **Tuples**: the record at position i publishes the smallest covering
//!   cell per NSA (`Cell::covering`) of the records at positions i, …,
//!   i + ℓ − 1 (around the cycle), with its own SA value on the row. The
//!   record at position j is then covered by the ℓ tuples of positions
//!   j − ℓ + 1, …, j: the assignment is ℓ-regular and a record's ℓ tuples
//!   belong to ℓ adjacent records, so they carry ℓ distinct SA values.
//! - **Claim**: `Guarantee::RegularAssignment` with the assignment itself
//!   (`Release::assignment`) as evidence; the verifier re-checks regularity,
//!   containment and distinctness from the cells and the data, not from the
//!   ring.
//!
//! Choices where the papers are vague:
//! - Within one SA value the records keep the block's lexicographic NSA
//!   order, so segment j holds the j-th record of every value: records of
//!   similar rank in NSA order share a window, which keeps windows narrow.
//!   Ties between values of equal count go to the smaller code.
//! - A block of fewer than 2ℓ records is one segment: its cycle is the
//!   block, every window its whole set of records but one at most.
//! - Published order: the tuples are shuffled with the request's seed
//!   (`ChaCha8Rng`, after Algorithm 1's draws). Writing them in cycle order
//!   would tell the attacker which tuples are neighbours on the ring, more
//!   than the cells say; the NG paper publishes the generalized tuples
//!   only, and so does anonlab: the assignment stays with the publisher (in
//!   the Release, for the verifier), never in the published files.
//! - GLP (`metrics::glp`): a record's block is its ℓ assigned tuples, each
//!   SA value among them with probability 1/ℓ — how the refining-partition
//!   paper compares NG with ARP's sub-blocks of ℓ distinct values.
//!
//! Cost: Algorithm 1's O(n·(d + log n)), then O(n·ℓ·d) for the windows.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::data::Dataset;
use crate::error::Result;
use crate::progress::Progress;
use crate::release::{Cell, EquivalenceGroup, Guarantee, Release, ReleaseParams};

use super::arp::initial_partition;
use super::{check_l, Algorithm, Needs, Request, BUCKETIZATION};

/// NG (`ng`): ring handling on Algorithm 1's blocks.
#[derive(Debug, Clone, Copy)]
pub struct Ng;

impl Algorithm for Ng {
    fn id(&self) -> &'static str {
        "ng"
    }

    fn name(&self) -> &'static str {
        "NG, non-homogeneous generalization (ARP baseline)"
    }

    fn needs(&self) -> Needs {
        BUCKETIZATION
    }

    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        let sa = check_l(req)?;
        let l = req.l as usize;
        let mut rng = ChaCha8Rng::seed_from_u64(req.seed);
        let ip = initial_partition(req, sa, &mut rng, progress)?;
        let codes = req.ds.col(sa).codes();
        let mut tuples: Vec<(EquivalenceGroup, Vec<u32>)> = Vec::with_capacity(ip.rows.len());
        for block in &ip.blocks {
            progress.check()?;
            let cycle = ring(&ip.rows[block.clone()], codes, l);
            tuples.extend(publish_ring(req.ds, &req.qi, &cycle, l));
        }
        tuples.shuffle(&mut rng);
        let mut release = Release::new(self.id(), req.ds, req.qi.clone(), req.sensitive.clone());
        req.drop_identifiers(&mut release);
        release.params = ReleaseParams {
            k: None,
            l: Some(req.l),
            t: None,
            seed: Some(req.seed),
        };
        for (group, assigned) in tuples {
            release.groups.push(group);
            release.assignment.push(assigned);
        }
        release.claims.push(Guarantee::RegularAssignment {
            attribute: req.ds.col(sa).name().to_string(),
            l: req.l,
        });
        Ok(release)
    }
}

/// The records of one block arranged in a cycle whose every `l` adjacent
/// records hold distinct values of `sa` (indexed by row). The block must
/// meet the demands of ℓ-diversity: at least `l` records and no value on
/// more than ⌊m/l⌋ of them (otherwise no such cycle exists and some
/// window repeats a value, which the verifier reports).
pub fn ring(rows: &[u32], sa: &[u32], l: usize) -> Vec<u32> {
    let m = rows.len();
    if m == 0 || l <= 1 {
        return rows.to_vec();
    }
    // Records grouped by value, the most frequent value first, each group
    // in block order.
    let mut order: Vec<usize> = (0..m).collect();
    let mut count: rustc_hash::FxHashMap<u32, usize> = Default::default();
    for &r in rows {
        *count.entry(sa[r as usize]).or_default() += 1;
    }
    order.sort_by_key(|&i| {
        let v = sa[rows[i] as usize];
        (std::cmp::Reverse(count[&v]), v, i)
    });
    let segments = (m / l).max(1);
    let (len, longer) = (m / segments, m % segments);
    let start = |j: usize| j * len + j.min(longer);
    let seg_len = |j: usize| len + usize::from(j < longer);
    let mut cycle = vec![0u32; m];
    let mut next = order.into_iter();
    for c in 0..=len {
        for j in 0..segments {
            if c < seg_len(j) {
                let i = next.next().expect("m positions for m records");
                cycle[start(j) + c] = rows[i];
            }
        }
    }
    cycle
}

/// One published tuple per record of `cycle`: the record at position i
/// gets the covering cells of positions i, …, i + l − 1 (around the cycle)
/// and is assigned to those records (sorted).
pub fn publish_ring(
    ds: &Dataset,
    qi: &[usize],
    cycle: &[u32],
    l: usize,
) -> Vec<(EquivalenceGroup, Vec<u32>)> {
    let m = cycle.len();
    let width = l.clamp(1, m.max(1));
    (0..m)
        .map(|i| {
            let mut window: Vec<u32> = (0..width).map(|d| cycle[(i + d) % m]).collect();
            let cells = qi
                .iter()
                .map(|&c| {
                    let col = ds.col(c);
                    Cell::covering(col, window.iter().map(|&r| col.code(r as usize)))
                })
                .collect();
            window.sort_unstable();
            (
                EquivalenceGroup {
                    rows: vec![cycle[i]],
                    cells,
                },
                window,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn windows_distinct(cycle: &[u32], sa: &[u32], l: usize) -> bool {
        let m = cycle.len();
        (0..m).all(|i| {
            let mut v: Vec<u32> = (0..l.min(m))
                .map(|d| sa[cycle[(i + d) % m] as usize])
                .collect();
            v.sort_unstable();
            v.dedup();
            v.len() == l.min(m)
        })
    }

    #[test]
    fn every_eligible_block_gets_a_ring() {
        // Every multiset of value counts of four values with 0..7 records
        // each, and of six values with 0..3 each, for l ≤ 6.
        for (values, bits) in [(4u32, 3u32), (6, 2)] {
            for code in 0u32..(1 << (values * bits)) {
                let counts: Vec<usize> = (0..values)
                    .map(|v| ((code >> (bits * v)) & ((1 << bits) - 1)) as usize)
                    .collect();
                let m: usize = counts.iter().sum();
                let distinct = counts.iter().filter(|&&c| c > 0).count();
                let sa: Vec<u32> = counts
                    .iter()
                    .enumerate()
                    .flat_map(|(v, &c)| std::iter::repeat_n(v as u32, c))
                    .collect();
                let rows: Vec<u32> = (0..m as u32).collect();
                for l in 1..=6usize {
                    if m == 0 || distinct < l || counts.iter().any(|&c| c * l > m) {
                        continue;
                    }
                    let cycle = ring(&rows, &sa, l);
                    let mut sorted = cycle.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, rows);
                    assert!(
                        windows_distinct(&cycle, &sa, l),
                        "{counts:?} l={l}: {cycle:?}"
                    );
                }
            }
        }
    }
}
