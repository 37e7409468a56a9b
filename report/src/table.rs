//! The report as aligned text tables, built from the column model of
//! [`super::columns`]: each section in the report is rendered by its function here.

use std::fmt::Write as _;

use super::columns::{self, Columns};
use super::format::{bytes, count, duration, percent, shown, take, Table};
use super::model::{percentile_label, Function, Report};
use super::section::Section;

mod locks;
mod service;

/// Rows shown per section: one limit for all, or one per section (0 = all rows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    all: usize,
    per: Vec<(Section, usize)>,
}

impl Limits {
    /// The same limit for every section.
    pub fn all(limit: usize) -> Limits {
        Limits {
            all: limit,
            per: Vec::new(),
        }
    }

    /// `limit` rows for `section`.
    pub fn with(mut self, section: Section, limit: usize) -> Limits {
        self.per.retain(|(s, _)| *s != section);
        self.per.push((section, limit));
        self
    }

    /// The rows shown for `section`.
    pub fn of(&self, section: Section) -> usize {
        self.per
            .iter()
            .find(|(s, _)| *s == section)
            .map_or(self.all, |(_, l)| *l)
    }
}

/// Renders the whole report. `limit` caps the rows of each section (0 = all).
pub fn render(r: &Report, limit: usize) -> String {
    render_with(r, &Limits::all(limit))
}

/// Renders the whole report with a row limit per section.
pub fn render_with(r: &Report, limits: &Limits) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "[hotpath] {} | {}",
        duration(r.elapsed_ns),
        Section::join(&r.sections, " | ")
    );
    header_details(r, &mut out);
    for note in &r.notes {
        let _ = writeln!(out, "note: {note}");
    }
    for section in Section::ALL {
        if !r.has(section) {
            continue;
        }
        out.push('\n');
        section_table(r, section, limits.of(section), &mut out);
    }
    out
}

/// The table of one section, `limit` rows (0: all). Every section has one: a new
/// section does not compile until it does.
pub fn section_table(r: &Report, section: Section, limit: usize, out: &mut String) {
    match section {
        Section::Timing => timing(r, limit, out),
        Section::Alloc => alloc(r, limit, out),
        Section::Cpu => cpu(r, limit, out),
        Section::Io => io(r, limit, out),
        Section::Channels => channels(r, limit, out),
        Section::Streams => streams(r, limit, out),
        Section::Futures => futures(r, limit, out),
        Section::Threads => threads(r, limit, out),
        Section::Waits => locks::waits(r, limit, out),
        Section::Mutexes => locks::mutexes(r, limit, out),
        Section::RwLocks => locks::rw_locks(r, limit, out),
        Section::Debug => locks::debug(r, limit, out),
        Section::Stacks => stacks(r, limit, out),
        Section::Sql => service::sql(r, limit, out),
        Section::Http => service::http(r, limit, out),
        Section::Server => service::server(r, limit, out),
        Section::Tokio => service::tokio(r, limit, out),
    }
}

/// A text table of `rows` in the exit report's columns of `cols`, with the extra rows
/// (already formatted, one cell per exit column) at the end.
fn table<R>(cols: Columns<'_, R>, rows: &[R], extra: Option<Vec<String>>) -> Table {
    let cols: Vec<_> = cols.into_iter().filter(|c| c.show.in_exit()).collect();
    let left: Vec<bool> = cols
        .iter()
        .map(|c| c.align == columns::Align::Left)
        .collect();
    let mut t = Table::new(cols.iter().map(|c| c.title.clone()).collect()).left(&left);
    for row in rows {
        t.row(cols.iter().map(|c| c.cell(row).text).collect());
    }
    if let Some(extra) = extra {
        t.row(extra);
    }
    t
}

fn header_details(r: &Report, out: &mut String) {
    let calls: u64 = r.functions.iter().map(|f| f.calls).sum();
    let _ = write!(out, "caller: {}", r.caller);
    if let Some(label) = &r.label {
        let _ = write!(out, " | label: {label}");
    }
    let _ = write!(out, " | clock: {}", r.clock);
    if r.time_sampling_rate < 1.0 {
        if r.time_sampling_rate == 0.0 {
            let _ = write!(out, " | time sampling: off (calls counted, not timed)");
        } else {
            let _ = write!(
                out,
                " | time sampling: {}% of calls",
                percentile_label(r.time_sampling_rate * 100.0)
            );
        }
    }
    out.push('\n');
    if let Some(c) = &r.cpu {
        let _ = write!(out, "cpu: {}", c.mode);
        if let Some(hz) = c.hz {
            let _ = write!(out, " {hz} Hz");
        }
        let _ = write!(out, ", {}", c.source);
        if let Some(why) = &c.fallback_reason {
            let _ = write!(out, " (fallback: {why})");
        }
        out.push('\n');
    }

    let _ = write!(
        out,
        "profiler overhead: {:.1} ns per timed call",
        r.overhead_per_call_ns
    );
    match (r.io_ops, r.overhead_per_io_op_ns) {
        (Some(ops), Some(per_op)) => {
            let _ = write!(
                out,
                ", {per_op:.1} ns per I/O operation; {} calls and {} I/O operations",
                count(calls),
                count(ops)
            );
        }
        _ => {
            let _ = write!(out, "; {} calls", count(calls));
        }
    }
    let _ = writeln!(
        out,
        " ≈ {} ({} of the run)",
        duration(r.overhead_ns),
        percent(r.overhead_ns as f64, r.elapsed_ns as f64),
    );
}

/// Width the lines under a table are wrapped to.
const WIDTH: usize = 120;

/// Writes `text` as lines of at most [`WIDTH`] characters, broken after `; ` or `, `
/// (continuation lines indented by two spaces).
fn wrapped(text: &str, out: &mut String) {
    let mut line = String::new();
    for piece in text.split_inclusive(['(', ';', ',']) {
        let fits = line.chars().count() + piece.chars().count() <= WIDTH;
        if !fits && !line.trim().is_empty() && piece.starts_with(' ') {
            out.push_str(line.trim_end());
            out.push('\n');
            line = format!("  {}", piece.trim_start());
        } else {
            line.push_str(piece);
        }
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

/// The line under a table whose rows `limit` cut: how many are hidden, the hidden
/// functions called most (they cost the most profiler time), and how to show them.
fn hidden_functions(hidden: &[&Function], out: &mut String) {
    if hidden.is_empty() {
        return;
    }
    let mut most: Vec<&&Function> = hidden.iter().collect();
    most.sort_by(|a, b| b.calls.cmp(&a.calls).then(a.name.cmp(&b.name)));
    let named: Vec<String> = most
        .iter()
        .take(3)
        .map(|f| format!("{} ({} calls)", f.display_name(), count(f.calls)))
        .collect();
    wrapped(
        &format!(
            "{} more not shown, most called: {}; HOTPATH_LIMIT=0 shows all",
            count(hidden.len() as u64),
            named.join(", ")
        ),
        out,
    );
}

/// The line under a table of other rows that `limit` cut.
fn hidden_rows(hidden: usize, what: &str, out: &mut String) {
    if hidden > 0 {
        let _ = writeln!(
            out,
            "{} more {what} not shown; HOTPATH_LIMIT=0 shows all",
            count(hidden as u64)
        );
    }
}

fn timing(r: &Report, limit: usize, out: &mut String) {
    let n = take(limit, r.functions.len());
    let _ = writeln!(
        out,
        "timing: wall time per function, by total {}",
        shown(n, r.functions.len())
    );
    table(columns::timing(r), &r.functions[..n], None).render(out);
    let rest: Vec<&Function> = r.functions[n..].iter().collect();
    hidden_functions(&rest, out);
    let shown_rows = &r.functions[..n];
    if shown_rows.iter().any(|f| f.is_async) {
        let _ = writeln!(
            out,
            "(async): Total is wall time from first poll to Ready; Self is poll time minus measured children"
        );
    }
    if shown_rows.iter().any(|f| f.sampled) {
        let _ = writeln!(
            out,
            "*: times measured on a sample of calls; totals scaled to all calls"
        );
    }
    if shown_rows
        .iter()
        .any(|f| f.wall_ns.is_none() && f.running.is_none())
    {
        let _ = writeln!(out, "-: calls counted, none timed (time sampling rate 0)");
    }
    if shown_rows.iter().any(|f| f.running.is_some()) {
        let _ = writeln!(
            out,
            "(running): a call had not returned; Total and Self include its time so far, \
             Calls and Avg count finished calls"
        );
    }
    timing_legend(r, shown_rows, out);
}

/// What the timing columns mean where they can surprise: what a per-call time includes,
/// the root's Self, a heavy tail.
fn timing_legend(r: &Report, rows: &[Function], out: &mut String) {
    if let Some(floor) = r.clock_floor_ns {
        wrapped(
            &format!(
                "Avg, P{}: per call, including about {} ns of the profiler's own clock reads \
                 (shorter shows as <{} ns); percentiles within 3.1 %",
                r.percentiles
                    .iter()
                    .map(|p| percentile_label(*p))
                    .collect::<Vec<_>>()
                    .join("/P"),
                floor.ceil() as u64,
                floor.ceil() as u64,
            ),
            out,
        );
    }
    // The outermost row's Self is often most of it: the work of unmeasured code.
    if let Some(root) = rows
        .first()
        .and_then(|f| f.wall_ns.as_ref().map(|w| (f, w)))
    {
        let (f, w) = root;
        if w.total > 0 && w.self_ * 10 >= w.total && rows.len() > 1 {
            wrapped(
                &format!(
                    "Self: time not in measured children; {}'s {} is its own work and that \
                     of the unmeasured functions it calls",
                    f.display_name(),
                    duration(w.self_)
                ),
                out,
            );
        }
    }
    if let Some(p95) = r.percentiles.iter().copied().find(|p| *p == 95.0) {
        let tails = rows
            .iter()
            .filter_map(|f| f.wall_ns.as_ref())
            .filter(|w| w.percentiles.get(p95).is_some_and(|v| w.mean > 2 * v))
            .count();
        if tails > 0 {
            wrapped(
                &format!(
                    "Avg over twice P95 on {tails} row{}: a few calls took far longer than \
                     most (a heavy tail; P99 and the JSON max show how long)",
                    if tails == 1 { "" } else { "s" }
                ),
                out,
            );
        }
    }
}

fn alloc(r: &Report, limit: usize, out: &mut String) {
    let measured = r.functions.iter().filter(|f| f.alloc.is_some()).count();
    let rows = columns::alloc_rows(r);
    let n = take(limit, rows.len());
    let quiet = measured - rows.len();
    let _ = write!(
        out,
        "alloc: allocations per function, by total bytes {}",
        shown(n, rows.len())
    );
    if quiet > 0 {
        let _ = write!(out, "; {quiet} more allocated and freed nothing");
    }
    out.push('\n');
    table(
        columns::alloc(r),
        &rows[..n],
        columns::alloc_unattributed(r),
    )
    .render(out);
    if let Some(total) = &r.alloc_total {
        let _ = writeln!(
            out,
            "process: {} allocations, {} allocated, {} freed; Self bytes + (unattributed) = all bytes",
            count(total.count),
            bytes(total.bytes),
            bytes(total.freed_bytes)
        );
    }
}

fn cpu(r: &Report, limit: usize, out: &mut String) {
    let Some(info) = &r.cpu else {
        return;
    };
    let rows = columns::cpu_rows(r);
    let n = take(limit, rows.len());
    let _ = writeln!(
        out,
        "cpu: CPU time and waiting per function, by CPU {}",
        shown(n, rows.len())
    );
    table(columns::cpu(r), &rows[..n], columns::cpu_unattributed(r)).render(out);
    let rest: Vec<&Function> = rows[n..].iter().map(|(f, _)| *f).collect();
    hidden_functions(&rest, out);
    let _ = write!(out, "process CPU: {}", duration(info.process_cpu_ns));
    if let Some(sampled) = info.sampled_cpu_ns {
        let _ = write!(
            out,
            "; samples account for {} ({})",
            duration(sampled),
            percent(sampled as f64, info.process_cpu_ns as f64)
        );
    }
    out.push('\n');
    if let Some(why) = &info.hw_counters_unavailable {
        let _ = writeln!(out, "instructions and cycles not reported: {why}");
    }
}

fn io(r: &Report, limit: usize, out: &mut String) {
    let entries = r.io.as_deref().unwrap_or(&[]);
    let n = take(limit, entries.len());
    let _ = write!(
        out,
        "io: operations per stream, by bytes {}",
        shown(n, entries.len())
    );
    match r.io_time_sampling_rate {
        Some(rate) if rate <= 0.0 => {
            let _ = writeln!(out, "; count only, no operation timed");
        }
        Some(rate) if rate < 1.0 => {
            let _ = writeln!(
                out,
                "; {} of operations timed, every one counted",
                percent(rate, 1.0)
            );
        }
        _ => out.push('\n'),
    }
    let rows = columns::io_rows(r);
    let shown_rows = &rows[..n];
    let reads: Vec<_> = shown_rows
        .iter()
        .filter(|(e, _)| columns::io_reads_any(e))
        .cloned()
        .collect();
    let writes: Vec<_> = shown_rows
        .iter()
        .filter(|(e, _)| columns::io_writes_any(e))
        .cloned()
        .collect();
    if !reads.is_empty() {
        table(columns::io_reads(r), &reads, None).render(out);
    }
    if !writes.is_empty() {
        if !reads.is_empty() {
            out.push('\n');
        }
        table(columns::io_writes(r), &writes, None).render(out);
    }
    hidden_rows(entries.len() - n, "I/O entries", out);
    let seeks: u64 = entries.iter().map(|e| e.seek.ops).sum();
    let seek_errors: u64 = entries.iter().map(|e| e.seek.errors).sum();
    let shutdowns: u64 = entries.iter().map(|e| e.shutdown.ops).sum();
    let mut also = Vec::new();
    if seeks + seek_errors > 0 {
        also.push(match seek_errors {
            0 => format!("{} seeks", count(seeks)),
            e => format!("{} seeks ({} failed)", count(seeks + e), count(e)),
        });
    }
    if shutdowns > 0 {
        also.push(format!("{} shutdowns", count(shutdowns)));
    }
    if !also.is_empty() {
        let _ = writeln!(
            out,
            "also: {}; per stream in the JSON report",
            also.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "Rate: bytes / time inside the operations (the speed of one operation while it runs)"
    );
    let by_fn = columns::io_function_rows(r);
    if !by_fn.is_empty() {
        let k = take(limit, by_fn.len());
        out.push('\n');
        let _ = writeln!(
            out,
            "io by function: operations made while it was the innermost measured function {}",
            shown(k, by_fn.len())
        );
        table(columns::io_functions(), &by_fn[..k], None).render(out);
        let rest: Vec<&Function> = by_fn[k..].iter().map(|(f, _)| *f).collect();
        hidden_functions(&rest, out);
    }
}

/// The threads section: the user's threads in a table, the profiler's own on one line
/// after it, and the process's memory.
fn stacks(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::stack_rows(r);
    let n = take(limit, rows.len());
    let _ = writeln!(
        out,
        "stacks: calls and time per path, depth first, callees by total {}",
        shown(n, rows.len())
    );
    table(columns::stacks(r), &rows[..n], None).render(out);
    if n < rows.len() {
        let _ = writeln!(
            out,
            "(every path is in the JSON report; `hotpath export` makes flame graphs of them)"
        );
    }
}

fn threads(r: &Report, limit: usize, out: &mut String) {
    let rows = r.threads.as_deref().unwrap_or(&[]);
    let order = |a: &&super::model::ThreadRow, b: &&super::model::ThreadRow| {
        b.cpu_ns()
            .cmp(&a.cpu_ns())
            .then(a.tid.cmp(&b.tid))
            .then(a.name.cmp(&b.name))
    };
    let mut user: Vec<_> = rows.iter().filter(|t| !t.profiler).collect();
    let mut own: Vec<_> = rows.iter().filter(|t| t.profiler).collect();
    user.sort_by(order);
    own.sort_by(order);
    let n = take(limit, user.len());
    let _ = writeln!(
        out,
        "threads: per thread, by CPU time {}",
        shown(n, user.len())
    );
    let shown_rows: Vec<_> = user[..n].iter().map(|t| (*t).clone()).collect();
    table(columns::threads(rows), &shown_rows, None).render(out);
    hidden_rows(user.len() - n, "threads", out);
    if !own.is_empty() {
        // Threads of one name on one entry: `name ×6 (0.1% avg)`, the average over them.
        let mut groups: Vec<(&str, usize, f64)> = Vec::new();
        for t in &own {
            match groups.iter_mut().find(|g| g.0 == t.name) {
                Some(g) => {
                    g.1 += 1;
                    g.2 += t.cpu_percent_avg;
                }
                None => groups.push((&t.name, 1, t.cpu_percent_avg)),
            }
        }
        let list: Vec<String> = groups
            .iter()
            .map(|(name, n, sum)| match n {
                1 => format!("{name} ({sum:.1}% avg)"),
                n => format!("{name} ×{n} ({:.1}% avg)", sum / *n as f64),
            })
            .collect();
        let _ = writeln!(out, "profiler threads: {}", list.join(", "));
    }
    if let Some(m) = &r.process_memory {
        let _ = writeln!(
            out,
            "process memory: {} resident at the end, {} at the peak (rss)",
            bytes(m.rss_bytes),
            bytes(m.peak_rss_bytes)
        );
    }
}

fn channels(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::channel_rows(r);
    let n = take(limit, rows.len());
    let _ = writeln!(
        out,
        "channels: messages per channel, by messages sent {}",
        shown(n, rows.len())
    );
    table(columns::channels(r), &rows[..n], None).render(out);
    wrapped(
        "Latency: from the send call to the receive (includes waiting for room); Blocked: time sends waited for room",
        out,
    );
    flow_sampling(r.channels_time_sampling_rate, "messages", "Latency", out);
    let errors: u64 = rows.iter().map(|(e, _)| e.send_errors).sum();
    let lagged: u64 = rows.iter().map(|(e, _)| e.lagged).sum();
    if errors + lagged > 0 {
        wrapped(
            &format!(
                "also: {} failed sends (channel closed), {} messages missed by lagging or coalescing receivers; per channel in the JSON report",
                count(errors),
                count(lagged)
            ),
            out,
        );
    }
}

fn streams(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::stream_rows(r);
    let n = take(limit, rows.len());
    let _ = writeln!(
        out,
        "streams: items per stream, by items {}",
        shown(n, rows.len())
    );
    table(columns::streams(r), &rows[..n], None).render(out);
    wrapped(
        "Busy: time inside the polls; First item: from an instance's first poll to its first item",
        out,
    );
    flow_sampling(r.streams_time_sampling_rate, "polls", "Busy", out);
}

fn futures(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::future_rows(r);
    let n = take(limit, rows.len());
    let _ = writeln!(
        out,
        "futures: calls per future, by calls {}",
        shown(n, rows.len())
    );
    table(columns::futures(r), &rows[..n], None).render(out);
    wrapped(
        "Lifetime: first poll to Ready or drop; Busy: time inside the polls of one call",
        out,
    );
    flow_sampling(
        r.futures_time_sampling_rate,
        "calls",
        "Lifetime and Busy",
        out,
    );
}

/// The line that says how a data-flow section's times were sampled (nothing when every
/// event was timed).
fn flow_sampling(rate: Option<f64>, what: &str, times: &str, out: &mut String) {
    match rate {
        Some(r) if r <= 0.0 => wrapped(&format!("count only: no {what} timed"), out),
        Some(r) if r < 1.0 => wrapped(
            &format!(
                "{times}: each site's first {} {what} timed, then 1 in {} (each standing for {}); counts are exact",
                crate::SAMPLING_WARM_UP,
                (1.0 / r).round(),
                (1.0 / r).round()
            ),
            out,
        ),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_at_separators_within_the_width() {
        let mut out = String::new();
        let text = format!("{}, {}; the end", "a".repeat(70), "b".repeat(60));
        wrapped(&text, &mut out);
        assert_eq!(
            out,
            format!("{},\n  {}; the end\n", "a".repeat(70), "b".repeat(60))
        );
        let mut short = String::new();
        wrapped("short, line", &mut short);
        assert_eq!(short, "short, line\n");
    }
}
