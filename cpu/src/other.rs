//! Targets without the Linux facilities: every constructor fails at run time.

use crate::{ClockSource, CpuError, ExactInfo, SamplerConfig, SamplingInfo};

#[derive(Debug)]
pub(crate) struct Clock;

impl Clock {
    pub(crate) fn perf() -> Result<Clock, CpuError> {
        Err(CpuError::Unsupported("perf_event"))
    }
    pub(crate) fn thread_cputime() -> Result<Clock, CpuError> {
        Err(CpuError::Unsupported("a per-thread CPU clock"))
    }
    pub(crate) fn source(&self) -> ClockSource {
        ClockSource::ThreadCputime
    }
    pub(crate) fn read_ns(&self) -> u64 {
        0
    }
}

#[derive(Debug)]
pub(crate) struct Hw;

impl Hw {
    pub(crate) fn open() -> Result<Hw, CpuError> {
        Err(CpuError::Unsupported("hardware performance counters"))
    }
    pub(crate) fn read(&self) -> (u64, u64) {
        (0, 0)
    }
}

pub(crate) fn thread_switches() -> Result<(u64, u64), CpuError> {
    Err(CpuError::Unsupported("per-thread context switch counts"))
}

pub(crate) fn thread_cpu_ns() -> Result<u64, CpuError> {
    Err(CpuError::Unsupported("a per-thread CPU clock"))
}

pub(crate) fn process_cpu_ns() -> Result<(u64, u64), CpuError> {
    Err(CpuError::Unsupported("process CPU time"))
}

pub(crate) fn start_sampling(_: &SamplerConfig) -> Result<SamplingInfo, CpuError> {
    Err(CpuError::Unsupported("CPU sampling"))
}

pub(crate) fn stop_sampling() {}

pub(crate) fn check_sampling() -> Option<u64> {
    None
}

pub(crate) fn blocked_threads() -> u64 {
    0
}

pub(crate) fn clocked_threads() -> u64 {
    0
}

pub(crate) fn signal_name() -> String {
    String::new()
}

pub(crate) fn monotonic_ns() -> u64 {
    0
}

pub(crate) fn simulate_failures(_: bool, _: bool) {}

pub(crate) fn start_exact(_: Option<ClockSource>) -> Result<ExactInfo, CpuError> {
    Err(CpuError::Unsupported("a per-thread CPU clock"))
}
