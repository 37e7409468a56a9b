//! The threads monitor: CPU time and state of every thread of the process, sampled from
//! `/proc/self/task` on a thread of its own (Linux), and the process's memory.
//!
//! Every interval the monitor lists `/proc/self/task` and reads each task's `stat` (one
//! small file per thread, into reused buffers), plus `/proc/self/stat` for the process
//! total. A thread alive when the monitor starts is measured from then on; a thread
//! born later from its start. A thread that exits is kept with its last reading; the
//! CPU it used between that reading and its exit is recovered from the process total
//! (which includes exited threads), shared among the threads that exited in the same
//! interval in proportion to how busy each was when last read.
//!
//! With `hotpath-alloc`, each sample also reads the allocator's per-thread counters, so a
//! thread that exits keeps the bytes it had allocated and freed by its last sample.
//!
//! CPU times come in clock ticks (`sysconf(_SC_CLK_TCK)`, usually 10 ms): the maximum
//! CPU share is taken over windows of at least [`MIN_WINDOW`] so that one tick more or
//! less moves it by at most about 10 points.
//!
//! On other systems the monitor measures nothing and says why.

use std::time::Duration;

use crate::report::{ProcessMemory, ThreadRow};

pub(crate) use imp::{
    register_profiler_thread, register_profiler_thread_name, start_monitor, Monitor,
};

/// Shortest window the maximum CPU share is computed over.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const MIN_WINDOW: Duration = Duration::from_millis(90);

/// Most exited threads kept; older ones are dropped and counted.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const MAX_EXITED: usize = 4096;

/// What the monitor saw: one row per thread (live, and exited since it started).
#[derive(Clone, Debug, Default)]
pub(crate) struct ThreadsSnapshot {
    /// Sorted by CPU time (user + system), highest first.
    pub rows: Vec<ThreadRow>,
    /// Process memory, when it could be read.
    pub memory: Option<ProcessMemory>,
    /// Why rows are missing, if some are.
    pub note: Option<String>,
}

/// The fields of a `/proc/<pid>/task/<tid>/stat` line the monitor uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) struct Stat<'a> {
    /// Field 1: thread id.
    pub tid: u64,
    /// Field 2: the name, without its parentheses (may contain spaces and parentheses).
    pub comm: &'a str,
    /// Field 3: `R`, `S`, `D`, `T`, `Z`, `X`, `I`, ...
    pub state: char,
    /// Field 14: CPU time in user mode, clock ticks.
    pub utime: u64,
    /// Field 15: CPU time in the kernel, clock ticks.
    pub stime: u64,
    /// Field 22: start time after boot, clock ticks (with the tid, identifies a thread).
    pub starttime: u64,
}

/// Parses a `stat` line. The name is whatever lies between the first `(` and the LAST
/// `)`: a thread may name itself `a) R (b`.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn parse_stat(line: &str) -> Option<Stat<'_>> {
    let open = line.find('(')?;
    let close = line.rfind(')')?;
    if close < open {
        return None;
    }
    let tid = line[..open].trim().parse().ok()?;
    let comm = &line[open + 1..close];
    let mut rest = line[close + 1..].split_ascii_whitespace();
    let state = rest.next()?.chars().next()?;
    // Fields 4 (ppid) to 13 (cmajflt).
    let mut rest = rest.skip(10);
    let utime = rest.next()?.parse().ok()?;
    let stime = rest.next()?.parse().ok()?;
    // Fields 16 (cutime) to 21 (itrealvalue), then 22.
    let starttime = rest.nth(6)?.parse().ok()?;
    Some(Stat {
        tid,
        comm,
        state,
        utime,
        stime,
        starttime,
    })
}

/// The word for a state letter of `stat`.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn state_word(state: char) -> String {
    match state {
        'R' => "running",
        'S' => "sleeping",
        'D' => "disk-wait",
        'T' | 't' => "stopped",
        'Z' => "zombie",
        'X' | 'x' => "dead",
        'I' => "idle",
        'P' => "parked",
        'W' => "waking",
        'K' => "wakekill",
        other => return other.to_string(),
    }
    .to_string()
}

/// `VmRSS` and `VmHWM` of a `/proc/<pid>/status` text, in bytes.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parse_memory(status: &str) -> Option<ProcessMemory> {
    let kb = |key: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(key))?;
        let v = line[key.len()..].trim().strip_suffix("kB")?.trim();
        v.parse::<u64>().ok().map(|kb| kb * 1024)
    };
    let rss_bytes = kb("VmRSS:")?;
    let peak_rss_bytes = kb("VmHWM:").unwrap_or(rss_bytes).max(rss_bytes);
    Some(ProcessMemory {
        rss_bytes,
        peak_rss_bytes,
    })
}

/// A share of one core in percent, capped at 100 and rounded to 0.1.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn share(cpu_secs: f64, wall_secs: f64) -> f64 {
    if wall_secs <= 0.0 {
        return 0.0;
    }
    ((cpu_secs / wall_secs * 100.0).clamp(0.0, 100.0) * 10.0).round() / 10.0
}

#[cfg(target_os = "linux")]
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

#[cfg(target_os = "linux")]
mod imp {
    use std::collections::{HashMap, VecDeque};
    use std::fmt::Write as _;
    use std::io::Read as _;
    use std::sync::{Arc, Condvar, Mutex, MutexGuard};
    use std::thread::JoinHandle;
    use std::time::{Duration, Instant};

    use super::{
        parse_memory, parse_stat, share, state_word, sys, ThreadsSnapshot, MAX_EXITED, MIN_WINDOW,
    };
    use crate::report::ThreadRow;

    /// Thread ids of the profiler's own threads (a few per session).
    static PROFILER_TIDS: Mutex<Vec<u64>> = Mutex::new(Vec::new());
    const MAX_PROFILER_TIDS: usize = 1024;

    fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
        m.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn register_profiler_thread() {
        let tid = sys::gettid();
        let mut tids = lock(&PROFILER_TIDS);
        if !tids.contains(&tid) {
            if tids.len() >= MAX_PROFILER_TIDS {
                tids.remove(0);
            }
            tids.push(tid);
        }
    }

    /// Names that only the profiler's threads carry: a thread a library might start on
    /// the profiler's behalf inherits the name of the thread that started it, and is
    /// recognised by it (the metrics server registers `hotpath-metrics`).
    static PROFILER_NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

    pub(crate) fn register_profiler_thread_name(name: &'static str) {
        let mut names = lock(&PROFILER_NAMES);
        if !names.contains(&name) {
            names.push(name);
        }
    }

    fn is_profiler(tid: u64, name: &str) -> bool {
        lock(&PROFILER_TIDS).contains(&tid) || lock(&PROFILER_NAMES).contains(&name)
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
        /// Bytes allocated and freed by the thread as last read (feature `hotpath-alloc`;
        /// `None` until the allocator has counted something on it).
        alloc: Option<(u64, u64)>,
        /// The same at `born`.
        alloc_base: (u64, u64),
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

        /// `alloc` is whether allocations are counted at all.
        fn row(&self, end: Instant, exited: bool, hz: u64, alloc: bool) -> ThreadRow {
            let ns = |ticks: u64| (ticks as u128 * 1_000_000_000 / hz as u128) as u64;
            let user = self.user.saturating_sub(self.base_user);
            let system = self.system.saturating_sub(self.base_system);
            let life = end.saturating_duration_since(self.born).as_secs_f64();
            let avg = share((user + system) as f64 / hz as f64, life);
            let (bytes, freed) = self.alloc.unwrap_or(self.alloc_base);
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
                alloc_bytes: alloc.then(|| bytes.saturating_sub(self.alloc_base.0)),
                freed_bytes: alloc.then(|| freed.saturating_sub(self.alloc_base.1)),
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
                Ok(dir) => self
                    .tids
                    .extend(dir.flatten().filter_map(|e| {
                        e.file_name().to_str().and_then(|s| s.parse::<u64>().ok())
                    })),
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
                    alloc: None,
                    alloc_base: (0, 0),
                };
                t.window_to(now, hz);
                self.live.insert(tid, t);
            }
            #[cfg(feature = "hotpath-alloc")]
            self.read_alloc();
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

        /// Reads the allocation counters of the live threads: a thread that exits keeps
        /// what it had allocated by the last sample.
        #[cfg(feature = "hotpath-alloc")]
        fn read_alloc(&mut self) {
            let first = self.first;
            let live = &mut self.live;
            hotpath_core::meter::alloc::for_each_thread(|tid, totals| {
                let Some(t) = live.get_mut(&tid) else {
                    return;
                };
                let now = (totals.bytes, totals.freed);
                if first && t.alloc.is_none() {
                    t.alloc_base = now;
                }
                // Counters restart from zero if an exiting thread allocates again.
                let (bytes, freed) = t.alloc.unwrap_or(t.alloc_base);
                t.alloc = Some((bytes.max(now.0), freed.max(now.1)));
            });
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
            #[cfg(feature = "hotpath-alloc")]
            let alloc = hotpath_core::meter::alloc::installed();
            #[cfg(not(feature = "hotpath-alloc"))]
            let alloc = false;
            let mut rows: Vec<ThreadRow> = self
                .live
                .values()
                .map(|t| t.row(t.read_at, false, self.hz, alloc))
                .chain(
                    self.exited
                        .iter()
                        .map(|e| e.track.row(e.ended, true, self.hz, alloc)),
                )
                .collect();
            rows.sort_by(|a, b| {
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
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::time::Duration;

    use super::ThreadsSnapshot;

    pub(crate) fn register_profiler_thread() {}

    pub(crate) fn register_profiler_thread_name(_name: &'static str) {}

    pub(crate) fn start_monitor(_interval: Duration) -> Option<Monitor> {
        Some(Monitor)
    }

    /// Measures nothing on this system.
    #[derive(Debug)]
    pub(crate) struct Monitor;

    impl Monitor {
        pub(crate) fn snapshot(&self) -> ThreadsSnapshot {
            ThreadsSnapshot {
                rows: Vec::new(),
                memory: None,
                note: Some(
                    "per-thread CPU time is measured on Linux only (from /proc/self/task)".into(),
                ),
            }
        }

        pub(crate) fn stop(&mut self) {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(comm: &str) -> String {
        format!(
            "1234 ({comm}) S 1 1234 1234 0 -1 4194560 150 0 0 0 \
             37 5 0 0 20 0 3 0 98765 12345678 400 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0"
        )
    }

    #[test]
    fn a_plain_stat_line() {
        let l = line("worker");
        let st = parse_stat(&l).unwrap();
        assert_eq!(
            st,
            Stat {
                tid: 1234,
                comm: "worker",
                state: 'S',
                utime: 37,
                stime: 5,
                starttime: 98765,
            }
        );
    }

    #[test]
    fn a_name_with_spaces_and_parentheses() {
        for comm in ["my (weird) name", "a) R (b", ")", "(", "x ) 1 2 3 (", ""] {
            let l = line(comm);
            let st = parse_stat(&l).unwrap_or_else(|| panic!("{l}"));
            assert_eq!(st.comm, comm);
            assert_eq!((st.tid, st.state), (1234, 'S'));
            assert_eq!((st.utime, st.stime, st.starttime), (37, 5, 98765));
        }
    }

    #[test]
    fn a_real_stat_line() {
        let l = "1988 (cat) R 1984 1984 1157 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 520246 \
                 3133440 372 18446744073709551615 94878207959040 94878207978921 0 0 0 0 0 0 0 0 0 17 1 0 0\n";
        let st = parse_stat(l).unwrap();
        assert_eq!((st.tid, st.comm, st.state), (1988, "cat", 'R'));
        assert_eq!((st.utime, st.stime, st.starttime), (0, 0, 520246));
    }

    #[test]
    fn truncated_or_garbled_lines_are_refused() {
        assert_eq!(parse_stat(""), None);
        assert_eq!(parse_stat("1234 (name"), None);
        assert_eq!(parse_stat("1234 name) S 1"), None);
        assert_eq!(parse_stat("1234 (name) S 1 2 3"), None);
        assert_eq!(
            parse_stat("x (name) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9"),
            None
        );
        assert_eq!(
            parse_stat("7 (name) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9").map(|s| (
                s.utime,
                s.stime,
                s.starttime
            )),
            Some((1, 2, 9))
        );
    }

    #[test]
    fn state_words() {
        let words: Vec<String> = "RSDTZXIt".chars().map(state_word).collect();
        assert_eq!(
            words,
            [
                "running",
                "sleeping",
                "disk-wait",
                "stopped",
                "zombie",
                "dead",
                "idle",
                "stopped"
            ]
        );
    }

    #[test]
    fn memory_from_status() {
        let status = "Name:\tcat\nVmPeak:\t  8000 kB\nVmHWM:\t    1600 kB\nVmRSS:\t    1500 kB\nThreads:\t1\n";
        assert_eq!(
            parse_memory(status),
            Some(ProcessMemory {
                rss_bytes: 1500 * 1024,
                peak_rss_bytes: 1600 * 1024
            })
        );
        assert_eq!(parse_memory("Name:\tkthread\n"), None);
    }

    #[test]
    fn shares_are_capped_at_one_core() {
        assert_eq!(share(0.5, 1.0), 50.0);
        assert_eq!(share(0.11, 0.1), 100.0);
        assert_eq!(share(1.0, 0.0), 0.0);
        assert_eq!(share(0.0123, 1.0), 1.2);
    }

    /// CPU time the calling thread has used.
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    fn thread_cpu() -> Duration {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid out-pointer.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    }

    /// Runs until this thread has used `d` of CPU time, however long a loaded machine
    /// makes that take.
    #[cfg(target_os = "linux")]
    fn spin(d: Duration) {
        let start = thread_cpu();
        let mut x = 0u64;
        while thread_cpu() - start < d {
            for _ in 0..1000 {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn threads_that_live_between_two_samples_are_reported_as_unlisted_cpu() {
        // One sample now, the next only when asked: the threads below are never seen.
        let mut m = start_monitor(Duration::from_secs(3600)).expect("monitor");
        for _ in 0..4 {
            std::thread::Builder::new()
                .name("t-unseen".into())
                .spawn(|| spin(Duration::from_millis(100)))
                .unwrap()
                .join()
                .unwrap();
        }
        let s = m.snapshot();
        m.stop();
        assert!(s.rows.iter().all(|r| r.name != "t-unseen"), "{:#?}", s.rows);
        let note = s.note.expect("a note about the unlisted threads");
        assert!(
            note.contains("threads that lived less than one sampling interval (3600000 ms"),
            "{note}"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn no_unlisted_cpu_when_every_thread_is_seen() {
        let mut m = start_monitor(Duration::from_millis(10)).expect("monitor");
        let other = std::thread::spawn(|| spin(Duration::from_millis(300)));
        spin(Duration::from_millis(1000));
        other.join().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let s = m.snapshot();
        m.stop();
        assert_eq!(s.note, None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_monitor_sees_a_busy_thread_a_sleeping_one_and_one_that_exited() {
        let mut m = start_monitor(Duration::from_millis(100)).expect("monitor");
        let busy = std::thread::Builder::new()
            .name("t-busy".into())
            .spawn(move || spin(Duration::from_millis(400)))
            .unwrap();
        let (wake, wait) = std::sync::mpsc::channel::<()>();
        let idle = std::thread::Builder::new()
            .name("t-idle".into())
            .spawn(move || wait.recv())
            .unwrap();
        let short = std::thread::Builder::new()
            .name("t-short".into())
            .spawn(move || spin(Duration::from_millis(150)))
            .unwrap();
        short.join().unwrap();
        let live = m.snapshot();
        busy.join().unwrap();
        wake.send(()).unwrap();
        idle.join().unwrap().unwrap();
        let end = m.snapshot();
        m.stop();
        let find = |s: &ThreadsSnapshot, name: &str| {
            s.rows
                .iter()
                .find(|r| r.name == name)
                .cloned()
                .unwrap_or_else(|| panic!("no {name} in {:#?}", s.rows))
        };
        assert_eq!(find(&live, "t-short").state, "exited");
        assert_eq!(find(&live, "t-idle").state, "sleeping");
        let busy = find(&end, "t-busy");
        let idle = find(&end, "t-idle");
        let short = find(&end, "t-short");
        // CPU time used, within the 10 ms ticks of /proc and the recovery of what an
        // exited thread used after its last reading.
        let busy_cpu = busy.user_ns + busy.system_ns;
        assert!((370_000_000..=450_000_000).contains(&busy_cpu), "{busy:?}");
        assert!(busy.cpu_percent_max >= busy.cpu_percent_avg, "{busy:?}");
        assert!(
            busy.cpu_percent_avg > idle.cpu_percent_avg,
            "{busy:?} {idle:?}"
        );
        assert!(idle.user_ns + idle.system_ns <= 10_000_000, "{idle:?}");
        let short_cpu = short.user_ns + short.system_ns;
        assert!(
            (120_000_000..=200_000_000).contains(&short_cpu),
            "{short:?}"
        );
        assert_eq!(
            (busy.state.as_str(), idle.state.as_str()),
            ("exited", "exited")
        );
        let own = find(&end, "hotpath-threads");
        assert!(own.profiler && !busy.profiler && !idle.profiler, "{own:?}");
        assert!(end
            .rows
            .iter()
            .all(|r| r.cpu_percent_avg <= r.cpu_percent_max && r.cpu_percent_max <= 100.0));
        let mem = end.memory.expect("memory");
        assert!(
            mem.rss_bytes > 0 && mem.peak_rss_bytes >= mem.rss_bytes,
            "{mem:?}"
        );
        assert_eq!(end.note, None);
    }
}
