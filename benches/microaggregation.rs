//! Issue 34 timed in process: MDAV at k = 3 on 1M rows × 3 numeric
//! attributes (target ≤ 10 s), the optimal univariate method on 1M × 1,
//! noise (additive, correlated2) and rank swapping on 1M × 3.
//!
//! Two 1M files:
//! - `target/bench-data/mdav-1000000.csv`: income, expend, savings drawn
//!   from a ChaCha8 stream (seed 34): log-normal incomes, expenditure a
//!   log-normal share of income, savings the rest plus normal noise, all
//!   rounded to cents. Written once; bench/sdcmicro/mdav_1m.R times
//!   sdcMicro's MDAV on the same file.
//! - the synthetic census (`synth::write_census`, seed 1): age,
//!   hours-per-week and zip, integers with many equal values and distance
//!   ties (the hard case for the tree's tie rules).
//!
//! A third row compares the k-d tree with the quadratic reference on the
//! first 20,000 rows of the first file (same groups asserted).
//!
//! `cargo bench --bench microaggregation`; `ANONLAB_BENCH_RUNS` (default
//! 3), `ANONLAB_BENCH_ROWS` (default 1,000,000).

#[path = "common/mod.rs"]
mod common;
use common::{census_file, env_usize, manifest_path, time};

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anonlab::algorithms::microaggregation::{
    mdav_groups, mdav_groups_in, mdav_groups_reference, microaggregate, optimal_groups,
    Aggregation, MicroaggregationOptions, Precision,
};
use anonlab::algorithms::noise::{noise_values, NoiseMethod};
use anonlab::algorithms::swapping::swap_values;
use anonlab::data::{load_csv, CsvOptions};
use anonlab::progress::Progress;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() {
    let runs = env_usize("ANONLAB_BENCH_RUNS", 3).max(1);
    let rows = env_usize("ANONLAB_BENCH_ROWS", 1_000_000);
    let path = money_file(rows);
    let x = read_columns(&path, &["income", "expend", "savings"]);
    let census = read_columns(&census_file(rows), &["age", "hours-per-week", "zip"]);
    let p = Progress::new();
    let opts = MicroaggregationOptions {
        k: 3,
        aggregation: Aggregation::Mean,
    };
    println!(
        "{:<52} {:>10} {:>10} {:>10}",
        "issue 34", "median", "best", "worst"
    );
    let mdav = |x: &[Vec<f64>]| microaggregate(x, None, opts, &p, mdav_groups).expect("mdav");
    row(
        &format!("MDAV k=3, {rows} x 3 (income, expend, savings)"),
        time(runs, || mdav(&x)),
    );
    row(
        &format!("MDAV k=3, census {rows} x 3 (age, hours, zip)"),
        time(runs, || mdav(&census)),
    );
    let head: Vec<Vec<f64>> = x.iter().map(|c| c[..20_000.min(rows)].to_vec()).collect();
    let fast = mdav_groups_in(&head, 3, Precision::Single, &p).unwrap();
    let slow = mdav_groups_reference(&head, 3, Precision::Single, &p).unwrap();
    assert_eq!(
        fast, slow,
        "tree and reference differ on the first 20,000 rows"
    );
    row(
        "MDAV k=3, 20,000 x 3, k-d tree",
        time(runs, || mdav_groups_in(&head, 3, Precision::Single, &p)),
    );
    row(
        "MDAV k=3, 20,000 x 3, quadratic reference",
        time(1, || mdav_groups_reference(&head, 3, Precision::Single, &p)),
    );
    row(
        &format!("optimal univariate k=3, {rows} x 1 (income)"),
        time(runs, || optimal_groups(&x[0], 3, &p).expect("optimal")),
    );
    let name = |c: u32| c.to_string();
    row(
        &format!("noise additive 150%, {rows} x 3"),
        time(runs, || {
            noise_values(
                &x,
                None,
                &name,
                NoiseMethod::Additive { noise: 150.0 },
                1,
                &p,
            )
            .expect("noise")
        }),
    );
    row(
        &format!("noise correlated2 delta 0.1, {rows} x 3"),
        time(runs, || {
            noise_values(
                &x,
                None,
                &name,
                NoiseMethod::Correlated2 { delta: 0.1 },
                1,
                &p,
            )
            .expect("noise")
        }),
    );
    row(
        &format!("rank swapping p=5%, {rows} x 3"),
        time(runs, || swap_values(&x, None, 5.0, 1, &p).expect("swap")),
    );
}

fn row(label: &str, mut t: Vec<Duration>) {
    t.sort();
    let s = |d: Duration| format!("{:.2} s", d.as_secs_f64());
    println!(
        "{:<52} {:>10} {:>10} {:>10}",
        label,
        s(t[t.len() / 2]),
        s(t[0]),
        s(t[t.len() - 1])
    );
}

fn read_columns(path: &Path, names: &[&str]) -> Vec<Vec<f64>> {
    let ds = load_csv(path, &CsvOptions::default()).expect("load");
    let cols: Vec<usize> = names
        .iter()
        .map(|n| ds.column_index(n).expect("column"))
        .collect();
    anonlab::algorithms::microaggregation::numeric_columns(&ds, &cols).expect("numeric")
}

/// The income/expend/savings file, written once (seed 34).
fn money_file(rows: usize) -> PathBuf {
    let dir = manifest_path("target/bench-data");
    let path = dir.join(format!("mdav-{rows}.csv"));
    if path.exists() {
        return path;
    }
    std::fs::create_dir_all(&dir).expect("create target/bench-data");
    let tmp = dir.join(format!("mdav-{rows}.csv.tmp"));
    let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp).expect("create"));
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let mut normal = || {
        let u1 = 1.0 - rng.random::<f64>();
        let u2: f64 = rng.random();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    };
    writeln!(w, "income,expend,savings").unwrap();
    let cents = |v: f64| (v * 100.0).round() / 100.0;
    for _ in 0..rows {
        let income = (10.0 + 0.6 * normal()).exp();
        let expend = income * 0.6 * (0.3 * normal()).exp();
        let savings = (income - expend + 5000.0 * normal()).max(0.0);
        writeln!(w, "{},{},{}", cents(income), cents(expend), cents(savings)).unwrap();
    }
    drop(w);
    std::fs::rename(&tmp, &path).expect("rename");
    eprintln!("generated {}", path.display());
    path
}
