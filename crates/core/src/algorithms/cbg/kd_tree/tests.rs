use super::super::tests::{small, table};
use super::*;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// The remaining row of value `v` under `node` nearest to the codes `q`
/// by a scan of every position: the least (distance, row) with a
/// distance below `limit`, which `KdIndex::nearest` must return.
fn nearest_by_scan(ix: &KdIndex, node: u32, anchor: u32, v: u32, limit: u64) -> Option<(u64, u32)> {
    let n = ix.nodes[node as usize];
    let q = ix.query(anchor);
    (n.start as usize..n.end as usize)
        .filter(|&pos| ix.value[pos] == v)
        .map(|pos| (ix.distance_at(&q, pos), ix.perm[pos]))
        .filter(|&(d, _)| d < limit)
        .min()
}

/// `nearest` returns exactly the row a scan finds — ties included,
/// which decide the release — with and without the per-value bounds, on
/// data full of equal distances, after removals, from subtrees of every
/// size and under limits the searches meet exactly.
#[test]
fn nearest_matches_a_scan() {
    let mut stack = Vec::new();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let rows: Vec<Vec<String>> = (0..3000)
        .map(|_| {
            vec![
                rng.random_range(20..40u32).to_string(),
                ["a", "b", "c", "d", "e"][rng.random_range(0..5)].to_string(),
                rng.random_range(0..6u32).to_string(),
                ["x", "y", "z", "w", "v"][rng.random_range(0..5)].to_string(),
            ]
        })
        .collect();
    let ds = table(&["age", "g", "h", "s"], &rows);
    let mut space = Space::new(&ds, &[0, 1, 2]);
    let value = ds.col(3).codes().to_vec();
    let n_values = 5;
    let mut index = KdIndex::build((0..3000).collect(), &mut space, &value, n_values, 16);
    assert!(!index.value_bounds.is_empty());
    assert!(index.metric.offset.iter().any(|&o| o != NONE) && !index.metric.coded.is_empty());
    for r in 0..3000u32 {
        if rng.random_range(0..10) < 3 {
            index.remove(r);
        }
    }
    let (mut ties, mut limited) = (0, 0);
    for with_value_bounds in [true, false] {
        if !with_value_bounds {
            index.value_bounds.clear();
        }
        for _ in 0..2000 {
            let anchor = rng.random_range(0..3000);
            let v = rng.random_range(0..n_values as u32);
            // A random ancestor of the anchor's leaf, the root half the
            // time.
            let mut top = index.leaf_at[index.pos_of[anchor as usize] as usize];
            let climb = if rng.random_bool(0.5) {
                usize::MAX
            } else {
                rng.random_range(0..12)
            };
            for _ in 0..climb {
                match index.nodes[top as usize].parent {
                    NONE => break,
                    p => top = p,
                }
            }
            let free = nearest_by_scan(&index, top, anchor, v, u64::MAX);
            assert_eq!(index.nearest(&mut stack, top, anchor, v, u64::MAX), free);
            // The fixed-point distance is `Space::distance`.
            if let Some((d, row)) = free {
                assert_eq!(d, space.distance(anchor, row));
            }
            let Some((d, _)) = free else { continue };
            // Rows at the same distance as the one returned: the tie
            // the row order settles.
            let n = index.nodes[top as usize];
            let q = index.query(anchor);
            let tied = (n.start..n.end)
                .filter(|&pos| {
                    index.value[pos as usize] == v && index.distance_at(&q, pos as usize) == d
                })
                .count();
            ties += usize::from(tied > 1);
            for limit in [d, d + 1, d / 2] {
                limited += 1;
                assert_eq!(
                    index.nearest(&mut stack, top, anchor, v, limit),
                    nearest_by_scan(&index, top, anchor, v, limit)
                );
            }
        }
    }
    assert!(
        ties > 500 && limited > 1000,
        "{ties} ties, {limited} limited"
    );
}

/// The tree's layout inside a node does not reach the release: built
/// from the rows in another order, the same searches and draws give the
/// same rows.
#[test]
fn results_do_not_depend_on_the_row_order_of_the_build() {
    let mut stack = Vec::new();
    let ds = small();
    let mut space = Space::new(&ds, &[0, 1]);
    let value = ds.col(2).codes().to_vec();
    let forward = KdIndex::build((0..60).collect(), &mut space, &value, 6, 16);
    let mut shuffled: Vec<u32> = (0..60).collect();
    shuffled.shuffle(&mut ChaCha8Rng::seed_from_u64(5));
    let backward = KdIndex::build(shuffled, &mut space, &value, 6, 16);
    assert_ne!(forward.perm, backward.perm);
    for anchor in 0..60 {
        for v in 0..6 {
            assert_eq!(
                forward.nearest(&mut stack, 0, anchor, v, u64::MAX),
                backward.nearest(&mut stack, 0, anchor, v, u64::MAX)
            );
        }
    }
    let (mut a, mut b) = (ChaCha8Rng::seed_from_u64(3), ChaCha8Rng::seed_from_u64(3));
    for v in 0..6 {
        assert_eq!(forward.sample(0, v, &mut a), backward.sample(0, v, &mut b));
    }
    assert_eq!(forward.rows_of(0), backward.rows_of(0));
}
