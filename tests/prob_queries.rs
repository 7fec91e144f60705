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

/// Pro_t(A) by the module doc's definition, one row and one predicate at
/// a time: the row's local bucket of A (its values with their
/// multiplicities), else the codes its group's cell of A stands for (each
/// once; a suppressed cell every code, the missing one when the column has
/// missing cells), else its own value. Nothing is shared with the engine.
fn pro_by_definition(
    release: &Release,
    ds: &anonlab::data::Dataset,
    group: usize,
    row: u32,
    p: &anonlab::metrics::Predicate,
) -> f64 {
    use anonlab::release::Cell;
    let col = ds.col(p.column);
    let missing = col.missing_code();
    let holds = |c: u32| c != missing && p.condition.holds(c);
    let share =
        |codes: &[u32]| codes.iter().filter(|&&c| holds(c)).count() as f64 / codes.len() as f64;
    if let Some(local) = release.local_buckets.iter().find(|l| l.column == p.column) {
        if let Some(b) = local.buckets.iter().find(|b| b.rows.contains(&row)) {
            let codes: Vec<u32> = b.rows.iter().map(|&r| col.code(r as usize)).collect();
            return share(&codes);
        }
    }
    let own = col.code(row as usize);
    let Some(a) = release
        .quasi_identifiers
        .iter()
        .position(|&c| c == p.column)
    else {
        return f64::from(u8::from(holds(own)));
    };
    let codes: Vec<u32> = match &release.groups[group].cells[a] {
        Cell::Original => return f64::from(u8::from(holds(own))),
        Cell::Value { code } => vec![*code],
        Cell::Interval { lo, hi } => (*lo..=*hi).collect(),
        Cell::Set { codes, .. } => codes.clone(),
        Cell::Suppressed => {
            let top = if col.missing_count() > 0 {
                missing
            } else {
                missing - 1
            };
            (0..=top).collect()
        }
    };
    share(&codes)
}

/// The LGB paper's bounds (Section 4.2) by definition: P_b = Σ Pro(t) over
/// the rows of each target bucket (a local bucket of the target, else the
/// row alone), between ⌊P_b⌋ and ⌈P_b⌉ of its tuples, the smallest and
/// largest of its values taken (COUNT: of the counted value).
fn bounds_by_definition(
    release: &Release,
    ds: &anonlab::data::Dataset,
    target: usize,
    q: &anonlab::metrics::Query,
) -> (f64, f64) {
    use anonlab::metrics::Aggregate;
    let tcol = ds.col(target);
    let local = release.local_buckets.iter().find(|l| l.column == target);
    // (members, P) per bucket: the target's local buckets first, then one
    // bucket per published row outside them.
    let mut buckets: Vec<(Vec<u32>, f64)> = local
        .map(|l| l.buckets.iter().map(|b| (b.rows.clone(), 0.0)).collect())
        .unwrap_or_default();
    for (g, group) in release.groups.iter().enumerate() {
        for &r in &group.rows {
            let pro: f64 = q
                .predicates
                .iter()
                .map(|p| pro_by_definition(release, ds, g, r, p))
                .product();
            match buckets.iter().position(|b| b.0.contains(&r)) {
                Some(b) => buckets[b].1 += pro,
                None => buckets.push((vec![r], pro)),
            }
        }
    }
    let (mut lower, mut upper) = (0.0, 0.0);
    for (rows, p) in buckets {
        let size = rows.len() as f64;
        let lo = (p + 1e-9).floor().clamp(0.0, size) as usize;
        let hi = ((p - 1e-9).ceil().clamp(0.0, size) as usize).max(lo);
        match q.aggregate {
            Aggregate::Count { code } => {
                let n_v = rows
                    .iter()
                    .filter(|&&r| tcol.code(r as usize) == code)
                    .count();
                lower += lo.saturating_sub(rows.len() - n_v) as f64;
                upper += hi.min(n_v) as f64;
            }
            Aggregate::Sum => {
                let mut v: Vec<f64> = rows
                    .iter()
                    .map(|&r| tcol.number(tcol.code(r as usize)).unwrap_or(0.0))
                    .collect();
                v.sort_by(f64::total_cmp);
                let neg = v.iter().filter(|&&x| x < 0.0).count();
                let pos = v.iter().filter(|&&x| x > 0.0).count();
                lower += v[..neg.clamp(lo, hi)].iter().sum::<f64>();
                upper += v[v.len() - pos.clamp(lo, hi)..].iter().sum::<f64>();
            }
        }
    }
    (lower, upper)
}

/// The engine counts each local bucket's satisfying values once per query
/// and adds whole groups at once (what makes the workload fast on LGB
/// releases of Adult); on small random LGB releases — semi-sensitive cells
/// in local buckets, the target l-diverse or t-close, COUNT and SUM — its
/// bounds, and `query_errors`' probabilistic report, equal the definition's.
#[test]
fn on_lgb_releases_the_bounds_are_the_definitions() {
    use anonlab::algorithms::lgb::{lgb_mdp, lgb_ncp};
    use anonlab::metrics::query_errors;
    use fixedbitset::FixedBitSet;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    let mut checked = 0;
    for seed in 0..24u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = rng.random_range(20..70);
        let numeric_target = seed % 2 == 0;
        let names = ["q0", "q1", "s0", "s1", "t"];
        let cells: Vec<Vec<String>> = (0..n)
            .map(|_| {
                (0..5)
                    .map(|a| match a {
                        0 => (rng.random_range(0..9) * 5).to_string(),
                        1 => format!("v{}", rng.random_range(0..4)),
                        2 => (rng.random_range(0..6) * 10).to_string(),
                        3 => format!("w{}", rng.random_range(0..5)),
                        _ if numeric_target => rng.random_range(-3..9).to_string(),
                        _ => format!("x{}", rng.random_range(0..4)),
                    })
                    .collect()
            })
            .collect();
        let rows: Vec<Vec<&str>> = cells
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        let ds = anonlab::data::Dataset::from_rows(&names, &rows).unwrap();
        let semi: Vec<(usize, FixedBitSet)> = [2, 3]
            .into_iter()
            .map(|c| {
                let mut bits = FixedBitSet::with_capacity(n);
                for r in 0..n {
                    bits.set(r, rng.random_bool(0.3));
                }
                (c, bits)
            })
            .collect();
        let mut options = algorithms::Options {
            semi_sensitive: semi,
            ..Default::default()
        };
        // Half the cases: the target t-close (its local buckets larger).
        if seed % 4 < 2 {
            options.t_closeness = vec![(4, 0.5)];
        }
        let req = Request {
            ds: &ds,
            qi: vec![0, 1],
            sensitive: vec![4],
            identifiers: vec![],
            k: 2,
            l: 2,
            seed,
            options,
        };
        let run = if seed % 3 == 0 { lgb_ncp } else { lgb_mdp };
        let Ok(release) = run(&req, &Progress::new()) else {
            continue; // not l-eligible: refused, nothing to answer
        };
        assert!(!release.local_buckets.is_empty(), "seed {seed}");
        let engine = ProbabilisticEngine::new(&release, &ds, 4).unwrap();
        let workload = generate_queries(&release, &ds, 4, 60, seed).unwrap();
        let mut sum_error = (0.0, 0usize);
        for q in &workload {
            let a = engine.answer(q);
            let (lower, upper) = bounds_by_definition(&release, &ds, 4, q);
            assert!(
                (a.lower - lower).abs() < 1e-9 && (a.upper - upper).abs() < 1e-9,
                "seed {seed}, {q:?}: engine {a:?}, definition [{lower}, {upper}]"
            );
            if a.actual != 0.0 {
                sum_error.0 += (upper - lower) / a.actual.abs();
                sum_error.1 += 1;
            }
        }
        let (_, prob) = query_errors(&release, &ds, 4, 60, seed, &Progress::new()).unwrap();
        assert_eq!(prob.queries_used, sum_error.1, "seed {seed}");
        if sum_error.1 > 0 {
            let want = sum_error.0 / sum_error.1 as f64;
            assert!(
                (prob.mean_relative_error - want).abs() < 1e-9,
                "seed {seed}: {} vs {want}",
                prob.mean_relative_error
            );
        }
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} of 24 cases ran");
}
