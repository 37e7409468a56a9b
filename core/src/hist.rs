//! Log-linear histograms: 16 linear sub-buckets per power of two.
//!
//! Values below 16 have a bucket each; above, a value lands in one of 16 equal slices of
//! its power-of-two range, so a reported percentile is within 1/32 (3.1 %) of a value
//! that was recorded, and is then clamped to the exact `[min, max]`. Values of 2^48 and
//! more share the last bucket. 720 counters in 45 groups of 16, each group allocated the
//! first time a value lands in it (a histogram of a call site on a thread is typically
//! under 1 KiB). `hdrhistogram` at a comparable precision takes
//! 34 KiB and cannot be read while its owner writes; [`AtomicHist`] can, because every
//! counter is an atomic with a single writer (a load and a store, no read-modify-write).

use std::sync::atomic::{
    AtomicPtr, AtomicU64,
    Ordering::{Acquire, Relaxed, Release},
};

const SUB_BITS: u32 = 4;
const SUB: usize = 1 << SUB_BITS;
const MAX_EXP: u32 = 48;
/// Number of buckets.
pub const BUCKETS: usize = SUB + (MAX_EXP - SUB_BITS) as usize * SUB;

/// Bucket of a value: `16·e + (v >> e)` with `e = max(msb(v), 4) − 4`, capped. No
/// branch: the per-call path runs it between two `rdtsc`s.
#[inline(always)]
pub fn index(v: u64) -> usize {
    let e = (63 - (v | SUB as u64).leading_zeros()) - SUB_BITS;
    let i = ((e as usize) << SUB_BITS) + (v >> e) as usize;
    i.min(BUCKETS - 1)
}

/// Smallest value of a bucket and its width.
pub fn bucket_range(i: usize) -> (u64, u64) {
    if i < 2 * SUB {
        (i as u64, 1)
    } else {
        let e = (i >> SUB_BITS) as u32 - 1;
        let m = (i & (SUB - 1)) as u64;
        ((SUB as u64 + m) << e, 1u64 << e)
    }
}

/// Groups of [`SUB`] buckets (one power of two each, the first two aside).
const GROUPS: usize = BUCKETS / SUB;

/// The buckets of one power of two.
struct Group([AtomicU64; SUB]);

/// A histogram with one writer and any number of concurrent readers.
///
/// Its buckets come in groups of 16 (one power of two), each allocated the first time a
/// value lands in it: a call site's durations span a few powers of two, so a histogram
/// takes 360 bytes and 128 per group used instead of 5.6 KiB.
pub struct AtomicHist {
    /// Null until a value lands in the group; freed when the histogram is dropped.
    groups: [AtomicPtr<Group>; GROUPS],
}

impl AtomicHist {
    /// An empty histogram on the heap.
    pub fn boxed() -> Box<Self> {
        Box::new(AtomicHist {
            groups: [const { AtomicPtr::new(std::ptr::null_mut()) }; GROUPS],
        })
    }

    /// Counts one value. Only the owning thread may call this.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    pub fn record(&self, v: u64) {
        let i = index(v);
        // `index` is capped at BUCKETS - 1: the bounds check folds away.
        let mut p = self.groups[i >> SUB_BITS].load(Relaxed);
        if p.is_null() {
            p = self.new_group(i >> SUB_BITS);
        }
        // SAFETY: a non-null group pointer came from `Box::into_raw` in `new_group` and
        // is freed only by `drop`; the owner thread stored it.
        let b = unsafe { &(*p).0[i & (SUB - 1)] };
        b.store(b.load(Relaxed).wrapping_add(1), Relaxed);
    }

    /// Counts the value `v` `n` times (a sampled value standing for `n` events). Only
    /// the owning thread may call this.
    pub fn record_n(&self, v: u64, n: u64) {
        let i = index(v);
        let mut p = self.groups[i >> SUB_BITS].load(Relaxed);
        if p.is_null() {
            p = self.new_group(i >> SUB_BITS);
        }
        // SAFETY: as in `record`.
        let b = unsafe { &(*p).0[i & (SUB - 1)] };
        b.store(b.load(Relaxed).wrapping_add(n), Relaxed);
    }

    #[cold]
    #[inline(never)]
    fn new_group(&self, g: usize) -> *mut Group {
        let p = Box::into_raw(crate::internal(|| {
            Box::new(Group([const { AtomicU64::new(0) }; SUB]))
        }));
        self.groups[g].store(p, Release);
        p
    }

    /// The groups a reader on another thread sees, with their index.
    fn groups_for_reader(&self) -> impl Iterator<Item = (usize, &Group)> {
        self.groups.iter().enumerate().filter_map(|(g, p)| {
            let p = p.load(Acquire);
            // SAFETY: as in `record`; the `Acquire` load pairs with the `Release` store in
            // `new_group`, so the group's initialisation is visible.
            (!p.is_null()).then(|| (g, unsafe { &*p }))
        })
    }

    /// Adds this histogram's counts into `into`.
    pub fn merge_into(&self, into: &mut Hist) {
        for (g, group) in self.groups_for_reader() {
            for (k, c) in group.0.iter().enumerate() {
                into.counts[g * SUB + k] += c.load(Relaxed);
            }
        }
    }

    /// Sets every counter to zero. Only the owning thread may call this.
    pub fn clear(&self) {
        for (_, group) in self.groups_for_reader() {
            for c in &group.0 {
                c.store(0, Relaxed);
            }
        }
    }
}

impl Drop for AtomicHist {
    fn drop(&mut self) {
        for p in &mut self.groups {
            let p = std::mem::replace(p.get_mut(), std::ptr::null_mut());
            if !p.is_null() {
                // SAFETY: from `Box::into_raw` in `new_group`; `&mut self` means nothing
                // else reaches it.
                crate::internal(|| drop(unsafe { Box::from_raw(p) }));
            }
        }
    }
}

/// A plain histogram: merged, owned, read by snapshots and reports.
#[derive(Clone, PartialEq, Eq)]
pub struct Hist {
    counts: Box<[u64]>,
}

impl std::fmt::Debug for Hist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hist")
            .field("count", &self.count())
            .finish()
    }
}

impl Default for Hist {
    fn default() -> Self {
        Hist {
            counts: vec![0; BUCKETS].into_boxed_slice(),
        }
    }
}

impl Hist {
    /// Counts one value.
    pub fn record(&mut self, v: u64) {
        self.counts[index(v)] += 1;
    }

    /// Counts `n` equal values.
    pub fn record_n(&mut self, v: u64, n: u64) {
        self.counts[index(v)] += n;
    }

    /// Adds another histogram's counts.
    pub fn merge(&mut self, other: &Hist) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
    }

    /// Number of values counted.
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Non-empty buckets in ascending order: the value a percentile reports for each
    /// (its midpoint) and how many values it holds.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| {
                let (lo, width) = bucket_range(i);
                (lo + width / 2, c)
            })
    }

    /// How many values are at most `bound`, counting a bucket when its midpoint (the
    /// value percentiles report for it) is; within 3.1 % of the exact count's bound.
    pub fn count_at_most(&self, bound: u64) -> u64 {
        let mut n = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            let (lo, width) = bucket_range(i);
            if lo + width / 2 > bound {
                break;
            }
            n += c;
        }
        n
    }

    /// The value at percentile `p` (0..=100), clamped to `[min, max]`.
    ///
    /// `p = 0` is `min` and `p = 100` is `max`, exactly. Otherwise the bucket holding the
    /// value of rank `ceil(p / 100 * count)` is found and its midpoint returned.
    /// Returns `None` for an empty histogram.
    pub fn percentile(&self, p: f64, min: u64, max: u64) -> Option<u64> {
        let n = self.count();
        if n == 0 {
            return None;
        }
        if p <= 0.0 {
            return Some(min);
        }
        if p >= 100.0 {
            return Some(max);
        }
        let rank = ((p / 100.0) * n as f64).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, width) = bucket_range(i);
                return Some((lo + width / 2).clamp(min, max));
            }
        }
        Some(max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_falls_in_a_bucket_that_contains_it() {
        let mut v = 0u64;
        while v < (1u64 << 50) {
            let i = index(v);
            assert!(i < BUCKETS);
            if v < (1u64 << MAX_EXP) {
                let (lo, w) = bucket_range(i);
                assert!(lo <= v && v < lo + w, "v={v} i={i} lo={lo} w={w}");
                // Relative width bound: the midpoint is within 1/32 of any value in the bucket.
                assert!(w == 1 || (w as f64) / (lo as f64) <= 1.0 / 16.0 + 1e-12);
            }
            v = if v < 100 { v + 1 } else { v + v / 7 };
        }
        assert_eq!(index(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn buckets_are_ordered() {
        for i in 1..BUCKETS {
            assert!(bucket_range(i).0 > bucket_range(i - 1).0);
            assert_eq!(
                bucket_range(i).0,
                bucket_range(i - 1).0 + bucket_range(i - 1).1
            );
        }
    }

    #[test]
    fn percentiles_of_a_known_distribution() {
        let mut h = Hist::default();
        for v in 1..=1000u64 {
            h.record(v);
        }
        assert_eq!(h.count(), 1000);
        assert_eq!(h.percentile(0.0, 1, 1000), Some(1));
        assert_eq!(h.percentile(100.0, 1, 1000), Some(1000));
        for p in [10.0, 50.0, 90.0, 99.0, 99.9] {
            let exact = (p / 100.0 * 1000.0f64).ceil();
            let got = h.percentile(p, 1, 1000).unwrap() as f64;
            assert!(
                (got - exact).abs() / exact <= 1.0 / 32.0 + 1e-9,
                "p{p}: {got} vs {exact}"
            );
        }
        // Small values are exact.
        let mut s = Hist::default();
        for v in [3u64, 3, 5, 9] {
            s.record(v);
        }
        assert_eq!(s.percentile(50.0, 3, 9), Some(3));
        assert_eq!(s.percentile(75.0, 3, 9), Some(5));
        assert_eq!(Hist::default().percentile(50.0, 0, 0), None);
    }

    #[test]
    fn percentile_is_clamped_to_min_and_max() {
        let mut h = Hist::default();
        h.record(1000);
        // The bucket midpoint of 1000 is 1008; with one value min = max = 1000.
        assert_eq!(h.percentile(50.0, 1000, 1000), Some(1000));
    }

    #[test]
    fn atomic_and_plain_histograms_agree() {
        let a = AtomicHist::boxed();
        let mut p = Hist::default();
        for v in [0u64, 1, 17, 300, 4096, 1 << 40, u64::MAX] {
            a.record(v);
            p.record(v);
        }
        let mut m = Hist::default();
        a.merge_into(&mut m);
        assert_eq!(m, p);
        a.clear();
        let mut z = Hist::default();
        a.merge_into(&mut z);
        assert_eq!(z.count(), 0);
    }

    #[test]
    fn count_at_most_is_cumulative_and_exact_away_from_bucket_edges() {
        let mut h = Hist::default();
        // 10 values of 5 (a bucket of its own), 20 of 1000, 30 of 1_000_000.
        h.record_n(5, 10);
        h.record_n(1000, 20);
        h.record_n(1_000_000, 30);
        assert_eq!(h.count_at_most(4), 0);
        assert_eq!(h.count_at_most(5), 10);
        assert_eq!(h.count_at_most(900), 10);
        assert_eq!(h.count_at_most(1100), 30);
        assert_eq!(h.count_at_most(900_000), 30);
        assert_eq!(h.count_at_most(1_100_000), 60);
        assert_eq!(h.count_at_most(u64::MAX), 60);
        let mut last = 0;
        for b in (0..40).map(|e| 1u64 << e) {
            let n = h.count_at_most(b);
            assert!(n >= last);
            last = n;
        }
    }
}
