//! The monitor on Linux: reads `/proc/self/task/*/stat` on a thread of its own.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::io::Read as _;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use hotpath_core::fork;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{parse_memory, parse_stat, share, state_word, ThreadsSnapshot, MAX_EXITED, MIN_WINDOW};
use crate::report::ThreadRow;

/// Thread ids of the profiler's own threads (a few per session).
static PROFILER_TIDS: fork::Mutex<Vec<u64>> =
    fork::Mutex::new(fork::Rank::ProfilerThreadIds, Vec::new());
const MAX_PROFILER_TIDS: usize = 1024;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Registers the calling thread as one of the profiler's. What it allocates for that is
/// the profiler's, not the program's (it runs on a thread of the profiler that may start
/// after the session's allocation baseline, and before or after a report).
pub(crate) fn register_profiler_thread() {
    #[cfg(feature = "hotpath-alloc")]
    hotpath_alloc::forget_current_thread();
    let tid = sys::gettid();
    hotpath_core::internal(|| {
        let mut tids = PROFILER_TIDS.lock();
        if !tids.contains(&tid) {
            if tids.len() >= MAX_PROFILER_TIDS {
                tids.remove(0);
            }
            tids.push(tid);
        }
    })
}

/// Names that only the profiler's threads carry: a thread a library might start on
/// the profiler's behalf inherits the name of the thread that started it, and is
/// recognised by it (the metrics server registers `hotpath-metrics`).
static PROFILER_NAMES: fork::Mutex<Vec<&'static str>> =
    fork::Mutex::new(fork::Rank::ProfilerThreadNames, Vec::new());

#[cfg(feature = "hotpath-live")]
pub(crate) fn register_profiler_thread_name(name: &'static str) {
    hotpath_core::internal(|| {
        let mut names = PROFILER_NAMES.lock();
        if !names.contains(&name) {
            names.push(name);
        }
    })
}

fn is_profiler(tid: u64, name: &str) -> bool {
    PROFILER_TIDS.lock().contains(&tid) || PROFILER_NAMES.lock().contains(&name)
}

pub(crate) fn start_monitor(interval: Duration) -> Option<Monitor> {
    hotpath_core::internal(|| {
        let interval = interval.max(Duration::from_millis(1));
        let shared = Arc::new(Shared {
            sampler: Mutex::new(Sampler::new(interval)),
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        let s2 = shared.clone();
        let thread = std::thread::Builder::new()
            .name("hotpath-threads".into())
            .spawn(move || {
                register_profiler_thread();
                hotpath_core::internal(|| run(&s2, interval));
            })
            .ok()?;
        Some(Monitor {
            shared,
            thread: Some(thread),
        })
    })
}

/// Samples every interval until stopped.
fn run(shared: &Shared, interval: Duration) {
    loop {
        {
            let stop = lock(&shared.stop);
            let (stop, _) = shared
                .wake
                .wait_timeout_while(stop, interval, |stop| !*stop)
                .unwrap_or_else(|e| e.into_inner());
            if *stop {
                return;
            }
        }
        lock(&shared.sampler).sample();
        #[cfg(feature = "tokio")]
        crate::tokio_rt::tick();
        // The program may have taken the CPU sampler's signal over: stop sending it.
        #[cfg(feature = "hotpath-cpu")]
        let _ = hotpath_cpu::check_sampling();
    }
}

struct Shared {
    sampler: Mutex<Sampler>,
    stop: Mutex<bool>,
    wake: Condvar,
}

/// The running monitor; sampling stops when it is stopped or dropped.
pub(crate) struct Monitor {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Monitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Monitor")
            .field("running", &self.thread.is_some())
            .finish_non_exhaustive()
    }
}

impl Monitor {
    pub(crate) fn snapshot(&self) -> ThreadsSnapshot {
        hotpath_core::internal(|| {
            let mut s = lock(&self.shared.sampler);
            s.sample();
            s.snapshot()
        })
    }

    pub(crate) fn stop(&mut self) {
        if let Some(thread) = self.thread.take() {
            *lock(&self.shared.stop) = true;
            self.shared.wake.notify_all();
            let _ = thread.join();
        }
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One thread, as last read.
struct Track {
    tid: u64,
    /// `starttime` of `stat`: a new thread reusing the id has another.
    start_ticks: u64,
    name: String,
    state: char,
    /// When it started (or when the monitor started, if it was already running).
    born: Instant,
    /// CPU ticks at `born` (0 for a thread born during the session).
    base_user: u64,
    base_system: u64,
    /// CPU ticks at the last reading.
    user: u64,
    system: u64,
    /// Time of the last reading.
    read_at: Instant,
    /// CPU use between the two last readings, ticks per second: how busy it was.
    rate: f64,
    /// Start of the current window of the maximum: time, CPU ticks.
    window: (Instant, u64),
    /// Highest share of one core over a window, percent.
    max: f64,
    /// Sample in which it was last seen.
    seen: u64,
}

impl Track {
    fn cpu(&self) -> u64 {
        self.user + self.system
    }

    /// Closes the current window of the maximum at `at` if it is long enough.
    fn window_to(&mut self, at: Instant, hz: f64) {
        let (from, cpu0) = self.window;
        let span = at.saturating_duration_since(from);
        if span >= MIN_WINDOW {
            let cpu = self.cpu().saturating_sub(cpu0) as f64 / hz;
            self.max = self.max.max(share(cpu, span.as_secs_f64()));
            self.window = (at, self.cpu());
        }
    }

    /// `alloc`: bytes allocated and freed during the session, when allocations are
    /// counted.
    fn row(&self, end: Instant, exited: bool, hz: u64, alloc: Option<(u64, u64)>) -> ThreadRow {
        let ns = |ticks: u64| (ticks as u128 * 1_000_000_000 / hz as u128) as u64;
        let user = self.user.saturating_sub(self.base_user);
        let system = self.system.saturating_sub(self.base_system);
        let life = end.saturating_duration_since(self.born).as_secs_f64();
        let avg = share((user + system) as f64 / hz as f64, life);
        ThreadRow {
            name: self.name.clone(),
            tid: self.tid,
            state: if exited {
                "exited".into()
            } else {
                state_word(self.state)
            },
            cpu_percent_avg: avg,
            cpu_percent_max: self.max.max(avg),
            user_ns: ns(user),
            system_ns: ns(system),
            alloc_bytes: alloc.map(|a| a.0),
            freed_bytes: alloc.map(|a| a.1),
            profiler: is_profiler(self.tid, &self.name),
        }
    }
}

/// A thread that exited, with when it is estimated to have ended.
struct Exited {
    track: Track,
    ended: Instant,
}

/// Everything seen so far, and the buffers reused by every sample.
struct Sampler {
    hz: u64,
    /// No successful sample yet: the threads found next were running before.
    first: bool,
    /// An instant and the seconds since boot at that instant, to place `starttime`.
    boot: Option<(Instant, f64)>,
    live: HashMap<u64, Track>,
    exited: VecDeque<Exited>,
    /// Exited threads dropped beyond [`MAX_EXITED`].
    dropped: u64,
    /// Number of the current sample.
    generation: u64,
    /// Time of the previous sample.
    last_at: Instant,
    /// Process CPU ticks (exited threads included) at the previous sample.
    process_ticks: Option<u64>,
    /// Process CPU ticks at the first sample: what the process used since, minus what
    /// the listed threads used, is what threads that started and exited between two
    /// samples used.
    process_first: Option<u64>,
    /// The sampling interval, for the note about those threads.
    interval: Duration,
    error: Option<String>,
    tids: Vec<u64>,
    gone: Vec<Track>,
    path: String,
    buf: Vec<u8>,
}

/// Reads a file into `buf`, replacing its contents.
fn read_into(path: &str, buf: &mut Vec<u8>) -> std::io::Result<()> {
    buf.clear();
    std::fs::File::open(path)?.read_to_end(buf).map(|_| ())
}

impl Sampler {
    /// Takes the first sample: the threads running now are measured from now on.
    fn new(interval: Duration) -> Sampler {
        let mut buf = Vec::with_capacity(512);
        let boot = read_into("/proc/uptime", &mut buf).ok().and_then(|()| {
            let text = std::str::from_utf8(&buf).ok()?;
            let secs = text.split_ascii_whitespace().next()?.parse::<f64>().ok()?;
            Some((Instant::now(), secs))
        });
        let mut s = Sampler {
            hz: sys::ticks_per_second(),
            first: true,
            boot,
            live: HashMap::new(),
            exited: VecDeque::new(),
            dropped: 0,
            generation: 0,
            last_at: Instant::now(),
            process_ticks: None,
            process_first: None,
            interval,
            error: None,
            tids: Vec::new(),
            gone: Vec::new(),
            path: String::with_capacity(64),
            buf,
        };
        s.sample();
        s
    }

    /// Where a thread that started `start_ticks` after boot started, between the
    /// previous sample (when it was not there yet) and `now`.
    fn born(&self, start_ticks: u64, now: Instant) -> Instant {
        let Some((at, uptime)) = self.boot else {
            return now;
        };
        let offset = start_ticks as f64 / self.hz as f64 - uptime;
        let estimate = if offset >= 0.0 {
            at.checked_add(Duration::from_secs_f64(offset))
        } else {
            at.checked_sub(Duration::from_secs_f64(-offset))
        };
        estimate.unwrap_or(now).clamp(self.last_at.min(now), now)
    }

    fn sample(&mut self) {
        let now = Instant::now();
        self.tids.clear();
        match std::fs::read_dir("/proc/self/task") {
            Ok(dir) => self.tids.extend(
                dir.flatten()
                    .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<u64>().ok())),
            ),
            Err(e) => {
                self.error = Some(format!("could not read /proc/self/task: {e}"));
                return;
            }
        }
        self.error = None;
        self.generation += 1;
        let hz = self.hz as f64;
        // CPU ticks used since the previous sample by threads read both times, and
        // by threads born since.
        let mut accounted = 0u64;
        for i in 0..self.tids.len() {
            let tid = self.tids[i];
            self.path.clear();
            let _ = write!(self.path, "/proc/self/task/{tid}/stat");
            if read_into(&self.path, &mut self.buf).is_err() {
                continue; // exited since the listing
            }
            let text = String::from_utf8_lossy(&self.buf);
            let Some(st) = parse_stat(&text) else {
                continue;
            };
            if st.exiting() {
                // Gone for the program (a join may have returned already): not seen, so
                // it retires below, its last ticks recovered from the process total.
                continue;
            }
            if let Some(t) = self.live.get_mut(&tid) {
                if t.start_ticks == st.starttime {
                    let delta = (st.utime + st.stime).saturating_sub(t.cpu());
                    accounted += delta;
                    let span = now.saturating_duration_since(t.read_at).as_secs_f64();
                    t.rate = if span > 0.0 { delta as f64 / span } else { 0.0 };
                    t.user = st.utime.max(t.user);
                    t.system = st.stime.max(t.system);
                    t.state = st.state;
                    if t.name != st.comm {
                        t.name.clear();
                        t.name.push_str(st.comm);
                    }
                    t.read_at = now;
                    t.seen = self.generation;
                    t.window_to(now, hz);
                    continue;
                }
                // The id was reused: the thread that had it exited.
                if let Some(old) = self.live.remove(&tid) {
                    self.gone.push(old);
                }
            }
            let (born, base_user, base_system) = if self.first {
                (now, st.utime, st.stime)
            } else {
                accounted += st.utime + st.stime;
                (self.born(st.starttime, now), 0, 0)
            };
            let span = now.saturating_duration_since(born).as_secs_f64();
            let cpu = st.utime + st.stime;
            let mut t = Track {
                tid,
                start_ticks: st.starttime,
                name: st.comm.to_string(),
                state: st.state,
                born,
                base_user,
                base_system,
                user: st.utime,
                system: st.stime,
                read_at: now,
                rate: if span > 0.0 {
                    (cpu - base_user - base_system) as f64 / span
                } else {
                    0.0
                },
                window: (born, base_user + base_system),
                max: 0.0,
                seen: self.generation,
            };
            t.window_to(now, hz);
            self.live.insert(tid, t);
        }
        let generation = self.generation;
        self.tids.clear();
        self.tids.extend(
            self.live
                .values()
                .filter(|t| t.seen != generation)
                .map(|t| t.tid),
        );
        for tid in &self.tids {
            if let Some(t) = self.live.remove(tid) {
                self.gone.push(t);
            }
        }
        // The process total includes the threads that exited: what it grew by beyond
        // the threads read is (mostly) what the exited ones used after their last
        // reading.
        let process = read_into("/proc/self/stat", &mut self.buf)
            .ok()
            .and_then(|()| {
                let text = String::from_utf8_lossy(&self.buf);
                parse_stat(&text).map(|st| st.utime + st.stime)
            });
        let unread = match (process, self.process_ticks) {
            (Some(p), Some(before)) => p.saturating_sub(before).saturating_sub(accounted),
            _ => 0,
        };
        if process.is_some() {
            self.process_ticks = process;
            if self.process_first.is_none() {
                self.process_first = process;
            }
        }
        self.retire_gone(unread, now);
        self.first = false;
        self.last_at = now;
    }

    /// Moves the threads found gone to the exited list, sharing `unread` ticks among
    /// them by how busy each was, none more than it could have used since its last
    /// reading.
    fn retire_gone(&mut self, unread: u64, now: Instant) {
        let hz = self.hz as f64;
        let weights: f64 = self.gone.iter().map(|t| t.rate).sum();
        let n = self.gone.len() as f64;

        for mut t in self.gone.drain(..) {
            let portion = if weights > 0.0 {
                t.rate / weights
            } else {
                1.0 / n
            };
            let since = now.saturating_duration_since(t.read_at).as_secs_f64();
            let extra = (unread as f64 * portion).min((since * hz).ceil()).round() as u64;
            let (u, s) = (
                t.user.saturating_sub(t.base_user),
                t.system.saturating_sub(t.base_system),
            );
            let extra_system = if u + s > 0 {
                (extra as u128 * s as u128 / (u + s) as u128) as u64
            } else {
                0
            };
            t.user += extra - extra_system;
            t.system += extra_system;
            let ended = t
                .read_at
                .checked_add(Duration::from_secs_f64(extra as f64 / hz))
                .unwrap_or(now)
                .min(now);
            t.window_to(ended, hz);
            if self.exited.len() >= MAX_EXITED {
                self.exited.pop_front();
                self.dropped += 1;
            }
            self.exited.push_back(Exited { track: t, ended });
        }
    }

    fn snapshot(&self) -> ThreadsSnapshot {
        let mut note = self.error.clone();
        if self.dropped > 0 {
            let more = format!(
                "{} more threads exited and are not listed (the last {MAX_EXITED} are kept)",
                self.dropped
            );
            note = Some(match note {
                Some(n) => format!("{n}; {more}"),
                None => more,
            });
        }
        let listed: u64 = self
            .live
            .values()
            .chain(self.exited.iter().map(|e| &e.track))
            .map(|t| t.cpu().saturating_sub(t.base_user + t.base_system))
            .sum();
        let used = self
            .process_ticks
            .zip(self.process_first)
            .map_or(0, |(now, first)| now.saturating_sub(first));
        // Each thread's time and the process's are rounded down to a tick separately,
        // so up to one tick per thread is rounding, not a missing thread.
        let rounding = (self.live.len() + self.exited.len()) as u64 + 1;
        let unlisted = used.saturating_sub(listed);
        if unlisted > rounding && self.dropped == 0 {
            let unlisted = format!(
                "{} of CPU was used by threads that lived less than one sampling interval \
                 ({} ms, HOTPATH_THREADS_INTERVAL_MS) and are not listed",
                crate::report::format::duration(
                    (unlisted as u128 * 1_000_000_000 / self.hz as u128) as u64
                ),
                self.interval.as_millis()
            );
            note = Some(match note {
                Some(n) => format!("{n}; {unlisted}"),
                None => unlisted,
            });
        }
        let mut allocs = ThreadAllocs::read();
        let mut rows: Vec<ThreadRow> = self
            .live
            .values()
            .map(|t| t.row(t.read_at, false, self.hz, allocs.of_thread(t.tid, false)))
            .collect();
        // Most recent first, so that a thread id used twice gives its figures to the
        // thread that had it last.
        for e in self.exited.iter().rev() {
            let alloc = allocs.of_thread(e.track.tid, true);
            rows.push(e.track.row(e.ended, true, self.hz, alloc));
        }
        rows.extend(allocs.rest());
        crate::report::format::sort_vec(&mut rows, &|a, b| {
            (b.user_ns + b.system_ns)
                .cmp(&(a.user_ns + a.system_ns))
                .then(a.tid.cmp(&b.tid))
        });
        let mut buf = Vec::new();
        let memory = read_into("/proc/self/status", &mut buf)
            .ok()
            .and_then(|()| parse_memory(&String::from_utf8_lossy(&buf)));
        ThreadsSnapshot { rows, memory, note }
    }
}

/// Allocations of the session per thread (feature `hotpath-alloc`): handed out to the
/// rows by thread id, so that the rows and the process total add up.
struct ThreadAllocs {
    #[cfg(feature = "hotpath-alloc")]
    session: Option<hotpath_alloc::Session>,
}

impl ThreadAllocs {
    fn read() -> Self {
        ThreadAllocs {
            #[cfg(feature = "hotpath-alloc")]
            session: hotpath_alloc::installed().then(hotpath_alloc::session_threads),
        }
    }

    /// A live (or, with `exited`, an exited) thread's bytes allocated and freed.
    fn of_thread(&mut self, tid: u64, exited: bool) -> Option<(u64, u64)> {
        #[cfg(feature = "hotpath-alloc")]
        {
            let s = self.session.as_mut()?;
            Some(take(if exited { &mut s.exited } else { &mut s.live }, tid))
        }
        #[cfg(not(feature = "hotpath-alloc"))]
        {
            let _ = (tid, exited);
            None
        }
    }

    /// One row for what no listed thread took: threads that exited before the monitor
    /// read them, and allocations with no thread of their own; none when that is
    /// nothing.
    fn rest(self) -> Option<ThreadRow> {
        #[cfg(feature = "hotpath-alloc")]
        {
            let s = self.session?;
            let mut bytes = s.unattributed.bytes;
            let mut freed = s.unattributed.freed;
            for (_, t) in s.live.iter().chain(&s.exited) {
                bytes += t.bytes;
                freed += t.freed;
            }
            (bytes + freed > 0).then(|| ThreadRow {
                name: UNLISTED.into(),
                tid: 0,
                state: "exited".into(),
                cpu_percent_avg: 0.0,
                cpu_percent_max: 0.0,
                user_ns: 0,
                system_ns: 0,
                alloc_bytes: Some(bytes),
                freed_bytes: Some(freed),
                profiler: false,
            })
        }
        #[cfg(not(feature = "hotpath-alloc"))]
        {
            None
        }
    }
}

/// Name of the row that holds the allocations of threads no other row lists.
#[cfg(feature = "hotpath-alloc")]
const UNLISTED: &str = "(threads not listed)";

/// Removes `tid`'s entries from `list`; their bytes allocated and freed.
#[cfg(feature = "hotpath-alloc")]
fn take(list: &mut Vec<(u64, hotpath_alloc::Totals)>, tid: u64) -> (u64, u64) {
    let mut sum = (0, 0);
    list.retain(|(t, totals)| {
        if *t == tid {
            sum.0 += totals.bytes;
            sum.1 += totals.freed;
            false
        } else {
            true
        }
    });
    sum
}

#[allow(unsafe_code)]
mod sys {
    /// The calling thread's id.
    pub(super) fn gettid() -> u64 {
        // SAFETY: gettid has no preconditions and cannot fail.
        let tid = unsafe { libc::gettid() };
        tid as u64
    }

    /// Clock ticks per second of the times in `/proc/*/stat`.
    pub(super) fn ticks_per_second() -> u64 {
        // SAFETY: sysconf only reads a configuration value.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        if hz > 0 {
            hz as u64
        } else {
            100
        }
    }
}
