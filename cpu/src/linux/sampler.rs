//! The CPU sampler: a real-time signal delivered to each thread every period of its own
//! CPU time, by a perf_event `task-clock` overflow or a per-thread CPU-time timer, whose
//! handler credits the periods to the functions on the thread's scope stack.
//!
//! # Safety invariants
//!
//! * The sampling signal is a real-time signal the program does not handle (the highest
//!   whose disposition is the default when sampling first starts), never `SIGPROF`: a
//!   `SIGPROF` handler or `setitimer(ITIMER_PROF)` of the program (another profiler)
//!   never sees the profiler's signals, nor the profiler theirs. Real-time signals queue,
//!   so every sampler has at most one signal outstanding: a timer queues one instance
//!   per expiry at most (overruns are counted, not queued), and a perf_event is armed
//!   for one overflow at a time (`PERF_EVENT_IOC_REFRESH`), re-armed by the handler. A
//!   thread that blocks the signal therefore holds one pending signal, never a queue
//!   that could overflow into `SIGIO`.
//! * The handler calls only `hotpath_core::credit_cpu_sample` (which is
//!   async-signal-safe by contract), `clock_gettime`, and one `ioctl` or `timer_settime`
//!   on its own thread's sampler (all async-signal-safe). It reads only
//!   const-initialised, `Drop`-free thread-locals and atomics.
//! * Every armed sampler is also listed in [`ALL_ARMED`] (under its lock, never from the
//!   handler), so that stopping disarms every thread's sampler at once, and a report can
//!   tell which threads block the signal.
//! * Samples only arrive while the thread runs user code: the perf_event sampler excludes
//!   kernel mode, and the CPU-time timer's expiry is handled as task work on the return
//!   to user mode (Linux ≥ 5.11 on x86). So a signal never lands in a system call the
//!   thread is making or about to block in, and no call returns `EINTR` because of it;
//!   `SA_RESTART` covers what remains.
//! * Every sampler's perf fd or timer belongs to the thread it samples and is closed or
//!   deleted by that thread (at thread exit, when it arms again, or when it stops the
//!   session); other threads only disarm it ([`disarm_all`]). In a forked child, the
//!   one thread closes its copy of its parent's perf fd ([`in_fork_child`]).

use hotpath_core::fork::{self, Rank};
use std::cell::Cell;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::time::Duration;

use hotpath_core::meter::cpu as core_cpu;

use super::clock::{monotonic_ns, thread_cpu_ns};
use super::perf::{
    close, perf_open, PerfAttr, FLAG_DISABLED, FLAG_EXCLUDE_HV, FLAG_EXCLUDE_KERNEL, IOC_DISABLE,
    IOC_REFRESH, IOC_RESET, PERF_COUNT_SW_TASK_CLOCK, PERF_TYPE_SOFTWARE,
};
use crate::{CpuError, SamplerConfig, SamplerSource, SamplingInfo};

const F_SETSIG: libc::c_int = 10;
const F_SETOWN_EX: libc::c_int = 15;
const F_OWNER_TID: libc::c_int = 0;
const SIGEV_THREAD_ID: libc::c_int = 4;
const SI_TIMER: libc::c_int = -2;
const POLL_IN: libc::c_int = 1;
const POLL_HUP: libc::c_int = 6;

#[repr(C)]
struct OwnerEx {
    type_: libc::c_int,
    pid: libc::pid_t,
}

fn gettid() -> libc::pid_t {
    // SAFETY: gettid has no preconditions and cannot fail.
    unsafe { libc::gettid() }
}

const NONE: u8 = 0;
const PERF: u8 = 1;
const TIMER: u8 = 2;

static SAMPLING: AtomicBool = AtomicBool::new(false);
static SOURCE: AtomicU8 = AtomicU8::new(NONE);
static PERIOD_NS: AtomicU64 = AtomicU64::new(1_000_000);
/// Whether the signal handler is installed. In a forked child, with it still held,
/// sampling stops ([`in_fork_child`]).
static HANDLER: fork::Mutex<bool> =
    fork::Mutex::new(Rank::CpuHandler, false).in_child(in_fork_child);
/// The sampling signal (0 until the handler is installed).
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Every armed sampler: (source, perf fd or timer id, thread id).
/// In a forked child the list is the parent's threads': cleared before the lock is
/// released there (plain integers: clearing frees nothing, nothing is allocated).
static ALL_ARMED: fork::Mutex<Vec<(u8, i64, libc::pid_t)>> =
    fork::Mutex::new(Rank::CpuArmed, Vec::new()).in_child(|all| all.clear());
/// Threads that exited with the sampling signal blocked, since sampling started.
static BLOCKED_EXITED: AtomicU64 = AtomicU64::new(0);
/// Threads that blocked the sampling signal when they first ran measured code in the
/// session: not sampled, their scopes read their CPU clock instead.
static CLOCKED: AtomicU64 = AtomicU64::new(0);
/// `CLOCK_MONOTONIC` ns when sampling stopped because the program took the signal over
/// (0: it did not).
static STOPPED_AT: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's sampler: (source, perf fd or timer id). Read by the signal handler.
    static ARMED: Cell<(u8, i64)> = const { Cell::new((NONE, 0)) };
    /// (thread CPU time when armed, periods credited since): the handler credits every
    /// period that elapsed, so samples whose signals merged while one was pending (a
    /// sampler has one signal outstanding at most: timer overruns are counted, not
    /// queued) are not lost.
    static CREDITED: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

extern "C" fn on_sigprof(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid `siginfo_t` to an `SA_SIGINFO` handler.
    let code = unsafe { (*info).si_code };
    let (kind, id) = ARMED.try_with(Cell::get).unwrap_or((NONE, 0));
    if !from_sampler(kind, code) {
        return;
    }
    if !SAMPLING.load(Relaxed) {
        disable_in_handler(kind, id);
        return;
    }
    // clock_gettime is async-signal-safe. A signal stands for every period the thread's
    // CPU clock crossed since the last one: one normally, more when signals merged
    // during a long stretch in the kernel (page faults, unmapping), which always ends
    // back in the code that was running when it began.
    let n = match (thread_cpu_ns(), CREDITED.try_with(Cell::get)) {
        (Ok(now), Ok((armed_at, credited))) => {
            let (n, credited) = periods_due(now, armed_at, credited, PERIOD_NS.load(Relaxed));
            let _ = CREDITED.try_with(|c| c.set((armed_at, credited)));
            n
        }
        _ => 1,
    };
    for _ in 0..n {
        hotpath_core::credit_cpu_sample();
    }
    if kind == PERF {
        // One overflow at a time (see the module's invariants).
        // SAFETY: `id` is this thread's open perf fd; ioctl is async-signal-safe.
        unsafe { libc::ioctl(id as libc::c_int, IOC_REFRESH, 1) };
    }
}

/// Whether a signal with `si_code` `code` comes from a sampler of kind `kind`: a perf
/// event's overflow (`POLL_IN`, or `POLL_HUP` once its refresh count runs out) or a
/// timer's expiry (`SI_TIMER`). Anything else (a `kill` or `sigqueue` of the signal, or a
/// thread without a sampler) is not a sample.
#[inline]
fn from_sampler(kind: u8, code: libc::c_int) -> bool {
    match kind {
        PERF => code == POLL_IN || code == POLL_HUP,
        TIMER => code == SI_TIMER,
        _ => false,
    }
}

/// For a signal at thread CPU time `now`, on a sampler armed at `armed_at` that has
/// credited `credited` periods of `period` ns: (periods to credit now, periods credited
/// after). Every period crossed since the last signal, at least one: a signal always
/// stands for one, even when it comes a little before its period ends by this clock.
#[inline]
fn periods_due(now: u64, armed_at: u64, credited: u64, period: u64) -> (u64, u64) {
    let due = now.saturating_sub(armed_at) / period.max(1);
    (due.saturating_sub(credited).max(1), due.max(credited + 1))
}

/// Stops this thread's sampler from within the handler (async-signal-safe syscalls only).
fn disable_in_handler(kind: u8, id: i64) {
    match kind {
        PERF => {
            // SAFETY: `id` is this thread's open perf fd.
            unsafe { libc::ioctl(id as libc::c_int, IOC_DISABLE, 0) };
        }
        TIMER => {
            let zero: libc::itimerspec = itimer(0);
            // SAFETY: `id` is this thread's live timer; a zero value disarms it.
            unsafe { libc::timer_settime(id as libc::timer_t, 0, &zero, std::ptr::null_mut()) };
        }
        _ => {}
    }
}

fn itimer(ns: u64) -> libc::itimerspec {
    let ts = libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    };
    libc::itimerspec {
        it_interval: ts,
        it_value: ts,
    }
}

/// The current handler of `sig`.
fn handler_of(sig: libc::c_int) -> libc::sighandler_t {
    // SAFETY: `sigaction` with a null new action only reads the current one into `old`.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) };
    old.sa_sigaction
}

fn our_handler() -> libc::sighandler_t {
    on_sigprof as *const () as libc::sighandler_t
}

/// The highest real-time signal the program leaves at its default disposition.
fn free_signal() -> Option<libc::c_int> {
    pick_signal(libc::SIGRTMIN(), libc::SIGRTMAX(), |s| {
        handler_of(s) == libc::SIG_DFL
    })
}

/// The highest signal from `rtmin + 4` to `rtmax` that is `free`: the lowest few are
/// often taken by libraries that pick from the bottom.
fn pick_signal(
    rtmin: libc::c_int,
    rtmax: libc::c_int,
    free: impl Fn(libc::c_int) -> bool,
) -> Option<libc::c_int> {
    (rtmin + 4..=rtmax).rev().find(|&s| free(s))
}

/// Installs the sampling signal's handler once, on a real-time signal nobody handles.
fn install_handler() -> Result<(), CpuError> {
    let mut installed = HANDLER.lock();
    if *installed {
        let sig = SIGNAL.load(Relaxed);
        if handler_of(sig) == our_handler() {
            return Ok(());
        }
        // The program took the signal over since: find another.
        *installed = false;
    }
    let Some(sig) = free_signal() else {
        return Err(CpuError::SignalInUse("every real-time signal"));
    };
    // SAFETY: zero is a valid `sigaction`; the fields set below make it ours.
    let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
    sa.sa_sigaction = on_sigprof as *const () as libc::sighandler_t;
    sa.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
    // SAFETY: `sa.sa_mask` is a valid signal set to initialise.
    unsafe { libc::sigemptyset(&mut sa.sa_mask) };
    // SAFETY: `sa` is a fully initialised action whose handler is async-signal-safe.
    if unsafe { libc::sigaction(sig, &sa, std::ptr::null_mut()) } != 0 {
        return Err(CpuError::Os {
            what: "sigaction (the sampling signal)",
            source: io::Error::last_os_error(),
        });
    }
    SIGNAL.store(sig, Relaxed);
    *installed = true;
    Ok(())
}

/// The sampling signal's name (`SIGRTMAX`, `SIGRTMAX-3`), for reports.
pub(crate) fn signal_name() -> String {
    name_of(SIGNAL.load(Relaxed), libc::SIGRTMAX())
}

/// The name of real-time signal `sig`, counted down from `rtmax`.
fn name_of(sig: libc::c_int, rtmax: libc::c_int) -> String {
    match rtmax - sig {
        0 => "SIGRTMAX".to_string(),
        n => format!("SIGRTMAX-{n}"),
    }
}

/// A task-clock event that overflows every `period` ns of the thread's CPU time, created
/// disabled (it is enabled for one overflow at a time).
fn sampling_attr(period: u64) -> PerfAttr {
    // Samples from user mode only. A sample taken while the thread is in the kernel
    // queues its signal at once, and if the thread is about to block (entering
    // nanosleep, poll, ...) the pending signal ends that call with EINTR, which
    // SA_RESTART does not prevent for those calls. A user-mode sample is delivered on the
    // way back to the interrupted user code instead. Kernel time is not lost: the handler
    // credits every period the thread's CPU clock (user + system) has crossed.
    PerfAttr {
        type_: PERF_TYPE_SOFTWARE,
        config: PERF_COUNT_SW_TASK_CLOCK,
        sample_period: period,
        wakeup_events: 1,
        flags: FLAG_DISABLED | FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV,
        ..Default::default()
    }
}

fn arm_perf(period: u64) -> Result<i64, CpuError> {
    let fd = perf_open(&mut sampling_attr(period), -1, false)?;
    let owner = OwnerEx {
        type_: F_OWNER_TID,
        pid: gettid(),
    };
    let os = |what| CpuError::Os {
        what,
        source: io::Error::last_os_error(),
    };
    // SAFETY: `fd` is the perf event just opened; each call configures signal delivery
    // (`O_ASYNC`, the signal number, the owning thread) or resets it and enables it for
    // one overflow (the handler re-arms it).
    let ok = unsafe {
        libc::fcntl(fd, libc::F_SETFL, libc::O_ASYNC | libc::O_NONBLOCK) == 0
            && libc::fcntl(fd, F_SETSIG, SIGNAL.load(Relaxed)) == 0
            && libc::fcntl(fd, F_SETOWN_EX, &owner as *const OwnerEx) == 0
            && libc::ioctl(fd, IOC_RESET, 0) == 0
            && libc::ioctl(fd, IOC_REFRESH, 1) == 0
    };
    if !ok {
        let e = os("configuring the perf_event sampling signal");
        close(fd);
        return Err(e);
    }
    Ok(fd as i64)
}

fn arm_timer(period: u64) -> Result<i64, CpuError> {
    // SAFETY: zero is a valid `sigevent`; the fields set below select thread delivery.
    let mut sev: libc::sigevent = unsafe { std::mem::zeroed() };
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGNAL.load(Relaxed);
    sev.sigev_notify_thread_id = gettid();
    let mut timer: libc::timer_t = std::ptr::null_mut();
    // SAFETY: `sev` and `timer` are valid; the clock is this thread's CPU time.
    if unsafe { libc::timer_create(libc::CLOCK_THREAD_CPUTIME_ID, &mut sev, &mut timer) } != 0 {
        return Err(CpuError::Os {
            what: "timer_create(CLOCK_THREAD_CPUTIME_ID)",
            source: io::Error::last_os_error(),
        });
    }
    let spec = itimer(period);
    // SAFETY: `timer` was just created by this thread.
    if unsafe { libc::timer_settime(timer, 0, &spec, std::ptr::null_mut()) } != 0 {
        let e = CpuError::Os {
            what: "timer_settime",
            source: io::Error::last_os_error(),
        };
        // SAFETY: as above.
        unsafe { libc::timer_delete(timer) };
        return Err(e);
    }
    Ok(timer as i64)
}

/// Arms the calling thread's sampler (thread-start hook; also for the session's thread).
fn arm_current() {
    if !SAMPLING.load(Relaxed) {
        return;
    }
    disarm_current();
    if read_clock_if_blocked() {
        return;
    }
    let period = PERIOD_NS.load(Relaxed);
    let armed = match SOURCE.load(Relaxed) {
        PERF => arm_perf(period)
            .map(|fd| (PERF, fd))
            .or_else(|_| arm_timer(period).map(|t| (TIMER, t))),
        TIMER => arm_timer(period).map(|t| (TIMER, t)),
        _ => return,
    };
    if let Ok(a) = armed {
        set_armed(a);
    }
}

/// When the calling thread blocks the sampling signal, its samples could never arrive:
/// its measured scopes read its CPU clock instead (as in exact mode), and no sampler is
/// armed for it. Returns whether it does.
fn read_clock_if_blocked() -> bool {
    if !signal_blocked_here() {
        return false;
    }
    core_cpu::this_thread_unsampled();
    CLOCKED.fetch_add(1, Relaxed);
    true
}

/// The calling thread's CPU clock, for the threads that cannot be sampled.
fn read_thread_clock() -> core_cpu::CpuDelta {
    core_cpu::CpuDelta {
        ns: thread_cpu_ns().unwrap_or(0),
        ..core_cpu::CpuDelta::ZERO
    }
}

/// Records this thread's sampler and the CPU time from which periods are counted.
fn set_armed(a: (u8, i64)) {
    let _ = CREDITED.try_with(|c| c.set((thread_cpu_ns().unwrap_or(0), 0)));
    let _ = ARMED.try_with(|c| c.set(a));
    let tid = gettid();
    hotpath_core::internal(|| ALL_ARMED.lock().push((a.0, a.1, tid)));
}

/// Whether the calling thread blocks the sampling signal.
fn signal_blocked_here() -> bool {
    // SAFETY: zero is a valid `sigset_t` to fill; a null new set only reads the mask.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let ok = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut set) } == 0;
    // SAFETY: `set` was filled by pthread_sigmask.
    ok && unsafe { libc::sigismember(&set, SIGNAL.load(Relaxed)) } == 1
}

/// Closes the calling thread's sampler (thread-exit hook).
fn disarm_current() {
    let Ok((kind, id)) = ARMED.try_with(|c| c.replace((NONE, 0))) else {
        return;
    };
    if kind != NONE {
        let tid = gettid();
        let mut all = ALL_ARMED.lock();
        let before = all.len();
        all.retain(|&(k, i, t)| !(k == kind && i == id && t == tid));
        if all.len() < before && SAMPLING.load(Relaxed) && signal_blocked_here() {
            BLOCKED_EXITED.fetch_add(1, Relaxed);
        }
    }
    match kind {
        PERF => close(id as libc::c_int),
        TIMER => {
            // SAFETY: `id` is this thread's timer, deleted once.
            unsafe { libc::timer_delete(id as libc::timer_t) };
        }
        _ => {}
    }
}

/// The rate asked for, within 1 Hz to 100 kHz, and its period in ns.
fn rate(hz: u32) -> (u32, u64) {
    let hz = hz.clamp(1, 100_000);
    (hz, 1_000_000_000 / hz as u64)
}

pub(crate) fn start_sampling(cfg: &SamplerConfig) -> Result<SamplingInfo, CpuError> {
    let (hz, period) = rate(cfg.hz);
    install_handler()?;
    PERIOD_NS.store(period, Relaxed);
    BLOCKED_EXITED.store(0, Relaxed);
    CLOCKED.store(0, Relaxed);
    STOPPED_AT.store(0, Relaxed);
    core_cpu::set_unsampled_reader(Some(read_thread_clock));
    SAMPLING.store(true, Relaxed);
    // Try the preferred source on this thread; every later thread uses what worked here.
    let (source, fallback_reason, armed) = match cfg.force {
        Some(SamplerSource::CpuTimeTimer) => (
            SamplerSource::CpuTimeTimer,
            None,
            arm_timer(period).map(|t| (TIMER, t)),
        ),
        _ => match arm_perf(period) {
            Ok(fd) => (SamplerSource::PerfTaskClock, None, Ok((PERF, fd))),
            Err(e) if cfg.force.is_none() => (
                SamplerSource::CpuTimeTimer,
                Some(e.to_string()),
                arm_timer(period).map(|t| (TIMER, t)),
            ),
            Err(e) => (SamplerSource::PerfTaskClock, None, Err(e)),
        },
    };
    let armed = match armed {
        Ok(a) => a,
        Err(e) => {
            SAMPLING.store(false, Relaxed);
            return Err(e);
        }
    };
    disarm_current();
    if !read_clock_if_blocked() {
        set_armed(armed);
    } else if armed.0 == PERF {
        close(armed.1 as libc::c_int);
    } else {
        // SAFETY: the timer just made on this thread, deleted once.
        unsafe { libc::timer_delete(armed.1 as libc::timer_t) };
    }
    SOURCE.store(armed.0, Relaxed);
    core_cpu::set_thread_hooks(Some(arm_current), Some(disarm_current));
    Ok(SamplingInfo {
        source,
        hz,
        period: Duration::from_nanos(period),
        fallback_reason,
    })
}

/// In a forked child: no sampling. The perf_event file is a copy of the parent's (it
/// samples the parent's thread): close it; a CPU-time timer is not inherited, so its id
/// must not be deleted (it could name a timer the child makes later).
/// Async-signal-safe; registered with the fork handlers by [`HANDLER`]'s first use.
fn in_fork_child(_installed: &mut bool) {
    SAMPLING.store(false, Relaxed);
    core_cpu::set_thread_hooks(None, None);
    if let Ok((PERF, fd)) = ARMED.try_with(|c| c.replace((NONE, 0))) {
        close(fd as libc::c_int);
    }
    // Exact mode: its counters are copies of the parent thread's too.
    super::exact::in_fork_child();
}

pub(crate) fn stop_sampling() {
    SAMPLING.store(false, Relaxed);
    core_cpu::set_unsampled_reader(None);
    core_cpu::set_thread_hooks(None, None);
    disarm_current();
    disarm_all(true);
}

/// Disarms every thread's sampler now (their owners close them when they exit or arm
/// again), so that no sampling signal arrives after sampling stopped. `forget`: the
/// list is emptied (the session ends); else it is kept for [`blocked_threads`].
fn disarm_all(forget: bool) {
    let mut all = ALL_ARMED.lock();
    for &(kind, id, _) in all.iter() {
        disable_in_handler(kind, id);
    }
    if forget {
        all.clear();
    }
}

/// While sampling: whether the program replaced the sampling signal's handler; if it
/// did, sampling stops on every thread (the program's handler gets no more of the
/// profiler's signals). Returns when sampling stopped that way (`CLOCK_MONOTONIC` ns).
pub(crate) fn check_sampling() -> Option<u64> {
    if SAMPLING.load(Relaxed) {
        let sig = SIGNAL.load(Relaxed);
        if sig != 0 && handler_of(sig) != our_handler() {
            SAMPLING.store(false, Relaxed);
            core_cpu::set_thread_hooks(None, None);
            disarm_all(false);
            STOPPED_AT.store(monotonic_ns().max(1), Relaxed);
        }
    }
    match STOPPED_AT.load(Relaxed) {
        0 => None,
        t => Some(t),
    }
}

/// Threads measured by their CPU clock this session: they blocked the sampling signal
/// when they first ran measured code.
pub(crate) fn clocked_threads() -> u64 {
    CLOCKED.load(Relaxed)
}

/// Threads that ran measured code with the sampling signal blocked: alive now (their
/// `SigBlk` in `/proc/self/task/<tid>/status`) or exited so since sampling started.
pub(crate) fn blocked_threads() -> u64 {
    let sig = SIGNAL.load(Relaxed);
    if sig == 0 {
        return 0;
    }
    let tids: Vec<libc::pid_t> = ALL_ARMED.lock().iter().map(|a| a.2).collect();
    let live = tids
        .into_iter()
        .filter(|tid| {
            std::fs::read_to_string(format!("/proc/self/task/{tid}/status"))
                .is_ok_and(|status| blocks(&status, sig))
        })
        .count() as u64;
    live + BLOCKED_EXITED.load(Relaxed)
}

/// Whether the thread whose `/proc/<pid>/task/<tid>/status` is `status` blocks signal
/// `sig`: bit `sig - 1` of its `SigBlk` mask (hexadecimal).
fn blocks(status: &str, sig: libc::c_int) -> bool {
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigBlk:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|mask| mask & (1u64 << (sig - 1)) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_kept_within_1_hz_and_100_khz_and_gives_whole_ns_periods() {
        assert_eq!(rate(1000), (1000, 1_000_000));
        assert_eq!(rate(1), (1, 1_000_000_000));
        assert_eq!(rate(0), (1, 1_000_000_000));
        assert_eq!(rate(99), (99, 10_101_010));
        assert_eq!(rate(100_000), (100_000, 10_000));
        assert_eq!(rate(100_001), (100_000, 10_000));
        assert_eq!(rate(u32::MAX), (100_000, 10_000));
    }

    #[test]
    fn a_timer_value_splits_ns_into_seconds_and_repeats_it() {
        let t = itimer(2_500_000_001);
        assert_eq!((t.it_value.tv_sec, t.it_value.tv_nsec), (2, 500_000_001));
        assert_eq!(
            (t.it_interval.tv_sec, t.it_interval.tv_nsec),
            (2, 500_000_001)
        );
        let t = itimer(999_999_999);
        assert_eq!((t.it_value.tv_sec, t.it_value.tv_nsec), (0, 999_999_999));
        // Zero disarms (disable_in_handler).
        let t = itimer(0);
        assert_eq!((t.it_value.tv_sec, t.it_value.tv_nsec), (0, 0));
        assert_eq!((t.it_interval.tv_sec, t.it_interval.tv_nsec), (0, 0));
    }

    #[test]
    fn one_signal_per_period_credits_one_period() {
        let ms = 1_000_000;
        // Armed at 5 ms of CPU time; signals at each period end.
        assert_eq!(periods_due(6 * ms, 5 * ms, 0, ms), (1, 1));
        assert_eq!(periods_due(7 * ms, 5 * ms, 1, ms), (1, 2));
        // A little early by the thread clock: still one, and the next one is not
        // counted twice.
        assert_eq!(periods_due(6 * ms - 10, 5 * ms, 0, ms), (1, 1));
        assert_eq!(periods_due(7 * ms + 10, 5 * ms, 1, ms), (1, 2));
    }

    #[test]
    fn merged_signals_credit_every_period_crossed() {
        let ms = 1_000_000;
        // 2 credited, clock now 5.5 periods past arming: 3 more.
        assert_eq!(periods_due(10 * ms + ms / 2, 5 * ms, 2, ms), (3, 5));
        // The first signal after 4 periods in the kernel.
        assert_eq!(periods_due(4 * ms, 0, 0, ms), (4, 4));
    }

    #[test]
    fn a_signal_behind_the_count_still_credits_one() {
        let ms = 1_000_000;
        // Credited ahead of the clock (early signals): one, and the count moves on.
        assert_eq!(periods_due(3 * ms, 0, 5, ms), (1, 6));
        // A clock read before arming (never expected): one.
        assert_eq!(periods_due(1, 2 * ms, 0, ms), (1, 1));
        // A zero period is taken as 1 ns rather than dividing by zero.
        assert_eq!(periods_due(10, 0, 4, 0), (6, 10));
    }

    #[test]
    fn the_count_after_a_signal_is_the_count_before_plus_what_it_credited() {
        let period = 1_000_000;
        let mut credited = 0;
        let mut total = 0;
        // Signals a little early or late by the thread clock, and three merged into the
        // one at 6 ms.
        let signals = [
            999_990, 2_000_005, 3_000_000, 6_000_100, 6_999_990, 8_000_050, 9_000_000,
        ];
        let mut credits = Vec::new();
        for now in signals {
            let (n, after) = periods_due(now, 0, credited, period);
            assert_eq!(after, credited + n, "at {now}");
            credited = after;
            credits.push(n);
            total += n;
        }
        assert_eq!(credits, [1, 1, 1, 3, 1, 1, 1]);
        // 9 ms of CPU time: 9 periods, each credited once.
        assert_eq!(total, 9);
    }

    #[test]
    fn only_a_samplers_own_signal_codes_are_samples() {
        assert!(from_sampler(PERF, POLL_IN));
        assert!(from_sampler(PERF, POLL_HUP));
        assert!(!from_sampler(PERF, SI_TIMER));
        assert!(from_sampler(TIMER, SI_TIMER));
        assert!(!from_sampler(TIMER, POLL_IN));
        for code in [
            libc::SI_USER,
            libc::SI_QUEUE,
            libc::SI_TKILL,
            libc::SI_KERNEL,
        ] {
            assert!(!from_sampler(PERF, code), "{code}");
            assert!(!from_sampler(TIMER, code), "{code}");
        }
        // A thread without a sampler.
        assert!(!from_sampler(NONE, POLL_IN));
        assert!(!from_sampler(NONE, SI_TIMER));
    }

    #[test]
    fn the_hand_written_signal_constants_are_libcs() {
        assert_eq!(SI_TIMER, libc::SI_TIMER);
        assert_eq!(SIGEV_THREAD_ID, libc::SIGEV_THREAD_ID);
    }

    #[test]
    fn the_signal_is_the_highest_free_one_above_the_lowest_four() {
        let (rtmin, rtmax) = (34, 64);
        assert_eq!(pick_signal(rtmin, rtmax, |_| true), Some(64));
        assert_eq!(pick_signal(rtmin, rtmax, |s| s < 63), Some(62));
        assert_eq!(pick_signal(rtmin, rtmax, |s| s == 38), Some(38));
        assert_eq!(pick_signal(rtmin, rtmax, |s| s <= 37), None);
        assert_eq!(pick_signal(rtmin, rtmax, |_| false), None);
        // The floor follows SIGRTMIN (glibc's is 34, musl's 35).
        assert_eq!(pick_signal(35, 64, |s| s == 39), Some(39));
        assert_eq!(pick_signal(35, 64, |s| s == 38), None);
    }

    #[test]
    fn the_signal_is_named_from_sigrtmax_down() {
        assert_eq!(name_of(64, 64), "SIGRTMAX");
        assert_eq!(name_of(63, 64), "SIGRTMAX-1");
        assert_eq!(name_of(38, 64), "SIGRTMAX-26");
    }

    /// `/proc/<pid>/task/<tid>/status` around the signal masks.
    fn status(blk: &str) -> String {
        format!(
            "Name:\tworker\nState:\tR (running)\nSigQ:\t0/62811\nSigPnd:\tffffffffffffffff\n\
             ShdPnd:\tffffffffffffffff\nSigBlk:\t{blk}\nSigIgn:\tffffffffffffffff\n\
             SigCgt:\t0000000180000000\nCapInh:\t0000000000000000\n"
        )
    }

    #[test]
    fn a_thread_blocks_the_signal_when_its_sigblk_bit_is_set() {
        // SIGRTMAX (64) is bit 63.
        assert!(blocks(&status("8000000000000000"), 64));
        assert!(!blocks(&status("8000000000000000"), 63));
        assert!(blocks(&status("4000000000000000"), 63));
        // SIGINT (2) is bit 1.
        assert!(blocks(&status("0000000000000002"), 2));
        assert!(!blocks(&status("0000000000000002"), 64));
        assert!(blocks(&status("fffffffe7ffbfeff"), 64));
        // Only SigBlk counts: every other mask here is all ones.
        assert!(!blocks(&status("0000000000000000"), 64));
    }

    #[test]
    fn a_status_without_a_readable_sigblk_blocks_nothing() {
        assert!(!blocks("", 64));
        assert!(!blocks("Name:\tworker\nSigIgn:\tffffffffffffffff\n", 64));
        assert!(!blocks(&status("not hex"), 64));
        assert!(!blocks(&status(""), 64));
    }

    #[test]
    fn the_sampling_event_overflows_each_period_in_user_space_starting_disabled() {
        let a = sampling_attr(1_000_000);
        // PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK.
        assert_eq!((a.type_, a.config), (1, 1));
        assert_eq!((a.sample_period, a.wakeup_events), (1_000_000, 1));
        // disabled (bit 0), exclude_kernel (bit 5), exclude_hv (bit 6).
        assert_eq!(a.flags, 0b110_0001);
        assert_eq!((a.sample_type, a.read_format), (0, 0));
        assert_eq!(sampling_attr(10_000).sample_period, 10_000);
    }
}
