//! `anonlab correlate`: the correlation matrix of a CSV file's attributes
//! as a readable matrix or as JSON; with
//! `--build-hierarchy COL --min-records N`, the correlation-based hierarchy
//! of Algorithm 4 and its conditions G (it lives here rather than under
//! `hierarchy build` because it is driven by the correlations this command
//! computes and shares its measure, bins and column flags).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;

use anonlab::data::{load, Dataset, Inputs};
use anonlab::hierarchy::arx;
use anonlab::hierarchy::correlated::{construct, CorrelatedHierarchy, CorrelatedSpec};
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
    /// Print one JSON object: measure, columns, discretization, matrix
    /// (with --build-hierarchy: ranking, contexts, conditions, hierarchy).
    #[arg(long)]
    pub json: bool,
    /// Build a hierarchy of this numeric column from its correlations
    /// (Algorithm 4) instead of printing the matrix; --columns then names
    /// the attributes that may condition the cuts.
    #[arg(long, value_name = "COL")]
    pub build_hierarchy: Option<String>,
    /// Least records per cell (a value group × an interval), with --build-hierarchy.
    #[arg(long, value_name = "N", requires = "build_hierarchy")]
    pub min_records: Option<u64>,
    /// How many of the most correlated attributes condition the cuts.
    #[arg(long, default_value_t = 2, requires = "build_hierarchy")]
    pub depth: usize,
    /// Write the hierarchy here in ARX's format.
    #[arg(short, long, requires = "build_hierarchy")]
    pub output: Option<PathBuf>,
    /// Write the conditions of generalization G here (JSON, for
    /// `anonymize --algorithm construction --conditions`).
    #[arg(long, value_name = "FILE", requires = "build_hierarchy")]
    pub conditions_out: Option<PathBuf>,
    /// How contexts cut the focused attribute: `nested` (every cut a
    /// frontier of one interval tree, the hierarchy file's) or
    /// `per-context` (each context on its own tree; G carries the cuts,
    /// which may overlap across contexts).
    #[arg(long, default_value = "nested", value_parser = ["nested", "per-context"], requires = "build_hierarchy")]
    pub cuts: String,
    /// The paper's last step: G asks Construction to delete the records of
    /// every published class smaller than K.
    #[arg(long, value_name = "K", requires = "build_hierarchy")]
    pub delete_below: Option<u32>,
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
    let inputs = super::inputs().with(&a.file);
    let outputs: Vec<&Path> = [&a.output, &a.conditions_out]
        .into_iter()
        .flatten()
        .map(PathBuf::as_path)
        .collect();
    inputs.check_all(&outputs)?;
    let ds = load(&a.file, &a.csv.options()?)?;
    if let Some(focus) = &a.build_hierarchy {
        return build(a, &ds, focus, &inputs);
    }
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

fn build(a: &CorrelateArgs, ds: &Dataset, focus: &str, inputs: &Inputs) -> anyhow::Result<()> {
    let Some(n) = a.min_records else {
        bail!("--build-hierarchy needs --min-records N: the least records per cell");
    };
    let at = || a.file.display().to_string();
    let f = ds.column_index(focus).with_context(at)?;
    let mut spec = CorrelatedSpec::new(ds, f, n);
    if !a.columns.is_empty() {
        spec.attributes = a
            .columns
            .iter()
            .map(|c| ds.column_index(c))
            .collect::<anonlab::Result<Vec<_>>>()
            .with_context(at)?;
    }
    spec.depth = a.depth;
    spec.per_context = a.cuts == "per-context";
    spec.delete_below = a.delete_below;
    spec.measure = a.measure;
    spec.discretization = Discretization {
        bins: a.bins,
        missing: a.missing_policy,
    };
    let r = construct(ds, &spec)?;
    if let Some(o) = &a.output {
        arx::save(&r.hierarchy, o, inputs)?;
    }
    if let Some(g) = &a.conditions_out {
        r.conditions.save(g, inputs)?;
    }
    if a.json {
        let v = serde_json::json!({
            "focus": r.focus,
            "min_records": n,
            "measure": a.measure,
            "ranking": r.ranking,
            "used": r.used,
            "contexts": r.contexts,
            "conditions": r.conditions,
            "hierarchy": r.hierarchy.rows().collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", human_build(&r, a, n));
    }
    Ok(())
}

fn human_build(r: &CorrelatedHierarchy, a: &CorrelateArgs, n: u64) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "correlation-based hierarchy of '{}' — {} (Algorithm 4), at least {} records per cell",
        r.focus,
        a.file.display(),
        thousands(n as usize)
    );
    let ranking: Vec<String> = r
        .ranking
        .iter()
        .map(|(c, v)| format!("{c} {}", cell(*v)))
        .collect();
    let _ = writeln!(
        o,
        "{} with '{}': {}",
        a.measure,
        r.focus,
        ranking.join(", ")
    );
    let _ = writeln!(
        o,
        "conditioned on: {}",
        if r.used.is_empty() {
            "nothing (no split gave a different cut)".to_string()
        } else {
            r.used.join(", then ")
        }
    );
    let _ = writeln!(
        o,
        "\n{} context(s), each with its own cut (records):",
        r.contexts.len()
    );
    for c in &r.contexts {
        let cut: Vec<String> = c
            .cut
            .iter()
            .filter(|i| i.records > 0)
            .map(|i| format!("{} ({})", i.label, thousands(i.records as usize)))
            .collect();
        let _ = writeln!(
            o,
            "  {} — {} records, {} intervals ({} on a tree of its own)\n    {}",
            c.when.as_deref().unwrap_or("all records"),
            thousands(c.records as usize),
            c.cut.len(),
            c.alone,
            cut.join(" ")
        );
    }
    let used: usize = r.contexts.iter().map(|c| c.cut.len()).sum();
    let alone: usize = r.contexts.iter().map(|c| c.alone).sum();
    let _ = writeln!(
        o,
        "cuts: {} — {used} intervals over the contexts, {alone} if each context had a tree of its own",
        a.cuts
    );
    if let Some(k) = a.delete_below {
        let _ = writeln!(
            o,
            "G deletes the records of every published class smaller than {k} (the paper's last step)"
        );
    }
    let h = &r.hierarchy;
    let levels: Vec<String> = (1..h.levels())
        .map(|l| format!("{} nodes at level {l}", h.n_nodes(l)))
        .collect();
    let _ = writeln!(
        o,
        "\nhierarchy: {} leaves, {}; {} conditions in G",
        h.leaves().len(),
        levels.join(", "),
        r.conditions.conditions.len()
    );
    if let Some(p) = &a.output {
        let _ = writeln!(o, "wrote the hierarchy to {}", p.display());
    }
    if let Some(p) = &a.conditions_out {
        let _ = writeln!(o, "wrote G to {}", p.display());
    }
    o
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
