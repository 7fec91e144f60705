//! Local suppression (issue 33) timed in process: k = 5 on Adult (30,162
//! rows) with the 8 demographic key variables, and on the 1M-row synthetic
//! census (`synth::write_census`, seed 1) with the same 8. The run is the
//! algorithm with its release (the search, sdcMicro's greedy as its floor,
//! the groups); loading is excluded, and verification and measurement are
//! the whole process's (BENCHMARKS.md, "Issue 33"). Targets, for the whole
//! process: Adult ≤ 1 s, 1M rows ≤ 30 s. Each row also gives the cells
//! the search suppressed against sdcMicro's greedy alone.
//!
//! `cargo bench --bench local_suppression`; `ANONLAB_BENCH_RUNS` (default
//! 3), `ANONLAB_BENCH_CENSUS_RUNS` (default 1; 0 skips the census),
//! `ANONLAB_BENCH_ROWS` (default 1,000,000).

#[path = "common/mod.rs"]
mod common;
use common::{adult, census_file, env_usize, time, QI8};

use anonlab::algorithms::local_suppression::sdcmicro_greedy;
use anonlab::algorithms::{by_id, Options, Request};
use anonlab::data::{load_csv, CsvOptions, Dataset};
use anonlab::progress::Progress;

fn main() {
    let runs = env_usize("ANONLAB_BENCH_RUNS", 3).max(1);
    let census_runs = env_usize("ANONLAB_BENCH_CENSUS_RUNS", 1);
    let rows = env_usize("ANONLAB_BENCH_ROWS", 1_000_000);
    println!(
        "{:<34} {:>10} {:>10} {:>10}  cells (search / greedy alone)",
        "local suppression k=5, 8 keys", "median", "best", "worst"
    );
    if let Some(ds) = adult() {
        row("Adult (30,162 rows)", &ds, runs);
    }
    if census_runs > 0 {
        let path = census_file(rows);
        let ds = load_csv(&path, &CsvOptions::default()).expect("load census");
        row(&format!("census {rows} rows"), &ds, census_runs);
    }
}

fn row(label: &str, ds: &Dataset, runs: usize) {
    let qi: Vec<usize> = QI8.iter().map(|c| ds.column_index(c).unwrap()).collect();
    let req = Request {
        ds,
        qi: qi.clone(),
        sensitive: vec![],
        identifiers: vec![],
        k: 5,
        l: 1,
        seed: 0,
        options: Options::default(),
    };
    let algo = by_id("local-suppression").unwrap();
    let mut t = time(runs, || algo.run(&req, &Progress::new()).expect("run"));
    t.sort();
    let release = algo.run(&req, &Progress::new()).expect("run");
    let s = release.suppression.expect("cells");
    let (_, greedy) = sdcmicro_greedy(ds, &qi, 5, &[], &Progress::new()).expect("greedy");
    let ms = |d: std::time::Duration| format!("{:.1} ms", d.as_secs_f64() * 1e3);
    println!(
        "{:<34} {:>10} {:>10} {:>10}  {} / {} ({})",
        label,
        ms(t[t.len() / 2]),
        ms(t[0]),
        ms(t[t.len() - 1]),
        s.total,
        greedy,
        s.method
    );
}
