//! LGB (issue 4) timed in process on Adult with the settings, the
//! CSV load and the cell masks excluded: QIs race, marital-status,
//! education, workclass, native-country; semi-sensitive sex, age,
//! occupation with 20 % of their cells sensitive (seeded density, seed 42);
//! sensitive salary-class; k = 5, l = 2; t-closeness t = 0.2 for sex and —
//! since Adult's binary salary-class is not 2-eligible (75 % `<=50K`) — for
//! salary-class too. Targets (median): LGB_MDP ≤ 1 s, LGB_NCP ≤ 5 s
//! (`anonymize::run`, i.e. the registered algorithm). The verifier's time on
//! each release is shown for scale.
//!
//! `cargo bench --bench lgb`; `ANONLAB_BENCH_RUNS` (default 15).

#[path = "common/mod.rs"]
mod common;
use common::{adult, env_usize, time};

use std::time::Duration;

use anonlab::algorithms::{Options, Request};
use anonlab::anonymize;
use anonlab::data::{CellSensitivity, SensitivitySource};
use anonlab::privacy::verify;
use anonlab::progress::Progress;

const QI: [&str; 5] = [
    "race",
    "marital-status",
    "education",
    "workclass",
    "native-country",
];
const SEMI: [&str; 3] = ["sex", "age", "occupation"];

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let Some(ds) = adult() else { return };
    let runs = env_usize("ANONLAB_BENCH_RUNS", 15).max(1);
    let c = |n: &str| ds.column_index(n).expect("column");
    let density = CellSensitivity::new(SensitivitySource::Density {
        density: 0.2,
        seed: 42,
    });
    let req = Request {
        ds: &ds,
        qi: QI.iter().map(|n| c(n)).collect(),
        sensitive: vec![c("salary-class")],
        identifiers: vec![],
        k: 5,
        l: 2,
        seed: 42,
        options: Options {
            semi_sensitive: SEMI
                .iter()
                .map(|n| (c(n), density.resolve(&ds, n).expect("density")))
                .collect(),
            t_closeness: vec![(c("sex"), 0.2), (c("salary-class"), 0.2)],
            ..Default::default()
        },
    };
    println!("| algorithm (Adult, k=5, l=2, 20 % density) | median | best | worst | runs | target | | release | verifier (median) |");
    println!("|---|---:|---:|---:|---:|---:|---|---|---:|");
    for (id, target) in [("lgb-mdp", 1.0), ("lgb-ncp", 5.0)] {
        let mut times = time(runs, || {
            anonymize::run(id, &req, &Progress::new()).expect(id)
        });
        times.sort();
        let (release, _) = anonymize::run(id, &req, &Progress::new()).expect(id);
        let mut checks = time(runs.min(5), || verify(&release, &ds));
        checks.sort();
        let v = verify(&release, &ds);
        assert!(v.all_hold(), "{v}");
        let median = times[times.len() / 2];
        let target = Duration::from_secs_f64(target);
        let buckets: usize = release.local_buckets.iter().map(|l| l.buckets.len()).sum();
        let c_dm: u64 = release
            .groups
            .iter()
            .map(|g| (g.rows.len() as u64).pow(2))
            .sum();
        println!(
            "| {id} | {} | {} | {} | {} | ≤ {} | {} | {} groups (C_DM {c_dm}), {buckets} local buckets, {} suppressed | {} |",
            ms(median),
            ms(times[0]),
            ms(times[times.len() - 1]),
            times.len(),
            ms(target),
            if median <= target { "pass" } else { "FAIL" },
            release.groups.len(),
            release.suppressed_rows.len(),
            ms(checks[checks.len() / 2]),
        );
    }
}
