//! The console's tables as data: for each view, its columns, formatted cells, the
//! value each cell sorts by, and what to say when the report has no such section.
//!
//! Numbers are formatted with `hotpath::report::format`, as in the report printed at exit.

use std::cmp::Ordering;

use hotpath::report::format::{bytes, count, duration, per_call, percent, rate};
use hotpath::report::{percentile_label, Function, IoDirection, IoEntry, ProfilerStatus, Report};

use super::app::View;
use super::trend::{sparkline, Trend, WINDOW};

/// Where a row's data lives in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// `report.functions[i]`.
    Function(usize),
    /// `report.io[i]`.
    Io(usize),
    /// `report.threads[i]`.
    Thread(usize),
}

/// The value a cell sorts by. Missing values ("-") sort last in either direction.
#[derive(Clone, Debug)]
pub(crate) enum Key {
    Text(String),
    Num(f64),
    Missing,
}

impl Key {
    fn num(v: impl Into<f64>) -> Key {
        Key::Num(v.into())
    }

    fn opt(v: Option<impl Into<f64>>) -> Key {
        v.map_or(Key::Missing, |v| Key::Num(v.into()))
    }
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
    fn new(title: &'static str, columns: &[&str], text_columns: usize) -> Table {
        Table {
            title,
            columns: columns
                .iter()
                .enumerate()
                .map(|(i, c)| Column {
                    title: c.to_string(),
                    text: i < text_columns,
                })
                .collect(),
            default_sort: 0,
            rows: Vec::new(),
            footer: Vec::new(),
            empty: None,
        }
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
    }
}

fn has(report: &Report, section: &str) -> bool {
    report.sections.iter().any(|s| s == section)
}

/// Why `section` is not in the report, and what adds it.
fn missing(
    section: &str,
    feature: &str,
    status: Option<&ProfilerStatus>,
    not_yet: &str,
    left_out: &str,
) -> String {
    match status {
        Some(s) if !s.features.iter().any(|f| f == feature) => format!(
            "no {section} section: the program was built without the Cargo feature {feature} \
             (cargo run --features {feature})"
        ),
        Some(s) if !s.sections.iter().any(|x| x == section) => {
            format!("no {section} section: {left_out}")
        }
        Some(_) => format!("no {section} section yet: {not_yet}"),
        None => format!("no {section} section: it needs the Cargo feature {feature}"),
    }
}

fn function_name(f: &Function) -> String {
    let mut name = f.display_name().to_string();
    if f.is_async {
        name.push_str(" (async)");
    }
    if f.sampled {
        name.push_str(" *");
    }
    name
}

pub(crate) fn function_id(f: &Function) -> String {
    format!("{}\0{}\0{}:{}", f.name, f.display_name(), f.file, f.line)
}

fn dash() -> String {
    "-".into()
}

fn pct_titles(report: &Report) -> impl Iterator<Item = String> + '_ {
    report
        .percentiles
        .iter()
        .map(|p| format!("P{}", percentile_label(*p)))
}

fn timing(r: &Report, trend: &Trend) -> Table {
    let mut t = Table::new(
        "timing: wall time per function",
        &["Function", "Calls", "Avg", "Total", "Self", "% Total"],
        1,
    );
    t.insert_columns(3, pct_titles(r));
    t.sort_by_title("Total");
    for (i, f) in r.functions.iter().enumerate() {
        let mut cells = vec![function_name(f), count(f.calls)];
        let mut keys = vec![Key::Text(f.display_name().into()), Key::num(f.calls as f64)];
        match &f.wall_ns {
            Some(w) => {
                cells.push(duration(w.mean));
                keys.push(Key::num(w.mean as f64));
                for p in &r.percentiles {
                    let v = w.percentiles.get(*p);
                    cells.push(v.map_or_else(dash, duration));
                    keys.push(Key::opt(v.map(|v| v as f64)));
                }
                cells.push(duration(w.total));
                keys.push(Key::num(w.total as f64));
                cells.push(duration(w.self_));
                keys.push(Key::num(w.self_ as f64));
                cells.push(percent(w.total as f64, r.elapsed_ns as f64));
                keys.push(Key::num(w.total as f64));
            }
            None => {
                for _ in 0..r.percentiles.len() + 4 {
                    cells.push(dash());
                    keys.push(Key::Missing);
                }
            }
        }
        let id = function_id(f);
        if trend.has_intervals() {
            let shares = trend.shares(&id);
            let now = shares.last().copied().filter(|_| f.wall_ns.is_some());
            cells.push(now.map_or_else(dash, |n| percent(n, 1.0)));
            keys.push(Key::opt(now));
            cells.push(if f.wall_ns.is_some() {
                sparkline(&shares)
            } else {
                dash()
            });
            // Sorted by the time over the whole window.
            keys.push(Key::num(shares.iter().sum::<f64>()));
        }
        t.rows.push(Row {
            id,
            source: Source::Function(i),
            cells,
            keys,
        });
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

fn signed_bytes(b: i64) -> String {
    if b < 0 {
        format!("-{}", bytes(b.unsigned_abs()))
    } else {
        bytes(b as u64)
    }
}

fn memory(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let mut t = Table::new(
        "alloc: allocations per function",
        &[
            "Function",
            "Calls",
            "Allocs/call",
            "Bytes/call",
            "Total bytes",
            "Self bytes",
            "Retained",
            "% Total",
        ],
        1,
    );
    // Percentiles of bytes per call are in the inspect pane: with them the table would
    // not fit 120 columns.
    t.sort_by_title("Total bytes");
    if !has(r, "alloc") {
        t.empty = Some(missing(
            "alloc",
            "hotpath-alloc",
            status,
            "nothing allocated in measured code so far",
            "allocations are not tracked (with allocator = none the program needs a \
             hotpath::alloc::Tracking global allocator; HOTPATH_REPORT may leave alloc out)",
        ));
        return t;
    }
    let all = r.alloc_total.as_ref().map_or(0, |a| a.bytes) as f64;
    let mut quiet = 0;
    for (i, f) in r.functions.iter().enumerate() {
        let Some(a) = &f.alloc else { continue };
        if a.count == 0 && a.freed_bytes == 0 {
            quiet += 1;
            continue;
        }
        let mut cells = vec![
            function_name(f),
            count(f.calls),
            per_call(a.per_call_count),
            bytes(a.per_call_bytes),
        ];
        let mut keys = vec![
            Key::Text(f.display_name().into()),
            Key::num(f.calls as f64),
            Key::num(a.per_call_count),
            Key::num(a.per_call_bytes as f64),
        ];
        cells.extend([
            bytes(a.bytes),
            bytes(a.self_bytes),
            signed_bytes(a.retained_bytes),
            percent(a.bytes as f64, all),
        ]);
        keys.extend([
            Key::num(a.bytes as f64),
            Key::num(a.self_bytes as f64),
            Key::num(a.retained_bytes as f64),
            Key::num(a.bytes as f64),
        ]);
        t.rows.push(Row {
            id: function_id(f),
            source: Source::Function(i),
            cells,
            keys,
        });
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
    let exact = r.cpu.as_ref().is_some_and(|c| c.mode == "exact");
    let mut columns = vec![
        "Function", "Calls", "Wall", "CPU", "Self CPU", "Wait", "CPU %",
    ];
    if exact {
        columns.extend(["Vol sw", "Invol sw"]);
    } else {
        columns.push("Samples");
    }
    let mut t = Table::new("cpu: CPU time and waiting per function", &columns, 1);
    t.sort_by_title("CPU");
    let Some(info) = r.cpu.as_ref().filter(|_| has(r, "cpu")) else {
        t.empty = Some(missing(
            "cpu",
            "hotpath-cpu",
            status,
            "no CPU time measured so far",
            "CPU time is not measured (HOTPATH_CPU_MODE=off, or HOTPATH_REPORT leaves cpu out)",
        ));
        return t;
    };
    for (i, f) in r.functions.iter().enumerate() {
        let Some(c) = &f.cpu else { continue };
        let wall = f.wall_ns.as_ref().map_or(0, |w| w.total);
        let mut cells = vec![
            function_name(f),
            count(f.calls),
            duration(wall),
            duration(c.cpu_ns),
            duration(c.self_cpu_ns),
            duration(c.wait_ns),
            format!("{:.1}%", 100.0 * c.cpu_share),
        ];
        let mut keys = vec![
            Key::Text(f.display_name().into()),
            Key::num(f.calls as f64),
            Key::num(wall as f64),
            Key::num(c.cpu_ns as f64),
            Key::num(c.self_cpu_ns as f64),
            Key::num(c.wait_ns as f64),
            Key::num(c.cpu_share),
        ];
        let optional = if exact {
            vec![c.voluntary_switches, c.involuntary_switches]
        } else {
            vec![c.samples]
        };
        for v in optional {
            cells.push(v.map_or_else(dash, count));
            keys.push(Key::opt(v.map(|v| v as f64)));
        }
        t.rows.push(Row {
            id: function_id(f),
            source: Source::Function(i),
            cells,
            keys,
        });
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

/// Bytes moved by the timed operations of a direction (rate × time inside them).
fn timed_bytes(d: &IoDirection) -> f64 {
    d.rate_bytes_per_sec.unwrap_or(0.0) * d.total_ns as f64 / 1e9
}

fn io_errors(e: &IoEntry) -> u64 {
    e.read.errors + e.write.errors + e.flush.errors + e.shutdown.errors + e.seek.errors
}

/// The entry's name, told apart from entries of the same name by type or place.
fn io_name(e: &IoEntry, all: &[IoEntry]) -> String {
    let twins: Vec<&IoEntry> = all.iter().filter(|o| o.name == e.name).collect();
    if twins.len() < 2 {
        return e.name.clone();
    }
    if twins.iter().filter(|o| o.type_name == e.type_name).count() < 2 {
        let short = e.type_name.rsplit("::").next().unwrap_or(&e.type_name);
        return format!("{} ({short})", e.name);
    }
    let file = e.file.rsplit(['/', '\\']).next().unwrap_or(&e.file);
    format!("{} ({file}:{})", e.name, e.line)
}

fn io_streams(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let mut t = Table::new(
        "io: operations per stream",
        &[
            "Io", "Inst", "Reads", "Read", "Writes", "Written", "Bytes", "Rate", "Avg", "Errors",
        ],
        1,
    );
    t.sort_by_title("Bytes");
    let entries = r.io.as_deref().unwrap_or(&[]);
    if !has(r, "io") || entries.is_empty() {
        t.empty = Some(missing(
            "io",
            "hotpath",
            status,
            "no hotpath::io! wrapper has completed an operation so far",
            "HOTPATH_REPORT leaves io out",
        ));
        return t;
    }
    for (i, e) in entries.iter().enumerate() {
        let (rd, wr) = (&e.read, &e.write);
        let timed_ns = rd.total_ns + wr.total_ns;
        let timed_ops = rd.timed_ops + wr.timed_ops;
        let speed =
            (timed_ns > 0).then(|| (timed_bytes(rd) + timed_bytes(wr)) * 1e9 / timed_ns as f64);
        let avg = (timed_ops > 0).then(|| timed_ns / timed_ops);
        let cells = vec![
            io_name(e, entries),
            count(e.instances),
            count(rd.ops),
            bytes(rd.bytes),
            count(wr.ops),
            bytes(wr.bytes),
            bytes(rd.bytes + wr.bytes),
            speed.map_or_else(dash, rate),
            avg.map_or_else(dash, duration),
            count(io_errors(e)),
        ];
        let keys = vec![
            Key::Text(e.name.clone()),
            Key::num(e.instances as f64),
            Key::num(rd.ops as f64),
            Key::num(rd.bytes as f64),
            Key::num(wr.ops as f64),
            Key::num(wr.bytes as f64),
            Key::num((rd.bytes + wr.bytes) as f64),
            Key::opt(speed),
            Key::opt(avg.map(|v| v as f64)),
            Key::num(io_errors(e) as f64),
        ];
        t.rows.push(Row {
            id: format!("{}\0{}:{}\0{}", e.name, e.file, e.line, e.type_name),
            source: Source::Io(i),
            cells,
            keys,
        });
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
    let mut t = Table::new(
        "io by function: made while it was the innermost measured function",
        &["Function", "Read", "Written", "Time in I/O", "% of wall"],
        1,
    );
    t.sort_by_title("Time in I/O");
    for (i, f) in r.functions.iter().enumerate() {
        let Some(io) = &f.io else { continue };
        let wall = f.wall_ns.as_ref().map_or(0, |w| w.total);
        t.rows.push(Row {
            id: function_id(f),
            source: Source::Function(i),
            cells: vec![
                function_name(f),
                bytes(io.read_bytes),
                bytes(io.write_bytes),
                duration(io.io_ns),
                percent(io.io_ns as f64, wall as f64),
            ],
            keys: vec![
                Key::Text(f.display_name().into()),
                Key::num(io.read_bytes as f64),
                Key::num(io.write_bytes as f64),
                Key::num(io.io_ns as f64),
                if wall > 0 {
                    Key::num(io.io_ns as f64 / wall as f64)
                } else {
                    Key::Missing
                },
            ],
        });
    }
    if t.rows.is_empty() {
        t.empty = Some(if has(r, "io") {
            "no I/O was made inside a measured function so far".into()
        } else {
            missing(
                "io",
                "hotpath",
                status,
                "no hotpath::io! wrapper has completed an operation so far",
                "HOTPATH_REPORT leaves io out",
            )
        });
    }
    t
}

fn threads(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let rows = r.threads.as_deref().unwrap_or(&[]);
    let with_alloc = rows.iter().any(|t| t.alloc_bytes.is_some());
    let mut columns = vec![
        "Thread", "TID", "State", "CPU avg", "CPU max", "CPU", "User", "System",
    ];
    if with_alloc {
        columns.extend(["Alloc", "Freed"]);
    }
    let mut t = Table::new("threads: per thread", &columns, 1);
    // State is text too.
    t.columns[2].text = true;
    t.sort_by_title("CPU");
    if !has(r, "threads") {
        t.empty = Some(match status {
            Some(s) if s.sections.iter().any(|x| x == "threads") => {
                "no threads section yet: the first /proc reading is pending".into()
            }
            _ => "no threads section: it is collected on Linux only, and HOTPATH_REPORT may \
                  leave it out"
                .into(),
        });
        return t;
    }
    for (i, th) in rows.iter().enumerate() {
        let cpu = th.user_ns.saturating_add(th.system_ns);
        let mut name = th.name.clone();
        if th.profiler {
            name.push_str(" (profiler)");
        }
        let mut cells = vec![
            name,
            th.tid.to_string(),
            th.state.clone(),
            format!("{:.1}%", th.cpu_percent_avg),
            format!("{:.1}%", th.cpu_percent_max),
            duration(cpu),
            duration(th.user_ns),
            duration(th.system_ns),
        ];
        let mut keys = vec![
            Key::Text(th.name.clone()),
            Key::num(th.tid as f64),
            Key::Text(th.state.clone()),
            Key::num(th.cpu_percent_avg),
            Key::num(th.cpu_percent_max),
            Key::num(cpu as f64),
            Key::num(th.user_ns as f64),
            Key::num(th.system_ns as f64),
        ];
        if with_alloc {
            for v in [th.alloc_bytes, th.freed_bytes] {
                cells.push(v.map_or_else(dash, bytes));
                keys.push(Key::opt(v.map(|v| v as f64)));
            }
        }
        t.rows.push(Row {
            id: format!("{}\0{}", th.tid, th.name),
            source: Source::Thread(i),
            cells,
            keys,
        });
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
