//! The console's `SQL`, `HTTP`, `Server` and `Tokio` tables.

use hotpath_report::columns;
use hotpath_report::{ProfilerStatus, Report, Section};

use super::common::{not_yet, Source, Table};

pub(crate) fn sql(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::sql(r);
    let mut t = Table::new(
        "sql: queries per normalised query and issuing function",
        &cols,
        "Total",
    );
    t.fill(
        &cols,
        &columns::sql_rows(r),
        true,
        |i, e| (source_id(&e.query, &e.source), Source::Sql(i)),
        || not_yet(Section::Sql, status, "no SQL query recorded so far"),
    );
    t
}

pub(crate) fn http(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::http(r);
    let mut t = Table::new(
        "http: client requests per endpoint and calling function",
        &cols,
        "Total",
    );
    let rows: Vec<_> = r.http.as_deref().unwrap_or(&[]).iter().collect();
    t.fill(
        &cols,
        &rows,
        true,
        |i, e| (source_id(&e.endpoint, &e.source), Source::Http(i)),
        || {
            not_yet(
                Section::Http,
                status,
                "no HTTP client request recorded so far",
            )
        },
    );
    t
}

pub(crate) fn server(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::server(r);
    let mut t = Table::new("server: requests per route", &cols, "Calls");
    let rows: Vec<_> = r.server.as_deref().unwrap_or(&[]).iter().collect();
    t.fill(
        &cols,
        &rows,
        true,
        |i, e| (e.route.clone(), Source::Server(i)),
        || not_yet(Section::Server, status, "no request served so far"),
    );
    t
}

pub(crate) fn tokio(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::tokio(r);
    let mut t = Table::new(
        "tokio: busy time and parks per runtime worker",
        &cols,
        "Busy",
    );
    let added = t.fill(
        &cols,
        &columns::tokio_rows(r),
        true,
        |i, (rt, w)| (format!("{}\u{0}{}", rt.name(), w.index), Source::Tokio(i)),
        || {
            not_yet(
                Section::Tokio,
                status,
                "no runtime registered with tokio_runtime! so far",
            )
        },
    );
    if !added {
        return t;
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

/// The id of a SQL or HTTP row: its query or endpoint and the function that issued it.
fn source_id(key: &str, source: &Option<String>) -> String {
    format!("{key}\u{0}{}", source.as_deref().unwrap_or(""))
}
