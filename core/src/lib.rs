//! Runtime of the [hotpath](https://docs.rs/hotpath) profiler.
//!
//! Users do not depend on this crate: the `hotpath` facade re-exports what its macros
//! need. It holds the per-call path and the data it feeds:
//!
//! * [`clock`]: raw TSC ticks, calibrated to nanoseconds when a snapshot is taken;
//! * [`CallSite`]: one `static` per instrumented place, numbered on first use;
//! * per-thread shards: one slot per call site with counts, totals, min/max and an
//!   [`AtomicHist`]; a scope stack for self time; written by one thread, merged by
//!   [`snapshot`] across live and exited threads;
//! * [`Scope`] (sync functions and blocks) and [`MeasuredFuture`] (async functions,
//!   measured per poll).
//!
//! # Cost
//!
//! No lock, allocation, hash or atomic read-modify-write on the per-call path: two clock
//! reads, a push and a pop on a fixed array, and single-writer stores into the thread's
//! slot. Memory is bounded by (call sites × threads alive at once).
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod cell;
#[allow(unsafe_code)]
pub mod clock;
#[allow(unsafe_code)]
mod dist;
mod future;
pub mod hist;
pub mod io;
#[allow(unsafe_code)]
pub mod meter;
mod scope;
#[allow(unsafe_code)]
mod shard;
mod site;
mod snapshot;

pub use future::MeasuredFuture;
pub use hist::{AtomicHist, Hist};
pub use scope::{lost_calls, sampling_rate, set_sampling_rate, Scope};
pub use shard::{begin_epoch, thread_counts, MAX_DEPTH};
pub use site::{type_name_of, CallSite, SiteKind, MAX_SITES};
pub use snapshot::{snapshot, SiteStats, Snapshot};
#[cfg(feature = "alloc")]
pub use snapshot::{AllocStats, AllocSummary};
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
