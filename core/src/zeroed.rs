//! Heap allocations made zeroed by the allocator (`calloc`): a value is never built on
//! the stack first (a debug build would, and a stack page per thread would stay
//! resident), and the pages of a large one are touched only as they are used.
//!
//! # Safety invariants
//!
//! Both functions are `unsafe` for one reason: the caller promises that the all-zero
//! bit pattern is a valid `T`. Every caller's `T` is made of atomic integers, counter
//! cells, null pointers and arrays or structs of them, whose `new()` is all zero bytes
//! (a test in `shard/mod.rs` checks it for the shard and its parts).

/// A `T` on the heap whose bytes are all zero.
///
/// # Safety
///
/// The all-zero bit pattern must be a valid `T`, and `T` must not be zero-sized.
pub(crate) unsafe fn boxed<T>() -> Box<T> {
    let layout = std::alloc::Layout::new::<T>();
    // SAFETY: `T` is not zero-sized (the caller's contract), so neither is the layout.
    let p = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if p.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    // SAFETY: `p` was allocated with `T`'s layout by the global allocator, and zero is
    // a valid `T` (the caller's contract).
    unsafe { Box::from_raw(p) }
}

/// A boxed slice of `n` zeroed values (at least one).
///
/// # Safety
///
/// All-zero bytes must be a valid `T`, and `T` must not be zero-sized.
pub(crate) unsafe fn slice<T>(n: usize) -> Box<[T]> {
    let layout = std::alloc::Layout::array::<T>(n.max(1)).expect("a bounded size");
    // SAFETY: the layout has a non-zero size (`T` is not zero-sized, the caller's
    // contract, and there is at least one).
    let p = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if p.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    // SAFETY: `p` is a fresh allocation of `n.max(1) >= n` zeroed `T`s from the global
    // allocator with `T`'s array layout, valid per the caller's promise, owned by nobody
    // else; `Box` frees it with the same layout.
    unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n.max(1))) }
}
