//! The app's side of exporting (`e` the chart in view, `E` the report):
//! it copies the figures the screen in view holds into a
//! [`ChartExport`](crate::tui::export::ChartExport), or the session into a
//! project, and queues the job of [`crate::tui::export`] in the export
//! slot. A child module of `app` so it can read the screens' state while
//! `app.rs` keeps one field and one dispatch line per feature.

use std::path::PathBuf;
use std::sync::Arc;

use super::compare::{Outcome, Probability};
use super::{App, JobState, Popup, Screen};
use crate::data::Role;
use crate::tui::export::{
    self, beside, chart_job, report_job, ChartData, ChartExport, Dist, Exported, Target,
};
use crate::tui::risk::RiskChart;
use crate::tui::worker::WorkerMsg;

impl App {
    /// Write the chart of the screen in view: into `anonlab-export/`
    /// beside the project file, or to `path` (.svg or .png).
    pub fn export_chart(&mut self, path: Option<PathBuf>) {
        match self.chart_in_view() {
            Ok(export) => {
                let target = match path {
                    Some(p) => Target::File(p),
                    None => Target::Dir(beside(&self.project_path(), export::EXPORT_DIR)),
                };
                let id = self.export_worker.submit(chart_job(export, target));
                self.export_job = JobState::Running { id, fraction: 0.0 };
                self.notice = Some("writing the chart…".into());
            }
            Err(why) => self.notice = Some(format!("no chart to export: {why}")),
        }
    }

    /// Write the session's report (as `anonlab report` on the project
    /// file would): into `anonlab-report/` beside the project file, or
    /// into `dir`.
    pub fn export_report(&mut self, dir: Option<PathBuf>) {
        let project_file = self.project_path();
        let dir = dir.unwrap_or_else(|| beside(&project_file, export::REPORT_DIR));
        let job = report_job(Arc::clone(&self.ds), self.to_project(), project_file, dir);
        let id = self.export_worker.submit(job);
        self.export_job = JobState::Running { id, fraction: 0.0 };
        self.notice = Some("writing the report… (Esc cancels)".into());
    }

    /// The export job's state.
    pub fn export_job(&self) -> &JobState {
        &self.export_job
    }

    /// Stop a running export; whether one was running.
    pub(super) fn cancel_export(&mut self) -> bool {
        if !self.export_job.is_running() {
            return false;
        }
        self.export_worker.cancel();
        self.export_job = JobState::Cancelled;
        self.notice = Some("export cancelled".into());
        true
    }

    pub(super) fn on_export(&mut self, msg: WorkerMsg<Exported>) {
        let JobState::Running { id: current, .. } = self.export_job else {
            return;
        };
        if msg.id() != current {
            return;
        }
        match msg {
            WorkerMsg::Progress { id, fraction } => {
                self.export_job = JobState::Running { id, fraction };
            }
            WorkerMsg::Done { output, .. } => {
                self.export_job = JobState::Done;
                self.notice = Some(output.notice());
            }
            WorkerMsg::Cancelled { .. } => self.export_job = JobState::Cancelled,
            WorkerMsg::Failed { error, .. } => {
                self.export_job = JobState::Failed;
                self.popup = Some(Popup {
                    title: "Export failed".into(),
                    message: error,
                });
            }
        }
    }

    /// The figures of the chart the screen in view shows, or why there is
    /// none yet.
    fn chart_in_view(&self) -> Result<ChartExport, String> {
        let n = self.ds.n_rows();
        let (screen, data) = match self.screen {
            Screen::Data => {
                let columns = self.roles.with(Role::QuasiIdentifier);
                if columns.is_empty() {
                    return Err("no quasi-identifiers yet (key Q gives a column the role)".into());
                }
                let ds = Arc::clone(&self.ds);
                ("data", ChartData::ClassSizes { ds, columns })
            }
            Screen::Risk => {
                let view = self
                    .risk
                    .view
                    .as_ref()
                    .ok_or("the risk is being computed")?;
                let chart = self.risk.chart;
                let label = |f: &crate::tui::risk::Figures, label: &str| Dist {
                    label: label.to_string(),
                    series: f.series.clone(),
                    records: f.records,
                };
                let mut dists = Vec::new();
                if let Some(f) = chart.of(&view.measures) {
                    dists.push(label(f, "original"));
                }
                if let Some(after) = &self.risk.after {
                    if let Some(f) = chart.of(&after.measures) {
                        dists.push(label(
                            f,
                            &format!("published ({})", after.release.algorithm),
                        ));
                    }
                }
                if dists.is_empty() {
                    return Err(format!("no {} to draw", chart.title()));
                }
                let data = match chart {
                    RiskChart::Breach => ChartData::Breach(dists),
                    RiskChart::KeyCount | RiskChart::Linkage => ChartData::Reidentification(dists),
                };
                ("risk", data)
            }
            Screen::Anonymize if self.sweep.open => {
                let (measure, ks, ls, cells) =
                    self.sweep.heatmap().ok_or("the sweep has not started")?;
                let base = self
                    .sweep
                    .base
                    .as_ref()
                    .ok_or("the sweep has not started")?;
                let mut chars = measure.chars();
                let title = format!(
                    "{}{} of {} by k and l (seed {})",
                    chars
                        .next()
                        .map(|c| c.to_uppercase().to_string())
                        .unwrap_or_default(),
                    chars.as_str(),
                    base.algorithm,
                    base.seed
                );
                let data = ChartData::Sweep {
                    measure,
                    ks,
                    ls,
                    cells,
                    title,
                };
                ("anonymize", data)
            }
            Screen::Anonymize => {
                let view =
                    self.anon.view.as_ref().ok_or(
                        "no release yet (the algorithm is running or refused the parameters)",
                    )?;
                let inputs = &view.inputs;
                let name = match inputs.l {
                    Some(l) => format!("{} k={} l={l}", inputs.algorithm, inputs.k),
                    None => format!("{} k={}", inputs.algorithm, inputs.k),
                };
                let e = &view.evaluation;
                let data = match (&view.before.breach, &view.breach, &e.breach) {
                    (Some(before), Some((_, after)), Some(d)) => ChartData::Breach(vec![
                        Dist {
                            label: "original".into(),
                            series: before.series.clone(),
                            records: n,
                        },
                        Dist {
                            label: name,
                            series: after.series.clone(),
                            records: d.summary.records,
                        },
                    ]),
                    _ => ChartData::Reidentification(vec![
                        Dist {
                            label: "original".into(),
                            series: view.before.reidentification.series.clone(),
                            records: n,
                        },
                        Dist {
                            label: name,
                            series: view.reidentification.series.clone(),
                            records: e.reidentification.summary.records,
                        },
                    ]),
                };
                ("anonymize", data)
            }
            Screen::Hierarchies => {
                let m = self
                    .hier
                    .matrix
                    .view
                    .clone()
                    .ok_or("the correlations are being computed")?;
                ("hierarchies", ChartData::Correlation(m))
            }
            Screen::Compare => {
                let c = &self.compare;
                let mut dists = Vec::new();
                if let Some(series) = c.original_curve() {
                    dists.push(Dist {
                        label: "original".into(),
                        series: series.to_vec(),
                        records: n,
                    });
                }
                for e in &c.entries {
                    if let Outcome::Measured(m) = &e.outcome {
                        if let Some(d) = m.shown() {
                            dists.push(Dist {
                                label: e.entry.to_string(),
                                series: m.curve.clone(),
                                records: d.summary.records,
                            });
                        }
                    }
                }
                if dists.len() < 1 + usize::from(c.original_curve().is_some()) {
                    return Err("no entry measured yet".into());
                }
                let data = match c.shown {
                    Probability::Breach => ChartData::Breach(dists),
                    Probability::Reidentification => ChartData::Reidentification(dists),
                };
                ("compare", data)
            }
        };
        Ok(ChartExport { screen, data })
    }
}
