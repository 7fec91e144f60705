//! Numeric risk and information loss (issue 34) timed in process on a
//! synthetic file of 1,000,000 records × 3 numeric columns (income,
//! expenditure and savings drawn log-normal and correlated, seed 34) and
//! its perturbation by additive noise of 10 % of each column's standard
//! deviation (sdcMicro's `addNoise(noise = 10)`, seed 35): the interval
//! risk (dRisk), dRiskRMD with its MCD, distance-based record linkage,
//! IL1s (total and per record), the eigenvalue, robust eigenvalue and
//! moment losses. Generating the file is not timed. BENCHMARKS.md,
//! "Issue 34: numeric risk and loss".
//!
//! `cargo bench --bench numeric_risk`; `ANONLAB_BENCH_RUNS` (default 3),
//! `ANONLAB_BENCH_ROWS` (default 1,000,000).

#[path = "common/mod.rs"]
mod common;
use common::{env_usize, time};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use anonlab::metrics::{eigen_loss, il1s, il1s_per_record, moment_loss, robust_eigen_loss};
use anonlab::risk::{
    distance_linkage, interval_risk, rmd_risk, RmdOptions, DEFAULT_INTERVAL_K, DEFAULT_RANK_CAP,
};
use anonlab::stats::mcd::McdOptions;
use anonlab::stats::sample_sd;

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u: f64 = 1.0 - rng.random::<f64>();
    let v: f64 = rng.random();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

fn synthetic(rows: usize) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let mut x: Vec<Vec<f64>> = (0..3).map(|_| Vec::with_capacity(rows)).collect();
    for _ in 0..rows {
        let a = normal(&mut rng);
        let b = 0.7 * a + 0.71 * normal(&mut rng);
        let c = 0.4 * a + 0.9 * normal(&mut rng);
        x[0].push((10.0 + 0.8 * a).exp());
        x[1].push((9.5 + 0.6 * b).exp());
        x[2].push((8.0 + 1.0 * c).exp());
    }
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    let xm = x
        .iter()
        .map(|c| {
            let sd = sample_sd(c) * 0.1;
            c.iter().map(|v| v + sd * normal(&mut rng)).collect()
        })
        .collect();
    (x, xm)
}

fn main() {
    let runs = env_usize("ANONLAB_BENCH_RUNS", 3).max(1);
    let rows = env_usize("ANONLAB_BENCH_ROWS", 1_000_000);
    let (x, xm) = synthetic(rows);
    println!(
        "{:<40} {:>10} {:>10} {:>10}  figure",
        format!("{rows} rows x 3, additive noise 10 %"),
        "median",
        "best",
        "worst"
    );
    let row = |label: &str, figure: String, mut t: Vec<std::time::Duration>| {
        t.sort();
        let s = |d: std::time::Duration| format!("{:.3} s", d.as_secs_f64());
        println!(
            "{:<40} {:>10} {:>10} {:>10}  {figure}",
            label,
            s(t[t.len() / 2]),
            s(t[0]),
            s(t[t.len() - 1])
        );
    };
    let mut v = 0.0;
    let t = time(runs, || {
        v = interval_risk(&x, &xm, DEFAULT_INTERVAL_K).unwrap()
    });
    row("dRisk (interval, k = 0.05)", format!("{v:.6}"), t);
    let mut r = None;
    let t = time(runs, || {
        r = Some(rmd_risk(&x, &xm, RmdOptions::default()).unwrap())
    });
    let r = r.unwrap();
    row(
        "dRiskRMD (MCD + RMDID1/2)",
        format!("risk1 {:.6} risk2 {:.6}", r.risk1, r.risk2),
        t,
    );
    let mut l = None;
    let t = time(runs, || {
        l = Some(distance_linkage(&x, &xm, DEFAULT_RANK_CAP).unwrap())
    });
    let l = l.unwrap();
    row(
        "distance linkage (rank cap 100)",
        format!(
            "share {:.6}, ranks 1..5,>5 {:?}",
            l.share,
            l.rank_histogram(5)
        ),
        t,
    );
    let t = time(runs, || v = il1s(&x, &xm).unwrap());
    row("IL1s", format!("{v:.3}"), t);
    let t = time(runs, || v = il1s_per_record(&x, &xm).unwrap().iter().sum());
    row("IL1s per record", format!("{v:.3}"), t);
    let t = time(runs, || v = eigen_loss(&x, &xm).unwrap());
    row("eigen", format!("{v:.6}"), t);
    let t = time(runs, || {
        v = robust_eigen_loss(&x, &xm, McdOptions::default()).unwrap()
    });
    row("robeigen (two MCDs)", format!("{v:.6}"), t);
    let mut m = None;
    let t = time(runs, || m = Some(moment_loss(&x, &xm).unwrap()));
    row(
        "means, covariances, correlations",
        format!("{:?}", m.unwrap()),
        t,
    );
}
