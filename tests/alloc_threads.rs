//! Threads the profiler never saw start, threads that exit, and allocation during
//! thread-local destruction.
#![cfg(feature = "hotpath-alloc")]

use std::alloc::System;
use std::cell::RefCell;

use hotpath::alloc::{measure, process_totals, Tracking};

#[global_allocator]
static A: Tracking<System> = Tracking::new(System);

struct AllocatesOnDrop;

impl Drop for AllocatesOnDrop {
    fn drop(&mut self) {
        // Allocates and frees while the thread's locals are being destroyed.
        let v: Vec<u8> = Vec::with_capacity(777);
        std::hint::black_box(&v);
    }
}

thread_local! {
    static LATE: RefCell<Option<AllocatesOnDrop>> = const { RefCell::new(None) };
}

#[test]
fn exited_threads_stay_in_the_process_totals() {
    let before = process_totals();
    let per_thread: Vec<u64> = (0..8u64)
        .map(|i| {
            std::thread::spawn(move || {
                LATE.with(|l| *l.borrow_mut() = Some(AllocatesOnDrop));
                let ((), d) = measure(|| drop(vec![7u8; 1000 * (i as usize + 1)]));
                d.bytes
            })
            .join()
            .unwrap()
        })
        .collect();
    assert_eq!(per_thread, (1..=8).map(|i| 1000 * i).collect::<Vec<u64>>());
    let after = process_totals();
    let grew = after.bytes - before.bytes;
    // Every thread's 1000·i bytes and its 777-byte allocation during teardown are in the
    // process totals, although all eight threads have exited.
    let known: u64 = per_thread.iter().sum::<u64>() + 8 * 777;
    assert!(grew >= known, "grew {grew} < {known}");
    assert!(after.freed - before.freed >= known);
}
