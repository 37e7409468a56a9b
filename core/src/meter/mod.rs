//! Meters: thread-local counters that only ever increase, read by a scope at entry and
//! exit. The difference is the scope's inclusive value; minus its measured children, its
//! self value. Each meter (allocations, CPU) is a part of the types below, compiled with
//! its feature; without any meter these types are empty and every operation on them
//! compiles to nothing.

#[cfg(feature = "alloc")]
pub mod alloc;
#[cfg(feature = "cpu")]
pub mod cpu;
#[cfg(any(feature = "alloc", feature = "cpu"))]
mod stats;

/// The thread's meters at one instant.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Reading {
    #[cfg(feature = "alloc")]
    alloc: alloc::AllocReading,
    #[cfg(feature = "cpu")]
    cpu: cpu::clock::CpuDelta,
}

#[cfg_attr(not(feature = "cpu"), allow(unused_variables))]
impl Reading {
    /// Reads every compiled meter; the CPU clock only when `exact` (it is a syscall).
    #[inline(always)]
    pub(crate) fn now(exact: bool) -> Reading {
        Reading {
            #[cfg(feature = "alloc")]
            alloc: alloc::reading(),
            #[cfg(feature = "cpu")]
            cpu: if exact {
                cpu::clock::reading()
            } else {
                cpu::clock::CpuDelta::ZERO
            },
        }
    }

    /// What happened since `start` (on the same thread).
    #[inline(always)]
    pub(crate) fn since(self, start: Reading) -> Delta {
        Delta {
            #[cfg(feature = "alloc")]
            alloc: self.alloc.since(start.alloc),
            #[cfg(feature = "cpu")]
            cpu: self.cpu.since(start.cpu),
        }
    }
}

/// What the meters counted over an interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    /// Allocations.
    #[cfg(feature = "alloc")]
    pub alloc: alloc::AllocReading,
    /// CPU time and context switches (exact CPU mode).
    #[cfg(feature = "cpu")]
    pub cpu: cpu::clock::CpuDelta,
}

#[cfg_attr(not(any(feature = "alloc", feature = "cpu")), allow(unused_variables))]
impl Delta {
    /// Nothing counted.
    pub const ZERO: Delta = Delta {
        #[cfg(feature = "alloc")]
        alloc: alloc::AllocReading::ZERO,
        #[cfg(feature = "cpu")]
        cpu: cpu::clock::CpuDelta::ZERO,
    };

    /// CPU time, ns (exact CPU mode; 0 otherwise).
    #[inline(always)]
    pub(crate) fn cpu_ns(&self) -> u64 {
        #[cfg(feature = "cpu")]
        {
            self.cpu.ns
        }
        #[cfg(not(feature = "cpu"))]
        {
            0
        }
    }

    /// Every field `w` times (a sampled call standing for `w` calls).
    #[inline(always)]
    pub(crate) fn times(self, w: u64) -> Delta {
        Delta {
            #[cfg(feature = "alloc")]
            alloc: self.alloc.times(w),
            #[cfg(feature = "cpu")]
            cpu: self.cpu.times(w),
        }
    }

    /// `self + o`, field by field.
    #[inline(always)]
    pub(crate) fn plus(self, o: Delta) -> Delta {
        Delta {
            #[cfg(feature = "alloc")]
            alloc: self.alloc.plus(o.alloc),
            #[cfg(feature = "cpu")]
            cpu: self.cpu.plus(o.cpu),
        }
    }
}

/// A [`Delta`] in single-writer cells: a shard's total inside outermost frames.
pub(crate) struct DeltaCells {
    #[cfg(feature = "alloc")]
    alloc: alloc::AllocCells,
    #[cfg(feature = "cpu")]
    cpu: cpu::clock::CpuCells,
}

#[cfg_attr(not(any(feature = "alloc", feature = "cpu")), allow(unused_variables))]
impl DeltaCells {
    pub(crate) const fn new() -> Self {
        DeltaCells {
            #[cfg(feature = "alloc")]
            alloc: alloc::AllocCells::new(),
            #[cfg(feature = "cpu")]
            cpu: cpu::clock::CpuCells::new(),
        }
    }

    #[inline(always)]
    pub(crate) fn get(&self) -> Delta {
        Delta {
            #[cfg(feature = "alloc")]
            alloc: self.alloc.get(),
            #[cfg(feature = "cpu")]
            cpu: self.cpu.get(),
        }
    }

    #[inline(always)]
    pub(crate) fn set(&self, d: Delta) {
        #[cfg(feature = "alloc")]
        self.alloc.set(d.alloc);
        #[cfg(feature = "cpu")]
        self.cpu.set(d.cpu);
    }

    #[inline(always)]
    pub(crate) fn add(&self, d: Delta) {
        self.set(self.get().plus(d))
    }
}

/// What a frame's measured children counted: only what self values need.
pub(crate) struct ChildCells {
    #[cfg(feature = "alloc")]
    alloc: alloc::AllocChildren,
    #[cfg(feature = "cpu")]
    cpu_ns: crate::cell::Cnt,
}

#[cfg_attr(not(any(feature = "alloc", feature = "cpu")), allow(unused_variables))]
impl ChildCells {
    pub(crate) const fn new() -> Self {
        ChildCells {
            #[cfg(feature = "alloc")]
            alloc: alloc::AllocChildren::new(),
            #[cfg(feature = "cpu")]
            cpu_ns: crate::cell::Cnt::new(),
        }
    }

    #[inline(always)]
    pub(crate) fn clear(&self) {
        #[cfg(feature = "alloc")]
        self.alloc.clear();
        #[cfg(feature = "cpu")]
        self.cpu_ns.set(0);
    }

    /// Adds a child's inclusive delta.
    #[inline(always)]
    pub(crate) fn add(&self, d: Delta) {
        #[cfg(feature = "alloc")]
        self.alloc.add(d.alloc);
        #[cfg(feature = "cpu")]
        self.cpu_ns.add(d.cpu.ns);
    }

    /// The self part of `incl`, given these children (only the fields reported as self).
    #[inline(always)]
    pub(crate) fn self_of(&self, incl: Delta) -> Delta {
        Delta {
            #[cfg(feature = "alloc")]
            alloc: self.alloc.self_of(incl.alloc),
            #[cfg(feature = "cpu")]
            cpu: cpu::clock::CpuDelta {
                ns: incl.cpu.ns.saturating_sub(self.cpu_ns.get()),
                ..cpu::clock::CpuDelta::ZERO
            },
        }
    }
}

/// What the meters counted in one call site's calls on one thread.
pub(crate) struct MeterSlot {
    #[cfg(feature = "alloc")]
    pub(crate) alloc: alloc::slot::AllocSlot,
    #[cfg(feature = "cpu")]
    pub(crate) cpu: cpu::slot::CpuSlot,
}

#[cfg_attr(not(any(feature = "alloc", feature = "cpu")), allow(unused_variables))]
impl MeterSlot {
    /// The empty value: all zero bytes, which is how shards allocate chunks of slots
    /// (checked by a test in `shard/mod.rs`).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) const fn new() -> Self {
        MeterSlot {
            #[cfg(feature = "alloc")]
            alloc: alloc::slot::AllocSlot::new(alloc::slot::AllocCounts::new()),
            #[cfg(feature = "cpu")]
            cpu: cpu::slot::CpuSlot::new(),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    pub(crate) fn record(&self, incl: Delta, self_: Delta, outer: bool) {
        #[cfg(feature = "alloc")]
        self.alloc.record(incl.alloc, self_.alloc, outer);
        #[cfg(feature = "cpu")]
        self.cpu.record(incl.cpu, self_.cpu, outer);
    }

    pub(crate) fn clear(&self) {
        #[cfg(feature = "alloc")]
        self.alloc.clear();
        #[cfg(feature = "cpu")]
        self.cpu.clear();
    }

    pub(crate) fn merge_into(&self, m: &mut MeterMerged) {
        #[cfg(feature = "alloc")]
        self.alloc.merge_into(&mut m.alloc);
        #[cfg(feature = "cpu")]
        self.cpu.merge_into(&mut m.cpu);
    }
}

/// [`MeterSlot`]s merged over threads.
#[derive(Clone, Debug, Default)]
pub(crate) struct MeterMerged {
    #[cfg(feature = "alloc")]
    pub(crate) alloc: alloc::slot::AllocMerged,
    #[cfg(feature = "cpu")]
    pub(crate) cpu: cpu::slot::CpuMerged,
}

impl MeterMerged {
    /// Completes the merge once every thread was added: `timed` calls were recorded in
    /// all, so those missing from a distribution had a value of zero.
    #[cfg_attr(not(any(feature = "alloc", feature = "cpu")), allow(unused_variables))]
    pub(crate) fn finish(&mut self, timed: u64) {
        #[cfg(feature = "alloc")]
        self.alloc.add_missing_zeros(timed);
        #[cfg(feature = "cpu")]
        self.cpu.finish(timed);
    }
}
