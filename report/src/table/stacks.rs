//! The exit report's `stacks` section.

use std::fmt::Write as _;

use super::common::{heading, table};
use crate::columns;

use crate::model::Report;

pub(crate) fn stacks(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::stack_rows(r);
    let n = heading(
        out,
        limit,
        rows.len(),
        "stacks: calls and time per path, depth first, callees by total",
    );
    table(columns::stacks(r), &rows[..n], None).render(out);
    if n < rows.len() {
        let _ = writeln!(
            out,
            "(every path is in the JSON report; `hotpath export` makes flame graphs of them)"
        );
    }
}
