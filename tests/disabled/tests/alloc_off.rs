//! Without `hotpath-alloc`, `hotpath::alloc::Tracking` is a plain pass-through global
//! allocator and `measure` counts nothing.

use std::alloc::System;

#[global_allocator]
static A: hotpath::alloc::Tracking<System> = hotpath::alloc::Tracking::new(System);

#[test]
fn tracking_forwards_and_counts_nothing() {
    let (v, d) = hotpath::alloc::measure(|| {
        let mut v: Vec<u64> = Vec::with_capacity(10);
        v.extend(0..1000);
        v
    });
    assert_eq!(v.iter().sum::<u64>(), 499_500);
    assert_eq!(d, hotpath::alloc::AllocDelta::default());
    assert!(!hotpath::alloc::installed());
    assert_eq!(std::mem::size_of::<hotpath::alloc::Tracking<System>>(), 0);
}
