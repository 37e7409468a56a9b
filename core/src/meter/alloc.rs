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
