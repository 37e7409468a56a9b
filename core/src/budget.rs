//! The overhead budget's per-site timing periods: with a budget set
//! ([`crate::state::set_budget`]), each measured function's calls are timed one in
//! `period(id)` (a per-thread countdown in its slot) and a timed call stands for
//! `period` calls; the other calls are counted and keep their frame (their children
//! belong to them) but read no clock. A controller outside the per-call path (the
//! facade's) sets the periods from the calls it sees; the per-call path only loads one.
//!
//! The periods live in one static table indexed by call-site number, zero (timed in
//! full) until the controller writes: no field in the call sites, and nothing to
//! initialise.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use crate::site::IDS;

/// Per call-site number: the base-2 logarithm of its timing period in the low bits (0:
/// every call timed), [`FRAMELESS`] and [`HAS_CHILDREN`]. Periods are powers of two,
/// so that a thread's countdown can carry, in one word, the period its gap was drawn
/// for: a timed call then stands for exactly that many calls, also right after the
/// period changed.
static PERIODS: [AtomicU32; IDS] = [const { AtomicU32::new(0) }; IDS];

/// Longest period the controller may set: one call in 2^10 timed.
pub const MAX_PERIOD: u32 = 1 << MAX_SHIFT;
/// `log2(MAX_PERIOD)`.
pub(crate) const MAX_SHIFT: u32 = 10;
/// The bits of an entry that hold the shift.
pub(crate) const SHIFT: u32 = 0x1F;
/// Entry bit: the calls the budget does not time need no frame (a leaf: no measured
/// children, nothing charged to it, no CPU sampling), so they are only counted.
pub(crate) const FRAMELESS: u32 = 1 << 31;
/// Entry bit: a timed call of the site had measured children (set by the threads).
const HAS_CHILDREN: u32 = 1 << 30;

/// Two back-to-back clock readings, ticks: what a timed call's duration includes of the
/// profiler's own work and a call the budget does not time does not take.
static FLOOR: AtomicU64 = AtomicU64::new(0);

/// Sets the clock floor the budget's weighted children are corrected by ([`floor`]).
pub fn set_floor(ticks: u64) {
    FLOOR.store(ticks, Relaxed);
}

/// The clock floor, ticks: a timed call standing for `w` calls tells its parent that
/// they took `incl + (w − 1) · (incl − floor)`, since the `w − 1` calls not timed read
/// no clock.
#[inline(always)]
pub(crate) fn floor() -> u64 {
    FLOOR.load(Relaxed)
}

/// The entry of the call site numbered `id`: its shift and flags.
#[inline(always)]
pub(crate) fn entry(id: u32) -> u32 {
    PERIODS.get(id as usize).map_or(0, |p| p.load(Relaxed))
}

/// The base-2 logarithm of the timing period of the call site numbered `id` (0: every
/// call timed).
#[inline(always)]
pub(crate) fn shift(id: u32) -> u32 {
    entry(id) & SHIFT
}

/// Sets the timing period of the call site numbered `id`, `period` rounded up to a
/// power of two (at most [`MAX_PERIOD`]), and whether its untimed calls go without a
/// frame. Takes effect at each thread's next call of it.
pub fn set_period(id: u32, period: u32, frameless: bool) {
    if let Some(p) = PERIODS.get(id as usize) {
        let k = period
            .max(1)
            .next_power_of_two()
            .trailing_zeros()
            .min(MAX_SHIFT);
        let _ = p.fetch_update(Relaxed, Relaxed, |v| {
            let new = (v & HAS_CHILDREN) | k | if frameless { FRAMELESS } else { 0 };
            (new != v).then_some(new)
        });
    }
}

/// A timed call of the site numbered `id` had measured children: its untimed calls
/// need frames (they own their children).
#[inline]
pub(crate) fn mark_children(id: u32) {
    if let Some(p) = PERIODS.get(id as usize) {
        if p.load(Relaxed) & HAS_CHILDREN == 0 {
            p.fetch_or(HAS_CHILDREN, Relaxed);
        }
    }
}

/// Whether a timed call of the site numbered `id` had measured children this session.
pub fn has_children(id: u32) -> bool {
    entry(id) & HAS_CHILDREN != 0
}

/// The timing period of the call site numbered `id` (1: every call timed).
pub fn site_period(id: u32) -> u32 {
    1 << shift(id)
}

/// Every call site timed in full again, with frames (a new session).
pub fn reset_periods() {
    for p in &PERIODS {
        if p.load(Relaxed) != 0 {
            p.store(0, Relaxed);
        }
    }
}
