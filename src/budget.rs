//! The overhead budget (`HOTPATH_OVERHEAD_BUDGET`, `.overhead_budget(percent)`,
//! `#[hotpath::main(overhead_budget = N)]`): a controller thread that keeps the
//! profiler's own per-call work within a share of the process's CPU time by choosing,
//! every [`INTERVAL`], each measured function's timing period
//! ([`hotpath_core::budget`]).
//!
//! Every call is still counted, and every call keeps its frame (its children, waits and
//! CPU samples are its own); a call the budget does not time reads no clock. What a
//! call costs either way was measured at start-up ([`crate::overhead::Overhead`]).
//!
//! The rule, from the calls each site made in the last interval and the CPU time the
//! process used in it: if timing every call fits the budget, every call is timed.
//! Otherwise the timed calls per interval are capped at one level for every site, the
//! highest level that fits ("water-filling"): sites called less often than the level
//! stay fully timed, the hottest ones (which for a given budget are the cheapest per
//! call) are sampled first, and every sampled site gets about the same number of timed
//! calls, so the estimates of all of them are about equally precise. A site turning hot
//! later is sampled from the next interval on; one cooling down is timed in full again.
//! The per-call path reads one period and counts down in its slot: no lock, no extra
//! clock read.

use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use hotpath_core::budget::MAX_PERIOD;
use hotpath_core::SiteLoad;

/// How often the periods are chosen again.
pub(crate) const INTERVAL: Duration = Duration::from_millis(20);

/// Fewest timed calls a sampled site gets per interval (when it makes more calls): 64
/// every 20 ms is 3,200 a second, about 0.01 % of a core at 30 ns each, so every site
/// keeps a sample large enough that one call never stands for a whole phase.
pub(crate) const MIN_TIMED: f64 = 64.0;

/// What one call costs, ns: timed; not timed, with a frame but no clock; not timed and
/// counted only (a leaf).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Costs {
    pub timed_ns: f64,
    pub untimed_ns: f64,
    pub frameless_ns: f64,
}

impl Costs {
    /// What a call not timed costs, with or without its frame.
    fn untimed(&self, frameless: bool) -> f64 {
        if frameless {
            self.frameless_ns
        } else {
            self.untimed_ns
        }
    }
}

/// One measured function's calls in the last interval, as the controller sees them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Site {
    pub id: u32,
    /// Calls in the interval.
    pub calls: u64,
    /// Its untimed calls go without a frame (a leaf).
    pub frameless: bool,
    /// The mean duration of its calls so far, ns (`None` before one was timed).
    pub mean_ns: Option<f64>,
}

/// The periods that hold `budget_percent` of `cpu_ns` (the process's CPU time in the
/// interval), given each site's calls in the interval: `(id, period)` for every site.
///
/// A site whose calls are long enough that timing every one costs at most the budget's
/// share of their own duration is timed in full whatever the others cost (a 1 ms call
/// is never sampled to pay for a 20 ns one). The others share what is left by
/// water-filling on their timed calls.
pub(crate) fn periods(
    sites: &[Site],
    cpu_ns: f64,
    budget_percent: f64,
    costs: Costs,
) -> Vec<(u32, u32)> {
    let share = budget_percent / 100.0;
    // What timing a call costs beyond counting it (the costlier way: a bound).
    let extra = (costs.timed_ns - costs.frameless_ns.min(costs.untimed_ns)).max(0.1);
    let long = |s: &Site| s.mean_ns.is_some_and(|m| extra <= share * m);
    let mut left = share * cpu_ns;
    for s in sites {
        left -= s.calls as f64
            * if long(s) {
                costs.timed_ns
            } else {
                costs.untimed(s.frameless)
            };
    }
    // Timed calls the budget can still pay for in this interval.
    let affordable = (left / extra).max(0.0);
    let mut sorted: Vec<u64> = sites.iter().filter(|s| !long(s)).map(|s| s.calls).collect();
    sorted.sort_unstable();
    let all: f64 = sorted.iter().map(|&n| n as f64).sum();
    let level = if all <= affordable {
        f64::INFINITY
    } else {
        // The level λ with Σ min(n, λ) = affordable: the sites under it are timed in
        // full, the others share what is left equally.
        let mut left = affordable;
        let mut level = 0.0;
        for (i, &n) in sorted.iter().enumerate() {
            let rest = (sorted.len() - i) as f64;
            if n as f64 * rest <= left {
                left -= n as f64;
            } else {
                level = left / rest;
                break;
            }
        }
        // At least MIN_TIMED timed calls per site and interval: a few microseconds
        // per site, and a sample that is not one call standing for a whole phase.
        level.max(MIN_TIMED)
    };
    sites
        .iter()
        .map(|s| {
            let p = if long(s) || s.calls as f64 <= level {
                1
            } else {
                (s.calls as f64 / level).ceil().min(f64::from(MAX_PERIOD)) as u32
            };
            (s.id, p.max(1))
        })
        .collect()
}

/// The process's CPU time so far, ns (`CLOCK_PROCESS_CPUTIME_ID`; 0 where unreadable).
pub(crate) fn process_cpu_ns() -> u64 {
    crate::overhead::cpu_time_ns(true).unwrap_or(0)
}

/// What the report says about a budget that holds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Run {
    /// The budget, percent of the process's CPU time.
    pub percent: f64,
    pub costs: Costs,
    /// The process's CPU time when the session started, ns.
    pub cpu0: u64,
}

/// The running controller: stops choosing when stopped or dropped.
pub(crate) struct Controller {
    percent: f64,
    costs: Costs,
    cpu0: u64,
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controller")
            .field("percent", &self.percent)
            .finish_non_exhaustive()
    }
}

impl Controller {
    /// Turns the per-site periods on and starts choosing them; `None` (and a note on
    /// stderr) when the thread cannot start, in which case every call is timed.
    ///
    /// `frames`: every untimed call keeps its frame (CPU samples must find it on the
    /// stack); otherwise the untimed calls of leaves are only counted.
    pub(crate) fn start(
        percent: f64,
        costs: Costs,
        frames: bool,
        floor_ticks: u64,
    ) -> Option<Controller> {
        hotpath_core::budget::reset_periods();
        hotpath_core::budget::set_floor(floor_ticks);
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let s2 = stop.clone();
        let cpu0 = process_cpu_ns();
        let thread = std::thread::Builder::new()
            .name("hotpath-budget".into())
            .spawn(move || {
                crate::threads::register_profiler_thread();
                hotpath_core::internal(|| run(&s2, percent, costs, cpu0, frames));
            });
        match thread {
            Ok(thread) => {
                hotpath_core::state::set_budget(true);
                Some(Controller {
                    percent,
                    costs,
                    cpu0,
                    stop,
                    thread: Some(thread),
                })
            }
            Err(e) => {
                crate::config::warn(&format!(
                    "overhead budget: cannot start its thread ({e}); every call is timed"
                ));
                None
            }
        }
    }

    /// What the report needs to know.
    pub(crate) fn run(&self) -> Run {
        Run {
            percent: self.percent,
            costs: self.costs,
            cpu0: self.cpu0,
        }
    }

    /// Stops choosing; the periods stay as they are until the next session.
    pub(crate) fn stop(&mut self) {
        if let Some(thread) = self.thread.take() {
            let (lock, cv) = &*self.stop;
            *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
            cv.notify_all();
            let _ = thread.join();
        }
    }

    /// Forgets the thread (a forked child, where it does not exist).
    pub(crate) fn forget(&mut self) {
        std::mem::forget(self.thread.take());
    }
}

impl Drop for Controller {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Every [`INTERVAL`] until stopped: the calls and CPU time since the last look, and
/// the periods that hold the budget.
fn run(stop: &(Mutex<bool>, Condvar), percent: f64, costs: Costs, cpu0: u64, frames: bool) {
    let (mut before, mut now) = (Vec::new(), Vec::new());
    // Per call-site number: whether it is a synchronous measured function's or block's,
    // an async one's, or another kind's (cached).
    let mut kinds: Vec<Option<Kind>> = Vec::new();
    let mut cpu_before = cpu0;
    hotpath_core::site_loads(&mut before);
    loop {
        {
            let (lock, cv) = stop;
            let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
            let (stopped, _) = cv
                .wait_timeout_while(guard, INTERVAL, |stopped| !*stopped)
                .unwrap_or_else(|e| e.into_inner());
            if *stopped {
                return;
            }
        }
        hotpath_core::site_loads(&mut now);
        let cpu = process_cpu_ns();
        let cpu_ns = cpu.saturating_sub(cpu_before) as f64;
        cpu_before = cpu;
        let ns_per_tick = hotpath_core::clock::last_ns_per_tick();
        if kinds.len() < now.len() {
            kinds.resize(now.len(), None);
        }
        let sites: Vec<Site> = now
            .iter()
            .enumerate()
            .filter_map(|(id, load)| {
                // A number is known once its site is (a slot's chunk can come before).
                let kind = match kinds[id] {
                    Some(k) => k,
                    None => {
                        let k = Kind::of(hotpath_core::site_by_id(id as u32)?);
                        kinds[id] = Some(k);
                        k
                    }
                };
                let calls = load
                    .calls
                    .saturating_sub(before.get(id).map_or(0, |b: &SiteLoad| b.calls));
                if kind == Kind::Other || calls == 0 {
                    return None;
                }
                Some(Site {
                    id: id as u32,
                    calls,
                    // A synchronous leaf with nothing charged to it needs no frame when
                    // not timed (unless CPU samples must find it on the stack).
                    frameless: !frames
                        && kind == Kind::Sync
                        && !load.charged
                        && !hotpath_core::budget::has_children(id as u32),
                    mean_ns: (load.weight > 0)
                        .then(|| load.sum as f64 / load.weight as f64 * ns_per_tick),
                })
            })
            .collect();
        for (s, (_, p)) in sites.iter().zip(periods(&sites, cpu_ns, percent, costs)) {
            hotpath_core::budget::set_period(s.id, p, s.frameless);
        }
        std::mem::swap(&mut before, &mut now);
    }
}

/// What the controller needs to know of a call site's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A synchronous measured function or block.
    Sync,
    /// An `async fn` or span.
    Async,
    /// Not a measured function (I/O, locks, channels, ...): no period.
    Other,
}

impl Kind {
    fn of(site: &hotpath_core::CallSite) -> Kind {
        let k = site.kind();
        if !k.is_function() {
            Kind::Other
        } else if k.is_async() {
            Kind::Async
        } else {
            Kind::Sync
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(id: u32, calls: u64, frameless: bool) -> Site {
        Site {
            id,
            calls,
            frameless,
            mean_ns: None,
        }
    }

    const COSTS: Costs = Costs {
        timed_ns: 20.0,
        untimed_ns: 4.0,
        frameless_ns: 4.0,
    };

    #[test]
    fn everything_is_timed_when_it_fits() {
        // 1,000 calls in 10 ms of CPU: 20 µs of timing, 0.2 % < 5 %.
        let p = periods(
            &[site(1, 1000, false), site(2, 10, false)],
            10e6,
            5.0,
            COSTS,
        );
        assert_eq!(p, [(1, 1), (2, 1)]);
    }

    #[test]
    fn the_hottest_sites_are_sampled_and_share_the_rest_equally() {
        // 20 ms of CPU at 5 %: 1 ms of budget. Counting 1,000,010 calls costs 4 ms: over
        // budget, so every site keeps MIN_TIMED timed calls per interval (site 2, with
        // fewer, all of them), at most one call in MAX_PERIOD.
        let p = periods(
            &[site(1, 1_000_000, false), site(2, 10, false)],
            20e6,
            5.0,
            COSTS,
        );
        assert_eq!(p, [(1, MAX_PERIOD), (2, 1)]);
        // 6,400 calls at a budget of 0.01 %: MIN_TIMED of them timed, one in 100.
        let p = periods(&[site(1, 6_400, false)], 20e6, 0.01, COSTS);
        assert_eq!(p, [(1, 100)]);
        // 100 ms of CPU at 5 %: 5 ms. Counting 200,110 calls costs 800,440 ns; left
        // 4,199,560 ns = 262,472.5 timed calls at 16 ns each. Site 3 (100) and site 2
        // (10) are timed in full; sites 1 and 4 share 262,362.5: 131,181.25 each.
        let p = periods(
            &[
                site(1, 100_000, false),
                site(2, 10, false),
                site(3, 100, false),
                site(4, 100_000, false),
            ],
            100e6,
            5.0,
            COSTS,
        );
        assert_eq!(p, [(1, 1), (2, 1), (3, 1), (4, 1)]);
        let p = periods(
            &[
                site(1, 1_000_000, false),
                site(2, 10, false),
                site(3, 100, false),
                site(4, 1_000_000, false),
            ],
            100e6,
            5.0,
            COSTS,
        );
        // Counting 2,000,110 calls: 8,000,440 ns > 5 ms: MIN_TIMED timed calls each (at
        // most one call in MAX_PERIOD; site 2, with fewer, all; site 3 100 / 64 → 2).
        assert_eq!(p, [(1, MAX_PERIOD), (2, 1), (3, 2), (4, MAX_PERIOD)]);
        let p = periods(
            &[
                site(1, 400_000, false),
                site(2, 10, false),
                site(3, 100, false),
                site(4, 400_000, false),
            ],
            100e6,
            5.0,
            COSTS,
        );
        // Counting 800,110 calls: 3,200,440 ns; left 1,799,560 ns = 112,472.5 timed
        // calls; sites 2 and 3 take 110; 1 and 4 share 112,362.5: 56,181.25 each, a
        // period of ceil(400,000 / 56,181.25) = 8.
        assert_eq!(p, [(1, 8), (2, 1), (3, 1), (4, 8)]);
    }

    #[test]
    fn a_leaf_counted_without_a_frame_leaves_more_of_the_budget_to_timing() {
        let costs = Costs {
            frameless_ns: 2.0,
            ..COSTS
        };
        // 100 ms of CPU at 5 %: 5 ms. Counting the leaf's 1,000,000 calls without
        // frames costs 2 ms, site 2's 10 with frames 40 ns: left 2,999,960 ns, which
        // pays for 166,664.4 timed calls at 18 ns beyond counting. Site 2 takes 10;
        // the leaf 166,654.4: a period of ceil(1,000,000 / 166,654.4) = 7.
        let p = periods(
            &[site(1, 1_000_000, true), site(2, 10, false)],
            100e6,
            5.0,
            costs,
        );
        assert_eq!(p, [(1, 7), (2, 1)]);
        // With frames it costs 4 ms to count: 999,960 ns left, 55,553.3 timed calls,
        // a period of 19.
        let p = periods(
            &[site(1, 1_000_000, false), site(2, 10, false)],
            100e6,
            5.0,
            costs,
        );
        assert_eq!(p, [(1, 19), (2, 1)]);
    }

    #[test]
    fn long_calls_stay_timed_whatever_the_hot_ones_cost() {
        // Over budget (counting a million calls costs 4 ms of 20 ms at 5 %): the hot
        // site keeps its least timing; the one of 1 ms calls (timing costs 16 ns of
        // 1 ms, under 5 %) stays timed in full, and one of 200 ns calls (8 %) does not:
        // 64 timed of its 2,000, a period of 32.
        let mut long = site(2, 2_000, false);
        long.mean_ns = Some(1e6);
        let mut short = site(3, 2_000, false);
        short.mean_ns = Some(200.0);
        let p = periods(&[site(1, 1_000_000, false), long, short], 20e6, 5.0, COSTS);
        assert_eq!(p, [(1, MAX_PERIOD), (2, 1), (3, 32)]);
    }
}
