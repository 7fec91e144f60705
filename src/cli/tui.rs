//! `anonlab tui FILE`: the flags that open a file in the terminal UI —
//! in memory, or through the query engine's frequency table for a file
//! larger than memory (issue 19), whose columns must be given their roles
//! up front because the table holds only those.

use std::path::Path;

use anyhow::{bail, Context};

use anonlab::data::{CsvOptions, Role, Roles};
use anonlab::session::Session;

use super::assess::{auto_takes_engine, Engine};
use super::TuiArgs;

/// Open `file` as the flags say and run the TUI on it.
#[cfg(feature = "tui")]
pub fn run(a: &TuiArgs, file: &Path) -> anyhow::Result<()> {
    let opts = a.csv.options()?;
    check_roles(a)?;
    if engine_for(a, file, &opts)? {
        return run_engine(a, file, opts);
    }
    anonlab_tui::check_terminal()?;
    let s = Session::open(file, opts)?;
    let label = s.label();
    let s = configure(s, a, true).with_context(|| label)?;
    anonlab_tui::run(s)
}

/// Whether the query engine reads `file` (`--engine`), refused with a
/// reason when the flags ask it of what it cannot do.
fn engine_for(a: &TuiArgs, file: &Path, opts: &CsvOptions) -> anyhow::Result<bool> {
    let grouped = !grouped_columns(a).is_empty();
    match a.engine {
        Engine::Memory => Ok(false),
        Engine::Datafusion if !grouped => bail!(
            "--engine datafusion opens the file through its frequency table, which holds only \
             the columns given a role up front: name them with --qi (and --sensitive, \
             --semi-sensitive)"
        ),
        Engine::Datafusion => Ok(true),
        Engine::Auto => {
            let big = auto_takes_engine(file, opts);
            if big && !grouped {
                bail!(
                    "{} is over 1 GiB: the TUI opens it through the query engine's frequency \
                     table, which holds only the columns given a role up front; name them with \
                     --qi (and --sensitive, --semi-sensitive), or read the file whole with \
                     --engine memory",
                    file.display()
                );
            }
            Ok(big)
        }
    }
}

/// The columns the frequency table groups: those given a role the
/// screens compute with (identifiers are never grouped: see
/// `GroupedFile::identifiers`).
fn grouped_columns(a: &TuiArgs) -> Vec<String> {
    let mut columns: Vec<String> = Vec::new();
    for c in a.qi.iter().chain(&a.sensitive).chain(&a.semi_sensitive) {
        if !columns.contains(c) {
            columns.push(c.clone());
        }
    }
    columns
}

/// A column given two roles is refused before the file is read.
fn check_roles(a: &TuiArgs) -> anyhow::Result<()> {
    let given = [
        (&a.identifier, Role::Identifier),
        (&a.qi, Role::QuasiIdentifier),
        (&a.sensitive, Role::Sensitive),
        (&a.semi_sensitive, Role::SemiSensitive),
    ];
    for (i, (cols, role)) in given.iter().enumerate() {
        for name in cols.iter() {
            if let Some((_, other)) = given[i + 1..].iter().find(|(c, _)| c.contains(name)) {
                bail!("column '{name}' is given two roles ({role} and {other})");
            }
        }
    }
    Ok(())
}

/// The session through the frequency table: the file's sample and its
/// columns read first (a typo is refused before the terminal is taken and
/// before the engine reads the whole file), then the table.
#[cfg(all(feature = "tui", feature = "engine"))]
fn run_engine(a: &TuiArgs, file: &Path, opts: CsvOptions) -> anyhow::Result<()> {
    use anonlab_scale::grouped;
    let columns = grouped_columns(a);
    let label = file.display().to_string();
    let file_read =
        grouped::read_file(file, &opts, &columns, &a.identifier).with_context(|| label.clone())?;
    anonlab_tui::check_terminal()?;
    let s = grouped::session(&file_read, file, &opts, &columns).with_context(|| label.clone())?;
    let s = configure(s, a, false).with_context(|| label)?;
    anonlab_tui::run_grouped(s, file_read)
}

#[cfg(all(feature = "tui", not(feature = "engine")))]
fn run_engine(_: &TuiArgs, _: &Path, _: CsvOptions) -> anyhow::Result<()> {
    bail!("this build of anonlab has no query engine (it needs the `engine` feature); use --engine memory")
}

/// Give the columns the roles the flags name (none given: the session as
/// opened). `identifiers`: whether the dataset holds the identifier
/// columns (the frequency table does not).
fn configure(mut s: Session, a: &TuiArgs, identifiers: bool) -> anyhow::Result<Session> {
    let given = [
        (
            if identifiers {
                &a.identifier[..]
            } else {
                &[][..]
            },
            Role::Identifier,
        ),
        (&a.qi[..], Role::QuasiIdentifier),
        (&a.sensitive[..], Role::Sensitive),
        (&a.semi_sensitive[..], Role::SemiSensitive),
    ];
    if given.iter().all(|(c, _)| c.is_empty()) && a.identifier.is_empty() {
        return Ok(s);
    }
    let mut roles = Roles::new(s.dataset.n_cols());
    for (cols, role) in given {
        for name in cols {
            roles.set(s.dataset.column_index(name)?, role);
        }
    }
    s.roles = roles;
    s.sensitivity.clear();
    // The attacker learns the QIs in the order given, then the
    // semi-sensitive attributes, as `assess` has it.
    s.attacker.known = a.qi.iter().chain(&a.semi_sensitive).cloned().collect();
    Ok(s)
}
