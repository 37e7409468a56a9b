//! Snapshots: every call site's numbers merged over live and exited threads, in
//! nanoseconds.

use crate::clock;
use crate::hist::Hist;
use crate::site::{self, CallSite};

/// One call site's numbers merged over threads, in ticks.
#[derive(Clone, Debug)]
pub(crate) struct Merged {
    pub(crate) calls: u64,
    pub(crate) timed: u64,
    pub(crate) sum: u64,
    pub(crate) total: u64,
    pub(crate) self_: u64,
    pub(crate) min: u64,
    pub(crate) max: u64,
    pub(crate) polls: u64,
    pub(crate) busy: u64,
    pub(crate) cancelled: u64,
    pub(crate) hist: Hist,
}

impl Default for Merged {
    fn default() -> Self {
        Merged {
            calls: 0,
            timed: 0,
            sum: 0,
            total: 0,
            self_: 0,
            min: u64::MAX,
            max: 0,
            polls: 0,
            busy: 0,
            cancelled: 0,
            hist: Hist::default(),
        }
    }
}

/// Numbers of one call site, merged over every thread of the current session.
#[derive(Clone, Debug)]
pub struct SiteStats {
    /// The call site.
    pub site: &'static CallSite,
    /// Calls (every call, timed or not; for async functions, futures completed or cancelled).
    pub calls: u64,
    /// Calls that were timed (all of them unless sampling is on).
    pub timed: u64,
    /// Inclusive wall time of every timed call, nested (recursive) ones included, in ns:
    /// `sum_ns / timed` is the mean duration of one call.
    pub sum_ns: u64,
    /// Inclusive wall time of the timed calls, outermost frames only, in ns.
    pub total_ns: u64,
    /// Self wall time of the timed calls (async: self busy time), in ns.
    pub self_ns: u64,
    /// Shortest timed call, ns.
    pub min_ns: u64,
    /// Longest timed call, ns.
    pub max_ns: u64,
    /// Async functions: polls of the timed futures.
    pub polls: u64,
    /// Async functions: summed poll durations of the timed futures, ns.
    pub busy_ns: u64,
    /// Async functions: futures dropped before completing.
    pub cancelled: u64,
    hist: Hist,
    min_ticks: u64,
    max_ticks: u64,
    ns_per_tick: f64,
}

impl SiteStats {
    /// Wall time at percentile `p` (0..=100) of the timed calls, ns; clamped to
    /// `[min_ns, max_ns]`. `None` when no call was timed.
    pub fn percentile_ns(&self, p: f64) -> Option<u64> {
        self.hist
            .percentile(p, self.min_ticks, self.max_ticks)
            .map(|t| to_ns(t, self.ns_per_tick).clamp(self.min_ns, self.max_ns))
    }
}

fn to_ns(ticks: u64, ns_per_tick: f64) -> u64 {
    (ticks as f64 * ns_per_tick).round() as u64
}

/// Every call site with at least one call in the current session.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Per call site, in order of first use.
    pub sites: Vec<SiteStats>,
    /// More call sites were used than could be numbered ([`crate::MAX_SITES`]).
    pub sites_overflowed: bool,
    /// Some thread nested measured scopes deeper than [`crate::MAX_DEPTH`].
    pub depth_overflowed: bool,
    /// Calls dropped because their thread was tearing down.
    pub lost_calls: u64,
    /// Nanoseconds per clock tick used for the conversion.
    pub ns_per_tick: f64,
}

/// Takes a snapshot of the current session (internal sites excluded).
pub fn snapshot() -> Snapshot {
    let (merged, depth_overflowed) = crate::shard::collect();
    let sites = site::all();
    let ns_per_tick = clock::ns_per_tick();
    let stats = crate::internal(|| {
        merged
            .into_iter()
            .enumerate()
            .filter_map(|(id, m)| {
                let m = m?;
                let site = *sites.get(id)?;
                if site.kind() == site::SiteKind::Internal {
                    return None;
                }
                let (min_ticks, max_ticks) = if m.timed == 0 { (0, 0) } else { (m.min, m.max) };
                Some(SiteStats {
                    site,
                    calls: m.calls,
                    timed: m.timed,
                    sum_ns: to_ns(m.sum, ns_per_tick),
                    total_ns: to_ns(m.total, ns_per_tick),
                    self_ns: to_ns(m.self_, ns_per_tick),
                    min_ns: to_ns(min_ticks, ns_per_tick),
                    max_ns: to_ns(max_ticks, ns_per_tick),
                    polls: m.polls,
                    busy_ns: to_ns(m.busy, ns_per_tick),
                    cancelled: m.cancelled,
                    hist: m.hist,
                    min_ticks,
                    max_ticks,
                    ns_per_tick,
                })
            })
            .collect()
    });
    Snapshot {
        sites: stats,
        sites_overflowed: site::overflowed(),
        depth_overflowed,
        lost_calls: crate::scope::lost_calls(),
        ns_per_tick,
    }
}
