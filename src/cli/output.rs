//! Every byte the CLI prints goes through here, so an output error is an error and never
//! a panic (`println!` panics when stdout fails):
//!
//! - stdout: a broken pipe (the reader, say `head -n1`, has gone) ends the process
//!   quietly with status 141, as if killed by SIGPIPE, which is what shells report for
//!   such pipelines; any other error is one line on stderr and status 2.
//! - stderr: errors are ignored, so an unwritable stderr never keeps an answer from being
//!   computed and printed.
//! - A closed stdout is refused before any work (Rust's standard streams treat a closed
//!   descriptor as a sink that swallows everything); a closed stdin or stderr is opened
//!   on `/dev/null`, so that no file the run opens takes its number and receives output
//!   meant for it.

use super::Failure;
use crate::games::ProblemId;
use std::io::{self, Write};
use std::sync::atomic::{AtomicU8, Ordering};

/// The exit status of a run whose stdout reader went away: 128 + SIGPIPE.
pub const BROKEN_PIPE_STATUS: u8 = 141;

/// Writes `text` and a newline to stdout, flushed.
pub fn line(text: &str) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(stdout_failure)
}

/// The failure a stdout write error ends the run with.
fn stdout_failure(e: io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure { message: String::new(), code: BROKEN_PIPE_STATUS }
    } else {
        Failure { message: format!("stdout: {e}"), code: 2 }
    }
}

/// Writes `text` and a newline to stderr in one system call, ignoring failures. One call,
/// because stderr is unbuffered: a line written in two parts could be split by the
/// message of a signal handler, which then would not start a line of its own.
pub fn note(text: &str) {
    let mut line = String::with_capacity(text.len() + 1);
    line.push_str(text);
    line.push('\n');
    let _ = io::stderr().lock().write_all(line.as_bytes());
}

/// Whether stdout was open when the process started: 0 not recorded, 1 open, 2 closed.
static STDOUT_AT_START: AtomicU8 = AtomicU8::new(0);

/// Whether descriptor `fd` is closed.
#[cfg(target_os = "linux")]
fn closed(fd: libc::c_int) -> bool {
    // SAFETY: fcntl(F_GETFD) only queries a descriptor number.
    unsafe { libc::fcntl(fd, libc::F_GETFD) == -1 }
}

/// Records whether stdout is open. The binary calls it before the standard library's
/// start-up, which opens `/dev/null` on closed standard descriptors and so hides a
/// closed stdout from everything that runs later. Only makes a system call.
pub fn record_stdout_state() {
    #[cfg(target_os = "linux")]
    STDOUT_AT_START.store(if closed(1) { 2 } else { 1 }, Ordering::Relaxed);
}

/// Opens `/dev/null` on a closed stdin or stderr; says whether stdout is open (or was,
/// when the process started, if that was recorded).
#[cfg(target_os = "linux")]
pub fn guard_standard_descriptors() -> bool {
    for fd in [0, 2] {
        if closed(fd) {
            // SAFETY: a NUL-terminated path; the result is checked, and moved onto `fd`
            // if open() did not return that number itself (lowest free first).
            unsafe {
                let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
                if null >= 0 && null != fd {
                    libc::dup2(null, fd);
                    libc::close(null);
                }
            }
        }
    }
    match STDOUT_AT_START.load(Ordering::Relaxed) {
        0 => !closed(1),
        state => state == 1 && !closed(1),
    }
}

/// Elsewhere the standard descriptors are taken as they are.
#[cfg(not(target_os = "linux"))]
pub fn guard_standard_descriptors() -> bool {
    true
}

/// Writes `bytes` to stderr with one system call, allocating nothing and taking no
/// lock; failures are ignored.
fn raw_stderr(bytes: &[u8]) {
    #[cfg(target_os = "linux")]
    // SAFETY: a valid buffer of `bytes.len()` bytes.
    let _ = unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
    #[cfg(not(target_os = "linux"))]
    let _ = io::stderr().write_all(bytes);
}

/// The problem being solved, for [`allocation_failed`]: an index into
/// [`ProblemId::EVERY`] plus one, 0 for none.
static CURRENT_PROBLEM: AtomicU8 = AtomicU8::new(0);

/// Records the problem a failed allocation should be reported for.
pub fn set_current_problem(problem: Option<ProblemId>) {
    let index = problem.and_then(|p| ProblemId::EVERY.iter().position(|&q| q == p)).map_or(0, |i| i as u8 + 1);
    CURRENT_PROBLEM.store(index, Ordering::Relaxed);
}

/// Ends the process after an allocation of `size` bytes failed, which the memory
/// preflight did not foresee: one line on stderr, the pending `--list` temporary file
/// removed, status 2. Allocates nothing (it runs inside the allocator) and never unwinds.
pub fn allocation_failed(size: usize) -> ! {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut value = size;
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    let problem = match CURRENT_PROBLEM.load(Ordering::Relaxed) {
        0 => "",
        i => ProblemId::EVERY[i as usize - 1].name(),
    };
    crate::files::remove_pending_temp();
    for part in [
        b"error: ".as_slice(),
        problem.as_bytes(),
        if problem.is_empty() { b"" } else { b": " },
        b"memory allocation of ",
        &digits[start..],
        b" bytes failed: the memory limits the process runs under leave too little\n",
    ] {
        raw_stderr(part);
    }
    #[cfg(target_os = "linux")]
    // SAFETY: _exit ends the process at once, without running anything that could
    // allocate.
    unsafe {
        libc::_exit(2)
    }
    #[cfg(not(target_os = "linux"))]
    std::process::exit(2)
}
