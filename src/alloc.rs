//! Allocation tracking (feature `hotpath-alloc`).
//!
//! With the feature, [`Tracking`] counts every allocation per thread and the report gains
//! an `alloc` section: per function, allocations and bytes, inclusive and self, bytes
//! freed and retained, per-call percentiles of bytes. `#[hotpath::main]` installs it as
//! the global allocator over `System`, or over another allocator with
//! `#[hotpath::main(allocator = mimalloc::MiMalloc)]`. A program with its own global
//! allocator writes `#[hotpath::main(allocator = none)]` and wraps it:
//!
//! ```
//! #[global_allocator]
//! static ALLOC: hotpath::alloc::Tracking<std::alloc::System> =
//!     hotpath::alloc::Tracking::new(std::alloc::System);
//! ```
//!
//! Without the feature `Tracking` forwards every call and counts nothing, and
//! [`measure`] reports zeros: the same types, so the same code compiles either way.
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
//! Nothing without the feature. With it, two relaxed load/store pairs on a thread-local
//! per call: no lock, no allocation, no atomic read-modify-write (see the README's
//! Performance section for the measured difference to plain `System` and `mimalloc`).

use std::alloc::{GlobalAlloc, Layout, System};

/// Allocation counts of one thread, of the process, or of an interval (all zero without
/// the `hotpath-alloc` feature).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocTotals {
    /// Allocations (a successful `realloc` counts one, of the new size).
    pub allocs: u64,
    /// Bytes allocated.
    pub bytes: u64,
    /// Deallocations (a successful `realloc` counts one, of the old size).
    pub frees: u64,
    /// Bytes deallocated.
    pub freed: u64,
}

impl AllocTotals {
    /// `self - earlier`, field by field (saturating).
    pub fn since(self, earlier: AllocTotals) -> AllocTotals {
        AllocTotals {
            allocs: self.allocs.saturating_sub(earlier.allocs),
            bytes: self.bytes.saturating_sub(earlier.bytes),
            frees: self.frees.saturating_sub(earlier.frees),
            freed: self.freed.saturating_sub(earlier.freed),
        }
    }
}

#[cfg(feature = "hotpath-alloc")]
impl From<hotpath_alloc::Totals> for AllocTotals {
    fn from(t: hotpath_alloc::Totals) -> Self {
        AllocTotals {
            allocs: t.allocs,
            bytes: t.bytes,
            frees: t.frees,
            freed: t.freed,
        }
    }
}

/// What [`measure`] counted.
pub type AllocDelta = AllocTotals;

/// A global allocator that forwards to `A` and, with `hotpath-alloc`, counts per thread.
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

/// Counts one allocation of `size` bytes (nothing without the feature).
#[inline(always)]
fn counted_alloc(size: usize) {
    #[cfg(feature = "hotpath-alloc")]
    hotpath_alloc::on_alloc(size);
    #[cfg(not(feature = "hotpath-alloc"))]
    let _ = size;
}

/// Counts one deallocation of `size` bytes (nothing without the feature).
#[inline(always)]
fn counted_free(size: usize) {
    #[cfg(feature = "hotpath-alloc")]
    hotpath_alloc::on_free(size);
    #[cfg(not(feature = "hotpath-alloc"))]
    let _ = size;
}

// SAFETY: every method forwards its arguments unchanged to `A`, which upholds the
// `GlobalAlloc` contract; counting only reads the layout and the returned pointer, and
// touches nothing but this thread's counters (no allocation, no lock).
#[allow(unsafe_code)]
unsafe impl<A: GlobalAlloc> GlobalAlloc for Tracking<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract for `layout`.
        let p = unsafe { self.inner.alloc(layout) };
        if !p.is_null() {
            counted_alloc(layout.size());
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc_zeroed`'s contract for `layout`.
        let p = unsafe { self.inner.alloc_zeroed(layout) };
        if !p.is_null() {
            counted_alloc(layout.size());
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller guarantees `ptr` came from this allocator with `layout`.
        unsafe { self.inner.dealloc(ptr, layout) };
        counted_free(layout.size());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `ptr` came from this allocator with `layout` and
        // that `new_size` is valid for it.
        let p = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            counted_alloc(new_size);
            counted_free(layout.size());
        }
        p
    }
}

/// Allocations counted on the calling thread so far (zero without the feature).
pub fn thread_totals() -> AllocTotals {
    #[cfg(feature = "hotpath-alloc")]
    {
        hotpath_alloc::thread_totals().into()
    }
    #[cfg(not(feature = "hotpath-alloc"))]
    {
        AllocTotals::default()
    }
}

/// Allocations counted in the whole process so far, exited threads included (zero
/// without the feature).
pub fn process_totals() -> AllocTotals {
    #[cfg(feature = "hotpath-alloc")]
    {
        hotpath_alloc::process_totals().into()
    }
    #[cfg(not(feature = "hotpath-alloc"))]
    {
        AllocTotals::default()
    }
}

/// Runs `f` and returns its value with the allocations it made on this thread.
///
/// Only this thread's counters are read, so parallel tests in one process measure
/// independently. Needs [`Tracking`] as the global allocator and the `hotpath-alloc`
/// feature; otherwise every count is zero (see [`installed`]).
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, AllocDelta) {
    let before = thread_totals();
    let r = f();
    (r, thread_totals().since(before))
}

/// Whether [`Tracking`] has counted any allocation in this process (always false without
/// the `hotpath-alloc` feature).
pub fn installed() -> bool {
    #[cfg(feature = "hotpath-alloc")]
    {
        hotpath_alloc::installed()
    }
    #[cfg(not(feature = "hotpath-alloc"))]
    {
        false
    }
}
