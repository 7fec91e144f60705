//! GreedyPKClustering, the baseline the p-sensitive paper compares with
//! (Campan, Truta, Miller & Sinca, "A clustering approach for achieving
//! data privacy", 2007 — reference [6]; that paper is not in `papers/`, so
//! this is the variant implemented, in the style of Byun et al.'s greedy
//! k-member clustering, reference [4]):
//!
//! - The first seed is a seeded random tuple (the seed is the request's and
//!   is shown); each later seed is the unassigned tuple farthest from the
//!   previous seed, the distance of two tuples being the IL of the cluster
//!   they would form (Definition 9), ties to the lower row.
//! - A cluster grows from its seed one tuple at a time: while it is not
//!   p-sensitive (Hom > 0), the tuple of greatest Div (Definition 11), ties
//!   by least IL increase; once it is, the tuple of least IL increase —
//!   until it is p-sensitive and has k rows.
//! - When the unassigned tuples run out before a cluster is complete, that
//!   cluster is dissolved; its tuples, with any others left, are added one by
//!   one to the cluster whose IL grows least (adding tuples never breaks
//!   p-sensitivity or k). The first cluster always completes when Condition
//!   1 holds, since the whole table is p-sensitive.
//!
//! - Ties (equal Div and IL increase) go to the candidate whose QI
//!   values first occur earlier in the table, then to the lower row
//!   ([`super::pool`]).
//!
//! Cost: every added tuple scans the unassigned ones, O(n²) in the worst
//! case; the scan scores each distinct QI combination once and each
//! distinct (QI combination, sensitive ids) once ([`Pool`]), from IL terms
//! tabulated per cluster ([`Cluster::terms`]), and stops at a candidate no
//! other can beat ([`Cluster::floor`]).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::Result;
use crate::progress::Progress;

use super::pool::Pool;
use super::{spread, tick, Cluster, Problem};

pub(crate) fn cluster(pr: &Problem<'_>, seed: u64, progress: &Progress) -> Result<Vec<Cluster>> {
    let n = pr.n();
    let p = pr.p;
    progress.set_total(n as u64);
    let mut pool = Pool::new(pr);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut last_seed = rng.random_range(0..n) as u32;
    let mut first = true;
    let mut clusters = Vec::new();
    let mut leftover = Vec::new();
    while !pool.is_empty() {
        let s = if first {
            first = false;
            last_seed
        } else {
            let mut probe = Cluster::new(pr);
            probe.add(pr, last_seed);
            // Farthest: the largest IL of {last seed, t}.
            pool.best(pr, &probe, false, None, true)
                .expect("the pool is not empty")
        };
        pool.take(s);
        last_seed = s;
        let mut cl = Cluster::new(pr);
        cl.add(pr, s);
        while (cl.len() < pr.k || cl.hom(p) > 0) && !pool.is_empty() {
            let diverse = cl.hom(p) > 0;
            let best = pool
                .best(pr, &cl, diverse, Some(cl.floor(p, diverse)), false)
                .expect("the pool is not empty");
            pool.take(best);
            cl.add(pr, best);
        }
        tick(progress, cl.len() as u64)?;
        if cl.len() >= pr.k && cl.hom(p) == 0 {
            clusters.push(cl);
        } else {
            leftover = cl.rows;
        }
    }
    debug_assert!(pool.rest().is_empty());
    if clusters.is_empty() {
        // Unreachable when Condition 1 holds (see the module doc); kept so
        // that no tuple can be lost.
        let mut all = Cluster::new(pr);
        for r in leftover.drain(..) {
            all.add(pr, r);
        }
        clusters.push(all);
    }
    spread(pr, &mut clusters, &leftover);
    Ok(clusters)
}
