//! anonlab's binary: the CLI subcommands and the TUI launch. All work is in
//! the library; errors become a one-line message and a non-zero exit.

mod cli;

use clap::Parser;

use cli::{Cli, Command};

fn main() {
    restore_sigpipe();
    quiet_dependency_panics();
    let cli = Cli::parse_from(with_file_as_tui(std::env::args_os().collect()));
    // The TUI restores the terminal itself and is left to the default
    // actions; a cluster process stops on signals in its own way (it tells
    // its scheduler, removes its work directory) and writes no files;
    // every other command writes its files through `data::output`, whose
    // temporary files a signal must not leave behind.
    if !matches!(
        cli.command,
        None | Some(Command::Tui(_)) | Some(Command::Cluster(_))
    ) {
        clean_up_on_signals();
    }
    // A panic that no reader caught still ends in one line and exit 101,
    // not a backtrace (the hook above keeps dependencies' panics quiet).
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli)))
        .unwrap_or_else(|panic| {
            eprintln!(
                "anonlab: error: internal error: {} (please report it)",
                anonlab::error::escaped(&match anonlab::error::panic_message(panic.as_ref()) {
                    m if m.is_empty() => "a panic without a message".to_string(),
                    m => m,
                })
            );
            std::process::exit(101);
        });
    if let Err(e) = outcome {
        // Names and values from the input are escaped: a header holding
        // ANSI escapes must not drive the user's terminal.
        // Library errors name settings by their concept; the CLI says its
        // flag for each (cli::remedy).
        eprintln!(
            "anonlab: error: {}",
            anonlab::error::escaped(&cli::error_message(&e))
        );
        std::process::exit(2);
    }
}

/// Panics inside a dependency's code (the arrow, parquet and DataFusion
/// readers on a malformed file) are caught where the readers are called
/// (`data::formats`, the engine) and reported as an error naming the
/// file; the default hook would first print the panic (and a backtrace
/// with RUST_BACKTRACE), on top of the TUI's screen when `:open` reads.
/// anonlab's own panics keep the default hook: they are bugs to report.
fn quiet_dependency_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let in_dependency = info.location().is_some_and(|l| {
            let f = l.file();
            f.contains("/registry/src/") || f.contains("\\registry\\src\\")
        });
        if !in_dependency {
            default(info);
        }
    }));
}

/// `anonlab data.csv` (what a newcomer types first) is `anonlab tui
/// data.csv`: a first argument that names no command, is no flag and is an
/// existing file or directory opens it in the TUI. Anything else is left
/// to clap, whose message lists the commands.
fn with_file_as_tui(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    let Some(first) = args.get(1) else {
        return args;
    };
    let named = first
        .to_str()
        .is_some_and(|a| a.starts_with('-') || Cli::command().find_subcommand(a).is_some());
    if !named && std::path::Path::new(first).exists() {
        args.insert(1, "tui".into());
    }
    args
}

/// On SIGINT, SIGTERM or SIGHUP: remove the temporary files of writes in
/// progress, then end as the signal would have (so the shell sees it).
#[cfg(unix)]
fn clean_up_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            // Held until the process ends: no new temporary file starts.
            let _held = cli::TEMPORARIES.remove_all();
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            std::process::exit(128 + signal);
        }
    });
}

#[cfg(not(unix))]
fn clean_up_on_signals() {}

/// `anonlab assess … | head` must end quietly when `head` closes the pipe,
/// as other Unix tools do. Rust ignores SIGPIPE at start-up, so every
/// `println!` to a closed pipe would panic instead; restoring the default
/// action lets the kernel end the process at the first such write. The TUI
/// writes to the terminal only and is unaffected.
#[cfg(unix)]
fn restore_sigpipe() {
    // SAFETY: called first thing in main, before any other thread exists;
    // `signal` with SIG_DFL installs no Rust code as a handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn restore_sigpipe() {}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Assess(a)) => cli::assess::run(&a),
        Some(Command::Synth(a)) => cli::synth::run(&a),
        Some(Command::Correlate(a)) => cli::correlate::run(&a),
        Some(Command::Hierarchy(a)) => cli::hierarchy::run(&a),
        Some(Command::Anonymize(a)) => cli::anonymize::run_anonymize(&a),
        Some(Command::Compare(a)) => cli::compare::run_compare(&a),
        Some(Command::Chart(a)) => cli::chart::run(&a),
        Some(Command::Report(a)) => cli::report::run(&a),
        Some(Command::Cluster(a)) => cli::cluster::run(&a),
        Some(Command::Tui(a)) => tui(Some(*a)),
        None => tui(None),
    }
}

#[cfg(feature = "tui")]
fn tui(args: Option<cli::TuiArgs>) -> anyhow::Result<()> {
    // A file is opened by `cli::tui`, which checks its flags before the
    // terminal (a typo costs nothing either way).
    if let Some(a @ cli::TuiArgs { file: Some(_), .. }) = args {
        let file = a.file.clone().unwrap_or_default();
        return cli::tui::run(&a, &file);
    }
    if let Some(a) = &args {
        if a.engine == cli::assess::Engine::Datafusion {
            anyhow::bail!("--engine datafusion reads a data file given on the command line; a project's data (and the demo) is read in memory");
        }
    }
    anonlab_tui::check_terminal()?;
    match args {
        // A project opened from a file is saved back to that file.
        Some(cli::TuiArgs {
            project: Some(p), ..
        }) => anonlab_tui::run_project(&p),
        _ => anonlab_tui::run(anonlab::session::Source::demo().open()?),
    }
}

#[cfg(not(feature = "tui"))]
fn tui(_: Option<cli::TuiArgs>) -> anyhow::Result<()> {
    anyhow::bail!("this anonlab was built without the terminal UI (feature 'tui'); use a subcommand, see --help")
}
