//! Opening files: the recent files kept between sessions, the `:open`
//! picker over them and the project's folder, and the read itself, which
//! runs off the UI thread (issue 36, item 9): a 1 GB CSV or a file on a
//! stalled mount must not freeze the keys. The status bar says what is
//! being read and how far; Esc cancels and the session in view stays; a
//! reader's failure is a popup naming the file.
//!
//! The core's readers take no [`Progress`], so a cancelled read cannot be
//! stopped: its thread is abandoned (it ends when the reader returns, at
//! the latest at the reader's size limit) and its result dropped. How far
//! it got is the kernel's count of the bytes the process read since the
//! request (`/proc/self/io`, Linux; elsewhere the size and the elapsed
//! time only).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anonlab::progress::Progress;
use anonlab::session::Session;

use super::{App, JobMsg, Popup};
use crate::keymap::Action;
use crate::picker::{FilePicker, PickerEffect};
use crate::recent::RecentFiles;
use crate::shared::Loaded;
use crate::worker::{run_job, WorkerMsg};

impl App {
    /// Keep the recent files in `recent` (its file, or memory only), and
    /// remember the file this session came from.
    pub fn with_recent(mut self, recent: RecentFiles) -> Self {
        self.recent = recent;
        if let Some(p) = self.opened_from() {
            self.recent.remember(&p);
        }
        self
    }

    /// The file the session was opened from: its project when it has one
    /// on disk, else its data file (`None` for the embedded demo).
    fn opened_from(&self) -> Option<PathBuf> {
        self.project_path
            .clone()
            .filter(|p| p.is_file())
            .or_else(|| self.session.session().source.clone())
    }

    pub fn recent(&self) -> &RecentFiles {
        &self.recent
    }

    pub fn picker(&self) -> Option<&FilePicker> {
        self.picker.as_ref()
    }

    /// Open the picker: the recent files, then the project folder's.
    pub(super) fn open_picker(&mut self) {
        let project = self.project_path();
        let folder = match project.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        self.picker = Some(FilePicker::new(&self.recent.paths, &folder));
    }

    /// A key while the picker is open.
    pub(super) fn step_picker(&mut self, action: &Action) {
        let Some(picker) = self.picker.as_mut() else {
            return;
        };
        match picker.step(action) {
            PickerEffect::Stay => {}
            PickerEffect::Close => self.picker = None,
            PickerEffect::Open(path) => {
                self.picker = None;
                self.request_open(path);
            }
        }
    }
}

/// The read a background open runs, queued until the app's workers start
/// (tests run it inline in [`App::take_open`]).
type ReadFn = Box<dyn FnOnce() -> anonlab::Result<Loaded> + Send>;

/// A file being opened off the UI thread: what the status bar says of it,
/// and how to drop it. The read runs on a thread of its own, one per
/// request: a read stuck in the kernel (a stalled network mount) cannot
/// be interrupted, so Esc abandons it rather than waiting, and the next
/// `:open` does not queue behind it. Its message, if it ever comes, names
/// an old request and is dropped.
pub(super) struct Opening {
    /// The request's number; messages of other numbers are stale.
    seq: u64,
    path: PathBuf,
    /// The file's size when asked (the project file's for a project).
    size: Option<u64>,
    started: Instant,
    /// The time of the last tick: the status bar's elapsed time.
    now: Instant,
    /// Bytes read since the request, as the kernel counts the process's
    /// reads (Linux), at the last tick.
    read: Option<u64>,
    /// The process's count of bytes read when the request was made.
    counter_at_start: Option<u64>,
    /// The read, until a worker thread takes it (inline apps).
    queued: Option<ReadFn>,
}

/// Why a path is no data file, checked before anything opens it: a
/// device (`/dev/zero` reads forever, `/dev/urandom` to the reader's
/// limit, a terminal or a tape blocks) or a FIFO (it waits for a
/// writer). The core's readers refuse FIFOs already, and read devices
/// (issue 36, item 9). `None` for anything else, a missing file included
/// (the reader names that).
pub(crate) fn special_file(path: &Path) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = std::fs::metadata(path).ok()?.file_type();
        if t.is_char_device() || t.is_block_device() {
            return Some("it is a device, not a data file; write the data to a file first");
        }
        if t.is_fifo() {
            return Some("it is a FIFO (named pipe), not a data file: it would wait for a writer; write the data to a file first");
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    None
}

/// A size in bytes as the status bar shows it: "812 B", "3.4 MB", "1.0 GB".
fn size_text(b: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if b < 1000 {
        return format!("{b} B");
    }
    let mut v = b as f64 / 1000.0;
    let mut unit = 0;
    while v >= 1000.0 && unit + 1 < UNITS.len() {
        v /= 1000.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// Read what `:open PATH` names: a project when it ends in `.json`, else
/// a data file, read whole. Runs on the open's thread.
fn read(path: &Path) -> anonlab::Result<Loaded> {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        let project = anonlab::data::Project::load(path)?;
        // The data file a project names is refused as a device too: with
        // a fingerprint, checking it would read `/dev/zero` forever.
        if let Some(data) = &project.data.path {
            if let Some(why) = special_file(data) {
                return Err(anonlab::error::Error::input(data, None, None, why));
            }
        }
        let changed = project.data_changed();
        let (session, grouped) = if project.data.grouped.is_some() {
            let (s, g) = super::infra::open_grouped(&project)?;
            (s, Some(g))
        } else {
            (Session::from_project(&project)?, None)
        };
        Ok(Loaded {
            session,
            grouped,
            project: Some(path.to_path_buf()),
            changed,
        })
    } else {
        // Read whole: the query engine's table holds only the columns
        // given a role up front, and a file opened here has none yet
        // (`anonlab tui FILE --qi ...` opens one through the engine).
        let session = anonlab::session::Source::file(path, anonlab::data::CsvOptions::default())
            .with_engine(anonlab::session::Engine::Memory)
            .open_with(&anonlab::session::RoleSpec::default())?;
        Ok(Loaded {
            session,
            grouped: None,
            project: None,
            changed: None,
        })
    }
}

/// The kernel's count of bytes the process has read (`rchar` of
/// `/proc/self/io`, Linux; `None` elsewhere). The reader's threads (a
/// CSV is read whole by several) all count; so would a cancelled read
/// still running, which the status bar then overstates.
fn bytes_read() -> Option<u64> {
    read_counter(Path::new("/proc/self/io"))
}

fn read_counter(io: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(io).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("rchar:"))
        .and_then(|v| v.trim().parse().ok())
}

impl App {
    /// Start reading `path` off the UI thread (a device or a FIFO is
    /// refused at once). The session in view stays until the read is
    /// done; Esc cancels it.
    pub(super) fn start_open(&mut self, path: PathBuf) {
        if let Some(why) = special_file(&path) {
            self.popup = Some(Popup::new(
                "Cannot open the file",
                format!("{}: {why}", path.display()),
            ));
            return;
        }
        self.open_seq += 1;
        let seq = self.open_seq;
        let now = Instant::now();
        let target = path.clone();
        let mut opening = Opening {
            seq,
            size: std::fs::metadata(&path).ok().map(|m| m.len()),
            path,
            started: now,
            now,
            read: None,
            counter_at_start: bytes_read(),
            queued: Some(Box::new(move || read(&target))),
        };
        if let Some(notify) = self.notify.clone() {
            let job = opening.queued.take().expect("queued above");
            let spawned = std::thread::Builder::new()
                .name("anonlab-open".into())
                .spawn(move || {
                    let msg = run_job(
                        seq,
                        Box::new(move |_| job().map(Box::new)),
                        &Progress::new(),
                    );
                    notify(JobMsg::Open(msg));
                });
            if let Err(e) = spawned {
                self.popup = Some(Popup::new(
                    "Cannot open the file",
                    format!(
                        "{}: cannot start a thread to read it: {e}",
                        opening.path.display()
                    ),
                ));
                return;
            }
        }
        self.opening = Some(opening);
    }

    /// The file being opened and what the status bar says of it:
    /// "opening PATH · 12 MB of 40 MB · 3 s · Esc cancels".
    pub fn opening(&self) -> Option<String> {
        let o = self.opening.as_ref()?;
        let mb = size_text;
        let mut s = format!("opening {}", o.path.display());
        match (o.read, o.size) {
            (Some(r), Some(t)) if t > 0 => s.push_str(&format!(" · {} of {}", mb(r.min(t)), mb(t))),
            (Some(r), _) => s.push_str(&format!(" · {} read", mb(r))),
            (None, Some(t)) => s.push_str(&format!(" · {}", mb(t))),
            (None, None) => {}
        }
        let secs = o.now.saturating_duration_since(o.started).as_secs();
        if secs > 0 {
            s.push_str(&format!(" · {secs} s"));
        }
        s.push_str(" · Esc cancels");
        Some(s)
    }

    /// A tick while a file is being opened: its elapsed time and bytes.
    pub(super) fn tick_open(&mut self, now: Instant) {
        if let Some(o) = self.opening.as_mut() {
            o.now = o.now.max(now);
            if let (Some(start), Some(now)) = (o.counter_at_start, bytes_read()) {
                o.read = Some(now.saturating_sub(start));
            }
        }
    }

    /// Esc while a file is being opened: drop the request (the session in
    /// view stays); whether one was being opened.
    pub(super) fn cancel_open(&mut self) -> bool {
        let Some(o) = self.opening.take() else {
            return false;
        };
        self.notice = Some(format!(
            "cancelled opening {}; this session stays",
            o.path.display()
        ));
        true
    }

    /// The message of an open's thread: the loaded session waits for
    /// [`take_open`](Self::take_open); a failure is a popup naming the
    /// file, and the session in view stays.
    pub(super) fn on_open(&mut self, msg: WorkerMsg<Box<Loaded>>) {
        if self.opening.as_ref().map(|o| o.seq) != Some(msg.id()) {
            return;
        }
        let path = match msg {
            WorkerMsg::Progress { .. } => return,
            _ => self.opening.take().map(|o| o.path).unwrap_or_default(),
        };
        match msg {
            WorkerMsg::Done { output, .. } => self.opened = Some((path, output)),
            WorkerMsg::Failed { error, .. } => {
                self.popup = Some(Popup::new(
                    "Cannot open the file",
                    format!("{}: {error}", path.display()),
                ));
            }
            WorkerMsg::Cancelled { .. } | WorkerMsg::Progress { .. } => {}
        }
    }

    /// Run a queued open on this thread (inline apps: tests).
    pub(super) fn run_open_inline(&mut self) {
        let Some(o) = self.opening.as_mut() else {
            return;
        };
        let Some(job) = o.queued.take() else {
            return;
        };
        let seq = o.seq;
        let msg = run_job(
            seq,
            Box::new(move |_| job().map(Box::new)),
            &Progress::new(),
        );
        self.on_open(msg);
    }

    /// The file `:open` asked for, once read, as a new app with this
    /// one's keys, theme, mouse setting, size, command history and recent
    /// files; `None` while none is read (or when it cannot be shown: a
    /// popup then says why and this session stays). The terminal loop
    /// replaces the app with it and starts its workers. An inline app
    /// (tests) reads the file here.
    pub fn take_open(&mut self) -> Option<App> {
        self.run_open_inline();
        let (path, loaded) = self.opened.take()?;
        let Loaded {
            session,
            grouped,
            project,
            changed,
        } = *loaded;
        let app = App::new(session).map(|app| {
            let app = match grouped {
                Some(g) => app.with_grouped(g),
                None => app,
            };
            let app = match project {
                Some(p) => app.with_project_path(p),
                None => app,
            };
            match changed {
                Some(w) => app.with_warning("Data file changed", &w),
                None => app,
            }
        });
        match app {
            Ok(mut app) => {
                app.keymap = self.keymap.clone();
                app.data.semi_key = self.data.semi_key.clone();
                app.theme = self.theme;
                app.mouse = self.mouse;
                app.cmdline = self.cmdline.clone();
                app.recent = std::mem::take(&mut self.recent);
                app.recent.remember(&path);
                app.step(&Action::Resize(self.size.0, self.size.1));
                if app.notice.is_none() {
                    app.notice = Some(format!("opened {}", path.display()));
                }
                Some(app)
            }
            Err(e) => {
                self.popup = Some(Popup::new(
                    "Cannot open the file",
                    format!("{}: {e}", path.display()),
                ));
                None
            }
        }
    }
}
