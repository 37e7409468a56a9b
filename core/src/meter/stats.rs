//! What a meter keeps of one call site: its record of counters ([`counters!`]) and the
//! distribution of one per-call value, on one thread ([`MeterStats`]) and merged over
//! threads ([`MergedStats`]). Each meter adds how a call is recorded.
//!
//! [`counters!`]: crate::cell::counters

use crate::cell::CounterRecord;
use crate::dist::{Dist, DistData};

/// One meter's numbers of one call site on one thread.
pub(crate) struct MeterStats<C> {
    pub(crate) c: C,
    /// The per-call value's distribution.
    pub(crate) dist: Dist,
}

impl<C: CounterRecord> MeterStats<C> {
    /// The empty value with counters `c` (all zero bytes, as the meters' `new` are).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) const fn new(c: C) -> Self {
        MeterStats {
            c,
            dist: Dist::new(),
        }
    }

    /// Forgets the numbers (owner only).
    pub(crate) fn clear(&self) {
        self.c.clear();
        self.dist.clear();
    }

    /// Adds these numbers to `m`.
    pub(crate) fn merge_into(&self, m: &mut MergedStats<C::Merged>) {
        self.c.merge_into(&mut m.c);
        self.dist.merge_into(&mut m.dist);
    }
}

/// [`MeterStats`] merged over threads.
#[derive(Clone, Debug, Default)]
pub(crate) struct MergedStats<M> {
    pub(crate) c: M,
    pub(crate) dist: DistData,
}

impl<M> MergedStats<M> {
    /// Completes the distribution once every thread was added: of the `timed` calls,
    /// those it is missing had a value of zero (recording skips them).
    pub(crate) fn add_missing_zeros(&mut self, timed: u64) {
        self.dist
            .add_zeros(timed.saturating_sub(self.dist.hist.count()));
    }
}
