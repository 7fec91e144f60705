//! EnhancedPKClustering (the p-sensitive paper, Section 3.2), step by step
//! as its pseudo-code:
//!
//! 1. Order the sensitive attributes by "harder to make sensitive"
//!    (Definition 13: smaller own maxClusters first; ties keep the request's
//!    order); S_1 is the hardest. Compute maxClusters and iValue (the
//!    smallest i attaining the minimum) over all attributes.
//! 2. **Split** the less frequent p-sensitive equivalence classes of S_1,
//!    U = SEC_{p−iValue+1} ∪ … ∪ SEC_{s_1}, round-robin over maxClusters
//!    empty clusters, from the rarest SEC up, each tuple chosen by BestMatch
//!    for the cluster whose turn it is, until every cluster has iValue tuples;
//!    what is left of U is E.
//! 3. For j = p − iValue down to 1, give each cluster one tuple of SEC_j by
//!    global BestMatch over (tuple, cluster) pairs, a cluster leaving the
//!    pool once served. Now S_1 is p-sensitive in every cluster (when
//!    Property 2's premises hold; the next step repairs it otherwise).
//! 4. With the clusters ordered most diverse first (Definition 14), feed the
//!    first cluster with Hom > 0 from the unassigned tuples T by BestMatch
//!    until Hom = 0, then the next; when T runs dry, dissolve the least
//!    diverse cluster into T.
//! 5. Order by size; keep the u clusters of k rows plus as many of the
//!    others as the remaining tuples can bring to k (v = u + ⌊(|T| + Σ
//!    |cl_i>u|)/k⌋ — reading the paper's u as the number of clusters with
//!    k rows), dissolve the rest, grow each kept cluster to k by the tuple
//!    of least IL(cl ∪ {t}), and add every tuple still in T to the cluster
//!    whose IL grows least.
//!
//! BestMatch maximizes Div (Definition 11, equal weights), then minimizes
//! the IL increase; remaining ties go to the lower tuple position and the
//! lower cluster, so the result is deterministic.
//!
//! **Where the paper is vague, and what is done:**
//! - Split's stop test reads "after a full round, stop when the clusters
//!   have iValue tuples" (the pseudo-code's `|cl_i|` after `i > |S|` names
//!   no cluster; rounds fill the clusters evenly).
//! - Step 3 stops early if SEC_j has fewer tuples than clusters (nothing in
//!   the paper guarantees it has enough); the clusters it missed are repaired
//!   in step 4.
//! - In step 4 a tuple that adds no diversity to the current cluster (Div =
//!   0 for every tuple of T) is not poured into it — the pseudo-code would
//!   add all of T one by one without gaining anything; instead the cluster
//!   is treated as if T were empty (the least diverse cluster is dissolved),
//!   and those tuples are offered again to the next cluster.
//!
//! **Cost.** The paper calls the algorithm O(n²). Step 3's global BestMatch
//! is a lazy priority queue: each cluster's best tuple is computed once
//! (in parallel) and recomputed only when another cluster took it, instead
//! of rescanning all |SEC_j| × |S| pairs for every assignment. Steps 4–5
//! scan T once per added tuple (in parallel for large T).

use std::collections::BinaryHeap;

use rayon::prelude::*;

use crate::error::Result;
use crate::progress::Progress;

use super::{best_in, better, spread, tick, Cluster, Problem, Score};

pub(crate) fn cluster(pr: &Problem<'_>, progress: &Progress) -> Result<Vec<Cluster>> {
    let n = pr.n();
    let p = pr.p as usize;
    progress.set_total(n as u64 * 2);
    // Definition 13: hardest attribute first (stable for ties).
    let mut order: Vec<usize> = (0..pr.views.len()).collect();
    order.sort_by_key(|&j| pr.bound.per_attribute[j].2);
    let s1 = &pr.views[order[0]];
    let max_clusters = pr.bound.max_clusters.max(1);
    let i_value = pr.bound.i_value;
    // SEC_1 … SEC_s1 of the hardest attribute, most frequent first.
    let desc = s1.descending();
    let mut secs: Vec<Vec<u32>> = vec![Vec::new(); desc.len()];
    let mut pos = vec![usize::MAX; s1.n_ids];
    for (i, &(v, _)) in desc.iter().enumerate() {
        pos[v as usize] = i;
    }
    for (r, &v) in s1.ids.iter().enumerate() {
        secs[pos[v as usize]].push(r as u32);
    }
    let mut clusters: Vec<Cluster> = (0..max_clusters).map(|_| Cluster::new(pr)).collect();
    let first_u = p.saturating_sub(i_value); // 0-based index of SEC_{p−iValue+1}
    let mut t: Vec<u32> = split(pr, &mut clusters, &secs, first_u, i_value, progress)?;
    // Step 3: SEC_j for j = p − iValue down to 1 (0-based first_u−1 .. 0).
    for sec in secs[..first_u.min(secs.len())].iter().rev() {
        let rest = fill_one_each(pr, &mut clusters, sec);
        t.extend(rest);
        tick(progress, sec.len() as u64)?;
    }
    let mut clusters = add_diversity(pr, clusters, &mut t, progress)?;
    grow_to_k(pr, &mut clusters, t, progress)
}

/// Split (step 2): returns E, the tuples of U not placed.
fn split(
    pr: &Problem<'_>,
    clusters: &mut [Cluster],
    secs: &[Vec<u32>],
    first_u: usize,
    i_value: usize,
    progress: &Progress,
) -> Result<Vec<u32>> {
    let m = clusters.len();
    let mut e = Vec::new();
    let mut i = 0;
    let mut done = false;
    for sec in secs[first_u.min(secs.len())..].iter().rev() {
        if done {
            e.extend_from_slice(sec);
            continue;
        }
        let mut aux = sec.clone();
        while !aux.is_empty() {
            let cl = &clusters[i];
            let terms = cl.terms(pr);
            let best = best_in(&aux, Some(cl.floor(pr.p, true)), |r| Score {
                div: cl.div(pr, r),
                dil: cl.delta_with(pr, &terms, r),
            })
            .expect("aux is not empty");
            let tuple = aux.remove(best);
            clusters[i].add(pr, tuple);
            i += 1;
            if i == m {
                if clusters[m - 1].len() < i_value {
                    i = 0;
                } else {
                    e.append(&mut aux);
                    done = true;
                }
            }
        }
        tick(progress, sec.len() as u64)?;
    }
    Ok(e)
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    score: Score,
    cluster: usize,
    tuple: usize,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == std::cmp::Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    /// Max-heap order: the better score, then the lower tuple and cluster.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        better(o.score, self.score)
            .then(o.tuple.cmp(&self.tuple))
            .then(o.cluster.cmp(&self.cluster))
    }
}

/// Step 3 for one SEC: every cluster gets one tuple by global BestMatch.
/// Returns the tuples of the SEC left over.
fn fill_one_each(pr: &Problem<'_>, clusters: &mut [Cluster], sec: &[u32]) -> Vec<u32> {
    // The positions in `sec` not taken yet, ascending: a scan over them
    // visits the free tuples in the order of `sec`, as a scan of `sec`
    // skipping the taken ones would.
    let mut free: Vec<u32> = (0..sec.len() as u32).collect();
    let best_for = |cl: &Cluster, free: &[u32]| -> Option<Entry> {
        let terms = cl.terms(pr);
        let score = |i: u32| Score {
            div: cl.div(pr, sec[i as usize]),
            dil: cl.delta_with(pr, &terms, sec[i as usize]),
        };
        best_in(free, Some(cl.floor(pr.p, true)), score).map(|j| Entry {
            score: score(free[j]),
            cluster: 0,
            tuple: free[j] as usize,
        })
    };
    let mut heap: BinaryHeap<Entry> = clusters
        .par_iter()
        .enumerate()
        .filter_map(|(c, cl)| best_for(cl, &free).map(|e| Entry { cluster: c, ..e }))
        .collect::<Vec<_>>()
        .into();
    while let Some(e) = heap.pop() {
        if free.is_empty() {
            break;
        }
        let Ok(at) = free.binary_search(&(e.tuple as u32)) else {
            // Another cluster took this one: find the next best, lazily.
            if let Some(n) = best_for(&clusters[e.cluster], &free) {
                heap.push(Entry {
                    cluster: e.cluster,
                    ..n
                });
            }
            continue;
        };
        free.remove(at);
        clusters[e.cluster].add(pr, sec[e.tuple]);
    }
    free.iter().map(|&i| sec[i as usize]).collect()
}

/// Step 4: make every cluster p-sensitive, dissolving the least diverse
/// ones when T runs out. `t` is T; on return it holds what is left.
fn add_diversity(
    pr: &Problem<'_>,
    mut clusters: Vec<Cluster>,
    t: &mut Vec<u32>,
    progress: &Progress,
) -> Result<Vec<Cluster>> {
    let p = pr.p;
    // Most diverse first (Definition 14), stable.
    clusters.sort_by_key(|c| c.hom(p));
    let mut h = clusters
        .iter()
        .position(|c| c.hom(p) > 0)
        .unwrap_or(clusters.len());
    let mut alive = clusters.len();
    // Tuples that gave cluster h nothing: offered again to the next one.
    let mut parked: Vec<u32> = Vec::new();
    while h < alive {
        while h < alive && !t.is_empty() {
            let cl = &clusters[h];
            let terms = cl.terms(pr);
            let best = best_in(t, Some(cl.floor(p, true)), |r| Score {
                div: cl.div(pr, r),
                dil: cl.delta_with(pr, &terms, r),
            })
            .expect("T is not empty");
            if clusters[h].div(pr, t[best]) == 0 {
                parked.append(t);
                break;
            }
            let tuple = t.swap_remove(best);
            clusters[h].add(pr, tuple);
            if clusters[h].hom(p) == 0 {
                h += 1;
                t.append(&mut parked);
                progress.check()?;
            }
        }
        if t.is_empty() && h < alive {
            alive -= 1;
            t.extend_from_slice(&clusters[alive].rows);
            clusters[alive].rows.clear();
        }
    }
    t.append(&mut parked);
    clusters.truncate(alive);
    Ok(clusters)
}

/// Step 5: bring the clusters to k rows and spread what is left.
fn grow_to_k(
    pr: &Problem<'_>,
    clusters: &mut Vec<Cluster>,
    mut t: Vec<u32>,
    progress: &Progress,
) -> Result<Vec<Cluster>> {
    let k = pr.k;
    if clusters.is_empty() {
        // Only when step 4 dissolved everything into T: the whole table is
        // one p-sensitive cluster (Condition 1).
        let mut all = Cluster::new(pr);
        for r in t.drain(..) {
            all.add(pr, r);
        }
        clusters.push(all);
    }
    clusters.sort_by_key(|c| std::cmp::Reverse(c.len()));
    let u = clusters.iter().take_while(|c| c.len() >= k).count();
    let pool = t.len() + clusters[u..].iter().map(Cluster::len).sum::<usize>();
    let v = clusters.len().min(u + pool / k);
    for c in clusters.drain(v..) {
        t.extend(c.rows);
    }
    for cl in clusters.iter_mut() {
        while cl.len() < k {
            let c = &*cl;
            let terms = c.terms(pr);
            let best = best_in(&t, Some(c.floor(pr.p, false)), |r| Score {
                div: 0,
                dil: c.delta_with(pr, &terms, r),
            })
            .expect("v was chosen so that T can fill every kept cluster");
            let tuple = t.swap_remove(best);
            cl.add(pr, tuple);
        }
        tick(progress, k as u64)?;
    }
    spread(pr, clusters, &t);
    Ok(std::mem::take(clusters))
}
