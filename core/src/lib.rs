//! Runtime of the [hotpath](https://docs.rs/hotpath) profiler.
//!
//! Users do not depend on this crate: the `hotpath` facade re-exports what its macros
//! need. It holds the per-call path and the data it feeds, one module per idea:
//!
//! * [`state`]: what the inline path reads (epoch, clock, sampling periods, CPU mode),
//!   folded into one key;
//! * [`clock`]: raw TSC ticks, calibrated to nanoseconds when a snapshot is taken;
//! * [`CallSite`]: one `static` per instrumented place, numbered on first use;
//! * `slot`: one call site's counters on one thread ([`Slot`]), declared once;
//! * `shard`: a thread's slots, scope stack and sampling countdowns, written by that
//!   thread only, one part per file; `registry`: which thread has which shard, and the
//!   shards of live and exited threads merged by [`snapshot`];
//! * [`Scope`] (sync functions and blocks) and [`MeasuredFuture`] (async functions,
//!   measured per poll);
//! * [`holders`]: per thread, which measured function made the operations of which
//!   wrapped site (lock acquisitions, their waits and holds);
//! * [`op`]: what wrapper crates (`hotpath-io`) use to record operations and charge them
//!   to the function that waited;
//! * [`meter`]: thread-local counters scopes read at entry and exit (allocations, CPU);
//! * [`stacks`]: the calling-context tree (paths of measured scopes, per thread) and
//!   [`trace`]: a ring of each thread's latest calls, both off unless switched on.
//!
//! The files depend on each other in one direction, floor by floor, each using only the
//! floors below it and the files before it on its own (a script checks that no file
//! reaches back up: `scripts/import-cycles core/src`):
//!
//! 1. `state`, `cell`, `zeroed`, `fork`, the cold hook (`hook/cold.rs`), then what uses
//!    only those: `clock`, `holders`, the allocation counters (which [`internal`] uses),
//!    the CPU clock and its thread hooks (`meter/cpu/clock.rs`), the sampling countdowns;
//! 2. `hist`, [`labels`], `dist`, `site`, then `budget` and the poll hook;
//! 3. the meters' numbers per call site → `meter` → `slot`, `stacks`, the trace rings,
//!    the shard's parts → `shard` → `registry`;
//! 4. what works through the registry: `op`, `trace`, the CPU meter's public face
//!    (`meter/cpu/mod.rs`), `scope` (frames → the overhead budget's entry and exit → the
//!    entries → the guard) → `future` → `span`, and `snapshot`.
//!
//! # Cost
//!
//! No lock, allocation, hash or atomic read-modify-write on the per-call path: two clock
//! reads, a push and a pop on a fixed array, and single-writer stores into the thread's
//! slot. Memory is bounded by (call sites × threads alive at once).
#![deny(missing_docs)]
#![deny(unsafe_code)]

/// The overhead budget's per-site timing periods.
pub mod budget;
mod cell;
#[allow(unsafe_code)]
pub mod clock;
#[allow(unsafe_code)]
mod dist;
#[allow(unsafe_code)]
pub mod fork;
mod future;
#[allow(unsafe_code)]
pub mod hist;
pub mod holders;
#[allow(unsafe_code)]
pub mod hook;
#[allow(unsafe_code)]
mod internal_arc;
pub mod labels;
#[allow(unsafe_code)]
pub mod meter;
pub mod op;
mod registry;
mod scope;
#[allow(unsafe_code)]
mod shard;
mod site;
mod slot;
mod snapshot;
/// `tracing` spans measured as calls.
pub mod span;
#[allow(unsafe_code)]
pub mod stacks;
pub mod state;
#[allow(unsafe_code)]
pub mod trace;
pub mod wrap_site;
#[allow(unsafe_code)]
mod zeroed;

pub use cell::Cnt;
pub use future::MeasuredFuture;
pub use hist::{AtomicHist, Hist};
pub use internal_arc::InternalArc;
#[cfg(feature = "cpu")]
pub use registry::credit_cpu_sample;
pub use registry::{begin_epoch, site_loads, thread_counts};
pub use scope::{lost_calls, sampling_rate, set_sampling_rate, set_sampling_seed, Scope};
pub use shard::stack::MAX_DEPTH;
pub use site::{site_by_id, type_name_of, CallSite, SiteKind, MAX_SITES, OVERFLOW_NAMES, WARM_UP};
pub use slot::{Counts, SiteLoad, Slot};
#[cfg(feature = "alloc")]
pub use snapshot::AllocStats;
pub use snapshot::{
    snapshot, Distribution, FlowStats, HolderStats, RunningStats, SiteStats, Snapshot,
};
#[cfg(feature = "cpu")]
pub use snapshot::{CpuStats, CpuSummary};

/// Runs profiler bookkeeping that may allocate (first use of a thread, a call site or a
/// histogram), so that allocation meters can leave it out.
#[inline]
pub fn internal<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(feature = "alloc")]
    {
        meter::alloc::ignored(f)
    }
    #[cfg(not(feature = "alloc"))]
    {
        f()
    }
}

/// Distinct entries one site may open at run time before later ones fold into one
/// overflow entry (`HOTPATH_ENTRIES_LIMIT`, default 1000): SQL queries and HTTP
/// endpoints per kind, instances of an `iter = true` channel or stream. Keeps memory
/// bounded by call sites, not by instances or keys.
pub fn entries_limit() -> usize {
    static LIMIT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        internal(|| {
            std::env::var("HOTPATH_ENTRIES_LIMIT")
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(1000)
        })
    })
}

/// Whether the next instance of a wrapper site goes to its overflow entry: with `iter`
/// (an entry per instance), once `created` entries reached [`entries_limit`]. Past it the
/// instances share that one entry as a plain site's instances share theirs.
pub fn iter_overflow(iter: bool, created: u64) -> bool {
    iter && created as usize >= entries_limit()
}

/// The name of the `n`th entry (from 1) a wrapper site opens: its label or `file:line`;
/// with `iter` `label-2`, `label-3`, ..., and `label-<other>` for the one entry past
/// [`entries_limit`] (see [`iter_overflow`]).
pub fn entry_name(label: Option<&str>, file: &str, line: u32, iter: bool, n: u64) -> String {
    let base = match label {
        Some(l) => l.to_string(),
        None => format!("{file}:{line}"),
    };
    if iter && n as usize > entries_limit() {
        format!("{base}-<other>")
    } else if iter && n > 1 {
        format!("{base}-{n}")
    } else {
        base
    }
}

/// Writes one warning line on stderr, prefixed `[hotpath] warning:`: what every crate of
/// hotpath says about a setting it cannot apply (and what it does instead).
pub fn warn(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "[hotpath] warning: {msg}");
}
