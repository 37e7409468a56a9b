//! Failed allocations and reallocations are not counted.
#![cfg(feature = "hotpath-alloc")]

use std::alloc::{GlobalAlloc, Layout, System};

use hotpath::alloc::{measure, Tracking};

/// Refuses anything of a mebibyte or more.
struct Small;

const LIMIT: usize = 1 << 20;

// SAFETY: forwards to `System`, or returns null (a failure) without touching memory.
unsafe impl GlobalAlloc for Small {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if l.size() >= LIMIT {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract is forwarded.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: the caller's contract is forwarded.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new >= LIMIT {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract is forwarded.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Tracking<Small> = Tracking::new(Small);

#[test]
fn failed_calls_count_nothing() {
    let layout = Layout::from_size_align(LIMIT, 8).unwrap();
    let small = Layout::from_size_align(64, 8).unwrap();
    let ((), d) = measure(|| {
        // SAFETY: a non-zero-size layout; a null result is handled.
        let p = unsafe { A.alloc(layout) };
        assert!(p.is_null());
        // SAFETY: as above.
        let z = unsafe { A.alloc_zeroed(layout) };
        assert!(z.is_null());
    });
    assert_eq!((d.allocs, d.bytes, d.frees, d.freed), (0, 0, 0, 0));

    let ((), d) = measure(|| {
        // SAFETY: `small` is valid; `q` comes from `A` with `small`; after the failed
        // realloc `q` is still valid and freed with its original layout.
        unsafe {
            let q = A.alloc(small);
            assert!(!q.is_null());
            assert!(A.realloc(q, small, LIMIT).is_null());
            let r = A.realloc(q, small, 128);
            assert!(!r.is_null());
            A.dealloc(r, Layout::from_size_align(128, 8).unwrap());
        }
    });
    // alloc 64; failed realloc: nothing; realloc 64 -> 128: +1 alloc of 128, +1 free of
    // 64; dealloc 128.
    assert_eq!(
        (d.allocs, d.bytes, d.frees, d.freed),
        (2, 64 + 128, 2, 64 + 128)
    );
}
