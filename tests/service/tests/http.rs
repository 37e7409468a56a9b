//! The `http` (client) and `server` sections against a real axum server and real
//! reqwest 0.12/0.13 and ureq 3 clients on loopback.

use hotpath::report::{HttpEntry, Report, ServerEntry};
use hotpath_service_tests::{assert_same_log, report};

const MS: u64 = 1_000_000;

fn client<'a>(r: &'a Report, endpoint_suffix: &str, source: &str) -> &'a HttpEntry {
    let rows = r
        .http
        .as_ref()
        .unwrap_or_else(|| panic!("{:?}", r.sections));
    rows.iter()
        .find(|e| e.endpoint.ends_with(endpoint_suffix) && e.source.as_deref() == Some(source))
        .unwrap_or_else(|| panic!("no {endpoint_suffix} from {source}: {rows:#?}"))
}

fn route<'a>(r: &'a Report, route: &str) -> &'a ServerEntry {
    let rows = r
        .server
        .as_ref()
        .unwrap_or_else(|| panic!("{:?}", r.sections));
    rows.iter()
        .find(|e| e.route == route)
        .unwrap_or_else(|| panic!("no {route}: {rows:#?}"))
}

#[test]
fn clients_and_server_count_calls_classes_and_times() {
    let run = report(env!("CARGO_BIN_EXE_http"), &[]);
    let r = &run.report;
    for s in ["http", "server"] {
        assert!(r.sections.iter().any(|x| x == s), "{:?}", r.sections);
    }
    // 50 calls to the 10 ms handler: one client row, ids folded, p50 >= 10 ms.
    let users = client(r, "/users/{id}", "http::fetch_all");
    assert!(
        users.endpoint.starts_with("GET 127.0.0.1:"),
        "{}",
        users.endpoint
    );
    assert_eq!(
        (users.calls, users.errors, users.status.status_2xx),
        (50, 0, 50)
    );
    assert_eq!(users.client, "reqwest");
    assert!(users.ttfb_ns.percentiles.get(50.0).unwrap() >= 10 * MS);
    let c12 = client(r, "/users/{id}", "http::fetch_012");
    assert_eq!((c12.calls, c12.status.status_2xx), (5, 5));
    let cu = client(r, "/users/{id}", "http::fetch_ureq");
    assert_eq!(
        (cu.calls, cu.status.status_2xx, cu.client.as_str()),
        (5, 5, "ureq")
    );

    // The server row is the matched route, never the raw path.
    let s = route(r, "GET /users/{id}");
    assert_eq!((s.calls, s.status.status_2xx, s.aborted), (60, 60, 0));
    assert!(s.ttfb_ns.percentiles.get(50.0).unwrap() >= 10 * MS);
    assert!(s.total_ns.percentiles.get(50.0).unwrap() >= 10 * MS);
    assert_eq!(s.in_flight, 0);

    // 404 and 500 in their classes, on both sides; the query string nowhere.
    let miss = client(r, "/missing", "http::misses");
    assert_eq!(
        (miss.calls, miss.errors, miss.status.status_4xx),
        (10, 0, 10)
    );
    let fail = client(r, "/fail", "http::misses");
    assert_eq!(fail.status.status_5xx, 1);
    assert_eq!(route(r, "GET <unmatched>").status.status_4xx, 10);
    assert_eq!(route(r, "GET /fail").status.status_5xx, 1);
    assert!(!run.json.contains("secret"));

    // A streamed body: 10 chunks 20 ms apart (read twice, without and with client body
    // timing). The head comes before the body, which ends at least 9 x 20 ms later.
    let st = route(r, "GET /stream");
    assert_eq!(st.calls, 2);
    let (ttfb, total) = (st.ttfb_ns.max, st.total_ns.max);
    assert!(total >= 180 * MS, "total {total}");
    assert!(total - ttfb >= 180 * MS, "ttfb {ttfb} total {total}");
    assert!(run.stderr.contains("stream_bytes=1000"), "{}", run.stderr);
    // Without body timing a client row has no body times.
    assert_eq!((users.bodies, users.body_ns.is_none()), (0, true));
    assert!(client(r, "/stream", "http::read_stream").body_ns.is_none());

    // With body timing (`http!(client, body = true)`): the head before the first 20 ms
    // gap, the body's end after the nine gaps; the wait for the head charged to the
    // function that sent the request, the body's reading to the one that read it.
    assert!(
        run.stderr.contains("timed_stream_bytes=1000"),
        "{}",
        run.stderr
    );
    let ts = client(r, "/stream", "http::send_timed");
    assert_eq!((ts.calls, ts.status.status_2xx, ts.bodies), (1, 1, 1));
    let body = ts.body_ns.as_ref().unwrap();
    assert!(body.min >= 180 * MS, "body {}", body.min);
    assert!(body.min - ts.ttfb_ns.max >= 170 * MS);
    let http_wait = |name: &str| {
        let f = r.functions.iter().find(|f| f.name == name).unwrap();
        f.waits.as_ref().unwrap().http_ns
    };
    let (sender, reader) = (
        http_wait("http::send_timed"),
        http_wait("http::read_stream_timed"),
    );
    // The sender waited for the head of its one request, and for nothing else.
    assert_eq!(sender, ts.ttfb_ns.max, "sender");
    // The reader's waits are its own, not its callee's: the body only.
    assert!(reader >= 180 * MS, "reader {reader}");

    // A body cut short: the same error to the program (text, kind), with two more links
    // in its source chain (reqwest's body error, once per re-wrap: out of the response
    // and back in); the body's end is recorded at the error.
    let line = |tag: &str| {
        run.stderr
            .lines()
            .find_map(|l| l.strip_prefix(tag))
            .unwrap_or_else(|| panic!("no {tag} in {}", run.stderr))
            .to_string()
    };
    let (plain, timed) = (line("truncated plain: "), line("truncated timed: "));
    let (p_head, p_chain) = plain.split_once(" chain=").unwrap();
    let (t_head, t_chain) = timed.split_once(" chain=").unwrap();
    assert_eq!(p_head, t_head);
    assert!(
        p_head.contains("decode=true body=false timeout=false"),
        "{p_head}"
    );
    let extra = "request or response body error <- ";
    assert_eq!(t_chain, format!("{extra}{extra}{p_chain}"));
    let short = client(r, "/short", "http::truncated");
    assert_eq!(
        (short.calls, short.status.status_2xx, short.bodies),
        (1, 1, 1)
    );

    // No response: a transport error, no status.
    let refused = r
        .http
        .as_ref()
        .unwrap()
        .iter()
        .find(|e| e.source.as_deref() == Some("http::refused"))
        .unwrap();
    assert_eq!((refused.calls, refused.errors), (1, 1));
    assert_eq!(refused.status.status_2xx + refused.status.status_4xx, 0);

    // A body the client abandoned after its first chunk: aborted, not in flight.
    let long = route(r, "GET /long");
    assert_eq!((long.calls, long.aborted, long.in_flight), (1, 1, 0));
    assert_eq!(long.status.status_2xx, 1);

    // HTTP time is charged to the calling function.
    let f = r
        .functions
        .iter()
        .find(|f| f.name == "http::fetch_all")
        .unwrap();
    assert!(f.waits.as_ref().unwrap().http_ns >= 50 * 10 * MS);
}

/// The wrappers change nothing a program sees: one seeded script of 160 requests from
/// three clients to an axum router and a plain tower service, plain and through
/// `axum!`, `HttpServerLayer` and `http!`, gives byte-identical logs; and the wrapped
/// run's report counts exactly the requests each client made and each server answered.
#[test]
fn wrapped_server_and_clients_behave_as_the_plain_ones() {
    let dir = tempfile::tempdir().unwrap();
    let report_path = dir.path().join("report.json");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_http_diff"))
            .args(args)
            .env_remove("HOTPATH_OUTPUT_FORMAT")
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success(), "{stderr}");
        (String::from_utf8(out.stdout).unwrap(), stderr)
    };
    let (plain, _) = run(&["plain"]);
    let (wrapped, counts) = run(&["wrapped", report_path.to_str().unwrap()]);
    assert_eq!(plain.lines().count(), 160, "{plain}");
    for needle in [
        "Reqwest13 Axum POST /echo 201 Some(\"1\") (\"/echo\", None, Some(5), HTTP/1.1, Some(127.0.0.1)) b\"HELLO\"",
        "Ureq Tower GET /chunks 200 Some(\"1\") \"aaabbbcccddd\"",
        "Refused GET /x error",
        "/empty 204",
        " 404 ",
        "status error 500",
        " 410 ",
    ] {
        assert!(plain.contains(needle), "no {needle:?} in\n{plain}");
    }
    assert_same_log("http", &plain, &wrapped);

    let count = |k: &str| -> u64 {
        counts
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{k}=")))
            .map_or(0, |v| v.parse().unwrap())
    };
    let refused = plain.lines().filter(|l| l.contains(" Refused ")).count() as u64;
    assert!(refused > 0);
    let r = Report::from_json(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    let http = r.http.as_ref().unwrap();
    let sum = |f: &dyn Fn(&&HttpEntry) -> bool| -> (u64, u64) {
        http.iter()
            .filter(f)
            .fold((0, 0), |(c, e), x| (c + x.calls, e + x.errors))
    };
    let v12 = sum(&|e| e.label.as_deref() == Some("v12"));
    // reqwest 0.12's client times bodies: every response it got was read to its end.
    let v12_bodies: u64 = http
        .iter()
        .filter(|e| e.label.as_deref() == Some("v12"))
        .map(|e| e.bodies)
        .sum();
    assert_eq!(v12_bodies, v12.0 - v12.1, "{http:#?}");
    assert!(http
        .iter()
        .filter(|e| e.label.as_deref() != Some("v12"))
        .all(|e| e.bodies == 0 && e.body_ns.is_none()));
    let reqwest = sum(&|e| e.client == "reqwest");
    let ureq = sum(&|e| e.client == "ureq");
    assert_eq!(v12.0, count("Reqwest12"), "{http:#?}");
    assert_eq!(reqwest.0, count("Reqwest13") + count("Reqwest12"));
    assert_eq!(ureq.0, count("Ureq"));
    assert_eq!(reqwest.1 + ureq.1, refused);
    // ureq answers a 4xx or 5xx with an error (`http_status_as_error`): still a response,
    // counted in its class, never a transport error.
    let ureq_classes = http
        .iter()
        .filter(|e| e.client == "ureq")
        .fold((0, 0), |(c4, c5), e| {
            (c4 + e.status.status_4xx, c5 + e.status.status_5xx)
        });
    let in_log = |needle: &str| plain.lines().filter(|l| l.contains(needle)).count() as u64;
    assert_eq!(
        ureq_classes,
        (
            in_log("status error 404") + in_log("status error 410"),
            in_log("status error 500")
        )
    );

    let server = r.server.as_ref().unwrap();
    let tower = |e: &&ServerEntry| e.route.contains("/items") || e.route.contains("/chunks");
    let calls = |rows: Vec<&ServerEntry>| rows.iter().map(|e| e.calls).sum::<u64>();
    assert_eq!(
        calls(server.iter().filter(tower).collect()),
        count("Tower"),
        "{server:#?}"
    );
    assert_eq!(
        calls(server.iter().filter(|e| !tower(e)).collect()),
        count("Axum")
    );
    // Routes, never raw paths: no id and no query string in any key.
    for e in server {
        assert!(
            !e.route.contains(|c: char| c.is_ascii_digit()),
            "{}",
            e.route
        );
        assert_eq!(e.in_flight, 0, "{}", e.route);
    }
    assert!(server.iter().any(|e| e.route == "GET /items/{id}/gone"));
    assert!(!std::fs::read_to_string(&report_path)
        .unwrap()
        .contains("secret"));
}

/// What `GET <path>` answered, as the scenario printed it on stderr.
fn answer<'a>(stderr: &'a str, path: &str) -> &'a str {
    let start = stderr
        .find(&format!("=== {path}\n"))
        .unwrap_or_else(|| panic!("no {path} in {stderr}"))
        + path.len()
        + 5;
    let len = stderr[start..].find("\n=== end").unwrap();
    &stderr[start..start + len]
}

#[test]
fn live_routes_and_prometheus_show_the_service_sections() {
    let port = hotpath_service_tests::free_port().to_string();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_http"))
        .env("HOTPATH_METRICS_PORT", &port)
        .env("HOTPATH_OUTPUT_FORMAT", "none")
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stderr}");

    let server = hotpath::report::Fragment::from_json(answer(&stderr, "/server")).unwrap();
    let rows = server.part.server.unwrap();
    let users = rows.iter().find(|e| e.route == "GET /users/{id}").unwrap();
    assert_eq!((users.calls, users.status.status_2xx), (60, 60));
    let http = hotpath::report::Fragment::from_json(answer(&stderr, "/http")).unwrap();
    assert!(http.part.http.unwrap().iter().any(|e| e.calls == 50));
    let tokio = hotpath::report::Fragment::from_json(answer(&stderr, "/tokio_runtime")).unwrap();
    assert_eq!(tokio.part.tokio.unwrap()[0].workers, 2);

    let metrics = answer(&stderr, "/metrics");
    for line in [
        "hotpath_http_server_requests_total{route=\"GET /users/{id}\",status_class=\"2xx\"} 60",
        "hotpath_http_server_requests_total{route=\"GET <unmatched>\",status_class=\"4xx\"} 10",
        "hotpath_http_server_aborted_total{route=\"GET /long\"} 1",
    ] {
        assert!(
            metrics.lines().any(|l| l == line),
            "no {line} in\n{metrics}"
        );
    }
    assert!(metrics.contains("hotpath_http_client_requests_total{endpoint=\"GET 127.0.0.1:"));
    // The body-timing client's one body, and no body series for the others.
    let bodies: Vec<&str> = metrics
        .lines()
        .filter(|l| l.starts_with("hotpath_http_client_body_duration_seconds_count{"))
        .collect();
    assert_eq!(bodies.len(), 2, "{metrics}");
    for (source, n) in [("http::send_timed", 1), ("http::truncated", 1)] {
        assert!(
            bodies
                .iter()
                .any(|l| l.contains(&format!("source=\"{source}\"}} "))
                    && l.ends_with(&format!(" {n}"))),
            "{bodies:?}"
        );
    }
    assert!(metrics.contains(
        "hotpath_tokio_worker_busy_seconds_total{runtime=\"multi_thread\",worker=\"1\"}"
    ));
    assert!(metrics.contains(
        "hotpath_function_wait_seconds_total{function=\"http::fetch_all\",kind=\"http\"}"
    ));
}
