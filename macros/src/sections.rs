//! Every section of the report, declared once.
//!
//! A section is one kind of measurement with its own part of the report. Everything
//! hotpath knows about a section by name comes from its row here: the `Section` enum of
//! `hotpath-report` with its names, aliases, route, Cargo features and JSON keys; the
//! facade's `HotpathGuardBuilder` methods for its row limit and time-sampling rate, the
//! `HOTPATH_<NAME>_LIMIT` and `HOTPATH_<NAME>_TIME_SAMPLING_RATE` variables, and whether
//! a build has it; `#[hotpath::main(<name>_limit = N)]` calls the builder's method. The
//! table lives in this crate because it is the one crate every consumer has, with the
//! feature off too (the builder's methods exist in both states).
//!
//! Consumers take the rows through [`for_each`]: `__sections!(path::to::m)` expands to
//! `path::to::m! { rows }`, each row
//!
//! ```text
//! Variant {
//!     doc: "..", name: "..", route: "..", aliases: [".."], features: [".."],
//!     target_os: ".." | none,
//!     limit: own(functions_limit, "HOTPATH_FUNCTIONS_LIMIT", "the function sections") | of(Timing) | none,
//!     rate: sampled(Sampler, channels_time_sampling_rate,
//!                   "HOTPATH_CHANNELS_TIME_SAMPLING_RATE", "message", "doc") | none,
//!     rows: "channels" | none, extra: [".."], functions: "io" | none, filter: bool,
//!     group: Functions | Io | DataFlow | Threads | Debug,
//! }
//! ```
//!
//! What the consumers do with each part is written where they do it; the conformance
//! test of the facade (`tests/sections.rs`) walks every section through all of them.

use std::fmt::Write as _;

/// Whose row limit a section follows.
pub(crate) enum Limit {
    /// Its own: the key `key` gives the builder method `<key>_limit`, the variable
    /// `HOTPATH_<KEY>_LIMIT` and `#[main(<key>_limit = N)]`; `what` names the rows.
    Own {
        key: &'static str,
        what: &'static str,
    },
    /// The limit of another section (the function sections share one).
    Of(&'static str),
    /// None of its own: `limit` (`HOTPATH_LIMIT`).
    None,
}

/// A section's events timed at a rate of their own.
pub(crate) struct Rate {
    /// The `hotpath_core::state::Sampler` variant.
    sampler: &'static str,
    /// The key of the builder method `<key>_time_sampling_rate` and of the variable
    /// `HOTPATH_<KEY>_TIME_SAMPLING_RATE`.
    key: &'static str,
    /// One event, for messages: `message`, `poll`, `call`, `acquisition`.
    event: &'static str,
    /// The builder method's documentation.
    doc: &'static str,
}

/// One row of the table.
pub(crate) struct Decl {
    /// The `Section` variant.
    variant: &'static str,
    /// What the section shows (the variant's doc).
    doc: &'static str,
    /// Its name in JSON, `HOTPATH_REPORT` and the table header.
    name: &'static str,
    /// The live route that serves it.
    route: &'static str,
    /// Other names `HOTPATH_REPORT` and readers accept (hotpath 0.30's among them).
    aliases: &'static [&'static str],
    /// The Cargo features of `hotpath` of which any one compiles it in (none: always).
    features: &'static [&'static str],
    /// The only target system that can measure it.
    target_os: Option<&'static str>,
    limit: Limit,
    rate: Option<Rate>,
    /// The report's key of its rows (a list, `[]` in its fragment when it has none).
    rows: Option<&'static str>,
    /// Other top-level keys of the report that belong to it.
    extra: &'static [&'static str],
    /// Its per-function object, the field of each function row it fills in.
    functions: Option<&'static str>,
    /// Whether its fragment lists only the functions that have that object.
    filter: bool,
    /// Where readers group it (a tab of the console, a tool of the MCP server):
    /// `Functions`, `Io`, `DataFlow`, `Threads` or `Debug`.
    group: &'static str,
}

const fn row(
    variant: &'static str,
    name: &'static str,
    route: &'static str,
    group: &'static str,
) -> Decl {
    Decl {
        variant,
        doc: "",
        name,
        route,
        aliases: &[],
        features: &[],
        target_os: None,
        limit: Limit::None,
        rate: None,
        rows: None,
        extra: &[],
        functions: None,
        filter: false,
        group,
    }
}

/// The sections, in report order.
pub(crate) const SECTIONS: &[Decl] = &[
    Decl {
        doc: "Wall time per function.",
        aliases: &["functions-timing", "functions"],
        limit: Limit::Own {
            key: "functions",
            what: "the function sections (timing, alloc, cpu, waits)",
        },
        rate: Some(Rate {
            sampler: "Calls",
            key: "functions",
            event: "call",
            doc: "The same as `time_sampling_rate` (the name hotpath 0.30 uses for functions): \
                  times only a fraction `rate` (0..=1) of calls; every call is still counted \
                  exactly and sampled rows are marked. 0 counts calls without timing them. \
                  `HOTPATH_FUNCTIONS_TIME_SAMPLING_RATE` overrides it.",
        }),
        rows: Some("functions"),
        ..row("Timing", "timing", "/functions_timing", "Functions")
    },
    Decl {
        doc: "Allocations per function (feature `hotpath-alloc`).",
        aliases: &["functions-alloc"],
        features: &["hotpath-alloc"],
        limit: Limit::Of("Timing"),
        extra: &["alloc_total"],
        functions: Some("alloc"),
        ..row("Alloc", "alloc", "/functions_alloc", "Functions")
    },
    Decl {
        doc: "CPU time and waiting per function (feature `hotpath-cpu`).",
        aliases: &["functions-cpu"],
        features: &["hotpath-cpu"],
        limit: Limit::Of("Timing"),
        extra: &["cpu"],
        functions: Some("cpu"),
        ..row("Cpu", "cpu", "/functions_cpu", "Functions")
    },
    Decl {
        doc: "Instructions (Ir) per function under `valgrind --tool=callgrind`: calls, \
              inclusive (recursion counted once) and self (feature `hotpath-callgrind`).",
        aliases: &["functions-icount", "functions_icount"],
        features: &["hotpath-callgrind"],
        limit: Limit::Of("Timing"),
        extra: &["icount"],
        functions: Some("icount"),
        filter: true,
        ..row("Icount", "icount", "/functions_icount", "Functions")
    },
    Decl {
        doc: "Where each function's own time went: CPU, I/O, locks, channels, SQL, HTTP, other.",
        limit: Limit::Of("Timing"),
        functions: Some("waits"),
        filter: true,
        ..row("Waits", "waits", "/functions_waits", "Functions")
    },
    Decl {
        doc: "Operations, bytes and latency per `io!` entry, and I/O per function.",
        limit: Limit::Own {
            key: "io",
            what: "the I/O section",
        },
        rate: Some(Rate {
            sampler: "Io",
            key: "io",
            event: "operation",
            doc: "Times only a fraction `rate` (0..=1) of I/O operations; every operation and byte is still counted, and rates come from the timed ones. 0 counts without timing. `HOTPATH_IO_TIME_SAMPLING_RATE` overrides it.",
        }),
        rows: Some("io"),
        extra: &["io_time_sampling_rate"],
        functions: Some("io"),
        filter: true,
        ..row("Io", "io", "/io", "Io")
    },
    Decl {
        doc: "Messages, depth, blocked sends and latency per `channel!` entry.",
        limit: Limit::Own {
            key: "channels",
            what: "the channels section",
        },
        rate: Some(Rate {
            sampler: "Channels",
            key: "channels",
            event: "message",
            doc: "Times only a fraction `rate` (0..=1) of channel messages' latencies once a site has carried its first 256 (all timed); every message is still counted, and waits for room or for a message are timed unless `rate` is 0. Default 1/16. `HOTPATH_CHANNELS_TIME_SAMPLING_RATE` overrides it.",
        }),
        rows: Some("channels"),
        extra: &["channels_time_sampling_rate"],
        ..row("Channels", "channels", "/channels", "DataFlow")
    },
    Decl {
        doc: "Items, polls and busy time per `stream!` entry.",
        limit: Limit::Own {
            key: "streams",
            what: "the streams section",
        },
        rate: Some(Rate {
            sampler: "Streams",
            key: "streams",
            event: "poll",
            doc: "Times only a fraction `rate` (0..=1) of stream polls once a site has had its first 256 (all timed, as are an instance's polls up to its first item); every item and poll is still counted. Default 1/16. `HOTPATH_STREAMS_TIME_SAMPLING_RATE` overrides it.",
        }),
        rows: Some("streams"),
        extra: &["streams_time_sampling_rate"],
        ..row("Streams", "streams", "/streams", "DataFlow")
    },
    Decl {
        doc: "Calls, cancellations, lifetime and busy time per `future!` / `#[future_fn]`.",
        limit: Limit::Own {
            key: "futures",
            what: "the futures section",
        },
        rate: Some(Rate {
            sampler: "Futures",
            key: "futures",
            event: "call",
            doc: "Times only a fraction `rate` (0..=1) of `future!` and `#[future_fn]` calls once a site has had its first 256 (all timed); every call and poll is still counted. Default 1/16. `HOTPATH_FUTURES_TIME_SAMPLING_RATE` overrides it.",
        }),
        rows: Some("futures"),
        extra: &["futures_time_sampling_rate"],
        ..row("Futures", "futures", "/futures", "DataFlow")
    },
    Decl {
        doc: "SQL queries per normalised query and issuing function (features `sqlx`, `diesel`).",
        features: &["sqlx", "diesel"],
        limit: Limit::Own {
            key: "sql",
            what: "the `sql` section",
        },
        rows: Some("sql"),
        ..row("Sql", "sql", "/sql", "Io")
    },
    Decl {
        doc: "HTTP client calls per endpoint and calling function (features `reqwest-0-12`, \
              `reqwest-0-13`, `ureq-3`).",
        features: &["reqwest-0-12", "reqwest-0-13", "ureq-3"],
        limit: Limit::Own {
            key: "http",
            what: "the `http` section",
        },
        rows: Some("http"),
        ..row("Http", "http", "/http", "Io")
    },
    Decl {
        doc: "HTTP server requests per route (feature `axum-0-8`).",
        features: &["axum-0-8"],
        limit: Limit::Own {
            key: "server",
            what: "the `server` section",
        },
        rows: Some("server"),
        ..row("Server", "server", "/server", "Io")
    },
    Decl {
        doc: "Acquisitions, contention, waits and holds per `mutex!` site.",
        limit: Limit::Own {
            key: "mutexes",
            what: "the `mutexes` section",
        },
        rate: Some(Rate {
            sampler: "Mutexes",
            key: "mutexes",
            event: "acquisition",
            doc: "Times only a fraction `rate` (0..=1) of uncontended mutex holds once a site has had its first 256 acquisitions (all timed); every acquisition is still counted, and a contended one is timed unless `rate` is 0. Unset: 1/16, or the functions' rate when that was set. `HOTPATH_MUTEXES_TIME_SAMPLING_RATE` overrides it, and so does `HOTPATH_TIME_SAMPLING_RATE` when the former is not set.",
        }),
        rows: Some("mutexes"),
        extra: &["mutexes_time_sampling_rate"],
        ..row("Mutexes", "mutexes", "/mutexes", "DataFlow")
    },
    Decl {
        doc: "The same per `rw_lock!` site, reads and writes apart.",
        aliases: &["rw-locks", "rwlocks"],
        limit: Limit::Own {
            key: "rw_locks",
            what: "the `rw_locks` section",
        },
        rate: Some(Rate {
            sampler: "RwLocks",
            key: "rw_locks",
            event: "acquisition",
            doc: "Times only a fraction `rate` (0..=1) of uncontended read-write lock holds, as `mutexes_time_sampling_rate` does for mutexes. Unset: 1/16, or the functions' rate when that was set. `HOTPATH_RW_LOCKS_TIME_SAMPLING_RATE` overrides it, and so does `HOTPATH_TIME_SAMPLING_RATE` when the former is not set.",
        }),
        rows: Some("rw_locks"),
        extra: &["rw_locks_time_sampling_rate"],
        ..row("RwLocks", "rw_locks", "/rw_locks", "DataFlow")
    },
    Decl {
        doc: "tokio runtimes: workers, tasks, queue, busy time (feature `tokio`).",
        aliases: &["tokio_runtime", "tokio-runtime"],
        features: &["tokio"],
        limit: Limit::Own {
            key: "tokio",
            what: "the `tokio` section",
        },
        rows: Some("tokio"),
        ..row("Tokio", "tokio", "/tokio_runtime", "Threads")
    },
    Decl {
        doc: "CPU time, state and allocations per thread; the process's memory (Linux).",
        target_os: Some("linux"),
        limit: Limit::Own {
            key: "threads",
            what: "the threads section",
        },
        rows: Some("threads"),
        extra: &["process_memory"],
        ..row("Threads", "threads", "/threads", "Threads")
    },
    Decl {
        doc: "The last values of `dbg!`, `val!` and `gauge!`.",
        limit: Limit::Own {
            key: "debug",
            what: "the `debug` section",
        },
        rows: Some("debug"),
        ..row("Debug", "debug", "/debug", "Debug")
    },
    Decl {
        doc: "The calling-context tree: calls and time per path of measured functions \
              (`HOTPATH_STACKS=1`).",
        limit: Limit::Own {
            key: "stacks",
            what: "the `stacks` section (paths shown; the tree keeps them all)",
        },
        rows: Some("stacks"),
        ..row("Stacks", "stacks", "/stacks", "Functions")
    },
];

fn list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("{s:?}")).collect();
    format!("[{}]", quoted.join(", "))
}

fn opt(s: Option<&str>) -> String {
    s.map_or_else(|| "none".to_string(), |s| format!("{s:?}"))
}

/// The rows as the tokens of one macro call: `path! { rows }` (`path` empty: the `! {
/// rows }` that follows a path the caller gives).
pub(crate) fn for_each(path: &str) -> String {
    let mut out = format!("{path}! {{\n");
    for d in SECTIONS {
        let limit = match &d.limit {
            Limit::Own { key, what } => format!(
                "own({key}_limit, {:?}, {what:?})",
                format!("HOTPATH_{}_LIMIT", key.to_uppercase())
            ),
            Limit::Of(v) => format!("of({v})"),
            Limit::None => "none".to_string(),
        };
        let rate = match &d.rate {
            Some(r) => format!(
                "sampled({}, {}_time_sampling_rate, {:?}, {:?}, {:?})",
                r.sampler,
                r.key,
                format!("HOTPATH_{}_TIME_SAMPLING_RATE", r.key.to_uppercase()),
                r.event,
                r.doc
            ),
            None => "none".to_string(),
        };
        let _ = writeln!(
            out,
            "    {} {{ doc: {:?}, name: {:?}, route: {:?}, aliases: {}, features: {}, \
             target_os: {}, limit: {limit}, rate: {rate}, rows: {}, extra: {}, \
             functions: {}, filter: {}, group: {} }}",
            d.variant,
            d.doc,
            d.name,
            d.route,
            list(d.aliases),
            list(d.features),
            opt(d.target_os),
            opt(d.rows),
            list(d.extra),
            opt(d.functions),
            d.filter,
            d.group,
        );
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_routes_keys_and_limits_are_unique_and_limits_point_at_owners() {
        let mut seen = std::collections::BTreeSet::new();
        for d in SECTIONS {
            for s in [d.variant, d.name, d.route]
                .into_iter()
                .chain(d.aliases.iter().copied())
            {
                assert!(seen.insert(s.to_string()), "{s} twice");
            }
        }
        let mut keys = std::collections::BTreeSet::new();
        for d in SECTIONS {
            for k in d.rows.into_iter().chain(d.extra.iter().copied()) {
                assert!(keys.insert(k), "key {k} claimed twice");
            }
            match d.limit {
                Limit::Of(owner) => {
                    let o = SECTIONS.iter().find(|s| s.variant == owner).expect(owner);
                    assert!(
                        matches!(o.limit, Limit::Own { .. }),
                        "{owner} owns no limit"
                    );
                }
                Limit::Own { .. } => {}
                Limit::None => panic!("{}: every section has a row limit", d.variant),
            }
        }
    }

    #[test]
    fn rows_are_one_macro_call() {
        let t = for_each("m");
        assert!(t.starts_with("m! {\n") && t.ends_with('}'));
        assert_eq!(t.lines().count(), SECTIONS.len() + 2);
        assert!(t.contains(
            "Mutexes { doc: \"Acquisitions, contention, waits and holds per `mutex!` site.\", \
             name: \"mutexes\", route: \"/mutexes\", aliases: [], features: [], \
             target_os: none, limit: own(mutexes_limit, \"HOTPATH_MUTEXES_LIMIT\", \
             \"the `mutexes` section\"), rate: sampled(Mutexes, mutexes_time_sampling_rate, \
             \"HOTPATH_MUTEXES_TIME_SAMPLING_RATE\", \"acquisition\", \"Times only a fraction \
             `rate` (0..=1) of uncontended mutex holds once a site has had its first 256 \
             acquisitions (all timed); every acquisition is still counted, and a contended \
             one is timed unless `rate` is 0. Unset: 1/16, or the functions' rate when that \
             was set. `HOTPATH_MUTEXES_TIME_SAMPLING_RATE` overrides it, and so does \
             `HOTPATH_TIME_SAMPLING_RATE` when the former is not set.\"), rows: \"mutexes\", \
             extra: [\"mutexes_time_sampling_rate\"], functions: none, filter: false, \
             group: DataFlow }"
        ));
    }
}
