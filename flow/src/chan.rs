//! What every channel backend shares: the stamped message, the per-instance state both
//! ends of one channel hold, and the recording of sends, receives and waits.
//!
//! A send or receive records into the calling thread's slot of the entry's call site
//! (single writer); only the depth counters of backends without `len()` live in the
//! instance, shared by its endpoints.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use hotpath_core::op::{now, Here, Sampler, Wait};

use crate::{Entry, FlowSite, What};

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

/// How an instance knows its queue depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Depth {
    /// From the backend's `len()`, read after each successful send.
    Len,
    /// From the instance's counters: sends (counted before the push, by any sender) minus
    /// receives (counted by the one receiver). The first thread to send owns a counter of
    /// its own, written with a plain load and store; other threads add to a shared one.
    Counters,
    /// Not tracked (watch: one value, always there).
    One,
}

/// The senders' counters, on cache lines of their own so that senders and the receiver
/// do not share one. Sends = `owned + shared` (wrapping: a send counted by its owner and
/// taken back on another thread is taken from `shared`).
#[repr(align(128))]
#[derive(Debug, Default)]
struct Senders {
    /// The thread that owns `owned` ([`Here::id`]; 0 until the first counted send).
    owner: AtomicUsize,
    /// Sends counted by the owner thread: its single writer, no read-modify-write.
    owned: AtomicU64,
    /// Sends counted by any other thread.
    shared: AtomicU64,
    /// Senders' copy of the receive counter, refreshed only when the depth it gives
    /// could be a new maximum.
    seen: AtomicU64,
}

impl Senders {
    /// Sends counted so far.
    #[inline(always)]
    fn total(&self) -> u64 {
        self.owned
            .load(Relaxed)
            .wrapping_add(self.shared.load(Relaxed))
    }

    /// Counts one send made on thread `here`; says whether the owner's counter took it.
    #[inline(always)]
    fn add(&self, here: Option<Here>) -> bool {
        if let Some(h) = here {
            let me = h.id();
            let owner = self.owner.load(Relaxed);
            if owner == me
                || (owner == 0 && self.owner.compare_exchange(0, me, Relaxed, Relaxed).is_ok())
            {
                self.owned
                    .store(self.owned.load(Relaxed).wrapping_add(1), Relaxed);
                return true;
            }
        }
        self.shared.fetch_add(1, Relaxed);
        false
    }

    /// Takes back one send counted by [`Senders::add`] (`owned`: by the owner's
    /// counter), on whichever thread runs now.
    fn sub(&self, owned: bool) {
        if owned {
            if let Some(h) = Here::get() {
                if self.owner.load(Relaxed) == h.id() {
                    self.owned
                        .store(self.owned.load(Relaxed).wrapping_sub(1), Relaxed);
                    return;
                }
            }
        }
        self.shared.fetch_sub(1, Relaxed);
    }
}

/// The receive counter, on its own cache lines.
#[repr(align(128))]
#[derive(Debug, Default)]
struct Line {
    v: AtomicU64,
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

/// Which backend and kind of channel an instance is, and how it knows its depth.
pub(crate) struct Shape {
    pub(crate) backend: &'static str,
    pub(crate) kind: &'static str,
    /// The capacity the report shows; `None` for unbounded.
    pub(crate) capacity: Option<usize>,
    pub(crate) depth: Depth,
    /// Whether depth samples may exceed `capacity` (futures-channel: one more per sender).
    pub(crate) unclamped: bool,
}

impl Shape {
    /// `bounded` (or `rendezvous` for 0) with `capacity`, or `unbounded` for `None`.
    pub(crate) fn sized(backend: &'static str, capacity: Option<usize>, depth: Depth) -> Shape {
        Shape {
            backend,
            kind: match capacity {
                Some(0) => "rendezvous",
                Some(_) => "bounded",
                None => "unbounded",
            },
            capacity,
            depth,
            unclamped: false,
        }
    }
}

/// Panics when `capacity = N` was given and the channel's real capacity differs: the
/// argument is checked, never used to change the channel.
pub(crate) fn check_capacity(site: &FlowSite, actual: Option<usize>, declared: Option<usize>) {
    let Some(d) = declared else {
        return;
    };
    if actual == Some(d) {
        return;
    }
    let real = match actual {
        Some(a) => format!("was created with capacity {a}"),
        None => "is unbounded".to_string(),
    };
    panic!(
        "hotpath::channel! at {}:{}: `capacity = {d}` is given but the channel {real}; \
         correct or remove the `capacity` argument (hotpath checks it and never changes the channel)",
        site.file, site.line
    );
}

impl Inst {
    /// A new instance of `site`'s entry for messages of type `T`.
    pub(crate) fn new<T>(site: &'static FlowSite, shape: Shape) -> Arc<Inst> {
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
        Arc::new(Inst {
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
        let max = slot.c.ch_max_depth.get();
        if max >= self.clamp {
            return;
        }
        let depth = match self.depth {
            Depth::Counters => {
                let s = self.sent.total();
                // A stale copy of the receive count only overestimates the depth: when
                // even that is not a new maximum, the receiver's line is not read.
                if s.saturating_sub(self.sent.seen.load(Relaxed)) <= max {
                    return;
                }
                let r = self.recv.v.load(Relaxed);
                self.sent.seen.store(r, Relaxed);
                s.saturating_sub(r)
            }
            Depth::Len => len() as u64,
            Depth::One => 1,
        };
        slot.c.ch_max_depth.max(depth.min(self.clamp));
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
        Undo(Some((self, op.owned)))
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
            Depth::Counters => self.sent.total().saturating_sub(self.recv.v.load(Relaxed)),
            Depth::Len => len() as u64,
            Depth::One => 0,
        };
        self.unread(left);
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
    fn drop(&mut self) {
        if let Some((inst, owned)) = self.0 {
            if inst.depth == Depth::Counters {
                inst.sent.sub(owned);
            }
        }
    }
}

/// A clock reading for a wait's start: never 0 (0 means "not timed").
#[inline(always)]
fn stamp() -> u64 {
    now().max(1)
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

/// Whether waits (a send on a full channel, a receive on an empty one) are timed:
/// always, unless the channels' rate is 0 (count only). A wait is the slow path, and
/// what the channel costs the program.
#[inline(always)]
fn waits_timed() -> bool {
    Sampler::Channels.fixed() != Some(false)
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

    /// The send is about to wait for room: the clock now if waits are timed.
    #[inline]
    pub(crate) fn wait_start(&self) -> u64 {
        if waits_timed() {
            stamp()
        } else {
            0
        }
    }

    /// After an `.await` the task may run on another thread: records go to that one.
    #[inline]
    pub(crate) fn here_again(&mut self) {
        self.here = Here::get();
    }
}

/// A receive is about to wait for a message: the clock now if waits are timed.
#[inline]
pub(crate) fn recv_wait_start() -> u64 {
    if waits_timed() {
        stamp()
    } else {
        0
    }
}

/// A receive waited from `t0` (0: not timed) until now: charged to the innermost
/// measured function on this thread.
#[inline]
pub(crate) fn recv_waited(t0: u64) {
    if t0 != 0 {
        if let Some(h) = Here::get() {
            h.charge(Wait::ChannelRecv, now().saturating_sub(t0));
        }
    }
}

/// Awaits `fut`, a send that may wait for room: when a poll returns `Pending` while
/// `full()` says the channel has no room, the send counts as blocked from then until it
/// completes. The future is polled exactly as the raw send would be (tokio's cooperative
/// budget included).
pub(crate) async fn send_waiting<F: std::future::Future>(
    fut: F,
    inst: &Inst,
    op: &mut SendOp,
    full: impl Fn() -> bool,
) -> F::Output {
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
        inst.blocked(op, t0);
    }
    r
}

/// Awaits `fut`, a receive: when a poll returns `Pending`, the time until it completes
/// is charged to the innermost measured function on the thread that completes it.
pub(crate) async fn recv_waiting<F: std::future::Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut t0: Option<u64> = None;
    let r = std::future::poll_fn(|cx| {
        let p = fut.as_mut().poll(cx);
        if p.is_pending() && t0.is_none() {
            t0 = Some(recv_wait_start());
        }
        p
    })
    .await;
    if let Some(t0) = t0 {
        recv_waited(t0);
    }
    r
}

/// A raw channel (its two endpoints, as the constructor returned them) that `channel!`
/// knows how to instrument.
#[diagnostic::on_unimplemented(
    message = "`hotpath::channel!` does not know how to instrument `{Self}`",
    label = "not a channel constructor hotpath supports",
    note = "write the constructor call inside the macro: std `channel()`/`sync_channel(n)`, crossbeam or flume or async-channel `bounded(n)`/`unbounded()`, tokio `mpsc::channel(n)`/`mpsc::unbounded_channel()`/`oneshot::channel()`/`broadcast::channel(n)`/`watch::channel(v)`, futures `mpsc::channel(n)`/`mpsc::unbounded()`/`oneshot::channel()`, with the backend's cargo feature of hotpath enabled"
)]
pub trait IntoInstrumented: Sized {
    /// The wrapped endpoints.
    type Wrapped;

    /// Wraps the endpoints as one instance of `site`. `ctor` is the capacity argument of
    /// the constructor call when `channel!` could read it, `declared` the `capacity = N`
    /// given to the macro (checked, panics on a mismatch).
    fn instrument(
        self,
        site: &'static FlowSite,
        ctor: Option<usize>,
        declared: Option<usize>,
    ) -> Self::Wrapped;
}

/// What `channel!` expands to: the endpoints of the channel the constructor made,
/// wrapped.
#[inline]
pub fn channel<C: IntoInstrumented>(
    site: &'static FlowSite,
    c: C,
    ctor: Option<usize>,
    declared: Option<usize>,
) -> C::Wrapped {
    c.instrument(site, ctor, declared)
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
