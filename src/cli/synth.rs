//! `anonlab synth`: seeded synthetic data for scale tests and the demo.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use anonlab::data::{formats, InputFormat};
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
    /// How to store the table: csv, csv.gz, csv.zst or parquet (by the
    /// output's extension when omitted, else csv).
    #[arg(long, value_name = "FORMAT", value_parser = super::parse_format)]
    pub format: Option<InputFormat>,
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
    let format = args
        .format
        .or_else(|| InputFormat::from_extension(&args.output))
        .unwrap_or(InputFormat::Csv);
    if format == InputFormat::Arrow {
        anyhow::bail!("synth writes csv, csv.gz, csv.zst or parquet, not arrow");
    }
    if !format.available() {
        anyhow::bail!(
            "this build of anonlab writes CSV only; --format {format} needs the `formats` feature"
        );
    }
    anonlab::data::write_file(&args.output, &super::inputs(), |w| {
        formats::encode(format, w, |w| {
            if args.demo {
                synth::write_demo(w, synth::DEMO_SEED)
            } else {
                synth::write_census(w, args.rows, args.seed)
            }
        })
    })
    .with_context(|| format!("writing {}", args.output.display()))?;
    if args.demo {
        eprintln!(
            "wrote the demo table ({} rows, seed {}) as {format} to {}",
            synth::DEMO_ROWS,
            synth::DEMO_SEED,
            args.output.display()
        );
    } else {
        eprintln!(
            "wrote {} rows (seed {}) as {format} to {}",
            super::thousands(args.rows as usize),
            args.seed,
            args.output.display()
        );
    }
    Ok(())
}
