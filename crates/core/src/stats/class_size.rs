//! Records by their class size k — "the safety level k of each record" of
//! the correlation-hierarchy paper's Figures 6 and 7: after publishing, each
//! record's k is the number of records sharing its quasi-identifier values
//! (the attack simulator's match count), and the figures plot how many
//! records have each k. A release whose k are low and even is the paper's
//! aim; a long tail of huge classes is information lost for nothing.

use std::fmt;

use serde::Serialize;

/// The frequency table of class sizes: how many classes have each size,
/// sizes ascending. What the population models read (ARX calls it the
/// equivalence-class histogram): they see the sample only through it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SizeCounts {
    /// `(size, classes of that size)`, sizes ascending, no zero counts.
    pub counts: Vec<(u32, u64)>,
    pub records: u64,
    pub classes: u64,
}

impl SizeCounts {
    /// From the size of each class (`Partition::sizes`); empty classes are
    /// ignored.
    pub fn from_sizes(sizes: &[u32]) -> Self {
        let mut sorted: Vec<u32> = sizes.iter().copied().filter(|&s| s > 0).collect();
        sorted.sort_unstable();
        let mut counts: Vec<(u32, u64)> = Vec::new();
        for s in sorted {
            match counts.last_mut() {
                Some((size, c)) if *size == s => *c += 1,
                _ => counts.push((s, 1)),
            }
        }
        let records = counts.iter().map(|&(s, c)| u64::from(s) * c).sum();
        let classes = counts.iter().map(|&(_, c)| c).sum();
        Self {
            counts,
            records,
            classes,
        }
    }

    /// From classes of `sizes[j]` records whose records each have sample
    /// frequency `frequencies[j]` (the records of their matched set, which
    /// hidden cells make wider than the class: `risk::population`'s
    /// module doc). The records of frequency f count as ⌈records / f⌉
    /// classes of f: the number of matched sets they fill, the sample
    /// uniques exactly (f = 1), and every class when no cell is hidden
    /// (then each class of f adds f records), so it is
    /// [`from_sizes`](Self::from_sizes) there.
    pub fn from_frequencies(sizes: &[u32], frequencies: &[u32]) -> Self {
        let mut by_frequency: std::collections::BTreeMap<u32, u64> = Default::default();
        for (&size, &f) in sizes.iter().zip(frequencies) {
            if size > 0 && f > 0 {
                *by_frequency.entry(f).or_default() += u64::from(size);
            }
        }
        let counts: Vec<(u32, u64)> = by_frequency
            .into_iter()
            .map(|(f, records)| (f, records.div_ceil(u64::from(f))))
            .collect();
        let records = counts.iter().map(|&(s, c)| u64::from(s) * c).sum();
        let classes = counts.iter().map(|&(_, c)| c).sum();
        Self {
            counts,
            records,
            classes,
        }
    }

    /// Classes of exactly `size` records.
    pub fn of_size(&self, size: u32) -> u64 {
        self.counts
            .binary_search_by_key(&size, |&(s, _)| s)
            .map_or(0, |i| self.counts[i].1)
    }

    pub fn smallest(&self) -> Option<u32> {
        self.counts.first().map(|&(s, _)| s)
    }

    pub fn largest(&self) -> Option<u32> {
        self.counts.last().map(|&(s, _)| s)
    }
}

/// One bin `(from − 1, to]` of class sizes, i.e. `from ≤ k ≤ to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KBin {
    pub from: u32,
    pub to: u32,
    pub records: usize,
}

/// Records by class size, in bins of equal width.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassSizeHistogram {
    pub width: u32,
    pub records: usize,
    pub min_k: u32,
    pub max_k: u32,
    /// Mean k over records (a record in a class of k counts k).
    pub mean_k: f64,
    /// Records whose k exceeds 100 (the paper's reading of Figure 6).
    pub records_above_100: usize,
    /// Bins from k = 1 up to the one holding the largest k; empty bins kept
    /// so the shape reads as a histogram.
    pub bins: Vec<KBin>,
}

impl ClassSizeHistogram {
    /// From each record's class size (`Simulation::matches`); `width` ≥ 1.
    pub fn new(matches: &[u32], width: u32) -> Self {
        let width = width.max(1);
        let max_k = matches.iter().copied().max().unwrap_or(0);
        let min_k = matches.iter().copied().min().unwrap_or(0);
        let n_bins = max_k.div_ceil(width) as usize;
        let mut bins: Vec<KBin> = (0..n_bins as u32)
            .map(|i| KBin {
                from: i * width + 1,
                to: (i + 1) * width,
                records: 0,
            })
            .collect();
        for &k in matches.iter().filter(|&&k| k > 0) {
            bins[((k - 1) / width) as usize].records += 1;
        }
        let mean_k = if matches.is_empty() {
            0.0
        } else {
            matches.iter().map(|&k| f64::from(k)).sum::<f64>() / matches.len() as f64
        };
        Self {
            width,
            records: matches.len(),
            min_k,
            max_k,
            mean_k,
            records_above_100: matches.iter().filter(|&&k| k > 100).count(),
            bins,
        }
    }
}

impl fmt::Display for ClassSizeHistogram {
    /// A text histogram with bars (non-empty bins), then max k and the
    /// share above 100.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let share = |n: usize| {
            if self.records == 0 {
                0.0
            } else {
                100.0 * n as f64 / self.records as f64
            }
        };
        writeln!(f, "records by class size k (bins of {})", self.width)?;
        let most = self
            .bins
            .iter()
            .map(|b| b.records)
            .max()
            .unwrap_or(0)
            .max(1);
        // Empty bins are left out of the text (a long tail would otherwise
        // print hundreds of blank lines); they stay in `bins`.
        for b in self.bins.iter().filter(|b| b.records > 0) {
            let bar = "█".repeat((b.records * 40).div_ceil(most));
            writeln!(
                f,
                "  k {:>5}–{:<5} {:>8}  {bar}",
                b.from,
                b.to,
                crate::format::thousands(b.records as u64)
            )?;
        }
        writeln!(
            f,
            "min k {}, max k {}, mean k {:.1}; k > 100: {} records ({:.1}%)",
            self.min_k,
            self.max_k,
            self.mean_k,
            crate::format::thousands(self.records_above_100 as u64),
            share(self.records_above_100)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_counts_by_hand() {
        let t = SizeCounts::from_sizes(&[3, 1, 1, 2, 3, 0]);
        assert_eq!(t.counts, vec![(1, 2), (2, 1), (3, 2)]);
        assert_eq!((t.records, t.classes), (10, 5));
        assert_eq!((t.of_size(1), t.of_size(4)), (2, 0));
        assert_eq!((t.smallest(), t.largest()), (Some(1), Some(3)));
        assert_eq!(SizeCounts::from_sizes(&[]).smallest(), None);
        let sizes = [3, 1, 1, 2, 3];
        assert_eq!(
            SizeCounts::from_frequencies(&sizes, &sizes),
            SizeCounts::from_sizes(&sizes)
        );
        // Three lone records matched by 2 each (hidden cells) fill two
        // matched sets of 2; the sample uniques stay exact.
        let t = SizeCounts::from_frequencies(&[1, 1, 1, 1], &[2, 2, 2, 1]);
        assert_eq!(t.counts, vec![(1, 1), (2, 2)]);
    }

    #[test]
    fn bins_by_hand() {
        // Classes of 2, 3 and 120 records: k per record 2,2,3,3,3 and 120×120.
        let mut m = vec![2, 2, 3, 3, 3];
        m.extend(std::iter::repeat_n(120, 120));
        let h = ClassSizeHistogram::new(&m, 50);
        assert_eq!(h.bins.len(), 3);
        assert_eq!(
            h.bins
                .iter()
                .map(|b| (b.from, b.to, b.records))
                .collect::<Vec<_>>(),
            vec![(1, 50, 5), (51, 100, 0), (101, 150, 120)]
        );
        assert_eq!((h.min_k, h.max_k, h.records_above_100), (2, 120, 120));
        // mean = (2+2+3+3+3 + 120·120) / 125 = 14413 / 125.
        assert!((h.mean_k - 14413.0 / 125.0).abs() < 1e-12);
        let text = h.to_string();
        assert!(text.contains("k > 100: 120 records (96.0%)"), "{text}");
    }
}
