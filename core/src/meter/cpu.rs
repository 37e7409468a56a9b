//! CPU meter: how much of a function's wall time was spent on a CPU.
//!
//! Two ways to know it, chosen per session by the `hotpath-cpu` crate:
//!
//! * **exact**: the thread CPU clock (and context-switch counts) are read at every scope
//!   entry and exit through the [`Reader`] registered with [`set_exact`]: per-call CPU
//!   time and percentiles, at the cost of the reads (syscalls);
//! * **sampled**: a per-thread CPU-time signal calls [`crate::credit_cpu_sample`], which
//!   credits one sampling period to every distinct function on the interrupted thread's
//!   scope stack (inclusive) and to the one on top (self): `CpuSlot::sampled` and
//!   `CpuSlot::self_sampled`. Nothing is added to the per-call path.
//!
//! This module holds the meter's values and hooks only: the thread's shard, its stack
//! and the signal handler's entry point are the registry's.

use std::sync::atomic::{AtomicPtr, Ordering::Relaxed};

use crate::cell::{counters, Cnt};
use crate::dist::{Dist, DistData};

/// CPU time and counters of a thread at an instant, or over an interval (exact mode).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuDelta {
    /// Thread CPU time, ns.
    pub ns: u64,
    /// Voluntary context switches (the thread blocked).
    pub voluntary: u64,
    /// Involuntary context switches (the thread was preempted).
    pub involuntary: u64,
    /// Instructions retired (0 without a PMU).
    pub instructions: u64,
    /// CPU cycles (0 without a PMU).
    pub cycles: u64,
}

impl CpuDelta {
    /// Nothing.
    pub const ZERO: CpuDelta = CpuDelta {
        ns: 0,
        voluntary: 0,
        involuntary: 0,
        instructions: 0,
        cycles: 0,
    };

    #[inline(always)]
    pub(crate) fn since(self, s: CpuDelta) -> CpuDelta {
        CpuDelta {
            ns: self.ns.wrapping_sub(s.ns),
            voluntary: self.voluntary.wrapping_sub(s.voluntary),
            involuntary: self.involuntary.wrapping_sub(s.involuntary),
            instructions: self.instructions.wrapping_sub(s.instructions),
            cycles: self.cycles.wrapping_sub(s.cycles),
        }
    }

    #[inline(always)]
    pub(crate) fn plus(self, o: CpuDelta) -> CpuDelta {
        CpuDelta {
            ns: self.ns.wrapping_add(o.ns),
            voluntary: self.voluntary.wrapping_add(o.voluntary),
            involuntary: self.involuntary.wrapping_add(o.involuntary),
            instructions: self.instructions.wrapping_add(o.instructions),
            cycles: self.cycles.wrapping_add(o.cycles),
        }
    }

    /// Every field `w` times (a sampled call standing for `w` calls).
    #[inline(always)]
    pub(crate) fn times(self, w: u64) -> CpuDelta {
        CpuDelta {
            ns: self.ns.wrapping_mul(w),
            voluntary: self.voluntary.wrapping_mul(w),
            involuntary: self.involuntary.wrapping_mul(w),
            instructions: self.instructions.wrapping_mul(w),
            cycles: self.cycles.wrapping_mul(w),
        }
    }

    fn is_zero(&self) -> bool {
        self.ns | self.voluntary | self.involuntary | self.instructions | self.cycles == 0
    }
}

/// Reads the calling thread's CPU clock and counters.
pub type Reader = fn() -> CpuDelta;
/// Called on a thread when it first runs measured code in a session, and when it exits.
pub type ThreadHook = fn();

static READER: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());
/// In sampled mode, what a thread whose samples cannot arrive reads instead (see
/// [`this_thread_unsampled`]).
static UNSAMPLED: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());
static ON_START: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());
static ON_EXIT: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());

/// Exact mode with `reader`, or back to sampled (or no CPU) mode with `None`.
pub fn set_exact(reader: Option<Reader>) {
    READER.store(
        reader.map_or(std::ptr::null_mut(), |f| f as *mut ()),
        Relaxed,
    );
    crate::state::set_exact_cpu(reader.is_some());
}

/// Whether scopes read the CPU clock.
pub fn exact() -> bool {
    crate::state::exact_cpu()
}

/// The reader of the threads that cannot be sampled (sampled mode), or `None`.
pub fn set_unsampled_reader(reader: Option<Reader>) {
    UNSAMPLED.store(
        reader.map_or(std::ptr::null_mut(), |f| f as *mut ()),
        Relaxed,
    );
}

/// The calling thread cannot be sampled (it blocks the sampling signal): until the next
/// session its measured scopes read the CPU clock at entry and exit, with the reader of
/// [`set_unsampled_reader`], as in exact mode. Called by the thread-start hook.
pub fn this_thread_unsampled() {
    if let Some(shard) = crate::registry::current_raw() {
        shard.read_cpu_clock();
    }
}

#[inline]
pub(crate) fn reading() -> CpuDelta {
    let mut p = READER.load(Relaxed);
    if p.is_null() {
        // Sampled mode: only the scopes of a thread that cannot be sampled read one.
        p = UNSAMPLED.load(Relaxed);
    }
    if p.is_null() {
        return CpuDelta::ZERO;
    }
    // SAFETY: `READER` and `UNSAMPLED` only ever hold null or a `Reader`, stored by
    // `set_exact` and `set_unsampled_reader`.
    let f: Reader = unsafe { std::mem::transmute::<*mut (), Reader>(p) };
    f()
}

/// Hooks run on each thread that runs measured code: `start` once per session (before
/// its first measured call is timed), `exit` when the thread exits.
pub fn set_thread_hooks(start: Option<ThreadHook>, exit: Option<ThreadHook>) {
    ON_START.store(
        start.map_or(std::ptr::null_mut(), |f| f as *mut ()),
        Relaxed,
    );
    ON_EXIT.store(exit.map_or(std::ptr::null_mut(), |f| f as *mut ()), Relaxed);
}

fn call(hook: &AtomicPtr<()>) {
    let p = hook.load(Relaxed);
    if !p.is_null() {
        // SAFETY: the hook pointers only ever hold null or a `ThreadHook`.
        let f: ThreadHook = unsafe { std::mem::transmute::<*mut (), ThreadHook>(p) };
        f();
    }
}

pub(crate) fn thread_started() {
    call(&ON_START);
}

pub(crate) fn thread_exiting() {
    call(&ON_EXIT);
}

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
    c: CpuCounts,
    /// Exact mode: per-call inclusive CPU time.
    dist: Dist,
    /// Sampled mode: the last sample counted (a sample counts once per site).
    last_sample: Cnt,
}

impl CpuSlot {
    /// The empty value: all zero bytes, which is how shards allocate chunks of slots
    /// (checked by a test in `shard/mod.rs`).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) const fn new() -> Self {
        CpuSlot {
            c: CpuCounts::new(),
            dist: Dist::new(),
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
        let c = &self.c;
        if outer {
            c.ns.add(incl.ns);
            c.voluntary.add(incl.voluntary);
            c.involuntary.add(incl.involuntary);
            c.instructions.add(incl.instructions);
            c.cycles.add(incl.cycles);
        }
        c.sum.add(incl.ns);
        c.self_ns.add(self_.ns);
        self.dist.record(incl.ns);
    }

    /// Counts sample `seq` once however many frames of this site are on the stack (the
    /// signal handler on the owner thread, the only writer of the sample counters).
    #[inline]
    pub(crate) fn sampled(&self, seq: u64) {
        if self.last_sample.get() != seq {
            self.last_sample.set(seq);
            self.c.samples.add(1);
        }
    }

    pub(crate) fn self_sampled(&self) {
        self.c.self_samples.add(1);
    }

    pub(crate) fn clear(&self) {
        self.c.clear();
        self.dist.clear();
    }

    pub(crate) fn merge_into(&self, m: &mut CpuMerged) {
        self.c.merge_into(&mut m.c);
        self.dist.merge_into(&mut m.dist);
    }
}

/// CPU numbers of one call site merged over threads.
#[derive(Clone, Debug, Default)]
pub(crate) struct CpuMerged {
    pub(crate) c: CpuCountsMerged,
    pub(crate) dist: DistData,
}

impl CpuMerged {
    /// In exact mode, calls missing from the distribution used no measurable CPU.
    pub(crate) fn finish(&mut self, timed: u64) {
        if exact() {
            self.dist
                .add_zeros(timed.saturating_sub(self.dist.hist.count()));
        }
    }
}

/// A [`CpuDelta`] in single-writer cells (only the CPU time is kept per shard).
pub(crate) struct CpuCells {
    ns: Cnt,
}

impl CpuCells {
    pub(crate) const fn new() -> Self {
        CpuCells { ns: Cnt::new() }
    }
    #[inline(always)]
    pub(crate) fn get(&self) -> CpuDelta {
        CpuDelta {
            ns: self.ns.get(),
            ..CpuDelta::ZERO
        }
    }
    #[inline(always)]
    pub(crate) fn set(&self, d: CpuDelta) {
        self.ns.set(d.ns);
    }
}
