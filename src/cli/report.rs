//! `anonlab report PROJECT -o DIR [--internal | --external]`: the report
//! of a saved project — HTML, Markdown with SVG charts beside it, and
//! JSON — written into DIR, for the publisher (internal, the default) or
//! for the release's users (external: no seed, no risk figures). The
//! project and its data are only read.

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
    /// The internal report (the default): every figure, the random seed
    /// and the commands that make the release again byte for byte.
    #[arg(long, conflicts_with = "external")]
    pub internal: bool,
    /// The external report, for the release's users: methods, their
    /// parameters, the verified guarantees and the information lost; no
    /// seed and no risk figures.
    #[arg(long)]
    pub external: bool,
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
    let audience = if a.external {
        report::Audience::External
    } else {
        report::Audience::Internal
    };
    let written = report::write_for(&built, &a.output, &inputs, audience)?;
    // The terminal gets the summary of the report written: an external
    // one's says no risk figure.
    let summary = match audience {
        report::Audience::Internal => built.report.summary.clone(),
        report::Audience::External => report::external(&built.report).summary,
    };
    for line in &summary {
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
