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
//! [`measure`] reports zeros: the same code compiles either way.

#[cfg(feature = "hotpath-alloc")]
pub use hotpath_alloc::{installed, measure, AllocDelta, AllocTotals, Tracking};

#[cfg(not(feature = "hotpath-alloc"))]
pub use off::*;

#[cfg(not(feature = "hotpath-alloc"))]
#[allow(unsafe_code)]
mod off {
    use std::alloc::{GlobalAlloc, Layout, System};

    /// Allocation counts (all zero without the `hotpath-alloc` feature).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct AllocTotals {
        /// Allocations.
        pub allocs: u64,
        /// Bytes allocated.
        pub bytes: u64,
        /// Deallocations.
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

    /// What [`measure`] counted.
    pub type AllocDelta = AllocTotals;

    /// A global allocator that forwards to `A` (and, with `hotpath-alloc`, counts).
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

    // SAFETY: a pure pass-through: every method forwards its arguments unchanged to `A`,
    // which upholds the `GlobalAlloc` contract.
    unsafe impl<A: GlobalAlloc> GlobalAlloc for Tracking<A> {
        #[inline]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: the caller upholds `alloc`'s contract; forwarded unchanged.
            unsafe { self.inner.alloc(layout) }
        }
        #[inline]
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            // SAFETY: the caller upholds `alloc_zeroed`'s contract; forwarded unchanged.
            unsafe { self.inner.alloc_zeroed(layout) }
        }
        #[inline]
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: the caller upholds `dealloc`'s contract; forwarded unchanged.
            unsafe { self.inner.dealloc(ptr, layout) }
        }
        #[inline]
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: the caller upholds `realloc`'s contract; forwarded unchanged.
            unsafe { self.inner.realloc(ptr, layout, new_size) }
        }
    }

    /// Runs `f`; without `hotpath-alloc` nothing is counted, so the counts are zero.
    pub fn measure<R>(f: impl FnOnce() -> R) -> (R, AllocDelta) {
        (f(), AllocDelta::default())
    }

    /// Always false without `hotpath-alloc`.
    pub fn installed() -> bool {
        false
    }
}
