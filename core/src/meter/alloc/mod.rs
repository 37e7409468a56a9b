//! Allocation meter, the part scopes need: each thread's counters (which the tracking
//! allocator in `hotpath-alloc` bumps) and their reading at scope entry and exit; the
//! per-call-site statistics are in `slot`. The registry of threads' counters, their
//! retirement at thread exit and the process totals live in `hotpath-alloc`.
//!
//! # Safety invariants
//!
//! * [`Counters`] are const-initialised and `Drop`-free, so the allocator hook can touch
//!   them ([`with_counters`]) in any thread, before `main`, and while thread-locals are
//!   being destroyed; nothing here allocates or locks.
//! * A thread's counters are written only by that thread (relaxed load and store).
//!   Other threads read them only through a pointer `hotpath-alloc` registered, and only
//!   under its lock, which the thread takes before its counters go away.

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

pub(crate) mod slot;

/// Bit 0 of [`Counters::mode`]: registered, counting. Higher bits: depth of profiler
/// bookkeeping in progress (not counted), in steps of [`IGNORE`].
pub const COUNTING: u32 = 1;
/// One level of profiler bookkeeping in [`Counters::mode`].
pub const IGNORE: u32 = 2;
/// Bit 0 of the count words: count inline.
const FAST: u64 = 1;

/// One thread's allocation counters.
///
/// `allocs` and `frees` hold `count << 1 | FAST`: bit 0 is set exactly when `mode` is
/// [`COUNTING`], so the hook's one load both reads the count and picks the path.
pub struct Counters {
    allocs: AtomicU64,
    bytes: AtomicU64,
    frees: AtomicU64,
    freed: AtomicU64,
    /// [`COUNTING`] when registered and not inside profiler bookkeeping: the only value
    /// for which the hook counts inline.
    mode: AtomicU32,
    /// Not registered because no registry slot was free (owner thread only).
    overflow: Cell<bool>,
    /// Linux thread id, for the threads section.
    tid: AtomicU64,
}

// SAFETY: `overflow` is a `Cell` read and written only by the owning thread (inside the
// hook); other threads only touch the atomics.
unsafe impl Sync for Counters {}

impl std::fmt::Debug for Counters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counters")
            .field("totals", &self.totals())
            .finish()
    }
}

impl Counters {
    const fn new() -> Self {
        Counters {
            allocs: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            frees: AtomicU64::new(0),
            freed: AtomicU64::new(0),
            mode: AtomicU32::new(0),
            overflow: Cell::new(false),
            tid: AtomicU64::new(0),
        }
    }

    /// Counts one allocation of `size` bytes inline when counting; `false` when the
    /// caller must take the slow path (not registered, ignoring, or overflowed).
    #[inline(always)]
    pub fn count_alloc(&self, size: u64) -> bool {
        count_inline(&self.allocs, &self.bytes, size)
    }

    /// Counts one deallocation inline when counting (see [`Counters::count_alloc`]).
    #[inline(always)]
    pub fn count_free(&self, size: u64) -> bool {
        count_inline(&self.frees, &self.freed, size)
    }

    /// Counts one allocation (or, with `free`, deallocation) whatever the mode: the slow
    /// path, once it decided this thread counts (owner thread only).
    pub fn count_always(&self, free: bool, size: u64) {
        let (n, b) = if free {
            (&self.frees, &self.freed)
        } else {
            (&self.allocs, &self.bytes)
        };
        n.store(n.load(Relaxed).wrapping_add(2), Relaxed);
        b.store(b.load(Relaxed).wrapping_add(size), Relaxed);
    }

    /// `[allocations, bytes, deallocations, bytes freed]` so far.
    pub fn totals(&self) -> [u64; 4] {
        [
            self.allocs.load(Relaxed) >> 1,
            self.bytes.load(Relaxed),
            self.frees.load(Relaxed) >> 1,
            self.freed.load(Relaxed),
        ]
    }

    /// Sets every count to zero, keeping the mode (the thread is being retired).
    pub fn reset(&self) {
        for w in [&self.allocs, &self.frees] {
            w.store(w.load(Relaxed) & FAST, Relaxed);
        }
        for a in [&self.bytes, &self.freed] {
            a.store(0, Relaxed);
        }
    }

    /// The mode: [`COUNTING`] plus [`IGNORE`] per level of profiler bookkeeping.
    pub fn mode(&self) -> u32 {
        self.mode.load(Relaxed)
    }

    /// Sets the mode and the fast bit of the count words to match it (owner only).
    pub fn set_mode(&self, mode: u32) {
        self.mode.store(mode, Relaxed);
        let fast = u64::from(mode == COUNTING);
        for w in [&self.allocs, &self.frees] {
            w.store((w.load(Relaxed) & !FAST) | fast, Relaxed);
        }
    }

    /// Whether this thread counts into the shared overflow totals (owner only).
    pub fn overflowed(&self) -> bool {
        self.overflow.get()
    }

    /// Marks this thread as counting into the shared overflow totals (owner only).
    pub fn set_overflowed(&self) {
        self.overflow.set(true);
    }

    /// The thread id recorded at registration.
    pub fn tid(&self) -> u64 {
        self.tid.load(Relaxed)
    }

    /// Records the thread id (owner only, at registration).
    pub fn set_tid(&self, tid: u64) {
        self.tid.store(tid, Relaxed);
    }
}

thread_local! {
    static COUNTERS: Counters = const { Counters::new() };
}

/// Runs `f` on the calling thread's counters; `None` once its thread-locals are gone
/// (there is nothing left to count then). Never allocates: safe in the allocator hook.
#[inline(always)]
pub fn with_counters<R>(f: impl FnOnce(&Counters) -> R) -> Option<R> {
    COUNTERS.try_with(f).ok()
}

/// This thread's allocations, bytes and freed bytes now (what scopes read).
#[inline(always)]
fn thread_reading() -> (u64, u64, u64) {
    COUNTERS
        .try_with(|c| {
            (
                c.allocs.load(Relaxed) >> 1,
                c.bytes.load(Relaxed),
                c.freed.load(Relaxed),
            )
        })
        .unwrap_or_default()
}

/// Runs `f` without counting its allocations (profiler bookkeeping).
#[inline]
pub fn ignored<R>(f: impl FnOnce() -> R) -> R {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = COUNTERS.try_with(|c| c.set_mode(c.mode() - IGNORE));
        }
    }
    let _ = COUNTERS.try_with(|c| c.set_mode(c.mode() + IGNORE));
    let _r = Restore;
    f()
}

// ---------------------------------------------------------------------------------------
// Per-scope values: readings and deltas.

use crate::cell::Cnt;

/// Allocations, bytes and freed bytes of a thread at an instant, or over an interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocReading {
    /// Allocations.
    pub allocs: u64,
    /// Bytes allocated.
    pub bytes: u64,
    /// Bytes freed.
    pub freed: u64,
}

impl AllocReading {
    /// Nothing.
    pub const ZERO: AllocReading = AllocReading {
        allocs: 0,
        bytes: 0,
        freed: 0,
    };

    #[inline(always)]
    pub(crate) fn since(self, start: AllocReading) -> AllocReading {
        AllocReading {
            allocs: self.allocs.wrapping_sub(start.allocs),
            bytes: self.bytes.wrapping_sub(start.bytes),
            freed: self.freed.wrapping_sub(start.freed),
        }
    }

    #[inline(always)]
    pub(crate) fn plus(self, o: AllocReading) -> AllocReading {
        AllocReading {
            allocs: self.allocs.wrapping_add(o.allocs),
            bytes: self.bytes.wrapping_add(o.bytes),
            freed: self.freed.wrapping_add(o.freed),
        }
    }

    /// Every field `w` times (a sampled call standing for `w` calls).
    #[inline(always)]
    pub(crate) fn times(self, w: u64) -> AllocReading {
        AllocReading {
            allocs: self.allocs.wrapping_mul(w),
            bytes: self.bytes.wrapping_mul(w),
            freed: self.freed.wrapping_mul(w),
        }
    }
}

/// This thread's counters as a reading.
#[inline(always)]
pub(crate) fn reading() -> AllocReading {
    let (allocs, bytes, freed) = thread_reading();
    AllocReading {
        allocs,
        bytes,
        freed,
    }
}

/// An [`AllocReading`] in single-writer cells.
pub(crate) struct AllocCells {
    allocs: Cnt,
    bytes: Cnt,
    freed: Cnt,
}

impl AllocCells {
    pub(crate) const fn new() -> Self {
        AllocCells {
            allocs: Cnt::new(),
            bytes: Cnt::new(),
            freed: Cnt::new(),
        }
    }
    #[inline(always)]
    pub(crate) fn get(&self) -> AllocReading {
        AllocReading {
            allocs: self.allocs.get(),
            bytes: self.bytes.get(),
            freed: self.freed.get(),
        }
    }
    #[inline(always)]
    pub(crate) fn set(&self, d: AllocReading) {
        self.allocs.set(d.allocs);
        self.bytes.set(d.bytes);
        self.freed.set(d.freed);
    }
}

/// What a frame's children allocated (freed bytes are reported inclusive only).
pub(crate) struct AllocChildren {
    allocs: Cnt,
    bytes: Cnt,
}

impl AllocChildren {
    pub(crate) const fn new() -> Self {
        AllocChildren {
            allocs: Cnt::new(),
            bytes: Cnt::new(),
        }
    }
    #[inline(always)]
    pub(crate) fn clear(&self) {
        self.allocs.set(0);
        self.bytes.set(0);
    }
    #[inline(always)]
    pub(crate) fn add(&self, d: AllocReading) {
        self.allocs.add(d.allocs);
        self.bytes.add(d.bytes);
    }
    #[inline(always)]
    pub(crate) fn self_of(&self, incl: AllocReading) -> AllocReading {
        AllocReading {
            allocs: incl.allocs.saturating_sub(self.allocs.get()),
            bytes: incl.bytes.saturating_sub(self.bytes.get()),
            freed: 0,
        }
    }
}

/// One event of `size` bytes on a counter pair, inline: `events` holds the count shifted
/// left by one with [`FAST`] as its low bit (counting on the fast path); `false` when
/// the bit is clear and the caller must take the slow path.
#[inline(always)]
fn count_inline(events: &AtomicU64, bytes: &AtomicU64, size: u64) -> bool {
    let w = events.load(Relaxed);
    if w & FAST == 0 {
        return false;
    }
    events.store(w.wrapping_add(2), Relaxed);
    bytes.store(bytes.load(Relaxed).wrapping_add(size), Relaxed);
    true
}
