use std::collections::BTreeMap;
use std::sync::Mutex;

use proptest::prelude::*;

use super::*;
use crate::data::Dataset;
use crate::error::Error;
use crate::hierarchy::Hierarchy;
use crate::privacy::counts_of_rows;

fn table() -> Dataset {
    // Ages 1..=8, sex alternating, disease in pairs.
    let rows: Vec<Vec<String>> = (1..=8)
        .map(|i| {
            vec![
                i.to_string(),
                if i % 2 == 0 { "M" } else { "F" }.to_string(),
                ["a", "b", "c", "d"][(i - 1) % 4].to_string(),
            ]
        })
        .collect();
    from_strings(&["age", "sex", "disease"], &rows)
}

fn from_strings(names: &[&str], rows: &[Vec<String>]) -> Dataset {
    let rows: Vec<Vec<&str>> = rows
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect();
    Dataset::from_rows(names, &rows).unwrap()
}

fn one_column(name: &str, values: &[&str]) -> Dataset {
    let rows: Vec<Vec<&str>> = values.iter().map(|v| vec![*v]).collect();
    Dataset::from_rows(&[name], &rows).unwrap()
}

fn req(ds: &Dataset, k: u32, l: u32) -> Request<'_> {
    Request {
        ds,
        qi: vec![0, 1],
        sensitive: vec![2],
        identifiers: vec![],
        k,
        l,
        seed: 7,
        options: Default::default(),
    }
}

fn only_qi(ds: &Dataset, k: u32) -> Request<'_> {
    Request {
        qi: vec![0],
        sensitive: vec![],
        ..req(ds, k, 0)
    }
}

fn ages(ds: &Dataset, cell: &Cell) -> String {
    cell.render(ds.col(0), 0)
}

#[test]
fn widest_dimension_first_then_the_cut_nearest_the_median() {
    // Root: age spans 7/7 = 1 and sex 2/2 = 1, a tie that goes to age;
    // the position of 1..=8 nearest half the rows is after 4: {1-4} |
    // {5-8}. In {1-4} age spans only 3/7 while sex still spans 2/2, so sex
    // is cut: {1,3} | {2,4}, and likewise {5,7} | {6,8}. Pairs can't be
    // cut for k = 2.
    let ds = table();
    let p = Progress::new();
    let r = Mondrian::k_anonymous().run(&req(&ds, 2, 0), &p).unwrap();
    let got: Vec<(Vec<u32>, String, String)> = r
        .groups
        .iter()
        .map(|g| {
            (
                g.rows.clone(),
                ages(&ds, &g.cells[0]),
                g.cells[1].render(ds.col(1), 0),
            )
        })
        .collect();
    let want = [
        (vec![0, 2], "[1-3]", "F"),
        (vec![1, 3], "[2-4]", "M"),
        (vec![4, 6], "[5-7]", "F"),
        (vec![5, 7], "[6-8]", "M"),
    ];
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!(
            (g.0.as_slice(), g.1.as_str(), g.2.as_str()),
            (&w.0[..], w.1, w.2)
        );
    }
    assert_eq!(r.claims, vec![Guarantee::KAnonymity { k: 2 }]);
    assert_eq!(r.params.k, Some(2));
    assert_eq!(r.params.l, None);
    assert_eq!(p.fraction(), 1.0);
}

#[test]
fn k_of_three_stops_at_halves() {
    // 8 rows, k = 3: {1-4} | {5-8}; 4 rows can't give two sides of 3.
    let ds = table();
    let r = Mondrian::k_anonymous()
        .run(&req(&ds, 3, 0), &Progress::new())
        .unwrap();
    assert_eq!(r.group_sizes(), vec![4, 4]);
    assert_eq!(ages(&ds, &r.groups[0].cells[0]), "[1-4]");
}

#[test]
fn a_median_at_the_largest_value_still_cuts() {
    // Sex 2 F, 4 M: the median row is M, the largest value, so a strict
    // median cut (≤ M | > M) is empty on the right. The cut nearest the
    // median that leaves two allowable sides is F | M.
    let ds = one_column("sex", &["M", "F", "M", "M", "F", "M"]);
    let r = Mondrian::k_anonymous()
        .run(&only_qi(&ds, 2), &Progress::new())
        .unwrap();
    assert_eq!(r.groups.len(), 2);
    let by_size: BTreeMap<usize, String> = r
        .groups
        .iter()
        .map(|g| (g.rows.len(), g.cells[0].render(ds.col(0), 0)))
        .collect();
    assert_eq!(by_size[&2], "F");
    assert_eq!(by_size[&4], "M");
    // Ages 1,1 then eight 2s: the median is 2, the largest; 2 | 8 is the
    // allowable cut nearest it.
    let ds = one_column("age", &["1", "1", "2", "2", "2", "2", "2", "2", "2", "2"]);
    let r = Mondrian::k_anonymous()
        .run(&only_qi(&ds, 2), &Progress::new())
        .unwrap();
    assert_eq!(r.group_sizes(), vec![2, 8]);
}

#[test]
fn the_cut_moves_off_the_median_only_as_far_as_it_must() {
    // Ages 1, six 2s, three 3s, k = 3: after 1 leaves 1 row (not allowed),
    // after 2 leaves 7 | 3.
    let ds = one_column("age", &["1", "2", "2", "2", "2", "2", "2", "3", "3", "3"]);
    let r = Mondrian::k_anonymous()
        .run(&only_qi(&ds, 3), &Progress::new())
        .unwrap();
    assert_eq!(r.group_sizes(), vec![7, 3]);
    // Ages 1×3, 2, 3×4 (n = 8), k = 3: after 1 is 3 | 5 (2 from the
    // middle), after 2 is 4 | 4 (the middle itself).
    let ds = one_column("age", &["1", "1", "1", "2", "3", "3", "3", "3"]);
    let r = Mondrian::k_anonymous()
        .run(&only_qi(&ds, 3), &Progress::new())
        .unwrap();
    assert_eq!(r.group_sizes(), vec![4, 4]);
    assert_eq!(ages(&ds, &r.groups[0].cells[0]), "[1-2]");
}

#[test]
fn categories_split_by_frequency_not_by_name() {
    // a, b once each, c six times. By name the median row is c, the last
    // value: no cut. By frequency: {c} | {a, b}.
    let ds = one_column("city", &["c", "a", "c", "c", "b", "c", "c", "c"]);
    let r = Mondrian::k_anonymous()
        .run(&only_qi(&ds, 2), &Progress::new())
        .unwrap();
    let cells: Vec<String> = r
        .groups
        .iter()
        .map(|g| g.cells[0].render(ds.col(0), 0))
        .collect();
    assert_eq!(r.group_sizes(), vec![6, 2]);
    assert_eq!(cells, ["c", "{a,b}"]);
}

fn education() -> (Dataset, Hierarchy) {
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
    let mut values = vec!["Bachelors"; 3];
    values.push("Masters");
    values.extend(["9th", "10th", "10th", "HS-grad", "HS-grad", "HS-grad"]);
    (one_column("edu", &values), h)
}

#[test]
fn categories_with_a_hierarchy_are_cut_along_it() {
    // Secondary (9th 1, 10th 2, HS-grad 3) | Higher (Bachelors 3, Masters
    // 1), the heavier child first. Secondary is cut between its leaves:
    // HS-grad | 9th, 10th. Higher cannot be cut for k = 2 (3 | 1), so it
    // publishes the node, labelled.
    let (ds, h) = education();
    let mut q = only_qi(&ds, 2);
    q.options.hierarchies.insert(h);
    let r = Mondrian::k_anonymous().run(&q, &Progress::new()).unwrap();
    let cells: Vec<String> = r
        .groups
        .iter()
        .map(|g| g.cells[0].render(ds.col(0), 0))
        .collect();
    assert_eq!(cells, ["HS-grad", "{10th,9th}", "Higher"]);
    assert_eq!(r.group_sizes(), vec![3, 3, 4]);
    assert!(crate::privacy::verify(&r, &ds).all_hold());
    // Without the hierarchy the value set is split by frequency alone:
    // Bachelors and HS-grad (3 each) are cut off first, and a group may mix
    // a Higher and a Secondary value.
    let r = Mondrian::k_anonymous()
        .run(&only_qi(&ds, 2), &Progress::new())
        .unwrap();
    assert!(r.groups.len() >= 3);
}

#[test]
fn a_hierarchy_that_misses_a_value_is_refused_naming_it() {
    let (ds, _) = education();
    let partial = Hierarchy::from_rows(
        "edu",
        &[
            vec!["Bachelors", "*"],
            vec!["Masters", "*"],
            vec!["9th", "*"],
        ],
    )
    .unwrap();
    let mut q = only_qi(&ds, 2);
    q.options.hierarchies.insert(partial);
    let e = Mondrian::k_anonymous()
        .run(&q, &Progress::new())
        .unwrap_err();
    assert!(e.to_string().contains("'10th'"), "{e}");
}

fn six_by_age(diseases: [&str; 6]) -> Dataset {
    let rows: Vec<Vec<String>> = (0..6)
        .map(|i| vec![(i + 1).to_string(), diseases[i].to_string()])
        .collect();
    from_strings(&["age", "disease"], &rows)
}

fn age_and_disease(ds: &Dataset, k: u32, l: u32) -> Request<'_> {
    Request {
        qi: vec![0],
        sensitive: vec![1],
        ..req(ds, k, l)
    }
}

#[test]
fn mondrian_l_is_definition_6_distinct_l_is_apart() {
    // Ages 1..6 with a, a, b, c, d, e. The cut 1-3 | 4-6 leaves {a, a, b}:
    // 2 distinct values (distinct 2-diversity holds) but a on 2 of 3 rows,
    // so an attacker's p(t, a) = 2/3 > 1/2 (Definition 6 fails). The
    // other positions leave a side of fewer than 3 rows.
    let ds = six_by_age(["a", "a", "b", "c", "d", "e"]);
    let q = age_and_disease(&ds, 3, 2);
    let distinct = Mondrian::distinct_l_diverse()
        .run(&q, &Progress::new())
        .unwrap();
    assert_eq!(distinct.group_sizes(), vec![3, 3]);
    assert_eq!(
        distinct.claims[1],
        Guarantee::GroupLDiversity {
            attribute: "disease".into(),
            l: 2
        }
    );
    let breach = Mondrian::l_diverse().run(&q, &Progress::new()).unwrap();
    assert_eq!(breach.group_sizes(), vec![6]);
    assert_eq!(
        breach.claims,
        vec![
            Guarantee::KAnonymity { k: 3 },
            Guarantee::BreachProbability {
                attribute: "disease".into(),
                l: 2
            }
        ]
    );
    assert_eq!(breach.params.l, Some(2));
    for r in [&distinct, &breach] {
        let v = crate::privacy::verify(r, &ds);
        assert!(v.all_hold(), "{v}");
    }
    // And the verifier catches the distinct release if it claimed
    // Definition 6.
    let mut wrong = distinct.clone();
    wrong.claims[1] = breach.claims[1].clone();
    assert!(!crate::privacy::verify(&wrong, &ds).all_hold());
    // With a, b, a, c, d, e the middle cut leaves {a, b, a}: same verdict;
    // with a, b, c, a, d, e it leaves {a, b, c} | {a, d, e}: both cut.
    let ds = six_by_age(["a", "b", "c", "a", "d", "e"]);
    let r = Mondrian::l_diverse()
        .run(&age_and_disease(&ds, 3, 2), &Progress::new())
        .unwrap();
    assert_eq!(r.group_sizes(), vec![3, 3]);
}

#[test]
fn distinct_l_refuses_cuts_that_lose_diversity() {
    // Diseases a,b,c,d,a,b,c,d by age. With l = 3 and k = 2, every cut
    // of {1-4} (by sex: {a,c} | {b,d}; by age: {a,b} | {c,d}, ...) leaves
    // 2 values on a side, so only {1-4} | {5-8} stays (4 values each).
    let ds = table();
    let r = Mondrian::distinct_l_diverse()
        .run(&req(&ds, 2, 3), &Progress::new())
        .unwrap();
    assert_eq!(r.group_sizes(), vec![4, 4]);
    for g in &r.groups {
        assert!(counts_of_rows(&g.rows, ds.col(2)).len() >= 3);
    }
    // l = 2 allows the cuts by sex: each pair holds 2 values.
    let r = Mondrian::distinct_l_diverse()
        .run(&req(&ds, 2, 2), &Progress::new())
        .unwrap();
    assert_eq!(r.group_sizes(), vec![2, 2, 2, 2]);
}

#[test]
fn a_dimension_without_an_allowable_cut_tries_the_next() {
    // age: 1,1,1,1,1,2 — its one cut leaves 5 | 1, not allowable for
    // k = 2; sex (F,F,F,M,M,M) gives 3 | 3.
    let rows = [
        ["1", "F"],
        ["1", "F"],
        ["1", "F"],
        ["1", "M"],
        ["1", "M"],
        ["2", "M"],
    ];
    let rows: Vec<Vec<&str>> = rows.iter().map(|r| r.to_vec()).collect();
    let ds = Dataset::from_rows(&["age", "sex"], &rows).unwrap();
    let mut q = req(&ds, 2, 0);
    q.sensitive = vec![];
    let r = Mondrian::k_anonymous().run(&q, &Progress::new()).unwrap();
    assert_eq!(r.groups.len(), 2);
    assert_eq!(r.groups[0].rows, vec![0, 1, 2]);
    assert_eq!(r.groups[0].cells[0], Cell::Value { code: 0 });
    assert_eq!(r.groups[1].cells[0].render(ds.col(0), 0), "[1-2]");
}

#[test]
fn missing_numbers_are_cut_off_like_the_largest_value() {
    let ds = one_column("age", &["1", "2", "3", "", "", ""]);
    let r = Mondrian::k_anonymous()
        .run(&only_qi(&ds, 3), &Progress::new())
        .unwrap();
    assert_eq!(r.groups.len(), 2);
    assert_eq!(r.groups[0].cells[0].render(ds.col(0), 0), "[1-3]");
    assert_eq!(r.groups[1].cells[0].render(ds.col(0), 3), "?");
}

#[test]
fn cancellation_stops_the_run() {
    let ds = table();
    let p = Progress::new();
    p.cancel();
    let e = Mondrian::k_anonymous()
        .run(&req(&ds, 2, 0), &p)
        .unwrap_err();
    assert!(matches!(e, Error::Cancelled));
}

#[test]
fn refusals() {
    let ds = table();
    let e = Mondrian::k_anonymous()
        .run(&req(&ds, 9, 0), &Progress::new())
        .unwrap_err();
    assert!(e.to_string().contains("larger than the data"), "{e}");
    for algo in [Mondrian::l_diverse(), Mondrian::distinct_l_diverse()] {
        let e = algo.run(&req(&ds, 2, 5), &Progress::new()).unwrap_err();
        assert!(e.to_string().contains("4 distinct values"), "{e}");
    }
    let rows: Vec<Vec<&str>> = (0..4)
        .map(|i| vec![["1", "2", "3", "4"][i], "M", if i < 3 { "x" } else { "y" }])
        .collect();
    let skew = Dataset::from_rows(&["age", "sex", "disease"], &rows).unwrap();
    let e = Mondrian::l_diverse()
        .run(&req(&skew, 2, 2), &Progress::new())
        .unwrap_err();
    assert!(e.to_string().contains("'x'"), "{e}");
}

#[test]
fn large_tables_split_in_parallel_and_in_order() {
    // 40 000 rows on a grid: the first cuts run through rayon::join.
    let n = 40_000u32;
    let rows: Vec<Vec<String>> = (0..n)
        .map(|i| vec![(i % 200).to_string(), (i / 200).to_string()])
        .collect();
    let ds = from_strings(&["a", "b"], &rows);
    let q = Request {
        qi: vec![0, 1],
        sensitive: vec![],
        ..req(&ds, 5, 0)
    };
    let r = Mondrian::k_anonymous().run(&q, &Progress::new()).unwrap();
    let again = Mondrian::k_anonymous().run(&q, &Progress::new()).unwrap();
    assert_eq!(r, again);
    assert_eq!(r.published_rows(), n as usize);
    // A grid of distinct points: every group is cut down below 2k rows.
    assert!(r.groups.iter().all(|g| (5..10).contains(&g.rows.len())));
    assert!(r.group_of_row().iter().all(Option::is_some));
}

/// Random tables: a numeric and a categorical QI (both with missing
/// cells) and a skewed sensitive attribute.
fn random_table() -> impl Strategy<Value = Dataset> {
    prop::collection::vec((0u8..12, 0u8..6, 0u8..5), 1..80).prop_map(|rows| {
        let text: Vec<Vec<String>> = rows
            .iter()
            .map(|&(a, c, s)| {
                vec![
                    if a == 11 {
                        String::new()
                    } else {
                        (a * 3).to_string()
                    },
                    if c == 5 {
                        String::new()
                    } else {
                        ((b'p' + c) as char).to_string()
                    },
                    ((b'a' + s.min(s / 2 + 1)) as char).to_string(),
                ]
            })
            .collect();
        from_strings(&["age", "city", "disease"], &text)
    })
}

/// A hierarchy over the random tables' cities: {p, q} and {r, s, t}.
fn cities() -> Hierarchy {
    let rows: Vec<Vec<&str>> = [
        ("p", "pq"),
        ("q", "pq"),
        ("r", "rst"),
        ("s", "rst"),
        ("t", "rst"),
    ]
    .iter()
    .map(|&(leaf, node)| vec![leaf, node, "*"])
    .collect();
    Hierarchy::from_rows("city", &rows).unwrap()
}

fn variant(i: u8) -> Mondrian {
    match i {
        0 => Mondrian::k_anonymous(),
        1 => Mondrian::l_diverse(),
        _ => Mondrian::distinct_l_diverse(),
    }
}

/// What one side of a cut holds, counted from its rows.
fn side(ds: &Dataset, rows: &[u32]) -> allowable::Side {
    let counts = counts_of_rows(rows, ds.col(2));
    allowable::Side {
        rows: rows.len(),
        distinct: counts.len(),
        most: counts.iter().map(|c| c.count as usize).max().unwrap_or(0),
    }
}

proptest! {
    #[test]
    fn every_release_satisfies_what_it_claims(
        ds in random_table(), k in 1u32..6, l in 1u32..4, which in 0u8..3, hierarchy in any::<bool>()
    ) {
        let mut q = req(&ds, k, l);
        if hierarchy {
            q.options.hierarchies.insert(cities());
        }
        let algo = variant(which);
        let r = match algo.run(&q, &Progress::new()) {
            Ok(r) => r,
            Err(Error::Invalid { .. }) => {
                prop_assert!(check_k(&q).is_err() || (which > 0 && check_l(&q).is_err()));
                return Ok(());
            }
            Err(e) => return Err(TestCaseError::fail(e.to_string())),
        };
        let v = crate::privacy::verify(&r, &ds);
        prop_assert!(v.all_hold(), "{}", v);
        prop_assert!(r.group_of_row().iter().all(Option::is_some));
        prop_assert_eq!(r.published_rows(), ds.n_rows());
        for g in &r.groups {
            prop_assert!(g.rows.len() >= k as usize);
            for (cell, &c) in g.cells.iter().zip(&q.qi) {
                let col = ds.col(c);
                let codes: Vec<u32> = g.rows.iter().map(|&x| col.code(x as usize)).collect();
                let mut unlabelled = cell.clone();
                if let Cell::Set { label, .. } = &mut unlabelled {
                    *label = None;
                }
                prop_assert_eq!(&unlabelled, &Cell::covering(col, codes.iter().copied()));
                prop_assert!(codes.iter().all(|&x| cell.contains(x, x)));
            }
        }
    }

    #[test]
    fn every_cut_leaves_both_sides_allowable(
        ds in random_table(), k in 1u32..6, l in 1u32..4, which in 0u8..3, hierarchy in any::<bool>()
    ) {
        let mut q = req(&ds, k, l);
        let h = cities().bind(ds.col(1)).unwrap();
        if hierarchy {
            q.options.hierarchies.insert(cities());
        }
        let algo = variant(which);
        let trace = Mutex::new(Vec::new());
        if algo.run_traced(&q, &Progress::new(), Some(&trace)).is_err() {
            return Ok(());
        }
        let allow = algo.allowable(k, l);
        for cut in trace.into_inner().unwrap() {
            // Counted from the rows, not from the sweep's tallies.
            let (left, right) = (side(&ds, &cut.left), side(&ds, &cut.right));
            prop_assert!(allow.allows(&left), "{:?} of {:?}", left, cut);
            prop_assert!(allow.allows(&right), "{:?} of {:?}", right, cut);
            // Equal values never straddle a cut.
            let col = ds.col(q.qi[cut.dim]);
            let codes = |rows: &[u32]| -> Vec<u32> {
                let mut c: Vec<u32> = rows.iter().map(|&r| col.code(r as usize)).collect();
                c.sort_unstable();
                c.dedup();
                c
            };
            let (lc, rc) = (codes(&cut.left), codes(&cut.right));
            prop_assert!(lc.iter().all(|c| !rc.contains(c)));
            if col.is_numeric() {
                prop_assert!(lc.last() < rc.first(), "numeric cuts keep value order");
            }
            if hierarchy && cut.dim == 1 {
                // Along the hierarchy: below the node's lowest common
                // ancestor, the two sides hold different children.
                let all: Vec<u32> = lc.iter().chain(&rc).copied().collect();
                let lca = (1..h.levels())
                    .find(|&lv| all.iter().all(|&c| h.node(lv, c) == h.node(lv, all[0])))
                    .unwrap();
                let kids = |cs: &[u32]| -> Vec<u32> { cs.iter().map(|&c| h.node(lca - 1, c)).collect() };
                let (lk, rk) = (kids(&lc), kids(&rc));
                prop_assert!(lk.iter().all(|c| !rk.contains(c)));
            }
        }
    }

    #[test]
    fn a_k_anonymous_leaf_has_no_cut_left(ds in random_table(), k in 1u32..6) {
        // Independent of the orders: no threshold of the numeric QI and no
        // "most frequent value | the rest" split of the categorical one
        // leaves k rows on both sides of a group (or Mondrian would have
        // made that cut).
        let q = req(&ds, k, 0);
        let Ok(r) = Mondrian::k_anonymous().run(&q, &Progress::new()) else {
            return Ok(());
        };
        let k = k as usize;
        for g in &r.groups {
            let n = g.rows.len();
            for j in 0..2 {
                let col = ds.col(j);
                let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
                for &row in &g.rows {
                    *counts.entry(col.code(row as usize)).or_default() += 1;
                }
                if j == 0 {
                    let mut below = 0;
                    for &c in counts.values() {
                        below += c;
                        prop_assert!(!(below >= k && n - below >= k), "{:?}", g);
                    }
                } else {
                    let most = counts.values().copied().max().unwrap_or(0);
                    prop_assert!(!(most >= k && n - most >= k && counts.len() > 1), "{:?}", g);
                }
            }
        }
    }
}
