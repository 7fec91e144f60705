//! The CLI's progress bar: one adapter
//! from the library's [`Progress`] counter to an `indicatif` bar on stderr,
//! used by every long command (anonymize, compare, report, chart, assess,
//! the full-domain search) instead of a bar per command.
//!
//! Core functions are blocking and only count (STYLE.md, habit 2); the
//! work stays on the calling thread and a second thread reads the
//! fraction every [`POLL`] and moves the bar, as the TUI's worker does.
//! The second thread waits on a channel rather than sleeping, and the end
//! of the work wakes it at once: a command never waits for the poll after
//! its work is done (it used to, up to 80 ms per step — more than `assess`
//! on Adult takes).
//!
//! Choices:
//! - **Quiet unless a person watches.** The bar is drawn only when stderr is
//!   a terminal (`std::io::IsTerminal`); piped or redirected, not one byte
//!   is written, so logs and scripts see only the command's own messages.
//! - **Only slow steps.** The bar stays hidden for the first [`SHOW_AFTER`]
//!   (the issue's ~200 ms), so quick commands do not flash one; it is
//!   cleared when the work ends, leaving the terminal as the output wrote it.
//! - **Phases restart the bar.** A command runs several core steps (the
//!   attack simulation, the algorithm, the measurements), each setting its
//!   own total on the shared counter; the bar follows the step running now
//!   and its message says which command it belongs to.

use std::io::IsTerminal;
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use anonlab::progress::Progress;

/// How often the counter is read.
pub const POLL: Duration = Duration::from_millis(80);
/// Steps shorter than this never show a bar.
pub const SHOW_AFTER: Duration = Duration::from_millis(200);
/// Positions of the bar: the fraction in thousandths.
const SCALE: u64 = 1000;

/// Run `work` with a fresh [`Progress`], showing a bar labelled `label`
/// on stderr while it runs if stderr is a terminal.
pub fn with_bar<T>(label: &str, work: impl FnOnce(&Progress) -> T) -> T {
    let visible = std::io::stderr().is_terminal();
    drive(&new_bar(label), visible, &Progress::new(), work)
}

/// A bar that draws nowhere until [`drive`] shows it.
pub fn new_bar(label: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(SCALE), ProgressDrawTarget::hidden());
    if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:40}] {percent:>3}% {elapsed}")
        .map(|s| s.progress_chars("=> "))
    {
        bar.set_style(style);
    }
    bar.set_message(label.to_string());
    bar
}

/// Run `work` on this thread while another moves `bar` to the counter's
/// fraction; after [`SHOW_AFTER`] the bar is drawn on stderr if `visible`.
/// The bar is finished and cleared when the work returns, whatever it
/// returned; the polling thread is woken then, not at its next poll.
pub fn drive<T>(
    bar: &ProgressBar,
    visible: bool,
    progress: &Progress,
    work: impl FnOnce(&Progress) -> T,
) -> T {
    let (done, finished) = channel::<()>();
    let start = Instant::now();
    let label = bar.message();
    let out = std::thread::scope(|s| {
        s.spawn(move || {
            let mut shown = false;
            loop {
                if visible && !shown && start.elapsed() >= SHOW_AFTER {
                    bar.set_draw_target(ProgressDrawTarget::stderr());
                    shown = true;
                }
                // A named phase restarts the counter: the message says so.
                let message = match progress.phase() {
                    Some(p) => format!("{label}: {p}"),
                    None => label.clone(),
                };
                if bar.message() != message {
                    bar.set_message(message);
                }
                bar.set_position(position(progress.fraction()));
                match finished.recv_timeout(POLL) {
                    Err(RecvTimeoutError::Timeout) => continue,
                    _ => break,
                }
            }
        });
        let out = work(progress);
        // Dropping the sender wakes the thread; the scope joins it.
        drop(done);
        out
    });
    bar.finish_and_clear();
    out
}

fn position(fraction: f64) -> u64 {
    (fraction.clamp(0.0, 1.0) * SCALE as f64).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_follows_the_counter_and_returns_the_work() {
        let bar = new_bar("testing");
        let seen = drive(&bar, false, &Progress::new(), |p| {
            p.set_total(4);
            p.advance(1);
            // Wait (bounded) for the polling thread to read the middle value.
            let until = Instant::now() + Duration::from_secs(10);
            while bar.position() != 250 && Instant::now() < until {
                std::thread::sleep(POLL);
            }
            let mid = bar.position();
            p.advance(2);
            mid
        });
        assert_eq!(seen, 250);
        assert!(bar.is_finished());
        assert!(bar.is_hidden());
        assert_eq!(bar.message(), "testing");
    }

    #[test]
    fn an_error_of_the_work_comes_back_unchanged() {
        let bar = new_bar("failing");
        let r: anonlab::Result<()> = drive(&bar, false, &Progress::new(), |p| {
            p.cancel();
            p.check()
        });
        assert!(matches!(r, Err(anonlab::Error::Cancelled)));
        assert!(bar.is_finished());
    }

    #[test]
    fn positions_are_thousandths_within_the_bar() {
        assert_eq!(position(0.0), 0);
        assert_eq!(position(0.1234), 123);
        assert_eq!(position(1.5), SCALE);
        assert_eq!(position(-1.0), 0);
    }
}
