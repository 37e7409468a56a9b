//! The console's tables as data: for each view, its columns, formatted cells, the
//! value each cell sorts by, and what to say when the report has no such section.
//!
//! The columns are the report's own (`hotpath_report::columns`), the ones the exit
//! report prints: the console shows those marked for it.

use std::cmp::Ordering;

pub(crate) use hotpath_report::columns::Key;
use hotpath_report::columns::{self, Columns};
use hotpath_report::format::{bytes, count, duration, percent};
use hotpath_report::{Function, ProfilerStatus, Report, Section};

use super::trend::{sparkline, Trend, WINDOW};

mod locks;
mod service;

/// One table of the console.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// Wall time per function.
    Timing,
    /// Allocations per function (section `alloc`).
    Memory,
    /// CPU time and waiting per function (section `cpu`).
    Cpu,
    /// Operations per `io!` stream (section `io`).
    IoStreams,
    /// I/O charged to each function (section `io`).
    IoFunctions,
    /// Threads (section `threads`).
    Threads,
    /// Channels (section `channels`).
    Channels,
    /// Streams (section `streams`).
    Streams,
    /// Futures (section `futures`).
    Futures,
    /// Where each function's own time went (section `waits`).
    Waits,
    /// Acquisitions, waits and holds per `mutex!` site (section `mutexes`).
    Mutexes,
    /// The same per `rw_lock!` site and mode (section `rw_locks`).
    RwLocks,
    /// The last values of `dbg!`, `val!` and `gauge!` (section `debug`).
    Debug,
    /// Calls and time per path: the calling-context tree (section `stacks`).
    Stacks,
    /// SQL queries per normalised query and source (section `sql`).
    Sql,
    /// HTTP client requests per endpoint and source (section `http`).
    Http,
    /// HTTP server requests per route (section `server`).
    Server,
    /// tokio runtime workers (section `tokio`).
    Tokio,
}

impl View {
    /// Every view, in the order of [`View::index`].
    pub const ALL: [View; 18] = [
        View::Timing,
        View::Memory,
        View::Cpu,
        View::IoStreams,
        View::IoFunctions,
        View::Threads,
        View::Channels,
        View::Streams,
        View::Futures,
        View::Waits,
        View::Mutexes,
        View::RwLocks,
        View::Debug,
        View::Stacks,
        View::Sql,
        View::Http,
        View::Server,
        View::Tokio,
    ];

    /// The name on the view bar.
    pub fn title(self) -> &'static str {
        match self {
            View::Timing => "Timing",
            View::Memory => "Memory",
            View::Cpu => "CPU",
            View::IoStreams => "Streams",
            View::IoFunctions => "By function",
            View::Threads => "Threads",
            View::Waits => "Waits",
            View::Mutexes => "Mutexes",
            View::RwLocks => "RwLocks",
            View::Debug => "Debug",
            View::Channels => "Channels",
            View::Streams => "Streams",
            View::Futures => "Futures",
            View::Stacks => "Stacks",
            View::Sql => "SQL",
            View::Http => "HTTP",
            View::Server => "Server",
            View::Tokio => "Tokio",
        }
    }

    /// The report section the view shows.
    pub fn section(self) -> Section {
        match self {
            View::Timing => Section::Timing,
            View::Memory => Section::Alloc,
            View::Cpu => Section::Cpu,
            View::IoStreams | View::IoFunctions => Section::Io,
            View::Threads => Section::Threads,
            View::Waits => Section::Waits,
            View::Mutexes => Section::Mutexes,
            View::RwLocks => Section::RwLocks,
            View::Debug => Section::Debug,
            View::Channels => Section::Channels,
            View::Streams => Section::Streams,
            View::Futures => Section::Futures,
            View::Stacks => Section::Stacks,
            View::Sql => Section::Sql,
            View::Http => Section::Http,
            View::Server => Section::Server,
            View::Tokio => Section::Tokio,
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// The views that show `section`: every section has at least one (a new section
    /// without a view does not compile).
    pub fn of(section: Section) -> &'static [View] {
        match section {
            Section::Timing => &[View::Timing],
            Section::Alloc => &[View::Memory],
            Section::Cpu => &[View::Cpu],
            Section::Waits => &[View::Waits],
            Section::Io => &[View::IoStreams, View::IoFunctions],
            Section::Channels => &[View::Channels],
            Section::Streams => &[View::Streams],
            Section::Futures => &[View::Futures],
            Section::Sql => &[View::Sql],
            Section::Http => &[View::Http],
            Section::Server => &[View::Server],
            Section::Mutexes => &[View::Mutexes],
            Section::RwLocks => &[View::RwLocks],
            Section::Tokio => &[View::Tokio],
            Section::Threads => &[View::Threads],
            Section::Debug => &[View::Debug],
            Section::Stacks => &[View::Stacks],
        }
    }
}

/// Where a row's data lives in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// `report.functions[i]`.
    Function(usize),
    /// `report.io[i]`.
    Io(usize),
    /// `report.threads[i]`.
    Thread(usize),
    /// `report.mutexes[i]`.
    Mutex(usize),
    /// `report.rw_locks[i]`, one of its modes (`read`, `write`, `upgradable`).
    RwLock(usize, &'static str),
    /// `report.debug[i]`.
    Debug(usize),
    /// `report.channels[i]`.
    Channel(usize),
    /// `report.streams[i]`.
    Stream(usize),
    /// `report.futures[i]`.
    Future(usize),
    /// `report.stacks[i]`.
    Stack(usize),
    /// `report.sql[i]`.
    Sql(usize),
    /// `report.http[i]`.
    Http(usize),
    /// `report.server[i]`.
    Server(usize),
    /// The `i`-th worker row of `report.tokio`.
    Tokio(usize),
}

/// One column: its title and whether it holds text (left-aligned, sorted A to Z first)
/// or numbers (right-aligned, sorted largest first).
#[derive(Clone, Debug)]
pub(crate) struct Column {
    pub title: String,
    pub text: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Row {
    /// Stays the same across refreshes, so the selection follows the row.
    pub id: String,
    pub source: Source,
    pub cells: Vec<String>,
    pub keys: Vec<Key>,
}

/// A view's table, built from one report.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    /// What the table shows, e.g. `timing: wall time per function`.
    pub title: &'static str,
    pub columns: Vec<Column>,
    /// The column sorted by until the user picks another, as in the exit report.
    pub default_sort: usize,
    pub rows: Vec<Row>,
    /// Lines under the table: totals of the process, what a column means.
    pub footer: Vec<String>,
    /// Why there are no rows, when the section is missing or empty.
    pub empty: Option<String>,
}

impl Table {
    /// A table with the console's columns of `cols` and no rows.
    fn new<R>(title: &'static str, cols: &Columns<'_, R>) -> Table {
        Table {
            title,
            columns: cols
                .iter()
                .filter(|c| c.show.in_console())
                .map(|c| Column {
                    title: c.title.clone(),
                    text: c.text,
                })
                .collect(),
            default_sort: 0,
            rows: Vec::new(),
            footer: Vec::new(),
            empty: None,
        }
    }

    /// Adds a row: its cells in the console's columns of `cols`.
    fn push<R>(&mut self, cols: &Columns<'_, R>, id: String, source: Source, row: &R) {
        let (cells, keys) = cols
            .iter()
            .filter(|c| c.show.in_console())
            .map(|c| {
                let cell = c.cell(row);
                (cell.text, cell.key)
            })
            .unzip();
        self.rows.push(Row {
            id,
            source,
            cells,
            keys,
        });
    }

    fn insert_columns(&mut self, at: usize, titles: impl IntoIterator<Item = String>) {
        let new: Vec<Column> = titles
            .into_iter()
            .map(|title| Column { title, text: false })
            .collect();
        self.columns.splice(at..at, new);
    }

    fn sort_by_title(&mut self, title: &str) {
        self.default_sort = self
            .columns
            .iter()
            .position(|c| c.title == title)
            .expect("the default sort column exists");
    }

    /// Sorts the rows by `column`, keeping the report's order among equal values.
    pub(crate) fn sort(&mut self, column: usize, descending: bool) {
        if column >= self.columns.len() {
            return;
        }
        self.rows.sort_by(|a, b| {
            let (ka, kb) = (&a.keys[column], &b.keys[column]);
            let ord = match (ka, kb) {
                (Key::Missing, Key::Missing) => return Ordering::Equal,
                (Key::Missing, _) => return Ordering::Greater,
                (_, Key::Missing) => return Ordering::Less,
                (Key::Num(x), Key::Num(y)) => x.total_cmp(y),
                (Key::Text(x), Key::Text(y)) => x.cmp(y),
                (Key::Num(_), Key::Text(_)) => Ordering::Less,
                (Key::Text(_), Key::Num(_)) => Ordering::Greater,
            };
            if descending {
                ord.reverse()
            } else {
                ord
            }
        });
    }
}

/// The table of `view` for `report`; `status` tells which features the program has,
/// to say what a missing section needs.
pub(crate) fn build(
    view: View,
    report: &Report,
    status: Option<&ProfilerStatus>,
    trend: &Trend,
) -> Table {
    match view {
        View::Timing => timing(report, trend),
        View::Memory => memory(report, status),
        View::Cpu => cpu(report, status),
        View::IoStreams => io_streams(report, status),
        View::IoFunctions => io_functions(report, status),
        View::Threads => threads(report, status),
        View::Waits => locks::waits(report, status),
        View::Mutexes => locks::mutexes(report, status),
        View::RwLocks => locks::rw_locks(report, status),
        View::Debug => locks::debug(report, status),
        View::Channels => channels(report, status),
        View::Streams => streams(report, status),
        View::Futures => futures(report, status),
        View::Stacks => stacks(report, status),
        View::Sql => service::sql(report, status),
        View::Http => service::http(report, status),
        View::Server => service::server(report, status),
        View::Tokio => service::tokio(report, status),
    }
}

/// The rows the console shows in `view` for `report`, for a conformance test that walks
/// every section.
#[doc(hidden)]
pub fn row_count(view: View, report: &Report) -> usize {
    build(view, report, None, &Trend::default()).rows.len()
}

/// Why `section` is not in the report, and what adds it.
fn missing(
    section: Section,
    status: Option<&ProfilerStatus>,
    not_yet: &str,
    left_out: &str,
) -> String {
    let needs = section.features();
    let built = |s: &ProfilerStatus| {
        needs.is_empty() || needs.iter().any(|f| s.features.iter().any(|g| g == f))
    };
    match status {
        Some(s) if !built(s) => format!(
            "no {section} section: the program was built without the Cargo feature {} \
             (cargo run --features {})",
            section.features_text().unwrap_or_default(),
            needs[0]
        ),
        Some(s) if !s.sections.contains(&section) => {
            format!("no {section} section: {left_out}")
        }
        Some(_) => format!("no {section} section yet: {not_yet}"),
        None => format!(
            "no {section} section: it needs the Cargo feature {}",
            section.features_text().unwrap_or_else(|| "hotpath".into())
        ),
    }
}

pub(crate) fn function_id(f: &Function) -> String {
    format!("{}\0{}\0{}:{}", f.name, f.display_name(), f.file, f.line)
}

fn dash() -> String {
    "-".into()
}

fn timing(r: &Report, trend: &Trend) -> Table {
    let cols = columns::timing(r);
    let mut t = Table::new("timing: wall time per function", &cols);
    t.sort_by_title("Total");
    for (i, f) in r.functions.iter().enumerate() {
        let id = function_id(f);
        t.push(&cols, id.clone(), Source::Function(i), f);
        if trend.has_intervals() {
            let row = t.rows.last_mut().expect("pushed");
            let shares = trend.shares(&id);
            let now = shares.last().copied().filter(|_| f.wall_ns.is_some());
            row.cells.push(now.map_or_else(dash, |n| percent(n, 1.0)));
            row.keys.push(now.map_or(Key::Missing, Key::Num));
            row.cells.push(if f.wall_ns.is_some() {
                sparkline(&shares)
            } else {
                dash()
            });
            // Sorted by the time over the whole window.
            row.keys.push(Key::Num(shares.iter().sum::<f64>()));
        }
    }
    if trend.has_intervals() {
        let at = t.columns.len();
        t.insert_columns(at, ["Now".to_string(), "Trend".to_string()]);
    }
    let calls: u64 = r.functions.iter().map(|f| f.calls).sum();
    t.footer.push(format!(
        "{} functions, {} calls in {}; profiler overhead ≈ {} ({} of the run)",
        count(r.functions.len() as u64),
        count(calls),
        duration(r.elapsed_ns),
        duration(r.overhead_ns),
        percent(r.overhead_ns as f64, r.elapsed_ns as f64),
    ));
    if r.functions.iter().any(|f| f.sampled) {
        t.footer
            .push("*: timed on a sample of calls; totals scaled to all calls".into());
    }
    if trend.has_intervals() {
        t.footer.push(format!(
            "Now: wall time since the last refresh, as a share of it (over 100% when calls \
             overlap); Trend: the same over the last {} refreshes, scaled to the row's largest",
            WINDOW - 1
        ));
    }
    if r.functions.is_empty() {
        t.empty = Some("no measured function has been called yet".into());
    }
    t
}

fn memory(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    // Percentiles of bytes per call are in the inspect pane: with them the table would
    // not fit 120 columns.
    let cols = columns::alloc(r);
    let mut t = Table::new("alloc: allocations per function", &cols);
    t.sort_by_title("Total bytes");
    if !r.has(Section::Alloc) {
        t.empty = Some(missing(
            Section::Alloc,
            status,
            "nothing allocated in measured code so far",
            "allocations are not tracked (with allocator = none the program needs a \
             hotpath::alloc::Tracking global allocator; HOTPATH_REPORT may leave alloc out)",
        ));
        return t;
    }
    let mut quiet = 0;
    for (i, f) in r.functions.iter().enumerate() {
        let Some(a) = &f.alloc else { continue };
        if a.count == 0 && a.freed_bytes == 0 {
            quiet += 1;
            continue;
        }
        t.push(&cols, function_id(f), Source::Function(i), &(f, a));
    }
    if let Some(total) = &r.alloc_total {
        t.footer.push(format!(
            "process: {} allocations, {} allocated, {} freed; outside measured functions: {} allocated",
            count(total.count),
            bytes(total.bytes),
            bytes(total.freed_bytes),
            bytes(total.unattributed_bytes),
        ));
    }
    if quiet > 0 {
        t.footer.push(format!(
            "{quiet} more functions allocated and freed nothing"
        ));
    }
    t
}

fn cpu(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::cpu(r);
    let mut t = Table::new("cpu: CPU time and waiting per function", &cols);
    t.sort_by_title("CPU");
    let Some(info) = r.cpu.as_ref().filter(|_| r.has(Section::Cpu)) else {
        t.empty = Some(missing(
            Section::Cpu,
            status,
            "no CPU time measured so far",
            "CPU time is not measured (HOTPATH_CPU_MODE=off, or HOTPATH_REPORT leaves cpu out)",
        ));
        return t;
    };
    for (i, f) in r.functions.iter().enumerate() {
        let Some(c) = &f.cpu else { continue };
        t.push(&cols, function_id(f), Source::Function(i), &(f, c));
    }
    let mut how = format!("cpu: {}", info.mode);
    if let Some(hz) = info.hz {
        how.push_str(&format!(" {hz} Hz"));
    }
    how.push_str(&format!(", {}", info.source));
    if let Some(why) = &info.fallback_reason {
        how.push_str(&format!(" (fallback: {why})"));
    }
    t.footer.push(how);
    let mut process = format!(
        "process CPU: {}; outside measured functions: {}",
        duration(info.process_cpu_ns),
        duration(info.unattributed_cpu_ns)
    );
    if let Some(sampled) = info.sampled_cpu_ns {
        process.push_str(&format!(
            "; samples account for {} ({})",
            duration(sampled),
            percent(sampled as f64, info.process_cpu_ns as f64)
        ));
    }
    t.footer.push(process);
    t
}

fn io_streams(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::io_overview();
    let mut t = Table::new("io: operations per stream", &cols);
    t.sort_by_title("Bytes");
    let rows = columns::io_rows(r);
    if !r.has(Section::Io) || rows.is_empty() {
        t.empty = Some(missing(
            Section::Io,
            status,
            "no hotpath::io! wrapper has completed an operation so far",
            "HOTPATH_REPORT leaves io out",
        ));
        return t;
    }
    for (i, row) in rows.iter().enumerate() {
        let e = row.0;
        let id = format!("{}\0{}:{}\0{}", e.name, e.file, e.line, e.type_name);
        t.push(&cols, id, Source::Io(i), row);
    }
    t.footer.push(
        "Rate, Avg: reads and writes together, timed ones only; Enter shows each direction".into(),
    );
    if let Some(rate) = r.io_time_sampling_rate.filter(|r| *r < 1.0) {
        t.footer.push(format!(
            "{} of operations timed, every one counted",
            percent(rate, 1.0)
        ));
    }
    t
}

fn io_functions(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::io_functions();
    let mut t = Table::new(
        "io by function: made while it was the innermost measured function",
        &cols,
    );
    t.sort_by_title("Time in I/O");
    for (i, f) in r.functions.iter().enumerate() {
        let Some(io) = &f.io else { continue };
        t.push(&cols, function_id(f), Source::Function(i), &(f, io));
    }
    if t.rows.is_empty() {
        t.empty = Some(if r.has(Section::Io) {
            "no I/O was made inside a measured function so far".into()
        } else {
            missing(
                Section::Io,
                status,
                "no hotpath::io! wrapper has completed an operation so far",
                "HOTPATH_REPORT leaves io out",
            )
        });
    }
    t
}

/// The tree, depth first (sorted by the Path column); another column sorts the paths
/// as a flat list.
fn stacks(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::stacks(r);
    let mut t = Table::new("stacks: calls and time per path (tree)", &cols);
    t.sort_by_title("Path");
    let rows = columns::stack_rows(r);
    if !r.has(Section::Stacks) {
        t.empty = Some(match status {
            Some(s) if s.sections.contains(&Section::Stacks) => {
                "no stacks section yet: no measured call so far".into()
            }
            _ => "no stacks section: run the program with HOTPATH_STACKS=1 (or \
                  .stacks(true) on its HotpathGuardBuilder)"
                .into(),
        });
        return t;
    }
    for row in &rows {
        t.push(&cols, row.0.path.join(";"), Source::Stack(row.1), row);
    }
    if rows.is_empty() {
        t.empty = Some("no measured call has ended yet".into());
    }
    t.footer.push(
        "Path: the tree, callees by total; s sorts the paths as a list; Enter shows the \
         whole path"
            .into(),
    );
    t
}

fn threads(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let rows = r.threads.as_deref().unwrap_or(&[]);
    let cols = columns::threads(rows);
    let mut t = Table::new("threads: per thread", &cols);
    t.sort_by_title("CPU");
    if !r.has(Section::Threads) {
        t.empty = Some(match status {
            Some(s) if s.sections.contains(&Section::Threads) => {
                "no threads section yet: the first /proc reading is pending".into()
            }
            _ => "no threads section: it is collected on Linux only, and HOTPATH_REPORT may \
                  leave it out"
                .into(),
        });
        return t;
    }
    for (i, th) in rows.iter().enumerate() {
        t.push(
            &cols,
            format!("{}\0{}", th.tid, th.name),
            Source::Thread(i),
            th,
        );
    }
    if let Some(m) = &r.process_memory {
        t.footer.push(format!(
            "process memory: rss {}, peak {}",
            bytes(m.rss_bytes),
            bytes(m.peak_rss_bytes)
        ));
    }
    t
}

// Data flow: channels, streams, futures.

fn channels(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::channels(r);
    let mut t = Table::new("channels: messages per channel", &cols);
    t.sort_by_title("Sent");
    let rows = columns::channel_rows(r);
    if !r.has(Section::Channels) || rows.is_empty() {
        t.empty = Some(missing(
            Section::Channels,
            status,
            "no hotpath::channel! has made a channel so far",
            "HOTPATH_REPORT leaves channels out",
        ));
        return t;
    }
    for (i, row) in rows.iter().enumerate() {
        let e = row.0;
        let id = format!("{}\0{}:{}\0{}", e.name, e.file, e.line, e.type_name);
        t.push(&cols, id, Source::Channel(i), row);
    }
    t.footer.push(
        "Latency: from the send call to the receive; Blocked: time sends waited for room".into(),
    );
    t
}

fn streams(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::streams(r);
    let mut t = Table::new("streams: items per stream", &cols);
    t.sort_by_title("Items");
    let rows = columns::stream_rows(r);
    if !r.has(Section::Streams) || rows.is_empty() {
        t.empty = Some(missing(
            Section::Streams,
            status,
            "no hotpath::stream! has wrapped a stream so far",
            "HOTPATH_REPORT leaves streams out",
        ));
        return t;
    }
    for (i, row) in rows.iter().enumerate() {
        let e = row.0;
        let id = format!("{}\0{}:{}\0{}", e.name, e.file, e.line, e.type_name);
        t.push(&cols, id, Source::Stream(i), row);
    }
    t.footer
        .push("Busy: time inside the polls; First item: first poll to first item".into());
    t
}

fn futures(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::futures(r);
    let mut t = Table::new("futures: calls per future", &cols);
    t.sort_by_title("Calls");
    let rows = columns::future_rows(r);
    if !r.has(Section::Futures) || rows.is_empty() {
        t.empty = Some(missing(
            Section::Futures,
            status,
            "no hotpath::future! or #[future_fn] future has finished so far",
            "HOTPATH_REPORT leaves futures out",
        ));
        return t;
    }
    for (i, row) in rows.iter().enumerate() {
        let e = row.0;
        let id = format!("{}\0{}:{}", e.name, e.file, e.line);
        t.push(&cols, id, Source::Future(i), row);
    }
    t.footer.push(
        "Lifetime: first poll to Ready or drop; Busy: time inside the polls of one call".into(),
    );
    t
}
