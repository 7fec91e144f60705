//! `anonlab hierarchy build | show`: make a generalization hierarchy from the
//! data, or inspect one.
//!
//! Both print, per level, what generalizing the column to that level would
//! give on the data — the number of distinct generalized values and the
//! records per value — so a hierarchy can be judged before it is used.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::bail;
use clap::{ArgGroup, Args, Subcommand};

use anonlab::data::number::Decimal;
use anonlab::data::{load, Column, Dataset};
use anonlab::hierarchy::builders::{self, BuildSpec};
use anonlab::hierarchy::{arx, Hierarchy};

use super::{thousands, CsvArgs};

#[derive(Debug, Args)]
pub struct HierarchyArgs {
    #[command(subcommand)]
    pub command: HierarchyCommand,
}

#[derive(Debug, Subcommand)]
pub enum HierarchyCommand {
    /// Build a hierarchy for one column, preview its levels, write it (ARX CSV).
    Build(Box<BuildArgs>),
    /// Show a hierarchy file: levels, nodes, and (with --data) what each level gives.
    Show(Box<ShowArgs>),
}

/// Exactly one way of building is chosen; a new builder adds its flag here
/// and to the group, and its branch in [`spec`].
#[derive(Debug, Args)]
#[command(group(
    ArgGroup::new("method")
        .required(true)
        .args(["intervals", "quantiles", "mask", "group_by_frequency", "mapping"])
))]
pub struct BuildArgs {
    /// CSV data file.
    pub file: PathBuf,
    /// The column to build the hierarchy for.
    #[arg(long)]
    pub column: String,
    /// Fixed-width intervals of this width at level 1 (numeric columns).
    #[arg(long, value_name = "WIDTH")]
    pub intervals: Option<String>,
    /// Where interval boundaries start (with --intervals; default 0).
    #[arg(long, requires = "intervals", allow_hyphen_values = true)]
    pub anchor: Option<String>,
    /// Intervals merged into one per level (with --intervals; default 2).
    #[arg(long, requires = "intervals")]
    pub fanout: Option<usize>,
    /// Equal-frequency intervals: at most N at level 1, halving per level.
    #[arg(long, value_name = "N")]
    pub quantiles: Option<usize>,
    /// Least records per quantile interval (with --quantiles; default 1).
    #[arg(long = "min-records", value_name = "M", requires = "quantiles")]
    pub min_records: Option<u64>,
    /// Mask characters right to left (zip codes: 47677, 4767*, 476**, ...).
    #[arg(long)]
    pub mask: bool,
    /// Merge values with fewer than N records first; the threshold doubles per level.
    #[arg(long = "group-by-frequency", value_name = "N")]
    pub group_by_frequency: Option<u64>,
    /// Group by a mapping: a file of 'value;group[;coarser...]' rows, or
    /// inline 'Group=a,b;Other=c'.
    #[arg(long, value_name = "FILE|MAP")]
    pub mapping: Option<String>,
    /// Write the hierarchy here in ARX's format (temporary file, then rename).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub csv: CsvArgs,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Hierarchy file in ARX's format (leaf;level1;...;*).
    pub hierarchy: PathBuf,
    /// A CSV data file to validate the hierarchy against and preview on.
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// The column of --data (default: the attribute in the file name,
    /// as in adult_hierarchy_age.csv).
    #[arg(long, requires = "data")]
    pub column: Option<String>,
    /// Node labels listed per level (0 for none).
    #[arg(long, default_value_t = 8)]
    pub labels: usize,
    #[command(flatten)]
    pub csv: CsvArgs,
}

pub fn run(a: &HierarchyArgs) -> anyhow::Result<()> {
    match &a.command {
        HierarchyCommand::Build(b) => run_build(b),
        HierarchyCommand::Show(s) => run_show(s),
    }
}

/// The flags, validated into what to build, with a description for the report.
fn spec(a: &BuildArgs) -> anyhow::Result<(BuildSpec, String)> {
    if let Some(width) = &a.intervals {
        // Read exactly, as the data's numbers are: `--anchor 1e20` is
        // 100000000000000000000, `--intervals 0.1` is one tenth.
        let number = |flag: &str, v: &str| {
            Decimal::parse(v).ok_or_else(|| {
                anyhow::anyhow!(
                    "{flag} '{v}' is not a number (a decimal numeral of magnitude below 1e150)"
                )
            })
        };
        let width = number("--intervals", width)?;
        let anchor = number("--anchor", a.anchor.as_deref().unwrap_or("0"))?;
        let fanout = a.fanout.unwrap_or(2);
        let how =
            format!("intervals of width {width} anchored at {anchor}, {fanout} merged per level");
        return Ok((
            BuildSpec::Intervals {
                width,
                anchor,
                fanout,
            },
            how,
        ));
    }
    if let Some(n) = a.quantiles {
        let min_records = a.min_records.unwrap_or(1);
        return Ok((
            BuildSpec::Quantiles { n, min_records },
            format!("at most {n} equal-frequency intervals, at least {min_records} records each"),
        ));
    }
    if a.mask {
        return Ok((BuildSpec::Mask, "masking right to left".into()));
    }
    if let Some(n) = a.group_by_frequency {
        return Ok((
            BuildSpec::Frequency { min_records: n },
            format!("grouping values rarer than {n} records first, doubling per level"),
        ));
    }
    if let Some(m) = &a.mapping {
        let path = Path::new(m);
        let rows = if path.is_file() {
            builders::read_mapping(path)?
        } else if m.contains('=') {
            builders::parse_inline_mapping(m)?
        } else {
            bail!("--mapping: '{m}' is neither a file nor 'Group=value,...'")
        };
        return Ok((BuildSpec::Mapping(rows), format!("the mapping {m}")));
    }
    bail!(
        "choose how to build: --intervals, --quantiles, --mask, --group-by-frequency or --mapping"
    )
}

fn run_build(a: &BuildArgs) -> anyhow::Result<()> {
    let mut inputs = super::inputs().with(&a.file);
    if let Some(m) = &a.mapping {
        inputs.add(Path::new(m));
    }
    if let Some(o) = &a.output {
        inputs.check(o)?;
    }
    let (spec, how) = spec(a)?;
    let ds = load(&a.file, &a.csv.options()?)?;
    let column = ds.column_index(&a.column)?;
    let h = builders::build(&ds, column, &spec)?;
    let mut out = format!(
        "hierarchy of '{}' ({} values, {} rows) by {how}\n",
        a.column,
        thousands(ds.col(column).cardinality()),
        thousands(ds.n_rows())
    );
    preview(&mut out, &h, ds.col(column), 6)?;
    print!("{out}");
    if let Some(o) = &a.output {
        arx::save(&h, o, &inputs)?;
        eprintln!(
            "wrote {} ({} rows, {} levels)",
            o.display(),
            h.leaves().len(),
            h.levels()
        );
    }
    Ok(())
}

fn run_show(a: &ShowArgs) -> anyhow::Result<()> {
    let h = arx::read(&a.hierarchy)?;
    let mut out = format!(
        "{}: hierarchy of '{}', {} levels, {} leaves\n",
        a.hierarchy.display(),
        h.attribute(),
        h.levels(),
        thousands(h.leaves().len())
    );
    match &a.data {
        Some(data) => {
            let ds: Dataset = load(data, &a.csv.options()?)?;
            let name = a.column.as_deref().unwrap_or(h.attribute());
            let col = ds.column(name)?;
            preview(&mut out, &h, col, a.labels)?;
        }
        None => {
            writeln!(out, "level  nodes  leaves per node (min/max)  labels")?;
            for level in 0..h.levels() {
                let counts = h.leaf_counts(level);
                writeln!(
                    out,
                    "{level:>5}  {:>5}  {:>25}  {}",
                    h.n_nodes(level),
                    format!(
                        "{}/{}",
                        counts.iter().min().unwrap_or(&0),
                        counts.iter().max().unwrap_or(&0)
                    ),
                    labels(h.labels(level).iter().map(|l| &**l), a.labels)
                )?;
            }
        }
    }
    print!("{out}");
    Ok(())
}

/// The per-level table on the data, after checking the hierarchy covers it.
fn preview(out: &mut String, h: &Hierarchy, col: &Column, n_labels: usize) -> anyhow::Result<()> {
    let b = h.bind(col)?;
    let unused = h
        .leaves()
        .iter()
        .filter(|l| col.code_of(l).is_none())
        .count();
    writeln!(
        out,
        "valid: nested levels, one root, covers all {} values of column '{}'{}",
        thousands(col.cardinality()),
        col.name(),
        if unused > 0 {
            format!(" ({unused} leaves not in the data)")
        } else {
            String::new()
        }
    )?;
    writeln!(
        out,
        "level  classes  records per value: min   median      max  labels (largest first)"
    )?;
    let freq = col.frequencies();
    for s in b.level_stats(&freq) {
        let records = b.node_records(s.level, &freq);
        let mut present: Vec<u32> = (0..records.len() as u32)
            .filter(|&i| records[i as usize] > 0)
            .collect();
        present.sort_by_key(|&i| (std::cmp::Reverse(records[i as usize]), i));
        writeln!(
            out,
            "{:>5}  {:>7}  {:>22}  {:>6}  {:>7}  {}",
            s.level,
            thousands(s.classes),
            thousands(s.min as usize),
            thousands(s.median as usize),
            thousands(s.max as usize),
            labels(present.iter().map(|&id| b.label(s.level, id)), n_labels)
        )?;
    }
    Ok(())
}

/// The first `n` labels, then how many more.
fn labels<'a>(all: impl ExactSizeIterator<Item = &'a str>, n: usize) -> String {
    let total = all.len();
    let shown: Vec<&str> = all.take(n).collect();
    match total - shown.len() {
        0 => shown.join(", "),
        more if shown.is_empty() => format!("({more})"),
        more => format!("{}, … (+{more})", shown.join(", ")),
    }
}
