//! `/metrics` families of the `sql`, `http`, `server` and `tokio` sections. Rows are
//! the report's (by total time), at most `limit` per family; label values are the
//! normalised query, endpoint and route, so their number is bounded as well.

use prometheus::proto::MetricType;

use super::Family;
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
        if let Some(h) = &e.duration_ns.hist {
            dur.histogram(&l, h, e.duration_ns.min, e.duration_ns.max, bounds);
        }
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
        if let Some(h) = &e.ttfb_ns.hist {
            dur.histogram(&l, h, e.ttfb_ns.min, e.ttfb_ns.max, bounds);
        }
        if let Some(d) = &e.body_ns {
            if let Some(h) = &d.hist {
                body.histogram(&l, h, d.min, d.max, bounds);
            }
        }
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
        for (family, d) in [(&mut ttfb, &e.ttfb_ns), (&mut dur, &e.total_ns)] {
            if let Some(h) = &d.hist {
                family.histogram(&l, h, d.min, d.max, bounds);
            }
        }
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

#[cfg(test)]
mod tests {
    use hotpath_report::{
        Dist, Function, FunctionWaits, Histogram, HttpEntry, Report, ServerEntry, SqlEntry,
        StatusClasses, TokioGauge, TokioRuntime, TokioWorker,
    };

    /// `n` durations of `ns` each.
    fn dist(n: u64, ns: u64) -> Dist {
        Dist {
            total: n * ns,
            mean: ns,
            min: ns,
            max: ns,
            hist: Some(Histogram {
                sum: n * ns,
                buckets: vec![(ns, n)],
            }),
            ..Default::default()
        }
    }

    fn sql(query: &str, source: Option<&str>, calls: u64) -> SqlEntry {
        SqlEntry {
            query: query.into(),
            source: source.map(Into::into),
            backend: "sqlx".into(),
            calls,
            errors: None,
            rows_returned: Some(calls),
            rows_affected: Some(0),
            per_source_call: source.map(|_| 1.0),
            duration_ns: dist(calls, 2_000_000),
            share_of_wall: 0.1,
        }
    }

    fn report() -> Report {
        Report {
            functions: vec![Function {
                name: "app::handler".into(),
                calls: 4,
                timed_calls: 4,
                waits: Some(FunctionWaits {
                    sql_ns: 2_000_000_000,
                    http_ns: 500_000_000,
                    ..Default::default()
                }),
                ..Default::default()
            }],
            sql: Some(vec![
                sql(
                    "SELECT name FROM users WHERE id = ?",
                    Some("app::handler"),
                    40,
                ),
                sql("PRAGMA foreign_keys = ON;", None, 7),
            ]),
            http: Some(vec![
                HttpEntry {
                    endpoint: "GET 127.0.0.1:{port}/users/{id}".into(),
                    label: None,
                    source: Some("app::client".into()),
                    client: "reqwest".into(),
                    calls: 12,
                    errors: 1,
                    status: StatusClasses::from_array([0, 10, 0, 1, 0]),
                    ttfb_ns: dist(11, 1_000_000),
                    bodies: 9,
                    body_ns: Some(dist(9, 4_000_000)),
                },
                HttpEntry {
                    endpoint: "POST billing".into(),
                    label: Some("billing".into()),
                    source: None,
                    client: "ureq".into(),
                    calls: 3,
                    errors: 0,
                    status: StatusClasses::from_array([0, 0, 0, 0, 3]),
                    ttfb_ns: dist(3, 5_000_000),
                    bodies: 0,
                    body_ns: None,
                },
            ]),
            server: Some(vec![
                ServerEntry {
                    route: "GET /users/{id}".into(),
                    calls: 60,
                    status: StatusClasses::from_array([0, 59, 0, 0, 1]),
                    aborted: 2,
                    in_flight: 1,
                    ttfb_ns: dist(60, 10_000_000),
                    total_ns: dist(60, 12_000_000),
                },
                ServerEntry {
                    route: "GET <unmatched>".into(),
                    calls: 10,
                    status: StatusClasses::from_array([0, 0, 0, 10, 0]),
                    aborted: 0,
                    in_flight: 0,
                    ttfb_ns: dist(10, 10_000),
                    total_ns: dist(10, 11_000),
                },
            ]),
            tokio: Some(vec![TokioRuntime {
                label: Some("main".into()),
                flavor: "multi_thread".into(),
                workers: 2,
                elapsed_ns: 1_000_000_000,
                alive_tasks: TokioGauge {
                    last: 3,
                    max: 18,
                    mean: 4.5,
                    samples: 10,
                },
                global_queue_depth: TokioGauge {
                    last: 0,
                    max: 4,
                    mean: 0.5,
                    samples: 10,
                },
                worker_stats: vec![
                    TokioWorker {
                        index: 0,
                        busy_ns: 612_000_000,
                        busy_share: 0.612,
                        parks: 1204,
                        ..Default::default()
                    },
                    TokioWorker {
                        index: 1,
                        busy_ns: 455_000_000,
                        busy_share: 0.455,
                        parks: 1530,
                        ..Default::default()
                    },
                ],
                blocking_threads: None,
                spawned_tasks: None,
                unstable: false,
            }]),
            ..Report::default()
        }
    }

    fn has(text: &str, line: &str) {
        assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
    }

    #[test]
    fn sql_http_server_and_tokio_families() {
        super::super::protobuf::roundtrip::same_as_text(&report(), 10);
        let text = super::super::encode(&report(), 10);
        for line in [
            "hotpath_sql_queries_total{query=\"SELECT name FROM users WHERE id = ?\",source=\"app::handler\"} 40",
            "hotpath_sql_queries_total{query=\"PRAGMA foreign_keys = ON;\",source=\"\"} 7",
            "hotpath_sql_duration_seconds_count{query=\"SELECT name FROM users WHERE id = ?\",source=\"app::handler\"} 40",
            "hotpath_sql_duration_seconds_sum{query=\"SELECT name FROM users WHERE id = ?\",source=\"app::handler\"} 0.08",
            "hotpath_http_client_requests_total{endpoint=\"GET 127.0.0.1:{port}/users/{id}\",source=\"app::client\",status_class=\"2xx\"} 10",
            "hotpath_http_client_requests_total{endpoint=\"GET 127.0.0.1:{port}/users/{id}\",source=\"app::client\",status_class=\"4xx\"} 1",
            "hotpath_http_client_requests_total{endpoint=\"POST billing\",source=\"\",status_class=\"5xx\"} 3",
            "hotpath_http_client_errors_total{endpoint=\"GET 127.0.0.1:{port}/users/{id}\",source=\"app::client\"} 1",
            "hotpath_http_client_errors_total{endpoint=\"POST billing\",source=\"\"} 0",
            "hotpath_http_client_duration_seconds_count{endpoint=\"POST billing\",source=\"\"} 3",
            "hotpath_http_client_body_duration_seconds_count{endpoint=\"GET 127.0.0.1:{port}/users/{id}\",source=\"app::client\"} 9",
            "hotpath_http_client_body_duration_seconds_sum{endpoint=\"GET 127.0.0.1:{port}/users/{id}\",source=\"app::client\"} 0.036",
            "hotpath_http_server_requests_total{route=\"GET /users/{id}\",status_class=\"2xx\"} 59",
            "hotpath_http_server_requests_total{route=\"GET /users/{id}\",status_class=\"5xx\"} 1",
            "hotpath_http_server_requests_total{route=\"GET <unmatched>\",status_class=\"4xx\"} 10",
            "hotpath_http_server_aborted_total{route=\"GET /users/{id}\"} 2",
            "hotpath_http_server_in_flight{route=\"GET /users/{id}\"} 1",
            "hotpath_http_server_ttfb_seconds_count{route=\"GET /users/{id}\"} 60",
            "hotpath_http_server_duration_seconds_sum{route=\"GET /users/{id}\"} 0.72",
            "hotpath_tokio_worker_busy_seconds_total{runtime=\"main\",worker=\"0\"} 0.612",
            "hotpath_tokio_worker_parks_total{runtime=\"main\",worker=\"1\"} 1530",
            "hotpath_tokio_alive_tasks{runtime=\"main\"} 3",
            "hotpath_tokio_global_queue_depth{runtime=\"main\"} 0",
            "hotpath_function_wait_seconds_total{function=\"app::handler\",kind=\"sql\"} 2",
            "hotpath_function_wait_seconds_total{function=\"app::handler\",kind=\"http\"} 0.5",
        ] {
            has(&text, line);
        }
        // A status class no response had gets no series; a client without body timing
        // no body series.
        assert!(!text.contains("status_class=\"3xx\""), "{text}");
        assert!(
            !text.contains(
                "hotpath_http_client_body_duration_seconds_count{endpoint=\"POST billing\""
            ),
            "{text}"
        );
        assert!(!text.contains("status_class=\"1xx\""), "{text}");
    }

    #[test]
    fn label_values_are_bounded_by_the_limit() {
        let text = super::super::encode(&report(), 1);
        // The first row of each section (by total time) only.
        has(
            &text,
            "hotpath_sql_queries_total{query=\"SELECT name FROM users WHERE id = ?\",source=\"app::handler\"} 40",
        );
        assert!(!text.contains("PRAGMA"), "{text}");
        assert!(!text.contains("POST billing"), "{text}");
        assert!(!text.contains("<unmatched>"), "{text}");
        let series = |family: &str| {
            text.lines()
                .filter(|l| l.starts_with(&format!("{family}{{")))
                .count()
        };
        assert_eq!(series("hotpath_sql_queries_total"), 1);
        assert_eq!(series("hotpath_http_client_errors_total"), 1);
        assert_eq!(series("hotpath_http_server_aborted_total"), 1);
        // Histograms: one series per bucket bound (+Inf included) of the one row.
        let buckets = super::super::duration_buckets().len() + 1;
        assert_eq!(series("hotpath_sql_duration_seconds_bucket"), buckets);
    }

    #[test]
    fn no_service_section_no_service_family() {
        let text = super::super::encode(&Report::default(), 10);
        for family in [
            "hotpath_sql_",
            "hotpath_http_client_",
            "hotpath_http_server_",
            "hotpath_tokio_",
        ] {
            assert!(
                !text.lines().any(|l| l.starts_with(family)),
                "{family} in\n{text}"
            );
        }
    }
}
