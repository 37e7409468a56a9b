//! `/metrics` families of the `sql`, `http`, `server` and `tokio` sections. Rows are
//! the report's (by total time), at most `limit` per family; label values are the
//! normalised query, endpoint and route, so their number is bounded as well.

use prometheus::proto::MetricType;

use super::family::Family;
use hotpath_report::{Report, StatusClasses};

fn classes(s: &StatusClasses) -> [(&'static str, u64); 5] {
    [
        ("1xx", s.status_1xx),
        ("2xx", s.status_2xx),
        ("3xx", s.status_3xx),
        ("4xx", s.status_4xx),
        ("5xx", s.status_5xx),
    ]
}

/// SQL: queries and their duration histogram per query and source.
pub(super) fn sql(r: &Report, limit: usize, bounds: &[f64], out: &mut Vec<Family>) {
    let mut total = Family::new(
        "hotpath_sql_queries_total",
        "SQL queries run, per normalised query and issuing function.",
        MetricType::COUNTER,
    );
    let mut dur = Family::new(
        "hotpath_sql_duration_seconds",
        "Duration of one SQL query, per normalised query and issuing function.",
        MetricType::HISTOGRAM,
    );
    for e in r.sql.as_deref().unwrap_or(&[]).iter().take(limit) {
        let source = e.source.as_deref().unwrap_or("");
        let l = [("query", e.query.as_str()), ("source", source)];
        total.counter(&l, e.calls as f64);
        dur.durations(&l, Some(&e.duration_ns), bounds);
    }
    total.finish(out);
    dur.finish(out);
}

/// HTTP client: requests per endpoint and status class, errors, time to the head.
pub(super) fn http(r: &Report, limit: usize, bounds: &[f64], out: &mut Vec<Family>) {
    let mut total = Family::new(
        "hotpath_http_client_requests_total",
        "HTTP client requests answered, per endpoint, calling function and status class.",
        MetricType::COUNTER,
    );
    let mut errors = Family::new(
        "hotpath_http_client_errors_total",
        "HTTP client requests that got no response.",
        MetricType::COUNTER,
    );
    let mut dur = Family::new(
        "hotpath_http_client_duration_seconds",
        "Time from an HTTP client request to its response head.",
        MetricType::HISTOGRAM,
    );
    let mut body = Family::new(
        "hotpath_http_client_body_duration_seconds",
        "Time from an HTTP client request to the end of its response body (body timing).",
        MetricType::HISTOGRAM,
    );
    for e in r.http.as_deref().unwrap_or(&[]).iter().take(limit) {
        let source = e.source.as_deref().unwrap_or("");
        for (class, n) in classes(&e.status) {
            if n > 0 {
                total.counter(
                    &[
                        ("endpoint", e.endpoint.as_str()),
                        ("source", source),
                        ("status_class", class),
                    ],
                    n as f64,
                );
            }
        }
        let l = [("endpoint", e.endpoint.as_str()), ("source", source)];
        errors.counter(&l, e.errors as f64);
        dur.durations(&l, Some(&e.ttfb_ns), bounds);
        body.durations(&l, e.body_ns.as_ref(), bounds);
    }
    for f in [total, errors, dur, body] {
        f.finish(out);
    }
}

/// HTTP server: requests per route and status class, aborted, in flight, durations.
pub(super) fn server(r: &Report, limit: usize, bounds: &[f64], out: &mut Vec<Family>) {
    let mut total = Family::new(
        "hotpath_http_server_requests_total",
        "HTTP server requests answered, per route and status class.",
        MetricType::COUNTER,
    );
    let mut aborted = Family::new(
        "hotpath_http_server_aborted_total",
        "HTTP server responses whose body was dropped before its end, or whose handler failed.",
        MetricType::COUNTER,
    );
    let mut in_flight = Family::new(
        "hotpath_http_server_in_flight",
        "HTTP server requests started and not finished.",
        MetricType::GAUGE,
    );
    let mut ttfb = Family::new(
        "hotpath_http_server_ttfb_seconds",
        "Time from an HTTP server request to its response head.",
        MetricType::HISTOGRAM,
    );
    let mut dur = Family::new(
        "hotpath_http_server_duration_seconds",
        "Time from an HTTP server request to the end of its response body.",
        MetricType::HISTOGRAM,
    );
    for e in r.server.as_deref().unwrap_or(&[]).iter().take(limit) {
        for (class, n) in classes(&e.status) {
            if n > 0 {
                total.counter(
                    &[("route", e.route.as_str()), ("status_class", class)],
                    n as f64,
                );
            }
        }
        let l = [("route", e.route.as_str())];
        aborted.counter(&l, e.aborted as f64);
        in_flight.gauge(&l, e.in_flight as f64);
        ttfb.durations(&l, Some(&e.ttfb_ns), bounds);
        dur.durations(&l, Some(&e.total_ns), bounds);
    }
    for f in [total, aborted, in_flight, ttfb, dur] {
        f.finish(out);
    }
}

/// tokio: busy time and parks per worker, alive tasks and global queue depth.
pub(super) fn tokio(r: &Report, out: &mut Vec<Family>) {
    let mut busy = Family::new(
        "hotpath_tokio_worker_busy_seconds_total",
        "Time each tokio worker spent running tasks since the runtime was registered.",
        MetricType::COUNTER,
    );
    let mut parks = Family::new(
        "hotpath_tokio_worker_parks_total",
        "Times each tokio worker parked since the runtime was registered.",
        MetricType::COUNTER,
    );
    let mut alive = Family::new(
        "hotpath_tokio_alive_tasks",
        "Tasks alive in the runtime at the last sample.",
        MetricType::GAUGE,
    );
    let mut queue = Family::new(
        "hotpath_tokio_global_queue_depth",
        "Tasks in the runtime's global queue at the last sample.",
        MetricType::GAUGE,
    );
    for rt in r.tokio.as_deref().unwrap_or(&[]) {
        let name = rt.name();
        for w in &rt.worker_stats {
            let i = w.index.to_string();
            let l = [("runtime", name), ("worker", i.as_str())];
            busy.counter(&l, w.busy_ns as f64 / 1e9);
            parks.counter(&l, w.parks as f64);
        }
        alive.gauge(&[("runtime", name)], rt.alive_tasks.last as f64);
        queue.gauge(&[("runtime", name)], rt.global_queue_depth.last as f64);
    }
    for f in [busy, parks, alive, queue] {
        f.finish(out);
    }
}
