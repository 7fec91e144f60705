//! PRAM (issue 34, part "PRAM") timed in process: sdcMicro's invariant
//! construction (pd = 0.8, alpha = 0.5) on the 7 categorical Adult
//! attributes (sex, race, marital-status, education, native-country,
//! workclass, occupation) of Adult (30,162 rows) and of the 1M-row
//! synthetic census (`synth::write_census`, seed 1), without strata and
//! within the strata of `sex` (the census's 2 values; Adult's too) for the
//! 6 others. Loading is excluded. Target: 1M rows ≤ 2 s. sdcMicro's time
//! on the same census file: `bench/sdcmicro/pram.R` with the file as 4th
//! argument (BENCHMARKS.md, "Issue 34: PRAM").
//!
//! `cargo bench --bench pram`; `ANONLAB_BENCH_RUNS` (default 5),
//! `ANONLAB_BENCH_CENSUS_RUNS` (default 3; 0 skips the census),
//! `ANONLAB_BENCH_ROWS` (default 1,000,000).

#[path = "common/mod.rs"]
mod common;
use common::{adult, census_file, env_usize, time};

use anonlab::algorithms::pram::{pram, MatrixSource, PramSpec};
use anonlab::data::{load_csv, CsvOptions, Dataset};
use anonlab::metrics::contingency_distance;
use anonlab::progress::Progress;

const CATEGORICAL: [&str; 7] = [
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
];

fn main() {
    let runs = env_usize("ANONLAB_BENCH_RUNS", 5).max(1);
    let census_runs = env_usize("ANONLAB_BENCH_CENSUS_RUNS", 3);
    let rows = env_usize("ANONLAB_BENCH_ROWS", 1_000_000);
    println!(
        "{:<44} {:>10} {:>10} {:>10}  changed cells (expected), table distance",
        "PRAM pd=0.8 alpha=0.5", "median", "best", "worst"
    );
    if let Some(ds) = adult() {
        row(
            "Adult (30,162 rows), 7 attributes",
            &ds,
            &CATEGORICAL,
            None,
            runs,
        );
        row(
            "Adult, 6 attributes within sex",
            &ds,
            &CATEGORICAL[1..],
            Some("sex"),
            runs,
        );
    }
    if census_runs > 0 {
        let path = census_file(rows);
        let ds = load_csv(&path, &CsvOptions::default()).expect("load census");
        row(
            &format!("census {rows} rows, 7 attributes"),
            &ds,
            &CATEGORICAL,
            None,
            census_runs,
        );
        row(
            &format!("census {rows} rows, 6 within sex"),
            &ds,
            &CATEGORICAL[1..],
            Some("sex"),
            census_runs,
        );
    }
}

fn row(label: &str, ds: &Dataset, names: &[&str], strata: Option<&str>, runs: usize) {
    let specs: Vec<PramSpec> = names
        .iter()
        .map(|n| PramSpec {
            column: ds.column_index(n).unwrap(),
            source: MatrixSource::default(),
        })
        .collect();
    let strata = strata.map(|s| ds.column_index(s).unwrap());
    let mut t = time(runs, || {
        pram(ds, &specs, strata, 1, &Progress::new()).expect("pram")
    });
    t.sort();
    let out = pram(ds, &specs, strata, 1, &Progress::new()).expect("pram");
    let changed: u64 = out.attributes.iter().map(|a| a.changed).sum();
    // Σ over attributes and strata of Σ_i f_i (1 − P_ii): what the
    // matrices drawn for this seed change in expectation.
    let expected: f64 = out
        .attributes
        .iter()
        .flat_map(|a| &a.matrices)
        .map(|m| {
            (0..m.matrix.len())
                .map(|i| m.frequencies[i] as f64 * (1.0 - m.matrix.get(i, i)))
                .sum::<f64>()
        })
        .sum();
    let orig: Vec<&[u32]> = specs.iter().map(|s| ds.col(s.column).codes()).collect();
    let publ: Vec<&[u32]> = out.attributes.iter().map(|a| a.codes.as_slice()).collect();
    let d = contingency_distance(&orig, &publ).expect("distance");
    let ms = |d: std::time::Duration| format!("{:.1} ms", d.as_secs_f64() * 1e3);
    println!(
        "{:<44} {:>10} {:>10} {:>10}  {changed} ({expected:.0}), {d:.4}",
        label,
        ms(t[t.len() / 2]),
        ms(t[0]),
        ms(t[t.len() - 1]),
    );
}
