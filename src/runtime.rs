//! A profiling session: started by the guard, ends with the report.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::thread::JoinHandle;
use std::time::Instant;

use hotpath_core::state::Sampler;

use crate::config::{warn, Config};
use crate::overhead::Overhead;
use crate::report::{Report, Section};
use crate::shared::Shared;
use crate::Format;

static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The running session, for the process's exit and signal hooks (`crate::host`).
static LIVE: hotpath_core::fork::Mutex<Option<Weak<Shared>>> =
    hotpath_core::fork::Mutex::new(hotpath_core::fork::Rank::Session, None);

/// The running session, if there is one and no other thread is starting or ending it.
fn live() -> Option<Arc<Shared>> {
    let g = LIVE.try_lock()?;
    g.as_ref().and_then(Weak::upgrade)
}

/// The process is exiting (`atexit`, registered through `crate::host`): writes the
/// report of a session still running, in the process that started it, or in a forked
/// child that asked for its own.
fn at_exit() {
    if let Some(shared) = live() {
        if shared.pid == std::process::id() {
            emit(&shared);
        } else if shared.cfg.report_forks {
            emit_child(&shared);
        }
    }
}

/// SIGTERM or SIGINT arrived and the session handles it: writes the report (the caller
/// then ends the process with the signal).
fn at_signal(_sig: i32) {
    at_exit();
}

/// Set to stop the timeout thread early.
type StopFlag = Arc<(Mutex<bool>, Condvar)>;

/// The running session owned by a [`crate::HotpathGuard`].
#[derive(Debug)]
pub(crate) struct Session {
    shared: Arc<Shared>,
    timer: Option<(StopFlag, JoinHandle<()>)>,
    live: crate::live::Servers,
    signals: Option<crate::host::Signals>,
    budget: Option<crate::budget::Controller>,
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
        cfg.apply_file_tag();
        #[cfg(feature = "tracing")]
        crate::tracing::on::set_filter(cfg.tracing_filter.clone());
        crate::host::register_process_hooks(at_exit);
        hotpath_core::clock::init();
        let mut notes = Vec::new();
        let calls = cfg.rate(Sampler::Calls);
        if cfg.stacks && calls < 1.0 {
            notes.push(format!(
                "stacks need every call timed: time sampling rate {calls} ignored"
            ));
            // The functions' rate only: the locks keep theirs, also when it followed it.
            for kind in [Sampler::Mutexes, Sampler::RwLocks] {
                let rate = cfg.rate(kind);
                cfg.set_rate(kind, rate);
            }
            cfg.set_rate(Sampler::Calls, 1.0);
        }
        #[cfg(feature = "hotpath-callgrind")]
        if cfg.sections.contains(&Section::Icount) && crate::callgrind::detect() {
            notes.push(
                "under valgrind: nothing is timed (every time sampling rate is 0), so that \
                 instruction counts are the same in every run; times under valgrind would \
                 not be the program's"
                    .to_string(),
            );
            for kind in Sampler::ALL {
                cfg.set_rate(kind, 0.0);
            }
            // The threads monitor is a thread of the profiler's that registers call sites
            // and shards while the program's first calls do: which comes first changes
            // the work of a first call by a few instructions.
            if cfg.sections.contains(&Section::Threads) {
                cfg.sections.retain(|s| *s != Section::Threads);
                notes.push(
                    "under valgrind: the threads section is not sampled (its monitor \
                     thread would make first calls' instruction counts vary)"
                        .to_string(),
                );
            }
        }
        let budget = match cfg.overhead_budget {
            Some(b) if cfg.rates_set[Sampler::Calls as usize] => {
                notes.push(format!(
                    "overhead budget {b}% ignored: the time sampling rate ({}) is set",
                    cfg.rate(Sampler::Calls)
                ));
                None
            }
            Some(b) if cfg.stacks || cfg.trace_path.is_some() => {
                notes.push(format!(
                    "overhead budget {b}% ignored: the stacks and the trace need every call timed"
                ));
                None
            }
            b => b,
        };
        // Before the calibration, so that the cost per call it measures includes them.
        hotpath_core::stacks::configure(cfg.stacks, cfg.stacks_nodes);
        hotpath_core::trace::configure(cfg.trace_path.is_some(), cfg.trace_capacity);
        let overhead = Overhead::measure(budget.is_some());
        if let Some(seed) = cfg.sampling_seed {
            // Before the new epoch: every thread's generator starts from the seed at its
            // first event of the session, this one's at once.
            hotpath_core::set_sampling_seed(seed);
        }
        hotpath_core::begin_epoch();
        #[cfg(feature = "hotpath-alloc")]
        hotpath_alloc::begin_session();
        // Everything the session sets up from here (threads, buffers, the server) is the
        // profiler's: not counted as the program's allocations, whose baseline was just
        // taken. Profiler threads do the same for everything they allocate.
        hotpath_core::internal(move || {
            #[cfg(feature = "tokio")]
            crate::tokio_rt::reset();
            crate::service::begin_session();
            for kind in Sampler::ALL {
                kind.set_rate(cfg.rate(kind));
            }
            #[cfg(feature = "hotpath-cpu")]
            let cpu = crate::cpu::CpuRun::start(&cfg);
            let threads = if cfg.sections.contains(&Section::Threads) {
                crate::threads::start_monitor(cfg.threads_interval)
            } else {
                None
            };
            let costs = crate::budget::Costs {
                timed_ns: overhead.budget_timed_ns,
                untimed_ns: overhead.budget_untimed_ns,
                frameless_ns: overhead.budget_frameless_ns,
            };
            // CPU samples are charged to the innermost frame: with the sampler on, every
            // call keeps its frame.
            #[cfg(feature = "hotpath-cpu")]
            let frames = cpu
                .as_ref()
                .is_some_and(|c| c.mode != crate::CpuMode::Exact);
            #[cfg(not(feature = "hotpath-cpu"))]
            let frames = false;
            let floor = overhead.floor_ticks;
            let budget = budget.and_then(|percent| {
                crate::budget::Controller::start(percent, costs, frames, floor)
            });
            let shared = Arc::new(Shared {
                budget: budget.as_ref().map(crate::budget::Controller::run),
                threads,
                start: Instant::now(),
                origin: hotpath_core::clock::now(),
                overhead,
                pid: std::process::id(),
                reported: AtomicBool::new(false),
                notes,
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
            let live = crate::live::Servers::start(&shared);
            *LIVE.lock() = Some(Arc::downgrade(&shared));
            let signals = crate::host::Signals::install(at_signal);
            // Last: callgrind's counts start from zero where the program's code does.
            #[cfg(feature = "hotpath-callgrind")]
            if shared.cfg.sections.contains(&Section::Icount) {
                crate::callgrind::zero();
            }
            Some(Session {
                shared,
                timer,
                live,
                signals,
                budget,
            })
        })
    }
}

impl Session {
    /// Ends the session in a forked child: the parent's threads (server, timeout,
    /// monitor, signals) do not exist here, so nothing is joined or stopped; everything
    /// that refers to them is leaked. The report is written only when
    /// `HOTPATH_REPORT_FORKS=1` asks for one per process.
    fn end_in_fork_child(&mut self) {
        self.live.forget();
        if let Some(b) = self.budget.as_mut() {
            b.forget();
        }
        std::mem::forget(self.timer.take());
        std::mem::forget(self.signals.take());
        if self.shared.cfg.report_forks {
            emit_child(&self.shared);
        }
        *LIVE.lock() = None;
        // The monitor in `Shared` would join its thread when dropped.
        std::mem::forget(self.shared.clone());
        ACTIVE.store(false, Ordering::Release);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.shared.pid != std::process::id() {
            self.end_in_fork_child();
            return;
        }
        // Stopping the profiler's threads is the profiler's work: what it allocates is
        // not the program's (the report below is made after it).
        hotpath_core::internal(|| {
            *LIVE.lock() = None;
            if let Some(signals) = self.signals.take() {
                signals.uninstall();
            }
            // No request is answered from a session that is ending.
            self.live.stop();
            if let Some(b) = self.budget.as_mut() {
                b.stop();
            }
            if let Some((stop, handle)) = self.timer.take() {
                let (lock, cv) = &*stop;
                *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
                cv.notify_all();
                let _ = handle.join();
            }
        });
        emit(&self.shared);
        #[cfg(feature = "hotpath-cpu")]
        if let Some(cpu) = &self.shared.cpu {
            cpu.stop();
        }
        let cfg = &self.shared.cfg;
        hotpath_core::stacks::configure(false, cfg.stacks_nodes);
        hotpath_core::trace::configure(false, cfg.trace_capacity);
        if self.budget.take().is_some() {
            hotpath_core::state::set_budget(false);
        }
        ACTIVE.store(false, Ordering::Release);
    }
}

/// Writes a forked child's own report once: to `<output path>.<pid>`, or to stdout
/// through the file descriptor itself (the standard output's lock may have been held by
/// a thread of the parent when it forked).
fn emit_child(shared: &Shared) {
    if shared.reported.swap(true, Ordering::AcqRel) || shared.cfg.format == Format::None {
        return;
    }
    let Some(text) = render(&shared.cfg, &crate::shared::build_child(shared)) else {
        return;
    };
    if let Some(path) = &shared.cfg.output_path {
        let mut p = path.clone().into_os_string();
        p.push(format!(".{}", std::process::id()));
        if std::fs::write(&p, &text).is_ok() {
            return;
        }
    }
    crate::host::write_stdout(text.as_bytes());
}

/// The report as text in the configured format (`None` for `Format::None`).
fn render(cfg: &Config, report: &Report) -> Option<String> {
    Some(match cfg.format {
        Format::Table => crate::report::render_table_with(report, &cfg.limits()),
        Format::Json => report.to_json() + "\n",
        Format::JsonPretty => report.to_json_pretty() + "\n",
        Format::None => return None,
    })
}

/// Writes the report once per session (the timeout thread and the guard may both try).
fn emit(shared: &Shared) {
    if shared.reported.swap(true, Ordering::AcqRel) {
        return;
    }
    let cfg = &shared.cfg;
    let report = (cfg.format != Format::None || !cfg.exports.is_empty())
        .then(|| crate::shared::build_final(shared));
    // After the report: its ticks convert with the report's ratio.
    if let Some(path) = &cfg.trace_path {
        if let Err(e) = crate::export::write_trace(path, cfg.caller, shared.origin) {
            warn(&format!(
                "could not write the trace to {}: {e}",
                path.display()
            ));
        }
    }
    let Some(report) = report else {
        return;
    };
    crate::export::write_all(&cfg.exports, &report, cfg.export_timeout);
    if cfg.format == Format::None {
        return;
    }
    let Some(text) = render(cfg, &report) else {
        return;
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
