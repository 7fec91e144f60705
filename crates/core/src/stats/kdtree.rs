//! A static k-d tree over the records of a few numeric columns, for the
//! nearest-neighbour questions of the numeric risk measures: sdcMicro's
//! `dRiskRMD` (R/dRiskRMD.R) asks, for some records, how far the nearest
//! *other* published record is, and distance-based record linkage asks how
//! many published records lie nearer to an original record than its own.
//! sdcMicro answers the first with the full n × n matrix of
//! `stats::dist` (O(n²) time and memory); the tree answers both in about
//! O(log n) per question for the few columns such files have (Bentley,
//! "Multidimensional binary search trees used for associative searching",
//! CACM 1975; Friedman, Bentley and Finkel 1977 for the search order).
//!
//! Distances are squared Euclidean, summed column by column from the first
//! to the last, the order in which the R scripts that produce the golden
//! figures sum them, so that equal distances (ties) are equal here too.
//! Splits are on the widest column at the median; leaves hold at most
//! [`LEAF`] records.

/// Most records in a leaf.
const LEAF: usize = 16;

/// Squared Euclidean distance, summed over the columns in order.
#[inline]
pub fn squared_distance(a: &[f64], b: &[f64]) -> f64 {
    let mut d = 0.0;
    for (x, y) in a.iter().zip(b) {
        let t = x - y;
        d += t * t;
    }
    d
}

enum Node {
    Leaf {
        start: usize,
        end: usize,
    },
    Split {
        dim: usize,
        value: f64,
        left: usize,
        right: usize,
    },
}

/// The tree: the points (row-major, reordered) with their record numbers.
pub struct KdTree {
    dims: usize,
    points: Vec<f64>,
    ids: Vec<usize>,
    nodes: Vec<Node>,
}

impl KdTree {
    /// Builds the tree over the records of column-major `columns` (all of
    /// the same length, no NaN: the callers refuse missing values first).
    pub fn new(columns: &[Vec<f64>]) -> KdTree {
        let dims = columns.len();
        let n = columns.first().map_or(0, Vec::len);
        let mut ids: Vec<usize> = (0..n).collect();
        let mut nodes = Vec::new();
        if n > 0 && dims > 0 {
            build(columns, &mut ids, 0, n, &mut nodes);
        }
        let mut points = Vec::with_capacity(n * dims);
        for &i in &ids {
            points.extend(columns.iter().map(|c| c[i]));
        }
        KdTree {
            dims,
            points,
            ids,
            nodes,
        }
    }

    fn point(&self, slot: usize) -> &[f64] {
        &self.points[slot * self.dims..(slot + 1) * self.dims]
    }

    /// The least squared distance from `q` to a record other than
    /// `exclude` (∞ when there is none).
    pub fn nearest_other(&self, q: &[f64], exclude: usize) -> f64 {
        let mut best = f64::INFINITY;
        if !self.nodes.is_empty() {
            self.nearest_in(0, q, exclude, &mut best);
        }
        best
    }

    fn nearest_in(&self, node: usize, q: &[f64], exclude: usize, best: &mut f64) {
        match self.nodes[node] {
            Node::Leaf { start, end } => {
                for slot in start..end {
                    if self.ids[slot] != exclude {
                        let d = squared_distance(q, self.point(slot));
                        if d < *best {
                            *best = d;
                        }
                    }
                }
            }
            Node::Split {
                dim,
                value,
                left,
                right,
            } => {
                let diff = q[dim] - value;
                let (near, far) = if diff <= 0.0 {
                    (left, right)
                } else {
                    (right, left)
                };
                self.nearest_in(near, q, exclude, best);
                if diff * diff <= *best {
                    self.nearest_in(far, q, exclude, best);
                }
            }
        }
    }

    /// How many records lie strictly nearer to `q` than `radius` (squared)
    /// and how many exactly at it; the search stops once `cap` records
    /// are strictly nearer (the counts are then lower bounds).
    pub fn count_within(&self, q: &[f64], radius: f64, cap: usize) -> (usize, usize) {
        let mut counts = (0, 0);
        if !self.nodes.is_empty() {
            self.count_in(0, q, radius, cap, &mut counts);
        }
        counts
    }

    fn count_in(&self, node: usize, q: &[f64], radius: f64, cap: usize, c: &mut (usize, usize)) {
        if c.0 >= cap {
            return;
        }
        match self.nodes[node] {
            Node::Leaf { start, end } => {
                for slot in start..end {
                    let d = squared_distance(q, self.point(slot));
                    if d < radius {
                        c.0 += 1;
                    } else if d == radius {
                        c.1 += 1;
                    }
                }
            }
            Node::Split {
                dim,
                value,
                left,
                right,
            } => {
                let diff = q[dim] - value;
                let (near, far) = if diff <= 0.0 {
                    (left, right)
                } else {
                    (right, left)
                };
                self.count_in(near, q, radius, cap, c);
                // Points across the split are at least |diff| away in this
                // column alone; the bound is exact for the squared term.
                if diff * diff <= radius {
                    self.count_in(far, q, radius, cap, c);
                }
            }
        }
    }
}

/// Builds the subtree over `ids[start..end]` and returns its node number.
fn build(
    columns: &[Vec<f64>],
    ids: &mut [usize],
    start: usize,
    end: usize,
    nodes: &mut Vec<Node>,
) -> usize {
    let me = nodes.len();
    if end - start <= LEAF {
        nodes.push(Node::Leaf { start, end });
        return me;
    }
    // The widest column splits best.
    let mut dim = 0;
    let mut widest = -1.0;
    for (j, col) in columns.iter().enumerate() {
        let (lo, hi) = ids[start..end]
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &i| {
                (lo.min(col[i]), hi.max(col[i]))
            });
        if hi - lo > widest {
            widest = hi - lo;
            dim = j;
        }
    }
    if widest <= 0.0 {
        // All records equal: no split separates them.
        nodes.push(Node::Leaf { start, end });
        return me;
    }
    let col = &columns[dim];
    let mid = (end - start) / 2;
    ids[start..end].select_nth_unstable_by(mid, |&a, &b| col[a].total_cmp(&col[b]));
    let value = col[ids[start + mid]];
    // Left: values ≤ the split value are searched first when the query is
    // at or below it; both sides are searched when the bound allows, so a
    // record equal to the split value on either side is always found.
    nodes.push(Node::Leaf { start, end });
    let left = build(columns, ids, start, start + mid, nodes);
    let right = build(columns, ids, start + mid, end, nodes);
    nodes[me] = Node::Split {
        dim,
        value,
        left,
        right,
    };
    me
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn tree_answers_as_brute_force() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let n = 500;
        // Coarse values make ties frequent.
        let cols: Vec<Vec<f64>> = (0..3)
            .map(|_| (0..n).map(|_| rng.random_range(0..8) as f64).collect())
            .collect();
        let tree = KdTree::new(&cols);
        for i in 0..n {
            let q: Vec<f64> = cols.iter().map(|c| c[i] + 0.5).collect();
            let row = |j: usize| cols.iter().map(|c| c[j]).collect::<Vec<f64>>();
            let dists: Vec<f64> = (0..n).map(|j| squared_distance(&q, &row(j))).collect();
            let own = dists[i];
            let want_nn = (0..n)
                .filter(|&j| j != i)
                .map(|j| dists[j])
                .fold(f64::INFINITY, f64::min);
            assert_eq!(tree.nearest_other(&q, i), want_nn);
            let less = dists.iter().filter(|&&d| d < own).count();
            let equal = dists.iter().filter(|&&d| d == own).count();
            assert_eq!(tree.count_within(&q, own, usize::MAX), (less, equal));
            let (capped, _) = tree.count_within(&q, own, 3);
            assert!(capped >= less.min(3));
        }
    }
}
