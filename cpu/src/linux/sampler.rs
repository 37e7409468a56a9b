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
//! * The handler calls only `hotpath_core::meter::cpu::credit_sample` (which is
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
/// `CLOCK_MONOTONIC` ns when sampling stopped because the program took the signal over
/// (0: it did not).
static STOPPED_AT: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's sampler: (source, perf fd or timer id). Read by the signal handler.
    static ARMED: Cell<(u8, i64)> = const { Cell::new((NONE, 0)) };
    /// (thread CPU time when armed, periods credited since): the handler credits every
    /// period that elapsed, so samples whose signals merged while one was pending (a
    /// standard signal does not queue) are not lost.
    static CREDITED: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

extern "C" fn on_sigprof(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid `siginfo_t` to an `SA_SIGINFO` handler.
    let code = unsafe { (*info).si_code };
    let (kind, id) = ARMED.try_with(Cell::get).unwrap_or((NONE, 0));
    let ours = match kind {
        PERF => code == POLL_IN || code == POLL_HUP,
        TIMER => code == SI_TIMER,
        _ => false,
    };
    if !ours {
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
            let due = now.saturating_sub(armed_at) / PERIOD_NS.load(Relaxed).max(1);
            let _ = CREDITED.try_with(|c| c.set((armed_at, due.max(credited + 1))));
            due.saturating_sub(credited).max(1)
        }
        _ => 1,
    };
    for _ in 0..n {
        core_cpu::credit_sample();
    }
    if kind == PERF {
        // One overflow at a time (see the module's invariants).
        // SAFETY: `id` is this thread's open perf fd; ioctl is async-signal-safe.
        unsafe { libc::ioctl(id as libc::c_int, IOC_REFRESH, 1) };
    }
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
    // The lowest few are often taken by libraries that pick from the bottom.
    (libc::SIGRTMIN() + 4..=libc::SIGRTMAX())
        .rev()
        .find(|&s| handler_of(s) == libc::SIG_DFL)
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
    let sig = SIGNAL.load(Relaxed);
    match libc::SIGRTMAX() - sig {
        0 => "SIGRTMAX".to_string(),
        n => format!("SIGRTMAX-{n}"),
    }
}

fn arm_perf(period: u64) -> Result<i64, CpuError> {
    // Samples from user mode only. A sample taken while the thread is in the kernel
    // queues its signal at once, and if the thread is about to block (entering
    // nanosleep, poll, ...) the pending signal ends that call with EINTR, which
    // SA_RESTART does not prevent for those calls. A user-mode sample is delivered on the
    // way back to the interrupted user code instead. Kernel time is not lost: the handler
    // credits every period the thread's CPU clock (user + system) has crossed.
    let mut a = PerfAttr {
        type_: PERF_TYPE_SOFTWARE,
        config: PERF_COUNT_SW_TASK_CLOCK,
        sample_period: period,
        wakeup_events: 1,
        flags: FLAG_DISABLED | FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV,
        ..Default::default()
    };
    let fd = perf_open(&mut a, -1, false)?;
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

pub(crate) fn start_sampling(cfg: &SamplerConfig) -> Result<SamplingInfo, CpuError> {
    let hz = cfg.hz.clamp(1, 100_000);
    let period = 1_000_000_000 / hz as u64;
    install_handler()?;
    PERIOD_NS.store(period, Relaxed);
    BLOCKED_EXITED.store(0, Relaxed);
    STOPPED_AT.store(0, Relaxed);
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
    set_armed(armed);
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
                .ok()
                .and_then(|s| {
                    let hex = s.lines().find_map(|l| l.strip_prefix("SigBlk:"))?;
                    u64::from_str_radix(hex.trim(), 16).ok()
                })
                .is_some_and(|mask| mask & (1u64 << (sig - 1)) != 0)
        })
        .count() as u64;
    live + BLOCKED_EXITED.load(Relaxed)
}
