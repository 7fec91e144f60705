//! `anonlab chart KIND`: one of the issue-7 figures as SVG or PNG (by the
//! output's extension), for a file or a project. The data, roles, attacker
//! model and seed come from `assess`'s flags (same struct, same
//! validation); the releases drawn beside the original from `-a`, `-k`,
//! `-l` as in `compare`. Every release is verified before it is drawn.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

use anonlab::algorithms;
use anonlab::anonymize::{run_verified, Evaluation, Measure as Measurements};
use anonlab::assess::assess;
use anonlab::charts::{self, Chart};
use anonlab::data::Role;
use anonlab::progress::Progress;
use anonlab::release::Release;
use anonlab::session::Session;
use anonlab::stats::{correlation_matrix, Discretization, Measure};

use super::assess::{session_from_args, AssessArgs};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// Records by Pr(re-id), original and each release (-a).
    ReidHistogram,
    /// CDF of Pr(re-id), original and each release (-a).
    ReidCdf,
    /// Breach-probability CDF per algorithm (the cross-bucket paper's Fig. 5).
    BreachCdf,
    /// Records by the size of their equivalence class, original and releases.
    ClassSizes,
    /// Correlation heat map of the roles' attributes (all columns without roles).
    Correlation,
    /// Unique records as the attacker learns attributes, in order.
    Prefix,
    /// (k, l) grid of one algorithm coloured by --metric.
    Sweep,
    /// Local suppression: cells suppressed per key variable, one bar per k.
    Suppression,
    /// Local suppression: cells suppressed by household size (--household),
    /// one bar per key variable, at the first k.
    SuppressionHouseholds,
}

/// What colours the (k, l) sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Metric {
    /// Mean breach probability of the sensitive attribute.
    MeanBreach,
    /// Largest breach probability.
    MaxBreach,
    /// Mean Pr(re-id) of the linkage attack.
    MeanReid,
    /// Discernibility C_DM.
    Cdm,
    /// Global certainty penalty (NCP per QI cell).
    Gcp,
}

impl Metric {
    fn name(self) -> &'static str {
        match self {
            Metric::MeanBreach => "mean breach probability",
            Metric::MaxBreach => "max breach probability",
            Metric::MeanReid => "mean Pr(re-id), linkage attack",
            Metric::Cdm => "discernibility C_DM",
            Metric::Gcp => "GCP share (NCP sum per QI cell)",
        }
    }

    fn of(self, e: &Evaluation) -> Option<f64> {
        match self {
            Metric::MeanBreach => e.breach.as_ref().map(|b| b.summary.mean),
            Metric::MaxBreach => e.breach.as_ref().map(|b| b.summary.max),
            Metric::MeanReid => Some(e.reidentification.summary.mean),
            Metric::Cdm => Some(e.utility.discernibility as f64),
            Metric::Gcp => Some(e.utility.gcp),
        }
    }
}

#[derive(Debug, Args)]
pub struct ChartArgs {
    /// Which figure.
    #[arg(value_enum)]
    pub kind: Kind,
    #[command(flatten)]
    pub data: AssessArgs,
    /// Releases to draw beside the original (breach-cdf: default
    /// mondrian-l,anatomy,cbg; sweep: the first is swept).
    #[arg(
        short = 'a',
        long = "algorithms",
        value_delimiter = ',',
        value_name = "IDS"
    )]
    pub algorithms: Vec<String>,
    /// One or more k for the releases.
    #[arg(short = 'k', value_delimiter = ',', default_value = "5")]
    pub k: Vec<u32>,
    /// One or more l (algorithms without l run once per k).
    #[arg(short = 'l', value_delimiter = ',', default_value = "2")]
    pub l: Vec<u32>,
    /// Correlation measure: phi2, cramer, pearson, mi or nmi.
    #[arg(long, default_value = "phi2", value_parser = parse_measure)]
    pub measure: Measure,
    /// What colours the sweep's cells.
    #[arg(long, value_enum, default_value = "mean-breach")]
    pub metric: Metric,
    /// The chart: OUT.svg or OUT.png (the extension chooses).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    #[arg(long, default_value_t = charts::DEFAULT_WIDTH)]
    pub width: u32,
    #[arg(long, default_value_t = charts::DEFAULT_HEIGHT)]
    pub height: u32,
}

fn parse_measure(s: &str) -> Result<Measure, String> {
    s.parse().map_err(|e: anonlab::Error| e.to_string())
}

pub fn run(a: &ChartArgs) -> anyhow::Result<()> {
    // Refuse a bad output name before any work.
    charts::Format::from_path(&a.output)?;
    if a.data.json || a.data.k_histogram.is_some() {
        bail!("--json and --k-histogram are `assess` output options; `chart` writes a figure");
    }
    // The size too: drawing comes after every release is made.
    charts::Chart::check_size(a.width, a.height)?;
    let session = session_from_args(&a.data)?;
    let inputs = super::inputs_of(&session, a.data.project.as_deref(), []);
    inputs.check(&a.output)?;
    let chart = super::progress::with_bar("drawing", |p| build(a, &session, p))?
        .with_size(a.width, a.height)?;
    chart.write(&a.output, &inputs)?;
    println!("wrote {} ({})", a.output.display(), chart.title);
    Ok(())
}

/// A verified release with its measurements and its label in the legend.
struct Run {
    label: String,
    release: Release,
    eval: Evaluation,
}

/// The chart, its title followed by whose "original" it draws: the
/// session's baseline attacker (`anonlab assess`, the TUI and the report
/// draw the same one).
fn build(a: &ChartArgs, s: &Session, progress: &Progress) -> anyhow::Result<Chart> {
    let mut chart = draw(a, s, progress)?;
    if !matches!(a.kind, Kind::Correlation | Kind::Sweep) {
        let attacker = s.attacker()?.summary(&s.dataset);
        chart.title = format!("{} ({attacker})", chart.title);
    }
    Ok(chart)
}

fn draw(a: &ChartArgs, s: &Session, progress: &Progress) -> anyhow::Result<Chart> {
    let original = "original";
    Ok(match a.kind {
        Kind::ReidHistogram | Kind::ReidCdf | Kind::ClassSizes | Kind::Prefix => {
            let sim = assess(s, progress)?.simulation;
            if a.kind == Kind::Prefix {
                if !a.algorithms.is_empty() {
                    bail!("the prefix chart is of the original data (a release has no attacker order); drop -a");
                }
                return Ok(charts::prefix_chart(&[(original, &sim.prefix)])?);
            }
            let runs = releases(a, s, &a.algorithms, progress)?;
            match a.kind {
                Kind::ReidHistogram => {
                    let mut series = vec![(original, sim.histogram.as_slice())];
                    series.extend(runs.iter().map(|r| {
                        (
                            r.label.as_str(),
                            r.eval.reidentification.histogram.as_slice(),
                        )
                    }));
                    charts::reid_histogram(&series)?
                }
                Kind::ReidCdf => {
                    let mut series = vec![(original, sim.cdf.as_slice())];
                    series.extend(
                        runs.iter()
                            .map(|r| (r.label.as_str(), r.eval.reidentification.cdf.as_slice())),
                    );
                    charts::reid_cdf(&series)?
                }
                _ => {
                    let sizes: Vec<Vec<u32>> = runs
                        .iter()
                        .map(|r| charts::group_sizes(&r.release, &s.dataset))
                        .collect();
                    let mut series = vec![(original, sim.matches.as_slice())];
                    series.extend(
                        runs.iter()
                            .zip(&sizes)
                            .map(|(r, z)| (r.label.as_str(), z.as_slice())),
                    );
                    charts::class_sizes(&series)?
                }
            }
        }
        Kind::BreachCdf => {
            let ids = if a.algorithms.is_empty() {
                ["mondrian-l", "anatomy", "cbg"].map(String::from).to_vec()
            } else {
                a.algorithms.clone()
            };
            let runs = releases(a, s, &ids, progress)?;
            let before = assess(s, progress)?.report.baseline.breach;
            let mut series: Vec<(&str, &[anonlab::risk::CdfPoint])> = runs
                .iter()
                .filter_map(|r| Some((r.label.as_str(), r.eval.breach.as_ref()?.cdf.as_slice())))
                .collect();
            if let Some(b) = &before {
                series.insert(0, (original, b.distribution.cdf.as_slice()));
            }
            if series.len() == usize::from(before.is_some()) {
                bail!("no release has a breach probability: name a sensitive attribute with --sensitive");
            }
            charts::breach_cdfs(&series)?
        }
        Kind::Correlation => {
            let ds = &s.dataset;
            let mut columns: Vec<usize> = (0..ds.n_cols())
                .filter(|&c| !matches!(s.roles.get(c), Role::Insensitive | Role::Identifier))
                .collect();
            if columns.is_empty() {
                columns = (0..ds.n_cols()).collect();
            }
            let d = Discretization {
                bins: anonlab::stats::DEFAULT_BINS,
                missing: Default::default(),
            };
            charts::correlation_heatmap(&correlation_matrix(ds, &columns, a.measure, &d)?)?
        }
        Kind::Suppression | Kind::SuppressionHouseholds => {
            if a.algorithms.iter().any(|id| id != "local-suppression") {
                bail!("the suppression charts are of local suppression's cells: drop -a (or give -a local-suppression)");
            }
            let ids = ["local-suppression".to_string()];
            if a.kind == Kind::Suppression {
                let runs = releases(a, s, &ids, progress)?;
                let series: Vec<(&str, &anonlab::release::CellSuppression)> = runs
                    .iter()
                    .filter_map(|r| Some((r.label.as_str(), r.release.suppression.as_ref()?)))
                    .collect();
                charts::suppressed_cells(&series)?
            } else {
                if s.attacker.population.household.is_none() {
                    bail!("the household chart needs the household identifier: --household COL");
                }
                let (release, _) = measure_one(s, "local-suppression", a.k[0], 1, progress)?;
                let Some(h) = release
                    .suppression
                    .as_ref()
                    .and_then(|c| c.households.as_ref())
                else {
                    bail!("local suppression reported no households");
                };
                let mut chart = charts::suppressed_by_household_size(h)?;
                chart.title = format!("{}, k = {}", chart.title, a.k[0]);
                chart
            }
        }
        Kind::Sweep => {
            let Some(id) = a.algorithms.first() else {
                bail!("the sweep needs an algorithm: -a ID");
            };
            let algo = algorithms::by_id(id)?;
            let ls: Vec<u32> = if algo.needs().l { a.l.clone() } else { vec![1] };
            let mut cells = Vec::with_capacity(ls.len());
            for &l in &ls {
                let mut row = Vec::with_capacity(a.k.len());
                for &k in &a.k {
                    // A refused or unverifiable point is an empty cell,
                    // which is what the sweep is for: seeing where it fails.
                    // Why it failed goes to stderr, so the cell is explained.
                    let value = match measure_one(s, algo.id(), k, l, progress) {
                        Ok((_, e)) => a.metric.of(&e),
                        Err(e) => {
                            eprintln!(
                                "k = {k}, l = {l}: {}",
                                e.message_with(super::remedy, super::flag)
                            );
                            None
                        }
                    };
                    row.push(value);
                }
                cells.push(row);
            }
            let mut chart = charts::sweep_heatmap(a.metric.name(), &a.k, &ls, cells)?;
            let metric = a.metric.name();
            // The seed only where the algorithm draws with it.
            let seed = if algo.needs().seed {
                format!(" (seed {})", s.params.seed)
            } else {
                String::new()
            };
            chart.title = format!(
                "{}{} of {} by k and l{seed}",
                metric[..1].to_uppercase(),
                &metric[1..],
                algo.id(),
            );
            chart
        }
    })
}

/// Run one algorithm on the session's request (`Session::request`) and
/// verify it.
fn measure_one(
    s: &Session,
    id: &str,
    k: u32,
    l: u32,
    progress: &Progress,
) -> anonlab::Result<(Release, Evaluation)> {
    let req = s.request(id, k, l)?;
    // The workload's query error is not drawn: skip it.
    let measure = Measurements {
        queries: 0,
        query_seed: s.params.seed,
        threshold: s.attacker.threshold,
    };
    run_verified(id, &req, &measure, progress)
}

/// Every algorithm × k × l (l only for algorithms that read it).
fn releases(
    a: &ChartArgs,
    s: &Session,
    ids: &[String],
    progress: &Progress,
) -> anyhow::Result<Vec<Run>> {
    let mut runs = Vec::new();
    for id in ids {
        let algo = algorithms::by_id(id)?;
        let ls: Vec<Option<u32>> = if algo.needs().l {
            a.l.iter().copied().map(Some).collect()
        } else {
            vec![None]
        };
        for &k in &a.k {
            for &l in &ls {
                let label = match l {
                    Some(l) => format!("{} k={k} l={l}", algo.id()),
                    None => format!("{} k={k}", algo.id()),
                };
                let (release, eval) = measure_one(s, algo.id(), k, l.unwrap_or(1), progress)
                    .with_context(|| label.clone())?;
                runs.push(Run {
                    label,
                    release,
                    eval,
                });
            }
        }
    }
    Ok(runs)
}
