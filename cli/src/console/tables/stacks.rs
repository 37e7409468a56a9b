//! The console's `Stacks` table.

use hotpath_report::columns;
use hotpath_report::{ProfilerStatus, Report, Section};

use super::common::{Source, Table};

/// The tree, depth first (sorted by the Path column); another column sorts the paths
/// as a flat list.
pub(crate) fn stacks(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::stacks(r);
    let mut t = Table::new("stacks: calls and time per path (tree)", &cols, "Path");
    let rows = columns::stack_rows(r);
    if !r.has(Section::Stacks) {
        t.empty = Some(match status {
            Some(s) if s.sections.contains(&Section::Stacks) => {
                "no stacks section yet: no measured call so far".into()
            }
            _ => "no stacks section: run the program with HOTPATH_STACKS=1 (or \
                  .stacks(true) on its HotpathGuardBuilder)"
                .into(),
        });
        return t;
    }
    for row in &rows {
        t.push(&cols, row.0.path.join(";"), Source::Stack(row.1), row);
    }
    if rows.is_empty() {
        t.empty = Some("no measured call has ended yet".into());
    }
    t.footer.push(
        "Path: the tree, callees by total; s sorts the paths as a list; Enter shows the \
         whole path"
            .into(),
    );
    t
}
