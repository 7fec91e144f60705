use super::*;

#[test]
fn gather_closes_runs_at_n_and_merges_the_tail() {
    // records 3 4 1 5 2, n = 5: 3+4 = 7 closes (0,1); 1+5 = 6 closes (2,3);
    // the tail 2 < 5 joins it: (2,4).
    let r = [3u64, 4, 1, 5, 2];
    assert_eq!(gather(0..5, |i| r[i], 5, false), vec![(0, 1), (2, 4)]);
    // Everything short of n is one run.
    assert_eq!(gather(0..3, |i| r[i], 100, false), vec![(0, 2)]);
    // A leading child without records stays alone with zero_alone.
    let z = [0u64, 6, 0, 2];
    assert_eq!(gather(0..4, |i| z[i], 5, true), vec![(0, 0), (1, 3)]);
    assert_eq!(gather(0..4, |i| z[i], 5, false), vec![(0, 3)]);
    // Regression (proptest): a short tail after an empty run kept alone
    // must reach back to a run with records: 5 | 0 | 1 with n = 2.
    let t = [5u64, 0, 1];
    assert_eq!(gather(0..3, |i| t[i], 2, true), vec![(0, 2)]);
}

/// Women are short, men tall: F 150×6, 160×6, 170×2; M 160×2, 170×6, 180×6.
fn heights() -> Dataset {
    let mut rows = Vec::new();
    for (sex, h, k) in [
        ("F", "150", 6),
        ("F", "160", 6),
        ("F", "170", 2),
        ("M", "160", 2),
        ("M", "170", 6),
        ("M", "180", 6),
    ] {
        for _ in 0..k {
            rows.push(vec![sex, h]);
        }
    }
    Dataset::from_rows(&["sex", "height"], &rows).unwrap()
}

#[test]
fn cuts_follow_each_sex_and_nest_by_hand() {
    // N = 5. sex is the only (so the most correlated) attribute: two
    // contexts of 14, F first (equal sizes, F's category first).
    // F over the root 150..180: 6 → [150]; 6 → 160; 2 + 0 join → [160-180].
    // M sees the root's children [150] (0 records, stays alone) and
    // [160-180] (14): a leaf, split 2 + 6 → [160-170], 6 → [180].
    let ds = heights();
    let spec = CorrelatedSpec::new(&ds, 1, 5);
    let r = construct(&ds, &spec).unwrap();
    assert_eq!(r.used, ["sex"]);
    let show = |c: &Context| {
        c.cut
            .iter()
            .map(|i| format!("{}:{}", i.label, i.records))
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(r.contexts.len(), 2);
    assert_eq!(r.contexts[0].when.as_deref(), Some("sex=F"));
    assert_eq!(show(&r.contexts[0]), "150:6 [160-180]:8");
    assert_eq!(r.contexts[1].when.as_deref(), Some("sex=M"));
    assert_eq!(show(&r.contexts[1]), "150:0 [160-170]:8 180:6");
    // Intervals by depth from the root: 150 only under itself; 160 and
    // 170 under [160-180] then [160-170]; 180 under [160-180] then 180.
    let rows: Vec<String> = r.hierarchy.rows().map(|x| x.join(";")).collect();
    assert_eq!(
        rows,
        [
            "150;150;150;*",
            "160;[160-170];[160-180];*",
            "170;[160-170];[160-180];*",
            "180;180;[160-180];*"
        ]
    );
    // G: one condition per interval with records (M's empty [150] has none).
    let g: Vec<String> = r
        .conditions
        .conditions
        .iter()
        .map(|c| format!("{} -> {:?}", c.when.as_deref().unwrap_or(""), c.interval))
        .collect();
    assert_eq!(
        g,
        [
            "sex=F and height>=150 and height<=150 -> Some([150.0, 150.0])",
            "sex=F and height>=160 and height<=180 -> Some([160.0, 180.0])",
            "sex=M and height>=160 and height<=170 -> Some([160.0, 170.0])",
            "sex=M and height>=180 and height<=180 -> Some([180.0, 180.0])",
        ]
    );
}

#[test]
fn a_thin_context_gets_the_root_and_rare_values_pool() {
    // N = 15: each sex has 14 < 15 records, so both pool into one group
    // and sex makes no split. The one context (28 records) is cut
    // greedily: 150 (6) + 160 (8) + 170 (8) = 22 closes [150-170], and
    // 180 (6) joins it: one piece, the root, so the hierarchy is leaf;*.
    let ds = heights();
    let r = construct(&ds, &CorrelatedSpec::new(&ds, 1, 15)).unwrap();
    assert!(r.used.is_empty());
    assert_eq!(r.contexts.len(), 1);
    assert_eq!(r.contexts[0].when, None);
    assert_eq!(r.hierarchy.levels(), 2);
    assert_eq!(r.conditions.conditions.len(), 1);
}

#[test]
fn other_group_is_a_negation_that_catches_missing_cells() {
    // g: a×6, b×6, c×2 (rare), missing×1; N = 5: groups a, b, and the
    // pool {c, ?} (3 < 5) joins the smallest group (a, ties by order),
    // which becomes "not (g=b)".
    let mut rows = Vec::new();
    for (g, k) in [("a", 6), ("b", 6), ("c", 2), ("", 1)] {
        for i in 0..k {
            rows.push(vec![g, if i % 2 == 0 { "1" } else { "2" }]);
        }
    }
    let ds = Dataset::from_rows(&["g", "x"], &rows).unwrap();
    let d = Discretization::default();
    let cats = categorize(ds.col(0), &d).unwrap();
    let all = Ctx {
        parts: Vec::new(),
        rows: (0..ds.n_rows() as u32).collect(),
    };
    let subs = split(&all, ds.col(0), &cats, 5).unwrap().unwrap();
    let whens: Vec<String> = subs.iter().map(|c| c.when().unwrap()).collect();
    assert_eq!(whens, ["g=b", "not (g=b)"]);
    for s in &subs {
        let hit = crate::data::Rule::parse(&s.when().unwrap())
            .unwrap()
            .evaluate(&ds)
            .unwrap();
        let rows: Vec<u32> = hit.ones().map(|r| r as u32).collect();
        assert_eq!(rows, s.rows, "{}", s.when().unwrap());
    }
}

#[test]
fn words_are_quoted_only_when_needed() {
    assert_eq!(word("Married-civ-spouse").unwrap(), "Married-civ-spouse");
    assert_eq!(word("New York").unwrap(), "\"New York\"");
    assert_eq!(word("in").unwrap(), "\"in\"");
    assert_eq!(word("a\"b").unwrap(), "'a\"b'");
    assert!(word("a\"b'c").is_err());
}

#[test]
fn a_categorical_focus_is_refused() {
    let ds = heights();
    let e = construct(&ds, &CorrelatedSpec::new(&ds, 0, 5)).unwrap_err();
    assert!(e.to_string().contains("'sex' is not numeric"), "{e}");
}

/// The paper's Table 2 (height × age, 50 people per age), with age as a
/// text attribute so each age is one value group.
fn table_2() -> Dataset {
    let counts: [(&str, [usize; 3]); 8] = [
        ("140", [0, 1, 1]),
        ("145", [4, 1, 0]),
        ("150", [11, 0, 2]),
        ("155", [23, 2, 2]),
        ("160", [9, 7, 1]),
        ("165", [2, 9, 12]),
        ("170", [1, 20, 17]),
        ("175", [0, 10, 15]),
    ];
    let mut rows = Vec::new();
    for (h, by_age) in counts {
        for (age, k) in ["a12", "a15", "a20"].into_iter().zip(by_age) {
            for _ in 0..k {
                rows.push(vec![h, age]);
            }
        }
    }
    Dataset::from_rows(&["height", "age"], &rows).unwrap()
}

/// Tables 1–2's point: ages 15 and 20 are tall, age 12 short, and each
/// should get its own cut. N = 10. The nested tree lets the first context
/// (age 12, first of three equal sizes) cut the root into [140-150] |
/// 155 | [160-175], and the tall ages can then only merge those pieces:
/// their few records below 160 cannot stand alone, so each gets only
/// [140-175] (what the issue found). On trees of
/// their own (`per_context`) they get the paper's finer cuts around
/// 170 cm, and G carries them.
#[test]
fn table_2_per_context_cuts_where_the_nested_tree_cannot() {
    let ds = table_2();
    let mut spec = CorrelatedSpec::new(&ds, 0, 10);
    let show = |c: &Context| {
        c.cut
            .iter()
            .filter(|i| i.records > 0)
            .map(|i| format!("{}:{}", i.label, i.records))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let nested = construct(&ds, &spec).unwrap();
    assert_eq!(nested.used, ["age"]);
    let by_age = |r: &CorrelatedHierarchy| -> Vec<String> {
        r.contexts
            .iter()
            .map(|c| format!("{}: {}", c.when.as_deref().unwrap_or(""), show(c)))
            .collect()
    };
    assert_eq!(
        by_age(&nested),
        [
            "age=a12: [140-150]:15 155:23 [160-175]:12",
            "age=a15: [140-175]:50",
            "age=a20: [140-175]:50",
        ]
    );
    assert_eq!(
        nested.contexts.iter().map(|c| c.alone).collect::<Vec<_>>(),
        [3, 3, 3]
    );
    spec.per_context = true;
    let own = construct(&ds, &spec).unwrap();
    assert_eq!(
        by_age(&own),
        [
            "age=a12: [140-150]:15 155:23 [160-175]:12",
            "age=a15: [140-160]:11 [165-170]:29 175:10",
            "age=a20: [140-165]:18 170:17 175:15",
        ]
    );
    // G follows the per-context cuts; the hierarchy file is the nested one.
    assert!(own
        .conditions
        .conditions
        .iter()
        .any(|c| c.when.as_deref() == Some("age=a15 and height>=165 and height<=170")));
    assert_eq!(
        own.hierarchy.rows().collect::<Vec<_>>(),
        nested.hierarchy.rows().collect::<Vec<_>>()
    );
}
