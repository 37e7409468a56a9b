//! The calling thread's CPU clocks and counters: [`Clock`] (perf_event `task-clock` or
//! `CLOCK_THREAD_CPUTIME_ID`), [`Hw`] (instructions and cycles), context switches, the
//! process's CPU time and `CLOCK_MONOTONIC`.
//!
//! A [`Clock`] or [`Hw`] owns its perf_event descriptors, which count the thread that
//! opened them; the public types that hold them are neither `Send` nor `Sync`, so the
//! descriptors are read and closed on that thread.

use std::io;

use super::perf::{close, hw_fds, read_hw, read_task_clock, task_clock_fd};
use crate::{ClockSource, CpuError};

fn timespec_ns(ts: libc::timespec) -> u64 {
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn timeval_ns(tv: libc::timeval) -> u64 {
    tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000
}

#[derive(Debug)]
pub(crate) enum Clock {
    Perf(libc::c_int),
    Cputime,
}

impl Clock {
    pub(crate) fn perf() -> Result<Clock, CpuError> {
        task_clock_fd().map(Clock::Perf)
    }

    pub(crate) fn thread_cputime() -> Result<Clock, CpuError> {
        thread_cpu_ns().map(|_| Clock::Cputime)
    }

    pub(crate) fn source(&self) -> ClockSource {
        match self {
            Clock::Perf(_) => ClockSource::PerfTaskClock,
            Clock::Cputime => ClockSource::ThreadCputime,
        }
    }

    pub(crate) fn read_ns(&self) -> u64 {
        match self {
            Clock::Perf(fd) => read_task_clock(*fd),
            Clock::Cputime => thread_cpu_ns().unwrap_or(0),
        }
    }
}

impl Drop for Clock {
    fn drop(&mut self) {
        if let Clock::Perf(fd) = self {
            close(*fd);
        }
    }
}

#[derive(Debug)]
pub(crate) struct Hw {
    leader: libc::c_int,
    member: libc::c_int,
}

impl Hw {
    pub(crate) fn open() -> Result<Hw, CpuError> {
        hw_fds().map(|(leader, member)| Hw { leader, member })
    }

    pub(crate) fn read(&self) -> (u64, u64) {
        read_hw(self.leader)
    }
}

impl Drop for Hw {
    fn drop(&mut self) {
        close(self.member);
        close(self.leader);
    }
}

pub(crate) fn thread_cpu_ns() -> Result<u64, CpuError> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        return Err(CpuError::Os {
            what: "clock_gettime(CLOCK_THREAD_CPUTIME_ID)",
            source: io::Error::last_os_error(),
        });
    }
    Ok(timespec_ns(ts))
}

fn rusage(who: libc::c_int) -> Result<libc::rusage, CpuError> {
    // SAFETY: `rusage` is plain data; zero is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid out-pointer.
    if unsafe { libc::getrusage(who, &mut ru) } != 0 {
        return Err(CpuError::Os {
            what: "getrusage",
            source: io::Error::last_os_error(),
        });
    }
    Ok(ru)
}

pub(crate) fn thread_switches() -> Result<(u64, u64), CpuError> {
    let ru = rusage(libc::RUSAGE_THREAD)?;
    Ok((ru.ru_nvcsw as u64, ru.ru_nivcsw as u64))
}

pub(crate) fn process_cpu_ns() -> Result<(u64, u64), CpuError> {
    let ru = rusage(libc::RUSAGE_SELF)?;
    Ok((timeval_ns(ru.ru_utime), timeval_ns(ru.ru_stime)))
}

/// `CLOCK_MONOTONIC` now, ns.
pub(crate) fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    timespec_ns(ts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_values_convert_to_ns() {
        let ts = |tv_sec, tv_nsec| libc::timespec { tv_sec, tv_nsec };
        assert_eq!(timespec_ns(ts(0, 0)), 0);
        assert_eq!(timespec_ns(ts(3, 5)), 3_000_000_005);
        assert_eq!(timespec_ns(ts(0, 999_999_999)), 999_999_999);
        let tv = |tv_sec, tv_usec| libc::timeval { tv_sec, tv_usec };
        assert_eq!(timeval_ns(tv(0, 0)), 0);
        assert_eq!(timeval_ns(tv(2, 7)), 2_000_007_000);
        assert_eq!(timeval_ns(tv(0, 999_999)), 999_999_000);
    }

    #[test]
    fn the_thread_clock_counts_this_threads_cpu_time_only() {
        let clock = Clock::thread_cputime().expect("CLOCK_THREAD_CPUTIME_ID");
        assert_eq!(clock.source(), ClockSource::ThreadCputime);
        let t0 = clock.read_ns();
        // Another thread's 20 ms of CPU time is not this one's.
        std::thread::spawn(|| {
            let end = thread_cpu_ns().unwrap() + 20_000_000;
            while thread_cpu_ns().unwrap() < end {}
        })
        .join()
        .unwrap();
        let t1 = clock.read_ns();
        assert!(t1 - t0 < 20_000_000, "{t0} -> {t1}");
        // Its own 20 ms are.
        while thread_cpu_ns().unwrap() < t1 + 20_000_000 {}
        assert!(clock.read_ns() - t1 >= 20_000_000);
    }
}
