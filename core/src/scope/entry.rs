//! How a scope is entered: the inline paths a measured call takes while its thread's
//! shard is in step with the global state, and the slow entries that decide everything
//! else (a thread's first call, a new session, sampling, the overhead budget's slow
//! entries in [`super::budget`]). Shared by sync scopes, futures and spans.

use super::budget::{enter_budget_async, enter_budget_slow, push_budget, push_untimed};
use super::frame::{push, push_slow, shard_slot, Entered, Entry};
use crate::budget;
use crate::registry;
use crate::site::CallSite;
use crate::slot::Slot;
use crate::stacks::CtxRef;
use crate::state::{self, Sampler};

/// Enters a scope of `site`. Inline: every call timed on the TSC (one key compare), or
/// sampled/counted on the TSC (a second compare and a countdown), or every call timed on
/// the TSC with the stacks or the trace on (a third compare). Everything else (first
/// call on a thread, new session, other clock) goes through `slow`.
///
/// `budget`: the caller records a frame of the overhead budget ([`Scope`](super::Scope));
/// a caller that does not (an `async fn`'s first poll) has `slow` decide under a budget.
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

/// The slow entry of a sync scope: under an overhead budget, [`enter_budget_slow`].
#[inline]
pub(crate) fn enter_slow(id: u32) -> Entry {
    if state::budget() {
        return enter_budget_slow(id);
    }
    enter_sampled(id, Sampler::Calls)
}

/// The general entry: this thread's shard (created if needed), the site's slot, and a
/// frame if `sampler` times this one.
#[inline(always)]
fn enter_sampled(id: u32, sampler: Sampler) -> Entry {
    let Some((shard, slot)) = shard_slot(id) else {
        return Entry::None;
    };
    if !shard.sampling.timed(sampler) {
        return Entry::Counted(slot);
    }
    Entry::Timed(push_slow(shard, slot, id, None))
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
    let Some((shard, slot)) = shard_slot(site.id()) else {
        return (Entry::None, 1);
    };
    let w = crate::op::Here::of(shard).sample(Sampler::Futures, site);
    if w == 0 {
        return (Entry::Counted(slot), 1);
    }
    (Entry::Timed(push_slow(shard, slot, site.id(), None)), w)
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

/// Pushes a frame for `site` whatever the sampling says (later polls of a timed future),
/// on the path `inherit` (the first poll's) when stacks are on.
#[inline]
pub(crate) fn enter_timed(site: &'static CallSite, inherit: Option<CtxRef>) -> Option<Entered> {
    let id = site.id();
    let shard = registry::current()?;
    let slot = shard.slot(id)?;
    Some(push_slow(shard, slot, id, inherit))
}
