//! Full-domain generalization (issue 5) timed in process: the lattice search
//! and release on Adult, the 8 QIs with the shared ARX hierarchies, k=5,
//! loss metric, at 0 % and 2 % suppression, with the CSV and hierarchy load
//! excluded (the whole-process targets, ≤ 0.3 s and ≤ 1 s, are timed by
//! `bench/run_full_domain.sh`). Also the other metrics and an l-diverse
//! search, for scale.
//!
//! `cargo bench --bench full_domain`; `ANONLAB_BENCH_RUNS` (default 15).

#[path = "common/mod.rs"]
mod common;
use common::{adult, adult_hierarchies, env_usize, time, QI8};

use anonlab::algorithms::full_domain::{search, Metric};
use anonlab::algorithms::{Options, Request};
use anonlab::privacy::Model;
use anonlab::progress::Progress;

fn main() {
    let Some(ds) = adult() else { return };
    let runs = env_usize("ANONLAB_BENCH_RUNS", 15);
    let hierarchies = adult_hierarchies();
    let qi: Vec<usize> = QI8.iter().map(|c| ds.column_index(c).unwrap()).collect();
    let qi7 = qi[..7].to_vec();
    let occupation = ds.column_index("occupation").unwrap();
    println!(
        "{:<52} {:>9} {:>9} {:>9}  optimum / checked",
        "search (Adult, k=5)", "median", "best", "worst"
    );
    let cases: [(&str, f64, Metric, Model, bool); 6] = [
        (
            "8 QIs, 0 % suppression, loss (target 0.3 s whole)",
            0.0,
            Metric::Loss,
            Model::K,
            false,
        ),
        (
            "8 QIs, 2 % suppression, loss (target 1 s whole)",
            0.02,
            Metric::Loss,
            Model::K,
            false,
        ),
        (
            "8 QIs, 0 % suppression, dm",
            0.0,
            Metric::Discernibility,
            Model::K,
            false,
        ),
        (
            "8 QIs, 2 % suppression, dm",
            0.02,
            Metric::Discernibility,
            Model::K,
            false,
        ),
        (
            "8 QIs, 2 % suppression, height",
            0.02,
            Metric::Height,
            Model::K,
            false,
        ),
        (
            "7 QIs, distinct 3-diverse occupation, 2 %, loss",
            0.02,
            Metric::Loss,
            Model::DistinctL { l: 3 },
            true,
        ),
    ];
    for (name, suppression, metric, model, sensitive) in cases {
        let mut options = Options {
            hierarchies: hierarchies.clone(),
            ..Default::default()
        };
        options.full_domain.suppression = suppression;
        options.full_domain.metric = metric;
        options.full_domain.model = model;
        let req = Request {
            ds: &ds,
            qi: if sensitive { qi7.clone() } else { qi.clone() },
            sensitive: if sensitive { vec![occupation] } else { vec![] },
            identifiers: vec![],
            k: 5,
            l: 1,
            seed: 0,
            options,
        };
        let (_, report) = search(&req, &Progress::new()).expect("search");
        let mut t = time(runs, || search(&req, &Progress::new()).expect("search"));
        t.sort();
        let ms = |d: std::time::Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
        println!(
            "{:<52} {:>9} {:>9} {:>9}  {:?} {} = {:.6}, {}/{}",
            name,
            ms(t[t.len() / 2]),
            ms(t[0]),
            ms(t[t.len() - 1]),
            report.optimum.levels,
            report.metric,
            report.optimum.metric,
            report.checked,
            report.lattice_size
        );
    }
}
