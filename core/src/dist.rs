//! Distributions of per-call values (durations, bytes): min, max and a histogram, with
//! one writer and concurrent readers.

use std::sync::atomic::{
    AtomicPtr,
    Ordering::{Acquire, Relaxed, Release},
};

use crate::cell::Cnt;
use crate::hist::{AtomicHist, Hist};

/// A distribution written by one thread.
///
/// Values are recorded one call late: `record` stores the new value in `pending` and
/// distributes the previous one. Distributing right after a clock read puts a chain of
/// dependent instructions (bucket index, load, store) behind the `rdtsc` result, which
/// costs ~5 ns a call on this class of CPU; the late value has no such dependency.
/// Readers count `pending` as recorded.
pub(crate) struct Dist {
    /// The last value plus one (0: none).
    pending: Cnt,
    /// Bitwise NOT of the minimum, so that zero means "none yet".
    min_inv: Cnt,
    max: Cnt,
    /// Allocated on first use (null until then), freed with the distribution (when a
    /// retired shard releases its chunks).
    hist: AtomicPtr<AtomicHist>,
}

impl Drop for Dist {
    fn drop(&mut self) {
        let p = std::mem::replace(self.hist.get_mut(), std::ptr::null_mut());
        if !p.is_null() {
            // SAFETY: a non-null `hist` came from `Box::into_raw` in `new_hist`; `&mut
            // self` means nothing else can reach it now.
            crate::internal(|| drop(unsafe { Box::from_raw(p) }));
        }
    }
}

impl Dist {
    /// The empty value: all zero bytes, which is how shards allocate chunks of slots
    /// (checked by a test in `shard/mod.rs`).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) const fn new() -> Self {
        Dist {
            pending: Cnt::new(),
            min_inv: Cnt::new(),
            max: Cnt::new(),
            hist: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// Records one value. Only the owning thread may call this.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    pub(crate) fn record(&self, v: u64) {
        let prev = self.pending.get();
        self.pending.set(v.wrapping_add(1));
        if prev != 0 {
            self.distribute(prev - 1);
        }
    }

    /// Records the value `v` standing for `n` values (a sampled event's weight; `n` 1
    /// is [`Dist::record`]). Only the owning thread may call this.
    #[inline]
    pub(crate) fn record_n(&self, v: u64, n: u64) {
        if n == 1 {
            return self.record(v);
        }
        if !v > self.min_inv.get() {
            self.min_inv.set(!v);
        }
        if v > self.max.get() {
            self.max.set(v);
        }
        self.hist().record_n(v, n);
    }

    #[inline(always)]
    fn distribute(&self, v: u64) {
        if !v > self.min_inv.get() {
            self.min_inv.set(!v);
        }
        if v > self.max.get() {
            self.max.set(v);
        }
        self.hist().record(v);
    }

    #[inline(always)]
    fn hist(&self) -> &AtomicHist {
        let p = self.hist.load(Relaxed);
        if p.is_null() {
            return self.new_hist();
        }
        // SAFETY: a non-null `hist` came from `Box::into_raw` in `new_hist` and is
        // freed only when the distribution is dropped (its shard retired, no owner). The
        // owner thread stored it, so a relaxed load sees the initialised histogram.
        unsafe { &*p }
    }

    #[cold]
    #[inline(never)]
    fn new_hist(&self) -> &AtomicHist {
        let h = Box::into_raw(crate::internal(AtomicHist::boxed));
        self.hist.store(h, Release);
        // SAFETY: just allocated; freed only when `self` is dropped.
        unsafe { &*h }
    }

    /// The histogram as a reader on another thread sees it.
    fn hist_for_reader(&self) -> Option<&AtomicHist> {
        let p = self.hist.load(Acquire);
        // SAFETY: as in `hist`; the `Acquire` load pairs with the `Release` store in
        // `new_hist`, so the histogram's initialisation is visible here.
        (!p.is_null()).then(|| unsafe { &*p })
    }

    /// Forgets every value. Only the owning thread may call this.
    pub(crate) fn clear(&self) {
        self.pending.set(0);
        self.min_inv.set(0);
        self.max.set(0);
        if let Some(h) = self.hist_for_reader() {
            h.clear();
        }
    }

    /// Adds this distribution to `m`.
    pub(crate) fn merge_into(&self, m: &mut DistData) {
        m.min = m.min.min(!self.min_inv.get());
        m.max = m.max.max(self.max.get());
        let pending = self.pending.get();
        if pending != 0 {
            m.min = m.min.min(pending - 1);
            m.max = m.max.max(pending - 1);
            m.hist.record(pending - 1);
        }
        if let Some(h) = self.hist_for_reader() {
            h.merge_into(&mut m.hist);
        }
    }
}

/// A merged distribution.
#[derive(Clone, Debug)]
pub(crate) struct DistData {
    /// `u64::MAX` when empty.
    pub(crate) min: u64,
    pub(crate) max: u64,
    pub(crate) hist: Hist,
}

impl Default for DistData {
    fn default() -> Self {
        DistData {
            min: u64::MAX,
            max: 0,
            hist: Hist::default(),
        }
    }
}

impl DistData {
    /// The value at percentile `p`, clamped to `[min, max]`; `None` when empty.
    pub(crate) fn percentile(&self, p: f64) -> Option<u64> {
        self.hist.percentile(p, self.min, self.max)
    }

    /// Counts `n` values of zero.
    pub(crate) fn add_zeros(&mut self, n: u64) {
        if n > 0 {
            self.min = 0;
            self.hist.record_n(0, n);
        }
    }

    /// `(min, max)`, or `(0, 0)` when empty.
    pub(crate) fn range(&self) -> (u64, u64) {
        if self.hist.count() == 0 {
            (0, 0)
        } else {
            (self.min, self.max)
        }
    }
}
