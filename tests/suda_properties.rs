//! Property tests of the special-uniques search and the attribute risks
//! (issue 17) against brute force on small random tables: every MSU found
//! is a minimal sample unique and every minimal sample unique up to the
//! maximum size is found (checked by comparing each record with every
//! other on every attribute subset); SUDA scores are the sums of (M − k)!;
//! each combination's classes, uniques and pairs match a direct count; and
//! the individual risk lies in (0, 1].

use anonlab::data::Dataset;
use anonlab::progress::Progress;
use anonlab::risk::attributes::attribute_risks;
use anonlab::risk::combinations::{walk, Codes};
use anonlab::risk::individual::{class_risk, IndividualMethod};
use anonlab::risk::population::SizeCounts;
use anonlab::risk::suda::special_uniques;
use proptest::prelude::*;

/// `m` attributes with domains 1..=dom (some values missing), `n` rows.
fn table() -> impl Strategy<Value = (Dataset, Vec<Vec<u32>>)> {
    (1usize..6, 1usize..40, 1u32..5).prop_flat_map(|(m, n, dom)| {
        proptest::collection::vec(proptest::collection::vec(0u32..dom + 1, m), n).prop_map(
            move |raw| {
                let cells: Vec<Vec<String>> = raw
                    .iter()
                    .map(|r| {
                        r.iter()
                            .map(|&v| {
                                if v == dom {
                                    String::new()
                                } else {
                                    format!("v{v}")
                                }
                            })
                            .collect()
                    })
                    .collect();
                let names: Vec<String> = (0..m).map(|i| format!("a{i}")).collect();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                let rows: Vec<Vec<&str>> = cells
                    .iter()
                    .map(|r| r.iter().map(String::as_str).collect())
                    .collect();
                (Dataset::from_rows(&names, &rows).unwrap(), raw)
            },
        )
    })
}

/// Is row r unique on the attribute set `mask` (compared cell by cell with
/// every other row; an empty cell is a value like any other)?
fn unique_on(raw: &[Vec<u32>], r: usize, mask: u32) -> bool {
    mask != 0
        && raw.iter().enumerate().all(|(s, other)| {
            s == r || (0..other.len()).any(|a| mask & (1 << a) != 0 && other[a] != raw[r][a])
        })
}

fn brute_msus(raw: &[Vec<u32>], r: usize, m: usize, max: usize) -> Vec<u32> {
    let mut out: Vec<u32> = (1u32..1 << m)
        .filter(|&mask| mask.count_ones() as usize <= max)
        .filter(|&mask| unique_on(raw, r, mask))
        // Minimal: no proper non-empty subset is unique.
        .filter(|&mask| {
            let mut sub = (mask - 1) & mask;
            while sub != 0 {
                if unique_on(raw, r, sub) {
                    return false;
                }
                sub = (sub - 1) & mask;
            }
            true
        })
        .collect();
    out.sort_unstable_by_key(|&mask| (mask.count_ones(), mask));
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn msus_are_exactly_the_minimal_sample_uniques(
        (ds, raw) in table(),
        max in 1usize..5,
    ) {
        let m = ds.n_cols();
        let n = ds.n_rows();
        let cols: Vec<Codes> = (0..m).map(|c| Codes::of(&ds, c)).collect();
        let w = walk(&cols, n, None, max.min(m), max.min(m), &Progress::new()).unwrap();
        let full = anonlab::partition::Partition::by_columns(&ds, &(0..m).collect::<Vec<_>>());
        let s = special_uniques(&w, m, n, n as u64, max, &SizeCounts::from_sizes(full.sizes()), 0.05);
        let mut counts = vec![0u64; max.min(m)];
        for r in 0..n {
            let want = brute_msus(&raw, r, m, max);
            prop_assert_eq!(s.msus(r), &want[..], "row {}", r);
            let score: f64 = want
                .iter()
                .map(|mask| (1..=(m - mask.count_ones() as usize)).map(|i| i as f64).product::<f64>())
                .sum();
            prop_assert!((s.score[r] - score).abs() < 1e-9);
            prop_assert!((0.0..=1.0).contains(&s.dis[r]));
            prop_assert_eq!(s.dis[r] > 0.0, score > 0.0 && full.uniques() > 0);
            for mask in want {
                counts[mask.count_ones() as usize - 1] += 1;
            }
        }
        prop_assert_eq!(&s.msu_counts_by_size, &counts);
    }

    #[test]
    fn attribute_risks_count_classes_directly((ds, raw) in table()) {
        let m = ds.n_cols();
        let n = ds.n_rows();
        let cols: Vec<Codes> = (0..m).map(|c| Codes::of(&ds, c)).collect();
        let w = walk(&cols, n, None, m, 0, &Progress::new()).unwrap();
        let names: Vec<String> = (0..m).map(|i| format!("a{i}")).collect();
        let risks = attribute_risks(&w, &names, n as u64);
        prop_assert_eq!(risks.len(), (1 << m) - 1);
        for r in &risks {
            let mask: u32 = r.attributes.iter().map(|a| 1u32 << a[1..].parse::<u32>().unwrap()).sum();
            let key = |row: &Vec<u32>| -> Vec<u32> {
                (0..m).filter(|&a| mask & (1 << a) != 0).map(|a| row[a]).collect()
            };
            let mut groups: std::collections::HashMap<Vec<u32>, u64> = Default::default();
            for row in &raw {
                *groups.entry(key(row)).or_default() += 1;
            }
            let uniques = groups.values().filter(|&&c| c == 1).count() as f64;
            let pairs: u64 = groups.values().map(|&c| c * (c - 1) / 2).sum();
            prop_assert!((r.distinction - groups.len() as f64 / n as f64).abs() < 1e-12);
            prop_assert!((r.uniques - uniques / n as f64).abs() < 1e-12);
            let sep = if n < 2 { 0.0 } else { 1.0 - pairs as f64 / (n * (n - 1) / 2) as f64 };
            prop_assert!((r.separation - sep).abs() < 1e-12);
        }
    }

    #[test]
    fn individual_risk_is_a_probability(f in 1u32..300, extra in 0.0f64..1e6, exact in any::<bool>()) {
        let method = if exact { IndividualMethod::Exact } else { IndividualMethod::Approx };
        let r = class_risk(f, f64::from(f) + extra, method);
        prop_assert!(r > 0.0 && r <= 1.0 / f64::from(f) + 1e-12, "f {} sum {} risk {}", f, f64::from(f) + extra, r);
    }
}
