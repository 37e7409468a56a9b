//! HTTP client front ends (features `reqwest-0-12`, `reqwest-0-13`, `ureq-3`): the reqwest middleware (through reqwest-middleware) and the
//! ureq middleware. Each request is one operation of the site of its endpoint
//! (`METHOD host:port/path` with ids folded, or `METHOD label`) and calling function,
//! timed to the response head; no response is an error, a response counts in its
//! status class. The time is charged to the calling function (`waits`).
//!
//! With body timing (`http!(client, body = true)`, reqwest only) the response's body is
//! re-wrapped so that its end is seen too: the time from the request's start to the end
//! of the body goes to the second distribution (`body_ns`), and the time spent reading
//! the body is charged to the function that read it. reqwest offers no other way in
//! than out of the response and back (`http::Response<reqwest::Body>`), and each way
//! wraps a body error once more: an error met while reading the body has two more
//! `reqwest::Error`s (kind body) in its source chain, its text and kind unchanged;
//! everything else about the response stays as it was.

//!
//! Allocations (`hotpath-alloc`): the middleware's own work and the boxes it makes are
//! the profiler's. What stays charged to the function that sends a request through
//! `http!(reqwest::Client)` is reqwest-middleware's: `client.get(url)` copies the
//! client's middleware stack (one allocation of 16 bytes, freed when the request is
//! sent), and it frees the box of the middleware's future (8 bytes: a pointer to the
//! future, whose own box is the profiler's). With `http!`'s client the box
//! reqwest-middleware makes for the client's call past the last middleware is the
//! profiler's too (it exists only because of the middleware); a middleware added after
//! hotpath's to that client (`ClientBuilder::from`) then has its own box left out of the
//! program's allocations. `ReqwestHttpMiddleware` added to a program's own stack leaves
//! that box to the program, as it would be without hotpath.
//!
//! Without the `hotpath` feature only ureq's middleware is here, and it only forwards the
//! request: reqwest's needs reqwest-middleware, which is built with `hotpath` alone (and
//! `http!` is then the client itself), so the timing helpers below go unused.
#![cfg_attr(not(feature = "hotpath"), allow(dead_code))]

/// A request in progress: its endpoint's site (looked up before the request is sent,
/// from the request's parts, so that nothing of the request is copied), its source and
/// its start.
pub(crate) struct Start {
    #[cfg(feature = "hotpath")]
    site: Option<&'static hotpath_core::CallSite>,
    #[cfg(feature = "hotpath")]
    source: Option<&'static hotpath_core::CallSite>,
    #[cfg(feature = "hotpath")]
    t0: u64,
}

/// The parts of a request's URL a key is made of (never the query string).
pub(crate) struct Target<'a> {
    pub method: &'a str,
    pub host: &'a str,
    pub port: Option<u16>,
    pub path: &'a str,
}

/// Starts timing a request made by the innermost measured function on this thread to
/// `t`, by `client` (`label`: the `http!` label).
#[cfg(not(feature = "hotpath"))]
pub(crate) fn start(_: &'static str, _: Option<&'static str>, _: Target<'_>) -> Start {
    Start {}
}

/// Starts timing a request made by the innermost measured function on this thread to
/// `t`, by `client` (`label`: the `http!` label). Finding its endpoint's site (a key made
/// and interned at its first request) is the profiler's work: nothing of it is charged
/// to the caller, and nothing is timed.
#[cfg(feature = "hotpath")]
pub(crate) fn start(client: &'static str, label: Option<&'static str>, t: Target<'_>) -> Start {
    use crate::service as svc;
    use hotpath_core::SiteKind;
    let source = svc::innermost();
    let site = hotpath_core::op::Here::get().map(|_| {
        hotpath_core::internal(|| {
            let port = t.port.map(|p| p.to_string()).unwrap_or_default();
            svc::site(
                SiteKind::HttpClient,
                &[client, t.method, label.unwrap_or(""), t.host, &port, t.path],
                source,
                || svc::Info {
                    backend: client,
                    source,
                    label,
                },
                || match label {
                    Some(l) => format!("{} {l}", t.method),
                    None => svc::normalize::endpoint(t.method, t.host, t.port, t.path),
                },
            )
        })
    });
    Start {
        site,
        source,
        t0: hotpath_core::op::now(),
    }
}

/// Records a request's head: `status` is `None` when no response came. Returns what
/// the end of its body is recorded with.
#[cfg(not(feature = "hotpath"))]
pub(crate) fn finish(_: Start, _: Option<u16>) -> Option<BodyRec> {
    None
}

/// A response whose body's end is still to come (nothing without `hotpath`).
#[cfg(not(feature = "hotpath"))]
pub(crate) struct BodyRec(());

/// A response whose body's end is still to come: its site and start, and who reads it.
#[cfg(feature = "hotpath")]
pub(crate) struct BodyRec {
    site: &'static hotpath_core::CallSite,
    t0: u64,
    /// When the body was first polled (0: not yet).
    first: u64,
    /// The innermost measured function at the first poll: the body's reader.
    reader: Option<&'static hotpath_core::CallSite>,
}

#[cfg_attr(
    not(any(feature = "reqwest-0-12", feature = "reqwest-0-13")),
    allow(dead_code)
)]
impl BodyRec {
    /// Notes the body's first poll, and who polled it.
    #[inline]
    fn polled(&mut self) {
        #[cfg(feature = "hotpath")]
        if self.first == 0 {
            self.first = hotpath_core::op::now().max(1);
            self.reader = crate::service::innermost();
        }
    }

    /// Records the end of the body: the time from the request's start, and the time
    /// spent reading the body charged to its reader (`waits`).
    fn finish(self) {
        #[cfg(feature = "hotpath")]
        hotpath_core::internal(|| {
            let end = hotpath_core::op::now();
            let Some(here) = hotpath_core::op::Here::get() else {
                return;
            };
            let Some(slot) = here.slot(self.site) else {
                return;
            };
            let total = end.saturating_sub(self.t0);
            slot.record2(total);
            slot.c.busy.add(total);
            if self.first != 0 {
                crate::service::charge(
                    here,
                    self.reader,
                    hotpath_core::op::Wait::Http,
                    end.saturating_sub(self.first),
                );
            }
        });
    }
}

/// Records a request's head: `status` is `None` when no response came. Returns what
/// the end of its body is recorded with.
#[cfg(feature = "hotpath")]
pub(crate) fn finish(s: Start, status: Option<u16>) -> Option<BodyRec> {
    use crate::service as svc;
    use hotpath_core::op::{Here, Wait};
    let dt = hotpath_core::op::now().saturating_sub(s.t0);
    let site = s.site?;
    let here = Here::get()?;
    let slot = hotpath_core::internal(|| here.slot(site))?;
    slot.record_op(dt);
    match status.and_then(svc::status_class) {
        Some(0) => slot.c.status_1xx.add(1),
        Some(1) => slot.c.status_2xx.add(1),
        Some(2) => slot.c.status_3xx.add(1),
        Some(3) => slot.c.status_4xx.add(1),
        Some(_) => slot.c.status_5xx.add(1),
        None => slot.c.errors.add(1),
    }
    svc::charge(here, s.source, Wait::Http, dt);
    status.map(|_| BodyRec {
        site,
        t0: s.t0,
        first: 0,
        reader: None,
    })
}

#[cfg(all(
    feature = "hotpath",
    any(feature = "reqwest-0-12", feature = "reqwest-0-13")
))]
pin_project_lite::pin_project! {
    /// A response body that records the end of its request's body (body timing).
    struct TimedBody<B> {
        #[pin]
        inner: B,
        rec: Option<BodyRec>,
    }
}

#[cfg(all(
    feature = "hotpath",
    any(feature = "reqwest-0-12", feature = "reqwest-0-13")
))]
impl<B: http_body::Body> http_body::Body for TimedBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let mut this = self.project();
        if let Some(rec) = this.rec.as_mut() {
            rec.polled();
        }
        let r = std::task::ready!(this.inner.as_mut().poll_frame(cx));
        let ended = match &r {
            None | Some(Err(_)) => true,
            Some(Ok(_)) => this.inner.is_end_stream(),
        };
        if ended {
            if let Some(rec) = this.rec.take() {
                rec.finish();
            }
        }
        std::task::Poll::Ready(r)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// Runs `f` as the profiler's work: its allocations are not charged to the program.
#[cfg(all(
    feature = "hotpath",
    any(feature = "reqwest-0-12", feature = "reqwest-0-13")
))]
#[inline]
fn internal<R>(f: impl FnOnce() -> R) -> R {
    hotpath_core::internal(f)
}

/// A boxed future whose box is the profiler's (allocated under [`internal`] by who made
/// it): freed under [`internal`] as soon as the future completes, when only the box is
/// left to free. Dropped before it completes, the future is dropped as usual, in the
/// program's time (what it held is the program's), its box with it.
#[cfg(all(
    feature = "hotpath",
    any(feature = "reqwest-0-12", feature = "reqwest-0-13")
))]
struct Internal<F: ?Sized>(Option<std::pin::Pin<Box<F>>>);

#[cfg(all(
    feature = "hotpath",
    any(feature = "reqwest-0-12", feature = "reqwest-0-13")
))]
impl<F: std::future::Future + ?Sized> Internal<F> {
    fn new(f: std::pin::Pin<Box<F>>) -> Self {
        Internal(Some(f))
    }
}

#[cfg(all(
    feature = "hotpath",
    any(feature = "reqwest-0-12", feature = "reqwest-0-13")
))]
impl<F: std::future::Future + ?Sized> std::future::Future for Internal<F> {
    type Output = F::Output;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let f = self
            .0
            .as_mut()
            .expect("hotpath: a request's future polled after it completed");
        let r = std::task::ready!(f.as_mut().poll(cx));
        let done = self.0.take();
        internal(|| drop(done));
        std::task::Poll::Ready(r)
    }
}

/// One reqwest version's module (`$modname`, the middleware over `$reqwest` and its
/// `reqwest-middleware`, `$mw`) and what `http!` does to its client.
#[cfg(all(
    feature = "hotpath",
    any(feature = "reqwest-0-12", feature = "reqwest-0-13")
))]
macro_rules! reqwest_middleware_impl {
    ($modname:ident, $reqwest:ident, $mw:ident) => {
        pub mod $modname {
            use ::hotpath_integrations::$mw::{Middleware, Next, Result};
            use ::$reqwest::{Request, Response};

            /// The middleware `http!` adds to a reqwest client.
            #[derive(Clone, Debug, Default)]
            pub struct ReqwestHttpMiddleware {
                pub(crate) label: Option<&'static str>,
                pub(crate) bodies: bool,
                /// Made by `http!`, the client's only middleware: the future
                /// reqwest-middleware boxes past the last middleware (`Next::run`)
                /// exists only because of it, and is the profiler's.
                pub(crate) sole: bool,
            }

            impl ReqwestHttpMiddleware {
                /// Keys requests by method and URL template.
                pub fn new() -> Self {
                    ReqwestHttpMiddleware {
                        label: None,
                        bodies: false,
                        sole: false,
                    }
                }

                /// Keys requests by method and `label`.
                pub fn with_label(label: &'static str) -> Self {
                    ReqwestHttpMiddleware {
                        label: Some(label),
                        bodies: false,
                        sole: false,
                    }
                }

                /// Also times each response to the end of its body (`body_ns`), by
                /// re-wrapping the body: an error met while reading the body then has
                /// two more `reqwest::Error`s (kind body) in its source chain (its text
                /// and kind unchanged). What `http!(client, body = true)` adds.
                pub fn time_bodies(mut self) -> Self {
                    self.bodies = true;
                    self
                }
            }

            impl ReqwestHttpMiddleware {
                /// One request through the middleware.
                async fn run(
                    &self,
                    req: Request,
                    extensions: &mut http::Extensions,
                    next: Next<'_>,
                ) -> Result<Response> {
                    let url = req.url();
                    let start = super::start(
                        "reqwest",
                        self.label,
                        super::Target {
                            method: req.method().as_str(),
                            host: url.host_str().unwrap_or(""),
                            port: url.port(),
                            path: url.path(),
                        },
                    );
                    let r = if self.sole {
                        // Past the last middleware `run` only boxes the client's call.
                        super::Internal::new(super::internal(|| next.run(req, extensions))).await
                    } else {
                        next.run(req, extensions).await
                    };
                    let status = r.as_ref().ok().map(|r| r.status().as_u16());
                    let rec = super::finish(start, status);
                    match (r, rec) {
                        (Ok(resp), Some(rec)) if self.bodies => Ok(time_body(resp, rec)),
                        (r, _) => r,
                    }
                }
            }

            /// `Middleware` as `#[async_trait]` would write it, but with the boxes made
            /// as the profiler's work (see [`super::Internal`]): the request's future in
            /// a box of its own, allocated and freed under `hotpath_core::internal`, in
            /// the box reqwest-middleware frees, which holds one pointer.
            impl Middleware for ReqwestHttpMiddleware {
                fn handle<'life0, 'life1, 'life2, 'async_trait>(
                    &'life0 self,
                    req: Request,
                    extensions: &'life1 mut http::Extensions,
                    next: Next<'life2>,
                ) -> ::std::pin::Pin<
                    Box<dyn ::std::future::Future<Output = Result<Response>> + Send + 'async_trait>,
                >
                where
                    'life0: 'async_trait,
                    'life1: 'async_trait,
                    'life2: 'async_trait,
                    Self: 'async_trait,
                {
                    let fut = self.run(req, extensions, next);
                    super::internal(|| Box::pin(super::Internal::new(Box::pin(fut))))
                }
            }

            /// Re-wraps `resp`'s body so that its end is recorded (`rec`). An empty
            /// body ends now, and the response is returned as it came.
            fn time_body(resp: Response, rec: super::BodyRec) -> Response {
                use ::$reqwest::ResponseBuilderExt as _;
                if resp.content_length() == Some(0) {
                    rec.finish();
                    return resp;
                }
                // The URL lives outside the parts; `From<http::Response<_>>` takes it
                // back from this extension.
                let url = ::http::Response::builder()
                    .url(resp.url().clone())
                    .body(())
                    .map(|r| r.into_parts().0.extensions);
                let (mut parts, body) =
                    ::http::Response::<::$reqwest::Body>::from(resp).into_parts();
                if let Ok(url) = url {
                    parts.extensions.extend(url);
                }
                let body = super::TimedBody {
                    inner: body,
                    rec: Some(rec),
                };
                Response::from(::http::Response::from_parts(
                    parts,
                    ::$reqwest::Body::wrap(body),
                ))
            }

            /// `http!(client)`: the client with the middleware; with `bodies`, it
            /// times responses to the end of their bodies.
            pub fn instrument(
                client: ::$reqwest::Client,
                label: Option<&'static str>,
                bodies: bool,
            ) -> ::hotpath_integrations::$mw::ClientWithMiddleware {
                ::hotpath_integrations::$mw::ClientBuilder::new(client)
                    .with(ReqwestHttpMiddleware {
                        label,
                        bodies,
                        sole: true,
                    })
                    .build()
            }
        }

        impl InstrumentHttpClient for ::$reqwest::Client {
            type Output = ::hotpath_integrations::$mw::ClientWithMiddleware;
            fn instrument(self, label: Option<&'static str>) -> Self::Output {
                $modname::instrument(self, label, false)
            }
        }

        impl InstrumentHttpClientBodies for ::$reqwest::Client {
            fn instrument_timing_bodies(self, label: Option<&'static str>) -> Self::Output {
                $modname::instrument(self, label, true)
            }
        }
    };
}

#[cfg(all(feature = "hotpath", feature = "reqwest-0-12"))]
reqwest_middleware_impl!(reqwest_012, reqwest_012, reqwest_middleware_04);
#[cfg(all(feature = "hotpath", feature = "reqwest-0-13"))]
reqwest_middleware_impl!(reqwest_013, reqwest_013, reqwest_middleware_05);

#[cfg(feature = "ureq-3")]
pub mod ureq_3 {
    use ureq::middleware::{Middleware, MiddlewareNext};
    use ureq::{Body, SendBody};

    /// ureq 3's middleware: `Agent::config_builder().middleware(UreqHttpMiddleware::new())`.
    #[derive(Clone, Debug, Default)]
    pub struct UreqHttpMiddleware {
        pub(crate) label: Option<&'static str>,
    }

    impl UreqHttpMiddleware {
        /// Keys requests by method and URL template.
        pub fn new() -> Self {
            UreqHttpMiddleware { label: None }
        }

        /// Keys requests by method and `label`.
        pub fn with_label(label: &'static str) -> Self {
            UreqHttpMiddleware { label: Some(label) }
        }
    }

    impl Middleware for UreqHttpMiddleware {
        fn handle(
            &self,
            request: http::Request<SendBody>,
            next: MiddlewareNext,
        ) -> Result<http::Response<Body>, ureq::Error> {
            let uri = request.uri();
            let start = super::start(
                "ureq",
                self.label,
                super::Target {
                    method: request.method().as_str(),
                    host: uri.host().unwrap_or(""),
                    port: uri.port_u16(),
                    path: uri.path(),
                },
            );
            let r = next.handle(request);
            let status = match &r {
                Ok(r) => Some(r.status().as_u16()),
                // ureq turns a 4xx or 5xx response into this error after the middleware
                // chain (`http_status_as_error`, on by default): a response all the same.
                Err(ureq::Error::StatusCode(code)) => Some(*code),
                Err(_) => None,
            };
            let _ = super::finish(start, status);
            r
        }
    }
}

/// What `http!` does to a client: adds the middleware (feature `hotpath`).
pub trait InstrumentHttpClient {
    /// The instrumented client.
    type Output;
    /// Adds the middleware, keyed by `label` when given.
    fn instrument(self, label: Option<&'static str>) -> Self::Output;
}

/// What `http!(client, body = true)` does to a client that can time response bodies
/// (reqwest): adds the middleware with body timing.
pub trait InstrumentHttpClientBodies: InstrumentHttpClient {
    /// Adds the middleware with body timing, keyed by `label` when given.
    fn instrument_timing_bodies(self, label: Option<&'static str>) -> Self::Output;
}

#[cfg(feature = "ureq-3")]
impl InstrumentHttpClient for ureq::config::ConfigBuilder<ureq::typestate::AgentScope> {
    type Output = Self;
    fn instrument(self, label: Option<&'static str>) -> Self::Output {
        self.middleware(ureq_3::UreqHttpMiddleware { label })
    }
}
