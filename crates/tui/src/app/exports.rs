//! The app's side of exporting (`e` the chart in view, `E` the report):
//! it copies the figures the screen in view holds into a
//! [`ChartExport`](crate::export::ChartExport), or the session into a
//! project, and queues the job of [`crate::export`] in the export
//! slot. A child module of `app` so it can read the screens' state while
//! `app/mod.rs` keeps one field and one dispatch line per feature.

use std::path::PathBuf;
use std::sync::Arc;

use super::{App, JobState, Out};
use crate::export::{self, beside, chart_job, report_job, ChartExport, Exported, Target};
use crate::jobs::Update;
use crate::worker::WorkerMsg;

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
                let job = chart_job(export, target, self.inputs());
                self.export_job.submit(job);
                self.notice = Some("writing the chart…".into());
            }
            Err(why) => self.notice = Some(format!("no chart to export: {why}")),
        }
    }

    /// Write the session's report (as `anonlab report` on the project
    /// file would): into `anonlab-report/` beside the project file, or
    /// into `dir`.
    pub fn export_report(&mut self, dir: Option<PathBuf>, audience: anonlab::report::Audience) {
        // The report renders the published table and its fingerprint
        // from the dataset, and runs the query workload: records, which a
        // grouped session does not hold.
        if let Err(e) = self.session.dataset().require_records("the report") {
            self.popup = Some(crate::shared::Popup::new(
                "The report was not written",
                e.to_string(),
            ));
            return;
        }
        let project_file = self.project_path();
        let default = match audience {
            anonlab::report::Audience::Internal => export::REPORT_DIR,
            anonlab::report::Audience::External => export::EXTERNAL_REPORT_DIR,
        };
        let dir = dir.unwrap_or_else(|| beside(&project_file, default));
        // The file's data: the project's recodings are applied again when
        // the job reopens the session from the project.
        let job = report_job(
            Arc::clone(self.session.session().original()),
            self.to_project(),
            project_file,
            dir,
            audience,
        );
        self.export_job.submit(job);
        self.notice = Some("writing the report… (Esc cancels)".into());
    }

    /// `:write [PATH]` and `W`: write the release on the Anonymize screen
    /// exactly as `anonlab anonymize --project P -o PATH --release JSON`
    /// writes it for the saved session — the published table at PATH
    /// (`anonlab-release/release.csv` beside the project file without
    /// one), its bucket table beside it for a bucketized release, and the
    /// release JSON at PATH with the extension `.json` — through the
    /// library's one writer (atomic, never over an input). Refused, with
    /// a popup saying why, when there is no release for the session as it
    /// is now or when the release failed verification. The notice names
    /// the files and the fingerprint.
    pub fn write_release(&mut self, path: Option<PathBuf>) {
        match self.try_write_release(path) {
            Ok(notice) => self.notice = Some(notice),
            Err(why) => {
                self.popup = Some(crate::shared::Popup::new(
                    "The release was not written",
                    why,
                ))
            }
        }
    }

    /// The notice; a grouped session's release is written in the
    /// background, by the export slot.
    fn try_write_release(&mut self, path: Option<PathBuf>) -> Result<String, String> {
        let state = &self.anon.state;
        let Some(view) = state.view.as_ref() else {
            return Err(
                "there is no release yet: the Anonymize screen computes one \
                 (key 3); write it once it is shown"
                    .into(),
            );
        };
        if view.inputs != self.anon.inputs(&self.session) || state.job.is_running() {
            return Err(
                "the release on screen is not the one of the session as it is now \
                 (it is being computed for the latest change); write it once it is shown"
                    .into(),
            );
        }
        let failed: Vec<String> = view
            .evaluation
            .verification
            .failures()
            .map(|c| format!("{}: {}", c.claim, c.detail))
            .collect();
        if !failed.is_empty() {
            return Err(format!(
                "the independent verifier refuted what the release claims, so it is not \
                 published:\n{}",
                failed.join("\n")
            ));
        }
        let table = path.unwrap_or_else(|| {
            beside(&self.project_path(), export::RELEASE_DIR).join("release.csv")
        });
        if table
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            return Err(format!(
                "{} names the published table (CSV); the release JSON is written beside \
                 it with the extension .json",
                table.display()
            ));
        }
        let json = table.with_extension("json");
        let inputs = self.inputs();
        let ds = self.session.dataset();
        let roles = self.session.roles().as_slice();
        let buckets = anonlab::release::buckets_path(&table);
        inputs
            .check_all(&[&table, &buckets, &json])
            .map_err(|e| e.to_string())?;
        if let Some(dir) = table.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        if let Some(file) = self.session.grouped() {
            // The table holds only its grouped columns, one row per
            // combination: the published table is written by the
            // publishing pass over the file, as `anonlab anonymize
            // --engine datafusion -o` writes it, in the export slot (it
            // reads the whole file).
            let job = publish_job(
                Arc::clone(self.session.session()),
                Arc::clone(file),
                Arc::clone(&view.release),
                table,
                json,
                inputs,
            )?;
            self.export_job.submit(job);
            return Ok(
                "publishing the release: a pass over the file… (it runs in the background)"
                    .to_string(),
            );
        }
        let mut files =
            anonlab::release::write_csv(&view.release, ds, Some(roles), &table, &inputs)
                .map_err(|e| e.to_string())?;
        anonlab::release::write_json(&view.release, ds, &json, &inputs)
            .map_err(|e| e.to_string())?;
        files.push(json);
        let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        Ok(format!(
            "wrote {} — release fingerprint {}",
            names.join(", "),
            view.fingerprint
        ))
    }

    /// The export job's state.
    pub fn export_job(&self) -> &JobState {
        self.export_job.state()
    }

    /// Stop a running export; whether one was running.
    pub(super) fn cancel_export(&mut self) -> bool {
        if !self.export_job.cancel() {
            return false;
        }
        self.notice = Some("export cancelled".into());
        true
    }

    pub(super) fn on_export(&mut self, msg: WorkerMsg<Exported>, out: &mut Out) {
        match self.export_job.apply(msg) {
            Some(Update::Done(output)) => self.notice = Some(output.notice()),
            Some(Update::Failed(error)) => out.popup("Export failed", error),
            _ => {}
        }
    }

    /// The figures of the chart the screen in view shows, or why there is
    /// none yet. Every "original" series is the session's baseline, and
    /// the export's title names its attacker.
    pub fn chart_in_view(&self) -> Result<ChartExport, String> {
        self.in_view_ref().chart(&self.session)
    }
}

/// The job publishing `release`, made on `session`'s frequency table of
/// `file`: the table by the publishing pass over the data file
/// (`release::publish`, temporary file then rename, never over an input),
/// then the release JSON, which counts records on either path.
#[cfg(feature = "engine")]
fn publish_job(
    session: Arc<anonlab::session::Session>,
    file: Arc<anonlab::session::GroupedFile>,
    release: Arc<anonlab::release::Release>,
    table: PathBuf,
    json: PathBuf,
    inputs: anonlab::data::Inputs,
) -> Result<crate::worker::JobFn<Exported>, String> {
    use anonlab_scale::engine::EngineOptions;
    use anonlab_scale::publish::{publish, PublishJob};
    let Some(data) = session.source.clone() else {
        return Err("the session has no data file to publish from".into());
    };
    Ok(Box::new(move |progress| {
        let ds = &session.dataset;
        let roles = file.roles(ds, &session.roles);
        // Esc stops the pass at its next batch (nothing is put in place,
        // its scratch and temporary files removed); once it has written
        // the table, the release JSON follows so the two files always go
        // together.
        let job = PublishJob::new(&data, &session.csv, ds, &release, &roles, &inputs)
            .to(&table)
            .watched(progress.clone());
        progress.check()?;
        let report = publish(&job, &EngineOptions::default())?;
        anonlab::release::write_json(&release, ds, &json, &inputs)?;
        let mut files: Vec<PathBuf> = report.file.into_iter().collect();
        files.push(json);
        Ok(Exported {
            files,
            what: format!(
                "release ({} records; fingerprint {})",
                anonlab::format::thousands(report.rows),
                report.fingerprint
            ),
        })
    }))
}

/// Without the query engine there is no grouped session to publish.
#[cfg(not(feature = "engine"))]
fn publish_job(
    _: Arc<anonlab::session::Session>,
    _: Arc<anonlab::session::GroupedFile>,
    _: Arc<anonlab::release::Release>,
    _: PathBuf,
    _: PathBuf,
    _: anonlab::data::Inputs,
) -> Result<crate::worker::JobFn<Exported>, String> {
    Err("this build of anonlab has no query engine (it needs the `engine` feature)".into())
}
