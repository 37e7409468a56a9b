//! CPU meter of the [hotpath](https://docs.rs/hotpath) profiler: is a function slow
//! because it computes, or because it waits?
//!
//! One API on every target; what a platform cannot do fails at run time with a
//! [`CpuError`] that says why and how to fix it, and the caller falls back.
//!
//! | capability | Linux | other targets |
//! |---|---|---|
//! | thread CPU clock ([`ThreadCpuClock`]) | perf_event software `task-clock` for the calling thread, else `clock_gettime(CLOCK_THREAD_CPUTIME_ID)` | [`CpuError::Unsupported`] |
//! | context switches ([`thread_switches`]) | `getrusage(RUSAGE_THREAD)`: voluntary and involuntary | [`CpuError::Unsupported`] |
//! | hardware counters ([`HwCounters`]: instructions, cycles) | perf_event where a PMU exists; most VMs have none (`ENOENT`) | [`CpuError::Unsupported`] |
//! | per-thread CPU sampler ([`start_sampling`]) | perf_event `task-clock` overflow signal to the thread that ran; else a per-thread `timer_create(CLOCK_THREAD_CPUTIME_ID)` | [`CpuError::Unsupported`] |
//!
//! ## Modes
//!
//! * **sampled** ([`start_sampling`], the default of the facade): each thread that runs
//!   measured code gets a CPU-time signal every `1/hz` seconds of *its own* CPU time (a
//!   blocked thread accumulates none, so it is never interrupted). The handler credits
//!   one period to the functions on the thread's scope stack. No per-call cost.
//! * **exact** ([`start_exact`]): every measured scope reads the thread CPU clock and the
//!   context-switch counters at entry and exit: per-call CPU time, percentiles and
//!   switches, for two reads of a few hundred nanoseconds each.
//!
//! ## Permissions
//!
//! perf_event needs `kernel.perf_event_paranoid` ≤ 2 for a process's own software events
//! (kernel samples excluded above 1) unless the process has `CAP_PERFMON` or is root.
//! When it is denied, sampling falls back to `timer_create`, which needs nothing, and the
//! report says so.
#![deny(missing_docs)]

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as sys;

#[cfg(not(target_os = "linux"))]
mod other;
#[cfg(not(target_os = "linux"))]
use other as sys;

use std::fmt;
use std::time::Duration;

/// Why a CPU facility is not available.
#[derive(Debug)]
pub enum CpuError {
    /// `perf_event_open` was refused.
    Denied {
        /// The paranoia level read from `/proc/sys/kernel/perf_event_paranoid`.
        paranoid: Option<i32>,
        /// The OS error.
        source: std::io::Error,
    },
    /// No hardware performance counters (a VM without a virtual PMU: `ENOENT`).
    NoPmu(std::io::Error),
    /// A signal the sampler needs already has a handler in this program.
    SignalInUse(&'static str),
    /// This platform has no such facility.
    Unsupported(&'static str),
    /// Another OS error.
    Os {
        /// What was being done.
        what: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
}

impl fmt::Display for CpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CpuError::Denied { paranoid, source } => {
                write!(f, "perf_event_open denied ({source}")?;
                if let Some(p) = paranoid {
                    write!(f, ", perf_event_paranoid = {p}")?;
                }
                write!(
                    f,
                    "); allow it with `sysctl kernel.perf_event_paranoid=1` or CAP_PERFMON"
                )
            }
            CpuError::NoPmu(e) => write!(
                f,
                "no hardware performance counters ({e}): this machine exposes no PMU (usual in VMs)"
            ),
            CpuError::SignalInUse(s) => {
                write!(
                    f,
                    "{s} already has a handler in this program; not replacing it"
                )
            }
            CpuError::Unsupported(what) => write!(f, "{what} is not available on this platform"),
            CpuError::Os { what, source } => write!(f, "{what}: {source}"),
        }
    }
}

impl std::error::Error for CpuError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CpuError::Denied { source, .. }
            | CpuError::Os { source, .. }
            | CpuError::NoPmu(source) => Some(source),
            _ => None,
        }
    }
}

/// Where a thread's CPU time is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockSource {
    /// perf_event software `task-clock` of the calling thread.
    PerfTaskClock,
    /// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`.
    ThreadCputime,
}

impl ClockSource {
    /// The name shown in reports.
    pub fn name(self) -> &'static str {
        match self {
            ClockSource::PerfTaskClock => "perf_event task-clock",
            ClockSource::ThreadCputime => "CLOCK_THREAD_CPUTIME_ID",
        }
    }
}

/// The calling thread's CPU-time clock. It stays on the thread that opened it (neither
/// `Send` nor `Sync`): a perf fd counts its opener while `CLOCK_THREAD_CPUTIME_ID` counts
/// the reader, so reading it elsewhere would mean two different things.
///
/// ```compile_fail
/// fn send<T: Send>() {}
/// send::<hotpath_cpu::ThreadCpuClock>();
/// ```
#[derive(Debug)]
pub struct ThreadCpuClock {
    inner: sys::Clock,
    _this_thread: std::marker::PhantomData<*const ()>,
}

impl ThreadCpuClock {
    /// `inner`, opened by the calling thread, which the clock stays on.
    fn on_this_thread(inner: sys::Clock) -> ThreadCpuClock {
        ThreadCpuClock {
            inner,
            _this_thread: std::marker::PhantomData,
        }
    }

    /// perf_event `task-clock` for the calling thread.
    pub fn perf() -> Result<ThreadCpuClock, CpuError> {
        sys::Clock::perf().map(ThreadCpuClock::on_this_thread)
    }

    /// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`.
    pub fn thread_cputime() -> Result<ThreadCpuClock, CpuError> {
        sys::Clock::thread_cputime().map(ThreadCpuClock::on_this_thread)
    }

    /// perf_event `task-clock`, else `CLOCK_THREAD_CPUTIME_ID`; with the reason the
    /// first was not used.
    pub fn open() -> Result<(ThreadCpuClock, Option<CpuError>), CpuError> {
        match Self::perf() {
            Ok(c) => Ok((c, None)),
            Err(e) => Self::thread_cputime().map(|c| (c, Some(e))),
        }
    }

    /// Which source this clock reads.
    pub fn source(&self) -> ClockSource {
        self.inner.source()
    }

    /// CPU time the calling thread (the one that opened the clock) has used, ns.
    pub fn read_ns(&self) -> u64 {
        self.inner.read_ns()
    }
}

/// Voluntary and involuntary context switches of the calling thread so far.
pub fn thread_switches() -> Result<(u64, u64), CpuError> {
    sys::thread_switches()
}

/// The calling thread's CPU time so far (`CLOCK_THREAD_CPUTIME_ID`), ns.
pub fn thread_cpu_ns() -> Result<u64, CpuError> {
    sys::thread_cpu_ns()
}

/// CPU time the whole process has used so far (user, system), ns.
pub fn process_cpu_ns() -> Result<(u64, u64), CpuError> {
    sys::process_cpu_ns()
}

/// Hardware instruction and cycle counters of the calling thread, which they stay on
/// (neither `Send` nor `Sync`, as [`ThreadCpuClock`]).
///
/// ```compile_fail
/// fn sync<T: Sync>() {}
/// sync::<hotpath_cpu::HwCounters>();
/// ```
#[derive(Debug)]
pub struct HwCounters {
    inner: sys::Hw,
    _this_thread: std::marker::PhantomData<*const ()>,
}

impl HwCounters {
    /// Opens instructions and cycles for the calling thread, user space only.
    pub fn open() -> Result<HwCounters, CpuError> {
        sys::Hw::open().map(|inner| HwCounters {
            inner,
            _this_thread: std::marker::PhantomData,
        })
    }

    /// (instructions, cycles) so far.
    pub fn read(&self) -> (u64, u64) {
        self.inner.read()
    }
}

/// Makes the following opens behave as if perf_event were denied (`EACCES`) and/or the
/// machine had no PMU (`ENOENT` for hardware events), to test the fallbacks on machines
/// where they would not happen.
#[doc(hidden)]
pub fn simulate_failures(perf_denied: bool, no_pmu: bool) {
    sys::simulate_failures(perf_denied, no_pmu)
}

/// Whether this process runs on a virtual CPU (the CPUID hypervisor bit on x86_64;
/// false elsewhere).
///
/// On a hypervisor every perf_event `task-clock` sample costs a timer interrupt and a
/// signal self-interrupt, each a VM exit: about 45 µs a sample on the 2-vCPU VM this was
/// measured on (4–6 % of a core at 1 kHz), against under 1 % for the CPU-time timer,
/// which is driven by the scheduler tick the kernel takes anyway.
pub fn virtualized() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        core::arch::x86_64::__cpuid(1).ecx & (1 << 31) != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// What delivers the sampling signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SamplerSource {
    /// perf_event `task-clock` overflow, signal routed to the thread that ran.
    PerfTaskClock,
    /// A per-thread `timer_create(CLOCK_THREAD_CPUTIME_ID)` timer.
    CpuTimeTimer,
}

impl SamplerSource {
    /// The name shown in reports.
    pub fn name(self) -> &'static str {
        match self {
            SamplerSource::PerfTaskClock => "perf_event task-clock",
            SamplerSource::CpuTimeTimer => "timer_create(CLOCK_THREAD_CPUTIME_ID)",
        }
    }
}

/// How to sample.
#[derive(Clone, Debug)]
pub struct SamplerConfig {
    /// Samples per second of each thread's CPU time.
    pub hz: u32,
    /// Use this source instead of trying perf_event first.
    pub force: Option<SamplerSource>,
}

impl Default for SamplerConfig {
    fn default() -> Self {
        SamplerConfig {
            hz: 1000,
            force: None,
        }
    }
}

/// What sampling runs on.
#[derive(Clone, Debug)]
pub struct SamplingInfo {
    /// The signal source.
    pub source: SamplerSource,
    /// Samples per second of CPU time.
    pub hz: u32,
    /// One sample's worth of CPU time.
    pub period: Duration,
    /// Why the preferred source was not used.
    pub fallback_reason: Option<String>,
}

/// Starts CPU sampling: installs the sampling signal's handler (on a real-time signal
/// the program does not handle) and arms a sampler on every
/// thread that runs measured code (the calling thread now; others from their first
/// measured call). Until [`stop_sampling`].
pub fn start_sampling(cfg: &SamplerConfig) -> Result<SamplingInfo, CpuError> {
    sys::start_sampling(cfg)
}

/// Stops sampling: every thread's sampler is disarmed now, so no sampling signal
/// arrives after this returns (one already on its way is handled and ignored).
pub fn stop_sampling() {
    sys::stop_sampling()
}

/// While sampling, checks that the sampling signal's handler is still the profiler's:
/// if the program replaced it, sampling stops on every thread. Returns the
/// `CLOCK_MONOTONIC` time ([`monotonic_ns`]) at which sampling stopped that way, if it
/// did since [`start_sampling`]. Call it now and then (the facade does at each
/// threads-monitor tick and when a report is made).
pub fn check_sampling() -> Option<u64> {
    sys::check_sampling()
}

/// Threads that ran measured code while blocking the sampling signal (alive now, or
/// exited that way since sampling started) after their sampler was armed: their CPU
/// time is not sampled.
pub fn blocked_threads() -> u64 {
    sys::blocked_threads()
}

/// Threads that blocked the sampling signal when they first ran measured code in the
/// session: their measured scopes read their CPU clock instead (exact CPU time).
pub fn clocked_threads() -> u64 {
    sys::clocked_threads()
}

/// The name of the sampling signal (a real-time signal: `SIGRTMAX`, `SIGRTMAX-1`, ...).
pub fn signal_name() -> String {
    sys::signal_name()
}

/// `CLOCK_MONOTONIC` now, in ns (0 where it cannot be read).
pub fn monotonic_ns() -> u64 {
    sys::monotonic_ns()
}

/// What exact mode reads.
#[derive(Clone, Debug)]
pub struct ExactInfo {
    /// The CPU clock.
    pub source: ClockSource,
    /// Why perf_event `task-clock` is not the clock, if it is not.
    pub fallback_reason: Option<String>,
    /// Why instructions and cycles are not counted, if they are not.
    pub hw_unavailable: Option<String>,
}

/// Starts exact mode: every measured scope reads the thread CPU clock, context switches
/// and (where a PMU exists) instructions and cycles at entry and exit.
pub fn start_exact(force_clock: Option<ClockSource>) -> Result<ExactInfo, CpuError> {
    sys::start_exact(force_clock)
}

/// Ends exact mode.
pub fn stop_exact() {
    hotpath_core::meter::cpu::set_exact(None);
    hotpath_core::meter::cpu::set_thread_hooks(None, None);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;
    use std::io;

    const ALLOW: &str = "allow it with `sysctl kernel.perf_event_paranoid=1` or CAP_PERFMON";

    /// An error from the OS, the same text on every target.
    fn os(what: &str) -> io::Error {
        io::Error::other(what.to_string())
    }

    #[test]
    fn every_error_says_what_failed_and_how_to_fix_it() {
        let cases = [
            (
                CpuError::Denied {
                    paranoid: Some(3),
                    source: os("refused"),
                },
                format!("perf_event_open denied (refused, perf_event_paranoid = 3); {ALLOW}"),
            ),
            (
                CpuError::Denied {
                    paranoid: None,
                    source: os("refused"),
                },
                format!("perf_event_open denied (refused); {ALLOW}"),
            ),
            (
                CpuError::NoPmu(os("no such event")),
                "no hardware performance counters (no such event): this machine exposes no \
                 PMU (usual in VMs)"
                    .to_string(),
            ),
            (
                CpuError::SignalInUse("every real-time signal"),
                "every real-time signal already has a handler in this program; not replacing it"
                    .to_string(),
            ),
            (
                CpuError::Unsupported("perf_event"),
                "perf_event is not available on this platform".to_string(),
            ),
            (
                CpuError::Os {
                    what: "getrusage",
                    source: os("bad argument"),
                },
                "getrusage: bad argument".to_string(),
            ),
        ];
        for (e, text) in cases {
            assert_eq!(e.to_string(), text);
        }
    }

    #[test]
    fn the_os_error_is_the_source_of_the_errors_that_have_one() {
        let source = |e: &CpuError| e.source().map(|s| s.to_string());
        let denied = CpuError::Denied {
            paranoid: Some(2),
            source: os("refused"),
        };
        assert_eq!(source(&denied).as_deref(), Some("refused"));
        let no_pmu = CpuError::NoPmu(os("no such event"));
        assert_eq!(source(&no_pmu).as_deref(), Some("no such event"));
        let other = CpuError::Os {
            what: "timer_create(CLOCK_THREAD_CPUTIME_ID)",
            source: os("try again"),
        };
        assert_eq!(source(&other).as_deref(), Some("try again"));
        assert_eq!(
            source(&CpuError::SignalInUse("every real-time signal")),
            None
        );
        assert_eq!(source(&CpuError::Unsupported("perf_event")), None);
    }

    #[test]
    fn sources_are_named_as_reports_show_them() {
        assert_eq!(ClockSource::PerfTaskClock.name(), "perf_event task-clock");
        assert_eq!(ClockSource::ThreadCputime.name(), "CLOCK_THREAD_CPUTIME_ID");
        assert_eq!(SamplerSource::PerfTaskClock.name(), "perf_event task-clock");
        assert_eq!(
            SamplerSource::CpuTimeTimer.name(),
            "timer_create(CLOCK_THREAD_CPUTIME_ID)"
        );
    }

    #[test]
    fn sampling_defaults_to_1_khz_perf_event_first() {
        let cfg = SamplerConfig::default();
        assert_eq!((cfg.hz, cfg.force), (1000, None));
    }

    #[cfg(target_os = "linux")]
    mod fallbacks {
        //! The fallbacks through the public API: the ones this machine takes (a VM without
        //! a PMU), and the ones `simulate_failures` makes it take.

        use super::super::*;
        use super::ALLOW;
        use std::sync::{Mutex, MutexGuard, PoisonError};

        /// Sampling, exact mode and the simulated failures are process-wide: one test at
        /// a time when the tests share a process (`cargo test`).
        static SERIAL: Mutex<()> = Mutex::new(());

        /// Holds [`SERIAL`] with `simulate_failures(denied, no_pmu)`; puts everything back
        /// when dropped.
        struct Simulated {
            _serial: MutexGuard<'static, ()>,
        }

        fn simulated(perf_denied: bool, no_pmu: bool) -> Simulated {
            let _serial = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
            simulate_failures(perf_denied, no_pmu);
            Simulated { _serial }
        }

        impl Drop for Simulated {
            fn drop(&mut self) {
                simulate_failures(false, false);
                stop_sampling();
                stop_exact();
            }
        }

        /// What a refused perf_event_open says on this machine.
        fn denied_text() -> String {
            let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
                .ok()
                .and_then(|s| s.trim().parse::<i32>().ok());
            let level = paranoid.map_or(String::new(), |p| format!(", perf_event_paranoid = {p}"));
            format!("perf_event_open denied (Permission denied (os error 13){level}); {ALLOW}")
        }

        const NO_PMU: &str = "no hardware performance counters (No such file or directory \
                              (os error 2)): this machine exposes no PMU (usual in VMs)";

        #[test]
        fn exact_mode_without_hardware_counters_runs_and_says_why_they_are_missing() {
            let _s = simulated(false, false);
            let hw = HwCounters::open();
            let info = start_exact(Some(ClockSource::ThreadCputime)).expect("exact mode");
            assert_eq!(info.source, ClockSource::ThreadCputime);
            assert_eq!(info.fallback_reason, None);
            assert!(hotpath_core::meter::cpu::exact());
            match hw {
                // This machine (no PMU): the reason is the hardware counters' own error.
                Err(e) => assert_eq!(info.hw_unavailable, Some(e.to_string())),
                Ok(_) => assert_eq!(info.hw_unavailable, None),
            }
            stop_exact();
            assert!(!hotpath_core::meter::cpu::exact());
        }

        #[test]
        fn without_a_pmu_hardware_counters_fail_with_no_pmu_and_exact_mode_goes_on() {
            let _s = simulated(false, true);
            match HwCounters::open() {
                Err(e @ CpuError::NoPmu(_)) => assert_eq!(e.to_string(), NO_PMU),
                other => panic!("{other:?}"),
            }
            let info = start_exact(Some(ClockSource::ThreadCputime)).expect("exact mode");
            assert_eq!(info.source, ClockSource::ThreadCputime);
            assert_eq!(info.fallback_reason, None);
            assert_eq!(info.hw_unavailable.as_deref(), Some(NO_PMU));
            assert!(hotpath_core::meter::cpu::exact());
        }

        #[test]
        fn a_denied_perf_event_falls_back_to_the_thread_cputime_clock_and_says_why() {
            let _s = simulated(true, false);
            assert!(matches!(
                ThreadCpuClock::perf(),
                Err(CpuError::Denied { .. })
            ));
            let (clock, why) = ThreadCpuClock::open().expect("a thread CPU clock");
            assert_eq!(clock.source(), ClockSource::ThreadCputime);
            assert_eq!(why.map(|e| e.to_string()), Some(denied_text()));

            let info = start_exact(None).expect("exact mode");
            assert_eq!(info.source, ClockSource::ThreadCputime);
            assert_eq!(info.fallback_reason, Some(denied_text()));
            assert_eq!(info.hw_unavailable, Some(denied_text()));
            stop_exact();
            // Asked for by name, perf_event is not replaced.
            let forced = start_exact(Some(ClockSource::PerfTaskClock));
            assert!(matches!(forced, Err(CpuError::Denied { .. })), "{forced:?}");
            assert!(!hotpath_core::meter::cpu::exact());
        }

        #[test]
        fn a_denied_perf_event_samples_on_the_cpu_time_timer_and_says_why() {
            let _s = simulated(true, false);
            let info = start_sampling(&SamplerConfig::default()).expect("sampling");
            assert_eq!(info.source, SamplerSource::CpuTimeTimer);
            assert_eq!(info.source.name(), "timer_create(CLOCK_THREAD_CPUTIME_ID)");
            assert_eq!(info.hz, 1000);
            assert_eq!(info.period, Duration::from_millis(1));
            assert_eq!(info.fallback_reason, Some(denied_text()));
            assert!(signal_name().starts_with("SIGRTMAX"), "{}", signal_name());
            // Samples arrive (on a thread without measured code, credited to nothing).
            let end = thread_cpu_ns().unwrap() + 20_000_000;
            while thread_cpu_ns().unwrap() < end {}
            assert_eq!(check_sampling(), None);
            assert_eq!(blocked_threads(), 0);
            stop_sampling();
            // Asked for by name, perf_event is not replaced.
            let forced = start_sampling(&SamplerConfig {
                hz: 1000,
                force: Some(SamplerSource::PerfTaskClock),
            });
            assert!(matches!(forced, Err(CpuError::Denied { .. })), "{forced:?}");
        }

        #[test]
        fn a_forced_timer_is_no_fallback_and_the_rate_is_clamped() {
            let _s = simulated(false, false);
            let cfg = SamplerConfig {
                hz: 0,
                force: Some(SamplerSource::CpuTimeTimer),
            };
            let info = start_sampling(&cfg).expect("sampling");
            assert_eq!(info.source, SamplerSource::CpuTimeTimer);
            assert_eq!(info.hz, 1);
            assert_eq!(info.period, Duration::from_secs(1));
            assert_eq!(info.fallback_reason, None);
        }

        #[test]
        fn sampling_stops_when_the_program_takes_its_signal_over() {
            let _s = simulated(false, false);
            let cfg = SamplerConfig {
                hz: 1000,
                force: Some(SamplerSource::CpuTimeTimer),
            };
            start_sampling(&cfg).expect("sampling");
            let before = monotonic_ns();
            let name = signal_name();
            let n: i32 = name
                .strip_prefix("SIGRTMAX-")
                .map_or(0, |n| n.parse().unwrap());
            let sig = libc::SIGRTMAX() - n;
            // SAFETY: ignoring a real-time signal is a valid disposition.
            unsafe { libc::signal(sig, libc::SIG_IGN) };
            let at = check_sampling().expect("sampling stopped");
            assert!(before <= at && at <= monotonic_ns(), "{before} {at}");
            // Once stopped, it says so with the same time.
            assert_eq!(check_sampling(), Some(at));
            // A new session takes another signal.
            start_sampling(&cfg).expect("sampling again");
            assert_ne!(signal_name(), name);
            assert_eq!(check_sampling(), None);
        }
    }
}
