//! anonlab's binary: the CLI subcommands and the TUI launch. All work is in
//! the library; errors become a one-line message and a non-zero exit.

mod cli;

use clap::Parser;

use cli::{Cli, Command};

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        eprintln!("anonlab: error: {e:#}");
        std::process::exit(2);
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Assess(a)) => cli::assess::run(&a),
        Some(Command::Synth(a)) => cli::synth::run(&a),
        Some(Command::Correlate(a)) => cli::correlate::run(&a),
        Some(Command::Hierarchy(a)) => cli::hierarchy::run(&a),
        Some(Command::Anonymize(a)) => cli::anonymize::run_anonymize(&a),
        Some(Command::Compare(a)) => cli::anonymize::run_compare(&a),
        Some(Command::Chart(a)) => cli::chart::run(&a),
        Some(Command::Report(a)) => cli::report::run(&a),
        Some(Command::Tui(a)) => tui(Some(a)),
        None => tui(None),
    }
}

#[cfg(feature = "tui")]
fn tui(args: Option<cli::TuiArgs>) -> anyhow::Result<()> {
    use anonlab::data::Project;
    use anonlab::session::Session;
    match args {
        // A project opened from a file is saved back to that file.
        Some(cli::TuiArgs {
            project: Some(p), ..
        }) => {
            let session = Session::from_project(&Project::load(&p)?)?;
            anonlab::tui::run_with_project(session, p)
        }
        Some(cli::TuiArgs {
            file: Some(f), csv, ..
        }) => anonlab::tui::run(Session::open(&f, csv.options()?)?),
        _ => anonlab::tui::run(Session::demo()?),
    }
}

#[cfg(not(feature = "tui"))]
fn tui(_: Option<cli::TuiArgs>) -> anyhow::Result<()> {
    anyhow::bail!("this anonlab was built without the terminal UI (feature 'tui'); use a subcommand, see --help")
}
