//! Full-domain generalization: the optimum equals brute-force enumeration
//! of the lattice on random tables and hierarchies (a separate, naive
//! implementation: generalize every row by label, group with a map); every
//! release passes the independent verifier; the Adult golden figures come
//! from `tests/golden/adult_full_domain.py`.

use crate::common;

use std::collections::HashMap;

use anonlab::algorithms::full_domain::{search, Metric, NodeStatus};
use anonlab::algorithms::{Options, Request};
use anonlab::data::Dataset;
use anonlab::hierarchy::{Hierarchy, HierarchySet};
use anonlab::privacy::{verify, Model};
use anonlab::progress::Progress;
use anonlab::release::Guarantee;
use proptest::prelude::*;
use serde::Deserialize;

fn request<'a>(
    ds: &'a Dataset,
    qi: &[usize],
    sensitive: &[usize],
    k: u32,
    o: Options,
) -> Request<'a> {
    Request {
        ds,
        qi: qi.to_vec(),
        sensitive: sensitive.to_vec(),
        identifiers: vec![],
        k,
        l: 1,
        seed: 0,
        options: o,
    }
}

/// Brute force's figures of one node: (metric, published classes,
/// suppressed rows), or `None` when more than `max_supp` rows fail.
#[allow(clippy::too_many_arguments)]
fn brute_node(
    rows: &[Vec<String>],
    hier: &[Vec<Vec<String>>],
    sens: &[String],
    k: usize,
    (l, entropy): (usize, bool),
    levels: &[usize],
    max_supp: usize,
    metric: Metric,
) -> Option<(f64, usize, usize)> {
    let d = hier.len();
    // h[a][leaf][level]: label; leaf index = position of value in the hierarchy.
    let leaf_of = |a: usize, v: &str| hier[a].iter().position(|r| r[0] == v).unwrap();
    let n = rows.len();
    let mut groups: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
    for (r, row) in rows.iter().enumerate() {
        let key: Vec<String> = (0..d)
            .map(|a| hier[a][leaf_of(a, &row[a])][levels[a]].clone())
            .collect();
        groups.entry(key).or_default().push(r);
    }
    let mut supp = 0;
    let mut kept = 0;
    let mut dm = 0.0;
    let mut loss_sum = 0.0;
    for (key, members) in &groups {
        let mut counts: HashMap<&String, usize> = HashMap::new();
        for &r in members {
            *counts.entry(&sens[r]).or_default() += 1;
        }
        let diverse = if entropy {
            // Entropy l-diversity, H ≥ ln l (with the library's 1e-12
            // relative slack for classes exactly at the bound).
            let m = members.len() as f64;
            let h: f64 = counts
                .values()
                .map(|&c| -(c as f64 / m) * (c as f64 / m).ln())
                .sum();
            let bound = (l as f64).ln();
            h >= bound - 1e-12 * bound
        } else {
            counts.len() >= l
        };
        if members.len() < k || !diverse {
            supp += members.len();
            loss_sum += (members.len() * d) as f64;
        } else {
            kept += 1;
            dm += (members.len() * members.len()) as f64;
            for a in 0..d {
                let under = hier[a].iter().filter(|r| r[levels[a]] == key[a]).count();
                let m = hier[a].len();
                let cell = if m > 1 {
                    (under - 1) as f64 / (m - 1) as f64
                } else {
                    0.0
                };
                loss_sum += members.len() as f64 * cell;
            }
        }
    }
    if supp > max_supp {
        return None;
    }
    let m = match metric {
        Metric::Loss => loss_sum / (n * d) as f64,
        Metric::Discernibility => dm + (n * supp) as f64,
        Metric::Height => levels.iter().sum::<usize>() as f64,
    };
    Some((m, kept, supp))
}

/// Every level vector of hierarchies with these many levels, in the
/// lattice's order (the first attribute varying slowest).
fn all_nodes(hier: &[Vec<Vec<String>>]) -> Vec<Vec<usize>> {
    let d = hier.len();
    let heights: Vec<usize> = hier.iter().map(|h| h[0].len()).collect();
    let total: usize = heights.iter().product();
    (0..total)
        .map(|idx| {
            let mut levels = vec![0; d];
            let mut rest = idx;
            for a in (0..d).rev() {
                levels[a] = rest % heights[a];
                rest /= heights[a];
            }
            levels
        })
        .collect()
}

/// What brute force finds: (metric, height, levels) of the best node.
fn brute_force(
    rows: &[Vec<String>],
    hier: &[Vec<Vec<String>>],
    sens: &[String],
    k: usize,
    model: (usize, bool),
    max_supp: usize,
    metric: Metric,
) -> Option<(f64, usize, Vec<usize>)> {
    let mut best: Option<(f64, usize, Vec<usize>)> = None;
    for levels in all_nodes(hier) {
        let Some((m, _, _)) = brute_node(rows, hier, sens, k, model, &levels, max_supp, metric)
        else {
            continue;
        };
        let height: usize = levels.iter().sum();
        let better = match &best {
            None => true,
            Some((bm, bh, bl)) => {
                // Equal metrics may differ in the last bits between two
                // summation orders.
                if (m - bm).abs() > 1e-9 * bm.abs().max(1.0) {
                    m < *bm
                } else {
                    (height, &levels) < (*bh, bl)
                }
            }
        };
        if better {
            best = Some((m, height, levels));
        }
    }
    best
}

/// A random hierarchy over `values`: each level merges neighbouring groups
/// of the previous one, ending in `*`.
fn hierarchy_rows(values: &[String], merges: &[usize]) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = values.iter().map(|v| vec![v.clone()]).collect();
    let mut group: Vec<usize> = (0..values.len()).collect();
    for (lvl, &m) in merges.iter().enumerate() {
        let m = m.max(2);
        for (i, row) in rows.iter_mut().enumerate() {
            group[i] /= m;
            row.push(format!("L{}g{}", lvl + 1, group[i]));
        }
    }
    for row in rows.iter_mut() {
        row.push("*".into());
    }
    rows
}

fn table() -> impl Strategy<Value = (Vec<Vec<u8>>, Vec<u8>, Vec<Vec<usize>>)> {
    (2usize..=3).prop_flat_map(|d| {
        (
            prop::collection::vec(prop::collection::vec(0u8..6, d), 8..40),
            prop::collection::vec(0u8..3, 40),
            prop::collection::vec(prop::collection::vec(2usize..4, 0..3), d),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn optimum_equals_brute_force(
        (cells, sens, merges) in table(),
        k in 1u32..5,
        l in 1u32..3,
        entropy in any::<bool>(),
        supp in prop::sample::select(vec![0.0, 0.1, 0.25]),
        metric in prop::sample::select(vec![Metric::Loss, Metric::Discernibility, Metric::Height]),
    ) {
        let d = merges.len();
        let names: Vec<String> = (0..=d).map(|a| format!("q{a}")).collect();
        let mut rows: Vec<Vec<String>> = cells
            .iter()
            .map(|r| r.iter().map(|v| format!("v{v}")).collect())
            .collect();
        let sens: Vec<String> = sens[..rows.len()].iter().map(|s| format!("s{s}")).collect();
        for (row, s) in rows.iter_mut().zip(&sens) {
            row.push(s.clone());
        }
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let row_refs: Vec<Vec<&str>> = rows.iter().map(|r| r.iter().map(String::as_str).collect()).collect();
        let ds = Dataset::from_rows(&name_refs, &row_refs).unwrap();
        // Hierarchies cover v0..v5, a wider domain than some tables hold.
        let domain: Vec<String> = (0..6).map(|v| format!("v{v}")).collect();
        let hier: Vec<Vec<Vec<String>>> = merges.iter().map(|m| hierarchy_rows(&domain, m)).collect();
        let mut set = HierarchySet::new();
        for (a, h) in hier.iter().enumerate() {
            set.insert(Hierarchy::from_rows(&names[a], h).unwrap());
        }
        let mut o = Options { hierarchies: set, ..Default::default() };
        o.full_domain.suppression = supp;
        o.full_domain.metric = metric;
        // Entropy l-diversity is not monotone with suppression: the search
        // must then find the optimum without tagging.
        o.full_domain.model = match (l > 1, entropy) {
            (false, _) => Model::K,
            (true, false) => Model::DistinctL { l },
            (true, true) => Model::EntropyL { l: l as f64 },
        };
        o.full_domain.list_minimal = true;
        let qi: Vec<usize> = (0..d).collect();
        let req = request(&ds, &qi, &[d], k, o);
        let max_supp = (supp * rows.len() as f64).floor() as usize;
        let expected = brute_force(&rows, &hier, &sens, k as usize, (l as usize, entropy), max_supp, metric);
        match search(&req, &Progress::new()) {
            Ok((release, report)) => {
                let (m, _, levels) = expected.expect("brute force finds a node too");
                prop_assert_eq!(&report.optimum.levels, &levels);
                prop_assert!((report.optimum.metric - m).abs() <= 1e-9 * m.abs().max(1.0));
                prop_assert_eq!(release.suppressed_rows.len() as u64, report.optimum.suppressed_rows);
                let v = verify(&release, &ds);
                prop_assert!(v.all_hold(), "{}", v);
                prop_assert!(report.minimal.iter().any(|n| n.levels == levels) || max_supp > 0);
                prop_assert_eq!(report.monotone, max_supp == 0 || !(entropy && l > 1));
                // The lattice map is the search's own answer, node by node:
                // every resolved node as brute force finds it, every
                // measured one with brute force's figures.
                let model = (l as usize, entropy);
                let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
                let map = &report.lattice;
                prop_assert_eq!(map.len(), report.lattice_size);
                for (i, levels) in all_nodes(&hier).into_iter().enumerate() {
                    prop_assert_eq!(map.index(&levels), Some(i));
                    let node = map.nodes[i];
                    let truth = brute_node(&rows, &hier, &sens, k as usize, model, &levels, max_supp, metric);
                    match node.status {
                        NodeStatus::Anonymous => prop_assert!(truth.is_some(), "{:?}", levels),
                        NodeStatus::NotAnonymous => prop_assert!(truth.is_none(), "{:?}", levels),
                        NodeStatus::Pruned => {
                            prop_assert!(!node.checked);
                            prop_assert!(node.bound >= m - 1e-9 * m.abs().max(1.0));
                        }
                    }
                    if let (Some(f), Some((tm, classes, supp))) = (node.figures, truth) {
                        prop_assert!(node.checked);
                        prop_assert!(close(f.metric, tm), "{:?}: {} vs {}", levels, f.metric, tm);
                        prop_assert_eq!(f.classes, classes);
                        prop_assert_eq!(f.suppressed_rows, supp as u64);
                    }
                    prop_assert!(node.bound <= truth.map_or(f64::INFINITY, |t| t.0) + 1e-9);
                }
            }
            Err(e) => prop_assert!(expected.is_none(), "search failed: {e}"),
        }
    }
}

/// A random table as the proptests build it: the rows as text (the QIs,
/// then the sensitive value), the sensitive values, the hierarchies as
/// rows and the dataset with the hierarchy set.
type Built = (
    Vec<Vec<String>>,
    Vec<String>,
    Vec<Vec<Vec<String>>>,
    Dataset,
    HierarchySet,
);

fn build(cells: &[Vec<u8>], sens: &[u8], merges: &[Vec<usize>]) -> Built {
    let d = merges.len();
    let names: Vec<String> = (0..=d).map(|a| format!("q{a}")).collect();
    let mut rows: Vec<Vec<String>> = cells
        .iter()
        .map(|r| r.iter().map(|v| format!("v{v}")).collect())
        .collect();
    let sens: Vec<String> = sens[..rows.len()].iter().map(|s| format!("s{s}")).collect();
    for (row, s) in rows.iter_mut().zip(&sens) {
        row.push(s.clone());
    }
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let row_refs: Vec<Vec<&str>> = rows
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect();
    let ds = Dataset::from_rows(&name_refs, &row_refs).unwrap();
    let domain: Vec<String> = (0..6).map(|v| format!("v{v}")).collect();
    let hier: Vec<Vec<Vec<String>>> = merges.iter().map(|m| hierarchy_rows(&domain, m)).collect();
    let mut set = HierarchySet::new();
    for (a, h) in hier.iter().enumerate() {
        set.insert(Hierarchy::from_rows(&names[a], h).unwrap());
    }
    (rows, sens, hier, ds, set)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A node chosen in place of the optimum publishes that node's levels
    /// with every failing class suppressed (past the limit if need be): the
    /// release holds what it claims, and its figures are brute force's.
    #[test]
    fn a_chosen_node_publishes_its_own_release(
        (cells, sens, merges) in table(),
        k in 1u32..5,
        l in 1u32..3,
        supp in prop::sample::select(vec![0.0, 0.1]),
        pick in any::<prop::sample::Index>(),
    ) {
        let (rows, sens, hier, ds, set) = build(&cells, &sens, &merges);
        let d = merges.len();
        let nodes = all_nodes(&hier);
        let levels = nodes[pick.index(nodes.len())].clone();
        let mut o = Options { hierarchies: set, ..Default::default() };
        o.full_domain.suppression = supp;
        o.full_domain.model = if l > 1 { Model::DistinctL { l } } else { Model::K };
        o.full_domain.node = Some(levels.clone());
        let qi: Vec<usize> = (0..d).collect();
        let req = request(&ds, &qi, &[d], k, o);
        let max_supp = (supp * rows.len() as f64).floor() as usize;
        let model = (l as usize, false);
        let Ok((release, report)) = search(&req, &Progress::new()) else {
            // No node at all is anonymous: the search says so first.
            prop_assert!(brute_force(&rows, &hier, &sens, k as usize, model, max_supp, Metric::Loss).is_none());
            return Ok(());
        };
        let chosen = report.chosen.clone().expect("a chosen node is reported");
        prop_assert_eq!(&chosen.node.levels, &levels);
        prop_assert_eq!(&report.published().levels, &levels);
        let (m, classes, supp_rows) =
            brute_node(&rows, &hier, &sens, k as usize, model, &levels, usize::MAX, Metric::Loss).unwrap();
        prop_assert_eq!(chosen.node.classes, classes);
        prop_assert_eq!(chosen.node.suppressed_rows, supp_rows as u64);
        prop_assert!((chosen.node.metric - m).abs() <= 1e-9 * m.abs().max(1.0));
        prop_assert_eq!(chosen.within_limit, supp_rows <= max_supp);
        prop_assert_eq!(release.suppressed_rows.len(), supp_rows);
        prop_assert_eq!(release.groups.len(), classes);
        let v = verify(&release, &ds);
        prop_assert!(v.all_hold(), "{}", v);
        // The optimum's own search is unchanged by the choice.
        let mut plain = req.options.clone();
        plain.full_domain.node = None;
        let (_, alone) = search(&request(&ds, &qi, &[d], k, plain), &Progress::new()).unwrap();
        prop_assert_eq!(&alone.optimum, &report.optimum);
        prop_assert_eq!(&alone.lattice, &report.lattice);
    }
}

#[test]
fn a_node_outside_the_lattice_is_refused_with_the_heights() {
    let (_, _, _, ds, set) = build(
        &[vec![0, 1], vec![1, 2], vec![2, 3]],
        &[0, 1, 2],
        &[vec![2], vec![]],
    );
    let mut o = Options {
        hierarchies: set,
        ..Default::default()
    };
    o.full_domain.node = Some(vec![0, 5]);
    let e = search(&request(&ds, &[0, 1], &[], 1, o), &Progress::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("[0, 5]") && e.contains("[2, 1]"), "{e}");
}

#[test]
fn non_monotone_models_are_searched_exhaustively_and_verified() {
    // Entropy l-diversity with suppression is not monotone: the search must
    // check nodes one by one, and its release must still verify.
    let Some(ds) = common::adult() else { return };
    let qi: Vec<usize> = ["sex", "age", "race", "education"]
        .iter()
        .map(|c| ds.column_index(c).unwrap())
        .collect();
    let occ = ds.column_index("occupation").unwrap();
    let mut o = Options {
        hierarchies: adult_hierarchies(),
        ..Default::default()
    };
    o.full_domain.suppression = 0.02;
    o.full_domain.model = Model::EntropyL { l: 3.0 };
    let (release, report) = search(&request(&ds, &qi, &[occ], 5, o), &Progress::new()).unwrap();
    assert!(!report.monotone);
    assert!(report.optimum.suppressed_rows <= report.suppression_limit_rows);
    let v = verify(&release, &ds);
    assert!(v.all_hold(), "{v}");
}

fn adult_hierarchies() -> HierarchySet {
    let dir = common::adult_path().parent().unwrap().to_path_buf();
    HierarchySet::load_dir(&dir).unwrap()
}

#[derive(Deserialize)]
struct Golden {
    levels: Vec<usize>,
    loss: f64,
    classes: usize,
    suppressed_rows: u64,
}

#[test]
fn adult_k5_optimum_matches_the_independent_derivation() {
    let Some(ds) = common::adult() else { return };
    let golden: Golden =
        serde_json::from_str(include_str!("golden/adult_full_domain.json")).unwrap();
    let qi: Vec<usize> = common::ADULT_QI8
        .iter()
        .map(|c| ds.column_index(c).unwrap())
        .collect();
    let o = Options {
        hierarchies: adult_hierarchies(),
        ..Default::default()
    };
    let (release, report) = search(&request(&ds, &qi, &[], 5, o), &Progress::new()).unwrap();
    assert_eq!(report.optimum.levels, golden.levels);
    assert!(
        (report.optimum.metric - golden.loss).abs() < 1e-12,
        "{}",
        report.optimum.metric
    );
    assert_eq!(report.optimum.classes, golden.classes);
    assert_eq!(report.optimum.suppressed_rows, golden.suppressed_rows);
    assert_eq!(report.lattice_size, 6480);
    assert!(release.group_sizes().iter().all(|&s| s >= 5));
    let v = verify(&release, &ds);
    assert!(v.all_hold(), "{v}");
}

#[test]
fn adult_with_suppression_and_every_model_verifies() {
    let Some(ds) = common::adult() else { return };
    let qi: Vec<usize> = common::ADULT_QI7
        .iter()
        .map(|c| ds.column_index(c).unwrap())
        .collect();
    let occ = ds.column_index("occupation").unwrap();
    for model in [
        Model::K,
        Model::DistinctL { l: 3 },
        Model::PSensitive { p: 2 },
        Model::EntropyL { l: 2.5 },
        Model::RecursiveCL { c: 4.0, l: 3 },
        Model::TCloseness { t: 0.3 },
        Model::AlphaK { alpha: 0.3 },
        Model::DeltaDisclosure { delta: 1.5 },
        Model::BetaLikeness { beta: 1.0 },
    ] {
        let mut o = Options {
            hierarchies: adult_hierarchies(),
            ..Default::default()
        };
        o.full_domain.suppression = 0.02;
        o.full_domain.model = model;
        let (release, report) = search(&request(&ds, &qi, &[occ], 5, o), &Progress::new()).unwrap();
        assert!(
            report.optimum.suppressed_rows <= report.suppression_limit_rows,
            "{model:?}"
        );
        let v = verify(&release, &ds);
        assert!(v.all_hold(), "{model:?}: {v}");
        // The model asked for is itself claimed, so the verifier re-checked
        // it, not only a weaker guarantee it implies.
        let attribute = "occupation".to_string();
        let asked = match model {
            Model::K => Guarantee::KAnonymity { k: 5 },
            Model::DistinctL { l } => Guarantee::GroupLDiversity { attribute, l },
            Model::PSensitive { p } => Guarantee::PSensitiveKAnonymity {
                k: 5,
                p,
                attributes: vec![attribute],
            },
            Model::EntropyL { l } => Guarantee::EntropyLDiversity { attribute, l },
            Model::RecursiveCL { c, l } => Guarantee::RecursiveCLDiversity { attribute, c, l },
            Model::TCloseness { t } => Guarantee::TCloseness { attribute, t },
            Model::AlphaK { alpha } => Guarantee::AlphaK { attribute, alpha },
            Model::DeltaDisclosure { delta } => Guarantee::DeltaDisclosure { attribute, delta },
            Model::BetaLikeness { beta } => Guarantee::BetaLikeness { attribute, beta },
        };
        assert!(
            release.claims.contains(&asked),
            "{model:?}: {:?}",
            release.claims
        );
    }
}
