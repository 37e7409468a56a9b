//! The exit report's `alloc` section.

use std::fmt::Write as _;

use super::common::{heading_then, hidden_rows, table};
use crate::columns;
use crate::format::{bytes, count};
use crate::model::Report;

pub(crate) fn alloc(r: &Report, limit: usize, out: &mut String) {
    let measured = r.functions.iter().filter(|f| f.alloc.is_some()).count();
    let rows = columns::alloc_rows(r);
    let quiet = match measured - rows.len() {
        0 => String::new(),
        quiet => format!("; {quiet} more allocated and freed nothing"),
    };
    let n = heading_then(
        out,
        limit,
        rows.len(),
        "alloc: allocations per function, by total bytes",
        &quiet,
    );
    table(
        columns::alloc(r),
        &rows[..n],
        columns::alloc_unattributed(r),
    )
    .render(out);
    hidden_rows(rows.len() - n, "rows", out);
    if let Some(total) = &r.alloc_total {
        let _ = writeln!(
            out,
            "process: {} allocations, {} allocated, {} freed; Self bytes + (unattributed) = all bytes",
            count(total.count),
            bytes(total.bytes),
            bytes(total.freed_bytes)
        );
    }
}
