//! Snapshots: every call site's numbers merged over live and exited threads, durations
//! in nanoseconds.

use crate::clock;
use crate::dist::DistData;
use crate::meter::Delta;
use crate::site::{self, CallSite};

/// A merged distribution of per-call values in base units (ns or bytes): exact count,
/// minimum and maximum, and log-linear buckets (each within 3.1 % of its values).
#[derive(Clone, Debug)]
pub struct Distribution {
    data: DistData,
    /// Base units per recorded unit (ns per tick for durations, 1 for bytes).
    scale: f64,
}

impl Distribution {
    fn new(data: DistData, scale: f64) -> Self {
        Distribution { data, scale }
    }

    fn to_base(&self, v: u64) -> u64 {
        if self.scale == 1.0 {
            v
        } else {
            (v as f64 * self.scale).round() as u64
        }
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.data.hist.count()
    }

    /// `(min, max)`, or `(0, 0)` when empty.
    pub fn range(&self) -> (u64, u64) {
        let (lo, hi) = self.data.range();
        (self.to_base(lo), self.to_base(hi))
    }

    /// The value at percentile `p` (0..=100), clamped to `[min, max]`; `None` when empty.
    pub fn percentile(&self, p: f64) -> Option<u64> {
        let (lo, hi) = self.range();
        self.data
            .percentile(p)
            .map(|v| self.to_base(v).clamp(lo, hi))
    }

    /// Non-empty buckets, ascending: the value each stands for (its midpoint, clamped to
    /// `[min, max]`, as percentiles report it) and how many values it holds.
    pub fn buckets(&self) -> Vec<(u64, u64)> {
        let (lo, hi) = self.range();
        let mut out: Vec<(u64, u64)> = Vec::new();
        for (mid, n) in self.data.hist.buckets() {
            let v = self.to_base(mid).clamp(lo, hi);
            match out.last_mut() {
                // Clamping can map neighbouring buckets to one value.
                Some((last, c)) if *last == v => *c += n,
                _ => out.push((v, n)),
            }
        }
        out
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
    /// How many calls the timed ones stand for: `timed` plus, for sampled data-flow and
    /// lock events, the weight of each (an event timed one time in 16 stands for 16).
    /// The sums (`sum_ns`, `total_ns`, `busy_ns`, `wait_ns`) and the distributions
    /// describe that many calls: divide by it for a mean.
    pub timed_weight: u64,
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
    /// Async functions: summed poll durations of the timed futures, ns; a call nested in
    /// a call of the same site (recursion) counts once, in the outermost.
    pub busy_ns: u64,
    /// Async functions: summed poll durations of every timed future, nested ones
    /// included, ns (the sum of the busy distribution).
    pub busy_sum_ns: u64,
    /// Async functions: futures dropped before completing.
    pub cancelled: u64,
    /// Async functions: time the timed futures spent suspended in measured child futures
    /// they awaited to completion, ns.
    pub awaited_ns: u64,
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
    /// Functions: time spent waiting for locks, ns.
    pub wait_lock_ns: u64,
    /// Functions: time spent waiting to send on full channels, ns.
    pub wait_send_ns: u64,
    /// Functions: time spent waiting to receive from empty channels, ns.
    pub wait_recv_ns: u64,
    /// Functions: time spent in SQL queries, ns.
    pub wait_sql_ns: u64,
    /// Functions: time spent in HTTP requests, ns.
    pub wait_http_ns: u64,
    /// Lock sites: acquisitions that had to wait (timed or not).
    pub contended: u64,
    /// Lock sites: `try_lock`-style attempts that failed because the lock was taken.
    pub try_failed: u64,
    /// Lock sites: time waited by the timed contended acquisitions, ns.
    pub wait_ns: u64,
    /// Lock sites: condition-variable waits made while holding the lock.
    pub condvar_waits: u64,
    /// Lock sites: wait of every timed acquisition, ns (0 for those that did not wait).
    /// HTTP server sites: time to the response head of every timed request, ns.
    pub wait: Distribution,
    /// SQL sites: rows returned.
    pub rows_returned: u64,
    /// SQL sites: rows inserted, updated or deleted.
    pub rows_affected: u64,
    /// SQL and HTTP sites: failed queries, requests without a response.
    pub errors: u64,
    /// HTTP sites: responses by status class, `[1xx, 2xx, 3xx, 4xx, 5xx]`.
    pub status: [u64; 5],
    /// HTTP server sites: requests started.
    pub started: u64,
    /// HTTP server sites: response bodies dropped before their end.
    pub aborted: u64,
    /// Allocations in the timed calls.
    #[cfg(feature = "alloc")]
    pub alloc: AllocStats,
    /// CPU time of the timed calls.
    #[cfg(feature = "cpu")]
    pub cpu: CpuStats,
    /// Per-call durations, ns.
    pub time: Distribution,
    /// Channels, streams and futures.
    pub flow: FlowStats,
}

/// Numbers of a channel, stream or future site (zero for other kinds), merged over
/// threads. The site's calls, timed calls and `time` distribution hold the rest: for a
/// channel the messages received and their latency, for a stream the time to first item,
/// for a future its lifetime.
#[derive(Clone, Debug)]
pub struct FlowStats {
    /// Channels: messages sent.
    pub sent: u64,
    /// Channels: failed sends.
    pub send_errors: u64,
    /// Channels: messages left when the last receiver dropped.
    pub unread: u64,
    /// Channels: most messages queued at once in one instance.
    pub max_depth: u64,
    /// Channels: sends that waited for room.
    pub blocked: u64,
    /// Channels: time those sends waited (timed ones), ns.
    pub blocked_ns: u64,
    /// Channels: longest such wait, ns.
    pub blocked_max_ns: u64,
    /// Channels: messages broadcast receivers missed.
    pub lagged: u64,
    /// Streams: items yielded.
    pub items: u64,
    /// Streams: polls that returned `Pending`.
    pub pending: u64,
    /// Streams: instances that completed.
    pub completed: u64,
    /// Streams: instances dropped before completing.
    pub dropped: u64,
    /// Futures: dropped before their first poll.
    pub never_polled: u64,
    /// Futures: busy time (sum of poll durations) per timed call, ns.
    pub busy: Distribution,
}

impl SiteStats {
    /// How many timed calls took at most `bound_ns` (for histogram exports such as
    /// Prometheus buckets): exact below the shortest and from the longest call on, and
    /// by histogram bucket (within 3.1 %) in between.
    pub fn count_at_most_ns(&self, bound_ns: u64) -> u64 {
        let n = self.time.count();
        if bound_ns < self.min_ns {
            0
        } else if bound_ns >= self.max_ns {
            n
        } else {
            self.time
                .buckets()
                .iter()
                .take_while(|(v, _)| *v <= bound_ns)
                .map(|(_, c)| c)
                .sum()
        }
    }

    /// Wall time at percentile `p` (0..=100) of the timed calls, ns; clamped to
    /// `[min_ns, max_ns]`. `None` when no call was timed.
    pub fn percentile_ns(&self, p: f64) -> Option<u64> {
        self.time.percentile(p)
    }
}

/// The operations of one wrapped site (a lock mode) made by one measured function, merged
/// over threads.
#[derive(Clone, Debug)]
pub struct HolderStats {
    /// The operation site (a lock mode).
    pub site: &'static CallSite,
    /// The innermost measured function when the operations were made; `None` for
    /// operations outside every measured function.
    pub function: Option<&'static CallSite>,
    /// Operations (acquisitions).
    pub ops: u64,
    /// Of those, the ones that had to wait.
    pub contended: u64,
    /// Time the timed ones waited, ns.
    pub wait_ns: u64,
    /// Time the timed ones held the lock, ns.
    pub hold_ns: u64,
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
    /// Bytes allocated per call.
    pub dist: Distribution,
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
    /// Exact mode: CPU time per call, ns.
    pub dist: Distribution,
}

#[cfg(feature = "cpu")]
impl CpuStats {
    /// Exact mode: CPU time of one call at percentile `p`, ns.
    pub fn percentile_ns(&self, p: f64) -> Option<u64> {
        self.dist.percentile(p)
    }
}

/// Calls of one site that had not returned when the snapshot was taken (a `main` that
/// is still running at a timeout, a request in progress at a live report).
#[derive(Clone, Copy, Debug)]
pub struct RunningStats {
    /// The call site.
    pub site: &'static CallSite,
    /// Calls in progress (outermost frames; a recursion counts once).
    pub calls: u64,
    /// Their wall time so far, ns.
    pub total_ns: u64,
    /// Their time so far not spent in measured children, ns.
    pub self_ns: u64,
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

fn to_ns(ticks: u64, ns_per_tick: f64) -> u64 {
    (ticks as f64 * ns_per_tick).round() as u64
}

/// Every call site with at least one call in the current session.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Per call site, in order of first use.
    pub sites: Vec<SiteStats>,
    /// Per (wrapped site, function) pair with an operation (see [`crate::holders`]); the
    /// pairs a thread could not place are in their site's totals only.
    pub holders: Vec<HolderStats>,
    /// More call sites were used than could be numbered ([`crate::MAX_SITES`]).
    pub sites_overflowed: bool,
    /// Call sites beyond [`crate::MAX_SITES`]: their calls are in the overflow rows
    /// ([`crate::OVERFLOW_NAMES`]).
    pub sites_beyond_limit: u64,
    /// Some thread nested measured scopes deeper than [`crate::MAX_DEPTH`].
    pub depth_overflowed: bool,
    /// Calls that ran deeper than [`crate::MAX_DEPTH`]: counted and timed (inclusive),
    /// their self time counted in the function at the deepest tracked level.
    pub calls_beyond_depth: u64,
    /// Calls dropped because their thread was tearing down.
    pub lost_calls: u64,
    /// Nanoseconds per clock tick used for the conversion.
    pub ns_per_tick: f64,
    /// What the meters counted inside outermost measured scopes, over all threads (the
    /// attributed part of the process's allocations and exact-mode CPU time).
    pub attributed: Delta,
    /// Calls that had not returned, per site (only while a thread is inside them: an
    /// async call suspended between polls is not on any stack).
    pub running: Vec<RunningStats>,
    /// CPU samples, and exact-mode CPU inside measured scopes.
    #[cfg(feature = "cpu")]
    pub cpu: CpuSummary,
    /// The calling-context trees merged over threads, when a thread kept one
    /// ([`crate::stacks`]).
    pub stacks: Option<crate::stacks::Stacks>,
}

/// Takes a snapshot of the current session (internal sites excluded).
pub fn snapshot() -> Snapshot {
    let collected = crate::registry::collect();
    #[cfg(feature = "cpu")]
    let cpu = CpuSummary {
        samples: collected.samples.0,
        samples_outside: collected.samples.1,
        attributed_ns: collected.top.cpu.ns,
    };
    let sites = site::all();
    let ns_per_tick = clock::ns_per_tick();
    let running_ticks = crate::registry::running(clock::now());
    let ns = |ticks: u64| to_ns(ticks, ns_per_tick);
    let stacks = crate::internal(|| collected.stacks.as_ref().map(|m| m.finish(ns_per_tick)));
    let stats = crate::internal(|| {
        collected
            .sites
            .into_iter()
            .enumerate()
            .filter_map(|(id, m)| {
                let mut m = m?;
                let calls = m.calls();
                let c = m.c;
                m.meters.finish(c.timed);
                let site = *sites.get(id)?;
                if site.kind() == site::SiteKind::Internal {
                    return None;
                }
                let time = Distribution::new(m.time, ns_per_tick);
                // The second distribution: a lock site's waits, a server route's times to
                // the response head, a future's busy times.
                let (wait, busy) = match site.kind() {
                    site::SiteKind::Lock => {
                        let mut wait = m.time2;
                        // Acquisitions that did not wait waited 0.
                        let w = c.timed + c.extra_weight;
                        wait.add_zeros(w.saturating_sub(wait.hist.count()));
                        (wait, DistData::default())
                    }
                    site::SiteKind::HttpServer => (m.time2, DistData::default()),
                    _ => (DistData::default(), m.time2),
                };
                let wait = Distribution::new(wait, ns_per_tick);
                let (min_ns, max_ns) = time.range();
                Some(SiteStats {
                    site,
                    calls,
                    timed: c.timed,
                    timed_weight: c.timed + c.extra_weight,
                    sum_ns: ns(c.sum),
                    total_ns: ns(c.total),
                    // Signed under an overhead budget (weighted children): never below 0.
                    self_ns: ns((c.self_ as i64).max(0) as u64),
                    min_ns,
                    max_ns,
                    polls: c.polls,
                    busy_ns: ns(c.busy),
                    busy_sum_ns: ns(c.busy + c.busy_nested),
                    cancelled: c.cancelled,
                    awaited_ns: ns(c.awaited),
                    io_bytes: c.io_bytes,
                    io_timed_bytes: c.io_timed_bytes,
                    io_errors: c.io_errors,
                    fn_io_read: c.fn_read,
                    fn_io_write: c.fn_write,
                    fn_io_ns: ns(c.fn_io),
                    wait_lock_ns: ns(c.wait_lock),
                    wait_send_ns: ns(c.wait_send),
                    wait_recv_ns: ns(c.wait_recv),
                    wait_sql_ns: ns(c.wait_sql),
                    wait_http_ns: ns(c.wait_http),
                    contended: c.contended,
                    try_failed: c.try_failed,
                    wait_ns: ns(c.wait),
                    condvar_waits: c.condvar_waits,
                    rows_returned: c.rows_returned,
                    rows_affected: c.rows_affected,
                    errors: c.errors,
                    status: [
                        c.status_1xx,
                        c.status_2xx,
                        c.status_3xx,
                        c.status_4xx,
                        c.status_5xx,
                    ],
                    started: c.started,
                    aborted: c.aborted,
                    wait,
                    #[cfg(feature = "alloc")]
                    alloc: {
                        let a = m.meters.alloc.c;
                        let dist = Distribution::new(m.meters.alloc.dist, 1.0);
                        let (bytes_min, bytes_max) = dist.range();
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
                            dist,
                        }
                    },
                    #[cfg(feature = "cpu")]
                    cpu: {
                        let k = m.meters.cpu.c;
                        CpuStats {
                            ns: k.ns,
                            self_ns: k.self_ns,
                            sum_ns: k.sum,
                            voluntary: k.voluntary,
                            involuntary: k.involuntary,
                            instructions: k.instructions,
                            cycles: k.cycles,
                            samples: k.samples,
                            self_samples: k.self_samples,
                            dist: Distribution::new(m.meters.cpu.dist, 1.0),
                        }
                    },
                    time,
                    flow: FlowStats {
                        sent: c.ch_sent,
                        send_errors: c.ch_send_errors,
                        unread: c.ch_unread,
                        max_depth: c.ch_max_depth,
                        blocked: c.ch_blocked,
                        blocked_ns: ns(c.ch_blocked_ticks),
                        blocked_max_ns: ns(c.ch_blocked_max),
                        lagged: c.ch_lagged,
                        items: c.st_items,
                        pending: c.st_pending,
                        completed: c.st_completed,
                        dropped: c.st_dropped,
                        never_polled: c.fu_never_polled,
                        busy: Distribution::new(busy, ns_per_tick),
                    },
                })
            })
            .collect()
    });
    let running = crate::internal(|| {
        running_ticks
            .into_iter()
            .filter_map(|(id, r)| {
                let site = *sites.get(id as usize)?;
                (site.kind() != site::SiteKind::Internal).then_some(RunningStats {
                    site,
                    calls: r.calls,
                    total_ns: to_ns(r.total, ns_per_tick),
                    self_ns: to_ns(r.self_, ns_per_tick),
                })
            })
            .collect()
    });
    let site_of = |id: u32| sites.get(id as usize).copied().filter(|_| id != 0);
    let mut holders: Vec<HolderStats> = collected
        .holders
        .iter()
        .filter_map(|(&(site, function), h)| {
            Some(HolderStats {
                site: site_of(site)?,
                function: site_of(function),
                ops: h.ops,
                contended: h.contended,
                wait_ns: ns(h.wait),
                hold_ns: ns(h.hold),
            })
        })
        .collect();
    holders.sort_by_key(|h| std::cmp::Reverse((h.hold_ns, h.wait_ns, h.ops)));
    Snapshot {
        sites: stats,
        running,
        holders,
        sites_overflowed: site::overflowed() > 0,
        sites_beyond_limit: site::overflowed(),
        depth_overflowed: collected.deep_calls > 0,
        calls_beyond_depth: collected.deep_calls,
        lost_calls: crate::scope::lost_calls(),
        ns_per_tick,
        attributed: collected.top,
        #[cfg(feature = "cpu")]
        cpu,
        stacks,
    }
}
