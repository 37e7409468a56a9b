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

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use hotpath_core::fork::{Mutex, Rank};
use hotpath_core::{CallSite, SiteKind};

pub mod op;
mod wrapper;

pub use wrapper::Instrumented;

/// One `io!` call site, a `static` per macro expansion.
#[derive(Debug)]
pub struct IoSite {
    file: &'static str,
    line: u32,
    label: Option<&'static str>,
    iter: bool,
    /// With `iter`: instances created so far (for their names).
    created: AtomicU64,
}

impl IoSite {
    /// A call site at `file:line`; `iter` gives every instance its own entry.
    pub const fn new(
        file: &'static str,
        line: u32,
        label: Option<&'static str>,
        iter: bool,
    ) -> Self {
        IoSite {
            file,
            line,
            label,
            iter,
            created: AtomicU64::new(0),
        }
    }

    /// This call site with the label `label`, given at run time (`label = name`): a site
    /// of its own per distinct label, and past `HOTPATH_ENTRIES_LIMIT` labels one shared
    /// site labelled `<other>` (`hotpath_core::labels`). With `iter`, each label numbers
    /// its instances apart.
    pub fn labelled(&'static self, label: &str) -> &'static IoSite {
        hotpath_core::labels::labelled(self, label, |label| {
            IoSite::new(self.file, self.line, Some(label), self.iter)
        })
    }
}

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

struct Registry {
    by_key: HashMap<(usize, &'static str), &'static IoEntry>,
    all: Vec<&'static IoEntry>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(Rank::IoEntries, None);

fn leak_site(name: &'static str, label: Option<&'static str>, site: &IoSite) -> &'static CallSite {
    Box::leak(Box::new(CallSite::dynamic(
        name,
        label,
        site.file,
        site.line,
        SiteKind::Io,
    )))
}

/// The entry of `site` for values of type `T`, created on first use. Called once per
/// wrapper, not per operation.
pub fn entry<T>(site: &'static IoSite) -> &'static IoEntry {
    let type_name = std::any::type_name::<T>();
    hotpath_core::internal(|| {
        let mut guard = REGISTRY.lock();
        let reg = guard.get_or_insert_with(|| Registry {
            by_key: HashMap::new(),
            all: Vec::new(),
        });
        // Instances share an entry per site and type; with `iter` each has its own, and
        // past the limit the rest share one more (keyed apart: a site is never at an odd
        // address), so memory is bounded by call sites, not by instances.
        let overflow = hotpath_core::iter_overflow(site.iter, site.created.load(Relaxed));
        let shared = !site.iter || overflow;
        let key = (
            site as *const IoSite as usize + overflow as usize,
            type_name,
        );
        if shared {
            if let Some(e) = reg.by_key.get(&key) {
                e.instances.fetch_add(1, Relaxed);
                return *e;
            }
        }
        let n = site.created.fetch_add(1, Relaxed) + 1;
        let name = hotpath_core::entry_name(site.label, site.file, site.line, site.iter, n);
        let name: &'static str = name.leak();
        let e: &'static IoEntry = Box::leak(Box::new(IoEntry {
            name,
            label: site.label,
            file: site.file,
            line: site.line,
            type_name,
            instances: AtomicU64::new(1),
            read: leak_site(name, site.label, site),
            write: leak_site(name, site.label, site),
            flush: leak_site(name, site.label, site),
            shutdown: leak_site(name, site.label, site),
            seek: leak_site(name, site.label, site),
        }));
        if shared {
            reg.by_key.insert(key, e);
        }
        reg.all.push(e);
        e
    })
}

/// Every entry created so far, in order of creation.
pub fn entries() -> Vec<&'static IoEntry> {
    let guard = REGISTRY.lock();
    hotpath_core::internal(|| guard.as_ref().map(|r| r.all.clone()).unwrap_or_default())
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
