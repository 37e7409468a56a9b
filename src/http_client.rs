//! HTTP client front ends (features `reqwest-0-12`, `reqwest-0-13`, `ureq-3`): the reqwest middleware (through reqwest-middleware) and the
//! ureq middleware. Each request is one operation of the site of its endpoint
//! (`METHOD host:port/path` with ids folded, or `METHOD label`) and calling function,
//! timed to the response head; no response is an error, a response counts in its
//! status class. The time is charged to the calling function (`waits`).

//!
//! Without the `hotpath` feature the middleware only forwards the request.

/// A request in progress: its source and start.
pub(crate) struct Start {
    #[cfg(feature = "hotpath")]
    source: Option<&'static hotpath_core::CallSite>,
    #[cfg(feature = "hotpath")]
    t0: u64,
}

/// Starts timing a request made by the innermost measured function on this thread.
pub(crate) fn start() -> Start {
    Start {
        #[cfg(feature = "hotpath")]
        source: crate::service::innermost(),
        #[cfg(feature = "hotpath")]
        t0: hotpath_core::op::now(),
    }
}

/// The parts of a request's URL a key is made of (never the query string).
#[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
pub(crate) struct Target<'a> {
    pub method: &'a str,
    pub host: &'a str,
    pub port: Option<u16>,
    pub path: &'a str,
}

/// Records a finished request: `status` is `None` when no response came.
#[cfg(not(feature = "hotpath"))]
pub(crate) fn finish(
    _: Start,
    _: &'static str,
    _: Option<&'static str>,
    _: Target<'_>,
    _: Option<u16>,
) {
}

/// Records a finished request: `status` is `None` when no response came.
#[cfg(feature = "hotpath")]
pub(crate) fn finish(
    s: Start,
    client: &'static str,
    label: Option<&'static str>,
    t: Target<'_>,
    status: Option<u16>,
) {
    use crate::service as svc;
    use hotpath_core::op::{Here, Wait};
    use hotpath_core::SiteKind;
    let dt = hotpath_core::op::now().saturating_sub(s.t0);
    let Some(here) = Here::get() else { return };
    let source = s.source;
    let port = t.port.map(|p| p.to_string()).unwrap_or_default();
    let site = svc::site(
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
    );
    let Some(slot) = here.slot(site) else { return };
    slot.record_op(dt);
    match status.and_then(svc::status_class) {
        Some(0) => slot.c.status_1xx.add(1),
        Some(1) => slot.c.status_2xx.add(1),
        Some(2) => slot.c.status_3xx.add(1),
        Some(3) => slot.c.status_4xx.add(1),
        Some(_) => slot.c.status_5xx.add(1),
        None => slot.c.errors.add(1),
    }
    svc::charge(here, source, Wait::Http, dt);
}

macro_rules! reqwest_middleware_impl {
    ($modname:ident, $reqwest:ident, $mw:ident) => {
        pub mod $modname {
            use ::$mw::{Middleware, Next, Result};
            use ::$reqwest::{Request, Response};

            /// The middleware `http!` adds to a reqwest client.
            #[derive(Clone, Debug, Default)]
            pub struct ReqwestHttpMiddleware {
                pub(crate) label: Option<&'static str>,
            }

            impl ReqwestHttpMiddleware {
                /// Keys requests by method and URL template.
                pub fn new() -> Self {
                    ReqwestHttpMiddleware { label: None }
                }

                /// Keys requests by method and `label`.
                pub fn with_label(label: &'static str) -> Self {
                    ReqwestHttpMiddleware { label: Some(label) }
                }
            }

            #[async_trait::async_trait]
            impl Middleware for ReqwestHttpMiddleware {
                async fn handle(
                    &self,
                    req: Request,
                    extensions: &mut http::Extensions,
                    next: Next<'_>,
                ) -> Result<Response> {
                    let start = super::start();
                    let method = req.method().as_str().to_string();
                    let url = req.url();
                    let (host, port, path) = (
                        url.host_str().unwrap_or("").to_string(),
                        url.port(),
                        url.path().to_string(),
                    );
                    let r = next.run(req, extensions).await;
                    let status = r.as_ref().ok().map(|r| r.status().as_u16());
                    super::finish(
                        start,
                        "reqwest",
                        self.label,
                        super::Target {
                            method: &method,
                            host: &host,
                            port,
                            path: &path,
                        },
                        status,
                    );
                    r
                }
            }

            /// `http!(client)`: the client with the middleware.
            pub fn instrument(
                client: ::$reqwest::Client,
                label: Option<&'static str>,
            ) -> ::$mw::ClientWithMiddleware {
                ::$mw::ClientBuilder::new(client)
                    .with(ReqwestHttpMiddleware { label })
                    .build()
            }
        }
    };
}

#[cfg(feature = "reqwest-0-12")]
reqwest_middleware_impl!(reqwest_012, reqwest_012, reqwest_middleware_04);
#[cfg(feature = "reqwest-0-13")]
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
            let start = super::start();
            let method = request.method().as_str().to_string();
            let uri = request.uri();
            let (host, port, path) = (
                uri.host().unwrap_or("").to_string(),
                uri.port_u16(),
                uri.path().to_string(),
            );
            let r = next.handle(request);
            let status = match &r {
                Ok(r) => Some(r.status().as_u16()),
                // ureq turns a 4xx or 5xx response into this error after the middleware
                // chain (`http_status_as_error`, on by default): a response all the same.
                Err(ureq::Error::StatusCode(code)) => Some(*code),
                Err(_) => None,
            };
            super::finish(
                start,
                "ureq",
                self.label,
                super::Target {
                    method: &method,
                    host: &host,
                    port,
                    path: &path,
                },
                status,
            );
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

#[cfg(feature = "reqwest-0-12")]
impl InstrumentHttpClient for ::reqwest_012::Client {
    type Output = ::reqwest_middleware_04::ClientWithMiddleware;
    fn instrument(self, label: Option<&'static str>) -> Self::Output {
        reqwest_012::instrument(self, label)
    }
}

#[cfg(feature = "reqwest-0-13")]
impl InstrumentHttpClient for ::reqwest_013::Client {
    type Output = ::reqwest_middleware_05::ClientWithMiddleware;
    fn instrument(self, label: Option<&'static str>) -> Self::Output {
        reqwest_013::instrument(self, label)
    }
}

#[cfg(feature = "ureq-3")]
impl InstrumentHttpClient for ureq::config::ConfigBuilder<ureq::typestate::AgentScope> {
    type Output = Self;
    fn instrument(self, label: Option<&'static str>) -> Self::Output {
        self.middleware(ureq_3::UreqHttpMiddleware { label })
    }
}
