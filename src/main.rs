//! The `gamecount` binary: the allocator, then the library's CLI.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    gamecount::cli::run(std::env::args_os())
}
