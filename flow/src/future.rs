//! `future!`: the core's per-poll measurement of a future, as a future that is also
//! `FusedFuture` when the one it wraps is (so `futures::select!` takes it in both builds).

use std::pin::Pin;
use std::task::{Context, Poll};

use hotpath_core::{CallSite, MeasuredFuture};

pin_project_lite::pin_project! {
    /// A future measured by `future!`: behaves exactly as the future it wraps.
    ///
    /// Each poll is a measured scope on the polling thread; the call is recorded in the
    /// futures section when it returns `Ready`, is dropped after a poll (cancelled) or is
    /// dropped before its first poll (never polled). Implements `Future`, and
    /// `FusedFuture` and `Clone` when the inner future does (a clone is another call of
    /// the same site).
    pub struct Future<F> {
        #[pin]
        inner: MeasuredFuture<F>,
    }
}

impl<F: std::future::Future> Future<F> {
    /// Wraps `inner` as one call of `site` (a `SiteKind::Future` site).
    #[inline]
    pub fn new(site: &'static CallSite, inner: F) -> Self {
        Future {
            inner: MeasuredFuture::flow(site, inner),
        }
    }

    /// Wraps `inner` as one call of `site` with the label `label`, given at run time (see
    /// `CallSite::labelled`): one futures row per distinct label.
    #[inline]
    pub fn labelled(inner: F, site: &'static CallSite, label: &str) -> Self {
        Future::new(site.labelled(label), inner)
    }
}

impl<F> Future<F> {
    /// The wrapped future.
    pub fn get_ref(&self) -> &F {
        self.inner.get_ref()
    }
}

impl<F: std::future::Future> std::future::Future for Future<F> {
    type Output = F::Output;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().inner.poll(cx)
    }
}

impl<F: futures_core::FusedFuture> futures_core::FusedFuture for Future<F> {
    fn is_terminated(&self) -> bool {
        self.inner.get_ref().is_terminated()
    }
}

impl<F: Clone> Clone for Future<F> {
    /// Another instance of the same `future!` site: a clone of a `Shared` future is
    /// another call, counted when it completes, is dropped or is never polled, as each
    /// of the originals is (polling a clone polls the shared work, so each clone's
    /// lifetime and busy time are its own waiting and polling).
    fn clone(&self) -> Self {
        Future {
            inner: self.inner.clone(),
        }
    }
}

impl<F> std::fmt::Debug for Future<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}
