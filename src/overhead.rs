//! What the profiler costs per measured call and per `io!` operation, measured on this
//! machine when a session starts: the report's overhead estimate multiplies these by the
//! run's calls and operations.

use std::time::Instant;

use hotpath_core::{CallSite, Scope, SiteKind};

/// What one measured call costs, measured on this machine at start-up.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Overhead {
    /// A timed call, ns.
    pub timed_ns: f64,
    /// A counted-only call (sampling), ns.
    pub counted_ns: f64,
    /// A timed `io!` operation, ns (the wrapper around an operation that does nothing).
    pub io_timed_ns: f64,
    /// A counted-only `io!` operation, ns.
    pub io_counted_ns: f64,
    /// Two back-to-back clock reads, ticks (median): the shortest span a measured call
    /// can show.
    pub floor_ticks: u64,
    /// Under an overhead budget: a timed call, a call the budget does not time (a
    /// frame, no clock), and one of a leaf it does not time (counted only), ns;
    /// measured only when a budget is set (else 0).
    pub budget_timed_ns: f64,
    pub budget_untimed_ns: f64,
    pub budget_frameless_ns: f64,
}

static CALIBRATION: CallSite = CallSite::new(
    || "hotpath::calibration",
    None,
    file!(),
    line!(),
    SiteKind::Internal,
);

static IO_CALIBRATION: CallSite = CallSite::new(
    || "hotpath::calibration::io",
    None,
    file!(),
    line!(),
    SiteKind::Internal,
);

impl Overhead {
    /// Median of 9 batches of 2,000 empty scopes, and of 2,000 `io!` operations that do
    /// nothing, for each mode (timed, counted only): about 2 ms.
    ///
    /// Timed on the thread's CPU clock, not the wall clock: what the profiler adds to a
    /// program is CPU work, and on a loaded machine a wall-clock batch also counts the
    /// time the thread waited for a core (the estimate came out up to 1.3x too high).
    pub(crate) fn measure(budget: bool) -> Overhead {
        const CALLS: u32 = 2000;
        use hotpath_core::state::Sampler;
        let median = |one: &dyn Fn()| {
            let mut batches: Vec<f64> = (0..9)
                .map(|_| {
                    let t = thread_cpu_ns();
                    for _ in 0..CALLS {
                        one();
                    }
                    thread_cpu_ns().saturating_sub(t) as f64 / f64::from(CALLS)
                })
                .collect();
            batches.sort_by(f64::total_cmp);
            batches[batches.len() / 2]
        };
        let call = || {
            let s = Scope::enter(&CALIBRATION);
            std::hint::black_box(&s);
            drop(s);
        };
        let io = || {
            let r = hotpath_io::op::sync_op(
                &IO_CALIBRATION,
                hotpath_io::op::Dir::Write,
                |n: &usize| *n as u64,
                || Ok(std::hint::black_box(64usize)),
            );
            let _ = std::hint::black_box(r);
        };
        let cost = |sampler: Sampler, one: &dyn Fn()| {
            sampler.set_rate(0.0);
            let counted = median(one);
            sampler.set_rate(1.0);
            (median(one), counted)
        };
        let (timed_ns, counted_ns) = cost(Sampler::Calls, &call);
        let (budget_timed_ns, budget_untimed_ns, budget_frameless_ns) = if budget {
            // The budget's paths: the site timed (almost) never, with and without
            // frames, then every call.
            use hotpath_core::budget::{set_period, MAX_PERIOD};
            let id = CALIBRATION.id();
            hotpath_core::state::set_budget(true);
            set_period(id, MAX_PERIOD, false);
            let untimed = median(&call);
            set_period(id, MAX_PERIOD, true);
            let frameless = median(&call);
            set_period(id, 1, false);
            let timed = median(&call);
            hotpath_core::state::set_budget(false);
            (timed, untimed, frameless)
        } else {
            (0.0, 0.0, 0.0)
        };
        // Inside a calibration scope (timed: the calls' rate is 1 now), so that the
        // operations' bytes are charged to it and not to a measured function that started
        // the session.
        let scope = Scope::enter(&CALIBRATION);
        let (io_timed_ns, io_counted_ns) = cost(Sampler::Io, &io);
        drop(scope);
        let mut pairs: Vec<u64> = (0..1001)
            .map(|_| {
                let a = hotpath_core::clock::now();
                let b = hotpath_core::clock::now();
                b.saturating_sub(a)
            })
            .collect();
        pairs.sort_unstable();
        Overhead {
            timed_ns,
            counted_ns,
            io_timed_ns,
            io_counted_ns,
            floor_ticks: pairs[pairs.len() / 2],
            budget_timed_ns,
            budget_untimed_ns,
            budget_frameless_ns,
        }
    }
}

/// CPU time of the calling thread, ns (`CLOCK_THREAD_CPUTIME_ID`); the monotonic clock
/// where that clock cannot be read.
fn thread_cpu_ns() -> u64 {
    cpu_time_ns(false).unwrap_or_else(|| {
        static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    })
}

/// CPU time so far, ns, of the process (`process`: `CLOCK_PROCESS_CPUTIME_ID`) or of the
/// calling thread (`CLOCK_THREAD_CPUTIME_ID`); `None` where the clock cannot be read.
#[allow(unsafe_code)]
pub(crate) fn cpu_time_ns(process: bool) -> Option<u64> {
    #[cfg(unix)]
    {
        let clock = if process {
            libc::CLOCK_PROCESS_CPUTIME_ID
        } else {
            libc::CLOCK_THREAD_CPUTIME_ID
        };
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; the call writes only into it.
        if unsafe { libc::clock_gettime(clock, &mut ts) } == 0 {
            return Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
        }
    }
    #[cfg(not(unix))]
    let _ = process;
    None
}
