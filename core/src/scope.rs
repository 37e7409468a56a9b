//! Entering and leaving measured scopes: the per-call path.
//!
//! Entering pushes a frame on the thread's scope stack and reads the clock; leaving reads
//! the clock again, pops the frame, and yields the inclusive time, the self time
//! (inclusive minus the inclusive time of the measured scopes directly inside it), and
//! whether the scope was the outermost frame of its call site on this thread (recursion
//! adds to the total once).
//!
//! The inline path covers the usual call: a frame held in the shard itself (the first
//! [`INLINE_FRAMES`](crate::shard::stack::INLINE_FRAMES) levels). Deeper frames take a
//! function call more (about 50 instructions a call under `callgrind`, against about 185
//! for a timed call at depth 1), a site numbered beyond 512 a directory load (about 8):
//! `benches/overhead.rs`, `measure_at_depth_20` and `measure_site_600`. Frames out of
//! order and guards dropped on another thread take the cold path.
//!
//! In a debug build the per-call functions are not forced inline (they are in every
//! optimised build): forced inline at `opt-level = 0`, their locals would all be in the
//! measured function's stack frame (about 2 KiB for each measured function, and more in
//! the exit path), which a deep recursion or thousands of threads pay in stack memory.
//!
//! Frames that did not leave in order are repaired, never trusted:
//! * frames above the one leaving (guards forgotten, or suspended inside a future whose
//!   poll is ending) are discarded;
//! * a guard whose frame was discarded records its time with self = inclusive;
//! * a guard dropped on another thread records there, with self = inclusive, and marks
//!   its frame on the first thread dead so that thread pops it.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::budget;
use crate::clock;
use crate::meter::{Delta, Reading};
use crate::registry;
use crate::shard::stack::{Frame, DEAD, MAX_DEPTH};
use crate::shard::Shard;
use crate::site::CallSite;
use crate::slot::Slot;
use crate::stacks::{CtxRef, CTX, FOLDED, STACKS, TRACE};
use crate::state::{self, Sampler};
use crate::trace::Kind;

static LOST: AtomicU64 = AtomicU64::new(0);

/// [`Entered::extra`]: a frame pushed under an overhead budget ([`crate::budget`]); its
/// exit records it with its weight [`Entered::w`] and a signed self time.
const BUDGET_FRAME: u32 = 8 << 24;
/// [`Entered::extra`], with [`BUDGET_FRAME`]: a call the budget does not time. It has a
/// frame (its children are its own; waits and CPU samples inside are charged to it) but
/// reads no clock and no meter: it is counted.
const UNTIMED: u32 = 16 << 24;
/// With [`BUDGET_FRAME`]: the bits of [`Entered::extra`] that hold the base-2 logarithm of
/// the calls a timed frame stands for.
const WEIGHT_SHIFT: u32 = 0x1F;

/// Times a fraction `rate` (0..=1) of calls; every call is still counted.
///
/// Each thread draws the gap to its next timed call uniformly from `1..2/rate`, so the
/// mean gap is `1/rate` and periodic call patterns cannot alias with it. `rate = 0`
/// counts calls without timing any.
pub fn set_sampling_rate(rate: f64) {
    Sampler::Calls.set_rate(rate);
}

/// Fixes the seed of the sampling countdowns, for tests: `0` (the default) seeds each
/// thread's generator from the thread's serial number, so that threads sample
/// independently; any other value seeds every thread's from `seed` alone.
///
/// With a seed, a thread's generator starts from it when the thread takes its shard,
/// again at its first event of each session ([`crate::begin_epoch`]), and, for the
/// calling thread, now: the same sequence of sampled events on one thread (after each
/// site's warm-up, [`crate::WARM_UP`]) is then timed the same way in every run, so a
/// test can assert exact sampled counts. Every thread draws the same gaps then: keep it
/// for tests.
pub fn set_sampling_seed(seed: u64) {
    crate::shard::sampling::set_seed(seed);
    if let Some(shard) = registry::current_live() {
        shard.reseed();
    }
}

/// The fraction of calls timed: 1.0, 0.0 (count only), or 1/period.
pub fn sampling_rate() -> f64 {
    Sampler::Calls.rate()
}

/// Calls that could not be recorded because their thread was already tearing down.
pub fn lost_calls() -> u64 {
    LOST.load(Relaxed)
}

/// How a scope was entered (slow path): the pushed frame, or only counted, or nothing
/// (thread tearing down, too many call sites).
pub(crate) enum Entry {
    Timed(Entered),
    Counted(&'static Slot),
    None,
}

/// Enters a scope of `site`. Inline: every call timed on the TSC (one key compare), or
/// sampled/counted on the TSC (a second compare and a countdown), or every call timed on
/// the TSC with the stacks or the trace on (a third compare). Everything else (first
/// call on a thread, new session, other clock) goes through `slow`.
///
/// `budget`: the caller records a frame of the overhead budget ([`Scope`]); a caller
/// that does not (an `async fn`'s first poll) has `slow` decide under a budget.
#[inline(always)]
pub(crate) fn enter_with<R>(
    site: &'static CallSite,
    timed: impl FnOnce(Entered) -> R,
    counted: impl FnOnce(&'static Slot) -> R,
    slow: impl FnOnce(u32) -> R,
    budget: bool,
) -> R {
    let id = site.id();
    if let Some(shard) = registry::current_raw() {
        let key = state::key();
        if shard.key.get() == key {
            if let Some(slot) = shard.slot(id) {
                return timed(push(shard, slot, id, true, false, false, None));
            }
        } else if shard.sample_key.get() == key {
            if let Some(slot) = shard.slot(id) {
                if !shard.sampling.countdown(Sampler::Calls) {
                    return counted(slot);
                }
                return timed(push(shard, slot, id, true, false, false, None));
            }
        } else if shard.extra_key.get() == key {
            if let Some(slot) = shard.slot(id) {
                return timed(push(shard, slot, id, true, false, true, None));
            }
        } else if budget && shard.budget_key.get() == key {
            if let Some(slot) = shard.slot(id) {
                let v = budget::entry(id);
                let k = v & budget::SHIFT;
                if k != 0 {
                    let w = slot.budget_pick(k, |p| shard.sampling.budget_gap(p));
                    if w == 0 {
                        if v & budget::FRAMELESS != 0 {
                            return counted(slot);
                        }
                        return timed(push_untimed(shard, slot, id, true));
                    }
                    return timed(push_budget(shard, slot, id, true, false, w));
                }
                return timed(push_budget(shard, slot, id, true, false, 1));
            }
        }
    }
    slow(id)
}

#[inline]
pub(crate) fn enter_slow(id: u32) -> Entry {
    if state::budget() {
        return enter_budget_slow(id);
    }
    enter_sampled(id, Sampler::Calls)
}

/// [`push`] of a call the overhead budget times, standing for `w` calls: the frame is
/// marked and weighted by `start` itself, so nothing runs between the clock reading and
/// the measured code that the fully timed path does not run.
#[inline(always)]
fn push_budget(
    shard: &'static Shard,
    slot: &'static Slot,
    id: u32,
    tsc: bool,
    exact: bool,
    w: u32,
) -> Entered {
    let depth = shard.stack.depth.load(Relaxed) as usize;
    let (depth, frame) = match shard.stack.inline_frame(depth) {
        Some(f) if depth == 0 || !shard.stack.inline_frame_dead(depth - 1) => (depth, Some(f)),
        _ => deep_place(shard, depth),
    };
    start(
        shard,
        slot,
        id,
        depth,
        frame,
        tsc,
        exact,
        false,
        None,
        // `w` is a power of two: its logarithm fits the bits the stacks' node would use.
        BUDGET_FRAME | w.trailing_zeros(),
    )
}

/// [`enter_slow`] under an overhead budget (first call on a thread, a new session, the
/// monotonic clock, CPU clock readings): a call timed one in the site's period, standing
/// for the period's calls; the others with a frame but no clock or meter reading, or,
/// for a leaf ([`budget::FRAMELESS`]), only counted.
#[inline(never)]
fn enter_budget_slow(id: u32) -> Entry {
    let Some(shard) = registry::current() else {
        LOST.fetch_add(1, Relaxed);
        return Entry::None;
    };
    let Some(slot) = shard.slot(id) else {
        return Entry::None;
    };
    let v = budget::entry(id);
    let k = v & budget::SHIFT;
    let tsc = clock::is_tsc();
    let w = if k == 0 {
        1
    } else {
        slot.budget_pick(k, |p| shard.sampling.budget_gap(p))
    };
    if w == 0 {
        if v & budget::FRAMELESS != 0 {
            return Entry::Counted(slot);
        }
        return Entry::Timed(push_untimed(shard, slot, id, tsc));
    }
    Entry::Timed(push_budget(shard, slot, id, tsc, shard.exact_cpu(), w))
}

/// Pushes a frame for a call the budget does not time: the stack and the site's
/// recursion count as for a timed call, no clock or meter reading (`start` 0: a report
/// made meanwhile does not show it as running).
#[inline(always)]
fn push_untimed(shard: &'static Shard, slot: &'static Slot, site: u32, tsc: bool) -> Entered {
    let depth = shard.stack.depth.load(Relaxed) as usize;
    let (depth, frame) = match shard.stack.inline_frame(depth) {
        Some(f) if depth == 0 || !shard.stack.inline_frame_dead(depth - 1) => (depth, Some(f)),
        _ => deep_place(shard, depth),
    };
    let seq = shard.stack.next_seq();
    if let Some(f) = frame {
        f.seq.store(seq, Relaxed);
        f.site.store(site, Relaxed);
        f.start.set(0);
        slot.enter();
    } else {
        shard.deep_calls.add(1);
    }
    std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::Release);
    shard.stack.depth.store(depth as u32 + 1, Relaxed);
    Entered {
        shard,
        slot,
        site,
        depth: depth as u32,
        seq,
        start: 0,
        m0: Reading::default(),
        exact: false,
        tsc,
        extra: BUDGET_FRAME | UNTIMED,
    }
}

/// The general entry: this thread's shard (created if needed), the site's slot, and a
/// frame if `sampler` times this one.
#[inline(always)]
fn enter_sampled(id: u32, sampler: Sampler) -> Entry {
    let Some(shard) = registry::current() else {
        LOST.fetch_add(1, Relaxed);
        return Entry::None;
    };
    let Some(slot) = shard.slot(id) else {
        return Entry::None;
    };
    if !shard.sampling.timed(sampler) {
        return Entry::Counted(slot);
    }
    Entry::Timed(push(
        shard,
        slot,
        id,
        clock::is_tsc(),
        shard.exact_cpu(),
        extras(),
        None,
    ))
}

/// The inline entry of a future's first poll: a frame when the shard may take the inline
/// path of every call (TSC, every call timed, no extras) and, for a futures-section
/// future (`flow`) of a site of kind `Future`, the futures rate times every future too;
/// `None` sends the poll to [`enter_flow_slow`] or [`enter_with`].
///
/// An `Option` the caller matches at once (not an [`Entry`] merged with the slow
/// path's): the frame stays in registers. Merged, it went through the stack and was
/// copied in 16-byte chunks right after its 8-byte stores, a store-forwarding stall
/// of about 5 ns a call (`perf annotate`, the `future` workload).
#[inline(always)]
pub(crate) fn enter_fast(site: &'static CallSite, flow: bool) -> Option<Entered> {
    let id = site.id();
    let shard = registry::current_raw()?;
    if shard.key.get() == state::key()
        && (!flow || site.kind() != crate::SiteKind::Future || Sampler::Futures.period() == 1)
    {
        let slot = shard.slot(id)?;
        return Some(push(shard, slot, id, true, false, false, None));
    }
    None
}

/// Enters the first poll of a futures-section future: sampled at the futures rate for
/// sites of kind `Future` (the site's warm-up, then the countdown), at the calls rate
/// otherwise (the general entry; see [`enter_fast`] for the inline one). Also returns
/// how many calls a timed one stands for (its sampling weight; 1 unless the countdown
/// picked it).
#[inline(never)]
pub(crate) fn enter_flow_slow(site: &'static CallSite) -> (Entry, u64) {
    if site.kind() != crate::SiteKind::Future {
        if state::budget() {
            return enter_budget_async(site.id());
        }
        return (enter_sampled(site.id(), Sampler::Calls), 1);
    }
    let Some(shard) = registry::current() else {
        LOST.fetch_add(1, Relaxed);
        return (Entry::None, 1);
    };
    let Some(slot) = shard.slot(site.id()) else {
        return (Entry::None, 1);
    };
    let w = crate::op::Here::of(shard).sample(Sampler::Futures, site);
    if w == 0 {
        return (Entry::Counted(slot), 1);
    }
    let e = push(
        shard,
        slot,
        site.id(),
        clock::is_tsc(),
        shard.exact_cpu(),
        extras(),
        None,
    );
    (Entry::Timed(e), w)
}

/// The general entry of an `async fn`'s first poll ([`enter_slow`] for futures): under
/// an overhead budget, [`enter_budget_async`]; with the call's weight.
#[inline(never)]
pub(crate) fn enter_slow_async(id: u32) -> (Entry, u64) {
    if state::budget() {
        return enter_budget_async(id);
    }
    (enter_sampled(id, Sampler::Calls), 1)
}

/// The first poll of an `async fn` under an overhead budget: timed (standing for the
/// site's period) or counted. An untimed future has no frame: its polls' children are
/// charged to the frame that polls it.
fn enter_budget_async(id: u32) -> (Entry, u64) {
    let Some(shard) = registry::current() else {
        LOST.fetch_add(1, Relaxed);
        return (Entry::None, 1);
    };
    let Some(slot) = shard.slot(id) else {
        return (Entry::None, 1);
    };
    let k = budget::shift(id);
    let w = if k == 0 {
        1
    } else {
        slot.budget_pick(k, |p| shard.sampling.budget_gap(p))
    };
    if w == 0 {
        return (Entry::Counted(slot), 1);
    }
    let e = push(
        shard,
        slot,
        id,
        clock::is_tsc(),
        shard.exact_cpu(),
        extras(),
        None,
    );
    (Entry::Timed(e), u64::from(w))
}

/// Whether the stacks or the trace are on (the slow paths ask).
#[inline(always)]
fn extras() -> bool {
    state::stacks() || state::trace()
}

/// Pushes a frame for `site` whatever the sampling says (later polls of a timed future),
/// on the path `inherit` (the first poll's) when stacks are on.
#[inline]
pub(crate) fn enter_timed(site: &'static CallSite, inherit: Option<CtxRef>) -> Option<Entered> {
    let id = site.id();
    let shard = registry::current()?;
    let slot = shard.slot(id)?;
    Some(push(
        shard,
        slot,
        id,
        clock::is_tsc(),
        shard.exact_cpu(),
        extras(),
        inherit,
    ))
}

#[inline(always)]
pub(crate) fn now(tsc: bool) -> u64 {
    if tsc {
        clock::now_tsc()
    } else {
        clock::now()
    }
}

/// A pushed frame.
#[derive(Clone, Copy)]
pub(crate) struct Entered {
    pub(crate) shard: &'static Shard,
    pub(crate) slot: &'static Slot,
    pub(crate) site: u32,
    pub(crate) depth: u32,
    pub(crate) seq: u64,
    pub(crate) start: u64,
    /// The meters at entry.
    pub(crate) m0: Reading,
    /// The CPU clock was read at entry (exact CPU mode).
    pub(crate) exact: bool,
    /// The clock is the TSC (read it without asking).
    pub(crate) tsc: bool,
    /// What the exit does beyond recording the call (`stacks::{STACKS, TRACE, FOLDED}`,
    /// [`BUDGET_FRAME`], [`UNTIMED`]) and the frame's node in the calling-context tree of
    /// `shard` (`stacks::CTX`); with [`BUDGET_FRAME`] (no stacks then), the low bits
    /// are instead the base-2 logarithm of the calls a timed one stands for. 0 with
    /// stacks, trace and budget off.
    pub(crate) extra: u32,
}

impl Entered {
    /// The frame's node in its shard's tree.
    #[inline(always)]
    pub(crate) fn ctx(&self) -> u32 {
        self.extra & CTX
    }

    /// The frame's path, as a future keeps it for its later polls.
    pub(crate) fn path(&self) -> Option<CtxRef> {
        if self.extra & STACKS == 0 {
            return None;
        }
        Some(self.shard.tree.get()?.at(self.ctx()))
    }
}

/// What leaving a frame measured, and where to record it.
pub(crate) struct Left {
    pub(crate) slot: &'static Slot,
    /// Clock reading at the pop.
    pub(crate) end: u64,
    pub(crate) incl: u64,
    pub(crate) self_: u64,
    /// What the meters counted in the frame, inclusive and exclusive of measured children.
    pub(crate) m_incl: Delta,
    pub(crate) m_self: Delta,
    pub(crate) outer: bool,
    /// Popped from its own thread's stack (not recorded on another thread).
    pub(crate) own: bool,
}

/// Pushes a frame for `site` (whose slot on `shard` is `slot`), reads the meters, and
/// reads the clock last. With `extras` (stacks or trace on) the frame also gets its node
/// of the calling-context tree (`inherit`: the path of a future's first poll).
///
/// Inline: a frame held in the shard itself ([`crate::shard::stack::INLINE_FRAMES`])
/// above a live one. Deeper frames, frames marked dead below, and calls beyond
/// [`MAX_DEPTH`] find their place in [`deep_place`].
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
pub(crate) fn push(
    shard: &'static Shard,
    slot: &'static Slot,
    site: u32,
    tsc: bool,
    exact: bool,
    extras: bool,
    inherit: Option<CtxRef>,
) -> Entered {
    let depth = shard.stack.depth.load(Relaxed) as usize;
    let (depth, frame) = match shard.stack.inline_frame(depth) {
        Some(f) if depth == 0 || !shard.stack.inline_frame_dead(depth - 1) => (depth, Some(f)),
        _ => deep_place(shard, depth),
    };
    start(
        shard, slot, site, depth, frame, tsc, exact, extras, inherit, 0,
    )
}

/// Where [`push`] puts a frame that is not an inline one above a live one: pops the
/// frames marked dead on top first; the frame at the resulting depth, or `None` beyond
/// [`MAX_DEPTH`].
#[inline(never)]
fn deep_place(shard: &'static Shard, mut depth: usize) -> (usize, Option<&'static Frame>) {
    if depth > 0
        && depth <= MAX_DEPTH
        && shard
            .stack
            .frame(depth - 1)
            .is_some_and(|f| f.seq.load(Relaxed) == DEAD)
    {
        depth = shard.pop_dead(depth);
    }
    (
        depth,
        (depth < MAX_DEPTH).then(|| shard.stack.push_frame(depth)),
    )
}

/// Fills `frame` (the one at `depth`; `None` beyond [`MAX_DEPTH`]) for `site`, exposes
/// it, reads the meters, and reads the clock last.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
#[allow(clippy::too_many_arguments)]
fn start(
    shard: &'static Shard,
    slot: &'static Slot,
    site: u32,
    depth: usize,
    frame: Option<&Frame>,
    tsc: bool,
    exact: bool,
    extras: bool,
    inherit: Option<CtxRef>,
    flags: u32,
) -> Entered {
    let seq = shard.stack.next_seq();
    let mut extra = 0;
    if let Some(f) = frame {
        f.seq.store(seq, Relaxed);
        f.children.set(0);
        f.children_m.clear();
        f.site.store(site, Relaxed);
        if extras {
            extra = shard.enter_extras(depth, site, inherit);
        }
        slot.enter();
    } else {
        shard.deep_calls.add(1);
        if extras && state::trace() {
            extra = TRACE;
        }
    }
    // A sampling signal may read the stack between any two instructions of this thread:
    // the frame must be complete before the depth that exposes it.
    std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::Release);
    shard.stack.depth.store(depth as u32 + 1, Relaxed);
    let m0 = Reading::now(exact);
    let start = now(tsc);
    if let Some(f) = frame {
        // For reports made while the call runs (`registry::running`).
        f.start.set(start);
    }
    Entered {
        shard,
        slot,
        site,
        depth: depth as u32,
        seq,
        start,
        m0,
        exact,
        tsc,
        extra: extra | flags,
    }
}

/// Pops the frame `e` whose clock read `end` (the meters are read now).
///
/// The owner pops its frame on top of the stack ([`pop_inline`] for the frames held in
/// the shard, [`pop_deep`] for the deeper ones); everything else (frames popped out of
/// order, a guard dropped on another thread, calls beyond [`MAX_DEPTH`]) goes through
/// [`pop_slow`].
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
pub(crate) fn pop(e: &Entered, end: u64) -> Option<Left> {
    if let Some(l) = pop_inline(e, end) {
        return Some(l);
    }
    pop_deep(e, end).or_else(|| pop_slow(e, end.saturating_sub(e.start)))
}

/// [`pop`] of the owner's frame on top of its stack (inline or deeper), built in
/// registers; `None` for every other pop, which the caller sends to [`pop_slow`] on a
/// path of its own (merging the two results would put the usual one through the stack).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
pub(crate) fn pop_fast(e: &Entered, end: u64) -> Option<Left> {
    if let Some(l) = pop_inline(e, end) {
        return Some(l);
    }
    pop_deep(e, end)
}

/// [`pop`] when the owner pops an inline frame that is on top; `None` otherwise.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
fn pop_inline(e: &Entered, end: u64) -> Option<Left> {
    pop_inline_with(e, end, 1, false)
}

/// [`pop_inline`] of a frame standing for `w` calls; `signed`: its self time may come
/// out "negative" (two's complement; see [`Slot::record_n`]).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
fn pop_inline_with(e: &Entered, end: u64, w: u64, signed: bool) -> Option<Left> {
    let shard = e.shard;
    let d = e.depth as usize;
    let f = shard.stack.inline_frame(d)?;
    if shard.stack.depth.load(Relaxed) as usize == d + 1
        && f.seq.load(Relaxed) == e.seq
        && registry::is_current(shard)
    {
        let incl = end.saturating_sub(e.start);
        return Some(finish(
            e,
            end,
            incl,
            f,
            |p| shard.stack.inline_frame(p),
            w,
            signed,
        ));
    }
    None
}

/// [`pop`] when the owner pops a frame beyond the inline ones that is on top; `None`
/// otherwise.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
fn pop_deep(e: &Entered, end: u64) -> Option<Left> {
    pop_deep_with(e, end, 1, false)
}

/// [`pop_deep`] of a frame standing for `w` calls (see [`pop_inline_with`]).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
fn pop_deep_with(e: &Entered, end: u64, w: u64, signed: bool) -> Option<Left> {
    let shard = e.shard;
    let d = e.depth as usize;
    if d >= MAX_DEPTH || shard.stack.depth.load(Relaxed) as usize != d + 1 {
        return None;
    }
    let f = shard.stack.frame(d)?;
    if f.seq.load(Relaxed) != e.seq || !registry::is_current(shard) {
        return None;
    }
    let incl = end.saturating_sub(e.start);
    Some(finish(e, end, incl, f, |p| shard.stack.frame(p), w, signed))
}

/// Pops `f`, the owner's frame of `e` on top of its stack (frame `d` of the stack is
/// `frame(d)`): charges the frame below (`w` times: the calls it stands for), or the
/// thread's total at depth 0, and yields what the frame measured. `signed`: the self
/// time is `incl − children` in two's complement, not clamped at 0 (the children are
/// weighted estimates under a budget).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
fn finish<'a>(
    e: &Entered,
    end: u64,
    incl: u64,
    f: &Frame,
    frame: impl FnOnce(usize) -> Option<&'a Frame>,
    w: u64,
    signed: bool,
) -> Left {
    let m_incl = Reading::now(e.exact).since(e.m0);
    let children = f.children.get();
    e.shard.stack.depth.store(e.depth, Relaxed);
    match (e.depth as usize).checked_sub(1) {
        Some(p) => {
            if let Some(parent) = frame(p) {
                // Under a budget, the calls a timed one stands for read no clock: they
                // took the clock floor less each.
                let took = if signed && w > 1 {
                    incl.wrapping_add((w - 1).wrapping_mul(incl.saturating_sub(budget::floor())))
                } else {
                    incl.wrapping_mul(w)
                };
                parent.children.add(took);
                parent.children_m.add(m_incl.times(w));
            }
        }
        None => e.shard.top.add(m_incl.times(w)),
    }
    let outer = e.slot.leave();
    Left {
        slot: e.slot,
        end,
        incl,
        self_: if signed {
            incl.wrapping_sub(children)
        } else {
            incl.saturating_sub(children)
        },
        m_incl,
        m_self: f.children_m.self_of(m_incl),
        outer,
        own: true,
    }
}

#[cold]
#[inline(never)]
pub(crate) fn pop_slow(e: &Entered, incl: u64) -> Option<Left> {
    let shard = e.shard;
    let d = e.depth as usize;
    let end = e.start + incl;
    if !registry::is_current(shard) {
        // Dropped on another thread: mark the frame dead for its owner to pop, and
        // record on this thread. The meters are per thread: what they counted here says
        // nothing about the call, so it records none.
        if let Some(f) = shard.stack.frame(d) {
            let _ = f.seq.compare_exchange(e.seq, DEAD, Relaxed, Relaxed);
        }
        let Some(here) = registry::current() else {
            LOST.fetch_add(1, Relaxed);
            return None;
        };
        let slot = here.slot(e.site)?;
        let outer = !slot.is_active();
        return Some(Left {
            slot,
            end,
            incl,
            self_: incl,
            m_incl: Delta::ZERO,
            m_self: Delta::ZERO,
            outer,
            own: false,
        });
    }
    let depth = shard.stack.depth.load(Relaxed) as usize;
    let m_incl = Reading::now(e.exact).since(e.m0);
    if d >= MAX_DEPTH {
        // Beyond the tracked depth: no frame, so no children known. Its time stays in
        // the self time of the deepest tracked frame (which does not count it as a
        // child), and it records no self time of its own: self never exceeds total,
        // and the self times of a thread still add up to its measured time.
        if depth == d + 1 {
            shard.stack.depth.store(d as u32, Relaxed);
        }
        // Looked up again: a guard of an earlier owner of this shard must not reach
        // memory released when that owner exited.
        let slot = shard.slot(e.site)?;
        let outer = !slot.is_active();
        return Some(Left {
            slot,
            end,
            incl,
            self_: 0,
            m_incl,
            m_self: Delta::ZERO,
            outer,
            own: true,
        });
    }
    if depth > d + 1
        && shard
            .stack
            .frame(d)
            .is_some_and(|f| f.seq.load(Relaxed) == e.seq)
    {
        // Frames above ours outlived their guards' place on this stack: discard them.
        for i in (d + 1..depth.min(MAX_DEPTH)).rev() {
            shard.discard_frame(i);
        }
        shard.stack.depth.store(d as u32 + 1, Relaxed);
        return pop(e, end);
    }
    // Our frame was discarded while the guard lived on (suspended across a poll, or
    // below a frame that was popped out of order): its children are unknown, and other
    // work ran on this thread meanwhile, so the meters say nothing about this call.
    let slot = shard.slot(e.site)?;
    let outer = !slot.is_active();
    Some(Left {
        slot,
        end,
        incl,
        self_: incl,
        m_incl: Delta::ZERO,
        m_self: Delta::ZERO,
        outer,
        own: true,
    })
}

/// RAII guard of one measured scope: created on entry, records on drop.
///
/// `Send`: dropping it on another thread records the call there.
#[must_use = "the scope is measured until the guard is dropped"]
pub struct Scope {
    e: Option<Entered>,
}

impl std::fmt::Debug for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("timed", &self.e.is_some())
            .finish()
    }
}

impl Scope {
    /// Enters a scope of `site`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    pub fn enter(site: &'static CallSite) -> Scope {
        enter_with(
            site,
            |e| Scope { e: Some(e) },
            |slot| {
                slot.c.counted.add(1);
                Scope { e: None }
            },
            Scope::enter_slow,
            true,
        )
    }

    #[inline(never)]
    fn enter_slow(id: u32) -> Scope {
        // A thread's shard, a site's slot: first-use work (`crate::hook::set_cold_hook`).
        crate::hook::cold::cold(|| match enter_slow(id) {
            Entry::Timed(e) => Scope { e: Some(e) },
            Entry::Counted(slot) => {
                slot.c.counted.add(1);
                Scope { e: None }
            }
            Entry::None => Scope { e: None },
        })
    }
}

impl Drop for Scope {
    /// Small on purpose: the check inlines into the measured function, the exit does not.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    fn drop(&mut self) {
        if let Some(e) = &self.e {
            if e.extra == 0 {
                return exit(e);
            }
            if e.extra & UNTIMED != 0 {
                return exit_untimed_out_of_line(e);
            }
            if e.extra & BUDGET_FRAME != 0 {
                // The clock first, here: a call the budget times is one in many, and
                // the exit out of line runs cold then, cache misses that are the
                // profiler's and not the measured code's.
                return exit_budget(e, now(e.tsc));
            }
            exit_with_extras(e);
        }
    }
}

/// [`exit_untimed`], out of line.
#[inline(never)]
fn exit_untimed_out_of_line(e: &Entered) {
    exit_untimed(e);
}

/// Leaves a timed scope (no stacks, trace or budget): reads the clock first, then pops
/// and records.
///
/// The usual pops (the owner's frame on top of its stack) and their recording are one
/// straight path; every other pop records in [`exit_slow`] (so that what the usual ones
/// measured never goes through memory shared with it).
#[inline(never)]
fn exit(e: &Entered) {
    let end = now(e.tsc);
    let l = match pop_inline(e, end) {
        Some(l) => l,
        None => match pop_deep(e, end) {
            Some(l) => l,
            None => return exit_slow(e, end),
        },
    };
    l.slot.record(l.incl, l.self_, l.m_incl, l.m_self, l.outer);
}

/// [`exit`] of a frame not on top of its owner's stack, or of a call beyond
/// [`MAX_DEPTH`].
#[inline(never)]
fn exit_slow(e: &Entered, end: u64) {
    if let Some(l) = pop_slow(e, end.saturating_sub(e.start)) {
        l.slot.record(l.incl, l.self_, l.m_incl, l.m_self, l.outer);
    }
}

/// [`exit`] with the stacks or the trace on: the same, then their part.
#[inline(never)]
fn exit_with_extras(e: &Entered) {
    let end = now(e.tsc);
    if let Some(l) = pop(e, end) {
        l.slot.record(l.incl, l.self_, l.m_incl, l.m_self, l.outer);
        if !l.own {
            exit_extras(e, &l);
        } else if e.extra & TRACE == 0 {
            // Stacks alone, on the frame's own thread: its node, inline.
            if let Some(t) = e.shard.tree.get() {
                let folded = e.extra & FOLDED != 0;
                t.record(e.ctx(), l.incl, l.self_, l.m_self.cpu_ns(), folded);
            }
        } else if e.extra == TRACE {
            // The trace alone, on the frame's own thread.
            e.shard.ring.write(e.site, Kind::Sync, e.start, l.end);
        } else {
            exit_extras(e, &l);
        }
    }
}

/// [`exit`] of a frame the overhead budget timed: recorded with its weight and a
/// signed self time.
#[inline(never)]
fn exit_budget(e: &Entered, end: u64) {
    let w = 1u64 << (e.extra & WEIGHT_SHIFT);
    let l = match pop_inline_with(e, end, w, true) {
        Some(l) => l,
        None => match pop_deep_with(e, end, w, true) {
            Some(l) => l,
            None => match pop_slow(e, end.saturating_sub(e.start)) {
                Some(l) => l,
                None => return,
            },
        },
    };
    if l.self_ != l.incl {
        // Measured children: this site's untimed calls keep their frames.
        budget::mark_children(e.site);
    }
    l.slot
        .record_n(l.incl, l.self_, w, l.m_incl, l.m_self, l.outer);
}

/// Pops and counts a call the budget did not time: inline, the owner's frame on top of
/// its stack; otherwise [`exit_untimed_slow`].
#[inline(always)]
fn exit_untimed(e: &Entered) {
    let shard = e.shard;
    let d = e.depth as usize;
    if let Some(f) = shard.stack.inline_frame(d) {
        if shard.stack.depth.load(Relaxed) as usize == d + 1
            && f.seq.load(Relaxed) == e.seq
            && registry::is_current(shard)
        {
            shard.stack.depth.store(e.depth, Relaxed);
            e.slot.leave();
            e.slot.c.counted.add(1);
            return;
        }
    }
    exit_untimed_slow(e);
}

/// [`exit_untimed`] of a frame beyond the inline ones or out of order (the repairs of
/// [`pop_slow`], with nothing to record but the call).
#[inline(never)]
fn exit_untimed_slow(e: &Entered) {
    let shard = e.shard;
    let d = e.depth as usize;
    if !registry::is_current(shard) {
        // Dropped on another thread: the owner pops the frame; counted here.
        if let Some(f) = shard.stack.frame(d) {
            let _ = f.seq.compare_exchange(e.seq, DEAD, Relaxed, Relaxed);
        }
        match registry::current().and_then(|here| here.slot(e.site)) {
            Some(slot) => slot.c.counted.add(1),
            None => {
                LOST.fetch_add(1, Relaxed);
            }
        }
        return;
    }
    let depth = shard.stack.depth.load(Relaxed) as usize;
    if d >= MAX_DEPTH {
        if depth == d + 1 {
            shard.stack.depth.store(d as u32, Relaxed);
        }
    } else if depth > d
        && shard
            .stack
            .frame(d)
            .is_some_and(|f| f.seq.load(Relaxed) == e.seq)
    {
        // Frames above ours outlived their guards' place on this stack: discard them.
        for i in (d + 1..depth.min(MAX_DEPTH)).rev() {
            shard.discard_frame(i);
        }
        shard.stack.depth.store(d as u32, Relaxed);
        e.slot.leave();
    }
    // Otherwise the frame was discarded already (which left the site's recursion count).
    e.slot.c.counted.add(1);
}

/// The stacks and trace part of a sync scope's exit.
#[inline(never)]
fn exit_extras(e: &Entered, l: &Left) {
    if e.extra & STACKS != 0 {
        let folded = e.extra & FOLDED != 0;
        let cpu = l.m_self.cpu_ns();
        if l.own {
            // The usual case: the frame's own thread, its own tree.
            if let Some(t) = e.shard.tree.get() {
                t.record(e.ctx(), l.incl, l.self_, cpu, folded);
            }
        } else if let Some(path) = e.path() {
            if let Some(here) = registry::current() {
                here.tree.record_call(path, l.incl, l.self_, cpu, folded);
            }
        }
    }
    if e.extra & TRACE != 0 {
        let here = if l.own {
            Some(e.shard)
        } else {
            registry::current()
        };
        if let Some(here) = here {
            here.ring.write(e.site, Kind::Sync, e.start, l.end);
        }
    }
}
