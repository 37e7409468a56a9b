//! The sections of a report: every kind of measurement is one [`Section`] value, named
//! here once. Configuration (`HOTPATH_REPORT`), the JSON `sections` array, the live
//! routes, the table renderer and the console all go through this type.

#[cfg(feature = "read")]
use serde::{Deserialize, Deserializer};
use serde::{Serialize, Serializer};

/// One section of the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    /// Wall time per function.
    Timing,
    /// Allocations per function (feature `hotpath-alloc`).
    Alloc,
    /// CPU time and waiting per function (feature `hotpath-cpu`).
    Cpu,
    /// Operations, bytes and latency per `io!` entry, and I/O per function.
    Io,
    /// Messages, depth, blocked sends and latency per `channel!` entry.
    Channels,
    /// Items, polls and busy time per `stream!` entry.
    Streams,
    /// Calls, cancellations, lifetime and busy time per `future!` / `#[future_fn]`.
    Futures,
    /// CPU time, state and allocations per thread; the process's memory (Linux).
    Threads,
    /// Where each function's own time went: CPU, I/O, locks, channels, SQL, HTTP, other.
    Waits,
    /// Acquisitions, contention, waits and holds per `mutex!` site.
    Mutexes,
    /// The same per `rw_lock!` site, reads and writes apart.
    RwLocks,
    /// The last values of `dbg!`, `val!` and `gauge!`.
    Debug,
    /// The calling-context tree: calls and time per path of measured functions
    /// (`HOTPATH_STACKS=1`).
    Stacks,
    /// SQL queries per normalised query and issuing function (features `sqlx`, `diesel`).
    Sql,
    /// HTTP client calls per endpoint and calling function (features `reqwest-0-12`,
    /// `reqwest-0-13`, `ureq-3`).
    Http,
    /// HTTP server requests per route (feature `axum-0-8`).
    Server,
    /// tokio runtimes: workers, tasks, queue, busy time (feature `tokio`).
    Tokio,
}

impl Section {
    /// Every section, in report order.
    pub const ALL: [Section; 17] = [
        Section::Timing,
        Section::Alloc,
        Section::Cpu,
        Section::Waits,
        Section::Io,
        Section::Channels,
        Section::Streams,
        Section::Futures,
        Section::Sql,
        Section::Http,
        Section::Server,
        Section::Mutexes,
        Section::RwLocks,
        Section::Tokio,
        Section::Threads,
        Section::Debug,
        Section::Stacks,
    ];

    /// The name in JSON, `HOTPATH_REPORT` and the table header: `timing`, `alloc`, ...
    pub const fn name(self) -> &'static str {
        match self {
            Section::Timing => "timing",
            Section::Alloc => "alloc",
            Section::Cpu => "cpu",
            Section::Io => "io",
            Section::Channels => "channels",
            Section::Streams => "streams",
            Section::Futures => "futures",
            Section::Threads => "threads",
            Section::Waits => "waits",
            Section::Mutexes => "mutexes",
            Section::RwLocks => "rw_locks",
            Section::Debug => "debug",
            Section::Stacks => "stacks",
            Section::Sql => "sql",
            Section::Http => "http",
            Section::Server => "server",
            Section::Tokio => "tokio",
        }
    }

    /// The section named `name`; hotpath 0.30's names (`functions-timing`,
    /// `functions-alloc`, `functions-cpu`, `functions`) are understood.
    pub fn parse(name: &str) -> Option<Section> {
        match name {
            "functions-timing" | "functions" => Some(Section::Timing),
            "functions-alloc" => Some(Section::Alloc),
            "functions-cpu" => Some(Section::Cpu),
            "rw-locks" | "rwlocks" => Some(Section::RwLocks),
            "tokio_runtime" | "tokio-runtime" => Some(Section::Tokio),
            other => Section::ALL.into_iter().find(|s| s.name() == other),
        }
    }

    /// The Cargo feature of the `hotpath` crate that compiles the section in, beyond
    /// `hotpath` itself.
    pub const fn feature(self) -> Option<&'static str> {
        match self {
            Section::Alloc => Some("hotpath-alloc"),
            Section::Cpu => Some("hotpath-cpu"),
            Section::Sql => Some("sqlx"),
            Section::Http => Some("reqwest-0-13"),
            Section::Server => Some("axum-0-8"),
            Section::Tokio => Some("tokio"),
            Section::Timing
            | Section::Io
            | Section::Channels
            | Section::Streams
            | Section::Futures
            | Section::Threads
            | Section::Waits
            | Section::Mutexes
            | Section::RwLocks
            | Section::Debug
            | Section::Stacks => None,
        }
    }

    /// The live route that serves the section: `/functions_timing`, `/io`, ...
    pub const fn route(self) -> &'static str {
        match self {
            Section::Timing => "/functions_timing",
            Section::Alloc => "/functions_alloc",
            Section::Cpu => "/functions_cpu",
            Section::Io => "/io",
            Section::Channels => "/channels",
            Section::Streams => "/streams",
            Section::Futures => "/futures",
            Section::Threads => "/threads",
            Section::Waits => "/functions_waits",
            Section::Mutexes => "/mutexes",
            Section::RwLocks => "/rw_locks",
            Section::Debug => "/debug",
            Section::Stacks => "/stacks",
            Section::Sql => "/sql",
            Section::Http => "/http",
            Section::Server => "/server",
            Section::Tokio => "/tokio_runtime",
        }
    }

    /// The names of `sections`, joined by `sep`.
    pub fn join(sections: &[Section], sep: &str) -> String {
        let names: Vec<&str> = sections.iter().map(|s| s.name()).collect();
        names.join(sep)
    }

    /// The section a live route serves.
    pub fn from_route(path: &str) -> Option<Section> {
        Section::ALL.into_iter().find(|s| s.route() == path)
    }
}

impl std::fmt::Display for Section {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A section equals its name: `Section::Io == "io"`.
impl PartialEq<str> for Section {
    fn eq(&self, name: &str) -> bool {
        self.name() == name
    }
}

impl PartialEq<&str> for Section {
    fn eq(&self, name: &&str) -> bool {
        self.name() == *name
    }
}

impl Serialize for Section {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[cfg(feature = "read")]
impl<'de> Deserialize<'de> for Section {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Section::parse(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown section {name:?}")))
    }
}

/// Reads a `sections` array, leaving out names this build does not know (a report from
/// a newer hotpath), as readers ignore unknown keys.
#[cfg(feature = "read")]
pub(crate) fn known_sections<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Section>, D::Error> {
    let names: Vec<String> = Vec::deserialize(d)?;
    Ok(names.iter().filter_map(|n| Section::parse(n)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_routes_and_parsing_agree() {
        for s in Section::ALL {
            assert_eq!(Section::parse(s.name()), Some(s));
            assert_eq!(Section::from_route(s.route()), Some(s));
            assert_eq!(s.to_string(), s.name());
            assert_eq!(
                serde_json::to_string(&s).unwrap(),
                format!("\"{}\"", s.name())
            );
        }
        assert_eq!(Section::parse("functions-cpu"), Some(Section::Cpu));
        assert_eq!(Section::parse("nope"), None);
    }
}
