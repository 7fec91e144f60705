//! (k,l)-anonymous cross-bucket generalization: Li, Liu, Han & Zhang,
//! "Cross-Bucket Generalization for Information and Privacy Preservation",
//! IEEE TKDE 30(3), 2018.
//!
//! Section 2 defines the model (Definitions 7–10, Lemma 2, Corollaries 1–2);
//! Section 3 gives the algorithm implemented here: Alg. 1 (main loop),
//! Alg. 2 `cal_sen_set` (the m-Invariance assignment of Xiao & Tao, SIGMOD
//! 2007), Alg. 3 `pick_tuples` (a modified Mondrian search), Alg. 4
//! `generalize_tuples` and Alg. 5 `partition_tuples`. Each iteration of
//! Alg. 1 takes one *batch* T_gen — one tuple for each value of a sensitive
//! set S_set — cuts it into equivalence groups of k to 2k − 1 consecutive
//! tuples and deals it into k buckets (bucket j takes every k-th tuple from
//! position j), so that a bucket holds at most two tuples of a group.
//!
//! Where the paper is vague or does not work as written, anonlab chooses:
//!
//! - **`cal_diversity(k, l)`** is the paper's text (Sec. 3.1): the smallest
//!   number ≥ l divisible by k. It is the smallest batch size used.
//! - **Property 2 made exact.** The paper wants |S_set| ≥ l when divisible
//!   by k and > 2l otherwise. What Proposition 2 needs is that for every
//!   group G and bucket B of a batch |G ∩ B| / (|G|·|B|) ≤ 1/l; anonlab checks
//!   exactly that on the Alg. 4/5 layout of each batch size
//!   (`batch_is_l_diverse`) and uses every size ≥ `cal_diversity` that passes
//!   (for k = 3, l = 6 the sizes 6, 7, 8, …; for l = 7 only 9, 10, …).
//! - **Batch plan, then `cal_sen_set` by Ryser's greedy.** Alg. 2 as printed
//!   can strand values: on the paper's own Fig. 1b (six diseases, two of
//!   them twice) with k = 2, l = 4 it takes all six values once and leaves a
//!   last S_set of two values, which is not 4-diverse. anonlab first plans
//!   the batch sizes: the largest number h of batches (so the smallest
//!   batches) with h ≥ the largest value count, sizes ⌊N/h⌋ and ⌈N/h⌉ (or two
//!   valid sizes around N/h when those are not valid), and the Gale–Ryser
//!   condition, which says the value counts can be dealt into batches of
//!   those sizes with no value twice in a batch. Batches run larger first.
//!   Each S_set is then the β most frequent remaining values (β = the next
//!   planned size), exactly Alg. 2 line 18; by Ryser's lemma taking the β
//!   largest counts keeps the rest dealable, so the plan always completes.
//! - **Ties in Alg. 2** (more values as frequent as the β-th than S_set has
//!   room for — most batches once the counts have evened out) are settled by
//!   QI proximity, which Ryser's lemma allows: from an anchor tuple of the
//!   values that must be in S_set, the tied values whose nearest remaining
//!   tuple is closest. On Fig. 1b (k = 2, l = 4) this gives exactly the
//!   paper's Fig. 4; on Adult it lowers the NCP for a slightly higher
//!   breach probability (EXPERIMENTS.md, "CBG: the choices measured"). The
//!   seeded RNG draws the anchors (here and in `select_tuples`); the seed is
//!   recorded in `release.params.seed`.
//! - **`calculate_alpha`** (α in m-Invariance: how many batches may take the
//!   same S_set while the rest stays eligible) is the number of rounds for
//!   which S_set stays a set of β most frequent values: c_β − c_{β+1} + 1,
//!   capped by c_β and by the planned batches of that size left. Beyond that
//!   Ryser's lemma no longer applies and the rest could become undealable.
//! - **`choose_attri`** is the quasi-identifier of widest normalized range
//!   among the remaining ones: numeric codes' range over the table's range,
//!   categorical (distinct values − 1) over (the table's distinct values − 1).
//!   Categorical codes are ordered by name, so a median cut on them is an
//!   alphabetical one, as in Mondrian without hierarchies.
//! - **Median cut with ties**: T_l = {≤ median}, T_r = {> median}; when no
//!   value is above the median the cut moves just below it, so both halves
//!   are non-empty and the recursion always shrinks.
//! - **`pick_tuples` starts from a kd-tree.** Running Alg. 3 from the whole
//!   table for each batch would cost O(N) per batch. The search descends a
//!   kd-tree built once over the remaining rows (the same attribute choice
//!   and median cut, on the rows present when it was built) whose nodes
//!   count the remaining tuples per sensitive value, and stops at the node
//!   where neither child holds every value of S_set. Placed rows are marked
//!   removed and subtracted along their path; the tree is rebuilt when half
//!   of its rows are gone.
//! - **Which half first**: when both halves hold every value, the one with
//!   fewer remaining rows (the paper tries T_l first). Taking the sparse side
//!   places rows before they are left isolated, so the last batches need
//!   less generalization (EXPERIMENTS.md, "CBG: the choices measured").
//! - **Small and large regions.** When the node holds at most 256 remaining
//!   rows, Alg. 3 runs as written on them — median cuts on every attribute in
//!   turn, dropping those whose cut keeps S_set in neither half — and
//!   `select_tuples` scans the rows it is left with: anchored at a tuple of
//!   the value with fewest candidates (up to 16 anchors, drawn by the seeded
//!   RNG when there are more), it takes for every other value the candidate
//!   nearest the anchor, and keeps the anchor whose picks are closest in
//!   total. On Adult the node is usually far larger (occupation follows the
//!   QIs closely, so a node holding the six most frequent occupations has
//!   thousands of rows), and re-cutting it per batch costs O(node), an
//!   order of magnitude more time on Adult. There `select_tuples` narrows by
//!   nearest-neighbour search instead: an anchor drawn by the RNG among the
//!   node's rows of its rarest S_set value, and for each other value the
//!   nearest remaining row under the node. Ties between equally near rows
//!   (frequent: categorical distances take few values) go to the first row
//!   of the table, so that nothing depends on how the tree lays rows out.
//!   The search (`KdIndex::nearest`) starts at the anchor's leaf and climbs,
//!   pruning subtrees by what their rows of the value hold — a bit mask of
//!   codes per categorical attribute of at most 64 codes, else a range. It
//!   finds close tuples whichever attribute separates them. One anchor:
//!   more, keeping the one whose picks are closest in total, gained less
//!   than the seed alone varies, for more time (EXPERIMENTS.md).
//! - **Distance** is the normalized one of `choose_attri`: |Δcode| over the
//!   range for numeric attributes, 1/(distinct − 1) for a categorical
//!   mismatch, so it approximates the NCP of generalizing two tuples
//!   together. It is computed in fixed point (an attribute's whole range is
//!   2^40), so sums are exact whatever their order and equal distances are
//!   equal — the ties above are real ties, and a bound summed in another
//!   order than the distance is still a bound (`Metric`).
//! - **Order of T_gen before Alg. 4**: sorted lexicographically by the QI
//!   attributes, widest normalized range within the batch first, so that the
//!   consecutive runs Alg. 4 makes into groups are QI-close. Each group's
//!   cells are the tightest covering ones (`Release::push_covering_group`):
//!   this is the narrowing of Fig. 4.
//!
//! **What is guaranteed, and Corollary 2 across batches.** Groups have at
//! least k rows (Corollary 1). Within a batch Corollary 2 holds (Prop. 2).
//! Across batches its first condition — each sensitive value at most once
//! among *all* matching buckets of a tuple — does not hold in general, and
//! no release can make it hold on most real data: two rows with the same QI
//! values and the same sensitive value always match each other's groups, so
//! that value appears in two of their matching buckets. (On Adult with the
//! seven usual QIs and occupation, 16,141 of 30,162 rows have such a twin.)
//! What does hold globally is Definition 10 itself: with p(t, MB) =
//! (t's matching tuples in MB)/(t's matching tuples), as in Sec. 4.1,
//! p(t, s) ≤ 1/l for every tuple t and every value s, and the second
//! condition p(t, MB)/|MB| ≤ 1/l for every matching bucket. Proof: a value
//! is in at most one bucket B_b of each batch b, and |G ∩ B_b| ≤ |G|·|B_b|/l
//! for each group G of b, so the matching tuples of t in B_b are at most
//! M_b(t)·|B_b|/l, M_b(t) being t's matching tuples in batch b; summing over
//! batches and dividing by Σ_b M_b(t) gives 1/l. anonlab therefore claims
//! `KAnonymity` always and `CrossBucketLDiversity` (which the verifier reads
//! as Corollary 2 over all matching buckets) only when it checked that the
//! first condition holds across batches (`corollary_2_holds`); otherwise the
//! 1/l bound is still true and shown by the breach probabilities, but not
//! claimed under that name.
//!
//! **Files.** This one holds Alg. 1's loop and Algs. 3–5 on a batch;
//! `plan` the batch plan and Alg. 2 (`cal_sen_set`); `space` the QI space,
//! its distance and median cuts; `kd_tree` the kd-tree over the remaining
//! rows (Alg. 3's upper levels and the nearest-neighbour search); `cache`
//! the [`TreeCache`] a caller may keep between runs; `claims` the check of
//! Corollary 2 across batches.
//!
//! **No hidden state.** A run reads only its request: the first tree of a
//! run is reused only from a [`TreeCache`] the caller passes in
//! (`Options::cbg_tree`), which holds the tree with the inputs it was built
//! from and is used only when they are equal.

mod cache;
mod claims;
mod kd_tree;
mod plan;
mod space;

use rand::seq::IndexedRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{check_k, check_l, Algorithm, Needs, Request};
use crate::error::{Error, Parameter, Result};
use crate::progress::Progress;
use crate::release::{Bucket, Guarantee, Release};

pub use cache::TreeCache;
use claims::corollary_2_holds;
use kd_tree::{KdIndex, MAX_COUNTERS};
use plan::{cal_sen_set, group_sizes, plan_batches, PlanRefusal};
use space::{Space, ValueScratch};

/// The registry entry.
pub struct CrossBucketGeneralization;

impl Algorithm for CrossBucketGeneralization {
    fn id(&self) -> &'static str {
        "cbg"
    }
    fn name(&self) -> &'static str {
        "Cross-bucket generalization"
    }
    fn needs(&self) -> Needs {
        Needs {
            k: true,
            l: true,
            seed: true,
            sensitive: true,
            ..Needs::default()
        }
    }
    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        cross_bucket_generalization(req, progress)
    }
}

/// "No row / no node / no value": the sentinel of every `u32` index here.
const NONE: u32 = u32::MAX;
/// Anchors `select_tuples` tries at most.
const MAX_ANCHORS: usize = 16;
/// Regions with at most this many remaining rows get Alg. 3's re-cutting on
/// every attribute; larger ones the nearest-neighbour search (module doc).
const SMALL_REGION: usize = 256;

/// Alg. 1: the whole cross-bucket generalization of `req`.
pub fn cross_bucket_generalization(req: &Request<'_>, progress: &Progress) -> Result<Release> {
    check_k(req)?;
    let s = check_l(req)?;
    let ds = req.ds;
    let (k, l) = (req.k as usize, req.l as usize);
    let n = ds.n_rows();
    let scol = ds.col(s);

    // Dense ids for the sensitive values present (a missing cell counts as
    // a value of its own, as everywhere in anonlab).
    let freq = scol.frequencies();
    let mut dense = vec![NONE; freq.len()];
    let mut code_of_value = Vec::new();
    for (code, &f) in freq.iter().enumerate() {
        if f > 0 {
            dense[code] = code_of_value.len() as u32;
            code_of_value.push(code as u32);
        }
    }
    let value: Vec<u32> = scol.codes().iter().map(|&c| dense[c as usize]).collect();
    let mut remaining: Vec<u64> = code_of_value.iter().map(|&c| freq[c as usize]).collect();

    let plan = plan_batches(&remaining, k, l).map_err(|refusal| {
        let name = scol.name();
        match refusal {
            PlanRefusal::TooFewValues { needed, have } => Error::invalid(
                Parameter::L,
                format!(
                    "cross-bucket generalization with k = {k}, l = {l} needs batches of at least \
                 {needed} distinct values of '{name}' (the smallest multiple of k that is ≥ l), \
                 but '{name}' has only {have}; lower l or k"
                ),
            ),
            PlanRefusal::TooFrequent {
                value,
                count,
                max_batches,
                min_size,
            } => Error::invalid(
                Parameter::L,
                format!(
                "'{name}' cannot be split for cross-bucket generalization with k = {k}, l = {l}: \
                 the value '{}' is on {count} of {n} rows, but each batch holds it at most once \
                 and needs at least {min_size} rows, so at most {max_batches} batches fit \
                 (it may be on at most {max_batches} rows); lower l or k",
                scol.display(code_of_value[value])
            ),
            ),
            PlanRefusal::NoSizes => Error::invalid(
                Parameter::L,
                format!(
                "'{name}' cannot be split for cross-bucket generalization with k = {k}, l = {l}: \
                 no batch sizes keep every value once per batch and p(t, s) ≤ 1/{l}; \
                 lower l or k"
            ),
            ),
        }
    })?;

    let mut release = Release::new("cbg", ds, req.qi.clone(), req.sensitive.clone());
    req.drop_identifiers(&mut release);
    release.params.k = Some(req.k);
    release.params.l = Some(req.l);
    release.params.seed = Some(req.seed);
    // Three phases, named so a watcher sees why the counter restarts.
    progress.set_phase("building the kd-tree", 1, 3);

    let mut rng = ChaCha8Rng::seed_from_u64(req.seed);
    let mut space = Space::new(ds, &req.qi);
    let n_values = code_of_value.len();
    let leaf_cap = (4 * n * n_values).div_ceil(MAX_COUNTERS).max(16);
    let cache = req.options.cbg_tree.as_deref();
    let mut index = cache::first_tree(&mut space, &value, n_values, leaf_cap, cache);
    progress.set_phase("grouping the batches", 2, 3);
    progress.set_total(n as u64);
    // The depth-first stack of every nearest-neighbour search of the run.
    let mut stack = Vec::new();
    let mut scratch = ValueScratch::new(n_values);
    // Which batch each group belongs to, and each batch's S_set.
    let mut batch_of_group: Vec<u32> = Vec::new();
    let mut batch_values: Vec<Vec<u32>> = Vec::new();

    for &(size, times) in &plan {
        let mut left = times;
        while left > 0 {
            progress.check()?;
            let sen = cal_sen_set(&remaining, size, left)?;
            let s_set = if sen.tied.len() == sen.take {
                sen.with(sen.tied.iter().copied())
            } else {
                index.settle_ties(&sen, &mut rng, &mut stack)
            };
            let alpha = sen.alpha;
            scratch.set(&s_set);
            for _ in 0..alpha {
                progress.check()?;
                let region = index.region(&s_set);
                let t_gen = if index.live_in(region) <= SMALL_REGION {
                    let rows = index.rows_of(region);
                    pick_tuples(rows, &s_set, &mut space, &value, &mut scratch, &mut rng)
                } else {
                    index.select_near(region, &s_set, &mut rng, &mut stack)
                };
                let t_gen = order_for_grouping(t_gen, &mut space);
                let batch = batch_values.len() as u32;
                for rows in generalize_tuples(&t_gen, k) {
                    release.push_covering_group(ds, rows);
                    batch_of_group.push(batch);
                }
                release.buckets.extend(partition_tuples(&t_gen, k));
                batch_values.push(s_set.clone());
                for &r in &t_gen {
                    remaining[value[r as usize] as usize] -= 1;
                    index.remove(r);
                }
                progress.advance(t_gen.len() as u64);
                if index.should_rebuild() {
                    let rows = index.live_rows();
                    index = KdIndex::build(rows, &mut space, &value, n_values, leaf_cap);
                }
            }
            left -= alpha;
        }
    }

    release.claims.push(Guarantee::KAnonymity { k: req.k });
    // Definition 10 always holds (see the module doc); the verifier
    // re-checks it by the Section 4.1 formula.
    release.claims.push(Guarantee::BreachProbability {
        attribute: scol.name().to_string(),
        l: req.l,
    });
    let qi_codes: Vec<&[u32]> = req.qi.iter().map(|&c| ds.col(c).codes()).collect();
    progress.set_phase("checking cross-bucket l-diversity", 3, 3);
    progress.set_total(1);
    let holds = corollary_2_holds(
        &release,
        &qi_codes,
        &value,
        &batch_of_group,
        &batch_values,
        progress,
    )?;
    progress.advance(1);
    if holds {
        release.claims.push(Guarantee::CrossBucketLDiversity {
            attribute: scol.name().to_string(),
            l: req.l,
        });
    }
    Ok(release)
}

/// Alg. 3 on the rows of a small region: median cuts on the widest
/// attribute while a half still holds every value of S_set (the smaller half
/// first), dropping attributes whose cut keeps them in neither; then
/// `select_tuples`.
fn pick_tuples(
    mut t: Vec<u32>,
    s_set: &[u32],
    space: &mut Space<'_>,
    value: &[u32],
    scratch: &mut ValueScratch,
    rng: &mut ChaCha8Rng,
) -> Vec<u32> {
    let mut attri_qi_set: Vec<usize> = Vec::with_capacity(space.d());
    'narrow: loop {
        attri_qi_set.clear();
        attri_qi_set.extend(0..space.d());
        while !attri_qi_set.is_empty() {
            let (pos, width) = attri_qi_set
                .iter()
                .enumerate()
                .map(|(i, &a)| (i, space.width(&t, a)))
                .fold(
                    (0, -1.0),
                    |best, cur| if cur.1 > best.1 { cur } else { best },
                );
            if width <= 0.0 {
                break;
            }
            let attribute = attri_qi_set[pos];
            let split = space.median_cut(&mut t, attribute);
            let left_is_small = split <= t.len() - split;
            let (t_l, t_r) = t.split_at(split);
            let (small, large) = if left_is_small {
                (t_l, t_r)
            } else {
                (t_r, t_l)
            };
            // Keep the half that holds S_set (the smaller one first).
            let keep_left = if scratch.holds_all(small, value) {
                left_is_small
            } else if scratch.holds_all(large, value) {
                !left_is_small
            } else {
                attri_qi_set.swap_remove(pos);
                continue;
            };
            if keep_left {
                t.truncate(split);
            } else {
                t.drain(..split);
            }
            continue 'narrow;
        }
        break;
    }
    select_tuples(&t, s_set, space, value, scratch, rng)
}

/// One tuple per value of S_set from `t`, as close together as the anchor
/// search finds (module doc). `t` holds every value of S_set.
fn select_tuples(
    t: &[u32],
    s_set: &[u32],
    space: &Space<'_>,
    value: &[u32],
    scratch: &ValueScratch,
    rng: &mut ChaCha8Rng,
) -> Vec<u32> {
    let mut candidates: Vec<Vec<u32>> = vec![Vec::new(); s_set.len()];
    for &r in t {
        let slot = scratch.slot[value[r as usize] as usize];
        if slot != NONE {
            candidates[slot as usize].push(r);
        }
    }
    // Row order, so that the draw and the ties do not depend on the order
    // the narrowing left `t` in.
    for c in &mut candidates {
        c.sort_unstable();
    }
    let rarest = (0..s_set.len())
        .min_by_key(|&i| candidates[i].len())
        .unwrap_or_default();
    let anchors: Vec<u32> = if candidates[rarest].len() > MAX_ANCHORS {
        candidates[rarest]
            .choose_multiple(rng, MAX_ANCHORS)
            .copied()
            .collect()
    } else {
        candidates[rarest].clone()
    };
    let mut best: Option<(u64, Vec<u32>)> = None;
    for &anchor in &anchors {
        let mut total = 0u64;
        let mut picked = Vec::with_capacity(s_set.len());
        for (i, cands) in candidates.iter().enumerate() {
            if i == rarest {
                picked.push(anchor);
                continue;
            }
            let (dist, r) = cands
                .iter()
                .map(|&c| (space.distance(anchor, c), c))
                .fold((u64::MAX, NONE), |b, c| if c.0 < b.0 { c } else { b });
            total = total.saturating_add(dist);
            picked.push(r);
        }
        if best.as_ref().is_none_or(|(b, _)| total < *b) {
            best = Some((total, picked));
        }
    }
    best.map(|(_, p)| p).unwrap_or_default()
}

/// Sort T_gen by its QI values, widest attribute (within the batch) first,
/// so that the runs Alg. 4 makes into groups are QI-close.
fn order_for_grouping(mut t_gen: Vec<u32>, space: &mut Space<'_>) -> Vec<u32> {
    let mut attrs: Vec<(usize, f64)> = (0..space.d())
        .map(|a| (a, space.width(&t_gen, a)))
        .collect();
    attrs.sort_by(|x, y| y.1.total_cmp(&x.1));
    t_gen.sort_by(|&x, &y| {
        attrs
            .iter()
            .map(|&(a, _)| space.cols[a][x as usize].cmp(&space.cols[a][y as usize]))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(x.cmp(&y))
    });
    t_gen
}

/// Alg. 4: consecutive runs of T_gen as equivalence groups (`group_sizes`).
fn generalize_tuples(t_gen: &[u32], k: usize) -> Vec<Vec<u32>> {
    let mut start = 0;
    group_sizes(t_gen.len(), k)
        .into_iter()
        .map(|g| {
            let rows = t_gen[start..start + g].to_vec();
            start += g;
            rows
        })
        .collect()
}

/// Alg. 5: bucket j takes tuples j, j + k, j + 2k, … of T_gen.
fn partition_tuples(t_gen: &[u32], k: usize) -> Vec<Bucket> {
    (0..k.min(t_gen.len()))
        .map(|j| Bucket {
            rows: t_gen.iter().skip(j).step_by(k).copied().collect(),
        })
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::data::Dataset;

    pub(super) fn request(ds: &Dataset, k: u32, l: u32) -> Request<'_> {
        Request {
            ds,
            qi: vec![0, 1],
            sensitive: vec![2],
            identifiers: vec![],
            k,
            l,
            seed: 42,
            options: Default::default(),
        }
    }

    /// A dataset of string cells (the tests' tables).
    pub(super) fn table(names: &[&str], rows: &[Vec<String>]) -> Dataset {
        let rows: Vec<Vec<&str>> = rows
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        Dataset::from_rows(names, &rows).unwrap()
    }

    pub(super) fn small() -> Dataset {
        let rows: Vec<Vec<String>> = (0..60)
            .map(|i| {
                vec![
                    (20 + i % 37).to_string(),
                    ["a", "b", "c"][i % 3].to_string(),
                    ["x", "y", "z", "w", "v", "u"][(i * 7) % 6].to_string(),
                ]
            })
            .collect();
        table(&["age", "g", "s"], &rows)
    }

    #[test]
    fn seeded_and_reproducible() {
        // No cache: each run builds its own tree.
        let ds = small();
        let p = Progress::new();
        let a = cross_bucket_generalization(&request(&ds, 2, 4), &p).unwrap();
        let b = cross_bucket_generalization(&request(&ds, 2, 4), &p).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.params.seed, Some(42));
        assert_eq!(p.fraction(), 1.0);
        // Each run names its three phases; the last ends full.
        let names: Vec<String> = p.phases().iter().map(|x| x.to_string()).collect();
        assert_eq!(names.len(), 6);
        assert_eq!(names[5], "checking cross-bucket l-diversity 3/3");
        assert!(a.groups.iter().all(|g| g.rows.len() >= 2));
    }

    /// A run that starts from a kept first tree gives the release a run
    /// that builds it gives: the cache's hit is observed, and the release
    /// compared with one made without a cache; other inputs miss.
    #[test]
    fn a_kept_first_tree_changes_nothing() {
        let ds = small();
        let p = Progress::new();
        let uncached = cross_bucket_generalization(&request(&ds, 2, 4), &p).unwrap();
        let cache = std::sync::Arc::new(TreeCache::new());
        let with_cache = |ds: &Dataset, k: u32, l: u32| {
            let mut req = request(ds, k, l);
            req.options.cbg_tree = Some(std::sync::Arc::clone(&cache));
            cross_bucket_generalization(&req, &p).unwrap()
        };
        // The first run builds and keeps the tree: no hit.
        assert_eq!(with_cache(&ds, 2, 4), uncached);
        assert_eq!(cache.hits(), 0);
        assert!(!cache.is_empty());
        // The second starts from the kept tree, and so does one at other
        // k and l (which do not enter the tree).
        assert_eq!(with_cache(&ds, 2, 4), uncached);
        assert_eq!(cache.hits(), 1);
        let other_kl = cross_bucket_generalization(&request(&ds, 3, 3), &p).unwrap();
        assert_eq!(with_cache(&ds, 3, 3), other_kl);
        assert_eq!(cache.hits(), 2);
        // Another table of the same shape: a miss, its own tree, and the
        // release made without a cache.
        let rows: Vec<Vec<String>> = (0..60)
            .map(|i| {
                vec![
                    (30 + (i * 7) % 23).to_string(),
                    ["a", "b", "c"][(i / 3) % 3].to_string(),
                    ["x", "y", "z", "w", "v", "u"][(i * 5) % 6].to_string(),
                ]
            })
            .collect();
        let other = table(&["age", "g", "s"], &rows);
        let fresh = cross_bucket_generalization(&request(&other, 2, 4), &p).unwrap();
        assert_eq!(with_cache(&other, 2, 4), fresh);
        assert_eq!(cache.hits(), 2);
        // The first table again: the kept tree is the other's, a miss.
        assert_eq!(with_cache(&ds, 2, 4), uncached);
        assert_eq!(cache.hits(), 2);
    }

    #[test]
    fn cancelled_runs_stop() {
        let ds = small();
        let p = Progress::new();
        p.cancel();
        assert!(matches!(
            cross_bucket_generalization(&request(&ds, 2, 4), &p),
            Err(Error::Cancelled)
        ));
    }

    #[test]
    fn refusals_name_what_to_change() {
        let ds = small();
        let p = Progress::new();
        // Six values, k = 4, l = 5: batches need 8 distinct values.
        let e = cross_bucket_generalization(&request(&ds, 4, 5), &p)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("at least 8 distinct values") && e.contains("only 6"),
            "{e}"
        );
        // A value on 30 of 60 rows passes 2-eligibility but not CBG's plan
        // for k = 3, l = 2 (batches of at least 3 rows: at most 20 batches).
        let rows: Vec<Vec<String>> = (0..60)
            .map(|i| {
                let s = if i % 2 == 0 {
                    "hot"
                } else {
                    ["p", "q", "r"][i % 3]
                };
                vec![i.to_string(), "g".into(), s.to_string()]
            })
            .collect();
        let ds = table(&["age", "g", "s"], &rows);
        let e = cross_bucket_generalization(&request(&ds, 3, 2), &p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'hot'") && e.contains("30 of 60"), "{e}");
    }
}
