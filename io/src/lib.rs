//! I/O meter of the [hotpath](https://docs.rs/hotpath) profiler.
//!
//! [`Instrumented<T>`] wraps a reader, writer or stream and behaves exactly like it: the
//! required trait methods and the vectored, `BufRead` and seek ones are delegated to `T`;
//! the provided ones (`read_exact`, `read_to_end`, `write_all`, ...) run the traits'
//! defaults over those, with the same results but without `T`'s own versions of them
//! (a `File`'s `read_to_end` sized from its length, for one). Errors, short reads and
//! writes, `WouldBlock` and backpressure pass through unchanged, and it derefs to `T`. On the way it counts, per
//! `io!` call site and wrapped type, operations, bytes actually transferred, errors and
//! latency, and charges each operation's bytes and time to the innermost measured
//! function on the thread (only the outermost operation, when one wrapped value calls
//! another, so layered wrappers do not count a function's bytes twice).
//!
//! Use it through the facade: `hotpath::io!(file)`, `hotpath::io!(stream, label = "redis")`,
//! `hotpath::io!(conn, iter = true)`, and `hotpath::io_unwrap(wrapper)` to get the value
//! back. Without the facade's `hotpath` feature `io!` is the identity.
//!
//! ## What counts
//!
//! * An operation is a completed call; its bytes are those actually transferred. A short
//!   read or write is one operation of its real size; a read of 0 bytes at end of file
//!   is an operation of 0 bytes.
//! * `WouldBlock` and `Interrupted` are neither operations nor errors; any other error
//!   counts as an error of its direction, with no bytes. `Poll::Pending` is not an
//!   operation.
//! * Synchronous operations are timed around the call; asynchronous ones from their first
//!   poll to `Ready`, so their durations include waiting for readiness. A future dropped
//!   in the middle of an operation leaves it pending: the next operation in the same
//!   direction resumes it, and its duration includes the abandoned wait. The measured
//!   function it completes in is charged only the part inside its current call, so a
//!   function's I/O never exceeds its wall time.
//! * `read_exact`, `read_to_end`, `write_all` and the like count as the reads and writes
//!   they make. Through `BufRead`, `fill_buf` is a read operation and `consume` adds the
//!   bytes the application took; `read_line` and `read_until` are one read each.
//! * Flushes and shutdowns are operations of their own, reported with the writes, and
//!   their errors are write-direction errors; seeks are counted too.
//!
//! ## Cost
//!
//! Two clock reads and single-writer counter updates per operation (see the facade's
//! Performance section); nothing per byte.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use hotpath_core::fork::Rank;
use hotpath_core::wrap_site::{Entries, WrapSite};
use hotpath_core::{CallSite, SiteKind};

pub mod op;
mod wrapper;

pub use wrapper::Instrumented;

/// One `io!` call site, a `static` per macro expansion.
pub type IoSite = WrapSite;

/// What the report shows as one row: an `io!` call site and the type it wrapped (or, with
/// `iter = true`, one instance).
#[derive(Debug)]
pub struct IoEntry {
    /// The label, or `file:line`; `label-2`, `label-3`, ... for later `iter` instances.
    pub name: &'static str,
    /// The `label = "..."` given.
    pub label: Option<&'static str>,
    /// Source file of the `io!`.
    pub file: &'static str,
    /// Source line of the `io!`.
    pub line: u32,
    /// `std::any::type_name` of the wrapped value.
    pub type_name: &'static str,
    /// Wrappers created for this entry.
    pub instances: AtomicU64,
    /// Read operations (including `fill_buf`, `read_line`, `read_until`).
    pub read: &'static CallSite,
    /// Write operations.
    pub write: &'static CallSite,
    /// Flushes.
    pub flush: &'static CallSite,
    /// Shutdowns (async `poll_shutdown` / `poll_close`).
    pub shutdown: &'static CallSite,
    /// Seeks.
    pub seek: &'static CallSite,
}

static REGISTRY: Entries<IoEntry> = Entries::new(Rank::IoEntries);

fn leak_site(name: &'static str, site: &IoSite) -> &'static CallSite {
    Box::leak(Box::new(CallSite::named(
        name,
        site.label(),
        site.file(),
        site.line(),
        SiteKind::Io,
    )))
}

/// The entry of `site` for values of type `T`, created on first use. Called once per
/// wrapper, not per operation.
pub fn entry<T>(site: &'static IoSite) -> &'static IoEntry {
    let type_name = std::any::type_name::<T>();
    REGISTRY.entry(
        site,
        type_name,
        |e| {
            e.instances.fetch_add(1, Relaxed);
        },
        |name| IoEntry {
            name,
            label: site.label(),
            file: site.file(),
            line: site.line(),
            type_name,
            instances: AtomicU64::new(1),
            read: leak_site(name, site),
            write: leak_site(name, site),
            flush: leak_site(name, site),
            shutdown: leak_site(name, site),
            seek: leak_site(name, site),
        },
    )
}

/// Every entry created so far, in order of creation.
pub fn entries() -> Vec<&'static IoEntry> {
    REGISTRY.all()
}

/// Wraps `value` as an instance of `site`.
pub fn wrap<T>(value: T, site: &'static IoSite) -> Instrumented<T> {
    Instrumented::new(value, entry::<T>(site))
}

/// Wraps `value` as an instance of `site` with the label `label`, given at run time (see
/// [`IoSite::labelled`]): what `io!(value, label = name)` expands to.
pub fn wrap_labelled<T>(value: T, site: &'static IoSite, label: &str) -> Instrumented<T> {
    wrap(value, site.labelled(label))
}

/// Times a fraction `rate` (0..=1) of I/O operations; every operation and byte is
/// still counted. 0 counts without timing.
pub fn set_sampling_rate(rate: f64) {
    hotpath_core::op::Sampler::Io.set_rate(rate)
}

/// The fraction of I/O operations timed.
pub fn sampling_rate() -> f64 {
    hotpath_core::op::Sampler::Io.rate()
}
