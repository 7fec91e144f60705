//! ARP (issue 6) timed in process on Adult: occupation as the sensitive
//! attribute, the other 7 attributes as NSAs, seed 42 — the φ² ranking,
//! Algorithm 1, Algorithm 2 and the release (target ≤ 0.5 s at ℓ = 5), with
//! the CSV load and the measurements excluded. The baselines AIP and AT, and
//! ARP at the other ends of the ℓ Adult allows (2…7; ℓ = 8 is refused:
//! Prof-specialty is on more than 1/8 of the rows), for scale.
//!
//! `cargo bench --bench arp`; `ANONLAB_BENCH_RUNS` (default 15).

#[path = "common/mod.rs"]
mod common;
use common::{adult, env_usize, time, QI8};

use anonlab::algorithms::{by_id, Request};
use anonlab::progress::Progress;

fn main() {
    let Some(ds) = adult() else { return };
    let runs = env_usize("ANONLAB_BENCH_RUNS", 15);
    let qi: Vec<usize> = QI8[..7]
        .iter()
        .map(|c| ds.column_index(c).unwrap())
        .collect();
    let occupation = ds.column_index("occupation").unwrap();
    println!(
        "{:<40} {:>9} {:>9} {:>9}  sub-blocks",
        format!("Adult, {} rows, 7 NSAs", ds.n_rows()),
        "median",
        "best",
        "worst"
    );
    let cases = [
        ("arp", 5, " (target 0.5 s)"),
        ("aip", 5, ""),
        ("at", 5, ""),
        ("arp", 2, ""),
        ("arp", 7, ""),
    ];
    for (id, l, note) in cases {
        let algo = by_id(id).expect("registered");
        let req = Request {
            ds: &ds,
            qi: qi.clone(),
            sensitive: vec![occupation],
            identifiers: vec![],
            k: 1,
            l,
            seed: 42,
            options: Default::default(),
        };
        let blocks = algo.run(&req, &Progress::new()).expect("run").buckets.len();
        let mut t = time(runs, || algo.run(&req, &Progress::new()).expect("run"));
        t.sort();
        let ms = |d: std::time::Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
        println!(
            "{:<40} {:>9} {:>9} {:>9}  {blocks}",
            format!("{id}, l = {l}{note}"),
            ms(t[t.len() / 2]),
            ms(t[0]),
            ms(t[t.len() - 1]),
        );
    }
}
