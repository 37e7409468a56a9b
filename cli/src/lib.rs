//! The `hotpath` command: `hotpath init` sets a package up for profiling, `hotpath
//! console` watches a running program through its metrics server, `hotpath report`
//! renders a saved JSON report, `hotpath diff` compares two of them, or two directories
//! of runs, `hotpath export` turns a report's calling-context tree into flame graphs,
//! pprof and Chrome traces.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod client;
pub mod console;
pub mod diff;
pub mod export;
pub mod init;

use hotpath::report::Report;

/// Reads a saved JSON report (`-`: standard input), with the file name in the error.
pub fn read_report(path: &std::path::Path) -> Result<Report, String> {
    let text = if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| format!("cannot read the standard input: {e}"))?;
        s
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?
    };
    Report::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads one run (a JSON report file) or several (every `*.json` file of a directory, by
/// file name).
pub fn read_runs(path: &std::path::Path) -> Result<Vec<Report>, String> {
    if !path.is_dir() {
        return Ok(vec![read_report(path)?]);
    }
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .collect();
    if files.is_empty() {
        return Err(format!(
            "{}: no *.json report in this directory",
            path.display()
        ));
    }
    files.sort();
    files.iter().map(|f| read_report(f)).collect()
}
