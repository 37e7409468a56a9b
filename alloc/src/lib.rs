//! Allocation meter of the [hotpath](https://docs.rs/hotpath) profiler.
//!
//! [`Tracking`] wraps any [`GlobalAlloc`] and counts, per thread, allocations, bytes
//! allocated, deallocations and bytes freed. Measured scopes read these counters at
//! entry and exit, so each function's allocations are known inclusive and exclusive of
//! its measured children, on whichever thread it runs.
//!
//! ## Usage
//!
//! With the facade's `hotpath-alloc` feature, `#[hotpath::main]` installs it over
//! `System` (or `#[hotpath::main(allocator = mimalloc::MiMalloc)]`). A program that
//! declares its own global allocator wraps it instead:
//!
//! ```
//! #[global_allocator]
//! static ALLOC: hotpath_alloc::Tracking = hotpath_alloc::Tracking::new(std::alloc::System);
//!
//! let (v, a) = hotpath_alloc::measure(|| Vec::<u8>::with_capacity(1000));
//! assert_eq!((a.allocs, a.bytes), (1, 1000));
//! # drop(v);
//! ```
//!
//! ## What is counted
//!
//! Every successful `alloc` and `alloc_zeroed` (one allocation of the layout's size),
//! `dealloc` (one deallocation), and successful `realloc` (one allocation of the new
//! size and one deallocation of the old). Failed calls are not counted. Memory allocated
//! by C libraries through `malloc` directly, and stack memory, are not seen.
//!
//! ## Cost
//!
//! The hook adds two relaxed load/store pairs on a thread-local to each call: no lock,
//! no allocation, no atomic read-modify-write (see the facade's Performance section for
//! the measured difference to plain `System` and `mimalloc`). It is safe in threads the
//! profiler never saw start and while thread-locals are being destroyed.
#![deny(missing_docs)]

use std::alloc::{GlobalAlloc, Layout, System};

use hotpath_core::meter::alloc as meter;
pub use hotpath_core::meter::alloc::AllocTotals;

/// A global allocator that forwards to `A` and counts per thread.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tracking<A = System> {
    inner: A,
}

impl<A> Tracking<A> {
    /// Wraps `inner`.
    pub const fn new(inner: A) -> Self {
        Tracking { inner }
    }

    /// The wrapped allocator.
    pub const fn inner(&self) -> &A {
        &self.inner
    }
}

// SAFETY: every method forwards its arguments unchanged to `A`, which upholds the
// `GlobalAlloc` contract; counting only reads the layout and the returned pointer, and
// touches nothing but this thread's counters (no allocation, no lock).
unsafe impl<A: GlobalAlloc> GlobalAlloc for Tracking<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract for `layout`.
        let p = unsafe { self.inner.alloc(layout) };
        if !p.is_null() {
            meter::on_alloc(layout.size());
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc_zeroed`'s contract for `layout`.
        let p = unsafe { self.inner.alloc_zeroed(layout) };
        if !p.is_null() {
            meter::on_alloc(layout.size());
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller guarantees `ptr` came from this allocator with `layout`.
        unsafe { self.inner.dealloc(ptr, layout) };
        meter::on_free(layout.size());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `ptr` came from this allocator with `layout` and
        // that `new_size` is valid for it.
        let p = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            meter::on_alloc(new_size);
            meter::on_free(layout.size());
        }
        p
    }
}

/// What [`measure`] counted.
pub type AllocDelta = AllocTotals;

/// Runs `f` and returns its value with the allocations it made on this thread.
///
/// Only this thread's counters are read, so parallel tests in one process measure
/// independently. Needs [`Tracking`] as the global allocator; without it every count is
/// zero (see [`installed`]).
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, AllocDelta) {
    let before = meter::thread_totals();
    let r = f();
    let after = meter::thread_totals();
    (r, after.since(before))
}

/// Whether [`Tracking`] has counted any allocation in this process.
pub fn installed() -> bool {
    meter::installed()
}

/// Allocations counted on this thread so far.
pub fn thread_totals() -> AllocTotals {
    meter::thread_totals()
}

/// Allocations counted in the whole process so far, including exited threads.
pub fn process_totals() -> AllocTotals {
    meter::process_totals()
}
