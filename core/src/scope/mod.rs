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
//!
//! One idea a file, each using only the ones before it:
//! * `frame`: a frame pushed and popped on the thread's stack, and the repairs;
//! * `budget`: the overhead budget's entry and exit (weighted frames, untimed calls);
//! * `entry`: the inline entry of every call and the slow entries, shared by sync scopes,
//!   futures and spans;
//! * this file: the [`Scope`] guard (its entry and exits) and the sampling settings.

mod budget;
mod entry;
mod frame;

use std::sync::atomic::Ordering::Relaxed;

use crate::registry;
use crate::site::CallSite;
use crate::stacks::{FOLDED, STACKS, TRACE};
use crate::state::Sampler;
use crate::trace::Kind;

use budget::{exit_budget, exit_untimed_out_of_line, BUDGET_FRAME, UNTIMED};
use entry::enter_slow;
pub(crate) use entry::{enter_fast, enter_flow_slow, enter_slow_async, enter_timed, enter_with};
use frame::LOST;
pub(crate) use frame::{now, pop, pop_fast, pop_slow, Entered, Entry, Left};

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

/// Leaves a timed scope (no stacks, trace or budget): reads the clock first, then pops
/// and records.
///
/// The usual pops (the owner's frame on top of its stack) and their recording are one
/// straight path; every other pop records in [`exit_slow`] (so that what the usual ones
/// measured never goes through memory shared with it).
#[inline(never)]
fn exit(e: &Entered) {
    let end = now(e.tsc);
    let Some(l) = pop_fast(e, end) else {
        return exit_slow(e, end);
    };
    l.slot.record(l.incl, l.self_, l.m_incl, l.m_self, l.outer);
}

/// [`exit`] of a frame not on top of its owner's stack, or of a call beyond
/// [`MAX_DEPTH`](crate::MAX_DEPTH).
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
