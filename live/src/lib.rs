//! The live servers of hotpath: the report so far over HTTP while the program runs.
//!
//! A crate of its own so that an instrumented program compiles an HTTP server and an
//! async runtime only when it asks for one: the facade's `hotpath-live` feature (implied
//! by `hotpath-prometheus` and `hotpath-mcp`) builds it; the session hands it a
//! [`Source`] and [`Options`]. Not meant to be used directly.
//!
//! The metrics server (this module, [`routes`]) is started only when asked for
//! (`HOTPATH_METRICS_PORT`, or the builder's `metrics_port`), on `127.0.0.1` unless
//! `HOTPATH_METRICS_HOST` says otherwise; the MCP server ([`mcp`], feature `hotpath-mcp`)
//! likewise with `HOTPATH_MCP_*`. Each runs on one thread of its own (`hotpath-metrics`,
//! `hotpath-mcp`): HTTP/1.1 by `hyper` on a current-thread tokio runtime, so it starts no
//! other thread. Each request is answered from a fresh snapshot, the same data the exit
//! report is made of. Nothing here runs on the program's threads, and what a client can
//! make a server hold is bounded: at most [`connections::MAX_CONNECTIONS`] open
//! connections (a new one closes the least recently active), [`MAX_BUF`] bytes of request
//! head buffered per connection, [`HEADER_TIMEOUT`] to send a request head and
//! [`CONNECTION_LIFETIME`] for a whole connection.
//!
//! Modules depend one way, each only on those listed before it: `access` (who may be
//! answered, how large a request head may be) and `connections` (the open connections);
//! `source` (the [`Source`] the servers answer from, and why a section is not served);
//! [`prometheus`] (a report as the `/metrics` exposition); `routes` (the metrics
//! server's answer to one request); this module (the servers' plumbing: [`Server`],
//! `serve`, [`start_metrics`]); [`mcp`] (the MCP server, on the same plumbing).

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod access;
mod connections;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "prometheus")]
pub mod prometheus;
mod routes;
mod source;

pub use source::Source;

use std::convert::Infallible;
use std::future::Future;
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::Notify;

use connections::{Connections, Entry};
use hotpath_core::warn;

/// Most bytes of a request head buffered before answering 431 without reading on; above
/// [`access::MAX_HEADERS`] so that a head between the two gets the JSON 431 of
/// [`routes::route`].
const MAX_BUF: usize = 128 * 1024;
/// Time a client has to send a request head (first or next on a kept-alive connection).
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest life of one connection.
const CONNECTION_LIFETIME: Duration = Duration::from_secs(300);

/// Where and how to listen.
#[derive(Clone, Debug)]
pub struct Options {
    /// The address or host name to bind.
    pub host: String,
    /// The port (0: any free one).
    pub port: u16,
    /// The bearer token every request must carry, if any.
    pub token: Option<String>,
    /// Host names answered besides addresses, `localhost` and `host`.
    pub allowed_hosts: Vec<String>,
    /// Called first on the server's thread, with the thread's name: the session marks
    /// the thread as the profiler's own.
    pub on_thread_start: fn(&'static str),
}

/// One kind of live server: how messages name it, its thread, the variable that picks
/// its port.
#[derive(Debug)]
pub(crate) struct Kind {
    /// `metrics server`, `MCP server`.
    pub what: &'static str,
    /// Name of its thread.
    pub thread: &'static str,
    /// The variable a warning points to for another port.
    pub port_var: &'static str,
    /// The variable that picks the address it binds.
    pub host_var: &'static str,
    /// The variable of its bearer token.
    pub token_var: &'static str,
    /// Path printed after the address on start (`/mcp`), or empty.
    pub path: &'static str,
}

/// The metrics server.
pub(crate) const METRICS: Kind = Kind {
    what: "metrics server",
    thread: "hotpath-metrics",
    port_var: "HOTPATH_METRICS_PORT",
    host_var: "HOTPATH_METRICS_HOST",
    token_var: "HOTPATH_METRICS_AUTH_TOKEN",
    path: "",
};

/// A running live server; stopped and joined on drop.
pub struct Server {
    kind: &'static Kind,
    stop: Arc<Notify>,
    port: u16,
    thread: Option<JoinHandle<()>>,
}

/// Starts the metrics server, or warns once and returns `None`.
pub fn start_metrics(options: Options, source: Arc<dyn Source>) -> Option<Server> {
    let token: Option<Arc<str>> = options.token.clone().map(Arc::from);
    let hosts = Arc::new((options.host.clone(), options.allowed_hosts.clone()));
    Server::start(&METRICS, &options, move |listener, stop| async move {
        serve(listener, &stop, move |request: Request<Incoming>| {
            let host = request
                .headers()
                .get(hyper::header::HOST)
                .map(|h| h.to_str().unwrap_or("\u{fffd}"));
            let answer = if access::host_allowed(host, &hosts.0, &hosts.1) {
                routes::answer(&request, token.as_deref(), &*source)
            } else {
                access::forbidden(host.unwrap_or(""))
            };
            std::future::ready(answer)
        })
        .await;
    })
}

impl Server {
    /// Binds `options.host:port` on a thread of its own and runs `serve` there on a
    /// current-thread runtime until stopped; or warns once and returns `None` (a port in
    /// use, a bad host): the program runs on without it.
    pub(crate) fn start<F, Fut>(kind: &'static Kind, options: &Options, serve: F) -> Option<Server>
    where
        F: FnOnce(tokio::net::TcpListener, Arc<Notify>) -> Fut + Send + 'static,
        Fut: Future<Output = ()>,
    {
        let (tx, rx) = mpsc::channel();
        let stop = Arc::new(Notify::new());
        let stop2 = stop.clone();
        let where_ = format!("{}:{}", options.host, options.port);
        let (host, port) = (options.host.clone(), options.port);
        let has_token = options.token.is_some();
        let on_thread_start = options.on_thread_start;
        let spawned = std::thread::Builder::new()
            .name(kind.thread.into())
            .spawn(move || {
                (on_thread_start)(kind.thread);
                // Everything this thread allocates is the profiler's, not the program's.
                hotpath_core::internal(|| {
                    // Bound here, on this thread: a host name is resolved without tokio's
                    // blocking pool, so no other thread starts.
                    let bound = std::net::TcpListener::bind((host.as_str(), port)).and_then(|l| {
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
                        serve(listener, stop2).await;
                    });
                });
            });
        let what = kind.what;
        let thread = match spawned {
            Ok(t) => t,
            Err(e) => {
                warn(&format!(
                    "{what}: could not start its thread ({e}); running without it"
                ));
                return None;
            }
        };
        match rx.recv_timeout(Duration::from_secs(5)) {
            Ok(Ok(addr)) => {
                eprintln!("[hotpath] {what} on http://{addr}{}", kind.path);
                if !addr.ip().is_loopback() && !has_token {
                    warn(&format!(
                        "the {what} listens on {addr}, not a loopback address, without a \
                         token: anyone who can reach it can read the report; set {}, or \
                         bind 127.0.0.1 ({})",
                        kind.token_var, kind.host_var
                    ));
                }
                Some(Server {
                    kind,
                    stop,
                    port: addr.port(),
                    thread: Some(thread),
                })
            }
            Ok(Err(e)) => {
                let _ = thread.join();
                warn(&format!(
                    "{what}: cannot listen on {where_} ({}, {}): {e}; running without it \
                     ({} picks another port, 0 any free one)",
                    kind.host_var, kind.port_var, kind.port_var
                ));
                None
            }
            Err(_) => {
                warn(&format!(
                    "{what}: {where_} did not start within 5 s; running without it"
                ));
                stop.notify_one();
                None
            }
        }
    }

    /// Stops answering (open connections are closed) and joins the thread.
    pub fn stop(&mut self) {
        // A permit is stored if the server is between two waits.
        self.stop.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("what", &self.kind.what)
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Accepts and serves connections until `stop` is notified, answering each request with
/// `handler`; returning drops the runtime's tasks, which closes every connection.
pub(crate) async fn serve<H, Fut, B>(listener: tokio::net::TcpListener, stop: &Notify, handler: H)
where
    H: Fn(Request<Incoming>) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = Response<B>> + Send + 'static,
    B: hyper::body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
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
        let handler = handler.clone();
        tokio::spawn(async move {
            // The service owns `entry`: the place is given up when the connection ends.
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                entry.0.active(entry.1);
                let answer = handler(request);
                async move { Ok::<_, Infallible>(answer.await) }
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
