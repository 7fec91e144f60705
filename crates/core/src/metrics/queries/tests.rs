use super::*;
use crate::release::{Bucket, Cell, EquivalenceGroup};

/// | row | age | sex | salary | disease |
/// |-----|-----|-----|--------|---------|
/// | 0   | 20  | F   | 10     | flu     |
/// | 1   | 25  | M   | 20     | flu     |
/// | 2   | 30  | F   | 30     | cold    |
/// | 3   | 35  | M   | 40     | flu     |
fn ds() -> Dataset {
    Dataset::from_rows(
        &["age", "sex", "salary", "disease"],
        &[
            vec!["20", "F", "10", "flu"],
            vec!["25", "M", "20", "flu"],
            vec!["30", "F", "30", "cold"],
            vec!["35", "M", "40", "flu"],
        ],
    )
    .unwrap()
}

/// Groups {0, 1} = ([20-25], *) and {2, 3} = ([30-35], *), values on rows.
fn generalized(d: &Dataset) -> Release {
    let mut r = Release::new("hand", d, vec![0, 1], vec![2, 3]);
    r.groups = vec![
        EquivalenceGroup {
            rows: vec![0, 1],
            cells: vec![Cell::Interval { lo: 0, hi: 1 }, Cell::Suppressed],
        },
        EquivalenceGroup {
            rows: vec![2, 3],
            cells: vec![Cell::Interval { lo: 2, hi: 3 }, Cell::Suppressed],
        },
    ];
    r
}

/// QI values kept, buckets {0, 3} and {1, 2}.
fn bucketized(d: &Dataset) -> Release {
    let mut r = Release::new("hand", d, vec![0, 1], vec![2, 3]);
    r.groups = vec![EquivalenceGroup {
        rows: vec![0, 1, 2, 3],
        cells: vec![Cell::Original, Cell::Original],
    }];
    r.buckets = vec![Bucket { rows: vec![0, 3] }, Bucket { rows: vec![1, 2] }];
    r
}

fn q(aggregate: Aggregate, female: bool) -> Query {
    // age > 20 (code 0) AND sex ∈ {F}, or age > 20 only.
    let mut predicates = vec![Predicate {
        column: 0,
        condition: CodeTest::Greater(0),
    }];
    if female {
        predicates.push(Predicate {
            column: 1,
            condition: CodeTest::OneOf(vec![0]),
        });
    }
    Query {
        predicates,
        aggregate,
    }
}

fn answer(r: &Release, d: &Dataset, target: usize, query: &Query) -> Answer {
    QueryEngine::new(r, d, target).unwrap().answer(query)
}

#[test]
fn sum_bounds_by_hand() {
    let d = ds();
    // Actual: age > 20 and F → row 2 → 30.
    // Generalized: group {0,1}: [20-25] vs > 20 is partly true, * vs F
    // partly → both rows possible, upper += 10 + 20. Group {2,3}:
    // [30-35] > 20 all, sex partly → upper += 30 + 40. Bounds [0, 100].
    let a = answer(&generalized(&d), &d, 2, &q(Aggregate::Sum, true));
    assert_eq!(
        a,
        Answer {
            lower: 0.0,
            upper: 100.0,
            actual: 30.0
        }
    );
    // Bucketized: QIs are exact, so only row 2 satisfies, surely; its
    // bucket {1, 2} holds salaries 20 and 30: bounds [20, 30].
    let a = answer(&bucketized(&d), &d, 2, &q(Aggregate::Sum, true));
    assert_eq!(
        a,
        Answer {
            lower: 20.0,
            upper: 30.0,
            actual: 30.0
        }
    );
    // age > 20 alone on the bucketized release: rows 1, 2, 3 sure. Bucket
    // {0,3} (10, 40) has one sure row: [10, 40]; bucket {1,2} two: 50.
    let a = answer(&bucketized(&d), &d, 2, &q(Aggregate::Sum, false));
    assert_eq!(
        a,
        Answer {
            lower: 60.0,
            upper: 90.0,
            actual: 90.0
        }
    );
}

#[test]
fn count_bounds_by_hand() {
    let d = ds();
    let flu = d.col(3).code_of("flu").unwrap();
    let count = Aggregate::Count { code: flu };
    // Actual: row 2 only, cold → 0 flu. Generalized: row 0 flu, row 1
    // flu possible (group 1), row 3 flu possible (group 2): [0, 3].
    let a = answer(&generalized(&d), &d, 3, &q(count, true));
    assert_eq!(
        a,
        Answer {
            lower: 0.0,
            upper: 3.0,
            actual: 0.0
        }
    );
    // Sex ∈ {F} alone: rows 0, 2 sure in the bucketized release. Bucket
    // {0,3} is flu, flu: one sure row → exactly 1. Bucket {1,2} is flu,
    // cold: one sure row → 0 or 1. Bounds [1, 2], actual 1.
    let only_f = Query {
        predicates: vec![Predicate {
            column: 1,
            condition: CodeTest::OneOf(vec![0]),
        }],
        aggregate: count,
    };
    let a = answer(&bucketized(&d), &d, 3, &only_f);
    assert_eq!(
        a,
        Answer {
            lower: 1.0,
            upper: 2.0,
            actual: 1.0
        }
    );
}

#[test]
fn negative_values_widen_both_bounds() {
    let d = Dataset::from_rows(
        &["age", "x"],
        &[vec!["1", "-5"], vec!["2", "7"], vec!["3", "-2"]],
    )
    .unwrap();
    let mut r = Release::new("hand", &d, vec![0], vec![1]);
    r.groups = vec![EquivalenceGroup {
        rows: vec![0, 1, 2],
        cells: vec![Cell::Original],
    }];
    r.buckets = vec![Bucket {
        rows: vec![0, 1, 2],
    }];
    // age ≥ 2: rows 1, 2 sure, two of {−5, 7, −2}: lowest −7, highest 5.
    let query = Query {
        predicates: vec![Predicate {
            column: 0,
            condition: CodeTest::AtLeast(1),
        }],
        aggregate: Aggregate::Sum,
    };
    let a = QueryEngine::new(&r, &d, 1).unwrap().answer(&query);
    assert_eq!(
        a,
        Answer {
            lower: -7.0,
            upper: 5.0,
            actual: 5.0
        }
    );
    // As a generalized release (one group, age suppressed): every row is
    // possible, values on rows: [−7, 7].
    r.groups[0].cells = vec![Cell::Suppressed];
    r.buckets.clear();
    let a = QueryEngine::new(&r, &d, 1).unwrap().answer(&query);
    assert_eq!(
        a,
        Answer {
            lower: -7.0,
            upper: 7.0,
            actual: 5.0
        }
    );
}

#[test]
fn conditions_on_codes() {
    let codes = |c: CodeTest| (0..6).filter(|&x| c.holds(x)).collect::<Vec<u32>>();
    assert_eq!(codes(CodeTest::Greater(3)), vec![4, 5]);
    assert_eq!(codes(CodeTest::Less(0)), Vec::<u32>::new());
    assert_eq!(codes(CodeTest::Equal(2)), vec![2]);
    assert_eq!(codes(CodeTest::AtMost(1)), vec![0, 1]);
    assert_eq!(codes(CodeTest::AtLeast(4)), vec![4, 5]);
    assert_eq!(codes(CodeTest::NotEqual(3)), vec![0, 1, 2, 4, 5]);
    assert_eq!(codes(CodeTest::OneOf(vec![1, 4])), vec![1, 4]);
}

#[test]
fn workload_is_seeded_and_reported() {
    let d = ds();
    let r = generalized(&d);
    let a = query_error(&r, &d, 2, 200, 7, &Progress::new()).unwrap();
    let b = query_error(&r, &d, 2, 200, 7, &Progress::new()).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.seed, 7);
    assert_eq!(a.queries_used + a.skipped, 200);
    assert_eq!(a.aggregate, "SUM(salary)");
    let qs = generate_queries(&r, &d, 3, 50, 1).unwrap();
    assert!(qs.iter().all(|q| q.predicates.len() == 2));
    assert!(qs
        .iter()
        .all(|q| matches!(q.aggregate, Aggregate::Count { .. })));
    assert_ne!(qs, generate_queries(&r, &d, 3, 50, 2).unwrap());
    let e = query_error(&r, &d, 0, 10, 1, &Progress::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("'age' is a quasi-identifier"), "{e}");
}
