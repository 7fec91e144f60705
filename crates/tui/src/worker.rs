//! The one background job slot that keeps the UI responsive.
//!
//! Long core functions are blocking and take a [`Progress`] (STYLE.md,
//! habit 2); this is the only place the TUI starts threads for them. There
//! is one slot, as in gitui's `AsyncSingleJob`: a newer request replaces a
//! queued one, and asks the running one to stop, since its result would be
//! stale by the time it arrived. The worker reports with small
//! [`WorkerMsg`]s that the event loop turns into state changes.
//!
//! Tests use [`Worker::inline`]: nothing runs until
//! [`Worker::run_queued_inline`] is called, on the caller's thread, so
//! screen tests are deterministic.

use std::cell::Cell;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use anonlab::error::Error;
use anonlab::progress::Progress;

/// How often a running job's progress counter is read and reported.
const PROGRESS_EVERY: Duration = Duration::from_millis(50);

/// Identifies one request; later requests have larger ids.
pub type JobId = u64;

/// A unit of work: runs a blocking core function and returns its output.
pub type JobFn<T> = Box<dyn FnOnce(&Progress) -> anonlab::Result<T> + Send>;

/// What the worker reports.
#[derive(Debug)]
pub enum WorkerMsg<T> {
    Progress {
        id: JobId,
        fraction: f64,
    },
    Done {
        id: JobId,
        output: T,
        elapsed: Duration,
    },
    /// Stopped by [`Worker::cancel`] or replaced by a newer request.
    Cancelled {
        id: JobId,
    },
    Failed {
        id: JobId,
        error: String,
    },
}

impl<T> WorkerMsg<T> {
    pub fn id(&self) -> JobId {
        match self {
            WorkerMsg::Progress { id, .. }
            | WorkerMsg::Done { id, .. }
            | WorkerMsg::Cancelled { id }
            | WorkerMsg::Failed { id, .. } => *id,
        }
    }
}

struct Slot<T> {
    queued: Option<(JobId, JobFn<T>)>,
    running: Option<(JobId, Progress)>,
    shutdown: bool,
}

struct Shared<T> {
    slot: Mutex<Slot<T>>,
    wake: Condvar,
}

impl<T> Shared<T> {
    /// A panic inside a job is caught below, so a poisoned lock still holds
    /// a consistent slot.
    fn lock(&self) -> MutexGuard<'_, Slot<T>> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One job slot, run on a background thread or inline.
pub struct Worker<T> {
    shared: Arc<Shared<T>>,
    next_id: JobId,
}

impl<T: Send + 'static> Worker<T> {
    /// Jobs wait until [`run_queued_inline`](Self::run_queued_inline).
    pub fn inline() -> Self {
        Worker {
            shared: Arc::new(Shared {
                slot: Mutex::new(Slot {
                    queued: None,
                    running: None,
                    shutdown: false,
                }),
                wake: Condvar::new(),
            }),
            next_id: 0,
        }
    }

    /// Jobs run on one background thread; `notify` receives its messages
    /// (from that thread). Fails only when the thread cannot be started.
    pub fn threaded(notify: impl Fn(WorkerMsg<T>) + Send + 'static) -> std::io::Result<Self> {
        let w = Self::inline();
        let shared = Arc::clone(&w.shared);
        thread::Builder::new()
            .name("anonlab-worker".into())
            .spawn(move || worker_loop(&shared, &notify))?;
        Ok(w)
    }

    /// The phase the running job named last ("building the kd-tree 1/3"),
    /// if any.
    pub fn phase(&self) -> Option<anonlab::progress::Phase> {
        let slot = self.shared.lock();
        slot.running.as_ref().and_then(|(_, p)| p.phase())
    }

    /// Queue a job, replacing any queued one and cancelling the running one.
    pub fn submit(&mut self, job: JobFn<T>) -> JobId {
        self.next_id += 1;
        let id = self.next_id;
        let mut slot = self.shared.lock();
        if let Some((_, p)) = &slot.running {
            p.cancel();
        }
        slot.queued = Some((id, job));
        drop(slot);
        self.shared.wake.notify_one();
        id
    }

    /// Drop the queued job and ask the running one to stop.
    pub fn cancel(&mut self) {
        let mut slot = self.shared.lock();
        slot.queued = None;
        if let Some((_, p)) = &slot.running {
            p.cancel();
        }
    }

    /// Run the queued job, if any, on this thread and return what a
    /// background worker would have reported. For inline workers (tests).
    pub fn run_queued_inline(&mut self) -> Vec<WorkerMsg<T>> {
        let Some((id, job)) = self.shared.lock().queued.take() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let progress = Progress::new();
        out.push(run_job(id, job, &progress));
        out
    }
}

impl<T> Drop for Worker<T> {
    fn drop(&mut self) {
        let mut slot = self.shared.lock();
        slot.shutdown = true;
        slot.queued = None;
        if let Some((_, p)) = &slot.running {
            p.cancel();
        }
        drop(slot);
        self.shared.wake.notify_all();
    }
}

thread_local! {
    static IN_JOB: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is running a job. The panic hook uses it: a job's
/// panic is caught and shown in a popup, so the terminal must stay as it is.
pub fn in_job() -> bool {
    IN_JOB.with(Cell::get)
}

/// Run one job, turning its result (or panic) into a message.
pub(crate) fn run_job<T>(id: JobId, job: JobFn<T>, progress: &Progress) -> WorkerMsg<T> {
    let start = Instant::now();
    IN_JOB.with(|f| f.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(progress)));
    IN_JOB.with(|f| f.set(false));
    match result {
        Ok(Ok(output)) => WorkerMsg::Done {
            id,
            output,
            elapsed: start.elapsed(),
        },
        Ok(Err(Error::Cancelled)) => WorkerMsg::Cancelled { id },
        Ok(Err(e)) => WorkerMsg::Failed {
            id,
            error: e.to_string(),
        },
        Err(panic) => WorkerMsg::Failed {
            id,
            error: format!("internal error: {}", panic_text(&panic)),
        },
    }
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "the computation panicked".into()
    }
}

fn worker_loop<T: Send>(shared: &Shared<T>, notify: &(impl Fn(WorkerMsg<T>) + Send)) {
    loop {
        let mut slot = shared.lock();
        while slot.queued.is_none() && !slot.shutdown {
            slot = shared
                .wake
                .wait(slot)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if slot.shutdown {
            return;
        }
        let Some((id, job)) = slot.queued.take() else {
            continue;
        };
        let progress = Progress::new();
        slot.running = Some((id, progress.clone()));
        drop(slot);

        // The job runs on a scoped thread so that this one can report its
        // progress counter while it works. Its result is awaited on a
        // channel, not by polling between sleeps: a finished job is
        // reported at once, which live tuning's latency budget needs.
        let msg = thread::scope(|s| {
            let (done_tx, done_rx) = mpsc::channel();
            let job_progress = progress.clone();
            s.spawn(move || {
                let _ = done_tx.send(run_job(id, job, &job_progress));
            });
            let mut last = -1.0;
            loop {
                match done_rx.recv_timeout(PROGRESS_EVERY) {
                    Ok(msg) => break msg,
                    Err(RecvTimeoutError::Timeout) => {
                        let f = progress.fraction();
                        if f != last {
                            last = f;
                            notify(WorkerMsg::Progress { id, fraction: f });
                        }
                    }
                    // `run_job` catches panics, so the sender is dropped
                    // without sending only if that catch itself failed.
                    Err(RecvTimeoutError::Disconnected) => {
                        break WorkerMsg::Failed {
                            id,
                            error: "internal error: the computation panicked".into(),
                        }
                    }
                }
            }
        });
        shared.lock().running = None;
        notify(msg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn inline_worker_keeps_only_the_newest_request() {
        let mut w: Worker<u32> = Worker::inline();
        w.submit(Box::new(|_| Ok(1)));
        let id = w.submit(Box::new(|_| Ok(2)));
        let msgs = w.run_queued_inline();
        assert_eq!(msgs.len(), 1);
        match &msgs[0] {
            WorkerMsg::Done {
                id: got, output, ..
            } => {
                assert_eq!((*got, *output), (id, 2));
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(w.run_queued_inline().is_empty());
    }

    #[test]
    fn failures_and_panics_become_messages() {
        let mut w: Worker<u32> = Worker::inline();
        w.submit(Box::new(|_| Err(Error::Internal("bad".into()))));
        assert!(matches!(
            &w.run_queued_inline()[0],
            WorkerMsg::Failed { error, .. } if error.contains("bad")
        ));
        w.submit(Box::new(|_| panic!("boom")));
        assert!(matches!(
            &w.run_queued_inline()[0],
            WorkerMsg::Failed { error, .. } if error.contains("boom")
        ));
    }

    #[test]
    fn jobs_know_they_are_jobs_so_the_panic_hook_leaves_the_terminal_alone() {
        let mut w: Worker<bool> = Worker::inline();
        w.submit(Box::new(|_| Ok(in_job())));
        assert!(matches!(
            w.run_queued_inline()[0],
            WorkerMsg::Done { output: true, .. }
        ));
        assert!(!in_job());
    }

    #[test]
    fn threaded_worker_cancels_a_stale_job() {
        let (tx, rx) = mpsc::channel();
        let mut w: Worker<u32> = Worker::threaded(move |m| {
            let _ = tx.send(m);
        })
        .unwrap();
        let (started_tx, started_rx) = mpsc::channel();
        let first = w.submit(Box::new(move |p| {
            started_tx.send(()).unwrap();
            loop {
                p.check()?;
                thread::sleep(Duration::from_millis(1));
            }
        }));
        started_rx.recv().unwrap();
        let second = w.submit(Box::new(|_| Ok(7)));
        let mut seen_cancel = false;
        loop {
            match rx.recv_timeout(Duration::from_secs(10)).unwrap() {
                WorkerMsg::Cancelled { id } => {
                    assert_eq!(id, first);
                    seen_cancel = true;
                }
                WorkerMsg::Done { id, output, .. } => {
                    assert_eq!((id, output), (second, 7));
                    break;
                }
                WorkerMsg::Progress { .. } => {}
                WorkerMsg::Failed { error, .. } => panic!("{error}"),
            }
        }
        assert!(seen_cancel);
    }

    #[test]
    fn the_worker_runs_only_the_newest_of_queued_requests_and_stops_the_running_one() {
        let (tx, rx) = mpsc::channel();
        let mut w: Worker<u32> = Worker::threaded(move |m| {
            let _ = tx.send(m);
        })
        .unwrap();
        let (started_tx, started_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        // The running job holds on until both newer requests are in, then
        // finds that it was asked to stop.
        let running = w.submit(Box::new(move |p: &Progress| {
            started_tx.send(()).unwrap();
            release_rx.recv().unwrap();
            p.check()?;
            Ok(0)
        }));
        started_rx.recv().unwrap();
        let replaced = w.submit(Box::new(|_: &Progress| Ok(1)));
        let newest = w.submit(Box::new(|_: &Progress| Ok(2)));
        release_tx.send(()).unwrap();
        let mut seen = Vec::new();
        loop {
            let m = rx.recv_timeout(Duration::from_secs(10)).unwrap();
            assert_ne!(m.id(), replaced, "a replaced request must never run");
            match m {
                WorkerMsg::Progress { .. } => continue,
                WorkerMsg::Done { id, output, .. } => {
                    assert_eq!((id, output), (newest, 2));
                    seen.push(id);
                    break;
                }
                WorkerMsg::Cancelled { id } => seen.push(id),
                WorkerMsg::Failed { error, .. } => panic!("{error}"),
            }
        }
        assert_eq!(seen, [running, newest]);
    }
}
