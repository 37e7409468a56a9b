//! `cpu`: CPU time and waiting per function, and how CPU time was measured (feature
//! `hotpath-cpu`; without it the section is never present).

use hotpath_core::SiteStats;

use super::ctx::Ctx;
use crate::report::{FunctionCpu, Report};

/// One function's CPU numbers, when CPU time is measured and a call was timed. `wall`
/// is its total wall time.
#[cfg(feature = "hotpath-cpu")]
pub(super) fn function(ctx: &Ctx<'_>, s: &SiteStats, wall: u64) -> Option<FunctionCpu> {
    let run = ctx.inputs.cpu?;
    if s.timed == 0 {
        return None;
    }
    let c = &s.cpu;
    let exact = run.mode == crate::CpuMode::Exact;
    // What the CPU clock read. It and the wall clock are different kernel clocks whose
    // rates can differ by ~100 ppm (CI saw a call spinning on its CPU clock read
    // 150.019 ms of CPU in 150.004 ms of wall time), and a call's CPU readings sit just
    // outside its wall readings: a function cannot compute longer than it ran, so what
    // the CPU clock measured is at most the wall time. (Sampled CPU is an estimate and
    // stays as counted.)
    let clocked = Ctx::scaled(s, c.ns).min(wall);
    let clocked_self = Ctx::scaled(s, c.self_ns).min(clocked);
    let (cpu_ns, self_cpu_ns) = if exact {
        (clocked, clocked_self)
    } else {
        // Samples, and the CPU clock of the threads that block the sampling signal
        // (they read it instead: `hotpath_cpu::clocked_threads`).
        (
            c.samples * run.period_ns + clocked,
            c.self_samples * run.period_ns + clocked_self,
        )
    };
    let hw = exact && run.hw_unavailable.is_none();
    Some(FunctionCpu {
        cpu_ns,
        self_cpu_ns,
        wait_ns: wall.saturating_sub(cpu_ns),
        cpu_share: if wall == 0 {
            0.0
        } else {
            (cpu_ns as f64 / wall as f64).min(1.0)
        },
        samples: (!exact).then_some(c.samples),
        voluntary_switches: exact.then(|| Ctx::scaled(s, c.voluntary)),
        involuntary_switches: exact.then(|| Ctx::scaled(s, c.involuntary)),
        instructions: hw.then(|| Ctx::scaled(s, c.instructions)),
        cycles: hw.then(|| Ctx::scaled(s, c.cycles)),
        percentiles: if exact {
            ctx.percentiles(|p| c.percentile_ns(p))
        } else {
            crate::report::Percentiles::default()
        },
        hist: exact.then(|| crate::report::Histogram {
            sum: c.sum_ns,
            buckets: c.dist.buckets(),
        }),
    })
}

#[cfg(not(feature = "hotpath-cpu"))]
pub(super) fn function(_: &Ctx<'_>, _: &SiteStats, _: u64) -> Option<FunctionCpu> {
    None
}

/// Exact mode: CPU time of the timed calls, unscaled.
#[cfg(feature = "hotpath-cpu")]
pub(super) fn timed_cpu_ns(ctx: &Ctx<'_>, s: &SiteStats) -> Option<u64> {
    ctx.inputs
        .cpu
        .filter(|run| run.mode == crate::CpuMode::Exact)
        .map(|_| s.cpu.ns)
}

#[cfg(not(feature = "hotpath-cpu"))]
pub(super) fn timed_cpu_ns(_: &Ctx<'_>, _: &SiteStats) -> Option<u64> {
    None
}

/// The section's header: how CPU was measured and the process's CPU time; absent when
/// CPU time is not measured.
#[cfg(feature = "hotpath-cpu")]
pub(super) fn build(ctx: &Ctx<'_>, r: &mut Report, notes: &mut Vec<String>) -> bool {
    let Some(run) = ctx.inputs.cpu else {
        return false;
    };
    notes.extend(run.notes());
    let snap = ctx.snap;
    let process_cpu_ns = crate::cpu::process_cpu().saturating_sub(run.process0);
    let (sampled_cpu_ns, attributed) = match run.mode {
        crate::CpuMode::Exact => (None, snap.cpu.attributed_ns),
        _ => {
            let sampled = snap.cpu.samples * run.period_ns;
            // With what the threads that block the sampling signal read on their CPU
            // clock inside measured scopes.
            let inside = (snap.cpu.samples - snap.cpu.samples_outside) * run.period_ns
                + snap.cpu.attributed_ns;
            (Some(sampled), inside)
        }
    };
    r.cpu = Some(crate::report::CpuInfo {
        mode: run.mode.as_str().into(),
        source: run.source.into(),
        hz: run.hz,
        fallback_reason: run.fallback_reason.clone(),
        hw_counters_unavailable: match run.mode {
            crate::CpuMode::Exact => run.hw_unavailable.clone(),
            _ => Some("counted in exact mode only".into()),
        },
        process_cpu_ns,
        sampled_cpu_ns,
        unattributed_cpu_ns: process_cpu_ns.saturating_sub(attributed),
    });
    true
}

#[cfg(not(feature = "hotpath-cpu"))]
pub(super) fn build(_: &Ctx<'_>, _: &mut Report, _: &mut Vec<String>) -> bool {
    false
}
