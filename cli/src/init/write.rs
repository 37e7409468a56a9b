//! Writing a set of files all or nothing: each file is written to a temporary file
//! beside it and renamed over it (keeping its permissions), and on the first failure
//! every file already written gets its old bytes back (a new file is removed, with the
//! directories made for it).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::error::InitError;

/// One file's new content; `old` is `None` for a file that does not exist yet.
#[derive(Debug, Clone)]
pub struct Change {
    /// The file.
    pub path: PathBuf,
    /// Its bytes now, or `None` when it does not exist.
    pub old: Option<String>,
    /// Its bytes after the change.
    pub new: String,
}

/// What was written, so that it can be undone.
#[derive(Debug, Default)]
pub struct Journal {
    /// Files written, with what they held before.
    written: Vec<(PathBuf, Option<Vec<u8>>)>,
    /// Directories created, outermost first.
    dirs: Vec<PathBuf>,
}

impl Journal {
    /// Records a file about to be changed by something else (cargo writing Cargo.lock),
    /// so that [`Journal::restore`] puts it back too.
    pub fn remember(&mut self, path: &Path) {
        self.written.push((path.to_path_buf(), fs::read(path).ok()));
    }

    /// Puts every file back as it was, last written first; returns the files that could
    /// not be restored.
    pub fn restore(self) -> Vec<(PathBuf, io::Error)> {
        let mut failed = Vec::new();
        for (path, old) in self.written.into_iter().rev() {
            let r = match old {
                Some(bytes) => replace(&path, &bytes),
                None => match fs::remove_file(&path) {
                    Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                    r => r,
                },
            };
            if let Err(e) = r {
                failed.push((path, e));
            }
        }
        for d in self.dirs.into_iter().rev() {
            // Only directories this run made, and only if they are empty again.
            let _ = fs::remove_dir(&d);
        }
        failed
    }
}

/// Writes every change, or none: on an error, restores what was written and says which
/// file failed, and which could not be restored.
pub fn commit(changes: &[Change]) -> Result<Journal, InitError> {
    let mut journal = Journal::default();
    for c in changes {
        if let Err(error) = write_one(c, &mut journal) {
            return Err(InitError::Write {
                path: c.path.clone(),
                error,
                unrestored: journal.restore(),
            });
        }
    }
    Ok(journal)
}

fn write_one(c: &Change, journal: &mut Journal) -> io::Result<()> {
    if let Some(parent) = c.path.parent() {
        let mut missing = Vec::new();
        let mut d = parent;
        while !d.as_os_str().is_empty() && !d.exists() {
            missing.push(d.to_path_buf());
            match d.parent() {
                Some(p) => d = p,
                None => break,
            }
        }
        for m in missing.into_iter().rev() {
            fs::create_dir(&m)?;
            journal.dirs.push(m);
        }
    }
    let old = match fs::read(&c.path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    journal.written.push((c.path.clone(), old));
    replace(&c.path, c.new.as_bytes())
}

/// Replaces `path` (through a symlink, its target) by `bytes` with a rename, so a reader
/// sees the old file or the new one, never a part of it.
fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = target.with_file_name(format!(".{name}.hotpath-init.tmp"));
    let result = (|| {
        fs::write(&tmp, bytes)?;
        if let Ok(meta) = fs::metadata(&target) {
            fs::set_permissions(&tmp, meta.permissions())?;
        }
        fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}
