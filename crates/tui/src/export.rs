//! Exports from the TUI, charts and reports: `e` writes the
//! chart of the screen in view as SVG (or PNG), `E` the stakeholder report
//! of the session, both in the export job slot so the UI never waits.
//!
//! The app hands this module the figures its screens already hold (the
//! CDF step lines, the correlation matrix, the roles) — copying them is
//! O(series) — and the job does the rest: any per-record computation (the
//! class sizes of the Data screen), building the [`Chart`] with the
//! builders of [`anonlab::charts`], rendering and writing it atomically.
//!
//! Choices:
//! - **Where.** Charts go to `anonlab-export/` and reports to
//!   `anonlab-report/`, both beside the project file (created when
//!   missing), so an export sits next to the session it came from. File
//!   names say the screen and the chart (`risk-reid-cdf.svg`); exporting
//!   again replaces the file, as saving a project does.
//! - **What, per screen.** Data: records by the number of records that
//!   share their known values for the session's attacker (the baseline's
//!   key count: the class sizes the attacker sees). Risk: the attack in
//!   view (key count, linkage or breach), before and after anonymization;
//!   a Pr(re-id) attack writes two files, its CDF and its histogram (the
//!   issue's "histogram and CDF before/after"), a breach attack its CDF
//!   only. Anonymize: breach-probability CDFs of the original table and
//!   the shown release (Pr(re-id) when there is no sensitive attribute),
//!   or the k/l sweep heat map while the sweep grid is open (cells not yet
//!   computed or refused are drawn empty). Compare: one CDF per measured
//!   entry beside the original table's. Hierarchies: the correlation heat
//!   map on screen.
//! - **Whose attacker.** Every "original" series is the session's
//!   baseline — the same figures as the screens, the report and `anonlab
//!   assess` — and the chart's title names its attacker ("attacker knows 7
//!   of 8 QIs; 2,082 cells hidden"); where the release's figures are for
//!   another attacker (the Anonymize screen: the one who knows every QI
//!   the release publishes), the title names that one too.
//! - **Curves back to CDF points.** The screens keep each distribution as
//!   the step line they draw ([`super::step_series`]); [`cdf_points`]
//!   inverts it exactly, and [`probabilities`] expands a CDF into one
//!   probability per record (the shares are multiples of 1/records), so a
//!   histogram is binned by the same code as the simulator's.
//! - **The report is the CLI's.** [`report_job`] opens the session the
//!   project file would describe — the app's project with its paths made
//!   relative to the project file as saving does, then resolved against it
//!   as [`Project::load`] does — over the dataset already in memory, and
//!   runs [`report::build`] and [`report::write`]: `anonlab report` on the
//!   saved project writes the same `report.json` (timings aside).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::worker::JobFn;
use anonlab::charts::{self, Chart};
use anonlab::data::{Dataset, Inputs, Project};
use anonlab::error::{Error, Result};
use anonlab::report;
use anonlab::risk::Distribution;
use anonlab::session::Session;

/// Charts are written here, beside the project file.
pub const EXPORT_DIR: &str = "anonlab-export";
/// Reports are written here, beside the project file.
pub const REPORT_DIR: &str = "anonlab-report";
/// External reports (`:export report-external`) are written here.
pub const EXTERNAL_REPORT_DIR: &str = "anonlab-report-external";
/// Where `:write` and `W` put the release without a path, beside the
/// project file: `release.csv` (with `release.buckets.csv` for a
/// bucketized release) and `release.json`.
pub const RELEASE_DIR: &str = "anonlab-release";

pub use super::chart::{ChartData, ChartExport, Dist};

/// Where an export goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A directory: files named by screen and chart, as SVG.
    Dir(PathBuf),
    /// A file named by the user; its extension (.svg or .png) chooses the
    /// format. A second chart of the same export gets `-histogram` before
    /// the extension.
    File(PathBuf),
}

/// What a finished export wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Exported {
    pub files: Vec<PathBuf>,
    /// What was written, for the notice ("chart", "report").
    pub what: String,
}

impl Exported {
    /// The notice line: what was written, and where.
    pub fn notice(&self) -> String {
        let names: Vec<String> = self.files.iter().map(|f| f.display().to_string()).collect();
        format!("{} written: {}", self.what, names.join(", "))
    }
}

/// The directory beside `project_file` called `name`.
pub fn beside(project_file: &Path, name: &str) -> PathBuf {
    match project_file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(name),
        _ => PathBuf::from(name),
    }
}

/// The job writing `export` to `target`.
pub fn chart_job(export: ChartExport, target: Target, inputs: Inputs) -> JobFn<Exported> {
    Box::new(move |progress| {
        // Refuse a bad file name before any work.
        if let Target::File(f) = &target {
            charts::Format::from_path(f)?;
        }
        let mut charts = build_charts(&export.data)?;
        if let Some(a) = &export.attacker {
            for (_, c) in &mut charts {
                c.title = format!("{} ({a})", c.title);
            }
        }
        progress.check()?;
        let mut files = Vec::with_capacity(charts.len());
        for (i, (kind, chart)) in charts.iter().enumerate() {
            let file = match &target {
                Target::Dir(dir) => dir.join(format!("{}-{kind}.svg", export.screen)),
                Target::File(f) if i == 0 => f.clone(),
                Target::File(f) => suffixed(f, kind),
            };
            if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| Error::Io(dir.to_path_buf(), e))?;
            }
            chart.write(&file, &inputs)?;
            files.push(file);
        }
        Ok(Exported {
            files,
            what: match charts.as_slice() {
                [(_, c)] => format!("chart '{}'", c.title),
                _ => "charts".to_string(),
            },
        })
    })
}

/// `x.svg` with `kind` → `x-kind.svg`.
fn suffixed(file: &Path, kind: &str) -> PathBuf {
    let stem = file
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let ext = file
        .extension()
        .map_or_else(String::new, |e| format!(".{}", e.to_string_lossy()));
    file.with_file_name(format!("{stem}-{kind}{ext}"))
}

/// The charts of an export with the name of their kind, first the one a
/// user-named file receives.
pub fn build_charts(data: &ChartData) -> Result<Vec<(&'static str, Chart)>> {
    Ok(match data {
        ChartData::ClassSizes(before) => {
            let sizes = &before.assessment.simulation.matches;
            vec![("class-sizes", charts::class_sizes(&[("original", sizes)])?)]
        }
        // The distributions themselves: their CDF and histogram are drawn
        // as the figures were read from them.
        ChartData::Reidentification(dists) => {
            let cdfs = labelled(dists, |d| &d.cdf);
            let hists = labelled(dists, |d| &d.histogram);
            vec![
                ("reid-cdf", charts::reid_cdf(&cdfs)?),
                ("reid-histogram", charts::reid_histogram(&hists)?),
            ]
        }
        ChartData::Breach(dists) => {
            let cdfs = labelled(dists, |d| &d.cdf);
            vec![("breach-cdf", charts::breach_cdfs(&cdfs)?)]
        }
        ChartData::Correlation(m) => vec![("correlation", charts::correlation_heatmap(m)?)],
        ChartData::Sweep {
            measure,
            ks,
            ls,
            cells,
            title,
        } => {
            let mut chart = charts::sweep_heatmap(measure, ks, ls, cells.clone())?;
            chart.title = title.clone();
            vec![("sweep", chart)]
        }
    })
}

/// Each distribution's label with its part of `data`, as the chart
/// builders take their series.
fn labelled<'a, T>(
    dists: &'a [Dist],
    part: impl Fn(&'a Distribution) -> &'a Vec<T>,
) -> Vec<(&'a str, &'a [T])> {
    dists
        .iter()
        .map(|d| (d.label.as_str(), part(&d.distribution).as_slice()))
        .collect()
}

/// `project` (the app's, with paths as the process opens them) as
/// `Project::load` reads it back after it is saved to `project_file`.
pub fn reopened(project: &Project, project_file: &Path) -> Project {
    let mut p = project.relative_to(project_file);
    p.resolve_paths(project_file);
    p
}

/// The job writing the session's report into `dir`, named after
/// `project_file` (the file the reproduce commands name). `ds` is the
/// file's data as read (`Session::original`): the project's recodings
/// are applied to it.
pub fn report_job(
    ds: Arc<Dataset>,
    project: Project,
    project_file: PathBuf,
    dir: PathBuf,
    audience: report::Audience,
) -> JobFn<Exported> {
    Box::new(move |progress| {
        let p = reopened(&project, &project_file);
        let warning = p.data_changed();
        let session = Session::with_project(Arc::clone(&ds), &p)?;
        let built = report::build(&session, &project_file, warning, progress)?;
        let inputs = p.inputs().with(&project_file);
        let files = report::write_for(&built, &dir, &inputs, audience)?;
        let html = files
            .iter()
            .find(|f| f.ends_with(report::HTML_FILE))
            .cloned()
            .unwrap_or_else(|| dir.join(report::HTML_FILE));
        let verdict = if built.report.guarantees_hold {
            ""
        } else {
            " — the release FAILED verification; the report says which check"
        };
        Ok(Exported {
            files: vec![html],
            what: format!("report ({} files){verdict}", files.len()),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_file_names_the_second_chart() {
        assert_eq!(
            suffixed(Path::new("out/x.png"), "reid-histogram"),
            PathBuf::from("out/x-reid-histogram.png")
        );
        assert_eq!(
            beside(Path::new("p.json"), EXPORT_DIR),
            PathBuf::from(EXPORT_DIR)
        );
        assert_eq!(
            beside(Path::new("a/p.json"), REPORT_DIR),
            PathBuf::from("a").join(REPORT_DIR)
        );
    }
}
