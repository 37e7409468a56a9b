//! The columns of every table the report is shown in, declared once: the exit report's
//! text tables ([`super::table`]) and the console's views (`hotpath console`) both build
//! their tables from these. A column has a title, an alignment, which renderer shows it,
//! and how a row gives its cell: the text shown and the value it sorts by.

mod locks;
mod service;

pub use locks::{
    debug, holder_rows, holders, mutex_rows, mutexes, rw_lock_rows, rw_locks, waits, waits_rows,
    HolderRow, RwLockRow, WaitsRow,
};
pub use service::{http, server, sql, sql_rows, tokio, tokio_rows, TokioRow};

use super::format::{
    bytes, count, duration, per_call, per_call_duration, percent, rate, signed_bytes, twin_names,
    Twin,
};
use super::model::{
    percentile_label, ChannelEntry, DistNs, Function, FunctionAlloc, FunctionCpu, FunctionIo,
    FutureEntry, IoDirection, IoEntry, Report, StackPath, StreamEntry, ThreadRow,
};

/// How a column's cells line up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Text: left-aligned, sorted A to Z first.
    Left,
    /// Numbers: right-aligned, sorted largest first.
    Right,
}

/// Which renderers show a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// The exit report and the console.
    Both,
    /// Only the exit report (the console has them in its inspect pane, so that its
    /// tables fit 120 columns).
    Exit,
    /// Only the console.
    Console,
}

impl Show {
    /// Whether a column shown this way is in the exit report.
    pub fn in_exit(self) -> bool {
        self != Show::Console
    }

    /// Whether a column shown this way is in the console.
    pub fn in_console(self) -> bool {
        self != Show::Exit
    }
}

/// The value a cell sorts by. Missing values ("-") sort last in either direction.
#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    /// Sorted as text.
    Text(String),
    /// Sorted as a number.
    Num(f64),
    /// No value.
    Missing,
}

/// One cell: the text shown and the value it sorts by.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The text shown.
    pub text: String,
    /// The value it sorts by.
    pub key: Key,
}

impl Cell {
    /// Text sorted by `key`.
    pub fn text(text: impl Into<String>, key: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            key: Key::Text(key.into()),
        }
    }

    /// Text sorted by the number `key`.
    pub fn num(text: String, key: f64) -> Cell {
        Cell {
            text,
            key: Key::Num(key),
        }
    }

    /// `-`, sorted last.
    pub fn missing() -> Cell {
        Cell {
            text: "-".into(),
            key: Key::Missing,
        }
    }

    /// A count, `1,234`.
    pub fn count(n: u64) -> Cell {
        Cell::num(count(n), n as f64)
    }

    /// A duration, `1.20 ms`.
    pub fn duration(ns: u64) -> Cell {
        Cell::num(duration(ns), ns as f64)
    }

    /// A size, `1.50 KiB`.
    pub fn bytes(b: u64) -> Cell {
        Cell::num(bytes(b), b as f64)
    }

    /// `f(v)` sorted by `v`, or `-`.
    pub fn opt(v: Option<u64>, f: fn(u64) -> String) -> Cell {
        v.map_or_else(Cell::missing, |v| Cell::num(f(v), v as f64))
    }
}

type CellFn<'a, R> = Box<dyn Fn(&R) -> Cell + 'a>;

/// One column of a table over rows of type `R`.
pub struct Column<'a, R> {
    /// The title in the header.
    pub title: String,
    /// How the cells line up.
    pub align: Align,
    /// Which renderers show it.
    pub show: Show,
    /// Whether it holds text (sorted A to Z first; the console aligns it left even when
    /// the exit report aligns it right).
    pub text: bool,
    cell: CellFn<'a, R>,
}

impl<R> std::fmt::Debug for Column<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Column")
            .field("title", &self.title)
            .field("align", &self.align)
            .field("show", &self.show)
            .finish()
    }
}

impl<'a, R> Column<'a, R> {
    fn new(title: impl Into<String>, align: Align, cell: impl Fn(&R) -> Cell + 'a) -> Self {
        Column {
            title: title.into(),
            align,
            show: Show::Both,
            text: align == Align::Left,
            cell: Box::new(cell),
        }
    }

    /// A right-aligned column.
    fn right(title: impl Into<String>, cell: impl Fn(&R) -> Cell + 'a) -> Self {
        Column::new(title, Align::Right, cell)
    }

    /// A left-aligned column.
    fn left(title: impl Into<String>, cell: impl Fn(&R) -> Cell + 'a) -> Self {
        Column::new(title, Align::Left, cell)
    }

    fn only(mut self, show: Show) -> Self {
        self.show = show;
        self
    }

    /// Marks a right-aligned column as holding text.
    fn text(mut self) -> Self {
        self.text = true;
        self
    }

    /// The cell of `row`.
    pub fn cell(&self, row: &R) -> Cell {
        (self.cell)(row)
    }
}

/// The columns of a table; keep those a renderer shows with [`Show::in_exit`] or
/// [`Show::in_console`].
pub type Columns<'a, R> = Vec<Column<'a, R>>;

/// `P50`, `P99.9`.
pub fn percentile_title(p: f64) -> String {
    format!("P{}", percentile_label(p))
}

/// A function's name as tables show it: the label or name, ` (async)` for an async
/// function, ` *` when its times come from a sample of its calls, and ` (running)` when
/// a call had not returned.
pub fn function_name(f: &Function) -> String {
    let mut name = f.display_name().to_string();
    if f.is_async {
        name.push_str(" (async)");
    }
    if f.sampled {
        name.push_str(" *");
    }
    if f.running.is_some() {
        name.push_str(" (running)");
    }
    name
}

fn name_column<'a, R: 'a>(title: &str, f: impl Fn(&R) -> &Function + 'a) -> Column<'a, R> {
    Column::left(title.to_string(), move |r| {
        let f = f(r);
        Cell::text(function_name(f), f.display_name())
    })
}

/// `timing`: wall time per function. Rows: `report.functions`.
pub fn timing(r: &Report) -> Columns<'_, Function> {
    let floor = r.clock_floor_ns;
    let per_call = move |v: Option<u64>| {
        v.map_or_else(Cell::missing, |v| {
            Cell::num(per_call_duration(v, floor), v as f64)
        })
    };
    let mut c: Columns<'_, Function> = vec![
        name_column("Function", |f: &Function| f),
        Column::right("Calls", |f: &Function| Cell::count(f.calls)),
        Column::right("Avg", move |f: &Function| {
            per_call(f.wall_ns.as_ref().map(|w| w.mean))
        }),
    ];
    for &p in &r.percentiles {
        c.push(Column::right(percentile_title(p), move |f: &Function| {
            per_call(f.wall_ns.as_ref().and_then(|w| w.percentiles.get(p)))
        }));
    }
    // With the time so far of calls still running, as the row's name says.
    let timed = |f: &Function| f.wall_ns.is_some() || f.running.is_some();
    c.push(Column::right("Total", move |f: &Function| {
        Cell::opt(timed(f).then(|| f.total_with_running()), duration)
    }));
    c.push(Column::right("Self", move |f: &Function| {
        Cell::opt(timed(f).then(|| f.self_with_running()), duration)
    }));
    let elapsed = r.elapsed_ns as f64;
    c.push(Column::right("% Total", move |f: &Function| {
        if timed(f) {
            let t = f.total_with_running() as f64;
            Cell::num(percent(t, elapsed), t)
        } else {
            Cell::missing()
        }
    }));
    c
}

/// A function with its allocations: a row of the `alloc` table.
pub type AllocRow<'a> = (&'a Function, &'a FunctionAlloc);

/// `alloc`: allocations per function. Rows: functions with an `alloc` object that
/// allocated or freed something.
pub fn alloc(r: &Report) -> Columns<'_, AllocRow<'_>> {
    let all = r.alloc_total.as_ref().map_or(0, |a| a.bytes) as f64;
    let mut c: Columns<'_, AllocRow<'_>> = vec![
        name_column("Function", |(f, _)| *f),
        Column::right("Calls", |(f, _): &AllocRow<'_>| Cell::count(f.calls)),
        Column::right("Allocs/call", |(_, a): &AllocRow<'_>| {
            Cell::num(per_call(a.per_call_count), a.per_call_count)
        }),
        Column::right("Bytes/call", |(_, a): &AllocRow<'_>| {
            Cell::bytes(a.per_call_bytes)
        }),
    ];
    for &p in &r.percentiles {
        c.push(
            Column::right(percentile_title(p), move |(_, a): &AllocRow<'_>| {
                Cell::opt(a.percentiles.get(p), bytes)
            })
            .only(Show::Exit),
        );
    }
    c.push(Column::right("Total bytes", |(_, a): &AllocRow<'_>| {
        Cell::bytes(a.bytes)
    }));
    c.push(Column::right("Self bytes", |(_, a): &AllocRow<'_>| {
        Cell::bytes(a.self_bytes)
    }));
    c.push(Column::right("Retained", |(_, a): &AllocRow<'_>| {
        Cell::num(signed_bytes(a.retained_bytes), a.retained_bytes as f64)
    }));
    c.push(Column::right("% Total", move |(_, a): &AllocRow<'_>| {
        Cell::num(percent(a.bytes as f64, all), a.bytes as f64)
    }));
    c
}

/// The `alloc` rows of `r`: functions that allocated or freed something, by bytes.
pub fn alloc_rows(r: &Report) -> Vec<AllocRow<'_>> {
    let mut rows: Vec<AllocRow<'_>> = r
        .functions
        .iter()
        .filter_map(|f| Some((f, f.alloc.as_ref()?)))
        .filter(|(_, a)| a.count > 0 || a.freed_bytes > 0)
        .collect();
    rows.sort_by(|a, b| b.1.bytes.cmp(&a.1.bytes).then(b.1.count.cmp(&a.1.count)));
    rows
}

/// The exit report's `(unattributed)` row of the `alloc` table: what was allocated
/// outside every measured function, in the exit columns of [`alloc`].
pub fn alloc_unattributed(r: &Report) -> Option<Vec<String>> {
    let total = r.alloc_total.as_ref()?;
    let all = total.bytes as f64;
    let dash = || "-".to_string();
    let mut row = vec!["(unattributed)".to_string(), dash(), dash(), dash()];
    row.extend(r.percentiles.iter().map(|_| dash()));
    row.push(bytes(total.unattributed_bytes));
    row.push(bytes(total.unattributed_bytes));
    row.push(signed_bytes(
        total.unattributed_bytes as i64 - total.unattributed_freed_bytes as i64,
    ));
    row.push(percent(total.unattributed_bytes as f64, all));
    Some(row)
}

/// A function with its CPU time: a row of the `cpu` table.
pub type CpuRow<'a> = (&'a Function, &'a FunctionCpu);

/// Whether the report's CPU time was read exactly (per call) rather than sampled.
pub fn cpu_exact(r: &Report) -> bool {
    r.cpu.as_ref().is_some_and(|c| c.mode == "exact")
}

/// `cpu`: CPU time and waiting per function. Rows: functions with a `cpu` object.
pub fn cpu(r: &Report) -> Columns<'_, CpuRow<'_>> {
    let wall = |f: &Function| f.wall_ns.as_ref().map_or(0, |w| w.total);
    let mut c: Columns<'_, CpuRow<'_>> = vec![
        Column::left("Function", |(f, _): &CpuRow<'_>| {
            let mut name = f.display_name().to_string();
            if f.is_async {
                name.push_str(" (async)");
            }
            Cell::text(name, f.display_name())
        }),
        Column::right("Calls", |(f, _): &CpuRow<'_>| Cell::count(f.calls)),
        Column::right("Wall", move |(f, _): &CpuRow<'_>| Cell::duration(wall(f))),
        Column::right("CPU", |(_, c): &CpuRow<'_>| Cell::duration(c.cpu_ns)),
        Column::right("Self CPU", |(_, c): &CpuRow<'_>| {
            Cell::duration(c.self_cpu_ns)
        }),
        Column::right("Wait", |(_, c): &CpuRow<'_>| Cell::duration(c.wait_ns)),
        Column::right("CPU %", |(_, c): &CpuRow<'_>| {
            Cell::num(format!("{:.1}%", 100.0 * c.cpu_share), c.cpu_share)
        }),
    ];
    if cpu_exact(r) {
        for &p in &r.percentiles {
            c.push(
                Column::right(percentile_title(p), move |(_, c): &CpuRow<'_>| {
                    Cell::opt(c.percentiles.get(p), duration)
                })
                .only(Show::Exit),
            );
        }
        c.push(Column::right("Vol sw", |(_, c): &CpuRow<'_>| {
            Cell::opt(c.voluntary_switches, count)
        }));
        c.push(Column::right("Invol sw", |(_, c): &CpuRow<'_>| {
            Cell::opt(c.involuntary_switches, count)
        }));
    } else {
        c.push(Column::right("Samples", |(_, c): &CpuRow<'_>| {
            Cell::opt(c.samples, count)
        }));
    }
    c
}

/// The `cpu` rows of `r`, by CPU time.
pub fn cpu_rows(r: &Report) -> Vec<CpuRow<'_>> {
    let mut rows: Vec<CpuRow<'_>> = r
        .functions
        .iter()
        .filter_map(|f| Some((f, f.cpu.as_ref()?)))
        .collect();
    rows.sort_by(|a, b| {
        b.1.cpu_ns
            .cmp(&a.1.cpu_ns)
            .then(b.1.self_cpu_ns.cmp(&a.1.self_cpu_ns))
    });
    rows
}

/// The exit report's `(unattributed)` row of the `cpu` table, in the exit columns of
/// [`cpu`].
pub fn cpu_unattributed(r: &Report) -> Option<Vec<String>> {
    let info = r.cpu.as_ref()?;
    let dash = || "-".to_string();
    let mut row = vec![
        "(unattributed)".to_string(),
        dash(),
        dash(),
        duration(info.unattributed_cpu_ns),
        duration(info.unattributed_cpu_ns),
        dash(),
        dash(),
    ];
    let rest = if cpu_exact(r) {
        r.percentiles.len() + 2
    } else {
        1
    };
    row.extend((0..rest).map(|_| dash()));
    Some(row)
}

/// An I/O entry with the name that tells it apart from entries of the same name.
pub type IoRow<'a> = (&'a IoEntry, String);

/// The rows of the I/O tables: every entry of `r` with its name (see [`twin_names`]).
pub fn io_rows(r: &Report) -> Vec<IoRow<'_>> {
    let entries = r.io.as_deref().unwrap_or(&[]);
    let twins: Vec<Twin<'_>> = entries
        .iter()
        .map(|e| Twin {
            name: &e.name,
            type_name: &e.type_name,
            file: &e.file,
            line: e.line,
        })
        .collect();
    entries.iter().zip(twin_names(&twins)).collect()
}

/// Statistics of one direction of an entry: operations, bytes, rate, mean, percentiles.
fn direction_columns<'a, R: 'a>(
    r: &Report,
    ops: &str,
    d: impl Fn(&R) -> &IoDirection + Copy + 'a,
) -> Columns<'a, R> {
    let mut c: Columns<'a, R> = vec![
        Column::right(ops.to_string(), move |x| Cell::count(d(x).ops)),
        Column::right("Bytes", move |x| Cell::bytes(d(x).bytes)),
        Column::right("Rate", move |x| {
            let v = d(x).rate_bytes_per_sec;
            v.map_or_else(Cell::missing, |v| Cell::num(rate(v), v))
        }),
        Column::right("Avg", move |x| Cell::opt(d(x).mean_ns, duration)),
    ];
    for &p in &r.percentiles {
        c.push(Column::right(percentile_title(p), move |x| {
            Cell::opt(d(x).percentiles.get(p), duration)
        }));
    }
    c
}

fn io_name_columns<'a>() -> Columns<'a, IoRow<'a>> {
    vec![
        Column::left("Io", |(e, name): &IoRow<'_>| {
            Cell::text(name.clone(), e.name.clone())
        }),
        Column::right("Inst", |(e, _): &IoRow<'_>| Cell::count(e.instances)),
    ]
}

/// Whether an entry has reads to show.
pub fn io_reads_any(e: &IoEntry) -> bool {
    e.read.ops + e.read.errors > 0
}

/// Whether an entry has writes, flushes or shutdown errors to show.
pub fn io_writes_any(e: &IoEntry) -> bool {
    e.write.ops + e.flush.ops + e.write.errors + e.flush.errors + e.shutdown.errors > 0
}

/// The exit report's table of reads per I/O entry.
pub fn io_reads<'a>(r: &Report) -> Columns<'a, IoRow<'a>> {
    let mut c = io_name_columns();
    c.extend(direction_columns(r, "Reads", |(e, _): &IoRow<'_>| &e.read));
    c.push(Column::right("Errors", |(e, _): &IoRow<'_>| {
        Cell::count(e.read.errors)
    }));
    c
}

/// The exit report's table of writes per I/O entry (flushes and their errors with them).
pub fn io_writes<'a>(r: &Report) -> Columns<'a, IoRow<'a>> {
    let mut c = io_name_columns();
    c.extend(direction_columns(r, "Writes", |(e, _): &IoRow<'_>| {
        &e.write
    }));
    c.push(Column::right("Flushes", |(e, _): &IoRow<'_>| {
        Cell::count(e.flush.ops)
    }));
    c.push(Column::right("Errors", |(e, _): &IoRow<'_>| {
        Cell::count(e.write.errors + e.flush.errors + e.shutdown.errors)
    }));
    c
}

/// One direction of one entry: a row of the per-direction table (the console's inspect
/// pane of an entry).
pub type DirectionRow<'a> = (&'static str, &'a IoDirection);

/// Every statistic of one direction, a row per direction.
pub fn io_directions<'a>(r: &Report) -> Columns<'a, DirectionRow<'a>> {
    let mut c: Columns<'a, DirectionRow<'a>> = vec![
        Column::left("", |(name, _): &DirectionRow<'_>| Cell::text(*name, *name)),
        Column::right("Ops", |(_, d): &DirectionRow<'_>| Cell::count(d.ops)),
        Column::right("Bytes", |(_, d): &DirectionRow<'_>| Cell::bytes(d.bytes)),
        Column::right("Errors", |(_, d): &DirectionRow<'_>| Cell::count(d.errors)),
        Column::right("Timed", |(_, d): &DirectionRow<'_>| {
            Cell::count(d.timed_ops)
        }),
        Column::right("Time", |(_, d): &DirectionRow<'_>| {
            Cell::duration(d.total_ns)
        }),
        Column::right("Mean", |(_, d): &DirectionRow<'_>| {
            Cell::opt(d.mean_ns, duration)
        }),
    ];
    for &p in &r.percentiles {
        c.push(Column::right(
            percentile_title(p),
            move |(_, d): &DirectionRow<'_>| Cell::opt(d.percentiles.get(p), duration),
        ));
    }
    c.push(Column::right("Rate", |(_, d): &DirectionRow<'_>| {
        d.rate_bytes_per_sec
            .map_or_else(Cell::missing, |v| Cell::num(rate(v), v))
    }));
    c
}

/// Bytes moved by the timed operations of a direction (rate × time inside them).
fn timed_bytes(d: &IoDirection) -> f64 {
    d.rate_bytes_per_sec.unwrap_or(0.0) * d.total_ns as f64 / 1e9
}

/// Failed operations of an entry, every direction.
pub fn io_errors(e: &IoEntry) -> u64 {
    e.directions().iter().map(|(_, d)| d.errors).sum()
}

/// The console's overview of the I/O entries: reads and writes side by side.
pub fn io_overview<'a>() -> Columns<'a, IoRow<'a>> {
    let mut c = io_name_columns();
    c.extend([
        Column::right("Reads", |(e, _): &IoRow<'_>| Cell::count(e.read.ops)),
        Column::right("Read", |(e, _): &IoRow<'_>| Cell::bytes(e.read.bytes)),
        Column::right("Writes", |(e, _): &IoRow<'_>| Cell::count(e.write.ops)),
        Column::right("Written", |(e, _): &IoRow<'_>| Cell::bytes(e.write.bytes)),
        Column::right("Bytes", |(e, _): &IoRow<'_>| {
            Cell::bytes(e.read.bytes + e.write.bytes)
        }),
        Column::right("Rate", |(e, _): &IoRow<'_>| {
            let (rd, wr) = (&e.read, &e.write);
            let timed_ns = rd.total_ns + wr.total_ns;
            let speed =
                (timed_ns > 0).then(|| (timed_bytes(rd) + timed_bytes(wr)) * 1e9 / timed_ns as f64);
            speed.map_or_else(Cell::missing, |v| Cell::num(rate(v), v))
        }),
        Column::right("Avg", |(e, _): &IoRow<'_>| {
            let timed_ns = e.read.total_ns + e.write.total_ns;
            let timed_ops = e.read.timed_ops + e.write.timed_ops;
            Cell::opt((timed_ops > 0).then(|| timed_ns / timed_ops), duration)
        }),
        Column::right("Errors", |(e, _): &IoRow<'_>| Cell::count(io_errors(e))),
    ]);
    c.into_iter().map(|c| c.only(Show::Console)).collect()
}

/// A function with the I/O charged to it: a row of the `io by function` table.
pub type IoFunctionRow<'a> = (&'a Function, &'a FunctionIo);

/// `io by function`: I/O made while each function was the innermost measured one.
pub fn io_functions<'a>() -> Columns<'a, IoFunctionRow<'a>> {
    let wall = |f: &Function| f.wall_ns.as_ref().map_or(0, |w| w.total);
    vec![
        Column::left("Function", |(f, _): &IoFunctionRow<'_>| {
            Cell::text(f.display_name(), f.display_name())
        })
        .only(Show::Exit),
        name_column("Function", |(f, _): &IoFunctionRow<'_>| *f).only(Show::Console),
        Column::right("Read", |(_, io): &IoFunctionRow<'_>| {
            Cell::bytes(io.read_bytes)
        }),
        Column::right("Written", |(_, io): &IoFunctionRow<'_>| {
            Cell::bytes(io.write_bytes)
        }),
        Column::right("Time in I/O", |(_, io): &IoFunctionRow<'_>| {
            Cell::duration(io.io_ns)
        }),
        Column::right("% of wall", move |(f, io): &IoFunctionRow<'_>| {
            let w = wall(f);
            Cell {
                text: percent(io.io_ns as f64, w as f64),
                key: if w > 0 {
                    Key::Num(io.io_ns as f64 / w as f64)
                } else {
                    Key::Missing
                },
            }
        }),
    ]
}

/// The `io by function` rows of `r`, by time in I/O.
pub fn io_function_rows(r: &Report) -> Vec<IoFunctionRow<'_>> {
    let mut rows: Vec<IoFunctionRow<'_>> = r
        .functions
        .iter()
        .filter_map(|f| Some((f, f.io.as_ref()?)))
        .collect();
    rows.sort_by_key(|(_, io)| std::cmp::Reverse(io.io_ns));
    rows
}

/// `threads`: per thread. Rows: `report.threads`.
pub fn threads(rows: &[ThreadRow]) -> Columns<'static, ThreadRow> {
    let pct = |p: f64| Cell::num(format!("{p:.1}%"), p);
    let mut c: Columns<'static, ThreadRow> = vec![
        Column::left("Thread", |t: &ThreadRow| {
            let mut name = t.name.clone();
            if t.profiler {
                name.push_str(" (profiler)");
            }
            Cell::text(name, t.name.clone())
        }),
        Column::right("TID", |t: &ThreadRow| {
            Cell::num(t.tid.to_string(), t.tid as f64)
        }),
        Column::right("State", |t: &ThreadRow| {
            Cell::text(t.state.clone(), t.state.clone())
        })
        .text(),
        Column::right("CPU avg", move |t: &ThreadRow| pct(t.cpu_percent_avg)),
        Column::right("CPU max", move |t: &ThreadRow| pct(t.cpu_percent_max)),
        Column::right("CPU", |t: &ThreadRow| Cell::duration(t.cpu_ns())).only(Show::Console),
        Column::right("User", |t: &ThreadRow| Cell::duration(t.user_ns)),
        Column::right("System", |t: &ThreadRow| Cell::duration(t.system_ns)),
    ];
    if rows.iter().any(|t: &ThreadRow| t.alloc_bytes.is_some()) {
        c.push(Column::right("Alloc", |t: &ThreadRow| {
            Cell::opt(t.alloc_bytes, bytes)
        }));
        c.push(Column::right("Freed", |t: &ThreadRow| {
            Cell::opt(t.freed_bytes, bytes)
        }));
    }
    c
}

// ---------------------------------------------------------------------------------------
// Data flow: channels, streams, futures
// ---------------------------------------------------------------------------------------

/// A channel entry with the name that tells it apart from entries of the same name.
pub type ChannelRow<'a> = (&'a ChannelEntry, String);

/// The rows of the channels table: every entry of `r` with its name (see [`twin_names`]).
pub fn channel_rows(r: &Report) -> Vec<ChannelRow<'_>> {
    let entries = r.channels.as_deref().unwrap_or(&[]);
    let twins: Vec<Twin<'_>> = entries
        .iter()
        .map(|e| Twin {
            name: e.display_name(),
            type_name: &e.type_name,
            file: &e.file,
            line: e.line,
        })
        .collect();
    entries.iter().zip(twin_names(&twins)).collect()
}

/// `bounded[10]`, `unbounded`, `oneshot`, `broadcast[16]`, `watch`.
pub fn channel_kind(e: &ChannelEntry) -> String {
    match (e.kind.as_str(), e.capacity) {
        ("bounded" | "broadcast", Some(c)) => format!("{}[{c}]", e.kind),
        (k, _) => k.to_string(),
    }
}

/// Latency columns of a distribution: mean and the configured percentiles.
fn dist_columns<'a, R: 'a>(
    r: &Report,
    avg: &str,
    d: impl Fn(&R) -> Option<&DistNs> + Copy + 'a,
) -> Columns<'a, R> {
    let mut c: Columns<'a, R> = vec![Column::right(avg.to_string(), move |x| {
        Cell::opt(d(x).map(|d| d.mean), duration)
    })];
    for &p in &r.percentiles {
        c.push(Column::right(percentile_title(p), move |x| {
            Cell::opt(d(x).and_then(|d| d.percentiles.get(p)), duration)
        }));
    }
    c
}

/// `channels`: messages per channel entry.
pub fn channels<'a>(r: &Report) -> Columns<'a, ChannelRow<'a>> {
    let mut c: Columns<'a, ChannelRow<'a>> = vec![
        Column::left("Channel", |(e, name): &ChannelRow<'_>| {
            Cell::text(name.clone(), e.display_name())
        }),
        Column::right("Backend", |(e, _): &ChannelRow<'_>| {
            Cell::text(e.backend.clone(), e.backend.clone())
        })
        .text(),
        Column::right("Kind", |(e, _): &ChannelRow<'_>| {
            Cell::text(channel_kind(e), channel_kind(e))
        })
        .text(),
        Column::right("Inst", |(e, _): &ChannelRow<'_>| Cell::count(e.instances)),
        Column::right("Sent", |(e, _): &ChannelRow<'_>| Cell::count(e.sent)),
        Column::right("Recv", |(e, _): &ChannelRow<'_>| Cell::count(e.received)),
        Column::right("Unread", |(e, _): &ChannelRow<'_>| Cell::count(e.unread)),
        Column::right("Max depth", |(e, _): &ChannelRow<'_>| {
            Cell::count(e.max_depth)
        }),
        Column::right("Blocked sends", |(e, _): &ChannelRow<'_>| {
            Cell::count(e.send_blocked.count)
        }),
        Column::right("Blocked", |(e, _): &ChannelRow<'_>| {
            let b = &e.send_blocked;
            Cell::opt((b.count > 0).then_some(b.total_ns), duration)
        }),
    ];
    c.extend(dist_columns(r, "Latency avg", |(e, _): &ChannelRow<'_>| {
        e.latency_ns.as_ref()
    }));
    c.push(
        Column::right("Errors", |(e, _): &ChannelRow<'_>| {
            Cell::count(e.send_errors)
        })
        .only(Show::Console),
    );
    c
}

/// A stream entry with the name that tells it apart.
pub type StreamRow<'a> = (&'a StreamEntry, String);

/// The rows of the streams table.
pub fn stream_rows(r: &Report) -> Vec<StreamRow<'_>> {
    let entries = r.streams.as_deref().unwrap_or(&[]);
    let twins: Vec<Twin<'_>> = entries
        .iter()
        .map(|e| Twin {
            name: e.display_name(),
            type_name: &e.type_name,
            file: &e.file,
            line: e.line,
        })
        .collect();
    entries.iter().zip(twin_names(&twins)).collect()
}

/// `streams`: items and polls per stream entry.
pub fn streams<'a>(r: &Report) -> Columns<'a, StreamRow<'a>> {
    let mut c: Columns<'a, StreamRow<'a>> = vec![
        Column::left("Stream", |(e, name): &StreamRow<'_>| {
            Cell::text(name.clone(), e.display_name())
        }),
        Column::right("Inst", |(e, _): &StreamRow<'_>| Cell::count(e.instances)),
        Column::right("Done", |(e, _): &StreamRow<'_>| Cell::count(e.completed)),
        Column::right("Dropped", |(e, _): &StreamRow<'_>| Cell::count(e.dropped)),
        Column::right("Items", |(e, _): &StreamRow<'_>| Cell::count(e.items)),
        Column::right("Polls", |(e, _): &StreamRow<'_>| Cell::count(e.polls)),
        Column::right("Pending", |(e, _): &StreamRow<'_>| Cell::count(e.pending)),
        Column::right("Busy", |(e, _): &StreamRow<'_>| Cell::duration(e.busy_ns)),
    ];
    c.extend(dist_columns(
        r,
        "First item avg",
        |(e, _): &StreamRow<'_>| e.first_item_ns.as_ref(),
    ));
    c
}

/// A futures-section row with the name that tells it apart.
pub type FutureRow<'a> = (&'a FutureEntry, String);

/// The rows of the futures table.
pub fn future_rows(r: &Report) -> Vec<FutureRow<'_>> {
    let entries = r.futures.as_deref().unwrap_or(&[]);
    let twins: Vec<Twin<'_>> = entries
        .iter()
        .map(|e| Twin {
            name: e.display_name(),
            type_name: "",
            file: &e.file,
            line: e.line,
        })
        .collect();
    entries.iter().zip(twin_names(&twins)).collect()
}

/// `futures`: calls, outcomes, lifetime and busy time per future.
pub fn futures<'a>(r: &Report) -> Columns<'a, FutureRow<'a>> {
    let mut c: Columns<'a, FutureRow<'a>> = vec![
        Column::left("Future", |(e, name): &FutureRow<'_>| {
            Cell::text(name.clone(), e.display_name())
        }),
        Column::right("Calls", |(e, _): &FutureRow<'_>| Cell::count(e.calls)),
        Column::right("Done", |(e, _): &FutureRow<'_>| Cell::count(e.completed)),
        Column::right("Cancelled", |(e, _): &FutureRow<'_>| {
            Cell::count(e.cancelled)
        }),
        Column::right("Never polled", |(e, _): &FutureRow<'_>| {
            Cell::count(e.never_polled)
        }),
        Column::right("Polls/call", |(e, _): &FutureRow<'_>| {
            let timed = e.lifetime_ns.as_ref().map_or(0, |d| d.count);
            if timed == 0 {
                Cell::missing()
            } else {
                let v = e.polls as f64 / timed as f64;
                Cell::num(per_call(v), v)
            }
        }),
    ];
    c.extend(dist_columns(r, "Lifetime avg", |(e, _): &FutureRow<'_>| {
        e.lifetime_ns.as_ref()
    }));
    c.push(Column::right("Busy avg", |(e, _): &FutureRow<'_>| {
        Cell::opt(e.busy_ns.as_ref().map(|d| d.mean), duration)
    }));
    c
}

/// A path of the calling-context tree and its place in the tree's depth-first order: a
/// row of the `stacks` table.
pub type StackRow<'a> = (&'a StackPath, usize);

/// The `stacks` rows of `r`, in the report's (depth-first) order.
pub fn stack_rows(r: &Report) -> Vec<StackRow<'_>> {
    r.stacks
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .map(|(i, p)| (p, i))
        .collect()
}

/// A path as the tree shows it: its last function, indented by its depth.
pub fn stack_name(p: &StackPath) -> String {
    format!(
        "{}{}",
        "  ".repeat(p.path.len().saturating_sub(1)),
        p.leaf()
    )
}

/// `stacks`: calls and time per path. The path column sorts by the tree's order.
pub fn stacks(r: &Report) -> Columns<'_, StackRow<'_>> {
    let elapsed = r.elapsed_ns as f64;
    let mut c: Columns<'_, StackRow<'_>> = vec![
        Column::left("Path", |(p, rank): &StackRow<'_>| {
            Cell::text(stack_name(p), format!("{rank:010}"))
        }),
        Column::right("Calls", |(p, _): &StackRow<'_>| Cell::count(p.calls)),
        Column::right("Total", |(p, _): &StackRow<'_>| Cell::duration(p.total_ns)),
        Column::right("Self", |(p, _): &StackRow<'_>| Cell::duration(p.self_ns)),
    ];
    if r.stacks.iter().flatten().any(|p| p.cpu_ns.is_some()) {
        c.push(Column::right("CPU", |(p, _): &StackRow<'_>| {
            Cell::opt(p.cpu_ns, duration)
        }));
        c.push(Column::right("Self CPU", |(p, _): &StackRow<'_>| {
            Cell::opt(p.self_cpu_ns, duration)
        }));
    }
    c.push(Column::right("% Total", move |(p, _): &StackRow<'_>| {
        Cell::num(percent(p.total_ns as f64, elapsed), p.total_ns as f64)
    }));
    c
}
