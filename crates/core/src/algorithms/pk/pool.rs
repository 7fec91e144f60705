//! The unassigned tuples of GreedyPKClustering, grouped so that a
//! BestMatch scan scores each distinct candidate once.
//!
//! A candidate's score depends only on its QI values (the IL increase) and
//! its sensitive ids (Div), so the tuples are grouped by QI combination
//! (*combos*, ordered by their first row in the table) and, inside each, by
//! sensitive ids (*cells*), whose rows are kept ascending. A scan computes
//! the IL increase once per combo — on Adult's six p-sensitive QIs 5,480
//! combos for 30,162 rows — and Div once per cell, and returns the best
//! candidate's lowest row; ties go to the earlier combo, then to the lower
//! row. A row taken is always the lowest of its cell (its head), so a cell
//! is a sorted list with a head index.
//!
//! A scan with a floor (Cluster::floor: no candidate can beat a row whose
//! QI values lie inside gen(cl) and that brings every deficient sensitive
//! attribute a new value) returns the first combo in order that reaches
//! it. Only a combo each of whose codes leaves its QI's IL term where it is
//! can reach it (terms never fall as gen(cl) grows), so the combos are
//! indexed by code (a bitset of combos per QI and code): the candidates are
//! the alive combos in the AND over the QIs of the union of the codes that
//! keep the term, scanned first, in order; only when none of them reaches
//! the floor is every alive combo scanned. On Adult (k = 20, p = 6) most
//! scans of GreedyPKClustering end among the candidates.
//!
//! A diverse scan (most Div first) is narrowed further by the cells'
//! sensitive ids (*keys*: each distinct tuple of ids; 224 on Adult's
//! education × occupation): Div depends on the key alone, so the scan
//! computes it once per key, takes the largest Div D any alive cell
//! reaches, and visits only the combos holding an alive cell of a key
//! worth D (a bitset of combos per key) — the best candidate is among
//! them. Among those, the ones inside gen(cl) are visited first: when the
//! best of them adds no more IL than a combo outside can (every combo
//! outside grows some term by more than the margin), it is the answer.
//! The key index is built when keys × combos stays within [`KEY_BITS`].

use std::cmp::Ordering;

use fixedbitset::FixedBitSet;
use rayon::prelude::*;

use super::{better, Cluster, Problem, Score, Terms};

/// Combos per parallel chunk of a scan: only the first scans of a large
/// table run in parallel (under load, handing small scans to rayon cost
/// more than it saved).
const CHUNK: usize = 4096;

/// The largest key index (keys × combos bits, 8 MB).
const KEY_BITS: usize = 64 << 20;

/// A term grown by no more than this (relative to 1 + IL(cl)/|cl|) counts
/// as kept by [`Pool::inside`]; far above the floor's rounding allowance.
const MARGIN: f64 = 1e-6;

pub(crate) struct Pool {
    d: usize,
    /// Per combo: the QI codes (`d` each, flat) and its cells' range.
    codes: Vec<u32>,
    combo_cells: Vec<(u32, u32)>,
    /// Per cell: its rows ascending, the index of the first not taken, its
    /// sensitive ids (`views` each, flat).
    rows: Vec<Vec<u32>>,
    head: Vec<usize>,
    sens: Vec<u32>,
    views: usize,
    /// Cell of each row of the table (`u32::MAX` outside the pool).
    cell_of: Vec<u32>,
    /// Per cell: its lowest row not taken (`u32::MAX` when none).
    cell_head: Vec<u32>,
    /// Per combo: its lowest row not taken (`u32::MAX` when none).
    combo_head: Vec<u32>,
    /// Combos with rows left, ascending, and as a bitset.
    alive: Vec<u32>,
    alive_bits: FixedBitSet,
    /// Per QI and code: the combos with that code.
    by_code: Vec<Vec<FixedBitSet>>,
    /// Per cell: its key (distinct tuple of sensitive ids), the keys' ids
    /// (`views` each, flat); per key, the combos holding an alive cell of
    /// it and how many such cells (`None`: not built, see [`KEY_BITS`]).
    cell_key: Vec<u32>,
    key_ids: Vec<u32>,
    keys: Option<Keys>,
    left: Vec<u32>,
    len: usize,
}

struct Keys {
    combos: Vec<FixedBitSet>,
    alive: Vec<u32>,
}

/// What a scan weighs Div with: per view, the units a new value brings;
/// per key, when the key index exists, its Div for the cluster.
struct Weights<'a> {
    views: &'a [u32],
    keys: Option<&'a [u32]>,
}

/// The best candidate of part of a scan: its score and its row; `reached`
/// when it reaches the floor.
#[derive(Debug, Clone, Copy)]
struct Found {
    score: Score,
    row: u32,
    reached: bool,
}

impl Pool {
    /// Every row of the problem's table.
    pub fn new(pr: &Problem<'_>) -> Self {
        let n = pr.n();
        let d = pr.codes.len();
        let views = pr.views.len();
        let mut combo_of: rustc_hash::FxHashMap<Vec<u32>, u32> = Default::default();
        let mut cell_key: rustc_hash::FxHashMap<(u32, Vec<u32>), u32> = Default::default();
        let mut codes = Vec::new();
        let mut cells_of_combo: Vec<Vec<u32>> = Vec::new();
        let mut rows: Vec<Vec<u32>> = Vec::new();
        let mut sens = Vec::new();
        let mut cell_of = vec![u32::MAX; n];
        let mut key = Vec::with_capacity(d);
        let mut skey = Vec::with_capacity(views);
        for r in 0..n {
            key.clear();
            key.extend(pr.codes.iter().map(|c| c[r]));
            let combo = *combo_of.entry(key.clone()).or_insert_with(|| {
                codes.extend_from_slice(&key);
                cells_of_combo.push(Vec::new());
                (cells_of_combo.len() - 1) as u32
            });
            skey.clear();
            skey.extend(pr.views.iter().map(|v| v.ids[r]));
            let cell = *cell_key.entry((combo, skey.clone())).or_insert_with(|| {
                sens.extend_from_slice(&skey);
                rows.push(Vec::new());
                cells_of_combo[combo as usize].push((rows.len() - 1) as u32);
                (rows.len() - 1) as u32
            });
            rows[cell as usize].push(r as u32);
            cell_of[r] = cell;
        }
        // Renumber the cells so that each combo's are contiguous.
        let mut order = Vec::with_capacity(rows.len());
        let mut combo_cells = Vec::with_capacity(cells_of_combo.len());
        for cells in &cells_of_combo {
            let start = order.len() as u32;
            order.extend_from_slice(cells);
            combo_cells.push((start, order.len() as u32));
        }
        let mut new_id = vec![0u32; rows.len()];
        for (i, &c) in order.iter().enumerate() {
            new_id[c as usize] = i as u32;
        }
        let mut rows_sorted = vec![Vec::new(); rows.len()];
        let mut sens_sorted = vec![0u32; sens.len()];
        for (old, r) in rows.into_iter().enumerate() {
            let id = new_id[old] as usize;
            sens_sorted[id * views..(id + 1) * views]
                .copy_from_slice(&sens[old * views..(old + 1) * views]);
            rows_sorted[id] = r;
        }
        for c in &mut cell_of {
            *c = new_id[*c as usize];
        }
        let combos = combo_cells.len();
        let mut by_code: Vec<Vec<FixedBitSet>> = pr
            .code_space
            .iter()
            .map(|&space| vec![FixedBitSet::with_capacity(combos); space])
            .collect();
        for (combo, key) in codes.chunks_exact(d.max(1)).enumerate().take(combos) {
            for (a, &c) in key.iter().enumerate() {
                by_code[a][c as usize].insert(combo);
            }
        }
        let mut alive_bits = FixedBitSet::with_capacity(combos);
        alive_bits.insert_range(..);
        let mut key_of: rustc_hash::FxHashMap<&[u32], u32> = Default::default();
        let mut key_ids = Vec::new();
        let cell_key: Vec<u32> = sens_sorted
            .chunks_exact(views.max(1))
            .take(rows_sorted.len())
            .map(|ids| {
                *key_of.entry(ids).or_insert_with(|| {
                    key_ids.extend_from_slice(ids);
                    (key_ids.len() / views.max(1) - 1) as u32
                })
            })
            .collect();
        let n_keys = key_of.len();
        let keys = (views > 0 && n_keys.saturating_mul(combos) <= KEY_BITS).then(|| {
            let mut k = Keys {
                combos: vec![FixedBitSet::with_capacity(combos); n_keys],
                alive: vec![0; n_keys],
            };
            for (combo, &(a, b)) in combo_cells.iter().enumerate() {
                for &key in &cell_key[a as usize..b as usize] {
                    let key = key as usize;
                    k.combos[key].insert(combo);
                    k.alive[key] += 1;
                }
            }
            k
        });
        let cell_head: Vec<u32> = rows_sorted.iter().map(|r| r[0]).collect();
        let combo_head = combo_cells
            .iter()
            .map(|&(a, b)| {
                cell_head[a as usize..b as usize]
                    .iter()
                    .copied()
                    .min()
                    .unwrap_or(u32::MAX)
            })
            .collect();
        let left = (0..combos)
            .map(|i| {
                let (a, b) = combo_cells[i];
                (a..b).map(|c| rows_sorted[c as usize].len() as u32).sum()
            })
            .collect();
        Pool {
            d,
            codes,
            combo_cells,
            head: vec![0; rows_sorted.len()],
            rows: rows_sorted,
            sens: sens_sorted,
            views,
            cell_of,
            cell_head,
            combo_head,
            alive: (0..combos as u32).collect(),
            alive_bits,
            by_code,
            cell_key,
            key_ids,
            keys,
            left,
            len: n,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Take `row` out of the pool (it must be in it).
    pub fn take(&mut self, row: u32) {
        let cell = self.cell_of[row as usize] as usize;
        debug_assert_ne!(cell, u32::MAX as usize);
        let h = self.head[cell];
        let rows = &mut self.rows[cell];
        if rows[h] == row {
            self.head[cell] += 1;
        } else {
            // Only the first seed is taken from inside a cell.
            let at = rows[h..]
                .iter()
                .position(|&r| r == row)
                .expect("row in its cell")
                + h;
            rows.remove(at);
        }
        self.cell_of[row as usize] = u32::MAX;
        self.len -= 1;
        self.cell_head[cell] = self.rows[cell]
            .get(self.head[cell])
            .copied()
            .unwrap_or(u32::MAX);
        let combo = self.combo_of_cell(cell);
        if let (u32::MAX, Some(keys)) = (self.cell_head[cell], &mut self.keys) {
            let key = self.cell_key[cell] as usize;
            keys.combos[key].set(combo, false);
            keys.alive[key] -= 1;
        }
        let (a, b) = self.combo_cells[combo];
        self.combo_head[combo] = self.cell_head[a as usize..b as usize]
            .iter()
            .copied()
            .min()
            .unwrap_or(u32::MAX);
        self.left[combo] -= 1;
        if self.left[combo] == 0 {
            let i = self
                .alive
                .binary_search(&(combo as u32))
                .expect("combo alive");
            self.alive.remove(i);
            self.alive_bits.set(combo, false);
        }
    }

    /// Every row still in the pool, ascending.
    pub fn rest(&self) -> Vec<u32> {
        let mut out: Vec<u32> = (0..self.rows.len())
            .flat_map(|c| self.rows[c][self.head[c]..].iter().copied())
            .collect();
        out.sort_unstable();
        out
    }

    fn combo_of_cell(&self, cell: usize) -> usize {
        self.combo_cells
            .partition_point(|&(_, end)| end as usize <= cell)
    }

    /// The IL increase of adding the combo's values to `cl`, computed as
    /// `Cluster::delta_with` does for a row of the combo.
    fn dil(&self, cl: &Cluster, terms: &Terms, combo: usize) -> f64 {
        let codes = &self.codes[combo * self.d..(combo + 1) * self.d];
        cl.delta_codes(terms, codes)
    }

    /// BestMatch of `cl` over the pool: with `diverse`, most Div first,
    /// then least IL increase; without, least IL increase. A candidate
    /// reaching `floor` (no candidate can beat it) ends the scan. `negate`
    /// turns the IL increase around (the farthest tuple). Large pools are
    /// scanned in parallel chunks, each stopping at its first candidate
    /// reaching the floor; the earliest such, else the best, wins.
    pub fn best(
        &self,
        pr: &Problem<'_>,
        cl: &Cluster,
        diverse: bool,
        floor: Option<Score>,
        negate: bool,
    ) -> Option<u32> {
        let terms = cl.terms(pr);
        let weight = self.weights(pr, cl);
        // Div of every key, once per scan: a cell's Div is its key's. A
        // diverse scan visits only the combos holding a cell of the
        // largest Div any alive cell reaches.
        let key_divs: Option<Vec<u32>> = match (&self.keys, diverse) {
            (Some(keys), true) => Some(
                (0..keys.alive.len())
                    .map(|k| self.key_div(k, cl, &weight))
                    .collect(),
            ),
            _ => None,
        };
        let worth = match (&self.keys, &key_divs) {
            (Some(keys), Some(divs)) => Some(self.worth(keys, divs)),
            _ => None,
        };
        let weight = Weights {
            views: &weight,
            keys: key_divs.as_deref(),
        };
        if !negate {
            // The combos inside gen(cl) first (among those worth it).
            let mut inside = self.inside(cl, pr, &terms);
            if let Some(w) = &worth {
                inside.intersect_with(w);
            }
            let inside: Vec<u32> = inside.ones().map(|c| c as u32).collect();
            let f = self.scan(cl, &terms, &weight, diverse, floor, negate, &inside);
            if let Some(f) = f {
                // A combo outside grows some term by more than the margin,
                // so its IL increase is at least (|cl| + 1) · margin above
                // IL(cl)/|cl|: half of that is beyond rounding.
                let outside = cl.cost + 0.5 * (cl.len() + 1) as f64 * MARGIN * (1.0 + cl.cost);
                if f.reached || (worth.is_some() && f.score.dil <= outside) {
                    return Some(f.row);
                }
            }
        }
        let listed: Vec<u32>;
        let combos = match worth {
            Some(w) => {
                listed = w.ones().map(|c| c as u32).collect();
                &listed
            }
            None => &self.alive,
        };
        // Chunks come back in order, so the first that reached the floor
        // and, among equal bests, the earlier are kept.
        let scan = |combos: &[u32]| self.scan(cl, &terms, &weight, diverse, floor, negate, combos);
        let found: Vec<Found> = if combos.len() > CHUNK {
            combos.par_chunks(CHUNK).filter_map(scan).collect()
        } else {
            scan(combos).into_iter().collect()
        };
        if let Some(f) = found.iter().find(|f| f.reached) {
            return Some(f.row);
        }
        found
            .into_iter()
            .reduce(|a, b| match better(b.score, a.score) {
                Ordering::Less => b,
                _ => a,
            })
            .map(|f| f.row)
    }

    /// Per sensitive view, the Div units a new value brings `cl`: p −
    /// min(distinct, p) ([`Cluster::div`]).
    fn weights(&self, pr: &Problem<'_>, cl: &Cluster) -> Vec<u32> {
        cl.distinct
            .iter()
            .map(|&d| pr.p - crate::metrics::pk_measures::capped(d, pr.p))
            .collect()
    }

    /// Div of a key's ids for `cl`.
    fn key_div(&self, key: usize, cl: &Cluster, weight: &[u32]) -> u32 {
        ids_div(
            &self.key_ids[key * self.views..(key + 1) * self.views],
            cl,
            weight,
        )
    }

    /// The alive combos holding a cell of the largest Div any alive cell
    /// reaches for `cl`; `key_divs`: each key's Div.
    fn worth(&self, keys: &Keys, key_divs: &[u32]) -> FixedBitSet {
        let divs: Vec<Option<u32>> = (0..keys.alive.len())
            .map(|k| (keys.alive[k] > 0).then_some(key_divs[k]))
            .collect();
        let mut out = FixedBitSet::with_capacity(self.alive_bits.len());
        if let Some(top) = divs.iter().flatten().max() {
            for (k, d) in divs.iter().enumerate() {
                if *d == Some(*top) {
                    out.union_with(&keys.combos[k]);
                }
            }
        }
        out
    }

    /// The alive combos whose every code keeps its QI's IL term (up to
    /// [`MARGIN`], far above the floor's rounding allowance): a superset of
    /// those that can reach [`Cluster::floor`].
    fn inside(&self, cl: &Cluster, pr: &Problem<'_>, terms: &Terms) -> FixedBitSet {
        let margin = MARGIN * (1.0 + cl.cost);
        let mut acc = self.alive_bits.clone();
        let mut union = FixedBitSet::with_capacity(acc.len());
        for (a, by_code) in self.by_code.iter().enumerate() {
            let base = pr.model.term(a, cl.gen[a]);
            let keeps = |c: usize| terms.0[a][c] <= base + margin;
            let kept = (0..by_code.len()).filter(|&c| keeps(c)).count();
            if kept == by_code.len() {
                continue;
            }
            union.clear();
            // The fewer of the codes kept and the codes ruled out.
            if kept <= by_code.len() - kept {
                for (c, set) in by_code.iter().enumerate() {
                    if keeps(c) {
                        union.union_with(set);
                    }
                }
                acc.intersect_with(&union);
            } else {
                for (c, set) in by_code.iter().enumerate() {
                    if !keeps(c) {
                        union.union_with(set);
                    }
                }
                acc.difference_with(&union);
            }
            if acc.is_clear() {
                break;
            }
        }
        acc
    }

    /// One chunk of [`Self::best`]: the alive combos `combos`.
    #[allow(clippy::too_many_arguments)]
    fn scan(
        &self,
        cl: &Cluster,
        terms: &Terms,
        weight: &Weights<'_>,
        diverse: bool,
        floor: Option<Score>,
        negate: bool,
        combos: &[u32],
    ) -> Option<Found> {
        let reached = |s: Score| {
            floor.is_some_and(|f| s.div >= f.div && s.dil <= f.dil + 1e-9 * (1.0 + f.dil.abs()))
        };
        // Div of a cell: its key's, else from its sensitive ids.
        let div_of = |cell: usize| -> u32 {
            match weight.keys {
                Some(divs) => divs[self.cell_key[cell] as usize],
                None => ids_div(
                    &self.sens[cell * self.views..(cell + 1) * self.views],
                    cl,
                    weight.views,
                ),
            }
        };
        let mut best: Option<Found> = None;
        for &combo in combos {
            let combo = combo as usize;
            let (s, row) = if diverse {
                // The combo's best cell: most Div, ties to the lower head
                // row (its cells share the IL increase).
                let (a, b) = self.combo_cells[combo];
                let mut here: Option<(u32, u32)> = None;
                for cell in a as usize..b as usize {
                    let row = self.cell_head[cell];
                    if row == u32::MAX {
                        continue;
                    }
                    let div = div_of(cell);
                    here = match here {
                        Some((hd, hr)) if hd > div || (hd == div && hr < row) => Some((hd, hr)),
                        _ => Some((div, row)),
                    };
                }
                let Some((div, row)) = here else { continue };
                // Less Div than the best so far can neither beat it nor
                // reach the floor (whose Div is the most any row has):
                // its IL increase is not needed.
                if best.is_some_and(|b| div < b.score.div) {
                    continue;
                }
                let dil = self.dil(cl, terms, combo);
                let dil = if negate { -dil } else { dil };
                (Score { div, dil }, row)
            } else {
                let dil = self.dil(cl, terms, combo);
                let dil = if negate { -dil } else { dil };
                (Score { div: 0, dil }, self.combo_head[combo])
            };
            let f = Found {
                score: s,
                row,
                reached: reached(s),
            };
            if f.reached {
                return Some(f);
            }
            if best.is_none_or(|b| better(s, b.score) == Ordering::Less) {
                best = Some(f);
            }
        }
        best
    }
}

/// Div for `cl` of a candidate with sensitive ids `ids` ([`Cluster::div`]):
/// Σ over the views where its id is new to the cluster of the view's
/// weight p − min(distinct, p).
fn ids_div(ids: &[u32], cl: &Cluster, weight: &[u32]) -> u32 {
    ids.iter()
        .zip(&cl.counts)
        .zip(weight)
        .map(|((&id, counts), &w)| if counts[id as usize] == 0 { w } else { 0 })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::{Options, Request};
    use crate::data::Dataset;
    use proptest::prelude::*;

    /// Rows of (age, sex, s, t) with few distinct values, so combos repeat.
    fn table(rows: &[(u8, u8, u8, u8)]) -> Dataset {
        let text: Vec<Vec<String>> = rows
            .iter()
            .map(|&(a, x, s, t)| {
                vec![
                    (20 + 5 * a).to_string(),
                    ["F", "M"][x as usize % 2].to_string(),
                    ((b'a' + s) as char).to_string(),
                    ((b'p' + t) as char).to_string(),
                ]
            })
            .collect();
        let rows: Vec<Vec<&str>> = text
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        Dataset::from_rows(&["age", "sex", "s", "t"], &rows).unwrap()
    }

    proptest! {
        #[test]
        fn the_pool_finds_what_a_scan_of_every_row_finds(
            rows in prop::collection::vec((0u8..4, 0u8..2, 0u8..4, 0u8..3), 6..60),
            members in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
            taken in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
            diverse in any::<bool>(),
            negate in any::<bool>(),
        ) {
            let ds = table(&rows);
            let mut options = Options::default();
            options.pk.p = 2;
            let req = Request {
                ds: &ds,
                qi: vec![0, 1],
                sensitive: vec![2, 3],
                identifiers: vec![],
                k: 2,
                l: 1,
                seed: 1,
                options,
            };
            let Ok(pr) = Problem::new(&req) else { return Ok(()); };
            let n = ds.n_rows();
            let mut pool = Pool::new(&pr);
            let mut in_pool = vec![true; n];
            let mut cl = Cluster::new(&pr);
            for m in &members {
                let r = m.index(n) as u32;
                if in_pool[r as usize] {
                    pool.take(r);
                    in_pool[r as usize] = false;
                    cl.add(&pr, r);
                }
            }
            for t in &taken {
                let r = t.index(n) as u32;
                if in_pool[r as usize] {
                    pool.take(r);
                    in_pool[r as usize] = false;
                }
            }
            let left: Vec<u32> = (0..n as u32).filter(|&r| in_pool[r as usize]).collect();
            prop_assert_eq!(pool.rest(), left.clone());
            // Brute force: every row scored; ties to the combo seen first in
            // the table, then to the lower row.
            let key = |r: u32| (ds.col(0).code(r as usize), ds.col(1).code(r as usize));
            let first_of = |r: u32| (0..n as u32).find(|&x| key(x) == key(r)).unwrap();
            let score = |r: u32| {
                let dil = cl.delta_il(&pr, r);
                Score { div: if diverse { cl.div(&pr, r) } else { 0 }, dil: if negate { -dil } else { dil } }
            };
            let want = left.iter().copied().min_by(|&a, &b| {
                better(score(a), score(b)).then(first_of(a).cmp(&first_of(b))).then(a.cmp(&b))
            });
            let got = pool.best(&pr, &cl, diverse, None, negate);
            prop_assert_eq!(got, want);
            // With the floor (a bound on the IL increase, so not for the
            // farthest tuple), the answer scores as well as the best.
            if negate {
                return Ok(());
            }
            if let (Some(g), Some(w)) = (pool.best(&pr, &cl, diverse, Some(cl.floor(2, diverse)), false), want) {
                let (sg, sw) = (score(g), score(w));
                prop_assert!(sg.div == sw.div && (sg.dil - sw.dil).abs() < 1e-9, "{:?} vs {:?}", sg, sw);
            }
        }
    }
}
