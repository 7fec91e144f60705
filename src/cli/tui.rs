//! `anonlab tui FILE`: the flags that open a file in the terminal UI —
//! in memory, or through the query engine's frequency table for a file
//! larger than memory (issue 19), whose columns must be given their roles
//! up front because the table holds only those.

use std::path::Path;

use anyhow::{bail, Context};

use anonlab::session::{GroupedFile, RoleSpec, Session, Source};

use super::assess::Engine;
use super::TuiArgs;

/// Open `file` as the flags say and run the TUI on it.
#[cfg(feature = "tui")]
pub fn run(a: &TuiArgs, file: &Path) -> anyhow::Result<()> {
    let roles = role_spec(a);
    // A column given two roles is refused before the file is read.
    roles.check()?;
    let source = source(a, file, &roles)?;
    // A typo is refused before the terminal is taken and before the
    // engine reads the whole file.
    super::check_columns(&source, &roles).with_context(|| source.label())?;
    anonlab_tui::check_terminal()?;
    match session(&source, &roles)? {
        (s, Some(file_read)) => anonlab_tui::run_grouped(s, file_read),
        (s, None) => anonlab_tui::run(s),
    }
}

/// The session the TUI opens `source` into with `roles`, and over the
/// query engine's frequency table what it knows of the file beyond it.
pub fn session(
    source: &Source,
    roles: &RoleSpec,
) -> anyhow::Result<(Session, Option<GroupedFile>)> {
    let label = source.label();
    // The engine's messages about columns name no file; the reader's do.
    let opened = match super::open(source, roles) {
        Err(e) if source.reads_by_engine(super::ENGINE_BUILT) => {
            return Err(anyhow::Error::from(e).context(label))
        }
        opened => opened?,
    };
    let file_read = opened.grouped_file();
    let mut s = opened.session;
    s.apply_roles(roles).with_context(|| label)?;
    Ok((s, file_read))
}

/// The roles the flags give (none: the session as opened). The attacker
/// learns the QIs in the order given, then the semi-sensitive attributes,
/// as `assess` has it (`Session::apply_roles`).
pub fn role_spec(a: &TuiArgs) -> RoleSpec {
    RoleSpec {
        identifiers: a.identifier.clone(),
        quasi_identifiers: a.qi.clone(),
        sensitive: a.sensitive.clone(),
        semi_sensitive: a.semi_sensitive.clone(),
        ..RoleSpec::default()
    }
}

/// Where the file is read (`--engine`), refused with a reason when the
/// flags ask the query engine of what it cannot do: its frequency table
/// holds only the columns given a role the screens compute with.
pub fn source(a: &TuiArgs, file: &Path, roles: &RoleSpec) -> anyhow::Result<Source> {
    let source = super::source(file, &a.csv, a.engine, None)?;
    let grouped = !roles.grouped_columns()?.is_empty();
    if source.reads_by_engine(super::ENGINE_BUILT) && !grouped {
        match a.engine {
            Engine::Datafusion => bail!(
                "--engine datafusion opens the file through its frequency table, which holds only \
                 the columns given a role up front: name them with --qi (and --sensitive, \
                 --semi-sensitive)"
            ),
            _ => bail!(
                "{} is over 1 GiB: the TUI opens it through the query engine's frequency \
                 table, which holds only the columns given a role up front; name them with \
                 --qi (and --sensitive, --semi-sensitive), or read the file whole with \
                 --engine memory",
                file.display()
            ),
        }
    }
    Ok(source)
}
