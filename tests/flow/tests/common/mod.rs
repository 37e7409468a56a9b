//! Golden logs: a differential test's log is compared with the one committed in
//! `tests/golden/<name>.log`, and a failure shows a line diff against it.
//!
//! Both builds (the `hotpath` feature off and on) compare with the same file, so a
//! wrapper that changed any result fails the run that uses it. After a change of a
//! script, write the new logs with `HOTPATH_BLESS=1 cargo nextest run -p
//! hotpath-flow-tests --test <name>` (feature off): the run writes the files and still
//! fails, so that nothing passes by being blessed. Review them with `git diff`, then run
//! the tests without the variable, with the feature off and on.

use std::path::PathBuf;

/// How many lines of a diff a failure shows.
const DIFF_LINES: usize = 80;

/// Compares `log` with the committed `tests/golden/<name>.log`.
pub fn check(name: &str, log: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.log"));
    if std::env::var_os("HOTPATH_BLESS").is_some() {
        std::fs::write(&path, log)
            .unwrap_or_else(|e| panic!("{name}: cannot write {}: {e}", path.display()));
        panic!(
            "{name}: wrote {} (HOTPATH_BLESS is set, which fails the run on purpose): review it \
             with `git diff`, then run the tests again without HOTPATH_BLESS",
            path.display()
        );
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{name}: cannot read {}: {e}; write it with HOTPATH_BLESS=1 (see tests/common/mod.rs)",
            path.display()
        )
    });
    if committed != log {
        panic!(
            "{name}: the log differs from {} (`-` committed, `+` this run):\n{}",
            path.display(),
            diff(&committed, log)
        );
    }
}

/// The first lines of a unified line diff from `old` to `new`.
fn diff(old: &str, new: &str) -> String {
    let text = similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header("committed", "this run")
        .to_string();
    let total = text.lines().count();
    let mut shown: String = text
        .lines()
        .take(DIFF_LINES)
        .flat_map(|l| [l, "\n"])
        .collect();
    if total > DIFF_LINES {
        shown.push_str(&format!("... ({} more diff lines)\n", total - DIFF_LINES));
    }
    shown
}
