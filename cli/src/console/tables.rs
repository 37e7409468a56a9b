//! The console's tables as data: for each view, its columns, formatted cells, the
//! value each cell sorts by, and what to say when the report has no such section.
//!
//! The columns are the report's own (`hotpath_report::columns`), the ones the exit
//! report prints: the console shows those marked for it.

use hotpath_report::{ProfilerStatus, Report, Section};

use super::trend::Trend;

mod alloc;
mod common;
mod cpu;
mod flow;
mod io;
mod locks;
mod service;
mod stacks;
mod threads;
mod timing;

pub(crate) use common::{function_id, Source, Table};

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
