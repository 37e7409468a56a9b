//! Measuring `async fn`s: a scope per poll, wall time from first poll to `Ready`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::meter::Delta;
use crate::registry;
use crate::scope::{self, pop, Entry};
use crate::shard::stack::Frame;
use crate::site::CallSite;
use crate::slot::Slot;
use crate::stacks::{CtxRef, FOLDED, TRACE};
use crate::trace::Kind;

pin_project_lite::pin_project! {
    /// A future measured as one call of `site`.
    ///
    /// Every poll is a scope on the polling thread's stack, so measured functions called
    /// inside a poll are its children and the future is a child of whatever polls it.
    /// On `Ready` the call is recorded on the thread that completed it: wall time from the
    /// first poll, number of polls, busy time (sum of poll durations) and self busy time
    /// (busy time minus measured children). A future dropped after its first poll but
    /// before `Ready` is recorded as a cancelled call with its wall time so far.
    pub struct MeasuredFuture<F> {
        #[pin]
        inner: F,
        site: &'static CallSite,
        st: State,
    }

    impl<F> PinnedDrop for MeasuredFuture<F> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            // Inline check: a completed future (the usual case) has nothing to record.
            if this.st.mode == TIMED || this.st.mode == COUNTED {
                this.st.cancel(this.site);
            } else if this.st.mode == NEW && this.st.flow {
                never_polled(this.site);
            }
        }
    }
}

impl<F> MeasuredFuture<F> {
    /// The wrapped future.
    pub fn get_ref(&self) -> &F {
        &self.inner
    }
}

impl<F: Clone> Clone for MeasuredFuture<F> {
    /// Another call of the same site (a clone of a `Shared` future, of a `Ready`): it
    /// starts unpolled whatever the state of this one, and is recorded as its own call
    /// (completed, cancelled or never polled).
    fn clone(&self) -> Self {
        MeasuredFuture {
            inner: self.inner.clone(),
            site: self.site,
            st: State {
                flow: self.st.flow,
                ..State::default()
            },
        }
    }
}

impl<F> std::fmt::Debug for MeasuredFuture<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeasuredFuture")
            .field("site", &self.site.name())
            .finish()
    }
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) mode: u8,
    /// A future of the futures section (`future!`, `#[future_fn]`, `#[measure(future =
    /// true)]`): also records its busy time per call and the futures never polled.
    pub(crate) flow: bool,
    pub(crate) outer: bool,
    pub(crate) first: u64,
    pub(crate) polls: u64,
    pub(crate) busy: u64,
    pub(crate) self_busy: u64,
    /// Time suspended in measured child futures awaited to completion inside the polls.
    pub(crate) awaited: u64,
    /// The meters over the polls, inclusive and self.
    pub(crate) m_incl: Delta,
    pub(crate) m_self: Delta,
    /// The path of the first poll (stacks on): later polls push it, the call records
    /// on it.
    pub(crate) path: Option<CtxRef>,
    /// The first poll's `stacks::{STACKS, TRACE, FOLDED}` bits.
    pub(crate) extra: u32,
    /// How many calls this one stands for when timed by the futures' sampling
    /// countdown (0 or 1: itself).
    pub(crate) weight: u64,
}

/// Not polled yet.
const NEW: u8 = 0;
/// Timed: every poll is a frame.
pub(crate) const TIMED: u8 = 1;
/// Counted only (sampling).
const COUNTED: u8 = 2;
/// Recorded (or not recordable); polls pass through.
pub(crate) const DONE: u8 = 3;

impl<F: Future> MeasuredFuture<F> {
    /// Wraps `inner` as one call of `site`.
    pub fn new(site: &'static CallSite, inner: F) -> Self {
        MeasuredFuture {
            inner,
            site,
            st: State::default(),
        }
    }

    /// Wraps `inner` as one call of a futures-section site (`future!`, `#[future_fn]`,
    /// `#[measure(future = true)]`): as [`MeasuredFuture::new`], and also the busy time
    /// of each call as a distribution, and a future dropped before its first poll as a
    /// call never polled. Sites of kind [`SiteKind::Future`](crate::SiteKind::Future)
    /// are timed at the futures rate (`Sampler::Futures`), others at the calls rate.
    pub fn flow(site: &'static CallSite, inner: F) -> Self {
        MeasuredFuture {
            inner,
            site,
            st: State {
                flow: true,
                ..State::default()
            },
        }
    }
}

impl<F: Future> Future for MeasuredFuture<F> {
    type Output = F::Output;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        match crate::hook::poll_hook() {
            None => self.poll_measured(cx),
            Some(h) => {
                let _entered = crate::hook::Entered::new(h, self.site);
                self.poll_measured(cx)
            }
        }
    }
}

impl<F: Future> MeasuredFuture<F> {
    #[inline(always)]
    fn poll_measured(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let st = this.st;
        let e = match st.mode {
            NEW => {
                // The usual first poll: a frame pushed inline, kept in registers.
                if let Some(e) = scope::enter_fast(this.site, st.flow) {
                    return first_poll::<F, false>(e, this.inner, cx, st);
                }
                return first_poll_slow(this.site, this.inner, cx, st);
            }
            TIMED => match scope::enter_timed(this.site, st.path) {
                Some(e) => {
                    call_started(&e, st.first);
                    e
                }
                None => return this.inner.poll(cx),
            },
            COUNTED => {
                st.polls += 1;
                return count_when_ready(this.inner.poll(cx), st, this.site);
            }
            _ => return this.inner.poll(cx),
        };
        // Pops the frame if the inner poll unwinds.
        let frame = PollFrame(e);
        let r = this.inner.poll(cx);
        let e = frame.disarm();
        let Some(left) = pop(&e, scope::now(e.tsc)) else {
            return r;
        };
        st.polls += 1;
        st.busy += left.incl;
        st.self_busy += left.self_;
        if left.own {
            st.awaited += awaited(&e);
        }
        st.m_incl = st.m_incl.plus(left.m_incl);
        st.m_self = st.m_self.plus(left.m_self);
        if e.extra != 0 {
            // The call records on the node of this poll (the first poll's path, on this
            // thread's tree), folded as the first poll was.
            let e = scope::Entered {
                extra: (e.extra & !FOLDED) | (st.extra & FOLDED),
                ..e
            };
            poll_extras(
                &e,
                &left,
                r.is_ready(),
                st.first,
                st.self_busy,
                st.m_self.cpu_ns(),
            );
        }
        if r.is_ready() {
            st.mode = DONE;
            st.record(left.slot, left.end, st.outer);
            if left.own {
                // The parent's poll (the frame below) waited for this call's suspended
                // time: its wait was in this child.
                let suspended = left.end.saturating_sub(st.first).saturating_sub(st.busy);
                add_awaited(&e, suspended, st.awaited);
            }
        }
        r
    }
}

/// Tells the frame of `e`, a later poll of a call whose first poll was at `first`, when
/// its call started (what an I/O operation resumed in it may charge it).
#[inline(always)]
pub(crate) fn call_started(e: &scope::Entered, first: u64) {
    if let Some(f) = e.shard.stack.frame(e.depth as usize) {
        f.call_start.set(first);
        f.call_seq.set(e.seq);
    }
}

/// The awaited time counted in the frame of `e`, just popped on its own thread: what
/// children added during this push of the frame.
#[inline(always)]
pub(crate) fn awaited(e: &scope::Entered) -> u64 {
    match e.shard.stack.frame(e.depth as usize) {
        Some(f) if f.awaited_seq.get() == e.seq => f.awaited.get(),
        _ => 0,
    }
}

/// Adds `suspended` to the awaited time of the frame below `e`'s (its parent's poll, or
/// a synchronous function, which does not read it). A parent of the same site (direct
/// recursion) gets the child's own `awaited` instead: the child's suspension is the
/// function's own waiting, the part of it spent in other measured futures is not.
#[inline(always)]
fn add_awaited(e: &scope::Entered, suspended: u64, awaited: u64) {
    if let Some(parent) = (e.depth as usize)
        .checked_sub(1)
        .and_then(|d| e.shard.stack.frame(d))
    {
        add_awaited_to(parent, e.site, suspended, awaited);
    }
}

/// [`add_awaited`] to `parent`, the frame of the poll that awaited a child of site
/// `site` (a future, or a span closed there).
#[inline(always)]
pub(crate) fn add_awaited_to(parent: &Frame, site: u32, suspended: u64, awaited: u64) {
    let suspended = if parent.site.load(std::sync::atomic::Ordering::Relaxed) == site {
        awaited
    } else {
        suspended
    };
    let seq = parent.seq.load(std::sync::atomic::Ordering::Relaxed);
    if parent.awaited_seq.get() == seq {
        parent.awaited.add(suspended);
    } else {
        parent.awaited.set(suspended);
        parent.awaited_seq.set(seq);
    }
}

/// The first poll when [`scope::enter_fast`] did not push a frame: the general entry,
/// sampled or counted, out of line.
#[inline(never)]
fn first_poll_slow<F: Future>(
    site: &'static CallSite,
    inner: Pin<&mut F>,
    cx: &mut Context<'_>,
    st: &mut State,
) -> Poll<F::Output> {
    let entry = if st.flow {
        let (e, w) = scope::enter_flow_slow(site);
        st.weight = w;
        e
    } else {
        let mut weight = 1;
        let e = scope::enter_with(
            site,
            Entry::Timed,
            Entry::Counted,
            |id| {
                let (e, w) = scope::enter_slow_async(id);
                weight = w;
                e
            },
            false,
        );
        st.weight = weight;
        e
    };
    match entry {
        Entry::Timed(e) => first_poll::<F, true>(e, inner, cx, st),
        Entry::Counted(slot) => {
            st.mode = COUNTED;
            st.polls += 1;
            let r = inner.poll(cx);
            if r.is_ready() {
                // Ready at the first poll, on this thread: the slot just found.
                counted_done(Some(slot), st);
            }
            r
        }
        Entry::None => {
            st.mode = DONE;
            inner.poll(cx)
        }
    }
}

/// The first poll of a timed future, its frame `e` pushed: polls, pops, and records the
/// call when it is ready (or keeps what the poll measured for the next ones).
/// `WEIGHTED`: entered by the general entry, where a sampling countdown may have picked
/// the call to stand for several (`State::weight`); the inline entry never does.
#[inline(always)]
fn first_poll<F: Future, const WEIGHTED: bool>(
    e: scope::Entered,
    inner: Pin<&mut F>,
    cx: &mut Context<'_>,
    st: &mut State,
) -> Poll<F::Output> {
    let first = e.start;
    // If the poll unwinds, the drop counts a cancelled call.
    st.mode = TIMED;
    if e.extra != 0 {
        st.path = e.path();
        st.extra = e.extra;
    }
    let frame = PollFrame(e);
    let r = inner.poll(cx);
    let e = frame.disarm();
    let end = scope::now(e.tsc);
    match scope::pop_fast(&e, end) {
        Some(left) => first_poll_done::<_, WEIGHTED>(&e, Some(left), r, st, first),
        None => first_poll_done_slow::<_, WEIGHTED>(&e, end, r, st, first),
    }
}

/// [`first_poll`]'s end for a frame not on top of its owner's stack: out of line, so
/// that the usual pop's result never goes through memory shared with this one's.
#[cold]
#[inline(never)]
fn first_poll_done_slow<T, const WEIGHTED: bool>(
    e: &scope::Entered,
    end: u64,
    r: Poll<T>,
    st: &mut State,
    first: u64,
) -> Poll<T> {
    let left = scope::pop_slow(e, end.saturating_sub(e.start));
    first_poll_done::<_, WEIGHTED>(e, left, r, st, first)
}

/// [`first_poll_done`] of a call ready at its first poll that stands for `st.weight`
/// calls: its busy time, second distribution and record weighted.
#[cold]
#[inline(never)]
fn ready_weighted(left: &scope::Left, st: &State, first: u64) {
    let w = st.weight;
    let busy = left.incl.wrapping_mul(w);
    if left.outer {
        left.slot.c.busy.add(busy);
    } else {
        left.slot.c.busy_nested.add(busy);
    }
    if st.flow {
        left.slot.record2_n(left.incl, w);
    }
    left.slot.record_n(
        left.end.saturating_sub(first),
        left.self_,
        w,
        left.m_incl,
        left.m_self,
        left.outer,
    );
}

/// Records what the first poll measured (`left`: its pop, `None` when not recordable on
/// this thread).
#[inline(always)]
fn first_poll_done<T, const WEIGHTED: bool>(
    e: &scope::Entered,
    left: Option<scope::Left>,
    r: Poll<T>,
    st: &mut State,
    first: u64,
) -> Poll<T> {
    let Some(left) = left else {
        // Not recordable on this thread; later polls may be (the mode is still TIMED).
        if r.is_pending() {
            st.first = first;
            st.outer = true;
        } else {
            st.mode = DONE;
        }
        return r;
    };
    if e.extra != 0 {
        poll_extras(
            e,
            &left,
            r.is_ready(),
            first,
            left.self_,
            left.m_self.cpu_ns(),
        );
    }
    if r.is_ready() {
        // Ready on the first poll (most async fns that do not wait): one poll, recorded
        // as a sync call, no state kept. No awaited time to read: a child suspended
        // inside it would have made it wait (Pending) too.
        st.mode = DONE;
        left.slot.c.polls.add(1);
        if WEIGHTED && st.weight > 1 {
            // Picked by a sampling countdown (the futures' rate, or an overhead budget):
            // stands for `weight` calls, as a call ready at a later poll does.
            ready_weighted(&left, st, first);
            return r;
        }
        if left.outer {
            left.slot.c.busy.add(left.incl);
        } else {
            left.slot.c.busy_nested.add(left.incl);
        }
        if st.flow {
            left.slot.record2(left.incl);
        }
        left.slot.record(
            left.end.saturating_sub(first),
            left.self_,
            left.m_incl,
            left.m_self,
            // Whether another frame of this site was below this poll's: the same at the
            // pop as at the push.
            left.outer,
        );
    } else {
        st.first = first;
        st.outer = left.outer;
        st.polls = 1;
        st.busy = left.incl;
        st.self_busy = left.self_;
        st.awaited = if left.own { awaited(e) } else { 0 };
        st.m_incl = left.m_incl;
        st.m_self = left.m_self;
    }
    r
}

/// The stacks and trace part of a poll's end: the poll in the trace, and when the call
/// is `ready`, the call from `first` on its path (self time `self_busy`, exact-mode self
/// CPU `cpu_ns`) and in the trace.
#[inline(never)]
pub(crate) fn poll_extras(
    e: &scope::Entered,
    left: &scope::Left,
    ready: bool,
    first: u64,
    self_busy: u64,
    cpu_ns: u64,
) {
    let Some(here) = registry::current() else {
        return;
    };
    if e.extra & TRACE != 0 {
        here.ring.write(e.site, Kind::Poll, e.start, left.end);
        if ready {
            here.ring.write(e.site, Kind::Async, first, left.end);
        }
    }
    if ready {
        if let Some(path) = e.path() {
            here.tree.record_call(
                path,
                left.end.saturating_sub(first),
                self_busy,
                cpu_ns,
                e.extra & FOLDED != 0,
            );
        }
    }
}

fn count_when_ready<T>(r: Poll<T>, st: &mut State, site: &'static CallSite) -> Poll<T> {
    if r.is_ready() {
        counted_done(registry::current().and_then(|s| s.slot(site.id())), st);
    }
    r
}

/// A counted call is over: counted in `slot` (this thread's slot of its site, when
/// there is one) with its polls if it is a `future!`.
#[inline(always)]
fn counted_done(slot: Option<&Slot>, st: &mut State) {
    st.mode = DONE;
    if let Some(slot) = slot {
        slot.c.counted.add(1);
        if st.flow {
            slot.c.polls.add(st.polls);
        }
    }
}

/// Pops the frame of a poll if the inner poll unwinds; [`PollFrame::disarm`] gives the
/// frame back otherwise. Holds a copy of the frame, not a reference: a reference
/// (taken by the out-of-line drop) kept the frame in memory, stored after the push and
/// loaded back at the pop; a copy the inline drop hands to [`unwound`] stays in
/// registers on the usual path.
struct PollFrame(scope::Entered);

impl PollFrame {
    /// The poll returned: the frame, for the caller to pop (no `Drop` runs).
    #[inline(always)]
    fn disarm(self) -> scope::Entered {
        let e = self.0;
        std::mem::forget(self);
        e
    }
}

impl Drop for PollFrame {
    #[inline(always)]
    fn drop(&mut self) {
        unwound(self.0);
    }
}

/// The frame of a poll that unwound: popped.
#[cold]
#[inline(never)]
fn unwound(e: scope::Entered) {
    let _ = pop(&e, scope::now(e.tsc));
}

/// A futures-section future dropped before its first poll: one call, never polled.
#[cold]
#[inline(never)]
fn never_polled(site: &'static CallSite) {
    if let Some(slot) = registry::current().and_then(|s| s.slot(site.id())) {
        slot.c.counted.add(1);
        slot.c.fu_never_polled.add(1);
    }
}

impl State {
    #[cold]
    #[inline(never)]
    fn cancel(&mut self, site: &'static CallSite) {
        let mode = std::mem::replace(&mut self.mode, DONE);
        if mode != TIMED && mode != COUNTED {
            return;
        }
        let Some(slot) = registry::current().and_then(|s| s.slot(site.id())) else {
            return;
        };
        slot.c.cancelled.add(1);
        if mode == COUNTED || self.polls == 0 {
            slot.c.counted.add(1);
            if self.flow {
                slot.c.polls.add(self.polls);
            }
            return;
        }
        let outer = self.outer && !slot.is_active();
        let end = crate::clock::now();
        self.record(slot, end, outer);
        if let Some(path) = self.path {
            if let Some(here) = registry::current() {
                here.tree.record_call(
                    path,
                    end.saturating_sub(self.first),
                    self.self_busy,
                    self.m_self.cpu_ns(),
                    self.extra & FOLDED != 0,
                );
            }
        }
        if self.extra & TRACE != 0 {
            if let Some(here) = registry::current() {
                here.ring.write(site.id(), Kind::Async, self.first, end);
            }
        }
    }

    /// Adds the call's busy and awaited time, standing for `w` calls: in the site's
    /// totals when it is `outer`; a call nested in one of the same site (recursion) adds
    /// its busy time apart (it is inside the outer call's) and its awaited time to the
    /// outer call's through the frame below ([`add_awaited`]).
    fn add_busy(&self, slot: &Slot, w: u64, outer: bool) {
        if outer {
            slot.c.busy.add(self.busy.wrapping_mul(w));
            slot.c.awaited.add(self.awaited.wrapping_mul(w));
        } else {
            slot.c.busy_nested.add(self.busy.wrapping_mul(w));
        }
    }

    /// Records the future as one call ending at clock reading `end`: wall time from the
    /// first poll; self time and the meters summed over its polls.
    pub(crate) fn record(&self, slot: &'static Slot, end: u64, outer: bool) {
        slot.c.polls.add(self.polls);
        if self.weight > 1 {
            // Picked by the futures' sampling countdown: stands for `weight` calls.
            self.add_busy(slot, self.weight, outer);
            slot.record2_n(self.busy, self.weight);
            slot.record_n(
                end.saturating_sub(self.first),
                self.self_busy,
                self.weight,
                self.m_incl,
                self.m_self,
                outer,
            );
            return;
        }
        self.add_busy(slot, 1, outer);
        if self.flow {
            slot.record2(self.busy);
        }
        slot.record(
            end.saturating_sub(self.first),
            self.self_busy,
            self.m_incl,
            self.m_self,
            outer,
        );
    }
}
