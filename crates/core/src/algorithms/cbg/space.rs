//! The QI space of cross-bucket generalization: codes per attribute, the
//! normalized widths of `choose_attri`, the median cut of Alg. 3 and the
//! fixed-point distance (`Metric`) that `select_tuples` and the kd-tree's
//! nearest-neighbour search share (module doc of `cbg`: "`choose_attri`",
//! "Median cut with ties", "Distance").

use super::NONE;
use crate::data::Dataset;

/// Distances are fixed-point: an attribute's whole spread is 2^40. Sums of
/// integers are exact and do not depend on their order, so equal distances
/// are equal (the ties `nearest` settles by row are real ties) and a bound
/// summed in any order is never above the distance it bounds.
const FIXED_ONE: f64 = (1u64 << 40) as f64;
/// 64-bit words of a row's bit set of categorical codes (`Metric`).
pub(super) const WORDS: usize = 2;

/// The QI space: codes per attribute and the normalization shared by
/// `choose_attri`, the median cuts and `select_tuples`' distance.
pub(super) struct Space<'a> {
    pub(super) cols: Vec<&'a [u32]>,
    pub(super) numeric: Vec<bool>,
    /// 1 / the attribute's spread over the whole table (numeric: code range;
    /// categorical: distinct values − 1), 0 when it does not vary.
    pub(super) unit: Vec<f64>,
    /// The distance (`Metric`), from `unit`.
    pub(super) metric: Metric,
    /// Per-attribute marks for counting distinct categorical codes (one
    /// per code: their lengths are the attributes' code spaces).
    pub(super) stamps: Vec<Vec<u32>>,
    /// Code counts for `cut_value`.
    pub(super) histogram: Vec<u32>,
    pub(super) generation: u32,
}

impl<'a> Space<'a> {
    pub(super) fn new(ds: &'a Dataset, qi: &[usize]) -> Self {
        let cols: Vec<&[u32]> = qi.iter().map(|&c| ds.col(c).codes()).collect();
        let numeric: Vec<bool> = qi.iter().map(|&c| ds.col(c).is_numeric()).collect();
        let stamps: Vec<Vec<u32>> = qi
            .iter()
            .map(|&c| vec![0; ds.col(c).code_space()])
            .collect();
        let mut space = Space {
            cols,
            numeric,
            unit: vec![1.0; qi.len()],
            metric: Metric {
                weight: Vec::new(),
                numeric: Vec::new(),
                offset: Vec::new(),
                coded: Vec::new(),
                bit_weight: Box::new([0; WORDS * 64]),
            },
            stamps,
            histogram: Vec::new(),
            generation: 0,
        };
        let all: Vec<u32> = (0..ds.n_rows() as u32).collect();
        for a in 0..qi.len() {
            let spread = space.spread(&all, a);
            space.unit[a] = if spread > 0 { 1.0 / spread as f64 } else { 0.0 };
        }
        space.metric = Metric::new(&space);
        space
    }

    pub(super) fn d(&self) -> usize {
        self.cols.len()
    }

    /// Code range (numeric) or distinct codes − 1 (categorical) of `rows`.
    pub(super) fn spread(&mut self, rows: &[u32], a: usize) -> u32 {
        let codes = self.cols[a];
        if rows.is_empty() {
            return 0;
        }
        if self.numeric[a] {
            let (lo, hi) = rows.iter().fold((u32::MAX, 0), |(lo, hi), &r| {
                let c = codes[r as usize];
                (lo.min(c), hi.max(c))
            });
            return hi - lo;
        }
        if self.stamps[a].len() <= 64 {
            // Few codes: a bit mask counts them without marks to write.
            let mask = rows.iter().fold(0u64, |m, &r| m | 1 << codes[r as usize]);
            return mask.count_ones() - 1;
        }
        if self.generation == u32::MAX {
            self.stamps.iter_mut().for_each(|s| s.fill(0));
            self.generation = 0;
        }
        self.generation += 1;
        let g = self.generation;
        let marks = &mut self.stamps[a];
        let mut distinct = 0;
        for &r in rows {
            let m = &mut marks[codes[r as usize] as usize];
            if *m != g {
                *m = g;
                distinct += 1;
            }
        }
        distinct - 1
    }

    /// Normalized width of `rows` on attribute `a`, in [0, 1].
    pub(super) fn width(&mut self, rows: &[u32], a: usize) -> f64 {
        self.spread(rows, a) as f64 * self.unit[a]
    }

    /// The distance between two rows (`Metric`).
    pub(super) fn distance(&self, x: u32, y: u32) -> u64 {
        (0..self.d())
            .map(|a| {
                let (cx, cy) = (self.cols[a][x as usize], self.cols[a][y as usize]);
                self.metric.term(a, cx, cy)
            })
            .sum()
    }

    /// The cut value on `a`: the median code, or just below it when no code
    /// is above it, so both sides are non-empty (`rows` must vary on `a`).
    ///
    /// The median is the code at (len − 1)/2 in code order, found by
    /// counting codes when they are few next to the rows, else by
    /// selection on a copy of their codes.
    pub(super) fn cut_value(&mut self, rows: &[u32], a: usize) -> u32 {
        let codes = self.cols[a];
        let mid = (rows.len() - 1) / 2;
        let code_space = self.stamps[a].len();
        let (median, top) = if code_space <= 4 * rows.len() {
            let histogram = &mut self.histogram;
            histogram.clear();
            histogram.resize(code_space, 0);
            for &r in rows.iter() {
                histogram[codes[r as usize] as usize] += 1;
            }
            let (mut seen, mut median, mut top) = (0, 0, 0);
            for (c, &h) in histogram.iter().enumerate() {
                if h == 0 {
                    continue;
                }
                if seen <= mid {
                    median = c as u32;
                }
                seen += h as usize;
                top = c as u32;
            }
            (median, top)
        } else {
            let mut row_codes: Vec<u32> = rows.iter().map(|&r| codes[r as usize]).collect();
            let top = row_codes.iter().copied().max().unwrap_or(0);
            (*row_codes.select_nth_unstable(mid).1, top)
        };
        if top > median {
            median
        } else {
            median - 1
        }
    }

    /// Alg. 3 lines 4–6 in place: T_l = {≤ cut} to the front of `t`, T_r =
    /// {> cut} after it; returns |T_l|.
    pub(super) fn median_cut(&mut self, t: &mut [u32], a: usize) -> usize {
        let cut = self.cut_value(t, a);
        let codes = self.cols[a];
        let mut i = 0;
        for j in 0..t.len() {
            if codes[t[j] as usize] <= cut {
                t.swap(i, j);
                i += 1;
            }
        }
        i
    }
}

/// Per-batch marks over sensitive values: which are in S_set (and where),
/// and a stamp for `holds_all`.
pub(super) struct ValueScratch {
    /// Position in S_set, or NONE.
    pub(super) slot: Vec<u32>,
    pub(super) seen: Vec<u32>,
    pub(super) generation: u32,
    pub(super) size: usize,
}

impl ValueScratch {
    pub(super) fn new(n_values: usize) -> Self {
        ValueScratch {
            slot: vec![NONE; n_values],
            seen: vec![0; n_values],
            generation: 0,
            size: 0,
        }
    }

    pub(super) fn set(&mut self, s_set: &[u32]) {
        self.slot.fill(NONE);
        for (i, &v) in s_set.iter().enumerate() {
            self.slot[v as usize] = i as u32;
        }
        self.size = s_set.len();
    }

    /// `check_condition` of Alg. 3: whether `rows` carry every value of S_set.
    pub(super) fn holds_all(&mut self, rows: &[u32], value: &[u32]) -> bool {
        if self.generation == u32::MAX {
            self.seen.fill(0);
            self.generation = 0;
        }
        self.generation += 1;
        let g = self.generation;
        let mut found = 0;
        for &r in rows {
            let v = value[r as usize] as usize;
            if self.slot[v] != NONE && self.seen[v] != g {
                self.seen[v] = g;
                found += 1;
                if found == self.size {
                    return true;
                }
            }
        }
        self.size == 0
    }
}

/// The distance of `choose_attri`, in fixed point: per attribute, |Δcode|
/// times its weight on numeric attributes, its weight on a categorical
/// mismatch; the weight is the attribute's `unit` × 2^40, rounded.
///
/// `KdIndex` keeps each row's categorical codes as one bit per attribute in
/// a set of `WORDS` words (attribute a's codes from bit `offset[a]`), so a
/// row's mismatches with a query are the query's bits the row lacks, and
/// what a set of rows holds is the union of their bits: the bound of a node
/// is the same few word operations as a row's distance. Numeric attributes,
/// and categorical ones that do not fit in the words, are `coded`: compared
/// by code, bounded by a range.
#[derive(Debug, Clone)]
pub(super) struct Metric {
    pub(super) weight: Vec<u64>,
    pub(super) numeric: Vec<bool>,
    /// Bit offset of each attribute's codes, or NONE for coded attributes.
    pub(super) offset: Vec<u32>,
    pub(super) coded: Vec<usize>,
    /// The weight of the attribute that owns each bit.
    pub(super) bit_weight: Box<[u64; WORDS * 64]>,
}

impl Metric {
    pub(super) fn new(space: &Space<'_>) -> Self {
        let d = space.d();
        let weight: Vec<u64> = space
            .unit
            .iter()
            .map(|&u| (u * FIXED_ONE).round() as u64)
            .collect();
        let mut offset = vec![NONE; d];
        let mut coded = Vec::new();
        let mut bit_weight = Box::new([0; WORDS * 64]);
        let mut used = 0;
        for a in 0..d {
            let codes = space.stamps[a].len();
            if !space.numeric[a] && used + codes <= WORDS * 64 {
                offset[a] = used as u32;
                bit_weight[used..used + codes].fill(weight[a]);
                used += codes;
            } else {
                coded.push(a);
            }
        }
        Metric {
            weight,
            numeric: space.numeric.clone(),
            offset,
            coded,
            bit_weight,
        }
    }

    /// Attribute a's part of the distance between codes x and y.
    pub(super) fn term(&self, a: usize, x: u32, y: u32) -> u64 {
        if self.numeric[a] {
            u64::from(x.abs_diff(y)) * self.weight[a]
        } else if x != y {
            self.weight[a]
        } else {
            0
        }
    }

    /// The weights of the attributes owning the set bits of `missing`.
    pub(super) fn missing_weight(&self, missing: &[u64; WORDS]) -> u64 {
        let mut sum = 0;
        for (w, &word) in missing.iter().enumerate() {
            let mut m = word;
            while m != 0 {
                sum += self.bit_weight[(w * 64 + m.trailing_zeros() as usize) % (WORDS * 64)];
                m &= m - 1;
            }
        }
        sum
    }

    /// Attribute a's part of the distance from code q to the nearest code
    /// in the range `lo | hi << 32`.
    pub(super) fn gap_term(&self, a: usize, q: u32, range: u64) -> u64 {
        let (lo, hi) = (range as u32, (range >> 32) as u32);
        let gap = lo.saturating_sub(q) + q.saturating_sub(hi);
        if self.numeric[a] {
            u64::from(gap) * self.weight[a]
        } else {
            u64::from(gap > 0) * self.weight[a]
        }
    }
}
