//! A scope's frame on its thread's stack: pushed at entry (the meters, then the clock
//! read last), popped at exit (what the frame measured, charged to the frame below), and
//! repaired when it does not leave in order.
//!
//! The owner pops its frame on top of its stack inline ([`pop_fast`]); every other pop
//! goes through [`pop_slow`], whose repairs ([`repair`]) the overhead budget's exit of an
//! untimed call shares.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::budget;
use crate::clock;
use crate::meter::{Delta, Reading};
use crate::registry;
use crate::shard::stack::{Frame, DEAD, MAX_DEPTH};
use crate::shard::Shard;
use crate::slot::Slot;
use crate::stacks::{CtxRef, CTX, STACKS, TRACE};
use crate::state;

/// Calls that could not be recorded because their thread was already tearing down.
pub(crate) static LOST: AtomicU64 = AtomicU64::new(0);

/// How a scope was entered (slow path): the pushed frame, or only counted, or nothing
/// (thread tearing down, too many call sites).
pub(crate) enum Entry {
    Timed(Entered),
    Counted(&'static Slot),
    None,
}

/// Whether the stacks or the trace are on (the slow paths ask).
#[inline(always)]
pub(crate) fn extras() -> bool {
    state::stacks() || state::trace()
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
    /// the overhead budget's [`BUDGET_FRAME`](super::budget::BUDGET_FRAME) and
    /// [`UNTIMED`](super::budget::UNTIMED)) and the frame's node in the calling-context
    /// tree of `shard` (`stacks::CTX`); with `BUDGET_FRAME` (no stacks then), the low
    /// bits are instead the base-2 logarithm of the calls a timed one stands for. 0 with
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

/// The start of the slow entries: this thread's shard (created if needed) and the slot
/// of call site `id`; `None` when the thread is tearing down (the call is lost:
/// [`LOST`]) or no shard can address the site.
#[inline(always)]
pub(crate) fn shard_slot(id: u32) -> Option<(&'static Shard, &'static Slot)> {
    let Some(shard) = registry::current() else {
        LOST.fetch_add(1, Relaxed);
        return None;
    };
    Some((shard, shard.slot(id)?))
}

/// [`push`] on the path of the slow entries: the clock and CPU mode as they are, the
/// stacks' node or the trace when on (on the path `inherit`, a future's first poll's).
#[inline(always)]
pub(crate) fn push_slow(
    shard: &'static Shard,
    slot: &'static Slot,
    site: u32,
    inherit: Option<CtxRef>,
) -> Entered {
    push(
        shard,
        slot,
        site,
        clock::is_tsc(),
        shard.exact_cpu(),
        extras(),
        inherit,
    )
}

/// Pushes a frame for `site` (whose slot on `shard` is `slot`), reads the meters, and
/// reads the clock last. With `extras` (stacks or trace on) the frame also gets its node
/// of the calling-context tree (`inherit`: the path of a future's first poll), in the
/// place [`place!`] finds.
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
    let (depth, frame) = place!(shard);
    start(
        shard, slot, site, depth, frame, tsc, exact, extras, inherit, 0,
    )
}

/// Where the next frame of the shard `$shard` goes: `(depth, frame)`, the frame `None`
/// beyond [`MAX_DEPTH`].
///
/// Inline: a frame held in the shard itself ([`crate::shard::stack::INLINE_FRAMES`])
/// above a live one. Deeper frames, frames marked dead below, and calls beyond
/// [`MAX_DEPTH`] find their place in [`deep_place`].
///
/// A macro, not a function: written in place, the pushes' blocks are laid out as before;
/// through a function forced inline they were not, which cost a call under an overhead
/// budget one to three instructions more (callgrind).
macro_rules! place {
    ($shard:expr) => {{
        let depth = $shard
            .stack
            .depth
            .load(::std::sync::atomic::Ordering::Relaxed) as usize;
        match $shard.stack.inline_frame(depth) {
            Some(f) if depth == 0 || !$shard.stack.inline_frame_dead(depth - 1) => (depth, Some(f)),
            _ => $crate::scope::frame::deep_place($shard, depth),
        }
    }};
}
pub(crate) use place;

/// Where a frame goes that is not an inline one above a live one ([`place!`]): pops the
/// frames marked dead on top first; the frame at the resulting depth, or `None` beyond
/// [`MAX_DEPTH`].
#[inline(never)]
pub(crate) fn deep_place(
    shard: &'static Shard,
    mut depth: usize,
) -> (usize, Option<&'static Frame>) {
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
pub(crate) fn start(
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
    expose(shard, depth);
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

/// Makes the frame just filled at `depth` part of the stack of `shard`. A sampling
/// signal may read the stack between any two instructions of this thread: the frame
/// must be complete before the depth that exposes it.
#[inline(always)]
pub(crate) fn expose(shard: &Shard, depth: usize) {
    std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::Release);
    shard.stack.depth.store(depth as u32 + 1, Relaxed);
}

/// Pops the frame `e` whose clock read `end` (the meters are read now): [`pop_fast`],
/// or [`pop_slow`] for everything else (frames popped out of order, a guard dropped on
/// another thread, calls beyond [`MAX_DEPTH`]).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
pub(crate) fn pop(e: &Entered, end: u64) -> Option<Left> {
    pop_fast(e, end).or_else(|| pop_slow(e, end.saturating_sub(e.start)))
}

/// [`pop`] of the owner's frame on top of its stack (inline or deeper), built in
/// registers; `None` for every other pop, which the caller sends to [`pop_slow`] on a
/// path of its own (merging the two results would put the usual one through the stack).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
pub(crate) fn pop_fast(e: &Entered, end: u64) -> Option<Left> {
    pop_top(e, end, 1, false)
}

/// [`pop_fast`] of a frame standing for `w` calls; `signed`: its self time may come out
/// "negative" (two's complement; see [`Slot::record_n`]).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
pub(crate) fn pop_top(e: &Entered, end: u64, w: u64, signed: bool) -> Option<Left> {
    if let Some(l) = pop_inline(e, end, w, signed) {
        return Some(l);
    }
    pop_deep(e, end, w, signed)
}

/// [`pop_top`] when the owner pops an inline frame that is on top; `None` otherwise.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
fn pop_inline(e: &Entered, end: u64, w: u64, signed: bool) -> Option<Left> {
    let shard = e.shard;
    let d = e.depth as usize;
    let f = shard.stack.inline_frame(d)?;
    if shard.stack.depth.load(Relaxed) as usize == d + 1
        && f.seq.load(Relaxed) == e.seq
        && registry::is_current(shard)
    {
        return Some(finish(
            e,
            end,
            f,
            |p| shard.stack.inline_frame(p),
            w,
            signed,
        ));
    }
    None
}

/// [`pop_top`] when the owner pops a frame beyond the inline ones that is on top; `None`
/// otherwise.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
fn pop_deep(e: &Entered, end: u64, w: u64, signed: bool) -> Option<Left> {
    let shard = e.shard;
    let d = e.depth as usize;
    if d >= MAX_DEPTH || shard.stack.depth.load(Relaxed) as usize != d + 1 {
        return None;
    }
    let f = shard.stack.frame(d)?;
    if f.seq.load(Relaxed) != e.seq || !registry::is_current(shard) {
        return None;
    }
    Some(finish(e, end, f, |p| shard.stack.frame(p), w, signed))
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
    f: &Frame,
    frame: impl FnOnce(usize) -> Option<&'a Frame>,
    w: u64,
    signed: bool,
) -> Left {
    let incl = end.saturating_sub(e.start);
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

/// [`pop`] of a frame the inline paths did not pop (see [`repair`]), `incl` after its
/// entry: recorded on this thread, with self = inclusive unless its frame was kept.
#[cold]
#[inline(never)]
pub(crate) fn pop_slow(e: &Entered, incl: u64) -> Option<Left> {
    let end = e.start + incl;
    let (slot, self_, m_incl, own) = match repair(e) {
        // The meters are per thread: what they counted here says nothing about the
        // call, so it records none.
        Repaired::Elsewhere => {
            let Some(here) = registry::current() else {
                LOST.fetch_add(1, Relaxed);
                return None;
            };
            (here.slot(e.site)?, incl, Delta::ZERO, false)
        }
        // No frame, so no children known. Its time stays in the self time of the
        // deepest tracked frame (which does not count it as a child), and it records no
        // self time of its own: self never exceeds total, and the self times of a thread
        // still add up to its measured time. The slot is looked up again: a guard of an
        // earlier owner of this shard must not reach memory released when that owner
        // exited.
        Repaired::Beyond => (
            e.shard.slot(e.site)?,
            0,
            Reading::now(e.exact).since(e.m0),
            true,
        ),
        Repaired::OnTop => return pop(e, end),
        // Its children are unknown, and other work ran on this thread meanwhile, so the
        // meters say nothing about this call.
        Repaired::Discarded => (e.shard.slot(e.site)?, incl, Delta::ZERO, true),
    };
    let outer = !slot.is_active();
    Some(Left {
        slot,
        end,
        incl,
        self_,
        m_incl,
        m_self: Delta::ZERO,
        outer,
        own,
    })
}

/// What [`repair`] found of a frame the inline paths did not pop.
pub(crate) enum Repaired {
    /// Its guard is dropped on another thread (the caller's): the frame is marked dead
    /// for its owner to pop.
    Elsewhere,
    /// Beyond [`MAX_DEPTH`]: it has no frame; the depth it took is given back if it was
    /// on top.
    Beyond,
    /// On top of its owner's stack now: the frames above it, which outlived their
    /// guards' place on the stack (guards forgotten, or suspended inside a future whose
    /// poll is ending), were discarded.
    OnTop,
    /// Discarded already, while its guard lived on (suspended across a poll, or below a
    /// frame that was popped out of order); which left the site's recursion count.
    Discarded,
}

/// Repairs the stack around the frame of `e`, which the inline paths did not pop: the
/// frames left above it are discarded, never trusted; a frame whose guard is dropped on
/// another thread is marked dead for its owner to pop.
#[inline(always)]
pub(crate) fn repair(e: &Entered) -> Repaired {
    let shard = e.shard;
    let d = e.depth as usize;
    if !registry::is_current(shard) {
        if let Some(f) = shard.stack.frame(d) {
            let _ = f.seq.compare_exchange(e.seq, DEAD, Relaxed, Relaxed);
        }
        return Repaired::Elsewhere;
    }
    let depth = shard.stack.depth.load(Relaxed) as usize;
    if d >= MAX_DEPTH {
        if depth == d + 1 {
            shard.stack.depth.store(d as u32, Relaxed);
        }
        return Repaired::Beyond;
    }
    if depth > d
        && shard
            .stack
            .frame(d)
            .is_some_and(|f| f.seq.load(Relaxed) == e.seq)
    {
        for i in (d + 1..depth.min(MAX_DEPTH)).rev() {
            shard.discard_frame(i);
        }
        shard.stack.depth.store(d as u32 + 1, Relaxed);
        return Repaired::OnTop;
    }
    Repaired::Discarded
}
