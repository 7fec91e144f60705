//! Reports for stakeholders: one project in, one
//! directory out — a self-contained HTML page, a Markdown version with its
//! charts as SVG files beside it, and a JSON file with the same figures.
//!
//! [`build`] computes everything from the project's data: the session's
//! baseline ([`crate::assess`]: the original data attacked by the
//! project's attacker, hidden cells honoured — the same "before" as every
//! screen and `anonlab assess`), one release by the project's algorithm
//! and parameters ([`Session::request`], as the TUI and `anonlab
//! anonymize --project` make it, so the release fingerprint is theirs),
//! verified by the independent verifier and measured like every release
//! ([`crate::anonymize`]), and the charts of [`crate::charts`]. Nothing is typed in: every sentence is
//! filled from those figures ([`plain`]). [`write`] renders the three
//! files atomically; it never touches the project or its data.
//!
//! Choices:
//! - **Which release.** The project's algorithm (`params.algorithm`) with
//!   its k, l and seed. A project without one gets Mondrian's l-diverse
//!   variant when a sensitive attribute is marked (groups a reader can
//!   picture, protecting both identity and the sensitive value) and plain
//!   Mondrian otherwise; the report says which was used and why.
//! - **"Singled out" after release** is told by two attackers: the one of
//!   the key-count simulator, who sees the published values and counts the
//!   records sharing a record's published key (its published class size),
//!   and the linkage attacker, who holds a person's original values and
//!   counts the published records that could be theirs. The headline uses
//!   the linkage attacker, the stronger of the two on a generalized
//!   release. "Before" is the baseline, where both attacks agree. The
//!   after figures are the one after measurement every surface reads
//!   (`assess::After`), for the session's attacker — the baseline's —
//!   and the report names the known attributes the release leaves out and
//!   the hidden cells the baseline honours, in the words of the TUI and
//!   `anonymize --json`.
//! - **A release that fails verification is still reported** — with the
//!   failed checks first and in plain words — because a report is how the
//!   failure reaches the people deciding; the CLI exits non-zero after
//!   writing it, so scripts notice.

mod audience;
mod doc;
mod html;
mod markdown;
pub mod plain;
mod sample;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::anonymize::{evaluate, run_algorithm, Distribution, Evaluation, Measure};
use crate::assess::{assess, After, Baseline};
use crate::charts::{self, Chart};
use crate::data::{stage_file, Inputs, Role, Staged};
use crate::error::{Error, Result};
use crate::metrics::QueryReport;
use crate::progress::Progress;
use crate::release::{self as rel, Release};
use crate::risk::{self, CdfPoint, PrefixRow, RiskSummary};
use crate::session::{AttackerSummary, Session};
pub use audience::{external, Audience, ExternalReport, InformationLoss, EXTERNAL_CHARTS};
pub use sample::SampleFigures;

pub use html::{escape, to_html};
pub use markdown::to_markdown;

/// File names inside the report directory.
pub const HTML_FILE: &str = "report.html";
pub const MARKDOWN_FILE: &str = "report.md";
pub const JSON_FILE: &str = "report.json";

/// Every figure of a report; the JSON file is this, serialized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The anonlab version that computed it.
    pub anonlab_version: String,
    /// The project file the report was made from.
    pub project: String,
    pub dataset: DatasetSummary,
    pub attacker: AttackerSummary,
    pub release: ReleaseSettings,
    /// The independent verifier's checks of every guarantee the algorithm
    /// claims.
    pub guarantees: Vec<GuaranteeCheck>,
    pub guarantees_hold: bool,
    pub risk: RiskBeforeAfter,
    /// The statistics offices' measures the project asked for (population
    /// model, sampling weights, special uniques, attribute risks): the
    /// figures `anonlab assess --json` prints for the same attacker.
    #[serde(default, skip_serializing_if = "SampleFigures::is_empty")]
    pub sample: SampleFigures,
    pub utility: UtilityKept,
    /// The headline in plain sentences (what the HTML and Markdown open with).
    pub summary: Vec<String>,
    pub reproduce: Reproduce,
    pub charts: Vec<ChartEntry>,
    /// Who the report is for (`audience`): the internal report carries
    /// everything; an external one is rendered without seed and risk.
    #[serde(default, skip_serializing_if = "Audience::is_internal")]
    pub audience: Audience,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetSummary {
    pub file: String,
    pub rows: usize,
    pub columns: Vec<ColumnSummary>,
    /// The data file changed since the project was saved (the warning of
    /// [`crate::data::Project::data_changed`]).
    pub data_warning: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnSummary {
    pub name: String,
    pub role: Role,
    pub distinct_values: usize,
    pub missing: u64,
    /// Semi-sensitive columns: the cells marked sensitive.
    pub sensitive_cells: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReleaseSettings {
    pub algorithm: String,
    pub algorithm_name: String,
    /// The project named no algorithm and this one was chosen (see the
    /// module doc).
    pub algorithm_defaulted: bool,
    /// The parameters the algorithm reads (`Algorithm::needs`), by name:
    /// the settings the report describes are these.
    #[serde(default)]
    pub reads: Vec<String>,
    pub k: u32,
    /// `None` for algorithms that do not read l.
    pub l: Option<u32>,
    pub t: f64,
    pub c: f64,
    /// The seed the algorithm drew with; `None` when it reads none
    /// (`Evaluation::seed`).
    pub seed: Option<u64>,
    /// p of p-sensitive k-anonymity (pk-enhanced, pk-greedy and
    /// full-domain's p-sensitive model read it).
    pub p: u32,
    /// Full-domain's settings, when it made the release.
    pub full_domain: Option<crate::data::FullDomainParams>,
    /// Construction(D, G)'s conditions file, when it made the release.
    pub conditions: Option<String>,
    pub queries: usize,
    pub query_seed: u64,
    pub groups: usize,
    pub buckets: usize,
    pub suppressed_rows: usize,
    pub time_ms: f64,
    /// SHA-256 of the published files (`release::fingerprint`): the one
    /// the TUI's Anonymize screen and `anonlab anonymize --json` show for
    /// this release.
    pub fingerprint: String,
    /// Attributes an attacker could know that the release does not publish
    /// (semi-sensitive ones, for algorithms that cannot keep their
    /// sensitive cells apart).
    pub not_published: Vec<String>,
    /// The top and bottom codes and roundings applied to the data before
    /// the method ran (`data::recode`), each with the cells it changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recodings: Vec<crate::data::AppliedRecode>,
    /// A local suppression's cells: per key variable, the convention,
    /// sdcMicro's greedy beside them, and by household size (the
    /// release's `CellSuppression`, which `anonymize --json` prints too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_suppression: Option<rel::CellSuppression>,
    /// A release of perturbed values (microaggregation): the methods, the
    /// numeric attributes' interval risk and information loss (the
    /// evaluation's figures, which `anonymize --json` prints too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perturbation: Option<crate::metrics::PerturbationFigures>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuaranteeCheck {
    pub claim: String,
    pub holds: bool,
    pub detail: String,
}

/// How exposed people are to one attacker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exposure {
    /// People the attack is run against.
    pub records: usize,
    /// People identified for certain (chance 1).
    pub singled_out: usize,
    /// The most exposed person's chance of being identified.
    pub max: f64,
    pub mean: f64,
    /// People whose chance is above the threshold.
    pub above_threshold: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BreachFigures {
    pub attribute: String,
    pub records: usize,
    pub mean: f64,
    pub max: f64,
    pub above_threshold: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RiskBeforeAfter {
    pub threshold: f64,
    /// Whose "before" it is: "attacker knows 7 of 8 QIs; 2,082 cells hidden".
    pub before_attacker: String,
    /// Whose "after" it is: the session's attacker, with the known
    /// attributes the release leaves out (`after.attacker`'s label).
    pub after_attacker: String,
    /// The session's baseline, as `anonlab assess --json` and every screen
    /// have it.
    pub baseline: Baseline,
    /// Key-count simulator on the original data (the baseline's).
    pub before: Exposure,
    /// Linkage attack on the original data (the baseline's; it agrees with
    /// the key count).
    pub before_linkage: Exposure,
    /// Chance of learning a person's sensitive value from the original
    /// data (the baseline's).
    pub breach_before: Option<BreachFigures>,
    /// Key-count simulator on the published table (published class sizes).
    pub after_key_count: Exposure,
    /// Linkage attack on the release (attacker holds original values).
    pub after_linkage: Exposure,
    /// Chance of learning a person's sensitive value from the release.
    pub breach: Option<BreachFigures>,
    /// The after measurement the three figures above summarize, with the
    /// `attacker` object naming whose it is: the figures the TUI's screens
    /// and `anonymize --json` show for the same attacker.
    pub after: After,
    /// Uniques as the attacker learns one attribute after another
    /// (original data).
    pub prefix: Vec<PrefixRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UtilityKept {
    /// Discernibility C_DM: Σ over published classes of size².
    pub discernibility: u64,
    /// C_AVG (1 is the best possible for the promised k).
    pub average_class_size: Option<f64>,
    /// GCP, a share: the NCP sum per published QI cell, 0 (exact) to 1
    /// (nothing kept).
    pub gcp_share: f64,
    /// NCP, a sum over the published QI cells (Xu et al.'s table NCP).
    pub ncp_sum: f64,
    pub queries: Option<QueryReport>,
    pub probabilistic_queries: Option<QueryReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reproduce {
    /// This report, again.
    pub report_command: String,
    /// The release alone.
    pub anonymize_command: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartEntry {
    /// The SVG's file name beside the Markdown.
    pub file: String,
    pub title: String,
    /// One line on how to read it.
    pub caption: String,
}

/// A report with its charts, ready to write.
#[derive(Debug, Clone)]
pub struct Built {
    pub report: Report,
    /// Parallel to `report.charts`.
    pub charts: Vec<Chart>,
    /// The release the report describes (not written by [`write`]).
    pub release: Release,
    pub evaluation: Evaluation,
}

/// The algorithm a report uses for `session`: see the module doc.
pub fn chosen_algorithm(session: &Session) -> (String, bool) {
    match &session.params.algorithm {
        Some(a) => (a.clone(), false),
        None if session.roles.with(Role::Sensitive).is_empty() => ("mondrian".into(), true),
        None => ("mondrian-l".into(), true),
    }
}

/// Compute a report on `session`, which was opened from `project_file`
/// (named in the reproduce commands). `data_warning` is what
/// `Project::data_changed` said when it was opened.
pub fn build(
    session: &Session,
    project_file: &Path,
    data_warning: Option<String>,
    progress: &Progress,
) -> Result<Built> {
    let ds = &session.dataset;
    let (algorithm, defaulted) = chosen_algorithm(session);
    let algo = session.registry.get(&algorithm)?;
    let params = &session.params;
    let assessment = assess(session, progress)?;
    let before_report = &assessment.report;
    let sim = &assessment.simulation;
    let baseline = &before_report.baseline;

    let req = session.request(algo.id(), params.k, params.l)?;
    let measure = Measure {
        queries: crate::metrics::DEFAULT_QUERIES,
        query_seed: params.seed,
        threshold: session.attacker.threshold,
    };
    let (release, ms) = run_algorithm(&*algo, &req, progress)?;
    let evaluation = evaluate(&release, ds, ms, &measure, progress)?;
    let fingerprint = rel::fingerprint(&release, ds, Some(session.roles.as_slice()));

    let threshold = session.attacker.threshold;
    let before = distribution_exposure(&baseline.key_count, threshold);
    let before_linkage = distribution_exposure(&baseline.linkage, threshold);
    // The after figures: the one after measurement every surface reads
    // (`assess::After`), for the session's attacker — the baseline's — so
    // the report, the TUI's screens and `anonymize --json` agree.
    let attacker = session.attacker()?;
    let after = After::measure_with(
        ds,
        &release,
        &attacker,
        threshold,
        Some(&evaluation),
        progress,
    )?;
    let after_key_count = distribution_exposure(&after.key_count, threshold);
    let after_linkage = distribution_exposure(&after.linkage, threshold);
    let breach_figures = |attribute: &str, d: &Distribution| BreachFigures {
        attribute: attribute.to_string(),
        records: d.summary.records,
        mean: d.summary.mean,
        max: d.summary.max,
        above_threshold: d.above(threshold),
    };
    let breach = after
        .breach
        .as_ref()
        .map(|b| breach_figures(&b.attribute, &b.distribution));
    let breach_before = baseline
        .breach
        .as_ref()
        .map(|b| breach_figures(&b.attribute, &b.distribution));
    let not_published: Vec<String> = baseline
        .attacker
        .knows
        .iter()
        .filter(|n| {
            ds.column_index(n)
                .is_ok_and(|c| !release.quasi_identifiers.contains(&c))
        })
        .cloned()
        .collect();
    let after_attacker = after.attacker.label.clone();

    let columns = (0..ds.n_cols())
        .map(|c| {
            let col = ds.col(c);
            let role = session.roles.get(c);
            let sensitive_cells = if role == Role::SemiSensitive {
                Some(session.sensitive_cells(c)?.count_ones(..))
            } else {
                None
            };
            Ok(ColumnSummary {
                name: col.name().to_string(),
                role,
                distinct_values: col.cardinality(),
                missing: col.missing_count(),
                sensitive_cells,
            })
        })
        .collect::<Result<Vec<_>>>()?;

    let verification = &evaluation.verification;
    let guarantees: Vec<GuaranteeCheck> = verification
        .checks
        .iter()
        .map(|c| GuaranteeCheck {
            claim: c.claim.clone(),
            holds: c.holds,
            detail: c.detail.clone(),
        })
        .collect();

    let project = project_file.display().to_string();
    let uses_l = algo.needs().l;
    let mut report = Report {
        anonlab_version: env!("CARGO_PKG_VERSION").to_string(),
        project: project.clone(),
        dataset: DatasetSummary {
            file: session.label(),
            rows: ds.n_rows(),
            columns,
            data_warning,
        },
        attacker: baseline.attacker.clone(),
        release: ReleaseSettings {
            algorithm: algo.id().to_string(),
            algorithm_name: algo.name().to_string(),
            algorithm_defaulted: defaulted,
            reads: algo
                .needs()
                .parameters()
                .into_iter()
                .map(String::from)
                .collect(),
            k: params.k,
            l: uses_l.then_some(params.l),
            t: params.t,
            c: params.c,
            seed: evaluation.seed,
            p: params.p,
            full_domain: (algo.id() == "full-domain").then(|| params.full_domain.clone()),
            conditions: (algo.id() == "construction")
                .then(|| params.conditions.as_ref().map(|c| c.display().to_string()))
                .flatten(),
            queries: measure.queries,
            query_seed: measure.query_seed,
            groups: evaluation.groups,
            buckets: evaluation.buckets,
            suppressed_rows: evaluation.suppressed,
            time_ms: evaluation.time_ms,
            fingerprint,
            not_published,
            recodings: session.recodings().to_vec(),
            local_suppression: release.suppression.clone(),
            perturbation: evaluation.perturbation.clone(),
        },
        guarantees_hold: verification.all_hold(),
        guarantees,
        risk: RiskBeforeAfter {
            threshold,
            before_attacker: baseline.attacker.to_string(),
            after_attacker,
            baseline: baseline.clone(),
            before,
            before_linkage,
            breach_before,
            after_key_count,
            after_linkage,
            breach,
            after: after.figures(),
            prefix: before_report.prefix.clone(),
        },
        sample: SampleFigures::of(before_report),
        utility: UtilityKept {
            discernibility: evaluation.utility.discernibility,
            average_class_size: evaluation.utility.average_class_size,
            gcp_share: evaluation.utility.gcp,
            ncp_sum: evaluation.utility.ncp,
            queries: evaluation.queries.clone(),
            probabilistic_queries: evaluation.probabilistic_queries.clone(),
        },
        summary: Vec::new(),
        reproduce: Reproduce {
            report_command: format!("anonlab report {} -o DIR", shell_quote(&project)),
            anonymize_command: anonymize_command(
                &project,
                algo.id(),
                params.k,
                uses_l.then_some(params.l),
                params.seed,
                threshold,
            ),
        },
        charts: Vec::new(),
        audience: Audience::Internal,
    };
    report.summary = plain::summary(&report);

    // The baseline's key count: records by how many records share their
    // known values for the project's attacker (hidden cells honoured).
    let before_sizes = &sim.matches;
    // The charts drawing after series name the after's attacker (the
    // baseline's, with what the release leaves out); the prefix chart,
    // original only, the baseline's.
    let for_attacker = format!(" ({})", after.attacker);
    let for_baseline = format!(" ({})", baseline.attacker);
    // Each published record's key count, as the simulator's match counts
    // (suppressed records are not published).
    let sizes: Vec<u32> = after.matches.iter().copied().filter(|&m| m > 0).collect();
    let mut built_charts = Vec::new();
    let mut entries = Vec::new();
    let mut add = |file: &str, caption: &str, chart: Chart| {
        entries.push(ChartEntry {
            file: file.to_string(),
            title: chart.title.clone(),
            caption: caption.to_string(),
        });
        built_charts.push(chart);
    };
    let (before_hist, before_cdf) = risk::ProbabilityRuns::of_matches(before_sizes, None).shape();
    let after_hist = after.key_count.histogram.clone();
    add(
        "reid-histogram.svg",
        "How many people have each chance of being identified by someone who sees the published values; bars on the right are the most exposed.",
        titled(
            charts::reid_histogram(&[("original", &before_hist), ("published", &after_hist)])?,
            &for_attacker,
        ),
    );
    let after_cdf = after.key_count.cdf.clone();
    add(
        "reid-cdf.svg",
        "The share of people whose chance of being identified is at most a given value; a line that reaches the top early means low risk for almost everyone.",
        titled(
            charts::reid_cdf(&[
                ("original", before_cdf.as_slice()),
                ("published (key count)", after_cdf.as_slice()),
                ("published (linkage)", after.linkage.cdf.as_slice()),
            ])?,
            &for_attacker,
        ),
    );
    if let Some(b) = after.breach.as_ref().map(|b| &b.distribution) {
        let mut series = Vec::new();
        if let Some(before) = &baseline.breach {
            series.push(("original", before.distribution.cdf.as_slice()));
        }
        series.push((algo.id(), b.cdf.as_slice()));
        add(
            "breach-cdf.svg",
            "The share of people whose sensitive value can be guessed with at most a given chance, from the original data and from the release.",
            titled(charts::breach_cdfs(&series)?, &for_attacker),
        );
    }
    add(
        "class-sizes.svg",
        "How many people share their published values with how many others; larger groups hide people better.",
        titled(
            charts::class_sizes(&[("original", before_sizes), ("published", &sizes)])?,
            &for_attacker,
        ),
    );
    if !before_report.prefix.is_empty() {
        add(
            "prefix.svg",
            "People who can be singled out as the attacker learns one attribute after another, in the order given.",
            titled(
                charts::prefix_chart(&[("original", &before_report.prefix)])?,
                &for_baseline,
            ),
        );
    }
    if let Some(cells) = &release.suppression {
        add(
            "suppressed-cells.svg",
            "How many cells of each key variable were blanked (published as *) so that every person is hidden among enough others.",
            charts::suppressed_cells(&[(algo.id(), cells)])?,
        );
        if let Some(h) = &cells.households {
            add(
                "suppressed-by-household-size.svg",
                "The same blanked cells by the size of the household the person lives in: people in one household can recognise each other.",
                charts::suppressed_by_household_size(h)?,
            );
        }
    }
    if let Some(p) = &evaluation.perturbation {
        if let Some(d) = &p.il1s_records {
            add(
                "il1s-per-record.svg",
                "How much each person's published numeric values moved from their true ones (IL1s, in standard deviations): most records should sit in the first bars.",
                charts::loss_per_record(d)?,
            );
        }
        if let Some(l) = &p.linkage {
            add(
                "linkage-ranks.svg",
                "For an attacker who holds every true value: where each person's own published record ranks among the records nearest to them (rank 1: found).",
                charts::linkage_ranks(&l.rank_histogram)?,
            );
        }
    }
    report.charts = entries;
    Ok(Built {
        report,
        charts: built_charts,
        release,
        evaluation,
    })
}

/// `chart` with `suffix` (the attacker its "original" series is for) after
/// its title.
fn titled(mut chart: Chart, suffix: &str) -> Chart {
    chart.title.push_str(suffix);
    chart
}

/// The key-count attacker's figures after (the simulator's summary of the
/// published class sizes).
impl From<&RiskSummary> for Exposure {
    fn from(s: &RiskSummary) -> Self {
        Exposure {
            records: s.records,
            singled_out: s.uniques,
            max: s.max,
            mean: s.mean,
            above_threshold: s.records_above_threshold,
        }
    }
}

/// Records whose probability exceeds `p`, from a CDF (share of records with
/// probability ≤ each value that occurs).
fn count_above(cdf: &[CdfPoint], records: usize, p: f64) -> usize {
    let at_most = cdf
        .iter()
        .take_while(|c| c.probability <= p + 1e-12)
        .last()
        .map_or(0.0, |c| c.share);
    records - ((at_most * records as f64).round() as usize).min(records)
}

fn distribution_exposure(d: &Distribution, threshold: f64) -> Exposure {
    let records = d.summary.records;
    Exposure {
        records,
        // Chance 1 means no other published record could be theirs.
        singled_out: count_above(&d.cdf, records, 1.0 - 1e-9),
        max: d.summary.max,
        mean: d.summary.mean,
        above_threshold: count_above(&d.cdf, records, threshold),
    }
}

/// A word as a POSIX shell reads it back: unquoted when it is plain,
/// single-quoted otherwise.
fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The command that publishes the report's release, with its figures
/// counted above the report's threshold (`threshold`, which the report's
/// `--threshold` may have set apart from the project's).
fn anonymize_command(
    project: &str,
    algorithm: &str,
    k: u32,
    l: Option<u32>,
    seed: u64,
    threshold: f64,
) -> String {
    let mut cmd = format!(
        "anonlab anonymize --project {} -a {algorithm} -k {k}",
        shell_quote(project)
    );
    if let Some(l) = l {
        cmd.push_str(&format!(" -l {l}"));
    }
    cmd.push_str(&format!(
        " --seed {seed} --threshold {threshold} -o published.csv"
    ));
    cmd
}

/// Write the report into `dir` (created if missing): HTML, Markdown, JSON
/// and the charts as SVG files, each through `data::output` (never over
/// one of `inputs`). Returns the files written.
pub fn write(built: &Built, dir: &Path, inputs: &Inputs) -> Result<Vec<PathBuf>> {
    write_for(built, dir, inputs, Audience::Internal)
}

/// [`write`] for an audience: the external report (`audience`) renders
/// [`external`] of the report, writes [`ExternalReport`] as its JSON and
/// only the charts it may show.
pub fn write_for(
    built: &Built,
    dir: &Path,
    inputs: &Inputs,
    audience: Audience,
) -> Result<Vec<PathBuf>> {
    // Written as one unit (issue 36, item 7): every file is staged (a
    // synced temporary file beside its target) before the first is put in
    // place, so a failure — a full disk, a file that cannot be replaced —
    // leaves no new file; a directory this call made is removed again.
    let made = !dir.exists();
    std::fs::create_dir_all(dir).map_err(|e| Error::Write(dir.to_path_buf(), e))?;
    let staged = stage_report(built, dir, inputs, audience).inspect_err(|_| {
        if made {
            let _ = std::fs::remove_dir(dir);
        }
    })?;
    let mut written = Vec::with_capacity(staged.len());
    for file in staged {
        let path = file.path().to_path_buf();
        file.commit()?;
        written.push(path);
    }
    Ok(written)
}

/// Every file of the report staged in `dir`, none in place yet.
fn stage_report(
    built: &Built,
    dir: &Path,
    inputs: &Inputs,
    audience: Audience,
) -> Result<Vec<Staged>> {
    let external_report;
    let (report, json) = match audience {
        Audience::Internal => (&built.report, serde_json::to_string_pretty(&built.report)),
        Audience::External => {
            external_report = external(&built.report);
            let json = serde_json::to_string_pretty(&ExternalReport::of(&external_report));
            (&external_report, json)
        }
    };
    let json = json.map_err(|e| Error::Internal(format!("report as JSON: {e}")))?;
    let files: Vec<PathBuf> = report
        .charts
        .iter()
        .map(|c| dir.join(&c.file))
        .chain([MARKDOWN_FILE, JSON_FILE, HTML_FILE].map(|n| dir.join(n)))
        .collect();
    // Every file checked before the first is written.
    inputs.check_all(&files.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
    // The charts the report shows, parallel to `report.charts`.
    let svgs = built
        .report
        .charts
        .iter()
        .zip(&built.charts)
        .filter(|(entry, _)| report.charts.iter().any(|c| c.file == entry.file))
        .map(|(_, chart)| chart.to_svg())
        .collect::<Result<Vec<_>>>()?;
    let texts = [
        (MARKDOWN_FILE, to_markdown(report)),
        (JSON_FILE, json),
        (HTML_FILE, to_html(report, &svgs)),
    ];
    let mut staged = Vec::with_capacity(files.len());
    for (entry, svg) in report.charts.iter().zip(&svgs) {
        let bytes = svg.as_bytes();
        staged.push(stage_file(&dir.join(&entry.file), inputs, |w| {
            w.write_all(bytes)
        })?);
    }
    for (name, text) in &texts {
        let bytes = text.as_bytes();
        staged.push(stage_file(&dir.join(name), inputs, |w| w.write_all(bytes))?);
    }
    Ok(staged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_survive_quoting() {
        assert_eq!(shell_quote("p.json"), "p.json");
        assert_eq!(shell_quote("my project.json"), "'my project.json'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn counts_above_come_from_the_cdf() {
        let cdf = [
            CdfPoint {
                probability: 0.25,
                share: 0.5,
            },
            CdfPoint {
                probability: 1.0,
                share: 1.0,
            },
        ];
        assert_eq!(count_above(&cdf, 8, 0.2), 8);
        assert_eq!(count_above(&cdf, 8, 0.25), 4);
        assert_eq!(count_above(&cdf, 8, 1.0 - 1e-9), 4);
        assert_eq!(count_above(&cdf, 8, 1.0), 0);
        let e = Exposure::from(&risk::summarize(&[1, 4, 4, 4, 4], 2, 0.2));
        assert_eq!((e.singled_out, e.above_threshold, e.max), (1, 5, 1.0));
        assert!((e.mean - (1.0 + 4.0 * 0.25) / 5.0).abs() < 1e-12);
        // A chance equal to the threshold is not above it (1/5 and 0.2 are
        // the same double); the simulator's "before" figure counts alike.
        let e = Exposure::from(&risk::summarize(&[5; 5], 1, 0.2));
        assert_eq!((e.above_threshold, e.max), (0, 0.2));
    }
}
