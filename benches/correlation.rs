//! The correlation speed target of issue 5, timed in process (CSV load
//! excluded): the matrix over Adult's 9 attributes, target ≤ 50 ms (median),
//! for each measure; and, for reference, the correlation-based hierarchy
//! construction (Algorithm 4) of age with N = 300, conditioned on sex, race
//! and marital-status (the EXPERIMENTS.md setting).
//!
//! `cargo bench --bench correlation`; `ANONLAB_BENCH_RUNS` (default 25).

use std::time::Duration;

#[path = "common/mod.rs"]
mod common;
use common::{env_usize, manifest_path, time};

use anonlab::data::{load_csv, CsvOptions};
use anonlab::hierarchy::correlated::{construct, CorrelatedSpec};
use anonlab::stats::{correlation_matrix, Discretization, Measure};

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let runs = env_usize("ANONLAB_BENCH_RUNS", 25).max(1);
    let adult = manifest_path("../shared/data/adult/adult.csv");
    if !adult.exists() {
        eprintln!("{} not found: nothing to time", adult.display());
        return;
    }
    let ds = load_csv(&adult, &CsvOptions::default()).expect("load Adult");
    let all: Vec<usize> = (0..ds.n_cols()).collect();
    let d = Discretization::default();
    let target = Duration::from_millis(50);
    println!(
        "| data | stage | median | best | worst | runs | target (median) | |\n|---|---|---:|---:|---:|---:|---:|---|"
    );
    let row = |stage: String, mut t: Vec<Duration>, target: Option<Duration>| {
        t.sort();
        let med = t[t.len() / 2];
        let (tgt, verdict) = match target {
            Some(x) => (
                format!("≤ {}", ms(x)),
                if med <= x { "pass" } else { "FAIL" },
            ),
            None => ("–".into(), ""),
        };
        println!(
            "| Adult (30,162 rows) | {stage} | {} | {} | {} | {} | {tgt} | {verdict} |",
            ms(med),
            ms(t[0]),
            ms(t[t.len() - 1]),
            t.len()
        );
    };
    for m in Measure::ALL {
        let t = time(runs, || {
            correlation_matrix(&ds, &all, m, &d).expect("matrix")
        });
        row(
            format!("correlation matrix, 9 attributes, {m} (stats::correlation_matrix)"),
            t,
            Some(target),
        );
    }
    let age = ds.column_index("age").expect("age");
    let mut spec = CorrelatedSpec::new(&ds, age, 300);
    spec.attributes = ["sex", "race", "marital-status"]
        .iter()
        .map(|c| ds.column_index(c).expect("column"))
        .collect();
    let t = time(runs, || construct(&ds, &spec).expect("Algorithm 4"));
    row(
        "Algorithm 4: age, N = 300, on sex, race, marital-status (hierarchy::correlated::construct)".into(),
        t,
        None,
    );
}
