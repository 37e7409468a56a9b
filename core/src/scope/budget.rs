//! The overhead budget's entry and exit ([`crate::budget`]): a call timed one in its
//! site's period, standing for the period's calls; the others with a frame but no clock
//! or meter reading ([`UNTIMED`]), or, for a leaf ([`budget::FRAMELESS`]), only counted.

use std::sync::atomic::Ordering::Relaxed;

use super::frame::{expose, place, pop_slow, pop_top, push_slow, repair, shard_slot, start};
use super::frame::{Entered, Entry, Left, Repaired, LOST};
use crate::budget;
use crate::clock;
use crate::meter::Reading;
use crate::registry;
use crate::shard::Shard;
use crate::slot::Slot;

/// [`Entered::extra`]: a frame pushed under an overhead budget ([`crate::budget`]); its
/// exit records it with its weight ([`WEIGHT_SHIFT`]) and a signed self time.
pub(crate) const BUDGET_FRAME: u32 = 8 << 24;
/// [`Entered::extra`], with [`BUDGET_FRAME`]: a call the budget does not time. It has a
/// frame (its children are its own; waits and CPU samples inside are charged to it) but
/// reads no clock and no meter: it is counted.
pub(crate) const UNTIMED: u32 = 16 << 24;
/// With [`BUDGET_FRAME`]: the bits of [`Entered::extra`] that hold the base-2 logarithm of
/// the calls a timed frame stands for.
const WEIGHT_SHIFT: u32 = 0x1F;

/// [`push`] of a call the overhead budget times, standing for `w` calls: the frame is
/// marked and weighted by `start` itself, so nothing runs between the clock reading and
/// the measured code that the fully timed path does not run.
#[inline(always)]
pub(crate) fn push_budget(
    shard: &'static Shard,
    slot: &'static Slot,
    id: u32,
    tsc: bool,
    exact: bool,
    w: u32,
) -> Entered {
    let (depth, frame) = place!(shard);
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

/// The slow entry of a scope under an overhead budget (first call on a thread, a new
/// session, the monotonic clock, CPU clock readings): a call timed one in the site's
/// period, standing for the period's calls; the others with a frame but no clock or
/// meter reading, or, for a leaf ([`budget::FRAMELESS`]), only counted.
#[inline(never)]
pub(crate) fn enter_budget_slow(id: u32) -> Entry {
    let Some((shard, slot)) = shard_slot(id) else {
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
pub(crate) fn push_untimed(
    shard: &'static Shard,
    slot: &'static Slot,
    site: u32,
    tsc: bool,
) -> Entered {
    let (depth, frame) = place!(shard);
    let seq = shard.stack.next_seq();
    if let Some(f) = frame {
        f.seq.store(seq, Relaxed);
        f.site.store(site, Relaxed);
        f.start.set(0);
        slot.enter();
    } else {
        shard.deep_calls.add(1);
    }
    expose(shard, depth);
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

/// The first poll of an `async fn` under an overhead budget: timed (standing for the
/// site's period) or counted. An untimed future has no frame: its polls' children are
/// charged to the frame that polls it.
#[inline]
pub(crate) fn enter_budget_async(id: u32) -> (Entry, u64) {
    let Some((shard, slot)) = shard_slot(id) else {
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
    (Entry::Timed(push_slow(shard, slot, id, None)), u64::from(w))
}

/// The exit of a frame the overhead budget timed: recorded with its weight and a signed
/// self time.
///
/// As for a fully timed call (`super::exit`), the usual pops (the owner's frame on top
/// of its stack) and their recording are one straight path; every other pop records in
/// [`exit_budget_slow`].
#[inline(never)]
pub(crate) fn exit_budget(e: &Entered, end: u64) {
    let w = 1u64 << (e.extra & WEIGHT_SHIFT);
    let Some(l) = pop_top(e, end, w, true) else {
        return exit_budget_slow(e, end, w);
    };
    record_weighted(e, &l, w);
}

/// [`exit_budget`] of a frame not on top of its owner's stack, or of a call beyond
/// [`MAX_DEPTH`](crate::MAX_DEPTH).
#[inline(never)]
fn exit_budget_slow(e: &Entered, end: u64, w: u64) {
    if let Some(l) = pop_slow(e, end.saturating_sub(e.start)) {
        record_weighted(e, &l, w);
    }
}

/// Records what the frame of `e`, standing for `w` calls, measured.
#[inline(always)]
fn record_weighted(e: &Entered, l: &Left, w: u64) {
    if l.self_ != l.incl {
        // Measured children: this site's untimed calls keep their frames.
        budget::mark_children(e.site);
    }
    l.slot
        .record_n(l.incl, l.self_, w, l.m_incl, l.m_self, l.outer);
}

/// [`exit_untimed`], out of line.
#[inline(never)]
pub(crate) fn exit_untimed_out_of_line(e: &Entered) {
    exit_untimed(e);
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

/// [`exit_untimed`] of a frame beyond the inline ones or out of order: the repairs of
/// [`pop_slow`] ([`repair`]), with nothing to record but the call.
#[inline(never)]
fn exit_untimed_slow(e: &Entered) {
    match repair(e) {
        Repaired::Elsewhere => {
            // The owner pops the frame; counted here.
            match registry::current().and_then(|here| here.slot(e.site)) {
                Some(slot) => slot.c.counted.add(1),
                None => {
                    LOST.fetch_add(1, Relaxed);
                }
            }
            return;
        }
        Repaired::OnTop => {
            e.shard.stack.depth.store(e.depth, Relaxed);
            e.slot.leave();
        }
        // No frame beyond the tracked depth; a frame discarded already left the site's
        // recursion count.
        Repaired::Beyond | Repaired::Discarded => {}
    }
    e.slot.c.counted.add(1);
}
