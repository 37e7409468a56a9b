//! Allocation meter of the [hotpath](https://docs.rs/hotpath) profiler.
//!
//! Users do not depend on this crate: the facade's `hotpath::alloc::Tracking` global
//! allocator calls [`on_alloc`] and [`on_free`], and its report reads the totals here.
//! This crate owns the meter's logic: counting each thread's allocations (in the
//! thread-local counters `hotpath-core` keeps for measured scopes to read), the registry
//! of those counters so that other threads can read them, their retirement into process
//! totals when a thread exits, and the totals of a session.
//!
//! ## What is counted
//!
//! Every successful `alloc` and `alloc_zeroed` (one allocation of the layout's size),
//! `dealloc` (one deallocation), and successful `realloc` (one allocation of the new
//! size and one deallocation of the old): the facade's allocator calls the hooks only
//! for those. Memory allocated by C libraries through `malloc` directly, and stack
//! memory, are not seen.
//!
//! ## Cost
//!
//! The hook adds two relaxed load/store pairs on a thread-local to each call: no lock,
//! no allocation, no atomic read-modify-write. It is safe in threads the profiler never
//! saw start and while thread-locals are being destroyed.
//!
//! # Safety invariants
//!
//! * The hooks never allocate, never take a lock, and touch only the calling thread's
//!   const-initialised, `Drop`-free counters (through `hotpath_core::meter::alloc`).
//! * A thread's counters become readable from other threads when its first counted
//!   allocation registers their address in [`SLOTS`] (a compare-and-swap into a fixed
//!   array: no allocation).
//! * At thread exit a `pthread` key destructor folds the counters into [`RETIRED`] and
//!   unregisters them, under [`READERS`]; readers hold the same lock while they read
//!   registered counters, so they never read a thread-local that has been freed. Key
//!   destructors run after Rust's thread-local destructors, so Rust code that allocates
//!   during those is still counted.
#![deny(missing_docs)]

use hotpath_core::fork::{Mutex, Rank};
use std::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU64,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};

use hotpath_core::meter::alloc::{with_counters, Counters, COUNTING, IGNORE};

/// Allocation counts of one thread, of the process, or of an interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Allocations (a successful `realloc` counts one, of the new size).
    pub allocs: u64,
    /// Bytes allocated.
    pub bytes: u64,
    /// Deallocations (a successful `realloc` counts one, of the old size).
    pub frees: u64,
    /// Bytes deallocated.
    pub freed: u64,
}

impl Totals {
    fn of(v: [u64; 4]) -> Totals {
        Totals {
            allocs: v[0],
            bytes: v[1],
            frees: v[2],
            freed: v[3],
        }
    }

    /// `self - earlier`, field by field (saturating).
    pub fn since(self, earlier: Totals) -> Totals {
        Totals {
            allocs: self.allocs.saturating_sub(earlier.allocs),
            bytes: self.bytes.saturating_sub(earlier.bytes),
            frees: self.frees.saturating_sub(earlier.frees),
            freed: self.freed.saturating_sub(earlier.freed),
        }
    }

    fn add(&mut self, o: Totals) {
        self.allocs += o.allocs;
        self.bytes += o.bytes;
        self.frees += o.frees;
        self.freed += o.freed;
    }
}

/// Most threads whose counters are registered at once; later ones share [`OVERFLOW`].
const MAX_THREADS: usize = 4096;
static SLOTS: [AtomicPtr<Counters>; MAX_THREADS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_THREADS];
/// Per slot: its thread's counters when the session began (zero for a thread that
/// registered later), so that per-thread figures are per session like the process's.
static BASE: [[AtomicU64; 4]; MAX_THREADS] =
    [const { [const { AtomicU64::new(0) }; 4] }; MAX_THREADS];
static READERS: Mutex<()> = Mutex::new(Rank::AllocReaders, ());
static RETIRED: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];
static OVERFLOW: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];
static SEEN: AtomicBool = AtomicBool::new(false);
/// Sessions begun so far ([`begin_session`]).
static SESSION: AtomicU64 = AtomicU64::new(0);
/// Most exited threads whose own totals are kept per session; older ones are still in
/// the process totals, and counted in [`Session::threads_dropped`].
const MAX_EXITED: usize = 4096;
/// Threads that exited: `[tid, session, allocs, bytes, frees, freed]` (their figures
/// since the session began), a ring written under [`READERS`].
static EXITED: [[AtomicU64; 6]; MAX_EXITED] =
    [const { [const { AtomicU64::new(0) }; 6] }; MAX_EXITED];
static EXITED_NEXT: AtomicU64 = AtomicU64::new(0);

/// Counts one allocation of `size` bytes on this thread. Called by the tracking
/// allocator after the inner allocator succeeded.
#[inline(always)]
pub fn on_alloc(size: usize) {
    let _ = with_counters(|c| {
        if !c.count_alloc(size as u64) {
            slow(c, false, size as u64);
        }
    });
}

/// Counts one deallocation of `size` bytes on this thread.
#[inline(always)]
pub fn on_free(size: usize) {
    let _ = with_counters(|c| {
        if !c.count_free(size as u64) {
            slow(c, true, size as u64);
        }
    });
}

/// Not counting inline: unregistered (register, then count), ignoring (profiler
/// bookkeeping), or overflowed (count into the shared atomics).
#[cold]
#[inline(never)]
fn slow(c: &Counters, free: bool, size: u64) {
    let mode = c.mode();
    if mode >= IGNORE {
        return;
    }
    if !c.overflowed() && mode & COUNTING == 0 && !register(c) {
        c.set_overflowed();
    }
    if c.overflowed() {
        let i = if free { 2 } else { 0 };
        OVERFLOW[i].fetch_add(1, Relaxed);
        OVERFLOW[i + 1].fetch_add(size, Relaxed);
        return;
    }
    c.count_always(free, size);
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
            // A new thread in this slot starts the session at zero (no allocation).
            let i = slot_index(slot);
            for b in &BASE[i] {
                b.store(0, Relaxed);
            }
            c.set_tid(sys::thread_id());
            c.set_mode(c.mode() | COUNTING);
            return true;
        }
    }
    false
}

/// Folds a thread's counters into the retired totals and frees its slot.
fn retire(ptr: *mut Counters) {
    let _g = READERS.lock();
    for slot in &SLOTS {
        if slot.load(Relaxed) == ptr {
            // SAFETY: `ptr` is the exiting thread's own counters, still alive: the key
            // destructor runs on that thread before its thread-local storage is freed.
            let c = unsafe { &*ptr };
            let totals = c.totals();
            for (r, v) in RETIRED.iter().zip(totals) {
                r.fetch_add(v, Relaxed);
            }
            let base = &BASE[slot_index(slot)];
            let e = &EXITED[(EXITED_NEXT.fetch_add(1, Relaxed) as usize) % MAX_EXITED];
            e[0].store(c.tid(), Relaxed);
            e[1].store(SESSION.load(Relaxed), Relaxed);
            for k in 0..4 {
                e[2 + k].store(totals[k].saturating_sub(base[k].load(Relaxed)), Relaxed);
            }
            // Counting restarts from zero if this thread allocates again and re-registers.
            c.reset();
            c.set_mode(c.mode() & !COUNTING);
            slot.store(std::ptr::null_mut(), Release);
            return;
        }
    }
}

/// Forgets what the calling thread has counted so far, as if it had not allocated: for a
/// thread of the profiler, whose start-up allocations (made by the standard library
/// before the thread's own code runs) are not the program's. Everything such a thread
/// allocates afterwards is ignored anyway (`hotpath_core::internal`).
pub fn forget_current_thread() {
    let _g = READERS.lock();
    let _ = with_counters(|c| {
        if c.mode() & COUNTING != 0 {
            c.reset();
        }
    });
}

/// Allocations counted on the calling thread so far.
#[inline]
pub fn thread_totals() -> Totals {
    with_counters(|c| Totals::of(c.totals())).unwrap_or_default()
}

/// Whether [`on_alloc`] has been called by a thread that counts, in this process.
pub fn installed() -> bool {
    SEEN.load(Relaxed)
}

/// Counters of the whole process: live threads, exited threads and overflow.
pub fn process_totals() -> Totals {
    let mut t = Totals::default();
    for_each_thread(|_, c| t.add(c));
    let r = |a: &[AtomicU64; 4]| Totals::of(std::array::from_fn(|i| a[i].load(Relaxed)));
    t.add(r(&RETIRED));
    t.add(r(&OVERFLOW));
    t
}

static BASELINE: Mutex<Totals> = Mutex::new(
    Rank::AllocBaseline,
    Totals {
        allocs: 0,
        bytes: 0,
        frees: 0,
        freed: 0,
    },
);

/// The index of `slot` in [`SLOTS`].
fn slot_index(slot: &AtomicPtr<Counters>) -> usize {
    (slot as *const AtomicPtr<Counters> as usize - SLOTS.as_ptr() as usize)
        / std::mem::size_of::<AtomicPtr<Counters>>()
}

/// Starts counting a session: [`session_totals`] and the per-thread figures of
/// [`session_threads`] are measured from now.
pub fn begin_session() {
    let _g = READERS.lock();
    SESSION.fetch_add(1, Relaxed);
    let mut now = Totals::default();
    for (slot, base) in SLOTS.iter().zip(&BASE) {
        let p = slot.load(Acquire);
        if !p.is_null() {
            // SAFETY: as in `for_each_thread`: registered counters belong to a live thread,
            // which unregisters them under `READERS` (held) before they are freed.
            let t = unsafe { &*p }.totals();
            for (b, v) in base.iter().zip(t) {
                b.store(v, Relaxed);
            }
            now.add(Totals::of(t));
        }
    }
    let r = |a: &[AtomicU64; 4]| Totals::of(std::array::from_fn(|i| a[i].load(Relaxed)));
    now.add(r(&RETIRED));
    now.add(r(&OVERFLOW));
    *BASELINE.lock() = now;
}

/// Allocations of the session thread by thread: they add up to [`session_totals`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Session {
    /// Threads alive now: `(thread id, figures since the session began)`.
    pub live: Vec<(u64, Totals)>,
    /// Threads that exited during the session, in order of exit; a thread that
    /// allocated again while exiting appears twice.
    pub exited: Vec<(u64, Totals)>,
    /// Allocations of threads with no figures of their own: beyond the most threads
    /// registered at once, and exited threads beyond the most kept.
    pub unattributed: Totals,
    /// Exited threads whose figures were not kept (more than 4096 exited).
    pub threads_dropped: u64,
}

/// The session's allocations per thread (live and exited), read at one time under the
/// registry lock.
pub fn session_threads() -> Session {
    let _g = READERS.lock();
    let session = SESSION.load(Relaxed);
    let mut out = Session::default();
    for (slot, base) in SLOTS.iter().zip(&BASE) {
        let p = slot.load(Acquire);
        if !p.is_null() {
            // SAFETY: as in `for_each_thread`.
            let c = unsafe { &*p };
            let b = Totals::of(std::array::from_fn(|i| base[i].load(Relaxed)));
            out.live.push((c.tid(), Totals::of(c.totals()).since(b)));
        }
    }
    let written = EXITED_NEXT.load(Relaxed);
    let kept = written.min(MAX_EXITED as u64);
    for n in written - kept..written {
        let e = &EXITED[(n as usize) % MAX_EXITED];
        if e[1].load(Relaxed) == session {
            out.exited.push((
                e[0].load(Relaxed),
                Totals::of(std::array::from_fn(|i| e[2 + i].load(Relaxed))),
            ));
        }
    }
    // What has no per-thread figure: the session total minus the threads'.
    let mut threads = Totals::default();
    for (_, t) in out.live.iter().chain(&out.exited) {
        threads.add(*t);
    }
    drop(_g);
    out.unattributed = session_totals().since(threads);
    out.threads_dropped = written.saturating_sub(MAX_EXITED as u64);
    out
}

/// Counters of the whole process since the session began.
pub fn session_totals() -> Totals {
    let base = *BASELINE.lock();
    process_totals().since(base)
}

/// Calls `f(thread id, counters)` for every live registered thread.
pub fn for_each_thread(mut f: impl FnMut(u64, Totals)) {
    let _g = READERS.lock();
    for slot in &SLOTS {
        let p = slot.load(Acquire);
        if !p.is_null() {
            // SAFETY: registered counters belong to a live thread; the thread unregisters
            // them under `READERS`, which we hold, before its storage is freed.
            let c = unsafe { &*p };
            f(c.tid(), Totals::of(c.totals()));
        }
    }
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
