//! The files gamecount writes for its users, each replaced whole or not at all: the
//! stones `--list FILE` (every losing triple as one CSV line `x,y,z`), the octal
//! `--out FILE` (one value a line), both through [`AtomicFile::create_for`], and every
//! file the measurement tool `gamecount-lab` writes ([`AtomicFile::create_as`] with a
//! [`Writer::Tool`], or [`replace_file`] for contents already in memory).
//!
//! The lines go to a temporary file beside `FILE` (same directory, so the final rename
//! cannot cross file systems), which is synced and renamed to `FILE` only when the run
//! is complete: an interrupted run leaves `FILE` as it was, never half written. The
//! temporary file is created before the run starts, so an unwritable path is refused at
//! once.
//!
//! What may sit at `FILE`: nothing (the file is created with the usual `0666 & !umask`
//! mode), or a regular file, which is replaced and whose mode (and, where allowed, owner)
//! the new file keeps. A symlink is followed: the file it points to is replaced and the link
//! stays a link; a link to nothing is refused. Anything else (a directory, a device, a
//! FIFO, a socket) is refused before any work, and checked again just before the rename.
//!
//! The temporary file has a short name, `.gc.<pid>.<n>.tmp`, so any valid name of
//! `FILE` works, and it is created with `O_EXCL`. It is removed on every failure: by
//! [`Drop`] when the run returns an error or unwinds, by the handlers of SIGINT, SIGTERM
//! and SIGHUP installed with the first file (which then end the process with one line
//! and status 128 + the signal), and by [`remove_pending_temp`], which the binary's
//! allocator calls when an allocation fails. Up to [`MAX_OPEN`] files may be written at
//! once, and a signal removes the temporary files of all of them.

use crate::games::ProblemId;
use std::ffi::CString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

/// Bytes buffered before a write: large writes, few system calls.
const BUFFER_BYTES: usize = 1 << 20;

/// Who writes a file: named at the start of every refusal and of the line an
/// interrupting signal prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    /// A problem of `gamecount` (`stones: --list FILE: ...`).
    Problem(ProblemId),
    /// A command of another tool (`ladder: --out FILE: ...` for `gamecount-lab ladder`).
    Tool(&'static str),
}

impl std::fmt::Display for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Writer::Problem(problem) => write!(f, "{problem}"),
            Writer::Tool(name) => f.write_str(name),
        }
    }
}

/// Why a file was not written: one line, `WRITER: OPTION FILE: reason`.
#[derive(Debug)]
pub struct FileError {
    pub writer: Writer,
    pub message: String,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.writer, self.message)
    }
}

impl std::error::Error for FileError {}

/// A file being written, which replaces its target only when committed; see the module
/// docs.
pub struct AtomicFile {
    /// The path as given, for messages.
    path: PathBuf,
    /// The file that is replaced: `path`, or where its symlink points.
    target: PathBuf,
    temp: PathBuf,
    out: Option<BufWriter<File>>,
    /// The first write error, reported by [`AtomicFile::commit`].
    error: Option<io::Error>,
    /// One formatted line.
    line: Vec<u8>,
    /// Who writes the file and the option it was given by, for messages.
    writer: Writer,
    option: &'static str,
    /// The signal handlers' slot that holds the temporary file's path.
    slot: usize,
}

/// `path` as messages name it: after its option, if it was given by one.
fn named(option: &str, path: &Path) -> String {
    if option.is_empty() { path.display().to_string() } else { format!("{option} {}", path.display()) }
}

fn refuse(writer: Writer, option: &str, path: &Path, reason: impl std::fmt::Display) -> FileError {
    FileError { writer, message: format!("{}: {reason}", named(option, path)) }
}

/// Why a file of type `kind` is not replaced, or `None` for a regular file.
fn not_regular(kind: fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("is a directory")
    } else if kind.is_char_device() {
        Some("is a character device, not a regular file; it is left as it is")
    } else if kind.is_block_device() {
        Some("is a block device, not a regular file; it is left as it is")
    } else if kind.is_fifo() {
        Some("is a FIFO, not a regular file; it is left as it is")
    } else if kind.is_socket() {
        Some("is a socket, not a regular file; it is left as it is")
    } else {
        Some("is not a regular file; it is left as it is")
    }
}

/// The file `path` names once symlinks are followed, with its metadata if it exists;
/// refuses what is not a regular file.
fn resolve(path: &Path, writer: Writer, option: &str) -> Result<(PathBuf, Option<fs::Metadata>), FileError> {
    let refuse = |path: &Path, reason: &dyn std::fmt::Display| refuse(writer, option, path, reason);
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok((path.to_path_buf(), None)),
        Err(e) => Err(refuse(path, &e)),
        Ok(meta) if meta.file_type().is_symlink() => match fs::metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                Err(refuse(path, &"is a symlink to a file that does not exist; it is left as it is"))
            }
            Err(e) => Err(refuse(path, &e)),
            Ok(meta) => match not_regular(meta.file_type()) {
                Some(why) => Err(refuse(path, &format!("is a symlink to something that {why}"))),
                None => Ok((fs::canonicalize(path).map_err(|e| refuse(path, &e))?, Some(meta))),
            },
        },
        Ok(meta) => match not_regular(meta.file_type()) {
            Some(why) => Err(refuse(path, &why)),
            None => Ok((path.to_path_buf(), Some(meta))),
        },
    }
}

/// How many files one process may write at once: the signal handlers keep the
/// temporary files' paths in this many slots, fixed, because a handler may not allocate.
pub const MAX_OPEN: usize = 16;

/// Tells temporary files of one process apart.
static TEMP_COUNTER: AtomicU32 = AtomicU32::new(0);

impl AtomicFile {
    /// Creates the temporary file for `path`, given by `option` of `problem` (both named
    /// in refusals and in the message of an interrupting signal).
    pub fn create_for(path: &Path, problem: ProblemId, option: &'static str) -> Result<Self, FileError> {
        Self::create_as(path, Writer::Problem(problem), option)
    }

    /// Creates the temporary file for `path`, written by `writer` and given by `option`
    /// (empty for a file the writer names itself).
    pub fn create_as(path: &Path, writer: Writer, option: &'static str) -> Result<Self, FileError> {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
        let refuse = |path: &Path, reason: &dyn std::fmt::Display| refuse(writer, option, path, reason);
        if path.file_name().is_none() {
            return Err(refuse(path, &"not a file name"));
        }
        let (target, existing) = resolve(path, writer, option)?;
        signals::install();
        // No signal may come between the creation and the registration of the file
        // (it would leave the file behind): they wait, blocked, until it is registered.
        let _blocked = signals::Blocked::new();
        let (temp, file) = loop {
            let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
            let temp = target.with_file_name(format!(".gc.{}.{n}.tmp", std::process::id()));
            match OpenOptions::new().write(true).create_new(true).mode(0o666).open(&temp) {
                Ok(file) => break (temp, file),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1000 => continue,
                Err(e) => return Err(refuse(path, &e)),
            }
        };
        // Registered at once, so a signal from here on removes it.
        let Some(slot) = signals::register(&temp, path, writer, option) else {
            let _ = fs::remove_file(&temp);
            return Err(refuse(path, &format_args!("more than {MAX_OPEN} files are being written at once")));
        };
        // From here on, dropping `atomic` removes the temporary file.
        let mut atomic = Self {
            path: path.to_path_buf(),
            target,
            temp,
            out: None,
            error: None,
            line: Vec::with_capacity(40),
            writer,
            option,
            slot,
        };
        if let Some(meta) = existing {
            // The replacement keeps the owner where the process may set it (as root), and
            // the mode: the owner first, since a change of owner clears set-id bits.
            let created = file.metadata().map_err(|e| refuse(path, &e))?;
            if (meta.uid(), meta.gid()) != (created.uid(), created.gid()) {
                let _ = std::os::unix::fs::fchown(&file, Some(meta.uid()), Some(meta.gid()));
            }
            file.set_permissions(fs::Permissions::from_mode(meta.mode() & 0o7777)).map_err(|e| refuse(path, &e))?;
        }
        atomic.out = Some(BufWriter::with_capacity(BUFFER_BYTES, file));
        Ok(atomic)
    }

    /// Appends the line `x,y,z`.
    pub fn push_triple(&mut self, x: u32, y: u32, z: u32) {
        let (Some(out), None) = (self.out.as_mut(), self.error.as_ref()) else { return };
        self.line.clear();
        for (value, end) in [(x, b','), (y, b','), (z, b'\n')] {
            push_decimal(&mut self.line, value);
            self.line.push(end);
        }
        self.error = out.write_all(&self.line).err();
    }

    /// Appends the line `value`.
    pub fn push_value(&mut self, value: u32) {
        let (Some(out), None) = (self.out.as_mut(), self.error.as_ref()) else { return };
        self.line.clear();
        push_decimal(&mut self.line, value);
        self.line.push(b'\n');
        self.error = out.write_all(&self.line).err();
    }

    /// Appends `bytes` as they are (text a caller formatted itself).
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        let (Some(out), None) = (self.out.as_mut(), self.error.as_ref()) else { return };
        self.error = out.write_all(bytes).err();
    }

    /// Flushes, syncs and renames the file to its final path.
    pub fn commit(mut self) -> Result<(), FileError> {
        let (writer, option) = (self.writer, self.option);
        let refuse = |path: &Path, reason: &dyn std::fmt::Display| refuse(writer, option, path, reason);
        let out = self.out.take().expect("committed once");
        if let Some(e) = self.error.take() {
            return Err(refuse(&self.path, &e));
        }
        let file = out.into_inner().map_err(|e| refuse(&self.path, e.error()))?;
        file.sync_all().map_err(|e| refuse(&self.path, &e))?;
        drop(file);
        // What sits at the target may have changed during the scan.
        match fs::symlink_metadata(&self.target) {
            Ok(meta) => {
                if let Some(why) = not_regular(meta.file_type()) {
                    return Err(refuse(&self.path, &format!("{why} (it changed during the run)")));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(refuse(&self.path, &e)),
        }
        fs::rename(&self.temp, &self.target).map_err(|e| refuse(&self.path, &e))?;
        signals::unregister(self.slot);
        // The rename is durable once the directory is synced; a failure here loses
        // nothing that is not already in place.
        if let Some(dir) = self.target.parent().map(|d| if d.as_os_str().is_empty() { Path::new(".") } else { d }) {
            let _ = File::open(dir).and_then(|d| d.sync_all());
        }
        Ok(())
    }
}

impl Drop for AtomicFile {
    /// Removes the temporary file unless it was renamed.
    fn drop(&mut self) {
        // Removed before it is unregistered: a signal in between finds it gone, while the
        // other order would let a signal end the process with the file still there.
        if signals::is_pending(self.slot) {
            let _ = fs::remove_file(&self.temp);
            signals::unregister(self.slot);
        }
    }
}

/// Replaces the file at `path` with `contents`, as a [`AtomicFile`] written at once:
/// nothing at `path` changes unless the whole of `contents` is in place, and what is
/// there must be a regular file (or a symlink to one) or nothing.
pub fn replace_file(path: &Path, writer: Writer, option: &'static str, contents: &[u8]) -> Result<(), FileError> {
    let mut file = AtomicFile::create_as(path, writer, option)?;
    file.push_bytes(contents);
    file.commit()
}

/// Removes the temporary files being written, if there are any, without
/// allocating: for the binary's allocator when an allocation fails (the process then
/// ends without unwinding, so [`Drop`] would not run). Async-signal-safe.
pub fn remove_pending_temp() {
    signals::remove_pending();
}

/// Appends `value` in decimal (the `fmt` machinery costs more than the scan per line).
fn push_decimal(line: &mut Vec<u8>, mut value: u32) {
    let mut digits = [0u8; 10];
    let mut n = 0;
    loop {
        digits[n] = b'0' + (value % 10) as u8;
        n += 1;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    line.extend(digits[..n].iter().rev());
}

/// The signal handlers and the temporary files they remove, one slot per file.
///
/// The handlers may run on any thread at any moment, so they only read a path built
/// beforehand (a NUL-terminated C string behind an atomic pointer), call `unlink`,
/// `write` and `_exit`, all async-signal-safe, and never allocate or lock.
mod signals {
    use super::*;

    /// What a handler needs: the temporary path and the end of its message.
    struct Pending {
        temp: CString,
        /// What starts the message: on a terminal, a carriage return and an erase of the
        /// line, so that the message does not follow a half-drawn progress bar.
        prefix: &'static [u8],
        /// `"error: stones: interrupted by "`.
        head: Vec<u8>,
        /// `"; --list FILE was left as it was\n"`.
        suffix: Vec<u8>,
    }

    /// The files being written, each in a slot of its own, null where free. A slot is
    /// filled by [`register`] and taken (swapped to null) by whoever removes its file:
    /// [`unregister`], a handler, or [`remove_pending`].
    static PENDING: [AtomicPtr<Pending>; MAX_OPEN] = [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_OPEN];

    /// Installs the handlers of SIGINT, SIGTERM and SIGHUP (once per process).
    pub(super) fn install() {
        static INSTALLED: std::sync::Once = std::sync::Once::new();
        INSTALLED.call_once(|| {
            #[cfg(target_os = "linux")]
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                // SAFETY: `action` is zeroed (no flags, an empty mask) and then given a
                // handler of the `sa_handler` form, which only makes async-signal-safe
                // calls (see `on_signal`).
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
                    libc::sigemptyset(&mut action.sa_mask);
                    libc::sigaction(signal, &action, std::ptr::null_mut());
                }
            }
        });
    }

    /// Blocks SIGINT, SIGTERM and SIGHUP on the calling thread while it lives; a signal
    /// that comes meanwhile is delivered when it is dropped.
    pub(super) struct Blocked {
        #[cfg(target_os = "linux")]
        previous: libc::sigset_t,
    }

    impl Blocked {
        pub(super) fn new() -> Self {
            #[cfg(target_os = "linux")]
            // SAFETY: the sets are zeroed, then initialised by sigemptyset before use.
            unsafe {
                let mut set: libc::sigset_t = std::mem::zeroed();
                let mut previous: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                    libc::sigaddset(&mut set, signal);
                }
                libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut previous);
                Self { previous }
            }
            #[cfg(not(target_os = "linux"))]
            Self {}
        }
    }

    impl Drop for Blocked {
        fn drop(&mut self) {
            #[cfg(target_os = "linux")]
            // SAFETY: `previous` is the mask pthread_sigmask returned.
            unsafe {
                libc::pthread_sigmask(libc::SIG_SETMASK, &self.previous, std::ptr::null_mut());
            }
        }
    }

    /// Makes `temp` a file a signal removes, in a free slot, which it returns (`None`
    /// when all [`MAX_OPEN`] are taken); `path` is the one named in the message.
    pub(super) fn register(temp: &Path, path: &Path, writer: Writer, option: &str) -> Option<usize> {
        use std::os::unix::ffi::OsStrExt;
        // No NUL byte: `temp` was just opened, and `open` refuses a path with one.
        let temp = CString::new(temp.as_os_str().as_bytes()).ok()?;
        let head = format!("error: {writer}: interrupted by ").into_bytes();
        let suffix = format!("; {} was left as it was\n", named(option, path)).into_bytes();
        let prefix: &[u8] = if io::stderr().is_terminal() { b"\r\x1b[2K" } else { b"" };
        let entry = Box::into_raw(Box::new(Pending { temp, prefix, head, suffix }));
        let null = std::ptr::null_mut();
        let slot = PENDING
            .iter()
            .position(|slot| slot.compare_exchange(null, entry, Ordering::SeqCst, Ordering::SeqCst).is_ok());
        if slot.is_none() {
            // SAFETY: from Box::into_raw just above, and stored nowhere.
            drop(unsafe { Box::from_raw(entry) });
        }
        slot
    }

    /// Whether `slot` still holds a file (no handler or failed allocation took it).
    pub(super) fn is_pending(slot: usize) -> bool {
        !PENDING[slot].load(Ordering::SeqCst).is_null()
    }

    /// Forgets the file of `slot` (renamed or removed by the caller).
    pub(super) fn unregister(slot: usize) {
        let old = PENDING[slot].swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !old.is_null() {
            // SAFETY: a non-null pointer in PENDING came from Box::into_raw, and the swap
            // made this the only owner.
            drop(unsafe { Box::from_raw(old) });
        }
    }

    /// Removes the file of `slot`, if it holds one, and returns its entry, for the
    /// message. Async-signal-safe: the entry is leaked, since the process is about to end.
    fn take_and_unlink(slot: usize) -> Option<&'static Pending> {
        let pending = PENDING[slot].swap(std::ptr::null_mut(), Ordering::SeqCst);
        if pending.is_null() {
            return None;
        }
        // SAFETY: from Box::into_raw and now owned here; never freed (leaked on purpose).
        let pending: &'static Pending = unsafe { &*pending };
        #[cfg(target_os = "linux")]
        // SAFETY: `temp` is a NUL-terminated path; unlink is async-signal-safe.
        unsafe {
            libc::unlink(pending.temp.as_ptr());
        }
        Some(pending)
    }

    /// See [`super::remove_pending_temp`].
    pub(super) fn remove_pending() {
        for slot in 0..MAX_OPEN {
            let _ = take_and_unlink(slot);
        }
    }

    /// Writes `parts` to stderr in one system call (so that no other thread's output
    /// lands inside the line), ignoring failures. Allocates nothing.
    #[cfg(target_os = "linux")]
    fn write_stderr(parts: [&[u8]; 4]) {
        let vectors = parts.map(|part| libc::iovec { iov_base: part.as_ptr().cast_mut().cast(), iov_len: part.len() });
        // SAFETY: four valid buffers, each described by its own pointer and length, which
        // writev only reads; it is a plain system call, safe in a signal handler.
        let _ = unsafe { libc::writev(2, vectors.as_ptr(), vectors.len() as libc::c_int) };
    }

    /// Removes the pending files, says so in one line each (one line in all if there is
    /// none), and ends with status 128 + signal.
    #[cfg(target_os = "linux")]
    extern "C" fn on_signal(signal: libc::c_int) {
        let name: &[u8] = match signal {
            libc::SIGINT => b"SIGINT",
            libc::SIGTERM => b"SIGTERM",
            _ => b"SIGHUP",
        };
        let mut removed = false;
        for slot in 0..MAX_OPEN {
            if let Some(pending) = take_and_unlink(slot) {
                write_stderr([pending.prefix, &pending.head, name, &pending.suffix]);
                removed = true;
            }
        }
        if !removed {
            write_stderr([b"", b"error: interrupted by ", name, b"\n"]);
        }
        // SAFETY: _exit ends the process at once and is async-signal-safe.
        unsafe { libc::_exit(128 + signal) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stones `--list` at `path`, as the CLI creates it.
    fn stones_list(path: &Path) -> Result<AtomicFile, FileError> {
        AtomicFile::create_for(path, ProblemId::Stones, "--list")
    }

    fn scratch_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gamecount-files-{name}-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn decimal_formatting_matches_display() {
        for value in [0, 1, 9, 10, 99, 100, 4_294_967_295, 1_000_000] {
            let mut line = Vec::new();
            push_decimal(&mut line, value);
            assert_eq!(String::from_utf8(line).unwrap(), value.to_string());
        }
    }

    #[test]
    fn lines_appear_only_after_commit() {
        let dir = scratch_dir("commit");
        let path = dir.join("triples.csv");
        let mut list = stones_list(&path).unwrap();
        list.push_triple(0, 1, 2);
        list.push_triple(1, 3, 30);
        assert!(!path.exists(), "nothing at the final path before commit");
        list.commit().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "0,1,2\n1,3,30\n");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "the temporary file is gone");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_abandoned_list_leaves_nothing_behind() {
        let dir = scratch_dir("drop");
        let path = dir.join("triples.csv");
        fs::write(&path, "old\n").unwrap();
        let mut list = stones_list(&path).unwrap();
        list.push_triple(0, 0, 0);
        drop(list);
        assert_eq!(fs::read_to_string(&path).unwrap(), "old\n", "the old file is untouched");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(dir).unwrap();
    }

    /// Set in a child process this module's tests start: the directory it works in.
    const CHILD: &str = "LIST_TEST_CHILD";

    /// Runs the test `name` of this module alone, in a child process (through the
    /// emulator the tests run under, if any, as `tests/cli.rs` does), with [`CHILD`] set
    /// to `dir`: for what a test cannot do in the shared test process, where the other
    /// tests' files are open too and a signal would end them all. Returns the child's
    /// status and stderr; a child that runs for two minutes is killed.
    #[cfg(target_os = "linux")]
    fn in_child(name: &str, dir: &Path) -> (std::process::ExitStatus, String) {
        let runner = std::env::var("GAMECOUNT_TEST_RUNNER").unwrap_or_default();
        let mut words = runner.split_whitespace().map(String::from).collect::<Vec<_>>();
        words.push(std::env::current_exe().unwrap().display().to_string());
        let mut child = std::process::Command::new(&words[0])
            .args(&words[1..])
            .args(["--exact", &format!("files::tests::{name}"), "--nocapture"])
            .env(CHILD, dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("the child did not end within 120 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let mut stderr = String::new();
        io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        (status, stderr)
    }

    /// The names in `dir`, sorted.
    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    }

    /// In the child: three lists over `a`, `b` and `c`, the second dropped, then SIGTERM
    /// to itself. In the parent: the child ends by the handler, which removed both
    /// remaining temporary files and named both lists.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_signal_removes_every_list_being_written() {
        if let Some(dir) = std::env::var_os(CHILD) {
            let dir = PathBuf::from(dir);
            let [a, b, c] = ["a", "b", "c"].map(|name| stones_list(&dir.join(name)).unwrap());
            drop(b);
            // SAFETY: raise only sends a signal to this process, whose handler ends it.
            unsafe { libc::raise(libc::SIGTERM) };
            drop((a, c));
            unreachable!("the handler ends the process");
        }
        let dir = scratch_dir("signal");
        for name in ["a", "b", "c"] {
            fs::write(dir.join(name), format!("old {name}\n")).unwrap();
        }
        let (status, stderr) = in_child("a_signal_removes_every_list_being_written", &dir);
        assert_eq!(status.code(), Some(128 + libc::SIGTERM), "{stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("interrupted by SIGTERM")).collect();
        assert_eq!(lines.len(), 2, "{stderr}");
        for (line, name) in lines.iter().zip(["a", "c"]) {
            assert!(line.ends_with(&format!("/{name} was left as it was")), "{line}");
        }
        assert_eq!(names_in(&dir), ["a", "b", "c"], "no temporary file left");
        for name in ["a", "b", "c"] {
            assert_eq!(fs::read_to_string(dir.join(name)).unwrap(), format!("old {name}\n"));
        }
        fs::remove_dir_all(dir).unwrap();
    }

    /// In the child: [`MAX_OPEN`] lists at once, then one more, which is refused in one
    /// line and leaves no file; once one is committed, a new one is accepted again.
    #[test]
    #[cfg(target_os = "linux")]
    fn lists_beyond_the_slots_are_refused() {
        if let Some(dir) = std::env::var_os(CHILD) {
            let dir = PathBuf::from(dir);
            let mut open: Vec<AtomicFile> =
                (0..MAX_OPEN).map(|i| stones_list(&dir.join(format!("{i}"))).unwrap()).collect();
            let err = stones_list(&dir.join("one-more")).err().expect("refused");
            assert_eq!(
                err.to_string(),
                format!(
                    "stones: --list {}: more than 16 files are being written at once",
                    dir.join("one-more").display()
                )
            );
            assert_eq!(names_in(&dir).len(), MAX_OPEN, "only the open lists' temporary files");
            open.pop().unwrap().commit().unwrap();
            stones_list(&dir.join("one-more")).unwrap().commit().unwrap();
            return;
        }
        let dir = scratch_dir("slots");
        let (status, stderr) = in_child("lists_beyond_the_slots_are_refused", &dir);
        assert!(status.success(), "{stderr}");
        let expected = [format!("{}", MAX_OPEN - 1), "one-more".to_string()];
        assert_eq!(names_in(&dir), expected, "the dropped lists' temporary files are gone");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn unwritable_paths_are_refused_at_once() {
        let dir = scratch_dir("refuse");
        for path in [dir.join("no-such-dir").join("x.csv"), dir.clone()] {
            let err = stones_list(&path).err().expect("refused");
            assert!(err.to_string().starts_with("stones: --list "), "{err}");
            assert!(!err.to_string().contains('\n'));
        }
        fs::remove_dir_all(dir).unwrap();
    }
}
