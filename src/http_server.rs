//! The HTTP server front end (feature `axum-0-8`): a tower `Layer` for any
//! `Service<http::Request<B>, Response = http::Response<R>>` with an `http_body::Body`
//! response, keyed by method and route.
//!
//! The route is axum's `MatchedPath` (`/users/{id}`) when the request carries one (the
//! layer added with `Router::layer`, or `axum!(router)`), `<unmatched>` for a request
//! axum routed to no route, and otherwise (another tower stack) the path with numeric,
//! UUID and long hex segments folded to `{id}`. A request's time to the response head
//! (TTFB) is recorded when the handler's future resolves; its total time when the
//! response body ends. A body dropped before its end (the client went away) or a
//! handler that fails counts as aborted, with its time so far. Requests started and not
//! finished are in flight.
//!
//! Without the `hotpath` feature both layers return the service they wrap, as hotpath
//! 0.30 does: its requests, responses and bodies are the service's own.

#[cfg(feature = "hotpath")]
use std::future::Future;
#[cfg(feature = "hotpath")]
use std::pin::Pin;
#[cfg(feature = "hotpath")]
use std::task::{Context, Poll};

/// A tower `Layer` measuring every request of the service it wraps (section `server`).
#[derive(Clone, Copy, Debug, Default)]
pub struct HttpServerLayer {
    _private: (),
}

/// axum's layer: [`HttpServerLayer`], with the requests no route matched keyed
/// `METHOD <unmatched>` (never their raw path). Add it after the last `.route(...)`
/// (`router.layer(AxumLayer::new())`, or `hotpath::axum!(router)`).
#[derive(Clone, Copy, Debug, Default)]
pub struct AxumLayer {
    _private: (),
}

impl HttpServerLayer {
    /// The layer.
    pub fn new() -> Self {
        HttpServerLayer { _private: () }
    }
}

impl AxumLayer {
    /// The layer.
    pub fn new() -> Self {
        AxumLayer { _private: () }
    }
}

#[cfg(feature = "hotpath")]
impl<S> tower_layer::Layer<S> for HttpServerLayer {
    type Service = HttpServerService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        HttpServerService { inner, axum: false }
    }
}

#[cfg(feature = "hotpath")]
impl<S> tower_layer::Layer<S> for AxumLayer {
    type Service = HttpServerService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        HttpServerService { inner, axum: true }
    }
}

/// Without `hotpath`: the service itself.
#[cfg(not(feature = "hotpath"))]
impl<S> tower_layer::Layer<S> for HttpServerLayer {
    type Service = S;

    fn layer(&self, inner: S) -> S {
        inner
    }
}

/// Without `hotpath`: the service itself.
#[cfg(not(feature = "hotpath"))]
impl<S> tower_layer::Layer<S> for AxumLayer {
    type Service = S;

    fn layer(&self, inner: S) -> S {
        inner
    }
}

/// The service [`HttpServerLayer`] and [`AxumLayer`] make (feature `hotpath`).
#[cfg(feature = "hotpath")]
#[derive(Clone, Debug)]
pub struct HttpServerService<S> {
    inner: S,
    axum: bool,
}

/// Where a request's record is kept until its body ends.
#[cfg(feature = "hotpath")]
type RecSlot = Option<Rec>;

/// One request's record, until its body ends.
#[cfg(feature = "hotpath")]
struct Rec {
    site: &'static hotpath_core::CallSite,
    t0: u64,
    ttfb: Option<u64>,
    status: u16,
}

#[cfg(feature = "hotpath")]
impl Rec {
    fn start<B>(req: &http::Request<B>, axum: bool) -> Option<Rec> {
        use hotpath_core::SiteKind;
        let here = hotpath_core::op::Here::get()?;
        let method = req.method().as_str();
        let matched = req
            .extensions()
            .get::<axum::extract::MatchedPath>()
            .map(|m| m.as_str());
        let path = req.uri().path();
        let site = crate::service::site(
            SiteKind::HttpServer,
            &[
                method,
                matched.unwrap_or("\u{0}"),
                if matched.is_some() || axum { "" } else { path },
            ],
            None,
            || crate::service::Info {
                backend: "axum",
                source: None,
                label: None,
            },
            || match matched {
                Some(m) => format!("{method} {m}"),
                None if axum => format!("{method} <unmatched>"),
                None => crate::service::normalize::endpoint(method, "", None, path),
            },
        );
        here.slot(site)?.c.started.add(1);
        Some(Rec {
            site,
            t0: hotpath_core::op::now(),
            ttfb: None,
            status: 0,
        })
    }

    fn finish(self, aborted: bool) {
        let Some(here) = hotpath_core::op::Here::get() else {
            return;
        };
        let Some(slot) = here.slot(self.site) else {
            return;
        };
        let total = hotpath_core::op::now().saturating_sub(self.t0);
        slot.record_op(total);
        slot.record_wait(self.ttfb.unwrap_or(total));
        match crate::service::status_class(self.status) {
            Some(0) => slot.c.status_1xx.add(1),
            Some(1) => slot.c.status_2xx.add(1),
            Some(2) => slot.c.status_3xx.add(1),
            Some(3) => slot.c.status_4xx.add(1),
            Some(_) => slot.c.status_5xx.add(1),
            None => {}
        }
        if aborted {
            slot.c.aborted.add(1);
        }
    }
}

#[cfg(feature = "hotpath")]
impl<S, B, R> tower_service::Service<http::Request<B>> for HttpServerService<S>
where
    S: tower_service::Service<http::Request<B>, Response = http::Response<R>>,
    R: http_body::Body,
{
    type Response = http::Response<MeasuredBody<R>>;
    type Error = S::Error;
    type Future = MeasuredResponse<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let rec = hotpath_core::internal(|| Rec::start(&req, self.axum));
        MeasuredResponse {
            inner: self.inner.call(req),
            rec,
        }
    }
}

#[cfg(feature = "hotpath")]
pin_project_lite::pin_project! {
    /// The response future of [`HttpServerService`].
    pub struct MeasuredResponse<F> {
        #[pin]
        inner: F,
        rec: RecSlot,
    }
}

#[cfg(feature = "hotpath")]
impl<F, R, E> Future for MeasuredResponse<F>
where
    F: Future<Output = Result<http::Response<R>, E>>,
    R: http_body::Body,
{
    type Output = Result<http::Response<MeasuredBody<R>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let r = std::task::ready!(this.inner.poll(cx));
        let rec = this.rec.take().and_then(|mut rec| match &r {
            Ok(resp) => {
                rec.ttfb = Some(hotpath_core::op::now().saturating_sub(rec.t0));
                rec.status = resp.status().as_u16();
                if http_body::Body::is_end_stream(resp.body()) {
                    // An empty body: hyper sends it without polling it.
                    hotpath_core::internal(|| rec.finish(false));
                    None
                } else {
                    Some(rec)
                }
            }
            Err(_) => {
                hotpath_core::internal(|| rec.finish(true));
                None
            }
        });
        Poll::Ready(r.map(|resp| resp.map(|inner| MeasuredBody { inner, rec })))
    }
}

#[cfg(feature = "hotpath")]
pin_project_lite::pin_project! {
    /// A response body that records its request when it ends (or is dropped before).
    pub struct MeasuredBody<B> {
        #[pin]
        inner: B,
        rec: RecSlot,
    }

    impl<B> PinnedDrop for MeasuredBody<B> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if let Some(rec) = this.rec.take() {
                hotpath_core::internal(|| rec.finish(true));
            }
        }
    }
}

#[cfg(feature = "hotpath")]
impl<B: http_body::Body> http_body::Body for MeasuredBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let mut this = self.project();
        let r = std::task::ready!(this.inner.as_mut().poll_frame(cx));
        let ended = match &r {
            None => Some(false),
            Some(Err(_)) => Some(true),
            Some(Ok(_)) if this.inner.is_end_stream() => Some(false),
            Some(Ok(_)) => None,
        };
        if let Some(aborted) = ended {
            if let Some(rec) = this.rec.take() {
                hotpath_core::internal(|| rec.finish(aborted));
            }
        }
        Poll::Ready(r)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
