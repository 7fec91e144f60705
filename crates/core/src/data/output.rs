//! The one way anonlab writes a file: every output of every command and
//! screen (published tables and their bucket tables, release JSON,
//! projects, hierarchies, conditions, charts, reports, synthetic data) goes
//! through [`write_file`].
//!
//! What it promises (README, "What 'inputs are never written' covers"):
//!
//! - **Inputs are never written.** An output that resolves to a file the
//!   same command reads ([`Inputs`]: the same device and inode, so a
//!   symbolic or hard link to an input, or `./data.csv` for `data.csv`, is
//!   caught) is refused before anything is written.
//! - **A regular file is replaced atomically**: the bytes go to a temporary
//!   file beside it (`.NAME.PID.N.tmp`), which is flushed, synced to disk
//!   and renamed over the target, and the directory is synced; a reader
//!   never sees half a file, a failure leaves the old file as it was, and
//!   a file reported as written survives a power loss.
//! - **A device, FIFO or other non-regular file is written directly**,
//!   never renamed over (`-o /dev/null` stays a device); write errors
//!   (`/dev/full`) are reported as write errors.
//! - **No temporary file is left behind**: an error or a panic removes it
//!   (a guard); SIGINT/SIGTERM/SIGHUP remove it when the caller tracks its
//!   writes ([`Inputs::tracked_by`] a [`Temporaries`] list, which the
//!   binary's signal handler empties); and a temporary file left by a
//!   process that no longer exists (SIGKILL, power loss) is removed the
//!   next time the same target is written.
//!
//! The library keeps no process state for this: the list of temporary
//! files being written belongs to the front end that installs the signal
//! handler (the binary's `cli` module), and reaches each write with the
//! [`Inputs`] that every write takes anyway. Temporary names are made
//! unique by `create_new`, not by a counter.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::{Error, Result};

/// The files one command (or one TUI session) reads. No output may
/// replace one of them. It may also carry the [`Temporaries`] list in
/// which the writes register their temporary files.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    files: Vec<(FileId, PathBuf)>,
    tracker: Option<Temporaries>,
}

/// The temporary files of writes in progress, kept by a front end whose
/// signal handler must remove them ([`Temporaries::remove_all`]). Clones
/// share one list.
#[derive(Debug, Clone, Default)]
pub struct Temporaries(Arc<Mutex<Vec<PathBuf>>>);

impl Temporaries {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<PathBuf>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remove every temporary file being written, and keep any new one from
    /// being registered while the returned guard lives: a signal handler
    /// calls this, then ends the process holding the guard.
    pub fn remove_all(&self) -> impl Sized + '_ {
        let list = self.lock();
        for p in list.iter() {
            let _ = std::fs::remove_file(p);
        }
        list
    }

    /// The temporary files now being written.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.lock().clone()
    }
}

/// What makes two paths the same file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum FileId {
    #[cfg(unix)]
    Inode { dev: u64, ino: u64 },
    #[cfg_attr(unix, allow(dead_code))]
    Path(PathBuf),
}

fn file_id(path: &Path) -> Option<FileId> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(FileId::Inode {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        std::fs::canonicalize(path).ok().map(FileId::Path)
    }
}

impl Inputs {
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a file the command reads. A path that does not exist (yet) is
    /// not an input and is ignored; a device such as `/dev/stdin` is kept,
    /// since writing to it would not replace it anyway.
    pub fn add(&mut self, path: &Path) {
        if let Some(id) = file_id(path) {
            if !self.files.iter().any(|(f, _)| *f == id) {
                self.files.push((id, path.to_path_buf()));
            }
        }
    }

    /// [`Self::add`], by value.
    pub fn with(mut self, path: &Path) -> Self {
        self.add(path);
        self
    }

    /// Register the temporary files of every write made with these inputs
    /// in `list` while they exist (for a signal handler).
    pub fn tracked_by(mut self, list: &Temporaries) -> Self {
        self.tracker = Some(list.clone());
        self
    }

    /// Every input of `other` too (and its tracking list, if these inputs
    /// have none).
    pub fn extend(&mut self, other: &Inputs) {
        for (id, path) in &other.files {
            if !self.files.iter().any(|(f, _)| f == id) {
                self.files.push((id.clone(), path.clone()));
            }
        }
        if self.tracker.is_none() {
            self.tracker = other.tracker.clone();
        }
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Refuse `output` when it is one of the inputs.
    pub fn check(&self, output: &Path) -> Result<()> {
        let Some(id) = file_id(output) else {
            return Ok(());
        };
        match self.files.iter().find(|(f, _)| *f == id) {
            Some((_, input)) => Err(Error::Write(
                output.to_path_buf(),
                std::io::Error::other(format!(
                    "it is the input {}; anonlab never writes its inputs, choose another output file",
                    input.display()
                )),
            )),
            None => Ok(()),
        }
    }

    /// Check several outputs of one command: none an input, no two the
    /// same file (the second would silently replace the first).
    pub fn check_all(&self, outputs: &[&Path]) -> Result<()> {
        for (i, out) in outputs.iter().enumerate() {
            self.check(out)?;
            let same = outputs[..i].iter().find(|o| same_target(o, out)).copied();
            if let Some(first) = same {
                return Err(Error::Write(
                    out.to_path_buf(),
                    std::io::Error::other(format!(
                        "{} is already an output of this command",
                        first.display()
                    )),
                ));
            }
        }
        Ok(())
    }
}

/// Whether two output paths name the same file (existing or not).
fn same_target(a: &Path, b: &Path) -> bool {
    match (file_id(a), file_id(b)) {
        (Some(x), Some(y)) => x == y,
        _ => absolute(a) == absolute(b),
    }
}

fn absolute(p: &Path) -> PathBuf {
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    match p.file_name() {
        Some(n) => dir.join(n),
        None => dir,
    }
}

/// Write `bytes` to `file`; see the module doc.
pub fn write_bytes(file: &Path, inputs: &Inputs, bytes: &[u8]) -> Result<()> {
    write_file(file, inputs, |w| w.write_all(bytes))
}

/// Write what `fill` produces to `file`, safely (the module doc): refused
/// when `file` is one of `inputs`; a regular file (or a new one) through a
/// synced temporary file and a rename; anything else directly.
pub fn write_file(
    file: &Path,
    inputs: &Inputs,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    inputs.check(file)?;
    let write_err = |e| Error::Write(file.to_path_buf(), e);
    match std::fs::metadata(file) {
        Ok(m) if m.is_dir() => Err(write_err(std::io::Error::other(
            "it is a directory; give a file name",
        ))),
        Ok(m) if !m.is_file() => {
            // A device or FIFO: opened as it is, never truncated or replaced.
            let f = OpenOptions::new()
                .write(true)
                .open(file)
                .map_err(write_err)?;
            let mut w = BufWriter::with_capacity(1 << 16, f);
            fill(&mut w).map_err(write_err)?;
            w.flush().map_err(write_err)
        }
        _ => replace(file, inputs.tracker.as_ref(), fill).map_err(write_err),
    }
}

/// A temporary file being written: removed when dropped unless renamed.
struct Temporary {
    path: PathBuf,
    done: bool,
    tracker: Option<Temporaries>,
}

/// Temporary names tried for one target before giving up (each taken one
/// belongs to a write of the same target in progress in this process).
const TEMPORARY_NAMES: u32 = 10_000;

impl Temporary {
    /// Create `.NAME.PID.N.tmp` in `dir` for the first N not taken.
    fn create(
        dir: &Path,
        name: &str,
        tracker: Option<&Temporaries>,
    ) -> std::io::Result<(Self, File)> {
        let pid = std::process::id();
        for n in 0..TEMPORARY_NAMES {
            let path = dir.join(format!(".{name}.{pid}.{n}.tmp"));
            // Registered before it exists, so a signal arriving in between
            // still finds it (removing a file that is not there is harmless).
            let mut t = Temporary {
                path,
                done: true,
                tracker: tracker.cloned(),
            };
            if let Some(list) = &t.tracker {
                list.lock().push(t.path.clone());
            }
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&t.path)
            {
                Ok(f) => {
                    t.done = false;
                    return Ok((t, f));
                }
                // Another write's file: not ours to remove (`done` is set).
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other(format!(
            "{TEMPORARY_NAMES} temporary files for it exist already in {}",
            dir.display()
        )))
    }

    fn rename_to(mut self, target: &Path) -> std::io::Result<()> {
        std::fs::rename(&self.path, target)?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.path);
        }
        if let Some(tracker) = &self.tracker {
            let mut list = tracker.lock();
            if let Some(i) = list.iter().position(|p| *p == self.path) {
                list.swap_remove(i);
            }
        }
    }
}

/// A file written but not yet in place ([`stage_file`]): [`Staged::commit`]
/// puts it there; dropped uncommitted, it leaves nothing behind (its
/// temporary file is removed). Lets a caller write an output while other
/// work decides whether it may be published at all.
pub struct Staged {
    file: PathBuf,
    how: StagedHow,
}

enum StagedHow {
    /// A regular file's temporary file, written and synced.
    Temporary { guard: Temporary, dir: PathBuf },
    /// A device or FIFO's bytes, written at commit (never before: nothing
    /// reaches it unless committed).
    Direct(Vec<u8>),
}

/// [`write_file`] up to the last step: the checks, and the bytes in a
/// synced temporary file beside `file` (held in memory for a device or
/// FIFO); [`Staged::commit`] renames (or writes) them into place.
pub fn stage_file(
    file: &Path,
    inputs: &Inputs,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<Staged> {
    inputs.check(file)?;
    let write_err = |e| Error::Write(file.to_path_buf(), e);
    let how = match std::fs::metadata(file) {
        Ok(m) if m.is_dir() => {
            return Err(write_err(std::io::Error::other(
                "it is a directory; give a file name",
            )))
        }
        Ok(m) if !m.is_file() => {
            let mut bytes = Vec::new();
            fill(&mut bytes).map_err(write_err)?;
            StagedHow::Direct(bytes)
        }
        _ => {
            let (guard, dir) =
                stage_replace(file, inputs.tracker.as_ref(), fill).map_err(write_err)?;
            StagedHow::Temporary { guard, dir }
        }
    };
    Ok(Staged {
        file: file.to_path_buf(),
        how,
    })
}

/// Put `files` in place as one unit: those bound for a device or FIFO
/// first (that write can fail, `/dev/full`), then the renames of synced
/// temporary files, so a failure leaves none of the regular files in
/// place. Returns their paths in the order given.
pub fn commit_all(files: Vec<Staged>) -> Result<Vec<PathBuf>> {
    let written: Vec<PathBuf> = files.iter().map(|f| f.path().to_path_buf()).collect();
    let (direct, renamed): (Vec<Staged>, Vec<Staged>) =
        files.into_iter().partition(Staged::is_direct);
    for f in direct.into_iter().chain(renamed) {
        f.commit()?;
    }
    Ok(written)
}

impl Staged {
    /// The file this will write.
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// Put the file in place: rename the temporary file over it (and sync
    /// the directory), or write a device's bytes.
    /// Whether it is bound for a device or FIFO, written at commit rather
    /// than renamed into place.
    pub fn is_direct(&self) -> bool {
        matches!(self.how, StagedHow::Direct(_))
    }

    pub fn commit(self) -> Result<()> {
        let write_err = |e| Error::Write(self.file.clone(), e);
        match self.how {
            StagedHow::Temporary { guard, dir } => {
                guard.rename_to(&self.file).map_err(write_err)?;
                sync_dir(&dir);
                Ok(())
            }
            StagedHow::Direct(bytes) => {
                let mut f = OpenOptions::new()
                    .write(true)
                    .open(&self.file)
                    .map_err(write_err)?;
                f.write_all(&bytes).map_err(write_err)?;
                f.flush().map_err(write_err)
            }
        }
    }
}

/// A scratch file of a long write: the engine's publishing pass spills
/// rows to them before it writes its output in order. Created as
/// `.NAME.PID.N.tmp` in `dir` and registered with the inputs' tracking
/// list as a temporary file is, so it is removed when dropped, on
/// SIGINT/SIGTERM/SIGHUP, and — when a killed process left it — by the
/// next scratch file of the same name.
pub struct Scratch {
    guard: Temporary,
}

impl Scratch {
    /// Create a scratch file in `dir`; `name` names it (several scratch
    /// files may share a name). Returns it opened for writing.
    pub fn create(dir: &Path, name: &str, inputs: &Inputs) -> Result<(Scratch, File)> {
        remove_stale(dir, name);
        let (guard, file) = Temporary::create(dir, name, inputs.tracker.as_ref())
            .map_err(|e| Error::Write(dir.join(name), e))?;
        Ok((Scratch { guard }, file))
    }

    /// Where the scratch file is.
    pub fn path(&self) -> &Path {
        &self.guard.path
    }
}

fn replace(
    file: &Path,
    tracker: Option<&Temporaries>,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let (guard, dir) = stage_replace(file, tracker, fill)?;
    guard.rename_to(file)?;
    sync_dir(&dir);
    Ok(())
}

/// The bytes of `file` in a synced temporary file beside it, and the
/// directory (to sync after the rename).
fn stage_replace(
    file: &Path,
    tracker: Option<&Temporaries>,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<(Temporary, PathBuf)> {
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    remove_stale(&dir, &name);
    let (guard, f) = Temporary::create(&dir, &name, tracker)?;
    let mut w = BufWriter::with_capacity(1 << 16, f);
    fill(&mut w)?;
    let f = w.into_inner().map_err(|e| e.into_error())?;
    // Synced before the rename: a file reported as written is on the disk.
    f.sync_all()?;
    drop(f);
    Ok((guard, dir))
}

/// Sync the directory so the rename itself is durable (Unix; elsewhere
/// the rename is as durable as the platform makes it).
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// Remove `.NAME.PID.N.tmp` files in `dir` whose process no longer runs:
/// what a killed writer of the same target left.
fn remove_stale(dir: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.");
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|n| n.strip_suffix(".tmp"))
        else {
            continue;
        };
        let mut parts = rest.split('.');
        let (Some(pid), Some(serial), None) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let (Ok(pid), true) = (
            pid.parse::<u32>(),
            serial.bytes().all(|b| b.is_ascii_digit()),
        ) else {
            continue;
        };
        if pid != std::process::id() && !process_alive(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(not(unix))]
fn process_alive(_pid: u32) -> bool {
    // Without a cheap check, never remove another process's file.
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// A staged file is in place only once committed; dropped, it leaves
    /// nothing (the CLI stages a release beside its verification).
    #[test]
    fn a_staged_file_is_in_place_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.csv");
        let inputs = Inputs::new();
        let staged = stage_file(&out, &inputs, |w| w.write_all(b"a\n")).unwrap();
        assert!(!out.exists());
        drop(staged);
        assert!(names(dir.path()).is_empty());
        let staged = stage_file(&out, &inputs, |w| w.write_all(b"b\n")).unwrap();
        staged.commit().unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"b\n");
        assert_eq!(names(dir.path()), vec!["out.csv".to_string()]);
    }

    #[test]
    fn an_input_is_never_replaced_by_any_of_its_names() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data.csv");
        std::fs::write(&data, "a\n1\n").unwrap();
        let inputs = Inputs::new().with(&data);
        let same = [
            data.clone(),
            dir.path().join("./data.csv"),
            dir.path().join("sub/../data.csv"),
        ];
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        #[cfg(unix)]
        let same = {
            let mut v = same.to_vec();
            let link = dir.path().join("link.csv");
            std::os::unix::fs::symlink(&data, &link).unwrap();
            let hard = dir.path().join("hard.csv");
            std::fs::hard_link(&data, &hard).unwrap();
            v.push(link);
            v.push(hard);
            v
        };
        for out in &same {
            let e = write_bytes(out, &inputs, b"x").unwrap_err().to_string();
            assert!(e.contains("never writes its inputs"), "{e}");
        }
        assert_eq!(std::fs::read(&data).unwrap(), b"a\n1\n");
        write_bytes(&dir.path().join("out.csv"), &inputs, b"x").unwrap();
    }

    #[test]
    fn replacing_leaves_no_temporary_file_even_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.csv");
        std::fs::write(&out, "old").unwrap();
        let tracked = Temporaries::new();
        let inputs = Inputs::new().tracked_by(&tracked);
        let e = write_file(&out, &inputs, |w| {
            w.write_all(b"partial")?;
            assert_eq!(tracked.paths().len(), 1, "registered while written");
            Err(std::io::Error::other("boom"))
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("cannot write") && e.contains("boom"), "{e}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
        assert_eq!(names(dir.path()), ["out.csv"]);
        write_bytes(&out, &Inputs::new(), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "new");
        assert_eq!(names(dir.path()), ["out.csv"]);
        assert!(tracked.paths().is_empty());
    }

    #[test]
    fn a_signal_handler_finds_and_removes_the_tracked_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.csv");
        let pid = std::process::id();
        // Another write of the same target in this process holds N = 0.
        let taken = dir.path().join(format!(".out.csv.{pid}.0.tmp"));
        std::fs::write(&taken, "another write").unwrap();
        let tracked = Temporaries::new();
        let inputs = Inputs::new().tracked_by(&tracked);
        let e = write_file(&out, &inputs, |_| {
            let paths = tracked.paths();
            assert_eq!(paths, [dir.path().join(format!(".out.csv.{pid}.1.tmp"))]);
            assert!(paths[0].exists());
            drop(tracked.remove_all());
            assert!(!paths[0].exists());
            Err(std::io::Error::other("interrupted"))
        });
        assert!(e.is_err());
        assert!(tracked.paths().is_empty());
        assert_eq!(names(dir.path()), [format!(".out.csv.{pid}.0.tmp")]);
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_written_directly_and_write_errors_reported() {
        write_bytes(Path::new("/dev/null"), &Inputs::new(), b"x").unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
        if Path::new("/dev/full").exists() {
            let e = write_bytes(Path::new("/dev/full"), &Inputs::new(), &[0u8; 1 << 17])
                .unwrap_err()
                .to_string();
            assert!(e.contains("/dev/full: cannot write file"), "{e}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_dead_writers_temporary_file_is_removed_on_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        // A pid far above any pid_max: no such process.
        let stale = dir.path().join(".out.csv.99999999.0.tmp");
        std::fs::write(&stale, "left by a killed run").unwrap();
        let unrelated = dir.path().join(".other.csv.99999999.0.tmp");
        std::fs::write(&unrelated, "not ours").unwrap();
        write_bytes(&dir.path().join("out.csv"), &Inputs::new(), b"x").unwrap();
        assert_eq!(names(dir.path()), [".other.csv.99999999.0.tmp", "out.csv"]);
    }

    #[test]
    fn two_outputs_naming_one_file_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let b = dir.path().join("./a.csv");
        let e = Inputs::new()
            .check_all(&[&a, &dir.path().join("b.csv"), &b])
            .unwrap_err()
            .to_string();
        assert!(e.contains("already an output"), "{e}");
    }
}
