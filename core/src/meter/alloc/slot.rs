//! Allocations of one call site: on one thread ([`AllocSlot`], part of every slot when
//! the meter is compiled) and merged over threads.

use super::AllocReading;
use crate::cell::counters;
use crate::meter::stats::{MergedStats, MeterStats};

counters! {
    /// Allocation counters of one call site on one thread.
    pub struct AllocCounts / AllocCountsMerged {
        /// Allocations, inclusive, outermost calls only (recursion counted once).
        allocs: sum,
        /// Bytes allocated, likewise.
        bytes: sum,
        /// Bytes freed, likewise.
        freed: sum,
        /// Allocations of every call, nested ones included (for per-call means).
        allocs_sum: sum,
        /// Bytes of every call, likewise.
        bytes_sum: sum,
        /// Allocations not made by measured children.
        self_allocs: sum,
        /// Bytes not allocated by measured children.
        self_bytes: sum,
    }
}

/// Allocations of one call site on one thread; the distribution is of the per-call
/// inclusive bytes.
pub(crate) type AllocSlot = MeterStats<AllocCounts>;

impl AllocSlot {
    /// Records one call. Calls that allocated and freed nothing (most measured calls)
    /// only cost the test: the distribution counts them as the difference between the
    /// site's timed calls and its recorded values (see `MeterMerged::finish`).
    #[inline(always)]
    pub(crate) fn record(&self, incl: AllocReading, self_: AllocReading, outer: bool) {
        if incl.allocs | incl.bytes | incl.freed == 0 {
            return;
        }
        let c = &self.c;
        if outer {
            c.allocs.add(incl.allocs);
            c.bytes.add(incl.bytes);
            c.freed.add(incl.freed);
        }
        c.allocs_sum.add(incl.allocs);
        c.bytes_sum.add(incl.bytes);
        c.self_allocs.add(self_.allocs);
        c.self_bytes.add(self_.bytes);
        self.dist.record(incl.bytes);
    }
}

/// Allocations of one call site merged over threads.
pub(crate) type AllocMerged = MergedStats<AllocCountsMerged>;
