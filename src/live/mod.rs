//! The metrics server: the report so far over HTTP while the program runs.
//!
//! Started only when asked for (`HOTPATH_METRICS_PORT`, or the builder's
//! `metrics_port`), on `127.0.0.1` unless `HOTPATH_METRICS_HOST` says otherwise. It runs
//! on a thread of its own, `hotpath-metrics`, built on `tiny_http`; the threads
//! `tiny_http` starts to read requests inherit that name. Each request is answered from
//! a fresh snapshot, the same data the exit report is made of. Nothing here runs on the
//! program's threads.

#[cfg(feature = "hotpath-prometheus")]
pub(crate) mod prometheus;

use std::io::Cursor;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use tiny_http::{Header, Method, Request, Response, Server, StatusCode};

use crate::config::warn;
use crate::report::{ApiError, Fragment, ProfilerStatus, Report, SCHEMA_VERSION};

/// Longest request line accepted (414 beyond).
const MAX_URL: usize = 2048;
/// Most bytes of header names and values accepted (431 beyond).
const MAX_HEADERS: usize = 16 * 1024;
/// Name of the server's thread, inherited by the threads `tiny_http` starts.
pub(crate) const THREAD_NAME: &str = "hotpath-metrics";

/// What the server answers from: the running session.
pub(crate) trait Source: Send + Sync + 'static {
    /// The whole report so far.
    fn report(&self) -> Report;
    /// `/profiler_status`.
    fn status(&self) -> ProfilerStatus;
    /// The sections the session collects (`HOTPATH_REPORT` may have turned some off).
    fn sections(&self) -> Vec<&'static str>;
    /// `/metrics` in the Prometheus text format.
    #[cfg(feature = "hotpath-prometheus")]
    fn prometheus(&self) -> String;
}

/// Where and how to listen.
#[derive(Clone, Debug)]
pub(crate) struct Options {
    pub host: String,
    pub port: u16,
    pub token: Option<String>,
}

/// The running server; stopped and joined on drop.
pub(crate) struct MetricsServer {
    stop: Arc<AtomicBool>,
    server: Arc<Server>,
    thread: Option<JoinHandle<()>>,
}

impl MetricsServer {
    /// Starts the server, or warns once and returns `None` (a port in use, a bad host):
    /// the program runs on without it.
    pub(crate) fn start(options: Options, source: Arc<dyn Source>) -> Option<MetricsServer> {
        let (tx, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let where_ = format!("{}:{}", options.host, options.port);
        let spawned = std::thread::Builder::new()
            .name(THREAD_NAME.into())
            .spawn(move || {
                crate::threads::register_profiler_thread();
                crate::threads::register_profiler_thread_name(THREAD_NAME);
                // Created here, so that the threads tiny_http starts inherit this
                // thread's name.
                let server = match hotpath_core::internal(|| {
                    Server::http((options.host.as_str(), options.port))
                }) {
                    Ok(server) => Arc::new(server),
                    Err(e) => {
                        let _ = tx.send(Err(e.to_string()));
                        return;
                    }
                };
                if tx.send(Ok(server.clone())).is_err() {
                    return;
                }
                serve(&server, &stop2, options.token.as_deref(), &*source);
            });
        if let Err(e) = spawned {
            warn(&format!(
                "metrics server: could not start its thread ({e}); running without it"
            ));
            return None;
        }
        let thread = spawned.ok();
        match rx.recv_timeout(Duration::from_secs(5)) {
            Ok(Ok(server)) => {
                let addr = server
                    .server_addr()
                    .to_ip()
                    .map_or(where_, |a| a.to_string());
                eprintln!("[hotpath] metrics server on http://{addr}");
                Some(MetricsServer {
                    stop,
                    server,
                    thread,
                })
            }
            Ok(Err(e)) => {
                warn(&format!(
                    "metrics server: cannot listen on {where_}: {e}; running without it \
                     (HOTPATH_METRICS_PORT picks another port, 0 any free one)"
                ));
                None
            }
            Err(_) => {
                warn(&format!(
                    "metrics server: {where_} did not start within 5 s; running without it"
                ));
                stop.store(true, Ordering::Release);
                None
            }
        }
    }

    /// The port it listens on.
    pub(crate) fn port(&self) -> Option<u16> {
        self.server.server_addr().to_ip().map(|a| a.port())
    }

    /// Stops answering and joins the thread.
    pub(crate) fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl std::fmt::Debug for MetricsServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsServer")
            .field("port", &self.port())
            .finish_non_exhaustive()
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Answers requests until `stop` is set.
fn serve(server: &Server, stop: &AtomicBool, token: Option<&str>, source: &dyn Source) {
    while !stop.load(Ordering::Acquire) {
        match server.recv_timeout(Duration::from_millis(250)) {
            Ok(Some(request)) => {
                // Everything this thread allocates is the profiler's, not the program's.
                let response = hotpath_core::internal(|| answer(&request, token, source));
                let _ = request.respond(response);
            }
            Ok(None) => {}
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// A response: status, content type, body.
#[derive(Debug, PartialEq)]
pub(crate) struct Answer {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
    /// Extra header, e.g. `Allow` on a 405.
    pub header: Option<(&'static str, &'static str)>,
}

impl Answer {
    fn json(status: u16, body: String) -> Answer {
        Answer {
            status,
            content_type: "application/json",
            body,
            header: None,
        }
    }

    fn error(status: u16, error: String, feature: Option<&str>) -> Answer {
        let body = serde_json::to_string(&ApiError {
            error,
            feature: feature.map(str::to_string),
        })
        .unwrap_or_else(|_| "{\"error\":\"internal error\"}".into());
        Answer::json(status, body)
    }
}

fn answer(
    request: &Request,
    token: Option<&str>,
    source: &dyn Source,
) -> Response<Cursor<Vec<u8>>> {
    let headers: Vec<(&str, &str)> = request
        .headers()
        .iter()
        .map(|h| (h.field.as_str().as_str(), h.value.as_str()))
        .collect();
    let a = route(request.method(), request.url(), &headers, token, source);
    let mut response = Response::from_string(a.body).with_status_code(StatusCode(a.status));
    let mut add = |name: &str, value: &str| {
        if let Ok(h) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response.add_header(h);
        }
    };
    add("Content-Type", a.content_type);
    add("Cache-Control", "no-store");
    if let Some((name, value)) = a.header {
        add(name, value);
    }
    response
}

/// Every route, for the 404 message.
const ROUTES: &str = "/report, /functions_timing, /functions_alloc, /functions_cpu, /io, \
                      /threads, /profiler_status, /metrics";

/// The answer to one request; pure apart from reading `source`, for tests.
pub(crate) fn route(
    method: &Method,
    url: &str,
    headers: &[(&str, &str)],
    token: Option<&str>,
    source: &dyn Source,
) -> Answer {
    if url.len() > MAX_URL {
        return Answer::error(414, format!("URL longer than {MAX_URL} bytes"), None);
    }
    let header_bytes: usize = headers.iter().map(|(k, v)| k.len() + v.len()).sum();
    if header_bytes > MAX_HEADERS {
        return Answer::error(
            431,
            format!("request headers larger than {MAX_HEADERS} bytes"),
            None,
        );
    }
    if let Some(token) = token {
        let given = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
            .map(|(_, v)| *v)
            .unwrap_or("");
        let expected = format!("Bearer {token}");
        if !constant_time_eq(given.as_bytes(), expected.as_bytes()) {
            let mut a = Answer::error(
                401,
                "missing or wrong token: send `Authorization: Bearer <HOTPATH_METRICS_AUTH_TOKEN>`"
                    .into(),
                None,
            );
            a.header = Some(("WWW-Authenticate", "Bearer"));
            return a;
        }
    }
    let path = url.split(['?', '#']).next().unwrap_or("");
    let path = if path.len() > 1 {
        path.trim_end_matches('/')
    } else {
        path
    };
    let known = matches!(
        path,
        "/report"
            | "/functions_timing"
            | "/functions_alloc"
            | "/functions_cpu"
            | "/io"
            | "/threads"
            | "/profiler_status"
            | "/metrics"
    );
    if !known {
        return Answer::error(404, format!("no route {path}; routes: {ROUTES}"), None);
    }
    if !matches!(method, Method::Get | Method::Head) {
        let mut a = Answer::error(405, format!("{path} answers GET only, not {method}"), None);
        a.header = Some(("Allow", "GET, HEAD"));
        return a;
    }
    match path {
        "/report" => Answer::json(200, to_json(&source.report())),
        "/profiler_status" => Answer::json(200, to_json(&source.status())),
        "/metrics" => metrics(source),
        "/functions_timing" => section(source, "timing", None),
        "/functions_alloc" => section(source, "alloc", Some("hotpath-alloc")),
        "/functions_cpu" => section(source, "cpu", Some("hotpath-cpu")),
        "/io" => section(source, "io", None),
        "/threads" => section(source, "threads", None),
        _ => unreachable!("known routes are matched above"),
    }
}

#[cfg(feature = "hotpath-prometheus")]
fn metrics(source: &dyn Source) -> Answer {
    Answer {
        status: 200,
        content_type: "text/plain; version=0.0.4; charset=utf-8",
        body: source.prometheus(),
        header: None,
    }
}

#[cfg(not(feature = "hotpath-prometheus"))]
fn metrics(_source: &dyn Source) -> Answer {
    Answer::error(
        404,
        "/metrics needs the feature hotpath-prometheus".into(),
        Some("hotpath-prometheus"),
    )
}

/// A section of the report, or why it is not there.
fn section(source: &dyn Source, name: &'static str, feature: Option<&'static str>) -> Answer {
    let compiled = match name {
        "alloc" => cfg!(feature = "hotpath-alloc"),
        "cpu" => cfg!(feature = "hotpath-cpu"),
        "threads" => cfg!(target_os = "linux"),
        _ => true,
    };
    if !compiled {
        return match feature {
            Some(f) => Answer::error(
                404,
                format!("section {name} needs the feature {f}"),
                Some(f),
            ),
            None => Answer::error(404, format!("section {name} needs Linux"), None),
        };
    }
    if !source.sections().contains(&name) {
        return Answer::error(
            404,
            format!("section {name} is turned off (HOTPATH_REPORT)"),
            None,
        );
    }
    let r = source.report();
    let functions = |f: fn(&mut crate::report::Function)| {
        let mut v = r.functions.clone();
        v.iter_mut().for_each(f);
        Some(v)
    };
    let mut fragment = Fragment {
        schema_version: SCHEMA_VERSION,
        section: name.to_string(),
        caller: r.caller.clone(),
        elapsed_ns: r.elapsed_ns,
        percentiles: r.percentiles.clone(),
        notes: r.notes.clone(),
        alloc_total: None,
        cpu: None,
        functions: None,
        io_time_sampling_rate: None,
        io: None,
        threads: None,
        process_memory: None,
    };
    match name {
        "timing" => {
            fragment.functions = functions(|f| {
                f.alloc = None;
                f.cpu = None;
                f.io = None;
            })
        }
        "alloc" => {
            fragment.alloc_total = r.alloc_total.clone();
            fragment.functions = functions(|f| {
                f.cpu = None;
                f.io = None;
            });
        }
        "cpu" => {
            fragment.cpu = r.cpu.clone();
            fragment.functions = functions(|f| {
                f.alloc = None;
                f.io = None;
            });
        }
        "io" => {
            fragment.io_time_sampling_rate = r.io_time_sampling_rate;
            fragment.io = Some(r.io.clone().unwrap_or_default());
            fragment.functions = functions(|f| {
                f.alloc = None;
                f.cpu = None;
            })
            .map(|v| v.into_iter().filter(|f| f.io.is_some()).collect());
        }
        _ => {
            fragment.threads = Some(r.threads.clone().unwrap_or_default());
            fragment.process_memory = r.process_memory.clone();
        }
    }
    Answer::json(200, to_json(&fragment))
}

/// Compares in time that depends only on the lengths, not on where the bytes differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len().max(b.len());
    let mut diff = (a.len() ^ b.len()) as u64;
    for i in 0..n {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= u64::from(x ^ y);
    }
    std::hint::black_box(diff) == 0
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|e| format!("{{\"error\":\"could not serialize: {e}\"}}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Function, WallNs};

    /// A session with one function of 3 calls.
    struct Fake {
        sections: Vec<&'static str>,
    }

    impl Source for Fake {
        fn report(&self) -> Report {
            Report {
                schema_version: SCHEMA_VERSION,
                caller: "app::main".into(),
                elapsed_ns: 1_000,
                sections: self.sections.iter().map(|s| s.to_string()).collect(),
                percentiles: vec![50.0],
                overhead_per_call_ns: 20.0,
                overhead_ns: 60,
                clock: "tsc".into(),
                time_sampling_rate: 1.0,
                io_time_sampling_rate: None,
                notes: vec![],
                alloc_total: None,
                cpu: None,
                functions: vec![Function {
                    name: "app::work".into(),
                    label: None,
                    file: "src/main.rs".into(),
                    line: 3,
                    calls: 3,
                    timed_calls: 3,
                    is_async: false,
                    sampled: false,
                    wall_ns: Some(WallNs {
                        total: 300,
                        self_: 300,
                        mean: 100,
                        min: 90,
                        max: 110,
                        percentiles: crate::report::Percentiles(vec![(50.0, 100)]),
                    }),
                    polls: None,
                    busy_ns: None,
                    cancelled: None,
                    alloc: None,
                    cpu: None,
                    io: None,
                }],
                io: None,
                threads: Some(vec![]),
                process_memory: None,
            }
        }

        fn status(&self) -> ProfilerStatus {
            ProfilerStatus {
                schema_version: SCHEMA_VERSION,
                version: "0.1.0".into(),
                pid: 7,
                caller: "app::main".into(),
                uptime_ns: 1_000,
                sections: self.sections.iter().map(|s| s.to_string()).collect(),
                features: vec!["hotpath".into()],
                cpu_mode: None,
                cpu_source: None,
                clock: "tsc".into(),
                time_sampling_rate: 1.0,
            }
        }

        fn sections(&self) -> Vec<&'static str> {
            self.sections.clone()
        }

        #[cfg(feature = "hotpath-prometheus")]
        fn prometheus(&self) -> String {
            "hotpath_uptime_seconds 1\n".into()
        }
    }

    fn fake() -> Fake {
        Fake {
            sections: crate::config::all_sections(),
        }
    }

    fn get(url: &str, headers: &[(&str, &str)], token: Option<&str>) -> Answer {
        route(&Method::Get, url, headers, token, &fake())
    }

    fn error_of(a: &Answer) -> ApiError {
        serde_json::from_str(&a.body).unwrap_or_else(|e| panic!("{e}: {}", a.body))
    }

    #[test]
    fn the_report_and_the_status_are_typed_json() {
        let a = get("/report", &[], None);
        assert_eq!((a.status, a.content_type), (200, "application/json"));
        assert_eq!(Report::from_json(&a.body).unwrap(), fake().report());
        let a = get("/profiler_status?x=1", &[], None);
        assert_eq!(ProfilerStatus::from_json(&a.body).unwrap(), fake().status());
        // A trailing slash is the same route.
        assert_eq!(get("/report/", &[], None).status, 200);
    }

    #[test]
    fn fragments_carry_only_their_section() {
        let a = get("/functions_timing", &[], None);
        let f = Fragment::from_json(&a.body).unwrap();
        assert_eq!(f.section, "timing");
        assert_eq!(f.functions.as_ref().map(|v| v[0].calls), Some(3));
        assert_eq!((f.io.is_none(), f.threads.is_none()), (true, true));
        let f = Fragment::from_json(&get("/io", &[], None).body).unwrap();
        // No function made I/O: the io fragment lists none.
        assert_eq!((f.io, f.functions), (Some(vec![]), Some(vec![])));
        if cfg!(target_os = "linux") {
            let f = Fragment::from_json(&get("/threads", &[], None).body).unwrap();
            assert_eq!((f.threads, f.functions), (Some(vec![]), None));
        }
    }

    #[test]
    fn sections_not_compiled_in_name_their_feature() {
        for (url, feature, on) in [
            (
                "/functions_alloc",
                "hotpath-alloc",
                cfg!(feature = "hotpath-alloc"),
            ),
            (
                "/functions_cpu",
                "hotpath-cpu",
                cfg!(feature = "hotpath-cpu"),
            ),
            (
                "/metrics",
                "hotpath-prometheus",
                cfg!(feature = "hotpath-prometheus"),
            ),
        ] {
            let a = get(url, &[], None);
            if on {
                assert_eq!(a.status, 200, "{url}: {}", a.body);
            } else {
                assert_eq!(a.status, 404, "{url}");
                let e = error_of(&a);
                assert_eq!(e.feature.as_deref(), Some(feature), "{url}");
                assert!(e.error.contains(feature), "{e:?}");
            }
        }
    }

    #[test]
    fn sections_turned_off_answer_404() {
        let source = Fake {
            sections: vec!["timing"],
        };
        let a = route(&Method::Get, "/io", &[], None, &source);
        assert_eq!(a.status, 404);
        assert!(error_of(&a).error.contains("turned off"), "{}", a.body);
    }

    #[test]
    fn unknown_routes_wrong_methods_and_oversized_requests_are_4xx() {
        let a = get("/nope", &[], None);
        assert_eq!(a.status, 404);
        assert!(error_of(&a).error.contains("/report"), "{}", a.body);
        let a = route(&Method::Post, "/report", &[], None, &fake());
        assert_eq!((a.status, a.header), (405, Some(("Allow", "GET, HEAD"))));
        let long = format!("/report?{}", "x".repeat(MAX_URL));
        assert_eq!(get(&long, &[], None).status, 414);
        let big = "y".repeat(MAX_HEADERS);
        assert_eq!(get("/report", &[("X-Big", &big)], None).status, 431);
    }

    #[test]
    fn a_token_is_required_when_set() {
        let t = Some("s3cret");
        let a = get("/report", &[], t);
        assert_eq!(
            (a.status, a.header),
            (401, Some(("WWW-Authenticate", "Bearer")))
        );
        assert_eq!(
            get("/report", &[("Authorization", "Bearer wrong")], t).status,
            401
        );
        assert_eq!(
            get("/report", &[("Authorization", "s3cret")], t).status,
            401
        );
        assert_eq!(
            get("/report", &[("authorization", "Bearer s3cret")], t).status,
            200
        );
        // Unknown routes do not tell who is not authorised.
        assert_eq!(get("/nope", &[], t).status, 401);
    }

    #[test]
    fn tokens_compare_equal_only_when_equal() {
        assert!(constant_time_eq(b"Bearer abc", b"Bearer abc"));
        assert!(!constant_time_eq(b"Bearer abd", b"Bearer abc"));
        assert!(!constant_time_eq(b"Bearer ab", b"Bearer abc"));
        assert!(!constant_time_eq(b"", b"Bearer abc"));
        assert!(!constant_time_eq(b"Bearer abc\0", b"Bearer abc"));
    }
}
