//! `anonlab synth`: seeded synthetic data for scale tests and the demo.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use anonlab::synth;

#[derive(Debug, Args)]
pub struct SynthArgs {
    /// Number of rows of the census-like table.
    #[arg(long, default_value_t = 100_000)]
    pub rows: u64,
    /// Seed of the generator; the same seed gives the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the embedded demo table instead (its rows and seed are fixed).
    #[arg(long, conflicts_with_all = ["rows", "seed"])]
    pub demo: bool,
    /// Output file (written to a temporary file, then renamed; a device
    /// or FIFO is written directly).
    #[arg(short, long)]
    pub output: PathBuf,
}

/// The most rows anonlab can read back (row numbers are 32-bit).
const MAX_ROWS: u64 = u32::MAX as u64 - 1;

pub fn run(args: &SynthArgs) -> anyhow::Result<()> {
    if args.rows > MAX_ROWS {
        anyhow::bail!(
            "--rows {} is more than anonlab can read ({} rows at most)",
            super::thousands(args.rows as usize),
            super::thousands(MAX_ROWS as usize)
        );
    }
    anonlab::data::write_file(&args.output, &super::inputs(), |w| {
        if args.demo {
            synth::write_demo(w, synth::DEMO_SEED)
        } else {
            synth::write_census(w, args.rows, args.seed)
        }
    })
    .with_context(|| format!("writing {}", args.output.display()))?;
    if args.demo {
        eprintln!(
            "wrote the demo table ({} rows, seed {}) to {}",
            synth::DEMO_ROWS,
            synth::DEMO_SEED,
            args.output.display()
        );
    } else {
        eprintln!(
            "wrote {} rows (seed {}) to {}",
            super::thousands(args.rows as usize),
            args.seed,
            args.output.display()
        );
    }
    Ok(())
}
