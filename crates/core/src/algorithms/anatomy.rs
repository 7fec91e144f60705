//! Anatomy: l-diverse bucketization (Xiao & Tao, "Anatomy: Simple and
//! Effective Privacy Preservation", VLDB 2006, Section 4: the `Anatomize`
//! algorithm with its group-creation and residue-assignment steps), the
//! bucketization baseline of the cross-bucket paper.
//!
//! Rows are hashed by their sensitive value. While at least l hash buckets
//! are non-empty, a QI-group is formed from one row of each of the l
//! largest buckets. What is left (at most l − 1 rows, all with different
//! values, when the table is l-eligible — the paper's lemma) is the
//! residue: each residue row joins a QI-group that does not yet hold its
//! value, so every group keeps l or more rows with no value twice.
//!
//! Published: each QI-group is an equivalence group whose cells are
//! [`Cell::Original`] — the quasi-identifiers are released exactly, as the
//! paper's QI table — and, with the same rows, a bucket: the paper's
//! sensitive table, where the group's sensitive values are detached from
//! its rows. So p(t, s) ≤ 1/l for every row ([`Guarantee::BucketLDiversity`]).
//! No k-anonymity is claimed: a row unique on its QI values stays unique in
//! the release, so Anatomy protects the sensitive value, not the identity.
//!
//! Choices where the paper leaves room:
//!
//! - "Remove an arbitrary tuple" from a hash bucket: the rows of each
//!   bucket are shuffled once with `ChaCha8Rng` seeded from the request's
//!   seed (buckets in code order), then taken from the end. Another seed
//!   gives another valid release; the seed is in `params.seed`.
//! - Ties among the l largest buckets go to the smaller code (value order
//!   of the dictionary).
//! - A residue row goes to a group drawn uniformly, with the same seeded
//!   generator, among the groups not holding its value; residue rows are
//!   placed in code order. If no such group exists (impossible for an
//!   l-eligible table), the run fails rather than break the guarantee.
//! - A missing sensitive value is a value of its own (as in `privacy`).
//! - The parameters are checked with `check_l` (l ≤ distinct values, no
//!   value on more than n/l rows); k is not used.
//!
//! Cost: O(n log m) for m distinct sensitive values (an ordered set keeps
//! the buckets by size).

use std::cmp::Reverse;
use std::collections::BTreeSet;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::{Error, Parameter, Result};
use crate::progress::Progress;
use crate::release::{Bucket, Cell, EquivalenceGroup, Guarantee, Release, ReleaseParams};

use super::{check_l, Algorithm, Needs, Request, BUCKETIZATION};

/// Anatomy (`anatomy`): l-diverse buckets, exact QI values.
#[derive(Debug, Clone, Copy)]
pub struct Anatomy;

/// Rows between two cancellation checks.
const CHECK_EVERY: usize = 1024;

impl Algorithm for Anatomy {
    fn id(&self) -> &'static str {
        "anatomy"
    }

    fn name(&self) -> &'static str {
        "Anatomy (Xiao & Tao 2006)"
    }

    fn needs(&self) -> Needs {
        BUCKETIZATION
    }

    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        let s = check_l(req)?;
        let ds = req.ds;
        let col = ds.col(s);
        let l = req.l as usize;
        progress.set_total(ds.n_rows() as u64);
        progress.check()?;

        let mut rng = ChaCha8Rng::seed_from_u64(req.seed);
        let mut hash: Vec<Vec<u32>> = vec![Vec::new(); col.code_space()];
        for (row, &code) in col.codes().iter().enumerate() {
            hash[code as usize].push(row as u32);
        }
        for bucket in &mut hash {
            bucket.shuffle(&mut rng);
        }
        // Non-empty buckets, largest first, ties to the smaller code.
        let mut by_size: BTreeSet<(Reverse<usize>, u32)> = hash
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.is_empty())
            .map(|(code, b)| (Reverse(b.len()), code as u32))
            .collect();

        let mut groups: Vec<Vec<u32>> = Vec::with_capacity(ds.n_rows() / l.max(1));
        let mut taken = Vec::with_capacity(l);
        while by_size.len() >= l {
            if groups.len().is_multiple_of(CHECK_EVERY) {
                progress.check()?;
            }
            taken.clear();
            taken.extend((0..l).filter_map(|_| by_size.pop_first()));
            let mut group = Vec::with_capacity(l + 1);
            for &(Reverse(size), code) in &taken {
                if let Some(row) = hash[code as usize].pop() {
                    group.push(row);
                }
                if size > 1 {
                    by_size.insert((Reverse(size - 1), code));
                }
            }
            progress.advance(group.len() as u64);
            groups.push(group);
        }
        progress.check()?;

        let residue: Vec<u32> = hash.iter().flatten().copied().collect();
        for row in residue {
            let code = col.code(row as usize);
            let Some(g) = place_residue(&groups, code, col.codes(), &mut rng) else {
                return Err(Error::invalid(Parameter::L, format!(
                    "Anatomy could not place row {} ('{}' = '{}'): every QI-group already holds that value; the data are not {l}-eligible",
                    row + 1,
                    col.name(),
                    col.display(code)
                )));
            };
            groups[g].push(row);
            progress.advance(1);
        }

        let mut release = new_release(self.id(), req);
        release.groups.reserve(groups.len());
        release.buckets.reserve(groups.len());
        for rows in groups {
            push_bucketized(&mut release, rows);
        }
        release.claims.push(Guarantee::BucketLDiversity {
            attribute: col.name().to_string(),
            l: req.l,
        });
        Ok(release)
    }
}

/// An empty release of a bucketizing algorithm (Anatomy and the ARP
/// family): the request's attributes, its l and its seed.
pub(super) fn new_release(id: &str, req: &Request<'_>) -> Release {
    let mut release = Release::new(id, req.ds, req.qi.clone(), req.sensitive.clone());
    req.drop_identifiers(&mut release);
    release.params = ReleaseParams {
        k: None,
        l: Some(req.l),
        t: None,
        seed: Some(req.seed),
    };
    release
}

/// One block published by bucketization: exact QI values (the QI table)
/// and, with the same rows, one bucket (the sensitive table).
pub(super) fn push_bucketized(release: &mut Release, mut rows: Vec<u32>) {
    rows.sort_unstable();
    release.buckets.push(Bucket { rows: rows.clone() });
    let cells = vec![Cell::Original; release.quasi_identifiers.len()];
    release.groups.push(EquivalenceGroup { rows, cells });
}

/// A group, drawn uniformly with `rng`, none of whose rows has sensitive
/// code `code`; `None` when every group holds it.
fn place_residue(
    groups: &[Vec<u32>],
    code: u32,
    codes: &[u32],
    rng: &mut ChaCha8Rng,
) -> Option<usize> {
    let free: Vec<usize> = groups
        .iter()
        .enumerate()
        .filter(|(_, g)| g.iter().all(|&r| codes[r as usize] != code))
        .map(|(i, _)| i)
        .collect();
    (!free.is_empty()).then(|| free[rng.random_range(0..free.len())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use proptest::prelude::*;

    fn table(diseases: &[&str]) -> Dataset {
        let ages: Vec<String> = (0..diseases.len()).map(|i| (20 + i).to_string()).collect();
        let rows: Vec<Vec<&str>> = diseases
            .iter()
            .zip(&ages)
            .map(|(d, a)| vec![&**a, *d])
            .collect();
        Dataset::from_rows(&["age", "disease"], &rows).unwrap()
    }

    fn req(ds: &Dataset, l: u32, seed: u64) -> Request<'_> {
        Request {
            ds,
            qi: vec![0],
            sensitive: vec![1],
            identifiers: vec![],
            k: 1,
            l,
            seed,
            options: Default::default(),
        }
    }

    /// The sensitive values of each group, sorted.
    fn values(ds: &Dataset, r: &Release) -> Vec<String> {
        r.groups
            .iter()
            .map(|g| {
                let mut v: Vec<&str> = g
                    .rows
                    .iter()
                    .map(|&x| ds.col(1).display(ds.col(1).code(x as usize)))
                    .collect();
                v.sort_unstable();
                v.concat()
            })
            .collect()
    }

    #[test]
    fn largest_buckets_first() {
        // a×3 b×2 c×2 d×1, l = 2 (3·2 ≤ 8): sizes (3,2,2,1) take a,b →
        // (2,1,2,1) take a,c → (1,1,1,1) take a,b → (0,0,1,1) take c,d.
        let ds = table(&["a", "a", "a", "b", "b", "c", "c", "d"]);
        let p = Progress::new();
        let r = Anatomy.run(&req(&ds, 2, 1), &p).unwrap();
        assert_eq!(values(&ds, &r), ["ab", "ac", "ab", "cd"]);
        assert_eq!(r.buckets.len(), 4);
        for (g, b) in r.groups.iter().zip(&r.buckets) {
            assert_eq!(g.rows, b.rows);
            assert_eq!(g.cells, vec![Cell::Original]);
        }
        assert_eq!(
            r.claims,
            vec![Guarantee::BucketLDiversity {
                attribute: "disease".into(),
                l: 2
            }]
        );
        assert_eq!(r.params.seed, Some(1));
        assert_eq!(r.params.l, Some(2));
        assert_eq!(p.fraction(), 1.0);
    }

    #[test]
    fn residue_joins_a_group_without_its_value() {
        // a×2 b×2 c×2 d×1, l = 3: take a,b,c twice; d is left and joins one
        // of the two groups, neither of which holds d.
        let ds = table(&["a", "a", "b", "b", "c", "c", "d"]);
        let mut seen = BTreeSet::new();
        for seed in 0..16 {
            let r = Anatomy.run(&req(&ds, 3, seed), &Progress::new()).unwrap();
            let v = values(&ds, &r);
            assert!(v == ["abc", "abcd"] || v == ["abcd", "abc"], "{v:?}");
            seen.insert(v);
        }
        // The seed decides which group gets it.
        assert_eq!(seen.len(), 2);
    }

    #[test]
    fn another_seed_another_valid_release() {
        let ds = table(&["a", "a", "a", "a", "b", "b", "b", "b"]);
        let first = Anatomy.run(&req(&ds, 2, 0), &Progress::new()).unwrap();
        let again = Anatomy.run(&req(&ds, 2, 0), &Progress::new()).unwrap();
        assert_eq!(first, again);
        let differs = (1..10).any(|seed| {
            Anatomy
                .run(&req(&ds, 2, seed), &Progress::new())
                .unwrap()
                .groups
                != first.groups
        });
        assert!(differs);
    }

    #[test]
    fn no_free_group_is_an_error_not_a_broken_group() {
        let codes = [0, 1, 0, 1];
        let groups = vec![vec![0, 1], vec![2, 3]];
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        assert_eq!(place_residue(&groups, 0, &codes, &mut rng), None);
        assert!(place_residue(&groups, 2, &codes, &mut rng).is_some());
    }

    #[test]
    fn refusals_and_cancellation() {
        let ds = table(&["a", "a", "a", "b"]);
        let e = Anatomy.run(&req(&ds, 2, 0), &Progress::new()).unwrap_err();
        assert!(
            e.to_string().contains("'a'") && e.to_string().contains("3 of 4"),
            "{e}"
        );
        let e = Anatomy.run(&req(&ds, 3, 0), &Progress::new()).unwrap_err();
        assert!(e.to_string().contains("2 distinct values"), "{e}");
        let ds = table(&["a", "b", "a", "b"]);
        let p = Progress::new();
        p.cancel();
        assert!(matches!(
            Anatomy.run(&req(&ds, 2, 0), &p),
            Err(Error::Cancelled)
        ));
    }

    proptest! {
        #[test]
        fn buckets_are_l_diverse(
            values in prop::collection::vec(0u8..8, 1..120), l in 1u32..6, seed in any::<u64>()
        ) {
            // Skewed: small codes are more frequent; 7 is a missing cell.
            let names: Vec<String> = values
                .iter()
                .map(|&v| if v == 7 { String::new() } else { ((b'a' + v.min(v / 2 + 1)) as char).to_string() })
                .collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let ds = table(&names);
            let q = req(&ds, l, seed);
            let r = match Anatomy.run(&q, &Progress::new()) {
                Ok(r) => r,
                Err(Error::Invalid { .. }) => {
                    prop_assert!(check_l(&q).is_err());
                    return Ok(());
                }
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
            };
            let v = crate::privacy::verify(&r, &ds);
            prop_assert!(v.all_hold(), "{}", v);
            prop_assert!(r.bucket_of_row().iter().all(Option::is_some));
            prop_assert_eq!(r.buckets.iter().map(|b| b.rows.len()).sum::<usize>(), ds.n_rows());
            for b in &r.buckets {
                prop_assert!(b.rows.len() >= l as usize);
                let counts = crate::privacy::counts_of_rows(&b.rows, ds.col(1));
                prop_assert_eq!(counts.len(), b.rows.len());
            }
        }
    }
}
