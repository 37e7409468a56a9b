//! # hotpath
//!
//! An in-process profiler for Rust programs whose source you own. Annotate functions,
//! build with `--features hotpath`, and get one report at exit that answers which
//! functions take the time. Without the feature every annotation is the plain code and
//! no dependency is compiled.
//!
//! ## Usage
//!
//! ```toml
//! [dependencies]
//! # The package shares its name with another crate on crates.io: take it by path or git.
//! hotpath = { path = "../hotpath" }
//!
//! [features]
//! hotpath = ["hotpath/hotpath"]
//! ```
//!
//! ```
//! #[hotpath::measure]
//! fn parse(input: &str) -> Vec<u64> {
//!     input.split(',').filter_map(|s| s.trim().parse().ok()).collect()
//! }
//!
//! #[hotpath::main(percentiles = [50, 95, 99], limit = 20)]
//! fn main() {
//!     let total: u64 = hotpath::measure_block!("sum", parse("1, 2, 3").iter().sum());
//!     assert_eq!(total, 6);
//! }
//! ```
//!
//! `cargo run --features hotpath` prints the report when `main` returns.
//!
//! ## Feature flags
//!
//! | feature | adds |
//! |---|---|
//! | `hotpath` | the runtime: per-function wall time, self time, percentiles, the report |
//! | `hotpath-alloc` | allocations per function (count, bytes, freed, retained; inclusive and self) through a tracking global allocator |
//! | `hotpath-cpu` | CPU time vs waiting per function, sampled per thread (default) or read exactly at every call |
//! | `hotpath-live` | the metrics server (`HOTPATH_METRICS_PORT`): the report so far as JSON routes while the program runs (crate `hotpath-live`: hyper and tokio) |
//! | `hotpath-prometheus` | `/metrics` in the Prometheus text format on the metrics server (protobuf with native histograms when the scraper asks for it); implies `hotpath-live` |
//! | `hotpath-mcp` | an MCP server (`HOTPATH_MCP_PORT`) whose tools answer from the live report, for AI agents; see `docs/mcp.md` |
//! | `report` | reading saved JSON reports (`hotpath::report::Report::from_json`); alone, the report model and renderers without the runtime |
//! | `tokio` | `io!` on tokio's async I/O traits; `mutex!`/`rw_lock!` on `tokio::sync` locks; `channel!` on tokio's `mpsc`, `oneshot`, `broadcast`, `watch` |
//! | `parking_lot` | `mutex!`/`rw_lock!` on `parking_lot` locks, `hotpath::wrap::parking_lot` |
//! | `async-lock` | `mutex!`/`rw_lock!` on `async_lock` locks, `hotpath::wrap::async_lock` |
//! | `crossbeam`, `flume`, `async-channel`, `futures` | `channel!` on that crate's channels (`futures`: futures-channel) |
//! | `sqlx` | `sqlx_tracing_layer()`: sqlx's queries per normalised query and issuing function (section `sql`) |
//! | `tracing` | `hotpath::tracing::layer()`: the program's `tracing` spans as rows, measured as `async fn`s are (does not imply `hotpath`) |
//! | `diesel` | `instrument_diesel_sql()`: the same from diesel's instrumentation, with errors |
//! | `reqwest-0-12`, `reqwest-0-13` | `http!(client)` on reqwest (section `http`), and with `hotpath` `ReqwestHttpMiddleware` (as in hotpath 0.30) |
//! | `ureq-3` | `http!(config_builder)` and `UreqHttpMiddleware` on ureq 3 (section `http`) |
//! | `axum-0-8` | `axum!(router)`, `AxumLayer`, and `HttpServerLayer` for any tower service (section `server`) |
//! | `criterion-0-5`, `criterion-0-6`, `criterion-0-7`, `criterion-0-8` | [`criterion`]: drop-in `Criterion`, `BenchmarkId`, `criterion_group!`, `criterion_main!` that write one report per benchmark id; `HOTPATH_CRITERION_ITERATIONS` |
//!
//! With `tokio` and `hotpath`, `tokio_runtime!()` adds the runtime's workers, tasks and busy
//! time (section `tokio`). Each integration is the identity without `hotpath`.
//!
//! Locks (`mutex!`, `rw_lock!`) of std are measured with `hotpath` alone; every function's
//! waits (I/O, locks, channels, SQL, HTTP) make the `waits` section; `dbg!`, `val!` and
//! `gauge!` keep debug values.
//!
//! ## What is measured
//!
//! Per function: calls; wall time total, self (exclusive of measured children), mean,
//! min, max and percentiles; share of the run. Recursion counts the outermost call in
//! the total. `async fn`s are measured per poll on whichever thread polls them: wall
//! time from first poll to `Ready`, polls, busy time. Threads that exited before the
//! report are included. Channels (`channel!`), streams (`stream!`) and futures
//! (`future!`, `#[future_fn]`) have sections of their own; see [`wrap`] for their types.
//!
//! With `HOTPATH_STACKS=1` (or [`HotpathGuardBuilder::stacks`]) the same per path of
//! measured functions: the calling-context tree, which `hotpath export` (the CLI) turns
//! into flame graphs, pprof and Chrome traces; with `HOTPATH_TRACE=trace.json` the latest
//! calls of each thread, as a Chrome/Perfetto trace.
//!
//! ## Performance
//!
//! Two TSC reads and single-writer stores into a per-thread slot per call: no lock,
//! allocation, hash or atomic read-modify-write. Memory is bounded by call sites ×
//! threads, not by calls. See the README's Performance section for measured numbers.
//!
//! ## Limitations
//!
//! * A `measure_block!` held across `.await` reports its wall time; its self time then
//!   includes what it awaited. Prefer `#[measure]` on an `async fn`.
//! * Calls made while a thread's thread-locals are being destroyed are counted as lost.
//! * At most 16,383 call sites are numbered; calls of later ones are counted in overflow
//!   rows. At most 512 levels of nesting per thread are tracked; deeper calls are counted
//!   and timed, their self time counted at level 512. The report says when either happens.
//! * With stacks on, each thread keeps at most `HOTPATH_STACKS_NODES` paths (8,192 by
//!   default); later ones are folded into `[truncated]`. An async fn first polled on a
//!   thread that has exited since is recorded on the path of the poll that completes it.
//!
//! ## Layout
//!
//! The modules depend one way, each only on those listed before it: `sections` (what
//! this build has of each section) and `export`; `config` (the configuration; then
//! `config/vars`, the variables' names, and `config/env`, which applies them); the meters
//! and registries (`cpu`, `threads`, `tokio_rt`, `budget`, `overhead`, `callgrind`,
//! `service`, `debug`); `builders` (snapshot → report); `shared` (a running session's
//! state and its reports); `live` (the servers) and `host` (fork, exit and signal hooks,
//! which call the functions the session hands them); `runtime` (the session); `guard`
//! (the builder and guard that start it); `criterion` and the integrations.
#![deny(missing_docs)]
#![deny(unsafe_code)]

extern crate self as hotpath;

#[doc(inline)]
pub use hotpath_macros::{channel, future, stream};
pub use hotpath_macros::{future_fn, main, measure, measure_all, skip};

pub mod alloc;
#[cfg(feature = "hotpath")]
mod budget;
#[cfg(feature = "hotpath")]
mod builders;
#[cfg(feature = "hotpath-callgrind")]
mod callgrind;
mod config;
#[cfg(feature = "hotpath-cpu")]
mod cpu;
#[cfg(any(
    feature = "criterion-0-5",
    feature = "criterion-0-6",
    feature = "criterion-0-7",
    feature = "criterion-0-8"
))]
pub mod criterion;
mod debug;
#[cfg(feature = "hotpath")]
mod export;
mod guard;
#[cfg(feature = "hotpath")]
mod host;
#[cfg(any(feature = "reqwest-0-12", feature = "reqwest-0-13", feature = "ureq-3"))]
#[doc(hidden)]
pub mod http_client;
#[cfg(feature = "hotpath")]
mod live;
mod lock;
#[cfg(feature = "hotpath")]
mod overhead;
#[cfg(any(feature = "report", feature = "hotpath"))]
#[doc(inline)]
pub use hotpath_report as report;
#[cfg(feature = "hotpath")]
mod runtime;
mod sections;
#[cfg(feature = "hotpath")]
mod service;
mod service_api;
#[cfg(feature = "hotpath")]
mod shared;
#[cfg(all(
    feature = "hotpath",
    feature = "reqwest-0-12",
    not(feature = "reqwest-0-13")
))]
pub use http_client::reqwest_012::ReqwestHttpMiddleware;
#[cfg(all(feature = "hotpath", feature = "reqwest-0-13"))]
pub use http_client::reqwest_013::ReqwestHttpMiddleware;
#[cfg(feature = "ureq-3")]
pub use http_client::ureq_3::UreqHttpMiddleware;
#[cfg(feature = "axum-0-8")]
mod http_server;
#[cfg(feature = "axum-0-8")]
pub use http_server::{AxumLayer, HttpServerLayer};
#[cfg(all(feature = "hotpath", feature = "axum-0-8"))]
pub use http_server::{HttpServerService, MeasuredBody, MeasuredResponse};
#[cfg(feature = "hotpath")]
mod threads;
#[cfg(all(feature = "hotpath", feature = "tokio"))]
#[doc(hidden)]
pub mod tokio_rt;
#[cfg(feature = "tracing")]
#[path = "tracing_layer.rs"]
pub mod tracing;
#[cfg(feature = "diesel")]
pub use service_api::instrument_diesel_sql;
#[cfg(feature = "sqlx")]
pub use service_api::sqlx_tracing_layer;
pub mod wrap;

pub use config::{CpuMode, Format};
pub use debug::{GaugeHandle, IntoF64, ValHandle};
pub use guard::{HotpathGuard, HotpathGuardBuilder};
pub use wrap::Stream;

/// What the macro expansions name. Not a public API.
#[doc(hidden)]
pub mod __private {
    #[cfg(feature = "hotpath")]
    pub use crate::debug::on::DbgSite;
    #[cfg(feature = "hotpath")]
    pub use hotpath_core::{type_name_of, CallSite, MeasuredFuture, Scope, SiteKind};
    #[cfg(feature = "hotpath")]
    pub use hotpath_flow::{
        channel, channel_labelled, FlowSite, Future as FlowFuture, Stamped, Stream as FlowStream,
    };
    #[cfg(feature = "hotpath")]
    pub use hotpath_io::{wrap as io_wrap, wrap_labelled as io_wrap_labelled, IoSite};
    #[cfg(feature = "hotpath")]
    pub use hotpath_lock::{Lock, LockKind, LockSite};

    /// A label given as an expression (`label = name`), as the macros take it in both
    /// builds: borrowed, and anything `AsRef<str>`. With the feature the expansion passes
    /// the result to the wrapper; without it, the call is in an `if false` block, so the
    /// label is type-checked the same way but not evaluated.
    #[inline]
    pub fn label<L: AsRef<str> + ?Sized>(label: &L) -> &str {
        label.as_ref()
    }
}

/// Measures a block as if it were a function, and evaluates to the block's value. The
/// report shows it as `label`; its name (in JSON) is the enclosing function's path.
///
/// ```
/// let n = hotpath::measure_block!("count", (1..=10).filter(|x| x % 2 == 0).count());
/// assert_eq!(n, 5);
/// ```
///
/// `label` must be a string constant. Cost: nothing without the `hotpath` feature; with
/// it, the same as a `#[measure]` call. Held across `.await`, the block reports its wall
/// time, and records on the thread where it ends. As without the macro, temporaries of the
/// expression (the vector in `make().len()`) live until the end of the statement around it,
/// after the measured block; bind them in a block, `{ let v = make(); v.len() }`, to have
/// them freed inside.
#[macro_export]
macro_rules! measure_block {
    ($label:expr, $expr:expr $(,)?) => {
        $crate::__measure_block_impl!($label, $expr)
    };
}

#[cfg(feature = "hotpath")]
#[doc(hidden)]
#[macro_export]
macro_rules! __measure_block_impl {
    ($label:expr, $expr:expr) => {{
        static __HOTPATH_SITE: $crate::__private::CallSite = $crate::__private::CallSite::new(
            {
                fn __hp() -> &'static str {
                    $crate::__private::type_name_of(&__hp)
                }
                __hp
            },
            ::core::option::Option::Some($label),
            ::core::file!(),
            ::core::line!(),
            $crate::__private::SiteKind::Block,
        );
        let __hotpath_scope = $crate::__private::Scope::enter(&__HOTPATH_SITE);
        $expr
    }};
}

#[cfg(not(feature = "hotpath"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __measure_block_impl {
    ($label:expr, $expr:expr) => {{
        $expr
    }};
}

/// Wraps a reader, writer or stream so the report shows its operations, bytes and
/// latency; evaluates to the wrapper (feature `hotpath`) or to the value itself.
///
/// ```
/// use std::io::Read;
/// let mut r = hotpath::io!(std::io::Cursor::new(vec![1u8, 2, 3]), label = "input");
/// let mut buf = Vec::new();
/// r.read_to_end(&mut buf).unwrap();
/// assert_eq!(buf, [1, 2, 3]);
/// let cursor = hotpath::io_unwrap(r);
/// assert_eq!(cursor.position(), 3);
/// ```
///
/// Forms: `io!(value)`, `io!(value, label = "redis")`, `io!(value, iter = true)` (every
/// instance its own row), `io!(value, label = "x", iter = true)`. Wrappers made at one
/// call site for one type share a row and count as instances, so a server wrapping every
/// accepted connection keeps one row.
///
/// The label is a string literal or any expression whose value is `AsRef<str>` (`&str`,
/// `String`, `&String`, `Cow<str>`, `Arc<str>`), borrowed: `io!(conn, label =
/// format!("peer-{id}"))` gives each distinct label its own row. A literal costs nothing
/// at run time; an expression is evaluated once per wrap, after the value, and looked up
/// in the call site's labels (a read lock and a hash lookup; the profiler's own
/// allocations, charged to no function, when the label is new). A call site keeps
/// `HOTPATH_ENTRIES_LIMIT` (1000) distinct labels; later ones share a row named
/// `<other>`. Without the feature the expression is type-checked the same way but not
/// evaluated. The wrapper implements the `Read`, `Write`,
/// `BufRead`, `Seek` (and with features `tokio` / `futures-io` the async) traits the
/// value implements, derefs to it, and changes nothing about what it does.
///
/// Cost: nothing without the `hotpath` feature (the value itself is returned); with it,
/// two clock reads and a few thread-local stores per operation.
#[macro_export]
macro_rules! io {
    ($expr:expr $(,)?) => {
        $crate::__io_impl!($expr, ::core::option::Option::None, false)
    };
    ($expr:expr, label = $label:literal $(,)?) => {
        $crate::__io_impl!($expr, ::core::option::Option::Some($label), false)
    };
    ($expr:expr, label = $label:expr $(,)?) => {
        $crate::__io_labelled!($expr, $label, false)
    };
    ($expr:expr, iter = true $(,)?) => {
        $crate::__io_impl!($expr, ::core::option::Option::None, true)
    };
    ($expr:expr, label = $label:literal, iter = true $(,)?) => {
        $crate::__io_impl!($expr, ::core::option::Option::Some($label), true)
    };
    ($expr:expr, label = $label:expr, iter = true $(,)?) => {
        $crate::__io_labelled!($expr, $label, true)
    };
    ($expr:expr, iter = true, label = $label:literal $(,)?) => {
        $crate::__io_impl!($expr, ::core::option::Option::Some($label), true)
    };
    ($expr:expr, iter = true, label = $label:expr $(,)?) => {
        $crate::__io_labelled!($expr, $label, true)
    };
}

#[cfg(feature = "hotpath")]
#[doc(hidden)]
#[macro_export]
macro_rules! __io_impl {
    ($expr:expr, $label:expr, $iter:expr) => {
        $crate::__private::io_wrap($expr, {
            static __HOTPATH_IO: $crate::__private::IoSite =
                $crate::__private::IoSite::new(::core::file!(), ::core::line!(), $label, $iter);
            &__HOTPATH_IO
        })
    };
}

#[cfg(not(feature = "hotpath"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __io_impl {
    ($expr:expr, $label:expr, $iter:expr) => {
        $expr
    };
}

/// `io!` with a label given as an expression: the site's entry for the label's value.
#[cfg(feature = "hotpath")]
#[doc(hidden)]
#[macro_export]
macro_rules! __io_labelled {
    ($expr:expr, $label:expr, $iter:expr) => {
        $crate::__private::io_wrap_labelled(
            $expr,
            {
                static __HOTPATH_IO: $crate::__private::IoSite = $crate::__private::IoSite::new(
                    ::core::file!(),
                    ::core::line!(),
                    ::core::option::Option::None,
                    $iter,
                );
                &__HOTPATH_IO
            },
            $crate::__private::label(&$label),
        )
    };
}

#[cfg(not(feature = "hotpath"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __io_labelled {
    ($expr:expr, $label:expr, $iter:expr) => {{
        if false {
            let _ = $crate::__private::label(&$label);
        }
        $expr
    }};
}

/// The type `io!` gives for a `T`: the counting wrapper with the `hotpath` feature, `T`
/// itself without. For struct fields that hold a wrapped stream.
#[cfg(feature = "hotpath")]
pub type Io<T> = hotpath_io::Instrumented<T>;
/// The type `io!` gives for a `T`: the counting wrapper with the `hotpath` feature, `T`
/// itself without. For struct fields that hold a wrapped stream.
#[cfg(not(feature = "hotpath"))]
pub type Io<T> = T;

/// The value `io!` wrapped (the identity without the `hotpath` feature).
pub fn io_unwrap<T>(io: Io<T>) -> T {
    #[cfg(feature = "hotpath")]
    {
        io.into_inner()
    }
    #[cfg(not(feature = "hotpath"))]
    {
        io
    }
}
