//! The search: which cells of the records that violate k to suppress.
//!
//! Under [`Convention::AnyValue`](crate::release::Convention) a unit (the
//! records sharing one input tuple) is taken in turn, its frequency asked
//! again (earlier suppressions may have fixed it: `*`s match both ways, so
//! a suppression never lowers anyone's frequency), and if it still
//! violates k the cheapest set S of its keys is suppressed: every set of
//! one key, then of two, …, and of the sets of the smallest size that
//! bring its frequency to k, the one whose most important key is least
//! important (importance levels compared as a binary number), then the
//! one with the largest frequency. All the unit's records get the same S:
//! a record left as it was keeps the frequency it had (its suppressed
//! twins are still compatible with it, no one else is), so it would still
//! violate k. Suppressing every key of a unit reaches every record, so one
//! pass ends with every record at k or more (the file has k records).
//!
//! Under `OwnValue` a record's class is the records publishing exactly its
//! tuple, `*` a value: a record leaving a class makes that class smaller.
//! Records are taken in turn; the cheapest S is the smallest set that puts
//! the record in a class of k, counting the class as it stands or, when
//! no class is large enough, together with the other violating records of
//! the same tuple outside S, all moved there at once (two records (a, b1)
//! and (a, b2) with k = 2 become (a, *) both, rather than `*, *`). A
//! second round, without pooling, takes what is left; records fully
//! suppressed form one class, which is then filled to k from the
//! surpluses of classes larger than k (or whole classes, smallest first).

use rustc_hash::FxHashMap;

use crate::error::Result;
use crate::progress::Progress;

use super::index::{subsets, State};

/// Importance weight of a set of keys: the sum of 2^level, level
/// m − importance (the most important key weighs most).
pub(super) fn weight(levels: &[u32], set: u32) -> u64 {
    let mut s = 0u64;
    let mut v = set;
    while v != 0 {
        let a = v.trailing_zeros() as usize;
        s += 1u64 << levels[a];
        v &= v - 1;
    }
    s
}

/// The cheapest set of keys to suppress in unit `u` so that `ok(state, set)`
/// holds: smallest size first, then least important, then largest `ok`
/// figure. `None` when no set (not even every free key) does.
pub(super) fn cheapest(
    state: &mut State,
    u: usize,
    levels: &[u32],
    mut figure: impl FnMut(&mut State, u32) -> Option<u64>,
) -> Option<u32> {
    let free = state.layout().full() & !state.masks[u];
    for size in 1..=free.count_ones() {
        let mut best: Option<(u64, std::cmp::Reverse<u64>, u32)> = None;
        for set in subsets(free, size) {
            if let Some(c) = figure(state, set) {
                let cand = (weight(levels, set), std::cmp::Reverse(c), set);
                if best.as_ref().is_none_or(|b| cand < *b) {
                    best = Some(cand);
                }
            }
        }
        if let Some((_, _, set)) = best {
            return Some(set);
        }
    }
    None
}

/// The order units are taken in: highest risk first (fewest compatible
/// records, as sdcMicro's individual risk orders them), larger units first
/// among equals (one suppression set fixes all their records and makes
/// them match more of the others), then input order.
pub(super) fn risk_order(freq: &[u64], weights: &[u32], k: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..freq.len()).filter(|&u| freq[u] < k).collect();
    order.sort_by_key(|&u| (freq[u], std::cmp::Reverse(weights[u]), u));
    order
}

/// AnyValue: suppress until every unit has k compatible records; returns
/// the cells suppressed.
pub(super) fn any_value(
    state: &mut State,
    k: u64,
    levels: &[u32],
    order: &[usize],
    progress: &Progress,
) -> Result<u64> {
    let mut cells = 0u64;
    for (i, &u) in order.iter().enumerate() {
        if i % 256 == 0 {
            progress.check()?;
        }
        let mask = state.masks[u];
        if state.compatible(u, mask) >= k {
            continue;
        }
        let set = cheapest(state, u, levels, |s, set| {
            let c = s.compatible(u, mask | set);
            (c >= k).then_some(c)
        })
        .unwrap_or(state.layout().full() & !mask);
        cells += u64::from(set.count_ones()) * u64::from(state.weights[u]);
        state.suppress(u, set);
    }
    Ok(cells)
}

/// Every unit's frequency under alpha = 1.
pub(super) fn frequencies(state: &mut State) -> Vec<u64> {
    (0..state.units())
        .map(|u| {
            let m = state.masks[u];
            state.compatible(u, m)
        })
        .collect()
}

/// OwnValue, on units of one record each: returns the cells suppressed.
pub(super) fn own_value(
    state: &mut State,
    k: u64,
    levels: &[u32],
    progress: &Progress,
) -> Result<u64> {
    let n = state.units();
    let full = state.layout().full();
    let class = |s: &mut State, u: usize| {
        let m = s.masks[u];
        s.exact(u, m)
    };
    let sizes: Vec<u64> = (0..n).map(|u| class(state, u)).collect();
    let order = risk_order(&sizes, &state.weights.clone(), k);
    let mut pending = vec![false; n];
    for &u in &order {
        pending[u] = true;
    }
    // The pending records alone, to count those that would share u's
    // tuple outside a set; and by pattern, to list them.
    let mut pend = state.clone();
    for (u, _) in pending.iter().enumerate().filter(|(_, p)| !**p) {
        pend.unweigh(u);
    }
    let mut by_mask: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for &u in &order {
        by_mask.entry(state.masks[u]).or_default().push(u as u32);
    }
    let mut cells = 0u64;
    for (i, &u) in order.iter().enumerate() {
        if i % 256 == 0 {
            progress.check()?;
        }
        if !pending[u] {
            continue;
        }
        pending[u] = false;
        pend.unweigh(u);
        let mask = state.masks[u];
        if class(state, u) >= k {
            continue;
        }
        let single = cheapest(state, u, levels, |s, set| {
            let c = s.exact(u, mask | set) + 1;
            (c >= k).then_some(c)
        });
        let chosen = match single {
            Some(set) => Some((set, Vec::new())),
            None => {
                // Pooled with the other pending records of the pattern
                // that show u's values outside the set.
                let pooled = cheapest(state, u, levels, |s, set| {
                    let c = s.exact(u, mask | set) + 1 + pend.agreeing(u, mask, set);
                    (c >= k).then_some(c)
                });
                pooled.map(|set| {
                    let keep = full & !(mask | set);
                    let mates: Vec<usize> = by_mask[&mask]
                        .iter()
                        .map(|&v| v as usize)
                        .filter(|&v| {
                            pending[v]
                                && (0..state.layout().m).all(|a| {
                                    keep & (1 << a) == 0
                                        || state.codes_of(v)[a] == state.codes_of(u)[a]
                                })
                        })
                        .collect();
                    (set, mates)
                })
            }
        };
        let (set, with) = chosen.unwrap_or((full & !mask, Vec::new()));
        for v in std::iter::once(u).chain(with) {
            if pending[v] {
                pending[v] = false;
                pend.unweigh(v);
            }
            let extra = set & !state.masks[v];
            cells += u64::from(extra.count_ones());
            state.suppress(v, extra);
        }
    }
    // Round two: what pooling left short, one record at a time.
    loop {
        progress.check()?;
        let short: Vec<usize> = (0..n)
            .filter(|&u| state.masks[u] != full && class(state, u) < k)
            .collect();
        if short.is_empty() {
            break;
        }
        for u in short {
            let mask = state.masks[u];
            if class(state, u) >= k {
                continue;
            }
            let set = cheapest(state, u, levels, |s, set| {
                let c = s.exact(u, mask | set) + 1;
                (c >= k).then_some(c)
            })
            .unwrap_or(full & !mask);
            cells += u64::from(set.count_ones());
            state.suppress(u, set);
        }
    }
    cells += fill_star(state, k, full);
    Ok(cells)
}

/// The records suppressed on every key form one class; fill it to k from
/// the surpluses of classes above k, then with whole classes, smallest
/// first. Returns the cells suppressed.
fn fill_star(state: &mut State, k: u64, full: u32) -> u64 {
    let n = state.units();
    let star = (0..n).filter(|&u| state.masks[u] == full).count() as u64;
    if star == 0 || star >= k {
        return 0;
    }
    // A class: its `*` pattern and codes (`u32::MAX` under `*`).
    type Class = (u32, Vec<u32>);
    let mut classes: FxHashMap<Class, Vec<usize>> = FxHashMap::default();
    for u in 0..n {
        let mask = state.masks[u];
        if mask == full {
            continue;
        }
        let key: Vec<u32> = (0..state.layout().m)
            .map(|a| {
                if mask & (1 << a) != 0 {
                    u32::MAX
                } else {
                    state.codes_of(u)[a]
                }
            })
            .collect();
        classes.entry((mask, key)).or_default().push(u);
    }
    let mut classes: Vec<(Class, Vec<usize>)> = classes.into_iter().collect();
    // Most `*`s first (fewest cells to add), then a fixed order.
    classes.sort_by(|a, b| {
        b.0 .0
            .count_ones()
            .cmp(&a.0 .0.count_ones())
            .then_with(|| a.1[0].cmp(&b.1[0]))
    });
    let mut need = k - star;
    let mut cells = 0u64;
    let move_unit = |state: &mut State, u: usize, cells: &mut u64| {
        let extra = full & !state.masks[u];
        *cells += u64::from(extra.count_ones());
        state.suppress(u, extra);
    };
    for (_, members) in &classes {
        let surplus = (members.len() as u64).saturating_sub(k);
        for &u in members.iter().rev().take(surplus.min(need) as usize) {
            move_unit(state, u, &mut cells);
            need -= 1;
        }
        if need == 0 {
            return cells;
        }
    }
    // No surplus left: whole classes, smallest first.
    classes.sort_by_key(|(_, m)| (m.len(), m[0]));
    for (_, members) in &classes {
        if need == 0 {
            break;
        }
        let left: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&u| state.masks[u] != full)
            .collect();
        for &u in &left {
            move_unit(state, u, &mut cells);
        }
        need = need.saturating_sub(left.len() as u64);
    }
    cells
}
