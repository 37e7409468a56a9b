//! CPU measurement of a session (feature `hotpath-cpu`): starts and stops the sampler
//! or exact mode. The report's `cpu` section is built in `report::build::cpu`.

use hotpath_cpu::{ClockSource, SamplerConfig, SamplerSource};

use crate::config::{warn, Config, CpuClock, CpuSampler};
use crate::CpuMode;

/// CPU measurement running for a session.
#[derive(Debug)]
pub(crate) struct CpuRun {
    /// Sampled or exact.
    pub(crate) mode: CpuMode,
    /// What measures it.
    pub(crate) source: &'static str,
    /// Sampled mode: samples per second of CPU time.
    pub(crate) hz: Option<u32>,
    /// Sampled mode: CPU time one sample stands for, ns.
    pub(crate) period_ns: u64,
    /// Why the preferred source was not used.
    pub(crate) fallback_reason: Option<String>,
    /// Why instructions and cycles are not counted.
    pub(crate) hw_unavailable: Option<String>,
    /// The process's CPU time when the session started, ns.
    pub(crate) process0: u64,
    /// `CLOCK_MONOTONIC` when the session started, ns (sampled mode).
    pub(crate) started_mono_ns: u64,
}

/// CPU time of the whole process so far (user + system), ns.
pub(crate) fn process_cpu() -> u64 {
    hotpath_cpu::process_cpu_ns().map_or(0, |(u, s)| u + s)
}

/// `HOTPATH_CPU_SIMULATE=perf-denied,no-pmu`: take the fallbacks on a machine that would
/// not need them (tests).
fn simulate() {
    let spec = std::env::var("HOTPATH_CPU_SIMULATE").unwrap_or_default();
    let parts: Vec<&str> = spec.split(',').map(str::trim).collect();
    hotpath_cpu::simulate_failures(parts.contains(&"perf-denied"), parts.contains(&"no-pmu"));
}

impl CpuRun {
    /// Starts the configured mode on the calling thread (other threads follow from their
    /// first measured call). `None` when the mode is off or nothing could be started,
    /// with a warning saying why.
    pub(crate) fn start(cfg: &Config) -> Option<CpuRun> {
        simulate();
        let process0 = process_cpu();
        match cfg.cpu_mode {
            CpuMode::Off => None,
            CpuMode::Sampled => {
                let (force, why) = match cfg.cpu_sampler {
                    Some(CpuSampler::Timer) => (Some(SamplerSource::CpuTimeTimer), None),
                    Some(CpuSampler::Perf) => (None, None),
                    _ if hotpath_cpu::virtualized() => (
                        Some(SamplerSource::CpuTimeTimer),
                        Some(
                            "virtual CPU: a perf_event sample costs VM exits (~45 µs, 4-6 % of a core at 1 kHz); \
                             HOTPATH_CPU_SAMPLER=perf uses it anyway"
                                .to_string(),
                        ),
                    ),
                    _ => (None, None),
                };
                let sc = SamplerConfig {
                    hz: cfg.cpu_hz,
                    force,
                };
                match hotpath_cpu::start_sampling(&sc) {
                    Ok(info) => Some(CpuRun {
                        mode: CpuMode::Sampled,
                        source: info.source.name(),
                        hz: Some(info.hz),
                        period_ns: info.period.as_nanos() as u64,
                        fallback_reason: info.fallback_reason.or(why),
                        hw_unavailable: None,
                        process0,
                        started_mono_ns: hotpath_cpu::monotonic_ns(),
                    }),
                    Err(e) => {
                        warn(&format!(
                            "CPU sampling is not available ({e}); measuring CPU exactly instead"
                        ));
                        Self::exact(
                            cfg.cpu_clock,
                            process0,
                            Some(format!("sampling unavailable: {e}")),
                        )
                    }
                }
            }
            CpuMode::Exact => Self::exact(cfg.cpu_clock, process0, None),
        }
    }

    fn exact(clock: Option<CpuClock>, process0: u64, why: Option<String>) -> Option<CpuRun> {
        let force = clock.map(|c| match c {
            CpuClock::Thread => ClockSource::ThreadCputime,
            CpuClock::Perf => ClockSource::PerfTaskClock,
        });
        match hotpath_cpu::start_exact(force) {
            Ok(info) => Some(CpuRun {
                mode: CpuMode::Exact,
                source: info.source.name(),
                hz: None,
                period_ns: 0,
                fallback_reason: match (why, info.fallback_reason) {
                    (Some(a), Some(b)) => Some(format!("{a}; {b}")),
                    (a, b) => a.or(b),
                },
                hw_unavailable: info.hw_unavailable,
                process0,
                started_mono_ns: 0,
            }),
            Err(e) => {
                warn(&format!(
                    "no CPU clock is available ({e}); the report has no cpu section"
                ));
                None
            }
        }
    }

    /// Stops measuring on every thread.
    pub(crate) fn stop(&self) {
        match self.mode {
            CpuMode::Sampled => hotpath_cpu::stop_sampling(),
            _ => hotpath_cpu::stop_exact(),
        }
    }

    /// What the reader must know about sampling: that it stopped (the program took its
    /// signal over) and when, or that threads blocked its signal.
    pub(crate) fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.mode != CpuMode::Sampled {
            return notes;
        }
        let signal = hotpath_cpu::signal_name();
        if let Some(at) = hotpath_cpu::check_sampling() {
            let after = at.saturating_sub(self.started_mono_ns);
            notes.push(format!(
                "CPU sampling stopped {} into the run: the program installed its own handler \
                 of the sampling signal ({signal}); CPU figures cover the run until then",
                crate::report::format::duration(after)
            ));
        }
        let clocked = hotpath_cpu::clocked_threads();
        if clocked > 0 {
            notes.push(format!(
                "{clocked} thread{} block{} the sampling signal ({signal}): {} measured calls \
                 read {} CPU clock instead (exact CPU time, about 0.5 µs more per call)",
                if clocked == 1 { "" } else { "s" },
                if clocked == 1 { "s" } else { "" },
                if clocked == 1 { "its" } else { "their" },
                if clocked == 1 { "its" } else { "their" },
            ));
        }
        let blocked = hotpath_cpu::blocked_threads();
        if blocked > 0 {
            notes.push(format!(
                "{blocked} thread{} that ran measured code block{} the sampling signal \
                 ({signal}) since {} first measured call: {} CPU time since then is not \
                 sampled, so it counts as waiting",
                if blocked == 1 { "" } else { "s" },
                if blocked == 1 { "s" } else { "" },
                if blocked == 1 { "its" } else { "their" },
                if blocked == 1 { "its" } else { "their" },
            ));
        }
        notes
    }

    /// `sampled` or `exact`, and what measures it (the live servers' status).
    #[cfg(feature = "hotpath-live")]
    pub(crate) fn mode_and_source(&self) -> (&'static str, &'static str) {
        (self.mode.as_str(), self.source)
    }
}
