//! The `gamecount` binary: the allocator, then the library's CLI.

use std::alloc::{GlobalAlloc, Layout};

/// mimalloc, with a failed allocation reported as one line and status 2 (the pending
/// `--list` temporary file removed) instead of the standard library's abort (SIGABRT,
/// status 134). The memory preflight refuses what will not fit before the work starts;
/// this catches what it could not foresee. Nothing in the crate asks for fallible
/// allocations (`try_reserve`), so a null result is always the end of the run.
struct Allocator;

// SAFETY: every method forwards to mimalloc with the same arguments; a null result is
// never returned (the process ends instead), which GlobalAlloc allows.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees on `layout`, passed on.
        checked(unsafe { mimalloc::MiMalloc.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        checked(unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from mimalloc, with `layout`.
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`, with the caller's guarantees on `new_size`.
        checked(unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }, new_size)
    }
}

/// `ptr`, or the end of the run if the allocation of `size` bytes failed.
fn checked(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        gamecount::cli::allocation_failed(size);
    }
    ptr
}

#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

/// Runs before `main` and before the standard library's start-up, which opens
/// `/dev/null` on a closed stdin, stdout or stderr: records whether stdout was closed,
/// so the CLI can refuse to run with nowhere to print the answer.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static RECORD_STDOUT: extern "C" fn() = {
    extern "C" fn record() {
        gamecount::cli::record_stdout_state();
    }
    record
};

fn main() -> std::process::ExitCode {
    gamecount::cli::run(std::env::args_os())
}
