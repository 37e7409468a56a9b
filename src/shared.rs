//! What a running session shares with the threads that outlive the call that started
//! it (the timeout thread, the exit and signal hooks, the live servers): its
//! configuration and meters, and the reports made from them.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::config::Config;
use crate::overhead::Overhead;
use crate::report::Report;
#[cfg(feature = "hotpath-callgrind")]
use crate::report::Section;

/// State shared with the timeout thread and the live servers.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) cfg: Config,
    /// The process the session started in (a forked child has another).
    pub(crate) pid: u32,
    pub(crate) start: Instant,
    /// Clock reading at the start: the trace's time zero.
    pub(crate) origin: u64,
    pub(crate) overhead: Overhead,
    /// Set once the report is written (the timeout thread and the guard may both try).
    pub(crate) reported: AtomicBool,
    pub(crate) notes: Vec<String>,
    #[cfg(feature = "hotpath-cpu")]
    pub(crate) cpu: Option<crate::cpu::CpuRun>,
    pub(crate) threads: Option<crate::threads::Monitor>,
    /// The overhead budget, when one holds: percent, costs and the CPU time at start.
    pub(crate) budget: Option<crate::budget::Run>,
}

/// The report of the session so far.
#[cfg_attr(not(feature = "hotpath-live"), allow(dead_code))]
pub(crate) fn build(shared: &Shared) -> Report {
    build_with(shared, None)
}

/// The report at the end of the session: the only one with instruction counts (reading
/// them ends callgrind's count).
pub(crate) fn build_final(shared: &Shared) -> Report {
    #[cfg(feature = "hotpath-callgrind")]
    if shared.cfg.sections.contains(&Section::Icount) {
        // Reading the dump is the profiler's work, not the program's allocations.
        let outcome = hotpath_core::internal(crate::callgrind::finish);
        return build_with(shared, Some(&outcome));
    }
    build_with(shared, None)
}

#[cfg(feature = "hotpath-callgrind")]
type Icount<'a> = Option<&'a crate::callgrind::Outcome>;
#[cfg(not(feature = "hotpath-callgrind"))]
type Icount<'a> = Option<&'a std::convert::Infallible>;

fn build_with(shared: &Shared, icount: Icount<'_>) -> Report {
    report(shared, icount, &shared.notes, true)
}

/// The report of a forked child (`HOTPATH_REPORT_FORKS=1`): everything the process
/// recorded, the parent's calls before the fork included; CPU time and threads are
/// not measured in a child (their samplers and monitor are the parent's).
pub(crate) fn build_child(shared: &Shared) -> Report {
    let notes = [
        shared.notes.clone(),
        vec![format!(
            "forked child (pid {}) of pid {}: includes what the parent recorded before the \
             fork; CPU time and threads are not measured in a forked child",
            std::process::id(),
            shared.pid
        )],
    ]
    .concat();
    report(shared, None, &notes, false)
}

/// The report of the session with `notes`; `meters`: whether the CPU meter and the
/// threads monitor are this process's (not in a forked child).
fn report(shared: &Shared, _icount: Icount<'_>, notes: &[String], meters: bool) -> Report {
    crate::builders::report(&crate::builders::Inputs {
        #[cfg(feature = "hotpath-callgrind")]
        icount: _icount,
        cfg: &shared.cfg,
        // The run ends now; taking the snapshot may wait for the tick calibration.
        elapsed_ns: shared.start.elapsed().as_nanos() as u64,
        overhead: &shared.overhead,
        notes,
        #[cfg(feature = "hotpath-cpu")]
        cpu: shared.cpu.as_ref().filter(|_| meters),
        threads: shared.threads.as_ref().filter(|_| meters),
        budget: shared.budget,
    })
}
