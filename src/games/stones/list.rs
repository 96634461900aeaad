//! `--list FILE`: every losing triple as one CSV line `x,y,z`, in lexicographic order.
//!
//! The lines go to a temporary file next to `FILE` (same directory, so the final rename
//! cannot cross file systems), which is synced and renamed to `FILE` only when the scan
//! is complete: an interrupted run leaves `FILE` as it was, never half written. The
//! temporary file is created before the scan starts, so an unwritable path is refused at
//! once; it is removed again if anything fails.

use crate::games::{InputError, ProblemId};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Bytes buffered before a write: large writes, few system calls.
const BUFFER_BYTES: usize = 1 << 20;

/// A CSV list being written; see the module docs.
pub struct ListFile {
    path: PathBuf,
    temp: PathBuf,
    out: Option<BufWriter<File>>,
    /// The first write error, reported by [`ListFile::commit`].
    error: Option<io::Error>,
    /// One formatted line.
    line: Vec<u8>,
}

fn refuse(path: &Path, reason: impl std::fmt::Display) -> InputError {
    InputError::new(ProblemId::Stones, format!("--list {}: {reason}", path.display()))
}

impl ListFile {
    /// Creates the temporary file for `path`, or says why `path` cannot be written.
    pub fn create(path: &Path) -> Result<Self, InputError> {
        let name = path.file_name().ok_or_else(|| refuse(path, "not a file name"))?;
        if path.is_dir() {
            return Err(refuse(path, "is a directory"));
        }
        let temp_name = format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id());
        let temp = path.with_file_name(temp_name);
        let file = OpenOptions::new().write(true).create_new(true).open(&temp).map_err(|e| refuse(path, e))?;
        Ok(Self {
            path: path.to_path_buf(),
            temp,
            out: Some(BufWriter::with_capacity(BUFFER_BYTES, file)),
            error: None,
            line: Vec::with_capacity(40),
        })
    }

    /// Appends the line `x,y,z`.
    pub fn push(&mut self, x: u32, y: u32, z: u32) {
        let (Some(out), None) = (self.out.as_mut(), self.error.as_ref()) else { return };
        self.line.clear();
        for (value, end) in [(x, b','), (y, b','), (z, b'\n')] {
            push_decimal(&mut self.line, value);
            self.line.push(end);
        }
        if let Err(e) = out.write_all(&self.line) {
            self.error = Some(e);
        }
    }

    /// Flushes, syncs and renames the list to its final path.
    pub fn commit(mut self) -> Result<(), InputError> {
        let out = self.out.take().expect("committed once");
        if let Some(e) = self.error.take() {
            return Err(refuse(&self.path, e));
        }
        let file = out.into_inner().map_err(|e| refuse(&self.path, e.error()))?;
        file.sync_all().map_err(|e| refuse(&self.path, e))?;
        drop(file);
        fs::rename(&self.temp, &self.path).map_err(|e| refuse(&self.path, e))
    }
}

impl Drop for ListFile {
    /// Removes the temporary file unless it was renamed.
    fn drop(&mut self) {
        if self.temp.exists() {
            let _ = fs::remove_file(&self.temp);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gamecount-list-{name}-{}", std::process::id()));
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
        let mut list = ListFile::create(&path).unwrap();
        list.push(0, 1, 2);
        list.push(1, 3, 30);
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
        let mut list = ListFile::create(&path).unwrap();
        list.push(0, 0, 0);
        drop(list);
        assert_eq!(fs::read_to_string(&path).unwrap(), "old\n", "the old file is untouched");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn unwritable_paths_are_refused_at_once() {
        let dir = scratch_dir("refuse");
        for path in [dir.join("no-such-dir").join("x.csv"), dir.clone()] {
            let err = ListFile::create(&path).err().expect("refused");
            assert!(err.to_string().starts_with("stones: --list "), "{err}");
            assert!(!err.to_string().contains('\n'));
        }
        fs::remove_dir_all(dir).unwrap();
    }
}
