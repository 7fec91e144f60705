//! Property tests of LGB on random tables with random cell masks:
//! whatever LGB_MDP and LGB_NCP publish passes the verifier (Corollary 3,
//! local-bucket t-closeness, the LGB structure), suppresses exactly the QI
//! subsets smaller than k and buckets exactly the published sensitive
//! cells; and a refusal happens only when an l-diversity attribute's
//! published sensitive cells are, counted here, not l-eligible.
//!
//! Each case draws its table from a seeded ChaCha8Rng (the seed is the
//! proptest input): n rows, 1–3 QIs and 1–2 semi-sensitive attributes of
//! small numeric or categorical domains with a few missing cells, a
//! sensitive attribute half of the time, each semi-sensitive attribute's
//! sensitive cells drawn with its own density, and half of the time
//! t-closeness for one attribute.

use crate::common;

use std::collections::HashMap;

use anonlab::algorithms::lgb::{lgb_mdp, lgb_ncp};
use anonlab::algorithms::{Options, Request};
use anonlab::data::Dataset;
use anonlab::error::Error;
use anonlab::progress::Progress;
use fixedbitset::FixedBitSet;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct Case {
    ds: Dataset,
    qi: Vec<usize>,
    semi: Vec<(usize, FixedBitSet)>,
    sensitive: Vec<usize>,
    t_closeness: Vec<(usize, f64)>,
}

fn case(seed: u64, n: usize) -> Case {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let d = rng.random_range(1..4);
    let s = rng.random_range(1..3);
    let full = usize::from(rng.random_bool(0.5));
    let cols = d + s + full;
    let numeric: Vec<bool> = (0..cols).map(|_| rng.random_bool(0.5)).collect();
    let domains: Vec<u32> = (0..cols).map(|_| rng.random_range(1..8)).collect();
    let cells: Vec<Vec<String>> = (0..n)
        .map(|_| {
            (0..cols)
                .map(|a| {
                    if rng.random_bool(0.03) {
                        return String::new();
                    }
                    let v = rng.random_range(0..domains[a]);
                    if numeric[a] {
                        (v * 5).to_string()
                    } else {
                        format!("v{v}")
                    }
                })
                .collect()
        })
        .collect();
    let names: Vec<String> = (0..cols).map(|c| format!("a{c}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let rows: Vec<Vec<&str>> = cells
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect();
    let ds = Dataset::from_rows(&names, &rows).unwrap();
    let semi: Vec<(usize, FixedBitSet)> = (d..d + s)
        .map(|c| {
            let density = rng.random_range(0.0..1.0);
            let mut bits = FixedBitSet::with_capacity(n);
            for r in 0..n {
                bits.set(r, rng.random_bool(density));
            }
            (c, bits)
        })
        .collect();
    let sensitive: Vec<usize> = (d + s..cols).collect();
    let t_closeness = if rng.random_bool(0.5) {
        let c = rng.random_range(d..cols);
        vec![(c, rng.random_range(0.0..=1.0))]
    } else {
        vec![]
    };
    Case {
        ds,
        qi: (0..d).collect(),
        semi,
        sensitive,
        t_closeness,
    }
}

/// Whether some l-diversity attribute's published sensitive cells are not
/// l-eligible (fewer than l values, or one on more than 1/l of them).
fn some_attribute_not_eligible(req: &Request<'_>) -> bool {
    let suppressed = common::lgb::rows_of_small_subsets(req);
    let n = req.ds.n_rows();
    let all = {
        let mut b = FixedBitSet::with_capacity(n);
        b.insert_range(..);
        b
    };
    let attributes = req
        .options
        .semi_sensitive
        .iter()
        .map(|(c, b)| (*c, b))
        .chain(req.sensitive.iter().map(|&c| (c, &all)));
    attributes
        .filter(|(c, _)| !req.options.t_closeness.iter().any(|(t, _)| t == c))
        .any(|(c, bits)| {
            let col = req.ds.col(c);
            let mut counts: HashMap<u32, usize> = HashMap::new();
            for r in bits
                .ones()
                .filter(|r| suppressed.binary_search(&(*r as u32)).is_err())
            {
                *counts.entry(col.code(r)).or_default() += 1;
            }
            let total: usize = counts.values().sum();
            let most = counts.values().copied().max().unwrap_or(0);
            let l = req.l as usize;
            total > 0 && (counts.len() < l || most * l > total)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn lgb_releases_pass_the_verifier(
        seed in any::<u64>(), n in 1usize..80, k in 1u32..5, l in 1u32..4,
    ) {
        let c = case(seed, n);
        let req = Request {
            ds: &c.ds,
            qi: c.qi.clone(),
            sensitive: c.sensitive.clone(),
            identifiers: vec![],
            k,
            l,
            seed,
            options: Options {
                semi_sensitive: c.semi.clone(),
                t_closeness: c.t_closeness.clone(),
                ..Default::default()
            },
        };
        let refused = some_attribute_not_eligible(&req);
        for (name, run) in [("lgb-mdp", lgb_mdp as fn(&Request<'_>, &Progress) -> _), ("lgb-ncp", lgb_ncp)] {
            if k as usize > n {
                prop_assert!(run(&req, &Progress::new()).is_err());
                continue;
            }
            match run(&req, &Progress::new()) {
                Ok(r) => {
                    prop_assert!(!refused, "{name} published what is not l-eligible");
                    if let Err(e) = common::lgb::check_release(&r, &req) {
                        return Err(TestCaseError::fail(format!("{name}: {e}")));
                    }
                }
                Err(Error::Invalid { msg, .. }) => {
                    prop_assert!(
                        msg.contains("eligible") || msg.contains("fewer than l"),
                        "{name} refused: {msg}"
                    );
                    prop_assert!(refused, "{name} refused eligible cells: {msg}");
                }
                Err(e) => return Err(TestCaseError::fail(format!("{name}: {e}"))),
            }
        }
    }
}
