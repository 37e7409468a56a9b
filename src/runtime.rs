//! A profiling session: started by the guard, ends with the report.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use hotpath_core::{CallSite, Scope, SiteKind};

use crate::config::{warn, Config};
use crate::report::{Report, Section, SCHEMA_VERSION};
use crate::Format;

static ACTIVE: AtomicBool = AtomicBool::new(false);

/// State shared with the timeout thread.
#[derive(Debug)]
struct Shared {
    cfg: Config,
    start: Instant,
    overhead: Overhead,
    reported: AtomicBool,
    notes: Vec<String>,
    #[cfg(feature = "hotpath-cpu")]
    cpu: Option<crate::cpu::CpuRun>,
    threads: Option<crate::threads::Monitor>,
}

/// Set to stop the timeout thread early.
type StopFlag = Arc<(Mutex<bool>, Condvar)>;

/// The running session owned by a [`crate::HotpathGuard`].
#[derive(Debug)]
pub(crate) struct Session {
    shared: Arc<Shared>,
    timer: Option<(StopFlag, JoinHandle<()>)>,
    server: Option<crate::live::MetricsServer>,
}

impl Session {
    pub(crate) fn start(mut cfg: Config) -> Option<Session> {
        if ACTIVE.swap(true, Ordering::AcqRel) {
            warn(&format!(
                "a profiling session is already running; the guard built for {} is inert and writes no report",
                cfg.caller
            ));
            return None;
        }
        cfg.apply_env();
        hotpath_core::clock::init();
        let overhead = Overhead::measure();
        hotpath_core::begin_epoch();
        #[cfg(feature = "hotpath-alloc")]
        hotpath_alloc::begin_session();
        for kind in hotpath_core::state::Sampler::ALL {
            kind.set_rate(cfg.rate(kind));
        }
        #[cfg(feature = "hotpath-cpu")]
        let cpu = crate::cpu::CpuRun::start(&cfg);
        let threads = if cfg.sections.contains(&Section::Threads) {
            crate::threads::start_monitor(cfg.threads_interval)
        } else {
            None
        };
        let shared = Arc::new(Shared {
            threads,
            start: Instant::now(),
            overhead,
            reported: AtomicBool::new(false),
            notes: Vec::new(),
            #[cfg(feature = "hotpath-cpu")]
            cpu,
            cfg,
        });
        // The threads started here, and the wait for the server's answer, allocate on
        // this thread: the profiler's allocations, not the program's (the wait's
        // allocations even depend on which thread gets there first).
        hotpath_core::internal(|| Session::start_threads(shared))
    }

    /// The timeout thread and the metrics server, when configured.
    fn start_threads(shared: Arc<Shared>) -> Option<Session> {
        let timer = shared.cfg.timeout.map(|after| {
            let stop: StopFlag = Arc::new((Mutex::new(false), Condvar::new()));
            let (s2, sh2) = (stop.clone(), shared.clone());
            let handle = std::thread::Builder::new()
                .name("hotpath-timeout".into())
                .spawn(move || {
                    crate::threads::register_profiler_thread();
                    let (lock, cv) = &*s2;
                    let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
                    let (stopped, _) = cv
                        .wait_timeout_while(guard, after, |stopped| !*stopped)
                        .unwrap_or_else(|e| e.into_inner());
                    if !*stopped {
                        emit(&sh2);
                        std::process::exit(0);
                    }
                })
                .expect("spawn the hotpath timeout thread");
            (stop, handle)
        });
        let server = shared.cfg.metrics_port.and_then(|port| {
            crate::live::MetricsServer::start(
                crate::live::Options {
                    host: shared.cfg.metrics_host.clone(),
                    port,
                    token: shared.cfg.metrics_token.clone(),
                },
                shared.clone(),
            )
        });
        Some(Session {
            shared,
            timer,
            server,
        })
    }
}

impl crate::live::Source for Shared {
    fn report(&self) -> Report {
        build(self)
    }

    fn metrics_limit(&self) -> usize {
        self.cfg.metrics_limit
    }

    fn status(&self) -> crate::report::ProfilerStatus {
        let mut features = vec!["hotpath".to_string()];
        for (on, name) in [
            (cfg!(feature = "hotpath-alloc"), "hotpath-alloc"),
            (cfg!(feature = "hotpath-cpu"), "hotpath-cpu"),
            (cfg!(feature = "hotpath-prometheus"), "hotpath-prometheus"),
            (cfg!(feature = "tokio"), "tokio"),
            (cfg!(feature = "futures-io"), "futures-io"),
            (cfg!(feature = "parking_lot"), "parking_lot"),
            (cfg!(feature = "async-lock"), "async-lock"),
        ] {
            if on {
                features.push(name.to_string());
            }
        }
        #[cfg(feature = "hotpath-cpu")]
        let cpu = self.cpu.as_ref().map(|c| c.mode_and_source());
        #[cfg(not(feature = "hotpath-cpu"))]
        let cpu: Option<(&str, &str)> = None;
        crate::report::ProfilerStatus {
            schema_version: SCHEMA_VERSION,
            version: env!("CARGO_PKG_VERSION").to_string(),
            pid: std::process::id(),
            caller: self.cfg.caller.to_string(),
            uptime_ns: self.start.elapsed().as_nanos() as u64,
            sections: self.sections(),
            features,
            cpu_mode: cpu.map(|(m, _)| m.to_string()),
            cpu_source: cpu.map(|(_, s)| s.to_string()),
            clock: hotpath_core::clock::source().name().to_string(),
            time_sampling_rate: hotpath_core::sampling_rate(),
        }
    }

    fn sections(&self) -> Vec<Section> {
        self.cfg
            .sections
            .iter()
            .copied()
            .filter(|s| match s {
                Section::Cpu => {
                    #[cfg(feature = "hotpath-cpu")]
                    let on = self.cpu.is_some();
                    #[cfg(not(feature = "hotpath-cpu"))]
                    let on = false;
                    on
                }
                Section::Threads => self.threads.is_some(),
                _ => true,
            })
            .collect()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // No request is answered from a session that is ending.
        if let Some(mut server) = self.server.take() {
            server.stop();
        }
        if let Some((stop, handle)) = self.timer.take() {
            let (lock, cv) = &*stop;
            *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
            cv.notify_all();
            let _ = handle.join();
        }
        emit(&self.shared);
        #[cfg(feature = "hotpath-cpu")]
        if let Some(cpu) = &self.shared.cpu {
            cpu.stop();
        }
        ACTIVE.store(false, Ordering::Release);
    }
}

/// What one measured call costs, measured on this machine at start-up.
#[derive(Clone, Copy, Debug)]
struct Overhead {
    /// A timed call, ns.
    timed_ns: f64,
    /// A counted-only call (sampling), ns.
    counted_ns: f64,
    /// Two back-to-back clock reads, ticks (median): the shortest span a measured call
    /// can show.
    floor_ticks: u64,
}

static CALIBRATION: CallSite = CallSite::new(
    || "hotpath::calibration",
    None,
    file!(),
    line!(),
    SiteKind::Internal,
);

impl Overhead {
    /// Median of 9 batches of 1,000 empty scopes, for each mode: about 0.3 ms.
    fn measure() -> Overhead {
        let per_call = |rate: f64| {
            hotpath_core::set_sampling_rate(rate);
            let mut batches: Vec<f64> = (0..9)
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..1000 {
                        let s = Scope::enter(&CALIBRATION);
                        std::hint::black_box(&s);
                        drop(s);
                    }
                    t.elapsed().as_nanos() as f64 / 1000.0
                })
                .collect();
            batches.sort_by(f64::total_cmp);
            batches[batches.len() / 2]
        };
        let counted_ns = per_call(0.0);
        let timed_ns = per_call(1.0);
        let mut pairs: Vec<u64> = (0..1001)
            .map(|_| {
                let a = hotpath_core::clock::now();
                let b = hotpath_core::clock::now();
                b.saturating_sub(a)
            })
            .collect();
        pairs.sort_unstable();
        Overhead {
            timed_ns,
            counted_ns,
            floor_ticks: pairs[pairs.len() / 2],
        }
    }
}

/// The report of the session so far.
fn build(shared: &Shared) -> Report {
    crate::report::build::report(&crate::report::build::Inputs {
        cfg: &shared.cfg,
        // The run ends now; taking the snapshot may wait for the tick calibration.
        elapsed_ns: shared.start.elapsed().as_nanos() as u64,
        overhead: (shared.overhead.timed_ns, shared.overhead.counted_ns),
        floor_ticks: shared.overhead.floor_ticks,
        notes: &shared.notes,
        #[cfg(feature = "hotpath-cpu")]
        cpu: shared.cpu.as_ref(),
        threads: shared.threads.as_ref(),
    })
}

/// Writes the report once per session (the timeout thread and the guard may both try).
fn emit(shared: &Shared) {
    if shared.reported.swap(true, Ordering::AcqRel) {
        return;
    }
    let cfg = &shared.cfg;
    if cfg.format == Format::None {
        return;
    }
    let report = build(shared);
    let text = match cfg.format {
        Format::Table => crate::report::render_table_with(&report, &cfg.limits()),
        Format::Json => report.to_json() + "\n",
        Format::JsonPretty => report.to_json_pretty() + "\n",
        Format::None => return,
    };
    if let Some(path) = &cfg.output_path {
        match std::fs::write(path, &text) {
            Ok(()) => return,
            Err(e) => warn(&format!(
                "could not write the report to {}: {e}; printing it to stdout instead",
                path.display()
            )),
        }
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
