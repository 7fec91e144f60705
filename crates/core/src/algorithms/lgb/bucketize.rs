//! Local bucketization: the LGB paper's Algorithm 2 (l-diversity) and the
//! t-closeness bucketization of its Section 4.
//!
//! Both take one attribute's sensitive cells as (code, row) pairs and return
//! its local buckets. Codes index the column's dictionary, whose order is
//! value order for numeric columns and name order for categorical ones; a
//! missing value is a value of its own (the missing code sorts last).
//!
//! **Algorithm 2** (`l_diverse_buckets`). The cells are sorted by (code,
//! row) once; since every cut is "≤ median" against "> median", each
//! ValuePair of the recursion is a contiguous run of that order, so the
//! recursion works on index ranges. The median is the lower median of the
//! cells' codes (the paper's "median based on their numbers": the value at
//! position ⌊(N−1)/2⌋ when every cell is counted). `check_condition` is
//! l-eligibility: the most frequent value's count times l is at most the
//! size, and the half is not empty (an empty half would pass the paper's
//! inequality trivially but gives nothing to bucket). A range whose cut
//! fails goes to `divide_buckets`.
//!
//! **divide_buckets** is the m-Invariance assignment (Xiao & Tao, SIGMOD
//! 2007, the partitioning of new tuples into m-unique groups) with m = l:
//! while at least l distinct values remain, a bucket takes one cell of each
//! of the l values with the most remaining cells (ties to the smaller code,
//! rows in ascending order). Taking from the largest keeps what remains
//! l-eligible, so at the end fewer than l cells remain, all of distinct
//! values; each joins the smallest bucket (then the first) not holding its
//! value, which exists by eligibility (a value in every one of the B
//! buckets and once more left over would have B + 1 > N/l cells). Every
//! bucket so has l or more cells and no value twice: Corollary 2's
//! conditions. Deterministic, so no seed.
//!
//! **t-closeness** (`t_close_buckets`), for an attribute the paper protects
//! by t-closeness (sex, t = 0.2): the paper gives no algorithm. The
//! reference distribution is that of all the attribute's sensitive cells
//! (the population the buckets partition; against the whole column a
//! skewed set of sensitive cells could not be bucketed at all). Splitting
//! by value would put different values in different buckets, the opposite
//! of closeness, so the cut here deals the value-sorted cells alternately
//! into two halves (positions 0, 2, 4, … and 1, 3, 5, …): each half then
//! holds within one cell of half of every value's count. The recursion cuts
//! while both halves stay within EMD t of the reference (ordered distance
//! for numeric columns, equal distance otherwise, `privacy::emd`) and keeps
//! the last range that did. So numeric attributes are accepted, with the
//! ordered distance, and one bucket of all the cells (EMD 0) is the
//! fallback, so any t ≥ 0 is met.

use crate::data::Column;
use crate::privacy::{emd, TableDistribution, ValueCount};
use crate::release::Bucket;

/// Algorithm 2 over one attribute's sensitive `cells` (code, row). The
/// cells must be l-eligible as a whole (the caller checks, naming the
/// value that is too frequent); returns buckets with sorted rows.
pub fn l_diverse_buckets(mut cells: Vec<(u32, u32)>, l: usize) -> Vec<Bucket> {
    cells.sort_unstable();
    let l = l.max(1);
    let mut out = Vec::new();
    let mut stack: Vec<std::ops::Range<usize>> = Vec::new();
    stack.push(0..cells.len());
    while let Some(range) = stack.pop() {
        let part = &cells[range.clone()];
        if part.is_empty() {
            continue;
        }
        let median = part[(part.len() - 1) / 2].0;
        let cut = part.partition_point(|&(c, _)| c <= median);
        let (small, big) = part.split_at(cut);
        if eligible(small, l) && eligible(big, l) {
            // Big first: the stack is LIFO, so buckets come out in value order.
            stack.push(range.start + cut..range.end);
            stack.push(range.start..range.start + cut);
        } else {
            out.extend(divide_buckets(part, l));
        }
    }
    out
}

/// Whether sorted cells can form l-unique buckets: non-empty and no value
/// on more than 1/l of them.
pub fn eligible(sorted: &[(u32, u32)], l: usize) -> bool {
    !sorted.is_empty() && most_frequent(sorted) * l <= sorted.len()
}

fn most_frequent(sorted: &[(u32, u32)]) -> usize {
    sorted
        .chunk_by(|a, b| a.0 == b.0)
        .map(|run| run.len())
        .max()
        .unwrap_or(0)
}

/// The m-Invariance assignment with m = l over sorted, l-eligible cells.
fn divide_buckets(sorted: &[(u32, u32)], l: usize) -> Vec<Bucket> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    // Runs of equal codes, consumed from their front.
    let runs: Vec<&[(u32, u32)]> = sorted.chunk_by(|a, b| a.0 == b.0).collect();
    let mut next = vec![0usize; runs.len()];
    // (remaining cells, smaller code first, run index)
    let mut heap: BinaryHeap<(usize, Reverse<u32>, usize)> = runs
        .iter()
        .enumerate()
        .map(|(i, run)| (run.len(), Reverse(run[0].0), i))
        .collect();
    let mut buckets: Vec<Vec<(u32, u32)>> = Vec::with_capacity(sorted.len() / l);
    let mut taken = Vec::with_capacity(l);
    while heap.len() >= l {
        taken.clear();
        taken.extend((0..l).filter_map(|_| heap.pop()));
        let mut bucket = Vec::with_capacity(l + 1);
        for &(left, code, i) in &taken {
            bucket.push(runs[i][next[i]]);
            next[i] += 1;
            if left > 1 {
                heap.push((left - 1, code, i));
            }
        }
        buckets.push(bucket);
    }
    // The residue: fewer than l cells of distinct values (eligibility).
    let residue: Vec<(u32, u32)> = heap
        .into_iter()
        .flat_map(|(_, _, i)| runs[i][next[i]..].iter().copied())
        .collect();
    for cell in residue {
        let home = buckets
            .iter()
            .enumerate()
            .filter(|(_, b)| b.iter().all(|&(c, _)| c != cell.0))
            .min_by_key(|(i, b)| (b.len(), *i))
            .map(|(i, _)| i);
        match home {
            Some(i) => buckets[i].push(cell),
            // Only reachable with cells that are not l-eligible, which the
            // caller refuses; a bucket of its own keeps every cell published
            // and the verifier would name the shortfall.
            None => buckets.push(vec![cell]),
        }
    }
    buckets
        .into_iter()
        .map(|b| {
            let mut rows: Vec<u32> = b.into_iter().map(|(_, r)| r).collect();
            rows.sort_unstable();
            Bucket { rows }
        })
        .collect()
}

/// The t-closeness bucketization over one attribute's sensitive `cells`
/// (code, row) of column `col`.
pub fn t_close_buckets(mut cells: Vec<(u32, u32)>, t: f64, col: &Column) -> Vec<Bucket> {
    cells.sort_unstable();
    let reference = reference_distribution(cells.iter().map(|&(c, _)| c), col);
    let mut out = Vec::new();
    let mut stack = vec![cells];
    while let Some(part) = stack.pop() {
        if part.len() >= 2 {
            let (even, odd): (Vec<_>, Vec<_>) = part
                .iter()
                .enumerate()
                .partition::<Vec<_>, _>(|(i, _)| i % 2 == 0);
            let even: Vec<(u32, u32)> = even.into_iter().map(|(_, &c)| c).collect();
            let odd: Vec<(u32, u32)> = odd.into_iter().map(|(_, &c)| c).collect();
            if within(&even, &reference, t) && within(&odd, &reference, t) {
                stack.push(odd);
                stack.push(even);
                continue;
            }
        }
        let mut rows: Vec<u32> = part.into_iter().map(|(_, r)| r).collect();
        rows.sort_unstable();
        if !rows.is_empty() {
            out.push(Bucket { rows });
        }
    }
    out
}

/// The distribution of the attribute's sensitive cells, the reference of
/// its t-closeness (shared with the verifier so both measure alike).
pub fn reference_distribution(codes: impl Iterator<Item = u32>, col: &Column) -> TableDistribution {
    let mut counts = vec![0u64; col.code_space()];
    for c in codes {
        counts[c as usize] += 1;
    }
    TableDistribution::from_counts(counts, col.is_numeric())
}

fn within(sorted: &[(u32, u32)], reference: &TableDistribution, t: f64) -> bool {
    let counts: Vec<ValueCount> = sorted
        .chunk_by(|a, b| a.0 == b.0)
        .map(|run| ValueCount {
            code: run[0].0,
            count: run.len() as u32,
        })
        .collect();
    emd(&counts, reference) <= t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;

    fn values(buckets: &[Bucket], codes: &[u32]) -> Vec<Vec<u32>> {
        buckets
            .iter()
            .map(|b| {
                let mut v: Vec<u32> = b.rows.iter().map(|&r| codes[r as usize]).collect();
                v.sort_unstable();
                v
            })
            .collect()
    }

    #[test]
    fn median_splits_then_l_unique_buckets() {
        // Codes 0..8, two cells each (rows 0..16): the median 3 cuts
        // {0..3} | {4..7} (8 cells each, eligible), then {0,1} | {2,3} and
        // {4,5} | {6,7}; a range of two values with two cells each cannot be
        // cut again (halves {0,0} are not 2-eligible) and divides into two
        // buckets {0,1}, {0,1}.
        let codes: Vec<u32> = (0..16).map(|r| r / 2).collect();
        let cells = codes
            .iter()
            .enumerate()
            .map(|(r, &c)| (c, r as u32))
            .collect();
        let b = l_diverse_buckets(cells, 2);
        assert_eq!(
            values(&b, &codes),
            vec![
                vec![0, 1],
                vec![0, 1],
                vec![2, 3],
                vec![2, 3],
                vec![4, 5],
                vec![4, 5],
                vec![6, 7],
                vec![6, 7]
            ]
        );
    }

    #[test]
    fn residue_joins_a_bucket_without_its_value() {
        // a a b b c, l = 2: buckets {a, b}, {a, b}; c joins the first.
        let codes = [0, 0, 1, 1, 2];
        let cells: Vec<(u32, u32)> = codes
            .iter()
            .enumerate()
            .map(|(r, &c)| (c, r as u32))
            .collect();
        let b = divide_buckets(
            &{
                let mut s = cells.clone();
                s.sort_unstable();
                s
            },
            2,
        );
        assert_eq!(values(&b, &codes), vec![vec![0, 1, 2], vec![0, 1]]);
        // The whole of Algorithm 2: median b cuts {a a b b} | {c}, and {c}
        // is not 2-eligible, so the same buckets.
        assert_eq!(
            values(&l_diverse_buckets(cells, 2), &codes),
            vec![vec![0, 1, 2], vec![0, 1]]
        );
    }

    #[test]
    fn t_close_buckets_deal_values_alternately() {
        let rows: Vec<Vec<&str>> = ["F", "M", "M", "F", "M", "M", "F", "M"]
            .iter()
            .map(|s| vec![*s])
            .collect();
        let ds = Dataset::from_rows(&["sex"], &rows).unwrap();
        let col = ds.col(0);
        let cells: Vec<(u32, u32)> = (0..8).map(|r| (col.code(r), r as u32)).collect();
        // 3 F, 5 M. With t = 0.2, halves of 4 (2 F 2 M, EMD 0.125; 1 F 3 M,
        // EMD 0.125) pass; a further cut of {F F M M} gives {F M}, {F M}
        // (EMD 0.125) and of {F M M M} gives {F M}, {M M} (EMD 0.375 > 0.2):
        // so buckets {F M}, {F M}, {F M M M}.
        let b = t_close_buckets(cells.clone(), 0.2, col);
        let f = col.code_of("F").unwrap();
        let sizes: Vec<(usize, usize)> = values(&b, col.codes())
            .iter()
            .map(|v| (v.iter().filter(|&&c| c == f).count(), v.len()))
            .collect();
        assert_eq!(sizes, vec![(1, 2), (1, 2), (1, 4)]);
        // t = 0: one bucket of everything.
        assert_eq!(t_close_buckets(cells, 0.0, col).len(), 1);
    }
}
