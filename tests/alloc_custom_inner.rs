//! `Tracking` over a custom inner allocator counts exactly what reaches it, and forwards
//! every call.
#![cfg(feature = "hotpath-alloc")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use hotpath::alloc::{measure, Tracking};

/// Counts the calls it forwards to `System`, all threads together.
struct Counting {
    allocs: AtomicU64,
    bytes: AtomicU64,
    frees: AtomicU64,
}

// SAFETY: forwards to `System` unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        self.allocs.fetch_add(1, Relaxed);
        self.bytes.fetch_add(l.size() as u64, Relaxed);
        // SAFETY: the caller's contract is forwarded.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        self.frees.fetch_add(1, Relaxed);
        // SAFETY: the caller's contract is forwarded.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Tracking<Counting> = Tracking::new(Counting {
    allocs: AtomicU64::new(0),
    bytes: AtomicU64::new(0),
    frees: AtomicU64::new(0),
});

#[test]
fn counts_match_what_the_inner_allocator_saw() {
    let inner = A.inner();
    let (a0, b0, f0) = (
        inner.allocs.load(Relaxed),
        inner.bytes.load(Relaxed),
        inner.frees.load(Relaxed),
    );
    let (v, d) = measure(|| {
        let mut v: Vec<Vec<u8>> = Vec::new();
        for i in 0..50 {
            v.push(vec![1u8; i * 10 + 1]);
        }
        v.truncate(20);
        v
    });
    let (a1, b1, f1) = (
        inner.allocs.load(Relaxed),
        inner.bytes.load(Relaxed),
        inner.frees.load(Relaxed),
    );
    // This test is the only thread allocating: the inner allocator saw exactly what we
    // counted (the default `realloc` of `GlobalAlloc` is alloc + copy + dealloc).
    assert_eq!(d.allocs, a1 - a0);
    assert_eq!(d.bytes, b1 - b0);
    assert_eq!(d.frees, f1 - f0);
    assert_eq!(v.len(), 20);
    assert!(v
        .iter()
        .enumerate()
        .all(|(i, x)| x.len() == i * 10 + 1 && x.iter().all(|b| *b == 1)));
}
