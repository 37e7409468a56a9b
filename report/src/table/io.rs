//! The exit report's `io` section: reads and writes per entry, then `io by function`.

use std::fmt::Write as _;

use super::common::{heading_then, hidden_rows, listed_functions, table};
use crate::columns;
use crate::format::{count, percent};
use crate::model::Report;

pub(crate) fn io(r: &Report, limit: usize, out: &mut String) {
    let entries = r.io.as_deref().unwrap_or(&[]);
    let sampling = match r.io_time_sampling_rate {
        Some(rate) if rate <= 0.0 => "; count only, no operation timed".to_string(),
        Some(rate) if rate < 1.0 => format!(
            "; {} of operations timed, every one counted",
            percent(rate, 1.0)
        ),
        _ => String::new(),
    };
    let n = heading_then(
        out,
        limit,
        entries.len(),
        "io: operations per stream, by bytes",
        &sampling,
    );
    let rows = columns::io_rows(r);
    let shown_rows = &rows[..n];
    let reads: Vec<_> = shown_rows
        .iter()
        .filter(|(e, _)| columns::io_reads_any(e))
        .cloned()
        .collect();
    let writes: Vec<_> = shown_rows
        .iter()
        .filter(|(e, _)| columns::io_writes_any(e))
        .cloned()
        .collect();
    if !reads.is_empty() {
        table(columns::io_reads(r), &reads, None).render(out);
    }
    if !writes.is_empty() {
        if !reads.is_empty() {
            out.push('\n');
        }
        table(columns::io_writes(r), &writes, None).render(out);
    }
    hidden_rows(entries.len() - n, "I/O entries", out);
    let seeks: u64 = entries.iter().map(|e| e.seek.ops).sum();
    let seek_errors: u64 = entries.iter().map(|e| e.seek.errors).sum();
    let shutdowns: u64 = entries.iter().map(|e| e.shutdown.ops).sum();
    let mut also = Vec::new();
    if seeks + seek_errors > 0 {
        also.push(match seek_errors {
            0 => format!("{} seeks", count(seeks)),
            e => format!("{} seeks ({} failed)", count(seeks + e), count(e)),
        });
    }
    if shutdowns > 0 {
        also.push(format!("{} shutdowns", count(shutdowns)));
    }
    if !also.is_empty() {
        let _ = writeln!(
            out,
            "also: {}; per stream in the JSON report",
            also.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "Rate: bytes / time inside the operations (the speed of one operation while it runs)"
    );
    let by_fn = columns::io_function_rows(r);
    if !by_fn.is_empty() {
        out.push('\n');
        listed_functions(
            out,
            limit,
            "io by function: operations made while it was the innermost measured function",
            columns::io_functions(),
            &by_fn,
            None,
            |(f, _)| f,
        );
    }
}
