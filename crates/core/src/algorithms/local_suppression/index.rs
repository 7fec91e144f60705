//! The published key tuples of one pass, and how many records each is
//! compatible with: sdcMicro's freqCalc (alpha = 1) asked again and again
//! while cells are suppressed, so kept up to date rather than recounted.
//!
//! A unit is a set of records that publish the same tuple (a distinct
//! tuple of the input with its count, or one record), with its codes on
//! the pass's keys and its suppression pattern (bit a: key a is `*`).
//! Records of pattern P match a tuple t whose `*`s are W exactly when
//! they agree with t on every key outside P ∪ W, so the records
//! compatible with t are
//!
//!   Σ over patterns P present: count of pattern P's records by their
//!   codes on the keys outside P ∪ W, looked up at t's codes there,
//!
//! the rule of `risk::original_matches` (a hidden cell is a wildcard on
//! both sides), asked of one tuple at a time. The per-(P, P ∪ W) counts
//! are built when first asked; units moving to another pattern are logged
//! per pattern, and a count catches up with its pattern's log when next
//! asked (most counts of a large pattern are asked by a few records only:
//! updating every one at every move was half of Adult's time). Codes are
//! packed into one `u128` (each key in the bits its code space needs).
//! The figures are checked against `risk::original_matches` in the tests.

use rustc_hash::FxHashMap;

/// Keys of a pass and their packing.
#[derive(Debug, Clone)]
pub(super) struct Layout {
    pub(super) m: usize,
    shifts: Vec<u32>,
    /// Per key, the bits of its code in a packed tuple.
    fields: Vec<u128>,
}

impl Layout {
    /// `None` when the codes need more than 128 bits together.
    pub(super) fn new(bits: &[u32]) -> Option<Self> {
        let mut shifts = Vec::with_capacity(bits.len());
        let mut fields = Vec::with_capacity(bits.len());
        let mut at = 0u32;
        for &b in bits {
            let b = b.max(1);
            if at + b > 128 {
                return None;
            }
            shifts.push(at);
            fields.push((u128::MAX >> (128 - b)) << at);
            at += b;
        }
        Some(Layout {
            m: bits.len(),
            shifts,
            fields,
        })
    }

    pub(super) fn full(&self) -> u32 {
        if self.m == 32 {
            u32::MAX
        } else {
            (1u32 << self.m) - 1
        }
    }

    fn pack(&self, codes: &[u32]) -> u128 {
        codes
            .iter()
            .zip(&self.shifts)
            .fold(0u128, |key, (&c, &at)| key | (u128::from(c) << at))
    }

    /// The bits of the keys in `keep`: a packed tuple masked by them is
    /// its key on those keys.
    fn bits(&self, mut keep: u32) -> u128 {
        let mut bits = 0u128;
        while keep != 0 {
            bits |= self.fields[keep.trailing_zeros() as usize];
            keep &= keep - 1;
        }
        bits
    }
}

/// Patterns of at most this many units are scanned rather than counted:
/// a masked comparison per unit costs less than keeping a count up to date.
const SCAN: usize = 64;

/// Records of one pattern by their codes outside a set of keys: how
/// many, and their sampling weights' sum (the risk target's F̂).
#[derive(Debug, Clone, Default)]
struct Counts {
    by_key: FxHashMap<u128, Tally>,
    applied: usize,
}

/// Records and the sum of their sampling weights.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    records: u32,
    weight: f64,
}

/// Units, their patterns, and the counts asked so far.
#[derive(Debug, Clone)]
pub(super) struct State {
    layout: Layout,
    /// Codes, `m` per unit, and each unit's packed.
    codes: Vec<u32>,
    packed: Vec<u128>,
    pub(super) masks: Vec<u32>,
    pub(super) weights: Vec<u32>,
    /// Per unit, the sum of its records' sampling weights (their number
    /// when the file has none).
    sampling: Vec<f64>,
    /// Units per pattern present, and each unit's place in its list.
    by_pattern: FxHashMap<u32, Vec<u32>>,
    place: Vec<u32>,
    /// Counts by (P, U), each with how much of P's log it has taken.
    counts: FxHashMap<u64, Counts>,
    /// Per pattern: units that entered (records > 0) or left (< 0) it,
    /// with their sampling weight (signed likewise).
    log: FxHashMap<u32, Vec<(u32, i64, f64)>>,
    /// Records of all units.
    pub(super) records: u64,
    /// The patterns present, gathered per query (kept to reuse its room).
    scratch: Vec<u32>,
}

impl State {
    pub(super) fn new(layout: Layout, codes: Vec<u32>, masks: Vec<u32>, weights: Vec<u32>) -> Self {
        let mut by_pattern: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        let mut place = Vec::with_capacity(masks.len());
        for (u, &p) in masks.iter().enumerate() {
            let list = by_pattern.entry(p).or_default();
            place.push(list.len() as u32);
            list.push(u as u32);
        }
        let records = weights.iter().map(|&w| u64::from(w)).sum();
        let sampling = weights.iter().map(|&w| f64::from(w)).collect();
        let packed = codes
            .chunks(layout.m.max(1))
            .map(|c| layout.pack(c))
            .collect();
        State {
            layout,
            codes,
            packed,
            masks,
            weights,
            sampling,
            by_pattern,
            place,
            counts: FxHashMap::default(),
            log: FxHashMap::default(),
            records,
            scratch: Vec::new(),
        }
    }

    /// Each unit's sum of sampling weights (`sampling[u]`), before any
    /// count is asked.
    pub(super) fn with_sampling(mut self, sampling: Vec<f64>) -> Self {
        debug_assert!(self.counts.is_empty() && sampling.len() == self.masks.len());
        self.sampling = sampling;
        self
    }

    pub(super) fn layout(&self) -> &Layout {
        &self.layout
    }

    pub(super) fn units(&self) -> usize {
        self.masks.len()
    }

    pub(super) fn codes_of(&self, u: usize) -> &[u32] {
        let m = self.layout.m;
        &self.codes[u * m..(u + 1) * m]
    }

    /// The counts of pattern `p` outside `u_mask`, built or brought up to
    /// date with the pattern's log.
    fn counts(&mut self, p: u32, u_mask: u32) -> &FxHashMap<u128, Tally> {
        let id = (u64::from(p) << 32) | u64::from(u_mask);
        let bits = self.layout.bits(self.layout.full() & !u_mask);
        let log = self.log.get(&p).map_or(&[][..], |l| l.as_slice());
        let counts = match self.counts.entry(id) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let mut by_key: FxHashMap<u128, Tally> = FxHashMap::default();
                if let Some(list) = self.by_pattern.get(&p) {
                    for &v in list {
                        let v = v as usize;
                        let t = by_key.entry(self.packed[v] & bits).or_default();
                        t.records += self.weights[v];
                        t.weight += self.sampling[v];
                    }
                }
                e.insert(Counts {
                    by_key,
                    applied: log.len(),
                })
            }
        };
        for &(v, delta, weight) in &log[counts.applied..] {
            let key = self.packed[v as usize] & bits;
            if delta > 0 {
                let t = counts.by_key.entry(key).or_default();
                t.records += delta as u32;
                t.weight += weight;
            } else if let Some(t) = counts.by_key.get_mut(&key) {
                t.records -= (-delta) as u32;
                t.weight += weight;
                // An empty key is dropped, and with it the rounding its
                // weight sum gathered.
                if t.records == 0 {
                    counts.by_key.remove(&key);
                }
            }
        }
        counts.applied = log.len();
        &counts.by_key
    }

    /// Units of pattern `p` agreeing with unit `u` outside `union` (a
    /// superset of `p`): scanned when the pattern has few units, else
    /// looked up in its counts.
    fn agreeing_in(&mut self, u: usize, p: u32, union: u32) -> Tally {
        let bits = self.layout.bits(self.layout.full() & !union);
        let key = self.packed[u] & bits;
        let list = &self.by_pattern[&p];
        if list.len() <= SCAN {
            let mut t = Tally::default();
            for &v in list {
                let v = v as usize;
                if self.packed[v] & bits == key {
                    t.records += self.weights[v];
                    t.weight += self.sampling[v];
                }
            }
            return t;
        }
        self.counts(p, union).get(&key).copied().unwrap_or_default()
    }

    /// Records compatible with unit `u`'s codes when its `*`s are `w`
    /// (under alpha = 1), `u`'s own records included if they are
    /// compatible with that tuple (they are when `w` covers their
    /// pattern).
    pub(super) fn compatible(&mut self, u: usize, w: u32) -> u64 {
        self.compatible_weighted(u, w).0
    }

    /// [`State::compatible`] with the sum of those records' sampling
    /// weights: the f and F̂ of individual risk under alpha = 1.
    pub(super) fn compatible_weighted(&mut self, u: usize, w: u32) -> (u64, f64) {
        let mut patterns = std::mem::take(&mut self.scratch);
        patterns.clear();
        patterns.extend(self.by_pattern.keys().copied());
        let mut records = 0u64;
        let mut weight = 0f64;
        for &p in &patterns {
            let t = self.agreeing_in(u, p, p | w);
            records += u64::from(t.records);
            weight += t.weight;
        }
        self.scratch = patterns;
        (records, weight)
    }

    /// Records publishing exactly unit `u`'s codes with `*`s `w` (the
    /// class under alpha = 0).
    pub(super) fn exact(&mut self, u: usize, w: u32) -> u64 {
        if !self.by_pattern.contains_key(&w) {
            return 0;
        }
        u64::from(self.agreeing_in(u, w, w).records)
    }

    /// Records of units of pattern exactly `p` that agree with unit `u`
    /// outside `p | w`.
    pub(super) fn agreeing(&mut self, u: usize, p: u32, w: u32) -> u64 {
        if !self.by_pattern.contains_key(&p) {
            return 0;
        }
        u64::from(self.agreeing_in(u, p, p | w).records)
    }

    /// Unit `u` counts for no record any more.
    pub(super) fn unweigh(&mut self, u: usize) {
        let p = self.masks[u];
        self.account(u, p, -1);
        self.records -= u64::from(self.weights[u]);
        self.weights[u] = 0;
        self.sampling[u] = 0.0;
    }

    /// Unit `u` now publishes `*` on `extra` too.
    pub(super) fn suppress(&mut self, u: usize, extra: u32) {
        let from = self.masks[u];
        let to = from | extra;
        if to == from {
            return;
        }
        self.account(u, from, -1);
        // Out of its pattern's list (the last unit takes its place).
        let list = self.by_pattern.get_mut(&from).expect("unit's pattern");
        let at = self.place[u] as usize;
        let last = *list.last().expect("non-empty pattern");
        list.swap_remove(at);
        if at < list.len() {
            self.place[last as usize] = at as u32;
        }
        if list.is_empty() {
            self.by_pattern.remove(&from);
        }
        let list = self.by_pattern.entry(to).or_default();
        self.place[u] = list.len() as u32;
        list.push(u as u32);
        self.masks[u] = to;
        self.account(u, to, 1);
    }

    /// Log unit `u`'s records entering (`sign` 1) or leaving (−1)
    /// pattern `p`.
    fn account(&mut self, u: usize, p: u32, sign: i64) {
        let w = i64::from(self.weights[u]);
        if w != 0 {
            let weight = sign as f64 * self.sampling[u];
            self.log
                .entry(p)
                .or_default()
                .push((u as u32, sign * w, weight));
        }
    }
}

/// The subsets of `of` with `size` bits, in increasing order (Gosper's
/// hack over the bits of `of`).
pub(super) fn subsets(of: u32, size: u32) -> impl Iterator<Item = u32> {
    let bits: Vec<u32> = (0..32).filter(|&b| of & (1 << b) != 0).collect();
    let n = bits.len() as u32;
    let mut next: Option<u64> = (size <= n).then(|| if size == 0 { 0 } else { (1u64 << size) - 1 });
    std::iter::from_fn(move || {
        let x = next?;
        next = if size == 0 || x == 0 {
            None
        } else {
            let c = x & x.wrapping_neg();
            let r = x + c;
            let y = (((r ^ x) >> 2) / c) | r;
            (y < (1u64 << n)).then_some(y)
        };
        let mut s = 0u32;
        let mut v = x;
        while v != 0 {
            let i = v.trailing_zeros();
            s |= 1 << bits[i as usize];
            v &= v - 1;
        }
        Some(s)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_by_size() {
        let all: Vec<u32> = subsets(0b1011, 2).collect();
        assert_eq!(all, vec![0b0011, 0b1001, 0b1010]);
        assert_eq!(subsets(0b1011, 0).collect::<Vec<_>>(), vec![0]);
        assert_eq!(subsets(0b1011, 3).collect::<Vec<_>>(), vec![0b1011]);
        assert!(subsets(0b1, 2).next().is_none());
    }

    #[test]
    fn counts_follow_suppressions() {
        // Tuples (a, b): (0,0) ×2, (0,1), (1,1).
        let layout = Layout::new(&[1, 1]).unwrap();
        let mut s = State::new(layout, vec![0, 0, 0, 1, 1, 1], vec![0; 3], vec![2, 1, 1]);
        assert_eq!(s.compatible(0, 0), 2);
        assert_eq!(s.compatible(1, 0), 1);
        // (0,*) for unit 1: it now matches (0,0) too, both ways.
        s.suppress(1, 0b10);
        assert_eq!(s.compatible(1, 0b10), 3);
        assert_eq!(s.compatible(0, 0), 3);
        assert_eq!(s.compatible(2, 0), 1);
        assert_eq!(s.exact(1, 0b10), 1);
        assert_eq!(s.exact(0, 0), 2);
        s.suppress(2, 0b11);
        assert_eq!(s.compatible(2, 0b11), 4);
        assert_eq!(s.compatible(0, 0), 4);
    }

    /// The counts are freqCalc's (alpha = 1), as `risk::original_matches`
    /// gives them with the `*`s as hidden cells: one record per unit.
    #[test]
    fn compatible_counts_are_original_matches() {
        use crate::data::Dataset;
        use crate::progress::Progress;
        use crate::risk::{original_matches, Knowledge};
        use fixedbitset::FixedBitSet;
        let rows: Vec<Vec<&str>> = (0..1000)
            .map(|i| {
                vec![
                    ["a", "b", "c"][i % 3],
                    ["x", "y"][(i / 3) % 2],
                    ["p", "q", "r", "s"][(i * 7) % 4],
                ]
            })
            .collect();
        let ds = Dataset::from_rows(&["k0", "k1", "k2"], &rows).unwrap();
        let n = ds.n_rows();
        let masks: Vec<u32> = (0..n as u32).map(|r| (r * 5 + r / 7) % 8).collect();
        let table = &ds;
        let codes: Vec<u32> = (0..n)
            .flat_map(|r| (0..3).map(move |c| table.col(c).code(r)))
            .collect();
        let bits: Vec<u32> = (0..3).map(|c| ds.col(c).code_bits()).collect();
        let mut state = State::new(Layout::new(&bits).unwrap(), codes, vec![0; n], vec![1; n]);
        // Counts built before the suppressions, so that they are updated.
        for r in 0..n {
            state.compatible(r, 0);
            state.compatible(r, 0b101);
        }
        let mut hidden = vec![FixedBitSet::with_capacity(n); 3];
        for (r, &m) in masks.iter().enumerate() {
            state.suppress(r, m);
            for (a, h) in hidden.iter_mut().enumerate() {
                h.set(r, m & (1 << a) != 0);
            }
        }
        let h: Vec<Option<&FixedBitSet>> = hidden.iter().map(Some).collect();
        let knowledge = Knowledge {
            columns: &[0, 1, 2],
            hidden: &h,
        };
        let expected = original_matches(&ds, knowledge, None, &Progress::new())
            .unwrap()
            .matches;
        for (r, &m) in masks.iter().enumerate() {
            assert_eq!(state.compatible(r, m), u64::from(expected[r]), "row {r}");
        }
    }
}
