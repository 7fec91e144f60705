//! Reading the small text inputs — project files, conditions files,
//! hierarchy and mapping files — with a bound, so a path naming an endless
//! device (`/dev/zero`), a FIFO that never closes or a huge file by mistake
//! is refused with a message instead of filling the memory. (CSV data has
//! its own limits, in `CsvOptions`, checked while it streams.)

use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};
use crate::format::thousands;

/// The default bound on a text input: far above any real project,
/// conditions or hierarchy file (a hierarchy of a million leaves is tens of
/// MB). README "Limits".
pub const DEFAULT_MAX_TEXT_BYTES: u64 = 256 << 20;

/// The environment variable that raises (or lowers) the bound.
pub const MAX_TEXT_BYTES_VAR: &str = "ANONLAB_MAX_TEXT_BYTES";

/// The bound in force: [`MAX_TEXT_BYTES_VAR`] when set to a number, else
/// [`DEFAULT_MAX_TEXT_BYTES`].
pub fn max_text_bytes() -> u64 {
    std::env::var(MAX_TEXT_BYTES_VAR)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_MAX_TEXT_BYTES)
}

/// Open an input file for reading, refusing a FIFO (named pipe) before
/// opening it: opening a FIFO that no one writes blocks forever, and one
/// that is written is read once, where anonlab reads a file more than once
/// (its first bytes for the format, then the data). The refusal says to
/// write the data to a file first. Regular files and devices open as
/// usual (an endless device stops at the reader's limit).
pub fn open_input(file: &Path) -> std::io::Result<std::fs::File> {
    refuse_fifo(file)?;
    std::fs::File::open(file)
}

/// The refusal of [`open_input`], for readers that open the file
/// themselves (the query engine).
pub fn refuse_fifo(file: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if std::fs::metadata(file)?.file_type().is_fifo() {
            return Err(std::io::Error::other(
                "it is a FIFO (named pipe), which anonlab does not read: it would wait for a writer, and it reads a file more than once; write the data to a file first",
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

/// Read `file` whole, refusing more than [`max_text_bytes`]; `what` names
/// the kind of file in the message ("project file", "hierarchy file").
pub fn read_text_file(file: &Path, what: &str) -> Result<Vec<u8>> {
    let limit = max_text_bytes();
    let io = |e| Error::Io(file.to_path_buf(), e);
    let f = open_input(file).map_err(io)?;
    let meta = f.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(Error::input(
            file,
            None,
            None,
            format!("is a directory, not a {what}"),
        ));
    }
    let too_big = || {
        let why = if meta.is_file() {
            format!(" ({} bytes)", thousands(meta.len()))
        } else {
            " (it is not a regular file: does it ever end?)".to_string()
        };
        Error::input(
            file,
            None,
            None,
            format!(
                "the {what} is larger than the limit of {} bytes{why}; raise the limit with the environment variable {MAX_TEXT_BYTES_VAR}",
                thousands(limit),
            ),
        )
    };
    if meta.is_file() && meta.len() > limit {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    f.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_big());
    }
    Ok(bytes)
}

/// [`read_text_file`] as UTF-8 text.
pub fn read_text_string(file: &Path, what: &str) -> Result<String> {
    let bytes = read_text_file(file, what)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        Error::input(
            file,
            Some(line),
            None,
            format!("the {what} is not valid UTF-8 (byte {})", at + 1),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn an_endless_device_is_refused_at_the_limit() {
        if !Path::new("/dev/zero").exists() {
            return;
        }
        std::env::remove_var(MAX_TEXT_BYTES_VAR);
        // Reads at most the limit + 1 bytes, then stops.
        let e = read_text_file(Path::new("/dev/zero"), "project file")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/dev/zero")
                && e.contains("limit of 268,435,456 bytes")
                && e.contains(MAX_TEXT_BYTES_VAR),
            "{e}"
        );
    }

    #[test]
    fn directories_and_bad_utf8_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_text_file(dir.path(), "conditions file")
            .unwrap_err()
            .to_string();
        assert!(e.contains("is a directory, not a conditions file"), "{e}");
        let f = dir.path().join("p.json");
        std::fs::write(&f, b"{\n\"a\": \"\xff\"}").unwrap();
        let e = read_text_string(&f, "project file")
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 2") && e.contains("not valid UTF-8"), "{e}");
    }
}
