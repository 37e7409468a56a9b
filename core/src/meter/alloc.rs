//! Allocation meter: per-thread counters the tracking allocator bumps and scope guards
//! read.
//!
//! # Safety invariants
//!
//! * The allocator hook ([`on_alloc`], [`on_free`]) never allocates, never takes a lock,
//!   and touches only the const-initialised, `Drop`-free thread-local [`COUNTERS`], so it
//!   works in any thread, before `main`, and while thread-locals are being destroyed.
//! * A thread's counters are written only by that thread (relaxed load and store). They
//!   are readable from other threads because the first counted allocation registers
//!   their address in [`SLOTS`] (a compare-and-swap into a fixed array: no allocation).
//! * At thread exit a `pthread` key destructor folds the counters into [`RETIRED`] and
//!   unregisters them, under [`READERS`]; readers hold the same lock while they read
//!   registered counters, so they never read a thread-local that has been freed. Key
//!   destructors run after Rust's thread-local destructors, so Rust code that allocates
//!   during those is still counted.

use std::cell::Cell;
use std::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU32, AtomicU64,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};
use std::sync::Mutex;

/// Allocation counts of one thread, or of the process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocTotals {
    /// Allocations (a successful `realloc` counts one, of the new size).
    pub allocs: u64,
    /// Bytes allocated.
    pub bytes: u64,
    /// Deallocations (a successful `realloc` counts one, of the old size).
    pub frees: u64,
    /// Bytes deallocated.
    pub freed: u64,
}

impl AllocTotals {
    /// `self - earlier`, field by field (saturating).
    pub fn since(self, earlier: AllocTotals) -> AllocTotals {
        AllocTotals {
            allocs: self.allocs.saturating_sub(earlier.allocs),
            bytes: self.bytes.saturating_sub(earlier.bytes),
            frees: self.frees.saturating_sub(earlier.frees),
            freed: self.freed.saturating_sub(earlier.freed),
        }
    }

    fn add(&mut self, o: AllocTotals) {
        self.allocs += o.allocs;
        self.bytes += o.bytes;
        self.frees += o.frees;
        self.freed += o.freed;
    }
}

/// Bit 0 of `mode`: registered, counting. Higher bits: depth of profiler bookkeeping in
/// progress (not counted).
const COUNTING: u32 = 1;
const IGNORE: u32 = 2;
/// Bit 0 of the count words: count inline.
const FAST: u64 = 1;

/// One thread's counters.
///
/// `allocs` and `frees` hold `count << 1 | FAST`: bit 0 is set exactly when `mode` is
/// `COUNTING`, so the hook's one load both reads the count and picks the path.
pub struct Counters {
    allocs: AtomicU64,
    bytes: AtomicU64,
    frees: AtomicU64,
    freed: AtomicU64,
    /// `COUNTING` when registered and not inside profiler bookkeeping: the only value
    /// for which the hook counts inline.
    mode: AtomicU32,
    /// Not registered because every slot was taken: counts go to [`OVERFLOW`].
    overflow: Cell<bool>,
    /// Linux thread id, for the threads section.
    tid: AtomicU64,
}

// SAFETY: `overflow` is a `Cell` read and written only by the owning thread (inside the
// hook); other threads only touch the atomics.
unsafe impl Sync for Counters {}

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

    fn totals(&self) -> AllocTotals {
        AllocTotals {
            allocs: self.allocs.load(Relaxed) >> 1,
            bytes: self.bytes.load(Relaxed),
            frees: self.frees.load(Relaxed) >> 1,
            freed: self.freed.load(Relaxed),
        }
    }

    /// Sets `mode` and the fast bit of the count words to match it.
    fn set_mode(&self, mode: u32) {
        self.mode.store(mode, Relaxed);
        let fast = u64::from(mode == COUNTING);
        for w in [&self.allocs, &self.frees] {
            w.store((w.load(Relaxed) & !FAST) | fast, Relaxed);
        }
    }
}

thread_local! {
    static COUNTERS: Counters = const { Counters::new() };
}

/// Most threads whose counters are registered at once; later ones share [`OVERFLOW`].
const MAX_THREADS: usize = 4096;
static SLOTS: [AtomicPtr<Counters>; MAX_THREADS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_THREADS];
static READERS: Mutex<()> = Mutex::new(());
static RETIRED: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];
static OVERFLOW: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];
static SEEN: AtomicBool = AtomicBool::new(false);

/// Counts one allocation of `size` bytes on this thread. Called by the tracking
/// allocator after the inner allocator succeeded.
#[inline(always)]
pub fn on_alloc(size: usize) {
    let _ = COUNTERS.try_with(|c| {
        let w = c.allocs.load(Relaxed);
        if w & FAST != 0 {
            c.allocs.store(w.wrapping_add(2), Relaxed);
            c.bytes
                .store(c.bytes.load(Relaxed).wrapping_add(size as u64), Relaxed);
        } else {
            slow(c, 0, size as u64);
        }
    });
}

/// Counts one deallocation of `size` bytes on this thread.
#[inline(always)]
pub fn on_free(size: usize) {
    let _ = COUNTERS.try_with(|c| {
        let w = c.frees.load(Relaxed);
        if w & FAST != 0 {
            c.frees.store(w.wrapping_add(2), Relaxed);
            c.freed
                .store(c.freed.load(Relaxed).wrapping_add(size as u64), Relaxed);
        } else {
            slow(c, 2, size as u64);
        }
    });
}

/// Not counting inline: unregistered (register, then count), ignoring (profiler
/// bookkeeping), or overflowed (count into the shared atomics).
#[cold]
#[inline(never)]
fn slow(c: &Counters, which: usize, size: u64) {
    let mode = c.mode.load(Relaxed);
    if mode >= IGNORE {
        return;
    }
    if !c.overflow.get() && mode & COUNTING == 0 && !register(c) {
        c.overflow.set(true);
    }
    if c.overflow.get() {
        OVERFLOW[which].fetch_add(1, Relaxed);
        OVERFLOW[which + 1].fetch_add(size, Relaxed);
        return;
    }
    let (n, b) = if which == 0 {
        (&c.allocs, &c.bytes)
    } else {
        (&c.frees, &c.freed)
    };
    n.store(n.load(Relaxed).wrapping_add(2), Relaxed);
    b.store(b.load(Relaxed).wrapping_add(size), Relaxed);
}

/// Puts this thread's counters in a free slot and arranges for them to be retired at
/// thread exit. No allocation, no lock.
fn register(c: &Counters) -> bool {
    SEEN.store(true, Relaxed);
    let ptr = c as *const Counters as *mut Counters;
    for slot in &SLOTS {
        if slot.load(Relaxed).is_null()
            && slot
                .compare_exchange(std::ptr::null_mut(), ptr, AcqRel, Relaxed)
                .is_ok()
        {
            if !sys::retire_at_exit(ptr) {
                // Without a way to retire them at thread exit, counters must not stay
                // readable: count this thread in the shared totals instead.
                slot.store(std::ptr::null_mut(), Release);
                return false;
            }
            c.tid.store(sys::thread_id(), Relaxed);
            c.set_mode(c.mode.load(Relaxed) | COUNTING);
            return true;
        }
    }
    false
}

/// Folds a thread's counters into the retired totals and frees its slot.
fn retire(ptr: *mut Counters) {
    let _g = READERS.lock().unwrap_or_else(|e| e.into_inner());
    for slot in &SLOTS {
        if slot.load(Relaxed) == ptr {
            // SAFETY: `ptr` is the exiting thread's own `COUNTERS`, still alive: the key
            // destructor runs on that thread before its thread-local storage is freed.
            let c = unsafe { &*ptr };
            let t = c.totals();
            for (r, v) in RETIRED.iter().zip([t.allocs, t.bytes, t.frees, t.freed]) {
                r.fetch_add(v, Relaxed);
            }
            // Counting restarts from zero if this thread allocates again and re-registers.
            for a in [&c.allocs, &c.bytes, &c.frees, &c.freed] {
                a.store(0, Relaxed);
            }
            c.set_mode(c.mode.load(Relaxed) & !COUNTING);
            slot.store(std::ptr::null_mut(), Release);
            return;
        }
    }
}

/// This thread's allocations, bytes and freed bytes now (what scopes read).
#[inline(always)]
pub(crate) fn thread_reading() -> (u64, u64, u64) {
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

/// This thread's counters now.
#[inline(always)]
pub fn thread_totals() -> AllocTotals {
    COUNTERS.try_with(Counters::totals).unwrap_or_default()
}

/// Whether the tracking allocator has counted anything in this process.
pub fn installed() -> bool {
    SEEN.load(Relaxed)
}

/// Counters of the whole process: live threads, exited threads and overflow.
pub fn process_totals() -> AllocTotals {
    let mut t = AllocTotals::default();
    for_each_thread(|_, c| t.add(c));
    let r = |a: &[AtomicU64; 4]| AllocTotals {
        allocs: a[0].load(Relaxed),
        bytes: a[1].load(Relaxed),
        frees: a[2].load(Relaxed),
        freed: a[3].load(Relaxed),
    };
    t.add(r(&RETIRED));
    t.add(r(&OVERFLOW));
    t
}

static BASELINE: Mutex<AllocTotals> = Mutex::new(AllocTotals {
    allocs: 0,
    bytes: 0,
    frees: 0,
    freed: 0,
});

/// Starts counting a session: [`session_totals`] is measured from now.
pub(crate) fn begin_session() {
    let now = process_totals();
    *BASELINE.lock().unwrap_or_else(|e| e.into_inner()) = now;
}

/// Counters of the whole process since the session began.
pub fn session_totals() -> AllocTotals {
    let base = *BASELINE.lock().unwrap_or_else(|e| e.into_inner());
    process_totals().since(base)
}

/// Calls `f(thread id, counters)` for every live registered thread.
pub fn for_each_thread(mut f: impl FnMut(u64, AllocTotals)) {
    let _g = READERS.lock().unwrap_or_else(|e| e.into_inner());
    for slot in &SLOTS {
        let p = slot.load(Acquire);
        if !p.is_null() {
            // SAFETY: registered counters belong to a live thread; the thread unregisters
            // them under `READERS`, which we hold, before its storage is freed.
            let c = unsafe { &*p };
            f(c.tid.load(Relaxed), c.totals());
        }
    }
}

/// Runs `f` without counting its allocations (profiler bookkeeping).
#[inline]
pub fn ignored<R>(f: impl FnOnce() -> R) -> R {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = COUNTERS.try_with(|c| c.set_mode(c.mode.load(Relaxed) - IGNORE));
        }
    }
    let _ = COUNTERS.try_with(|c| c.set_mode(c.mode.load(Relaxed) + IGNORE));
    let _r = Restore;
    f()
}

#[cfg(unix)]
mod sys {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    use std::sync::Once;

    static KEY: AtomicUsize = AtomicUsize::new(usize::MAX);
    static INIT: Once = Once::new();

    extern "C" fn destructor(p: *mut libc::c_void) {
        super::retire(p.cast());
    }

    /// Registers `p` with a thread-specific key whose destructor retires it. Neither
    /// `pthread_key_create` nor `pthread_setspecific` (for the first 32 keys of glibc
    /// and always on musl) allocates.
    pub(super) fn retire_at_exit(p: *mut super::Counters) -> bool {
        INIT.call_once(|| {
            let mut key: libc::pthread_key_t = 0;
            // SAFETY: `key` is a valid out-pointer and `destructor` has the C ABI
            // signature pthread expects.
            if unsafe { libc::pthread_key_create(&mut key, Some(destructor)) } == 0 {
                KEY.store(key as usize, Relaxed);
            }
        });
        let key = KEY.load(Relaxed);
        // SAFETY: `key` was created above; the value is only handed back to
        // `destructor` on this thread.
        key != usize::MAX
            && unsafe { libc::pthread_setspecific(key as libc::pthread_key_t, p.cast()) } == 0
    }

    pub(super) fn thread_id() -> u64 {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: gettid has no preconditions.
            unsafe { libc::gettid() as u64 }
        }
        #[cfg(not(target_os = "linux"))]
        {
            0
        }
    }
}

#[cfg(not(unix))]
mod sys {
    /// No thread-exit hook without pthread keys: every thread counts into the shared
    /// totals (one atomic add per allocation), and there is no per-thread breakdown.
    pub(super) fn retire_at_exit(_: *mut super::Counters) -> bool {
        false
    }
    pub(super) fn thread_id() -> u64 {
        0
    }
}

// ---------------------------------------------------------------------------------------
// Per-scope values: readings, deltas and per-call-site statistics.

use crate::cell::Cnt;

/// Allocations, bytes and freed bytes of a thread at an instant, or over an interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocDelta {
    /// Allocations.
    pub allocs: u64,
    /// Bytes allocated.
    pub bytes: u64,
    /// Bytes freed.
    pub freed: u64,
}

impl AllocDelta {
    /// Nothing.
    pub const ZERO: AllocDelta = AllocDelta {
        allocs: 0,
        bytes: 0,
        freed: 0,
    };

    #[inline(always)]
    pub(crate) fn since(self, start: AllocDelta) -> AllocDelta {
        AllocDelta {
            allocs: self.allocs.wrapping_sub(start.allocs),
            bytes: self.bytes.wrapping_sub(start.bytes),
            freed: self.freed.wrapping_sub(start.freed),
        }
    }

    #[inline(always)]
    pub(crate) fn plus(self, o: AllocDelta) -> AllocDelta {
        AllocDelta {
            allocs: self.allocs.wrapping_add(o.allocs),
            bytes: self.bytes.wrapping_add(o.bytes),
            freed: self.freed.wrapping_add(o.freed),
        }
    }
}

/// This thread's counters as a reading.
#[inline(always)]
pub(crate) fn reading() -> AllocDelta {
    let (allocs, bytes, freed) = thread_reading();
    AllocDelta {
        allocs,
        bytes,
        freed,
    }
}

/// An [`AllocDelta`] in single-writer cells.
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
    pub(crate) fn get(&self) -> AllocDelta {
        AllocDelta {
            allocs: self.allocs.get(),
            bytes: self.bytes.get(),
            freed: self.freed.get(),
        }
    }
    #[inline(always)]
    pub(crate) fn set(&self, d: AllocDelta) {
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
    pub(crate) fn add(&self, d: AllocDelta) {
        self.allocs.add(d.allocs);
        self.bytes.add(d.bytes);
    }
    #[inline(always)]
    pub(crate) fn self_of(&self, incl: AllocDelta) -> AllocDelta {
        AllocDelta {
            allocs: incl.allocs.saturating_sub(self.allocs.get()),
            bytes: incl.bytes.saturating_sub(self.bytes.get()),
            freed: 0,
        }
    }
}

/// Allocations of one call site on one thread.
pub(crate) struct AllocSlot {
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

impl AllocSlot {
    pub(crate) const fn new() -> Self {
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
    /// site's timed calls and its recorded values (see `MeterMerged::finish`).
    #[inline(always)]
    pub(crate) fn record(&self, incl: AllocDelta, self_: AllocDelta, outer: bool) {
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

    pub(crate) fn clear(&self) {
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

    pub(crate) fn merge_into(&self, m: &mut AllocMerged) {
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
