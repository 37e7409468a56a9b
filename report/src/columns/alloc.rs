//! Columns of the `alloc` table.

use super::common::{functions_by, name_column, percentile_columns, Cell, Column, Columns, Show};
use crate::format::{bytes, per_call, percent, signed_bytes};
use crate::model::{Function, FunctionAlloc, Report};

/// A function with its allocations: a row of the `alloc` table.
pub type AllocRow<'a> = (&'a Function, &'a FunctionAlloc);

/// `alloc`: allocations per function. Rows: functions with an `alloc` object that
/// allocated or freed something.
pub fn alloc(r: &Report) -> Columns<'_, AllocRow<'_>> {
    let all = r.alloc_total.as_ref().map_or(0, |a| a.bytes) as f64;
    let mut c: Columns<'_, AllocRow<'_>> = vec![
        name_column("Function", |(f, _)| *f),
        Column::right("Calls", |(f, _): &AllocRow<'_>| Cell::count(f.calls)),
        Column::right("Allocs/call", |(_, a): &AllocRow<'_>| {
            Cell::num(per_call(a.per_call_count), a.per_call_count)
        }),
        Column::right("Bytes/call", |(_, a): &AllocRow<'_>| {
            Cell::bytes(a.per_call_bytes)
        }),
    ];
    let percentiles =
        percentile_columns(r, "", |(_, a): &AllocRow<'_>| Some(&a.percentiles), bytes);
    c.extend(percentiles.into_iter().map(|c| c.only(Show::Exit)));
    c.push(Column::right("Total bytes", |(_, a): &AllocRow<'_>| {
        Cell::bytes(a.bytes)
    }));
    c.push(Column::right("Self bytes", |(_, a): &AllocRow<'_>| {
        Cell::bytes(a.self_bytes)
    }));
    c.push(Column::right("Retained", |(_, a): &AllocRow<'_>| {
        Cell::num(signed_bytes(a.retained_bytes), a.retained_bytes as f64)
    }));
    c.push(Column::right("% Total", move |(_, a): &AllocRow<'_>| {
        Cell::num(percent(a.bytes as f64, all), a.bytes as f64)
    }));
    c
}

/// The `alloc` rows of `r`: functions that allocated or freed something, by bytes.
pub fn alloc_rows(r: &Report) -> Vec<AllocRow<'_>> {
    let mut rows = functions_by(r, |f| f.alloc.as_ref(), |(_, a)| (a.bytes, a.count));
    rows.retain(|(_, a)| a.count > 0 || a.freed_bytes > 0);
    rows
}

/// The exit report's `(unattributed)` row of the `alloc` table: what was allocated
/// outside every measured function, in the exit columns of [`alloc`].
pub fn alloc_unattributed(r: &Report) -> Option<Vec<String>> {
    let total = r.alloc_total.as_ref()?;
    let all = total.bytes as f64;
    let dash = || "-".to_string();
    let mut row = vec!["(unattributed)".to_string(), dash(), dash(), dash()];
    row.extend(r.percentiles.iter().map(|_| dash()));
    row.push(bytes(total.unattributed_bytes));
    row.push(bytes(total.unattributed_bytes));
    row.push(signed_bytes(
        total.unattributed_bytes as i64 - total.unattributed_freed_bytes as i64,
    ));
    row.push(percent(total.unattributed_bytes as f64, all));
    Some(row)
}
