//! Columns of the `sql`, `http`, `server` and `tokio` tables.

use super::common::{dist_columns, percentile_title, Cell, Column, Columns};
use crate::format::{count, duration, percent};
use crate::model::{
    HttpEntry, Report, ServerEntry, SqlEntry, StatusClasses, TokioRuntime, TokioWorker,
};

fn opt_count(v: Option<u64>) -> Cell {
    Cell::opt(v, count)
}

/// The function that issued a row's queries or requests, as tables name it.
fn source_column<'a, R: 'a>(
    r: &'a Report,
    s: impl Fn(&R) -> &Option<String> + 'a,
) -> Column<'a, R> {
    Column::left("Source", move |x: &R| match s(x) {
        Some(s) => Cell::text(r.display_name_of(s), s.clone()),
        None => Cell::missing(),
    })
}

/// Responses per status class; `-` for none (a table too wide leaves out a class no
/// row had).
fn status_columns<'a, R: 'a>(s: impl Fn(&R) -> &StatusClasses + Copy + 'a) -> Columns<'a, R> {
    let class = |n: u64| {
        if n == 0 {
            Cell::missing()
        } else {
            Cell::count(n)
        }
    };
    vec![
        Column::right("2xx", move |x: &R| class(s(x).status_2xx)),
        Column::right("3xx", move |x: &R| class(s(x).status_3xx)),
        Column::right("4xx", move |x: &R| class(s(x).status_4xx)),
        Column::right("5xx", move |x: &R| class(s(x).status_5xx)),
    ]
}

/// The `sql` rows of `r`, by total time.
pub fn sql_rows(r: &Report) -> Vec<&SqlEntry> {
    r.sql.as_deref().unwrap_or(&[]).iter().collect()
}

/// `sql`: one row per normalised query and issuing function.
pub fn sql(r: &Report) -> Columns<'_, &SqlEntry> {
    let mut c: Columns<'_, &SqlEntry> = vec![
        Column::left("Query", |e: &&SqlEntry| {
            Cell::text(e.query.clone(), e.query.clone())
        }),
        source_column(r, |e: &&SqlEntry| &e.source),
        Column::right("Calls", |e: &&SqlEntry| Cell::count(e.calls)),
        Column::right("Per call", |e: &&SqlEntry| match e.per_source_call {
            Some(v) => Cell::num(format!("{v:.1}"), v),
            None => Cell::missing(),
        }),
        Column::right("Rows", |e: &&SqlEntry| opt_count(e.rows_returned)),
        Column::right("Errors", |e: &&SqlEntry| opt_count(e.errors)),
    ];
    c.extend(dist_columns(
        r,
        "Avg",
        "",
        |e: &&SqlEntry| Some(&e.duration_ns),
        duration,
    ));
    c.push(Column::right("Total", |e: &&SqlEntry| {
        Cell::duration(e.duration_ns.total)
    }));
    c.push(Column::right("% wall", |e: &&SqlEntry| {
        Cell::num(percent(e.share_of_wall, 1.0), e.share_of_wall)
    }));
    c
}

/// `http`: one row per client endpoint and calling function.
pub fn http(r: &Report) -> Columns<'_, &HttpEntry> {
    let mut c: Columns<'_, &HttpEntry> = vec![
        Column::left("Endpoint", |e: &&HttpEntry| {
            Cell::text(e.endpoint.clone(), e.endpoint.clone())
        }),
        source_column(r, |e: &&HttpEntry| &e.source),
        Column::right("Calls", |e: &&HttpEntry| Cell::count(e.calls)),
        Column::right("Errors", |e: &&HttpEntry| Cell::count(e.errors)),
    ];
    c.extend(status_columns(|e: &&HttpEntry| &e.status));
    c.extend(dist_columns(
        r,
        "TTFB Avg",
        "TTFB ",
        |e: &&HttpEntry| Some(&e.ttfb_ns),
        duration,
    ));
    c.push(Column::right("Total", |e: &&HttpEntry| {
        Cell::duration(e.ttfb_ns.total)
    }));
    // With body timing: the time to the end of the body.
    if r.http.iter().flatten().any(|e| e.body_ns.is_some()) {
        c.extend(dist_columns(
            r,
            "Body Avg",
            "Body ",
            |e: &&HttpEntry| e.body_ns.as_ref(),
            duration,
        ));
    }
    c
}

/// `server`: one row per route.
pub fn server(r: &Report) -> Columns<'_, &ServerEntry> {
    let mut c: Columns<'_, &ServerEntry> = vec![
        Column::left("Route", |e: &&ServerEntry| {
            Cell::text(e.route.clone(), e.route.clone())
        }),
        Column::right("Calls", |e: &&ServerEntry| Cell::count(e.calls)),
    ];
    c.extend(status_columns(|e: &&ServerEntry| &e.status));
    c.push(Column::right("Aborted", |e: &&ServerEntry| {
        Cell::count(e.aborted)
    }));
    c.push(Column::right("In flight", |e: &&ServerEntry| {
        Cell::count(e.in_flight)
    }));
    if let Some(&p) = r.percentiles.first() {
        c.push(Column::right(
            format!("TTFB {}", percentile_title(p)),
            move |e: &&ServerEntry| Cell::opt(e.ttfb_ns.percentiles.get(p), duration),
        ));
    }
    c.extend(dist_columns(
        r,
        "Avg",
        "",
        |e: &&ServerEntry| Some(&e.total_ns),
        duration,
    ));
    c
}

/// A worker of a runtime: a row of the `tokio` table.
pub type TokioRow<'a> = (&'a TokioRuntime, &'a TokioWorker);

/// The `tokio` rows of `r`: every worker of every runtime.
pub fn tokio_rows(r: &Report) -> Vec<TokioRow<'_>> {
    r.tokio
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .flat_map(|rt| rt.worker_stats.iter().map(move |w| (rt, w)))
        .collect()
}

/// `tokio`: one row per worker.
pub fn tokio(r: &Report) -> Columns<'_, TokioRow<'_>> {
    let many = r.tokio.as_ref().is_some_and(|t| t.len() > 1);
    let mut c: Columns<'_, TokioRow<'_>> = Vec::new();
    if many {
        c.push(Column::left("Runtime", |(rt, _): &TokioRow<'_>| {
            Cell::text(rt.name().to_string(), rt.name().to_string())
        }));
    }
    c.extend([
        Column::right("Worker", |(_, w): &TokioRow<'_>| Cell::count(w.index)),
        Column::right("Busy", |(_, w): &TokioRow<'_>| Cell::duration(w.busy_ns)),
        Column::right("Busy %", |(_, w): &TokioRow<'_>| {
            Cell::num(percent(w.busy_share, 1.0), w.busy_share)
        }),
        Column::right("Parks", |(_, w): &TokioRow<'_>| Cell::count(w.parks)),
        Column::right("Polls", |(_, w): &TokioRow<'_>| opt_count(w.polls)),
        Column::right("Steals", |(_, w): &TokioRow<'_>| opt_count(w.steals)),
        Column::right("Mean poll", |(_, w): &TokioRow<'_>| {
            Cell::opt(w.mean_poll_ns, duration)
        }),
        Column::right("Local queue max", |(_, w): &TokioRow<'_>| {
            opt_count(w.local_queue_max)
        }),
    ]);
    c
}
