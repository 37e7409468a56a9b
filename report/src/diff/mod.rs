//! Comparison of two reports: `hotpath diff BASE.json HEAD.json`, for CI on pull requests;
//! or of several runs a side, `hotpath diff BASE_DIR/ HEAD_DIR/` ([`diff_runs`]).
//!
//! # What is compared
//!
//! Rows of the two reports are matched by identity, never by position:
//!
//! | row | matched by | compared |
//! |---|---|---|
//! | `(process)` | — | `elapsed_ns`; `cpu.process_cpu_ns`; `alloc_total.count`, `.bytes` |
//! | a function | `name` + `label` | `calls`; `wall_ns` `total`, `self` (unless equal to `total` in both), `mean` and each percentile both reports show (unless called once in both: they equal `total`); `cpu.cpu_ns`; `icount` `inclusive` (metric `icount`), `self` (`icount self`); `alloc` `count`, `bytes`, `per_call_count`, `per_call_bytes` |
//! | an I/O entry | `name` + `type_name` | per direction in use: `ops`, `bytes`, `errors`, `mean_ns` |
//! | a lock mode | kind (`mutex`, `rw_lock`) + `name` + `type_name` + mode | `acquisitions`, `contended`, `wait_ns.total`, `hold_ns.mean` |
//!
//! A function in both reports' `waits` sections is also compared by each kind of waiting
//! either report shows (`wait lock`, `wait i/o`, ...), as times.
//!
//! A row only in HEAD is *added*, only in BASE *removed*. Two rows of one report with the
//! same identity (one label used twice in one function) are matched in the order listed.
//! The `alloc`, `cpu` and `icount` quantities are compared only when both reports have the
//! section.
//!
//! Times are estimates and compared with a relative threshold: a time is
//! [`Verdict::Slower`] when HEAD exceeds BASE by more than the threshold,
//! [`Verdict::Faster`] when it is below by more, else [`Verdict::Noise`]. A BASE of 0 has
//! no ratio: any HEAD above 0 is slower and its change reads `new`. With a floor
//! ([`diff_with_floor`], `--min-delta`), a time that moved by less than the floor is noise
//! whatever its ratio, so microsecond jitter in rarely called functions cannot fail CI; a
//! per-call time is held to it multiplied by the calls, so that 100 ns more on each of a
//! million calls still counts.
//! Counts and bytes are exact: every difference is [`Verdict::Increased`] or [`Verdict::Decreased`]. A quantity
//! present in one report only (`wall_ns` is `null` in count-only mode) is
//! [`Verdict::NotComparable`].
//!
//! # What is a regression
//!
//! A slower time; more instructions (`icount`, inclusive or self: callgrind's counts are
//! exact and the same in every run, so one instruction more is a change of the code);
//! more allocations or bytes per call; more I/O operations or bytes on an
//! entry in both reports; more contended acquisitions of a lock. A changed call count is reported but is not a regression by
//! itself: the workload changed, and the per-call quantities say whether each call got
//! worse.
//!
//! # Usage
//!
//! ```
//! # fn run(base: &hotpath_report::Report, head: &hotpath_report::Report) {
//! let threshold = hotpath_report::diff::parse_threshold("10%").unwrap();
//! let d = hotpath_report::diff::diff(base, head, threshold);
//! print!("{}", d.to_table());
//! if d.has_regression() {
//!     std::process::exit(1);
//! }
//! # }
//! ```

use std::fmt;

use crate::{percentile_label, IoDirection, IoEntry, Section};

mod compare;
mod render; // `Diff::to_table`, `Diff::to_markdown`
mod runs;
mod threshold;

pub use compare::{diff, diff_with_floor};
pub use runs::{diff_runs, SIGNIFICANCE};
pub use threshold::{parse_min_delta, parse_threshold, MinDeltaError, ThresholdError};

/// Identity of a compared row.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RowKey {
    /// The process-level totals.
    Process,
    /// A measured function or block.
    Function {
        /// Its `name`.
        name: String,
        /// Its `label`.
        label: Option<String>,
        /// 0 for the first row with this name and label in the report, 1 for the second, ...
        nth: usize,
    },
    /// One mode of a lock site (`mutexes`, `rw_locks`).
    Lock {
        /// `mutex` or `rw_lock`.
        kind: String,
        /// Its `name`.
        name: String,
        /// The wrapped type.
        type_name: String,
        /// `exclusive` (mutexes), `read`, `write` or `upgradable`.
        mode: String,
        /// 0 for the first row with this identity in the report, 1 for the second, ...
        nth: usize,
    },
    /// An I/O entry.
    Io {
        /// Its `name`.
        name: String,
        /// The wrapped type.
        type_name: String,
        /// 0 for the first entry with this name and type in the report, 1 for the second, ...
        nth: usize,
    },
    /// A SQL query, HTTP client endpoint or server route.
    Service {
        /// `sql`, `http` or `server`.
        section: String,
        /// The normalised query, the endpoint or the route.
        key: String,
        /// The issuing function (`sql`, `http`).
        source: Option<String>,
        /// 0 for the first row with this identity in the report, 1 for the second, ...
        nth: usize,
    },
    /// A channel, stream or future entry.
    Flow {
        /// `channel`, `stream` or `future`.
        what: &'static str,
        /// Its `name`.
        name: String,
        /// The message or item type (`""` for futures).
        type_name: String,
        /// 0 for the first entry with this identity in the report, 1 for the second, ...
        nth: usize,
    },
}

impl RowKey {
    /// The section whose rows this is (`None`: the process totals).
    pub fn section(&self) -> Option<Section> {
        match self {
            RowKey::Process => None,
            RowKey::Function { .. } => Some(Section::Timing),
            RowKey::Lock { kind, .. } => Some(if kind == "mutex" {
                Section::Mutexes
            } else {
                Section::RwLocks
            }),
            RowKey::Io { .. } => Some(Section::Io),
            RowKey::Service { section, .. } => match section.as_str() {
                "sql" => Some(Section::Sql),
                "server" => Some(Section::Server),
                _ => Some(Section::Http),
            },
            RowKey::Flow { what, .. } => Some(match *what {
                "channel" => Section::Channels,
                "stream" => Section::Streams,
                _ => Section::Futures,
            }),
        }
    }
}

/// How `hotpath diff` compares a section. Every section is listed: a new one does not
/// compile until it says how (or why not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compared {
    /// Rows of its own, matched by identity ([`RowKey::section`]).
    Rows,
    /// Quantities of another section's rows: the functions' allocations, CPU time and
    /// waits ([`Change::section`]).
    On(Section),
    /// Not compared, and why.
    None(&'static str),
}

/// How `section` is compared.
pub fn compared(section: Section) -> Compared {
    match section {
        Section::Timing
        | Section::Io
        | Section::Channels
        | Section::Streams
        | Section::Futures
        | Section::Sql
        | Section::Http
        | Section::Server
        | Section::Mutexes
        | Section::RwLocks => Compared::Rows,
        Section::Alloc | Section::Cpu | Section::Icount | Section::Waits => {
            Compared::On(Section::Timing)
        }
        Section::Threads => Compared::None(
            "threads are told apart by ids and names a run gives them; the process's CPU \
             time and allocations are compared on the (process) row",
        ),
        Section::Tokio => Compared::None(
            "a runtime's workers and tasks describe the run's load, not its code: compare the \
             functions and futures that run on it",
        ),
        Section::Debug => Compared::None(
            "debug values are the program's own last values, not quantities of the run",
        ),
        Section::Stacks => Compared::None(
            "paths are compared through the functions on them; `hotpath export` gives the \
             trees of both runs",
        ),
    }
}

/// A direction of an I/O entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Reads.
    Read,
    /// Writes.
    Write,
    /// Flushes.
    Flush,
    /// Shutdowns.
    Shutdown,
    /// Seeks.
    Seek,
}

impl Direction {
    const ALL: [Direction; 5] = [
        Direction::Read,
        Direction::Write,
        Direction::Flush,
        Direction::Shutdown,
        Direction::Seek,
    ];

    fn of(self, e: &IoEntry) -> &IoDirection {
        match self {
            Direction::Read => &e.read,
            Direction::Write => &e.write,
            Direction::Flush => &e.flush,
            Direction::Shutdown => &e.shutdown,
            Direction::Seek => &e.seek,
        }
    }

    /// Only reads and writes move bytes.
    fn moves_bytes(self) -> bool {
        matches!(self, Direction::Read | Direction::Write)
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::Read => "read",
            Direction::Write => "write",
            Direction::Flush => "flush",
            Direction::Shutdown => "shutdown",
            Direction::Seek => "seek",
        })
    }
}

/// A compared quantity; its `Display` is the name shown in the outputs (`total`, `p95`,
/// `read ops`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Metric {
    /// Process: `elapsed_ns`.
    Elapsed,
    /// Function: `calls`.
    Calls,
    /// Function: `wall_ns.total`.
    Total,
    /// Function: `wall_ns.self`.
    SelfTime,
    /// Function: `wall_ns.mean`.
    Avg,
    /// Function: `wall_ns.p<P>`.
    Percentile(f64),
    /// Function: `cpu.cpu_ns`; process: `cpu.process_cpu_ns`.
    Cpu,
    /// Function: `icount.inclusive`, instructions counted by callgrind.
    Icount,
    /// Function: `icount.self`.
    IcountSelf,
    /// Function: `alloc.count`; process: `alloc_total.count`.
    Allocs,
    /// Function: `alloc.bytes`; process: `alloc_total.bytes`.
    AllocBytes,
    /// Function: `alloc.per_call_count`.
    AllocsPerCall,
    /// Function: `alloc.per_call_bytes`.
    BytesPerCall,
    /// I/O entry: `ops` of a direction.
    IoOps(Direction),
    /// I/O entry: `bytes` of a direction.
    IoBytes(Direction),
    /// I/O entry: `errors` of a direction.
    IoErrors(Direction),
    /// I/O entry: `mean_ns` of a direction.
    IoAvg(Direction),
    /// Channel, stream or future: an exact count (`sent`, `items`, `cancelled`, ...).
    FlowCount(&'static str),
    /// Channel, stream or future: a total time (`blocked`, `busy`).
    FlowTime(&'static str),
    /// Channel, stream or future: a mean time per message, instance or call
    /// (`latency avg`, `lifetime avg`).
    FlowAvg(&'static str),
    /// Function: a kind of waiting (`waits`), by its column title: `Lock`, `I/O`, ...
    Wait(&'static str),
    /// Lock mode: `acquisitions`.
    LockAcquisitions,
    /// Lock mode: `contended`.
    LockContended,
    /// Lock mode: `wait_ns.total`.
    LockWait,
    /// Lock mode: `hold_ns.mean`.
    LockHoldAvg,
    /// SQL, HTTP, server row: failed queries, requests without a response, 5xx and
    /// aborted responses.
    Errors,
}

/// What a quantity is, for comparing and printing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A duration in ns, compared with the threshold.
    Time,
    /// An exact count.
    Count,
    /// An exact number of bytes.
    Bytes,
    /// An exact mean count per call.
    PerCall,
}

impl Metric {
    /// What the quantity is.
    pub fn unit(self) -> Unit {
        self.kind().0
    }

    /// A time per call or per operation, held to `--min-delta` multiplied by the calls.
    fn is_per_call(self) -> bool {
        self.kind().1
    }

    /// An exact quantity whose increase is a regression.
    fn worse_when_higher(self) -> bool {
        self.kind().2
    }

    /// The quantity's unit, whether it is a time per call or operation, and whether an
    /// increase is a regression: one row a metric.
    fn kind(self) -> (Unit, bool, bool) {
        use Unit::{Bytes, Count, PerCall, Time};
        match self {
            Metric::Elapsed
            | Metric::Total
            | Metric::SelfTime
            | Metric::Cpu
            | Metric::FlowTime(_)
            | Metric::Wait(_)
            | Metric::LockWait => (Time, false, false),
            Metric::Avg
            | Metric::Percentile(_)
            | Metric::IoAvg(_)
            | Metric::FlowAvg(_)
            | Metric::LockHoldAvg => (Time, true, false),
            Metric::Calls
            | Metric::Allocs
            | Metric::IoErrors(_)
            | Metric::FlowCount(_)
            | Metric::LockAcquisitions => (Count, false, false),
            Metric::Icount
            | Metric::IcountSelf
            | Metric::IoOps(_)
            | Metric::LockContended
            | Metric::Errors => (Count, false, true),
            Metric::AllocBytes => (Bytes, false, false),
            Metric::BytesPerCall | Metric::IoBytes(_) => (Bytes, false, true),
            Metric::AllocsPerCall => (PerCall, false, true),
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Metric::Elapsed => f.write_str("elapsed"),
            Metric::Calls => f.write_str("calls"),
            Metric::Total => f.write_str("total"),
            Metric::SelfTime => f.write_str("self"),
            Metric::Avg => f.write_str("avg"),
            Metric::Percentile(p) => write!(f, "p{}", percentile_label(*p)),
            Metric::Cpu => f.write_str("cpu"),
            Metric::Icount => f.write_str("icount"),
            Metric::IcountSelf => f.write_str("icount self"),
            Metric::Allocs => f.write_str("allocs"),
            Metric::AllocBytes => f.write_str("alloc bytes"),
            Metric::AllocsPerCall => f.write_str("allocs/call"),
            Metric::BytesPerCall => f.write_str("bytes/call"),
            Metric::IoOps(d) => write!(f, "{d} ops"),
            Metric::IoBytes(d) => write!(f, "{d} bytes"),
            Metric::IoErrors(d) => write!(f, "{d} errors"),
            Metric::IoAvg(d) => write!(f, "{d} avg"),
            Metric::FlowCount(n) | Metric::FlowTime(n) | Metric::FlowAvg(n) => f.write_str(n),
            Metric::Wait(kind) => write!(f, "wait {}", kind.to_lowercase()),
            Metric::LockAcquisitions => f.write_str("acquisitions"),
            Metric::LockContended => f.write_str("contended"),
            Metric::LockWait => f.write_str("wait total"),
            Metric::LockHoldAvg => f.write_str("hold avg"),
            Metric::Errors => f.write_str("errors"),
        }
    }
}

/// A quantity as the report holds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// ns, bytes or a count.
    Int(u64),
    /// A mean count (`per_call_count`).
    Real(f64),
}

impl Value {
    fn as_f64(self) -> f64 {
        match self {
            Value::Int(v) => v as f64,
            Value::Real(v) => v,
        }
    }
}

/// HEAD minus BASE.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Delta {
    /// Of two integer quantities, exact.
    Int(i128),
    /// Of two mean counts.
    Real(f64),
}

/// How one quantity changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// A time above BASE by more than the threshold (or above a BASE of 0).
    Slower,
    /// A time below BASE by more than the threshold.
    Faster,
    /// A time within the threshold of BASE; with several runs a side ([`diff_runs`]),
    /// also a change within the spread of the runs.
    Noise,
    /// An exact quantity that grew.
    Increased,
    /// An exact quantity that shrank.
    Decreased,
    /// An exact quantity equal in both reports.
    Unchanged,
    /// Present in one report only.
    NotComparable,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::Noise => "noise",
            Verdict::Increased => "increased",
            Verdict::Decreased => "decreased",
            Verdict::Unchanged => "unchanged",
            Verdict::NotComparable => "n/a",
        })
    }
}

/// One quantity of one row present in both reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The row.
    pub row: RowKey,
    /// The row as shown: the function's label or name, `io: <name>`, `(process)`; with
    /// the name, type or `#2` added when two rows would read the same.
    pub shown: String,
    /// The quantity.
    pub metric: Metric,
    /// In BASE, if there.
    pub base: Option<Value>,
    /// In HEAD, if there.
    pub head: Option<Value>,
    /// How it changed.
    pub verdict: Verdict,
}

impl Change {
    /// The section the quantity belongs to: its row's, or for a function's allocations,
    /// CPU time and waits, `alloc`, `cpu` and `waits` (`None`: the process totals).
    pub fn section(&self) -> Option<Section> {
        let row = self.row.section()?;
        Some(match (row, self.metric) {
            (
                Section::Timing,
                Metric::Allocs | Metric::AllocBytes | Metric::AllocsPerCall | Metric::BytesPerCall,
            ) => Section::Alloc,
            (Section::Timing, Metric::Cpu) => Section::Cpu,
            (Section::Timing, Metric::Icount | Metric::IcountSelf) => Section::Icount,
            (Section::Timing, Metric::Wait(_)) => Section::Waits,
            (row, _) => row,
        })
    }

    /// HEAD minus BASE, when both have the quantity.
    pub fn delta(&self) -> Option<Delta> {
        match (self.base?, self.head?) {
            (Value::Int(b), Value::Int(h)) => Some(Delta::Int(h as i128 - b as i128)),
            (b, h) => Some(Delta::Real(h.as_f64() - b.as_f64())),
        }
    }

    /// `(head - base) / base`; `None` when a side is missing, or BASE is 0 and HEAD is not
    /// (no ratio). Two zeros are `Some(0.0)`.
    pub fn relative(&self) -> Option<f64> {
        let (b, h) = (self.base?.as_f64(), self.head?.as_f64());
        if b == h {
            Some(0.0)
        } else if b == 0.0 {
            None
        } else {
            Some((h - b) / b)
        }
    }

    /// A slower time, or more allocations, bytes per call or I/O on a row in both reports.
    pub fn is_regression(&self) -> bool {
        match self.verdict {
            Verdict::Slower => true,
            Verdict::Increased => self.metric.worse_when_higher(),
            _ => false,
        }
    }

    /// The opposite of a regression: a faster time, or fewer of a quantity whose increase
    /// is a regression.
    pub fn is_improvement(&self) -> bool {
        match self.verdict {
            Verdict::Faster => true,
            Verdict::Decreased => self.metric.worse_when_higher(),
            _ => false,
        }
    }

    /// Size of the change for ordering: |relative|, infinite when BASE is 0.
    fn magnitude(&self) -> f64 {
        self.relative().map_or(f64::INFINITY, f64::abs)
    }
}

/// A row present in one report only.
#[derive(Clone, Debug, PartialEq)]
pub struct Unmatched {
    /// The row.
    pub row: RowKey,
    /// The row as shown.
    pub shown: String,
    /// What it did: `16 calls, 3.20 ms total`, `33 read ops (1.00 MiB)`.
    pub summary: String,
}

/// Counts of the verdicts, as on the summary line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Times slower than BASE by more than the threshold.
    pub slower: usize,
    /// Times faster by more than the threshold.
    pub faster: usize,
    /// Times within the threshold.
    pub noise: usize,
    /// Exact quantities that differ.
    pub changed_exact: usize,
    /// Exact quantities that are equal.
    pub unchanged_exact: usize,
    /// Quantities present in one report only.
    pub not_comparable: usize,
    /// Rows only in HEAD.
    pub added: usize,
    /// Rows only in BASE.
    pub removed: usize,
    /// Changes that are regressions.
    pub regressions: usize,
}

/// The comparison of two reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Diff {
    /// The relative threshold of the time comparisons, e.g. `0.1`.
    pub threshold: f64,
    /// Time changes smaller than this (ns) are noise whatever their ratio; 0 = no floor.
    pub min_delta_ns: u64,
    /// Runs of BASE compared ([`diff_runs`]); 1 for a single report.
    pub base_runs: usize,
    /// Runs of HEAD compared.
    pub head_runs: usize,
    /// With several runs, the largest p-value that counted as a change.
    pub significance: Option<f64>,
    /// HEAD's caller (BASE's is in `notes` when it differs).
    pub caller: String,
    /// Every quantity compared, process first, then functions in HEAD's order, then I/O
    /// entries; each row's quantities in the order of [`Metric`].
    pub changes: Vec<Change>,
    /// Rows only in HEAD, in its order.
    pub added: Vec<Unmatched>,
    /// Rows only in BASE, in its order.
    pub removed: Vec<Unmatched>,
    /// Differences in how the reports were made (percentiles, sampling rates, sections,
    /// clock, caller, CPU mode), and each report's own notes.
    pub notes: Vec<String>,
}

impl Diff {
    /// Whether any change is a regression ([`Change::is_regression`]).
    pub fn has_regression(&self) -> bool {
        self.changes.iter().any(Change::is_regression)
    }

    /// The regressions, biggest relative change first.
    pub fn regressions(&self) -> Vec<&Change> {
        biggest_first(self.changes.iter().filter(|c| c.is_regression()))
    }

    /// The improvements, biggest relative change first.
    pub fn improvements(&self) -> Vec<&Change> {
        biggest_first(self.changes.iter().filter(|c| c.is_improvement()))
    }

    /// Everything else but the unchanged exact quantities, in the order of `changes`.
    pub fn others(&self) -> Vec<&Change> {
        self.changes
            .iter()
            .filter(|c| {
                !c.is_regression() && !c.is_improvement() && c.verdict != Verdict::Unchanged
            })
            .collect()
    }

    /// The change of `metric` (as displayed: `total`, `p95`, `read ops`) in the row shown
    /// as `shown`.
    pub fn find(&self, shown: &str, metric: &str) -> Option<&Change> {
        self.changes
            .iter()
            .find(|c| c.shown == shown && c.metric.to_string() == metric)
    }

    /// Counts of the verdicts.
    pub fn summary(&self) -> Summary {
        let mut s = Summary {
            added: self.added.len(),
            removed: self.removed.len(),
            ..Summary::default()
        };
        for c in &self.changes {
            match c.verdict {
                Verdict::Slower => s.slower += 1,
                Verdict::Faster => s.faster += 1,
                Verdict::Noise => s.noise += 1,
                Verdict::Increased | Verdict::Decreased => s.changed_exact += 1,
                Verdict::Unchanged => s.unchanged_exact += 1,
                Verdict::NotComparable => s.not_comparable += 1,
            }
            s.regressions += usize::from(c.is_regression());
        }
        s
    }
}

fn biggest_first<'a>(changes: impl Iterator<Item = &'a Change>) -> Vec<&'a Change> {
    let mut v: Vec<&Change> = changes.collect();
    // Stable: equal changes keep the order of `changes`.
    v.sort_by(|a, b| b.magnitude().total_cmp(&a.magnitude()));
    v
}

/// `1` → `100%`, `0.055` → `5.5%`.
pub(crate) fn percent_label(fraction: f64) -> String {
    format!("{}%", percentile_label(fraction * 100.0))
}
