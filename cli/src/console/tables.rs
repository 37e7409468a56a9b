//! The console's tables as data: for each view, its columns, formatted cells, the
//! value each cell sorts by, and what to say when the report has no such section.
//!
//! The columns are the report's own (`hotpath_report::columns`), the ones the exit
//! report prints: the console shows those marked for it.

use std::cmp::Ordering;

use hotpath_report::columns::Columns;
pub(crate) use hotpath_report::columns::Key;
use hotpath_report::{Function, ProfilerStatus, Report, Section};

use super::trend::Trend;

mod alloc;
mod cpu;
mod flow;
mod io;
mod locks;
mod service;
mod stacks;
mod threads;
mod timing;

/// One table of the console.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// Wall time per function.
    Timing,
    /// Allocations per function (section `alloc`).
    Memory,
    /// CPU time and waiting per function (section `cpu`).
    Cpu,
    /// Instructions per function under callgrind (section `icount`).
    Icount,
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
    pub const ALL: [View; 19] = [
        View::Timing,
        View::Memory,
        View::Cpu,
        View::Icount,
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
            View::Icount => "Instructions",
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
            View::Icount => Section::Icount,
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
            Section::Icount => &[View::Icount],
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
    /// A table with the console's columns of `cols` and no rows, sorted by the column
    /// titled `sort` until the user picks another (the exit report's order).
    fn new<R>(title: &'static str, cols: &Columns<'_, R>, sort: &str) -> Table {
        let mut t = Table {
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
        };
        t.sort_by_title(sort);
        t
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
        View::Timing => timing::timing(report, trend),
        View::Memory => alloc::memory(report, status),
        View::Cpu => cpu::cpu(report, status),
        View::Icount => cpu::icount(report, status),
        View::IoStreams => io::io_streams(report, status),
        View::IoFunctions => io::io_functions(report, status),
        View::Threads => threads::threads(report, status),
        View::Waits => locks::waits(report, status),
        View::Mutexes => locks::mutexes(report, status),
        View::RwLocks => locks::rw_locks(report, status),
        View::Debug => locks::debug(report, status),
        View::Channels => flow::channels(report, status),
        View::Streams => flow::streams(report, status),
        View::Futures => flow::futures(report, status),
        View::Stacks => stacks::stacks(report, status),
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
