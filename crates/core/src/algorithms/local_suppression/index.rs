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
//! are built when first asked and updated as units move to another
//! pattern; codes are packed into one `u128` (each key in the bits its
//! code space needs). The figures are checked against
//! `risk::original_matches` in the tests.

use rustc_hash::FxHashMap;

/// Keys of a pass and their packing.
#[derive(Debug, Clone)]
pub(super) struct Layout {
    pub(super) m: usize,
    shifts: Vec<u32>,
}

impl Layout {
    /// `None` when the codes need more than 128 bits together.
    pub(super) fn new(bits: &[u32]) -> Option<Self> {
        let mut shifts = Vec::with_capacity(bits.len());
        let mut at = 0u32;
        for &b in bits {
            shifts.push(at);
            at += b.max(1);
        }
        (at <= 128).then(|| Layout {
            m: bits.len(),
            shifts,
        })
    }

    pub(super) fn full(&self) -> u32 {
        if self.m == 32 {
            u32::MAX
        } else {
            (1u32 << self.m) - 1
        }
    }

    fn pack(&self, codes: &[u32], mut keep: u32) -> u128 {
        let mut key = 0u128;
        while keep != 0 {
            let a = keep.trailing_zeros() as usize;
            key |= u128::from(codes[a]) << self.shifts[a];
            keep &= keep - 1;
        }
        key
    }
}

/// Units, their patterns, and the counts asked so far.
#[derive(Debug, Clone)]
pub(super) struct State {
    layout: Layout,
    /// Codes, `m` per unit.
    codes: Vec<u32>,
    pub(super) masks: Vec<u32>,
    pub(super) weights: Vec<u32>,
    /// Units per pattern present, and each unit's place in its list.
    by_pattern: FxHashMap<u32, Vec<u32>>,
    place: Vec<u32>,
    /// Counts by (P, U) and the U's built per P.
    counts: FxHashMap<u64, FxHashMap<u128, u32>>,
    built: FxHashMap<u32, Vec<u32>>,
    /// Records of all units.
    pub(super) records: u64,
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
        State {
            layout,
            codes,
            masks,
            weights,
            by_pattern,
            place,
            counts: FxHashMap::default(),
            built: FxHashMap::default(),
            records,
        }
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

    fn ensure(&mut self, p: u32, u_mask: u32) -> u64 {
        let id = (u64::from(p) << 32) | u64::from(u_mask);
        if !self.counts.contains_key(&id) {
            let keep = self.layout.full() & !u_mask;
            let mut map: FxHashMap<u128, u32> = FxHashMap::default();
            if let Some(list) = self.by_pattern.get(&p) {
                for &v in list {
                    let v = v as usize;
                    let key = self.layout.pack(self.codes_of(v), keep);
                    *map.entry(key).or_default() += self.weights[v];
                }
            }
            self.counts.insert(id, map);
            self.built.entry(p).or_default().push(u_mask);
        }
        id
    }

    /// Records compatible with unit `u`'s codes when its `*`s are `w`
    /// (under alpha = 1), `u`'s own records included if they are
    /// compatible with that tuple (they are when `w` covers their
    /// pattern).
    pub(super) fn compatible(&mut self, u: usize, w: u32) -> u64 {
        let patterns: Vec<u32> = self.by_pattern.keys().copied().collect();
        let mut total = 0u64;
        for p in patterns {
            let union = p | w;
            let id = self.ensure(p, union);
            let key = self
                .layout
                .pack(self.codes_of(u), self.layout.full() & !union);
            if let Some(&c) = self.counts[&id].get(&key) {
                total += u64::from(c);
            }
        }
        total
    }

    /// Records publishing exactly unit `u`'s codes with `*`s `w` (the
    /// class under alpha = 0).
    pub(super) fn exact(&mut self, u: usize, w: u32) -> u64 {
        if !self.by_pattern.contains_key(&w) {
            return 0;
        }
        let id = self.ensure(w, w);
        let key = self.layout.pack(self.codes_of(u), self.layout.full() & !w);
        self.counts[&id].get(&key).map_or(0, |&c| u64::from(c))
    }

    /// Records of units of pattern exactly `p` that agree with unit `u`
    /// outside `p | w`.
    pub(super) fn agreeing(&mut self, u: usize, p: u32, w: u32) -> u64 {
        if !self.by_pattern.contains_key(&p) {
            return 0;
        }
        let union = p | w;
        let id = self.ensure(p, union);
        let key = self
            .layout
            .pack(self.codes_of(u), self.layout.full() & !union);
        self.counts[&id].get(&key).map_or(0, |&c| u64::from(c))
    }

    /// Unit `u` counts for no record any more.
    pub(super) fn unweigh(&mut self, u: usize) {
        let p = self.masks[u];
        self.account(u, p, -1);
        self.records -= u64::from(self.weights[u]);
        self.weights[u] = 0;
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

    /// Add (`sign` 1) or take (−1) unit `u`'s records in the counts built
    /// for pattern `p`.
    fn account(&mut self, u: usize, p: u32, sign: i64) {
        let Some(us) = self.built.get(&p) else {
            return;
        };
        let m = self.layout.m;
        let codes = &self.codes[u * m..(u + 1) * m];
        let w = self.weights[u];
        for &u_mask in us {
            let id = (u64::from(p) << 32) | u64::from(u_mask);
            let key = self.layout.pack(codes, self.layout.full() & !u_mask);
            let map = self.counts.get_mut(&id).expect("built counts");
            if sign > 0 {
                *map.entry(key).or_default() += w;
            } else if let Some(c) = map.get_mut(&key) {
                *c -= w;
                if *c == 0 {
                    map.remove(&key);
                }
            }
        }
    }
}

/// The subsets of `of` with `size` bits, in increasing order (Gosper's
/// hack over the bits of `of`).
pub(super) fn subsets(of: u32, size: u32) -> impl Iterator<Item = u32> {
    let bits: Vec<u32> = (0..32).filter(|&b| of & (1 << b) != 0).collect();
    let n = bits.len() as u32;
    let mut next: Option<u64> = (size <= n).then(|| {
        if size == 0 {
            0
        } else {
            (1u64 << size) - 1
        }
    });
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
}
