//! Exact mode: every measured scope reads the thread's CPU clock, context switches and
//! (where a PMU exists) instructions and cycles at entry and exit, through the reader
//! registered with `hotpath_core::meter::cpu::set_exact`.
//!
//! Each thread opens its own perf_event descriptors when it first runs measured code and
//! closes them when it exits (the thread hooks), or in a forked child
//! ([`in_fork_child`]).

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use hotpath_core::meter::cpu::{self as core_cpu, CpuDelta};

use super::clock::{thread_cpu_ns, thread_switches, Clock, Hw};
use super::perf::{close, hw_fds, read_hw, read_task_clock, task_clock_fd};
use crate::{ClockSource, CpuError, ExactInfo};

static EXACT_PERF: AtomicBool = AtomicBool::new(false);
static EXACT_HW: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread's exact-mode descriptors: (task-clock fd, hardware group leader fd,
    /// hardware member fd); -1 when not open.
    static EXACT_FDS: Cell<(i32, i32, i32)> = const { Cell::new((-1, -1, -1)) };
}

fn open_exact_current() {
    close_exact_current();
    let mut fds = (-1, -1, -1);
    if EXACT_PERF.load(Relaxed) {
        if let Ok(fd) = task_clock_fd() {
            fds.0 = fd;
        }
    }
    if EXACT_HW.load(Relaxed) {
        if let Ok((leader, member)) = hw_fds() {
            (fds.1, fds.2) = (leader, member);
        }
    }
    let _ = EXACT_FDS.try_with(|c| c.set(fds));
}

fn close_exact_current() {
    if let Ok((a, b, c)) = EXACT_FDS.try_with(|c| c.replace((-1, -1, -1))) {
        for fd in [c, b, a] {
            if fd >= 0 {
                close(fd);
            }
        }
    }
}

/// In a forked child: the calling thread's counters are copies of the parent thread's;
/// without them the child's thread reads its own CPU clock. Async-signal-safe; run by
/// the sampler's fork handler (`sampler::in_fork_child`).
pub(crate) fn in_fork_child() {
    EXACT_HW.store(false, Relaxed);
    EXACT_PERF.store(false, Relaxed);
    close_exact_current();
}

/// The exact-mode reading of the calling thread.
fn read_exact() -> CpuDelta {
    let (clock, hw, _) = EXACT_FDS.try_with(Cell::get).unwrap_or((-1, -1, -1));
    let ns = if clock >= 0 {
        read_task_clock(clock)
    } else {
        thread_cpu_ns().unwrap_or(0)
    };
    let (voluntary, involuntary) = thread_switches().unwrap_or((0, 0));
    let (instructions, cycles) = if hw >= 0 { read_hw(hw) } else { (0, 0) };
    CpuDelta {
        ns,
        voluntary,
        involuntary,
        instructions,
        cycles,
    }
}

pub(crate) fn start_exact(force: Option<ClockSource>) -> Result<ExactInfo, CpuError> {
    let (source, fallback_reason) = match force {
        Some(ClockSource::ThreadCputime) => {
            Clock::thread_cputime()?;
            (ClockSource::ThreadCputime, None)
        }
        _ => match Clock::perf() {
            Ok(_) => (ClockSource::PerfTaskClock, None),
            Err(e) if force.is_none() => {
                Clock::thread_cputime()?;
                (ClockSource::ThreadCputime, Some(e.to_string()))
            }
            Err(e) => return Err(e),
        },
    };
    let hw_unavailable = match Hw::open() {
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    };
    EXACT_PERF.store(source == ClockSource::PerfTaskClock, Relaxed);
    EXACT_HW.store(hw_unavailable.is_none(), Relaxed);
    core_cpu::set_thread_hooks(Some(open_exact_current), Some(close_exact_current));
    open_exact_current();
    core_cpu::set_exact(Some(read_exact));
    Ok(ExactInfo {
        source,
        fallback_reason,
        hw_unavailable,
    })
}
