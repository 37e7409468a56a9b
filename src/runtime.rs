//! A profiling session: started by the guard, ends with the report.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use hotpath_core::{CallSite, Scope, SiteKind};

use crate::config::{warn, Config};
use crate::report::{
    Function, FunctionIo, IoDirection, IoEntry, Percentiles, Report, WallNs, SCHEMA_VERSION,
};
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
        hotpath_core::set_sampling_rate(cfg.time_sampling_rate);
        hotpath_io::set_sampling_rate(cfg.io_time_sampling_rate);
        #[cfg(feature = "hotpath-cpu")]
        let cpu = crate::cpu::CpuRun::start(&cfg);
        let threads = if cfg.sections.contains(&"threads") {
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

    fn status(&self) -> crate::report::ProfilerStatus {
        let mut features = vec!["hotpath".to_string()];
        for (on, name) in [
            (cfg!(feature = "hotpath-alloc"), "hotpath-alloc"),
            (cfg!(feature = "hotpath-cpu"), "hotpath-cpu"),
            (cfg!(feature = "hotpath-prometheus"), "hotpath-prometheus"),
            (cfg!(feature = "tokio"), "tokio"),
            (cfg!(feature = "futures-io"), "futures-io"),
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
            sections: self.sections().iter().map(|s| s.to_string()).collect(),
            features,
            cpu_mode: cpu.map(|(m, _)| m.to_string()),
            cpu_source: cpu.map(|(_, s)| s.to_string()),
            clock: hotpath_core::clock::source().name().to_string(),
            time_sampling_rate: hotpath_core::sampling_rate(),
        }
    }

    fn sections(&self) -> Vec<&'static str> {
        self.cfg
            .sections
            .iter()
            .copied()
            .filter(|s| match *s {
                "cpu" => {
                    #[cfg(feature = "hotpath-cpu")]
                    let on = self.cpu.is_some();
                    #[cfg(not(feature = "hotpath-cpu"))]
                    let on = false;
                    on
                }
                "threads" => self.threads.is_some(),
                _ => true,
            })
            .collect()
    }

    #[cfg(feature = "hotpath-prometheus")]
    fn prometheus(&self) -> String {
        let (report, snap) = build_with_snapshot(self);
        crate::live::prometheus::encode(&report, &snap, self.cfg.metrics_limit)
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
        Overhead {
            timed_ns,
            counted_ns,
        }
    }
}

/// Builds the report of the session so far.
fn build(shared: &Shared) -> Report {
    build_with_snapshot(shared).0
}

/// The report of the session so far, and the snapshot it was made from.
fn build_with_snapshot(shared: &Shared) -> (Report, hotpath_core::Snapshot) {
    // The run ends now; taking the snapshot may wait for the tick calibration.
    let elapsed_ns = shared.start.elapsed().as_nanos() as u64;
    let snap = hotpath_core::snapshot();
    let cfg = &shared.cfg;
    let mut notes = shared.notes.clone();
    if snap.sites_overflowed {
        notes.push(format!(
            "more than {} call sites were used; later ones are not measured",
            hotpath_core::MAX_SITES
        ));
    }
    if snap.depth_overflowed {
        notes.push(format!(
            "measured scopes nested deeper than {}; below that depth self time includes children",
            hotpath_core::MAX_DEPTH
        ));
    }
    if snap.lost_calls > 0 {
        notes.push(format!(
            "{} calls ran while their thread was exiting and were not recorded",
            snap.lost_calls
        ));
    }
    let mut timed_calls = 0u64;
    let mut counted_calls = 0u64;
    let mut functions: Vec<Function> = snap
        .sites
        .iter()
        .filter(|s| s.site.kind() != SiteKind::Io)
        .map(|s| {
            timed_calls += s.timed;
            counted_calls += s.calls.saturating_sub(s.timed);
            let is_async = s.site.kind() == SiteKind::AsyncFunction;
            let sampled = s.timed < s.calls;
            let scale = |v: u64| scaled(s, v);
            let wall_ns = (s.timed > 0).then(|| {
                let total = scale(s.total_ns);
                WallNs {
                    total,
                    self_: scale(s.self_ns),
                    mean: s.sum_ns / s.timed,
                    min: s.min_ns,
                    max: s.max_ns,
                    percentiles: Percentiles(
                        cfg.percentiles
                            .iter()
                            .filter_map(|p| Some((*p, s.percentile_ns(*p)?)))
                            .collect(),
                    ),
                }
            });
            #[cfg(feature = "hotpath-cpu")]
            let cpu = shared.cpu.as_ref().filter(|_| s.timed > 0).map(|run| {
                let wall = wall_ns.as_ref().map_or(0, |w| w.total);
                run.function(s, wall, &cfg.percentiles, |v| scaled(s, v))
            });
            #[cfg(not(feature = "hotpath-cpu"))]
            let cpu = None;
            Function {
                #[cfg(feature = "hotpath-alloc")]
                alloc: function_alloc(s, &cfg.percentiles),
                #[cfg(not(feature = "hotpath-alloc"))]
                alloc: None,
                cpu,
                io: (s.fn_io_read + s.fn_io_write + s.fn_io_ns > 0).then_some(FunctionIo {
                    read_bytes: s.fn_io_read,
                    write_bytes: s.fn_io_write,
                    io_ns: s.fn_io_ns,
                }),
                name: s.site.name().to_string(),
                label: s.site.label().map(str::to_string),
                file: s.site.file().to_string(),
                line: s.site.line(),
                calls: s.calls,
                timed_calls: s.timed,
                is_async,
                sampled,
                wall_ns,
                polls: is_async.then_some(s.polls),
                busy_ns: is_async.then_some(s.busy_ns),
                cancelled: is_async.then_some(s.cancelled),
            }
        })
        .collect();
    functions.sort_by(|a, b| {
        let t = |f: &Function| f.wall_ns.as_ref().map_or(0, |w| w.total);
        t(b).cmp(&t(a))
            .then(b.calls.cmp(&a.calls))
            .then(a.name.cmp(&b.name))
    });
    let mut sections: Vec<String> = cfg.sections.iter().map(|s| s.to_string()).collect();
    #[cfg(feature = "hotpath-alloc")]
    let alloc_total = alloc_total(&snap, &mut sections, &mut notes);
    #[cfg(not(feature = "hotpath-alloc"))]
    let alloc_total = None;
    #[cfg(feature = "hotpath-cpu")]
    let cpu = shared.cpu.as_ref().map(|run| run.info(&snap));
    #[cfg(not(feature = "hotpath-cpu"))]
    let cpu = None;
    if cpu.is_none() {
        sections.retain(|s| s != "cpu");
    }
    let (threads, process_memory) = match &shared.threads {
        Some(monitor) => {
            let t = monitor.snapshot();
            notes.extend(t.note);
            (Some(t.rows), t.memory)
        }
        None => {
            sections.retain(|s| s != "threads");
            (None, None)
        }
    };
    let io = io_entries(&snap, &cfg.percentiles);
    if io.is_empty() {
        sections.retain(|s| s != "io");
    }
    let overhead_ns = (timed_calls as f64 * shared.overhead.timed_ns
        + counted_calls as f64 * shared.overhead.counted_ns) as u64;
    let report = Report {
        schema_version: SCHEMA_VERSION,
        caller: cfg.caller.to_string(),
        elapsed_ns,
        sections,
        percentiles: cfg.percentiles.clone(),
        overhead_per_call_ns: (shared.overhead.timed_ns * 10.0).round() / 10.0,
        overhead_ns,
        clock: hotpath_core::clock::source().name().to_string(),
        time_sampling_rate: hotpath_core::sampling_rate(),
        io_time_sampling_rate: (!io.is_empty()).then(hotpath_io::sampling_rate),
        notes,
        alloc_total,
        cpu,
        functions,
        io: (!io.is_empty()).then_some(io),
        threads,
        process_memory,
    };
    (report, snap)
}

/// Scales a value measured on the timed calls to all calls.
fn scaled(s: &hotpath_core::SiteStats, v: u64) -> u64 {
    if s.timed > 0 && s.timed < s.calls {
        (v as f64 * s.calls as f64 / s.timed as f64).round() as u64
    } else {
        v
    }
}

#[cfg(feature = "hotpath-alloc")]
fn function_alloc(
    s: &hotpath_core::SiteStats,
    percentiles: &[f64],
) -> Option<crate::report::FunctionAlloc> {
    if s.timed == 0 {
        return None;
    }
    let a = &s.alloc;
    let bytes = scaled(s, a.bytes);
    let freed = scaled(s, a.freed);
    Some(crate::report::FunctionAlloc {
        count: scaled(s, a.allocs),
        bytes,
        self_count: scaled(s, a.self_allocs),
        self_bytes: scaled(s, a.self_bytes),
        freed_bytes: freed,
        retained_bytes: bytes as i64 - freed as i64,
        per_call_count: (a.allocs_sum as f64 / s.timed as f64 * 100.0).round() / 100.0,
        per_call_bytes: a.bytes_sum / s.timed,
        percentiles: Percentiles(
            percentiles
                .iter()
                .filter_map(|p| Some((*p, a.bytes_percentile(*p)?)))
                .collect(),
        ),
    })
}

/// The process totals and the part outside measured functions; with a warning instead
/// of a section of zeros when the tracking allocator is not installed.
#[cfg(feature = "hotpath-alloc")]
fn alloc_total(
    snap: &hotpath_core::Snapshot,
    sections: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Option<crate::report::AllocTotal> {
    if !sections.iter().any(|s| s == "alloc") {
        return None;
    }
    if !hotpath_alloc::installed() {
        sections.retain(|s| s != "alloc");
        notes.push(
            "hotpath-alloc is on but no allocation was counted: install the tracking allocator \
             (#[hotpath::main] does unless `allocator = none`; or declare \
             `#[global_allocator] static A: hotpath::alloc::Tracking = ...`)"
                .into(),
        );
        return None;
    }
    let p = hotpath_alloc::session_totals();
    let a = snap.attributed.alloc;
    Some(crate::report::AllocTotal {
        count: p.allocs,
        bytes: p.bytes,
        freed_bytes: p.freed,
        unattributed_count: p.allocs.saturating_sub(a.allocs),
        unattributed_bytes: p.bytes.saturating_sub(a.bytes),
        unattributed_freed_bytes: p.freed.saturating_sub(a.freed),
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
        Format::Table => report.to_table(cfg.functions_limit()),
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

/// The I/O section: every `io!` entry with at least one operation or error, by bytes.
fn io_entries(snap: &hotpath_core::Snapshot, percentiles: &[f64]) -> Vec<IoEntry> {
    let by_site: std::collections::HashMap<
        *const hotpath_core::CallSite,
        &hotpath_core::SiteStats,
    > = snap
        .sites
        .iter()
        .filter(|s| s.site.kind() == SiteKind::Io)
        .map(|s| (s.site as *const _, s))
        .collect();
    let direction = |site: &'static hotpath_core::CallSite| -> IoDirection {
        let Some(s) = by_site.get(&(site as *const _)) else {
            return IoDirection::default();
        };
        let timed = s.timed > 0;
        IoDirection {
            ops: s.calls,
            bytes: s.io_bytes,
            errors: s.io_errors,
            timed_ops: s.timed,
            total_ns: s.total_ns,
            mean_ns: timed.then(|| s.sum_ns / s.timed),
            rate_bytes_per_sec: (timed && s.total_ns > 0)
                .then(|| s.io_timed_bytes as f64 * 1e9 / s.total_ns as f64),
            percentiles: Percentiles(
                percentiles
                    .iter()
                    .filter_map(|p| Some((*p, s.percentile_ns(*p)?)))
                    .collect(),
            ),
        }
    };
    let mut out: Vec<IoEntry> = hotpath_io::entries()
        .into_iter()
        .map(|e| IoEntry {
            name: e.name.to_string(),
            file: e.file.to_string(),
            line: e.line,
            type_name: e.type_name.to_string(),
            instances: e.instances.load(Ordering::Relaxed),
            read: direction(e.read),
            write: direction(e.write),
            flush: direction(e.flush),
            shutdown: direction(e.shutdown),
            seek: direction(e.seek),
        })
        .filter(|e| e.directions().iter().any(|(_, d)| d.ops + d.errors > 0))
        .collect();
    out.sort_by_key(|e| std::cmp::Reverse(e.read.bytes + e.write.bytes));
    out
}
