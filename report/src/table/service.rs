//! The exit report's `sql`, `http`, `server` and `tokio` sections.

use std::fmt::Write as _;

use super::{heading, heading_then, table};
use crate::columns;
use crate::format::{count, duration, take};
use crate::model::Report;

pub(super) fn sql(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::sql_rows(r);
    let calls: u64 = rows.iter().map(|e| e.calls).sum();
    let total: u64 = rows.iter().map(|e| e.duration_ns.total).sum();
    let n = heading_then(
        out,
        limit,
        rows.len(),
        "sql: queries by total time",
        &format!("; {} calls, {}", count(calls), duration(total)),
    );
    table(columns::sql(r), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
    if rows.iter().any(|e| e.backend == "sqlx") {
        let _ = writeln!(
            out,
            "sqlx times a query until its rows are consumed (a streamed fetch includes the \
             program's time between rows); its events do not say whether a query failed"
        );
    }
}

pub(super) fn http(r: &Report, limit: usize, out: &mut String) {
    let rows: Vec<_> = r.http.as_deref().unwrap_or(&[]).iter().collect();
    let n = heading(
        out,
        limit,
        rows.len(),
        "http: client requests by total time to the response head",
    );
    table(columns::http(r), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
}

pub(super) fn server(r: &Report, limit: usize, out: &mut String) {
    let rows: Vec<_> = r.server.as_deref().unwrap_or(&[]).iter().collect();
    let n = heading(
        out,
        limit,
        rows.len(),
        "server: requests per route by total time to the end of the body",
    );
    table(columns::server(r), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
}

pub(super) fn tokio(r: &Report, limit: usize, out: &mut String) {
    for rt in r.tokio.as_deref().unwrap_or(&[]) {
        let _ = writeln!(
            out,
            "tokio: runtime {}({}, {} workers); alive tasks now {}, max {}; global queue max {}; busy {}",
            rt.label.as_deref().map_or(String::new(), |l| format!("{l} ")),
            rt.flavor,
            rt.workers,
            count(rt.alive_tasks.last),
            count(rt.alive_tasks.max),
            count(rt.global_queue_depth.max),
            duration(rt.busy_ns()),
        );
    }
    let rows = columns::tokio_rows(r);
    let n = take(limit, rows.len());
    table(columns::tokio(r), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
}
