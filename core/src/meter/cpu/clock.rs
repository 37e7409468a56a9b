//! The CPU clock as scopes read it: [`CpuDelta`], the reader of the session's mode
//! ([`set_exact`], [`set_unsampled_reader`]) and the hooks run on each thread
//! ([`set_thread_hooks`]); a shard's total in [`CpuCells`].

use std::sync::atomic::{AtomicPtr, Ordering::Relaxed};

use crate::cell::Cnt;

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

    pub(crate) fn is_zero(&self) -> bool {
        self.ns | self.voluntary | self.involuntary | self.instructions | self.cycles == 0
    }
}

/// Reads the calling thread's CPU clock and counters.
pub type Reader = fn() -> CpuDelta;
/// Called on a thread when it first runs measured code in a session, and when it exits.
pub type ThreadHook = fn();

static READER: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());
/// In sampled mode, what a thread whose samples cannot arrive reads instead (see
/// [`this_thread_unsampled`](super::this_thread_unsampled)).
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
