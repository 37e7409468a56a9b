//! `stream!`: a `Stream` that counts its items and polls.

use std::pin::Pin;
use std::sync::atomic::Ordering::Relaxed;
use std::task::{Context, Poll};

use hotpath_core::op::{now, Here, Sampler};
use hotpath_core::{CallSite, Slot};

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
    /// `Stream`, `FusedStream` and, when the inner value does, `Sink` and `Clone` (a
    /// clone is another instance).
    pub struct Stream<S> {
        #[pin]
        inner: S,
        entry: &'static Entry,
        // The number of the entry's call site, taken once (no loads through `entry`).
        id: u32,
        // Clock reading at the first poll when it was timed, else 0.
        first: u64,
        state: u8,
    }

    impl<S> PinnedDrop for Stream<S> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if *this.state != DONE {
                dropped(*this.id);
            }
        }
    }
}

#[cold]
#[inline(never)]
fn dropped(id: u32) {
    if let Some(slot) = Here::get().and_then(|h| h.slot_of(id)) {
        slot.c.st_dropped.add(1);
    }
}

impl<S: futures_core::Stream> Stream<S> {
    /// Wraps `inner` as an instance of `site`.
    pub fn new(site: &'static FlowSite, inner: S) -> Self {
        let entry = crate::registry::entry::<S::Item>(site, What::Stream, "", "", None);
        Stream {
            inner,
            entry,
            id: entry.site.id(),
            first: 0,
            state: NEW,
        }
    }

    /// Wraps `inner` as an instance of `site`'s entry for `label`, given at run time (see
    /// [`FlowSite::labelled`]).
    pub fn labelled(inner: S, site: &'static FlowSite, label: &str) -> Self {
        Stream::new(site.labelled(label), inner)
    }
}

impl<S: Clone> Clone for Stream<S> {
    /// Another instance of the same entry, counted as one, with its own polls, items,
    /// completion or early drop; it starts unpolled whatever the state of this one (its
    /// time to first item runs from its own first poll).
    fn clone(&self) -> Self {
        self.entry.instances.fetch_add(1, Relaxed);
        Stream {
            inner: self.inner.clone(),
            entry: self.entry,
            id: self.id,
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
        // The usual poll (every poll timed, the default): one straight path that polls
        // the inner stream once; everything else is `poll_general`, out of line, so that
        // this stays small enough to inline into its caller.
        let slot = match Sampler::Streams.fixed() {
            Some(true) => Here::get().and_then(|h| h.slot_of(*this.id)),
            _ => None,
        };
        let Some(slot) = slot else {
            return poll_general(
                this.inner,
                cx,
                this.entry.site,
                *this.id,
                this.state,
                this.first,
            );
        };
        poll_timed(this.inner, cx, slot, this.state, this.first, 1)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

/// A poll outside the usual path: no shard or slot on this thread (recorded nowhere),
/// or the streams rate samples or times nothing. Sampling times the polls of an
/// instance until its first item (its time to first item), the site's warm-up, then
/// the polls the countdown picks (each standing for a period's polls in the busy time).
#[inline(never)]
fn poll_general<S: futures_core::Stream>(
    inner: Pin<&mut S>,
    cx: &mut Context<'_>,
    site: &'static CallSite,
    id: u32,
    state: &mut u8,
    first: &mut u64,
) -> Poll<Option<S::Item>> {
    let Some(here) = Here::get() else {
        return inner.poll_next(cx);
    };
    let Some(slot) = here.slot_of(id) else {
        return inner.poll_next(cx);
    };
    let w = if *state < FLOWING && Sampler::Streams.period() != 0 {
        1
    } else {
        here.sample(Sampler::Streams, site)
    };
    if w != 0 {
        return poll_timed(inner, cx, slot, state, first, w);
    }
    let r = inner.poll_next(cx);
    slot.c.polls.add(1);
    after_poll(&r, slot, state, first, 0, 0, false);
    r
}

/// A timed poll standing for `w` polls (its sampling weight): its two clock reads, the
/// poll and busy time, and an item of a flowing stream inline; the first item,
/// `Pending` and the end in [`after_poll`].
#[inline(always)]
fn poll_timed<S: futures_core::Stream>(
    inner: Pin<&mut S>,
    cx: &mut Context<'_>,
    slot: &'static Slot,
    state: &mut u8,
    first: &mut u64,
    w: u64,
) -> Poll<Option<S::Item>> {
    let t0 = now();
    let r = inner.poll_next(cx);
    let t1 = now();
    let c = &slot.c;
    c.polls.add(1);
    c.busy.add(t1.saturating_sub(t0).wrapping_mul(w));
    if *state == FLOWING && matches!(r, Poll::Ready(Some(_))) {
        c.st_items.add(1);
        return r;
    }
    after_poll(&r, slot, state, first, t0, t1, true);
    r
}

/// Counts what a poll returned and moves the instance's state: items, `Pending`, the
/// end, and the time to the first item (`timed`: the poll read the clock at `t0` and
/// `t1`). `first` is the instance's first-poll reading (left alone when not timed).
#[inline(never)]
fn after_poll<T>(
    r: &Poll<Option<T>>,
    slot: &'static Slot,
    state: &mut u8,
    first: &mut u64,
    t0: u64,
    t1: u64,
    timed: bool,
) {
    let c = &slot.c;
    match r {
        Poll::Ready(Some(_)) => {
            c.st_items.add(1);
            if *state < FLOWING {
                if *state == NEW {
                    *first = t0;
                }
                *state = FLOWING;
                if *first != 0 && timed {
                    slot.record_op(t1.saturating_sub(*first));
                }
            }
        }
        Poll::Pending => {
            c.st_pending.add(1);
            if *state == NEW {
                *state = WAITING;
                *first = t0;
            }
        }
        Poll::Ready(None) => {
            if *state != DONE {
                *state = DONE;
                c.st_completed.add(1);
            }
        }
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
