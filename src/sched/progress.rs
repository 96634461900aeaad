//! Progress bars for long runs, on stderr.
//!
//! A bar appears only when the scheduler was built with progress on (the CLI turns it
//! on when stderr is a terminal and `--json` is off) and only once the run has lasted
//! about a second: short runs print nothing. Kernels advance it at job granularity,
//! from any thread.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a run goes before its bar is drawn.
const SHOW_AFTER: Duration = Duration::from_millis(800);

/// A progress bar over `total` units of work, or nothing when progress is off.
pub struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    shown: AtomicBool,
}

impl Progress {
    /// A bar that draws nothing, for kernels run outside the CLI.
    pub fn hidden() -> Self {
        Self { bar: None, start: Instant::now(), shown: AtomicBool::new(true) }
    }

    pub(super) fn new(enabled: bool, total: u64, label: &str) -> Self {
        if !enabled {
            return Self::hidden();
        }
        // Hidden until SHOW_AFTER has passed; then drawn on stderr.
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden())
            .with_style(
                ProgressStyle::with_template("{msg:>12} [{bar:40}] {percent:>3}% {elapsed_precise} (eta {eta})")
                    .expect("the template is valid")
                    .progress_chars("=> "),
            )
            .with_message(label.to_string());
        Self { bar: Some(bar), start: Instant::now(), shown: AtomicBool::new(false) }
    }

    /// Records `delta` more units done.
    pub fn inc(&self, delta: u64) {
        let Some(bar) = &self.bar else { return };
        bar.inc(delta);
        if !self.shown.load(Ordering::Relaxed)
            && self.start.elapsed() >= SHOW_AFTER
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
