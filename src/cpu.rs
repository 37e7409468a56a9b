//! CPU measurement of a session (feature `hotpath-cpu`): starts the sampler or exact
//! mode, and turns the numbers into the report's `cpu` section.

use hotpath_core::{SiteStats, Snapshot};
use hotpath_cpu::{ClockSource, SamplerConfig, SamplerSource};

use crate::config::{warn, Config};
use crate::report::{CpuInfo, FunctionCpu, Percentiles};
use crate::CpuMode;

/// CPU measurement running for a session.
#[derive(Debug)]
pub(crate) struct CpuRun {
    mode: CpuMode,
    source: &'static str,
    hz: Option<u32>,
    period_ns: u64,
    fallback_reason: Option<String>,
    hw_unavailable: Option<String>,
    process0: u64,
}

fn process_cpu() -> u64 {
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
                let (force, why) = match std::env::var("HOTPATH_CPU_SAMPLER").as_deref() {
                    Ok("timer") => (Some(SamplerSource::CpuTimeTimer), None),
                    Ok("perf") => (None, None),
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
                    simulate_perf_denied: false,
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
                    }),
                    Err(e) => {
                        warn(&format!(
                            "CPU sampling is not available ({e}); measuring CPU exactly instead"
                        ));
                        Self::exact(process0, Some(format!("sampling unavailable: {e}")))
                    }
                }
            }
            CpuMode::Exact => Self::exact(process0, None),
        }
    }

    fn exact(process0: u64, why: Option<String>) -> Option<CpuRun> {
        let force = match std::env::var("HOTPATH_CPU_CLOCK").as_deref() {
            Ok("thread") => Some(ClockSource::ThreadCputime),
            Ok("perf") => Some(ClockSource::PerfTaskClock),
            _ => None,
        };
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

    /// One function's CPU numbers. `wall` is its total wall time, `scale` the factor from
    /// timed to all calls.
    pub(crate) fn function(
        &self,
        s: &SiteStats,
        wall: u64,
        percentiles: &[f64],
        scale: impl Fn(u64) -> u64,
    ) -> FunctionCpu {
        let c = &s.cpu;
        let exact = self.mode == CpuMode::Exact;
        let (cpu_ns, self_cpu_ns) = if exact {
            (scale(c.ns), scale(c.self_ns))
        } else {
            (c.samples * self.period_ns, c.self_samples * self.period_ns)
        };
        let hw = exact && self.hw_unavailable.is_none();
        FunctionCpu {
            cpu_ns,
            self_cpu_ns,
            wait_ns: wall.saturating_sub(cpu_ns),
            cpu_share: if wall == 0 {
                0.0
            } else {
                (cpu_ns as f64 / wall as f64).min(1.0)
            },
            samples: (!exact).then_some(c.samples),
            voluntary_switches: exact.then(|| scale(c.voluntary)),
            involuntary_switches: exact.then(|| scale(c.involuntary)),
            instructions: hw.then(|| scale(c.instructions)),
            cycles: hw.then(|| scale(c.cycles)),
            percentiles: if exact {
                Percentiles(
                    percentiles
                        .iter()
                        .filter_map(|p| Some((*p, c.percentile_ns(*p)?)))
                        .collect(),
                )
            } else {
                Percentiles::default()
            },
        }
    }

    /// `sampled` or `exact`, and what measures it.
    pub(crate) fn mode_and_source(&self) -> (&'static str, &'static str) {
        (self.mode.as_str(), self.source)
    }

    /// The section's header: how CPU was measured and the process's CPU time.
    pub(crate) fn info(&self, snap: &Snapshot) -> CpuInfo {
        let process_cpu_ns = process_cpu().saturating_sub(self.process0);
        let (sampled_cpu_ns, attributed) = match self.mode {
            CpuMode::Exact => (None, snap.cpu.attributed_ns),
            _ => {
                let sampled = snap.cpu.samples * self.period_ns;
                let inside = (snap.cpu.samples - snap.cpu.samples_outside) * self.period_ns;
                (Some(sampled), inside)
            }
        };
        CpuInfo {
            mode: self.mode.as_str().into(),
            source: self.source.into(),
            hz: self.hz,
            fallback_reason: self.fallback_reason.clone(),
            hw_counters_unavailable: match self.mode {
                CpuMode::Exact => self.hw_unavailable.clone(),
                _ => Some("counted in exact mode only".into()),
            },
            process_cpu_ns,
            sampled_cpu_ns,
            unattributed_cpu_ns: process_cpu_ns.saturating_sub(attributed),
        }
    }
}
