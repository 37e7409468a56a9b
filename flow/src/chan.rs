//! What every channel backend shares: the stamped message, the per-instance state both
//! ends of one channel hold, and the recording of sends, receives and waits.
//!
//! A send or receive records into the calling thread's slot of the entry's call site
//! (single writer); only the depth counters of backends without `len()` live in the
//! instance, shared by its endpoints.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use hotpath_core::op::{now, Here, Sampler, Wait};

use crate::depth::{Depth, Line, Senders};
use crate::instrument::Shape;
use crate::registry::{Entry, FlowSite, What};

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
