//! Meters: thread-local counters that only ever increase, read by a scope at entry and
//! exit. The difference is the scope's inclusive value; minus its measured children, its
//! self value. Without a meter feature these types are empty and every operation on them
//! compiles to nothing.

#[cfg(feature = "alloc")]
pub mod alloc;

#[cfg(feature = "alloc")]
use crate::cell::Cnt;

/// The thread's meters at one instant.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Reading {
    #[cfg(feature = "alloc")]
    allocs: u64,
    #[cfg(feature = "alloc")]
    bytes: u64,
    #[cfg(feature = "alloc")]
    freed: u64,
}

impl Reading {
    #[inline(always)]
    pub(crate) fn now() -> Reading {
        #[cfg(feature = "alloc")]
        {
            let (allocs, bytes, freed) = alloc::thread_reading();
            Reading {
                allocs,
                bytes,
                freed,
            }
        }
        #[cfg(not(feature = "alloc"))]
        Reading {}
    }

    /// What happened since `start` (on the same thread).
    #[inline(always)]
    #[cfg_attr(not(feature = "alloc"), allow(unused_variables))]
    pub(crate) fn since(self, start: Reading) -> Delta {
        Delta {
            #[cfg(feature = "alloc")]
            allocs: self.allocs.wrapping_sub(start.allocs),
            #[cfg(feature = "alloc")]
            bytes: self.bytes.wrapping_sub(start.bytes),
            #[cfg(feature = "alloc")]
            freed: self.freed.wrapping_sub(start.freed),
        }
    }
}

/// What the meters counted over an interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    /// Allocations.
    #[cfg(feature = "alloc")]
    pub allocs: u64,
    /// Bytes allocated.
    #[cfg(feature = "alloc")]
    pub bytes: u64,
    /// Bytes freed.
    #[cfg(feature = "alloc")]
    pub freed: u64,
}

impl Delta {
    /// Nothing counted.
    pub const ZERO: Delta = Delta {
        #[cfg(feature = "alloc")]
        allocs: 0,
        #[cfg(feature = "alloc")]
        bytes: 0,
        #[cfg(feature = "alloc")]
        freed: 0,
    };

    /// `self + o`, field by field.
    #[inline(always)]
    #[cfg_attr(not(feature = "alloc"), allow(unused_variables))]
    pub(crate) fn plus(self, o: Delta) -> Delta {
        Delta {
            #[cfg(feature = "alloc")]
            allocs: self.allocs.wrapping_add(o.allocs),
            #[cfg(feature = "alloc")]
            bytes: self.bytes.wrapping_add(o.bytes),
            #[cfg(feature = "alloc")]
            freed: self.freed.wrapping_add(o.freed),
        }
    }
}

/// A [`Delta`] in single-writer cells (a frame's children, a shard's top-level total).
pub(crate) struct DeltaCells {
    #[cfg(feature = "alloc")]
    allocs: Cnt,
    #[cfg(feature = "alloc")]
    bytes: Cnt,
    #[cfg(feature = "alloc")]
    freed: Cnt,
}

#[cfg_attr(not(feature = "alloc"), allow(unused_variables))]
impl DeltaCells {
    pub(crate) const fn new() -> Self {
        DeltaCells {
            #[cfg(feature = "alloc")]
            allocs: Cnt::new(),
            #[cfg(feature = "alloc")]
            bytes: Cnt::new(),
            #[cfg(feature = "alloc")]
            freed: Cnt::new(),
        }
    }

    #[inline(always)]
    pub(crate) fn get(&self) -> Delta {
        Delta {
            #[cfg(feature = "alloc")]
            allocs: self.allocs.get(),
            #[cfg(feature = "alloc")]
            bytes: self.bytes.get(),
            #[cfg(feature = "alloc")]
            freed: self.freed.get(),
        }
    }

    #[inline(always)]
    pub(crate) fn set(&self, d: Delta) {
        #[cfg(feature = "alloc")]
        {
            self.allocs.set(d.allocs);
            self.bytes.set(d.bytes);
            self.freed.set(d.freed);
        }
    }

    #[inline(always)]
    pub(crate) fn add(&self, d: Delta) {
        self.set(self.get().plus(d))
    }

    /// Whether the cells hold anything (all-zero when no meter is compiled).
    #[allow(dead_code)]
    pub(crate) fn is_zero(&self) -> bool {
        self.get() == Delta::default()
    }
}

/// What a frame's measured children counted: only what self values need (allocations and
/// bytes; freed bytes are reported inclusive only).
pub(crate) struct ChildCells {
    #[cfg(feature = "alloc")]
    allocs: Cnt,
    #[cfg(feature = "alloc")]
    bytes: Cnt,
}

#[cfg_attr(not(feature = "alloc"), allow(unused_variables))]
impl ChildCells {
    pub(crate) const fn new() -> Self {
        ChildCells {
            #[cfg(feature = "alloc")]
            allocs: Cnt::new(),
            #[cfg(feature = "alloc")]
            bytes: Cnt::new(),
        }
    }

    #[inline(always)]
    pub(crate) fn clear(&self) {
        #[cfg(feature = "alloc")]
        {
            self.allocs.set(0);
            self.bytes.set(0);
        }
    }

    /// Adds a child's inclusive delta.
    #[inline(always)]
    pub(crate) fn add(&self, d: Delta) {
        #[cfg(feature = "alloc")]
        {
            self.allocs.add(d.allocs);
            self.bytes.add(d.bytes);
        }
    }

    /// The self part of `incl`, given these children (freed bytes have no self value).
    #[inline(always)]
    pub(crate) fn self_of(&self, incl: Delta) -> Delta {
        Delta {
            #[cfg(feature = "alloc")]
            allocs: incl.allocs.saturating_sub(self.allocs.get()),
            #[cfg(feature = "alloc")]
            bytes: incl.bytes.saturating_sub(self.bytes.get()),
            #[cfg(feature = "alloc")]
            freed: 0,
        }
    }
}

/// What the meters counted in one call site's calls on one thread.
pub(crate) struct MeterSlot {
    #[cfg(feature = "alloc")]
    alloc: AllocSlot,
}

#[cfg_attr(not(feature = "alloc"), allow(unused_variables))]
impl MeterSlot {
    pub(crate) const fn new() -> Self {
        MeterSlot {
            #[cfg(feature = "alloc")]
            alloc: AllocSlot::new(),
        }
    }

    #[inline(always)]
    pub(crate) fn record(&self, incl: Delta, self_: Delta, outer: bool) {
        #[cfg(feature = "alloc")]
        self.alloc.record(incl, self_, outer);
    }

    pub(crate) fn clear(&self) {
        #[cfg(feature = "alloc")]
        self.alloc.clear();
    }

    pub(crate) fn merge_into(&self, m: &mut MeterMerged) {
        #[cfg(feature = "alloc")]
        self.alloc.merge_into(&mut m.alloc);
    }
}

/// [`MeterSlot`]s merged over threads.
#[derive(Clone, Debug, Default)]
pub(crate) struct MeterMerged {
    #[cfg(feature = "alloc")]
    pub(crate) alloc: AllocMerged,
}

impl MeterMerged {
    /// Completes the merge once every thread was added: `timed` calls were recorded in
    /// all, so those missing from a distribution had a value of zero.
    #[cfg_attr(not(feature = "alloc"), allow(unused_variables))]
    pub(crate) fn finish(&mut self, timed: u64) {
        #[cfg(feature = "alloc")]
        self.alloc
            .bytes_dist
            .add_zeros(timed.saturating_sub(self.alloc.bytes_dist.hist.count()));
    }
}

/// Allocations of one call site on one thread.
#[cfg(feature = "alloc")]
struct AllocSlot {
    /// Inclusive, outermost calls only (recursion counted once).
    allocs: Cnt,
    bytes: Cnt,
    freed: Cnt,
    /// Inclusive, every call (for per-call means).
    allocs_sum: Cnt,
    bytes_sum: Cnt,
    /// Exclusive of measured children.
    self_allocs: Cnt,
    self_bytes: Cnt,
    /// Per-call inclusive bytes.
    bytes_dist: crate::dist::Dist,
}

#[cfg(feature = "alloc")]
impl AllocSlot {
    const fn new() -> Self {
        AllocSlot {
            allocs: Cnt::new(),
            bytes: Cnt::new(),
            freed: Cnt::new(),
            allocs_sum: Cnt::new(),
            bytes_sum: Cnt::new(),
            self_allocs: Cnt::new(),
            self_bytes: Cnt::new(),
            bytes_dist: crate::dist::Dist::new(),
        }
    }

    /// Records one call. Calls that allocated and freed nothing (most measured calls)
    /// only cost the test: the distribution counts them as the difference between the
    /// site's timed calls and its recorded values (see [`MeterMerged::finish`]).
    #[inline(always)]
    fn record(&self, incl: Delta, self_: Delta, outer: bool) {
        if incl.allocs | incl.bytes | incl.freed == 0 {
            return;
        }
        if outer {
            self.allocs.add(incl.allocs);
            self.bytes.add(incl.bytes);
            self.freed.add(incl.freed);
        }
        self.allocs_sum.add(incl.allocs);
        self.bytes_sum.add(incl.bytes);
        self.self_allocs.add(self_.allocs);
        self.self_bytes.add(self_.bytes);
        self.bytes_dist.record(incl.bytes);
    }

    fn clear(&self) {
        for c in [
            &self.allocs,
            &self.bytes,
            &self.freed,
            &self.allocs_sum,
            &self.bytes_sum,
            &self.self_allocs,
            &self.self_bytes,
        ] {
            c.set(0);
        }
        self.bytes_dist.clear();
    }

    fn merge_into(&self, m: &mut AllocMerged) {
        m.allocs += self.allocs.get();
        m.bytes += self.bytes.get();
        m.freed += self.freed.get();
        m.allocs_sum += self.allocs_sum.get();
        m.bytes_sum += self.bytes_sum.get();
        m.self_allocs += self.self_allocs.get();
        m.self_bytes += self.self_bytes.get();
        self.bytes_dist.merge_into(&mut m.bytes_dist);
    }
}

/// Allocations of one call site merged over threads.
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, Default)]
pub(crate) struct AllocMerged {
    pub(crate) allocs: u64,
    pub(crate) bytes: u64,
    pub(crate) freed: u64,
    pub(crate) allocs_sum: u64,
    pub(crate) bytes_sum: u64,
    pub(crate) self_allocs: u64,
    pub(crate) self_bytes: u64,
    pub(crate) bytes_dist: crate::dist::DistData,
}
