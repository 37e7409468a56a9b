//! The exit report's `alloc` section.

use std::fmt::Write as _;

use super::table;
use crate::columns;
use crate::format::{bytes, count, shown, take};
use crate::model::Report;

pub(super) fn alloc(r: &Report, limit: usize, out: &mut String) {
    let measured = r.functions.iter().filter(|f| f.alloc.is_some()).count();
    let rows = columns::alloc_rows(r);
    let n = take(limit, rows.len());
    let quiet = measured - rows.len();
    let _ = write!(
        out,
        "alloc: allocations per function, by total bytes {}",
        shown(n, rows.len())
    );
    if quiet > 0 {
        let _ = write!(out, "; {quiet} more allocated and freed nothing");
    }
    out.push('\n');
    table(
        columns::alloc(r),
        &rows[..n],
        columns::alloc_unattributed(r),
    )
    .render(out);
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
