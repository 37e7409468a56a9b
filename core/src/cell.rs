//! Single-writer counters.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// A counter with one writer: relaxed load and store (no read-modify-write), readable
/// from any thread.
#[derive(Default)]
pub(crate) struct Cnt(AtomicU64);

impl Cnt {
    pub(crate) const fn new() -> Self {
        Cnt(AtomicU64::new(0))
    }
    #[inline(always)]
    pub(crate) fn get(&self) -> u64 {
        self.0.load(Relaxed)
    }
    #[inline(always)]
    pub(crate) fn set(&self, v: u64) {
        self.0.store(v, Relaxed)
    }
    #[inline(always)]
    pub(crate) fn add(&self, v: u64) {
        self.set(self.get().wrapping_add(v))
    }
}
