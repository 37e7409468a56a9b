//! Exact counts for known allocations, through `measure` (per thread, so the tests run in
//! parallel in this one process).
#![cfg(feature = "hotpath-alloc")]

use std::alloc::System;

use hotpath::alloc::{measure, AllocTotals, Tracking};

#[global_allocator]
static A: Tracking<System> = Tracking::new(System);

fn totals(allocs: u64, bytes: u64, frees: u64, freed: u64) -> AllocTotals {
    AllocTotals {
        allocs,
        bytes,
        frees,
        freed,
    }
}

#[test]
fn with_capacity_is_one_allocation_of_its_size() {
    let (v, d) = measure(|| Vec::<u8>::with_capacity(1000));
    assert_eq!(d, totals(1, 1000, 0, 0));
    let ((), d) = measure(|| drop(v));
    assert_eq!(d, totals(0, 0, 1, 1000));
}

#[test]
fn zeroed_allocations_are_counted() {
    let (v, d) = measure(|| vec![0u64; 512]);
    assert_eq!(v.len(), 512);
    assert_eq!(d, totals(1, 4096, 0, 0));
}

#[test]
fn a_string_grown_by_pushes_reallocates_by_doubling() {
    // Capacity goes 8 (first push), then doubles: 16, 32, 64, 128 for 100 bytes. Each
    // growth is a realloc: one allocation of the new size, one free of the old.
    let (s, d) = measure(|| {
        let mut s = String::new();
        for _ in 0..100 {
            s.push('x');
        }
        s
    });
    assert_eq!(s.capacity(), 128);
    assert_eq!(d, totals(5, 8 + 16 + 32 + 64 + 128, 4, 8 + 16 + 32 + 64));
    let ((), d) = measure(|| drop(s));
    assert_eq!(d, totals(0, 0, 1, 128));
}

#[test]
fn boxes_and_nested_collections() {
    let (v, d) = measure(|| (0..10).map(|i| Box::new([i as u8; 24])).collect::<Vec<_>>());
    // One Vec of 10 pointers, ten 24-byte boxes.
    assert_eq!(d, totals(11, 10 * 8 + 10 * 24, 0, 0));
    let ((), d) = measure(|| drop(v));
    assert_eq!(d, totals(0, 0, 11, 10 * 8 + 10 * 24));
}

#[test]
fn nothing_allocated_is_nothing_counted() {
    let (x, d) = measure(|| (1..=100u64).sum::<u64>());
    assert_eq!(x, 5050);
    assert_eq!(d, AllocTotals::default());
    assert!(hotpath::alloc::installed());
}

#[test]
fn another_threads_allocations_are_not_this_threads() {
    let ((), d) = measure(|| {
        std::thread::scope(|s| {
            s.spawn(|| drop(Vec::<u8>::with_capacity(1 << 20)));
        })
    });
    // Spawning allocates on this thread, but the 1 MiB is the other thread's.
    assert!(d.bytes < 1 << 20, "{d:?}");
}
