//! The exit report's `sql`, `http`, `server` and `tokio` sections.

use std::fmt::Write as _;

use super::common::{hidden_rows, listed, table};
use crate::columns;
use crate::format::{count, duration, take};
use crate::model::Report;

pub(crate) fn sql(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::sql_rows(r);
    let calls: u64 = rows.iter().map(|e| e.calls).sum();
    let total: u64 = rows.iter().map(|e| e.duration_ns.total).sum();
    listed(
        out,
        limit,
        "sql: queries by total time",
        &format!("; {} calls, {}", count(calls), duration(total)),
        columns::sql(r),
        &rows,
    );
    if rows.iter().any(|e| e.backend == "sqlx") {
        let _ = writeln!(
            out,
            "sqlx times a query until its rows are consumed (a streamed fetch includes the \
             program's time between rows); its events do not say whether a query failed"
        );
    }
}

pub(crate) fn http(r: &Report, limit: usize, out: &mut String) {
    let rows: Vec<_> = r.http.as_deref().unwrap_or(&[]).iter().collect();
    listed(
        out,
        limit,
        "http: client requests by total time to the response head",
        "",
        columns::http(r),
        &rows,
    );
}

pub(crate) fn server(r: &Report, limit: usize, out: &mut String) {
    let rows: Vec<_> = r.server.as_deref().unwrap_or(&[]).iter().collect();
    listed(
        out,
        limit,
        "server: requests per route by total time to the end of the body",
        "",
        columns::server(r),
        &rows,
    );
}

pub(crate) fn tokio(r: &Report, limit: usize, out: &mut String) {
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
    hidden_rows(rows.len() - n, "rows", out);
}
