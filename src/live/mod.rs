//! The metrics server: the report so far over HTTP while the program runs.
//!
//! Started only when asked for (`HOTPATH_METRICS_PORT`, or the builder's
//! `metrics_port`), on `127.0.0.1` unless `HOTPATH_METRICS_HOST` says otherwise. It runs
//! on one thread of its own, `hotpath-metrics`: HTTP/1.1 by `hyper` on a current-thread
//! tokio runtime, so it starts no other thread. Each request is answered from a fresh
//! snapshot, the same data the exit report is made of. Nothing here runs on the
//! program's threads, and what a client can make it hold is bounded: at most
//! [`MAX_CONNECTIONS`] open connections (a new one closes the least recently active),
//! [`MAX_BUF`] bytes of request head buffered per connection, [`HEADER_TIMEOUT`] to send
//! a request head and [`CONNECTION_LIFETIME`] for a whole connection.

#[cfg(feature = "hotpath-prometheus")]
pub(crate) mod prometheus;

use std::convert::Infallible;
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::Notify;

use crate::config::warn;
use crate::report::{ApiError, Fragment, ProfilerStatus, Report, SCHEMA_VERSION};

/// Longest request line accepted (414 beyond).
const MAX_URL: usize = 2048;
/// Most bytes of header names and values accepted (431 beyond).
const MAX_HEADERS: usize = 16 * 1024;
/// Most bytes of a request head buffered before answering 431 without reading on; above
/// [`MAX_HEADERS`] so that a head between the two gets the JSON 431 of [`route`].
const MAX_BUF: usize = 128 * 1024;
/// Open connections served at once; a new one beyond that closes the least recently
/// active.
const MAX_CONNECTIONS: usize = 64;
/// Time a client has to send a request head (first or next on a kept-alive connection).
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest life of one connection.
const CONNECTION_LIFETIME: Duration = Duration::from_secs(300);
/// Name of the server's thread.
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
    stop: Arc<Notify>,
    port: u16,
    thread: Option<JoinHandle<()>>,
}

impl MetricsServer {
    /// Starts the server, or warns once and returns `None` (a port in use, a bad host):
    /// the program runs on without it.
    pub(crate) fn start(options: Options, source: Arc<dyn Source>) -> Option<MetricsServer> {
        let (tx, rx) = mpsc::channel();
        let stop = Arc::new(Notify::new());
        let stop2 = stop.clone();
        let where_ = format!("{}:{}", options.host, options.port);
        let spawned = std::thread::Builder::new()
            .name(THREAD_NAME.into())
            .spawn(move || {
                crate::threads::register_profiler_thread();
                crate::threads::register_profiler_thread_name(THREAD_NAME);
                // Everything this thread allocates is the profiler's, not the program's.
                hotpath_core::internal(|| {
                    // Bound here, on this thread: a host name is resolved without tokio's
                    // blocking pool, so no other thread starts.
                    let bound = std::net::TcpListener::bind((options.host.as_str(), options.port))
                        .and_then(|l| {
                            l.set_nonblocking(true)?;
                            let addr = l.local_addr()?;
                            let rt = tokio::runtime::Builder::new_current_thread()
                                .enable_io()
                                .enable_time()
                                .build()?;
                            Ok((l, addr, rt))
                        });
                    let (listener, addr, rt) = match bound {
                        Ok(b) => b,
                        Err(e) => {
                            let _ = tx.send(Err(e.to_string()));
                            return;
                        }
                    };
                    let token = options.token;
                    rt.block_on(async move {
                        let listener = match tokio::net::TcpListener::from_std(listener) {
                            Ok(l) => l,
                            Err(e) => {
                                let _ = tx.send(Err(e.to_string()));
                                return;
                            }
                        };
                        if tx.send(Ok(addr)).is_err() {
                            return;
                        }
                        serve(listener, &stop2, token.map(Arc::from), source).await;
                    });
                });
            });
        let thread = match spawned {
            Ok(t) => t,
            Err(e) => {
                warn(&format!(
                    "metrics server: could not start its thread ({e}); running without it"
                ));
                return None;
            }
        };
        match rx.recv_timeout(Duration::from_secs(5)) {
            Ok(Ok(addr)) => {
                eprintln!("[hotpath] metrics server on http://{addr}");
                Some(MetricsServer {
                    stop,
                    port: addr.port(),
                    thread: Some(thread),
                })
            }
            Ok(Err(e)) => {
                let _ = thread.join();
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
                stop.notify_one();
                None
            }
        }
    }

    /// Stops answering (open connections are closed) and joins the thread.
    pub(crate) fn stop(&mut self) {
        // A permit is stored if the server is between two waits.
        self.stop.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl std::fmt::Debug for MetricsServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsServer")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Accepts and serves connections until `stop` is notified; returning drops the
/// runtime's tasks, which closes every connection.
async fn serve(
    listener: tokio::net::TcpListener,
    stop: &Notify,
    token: Option<Arc<str>>,
    source: Arc<dyn Source>,
) {
    let connections = Arc::new(Connections::default());
    loop {
        let stream = tokio::select! {
            _ = stop.notified() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors and the like: wait rather than spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let (id, close) = connections.open();
        let entry = Entry(connections.clone(), id);
        let (token, source) = (token.clone(), source.clone());
        tokio::spawn(async move {
            // The service owns `entry`: the place is given up when the connection ends.
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                entry.0.active(entry.1);
                let answer = answer(&request, token.as_deref(), &*source);
                async move { Ok::<_, Infallible>(answer) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .max_buf_size(MAX_BUF)
                .serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = tokio::time::timeout(CONNECTION_LIFETIME, connection) => {}
                _ = close.notified() => {}
            }
        });
    }
}

/// The open connections, at most [`MAX_CONNECTIONS`]: a new one beyond that closes the
/// one whose last request is oldest (or that never sent one), so clients that open
/// connections and send nothing cannot lock others out.
#[derive(Default)]
struct Connections(Mutex<ConnectionList>);

#[derive(Default)]
struct ConnectionList {
    next_id: u64,
    open: Vec<Connection>,
}

struct Connection {
    id: u64,
    /// When it was opened or last received a request.
    active: Instant,
    close: Arc<Notify>,
}

impl Connections {
    fn lock(&self) -> std::sync::MutexGuard<'_, ConnectionList> {
        // Only the server's one thread takes it; a poisoned list is still a list.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a new connection, closing the least recently active one when full;
    /// returns its id and what tells it to close.
    fn open(&self) -> (u64, Arc<Notify>) {
        let mut list = self.lock();
        if list.open.len() >= MAX_CONNECTIONS {
            let oldest =
                (0..list.open.len()).min_by_key(|&i| (list.open[i].active, list.open[i].id));
            if let Some(i) = oldest {
                // A permit is stored if its task is not waiting yet.
                list.open.swap_remove(i).close.notify_one();
            }
        }
        let id = list.next_id;
        list.next_id += 1;
        let close = Arc::new(Notify::new());
        list.open.push(Connection {
            id,
            active: Instant::now(),
            close: close.clone(),
        });
        (id, close)
    }

    /// Marks a request received on connection `id`.
    fn active(&self, id: u64) {
        if let Some(c) = self.lock().open.iter_mut().find(|c| c.id == id) {
            c.active = Instant::now();
        }
    }
}

/// A connection's place in [`Connections`], given up when its task ends.
struct Entry(Arc<Connections>, u64);

impl Drop for Entry {
    fn drop(&mut self) {
        let mut list = self.0.lock();
        if let Some(i) = list.open.iter().position(|c| c.id == self.1) {
            list.open.swap_remove(i);
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
    request: &Request<Incoming>,
    token: Option<&str>,
    source: &dyn Source,
) -> Response<Full<Bytes>> {
    let headers: Vec<(&str, &str)> = request
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str(), v.to_str().unwrap_or("")))
        .collect();
    let url = request.uri().path_and_query().map_or("/", |p| p.as_str());
    let a = route(request.method(), url, &headers, token, source);
    let mut response = Response::new(Full::new(Bytes::from(a.body)));
    *response.status_mut() =
        StatusCode::from_u16(a.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = response.headers_mut();
    let mut add = |name: &str, value: &str| {
        // Checked conversions: a header never panics the server's thread.
        if let (Ok(n), Ok(v)) = (
            hyper::header::HeaderName::from_bytes(name.as_bytes()),
            hyper::header::HeaderValue::from_str(value),
        ) {
            h.insert(n, v);
        }
    };
    add("content-type", a.content_type);
    add("cache-control", "no-store");
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
    if method != Method::GET && method != Method::HEAD {
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
                    file: "src/main.rs".into(),
                    line: 3,
                    calls: 3,
                    timed_calls: 3,
                    wall_ns: Some(WallNs {
                        total: 300,
                        self_: 300,
                        mean: 100,
                        min: 90,
                        max: 110,
                        percentiles: crate::report::Percentiles(vec![(50.0, 100)]),
                    }),
                    ..Function::default()
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
        route(&Method::GET, url, headers, token, &fake())
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
        let a = route(&Method::GET, "/io", &[], None, &source);
        assert_eq!(a.status, 404);
        assert!(error_of(&a).error.contains("turned off"), "{}", a.body);
    }

    #[test]
    fn unknown_routes_wrong_methods_and_oversized_requests_are_4xx() {
        let a = get("/nope", &[], None);
        assert_eq!(a.status, 404);
        assert!(error_of(&a).error.contains("/report"), "{}", a.body);
        let a = route(&Method::POST, "/report", &[], None, &fake());
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
