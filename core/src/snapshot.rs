//! Snapshots: every call site's numbers merged over live and exited threads, durations
//! in nanoseconds.

use crate::clock;
use crate::dist::DistData;
use crate::meter::MeterMerged;
use crate::site::{self, CallSite};

/// One call site's numbers merged over threads, durations in ticks.
#[derive(Clone, Debug, Default)]
pub(crate) struct Merged {
    pub(crate) calls: u64,
    pub(crate) timed: u64,
    pub(crate) sum: u64,
    pub(crate) total: u64,
    pub(crate) self_: u64,
    pub(crate) polls: u64,
    pub(crate) busy: u64,
    pub(crate) cancelled: u64,
    pub(crate) io_bytes: u64,
    pub(crate) io_timed_bytes: u64,
    pub(crate) io_errors: u64,
    pub(crate) fn_read: u64,
    pub(crate) fn_write: u64,
    pub(crate) fn_io: u64,
    pub(crate) time: DistData,
    pub(crate) meters: MeterMerged,
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
    /// I/O sites: bytes moved (every operation, timed or not).
    pub io_bytes: u64,
    /// I/O sites: bytes moved by the timed operations.
    pub io_timed_bytes: u64,
    /// I/O sites: operations that failed (not `WouldBlock` or `Interrupted`).
    pub io_errors: u64,
    /// Functions: bytes read by I/O operations made while the function was innermost.
    pub fn_io_read: u64,
    /// Functions: bytes written likewise.
    pub fn_io_write: u64,
    /// Functions: time spent inside those operations (timed ones), ns.
    pub fn_io_ns: u64,
    /// Allocations in the timed calls.
    #[cfg(feature = "alloc")]
    pub alloc: AllocStats,
    /// CPU time of the timed calls.
    #[cfg(feature = "cpu")]
    pub cpu: CpuStats,
    time: DistData,
    ns_per_tick: f64,
}

impl SiteStats {
    /// How many timed calls took at most `bound_ns` (for histogram exports such as
    /// Prometheus buckets): exact below the shortest and from the longest call on, and
    /// by histogram bucket (within 3.1 %) in between.
    pub fn count_at_most_ns(&self, bound_ns: u64) -> u64 {
        let n = self.time.hist.count();
        if bound_ns < self.min_ns {
            0
        } else if bound_ns >= self.max_ns {
            n
        } else {
            let ticks = if self.ns_per_tick > 0.0 {
                (bound_ns as f64 / self.ns_per_tick) as u64
            } else {
                bound_ns
            };
            self.time.count_at_most(ticks)
        }
    }

    /// Wall time at percentile `p` (0..=100) of the timed calls, ns; clamped to
    /// `[min_ns, max_ns]`. `None` when no call was timed.
    pub fn percentile_ns(&self, p: f64) -> Option<u64> {
        self.time
            .percentile(p)
            .map(|t| to_ns(t, self.ns_per_tick).clamp(self.min_ns, self.max_ns))
    }
}

/// Allocations of one call site's timed calls, merged over threads.
#[cfg(feature = "alloc")]
#[derive(Clone, Debug)]
pub struct AllocStats {
    /// Allocations, inclusive of children; recursion counted once.
    pub allocs: u64,
    /// Bytes allocated, inclusive; recursion counted once.
    pub bytes: u64,
    /// Bytes freed, inclusive; recursion counted once.
    pub freed: u64,
    /// Allocations of every call, nested ones included (`/ timed` is the per-call mean).
    pub allocs_sum: u64,
    /// Bytes of every call, nested ones included (`/ timed` is the per-call mean).
    pub bytes_sum: u64,
    /// Allocations not made by measured children.
    pub self_allocs: u64,
    /// Bytes not allocated by measured children.
    pub self_bytes: u64,
    /// Fewest bytes one call allocated.
    pub bytes_min: u64,
    /// Most bytes one call allocated.
    pub bytes_max: u64,
    dist: DistData,
}

#[cfg(feature = "alloc")]
impl AllocStats {
    /// Bytes allocated per call at percentile `p`, clamped to `[bytes_min, bytes_max]`.
    pub fn bytes_percentile(&self, p: f64) -> Option<u64> {
        self.dist.percentile(p)
    }
}

/// CPU time of one call site's timed calls, merged over threads.
#[cfg(feature = "cpu")]
#[derive(Clone, Debug)]
pub struct CpuStats {
    /// Exact mode: CPU time, inclusive, outermost calls only, ns.
    pub ns: u64,
    /// Exact mode: CPU time not spent in measured children, ns.
    pub self_ns: u64,
    /// Exact mode: CPU time of every call, nested ones included (`/ timed`: the mean), ns.
    pub sum_ns: u64,
    /// Exact mode: voluntary context switches, inclusive, outermost calls only.
    pub voluntary: u64,
    /// Exact mode: involuntary context switches, inclusive, outermost calls only.
    pub involuntary: u64,
    /// Exact mode: instructions retired (0 without a PMU).
    pub instructions: u64,
    /// Exact mode: cycles (0 without a PMU).
    pub cycles: u64,
    /// Sampled mode: samples with this function on the stack.
    pub samples: u64,
    /// Sampled mode: samples with this function on top of the stack.
    pub self_samples: u64,
    dist: DistData,
}

#[cfg(feature = "cpu")]
impl CpuStats {
    /// Exact mode: CPU time of one call at percentile `p`, ns.
    pub fn percentile_ns(&self, p: f64) -> Option<u64> {
        self.dist.percentile(p)
    }
}

/// CPU samples of the process during the session.
#[cfg(feature = "cpu")]
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuSummary {
    /// Samples taken on threads that run measured code.
    pub samples: u64,
    /// Of those, samples outside every measured scope.
    pub samples_outside: u64,
    /// Exact mode: CPU time inside outermost measured scopes, ns.
    pub attributed_ns: u64,
}

/// Allocations of the whole process during the session.
#[cfg(feature = "alloc")]
#[derive(Clone, Copy, Debug, Default)]
pub struct AllocSummary {
    /// Everything the tracking allocator counted since the session began.
    pub process: crate::meter::alloc::AllocTotals,
    /// The part made inside measured scopes (outermost frames' inclusive counts).
    pub attributed: crate::meter::Delta,
    /// Whether the tracking allocator counted anything in this process.
    pub installed: bool,
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
    /// Allocations of the process, and the part inside measured scopes.
    #[cfg(feature = "alloc")]
    pub alloc: AllocSummary,
    /// CPU samples, and exact-mode CPU inside measured scopes.
    #[cfg(feature = "cpu")]
    pub cpu: CpuSummary,
}

/// Takes a snapshot of the current session (internal sites excluded).
pub fn snapshot() -> Snapshot {
    let collected = crate::shard::collect();
    #[cfg(feature = "alloc")]
    let alloc = AllocSummary {
        process: crate::meter::alloc::session_totals(),
        attributed: collected.top,
        installed: crate::meter::alloc::installed(),
    };
    #[cfg(feature = "cpu")]
    let cpu = CpuSummary {
        samples: collected.samples.0,
        samples_outside: collected.samples.1,
        attributed_ns: collected.top.cpu.ns,
    };
    let sites = site::all();
    let ns_per_tick = clock::ns_per_tick();
    let stats = crate::internal(|| {
        collected
            .sites
            .into_iter()
            .enumerate()
            .filter_map(|(id, m)| {
                let mut m = m?;
                m.meters.finish(m.timed);
                let site = *sites.get(id)?;
                if site.kind() == site::SiteKind::Internal {
                    return None;
                }
                let (min, max) = m.time.range();
                Some(SiteStats {
                    site,
                    calls: m.calls,
                    timed: m.timed,
                    sum_ns: to_ns(m.sum, ns_per_tick),
                    total_ns: to_ns(m.total, ns_per_tick),
                    self_ns: to_ns(m.self_, ns_per_tick),
                    min_ns: to_ns(min, ns_per_tick),
                    max_ns: to_ns(max, ns_per_tick),
                    polls: m.polls,
                    busy_ns: to_ns(m.busy, ns_per_tick),
                    cancelled: m.cancelled,
                    io_bytes: m.io_bytes,
                    io_timed_bytes: m.io_timed_bytes,
                    io_errors: m.io_errors,
                    fn_io_read: m.fn_read,
                    fn_io_write: m.fn_write,
                    fn_io_ns: to_ns(m.fn_io, ns_per_tick),
                    #[cfg(feature = "alloc")]
                    alloc: {
                        let a = &m.meters.alloc;
                        let (bytes_min, bytes_max) = a.bytes_dist.range();
                        AllocStats {
                            allocs: a.allocs,
                            bytes: a.bytes,
                            freed: a.freed,
                            allocs_sum: a.allocs_sum,
                            bytes_sum: a.bytes_sum,
                            self_allocs: a.self_allocs,
                            self_bytes: a.self_bytes,
                            bytes_min,
                            bytes_max,
                            dist: a.bytes_dist.clone(),
                        }
                    },
                    #[cfg(feature = "cpu")]
                    cpu: {
                        let c = &m.meters.cpu;
                        CpuStats {
                            ns: c.ns,
                            self_ns: c.self_ns,
                            sum_ns: c.sum,
                            voluntary: c.voluntary,
                            involuntary: c.involuntary,
                            instructions: c.instructions,
                            cycles: c.cycles,
                            samples: c.samples,
                            self_samples: c.self_samples,
                            dist: c.dist.clone(),
                        }
                    },
                    time: m.time,
                    ns_per_tick,
                })
            })
            .collect()
    });
    Snapshot {
        sites: stats,
        sites_overflowed: site::overflowed(),
        depth_overflowed: collected.depth_overflow,
        lost_calls: crate::scope::lost_calls(),
        ns_per_tick,
        #[cfg(feature = "alloc")]
        alloc,
        #[cfg(feature = "cpu")]
        cpu,
    }
}
