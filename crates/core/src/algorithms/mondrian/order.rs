//! Where a node may be cut on one quasi-identifier: its values in an order,
//! and the positions in that order where a cut may fall. A cut at position
//! p sends the values before p to the left side and the others to the
//! right, so equal values never straddle a cut.
//!
//! - **Numeric**: value order (codes of a numeric column are sorted by
//!   number; the missing code comes last, so missing cells are cut off like
//!   a largest value). Any position.
//! - **Categorical with a hierarchy**: along the hierarchy (LeFevre et al.
//!   split a categorical region into the regions of its node's children).
//!   The node's values share a lowest common ancestor at some level L; they
//!   are grouped by their ancestor at level L − 1 (the LCA's children that
//!   occur), the groups are ordered as [`balanced`] orders items, and a cut
//!   may fall only between groups. Each side is then a union of whole
//!   subtrees, which a deeper cut splits further along the same hierarchy.
//!   A binary split of the children rather than the paper's one region per
//!   child: the other cuts of the node stay available to the greedy
//!   recursion, and a child too small to stand alone can still be cut off
//!   together with a sibling.
//! - **Categorical without a hierarchy**: the value set split by frequency
//!   ([`balanced`]), not by name: alphabetical code order has no meaning
//!   (it put {Doctorate, HS-grad} together and could never cut a value that
//!   held the median row off from the rest).

use crate::hierarchy::BoundHierarchy;

/// How one quasi-identifier's values are ordered for cutting.
pub(super) enum Kind<'a> {
    Numeric,
    Categorical,
    Hierarchy(&'a BoundHierarchy),
}

/// Fill `order` with indices into `vals` (the node's distinct codes, with
/// their row `counts`) in cutting order, and `cuts` with the positions
/// (1..vals.len()) where a cut may fall, ascending.
pub(super) fn order(
    kind: &Kind<'_>,
    vals: &[u32],
    counts: &[u32],
    order: &mut Vec<u32>,
    cuts: &mut Vec<u32>,
) {
    order.clear();
    cuts.clear();
    match kind {
        Kind::Numeric => {
            order.extend(0..vals.len() as u32);
            order.sort_unstable_by_key(|&i| vals[i as usize]);
            cuts.extend(1..vals.len() as u32);
        }
        Kind::Categorical => {
            let items: Vec<(u64, u32)> = (0..vals.len())
                .map(|i| (u64::from(counts[i]), vals[i]))
                .collect();
            order.extend(balanced(&items).into_iter().map(|i| i as u32));
            cuts.extend(1..vals.len() as u32);
        }
        Kind::Hierarchy(h) => along_hierarchy(h, vals, counts, order, cuts),
    }
}

fn along_hierarchy(
    h: &BoundHierarchy,
    vals: &[u32],
    counts: &[u32],
    order: &mut Vec<u32>,
    cuts: &mut Vec<u32>,
) {
    // The lowest level where every value has the same ancestor; the top
    // level (one root) always qualifies.
    let top = h.height();
    let lca = (1..=top)
        .find(|&level| {
            let first = h.node(level, vals[0]);
            vals.iter().all(|&c| h.node(level, c) == first)
        })
        .unwrap_or(top);
    let child = lca - 1;
    // Groups: the LCA's children that occur, keyed by node id at `child`.
    let mut groups: Vec<(u32, u64, Vec<u32>)> = Vec::new();
    let mut idx: Vec<usize> = (0..vals.len()).collect();
    idx.sort_unstable_by_key(|&i| (h.node(child, vals[i]), vals[i]));
    for i in idx {
        let node = h.node(child, vals[i]);
        match groups.last_mut() {
            Some((n, w, members)) if *n == node => {
                *w += u64::from(counts[i]);
                members.push(i as u32);
            }
            _ => groups.push((node, u64::from(counts[i]), vec![i as u32])),
        }
    }
    let items: Vec<(u64, u32)> = groups.iter().map(|g| (g.1, g.0)).collect();
    for (n, gi) in balanced(&items).into_iter().enumerate() {
        if n > 0 {
            cuts.push(order.len() as u32);
        }
        order.extend(&groups[gi].2);
    }
}

/// A frequency-balanced order of weighted items `(weight, key)`: the
/// largest-first greedy two-way partition (each item, heaviest first, to
/// the lighter side; ties to the left) gives sides A and B whose weights
/// differ by at most the heaviest item; the order is A heaviest first, then
/// B lightest first. The cut between A and B is the balanced one, and the
/// positions around it move the cut by the lightest items, so a cut that
/// must step away from the balance (to keep both sides allowable) moves as
/// little as it can. Ties between equal weights go to the smaller key, so
/// the order does not depend on how the items were listed. Returns indices
/// into `items`.
pub(super) fn balanced(items: &[(u64, u32)]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..items.len()).collect();
    idx.sort_unstable_by(|&a, &b| {
        items[b]
            .0
            .cmp(&items[a].0)
            .then(items[a].1.cmp(&items[b].1))
    });
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut wa, mut wb) = (0u64, 0u64);
    for i in idx {
        if wa <= wb {
            wa += items[i].0;
            a.push(i);
        } else {
            wb += items[i].0;
            b.push(i);
        }
    }
    b.reverse();
    a.extend(b);
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use crate::hierarchy::Hierarchy;

    #[test]
    fn balanced_puts_the_even_cut_in_the_middle() {
        // Weights 67 (Male) and 33 (Female): one each side.
        assert_eq!(balanced(&[(33, 0), (67, 1)]), vec![1, 0]);
        // 5,4,3,3,1: 5 → A, 4 → B, 3 → B (7), 3 → A (8), 1 → B (8); the
        // order is A = 5,3 then B lightest first: 1,3,4.
        let items = [(5, 0), (4, 1), (3, 2), (3, 3), (1, 4)];
        let o = balanced(&items);
        assert_eq!(o, vec![0, 3, 4, 2, 1]);
        let w: Vec<u64> = o.iter().map(|&i| items[i].0).collect();
        assert_eq!(w[..2].iter().sum::<u64>(), 8);
        // Listing order does not matter.
        let mut rev = items;
        rev.reverse();
        let o2: Vec<u32> = balanced(&rev).iter().map(|&i| rev[i].1).collect();
        let o1: Vec<u32> = o.iter().map(|&i| items[i].1).collect();
        assert_eq!(o1, o2);
    }

    #[test]
    fn numeric_values_in_value_order_every_position_a_cut() {
        let (mut o, mut c) = (Vec::new(), Vec::new());
        order(&Kind::Numeric, &[7, 2, 5], &[1, 1, 1], &mut o, &mut c);
        assert_eq!(o, vec![1, 2, 0]);
        assert_eq!(c, vec![1, 2]);
    }

    #[test]
    fn a_hierarchy_cuts_only_between_the_lcas_children() {
        // Bachelors, Masters under Higher; 9th, 10th, HS-grad under Secondary.
        let h = Hierarchy::from_rows(
            "edu",
            &[
                vec!["Bachelors", "Higher", "*"],
                vec!["Masters", "Higher", "*"],
                vec!["9th", "Secondary", "*"],
                vec!["10th", "Secondary", "*"],
                vec!["HS-grad", "Secondary", "*"],
            ],
        )
        .unwrap();
        let rows: Vec<Vec<&str>> = ["Bachelors", "Masters", "9th", "10th", "HS-grad"]
            .iter()
            .map(|v| vec![*v])
            .collect();
        let ds = Dataset::from_rows(&["edu"], &rows).unwrap();
        let col = ds.col(0);
        let b = h.bind(col).unwrap();
        let code = |v: &str| col.code_of(v).unwrap();
        let vals = [
            code("Bachelors"),
            code("9th"),
            code("Masters"),
            code("HS-grad"),
        ];
        let counts = [10, 3, 2, 1];
        let (mut o, mut c) = (Vec::new(), Vec::new());
        order(&Kind::Hierarchy(&b), &vals, &counts, &mut o, &mut c);
        // Higher (12 rows) | Secondary (4): one cut, between the groups.
        assert_eq!(c, vec![2]);
        let left: Vec<u32> = o[..2].iter().map(|&i| vals[i as usize]).collect();
        assert!(left.contains(&code("Bachelors")) && left.contains(&code("Masters")));
        // Inside Secondary the LCA is Secondary: its leaves are the children.
        let vals = [code("9th"), code("HS-grad"), code("10th")];
        order(&Kind::Hierarchy(&b), &vals, &[3, 1, 1], &mut o, &mut c);
        assert_eq!(c, vec![1, 2]);
    }
}
