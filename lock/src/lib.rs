//! Lock meter of the [hotpath](https://docs.rs/hotpath) profiler.
//!
//! [`Lock<L>`] wraps a lock `L` (std's, parking_lot's, tokio's or async-lock's `Mutex` and
//! `RwLock`) and behaves exactly like it: the same methods with the same results,
//! poisoning, fairness (tokio's FIFO queue) and blocking behaviour, guards that deref to
//! the data. On the way it counts, per `mutex!`/`rw_lock!` call site and mode (exclusive,
//! read, write, upgradable): acquisitions, contended acquisitions, failed `try_lock`s,
//! wait and hold times, and which measured function acquired, waited and held. Waiting
//! time is also charged to the innermost measured function on the thread (the `waits`
//! section).
//!
//! Use it through the facade: `hotpath::mutex!(std::sync::Mutex::new(0))`,
//! `hotpath::rw_lock!(parking_lot::RwLock::new(v), label = "cache")`; without the facade's
//! `hotpath` feature the macros return the lock itself.
//!
//! ## How an acquisition is measured
//!
//! 1. `try_lock` first (the same first step std's futex lock and parking_lot take). When
//!    it succeeds the acquisition is uncontended and no clock is read for waiting.
//! 2. Otherwise the clock is read, the blocking (or awaited) acquisition runs, the clock is
//!    read again: that is the wait, and the second reading starts the hold. Awaited
//!    acquisitions wait from their first poll to `Ready`.
//! 3. When the guard drops, the inner guard is released first, then the clock is read:
//!    the hold includes the release itself, and the profiler's own stores never lengthen
//!    the program's critical section. The acquisition is recorded then, on the thread
//!    that releases, together with the function that acquired (read from the scope stack
//!    at acquisition).
//!
//! Every acquisition is counted. Holds are timed at the sampling rate
//! (`HOTPATH_MUTEXES_TIME_SAMPLING_RATE`, `HOTPATH_RW_LOCKS_TIME_SAMPLING_RATE`; one
//! in 16 by default, after each site's first 256 acquisitions, which are all timed):
//! an untimed uncontended acquisition reads no clock, and a sampled one stands for 16
//! in the hold sums and percentiles. A contended acquisition is always timed (wait and
//! hold) unless the rate is 0, and so is a condition variable's wait, whether or not the
//! acquisition before it was: waits are what a lock costs the program. So is a hold that
//! made another acquisition wait (its holder is charged with all of it, and it stands for
//! itself): every acquisition reads the clock when it gets the lock (unless the rate is
//! 0), and its release times the hold if a wait began on the site meanwhile (`blocked.rs`).
//! A guard that is never dropped (`mem::forget`, held at exit) is not counted.
//!
//! ## Cost
//!
//! Uncontended and timed: two clock reads and single-writer stores into the releasing
//! thread's slot and holder table; no lock, allocation or shared read-modify-write.
//! Uncontended and untimed (sampling): one clock read and two plain loads of the site's
//! count of waits. See the facade's Performance section for measured numbers.
//!
//! ## Modules
//!
//! One idea a file: [`LockSite`] and its registry in `site.rs`; the hold of one
//! acquisition and what its release records in `hold.rs`; the holds that made others
//! wait in `blocked.rs`; the acquisition algorithms
//! (blocking, trying, awaited) in `acquire.rs`; [`ArcGuard`] in `arc_guard.rs`; the
//! guard and pass-through macros every backend uses in `macros.rs`; a file per backend.
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![deny(clippy::multiple_unsafe_ops_per_block, clippy::missing_safety_doc)]

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

mod macros;

mod acquire;
mod arc_guard;
mod blocked;
mod hold;
mod site;

pub mod std_sync;

#[cfg(feature = "async-lock")]
pub mod async_lock;
#[cfg(feature = "parking_lot")]
pub mod parking_lot;
#[cfg(feature = "tokio")]
pub mod tokio;

pub use arc_guard::ArcGuard;
pub use hold::Hold;
pub use site::{sites, LockKind, LockSite, Mode};

/// A lock `L` measured as an instance of a `mutex!` or `rw_lock!` call site.
///
/// The methods are those of `L` (see the backend modules: [`std_sync`] and, with their
/// features, `parking_lot`, `tokio`, `async_lock`); there is deliberately no `Deref` to
/// `L`, so that no acquisition escapes the count.
pub struct Lock<L: ?Sized> {
    site: &'static LockSite,
    seen: AtomicBool,
    inner: L,
}

impl<L> Lock<L> {
    /// Wraps `inner` as an instance of `site`. A `const fn`, so a wrapped lock can be a
    /// `static`: this is what `mutex!` and `rw_lock!` expand to.
    pub const fn instrument(inner: L, site: &'static LockSite) -> Self {
        Lock {
            inner,
            site,
            seen: AtomicBool::new(false),
        }
    }

    /// Wraps `inner` as an instance of `site` with the label `label`, given at run time
    /// (see [`LockSite::labelled`]): what `mutex!(lock, label = name)` expands to. Not a
    /// `const fn`: such a lock cannot be a `static`.
    pub fn instrument_labelled(inner: L, site: &'static LockSite, label: &str) -> Self {
        Lock::instrument(inner, site.labelled(label))
    }

    /// Wraps `inner` as an instance of the site of the caller's source location: for the
    /// constructors of the `hotpath::wrap` aliases (`Mutex::new`, `Default`, `From`), which
    /// cannot take a `static` site. The site is made once per location.
    #[track_caller]
    pub fn at_caller(inner: L, kind: LockKind) -> Self {
        Lock::instrument(inner, site::site_at(std::panic::Location::caller(), kind))
    }
}

impl<L: ?Sized> Lock<L> {
    /// The call site this lock belongs to.
    pub fn site(&self) -> &'static LockSite {
        self.site
    }

    /// Counts this lock as an instance of its site on its first acquisition.
    #[inline(always)]
    fn register(&self) {
        if !self.seen.load(Relaxed) {
            self.register_slow();
        }
    }

    #[cold]
    #[inline(never)]
    fn register_slow(&self) {
        if self.seen.swap(true, Relaxed) {
            return;
        }
        self.site.add_instance(std::any::type_name::<L>());
    }
}

impl<L: ?Sized + std::fmt::Debug> std::fmt::Debug for Lock<L> {
    /// As the wrapped lock prints itself.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}
