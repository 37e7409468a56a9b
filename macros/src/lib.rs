//! Attribute macros of the [hotpath](https://docs.rs/hotpath) profiler. Use them through
//! the facade (`#[hotpath::measure]`), not from this crate.
//!
//! Without the facade's `hotpath` feature every attribute checks its arguments and where
//! it is placed, then returns the item unchanged (`#[main]` adds to its body an item that
//! only type-checks its row limits); this crate then builds without any dependency. With it, functions get an RAII guard (sync) or a per-poll wrapper (async);
//! the body is never moved into a closure.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use proc_macro::TokenStream;

mod attr;
#[cfg(feature = "hotpath")]
mod expand;
mod limits;
mod sections;
mod serialize;

use attr::Error;

/// Emits `item` unchanged next to the error, so one mistake gives one diagnostic.
fn with_error(e: Error, item: TokenStream) -> TokenStream {
    let mut out = e.to_compile_error();
    out.extend(item);
    out
}

#[cfg(feature = "hotpath")]
fn expanded(r: syn::Result<proc_macro2::TokenStream>, item: TokenStream) -> TokenStream {
    match r {
        Ok(t) => t.into(),
        Err(e) => {
            let mut out: TokenStream = e.to_compile_error().into();
            out.extend(item);
            out
        }
    }
}

/// Starts profiling for the whole program and prints the report when the function
/// returns. Put it on `main` (under `#[tokio::main]` for async `main`); `main` itself is
/// measured too.
///
/// ```ignore
/// #[tokio::main]
/// #[hotpath::main(percentiles = [50, 95, 99.9], limit = 20)]
/// async fn main() { /* ... */ }
/// ```
///
/// Arguments, all optional:
///
/// | argument | meaning | default |
/// |---|---|---|
/// | `percentiles = [50, 99.9]` | percentile columns, each in `0..=100` (0 = min, 100 = max), at most 10 | `[50, 95, 99]` |
/// | `format = "table"` | `"table"`, `"json"`, `"json-pretty"` or `"none"` | `"table"` |
/// | `limit = N` | rows per section, `0` = all | `15` |
/// | `<section>_limit = N` | rows of one section: the key is the `HotpathGuardBuilder` method it calls (`functions_limit`, `threads_limit`, `io_limit`, `sql_limit`, `http_limit`, `server_limit`, ...), so a name the builder lacks is a compile error | `limit` |
/// | `output_path = "report.json"` | write the report to a file instead of stdout | stdout |
/// | `timeout = MS` | print the report and exit the process after `MS` milliseconds | none |
/// | `overhead_budget = 5` | hold the profiler's per-call work within this percentage of the run's CPU time: every call counted, each function timed at a rate chosen at run time (`0` = off) | off |
/// | `allocator = mimalloc::MiMalloc` | with `hotpath-alloc`: the allocator the tracking allocator wraps | `System` |
/// | `report = "timing,io"` | sections to print (`all`, or names; `-name` removes one) | all |
///
/// `HOTPATH_OUTPUT_FORMAT`, `HOTPATH_OUTPUT_PATH`, `HOTPATH_LIMIT`,
/// `HOTPATH_<SECTION>_LIMIT`, `HOTPATH_SHUTDOWN_MS` and `HOTPATH_OVERHEAD_BUDGET` override
/// the arguments at run time.
///
/// Without the `hotpath` feature the function is left as written; the limits are still
/// type-checked against the builder (an item `const _: fn(HotpathGuardBuilder) -> ..`
/// at the start of its body), so an unknown one is the same error in both builds.
#[proc_macro_attribute]
pub fn main(attr: TokenStream, item: TokenStream) -> TokenStream {
    let args = match attr::main_args(attr) {
        Ok(a) => a,
        Err(e) => return with_error(e, item),
    };
    if let Err(e) = attr::expect_fn(&item, "main", false) {
        return with_error(e, item);
    }
    #[cfg(feature = "hotpath")]
    {
        expanded(expand::main(&args, item.clone().into()), item)
    }
    #[cfg(not(feature = "hotpath"))]
    {
        limits::checked(item, &args.limits)
    }
}

/// Measures every call of a function: calls, wall time (total, self, min, max, mean,
/// percentiles) and, with the matching features, allocations and CPU time.
///
/// Works on free functions, methods (`self`, `&self`, `&mut self`), generic functions,
/// functions returning `impl Trait`, and `async fn` (measured per poll; wall time from
/// first poll to `Ready`, polls, busy time). The row is named by the function's path,
/// e.g. `my_crate::parser::Parser::parse` or `<my_crate::Point as core::fmt::Display>::fmt`.
///
/// A function whose whole body is `Box::pin(async move { .. })` (with any path to `Box`)
/// is measured as the future it returns, like an `async fn`. That is what `#[async_trait]`
/// makes of an `async fn` before this attribute runs (the impl's attribute expands
/// first), so `#[measure]` on a method of an `#[async_trait]` impl, and `#[measure_all]`
/// above or below `#[async_trait]`, measure the method's future; it stays `Send` when it
/// was, and `?Send` impls work the same way.
///
/// Arguments: `label = "name"` (shown instead of the path); `future = true` (only on an
/// `async fn`) also reports the calls in the futures section (lifetime and busy time
/// per call, futures never polled); `log = bool` is accepted for source compatibility
/// with hotpath 0.30 and ignored.
///
/// Cost: nothing without the `hotpath` feature; with it, two clock reads and a few
/// thread-local stores per call (see the crate's Performance section).
#[proc_macro_attribute]
pub fn measure(attr: TokenStream, item: TokenStream) -> TokenStream {
    let args = match attr::measure_args(attr, false) {
        Ok(a) => a,
        Err(e) => return with_error(e, item),
    };
    let need_async = args.future;
    if let Err(e) = attr::expect_fn(&item, "measure", need_async) {
        return with_error(e, item);
    }
    #[cfg(feature = "hotpath")]
    {
        let as_ = if args.future {
            expand::AsyncAs::Both
        } else {
            expand::AsyncAs::Function
        };
        expanded(expand::measure(&args, item.clone().into(), as_), item)
    }
    #[cfg(not(feature = "hotpath"))]
    {
        item
    }
}

/// Measures an `async fn` (or, as [`macro@measure`], a function that only returns
/// `Box::pin(async move { .. })`, such as an `#[async_trait]` method) as a future: its
/// calls are a row of the futures section
/// (calls, polls, completed, cancelled, lifetime and busy time per call), not of the
/// timing section. `log = bool` is accepted for source compatibility and ignored.
/// Calls are timed at `HOTPATH_FUTURES_TIME_SAMPLING_RATE`.
#[proc_macro_attribute]
pub fn future_fn(attr: TokenStream, item: TokenStream) -> TokenStream {
    let args = match attr::measure_args(attr, true) {
        Ok(a) => a,
        Err(e) => return with_error(e, item),
    };
    if let Err(e) = attr::expect_fn(&item, "future_fn", true) {
        return with_error(e, item);
    }
    #[cfg(feature = "hotpath")]
    {
        expanded(
            expand::measure(&args, item.clone().into(), expand::AsyncAs::Future),
            item,
        )
    }
    #[cfg(not(feature = "hotpath"))]
    {
        let _ = args;
        item
    }
}

/// Instruments a channel where it is created: evaluates to the constructor's endpoints,
/// wrapped (feature `hotpath`) or as they are (without it).
///
/// ```ignore
/// let (tx, rx) = hotpath::channel!(std::sync::mpsc::sync_channel::<Job>(64));
/// let (tx, rx) = hotpath::channel!(tokio::sync::mpsc::channel(64), label = "jobs");
/// let (tx, rx) = hotpath::channel!(crossbeam_channel::unbounded(), iter = true, log = true);
/// let (tx, rx) = hotpath::channel!(mpsc::sync_channel(n), capacity = 64); // checked
/// ```
///
/// The first argument must be the constructor call itself: std `channel()` and
/// `sync_channel(n)`; crossbeam, flume and async-channel `bounded(n)` and `unbounded()`;
/// tokio `mpsc::channel(n)`, `mpsc::unbounded_channel()`, `oneshot::channel()`,
/// `broadcast::channel(n)` and `watch::channel(v)` (written with its `watch::` path);
/// futures-channel `mpsc::channel(n)`, `mpsc::unbounded()` and `oneshot::channel()`.
/// The call is rewritten in place so that the channel carries each message with an
/// 8-byte clock reading (watch: nothing added): the channel that runs is the one
/// written, with its capacity and buffering; nothing is rebuilt or relayed. The backends
/// other than std need the Cargo feature of their name (`tokio`, `crossbeam`, `flume`,
/// `async-channel`, `futures`).
///
/// Arguments, in any order: `label = "jobs"` (the row's name; or an expression, below); `iter = true` (a row per
/// instance, named `jobs`, `jobs-2`, ...; by default instances made at one site with one
/// message type share a row); `capacity = N` (checked against the channel: literals
/// that disagree are a compile error, other values a panic where the channel is made;
/// never used to change the channel); `log = true` (accepted for hotpath 0.30, ignored).
///
/// A label that is not a string literal is an expression whose value is `AsRef<str>`
/// (`format!("worker-{i}")`, `name.clone()`, `&name`), borrowed: evaluated once per
/// channel made, after the constructor call, each distinct value a row of its own (up to
/// `HOTPATH_ENTRIES_LIMIT` a call site, later ones sharing the row `<other>`); without
/// the feature type-checked the same way but not evaluated. The same holds for
/// `stream!` and `future!` (evaluated once per stream wrapped, per future called). A
/// literal label costs nothing at run time.
///
/// The endpoints have every method of the raw ones, with the same results and errors;
/// name their types with `hotpath::wrap::…` (`hotpath::wrap::tokio::sync::mpsc::Sender<T>`),
/// which are the raw types without the feature. `Debug` for any message type; `Send` and
/// `Sync` exactly as the raw endpoints.
///
/// Cost: nothing without the feature. With it, per message: one clock read at the send
/// and one at the receive (when timed), single-writer stores into the thread's slot, and
/// for std, tokio mpsc and futures-channel a count on the instance's send counter (a
/// plain store on the first thread that sent, a relaxed atomic add on others). Per
/// channel: one small allocation shared by its endpoints, made and freed as the profiler's
/// own (`hotpath-alloc` charges it to no function).
#[proc_macro]
pub fn channel(input: TokenStream) -> TokenStream {
    flow(input, attr::FlowMacro::Channel)
}

/// Counts a stream's items and polls: evaluates to `hotpath::Stream<S>` (feature
/// `hotpath`) or to the stream itself.
///
/// ```ignore
/// let rows = hotpath::stream!(client.query_stream(sql), label = "rows");
/// let ticks = hotpath::stream!(IntervalStream::new(interval), iter = true);
/// ```
///
/// Arguments, in any order: `label = "name"` (or an expression, as for [`channel!`]),
/// `iter = true` (a row per instance),
/// `log = true` (accepted for hotpath 0.30, ignored). The wrapper implements `Stream`,
/// `FusedStream` and `Sink` as the stream does. Cost with the feature: two clock reads
/// per timed poll (`HOTPATH_STREAMS_TIME_SAMPLING_RATE`) and single-writer stores.
#[proc_macro]
pub fn stream(input: TokenStream) -> TokenStream {
    flow(input, attr::FlowMacro::Stream)
}

/// Measures a future per call: evaluates to `hotpath::wrap::Future<F>` (feature
/// `hotpath`) or to the future itself.
///
/// ```ignore
/// let body = hotpath::future!(client.get(url).send(), label = "fetch").await?;
/// ```
///
/// Reported in the futures section: calls, polls, completed, cancelled (dropped after a
/// poll), never polled, lifetime (first poll to `Ready` or drop) and busy time per call.
/// Each poll is a measured scope. The argument may be any `IntoFuture` (as for
/// `.await`); the wrapper is `FusedFuture` when the future is. Arguments:
/// `label = "name"` (or an expression, as for [`channel!`]: evaluated per call), `log =
/// true` (accepted, ignored). Cost with the feature: that of an async `#[measure]` call, at
/// `HOTPATH_FUTURES_TIME_SAMPLING_RATE`.
#[proc_macro]
pub fn future(input: TokenStream) -> TokenStream {
    flow(input, attr::FlowMacro::Future)
}

/// `channel!`, `stream!` or `future!` (`mac`): the call parsed, then expanded (feature
/// `hotpath`) or `off`; a parse error as a compile error.
fn flow(input: TokenStream, mac: attr::FlowMacro) -> TokenStream {
    match attr::flow_call(input, mac) {
        #[cfg(feature = "hotpath")]
        Ok(call) => match mac {
            attr::FlowMacro::Channel => expand::channel(&call),
            attr::FlowMacro::Stream => expand::stream(&call),
            attr::FlowMacro::Future => expand::future(&call),
        }
        .into(),
        #[cfg(not(feature = "hotpath"))]
        Ok(call) => off(call),
        Err(e) => e.to_compile_error(),
    }
}

/// Without the feature, `channel!`, `stream!` and `future!` are their first argument; a
/// label given as an expression is type-checked as the feature's expansion takes it
/// (borrowed, `AsRef<str>`) but not evaluated.
#[cfg(not(feature = "hotpath"))]
fn off(call: attr::FlowCall) -> TokenStream {
    use proc_macro::{Delimiter, Group, Punct, Spacing, TokenTree};
    let Some(label) = call.label.filter(|_| call.label_expr) else {
        return call.expr;
    };
    // { if false { let _ = ::hotpath::__private::label(&(label)); } expr }
    let parse = |s: &str| -> TokenStream { s.parse().expect("valid tokens") };
    let mut check = parse("let _ = ::hotpath::__private::label");
    let mut arg = parse("&");
    arg.extend([TokenTree::Group(Group::new(Delimiter::Parenthesis, label))]);
    check.extend([
        TokenTree::Group(Group::new(Delimiter::Parenthesis, arg)),
        TokenTree::Punct(Punct::new(';', Spacing::Alone)),
    ]);
    let mut block = parse("if false");
    block.extend([TokenTree::Group(Group::new(Delimiter::Brace, check))]);
    block.extend(call.expr);
    TokenTree::Group(Group::new(Delimiter::Brace, block)).into()
}

/// Measures every function of an `impl` block (inherent or `impl Trait for Type`) or of
/// an inline module (its functions, the methods of its `impl` blocks, and nested inline
/// modules). Functions marked `#[hotpath::skip]`, already marked `#[hotpath::measure]`,
/// or `const` are left alone.
#[proc_macro_attribute]
pub fn measure_all(attr: TokenStream, item: TokenStream) -> TokenStream {
    if let Err(e) = attr::no_args(attr, "measure_all") {
        return with_error(e, item);
    }
    if let Err(e) = attr::expect_impl_or_mod(&item) {
        return with_error(e, item);
    }
    #[cfg(feature = "hotpath")]
    {
        expanded(expand::measure_all(item.clone().into()), item)
    }
    #[cfg(not(feature = "hotpath"))]
    {
        item
    }
}

/// Leaves one function out of `#[hotpath::measure_all]`.
#[proc_macro_attribute]
pub fn skip(attr: TokenStream, item: TokenStream) -> TokenStream {
    if let Err(e) = attr::no_args(attr, "skip") {
        return with_error(e, item);
    }
    if let Err(e) = attr::expect_fn(&item, "skip", false) {
        return with_error(e, item);
    }
    item
}

/// The sections of the report, declared once (`macros/src/sections.rs`):
/// `__sections!(m)` expands to `m! { rows }`, one row per section in report order. Not a
/// public API: hotpath's crates generate what they know about each section from it.
#[doc(hidden)]
#[proc_macro]
pub fn __sections(input: TokenStream) -> TokenStream {
    let rows: TokenStream = sections::for_each("")
        .parse()
        .expect("the sections table is valid tokens");
    // `path` as the caller wrote it (its spans kept), then `! { rows }`.
    let mut out = input;
    out.extend(rows);
    out
}

/// `serde::Serialize` for a struct of hotpath's report model, without serde_derive: see
/// `macros/src/serialize.rs`. Not a public API: the generated code names
/// `crate::ser::{Fields, map}` of hotpath-report.
#[doc(hidden)]
#[proc_macro_derive(SerializeFields, attributes(serde))]
pub fn serialize_fields(input: TokenStream) -> TokenStream {
    serialize::derive(input)
}
