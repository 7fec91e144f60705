//! Helpers shared by the bench binaries: timing, environment knobs and the
//! synthetic census file they all read.
// Each bench uses a different part of this module.
#![allow(dead_code)]

use std::hint::black_box;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anonlab::data::{load_csv, CsvOptions, Dataset};
use anonlab::hierarchy::HierarchySet;

/// The 8 Adult attributes other than salary-class (the census file has them too).
pub const QI8: [&str; 8] = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
];

/// Wall time of `runs` calls of `f`; the result is dropped outside the
/// timed region.
pub fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Vec<Duration> {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            let out = f();
            let t = start.elapsed();
            // Drop outside the timed region: freeing is not the algorithm's cost.
            drop(black_box(out));
            t
        })
        .collect()
}

/// A number from the environment (`_` separators allowed), or `default`.
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// A path relative to the crate root.
pub fn manifest_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The shared copy of Adult with its ARX hierarchies, relative to the crate root.
pub const ADULT_DIR: &str = "../shared/data/adult";

/// Adult loaded by anonlab's own importer, or `None` with a notice when the
/// file is absent (the bench is then skipped).
pub fn adult() -> Option<Dataset> {
    let csv = manifest_path(ADULT_DIR).join("adult.csv");
    if !csv.exists() {
        eprintln!("skipped: {} not found", csv.display());
        return None;
    }
    Some(load_csv(&csv, &CsvOptions::default()).expect("load adult"))
}

/// The ARX hierarchies shipped next to Adult.
pub fn adult_hierarchies() -> HierarchySet {
    HierarchySet::load_dir(&manifest_path(ADULT_DIR)).expect("load the hierarchies")
}

/// The synthetic census file, written once and reused by every bench.
pub fn census_file(rows: usize) -> PathBuf {
    let dir = manifest_path("target/bench-data");
    let path = dir.join(format!("census-{rows}.csv"));
    if !path.exists() {
        std::fs::create_dir_all(&dir).expect("create target/bench-data");
        let tmp = dir.join(format!("census-{rows}.csv.tmp"));
        let file = std::fs::File::create(&tmp).expect("create the census file");
        anonlab::synth::write_census(BufWriter::new(file), rows as u64, 1)
            .expect("write the census file");
        std::fs::rename(&tmp, &path).expect("rename the census file");
        eprintln!("generated {}", path.display());
    }
    path
}
