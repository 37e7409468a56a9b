//! The console's `SQL`, `HTTP`, `Server` and `Tokio` tables.

use hotpath_report::columns;
use hotpath_report::{ProfilerStatus, Report, Section};

use super::{missing, Source, Table};

pub(super) fn sql(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::sql(r);
    let mut t = Table::new(
        "sql: queries per normalised query and issuing function",
        &cols,
        "Total",
    );
    let rows = columns::sql_rows(r);
    if rows.is_empty() {
        t.empty = Some(missing(
            Section::Sql,
            status,
            "no SQL query recorded so far",
            "HOTPATH_REPORT leaves sql out",
        ));
        return t;
    }
    for (i, e) in rows.iter().enumerate() {
        let id = format!("{}\u{0}{}", e.query, e.source.as_deref().unwrap_or(""));
        t.push(&cols, id, Source::Sql(i), e);
    }
    t
}

pub(super) fn http(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::http(r);
    let mut t = Table::new(
        "http: client requests per endpoint and calling function",
        &cols,
        "Total",
    );
    let rows: Vec<_> = r.http.as_deref().unwrap_or(&[]).iter().collect();
    if rows.is_empty() {
        t.empty = Some(missing(
            Section::Http,
            status,
            "no HTTP client request recorded so far",
            "HOTPATH_REPORT leaves http out",
        ));
        return t;
    }
    for (i, e) in rows.iter().enumerate() {
        let id = format!("{}\u{0}{}", e.endpoint, e.source.as_deref().unwrap_or(""));
        t.push(&cols, id, Source::Http(i), e);
    }
    t
}

pub(super) fn server(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::server(r);
    let mut t = Table::new("server: requests per route", &cols, "Calls");
    let rows: Vec<_> = r.server.as_deref().unwrap_or(&[]).iter().collect();
    if rows.is_empty() {
        t.empty = Some(missing(
            Section::Server,
            status,
            "no request served so far",
            "HOTPATH_REPORT leaves server out",
        ));
        return t;
    }
    for (i, e) in rows.iter().enumerate() {
        t.push(&cols, e.route.clone(), Source::Server(i), e);
    }
    t
}

pub(super) fn tokio(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::tokio(r);
    let mut t = Table::new(
        "tokio: busy time and parks per runtime worker",
        &cols,
        "Busy",
    );
    let rows = columns::tokio_rows(r);
    if rows.is_empty() {
        t.empty = Some(missing(
            Section::Tokio,
            status,
            "no runtime registered with tokio_runtime! so far",
            "HOTPATH_REPORT leaves tokio out",
        ));
        return t;
    }
    for (i, row) in rows.iter().enumerate() {
        let id = format!("{}\u{0}{}", row.0.name(), row.1.index);
        t.push(&cols, id, Source::Tokio(i), row);
    }
    for rt in r.tokio.as_deref().unwrap_or(&[]) {
        t.footer.push(format!(
            "{} ({}, {} workers): alive tasks now {}, max {}; global queue max {}",
            rt.name(),
            rt.flavor,
            rt.workers,
            rt.alive_tasks.last,
            rt.alive_tasks.max,
            rt.global_queue_depth.max
        ));
    }
    t
}
