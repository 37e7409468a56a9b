//! CPU numbers of one call site: on one thread ([`CpuSlot`], part of every slot when the
//! meter is compiled) and merged over threads.

use super::clock::{exact, CpuDelta};
use crate::cell::{counters, Cnt};
use crate::meter::stats::{MergedStats, MeterStats};

counters! {
    /// CPU counters of one call site on one thread.
    pub struct CpuCounts / CpuCountsMerged {
        /// Exact mode: CPU time, inclusive, outermost calls only, ns.
        ns: sum,
        /// Exact mode: CPU time not spent in measured children, ns.
        self_ns: sum,
        /// Exact mode: CPU time of every call, nested ones included, ns.
        sum: sum,
        /// Exact mode: voluntary context switches, outermost calls only.
        voluntary: sum,
        /// Exact mode: involuntary context switches, outermost calls only.
        involuntary: sum,
        /// Exact mode: instructions retired.
        instructions: sum,
        /// Exact mode: cycles.
        cycles: sum,
        /// Sampled mode: samples with this site on the stack (written by the signal
        /// handler on the owner thread).
        samples: sum,
        /// Sampled mode: samples with this site on top of the stack.
        self_samples: sum,
    }
}

/// CPU numbers of one call site on one thread.
pub(crate) struct CpuSlot {
    /// Exact mode: the counters and the per-call inclusive CPU time; sampled mode: the
    /// sample counters.
    s: MeterStats<CpuCounts>,
    /// Sampled mode: the last sample counted (a sample counts once per site).
    last_sample: Cnt,
}

impl CpuSlot {
    /// The empty value: all zero bytes, which is how shards allocate chunks of slots
    /// (checked by a test in `shard/mod.rs`).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) const fn new() -> Self {
        CpuSlot {
            s: MeterStats::new(CpuCounts::new()),
            last_sample: Cnt::new(),
        }
    }

    /// Records a call's exact-mode deltas (nothing to do in sampled mode, where they are
    /// zero; a zero-CPU call is counted by `CpuMerged::finish`).
    #[inline(always)]
    pub(crate) fn record(&self, incl: CpuDelta, self_: CpuDelta, outer: bool) {
        if incl.is_zero() {
            return;
        }
        let c = &self.s.c;
        if outer {
            c.ns.add(incl.ns);
            c.voluntary.add(incl.voluntary);
            c.involuntary.add(incl.involuntary);
            c.instructions.add(incl.instructions);
            c.cycles.add(incl.cycles);
        }
        c.sum.add(incl.ns);
        c.self_ns.add(self_.ns);
        self.s.dist.record(incl.ns);
    }

    /// Counts sample `seq` once however many frames of this site are on the stack (the
    /// signal handler on the owner thread, the only writer of the sample counters).
    #[inline]
    pub(crate) fn sampled(&self, seq: u64) {
        if self.last_sample.get() != seq {
            self.last_sample.set(seq);
            self.s.c.samples.add(1);
        }
    }

    pub(crate) fn self_sampled(&self) {
        self.s.c.self_samples.add(1);
    }

    pub(crate) fn clear(&self) {
        self.s.clear();
    }

    pub(crate) fn merge_into(&self, m: &mut CpuMerged) {
        self.s.merge_into(m);
    }
}

/// CPU numbers of one call site merged over threads.
pub(crate) type CpuMerged = MergedStats<CpuCountsMerged>;

impl CpuMerged {
    /// In exact mode, calls missing from the distribution used no measurable CPU.
    pub(crate) fn finish(&mut self, timed: u64) {
        if exact() {
            self.add_missing_zeros(timed);
        }
    }
}
