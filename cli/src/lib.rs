//! The `hotpath` command: `hotpath console` watches a running program through its
//! metrics server, `hotpath report` renders a saved JSON report, `hotpath diff` compares
//! two of them.
#![deny(missing_docs)]

pub mod client;
pub mod console;
pub mod diff;

use hotpath::report::Report;

/// Reads a saved JSON report, with the file name in the error.
pub fn read_report(path: &std::path::Path) -> Result<Report, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Report::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
}
