//! The report as data: what the table, JSON, HTTP routes and CLI all render.
//!
//! Serialized as JSON of schema version [`SCHEMA_VERSION`] (see `docs/report-schema.md`):
//! numbers in base units
//! (nanoseconds, bytes), keys in declaration order.

use hotpath_macros::SerializeFields;
#[cfg(feature = "read")]
use serde::Deserialize;

pub use super::model_dist::{
    percentile_key, percentile_label, Dist, DistNs, Histogram, LockDist, Percentiles, WallNs,
};
pub use super::model_locks::{
    DebugEntry, FunctionWaits, LockHolder, LockMode, MutexEntry, RwLockEntry,
};
pub use super::model_service::{
    HttpEntry, ServerEntry, SqlEntry, StatusClasses, TokioGauge, TokioRuntime, TokioWorker,
};
#[cfg(feature = "read")]
use super::section::known_sections;
use super::section::Section;

/// Version of the JSON layout; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 9;
/// Oldest layout version readers accept: versions 2 to 9 added keys and sections to
/// version 1 (and changed what some values mean: sampled times in 4, waits in 6 and 7;
/// see `docs/report-schema.md`), so a version-1 report reads as a later one without them.
pub const OLDEST_SCHEMA_VERSION: u32 = 1;

/// A whole report. `Default` is an empty report of no schema version, for building
/// reports in tests and tools.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct Report {
    /// Layout version, [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The function that started profiling, e.g. `my_app::main`.
    pub caller: String,
    /// `HOTPATH_REPORT_LABEL`: what the run was (a branch, a benchmark), when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Wall time from the start of profiling to the report, ns.
    pub elapsed_ns: u64,
    /// Sections present in this report, in order: `timing`, then later ones.
    #[serde(deserialize_with = "known_sections")]
    pub sections: Vec<Section>,
    /// Percentiles shown for every distribution, each in `0..=100`.
    pub percentiles: Vec<f64>,
    /// What one timed measured call costs the program, measured at start-up, ns.
    pub overhead_per_call_ns: f64,
    /// Estimated time the profiler added to the run: timed calls × timed cost plus
    /// counted-only calls × their cost, and the same for `io!` operations, ns.
    pub overhead_ns: u64,
    /// `io!` operations of the run (included in `overhead_ns`): absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_ops: Option<u64>,
    /// What one timed `io!` operation costs the program besides the operation itself,
    /// measured at start-up, ns: absent when the run made none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_per_io_op_ns: Option<f64>,
    /// The shortest span the clock measures: two back-to-back reads, measured at
    /// start-up (median), ns. A measured call's duration includes about this much of the
    /// profiler's own work; shorter per-call values are shown as `<X ns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_floor_ns: Option<f64>,
    /// Clock the durations come from: `tsc` or `monotonic`.
    pub clock: String,
    /// Fraction of calls timed (1 = all, 0 = count only).
    pub time_sampling_rate: f64,
    /// The overhead budget (`HOTPATH_OVERHEAD_BUDGET`), when one held: each function's
    /// calls were timed at a rate chosen at run time (its `effective_rate`), and
    /// `time_sampling_rate` does not apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_budget: Option<OverheadBudget>,
    /// Fraction of I/O operations timed (section `io`; every operation and byte is
    /// counted either way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_time_sampling_rate: Option<f64>,
    /// Things the reader should know about the numbers (fallbacks, limits hit).
    pub notes: Vec<String>,
    /// Allocations of the whole process during the session (section `alloc`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alloc_total: Option<AllocTotal>,
    /// How CPU time was measured, and the process's CPU time (section `cpu`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuInfo>,
    /// How instructions were counted, or why they were not (section `icount`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icount: Option<IcountInfo>,
    /// One entry per measured function or block, sorted by total wall time.
    pub functions: Vec<Function>,
    /// I/O entries, by bytes moved (section `io`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io: Option<Vec<IoEntry>>,
    /// Fraction of channel messages timed (section `channels`): each site's first 256 are timed,
    /// then this fraction; every one is counted either way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels_time_sampling_rate: Option<f64>,
    /// Channel entries, by messages sent (section `channels`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<ChannelEntry>>,
    /// Fraction of stream polls timed (section `streams`): each site's first 256 are timed,
    /// then this fraction; every one is counted either way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams_time_sampling_rate: Option<f64>,
    /// Stream entries, by items (section `streams`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<Vec<StreamEntry>>,
    /// Fraction of `future!` calls timed (section `futures`): each site's first 256 are timed,
    /// then this fraction; every one is counted either way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub futures_time_sampling_rate: Option<f64>,
    /// Futures measured per call, by calls (section `futures`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub futures: Option<Vec<FutureEntry>>,
    /// Every thread seen during the session, by CPU time (section `threads`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<Vec<ThreadRow>>,
    /// Memory of the process at the end of the session (section `threads`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_memory: Option<ProcessMemory>,
    /// Fraction of mutex acquisitions timed (section `mutexes`; every one is counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutexes_time_sampling_rate: Option<f64>,
    /// `mutex!` sites, by total hold time (section `mutexes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutexes: Option<Vec<MutexEntry>>,
    /// Fraction of read-write lock acquisitions timed (section `rw_locks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rw_locks_time_sampling_rate: Option<f64>,
    /// `rw_lock!` sites, by total hold time (section `rw_locks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rw_locks: Option<Vec<RwLockEntry>>,
    /// The last values of `dbg!`, `val!` and `gauge!` (section `debug`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debug: Option<Vec<DebugEntry>>,
    /// Normalised SQL queries per issuing function, by total time (section `sql`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql: Option<Vec<SqlEntry>>,
    /// HTTP client endpoints per calling function, by total time (section `http`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<Vec<HttpEntry>>,
    /// HTTP server routes, by total time (section `server`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<Vec<ServerEntry>>,
    /// tokio runtimes registered with `tokio_runtime!` (section `tokio`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokio: Option<Vec<TokioRuntime>>,
    /// The calling-context tree: every path of measured functions, merged over threads,
    /// parents before their children (section `stacks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stacks: Option<Vec<StackPath>>,
}

/// One path of the calling-context tree (section `stacks`): the functions from the
/// outermost measured one to this one, and what ran on exactly this path.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct StackPath {
    /// Display names (label or name) from the outermost function; `[truncated]` stands
    /// for paths past the per-thread node budget.
    pub path: Vec<String>,
    /// Calls on this path; direct recursion folds into one path, every level counted.
    pub calls: u64,
    /// Inclusive wall time, ns; direct recursion counts the outermost call.
    pub total_ns: u64,
    /// Wall time not spent in measured children, ns (async: busy time minus children).
    pub self_ns: u64,
    /// CPU time on this path and below it, ns (section `cpu`), else `null`.
    pub cpu_ns: Option<u64>,
    /// CPU time on exactly this path, ns (section `cpu`), else `null`.
    pub self_cpu_ns: Option<u64>,
}

impl StackPath {
    /// The function at the end of the path.
    pub fn leaf(&self) -> &str {
        self.path.last().map_or("", String::as_str)
    }
}

impl Report {
    /// Whether `section` is in the report.
    pub fn has(&self, section: Section) -> bool {
        self.sections.contains(&section)
    }
}

/// One measured function or block. `Default` is an empty row (no name, no calls, nothing
/// measured), for building reports in tests and tools.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct Function {
    /// Path, e.g. `my_app::parser::Parser::parse` or `<my_app::P as core::fmt::Display>::fmt`;
    /// for a `measure_block!`, the path of the enclosing function.
    pub name: String,
    /// The name tables show: the last segments of `name` that tell it apart from the
    /// report's other functions, types written as their last segment
    /// (`Parser::parse_line`, `<Parser as Iterator>::next`). Absent with
    /// `HOTPATH_FULL_NAMES=1`, and in reports of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_name: Option<String>,
    /// `label = "..."` of `#[measure]`, the label of a `measure_block!`, or `null`.
    pub label: Option<String>,
    /// Source file.
    pub file: String,
    /// Source line.
    pub line: u32,
    /// Calls (async: futures completed or cancelled). Exact, also when sampling.
    pub calls: u64,
    /// Calls whose time was measured (less than `calls` when sampling).
    pub timed_calls: u64,
    /// An `async fn`, or a `tracing` span (`span`), measured per poll or enter.
    #[serde(rename = "async")]
    pub is_async: bool,
    /// A `tracing` span callsite (`hotpath::tracing::layer()`), named `target::name`:
    /// its enters are `polls`, `busy_ns` the time entered, its wall time runs from the
    /// span's creation to its close, and `async` is true. Absent when false.
    #[serde(default, skip_serializing_if = "crate::ser::is_false")]
    pub span: bool,
    /// Times are estimated from a sample of the calls.
    pub sampled: bool,
    /// Under an overhead budget: the fraction of the calls that were timed (each timed
    /// call stands for the calls it was picked among). Absent without a budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_rate: Option<f64>,
    /// Wall time; `null` when no call was timed (count-only mode).
    pub wall_ns: Option<WallNs>,
    /// Async only: polls of the timed futures.
    pub polls: Option<u64>,
    /// Async only: summed duration of the polls of the timed futures, ns.
    pub busy_ns: Option<u64>,
    /// Async only: futures dropped before completing.
    pub cancelled: Option<u64>,
    /// Allocations in this function's timed calls (section `alloc`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alloc: Option<FunctionAlloc>,
    /// CPU time in this function's calls (section `cpu`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<FunctionCpu>,
    /// Instructions executed in this function's calls under callgrind (section `icount`;
    /// absent when callgrind did not count them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icount: Option<FunctionIcount>,
    /// I/O operations made while this function was the innermost measured one on its
    /// thread (section `io`; absent when it made none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io: Option<FunctionIo>,
    /// Calls that had not returned when the report was made (a `main` still running at a
    /// timeout, a request in progress at a live report): absent when none. Not included
    /// in `calls` or `wall_ns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<RunningCalls>,
    /// Where the function's own time went: CPU, I/O, locks, channels, SQL, HTTP, other
    /// (section `waits`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waits: Option<FunctionWaits>,
    /// Sums over the timed calls alone, unscaled: present only when `sampled` (without
    /// sampling they equal the figures above). Unlike the scaled estimates they never
    /// decrease from one live report to the next, so counters are exported from them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed_sums: Option<TimedSums>,
}

/// An overhead budget and what the profiler's per-call work is estimated to have cost.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct OverheadBudget {
    /// The budget: percent of the process's CPU time.
    pub percent: f64,
    /// The process's CPU time during the session, ns.
    pub cpu_ns: u64,
    /// Estimated cost of the measured calls: timed calls × `timed_call_ns` plus the
    /// others × `untimed_call_ns`, ns (an estimate from costs measured at start-up).
    pub estimated_cost_ns: u64,
    /// What a timed call costs, measured at start-up, ns.
    pub timed_call_ns: f64,
    /// What a call the budget does not time costs (counted, with its frame), ns.
    pub untimed_call_ns: f64,
}

/// Calls of a function in progress when the report was made.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct RunningCalls {
    /// Calls in progress (a recursion counts once).
    pub calls: u64,
    /// Their wall time so far, ns.
    pub total_ns: u64,
    /// Their time so far outside measured children, ns.
    pub self_ns: u64,
}

impl Function {
    /// Total wall time including calls still running, ns.
    pub fn total_with_running(&self) -> u64 {
        self.wall_ns.as_ref().map_or(0, |w| w.total)
            + self.running.as_ref().map_or(0, |r| r.total_ns)
    }

    /// Self time including calls still running, ns.
    pub fn self_with_running(&self) -> u64 {
        self.wall_ns.as_ref().map_or(0, |w| w.self_)
            + self.running.as_ref().map_or(0, |r| r.self_ns)
    }
}

/// Sums over a sampled function's timed calls, not scaled to all calls.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct TimedSums {
    /// Inclusive wall time, outermost calls, ns.
    pub wall_total_ns: u64,
    /// Self wall time, ns.
    pub wall_self_ns: u64,
    /// Allocations, inclusive (section `alloc`).
    pub alloc_count: Option<u64>,
    /// Bytes allocated, inclusive (section `alloc`).
    pub alloc_bytes: Option<u64>,
    /// Bytes freed, inclusive (section `alloc`).
    pub freed_bytes: Option<u64>,
    /// Exact-mode CPU time, inclusive (section `cpu`), ns.
    pub cpu_ns: Option<u64>,
}

/// One thread seen during the session (section `threads`).
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct ThreadRow {
    /// The thread's name as the OS knows it (at most 15 bytes on Linux).
    pub name: String,
    /// OS thread id.
    pub tid: u64,
    /// `running`, `sleeping`, `disk-wait`, `stopped`, `zombie`, `dead`, `idle`, or
    /// `exited` for a thread that ended during the session.
    pub state: String,
    /// CPU time over the thread's observed lifetime in the session as a share of one
    /// core: 100 = one core busy the whole time.
    pub cpu_percent_avg: f64,
    /// Highest CPU share of one core over any one sampling interval.
    pub cpu_percent_max: f64,
    /// CPU time in user mode during the session, ns.
    pub user_ns: u64,
    /// CPU time in the kernel during the session, ns.
    pub system_ns: u64,
    /// Bytes allocated by this thread (feature `hotpath-alloc`), else `null`.
    pub alloc_bytes: Option<u64>,
    /// Bytes freed by this thread (feature `hotpath-alloc`), else `null`.
    pub freed_bytes: Option<u64>,
    /// One of the profiler's own threads.
    pub profiler: bool,
}

/// Memory of the whole process at the end of the session.
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct ProcessMemory {
    /// Resident set size, bytes.
    pub rss_bytes: u64,
    /// Highest resident set size since the process started, bytes.
    pub peak_rss_bytes: u64,
}

impl ThreadRow {
    /// User plus system CPU time, ns.
    pub fn cpu_ns(&self) -> u64 {
        self.user_ns.saturating_add(self.system_ns)
    }
}

/// I/O charged to one function.
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct FunctionIo {
    /// Bytes read by those operations.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Time spent inside the (timed) operations, ns.
    pub io_ns: u64,
}

/// One row of the I/O section: an `io!` call site and the type it wrapped (or one
/// instance, with `iter = true`).
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct IoEntry {
    /// The label, or `file:line`; `label-2`, ... for later `iter` instances.
    pub name: String,
    /// Source file of the `io!`.
    pub file: String,
    /// Source line of the `io!`.
    pub line: u32,
    /// The wrapped type.
    pub type_name: String,
    /// Wrappers created.
    pub instances: u64,
    /// Reads (`read`, `read_vectored`, `fill_buf`, `read_line`, `read_until`, `poll_read`).
    pub read: IoDirection,
    /// Writes.
    pub write: IoDirection,
    /// Flushes.
    pub flush: IoDirection,
    /// Shutdowns (`poll_shutdown`, `poll_close`).
    pub shutdown: IoDirection,
    /// Seeks.
    pub seek: IoDirection,
}

impl IoEntry {
    /// The five kinds of operation with their JSON names, in the order of the schema:
    /// `read`, `write`, `flush`, `shutdown`, `seek`.
    pub fn directions(&self) -> [(&'static str, &IoDirection); 5] {
        [
            ("read", &self.read),
            ("write", &self.write),
            ("flush", &self.flush),
            ("shutdown", &self.shutdown),
            ("seek", &self.seek),
        ]
    }
}

/// Operations of one kind on one I/O entry.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct IoDirection {
    /// Completed operations.
    pub ops: u64,
    /// Bytes transferred by them.
    pub bytes: u64,
    /// Failed operations (not `WouldBlock` or `Interrupted`).
    pub errors: u64,
    /// Operations whose duration was measured.
    pub timed_ops: u64,
    /// Summed duration of the timed operations, ns.
    pub total_ns: u64,
    /// Mean duration of a timed operation, ns; `null` when none was timed.
    pub mean_ns: Option<u64>,
    /// Bytes of the timed operations divided by their summed duration: the speed of an
    /// operation while it runs. With several instances at once, `rate × instances`
    /// bounds the aggregate bandwidth from above. `null` when none was timed.
    pub rate_bytes_per_sec: Option<f64>,
    /// Duration of one operation at each configured percentile, ns.
    #[serde(flatten)]
    pub percentiles: Percentiles,
    /// The durations' histogram (timed operations), ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hist: Option<Histogram>,
}

/// How CPU time was measured, and the process's CPU time during the session.
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct CpuInfo {
    /// `sampled` or `exact`.
    pub mode: String,
    /// What measured it: `perf_event task-clock`, `timer_create(CLOCK_THREAD_CPUTIME_ID)`
    /// (sampled) or `perf_event task-clock`, `CLOCK_THREAD_CPUTIME_ID` (exact).
    pub source: String,
    /// Sampled mode: samples per second of each thread's CPU time.
    pub hz: Option<u32>,
    /// Why the preferred source was not used, if it was not.
    pub fallback_reason: Option<String>,
    /// Why instructions and cycles are not reported, if they are not.
    pub hw_counters_unavailable: Option<String>,
    /// CPU time of the whole process (all threads, user + system), ns.
    pub process_cpu_ns: u64,
    /// Sampled mode: CPU time the samples account for (samples × period), ns.
    pub sampled_cpu_ns: Option<u64>,
    /// CPU time outside every measured function (threads that run no measured code
    /// included), ns.
    pub unattributed_cpu_ns: u64,
}

/// How the `icount` section was counted (feature `hotpath-callgrind`).
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct IcountInfo {
    /// The tool that counted, from its dump: `callgrind-3.19.0`; `null` when nothing was
    /// counted.
    pub tool: Option<String>,
    /// The callgrind dump the counts were read from, or `null`.
    pub dump: Option<String>,
    /// Instructions callgrind counted in the whole process from the start of the
    /// session to the report (`null` when nothing was counted).
    pub total: Option<u64>,
    /// Why no function has instruction counts, when none has: not running under
    /// valgrind, the dump could not be read.
    pub unavailable: Option<String>,
}

/// Instructions (callgrind's `Ir`) executed in one function's calls.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct FunctionIcount {
    /// Calls counted by the profiler (every level of a recursion), as the row's `calls`.
    pub calls: u64,
    /// Instructions from entering to leaving the function, everything it called included;
    /// a recursion (direct or through other functions) counts its outermost call only.
    pub inclusive: u64,
    /// Instructions in the function's own code (what the compiler inlined into it
    /// included), every level of a recursion: callgrind's exclusive cost, calls of any
    /// function left out.
    #[serde(rename = "self")]
    pub self_: u64,
}

/// CPU time of one function's calls.
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct FunctionCpu {
    /// CPU time, inclusive of measured children; recursion counts the outermost call.
    pub cpu_ns: u64,
    /// CPU time not spent in measured children.
    pub self_cpu_ns: u64,
    /// Wall time not on a CPU: `wall_ns.total - cpu_ns`.
    pub wait_ns: u64,
    /// `cpu_ns / wall_ns.total`, 0..=1.
    pub cpu_share: f64,
    /// Sampled mode: samples with the function on the stack.
    pub samples: Option<u64>,
    /// Exact mode: voluntary context switches (the thread blocked).
    pub voluntary_switches: Option<u64>,
    /// Exact mode: involuntary context switches (preempted).
    pub involuntary_switches: Option<u64>,
    /// Exact mode with a PMU: instructions retired.
    pub instructions: Option<u64>,
    /// Exact mode with a PMU: cycles.
    pub cycles: Option<u64>,
    /// Exact mode: CPU time of one call at each configured percentile.
    #[serde(flatten)]
    pub percentiles: Percentiles,
    /// Exact mode: the histogram of CPU time per call, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hist: Option<Histogram>,
}

/// Allocations of the whole process during the session.
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct AllocTotal {
    /// Allocations.
    pub count: u64,
    /// Bytes allocated.
    pub bytes: u64,
    /// Bytes freed.
    pub freed_bytes: u64,
    /// Allocations made outside every measured function.
    pub unattributed_count: u64,
    /// Bytes allocated outside every measured function.
    pub unattributed_bytes: u64,
    /// Bytes freed outside every measured function.
    pub unattributed_freed_bytes: u64,
}

/// Allocations of one function, over its timed calls (scaled to all calls when sampled).
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct FunctionAlloc {
    /// Allocations, inclusive of measured children; recursion counts the outermost call.
    pub count: u64,
    /// Bytes allocated, inclusive; recursion counts the outermost call.
    pub bytes: u64,
    /// Allocations not made inside measured children.
    pub self_count: u64,
    /// Bytes not allocated inside measured children.
    pub self_bytes: u64,
    /// Bytes freed inside the calls (inclusive), whoever allocated them.
    pub freed_bytes: u64,
    /// `bytes - freed_bytes`: what the calls left allocated (negative when they freed
    /// more than they allocated).
    pub retained_bytes: i64,
    /// Mean allocations of one call (each recursive level counts its own).
    pub per_call_count: f64,
    /// Mean bytes allocated by one call.
    pub per_call_bytes: u64,
    /// Bytes allocated by one call at each configured percentile: `p50`, `p99.9`, ...
    #[serde(flatten)]
    pub percentiles: Percentiles,
    /// The histogram of bytes allocated per call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hist: Option<Histogram>,
}

impl Report {
    /// What tables show for a function named in another section's row (a lock holder, a
    /// query's caller): its [`Function::display_name`] when `function` is the full name
    /// or label of a function of the report, else `function` as given.
    pub fn display_name_of<'a>(&'a self, function: &'a str) -> &'a str {
        self.functions
            .iter()
            .find(|f| f.full_display_name() == function)
            .map_or(function, Function::display_name)
    }
}

impl Function {
    /// What tables show: the label if there is one, else the short name (when the
    /// report has one), else the full name.
    pub fn display_name(&self) -> &str {
        self.label
            .as_deref()
            .or(self.short_name.as_deref())
            .unwrap_or(&self.name)
    }

    /// The label if there is one, else the full name: a stable identifier across runs
    /// (metric labels, diffs).
    pub fn full_display_name(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.name)
    }
}

// ---------------------------------------------------------------------------------------
// Data flow: channels, streams, futures (since schema version 2)
// ---------------------------------------------------------------------------------------

/// Sends that found their channel full and waited for room.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct SendBlocked {
    /// Such sends (every one, timed or not).
    pub count: u64,
    /// Time they waited (the timed ones), ns.
    pub total_ns: u64,
    /// Longest wait, ns.
    pub max_ns: u64,
}

/// One row of the channels section: a `channel!` call site and message type (or one
/// instance, with `iter = true`).
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct ChannelEntry {
    /// The label, or `file:line`; `label-2`, ... for later `iter` instances.
    pub name: String,
    /// `label = "..."` given to the macro.
    pub label: Option<String>,
    /// Source file of the `channel!`.
    pub file: String,
    /// Its line.
    pub line: u32,
    /// The message type.
    pub type_name: String,
    /// Channels created at this site with this message type.
    pub instances: u64,
    /// `std`, `crossbeam`, `flume`, `async-channel`, `tokio` or `futures`.
    pub backend: String,
    /// `bounded`, `unbounded`, `rendezvous`, `oneshot`, `broadcast` or `watch`.
    pub kind: String,
    /// Capacity (the largest of the instances); `null` when unbounded or unknown.
    pub capacity: Option<u64>,
    /// Messages sent.
    pub sent: u64,
    /// Messages received (broadcast: by every receiver; watch: changes observed).
    pub received: u64,
    /// Sends that failed: the channel was closed.
    pub send_errors: u64,
    /// Messages left in a channel when its last receiver dropped (broadcast: what each
    /// receiver left).
    pub unread: u64,
    /// Most messages queued at once in one instance.
    pub max_depth: u64,
    /// Broadcast: messages receivers missed (`Lagged`); watch: sends a receiver did not
    /// observe one by one (coalesced).
    pub lagged: u64,
    /// Sends that waited for room.
    pub send_blocked: SendBlocked,
    /// From the send call to the receive, per timed message, ns; `null` when none was
    /// timed.
    pub latency_ns: Option<DistNs>,
}

/// One row of the streams section: a `stream!` call site and item type.
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct StreamEntry {
    /// The label, or `file:line`.
    pub name: String,
    /// `label = "..."` given to the macro.
    pub label: Option<String>,
    /// Source file of the `stream!`.
    pub file: String,
    /// Its line.
    pub line: u32,
    /// The item type.
    pub type_name: String,
    /// Streams wrapped at this site with this item type.
    pub instances: u64,
    /// Items yielded.
    pub items: u64,
    /// Polls.
    pub polls: u64,
    /// Polls that returned `Pending`.
    pub pending: u64,
    /// Instances that ended (`Ready(None)`).
    pub completed: u64,
    /// Instances dropped before they ended.
    pub dropped: u64,
    /// From an instance's first poll to its first item, ns; `null` when none was timed.
    pub first_item_ns: Option<DistNs>,
    /// Time inside the polls, ns (timed polls, scaled to all polls when sampled).
    pub busy_ns: u64,
}

/// One row of the futures section: a `future!`, a `#[future_fn]`, or an async
/// `#[measure(future = true)]`.
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct FutureEntry {
    /// The enclosing function (`future!`) or the function's path.
    pub name: String,
    /// `label = "..."` given.
    pub label: Option<String>,
    /// Source file.
    pub file: String,
    /// Source line.
    pub line: u32,
    /// Futures finished: completed, cancelled or never polled.
    pub calls: u64,
    /// Polls of the timed calls.
    pub polls: u64,
    /// Futures that returned `Ready`.
    pub completed: u64,
    /// Futures dropped after a poll, before `Ready`.
    pub cancelled: u64,
    /// Futures dropped before their first poll.
    pub never_polled: u64,
    /// From the first poll to `Ready` or the drop, per timed call, ns.
    pub lifetime_ns: Option<DistNs>,
    /// Time inside the polls of one call, per timed call, ns.
    pub busy_ns: Option<DistNs>,
}

impl ChannelEntry {
    /// The name (the label, `file:line`, or `label-2`, ... for `iter` instances).
    pub fn display_name(&self) -> &str {
        &self.name
    }
}

impl StreamEntry {
    /// The name (the label, `file:line`, or `label-2`, ... for `iter` instances).
    pub fn display_name(&self) -> &str {
        &self.name
    }
}

impl FutureEntry {
    /// The label if there is one, else the name.
    pub fn display_name(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.name)
    }
}
