//! How long drawing a chart takes (issue 7: the TUI's `e` export and the
//! report render charts on demand), timed in process on Adult: the data
//! (simulation, correlation matrix) is computed once, then each chart is
//! built and rendered to SVG and to PNG (1200 × 720) — the rendering is
//! what is timed. No target is set by the issue; the figures say whether
//! rendering can sit on the UI thread (it should stay well under 100 ms).
//!
//! `cargo bench --bench charts`; `ANONLAB_BENCH_RUNS` (default 10).

use std::time::Duration;

#[path = "common/mod.rs"]
mod common;
use common::{env_usize, manifest_path, time};

use anonlab::charts::{self, Chart};
use anonlab::data::{load_csv, CsvOptions};
use anonlab::progress::Progress;
use anonlab::risk::{simulate, Knowledge};
use anonlab::stats::{correlation_matrix, Discretization, Measure};

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let runs = env_usize("ANONLAB_BENCH_RUNS", 10).max(1);
    let adult = manifest_path("../shared/data/adult/adult.csv");
    if !adult.exists() {
        eprintln!("{} not found: nothing to time", adult.display());
        return;
    }
    let ds = load_csv(&adult, &CsvOptions::default()).expect("load Adult");
    let qi: Vec<usize> = (0..8).collect();
    let sim = simulate(&ds, Knowledge::plain(&qi), 0.2, &Progress::new()).expect("simulate");
    let all: Vec<usize> = (0..ds.n_cols()).collect();
    let m =
        correlation_matrix(&ds, &all, Measure::Phi2, &Discretization::default()).expect("matrix");
    let sweep: Vec<Vec<Option<f64>>> = (0..4)
        .map(|i| {
            (0..5)
                .map(|j| Some(0.1 + 0.01 * (i * 5 + j) as f64))
                .collect()
        })
        .collect();
    let charts: Vec<(&str, Chart)> = vec![
        (
            "Pr(re-id) histogram",
            charts::reid_histogram(&[("original", &sim.histogram)]).unwrap(),
        ),
        (
            "Pr(re-id) CDF",
            charts::reid_cdf(&[("original", &sim.cdf)]).unwrap(),
        ),
        (
            "class sizes (30,162 records binned)",
            charts::class_sizes(&[("original", &sim.matches)]).unwrap(),
        ),
        (
            "correlation heat map 9×9",
            charts::correlation_heatmap(&m).unwrap(),
        ),
        (
            "prefix (8 attributes)",
            charts::prefix_chart(&[("original", &sim.prefix)]).unwrap(),
        ),
        (
            "(k, l) sweep 4×5",
            charts::sweep_heatmap("mean breach", &[2, 3, 5, 10, 20], &[2, 3, 4, 6], sweep).unwrap(),
        ),
    ];
    println!("| chart (Adult, 8 QIs) | SVG median | PNG median | PNG best | runs |");
    println!("|---|---:|---:|---:|---:|");
    for (name, c) in &charts {
        let mut svg = time(runs, || c.to_svg().expect("svg"));
        let mut png = time(runs, || c.to_png().expect("png"));
        svg.sort();
        png.sort();
        println!(
            "| {name} | {} | {} | {} | {runs} |",
            ms(svg[svg.len() / 2]),
            ms(png[png.len() / 2]),
            ms(png[0])
        );
    }
}
