//! `tokio_runtime!`: a tokio runtime's workers, tasks, queue and busy time in the report
//! (section `tokio`), from tokio's stable `RuntimeMetrics`.
//!
//! Registering a runtime stores its handle and the workers' cumulative counters at that
//! moment. The gauges (alive tasks, global queue depth) are sampled on the threads
//! monitor's tick (no thread of its own) and once more at each report; the cumulative
//! counters (busy time, parks) are read at the report, as deltas since registration.
//! Nothing is paid per task or per poll. The metrics tokio offers only under
//! `--cfg tokio_unstable` (polls, steals, local queues, blocking threads) are reported as
//! `null`, with a note.

use hotpath_core::fork;
use std::time::{Duration, Instant};

use tokio::runtime::{Handle, RuntimeFlavor};

use crate::report::{TokioGauge, TokioRuntime, TokioWorker};

/// A gauge's samples so far.
#[derive(Clone, Copy, Debug, Default)]
struct Gauge {
    last: u64,
    max: u64,
    sum: u64,
    samples: u64,
}

impl Gauge {
    fn sample(&mut self, v: u64) {
        self.last = v;
        self.max = self.max.max(v);
        self.sum += v;
        self.samples += 1;
    }

    fn model(&self) -> TokioGauge {
        TokioGauge {
            last: self.last,
            max: self.max,
            mean: if self.samples == 0 {
                0.0
            } else {
                ((self.sum as f64 / self.samples as f64) * 100.0).round() / 100.0
            },
            samples: self.samples,
        }
    }
}

/// One registered runtime.
struct Registered {
    label: Option<String>,
    handle: Handle,
    since: Instant,
    busy0: Vec<Duration>,
    parks0: Vec<u64>,
    alive: Gauge,
    queue: Gauge,
}

impl Registered {
    fn sample(&mut self) {
        let m = self.handle.metrics();
        self.alive.sample(m.num_alive_tasks() as u64);
        self.queue.sample(m.global_queue_depth() as u64);
    }
}

struct State {
    runtimes: Vec<Registered>,
    notes: Vec<String>,
}

static STATE: fork::Mutex<State> = fork::Mutex::new(
    fork::Rank::TokioRuntimes,
    State {
        runtimes: Vec::new(),
        notes: Vec::new(),
    },
);

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock()
}

/// Most runtimes registered; later registrations are refused with a warning.
const MAX_RUNTIMES: usize = 16;

/// What `tokio_runtime!` calls: registers `handle`, or the runtime the calling thread
/// runs in; outside one it warns and notes it, and never panics. Registering the same
/// runtime again does nothing.
#[doc(hidden)]
pub fn register(handle: Option<&Handle>, label: Option<&str>) {
    hotpath_core::internal(|| {
        let handle = match handle {
            Some(h) => h.clone(),
            None => match Handle::try_current() {
                Ok(h) => h,
                Err(_) => {
                    let msg = "tokio_runtime!() was called outside a tokio runtime: no runtime \
                               measured (call it inside the runtime, or pass its handle)";
                    let mut s = state();
                    if !s.notes.iter().any(|n| n == msg) {
                        crate::config::warn(msg);
                        s.notes.push(msg.to_string());
                    }
                    return;
                }
            },
        };
        let mut s = state();
        let m = handle.metrics();
        let workers = m.num_workers();
        if s.runtimes.iter().any(|r| same_runtime(&r.handle, &handle)) {
            return;
        }
        if s.runtimes.len() >= MAX_RUNTIMES {
            crate::config::warn(&format!(
                "more than {MAX_RUNTIMES} tokio runtimes registered; later ones are not measured"
            ));
            return;
        }
        let mut r = Registered {
            label: label.map(str::to_string),
            since: Instant::now(),
            busy0: (0..workers)
                .map(|w| m.worker_total_busy_duration(w))
                .collect(),
            parks0: (0..workers).map(|w| m.worker_park_count(w)).collect(),
            alive: Gauge::default(),
            queue: Gauge::default(),
            handle,
        };
        r.sample();
        s.runtimes.push(r);
    })
}

/// Whether two handles drive one runtime.
fn same_runtime(a: &Handle, b: &Handle) -> bool {
    a.id() == b.id()
}

/// Samples every registered runtime's gauges: the threads monitor calls this on its tick.
pub(crate) fn tick() {
    hotpath_core::internal(|| {
        for r in &mut state().runtimes {
            r.sample();
        }
    })
}

/// Forgets every registered runtime and note: a new session starts.
pub(crate) fn reset() {
    let mut s = state();
    s.runtimes.clear();
    s.notes.clear();
}

/// The runtimes for the report (one more gauge sample each), and the notes.
pub(crate) fn report() -> (Vec<TokioRuntime>, Vec<String>) {
    let mut s = state();
    let mut out = Vec::new();
    for r in &mut s.runtimes {
        r.sample();
        let m = r.handle.metrics();
        let elapsed = r.since.elapsed().as_nanos() as u64;
        let workers = m.num_workers();
        let worker_stats = (0..workers)
            .map(|w| {
                let busy = m
                    .worker_total_busy_duration(w)
                    .saturating_sub(r.busy0.get(w).copied().unwrap_or_default())
                    .as_nanos() as u64;
                TokioWorker {
                    index: w as u64,
                    busy_ns: busy,
                    busy_share: if elapsed == 0 {
                        0.0
                    } else {
                        ((busy as f64 / elapsed as f64) * 1e4).round() / 1e4
                    },
                    parks: m
                        .worker_park_count(w)
                        .saturating_sub(r.parks0.get(w).copied().unwrap_or(0)),
                    polls: None,
                    steals: None,
                    mean_poll_ns: None,
                    local_queue_max: None,
                }
            })
            .collect();
        out.push(TokioRuntime {
            label: r.label.clone(),
            flavor: match r.handle.runtime_flavor() {
                RuntimeFlavor::CurrentThread => "current_thread",
                RuntimeFlavor::MultiThread => "multi_thread",
                _ => "other",
            }
            .to_string(),
            workers: workers as u64,
            elapsed_ns: elapsed,
            alive_tasks: r.alive.model(),
            global_queue_depth: r.queue.model(),
            worker_stats,
            blocking_threads: None,
            spawned_tasks: None,
            unstable: false,
        });
    }
    let mut notes = s.notes.clone();
    if !out.is_empty() {
        notes.push(
            "tokio: polls, steals, local queues, blocking threads and spawned tasks are null \
             (tokio offers them only under --cfg tokio_unstable)"
                .to_string(),
        );
    }
    (out, notes)
}
