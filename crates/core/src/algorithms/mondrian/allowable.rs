//! The allowable-cut check (LeFevre et al., Section 4: a cut is
//! *allowable* when both sides still satisfy the privacy model), shared by
//! `mondrian`, `mondrian-l`, `mondrian-distinct-l` and LGB's Algorithm 3.
//!
//! Every model here is checked on one side of a cut from three numbers —
//! its rows, its distinct sensitive values and the count of its most
//! frequent sensitive value — so a sweep along a dimension's value order
//! can judge every candidate cut of a node in one pass ([`Tally`]: values
//! move from the right side to the left one record at a time, each move
//! O(1)). Each model is closed under union: if every group of a partition
//! satisfies it, so does any union of groups. That is why a Mondrian
//! partition made only of allowable cuts is safe, and why the sides of every
//! cut (the union of the leaves below them) satisfy it too.

/// What each side of a cut must keep besides k rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Diversity {
    /// k-anonymity only.
    None,
    /// At least l distinct sensitive values (distinct l-diversity).
    Distinct(usize),
    /// No sensitive value on more than 1/l of the side's rows, so that an
    /// attacker's p(t, s) ≤ 1/l — the cross-bucket paper's Definition 6 for
    /// a generalized table: p(t, s) over t's matching groups is the share
    /// of s among their rows, and a union of groups where s holds at most
    /// 1/l of each holds at most 1/l of all.
    Frequency(usize),
}

/// The privacy model a cut's sides must satisfy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Allowable {
    pub k: usize,
    pub diversity: Diversity,
}

/// One side of a candidate cut, as the check sees it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Side {
    pub rows: usize,
    /// Distinct sensitive values (0 when the model reads none).
    pub distinct: usize,
    /// Rows of the most frequent sensitive value (0 likewise).
    pub most: usize,
}

impl Allowable {
    pub fn k(k: usize) -> Self {
        Allowable {
            k,
            diversity: Diversity::None,
        }
    }

    /// Whether a side (or a group) satisfies the model.
    pub fn allows(&self, s: &Side) -> bool {
        s.rows >= self.k.max(1)
            && match self.diversity {
                Diversity::None => true,
                Diversity::Distinct(l) => s.distinct >= l,
                Diversity::Frequency(l) => s.most * l <= s.rows,
            }
    }

    /// Whether the check needs the sensitive values.
    pub fn reads_sensitive(&self) -> bool {
        self.diversity != Diversity::None
    }

    /// The fewest rows a node must have for any cut to be allowable.
    pub fn smallest_cuttable(&self) -> usize {
        let l = match self.diversity {
            Diversity::None => 1,
            Diversity::Distinct(l) | Diversity::Frequency(l) => l,
        };
        2 * self.k.max(l).max(1)
    }
}

/// Counts of sensitive values on one side of a sweep: per value, and how
/// many values have each count, so the most frequent count follows every
/// ±1 change in O(1) (it moves by at most one per change). A grouped
/// table's row moves all its records at once ([`Tally::add_n`]): the most
/// frequent count is then recomputed over the values when a removal may
/// have lowered it, instead of a count-of-counts table as long as the
/// records.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    count: Vec<u32>,
    of_count: Vec<u32>,
    side: Side,
    /// Whether `side.most` may be too high after a weighted removal.
    stale: bool,
}

impl Tally {
    /// Ready for values below `space` and sides of at most `rows` rows.
    /// Counts are left at zero by [`Self::clear`], so only the count-of-
    /// counts table, O(rows), is reset here.
    pub fn reset(&mut self, space: usize, rows: usize) {
        if self.count.len() < space {
            self.count.resize(space, 0);
        }
        self.of_count.clear();
        self.of_count.resize(rows + 2, 0);
        self.side = Side::default();
        self.stale = false;
    }

    /// Ready for weighted moves ([`Tally::add_n`], [`Tally::remove_n`])
    /// of values below `space`.
    pub fn reset_weighted(&mut self, space: usize) {
        if self.count.len() < space {
            self.count.resize(space, 0);
        }
        self.of_count.clear();
        self.side = Side::default();
        self.stale = false;
    }

    /// Add `n` records of value `s` (after [`Tally::reset_weighted`]).
    pub fn add_n(&mut self, s: u32, n: u32) {
        let c = &mut self.count[s as usize];
        if *c == 0 {
            self.side.distinct += 1;
        }
        *c += n;
        if !self.stale {
            self.side.most = self.side.most.max(*c as usize);
        }
        self.side.rows += n as usize;
    }

    /// Remove `n` records of value `s` (after [`Tally::reset_weighted`]).
    pub fn remove_n(&mut self, s: u32, n: u32) {
        let c = &mut self.count[s as usize];
        if *c as usize == self.side.most {
            self.stale = true;
        }
        *c -= n;
        if *c == 0 {
            self.side.distinct -= 1;
        }
        self.side.rows -= n as usize;
    }

    pub fn add(&mut self, s: u32) {
        let c = self.count[s as usize] as usize;
        if c == 0 {
            self.side.distinct += 1;
        } else {
            self.of_count[c] -= 1;
        }
        self.count[s as usize] += 1;
        self.of_count[c + 1] += 1;
        self.side.most = self.side.most.max(c + 1);
        self.side.rows += 1;
    }

    pub fn remove(&mut self, s: u32) {
        let c = self.count[s as usize] as usize;
        self.of_count[c] -= 1;
        if c == self.side.most && self.of_count[c] == 0 {
            self.side.most -= 1;
        }
        self.count[s as usize] -= 1;
        if c == 1 {
            self.side.distinct -= 1;
        } else {
            self.of_count[c - 1] += 1;
        }
        self.side.rows -= 1;
    }

    pub fn side(&mut self) -> Side {
        if self.stale {
            self.side.most = self.count.iter().copied().max().unwrap_or(0) as usize;
            self.stale = false;
        }
        self.side
    }

    /// Zero the counts of the values `touched` (those added since the last
    /// clear), so the next [`Self::reset`] need not clear the whole table.
    pub fn clear(&mut self, touched: impl Iterator<Item = u32>) {
        for s in touched {
            self.count[s as usize] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn each_model_reads_its_number() {
        let side = Side {
            rows: 6,
            distinct: 3,
            most: 3,
        };
        assert!(Allowable::k(6).allows(&side));
        assert!(!Allowable::k(7).allows(&side));
        let distinct = |l| Allowable {
            k: 2,
            diversity: Diversity::Distinct(l),
        };
        assert!(distinct(3).allows(&side));
        assert!(!distinct(4).allows(&side));
        let frequency = |l| Allowable {
            k: 2,
            diversity: Diversity::Frequency(l),
        };
        // 3 of 6 rows: 1/2 — allowed for l = 2, not for l = 3.
        assert!(frequency(2).allows(&side));
        assert!(!frequency(3).allows(&side));
        assert_eq!(frequency(3).smallest_cuttable(), 6);
        assert_eq!(Allowable::k(0).smallest_cuttable(), 2);
    }

    proptest! {
        #[test]
        fn a_sweep_tally_matches_recounting(values in prop::collection::vec(0u32..6, 1..60), at in 0usize..60) {
            let at = at.min(values.len());
            let mut left = Tally::default();
            let mut right = Tally::default();
            left.reset(6, values.len());
            right.reset(6, values.len());
            for &v in &values {
                right.add(v);
            }
            for &v in &values[..at] {
                right.remove(v);
                left.add(v);
            }
            let count = |vs: &[u32]| {
                let mut c = [0usize; 6];
                for &v in vs {
                    c[v as usize] += 1;
                }
                Side {
                    rows: vs.len(),
                    distinct: c.iter().filter(|&&x| x > 0).count(),
                    most: c.iter().copied().max().unwrap_or(0),
                }
            };
            prop_assert_eq!(left.side(), count(&values[..at]));
            prop_assert_eq!(right.side(), count(&values[at..]));
            left.clear(values.iter().copied());
            right.clear(values.iter().copied());
            prop_assert!(left.count.iter().chain(&right.count).all(|&c| c == 0));
        }
    }
}
