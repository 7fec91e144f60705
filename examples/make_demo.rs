//! Regenerates `assets/demo.csv` from `anonlab::synth::write_demo` with
//! `DEMO_SEED`: `cargo run --example make_demo`.
//!
//! The file is written beside its final name and renamed into place, so an
//! interrupted run never leaves a truncated asset behind.

use std::fs;
use std::path::Path;

use anonlab::synth::{write_demo, DEMO_ROWS, DEMO_SEED};

fn main() -> std::io::Result<()> {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    fs::create_dir_all(&assets)?;
    let mut bytes = Vec::new();
    write_demo(&mut bytes, DEMO_SEED)?;
    let tmp = assets.join("demo.csv.tmp");
    let path = assets.join("demo.csv");
    fs::write(&tmp, &bytes)?;
    fs::rename(&tmp, &path)?;
    println!(
        "wrote {} ({DEMO_ROWS} rows, seed {DEMO_SEED})",
        path.display()
    );
    Ok(())
}
