//! `stream!`: a `Stream` that counts its items and polls.

use std::pin::Pin;
use std::task::{Context, Poll};

use hotpath_core::op::{now, Here, Sampler};

use crate::{Entry, FlowSite, What};

/// Not polled yet.
const NEW: u8 = 0;
/// Polled, no item yet.
const WAITING: u8 = 1;
/// Yielded an item.
const FLOWING: u8 = 2;
/// Returned `Ready(None)`.
const DONE: u8 = 3;

pin_project_lite::pin_project! {
    /// A stream counted by `stream!`: behaves exactly as the stream it wraps.
    ///
    /// Per poll it counts one poll, and `Pending` polls and items; the first
    /// `Ready(None)` completes the instance (later polls of a fused stream are only
    /// polls), and a drop before that counts it as dropped early. Timed polls (the
    /// streams sampling rate) add their duration to the busy time, and the first item's
    /// time since the first poll is the instance's time to first item. Implements
    /// `Stream`, `FusedStream` and, when the inner value does, `Sink`.
    pub struct Stream<S> {
        #[pin]
        inner: S,
        entry: &'static Entry,
        // Clock reading at the first poll when it was timed, else 0.
        first: u64,
        state: u8,
    }

    impl<S> PinnedDrop for Stream<S> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if *this.state != DONE {
                dropped(this.entry);
            }
        }
    }
}

#[cold]
#[inline(never)]
fn dropped(entry: &'static Entry) {
    if let Some(slot) = Here::get().and_then(|h| h.slot(entry.site)) {
        slot.c.st_dropped.add(1);
    }
}

impl<S: futures_core::Stream> Stream<S> {
    /// Wraps `inner` as an instance of `site`.
    pub fn new(site: &'static FlowSite, inner: S) -> Self {
        Stream {
            inner,
            entry: crate::entry::<S::Item>(site, What::Stream, "", "", None),
            first: 0,
            state: NEW,
        }
    }
}

impl<S> Stream<S> {
    /// The wrapped stream.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The wrapped stream, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// The wrapped stream, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut S> {
        self.project().inner
    }
}

impl<S: futures_core::Stream> futures_core::Stream for Stream<S> {
    type Item = S::Item;

    #[inline]
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let this = self.project();
        let Some(here) = Here::get() else {
            return this.inner.poll_next(cx);
        };
        let Some(slot) = here.slot(this.entry.site) else {
            return this.inner.poll_next(cx);
        };
        let timed = here.timed(Sampler::Streams);
        let t0 = if timed { now() } else { 0 };
        let r = this.inner.poll_next(cx);
        let c = &slot.c;
        c.polls.add(1);
        let t1 = if timed {
            let t1 = now();
            c.st_timed_polls.add(1);
            c.busy.add(t1.saturating_sub(t0));
            t1
        } else {
            0
        };
        match &r {
            Poll::Ready(Some(_)) => {
                c.st_items.add(1);
                if *this.state < FLOWING {
                    if *this.state == NEW {
                        *this.first = t0;
                    }
                    *this.state = FLOWING;
                    if *this.first != 0 && timed {
                        slot.record_op(t1.saturating_sub(*this.first));
                    }
                }
            }
            Poll::Pending => {
                c.st_pending.add(1);
                if *this.state == NEW {
                    *this.state = WAITING;
                    *this.first = t0;
                }
            }
            Poll::Ready(None) => {
                if *this.state != DONE {
                    *this.state = DONE;
                    c.st_completed.add(1);
                }
            }
        }
        r
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<S: futures_core::stream::FusedStream> futures_core::stream::FusedStream for Stream<S> {
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

impl<S: futures_sink::Sink<I>, I> futures_sink::Sink<I> for Stream<S> {
    type Error = S::Error;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.project().inner.poll_ready(cx)
    }

    fn start_send(self: Pin<&mut Self>, item: I) -> Result<(), Self::Error> {
        self.project().inner.start_send(item)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.project().inner.poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.project().inner.poll_close(cx)
    }
}

impl<S> std::fmt::Debug for Stream<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("stream", &self.entry.name)
            .finish_non_exhaustive()
    }
}
