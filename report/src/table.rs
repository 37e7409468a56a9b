//! The report as aligned text tables, built from the column model of
//! [`super::columns`]: each section in the report is rendered by its module here.

use std::fmt::Write as _;

use super::format::{count, duration, percent};
use super::model::{percentile_label, Report};
use super::section::Section;
use common::{wrapped, TABLE_LINE};

mod alloc;
mod common;
mod cpu;
mod flow;
mod icount;
mod io;
mod locks;
mod service;
mod stacks;
mod threads;
mod timing;

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
    wrapped(
        &format!(
            "[hotpath] {} | {}",
            duration(r.elapsed_ns),
            Section::join(&r.sections, " | ")
        ),
        &mut out,
    );
    let mut header = String::new();
    header_details(r, &mut header);
    for line in header.lines() {
        wrapped(line, &mut out);
    }
    for note in &r.notes {
        wrapped(&format!("note: {note}"), &mut out);
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
    let mut raw = String::new();
    section_text(r, section, limit, &mut raw);
    // Lines of text are wrapped to the width; the lines of a table are kept as they are.
    for line in raw.lines() {
        match line.strip_prefix(TABLE_LINE) {
            Some(row) => {
                out.push_str(row);
                out.push('\n');
            }
            None => wrapped(line, out),
        }
    }
}

fn section_text(r: &Report, section: Section, limit: usize, out: &mut String) {
    match section {
        Section::Timing => timing::timing(r, limit, out),
        Section::Alloc => alloc::alloc(r, limit, out),
        Section::Cpu => cpu::cpu(r, limit, out),
        Section::Icount => icount::icount(r, limit, out),
        Section::Io => io::io(r, limit, out),
        Section::Channels => flow::channels(r, limit, out),
        Section::Streams => flow::streams(r, limit, out),
        Section::Futures => flow::futures(r, limit, out),
        Section::Threads => threads::threads(r, limit, out),
        Section::Waits => locks::waits(r, limit, out),
        Section::Mutexes => locks::mutexes(r, limit, out),
        Section::RwLocks => locks::rw_locks(r, limit, out),
        Section::Debug => locks::debug(r, limit, out),
        Section::Stacks => stacks::stacks(r, limit, out),
        Section::Sql => service::sql(r, limit, out),
        Section::Http => service::http(r, limit, out),
        Section::Server => service::server(r, limit, out),
        Section::Tokio => service::tokio(r, limit, out),
    }
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
    if let Some(b) = &r.overhead_budget {
        wrapped(
            &format!(
                "overhead budget: {}% of CPU time; the measured calls cost at most about {} \
                 of {} CPU ({}, estimated); Timed: the share of a row's calls timed, the \
                 others counted",
                percentile_label(b.percent),
                duration(b.estimated_cost_ns),
                duration(b.cpu_ns),
                percent(b.estimated_cost_ns as f64, b.cpu_ns as f64),
            ),
            out,
        );
    }
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

#[cfg(test)]
mod tests {
    use super::render;
    use crate::model::{LockDist, LockMode, MutexEntry, Report};
    use crate::Section;

    /// A report of one mutex whose holds were timed `timed` times of 1,000, the longest
    /// 50 ms.
    fn one_mutex(timed: u64) -> Report {
        let dist = |max: u64| LockDist {
            total: max,
            mean: max / timed,
            min: 0,
            max,
            ..LockDist::default()
        };
        Report {
            schema_version: crate::SCHEMA_VERSION,
            sections: vec![Section::Mutexes],
            mutexes_time_sampling_rate: Some(1.0 / 16.0),
            mutexes: Some(vec![MutexEntry {
                name: "held".into(),
                label: Some("held".into()),
                file: "src/main.rs".into(),
                line: 7,
                backend: "std".into(),
                type_name: "std::sync::Mutex<u64>".into(),
                instances: 1,
                lock: LockMode {
                    acquisitions: 1000,
                    timed,
                    sampled: timed < 1000,
                    wait_ns: Some(dist(0)),
                    hold_ns: Some(dist(50_000_000)),
                    ..LockMode::default()
                },
            }]),
            ..Report::default()
        }
    }

    fn row<'a>(table: &'a str, name: &str) -> &'a str {
        table
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no row {name} in\n{table}"))
    }

    #[test]
    fn a_max_over_sampled_holds_is_marked_and_the_legend_says_why() {
        let table = render(&one_mutex(300), 10);
        assert!(
            row(&table, "held").trim_end().ends_with("50.0 ms *"),
            "{table}"
        );
        assert!(
            table.contains(&format!("\n{}\n", crate::columns::SAMPLED_LEGEND)),
            "{table}"
        );
    }

    #[test]
    fn a_max_over_every_hold_is_not_marked() {
        let table = render(&one_mutex(1000), 10);
        assert!(
            row(&table, "held").trim_end().ends_with("50.0 ms"),
            "{table}"
        );
        assert!(!table.contains(crate::columns::SAMPLED_MARK), "{table}");
        assert!(!table.contains(crate::columns::SAMPLED_LEGEND), "{table}");
    }
}
