//! The metrics client against a local HTTP server that answers fixed JSON: what it
//! parses, the header it sends, and the error variant of every way a request fails.

use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hotpath_cli::client::{Client, Error, Unreachable};
use hotpath_report::{ApiError, ReadError};

const REPORT: &str = r#"{"schema_version":1,"caller":"app::main","elapsed_ns":1500000000,
"sections":["timing"],"percentiles":[50.0,99.0],"overhead_per_call_ns":24.6,"overhead_ns":1000,
"clock":"tsc","time_sampling_rate":1.0,"notes":[],"functions":[{"name":"app::work","label":null,
"file":"src/main.rs","line":3,"calls":10,"timed_calls":10,"async":false,"sampled":false,
"wall_ns":{"total":1000000,"self":900000,"mean":100000,"min":90000,"max":120000,"p50":100000,
"p99":120000},"polls":null,"busy_ns":null,"cancelled":null}]}"#;

const STATUS: &str = r#"{"schema_version":1,"version":"0.1.0","pid":4242,"caller":"app::main",
"uptime_ns":1500000000,"sections":["timing","threads"],"features":["hotpath"],"cpu_mode":null,
"cpu_source":null,"clock":"tsc","time_sampling_rate":1.0}"#;

const FRAGMENT: &str = r#"{"schema_version":1,"section":"timing","caller":"app::main",
"elapsed_ns":7,"percentiles":[50.0],"notes":[],"functions":[]}"#;

/// A request as the server saw it.
#[derive(Debug, PartialEq)]
struct Seen {
    url: String,
    authorization: Option<String>,
}

/// A tiny_http server on 127.0.0.1:0 answering `(status, body)` per URL; stops on drop.
struct TestServer {
    server: Arc<tiny_http::Server>,
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl TestServer {
    fn start(answer: fn(&str) -> (u16, &'static str)) -> TestServer {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
        let port = server.server_addr().to_ip().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (s, log) = (server.clone(), seen.clone());
        std::thread::spawn(move || {
            for request in s.incoming_requests() {
                let authorization = request
                    .headers()
                    .iter()
                    .find(|h| h.field.equiv("Authorization"))
                    .map(|h| h.value.as_str().to_string());
                let url = request.url().to_string();
                let (status, body) = answer(&url);
                log.lock().unwrap().push(Seen { url, authorization });
                let header =
                    tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
                let response = tiny_http::Response::from_string(body)
                    .with_status_code(status)
                    .with_header(header);
                let _ = request.respond(response);
            }
        });
        TestServer { server, port, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        std::mem::take(&mut *self.seen.lock().unwrap())
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

fn routes(url: &str) -> (u16, &'static str) {
    match url {
        "/report" => (200, REPORT),
        "/profiler_status" => (200, STATUS),
        "/functions_timing" => (200, FRAGMENT),
        "/functions_alloc" => (
            404,
            r#"{"error":"section alloc is not compiled in","feature":"hotpath-alloc"}"#,
        ),
        _ => (404, "not found"),
    }
}

#[test]
fn reads_report_status_and_fragments_and_sends_the_token() {
    let server = TestServer::start(routes);
    let client = Client::new("127.0.0.1", server.port, Some("s3cret".into()));

    let status = client.fetch_status().unwrap();
    assert_eq!(status.pid, 4242);
    assert_eq!(status.caller, "app::main");
    assert_eq!(status.uptime_ns, 1_500_000_000);
    assert_eq!(status.sections, ["timing", "threads"]);
    assert_eq!(status.cpu_source, None);

    let report = client.fetch_report().unwrap();
    assert_eq!(report.elapsed_ns, 1_500_000_000);
    assert_eq!(report.functions.len(), 1);
    let wall = report.functions[0].wall_ns.as_ref().unwrap();
    assert_eq!((wall.total, wall.self_), (1_000_000, 900_000));
    assert_eq!(wall.percentiles.get(99.0), Some(120_000));

    let fragment = client.fetch_fragment("/functions_timing").unwrap();
    assert_eq!(fragment.section, "timing");
    assert_eq!(fragment.keys, ["functions"]);
    assert_eq!(fragment.part.functions, vec![]);

    let bearer = Some("Bearer s3cret".to_string());
    assert_eq!(
        server.seen(),
        [
            Seen {
                url: "/profiler_status".into(),
                authorization: bearer.clone()
            },
            Seen {
                url: "/report".into(),
                authorization: bearer.clone()
            },
            Seen {
                url: "/functions_timing".into(),
                authorization: bearer
            },
        ]
    );
}

#[test]
fn no_token_no_authorization_header() {
    let server = TestServer::start(routes);
    let client = Client::new("127.0.0.1", server.port, None);
    client.fetch_report().unwrap();
    assert_eq!(
        server.seen(),
        [Seen {
            url: "/report".into(),
            authorization: None
        }]
    );
}

#[test]
fn status_401_is_unauthorized() {
    let server = TestServer::start(|_| (401, r#"{"error":"missing or wrong token"}"#));
    let e = Client::new("127.0.0.1", server.port, None)
        .fetch_report()
        .unwrap_err();
    assert!(
        matches!(&e, Error::Unauthorized { route, token_sent: false } if route == "/report"),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "401 on /report: the program requires a token; pass --token or set \
         HOTPATH_METRICS_AUTH_TOKEN"
    );
    let e = Client::new("127.0.0.1", server.port, Some("wrong".into()))
        .fetch_status()
        .unwrap_err();
    assert!(
        matches!(&e, Error::Unauthorized { route, token_sent: true } if route == "/profiler_status"),
        "{e:?}"
    );
}

#[test]
fn status_404_carries_the_api_error() {
    let server = TestServer::start(routes);
    let client = Client::new("127.0.0.1", server.port, None);
    let e = client.fetch_fragment("/functions_alloc").unwrap_err();
    match &e {
        Error::Http { route, status, api } => {
            assert_eq!(route, "/functions_alloc");
            assert_eq!(*status, 404);
            assert_eq!(
                api.as_ref(),
                Some(&ApiError {
                    error: "section alloc is not compiled in".into(),
                    feature: Some("hotpath-alloc".into()),
                    features: vec![],
                })
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        e.to_string(),
        "404 on /functions_alloc: section alloc is not compiled in (Cargo feature hotpath-alloc)"
    );
    // A body that is not an ApiError still gives the status.
    let e = client.fetch_fragment("/nope").unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Http {
                status: 404,
                api: None,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(e.to_string(), "404 on /nope");
}

#[test]
fn another_schema_version_is_incompatible() {
    let server = TestServer::start(|url| match url {
        "/report" => (200, r#"{"schema_version":8,"caller":"app::main"}"#),
        _ => (200, "<html>not json</html>"),
    });
    let client = Client::new("127.0.0.1", server.port, None);
    let e = client.fetch_report().unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Incompatible { route, source: ReadError::SchemaVersion { found: 8 } }
                if route == "/report"
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "/report: report has schema_version 8; this build reads versions 1 to 7 (re-create the \
         report with a matching hotpath version)"
    );
    let e = client.fetch_status().unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Incompatible {
                source: ReadError::Json(_),
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn a_closed_port_is_unreachable_refused() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let e = Client::new("127.0.0.1", port, None)
        .fetch_report()
        .unwrap_err();
    match &e {
        Error::Unreachable { addr, reason } => {
            assert_eq!(addr, &format!("127.0.0.1:{port}"));
            assert_eq!(*reason, Unreachable::Refused);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        e.to_string(),
        format!("cannot reach 127.0.0.1:{port} (connection refused)")
    );
}

#[test]
fn a_program_that_stops_answering_is_unreachable_timed_out() {
    // The kernel accepts the connection into the backlog; nobody ever answers.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let client = Client::with_timeout("127.0.0.1", port, None, Duration::from_millis(200));
    let e = client.fetch_status().unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Unreachable {
                reason: Unreachable::TimedOut,
                ..
            }
        ),
        "{e:?}"
    );
    drop(listener);
}

#[test]
fn a_connection_closed_without_an_answer_is_unreachable_closed() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accept = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        drop(stream);
    });
    let e = Client::new("127.0.0.1", port, None)
        .fetch_report()
        .unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Unreachable {
                reason: Unreachable::Closed,
                ..
            }
        ),
        "{e:?}"
    );
    accept.join().unwrap();
}

#[test]
fn a_console_refresh_fetches_status_then_report() {
    let server = TestServer::start(routes);
    let client = Client::new("127.0.0.1", server.port, None);
    let mut app = hotpath_cli::console::App::new("127.0.0.1", server.port);
    app.update(hotpath_cli::console::fetch(&client));
    assert_eq!(app.status().level, hotpath_cli::console::Level::Connected);
    assert_eq!(app.row_names(), ["app::work"]);
    let urls: Vec<String> = server.seen().into_iter().map(|s| s.url).collect();
    assert_eq!(urls, ["/profiler_status", "/report"]);
}

#[test]
fn ipv6_hosts_are_bracketed() {
    assert_eq!(hotpath_cli::client::addr("::1", 6770), "[::1]:6770");
    assert_eq!(hotpath_cli::client::addr("[::1]", 6770), "[::1]:6770");
    assert_eq!(
        hotpath_cli::client::addr("localhost", 6770),
        "localhost:6770"
    );
}

#[test]
fn debug_output_hides_the_token() {
    let client = Client::new("127.0.0.1", 6770, Some("s3cret".into()));
    let debug = format!("{client:?}");
    assert!(!debug.contains("s3cret"), "{debug}");
    assert_eq!(
        debug,
        r#"Client { addr: "127.0.0.1:6770", token: Some("<set>") }"#
    );
}
