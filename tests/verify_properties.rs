//! Property tests of the verifier, breach probability, the linkage attack and
//! the query bounds on random tables and random releases (STYLE.md, habit
//! 11): the verifier accepts a claim exactly when a brute-force reading of
//! its definition holds; breach probability and Pr(re-id) agree with the
//! paper's formulas evaluated pair by pair; every risk lies in [0, 1] and
//! Pr(re-id) ≤ 1/k; query bounds contain the actual answer; and every
//! registered algorithm's release passes the verifier.
//!
//! Each case draws its table and release from a seeded ChaCha8Rng (the seed
//! is the proptest input, so a failure names it): n rows, 1–3 QIs of small
//! numeric or categorical domains with some missing cells, a sensitive
//! attribute with optional skew, random groups with truthful cells (the
//! covering cell, `Original`, a wider interval or set, or suppressed), some
//! suppressed rows, and optionally random buckets.

use std::collections::{BTreeMap, BTreeSet};

use anonlab::algorithms::{registry, Request};
use anonlab::data::Dataset;
use anonlab::error::Error;
use anonlab::metrics::{generate_queries, Aggregate, ProbabilisticEngine, QueryEngine};
use anonlab::privacy::verify;
use anonlab::progress::Progress;
use anonlab::release::{Bucket, Cell, EquivalenceGroup, Guarantee, Release};
use anonlab::risk::{breach_probability, linkage_attack};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct Case {
    ds: Dataset,
    release: Release,
    sensitive: usize,
}

/// A random table of `n` rows: QI columns 0..d, the sensitive column d.
/// A numeric sensitive column (`numeric_sensitive`) holds the same draws as
/// numbers, for SUM queries.
fn table(rng: &mut ChaCha8Rng, n: usize, d: usize, numeric_sensitive: bool) -> Dataset {
    let mut names: Vec<String> = (0..d).map(|a| format!("q{a}")).collect();
    names.push("s".into());
    let numeric: Vec<bool> = (0..d).map(|_| rng.random_bool(0.5)).collect();
    let domains: Vec<u32> = (0..=d).map(|_| rng.random_range(1..7)).collect();
    let skew = rng.random_bool(0.3);
    let cells: Vec<Vec<String>> = (0..n)
        .map(|_| {
            let mut row: Vec<String> = (0..d)
                .map(|a| {
                    if rng.random_bool(0.05) {
                        return String::new();
                    }
                    let v = rng.random_range(0..domains[a]);
                    if numeric[a] {
                        (v * 10).to_string()
                    } else {
                        format!("c{v}")
                    }
                })
                .collect();
            let s = if skew && rng.random_bool(0.5) {
                0
            } else {
                rng.random_range(0..domains[d] + 1)
            };
            row.push(if rng.random_bool(0.05) {
                String::new()
            } else if numeric_sensitive {
                (i64::from(s) * 7 - 10).to_string()
            } else {
                format!("s{s}")
            });
            row
        })
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let rows: Vec<Vec<&str>> = cells
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect();
    Dataset::from_rows(&names, &rows).unwrap()
}

/// A truthful cell for the codes of a group's rows.
fn cell(rng: &mut ChaCha8Rng, ds: &Dataset, col: usize, codes: &[u32]) -> Cell {
    let c = ds.col(col);
    match rng.random_range(0..6) {
        0 => Cell::Original,
        1 => Cell::Suppressed,
        2 => match Cell::covering(c, codes.iter().copied()) {
            Cell::Interval { lo, hi } => Cell::Interval {
                lo: lo.saturating_sub(1),
                hi: (hi + 1).min(c.cardinality().saturating_sub(1) as u32),
            },
            Cell::Set { mut codes, label } => {
                codes.push(rng.random_range(0..c.code_space() as u32));
                codes.sort_unstable();
                codes.dedup();
                Cell::Set { codes, label }
            }
            other => other,
        },
        _ => Cell::covering(c, codes.iter().copied()),
    }
}

fn case(seed: u64, n: usize, d: usize, buckets: bool) -> Case {
    case_with(seed, n, d, buckets, false)
}

fn case_with(seed: u64, n: usize, d: usize, buckets: bool, numeric_sensitive: bool) -> Case {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let ds = table(&mut rng, n, d, numeric_sensitive);
    let qi: Vec<usize> = (0..d).collect();
    let mut release = Release::new("random", &ds, qi, vec![d]);
    let n_groups = rng.random_range(1..=n);
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); n_groups];
    for r in 0..n as u32 {
        if rng.random_bool(0.1) {
            release.suppressed_rows.push(r);
        } else {
            members[rng.random_range(0..n_groups)].push(r);
        }
    }
    for rows in members.into_iter().filter(|m| !m.is_empty()) {
        let cells = (0..d)
            .map(|a| {
                let codes: Vec<u32> = rows.iter().map(|&r| ds.col(a).code(r as usize)).collect();
                cell(&mut rng, &ds, a, &codes)
            })
            .collect();
        release.groups.push(EquivalenceGroup { rows, cells });
    }
    if buckets {
        let published: Vec<u32> = release.groups.iter().flat_map(|g| g.rows.clone()).collect();
        let n_buckets = rng.random_range(1..=published.len().max(1));
        let mut b: Vec<Vec<u32>> = vec![Vec::new(); n_buckets];
        for r in published {
            b[rng.random_range(0..n_buckets)].push(r);
        }
        release.buckets = b
            .into_iter()
            .filter(|rows| !rows.is_empty())
            .map(|rows| Bucket { rows })
            .collect();
    }
    Case {
        ds,
        release,
        sensitive: d,
    }
}

fn group_of(release: &Release) -> Vec<Option<usize>> {
    release
        .group_of_row()
        .into_iter()
        .map(|g| g.map(|g| g as usize))
        .collect()
}

/// Published tuples whose cells contain row t's QI values, by definition.
fn matching_tuples(c: &Case, t: usize) -> Vec<usize> {
    let r = &c.release;
    let group = group_of(r);
    (0..c.ds.n_rows())
        .filter(|&u| {
            group[u].is_some_and(|g| {
                r.quasi_identifiers
                    .iter()
                    .zip(&r.groups[g].cells)
                    .all(|(&col, cell)| {
                        let col = c.ds.col(col);
                        cell.contains(col.code(u), col.code(t))
                    })
            })
        })
        .collect()
}

/// Bucket of each published row, unbucketed rows as buckets of their own
/// (ids from `buckets.len()` up), with the bucket sizes.
fn buckets_of(c: &Case) -> (Vec<Option<usize>>, Vec<Vec<usize>>) {
    let r = &c.release;
    let mut of = vec![None; c.ds.n_rows()];
    let mut rows: Vec<Vec<usize>> = Vec::new();
    for b in &r.buckets {
        for &x in &b.rows {
            of[x as usize] = Some(rows.len());
        }
        rows.push(b.rows.iter().map(|&x| x as usize).collect());
    }
    for (x, g) in group_of(r).into_iter().enumerate() {
        if g.is_some() && of[x].is_none() {
            of[x] = Some(rows.len());
            rows.push(vec![x]);
        }
    }
    (of, rows)
}

/// The paper's Sec. 4.1 formula, evaluated tuple by tuple.
fn brute_breach(c: &Case, t: usize) -> f64 {
    if group_of(&c.release)[t].is_none() {
        return 0.0;
    }
    let s = c.ds.col(c.sensitive);
    let matches = matching_tuples(c, t);
    if matches.is_empty() {
        return 0.0;
    }
    let (of, rows) = buckets_of(c);
    let mut per_bucket: BTreeMap<usize, usize> = BTreeMap::new();
    for &u in &matches {
        *per_bucket.entry(of[u].unwrap()).or_default() += 1;
    }
    let mut p = 0.0;
    for (b, num_t) in per_bucket {
        let num_s = rows[b].iter().filter(|&&x| s.code(x) == s.code(t)).count();
        p += (num_t * num_s) as f64 / (matches.len() * rows[b].len()) as f64;
    }
    p
}

/// Corollary 2 for every published tuple, by definition.
fn brute_corollary_2(c: &Case, l: u32) -> bool {
    let s = c.ds.col(c.sensitive);
    let (of, rows) = buckets_of(c);
    let group = group_of(&c.release);
    (0..c.ds.n_rows()).filter(|&t| group[t].is_some()).all(|t| {
        let matches = matching_tuples(c, t);
        let mut per_bucket: BTreeMap<usize, usize> = BTreeMap::new();
        for &u in &matches {
            *per_bucket.entry(of[u].unwrap()).or_default() += 1;
        }
        let mut values: Vec<u32> = per_bucket
            .keys()
            .flat_map(|&b| rows[b].iter().map(|&x| s.code(x)))
            .collect();
        let all_values = values.len();
        values.sort_unstable();
        values.dedup();
        values.len() == all_values
            && per_bucket
                .iter()
                .all(|(&b, &num)| num * l as usize <= matches.len() * rows[b].len())
    })
}

/// Sizes of the published classes: each group's rows agreeing on its
/// `Original` cells (Definition 4 on the published values).
fn published_classes(c: &Case) -> Vec<usize> {
    let mut out = Vec::new();
    for g in &c.release.groups {
        let mut classes: BTreeMap<Vec<u32>, usize> = BTreeMap::new();
        for &r in &g.rows {
            let key = g
                .cells
                .iter()
                .enumerate()
                .filter(|(_, cell)| matches!(cell, Cell::Original))
                .map(|(a, _)| c.ds.col(a).code(r as usize))
                .collect();
            *classes.entry(key).or_default() += 1;
        }
        out.extend(classes.into_values());
    }
    out
}

fn holds(release: &Release, ds: &Dataset, claim: Guarantee) -> bool {
    let mut r = release.clone();
    r.claims = vec![claim];
    let v = verify(&r, ds);
    v.checks.last().unwrap().holds
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn structure_of_random_releases_is_sound(seed in any::<u64>(), n in 1usize..40, d in 1usize..4, b in any::<bool>()) {
        let c = case(seed, n, d, b);
        let v = verify(&c.release, &c.ds);
        prop_assert!(v.all_hold(), "{}", v);
    }

    #[test]
    fn k_anonymity_holds_iff_no_published_class_is_smaller(seed in any::<u64>(), n in 1usize..40, d in 1usize..4, k in 1u32..6) {
        let c = case(seed, n, d, false);
        let smallest = published_classes(&c).into_iter().min().unwrap_or(usize::MAX);
        prop_assert_eq!(holds(&c.release, &c.ds, Guarantee::KAnonymity { k }), smallest >= k as usize);
        // Lemma 1: when it holds, nobody is re-identified with more than 1/k.
        let link = linkage_attack(&c.release, &c.ds, &Progress::new()).unwrap();
        for (r, &p) in link.probabilities.iter().enumerate() {
            prop_assert!((0.0..=1.0).contains(&p));
            if smallest != usize::MAX {
                prop_assert!(p <= 1.0 / smallest as f64 + 1e-12, "row {}: {}", r, p);
            }
            let brute = matching_tuples(&c, r).len();
            if group_of(&c.release)[r].is_some() {
                prop_assert_eq!(link.matches[r] as usize, brute);
                prop_assert!((p - 1.0 / brute as f64).abs() < 1e-12);
            } else {
                prop_assert_eq!(p, 0.0);
            }
        }
    }

    #[test]
    fn group_and_bucket_l_diversity_follow_their_definitions(seed in any::<u64>(), n in 1usize..40, d in 1usize..4, l in 1u32..5) {
        let c = case(seed, n, d, true);
        let s = c.ds.col(c.sensitive);
        let attribute = s.name().to_string();
        let distinct = |rows: &[u32]| rows.iter().map(|&r| s.code(r as usize)).collect::<BTreeSet<_>>().len();
        let groups_ok = c.release.groups.iter().all(|g| distinct(&g.rows) >= l as usize);
        prop_assert_eq!(
            holds(&c.release, &c.ds, Guarantee::GroupLDiversity { attribute: attribute.clone(), l }),
            groups_ok
        );
        let buckets_ok = c.release.buckets.iter().all(|b| {
            b.rows.len() >= l as usize && distinct(&b.rows) == b.rows.len()
        });
        let bucket_claim = holds(&c.release, &c.ds, Guarantee::BucketLDiversity { attribute: attribute.clone(), l });
        prop_assert_eq!(bucket_claim, buckets_ok);
        let cross_claim = holds(&c.release, &c.ds, Guarantee::CrossBucketLDiversity { attribute, l });
        prop_assert_eq!(cross_claim, brute_corollary_2(&c, l));
        // Either bucket guarantee bounds the breach probability by 1/l.
        if bucket_claim || cross_claim {
            let b = breach_probability(&c.release, &c.ds, c.sensitive, &Progress::new()).unwrap();
            prop_assert!(b.summary.max <= 1.0 / l as f64 + 1e-9, "max {}", b.summary.max);
        }
    }

    #[test]
    fn untruthful_cells_are_caught(seed in any::<u64>(), n in 2usize..40, d in 1usize..4) {
        let mut c = case(seed, n, d, false);
        // Replace a group's cell by a random exact value: a lie as soon as
        // one member holds another value.
        if c.release.groups.is_empty() {
            return Ok(());
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
        let g = rng.random_range(0..c.release.groups.len());
        let a = rng.random_range(0..d);
        let col = c.ds.col(a);
        let code = rng.random_range(0..col.code_space() as u32);
        let lies = c.release.groups[g].rows.iter().any(|&r| col.code(r as usize) != code);
        c.release.groups[g].cells[a] = Cell::Value { code };
        let v = verify(&c.release, &c.ds);
        prop_assert_eq!(v.all_hold(), !lies, "{}", v);
    }

    #[test]
    fn breach_probability_follows_the_formula(seed in any::<u64>(), n in 1usize..40, d in 1usize..4, b in any::<bool>()) {
        let c = case(seed, n, d, b);
        let breach = breach_probability(&c.release, &c.ds, c.sensitive, &Progress::new()).unwrap();
        for (t, &p) in breach.probabilities.iter().enumerate() {
            prop_assert!((0.0..=1.0 + 1e-12).contains(&p));
            let want = brute_breach(&c, t);
            prop_assert!((p - want).abs() < 1e-9, "row {}: {} != {}", t, p, want);
        }
        prop_assert_eq!(breach.histogram.iter().map(|h| h.records).sum::<usize>(), n);
        prop_assert_eq!(breach.cdf.last().map(|p| p.share), Some(1.0));
    }

    #[test]
    fn query_bounds_contain_the_answer(seed in any::<u64>(), n in 1usize..40, d in 1usize..4, b in any::<bool>()) {
        let c = case(seed, n, d, b);
        let engine = QueryEngine::new(&c.release, &c.ds, c.sensitive).unwrap();
        // A target without any value (all cells missing) has nothing to
        // count: the workload refuses it.
        let Ok(queries) = generate_queries(&c.release, &c.ds, c.sensitive, 30, seed) else {
            prop_assert!(c.ds.col(c.sensitive).cardinality() == 0);
            return Ok(());
        };
        for q in queries {
            let a = engine.answer(&q);
            prop_assert!(a.lower <= a.actual + 1e-9 && a.actual <= a.upper + 1e-9, "{:?} for {:?}", a, q);
        }
    }

    #[test]
    fn actual_answers_are_the_published_rows_counted_one_by_one(seed in any::<u64>(), n in 1usize..60, d in 1usize..4, b in any::<bool>(), numeric in any::<bool>()) {
        // Both engines answer from indexes (bitsets, distinct cells, whole
        // groups); here every published row is checked against every
        // predicate and its target value added, as the definition reads.
        let c = case_with(seed, n, d, b, numeric);
        let Ok(queries) = generate_queries(&c.release, &c.ds, c.sensitive, 30, seed) else {
            return Ok(());
        };
        let engine = QueryEngine::new(&c.release, &c.ds, c.sensitive).unwrap();
        let prob = ProbabilisticEngine::new(&c.release, &c.ds, c.sensitive).unwrap();
        let target = c.ds.col(c.sensitive);
        for q in queries {
            let mut brute = 0.0;
            for g in &c.release.groups {
                for &r in &g.rows {
                    let satisfied = q.predicates.iter().all(|p| {
                        let col = c.ds.col(p.column);
                        let code = col.code(r as usize);
                        code != col.missing_code() && p.condition.holds(code)
                    });
                    if satisfied {
                        let code = target.code(r as usize);
                        brute += match q.aggregate {
                            Aggregate::Sum => target.number(code).unwrap_or(0.0),
                            Aggregate::Count { code: v } => f64::from(u8::from(code == v)),
                        };
                    }
                }
            }
            let a = engine.answer(&q);
            let p = prob.answer(&q);
            prop_assert!((a.actual - brute).abs() < 1e-6, "{} != {} for {:?}", a.actual, brute, q);
            prop_assert!((p.actual - brute).abs() < 1e-6, "{} != {} for {:?}", p.actual, brute, q);
        }
    }
}

/// Random tables for the algorithms: numeric and categorical QIs and a
/// sensitive attribute drawn from a seeded generator.
fn algorithm_table(seed: u64, n: usize, d: usize) -> Dataset {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    table(&mut rng, n, d, false)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every registered algorithm either refuses the parameters with a
    /// parameter error or returns a release that passes the verifier, and
    /// whose risks stay within what it claims.
    #[test]
    fn every_registered_algorithm_passes_the_verifier(
        seed in any::<u64>(), n in 1usize..120, d in 1usize..4, k in 1u32..5, l in 1u32..5,
    ) {
        let ds = algorithm_table(seed, n, d);
        let qi: Vec<usize> = (0..d).collect();
        for alg in registry() {
            let req = Request { ds: &ds, qi: qi.clone(), sensitive: vec![d], identifiers: vec![], k, l, seed, options: Default::default() };
            let release = match alg.run(&req, &Progress::new()) {
                Ok(r) => r,
                Err(Error::Invalid { .. } | Error::Unmet { .. }) => continue,
                Err(e) => return Err(TestCaseError::fail(format!("{}: {e}", alg.id()))),
            };
            let v = verify(&release, &ds);
            prop_assert!(v.all_hold(), "{} (k={}, l={}):\n{}", alg.id(), k, l, v);
            let link = linkage_attack(&release, &ds, &Progress::new()).unwrap();
            let breach = breach_probability(&release, &ds, d, &Progress::new()).unwrap();
            for claim in &release.claims {
                match claim {
                    Guarantee::KAnonymity { k } => {
                        prop_assert!(link.summary.max <= 1.0 / f64::from(*k) + 1e-12, "{}", alg.id());
                    }
                    // Each record lies in its l assigned tuples' cells,
                    // its own among them: at least l matches.
                    Guarantee::RegularAssignment { l, .. } => {
                        prop_assert!(link.summary.max <= 1.0 / f64::from(*l) + 1e-12, "{}", alg.id());
                    }
                    Guarantee::BucketLDiversity { l, .. } | Guarantee::CrossBucketLDiversity { l, .. } => {
                        prop_assert!(breach.summary.max <= 1.0 / f64::from(*l) + 1e-9, "{}", alg.id());
                    }
                    _ => {}
                }
            }
        }
    }
}
