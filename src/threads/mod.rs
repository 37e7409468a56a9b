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

#[cfg(feature = "hotpath-live")]
pub(crate) use imp::register_profiler_thread_name;
pub(crate) use imp::{register_profiler_thread, start_monitor, Monitor};

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
    /// Field 9: the kernel's `PF_*` flags.
    pub flags: u64,
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
    // Fields 4 (ppid) to 8 (tpgid), then 9.
    let flags = rest.nth(5)?.parse().ok()?;
    // Fields 10 (minflt) to 13 (cmajflt).
    let mut rest = rest.skip(4);
    let utime = rest.next()?.parse().ok()?;
    let stime = rest.next()?.parse().ok()?;
    // Fields 16 (cutime) to 21 (itrealvalue), then 22.
    let starttime = rest.nth(6)?.parse().ok()?;
    Some(Stat {
        tid,
        comm,
        state,
        flags,
        utime,
        stime,
        starttime,
    })
}

/// `PF_EXITING`: set when a thread starts to exit, before a thread joining it wakes.
const PF_EXITING: u64 = 0x4;

impl Stat<'_> {
    /// Whether the thread has begun to exit: a thread another one joined may stay
    /// listed, still `R`, for a moment after the join returned; this flag is set by
    /// then.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(crate) fn exiting(&self) -> bool {
        self.flags & PF_EXITING != 0
    }
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
mod linux;
#[cfg(target_os = "linux")]
use linux as imp;

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::time::Duration;

    use super::ThreadsSnapshot;

    pub(crate) fn register_profiler_thread() {
        #[cfg(feature = "hotpath-alloc")]
        hotpath_alloc::forget_current_thread();
    }

    #[cfg(feature = "hotpath-live")]
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
                flags: 4194560,
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
        assert!(!st.exiting());
        // The same thread once it has begun to exit (PF_EXITING | PF_FORKNOEXEC ...).
        let exiting = l.replace(" 4194304 ", " 4194308 ");
        let st = parse_stat(&exiting).unwrap();
        assert_eq!((st.flags, st.exiting()), (4194308, true));
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
