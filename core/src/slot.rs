//! One call site's numbers on one thread: the record every measurement writes into.
//!
//! A slot is written only by the thread whose shard holds it (single writer: relaxed load
//! and store), and read by snapshots from any thread. Which counters a site uses depends
//! on its [`SiteKind`](crate::SiteKind): functions use the call counters and the wait
//! counters, I/O directions the call counters and the byte counters.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::cell::counters;
use crate::dist::{Dist, DistData};
use crate::meter::{Delta, MeterMerged, MeterSlot};

counters! {
    /// The counters of one call site on one thread. Durations are in clock ticks.
    pub struct Counts / CountsMerged {
        /// Calls (or operations) counted but not timed (sampling).
        counted: sum,
        /// Calls timed.
        timed: sum,
        /// Sampled events: how many more events the timed ones stand for than their
        /// number (the sum of each timed event's weight minus one; 0 when every event is
        /// timed). `timed + extra_weight` is the population the sums and distributions
        /// describe.
        extra_weight: sum,
        /// Inclusive time of every timed call, nested ones included (for the mean).
        sum: sum,
        /// Inclusive time of the outermost timed calls.
        total: sum,
        /// Self time of the timed calls.
        self_: sum,
        /// Async functions: polls of the timed futures.
        polls: sum,
        /// Async functions: summed poll durations of the timed futures that were not
        /// nested in a call of the same site (recursion counts once, as `total`).
        busy: sum,
        /// Async functions: summed poll durations of the timed futures nested in a call
        /// of the same site (with `busy`, every call's: a distribution's sum).
        busy_nested: sum,
        /// Async functions: futures dropped before `Ready`.
        cancelled: sum,
        /// Async functions: time the timed futures spent suspended in measured child
        /// futures they awaited to completion (each child's wall time less its polls),
        /// for the waits split: a parent's wait in its awaited children is theirs.
        awaited: sum,
        /// I/O sites: bytes moved (every operation).
        io_bytes: sum,
        /// I/O sites: bytes of the timed operations (for rates when sampling).
        io_timed_bytes: sum,
        /// I/O sites: failed operations.
        io_errors: sum,
        /// Functions: bytes read by I/O operations made while the function was the
        /// innermost measured one on its thread.
        fn_read: sum,
        /// Functions: bytes written likewise.
        fn_write: sum,
        /// Functions: ticks spent inside those (timed) operations.
        fn_io: sum,
        /// Functions: ticks spent waiting for locks (see `op::Wait`).
        wait_lock: sum,
        /// Functions: ticks spent waiting to send on a full channel.
        wait_send: sum,
        /// Functions: ticks spent waiting to receive from an empty channel.
        wait_recv: sum,
        /// Functions: ticks spent in SQL queries.
        wait_sql: sum,
        /// Functions: ticks spent in HTTP requests.
        wait_http: sum,
        /// Lock sites: acquisitions that found the lock taken and had to wait.
        contended: sum,
        /// Lock sites: `try_lock`-style attempts that failed because the lock was taken.
        try_failed: sum,
        /// Lock sites: ticks waited by the timed contended acquisitions.
        wait: sum,
        /// Lock sites: condition-variable waits made while holding the lock.
        condvar_waits: sum,
        /// SQL sites: rows the queries returned.
        rows_returned: sum,
        /// SQL sites: rows the statements inserted, updated or deleted.
        rows_affected: sum,
        /// SQL and HTTP sites: queries that failed, requests that got no response.
        errors: sum,
        /// HTTP sites: responses with a 1xx status.
        status_1xx: sum,
        /// HTTP sites: responses with a 2xx status.
        status_2xx: sum,
        /// HTTP sites: responses with a 3xx status.
        status_3xx: sum,
        /// HTTP sites: responses with a 4xx status.
        status_4xx: sum,
        /// HTTP sites: responses with a 5xx status.
        status_5xx: sum,
        /// HTTP server sites: requests started (on the thread that started them), for the
        /// requests in flight.
        started: sum,
        /// HTTP server sites: response bodies dropped before their end.
        aborted: sum,

        // Data flow (channels, streams, futures); see `hotpath-flow`.
        /// Channels: messages sent (every send that succeeded).
        ch_sent: sum,
        /// Channels: sends that failed (the channel was closed or disconnected).
        ch_send_errors: sum,
        /// Channels: messages left in a channel when its last receiver dropped.
        ch_unread: sum,
        /// Channels: most messages queued at once (per instance, sampled after sends).
        ch_max_depth: max,
        /// Channels: sends that found the channel full and waited for room.
        ch_blocked: sum,
        /// Channels: ticks those sends waited (timed sends only).
        ch_blocked_ticks: sum,
        /// Channels: longest of those waits, ticks.
        ch_blocked_max: max,
        /// Channels: messages a broadcast receiver missed (`Lagged`).
        ch_lagged: sum,
        /// Streams: items yielded (`Ready(Some)`).
        st_items: sum,
        /// Streams: polls that returned `Pending`.
        st_pending: sum,
        /// Streams: instances that returned `Ready(None)`.
        st_completed: sum,
        /// Streams: instances dropped before `Ready(None)`.
        st_dropped: sum,
        /// Futures: dropped before their first poll.
        fu_never_polled: sum,
    }
}

/// What an overhead budget's controller reads of one call site, summed over threads
/// (`site_loads`): it compares one look with the next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SiteLoad {
    /// Calls counted so far, timed or not.
    pub calls: u64,
    /// Whether I/O or waits were charged to the site's calls.
    pub charged: bool,
    /// Inclusive time of the timed calls, each weighted by the calls it stands for,
    /// ticks.
    pub sum: u64,
    /// The calls the timed ones stand for (the weights' sum).
    pub weight: u64,
}

/// One call site's numbers on one thread.
pub struct Slot {
    /// The counters.
    pub c: Counts,
    /// Per-call inclusive durations (or per-operation durations; for a lock site, hold
    /// times).
    time: Dist,
    /// A second distribution for kinds that need one: a future's busy time per call, a
    /// lock site's wait times (its timed contended acquisitions).
    time2: Dist,
    /// What the meters counted in this site's calls.
    pub(crate) meters: MeterSlot,
    /// Frames of this site on the owner's stack (owner-only; not statistics).
    active: AtomicU32,
    /// With an overhead budget: `shift << 27 | calls left until the next timed one`
    /// (see [`Slot::budget_pick`]). Owner-only.
    countdown: AtomicU32,
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slot").field("c", &self.c).finish()
    }
}

/// One call site's numbers merged over threads, durations in ticks.
#[derive(Clone, Debug, Default)]
pub(crate) struct Merged {
    pub(crate) c: CountsMerged,
    pub(crate) time: DistData,
    pub(crate) time2: DistData,
    pub(crate) meters: MeterMerged,
}

impl Merged {
    /// Calls counted, timed or not.
    pub(crate) fn calls(&self) -> u64 {
        self.c.counted + self.c.timed
    }
}

impl Slot {
    /// The empty value: all zero bytes, which is how shards allocate chunks of slots
    /// (checked by a test in `shard/mod.rs`).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) const fn new() -> Self {
        Slot {
            c: Counts::new(),
            time: Dist::new(),
            time2: Dist::new(),
            meters: MeterSlot::new(),
            active: AtomicU32::new(0),
            countdown: AtomicU32::new(0),
        }
    }

    /// Records one timed call: `incl` and `self_` in ticks, the meters' inclusive and
    /// self deltas; `outer` when no frame of the same site was below it, so that
    /// recursion adds to the totals once.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    pub(crate) fn record(&self, incl: u64, self_: u64, m_incl: Delta, m_self: Delta, outer: bool) {
        let c = &self.c;
        c.timed.add(1);
        c.sum.add(incl);
        if outer {
            c.total.add(incl);
        }
        c.self_.add(self_);
        self.time.record(incl);
        self.meters.record(m_incl, m_self, outer);
    }

    /// [`Slot::record`] for a call that stands for `w` calls (a sampled `future!`, a
    /// call an overhead budget timed): counted once as timed, its times `w` times in the
    /// sums and the distribution (the meters are scaled by calls over timed calls, as
    /// for functions). Under a budget `self_` may be "negative" (two's complement): its
    /// children's times are weighted estimates, and the signed sum of the self times
    /// estimates the site's self time without bias (a snapshot clamps it at 0).
    pub(crate) fn record_n(
        &self,
        incl: u64,
        self_: u64,
        w: u64,
        m_incl: Delta,
        m_self: Delta,
        outer: bool,
    ) {
        let c = &self.c;
        c.timed.add(1);
        c.extra_weight.add(w - 1);
        c.sum.add(incl.wrapping_mul(w));
        if outer {
            c.total.add(incl.wrapping_mul(w));
        }
        c.self_.add(self_.wrapping_mul(w));
        self.time.record_n(incl, w);
        self.meters.record(m_incl, m_self, outer);
    }

    /// Records one timed operation of `dt` ticks (an I/O or other operation site: no
    /// nesting, no self time).
    #[inline(always)]
    pub fn record_op(&self, dt: u64) {
        let c = &self.c;
        c.timed.add(1);
        c.sum.add(dt);
        c.total.add(dt);
        self.time.record(dt);
    }

    /// Records one timed operation of `dt` ticks that stands for `w` operations (its
    /// sampling weight, see [`crate::op::Here::sample`]): counted once as timed, its
    /// duration `w` times in the sums and the distribution.
    #[inline]
    pub fn record_op_n(&self, dt: u64, w: u64) {
        if w == 1 {
            return self.record_op(dt);
        }
        let c = &self.c;
        c.timed.add(1);
        c.extra_weight.add(w - 1);
        c.sum.add(dt.wrapping_mul(w));
        c.total.add(dt.wrapping_mul(w));
        self.time.record_n(dt, w);
    }

    /// [`Slot::record_wait`] for a wait standing for `w` acquisitions.
    #[inline]
    pub fn record_wait_n(&self, dt: u64, w: u64) {
        self.c.wait.add(dt.wrapping_mul(w));
        self.time2.record_n(dt, w);
    }

    /// [`Slot::record2`] for a value standing for `w` events.
    #[inline]
    pub fn record2_n(&self, v: u64, w: u64) {
        self.time2.record_n(v, w);
    }

    /// Records one value in the second distribution (see [`Slot::record_op`] for the
    /// first): a future's busy time per call.
    #[inline(always)]
    pub fn record2(&self, v: u64) {
        self.time2.record(v);
    }

    /// Records one wait of `dt` ticks (a lock site's contended acquisition): its
    /// distribution (the second one) and its sum. The acquisition itself is recorded by
    /// [`Slot::record_op`] (its hold) or counted.
    #[inline(always)]
    pub fn record_wait(&self, dt: u64) {
        self.c.wait.add(dt);
        self.time2.record(dt);
    }

    /// With an overhead budget: whether to time this call of a site whose period is
    /// `2^shift` (`shift` > 0), counting down to the next timed one: 0 when not, else
    /// the calls it stands for (the period its gap was drawn for). `gap` draws the calls
    /// until the next timed one for a period (mean: the period). The countdown word is
    /// `shift << 27 | calls left`; a countdown drawn for another period is drawn again,
    /// so a site follows a new period at once and every weight is its gap's period.
    #[inline(always)]
    pub(crate) fn budget_pick(&self, shift: u32, gap: impl FnOnce(u32) -> u32) -> u32 {
        const LEFT: u32 = (1 << 27) - 1;
        let v = self.countdown.load(Relaxed);
        let left = v & LEFT;
        if v >> 27 == shift {
            if left > 1 {
                self.countdown.store(v - 1, Relaxed);
                return 0;
            }
            if left == 1 {
                self.countdown.store(shift << 27, Relaxed);
                return 1 << shift;
            }
        }
        let g = gap(1 << shift);
        self.countdown.store(shift << 27 | (g - 1), Relaxed);
        if g == 1 {
            1 << shift
        } else {
            0
        }
    }

    #[inline(always)]
    pub(crate) fn enter(&self) {
        self.active.store(self.active.load(Relaxed) + 1, Relaxed);
    }

    /// Leaves one frame of this site; true when it was the outermost.
    #[inline(always)]
    pub(crate) fn leave(&self) -> bool {
        let a = self.active.load(Relaxed).saturating_sub(1);
        self.active.store(a, Relaxed);
        a == 0
    }

    #[inline(always)]
    pub(crate) fn is_active(&self) -> bool {
        self.active.load(Relaxed) != 0
    }

    /// Forgets every frame of this site (the owner thread is exiting).
    pub(crate) fn reset_active(&self) {
        self.active.store(0, Relaxed);
    }

    /// What an overhead budget's controller reads of this slot (racy but tear-free
    /// reads from any thread).
    pub(crate) fn load(&self) -> SiteLoad {
        let c = &self.c;
        SiteLoad {
            calls: c.counted.get().wrapping_add(c.timed.get()),
            charged: c.fn_read.get()
                | c.fn_write.get()
                | c.fn_io.get()
                | c.wait_lock.get()
                | c.wait_send.get()
                | c.wait_recv.get()
                | c.wait_sql.get()
                | c.wait_http.get()
                != 0,
            sum: c.sum.get(),
            weight: c.timed.get().wrapping_add(c.extra_weight.get()),
        }
    }

    /// Whether anything was recorded (a snapshot skips empty slots).
    pub(crate) fn is_used(&self) -> bool {
        let c = &self.c;
        // What is charged to a function while it runs (I/O, waits) does not make it a
        // row before its first call ends.
        c.counted.get() != 0
            || c.timed.get() != 0
            || c.io_errors.get() != 0
            || c.try_failed.get() != 0
            || c.errors.get() != 0
            || c.started.get() != 0
            || c.wait_sql.get() != 0
            || c.wait_http.get() != 0
            || c.ch_sent.get() != 0
            || c.ch_send_errors.get() != 0
            || c.ch_unread.get() != 0
            || c.ch_lagged.get() != 0
            || c.st_items.get() != 0
            || c.st_pending.get() != 0
            || c.st_completed.get() != 0
            || c.st_dropped.get() != 0
            || c.polls.get() != 0
    }

    pub(crate) fn clear_stats(&self) {
        self.countdown.store(0, Relaxed);
        self.c.clear();
        self.time.clear();
        self.time2.clear();
        self.meters.clear();
    }

    pub(crate) fn merge_into(&self, m: &mut Merged) {
        self.c.merge_into(&mut m.c);
        self.time.merge_into(&mut m.time);
        self.time2.merge_into(&mut m.time2);
        self.meters.merge_into(&mut m.meters);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every slot holds the counters of every kind of site (49 of 8 bytes; `awaited`, the
    /// 48th, for issue 24: an async parent's wait in the children it awaits;
    /// `busy_nested`, the 49th, for issue 26: recursion counts once in busy time), two
    /// distributions (32 bytes each), the meters' part (allocations 88 bytes, CPU 112)
    /// and its count of frames (4, padded to 8), and a thread allocates one for each call
    /// site it touches. A change of these numbers is a decision, made here on purpose and
    /// not by the way: a counter added for one kind costs every site of every kind on
    /// every thread.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_slot_has_the_size_it_was_decided_to_have() {
        assert_eq!(std::mem::size_of::<Counts>(), 392);
        let slot = match (cfg!(feature = "alloc"), cfg!(feature = "cpu")) {
            (false, false) => 464,
            (true, false) => 552,
            (false, true) => 576,
            (true, true) => 664,
        };
        assert_eq!(std::mem::size_of::<Slot>(), slot);
    }
}
