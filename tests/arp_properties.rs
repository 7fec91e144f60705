//! ARP and its baselines: Properties 2–4 of the refining-partition
//! paper as property tests, the verifier on every output, Property 8's
//! reconstruction error, and the paper's setting on Adult.

use crate::common;

use anonlab::algorithms::arp::{initial_partition, refine, refine_block, Arp};
use anonlab::algorithms::{by_id, check_l, Algorithm, Request};
use anonlab::data::Dataset;
use anonlab::metrics::correspondence_loss;
use anonlab::privacy::verify;
use anonlab::progress::Progress;
use anonlab::release::{Bucket, Cell, EquivalenceGroup, Release};
use anonlab::session::Session;
use anonlab::Error;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use common::{adult, occupation_request, ADULT_QI7};

const IDS: [&str; 4] = ["arp", "arp-gen", "aip", "at"];

/// A table of two NSAs (a: 4 values, b: 3 values) and a skewed SA s; a
/// row's values come from one number so shrinking keeps the table small.
fn table(cells: &[(u8, u8, u8)]) -> Dataset {
    let rows: Vec<Vec<String>> = cells
        .iter()
        .map(|&(a, b, s)| {
            vec![
                format!("a{}", a % 4),
                format!("b{}", b % 3),
                // Small values are more frequent.
                format!("s{}", s.min(s / 2 + 1)),
            ]
        })
        .collect();
    let rows: Vec<Vec<&str>> = rows
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect();
    Dataset::from_rows(&["a", "b", "s"], &rows).unwrap()
}

fn request(ds: &Dataset, l: u32, seed: u64) -> Request<'_> {
    Request {
        ds,
        qi: vec![0, 1],
        sensitive: vec![2],
        identifiers: vec![],
        k: 1,
        l,
        seed,
        options: Default::default(),
    }
}

fn distinct(rows: &[u32], sa: &[u32]) -> usize {
    let mut v: Vec<u32> = rows.iter().map(|&r| sa[r as usize]).collect();
    v.sort_unstable();
    v.dedup();
    v.len()
}

proptest! {
    /// Properties 2 and 3 on one block meeting the demands of ℓ-diversity:
    /// ⌊|B|/ℓ⌋ sub-blocks of ℓ distinct values; |B| mod ℓ residues, one per
    /// non-empty hash bucket (distinct values); each residue has a
    /// sub-block without its value.
    #[test]
    fn properties_2_and_3(counts in prop::collection::vec(0u32..6, 1..10), l in 1usize..6, seed in any::<u64>()) {
        let n: u32 = counts.iter().sum();
        let eligible = counts.iter().filter(|&&c| c > 0).count() >= l
            && counts.iter().all(|&c| c as usize * l <= n as usize);
        if !eligible {
            return Ok(());
        }
        let sa: Vec<u32> = counts.iter().enumerate().flat_map(|(v, &c)| std::iter::repeat_n(v as u32, c as usize)).collect();
        let rows: Vec<u32> = (0..n).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (subs, residues) = refine_block(&rows, &sa, l, &mut rng);
        prop_assert_eq!(subs.len(), n as usize / l);
        for s in &subs {
            prop_assert_eq!(s.len(), l);
            prop_assert_eq!(distinct(s, &sa), l);
        }
        prop_assert_eq!(residues.len(), n as usize % l);
        prop_assert_eq!(distinct(&residues, &sa), residues.len());
        for &t in &residues {
            prop_assert!(subs.iter().any(|s| s.iter().all(|&x| sa[x as usize] != sa[t as usize])));
        }
        let mut all: Vec<u32> = subs.concat();
        all.extend(&residues);
        all.sort_unstable();
        prop_assert_eq!(all, rows);
    }

    /// Algorithm 1 gives blocks meeting the demands; Property 4: every last
    /// residue joins a sub-block of its own initial block that lacks its
    /// value; the sub-blocks hold distinct values and every row once; and
    /// Property 8's total reconstruction error is (n − r)(1 − 1/ℓ) + r.
    #[test]
    fn property_4_and_property_8(cells in prop::collection::vec((0u8..8, 0u8..8, 0u8..10), 1..150), l in 1u32..5, seed in any::<u64>()) {
        let ds = table(&cells);
        let req = request(&ds, l, seed);
        if check_l(&req).is_err() {
            return Ok(());
        }
        let sa = ds.col(2).codes();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let p = Progress::new();
        let ip = initial_partition(&req, 2, &mut rng, &p).unwrap();
        let mut block_of = vec![usize::MAX; ds.n_rows()];
        for (b, range) in ip.blocks.iter().enumerate() {
            let rows = &ip.rows[range.clone()];
            prop_assert!(distinct(rows, sa) >= l as usize);
            for &r in rows {
                block_of[r as usize] = b;
            }
        }
        prop_assert!(block_of.iter().all(|&b| b != usize::MAX));
        let refined = refine(&ds, 2, &ip, l as usize, &mut rng, &p).unwrap();
        for &(t, j) in &refined.inserted {
            prop_assert_eq!(refined.origin[j], Some(block_of[t as usize]));
        }
        let mut all: Vec<u32> = Vec::new();
        for s in &refined.sub_blocks {
            prop_assert!(s.len() >= l as usize);
            prop_assert_eq!(distinct(s, sa), s.len());
            all.extend(s);
        }
        all.sort_unstable();
        prop_assert_eq!(all, (0..ds.n_rows() as u32).collect::<Vec<_>>());

        // The release ARP publishes is this partition (same seed, same steps).
        let release = Arp::anatomy().run(&req, &p).unwrap();
        let mut published: Vec<Vec<u32>> = release.buckets.iter().map(|b| b.rows.clone()).collect();
        let mut expected: Vec<Vec<u32>> = refined.sub_blocks.iter().map(|s| { let mut s = s.clone(); s.sort_unstable(); s }).collect();
        published.sort();
        expected.sort();
        prop_assert_eq!(published, expected);
        let c = correspondence_loss(&release, &ds).unwrap().unwrap();
        let (n, r, lf) = (ds.n_rows() as f64, refined.inserted.len() as f64, f64::from(l));
        let property_8 = (n - r) * (1.0 - 1.0 / lf) + r;
        prop_assert!((c.reconstruction_error - property_8).abs() < 1e-6 * n.max(1.0), "{} vs {}", c.reconstruction_error, property_8);
        prop_assert!(c.reconstruction_error + 1e-9 >= c.re_lower_bound.unwrap());
        prop_assert!((0.0..=1.0).contains(&c.glp));
    }

    /// Every output of ARP, ARP-gen, AIP and AT passes the independent
    /// verifier; a refusal is a parameter error exactly when the table
    /// does not meet the demands of ℓ-diversity.
    #[test]
    fn every_output_verifies(cells in prop::collection::vec((0u8..8, 0u8..8, 0u8..10), 1..120), l in 1u32..5, seed in any::<u64>()) {
        let ds = table(&cells);
        let req = request(&ds, l, seed);
        for id in IDS {
            match by_id(id).unwrap().run(&req, &Progress::new()) {
                Ok(r) => {
                    let v = verify(&r, &ds);
                    prop_assert!(v.all_hold(), "{}: {}", id, v);
                    prop_assert_eq!(r.published_rows(), ds.n_rows());
                }
                Err(Error::Invalid { .. }) => prop_assert!(check_l(&req).is_err()),
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
            }
        }
    }
}

#[test]
fn arp_and_its_baselines_verify_on_the_demo() {
    let s = Session::demo().unwrap();
    let ds = &s.dataset;
    let req = Request {
        ds,
        qi: ["sex", "age", "zip"]
            .iter()
            .map(|n| ds.column_index(n).unwrap())
            .collect(),
        sensitive: vec![ds.column_index("disease").unwrap()],
        identifiers: vec![ds.column_index("name").unwrap()],
        k: 3,
        l: 3,
        seed: 7,
        options: Default::default(),
    };
    for id in IDS {
        let r = by_id(id).unwrap().run(&req, &Progress::new()).unwrap();
        let v = verify(&r, ds);
        assert!(v.all_hold(), "{id}: {v}");
    }
}

/// The paper's setting on Adult (occupation as SA, the other 7 attributes
/// as NSAs): every release verifies; ARP's reconstruction error is within
/// 0.1 % of Property 8's bound; at ℓ = 2 ARP keeps more correspondences
/// (lower GLP) than AT and AIP — the paper's ordering of ARP against its
/// baselines, measured here (figures in EXPERIMENTS.md, "Issue 6").
#[test]
fn adult_paper_setting() {
    let Some(ds) = adult() else { return };
    for l in [2, 5] {
        let req = occupation_request(&ds, &ADULT_QI7, 1, l, 42);
        let mut glp = Vec::new();
        for id in ["arp", "aip", "at"] {
            let r = by_id(id).unwrap().run(&req, &Progress::new()).unwrap();
            let v = verify(&r, &ds);
            assert!(v.all_hold(), "{id} l={l}: {v}");
            let c = correspondence_loss(&r, &ds).unwrap().unwrap();
            if id == "arp" {
                assert!(c.re_ratio().unwrap() < 1.001, "{c:?}");
            }
            glp.push(c.glp);
        }
        if l == 2 {
            assert!(glp[0] < glp[2] && glp[0] < glp[1], "l=2: {glp:?}");
        }
    }
}

/// `metrics::glp` against figures it does not compute: on Adult
/// (occupation, the 7 NSAs), `tests/golden/adult_arp_glp.py` builds
/// bucketized releases by a rule of its own (Anatomy's bucketization made
/// deterministic: l rows of the l occupations with most rows left, first in
/// file order; the rows left over each join the first bucket without their
/// occupation) and measures GLP and RE in plain Python. This test builds
/// the same releases by the same rule and checks anonlab's figures.
#[test]
fn adult_glp_golden() {
    let Some(ds) = adult() else { return };
    let golden: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/golden/adult_arp_glp.json"
        ))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(golden.len(), 2);
    for g in golden {
        let l = g["l"].as_u64().unwrap() as usize;
        let req = occupation_request(&ds, &ADULT_QI7, 1, l as u32, 0);
        let r = first_rows_bucketization(&req, l);
        assert_eq!(
            r.buckets.len() as u64,
            g["buckets"].as_u64().unwrap(),
            "l={l}"
        );
        let c = correspondence_loss(&r, &ds).unwrap().unwrap();
        assert_eq!(c.records as u64, g["records"].as_u64().unwrap());
        assert!(
            (c.glp - g["glp"].as_f64().unwrap()).abs() < 1e-9,
            "l={l}: {c:?}"
        );
        assert_eq!(
            c.records_with_loss as u64,
            g["records_with_loss"].as_u64().unwrap()
        );
        let re = g["reconstruction_error"].as_f64().unwrap();
        assert!((c.reconstruction_error - re).abs() < 1e-6, "l={l}: {c:?}");
    }
}

/// The golden script's release: while l values of the sensitive attribute
/// have rows left, a bucket takes the first remaining row of each of the l
/// values with most rows left (ties: the smaller value's text); each row
/// left over joins the first bucket without its value (else the first).
/// QIs published exactly.
fn first_rows_bucketization(req: &Request<'_>, l: usize) -> Release {
    use std::collections::VecDeque;
    let col = req.ds.col(req.sensitive[0]);
    let (codes, names) = (col.codes(), col.dictionary());
    let mut left: Vec<VecDeque<u32>> = vec![VecDeque::new(); names.len() + 1];
    for (row, &c) in codes.iter().enumerate() {
        left[c as usize].push_back(row as u32);
    }
    let name = |c: usize| names.get(c).map_or("", |n| &**n);
    let mut buckets: Vec<Vec<u32>> = Vec::new();
    loop {
        let mut present: Vec<usize> = (0..left.len()).filter(|&c| !left[c].is_empty()).collect();
        if present.len() < l {
            break;
        }
        present.sort_by(|&a, &b| left[b].len().cmp(&left[a].len()).then(name(a).cmp(name(b))));
        buckets.push(
            present[..l]
                .iter()
                .map(|&c| left[c].pop_front().unwrap())
                .collect(),
        );
    }
    let mut rest: Vec<u32> = left.into_iter().flatten().collect();
    rest.sort_unstable();
    for row in rest {
        let holds = |b: &Vec<u32>| b.iter().any(|&r| codes[r as usize] == codes[row as usize]);
        let b = buckets.iter().position(|b| !holds(b)).unwrap_or(0);
        buckets[b].push(row);
    }
    let mut release = Release::new("first-rows", req.ds, req.qi.clone(), req.sensitive.clone());
    for mut rows in buckets {
        rows.sort_unstable();
        release.buckets.push(Bucket { rows: rows.clone() });
        let cells = vec![Cell::Original; req.qi.len()];
        release.groups.push(EquivalenceGroup { rows, cells });
    }
    release
}
