//! The performance targets of the foundation issue, timed stage by stage
//! (see BENCHMARKS.md for the figures and `bench/run.sh` for the
//! whole-process timings).
//!
//! `cargo bench --bench scale` generates the 1M-row census file into
//! `target/bench-data/` if it is not there yet (seeded, so always the same
//! bytes), then times each stage separately — CSV load, attack simulation,
//! privacy models — on that file and on Adult, and prints a table. Each
//! stage runs several times; the table shows the best and the median run,
//! because on a shared 2-core machine the best run is the one least
//! disturbed by other processes and the median shows how much they did.
//!
//! Environment: `ANONLAB_BENCH_RUNS` (default 5) runs per stage;
//! `ANONLAB_BENCH_ROWS` (default 1,000,000) rows of the synthetic file.

use std::path::Path;
use std::time::Duration;

#[path = "common/mod.rs"]
mod common;
use common::{census_file, env_usize, manifest_path, time, QI8 as QI};

use anonlab::data::{load_csv, CsvOptions, Dataset};
use anonlab::partition::Partition;
use anonlab::privacy::evaluate_all;
use anonlab::progress::Progress;
use anonlab::risk::{simulate, Knowledge};

const SENSITIVE: &str = "salary-class";

struct Row {
    data: &'static str,
    stage: &'static str,
    target: Option<Duration>,
    times: Vec<Duration>,
}

impl Row {
    fn best(&self) -> Duration {
        self.times.iter().copied().min().unwrap_or_default()
    }
    fn median(&self) -> Duration {
        let mut t = self.times.clone();
        t.sort();
        t.get(t.len() / 2).copied().unwrap_or_default()
    }
}

/// Load, simulate and evaluate one file, `runs` times each.
fn stages(
    data: &'static str,
    path: &Path,
    runs: usize,
    targets: [Option<Duration>; 5],
) -> Vec<Row> {
    let opts = CsvOptions::default();
    let load = time(runs, || load_csv(path, &opts).expect("load"));
    let ds: Dataset = load_csv(path, &opts).expect("load");
    let qi: Vec<usize> = QI
        .iter()
        .map(|n| ds.column_index(n).expect("QI column"))
        .collect();
    let sensitive = ds.column(SENSITIVE).expect("sensitive column");
    let sim = time(runs, || {
        simulate(&ds, Knowledge::plain(&qi), 0.2, &Progress::new()).expect("simulate")
    });
    let simulation = simulate(&ds, Knowledge::plain(&qi), 0.2, &Progress::new()).expect("simulate");
    let classes: &Partition = &simulation.classes;
    let models = time(runs, || evaluate_all(classes, &[sensitive]));
    // What pycanon's per-model timings cover: classes and models, no load.
    let assessed = time(runs, || {
        let s = simulate(&ds, Knowledge::plain(&qi), 0.2, &Progress::new()).expect("simulate");
        evaluate_all(&s.classes, &[sensitive])
    });
    let total = time(runs, || {
        let ds = load_csv(path, &opts).expect("load");
        let s = simulate(&ds, Knowledge::plain(&qi), 0.2, &Progress::new()).expect("simulate");
        let sens = ds.column(SENSITIVE).expect("sensitive column");
        evaluate_all(&s.classes, &[sens])
    });
    eprintln!(
        "{data}: {} rows, {} classes, k = {}, uniques = {}",
        ds.n_rows(),
        simulation.summary.classes,
        simulation.summary.k,
        simulation.summary.uniques
    );
    [
        ("CSV load (load_csv)", load),
        ("attack simulation (risk::simulate)", sim),
        ("privacy models (privacy::evaluate_all)", models),
        ("simulate + models", assessed),
        ("load + simulate + models", total),
    ]
    .into_iter()
    .zip(targets)
    .map(|((stage, times), target)| Row {
        data,
        stage,
        target,
        times,
    })
    .collect()
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is not supported.
    let runs = env_usize("ANONLAB_BENCH_RUNS", 5).max(1);
    let rows = env_usize("ANONLAB_BENCH_ROWS", 1_000_000);
    let adult = manifest_path("../shared/data/adult/adult.csv");
    let census = census_file(rows);

    let mut table = Vec::new();
    if adult.exists() {
        table.extend(stages("Adult (30,162 rows)", &adult, runs * 4, [None; 5]));
    } else {
        eprintln!("{} not found: Adult rows skipped", adult.display());
    }
    let secs = Duration::from_secs_f64;
    table.extend(stages(
        "census 1M",
        &census,
        runs,
        [Some(secs(1.0)), Some(secs(0.5)), None, None, None],
    ));

    println!(
        "| data | stage | best | median | runs | target | |\n|---|---|---:|---:|---:|---:|---|"
    );
    for r in &table {
        let (target, verdict) = match r.target {
            Some(t) if r.best() <= t => (format!("≤ {}", ms(t)), "pass"),
            Some(t) => (format!("≤ {}", ms(t)), "FAIL"),
            None => ("–".to_string(), ""),
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.data,
            r.stage,
            ms(r.best()),
            ms(r.median()),
            r.times.len(),
            target,
            verdict
        );
    }
}
