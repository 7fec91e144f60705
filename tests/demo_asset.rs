//! The shipped demo data is made by the project: `assets/demo.csv` must be
//! exactly what the generator produces with `DEMO_SEED`.

use std::path::Path;

use anonlab::synth::{write_census, write_demo, DEMO_ROWS, DEMO_SEED};

#[test]
fn demo_asset_is_the_generator_output() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.csv");
    let shipped = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}; run `cargo run --example make_demo`",
            path.display()
        )
    });
    let mut generated = Vec::new();
    write_demo(&mut generated, DEMO_SEED).unwrap();
    assert!(
        shipped == generated,
        "assets/demo.csv differs from write_demo(.., DEMO_SEED = {DEMO_SEED}) \
         ({} bytes shipped, {} generated); if the generator changed on purpose, \
         regenerate it with `cargo run --example make_demo` and commit the file",
        shipped.len(),
        generated.len()
    );
    let lines = shipped.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(lines, DEMO_ROWS + 1, "header plus DEMO_ROWS rows");
}

#[test]
fn census_is_deterministic_for_a_fixed_seed() {
    let run = || {
        let mut out = Vec::new();
        write_census(&mut out, 10_000, 2024).unwrap();
        out
    };
    let first = run();
    assert_eq!(first, run());
    assert_eq!(first.iter().filter(|&&b| b == b'\n').count(), 10_001);
}
