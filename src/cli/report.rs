//! `anonlab report PROJECT -o DIR`: the stakeholder report of a saved
//! project — HTML, Markdown with SVG charts beside it, and JSON — written
//! into DIR. The project and its data are only read.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;

use anonlab::data::Project;
use anonlab::report;

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The project file (saved by the TUI or `assess --save-project`).
    pub project: PathBuf,
    /// Directory to write report.html, report.md, report.json and the charts into.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// The probability (of re-identification, of a breach) above which a
    /// person counts as at risk (default: the project's).
    #[arg(long)]
    pub threshold: Option<f64>,
    #[command(flatten)]
    pub recode: super::recode_args::RecodeArgs,
}

pub fn run(a: &ReportArgs) -> anyhow::Result<()> {
    let project = Project::load(&a.project)?;
    let warning = project.data_changed();
    if let Some(w) = &warning {
        eprintln!("anonlab: warning: {w}");
    }
    // Refused before the engine reads the file, as the TUI refuses it:
    // the report renders the published table from records.
    if project.data.grouped.is_some() {
        bail!(
            "the report renders the published table and runs the query workload, which read every record, and {} opens its data through the query engine's frequency table (distinct combinations); open the data in memory and save the project from there",
            a.project.display()
        );
    }
    let mut session = super::open_project(&project)
        .with_context(|| format!("project {}", a.project.display()))?;
    if let Some(t) = a.threshold {
        session.attacker.threshold = super::threshold(t)?;
    }
    a.recode
        .apply(&mut session)
        .with_context(|| format!("project {}", a.project.display()))?;
    let built = super::progress::with_bar("building the report", |p| {
        report::build(&session, &a.project, warning, p)
    })?;
    let inputs = super::inputs_of(&session, Some(&a.project), []);
    let written = report::write(&built, &a.output, &inputs)?;
    for line in &built.report.summary {
        println!("{line}");
    }
    println!();
    for f in &written {
        println!("wrote {}", f.display());
    }
    if !built.report.guarantees_hold {
        bail!(
            "the {} release failed independent verification; the report says which check failed",
            built.report.release.algorithm
        );
    }
    Ok(())
}
