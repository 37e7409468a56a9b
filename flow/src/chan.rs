//! What every channel backend shares: the stamped message, the per-instance state both
//! ends of one channel hold, the recording of sends, receives and waits, and the one
//! send and receive path of every backend.
//!
//! A send or receive records into the calling thread's slot of the entry's call site
//! (single writer); only the depth counters of backends without `len()` live in the
//! instance, shared by its endpoints.
//!
//! A backend maps its own results into [`TrySend`] and [`TryRecv`] (`From` impls in its
//! module) and back into its own errors; what a send or receive records, and when it
//! waits, is decided here once: [`Inst::try_send_with`], [`Inst::send_with`],
//! [`Inst::send_async_with`] and [`Inst::recv_with`].

use hotpath_core::InternalArc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use hotpath_core::op::{now, Here, Sampler, Wait};

use crate::depth::{Depth, Line, Senders};
use crate::instrument::Shape;
use crate::registry::{Entry, FlowSite, What};
use crate::wait::{recv_waited, wait_start, waits_timed};

/// A message as a wrapped channel carries it: the clock reading at the send (0 when the
/// message is not timed) and the message. `channel!` rewrites the constructor's message
/// type `M` to `Stamped<M>`; users never see it.
#[doc(hidden)]
#[derive(Clone)]
pub struct Stamped<T> {
    pub(crate) t: u64,
    pub(crate) v: T,
}

impl<T: std::fmt::Debug> std::fmt::Debug for Stamped<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.v.fmt(f)
    }
}

impl<T> Stamped<T> {
    /// The message.
    #[inline(always)]
    pub(crate) fn into_inner(self) -> T {
        self.v
    }
}

/// What a send did, whatever the backend. `M` is what a refused send gives back: the
/// stamped message, or the backend's error where the backend keeps the message
/// (futures-channel's `start_send`).
#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TrySend<M> {
    /// The message is in the channel.
    Sent,
    /// No room: a send that does not wait, or a wait that ended without room (a
    /// timeout). Neither a send nor an error.
    Full(M),
    /// No receiver: the channel is closed. A failed send.
    Closed(M),
}

impl<M> TrySend<M> {
    /// The result of a send that never finds the channel full and gives the message
    /// back when the channel is closed (the oneshots' `send`).
    #[inline(always)]
    pub(crate) fn sent_or_closed(r: Result<(), M>) -> Self {
        match r {
            Ok(()) => TrySend::Sent,
            Err(m) => TrySend::Closed(m),
        }
    }

    /// The endpoint's result when a refused send gives back an error value whatever the
    /// reason (futures-channel's `start_send`, whose `SendError` keeps no message): `Ok`,
    /// or `err` of it.
    #[inline(always)]
    pub(crate) fn or_refusal<E>(self, err: impl FnOnce(M) -> E) -> Result<(), E> {
        match self {
            TrySend::Sent => Ok(()),
            TrySend::Full(m) | TrySend::Closed(m) => Err(err(m)),
        }
    }
}

impl<T> TrySend<Stamped<T>> {
    /// The endpoint's result: `Ok`, or its error `full` or `closed` made from the message
    /// given back, unstamped.
    #[inline(always)]
    pub(crate) fn into_result<E>(
        self,
        full: impl FnOnce(T) -> E,
        closed: impl FnOnce(T) -> E,
    ) -> Result<(), E> {
        match self {
            TrySend::Sent => Ok(()),
            TrySend::Full(m) => Err(full(m.v)),
            TrySend::Closed(m) => Err(closed(m.v)),
        }
    }
}

/// What a receive that does not wait found, whatever the backend.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TryRecv<M> {
    /// A message.
    Got(M),
    /// No message yet.
    Empty,
    /// No message, and none will come: the senders are gone.
    Closed,
}

/// The state both ends of one channel instance share.
#[derive(Debug)]
pub(crate) struct Inst {
    pub(crate) entry: &'static Entry,
    /// The number of the entry's call site (`entry.site.id()`, taken once): the slot is
    /// found without the two dependent loads through `entry`.
    id: u32,
    depth: Depth,
    /// Depth samples are clamped to this (`u64::MAX`: not clamped).
    clamp: u64,
    sent: Senders,
    recv: Line,
    /// Live receiver endpoints (the last one to drop counts the unread messages).
    receivers: AtomicU64,
}

impl Inst {
    /// A new instance of `site`'s entry for messages of type `T`.
    pub(crate) fn new<T>(site: &'static FlowSite, shape: Shape) -> InternalArc<Inst> {
        let entry = crate::registry::entry::<T>(
            site,
            What::Channel,
            shape.backend,
            shape.kind,
            shape.capacity,
        );
        let clamp = match (shape.capacity, shape.unclamped) {
            (Some(c), false) => c as u64,
            _ => u64::MAX,
        };
        // The profiler's state, not the program's: allocated and freed as its own work.
        InternalArc::new(Inst {
            entry,
            id: entry.site.id(),
            depth: shape.depth,
            clamp,
            sent: Senders::default(),
            recv: Line::default(),
            receivers: AtomicU64::new(1),
        })
    }

    /// Starts a send: stamps it if it is timed, and counts it in the instance for the
    /// depth (undone by [`Inst::send_failed`]).
    #[inline(always)]
    pub(crate) fn begin_send(&self) -> SendOp {
        let here = Here::get();
        let t = match here {
            Some(h) => match h.sample(Sampler::Channels, self.entry.site) {
                0 => 0,
                1 => now() | 1,
                _ => (now() & !1).max(2),
            },
            None => 0,
        };
        let owned = self.depth == Depth::Counters && self.sent.add(here);
        SendOp { here, t, owned }
    }

    /// `v` stamped for the send `op`.
    #[inline(always)]
    pub(crate) fn stamped<T>(op: &SendOp, v: T) -> Stamped<T> {
        Stamped { t: op.t, v }
    }

    /// A send succeeded: counts it, and samples the depth (`len` for backends that have
    /// one) unless this thread already saw the instance's entry at its capacity.
    #[inline(always)]
    pub(crate) fn sent(&self, op: &SendOp, len: impl FnOnce() -> usize) {
        let Some(slot) = op.here.and_then(|h| h.slot_of(self.id)) else {
            return;
        };
        slot.c.ch_sent.add(1);
        if let Some(depth) = self.depth_sample(slot.c.ch_max_depth.get(), len) {
            slot.c.ch_max_depth.max(depth);
        }
    }

    /// The queue depth a successful send samples, clamped to the capacity; `None` when it
    /// cannot exceed `max`, the largest this thread saw (at the clamp, nothing is read).
    #[inline(always)]
    fn depth_sample(&self, max: u64, len: impl FnOnce() -> usize) -> Option<u64> {
        if max >= self.clamp {
            return None;
        }
        let depth = match self.depth {
            Depth::Counters => {
                let s = self.sent.total();
                // A stale copy of the receive count only overestimates the depth: when
                // even that is not a new maximum, the receiver's line is not read.
                if s.saturating_sub(self.sent.seen.load(Relaxed)) <= max {
                    return None;
                }
                let r = self.recv.v.load(Relaxed);
                self.sent.seen.store(r, Relaxed);
                s.saturating_sub(r)
            }
            Depth::Len => len() as u64,
            Depth::One => 1,
        };
        Some(depth.min(self.clamp))
    }

    /// Records what the send `op` did: a send (`len`: the backend's queue length, read
    /// when the depth comes from it), a `Full` that is neither a send nor an error, or a
    /// failed send.
    #[inline(always)]
    pub(crate) fn record<M>(
        &self,
        op: &SendOp,
        r: TrySend<M>,
        len: impl FnOnce() -> usize,
    ) -> TrySend<M> {
        match &r {
            TrySend::Sent => self.sent(op, len),
            TrySend::Full(_) => self.not_sent(op),
            TrySend::Closed(_) => self.send_failed(op),
        }
        r
    }

    /// A send that does not wait: `v` stamped, handed to the backend's `try_send`, and
    /// what it did recorded.
    #[inline(always)]
    pub(crate) fn try_send_with<T, M, R: Into<TrySend<M>>>(
        &self,
        v: T,
        try_send: impl FnOnce(Stamped<T>) -> R,
        len: impl FnOnce() -> usize,
    ) -> TrySend<M> {
        let op = self.begin_send();
        let r = try_send(Inst::stamped(&op, v)).into();
        self.record(&op, r, len)
    }

    /// A oneshot's send: never full; the value back when the receiver is gone.
    #[inline(always)]
    pub(crate) fn send_oneshot<T>(
        &self,
        v: T,
        send: impl FnOnce(Stamped<T>) -> Result<(), Stamped<T>>,
    ) -> Result<(), T> {
        self.try_send_with(v, |m| TrySend::sent_or_closed(send(m)), || 0)
            .into_result(std::convert::identity, std::convert::identity)
    }

    /// A send that waits for room: the backend's `try_send` first, and only when that
    /// finds the channel full, its waiting send `wait` (out of line), counted as a
    /// blocked send. A wait that ends without room (`Full`: a timeout) is not a send.
    #[inline(always)]
    pub(crate) fn send_with<T, R: Into<TrySend<Stamped<T>>>, W: Into<TrySend<Stamped<T>>>>(
        &self,
        v: T,
        try_send: impl FnOnce(Stamped<T>) -> R,
        wait: impl FnOnce(Stamped<T>) -> W,
        len: impl FnOnce() -> usize,
    ) -> TrySend<Stamped<T>> {
        let op = self.begin_send();
        match try_send(Inst::stamped(&op, v)).into() {
            TrySend::Full(m) => self.send_full(&op, m, |m| wait(m).into(), len),
            r => self.record(&op, r, len),
        }
    }

    /// [`Inst::send_with`] when the channel is full: waits for room, out of line (the
    /// usual send stays small).
    #[cold]
    #[inline(never)]
    fn send_full<M>(
        &self,
        op: &SendOp,
        m: M,
        wait: impl FnOnce(M) -> TrySend<M>,
        len: impl FnOnce() -> usize,
    ) -> TrySend<M> {
        let t0 = wait_start();
        let r = wait(m);
        self.blocked(op, t0);
        self.record(op, r, len)
    }

    /// An async send: `send` makes the backend's send future of `v` stamped, polled
    /// exactly as the raw endpoint's would be (tokio's cooperative budget included); a
    /// `Pending` while `full()` says there is no room counts the send as blocked until it
    /// completes. Dropped before it completes (cancelled), the send is taken out of the
    /// depth counters.
    ///
    /// Not an `async fn`: the send starts when it is called, from the endpoint's own
    /// `async fn` (at its first poll, as the raw one starts), and its future is
    /// [`Inst::send_waiting`]'s, so that the endpoint awaits one future, not one in another.
    #[inline(always)]
    pub(crate) fn send_async_with<'a, T, F>(
        &'a self,
        v: T,
        send: impl FnOnce(Stamped<T>) -> F,
        full: impl Fn() -> bool + 'a,
        len: impl FnOnce() -> usize + 'a,
    ) -> impl std::future::Future<Output = TrySend<Stamped<T>>> + 'a
    where
        T: 'a,
        F: std::future::Future + 'a,
        F::Output: Into<TrySend<Stamped<T>>>,
    {
        let op = self.begin_send();
        let undo = self.undo_on_drop(&op);
        let fut = send(Inst::stamped(&op, v));
        self.send_waiting(fut, op, full, move |op, r| {
            undo.done();
            self.record(op, r.into(), len)
        })
    }

    /// Awaits `fut`, a send that may wait for room: when a poll returns `Pending` while
    /// `full()` says the channel has no room, the send counts as blocked from then until it
    /// completes; then `done` gets the send (on the thread that completed it) and `fut`'s
    /// output. The future is polled exactly as the raw send would be (tokio's cooperative
    /// budget included).
    pub(crate) async fn send_waiting<F: std::future::Future, R>(
        &self,
        fut: F,
        mut op: SendOp,
        full: impl Fn() -> bool,
        done: impl FnOnce(&SendOp, F::Output) -> R,
    ) -> R {
        let mut fut = std::pin::pin!(fut);
        let mut t0: Option<u64> = None;
        let timed = waits_timed();
        let r = std::future::poll_fn(|cx| {
            let p = fut.as_mut().poll(cx);
            if p.is_pending() && t0.is_none() && full() {
                t0 = Some(if timed { now() } else { 0 });
            }
            p
        })
        .await;
        op.here_again();
        if let Some(t0) = t0 {
            self.blocked(&op, t0);
        }
        done(&op, r)
    }

    /// A send failed (the channel is closed): counts a send error and takes the send out
    /// of the depth counters.
    #[cold]
    #[inline(never)]
    pub(crate) fn send_failed(&self, op: &SendOp) {
        if self.depth == Depth::Counters {
            self.sent.sub(op.owned);
        }
        if let Some(slot) = op.here.and_then(|h| h.slot_of(self.id)) {
            slot.c.ch_send_errors.add(1);
        }
    }

    /// A non-blocking send found no room (`Full`): not a send, not an error; only taken
    /// out of the depth counters.
    #[inline]
    pub(crate) fn not_sent(&self, op: &SendOp) {
        if self.depth == Depth::Counters {
            self.sent.sub(op.owned);
        }
    }

    /// Takes the send `op` out of the depth counters if it is dropped before it
    /// completes (a cancelled `send().await`); [`Undo::done`] disarms it.
    #[inline]
    pub(crate) fn undo_on_drop(&self, op: &SendOp) -> Undo<'_> {
        // Only the counters count a send before it completes.
        Undo((self.depth == Depth::Counters).then_some((self, op.owned)))
    }

    /// A receiver observed a change (watch): one received, not timed.
    pub(crate) fn observed(&self) {
        if let Some(slot) = Here::get().and_then(|h| h.slot_of(self.id)) {
            slot.c.counted.add(1);
        }
    }

    /// A send that found the channel full and waited from clock reading `t0` (0: not
    /// timed) until now: counted, timed, and charged to the innermost measured function.
    #[cold]
    #[inline(never)]
    pub(crate) fn blocked(&self, op: &SendOp, t0: u64) {
        let Some(here) = op.here else {
            return;
        };
        let Some(slot) = here.slot_of(self.id) else {
            return;
        };
        slot.c.ch_blocked.add(1);
        if t0 != 0 {
            let dt = now().saturating_sub(t0);
            slot.c.ch_blocked_ticks.add(dt);
            slot.c.ch_blocked_max.max(dt);
            here.charge(Wait::ChannelSend, dt);
        }
    }

    /// A message received on this thread: counted, its latency recorded when it was
    /// stamped, and (single receiver) counted in the instance for the depth.
    #[inline(always)]
    pub(crate) fn received<T>(&self, m: Stamped<T>) -> T {
        if self.depth == Depth::Counters {
            // One receiver at a time: a plain load and store.
            self.recv.v.store(self.recv.v.load(Relaxed) + 1, Relaxed);
        }
        if let Some(slot) = Here::get().and_then(|h| h.slot_of(self.id)) {
            if m.t != 0 {
                slot.record_op_n(now().saturating_sub(m.t), weight(m.t));
            } else {
                slot.c.counted.add(1);
            }
        }
        m.v
    }

    /// A receive that may wait: the message `now` (the backend's `try_recv`) found, else
    /// on an empty channel the backend's waiting receive `wait` (out of line), else the
    /// error `closed`.
    #[inline(always)]
    pub(crate) fn recv_with<T, E>(
        &self,
        now: impl Into<TryRecv<Stamped<T>>>,
        wait: impl FnOnce() -> Result<Stamped<T>, E>,
        closed: E,
    ) -> Result<T, E> {
        match now.into() {
            TryRecv::Got(m) => Ok(self.received(m)),
            TryRecv::Empty => self.recv_empty(wait),
            TryRecv::Closed => Err(closed),
        }
    }

    /// A receive that found the channel empty: waits with `wait`, out of line (the usual
    /// receive stays small), the wait charged to the innermost measured function.
    #[inline(never)]
    pub(crate) fn recv_empty<T, E>(
        &self,
        wait: impl FnOnce() -> Result<Stamped<T>, E>,
    ) -> Result<T, E> {
        let t0 = wait_start();
        let r = wait();
        recv_waited(t0);
        r.map(|m| self.received(m))
    }

    /// One more receiver endpoint (a clone, a subscription).
    pub(crate) fn add_receiver(&self) {
        self.receivers.fetch_add(1, Relaxed);
    }

    /// A receiver endpoint dropped; the last one counts what is left in the channel
    /// (`len` for backends that have one).
    pub(crate) fn receiver_dropped(&self, len: impl FnOnce() -> usize) {
        if self.receivers.fetch_sub(1, Relaxed) != 1 {
            return;
        }
        let left = match self.depth {
            Depth::Counters => self.queued(),
            Depth::Len => len() as u64,
            Depth::One => 0,
        };
        self.unread(left);
    }

    /// Messages in the channel by the instance's counters: sends counted minus receives.
    #[inline]
    fn queued(&self) -> u64 {
        self.sent.total().saturating_sub(self.recv.v.load(Relaxed))
    }

    /// Counts `n` messages left unread.
    pub(crate) fn unread(&self, n: u64) {
        if n == 0 {
            return;
        }
        if let Some(slot) = Here::get().and_then(|h| h.slot_of(self.id)) {
            slot.c.ch_unread.add(n);
        }
    }

    /// Counts `n` messages (or updates) a receiver missed.
    pub(crate) fn missed(&self, n: u64) {
        if n == 0 {
            return;
        }
        if let Some(slot) = Here::get().and_then(|h| h.slot_of(self.id)) {
            slot.c.ch_lagged.add(n);
        }
    }

    /// The instance's send counter (watch: the version of the value).
    pub(crate) fn sends(&self) -> u64 {
        self.sent.shared.load(Relaxed)
    }

    /// Adds one to the send counter (watch: under the value's write lock).
    pub(crate) fn bump(&self) -> u64 {
        self.sent.shared.fetch_add(1, Relaxed) + 1
    }
}

/// Undoes the count of a send that never completed (see [`Inst::undo_on_drop`]): the
/// instance, and whether the owner's counter took the send.
pub(crate) struct Undo<'a>(Option<(&'a Inst, bool)>);

impl Undo<'_> {
    /// The send completed (or already counted its failure): nothing to undo.
    #[inline]
    pub(crate) fn done(mut self) {
        self.0 = None;
    }
}

impl Drop for Undo<'_> {
    #[inline]
    fn drop(&mut self) {
        if let Some((inst, owned)) = self.0 {
            inst.sent.sub(owned);
        }
    }
}

/// How many messages the one stamped `t` stands for: a stamp's lowest bit says whether
/// the message was timed for itself (the rate is 1, or its site is warming up) or
/// picked by the sampling countdown (it stands for a period's messages).
#[inline(always)]
fn weight(t: u64) -> u64 {
    if t & 1 != 0 {
        1
    } else {
        Sampler::Channels.period().max(1)
    }
}

/// One send in progress: the thread it started on (re-read with [`SendOp::here_again`]
/// after an `.await`) and its stamp.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SendOp {
    here: Option<Here>,
    pub(crate) t: u64,
    /// The owner's counter took this send (see `Senders`).
    owned: bool,
}

impl SendOp {
    /// A send that is counted but never stamped (watch).
    pub(crate) fn untimed() -> SendOp {
        SendOp {
            here: Here::get(),
            t: 0,
            owned: false,
        }
    }

    /// After an `.await` the task may run on another thread: records go to that one.
    #[inline]
    pub(crate) fn here_again(&mut self) {
        self.here = Here::get();
    }
}

/// `Debug` for an endpoint, whatever the message type: its entry's name.
pub(crate) fn fmt_endpoint(
    f: &mut std::fmt::Formatter<'_>,
    ty: &str,
    inst: &Inst,
) -> std::fmt::Result {
    f.debug_struct(ty)
        .field("channel", &inst.entry.name)
        .finish_non_exhaustive()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::depth::Depth;

    /// An instance of a call site of its own (entries are global to the test binary).
    macro_rules! inst {
        ($shape:expr) => {{
            static SITE: FlowSite = FlowSite::new(file!(), line!(), None, false);
            Inst::new::<u64>(&SITE, $shape)
        }};
    }

    fn counters() -> InternalArc<Inst> {
        inst!(Shape::sized("test", Some(4), Depth::Counters))
    }

    /// Sends `n` messages as a backend would, each answered `r`.
    fn send(inst: &Inst, n: u64, r: TrySend<()>) {
        for _ in 0..n {
            let _ = inst.try_send_with(7u64, |_| r_of(&r), || 0);
        }
    }

    fn r_of(r: &TrySend<()>) -> TrySend<()> {
        match r {
            TrySend::Sent => TrySend::Sent,
            TrySend::Full(()) => TrySend::Full(()),
            TrySend::Closed(()) => TrySend::Closed(()),
        }
    }

    fn receive(inst: &Inst, n: u64) {
        for _ in 0..n {
            assert_eq!(inst.received(Stamped { t: 0, v: 5u8 }), 5);
        }
    }

    #[test]
    fn the_counters_give_sends_minus_receives() {
        let inst = counters();
        send(&inst, 3, TrySend::Sent);
        receive(&inst, 1);
        assert_eq!(inst.queued(), 2);
        receive(&inst, 5);
        assert_eq!(inst.queued(), 0, "never below zero");
    }

    #[test]
    fn full_and_closed_sends_are_taken_out_of_the_counters() {
        let inst = counters();
        send(&inst, 2, TrySend::Sent);
        send(&inst, 3, TrySend::Full(()));
        send(&inst, 4, TrySend::Closed(()));
        assert_eq!(inst.queued(), 2);
    }

    #[test]
    fn a_send_dropped_before_it_completes_is_taken_out_unless_done() {
        let inst = counters();
        let cancelled = inst.begin_send();
        drop(inst.undo_on_drop(&cancelled));
        assert_eq!(inst.queued(), 0);
        let completed = inst.begin_send();
        inst.undo_on_drop(&completed).done();
        assert_eq!(inst.queued(), 1);
    }

    fn no_wait(_: Stamped<u64>) -> TrySend<Stamped<u64>> {
        unreachable!("a send waits only on a full channel")
    }

    #[test]
    fn a_send_waits_only_on_a_full_channel_and_a_timeout_is_not_a_send() {
        let inst = counters();
        let sent = inst.send_with(1u64, |_| TrySend::Sent, no_wait, || 0);
        assert!(matches!(sent, TrySend::Sent));
        let waited = inst.send_with(2u64, TrySend::Full, |_| TrySend::Sent, || 0);
        assert!(matches!(waited, TrySend::Sent));
        let timed_out = inst.send_with(3u64, TrySend::Full, TrySend::Full, || 0);
        assert!(matches!(timed_out, TrySend::Full(Stamped { v: 3, .. })));
        let closed = inst.send_with(4u64, TrySend::Closed, no_wait, || 0);
        assert!(matches!(closed, TrySend::Closed(Stamped { v: 4, .. })));
        assert_eq!(
            inst.queued(),
            2,
            "the two sends, not the timeout nor the closed one"
        );
    }

    #[test]
    fn a_receive_waits_only_on_an_empty_channel() {
        let inst = counters();
        let m = |v: u8| Stamped { t: 0, v };
        let closed = "closed";
        assert_eq!(
            inst.recv_with(TryRecv::Got(m(1)), || unreachable!(), closed),
            Ok(1)
        );
        assert_eq!(inst.recv_with(TryRecv::Empty, || Ok(m(2)), closed), Ok(2));
        let gone = inst.recv_with(TryRecv::<Stamped<u8>>::Empty, || Err("gone"), closed);
        assert_eq!(gone, Err("gone"));
        let shut = inst.recv_with(TryRecv::<Stamped<u8>>::Closed, || unreachable!(), closed);
        assert_eq!(shut, Err("closed"));
    }

    #[test]
    fn backends_with_len_leave_the_counters_alone() {
        let inst = inst!(Shape::sized("test", Some(4), Depth::Len));
        send(&inst, 3, TrySend::Sent);
        receive(&inst, 1);
        assert_eq!(inst.queued(), 0);
    }

    #[test]
    fn a_depth_sample_is_clamped_to_the_capacity() {
        let inst = inst!(Shape::sized("test", Some(4), Depth::Len));
        assert_eq!(inst.depth_sample(0, || 3), Some(3));
        assert_eq!(inst.depth_sample(0, || 9), Some(4));
        assert_eq!(
            inst.depth_sample(4, || unreachable!("at the clamp, len is not read")),
            None
        );
    }

    #[test]
    fn an_unclamped_or_unbounded_channel_samples_the_whole_depth() {
        let futures = inst!(Shape {
            unclamped: true,
            ..Shape::sized("test", Some(4), Depth::Len)
        });
        assert_eq!(futures.depth_sample(4, || 5), Some(5));
        let unbounded = inst!(Shape::sized("test", None, Depth::Len));
        assert_eq!(unbounded.depth_sample(1_000, || 1_001), Some(1_001));
    }

    #[test]
    fn a_watch_samples_one() {
        let watch = inst!(Shape::sized("test", Some(1), Depth::One));
        assert_eq!(watch.depth_sample(0, || unreachable!()), Some(1));
        assert_eq!(watch.depth_sample(1, || unreachable!()), None);
    }

    #[test]
    fn the_counters_read_the_receive_count_only_for_a_possible_new_maximum() {
        let inst = inst!(Shape::sized("test", None, Depth::Counters));
        send(&inst, 5, TrySend::Sent);
        receive(&inst, 2);
        // 5 sent, 2 received: 3, and the senders keep 2 as the receive count they saw.
        assert_eq!(inst.depth_sample(0, || 0), Some(3));
        assert_eq!(inst.depth_sample(3, || 0), None);
        receive(&inst, 2);
        send(&inst, 1, TrySend::Sent);
        // By the stale copy 6 - 2 = 4 > 3: the receive count is read again, 6 - 4 = 2.
        assert_eq!(inst.depth_sample(3, || 0), Some(2));
        // Now the copy is 4: 6 - 4 = 2 is not above 3, so nothing is read.
        assert_eq!(inst.depth_sample(3, || 0), None);
    }

    #[test]
    fn a_timed_stamp_stands_for_one_message_or_a_period() {
        // The lowest bit: timed for itself (1), or picked by the sampling countdown,
        // standing for the channels' period (the default, 16, in this test binary).
        assert_eq!(weight(1), 1);
        assert_eq!(weight(0x1235), 1);
        assert_eq!(weight(2), hotpath_core::state::DEFAULT_PERIOD);
        assert_eq!(weight(0x1234), 16);
    }

    #[test]
    fn outcomes_become_the_endpoint_s_result_and_error() {
        let full: TrySend<Stamped<u64>> = TrySend::Full(Stamped { t: 9, v: 1 });
        let closed: TrySend<Stamped<u64>> = TrySend::Closed(Stamped { t: 9, v: 2 });
        let sent: TrySend<Stamped<u64>> = TrySend::Sent;
        let r = |o: TrySend<Stamped<u64>>| o.into_result(|v| ("full", v), |v| ("closed", v));
        assert_eq!(r(full), Err(("full", 1)));
        assert_eq!(r(closed), Err(("closed", 2)));
        assert_eq!(r(sent), Ok(()));
        assert_eq!(TrySend::sent_or_closed(Err(3u8)), TrySend::Closed(3));
        assert_eq!(TrySend::sent_or_closed(Ok::<(), u8>(())), TrySend::Sent);
        assert_eq!(TrySend::Full(4u8).or_refusal(|e| e * 2), Err(8));
        assert_eq!(TrySend::Closed(4u8).or_refusal(|e| e + 1), Err(5));
    }

    #[test]
    fn a_message_is_stamped_with_its_send_s_clock_reading_and_unstamped_whole() {
        let op = SendOp {
            here: None,
            t: 0x51,
            owned: false,
        };
        let m = Inst::stamped(&op, "m");
        assert_eq!((m.t, m.v), (0x51, "m"));
        assert_eq!(m.into_inner(), "m");
        let untimed = SendOp { t: 0, ..op };
        assert_eq!(Inst::stamped(&untimed, 9u8).t, 0);
    }

    #[test]
    fn a_stamped_message_debugs_as_the_message() {
        assert_eq!(format!("{:?}", Stamped { t: 12, v: "m" }), "\"m\"");
    }
}
