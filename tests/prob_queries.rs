//! The probabilistic query engine (`metrics::prob_queries`) against the
//! deterministic one on releases of the demo data made by an algorithm:
//! without buckets the two give the same bounds, and pooling the sensitive
//! values per bucket only tightens them. (The engines' unit tests use
//! hand-made releases; these need an algorithm, which sits above metrics.)

use anonlab::algorithms::{self, Request};
use anonlab::metrics::{
    generate_queries, probabilistic_query_error, ProbabilisticEngine, QueryEngine,
};
use anonlab::progress::Progress;
use anonlab::release::{Bucket, Release};
use anonlab::session::Session;

/// A release of the demo data; the target is the sensitive attribute, the
/// three other columns are the QIs.
fn demo_release(algorithm: &str, k: u32, target: &str) -> (Session, Release, usize) {
    let s = Session::demo().unwrap();
    let ds = &s.dataset;
    let qi: Vec<usize> = ["sex", "age", "zip", "occupation"]
        .iter()
        .filter(|&&n| n != target)
        .map(|n| ds.column_index(n).unwrap())
        .collect();
    let target = ds.column_index(target).unwrap();
    let req = Request {
        ds,
        qi,
        sensitive: vec![target],
        identifiers: vec![ds.column_index("name").unwrap()],
        k,
        l: 3,
        seed: 7,
        options: Default::default(),
    };
    let release = algorithms::by_id(algorithm)
        .unwrap()
        .run(&req, &Progress::new())
        .unwrap();
    (s, release, target)
}

#[test]
fn without_buckets_the_bounds_are_the_deterministic_ones() {
    let (s, release, target) = demo_release("mondrian", 4, "age");
    let ds = &s.dataset;
    let prob = ProbabilisticEngine::new(&release, ds, target).unwrap();
    let det = QueryEngine::new(&release, ds, target).unwrap();
    for q in generate_queries(&release, ds, target, 200, 3).unwrap() {
        let (p, d) = (prob.answer(&q), det.answer(&q));
        assert!(
            (p.lower - d.lower).abs() < 1e-6 && (p.upper - d.upper).abs() < 1e-6,
            "{q:?}: {p:?} vs {d:?}"
        );
        assert_eq!(p.actual, d.actual);
    }
}

#[test]
fn in_buckets_the_bounds_lie_within_the_deterministic_ones() {
    // Sure rows add 1 to P_b and possible rows at most 1, so ⌊P_b⌋ and
    // ⌈P_b⌉ lie between the deterministic counts. Mondrian's groups with
    // the ages detached into buckets of four consecutive published rows
    // (so a bucket spans groups, as Anatomy's and CBG's do).
    let (s, mut release, target) = demo_release("mondrian", 4, "age");
    let rows: Vec<u32> = release.groups.iter().flat_map(|g| g.rows.clone()).collect();
    release.buckets = rows
        .chunks(4)
        .map(|c| Bucket { rows: c.to_vec() })
        .collect();
    let ds = &s.dataset;
    let prob = ProbabilisticEngine::new(&release, ds, target).unwrap();
    let det = QueryEngine::new(&release, ds, target).unwrap();
    let mut tighter = 0;
    for q in generate_queries(&release, ds, target, 200, 5).unwrap() {
        let (p, d) = (prob.answer(&q), det.answer(&q));
        assert!(d.lower - 1e-6 <= p.lower && p.lower <= p.upper + 1e-6);
        assert!(p.upper <= d.upper + 1e-6, "{q:?}: {p:?} vs {d:?}");
        tighter += usize::from(p.upper - p.lower < d.upper - d.lower - 1e-6);
    }
    assert!(tighter > 0, "pooling per bucket never tightened a bound");
    let report = probabilistic_query_error(&release, ds, target, 200, 5, &Progress::new()).unwrap();
    assert_eq!(report.queries_used + report.skipped, 200);
    assert_eq!(report.aggregate, "SUM(age)");
}
