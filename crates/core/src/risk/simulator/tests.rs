use super::*;

fn table() -> Dataset {
    Dataset::from_rows(
        &["sex", "age", "zip"],
        &[
            vec!["M", "30", "100"],
            vec!["M", "30", "100"],
            vec!["M", "30", "200"],
            vec!["F", "30", "100"],
            vec!["F", "40", "100"],
            vec!["F", "40", "100"],
        ],
    )
    .unwrap()
}

#[test]
fn key_counts_give_probabilities() {
    let ds = table();
    let s = simulate(&ds, Knowledge::plain(&[0, 1, 2]), 0.4, &Progress::new()).unwrap();
    assert_eq!(s.matches, vec![2, 2, 1, 1, 2, 2]);
    assert_eq!(s.summary.classes, 4);
    assert_eq!(s.summary.k, 1);
    assert_eq!(s.summary.uniques, 2);
    assert!((s.summary.mean - 4.0 / 6.0).abs() < 1e-12);
    assert_eq!(s.summary.records_above_threshold, 6);
    assert_eq!(s.histogram[4].records, 4, "0.5 falls in (0.4, 0.5]");
    assert_eq!(s.histogram[9].records, 2);
    assert_eq!(s.cdf.len(), 2);
    assert_eq!(s.cdf[0].probability, 0.5);
    assert!((s.cdf[0].share - 4.0 / 6.0).abs() < 1e-12);
}

#[test]
fn prefix_table_by_attacker_knowledge() {
    let ds = table();
    let s = simulate(&ds, Knowledge::plain(&[0, 1, 2]), 0.2, &Progress::new()).unwrap();
    let rows: Vec<(usize, usize)> = s.prefix.iter().map(|p| (p.classes, p.uniques)).collect();
    // sex: {M×3, F×3}; sex+age: {M30×3, F30×1, F40×2}; all: 4 classes, 2 uniques.
    assert_eq!(rows, vec![(2, 0), (3, 1), (4, 2)]);
    assert_eq!(s.prefix[1].attributes, vec!["sex", "age"]);
}

#[test]
fn hidden_cells_are_wildcards_on_both_sides() {
    let ds = table();
    // Hide row 2's zip (the only 200) and row 3's sex.
    let mut zip_hidden = FixedBitSet::with_capacity(6);
    zip_hidden.insert(2);
    let mut sex_hidden = FixedBitSet::with_capacity(6);
    sex_hidden.insert(3);
    let hidden = [Some(&sex_hidden), None, Some(&zip_hidden)];
    let k = Knowledge {
        columns: &[0, 1, 2],
        hidden: &hidden,
    };
    let s = simulate(&ds, k, 0.2, &Progress::new()).unwrap();
    // Row 2 (M,30,*) matches rows 0,1 (M,30,100), row 3 (*,30,100) —
    // between 2 and 3 only age is visible on both — and itself; row 3
    // likewise matches 0,1,2; rows 0,1 match 0,1,2,3. Rows 4,5 (age 40)
    // stay a pair.
    assert_eq!(s.matches, vec![4, 4, 4, 4, 2, 2]);
    assert_eq!(s.hidden_cells, 2);
    assert_eq!(s.summary.uniques, 0);
    assert_eq!(s.prefix.last().map(|p| p.uniques), Some(0));
}

#[test]
fn no_knowledge_means_one_class() {
    let ds = table();
    let s = simulate(&ds, Knowledge::plain(&[]), 0.2, &Progress::new()).unwrap();
    assert_eq!(s.summary.classes, 1);
    assert_eq!(s.summary.k, 6);
    assert!(s.prefix.is_empty());
}

#[test]
fn cancelled_run_stops() {
    let p = Progress::new();
    p.cancel();
    assert!(matches!(
        simulate(&table(), Knowledge::plain(&[0]), 0.2, &p),
        Err(Error::Cancelled)
    ));
}

/// A table whose column `a` takes `domains[a]` values: row / (a + 1)
/// plus a little deterministic jitter, modulo the domain.
fn wide_table(domains: &[u32], rows: usize) -> Dataset {
    let names: Vec<String> = (0..domains.len()).map(|a| format!("a{a}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let cells: Vec<Vec<String>> = (0..rows)
        .map(|r| {
            domains
                .iter()
                .enumerate()
                .map(|(a, &dom)| {
                    let jitter =
                        ((r * 31 + a * 17) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62;
                    format!("{}", (r / (a + 1) + jitter as usize) as u32 % dom)
                })
                .collect()
        })
        .collect();
    let rows: Vec<Vec<&str>> = cells
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect();
    Dataset::from_rows(&names, &rows).unwrap()
}

#[test]
fn forest_splits_on_leading_attributes_only_while_useful() {
    // Code spaces + hidden symbol: 2 → 4, 100 → 102, 300 → 302.
    let ds = wide_table(&[2, 100, 300], 2000);
    let cardinalities: Vec<usize> = ds.columns().iter().map(|c| c.cardinality()).collect();
    assert_eq!(cardinalities, vec![2, 100, 300]);
    let split = |cols: &[usize], per_tree| {
        let f = Forest::new(&ds, cols, per_tree);
        (f.attrs, f.trees)
    };
    // 2000 / 256 = 7 trees wanted: sex alone gives 4, sex × the next 408.
    assert_eq!(split(&[0, 1, 2], 256), (2, 4 * 102));
    assert_eq!(split(&[2, 0, 1], 256), (1, 302));
    // Never the last attribute.
    assert_eq!(split(&[0, 1], 256), (1, 4));
    assert_eq!(split(&[2], 1), (0, 1));
    // Small tables are one tree.
    assert_eq!(split(&[0, 1, 2], 4000), (0, 1));
    // One tree per record wanted: split as far as allowed.
    assert_eq!(split(&[1, 2, 0], 1), (2, 102 * 302));
    // But never into more than MAX_TREES trees.
    let many = wide_table(&[100_000, 2], 100_000);
    assert!(many.col(0).code_space() + 1 > MAX_TREES);
    assert_eq!(Forest::new(&many, &[0, 1], 1).trees, 1);
}

proptest::proptest! {
    /// The forest numbers classes by first appearance, as one trie or a
    /// hash grouping would, and its prefix table is the hash grouping's
    /// on the first j attributes, whatever the split.
    #[test]
    fn forest_agrees_with_hash_grouping(
        domains in proptest::collection::vec(1u32..40, 1..6),
        rows in 1usize..400,
        rotate in 0usize..6,
        per_tree in proptest::sample::select(vec![1usize, 3, 16, RECORDS_PER_TREE]),
    ) {
        let ds = wide_table(&domains, rows);
        let mut cols: Vec<usize> = (0..domains.len()).collect();
        cols.rotate_left(rotate % domains.len());
        let k = Knowledge::plain(&cols);
        let s = simulate_in_forest(&ds, k, 0.2, per_tree, &Progress::new()).unwrap();
        let p = Partition::by_columns(&ds, &cols);
        proptest::prop_assert_eq!(s.classes.class_ids(), p.class_ids());
        for (j, row) in s.prefix.iter().enumerate() {
            let pj = Partition::by_columns(&ds, &cols[..=j]);
            proptest::prop_assert_eq!((row.classes, row.uniques), (pj.n_classes(), pj.uniques()));
        }
    }

    /// With hidden cells, classes are the distinct published keys, a
    /// hidden cell being a symbol of its own.
    #[test]
    fn hidden_cells_make_their_own_key_symbol(
        domains in proptest::collection::vec(1u32..30, 2..5),
        rows in 1usize..300,
        step in 2usize..7,
        per_tree in proptest::sample::select(vec![1usize, 3, 16, RECORDS_PER_TREE]),
    ) {
        let ds = wide_table(&domains, rows);
        let d = domains.len();
        let mut hide = FixedBitSet::with_capacity(rows);
        for r in (0..rows).step_by(step) {
            hide.insert(r);
        }
        let hidden: Vec<Option<&FixedBitSet>> = (0..d).map(|a| (a == 0).then_some(&hide)).collect();
        let cols: Vec<usize> = (0..d).collect();
        let k = Knowledge { columns: &cols, hidden: &hidden };
        let s = simulate_in_forest(&ds, k, 0.2, per_tree, &Progress::new()).unwrap();
        let keys: std::collections::BTreeSet<Vec<Option<u32>>> = (0..rows)
            .map(|r| {
                (0..d)
                    .map(|a| (a != 0 || !hide.contains(r)).then(|| ds.col(a).code(r)))
                    .collect()
            })
            .collect();
        proptest::prop_assert_eq!(s.summary.classes, keys.len());
    }
}
