//! `anonlab correlate`: the correlation matrix of a CSV file's attributes
//! (issue 5, "Correlation"), as a readable matrix or as JSON.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use anonlab::data::{load_csv, Dataset};
use anonlab::stats::{correlation_matrix, CorrelationMatrix, Discretization, Measure, Missing};

use super::{thousands, CsvArgs};

#[derive(Debug, Args)]
pub struct CorrelateArgs {
    /// CSV file.
    pub file: PathBuf,
    /// Columns to correlate (default: all).
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub columns: Vec<String>,
    /// phi2 (mean-square contingency, normalised), cramer, pearson (numeric
    /// pairs), mi (mutual information in bits) or nmi (mi / min entropy).
    #[arg(long, default_value = "phi2", value_parser = parse_measure)]
    pub measure: Measure,
    /// Quantile bins for numeric columns with more distinct values.
    #[arg(long, default_value_t = anonlab::stats::DEFAULT_BINS)]
    pub bins: usize,
    /// Missing cells: 'category' (one more value, '?') or 'drop' (leave the
    /// record out of the pair).
    #[arg(
        long,
        default_value = "category",
        value_parser = parse_missing
    )]
    pub missing_policy: Missing,
    /// Print one JSON object: measure, columns, discretization, matrix.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub csv: CsvArgs,
}

fn parse_measure(s: &str) -> Result<Measure, String> {
    s.parse().map_err(|e: anonlab::Error| e.to_string())
}

fn parse_missing(s: &str) -> Result<Missing, String> {
    s.parse().map_err(|e: anonlab::Error| e.to_string())
}

pub fn run(a: &CorrelateArgs) -> anyhow::Result<()> {
    let ds = load_csv(&a.file, &a.csv.options()?)?;
    let columns = if a.columns.is_empty() {
        (0..ds.n_cols()).collect()
    } else {
        a.columns
            .iter()
            .map(|c| ds.column_index(c))
            .collect::<anonlab::Result<Vec<_>>>()
            .with_context(|| a.file.display().to_string())?
    };
    let d = Discretization {
        bins: a.bins,
        missing: a.missing_policy,
    };
    let m = correlation_matrix(&ds, &columns, a.measure, &d)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&m)?);
    } else {
        print!("{}", human(&m, &ds, &a.file));
    }
    Ok(())
}

fn cell(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_string(), |x| format!("{x:.3}"))
}

/// The matrix with numbered columns, how numbers were cut, and the
/// strongest pairs.
pub fn human(m: &CorrelationMatrix, ds: &Dataset, file: &std::path::Path) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "anonlab correlate — {} ({} records)",
        file.display(),
        thousands(ds.n_rows())
    );
    let _ = writeln!(o, "measure: {} — {}", m.measure, m.measure.describe());
    if m.measure.uses_categories() {
        let d = &m.discretization;
        let policy = match d.missing {
            Missing::Category => "missing cells count as one more value, '?'",
            Missing::Drop => "records missing either value are left out of the pair",
        };
        let _ = writeln!(o, "{policy}");
        for c in d.columns.iter().filter(|c| !c.bins.is_empty()) {
            let labels: Vec<&str> = c.bins.iter().map(|b| b.label.as_str()).collect();
            let _ = writeln!(
                o,
                "{}: numeric, cut into {} quantile bins (at most {}): {}",
                c.column,
                c.bins.len(),
                d.bins,
                labels.join(" ")
            );
        }
    } else {
        let _ = writeln!(
            o,
            "raw numbers, rows where both values are present; '–' for non-numeric pairs"
        );
    }
    let n = m.columns.len();
    let width = m
        .columns
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(0);
    let _ = writeln!(o);
    let _ = write!(o, "{:>w$}", "", w = width + 4);
    for j in 0..n {
        let _ = write!(o, " {:>6}", j + 1);
    }
    let _ = writeln!(o);
    for (i, name) in m.columns.iter().enumerate() {
        let _ = write!(o, "{:>2} {name:<width$} ", i + 1);
        for j in 0..n {
            let _ = write!(o, " {:>6}", cell(m.get(i, j)));
        }
        let _ = writeln!(o);
    }
    let mut pairs: Vec<(usize, usize, f64)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .filter_map(|(i, j)| m.get(i, j).map(|v| (i, j, v)))
        .collect();
    pairs.sort_by(|a, b| b.2.abs().total_cmp(&a.2.abs()));
    if !pairs.is_empty() {
        let _ = writeln!(o, "\nstrongest pairs");
        for (i, j, v) in pairs.iter().take(5) {
            let _ = writeln!(
                o,
                "  {:<w$}  {:<w$}  {v:.4}",
                m.columns[*i],
                m.columns[*j],
                w = width
            );
        }
    }
    o
}
