//! The report as aligned text tables, built from the column model of
//! [`super::columns`]: each section in the report is rendered by its module here.

use std::fmt::Write as _;

use super::columns::{self, Columns};
use super::format::{count, duration, percent, shown, take, Table};
use super::model::{percentile_label, Function, Report};
use super::section::Section;

mod alloc;
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

/// Marks a line of a table in a section's text, for [`section_table`].
const TABLE_LINE: char = '\u{1}';

/// A table of a section, its lines marked as such when rendered.
struct SectionTable(Table);

impl SectionTable {
    fn render(&self, out: &mut String) {
        let mut text = String::new();
        self.0.render(&mut text);
        for line in text.lines() {
            out.push(TABLE_LINE);
            out.push_str(line);
            out.push('\n');
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

/// A text table of `rows` in the exit report's columns of `cols`, with the extra rows
/// (already formatted, one cell per exit column) at the end.
/// A table wider than [`WIDTH`] is narrowed by [`Table::fit`].
fn table<R>(cols: Columns<'_, R>, rows: &[R], extra: Option<Vec<String>>) -> SectionTable {
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
    t.fit(WIDTH);
    SectionTable(t)
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

/// Writes a section's first line: `what` and how many of its `len` rows `limit` lets
/// through (`(5)`, `(2/5)`). Returns how many rows to show.
fn heading(out: &mut String, limit: usize, len: usize, what: &str) -> usize {
    heading_then(out, limit, len, what, "")
}

/// [`heading`] with `tail` after the count (`; 1 more allocated and freed nothing`).
fn heading_then(out: &mut String, limit: usize, len: usize, what: &str, tail: &str) -> usize {
    let n = take(limit, len);
    wrapped(&format!("{what} {}{tail}", shown(n, len)), out);
    n
}

/// Width the lines under a table are wrapped to.
const WIDTH: usize = 120;

/// Writes `text` as lines of at most [`WIDTH`] characters (continuation lines indented
/// by two spaces), broken at a space: preferably one after `;`, `,` or `|` or before `(`
/// in the second half of the line, else the last that fits. A word longer than a line
/// stays whole.
fn wrapped(text: &str, out: &mut String) {
    let width = |s: &str| s.chars().count();
    let mut line = String::new();
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            if width(&line) + 1 + width(word) > WIDTH && !line.trim().is_empty() {
                let rest = match separator_break(&line) {
                    Some(at) => {
                        let rest = line[at + 1..].to_string();
                        line.truncate(at);
                        rest
                    }
                    None => String::new(),
                };
                out.push_str(line.trim_end());
                out.push('\n');
                line = format!("  {rest}");
                if !rest.is_empty() {
                    line.push(' ');
                }
            } else {
                line.push(' ');
            }
        }
        line.push_str(word);
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

/// The byte index of the last space of `line` after `;`, `,` or `|` or before `(`, in
/// its second half.
fn separator_break(line: &str) -> Option<usize> {
    let half = WIDTH / 2;
    line.char_indices()
        .filter(|&(i, c)| {
            c == ' '
                && line[..i].chars().count() >= half
                && (line[..i].ends_with([';', ',', '|']) || line[i + 1..].starts_with('('))
        })
        .map(|(i, _)| i)
        .next_back()
}

/// The line under a table whose rows `limit` cut: how many are hidden, the hidden
/// functions called most (they cost the most profiler time), and how to show them.
fn hidden_functions(hidden: &[&Function], out: &mut String) {
    if hidden.is_empty() {
        return;
    }
    let mut most: Vec<&&Function> = hidden.iter().collect();
    crate::format::sort_rows(&mut most, &|a, b| {
        b.calls.cmp(&a.calls).then(a.name.cmp(&b.name))
    });
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
    let one;
    let what = match (hidden, what.strip_suffix("ies"), what.strip_suffix('s')) {
        (1, Some(stem), _) => {
            one = format!("{stem}y");
            one.as_str()
        }
        (1, None, Some(stem)) => stem,
        _ => what,
    };
    if hidden > 0 {
        let _ = writeln!(
            out,
            "{} more {what} not shown; HOTPATH_LIMIT=0 shows all",
            count(hidden as u64)
        );
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
