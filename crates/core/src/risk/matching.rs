//! The matching index of a Release: who, among the published tuples,
//! matches each individual. The linkage attack (`linkage`), breach
//! probability (`breach`) and the verifier (Corollary 2, Definition 10)
//! all read it.
//!
//! The attacker holds every individual's original quasi-identifier values
//! (the cross-bucket paper, Section 4.1: "the adversary already knows the QI
//! values of all the tuples and their existence in the anonymized tables").
//! A published tuple t' **matches** an individual t when every group cell of
//! t' contains t's value — exactly `Cell::contains(own code of t', code of
//! t)`.
//!
//! Matching choices, stated once for every consumer:
//!
//! - **Missing values** are a value like any other (as in the simulator): an
//!   attacker whose target has a missing cell looks for cells containing the
//!   missing code. A `Suppressed` cell contains every code, missing included;
//!   an `Interval` contains the codes between its ends; a `Set` its codes.
//! - **`Original` cells** (bucketization keeps QI values) match when the
//!   published tuple's own value equals the target's.
//! - **Suppressed rows** are not published: they match nothing, and as
//!   targets their re-identification probability is 0 (there is no record of
//!   them to find).
//! - If a release is untruthful (a row's own group does not contain its
//!   values, which `privacy::verify` rejects), the target is not among its
//!   matches and its Pr(re-id) is 0, not 1/matches.
//!
//! **Index.** Per quasi-identifier and code, a bitset over groups of those
//! whose cell contains the code (for `Original` cells: the codes of the
//! group's members). A target's candidate groups are the AND of its d
//! bitsets (d × groups/64 words), done once per distinct QI combination of
//! the published rows. A matched group is expanded to tuples: all of its
//! rows, or — when it has `Original` cells — the rows agreeing with the
//! target on those attributes, found through a per-group hash of their
//! values. A group whose cells are all `Original` (plain bucketization) is
//! left out of the bitsets: its units are found in one hash map on the full
//! QI key, as the bitsets would only say that each of the target's values
//! occurs somewhere in the group. So is a group whose every cell holds a
//! single code (a `Value`, a one-code interval or set — all of a k = 1
//! release): it matches exactly the targets with those codes, found in a
//! hash map on the cells' codes, where a bit in the bitsets would cost every
//! target groups/64 words per attribute. Keys are packed into a `u128` when
//! the code spaces allow (no allocation per key). A set of rows that always
//! match together is a **unit**;
//! consumers precompute what they need per unit (sensitive counts, bucket
//! counts) and sum it over the matched units. A target's units are listed
//! with those of all-`Original` groups first, then in unit order, whichever
//! way they were found, so floating-point sums over them do not depend on
//! the index's shortcuts. Bitsets are built for chunks of
//! groups small enough to stay within `BITSET_BUDGET_WORDS`, so memory stays
//! bounded for high-cardinality QIs with many groups; Adult needs one chunk.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::release::{Cell, Release};

const NONE: u32 = u32::MAX;

/// At most this many 64-bit words of group bitsets are held at once (64 MiB).
const BITSET_BUDGET_WORDS: usize = 8 << 20;

/// How the rows of one group split into units.
#[derive(Debug)]
enum GroupUnits {
    /// No `Original` cell: every row matches together.
    Whole(u32),
    /// Every cell `Original` (bucketization): matched through
    /// `Units::exact`'s map on the full QI key, not through the bitsets.
    Exact,
    /// No `Original` cell and each cell a single code: one unit, matched
    /// through `Units::points`' map on the cells' codes.
    Point,
    /// Units keyed by the rows' codes on the `Original` attributes.
    ByOriginal {
        positions: Vec<usize>,
        units: FxHashMap<Box<[u32]>, u32>,
    },
}

/// Who matches whom in a Release: published rows grouped into targets (equal
/// QI codes, so equal matches) and, per target, the units it matches.
#[derive(Debug)]
pub struct Matching {
    unit_offsets: Vec<usize>,
    unit_rows: Vec<u32>,
    unit_group: Vec<u32>,
    unit_of_row: Vec<u32>,
    target_offsets: Vec<usize>,
    target_rows: Vec<u32>,
    match_offsets: Vec<usize>,
    match_units: Vec<u32>,
    /// Per target, Num_tuples: the records of its matched units (rows,
    /// or what a grouped table's rows stand for).
    match_tuples: Vec<u64>,
}

impl Matching {
    /// Build the index and match every published row.
    ///
    /// Refuses a release that does not fit the dataset (row count, column or
    /// row indices out of range, a group without one cell per QI): those are
    /// what `privacy::verify` reports as structural failures.
    pub fn new(release: &Release, ds: &Dataset, progress: &Progress) -> Result<Self> {
        Self::with_budget(release, ds, progress, BITSET_BUDGET_WORDS)
    }

    pub(super) fn with_budget(
        release: &Release,
        ds: &Dataset,
        progress: &Progress,
        budget_words: usize,
    ) -> Result<Self> {
        check_release_fits(release, ds)?;
        let qi = &release.quasi_identifiers;
        let codes: Vec<&[u32]> = qi.iter().map(|&c| ds.col(c).codes()).collect();

        let code_spaces: Vec<usize> = qi.iter().map(|&c| ds.col(c).code_space()).collect();
        let keys = KeyMaker::new(&code_spaces);
        let units = build_units(release, &codes, &keys);
        let mut unit_of_row = vec![NONE; ds.n_rows()];
        for u in 0..units.group.len() {
            for &r in &units.rows[units.offsets[u]..units.offsets[u + 1]] {
                let slot = &mut unit_of_row[r as usize];
                if *slot == NONE {
                    *slot = u as u32;
                }
            }
        }
        let (target_offsets, target_rows, target_keys) =
            build_targets(ds.n_rows(), &codes, &unit_of_row, &keys);
        let n_targets = target_offsets.len() - 1;
        let first_row = |t: usize| target_rows[target_offsets[t]] as usize;

        // Groups matched through the bitsets, chunk by chunk: per chunk,
        // every target's units in group order, flattened.
        let n_groups = release.groups.len();
        let total_words = n_groups.div_ceil(64);
        let sum_cs: usize = code_spaces.iter().sum::<usize>().max(1);
        let chunk_words = (budget_words / sum_cs).clamp(1, total_words.max(1));
        let chunks = if units.needs_bits {
            total_words.div_ceil(chunk_words).max(1)
        } else {
            0
        };
        progress.set_total((n_targets * (chunks + 1)) as u64);
        let mut from_bits: Vec<Flat> = Vec::with_capacity(chunks);
        for chunk in 0..chunks {
            let w0 = chunk * chunk_words;
            let w1 = (w0 + chunk_words).min(total_words);
            let bits = ChunkBits::build(release, &units.kind, &codes, &code_spaces, w0, w1);
            let flat = per_target_blocks(n_targets, progress, |t, acc: &mut Scratch, out| {
                let row = first_row(t);
                acc.words.resize(w1 - w0, 0);
                bits.candidates(&codes, row, &mut acc.words);
                for (w, &word) in acc.words.iter().enumerate() {
                    let mut word = word;
                    while word != 0 {
                        let g = (w0 + w) * 64 + word.trailing_zeros() as usize;
                        word &= word - 1;
                        let whole = units.whole[g];
                        if whole != NONE {
                            out.push(whole);
                            continue;
                        }
                        match &units.kind[g] {
                            GroupUnits::Whole(u) => out.push(*u),
                            GroupUnits::Exact | GroupUnits::Point => {}
                            GroupUnits::ByOriginal { positions, units } => {
                                acc.key.clear();
                                acc.key.extend(positions.iter().map(|&a| codes[a][row]));
                                if let Some(&u) = units.get(&acc.key[..]) {
                                    out.push(u);
                                }
                            }
                        }
                    }
                }
            })?;
            from_bits.push(flat);
        }

        // Every target's units: those of all-`Original` groups first, then
        // the others in group (so unit) order, as consumers sum over them in
        // this order and floating-point sums must not depend on the index.
        let by_key = !units.exact.is_empty() || !units.points.is_empty();
        let matched = if !by_key && from_bits.len() == 1 {
            from_bits.pop().expect("one chunk")
        } else {
            per_target_blocks(n_targets, progress, |t, _, out| {
                let key = &target_keys[t];
                out.extend(units.exact.units(key));
                let start = out.len();
                for flat in &from_bits {
                    out.extend_from_slice(flat.of(t));
                }
                let bitset_end = out.len();
                out.extend(units.points.units(key));
                if bitset_end > start && out.len() > bitset_end {
                    out[start..].sort_unstable();
                }
            })?
        };
        // Records per unit: its rows, or what a grouped table's rows stand for.
        let unit_records: Vec<u64> = (0..units.group.len())
            .map(|u| ds.records_of(&units.rows[units.offsets[u]..units.offsets[u + 1]]) as u64)
            .collect();
        let match_tuples = (0..n_targets)
            .into_par_iter()
            .map(|t| {
                matched
                    .of(t)
                    .iter()
                    .map(|&u| unit_records[u as usize])
                    .sum()
            })
            .collect();
        Ok(Matching {
            unit_offsets: units.offsets,
            unit_rows: units.rows,
            unit_group: units.group,
            unit_of_row,
            target_offsets,
            target_rows,
            match_offsets: matched.offsets,
            match_units: matched.units,
            match_tuples,
        })
    }

    /// Distinct QI combinations among the published rows.
    pub fn n_targets(&self) -> usize {
        self.target_offsets.len() - 1
    }
    /// The published rows sharing one QI combination, ascending.
    pub fn target_rows(&self, target: usize) -> &[u32] {
        &self.target_rows[self.target_offsets[target]..self.target_offsets[target + 1]]
    }
    /// The units whose tuples match the target's QI values.
    pub fn matched_units(&self, target: usize) -> &[u32] {
        &self.match_units[self.match_offsets[target]..self.match_offsets[target + 1]]
    }
    /// Num_tuples(t): published tuples (records) matching the target.
    pub fn matched_tuples(&self, target: usize) -> u64 {
        self.match_tuples[target]
    }
    pub fn n_units(&self) -> usize {
        self.unit_group.len()
    }
    /// Rows of a unit: published tuples that always match together.
    pub fn unit_rows(&self, unit: usize) -> &[u32] {
        &self.unit_rows[self.unit_offsets[unit]..self.unit_offsets[unit + 1]]
    }
    /// The equivalence group a unit belongs to.
    pub fn unit_group(&self, unit: usize) -> usize {
        self.unit_group[unit] as usize
    }
    /// The unit of a published row; `None` for suppressed rows.
    pub fn unit_of_row(&self, row: usize) -> Option<usize> {
        let u = self.unit_of_row[row];
        (u != NONE).then_some(u as usize)
    }
}

/// Refuse a release whose indices do not fit the dataset (row count,
/// columns, row ids, one cell per QI), so that consumers can index freely.
pub fn check_release_fits(release: &Release, ds: &Dataset) -> Result<()> {
    let misfit = |msg: String| {
        Err(Error::Internal(format!(
            "release does not fit the dataset: {msg}"
        )))
    };
    let n = ds.n_rows();
    if release.source_rows != n {
        return misfit(format!(
            "it was made from {} rows, the dataset has {n}",
            release.source_rows
        ));
    }
    if let Some(&c) = release
        .quasi_identifiers
        .iter()
        .chain(&release.sensitive)
        .find(|&&c| c >= ds.n_cols())
    {
        return misfit(format!(
            "column {c} does not exist ({} columns)",
            ds.n_cols()
        ));
    }
    let d = release.quasi_identifiers.len();
    for (g, group) in release.groups.iter().enumerate() {
        if group.cells.len() != d {
            return misfit(format!(
                "group {g} has {} cells for {d} quasi-identifiers",
                group.cells.len()
            ));
        }
        if let Some(&r) = group.rows.iter().find(|&&r| r as usize >= n) {
            return misfit(format!("group {g} holds row {r}, the dataset has {n} rows"));
        }
    }
    let buckets = release
        .buckets
        .iter()
        .chain(release.local_buckets.iter().flat_map(|l| &l.buckets));
    for b in buckets {
        if let Some(&r) = b.rows.iter().find(|&&r| r as usize >= n) {
            return misfit(format!("a bucket holds row {r}, the dataset has {n} rows"));
        }
    }
    if let Some(l) = release
        .local_buckets
        .iter()
        .find(|l| l.column >= ds.n_cols())
    {
        return misfit(format!(
            "local buckets of column {} which does not exist",
            l.column
        ));
    }
    Ok(())
}

/// How the published rows split into units, and how targets find them.
struct Units {
    offsets: Vec<usize>,
    rows: Vec<u32>,
    group: Vec<u32>,
    kind: Vec<GroupUnits>,
    /// Per group, its unit when it is `Whole`, else `NONE`: what the
    /// matching loop reads, 4 bytes a group instead of a `GroupUnits`.
    whole: Vec<u32>,
    /// Units of all-`Original` groups by their rows' full QI key.
    exact: KeyedUnits,
    /// Units of single-code groups by their cells' codes.
    points: KeyedUnits,
    /// Whether any group is matched through the bitsets.
    needs_bits: bool,
}

/// The code a cell holds when it holds exactly one (a `Value`, a
/// one-code interval or set), so that only a target with that code
/// matches it.
fn single_code(cell: &Cell) -> Option<u32> {
    match cell {
        Cell::Value { code } => Some(*code),
        Cell::Interval { lo, hi } if lo == hi => Some(*lo),
        Cell::Set { codes, .. } if codes.len() == 1 => Some(codes[0]),
        _ => None,
    }
}

fn build_units(release: &Release, codes: &[&[u32]], keys: &KeyMaker) -> Units {
    let mut offsets = vec![0usize];
    let mut rows = Vec::with_capacity(release.published_rows());
    let mut unit_group = Vec::new();
    let mut group_units = Vec::with_capacity(release.groups.len());
    let mut exact = KeyedUnits::default();
    let mut points = KeyedUnits::default();
    let mut needs_bits = false;
    let d = codes.len();
    for (g, group) in release.groups.iter().enumerate() {
        let positions: Vec<usize> = group
            .cells
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c, Cell::Original))
            .map(|(a, _)| a)
            .collect();
        if positions.is_empty() {
            let u = unit_group.len() as u32;
            // A group of single codes (k = 1 releases are all of them)
            // is found by one hash lookup of the target's codes instead of
            // a bit in every (attribute, code) bitset: the bitsets would
            // cost every target groups/64 words per attribute.
            let single: Option<Vec<u32>> = (d > 0)
                .then(|| group.cells.iter().map(single_code).collect())
                .flatten();
            match single {
                Some(single) => {
                    // A code outside its attribute's code space matches no
                    // target: the group is listed under no key.
                    if let Some(key) = keys.make(single.into_iter()) {
                        points.push(key, u);
                    }
                    group_units.push(GroupUnits::Point);
                }
                None => {
                    needs_bits = true;
                    group_units.push(GroupUnits::Whole(u));
                }
            }
            rows.extend_from_slice(&group.rows);
            offsets.push(rows.len());
            unit_group.push(g as u32);
            continue;
        }
        let all_original = positions.len() == d;
        if all_original {
            // The rows' full QI keys: their codes, always in range.
            let key = |r: u32| {
                keys.make(codes.iter().map(|c| c[r as usize]))
                    .expect("a row's codes lie in their code spaces")
            };
            let mut sorted: Vec<(Key, u32)> = group.rows.iter().map(|&r| (key(r), r)).collect();
            sorted.sort_unstable();
            let mut lists = (&mut rows, &mut offsets, &mut unit_group);
            push_runs(&sorted, g, &mut lists, |k, u| exact.push(k.clone(), u));
            group_units.push(GroupUnits::Exact);
            continue;
        }
        let key =
            |r: u32| -> Box<[u32]> { positions.iter().map(|&a| codes[a][r as usize]).collect() };
        let mut sorted: Vec<(Box<[u32]>, u32)> = group.rows.iter().map(|&r| (key(r), r)).collect();
        sorted.sort_unstable();
        let mut units = FxHashMap::default();
        let mut lists = (&mut rows, &mut offsets, &mut unit_group);
        push_runs(&sorted, g, &mut lists, |k, u| {
            units.insert(k.clone(), u);
        });
        needs_bits = true;
        group_units.push(GroupUnits::ByOriginal { positions, units });
    }
    let whole = group_units
        .iter()
        .map(|g| match g {
            GroupUnits::Whole(u) => *u,
            _ => NONE,
        })
        .collect();
    Units {
        offsets,
        rows,
        group: unit_group,
        kind: group_units,
        whole,
        exact,
        points,
        needs_bits,
    }
}

/// Per target, a list of units, flattened.
struct Flat {
    offsets: Vec<usize>,
    units: Vec<u32>,
}

impl Flat {
    fn of(&self, t: usize) -> &[u32] {
        &self.units[self.offsets[t]..self.offsets[t + 1]]
    }
}

/// Per-thread scratch of the matching passes.
#[derive(Default)]
struct Scratch {
    words: Vec<u64>,
    /// A target's codes on a group's `Original` attributes.
    key: Vec<u32>,
}

/// Targets handled this many at a time, so that each block writes one flat
/// list instead of one vector per target.
const TARGET_BLOCK: usize = 256;

/// Run `fill(t, scratch, out)` for every target in parallel, each
/// appending its units to `out`; the lists flattened in target order.
fn per_target_blocks<F>(n_targets: usize, progress: &Progress, fill: F) -> Result<Flat>
where
    F: Fn(usize, &mut Scratch, &mut Vec<u32>) + Sync,
{
    let blocks: Option<Vec<(Vec<u32>, Vec<u32>)>> = (0..n_targets.div_ceil(TARGET_BLOCK))
        .into_par_iter()
        .map_init(Scratch::default, |scratch, b| {
            let ts = b * TARGET_BLOCK..((b + 1) * TARGET_BLOCK).min(n_targets);
            let mut lens = Vec::with_capacity(ts.len());
            let mut out = Vec::new();
            for t in ts {
                if progress.is_cancelled() {
                    return None;
                }
                let before = out.len();
                fill(t, scratch, &mut out);
                lens.push((out.len() - before) as u32);
                progress.advance(1);
            }
            Some((lens, out))
        })
        .collect();
    let blocks = blocks.ok_or(Error::Cancelled)?;
    let mut offsets = Vec::with_capacity(n_targets + 1);
    offsets.push(0);
    let mut units = Vec::with_capacity(blocks.iter().map(|b| b.1.len()).sum());
    for (lens, out) in blocks {
        for len in lens {
            offsets.push(offsets[offsets.len() - 1] + len as usize);
        }
        units.extend(out);
    }
    Ok(Flat { offsets, units })
}

/// Published rows grouped by their QI codes (rows ascending in each), and
/// each group's key.
fn build_targets(
    n: usize,
    codes: &[&[u32]],
    unit_of_row: &[u32],
    keys: &KeyMaker,
) -> (Vec<usize>, Vec<u32>, Vec<Key>) {
    let mut ids: FxHashMap<Key, u32> = FxHashMap::default();
    let mut class_of = vec![NONE; n];
    let mut sizes: Vec<usize> = Vec::new();
    let mut target_keys = Vec::new();
    for r in (0..n).filter(|&r| unit_of_row[r] != NONE) {
        let key = keys
            .make(codes.iter().map(|c| c[r]))
            .expect("a row's codes lie in their code spaces");
        let id = *ids.entry(key).or_insert_with_key(|key| {
            target_keys.push(key.clone());
            sizes.push(0);
            (sizes.len() - 1) as u32
        });
        class_of[r] = id;
        sizes[id as usize] += 1;
    }
    let mut offsets = Vec::with_capacity(sizes.len() + 1);
    offsets.push(0);
    for s in &sizes {
        offsets.push(offsets[offsets.len() - 1] + s);
    }
    let mut fill = offsets.clone();
    let mut rows = vec![0u32; offsets[sizes.len()]];
    for (r, &c) in class_of.iter().enumerate().filter(|(_, &c)| c != NONE) {
        rows[fill[c as usize]] = r as u32;
        fill[c as usize] += 1;
    }
    (offsets, rows, target_keys)
}

/// A tuple of QI codes as one hashable key.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Key {
    /// Mixed-radix over the attributes' code spaces: no allocation per
    /// key (Adult's eight QIs take 33 bits).
    Packed(u128),
    /// When the code spaces' product does not fit in 128 bits.
    Boxed(Box<[u32]>),
}

/// Makes [`Key`]s for one list of attributes.
struct KeyMaker {
    spaces: Vec<u128>,
    packs: bool,
}

impl KeyMaker {
    fn new(code_spaces: &[usize]) -> Self {
        let spaces: Vec<u128> = code_spaces.iter().map(|&cs| cs.max(1) as u128).collect();
        let packs = spaces
            .iter()
            .try_fold(1u128, |acc, &cs| acc.checked_mul(cs))
            .is_some();
        KeyMaker { spaces, packs }
    }

    /// The key of one code per attribute; `None` when a code lies outside
    /// its attribute's code space (no row holds it, so no target has it).
    fn make(&self, codes: impl Iterator<Item = u32>) -> Option<Key> {
        if self.packs {
            let mut key = 0u128;
            for (c, &cs) in codes.zip(&self.spaces) {
                if u128::from(c) >= cs {
                    return None;
                }
                key = key * cs + u128::from(c);
            }
            Some(Key::Packed(key))
        } else {
            let key: Box<[u32]> = codes.collect();
            let fits = key
                .iter()
                .zip(&self.spaces)
                .all(|(&c, &cs)| u128::from(c) < cs);
            fits.then_some(Key::Boxed(key))
        }
    }
}

/// Units listed by key, each key's in the order pushed (ascending unit
/// ids), chained through one array instead of a vector per key.
#[derive(Default)]
struct KeyedUnits {
    /// Key → (first unit, last unit).
    ends: FxHashMap<Key, (u32, u32)>,
    /// Unit → the next unit of its key, by unit id.
    next: Vec<u32>,
}

impl KeyedUnits {
    fn push(&mut self, key: Key, unit: u32) {
        if self.next.len() <= unit as usize {
            self.next.resize(unit as usize + 1, NONE);
        }
        match self.ends.get_mut(&key) {
            Some((_, last)) => {
                self.next[*last as usize] = unit;
                *last = unit;
            }
            None => {
                self.ends.insert(key, (unit, unit));
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn units<'a>(&'a self, key: &Key) -> impl Iterator<Item = u32> + 'a {
        let first = self.ends.get(key).map_or(NONE, |&(first, _)| first);
        std::iter::successors((first != NONE).then_some(first), move |&u| {
            let n = self.next[u as usize];
            (n != NONE).then_some(n)
        })
    }
}

/// Group bitsets for words `w0..w1` of the group index space: for QI `a`
/// and code `c`, `words` bits at `base[a] + c × width`.
struct ChunkBits {
    bits: Vec<u64>,
    base: Vec<usize>,
    width: usize,
    /// Valid bits of the chunk's last word (for a release with no QI, where
    /// every group is a candidate).
    groups_in_chunk: usize,
}

impl ChunkBits {
    fn build(
        release: &Release,
        group_units: &[GroupUnits],
        codes: &[&[u32]],
        code_spaces: &[usize],
        w0: usize,
        w1: usize,
    ) -> Self {
        let width = w1 - w0;
        let g0 = w0 * 64;
        let g1 = (w1 * 64).min(release.groups.len());
        let mut base = Vec::with_capacity(code_spaces.len());
        let mut acc = 0;
        for &cs in code_spaces {
            base.push(acc);
            acc += cs * width;
        }
        let mut bits = vec![0u64; acc];
        let mut slices: Vec<&mut [u64]> = Vec::with_capacity(code_spaces.len());
        let mut rest = &mut bits[..];
        for &cs in code_spaces {
            let (head, tail) = rest.split_at_mut(cs * width);
            slices.push(head);
            rest = tail;
        }
        slices.into_par_iter().enumerate().for_each(|(a, slice)| {
            let cs = code_spaces[a];
            let chunk = release.groups[g0..g1].iter().zip(&group_units[g0..g1]);
            for (i, (group, units)) in chunk.enumerate() {
                if matches!(units, GroupUnits::Exact | GroupUnits::Point) {
                    continue;
                }
                let (word, bit) = (i / 64, 1u64 << (i % 64));
                let mut set = |c: u32| {
                    if (c as usize) < cs {
                        slice[c as usize * width + word] |= bit;
                    }
                };
                match &group.cells[a] {
                    Cell::Original => group.rows.iter().for_each(|&r| set(codes[a][r as usize])),
                    Cell::Value { code } => set(*code),
                    Cell::Interval { lo, hi } => (*lo..=*hi.min(&(cs as u32))).for_each(&mut set),
                    Cell::Set { codes, .. } => codes.iter().for_each(|&c| set(c)),
                    Cell::Suppressed => (0..cs as u32).for_each(set),
                }
            }
        });
        ChunkBits {
            bits,
            base,
            width,
            groups_in_chunk: g1.saturating_sub(g0),
        }
    }

    /// AND of the target row's bitsets into `acc`.
    fn candidates(&self, codes: &[&[u32]], row: usize, acc: &mut [u64]) {
        if codes.is_empty() {
            acc.fill(u64::MAX);
            let tail = self.groups_in_chunk % 64;
            if tail != 0 {
                if let Some(last) = acc.get_mut(self.groups_in_chunk / 64) {
                    *last = (1u64 << tail) - 1;
                }
            }
            for w in acc.iter_mut().skip(self.groups_in_chunk.div_ceil(64)) {
                *w = 0;
            }
            return;
        }
        let at = |a: usize| {
            let start = self.base[a] + codes[a][row] as usize * self.width;
            &self.bits[start..start + self.width]
        };
        acc.copy_from_slice(at(0));
        for a in 1..codes.len() {
            for (x, &y) in acc.iter_mut().zip(at(a)) {
                *x &= y;
            }
        }
    }
}

/// The unit lists being built: rows by unit, each unit's end in it, and
/// each unit's group.
type UnitLists<'a> = (&'a mut Vec<u32>, &'a mut Vec<usize>, &'a mut Vec<u32>);

/// One unit per run of equal keys in `sorted` (rows of group `g` sorted by
/// key): `add` records the key's unit, the lists get its rows.
fn push_runs<K: PartialEq>(
    sorted: &[(K, u32)],
    g: usize,
    (rows, offsets, unit_group): &mut UnitLists<'_>,
    mut add: impl FnMut(&K, u32),
) {
    for run in sorted.chunk_by(|a, b| a.0 == b.0) {
        add(&run[0].0, unit_group.len() as u32);
        rows.extend(run.iter().map(|(_, r)| *r));
        offsets.push(rows.len());
        unit_group.push(g as u32);
    }
}
