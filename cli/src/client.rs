//! A small blocking client of the metrics server that a profiled program runs on
//! `HOTPATH_METRICS_HOST:HOTPATH_METRICS_PORT`.
//!
//! Every answer is read into the typed models of [`hotpath_report`], which refuse other
//! schema versions; failures come back as an [`Error`] whose variants say what to do.
//!
//! ```no_run
//! let client = hotpath_cli::client::Client::new("127.0.0.1", 6770, None);
//! match client.fetch_report() {
//!     Ok(report) => println!("{} functions", report.functions.len()),
//!     Err(e) => eprintln!("{e}"),
//! }
//! ```

use std::fmt;
use std::io;
use std::time::Duration;

use hotpath_report::{ApiError, Fragment, ProfilerStatus, ReadError, Report};

/// Connect and read timeout of [`Client::new`]: a program that does not answer within
/// it is treated as gone.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// Largest answer read, so that a wrong port cannot make the client read forever.
const MAX_BODY: u64 = 256 * 1024 * 1024;

/// Why nothing answered at the address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unreachable {
    /// Connection refused: nothing listens on the port.
    Refused,
    /// No connection or no answer within the timeout.
    TimedOut,
    /// The connection was closed or reset before a whole answer arrived.
    Closed,
    /// The host name did not resolve.
    HostNotFound,
    /// Another socket error.
    Io(io::ErrorKind),
}

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreachable::Refused => f.write_str("connection refused"),
            Unreachable::TimedOut => f.write_str("timed out"),
            Unreachable::Closed => f.write_str("connection closed"),
            Unreachable::HostNotFound => f.write_str("host not found"),
            Unreachable::Io(kind) => write!(f, "{kind}"),
        }
    }
}

/// Why a request to the metrics server failed.
#[derive(Debug)]
pub enum Error {
    /// Nothing answered at `addr`: the program is not running, has exited, does not
    /// serve metrics on that port, or stopped answering.
    Unreachable {
        /// `host:port`.
        addr: String,
        /// What happened to the connection.
        reason: Unreachable,
    },
    /// 401: the program requires a token (`HOTPATH_METRICS_AUTH_TOKEN`) and none or
    /// another one was sent. Pass it with `--token` or the same environment variable.
    Unauthorized {
        /// The route asked for, e.g. `/report`.
        route: String,
        /// Whether a token was sent (and refused).
        token_sent: bool,
    },
    /// Another 4xx or 5xx answer: a section that is not compiled in (404 naming the
    /// Cargo feature), an unknown route, a wrong method.
    Http {
        /// The route asked for.
        route: String,
        /// The HTTP status.
        status: u16,
        /// The server's explanation, when the body was an [`ApiError`].
        api: Option<ApiError>,
    },
    /// The answer is not a report of the schema version this build reads: another
    /// hotpath version, or another program on the port.
    Incompatible {
        /// The route asked for.
        route: String,
        /// What was wrong with it.
        source: ReadError,
    },
    /// Something answered, but not with HTTP the client understands (another kind of
    /// server on the port, an answer over the size limit).
    Protocol {
        /// The route asked for.
        route: String,
        /// The HTTP client's description.
        message: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unreachable { addr, reason } => write!(f, "cannot reach {addr} ({reason})"),
            Error::Unauthorized {
                route,
                token_sent: false,
            } => write!(
                f,
                "401 on {route}: the program requires a token; pass --token or set \
                 HOTPATH_METRICS_AUTH_TOKEN"
            ),
            Error::Unauthorized {
                route,
                token_sent: true,
            } => write!(
                f,
                "401 on {route}: the token was refused; pass the program's \
                 HOTPATH_METRICS_AUTH_TOKEN with --token"
            ),
            Error::Http { route, status, api } => {
                write!(f, "{status} on {route}")?;
                if let Some(api) = api {
                    write!(f, ": {}", api.error)?;
                    if let Some(feature) = &api.feature {
                        write!(f, " (Cargo feature {feature})")?;
                    }
                }
                Ok(())
            }
            Error::Incompatible { route, source } => write!(f, "{route}: {source}"),
            Error::Protocol { route, message } => write!(f, "{route}: {message}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Incompatible { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// `host:port`, with an IPv6 host in brackets: `[::1]:6770`.
pub fn addr(host: &str, port: u16) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// A blocking client of one program's metrics server.
#[derive(Clone)]
pub struct Client {
    agent: ureq::Agent,
    base: String,
    addr: String,
    token: Option<String>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The token stays out of debug output.
        f.debug_struct("Client")
            .field("addr", &self.addr)
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .finish()
    }
}

impl Client {
    /// A client of `http://host:port`, sending `Authorization: Bearer <token>` when a
    /// token is given, with [`DEFAULT_TIMEOUT`].
    pub fn new(host: &str, port: u16, token: Option<String>) -> Client {
        Client::with_timeout(host, port, token, DEFAULT_TIMEOUT)
    }

    /// As [`Client::new`], with `timeout` for connecting and for each read.
    pub fn with_timeout(host: &str, port: u16, token: Option<String>, timeout: Duration) -> Client {
        let config = ureq::Agent::config_builder()
            // 4xx answers carry an ApiError body to read.
            .http_status_as_error(false)
            // An HTTP_PROXY meant for the internet must not capture a local program.
            .proxy(None)
            .timeout_connect(Some(timeout))
            .timeout_per_read(Some(timeout))
            .timeout_per_write(Some(timeout))
            .build();
        let addr = addr(host, port);
        Client {
            agent: config.into(),
            base: format!("http://{addr}"),
            addr,
            token,
        }
    }

    /// `host:port` as the client writes it.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// `GET /report`: the whole report so far.
    pub fn fetch_report(&self) -> Result<Report, Error> {
        self.fetch("/report", Report::from_json)
    }

    /// `GET /profiler_status`: what the program is and what it collects.
    pub fn fetch_status(&self) -> Result<ProfilerStatus, Error> {
        self.fetch("/profiler_status", ProfilerStatus::from_json)
    }

    /// `GET <route>` for a section route (`/functions_timing`, `/functions_alloc`,
    /// `/functions_cpu`, `/io`, `/threads`).
    pub fn fetch_fragment(&self, route: &str) -> Result<Fragment, Error> {
        self.fetch(route, Fragment::from_json)
    }

    /// `GET route`, its body read by `read`.
    fn fetch<T>(&self, route: &str, read: fn(&str) -> Result<T, ReadError>) -> Result<T, Error> {
        let text = self.get(route)?;
        read(&text).map_err(|source| Error::Incompatible {
            route: route.into(),
            source,
        })
    }

    /// The body of a 2xx answer to `GET route`, or the error.
    fn get(&self, route: &str) -> Result<String, Error> {
        let mut request = self.agent.get(format!("{}{route}", self.base));
        if let Some(token) = &self.token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        let mut response = request.call().map_err(|e| self.transport(route, e))?;
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_string()
            .map_err(|e| self.transport(route, e));
        if status == 401 {
            return Err(Error::Unauthorized {
                route: route.into(),
                token_sent: self.token.is_some(),
            });
        }
        if !(200..300).contains(&status) {
            let api = body
                .ok()
                .and_then(|b| serde_json::from_str::<ApiError>(&b).ok());
            return Err(Error::Http {
                route: route.into(),
                status,
                api,
            });
        }
        body
    }

    fn transport(&self, route: &str, e: ureq::Error) -> Error {
        let unreachable = |reason| Error::Unreachable {
            addr: self.addr.clone(),
            reason,
        };
        match e {
            ureq::Error::Timeout(_) => unreachable(Unreachable::TimedOut),
            ureq::Error::HostNotFound => unreachable(Unreachable::HostNotFound),
            ureq::Error::ConnectionFailed => unreachable(Unreachable::Refused),
            ureq::Error::Io(io) => unreachable(match io.kind() {
                io::ErrorKind::ConnectionRefused => Unreachable::Refused,
                io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => Unreachable::TimedOut,
                io::ErrorKind::ConnectionReset
                | io::ErrorKind::ConnectionAborted
                | io::ErrorKind::BrokenPipe
                | io::ErrorKind::UnexpectedEof
                | io::ErrorKind::NotConnected => Unreachable::Closed,
                kind => Unreachable::Io(kind),
            }),
            other => Error::Protocol {
                route: route.into(),
                message: other.to_string(),
            },
        }
    }
}
