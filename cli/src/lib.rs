//! The `hotpath` command: `hotpath init` sets a package up for profiling, `hotpath
//! console` watches a running program through its metrics server, `hotpath report`
//! renders a saved JSON report, `hotpath diff` compares two of them, or two directories
//! of runs, `hotpath export` turns a report's calling-context tree into flame graphs,
//! pprof and Chrome traces.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod client;
pub mod console;
/// `hotpath diff`: the comparison of reports, from `hotpath-report` (one comparison core
/// for the CLI and the MCP server's `compare` tool).
pub use hotpath_report::diff;
pub mod export;
pub mod init;

use std::path::{Path, PathBuf};

use hotpath_report::{ReadError, Report};

/// Why a saved report (or a directory of them) could not be read. The message names
/// the file.
#[derive(Debug)]
pub enum ReadReportError {
    /// The file, the directory or (path `-`) the standard input could not be read.
    Io {
        /// What was read.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The text is not a report this build reads.
    Report {
        /// The file.
        path: PathBuf,
        /// Why it was refused.
        source: ReadError,
    },
    /// A directory without a `*.json` file.
    NoReports {
        /// The directory.
        dir: PathBuf,
    },
}

impl std::fmt::Display for ReadReportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadReportError::Io { path, source } if path.as_os_str() == "-" => {
                write!(f, "cannot read the standard input: {source}")
            }
            ReadReportError::Io { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            ReadReportError::Report { path, source } => write!(f, "{}: {source}", path.display()),
            ReadReportError::NoReports { dir } => {
                write!(f, "{}: no *.json report in this directory", dir.display())
            }
        }
    }
}

// The messages include their source's: a chain printer would repeat it, so none is
// given.
impl std::error::Error for ReadReportError {}

/// Reads a saved JSON report (`-`: standard input), with the file name in the error.
pub fn read_report(path: &Path) -> Result<Report, ReadReportError> {
    let io = |source| ReadReportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let text = if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(io)?;
        s
    } else {
        std::fs::read_to_string(path).map_err(io)?
    };
    Report::from_json(&text).map_err(|source| ReadReportError::Report {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads one run (a JSON report file) or several (every `*.json` file of a directory, by
/// file name).
pub fn read_runs(path: &Path) -> Result<Vec<Report>, ReadReportError> {
    if !path.is_dir() {
        return Ok(vec![read_report(path)?]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|source| ReadReportError::Io {
            path: path.to_path_buf(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .collect();
    if files.is_empty() {
        return Err(ReadReportError::NoReports {
            dir: path.to_path_buf(),
        });
    }
    files.sort();
    files.iter().map(|f| read_report(f)).collect()
}
