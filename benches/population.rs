//! The speed targets of issue 17 (the statistics offices' measures), timed
//! in process with the CSV load excluded:
//! - population models (Pitman, Zayatz, SNB, Dankar's rule) and the
//!   journalist/marketer summary on Adult's 8 QIs, at sampling fractions
//!   0.01, 0.1 and 0.5, from the class sizes: ≤ 20 ms;
//! - attribute risks of all 255 combinations of the 8 QIs (the lattice
//!   walk and the ranking): ≤ 0.5 s;
//! - SUDA2 minimal sample uniques up to size 4 on Adult's 8 QIs (the walk
//!   keeping uniques, the MSU search, scores and DIS-SUDA): ≤ 1 s;
//! - the whole `assess` with all of them (sampling fraction 0.01, weights
//!   from `hours-per-week`, SUDA up to 4, attribute risks) on the 1M-row
//!   census: ≤ 3 s.
//!
//! `cargo bench --bench population`; `ANONLAB_BENCH_RUNS` (default 9; the
//! 1M-row row runs a third as often), `ANONLAB_BENCH_ROWS` (default
//! 1,000,000).

use std::time::Duration;

#[path = "common/mod.rs"]
mod common;
use common::{adult, census_file, env_usize, time, QI8};

use anonlab::assess::assess;
use anonlab::data::{CsvOptions, Dataset, Role, Roles};
use anonlab::partition::Partition;
use anonlab::progress::Progress;
use anonlab::risk::attributes::attribute_risks;
use anonlab::risk::combinations::{walk, Codes};
use anonlab::risk::population::{
    population_uniques, sample_summary, PopulationModel, SizeCounts, SolverSettings,
};
use anonlab::risk::suda::special_uniques;
use anonlab::session::Session;

/// One more measure switched on.
type Setting = fn(&mut anonlab::data::PopulationSettings);

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn row(data: &str, stage: &str, mut t: Vec<Duration>, target: Duration) {
    t.sort();
    let med = t[t.len() / 2];
    println!(
        "| {data} | {stage} | {} | {} | {} | {} | ≤ {} | {} |",
        ms(med),
        ms(t[0]),
        ms(t[t.len() - 1]),
        t.len(),
        ms(target),
        if med <= target { "pass" } else { "FAIL" }
    );
}

fn qi_columns(ds: &Dataset) -> Vec<usize> {
    QI8.iter()
        .map(|q| ds.column_index(q).expect("QI column"))
        .collect()
}

fn main() {
    let runs = env_usize("ANONLAB_BENCH_RUNS", 9).max(1);
    let rows = env_usize("ANONLAB_BENCH_ROWS", 1_000_000);
    println!(
        "| data | stage | median | best | worst | runs | target (median) | |\n|---|---|---:|---:|---:|---:|---:|---|"
    );
    if let Some(ds) = adult() {
        let n = ds.n_rows();
        let qi = qi_columns(&ds);
        let part = Partition::by_columns(&ds, &qi);
        let sizes = part.sizes().to_vec();
        let t = time(runs, || {
            let table = SizeCounts::from_sizes(&sizes);
            [0.01, 0.1, 0.5].map(|f| {
                let model = PopulationModel::with_fraction(n as u64, f).expect("model");
                let u = population_uniques(&table, &model, &SolverSettings::default());
                let s = sample_summary(&sizes, &sizes, None, 0, &model);
                (u, s)
            })
        });
        row(
            "Adult, 8 QIs",
            "population models + journalist/marketer, F = 0.01, 0.1, 0.5 (all three)",
            t,
            Duration::from_millis(20),
        );
        let cols: Vec<Codes> = qi.iter().map(|&c| Codes::of(&ds, c)).collect();
        let names: Vec<String> = QI8.iter().map(|s| s.to_string()).collect();
        let t = time(runs, || {
            let w = walk(&cols, n, None, cols.len(), 0, &Progress::new()).expect("walk");
            attribute_risks(&w, &names, n as u64)
        });
        row(
            "Adult, 8 QIs",
            "attribute risks, 255 combinations",
            t,
            Duration::from_millis(500),
        );
        let full = SizeCounts::from_sizes(&sizes);
        let t = time(runs, || {
            let w = walk(&cols, n, None, 4, 4, &Progress::new()).expect("walk");
            special_uniques(&w, cols.len(), n, n as u64, 4, &full, 0.01)
        });
        row(
            "Adult, 8 QIs",
            "SUDA2 MSUs up to size 4, scores, DIS-SUDA",
            t,
            Duration::from_secs(1),
        );
    }

    let path = census_file(rows);
    let mut s = Session::open(&path, CsvOptions::default()).expect("load the census");
    let mut roles = Roles::new(s.dataset.n_cols());
    for c in qi_columns(&s.dataset) {
        roles.set(c, Role::QuasiIdentifier);
    }
    s.roles = roles;
    // Stage by stage (reference rows), then everything at once (the target).
    let stages: [(&str, Setting); 4] = [
        ("assess, population model only (F = 0.01)", |p| {
            p.sampling_fraction = Some(0.01);
        }),
        ("… + weights (hours-per-week)", |p| {
            p.weights = Some("hours-per-week".into());
        }),
        ("… + SUDA2 up to size 4", |p| p.suda_max_size = Some(4)),
        (
            "whole assess: simulator, population, weights, SUDA ≤ 4, attribute risks",
            |p| p.attribute_risks = true,
        ),
    ];
    let last = stages.len() - 1;
    for (i, (stage, set)) in stages.into_iter().enumerate() {
        set(&mut s.attacker.population);
        let t = time((runs / 3).max(1), || {
            assess(&s, &Progress::new()).expect("assess")
        });
        let label = format!("census, {rows} rows, 8 QIs");
        if i == last {
            row(&label, stage, t, Duration::from_secs(3));
        } else {
            reference(&label, stage, t);
        }
    }
}

fn reference(data: &str, stage: &str, mut t: Vec<Duration>) {
    t.sort();
    println!(
        "| {data} | {stage} | {} | {} | {} | {} | – | |",
        ms(t[t.len() / 2]),
        ms(t[0]),
        ms(t[t.len() - 1]),
        t.len()
    );
}
