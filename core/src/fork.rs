//! `fork()` and the profiler's locks: every registry registers itself.
//!
//! A child of `fork()` has one thread, a copy of the one that called it; a lock another
//! thread held at that moment stays held forever in the child. So the facade installs
//! [`prepare`], [`parent`] and [`child`] as `pthread_atfork` handlers, and they take
//! every lock of the profiler before the address space is copied and release it after,
//! in both processes.
//!
//! Which locks: the ones that registered themselves. A registry's lock is a
//! [`Mutex`] or [`RwLock`] of this module, made with its [`Rank`]; its first `lock()`
//! registers it, so a registry in use is always known to the handlers and one that was
//! never used costs them nothing. A registry whose fork handling is more than one lock
//! (the debug values take each entry's lock too) is a [`Hooks`] it registers itself at
//! first use. No list of registries is kept by hand anywhere.
//!
//! A limit of registering at first use: a registry whose first use races with a
//! `fork()` of another thread (registered after the prepare handler passed its rank, and
//! locked before the address space is copied) is not taken, so the child could find it
//! held. The window is between the prepare handler and the `fork` call, at the one
//! moment a registry is used for the first time; registering every registry at start
//! (a link-section list built by the linker) would close it.
//!
//! In what order: [`Rank`], the one place that documents the lock order of the whole
//! profiler. [`prepare`] takes the registered locks in ascending rank; [`parent`] and
//! [`child`] release them in descending rank. The order matches every other path: no
//! code holds a lock and then takes one of a lower rank.
//!
//! # Safety invariants
//!
//! * The handlers allocate nothing and take no lock but the registered ones. A registry
//!   is found through an atomic pointer to its `'static` [`Hooks`], set once.
//! * A [`Mutex`]'s or [`RwLock`]'s held guard lives in the lock itself and is written
//!   only by the thread holding the lock: prepare stores it after locking; release takes it only on
//!   the thread whose bit in `MINE` says it stored it (in the child, the copy of that
//!   thread). A registry registered by another thread while this one forks is skipped by
//!   release because its bit is not set.
//! * [`Hooks`] is the first field of the `#[repr(C)]` registered lock that is the first
//!   field of a `#[repr(C)]` [`Mutex`] / [`RwLock`], and the handler functions stored in
//!   it are monomorphised for that type, so the cast from the `&Hooks` a handler receives
//!   back to the lock that holds it is exact.

use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// The profiler's registries in their lock order: [`prepare`] takes them from first to
/// last, [`parent`] and [`child`] release them from last to first. A new registry gets a
/// variant here, placed where the locks its code takes around it put it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Rank {
    /// The sqlx layer's span table (the facade; taken before the SQL rows it interns).
    SqlxSpans,
    /// The `tracing` layer's filter and call sites, by span callsite (the facade).
    TracingSites,
    /// The SQL and HTTP rows (the facade's service integrations).
    ServiceRows,
    /// The tokio runtimes registered with `tokio_runtime!`.
    TokioRuntimes,
    /// The lock sites of the `hotpath::wrap` constructors, by source location.
    LockLocations,
    /// The lock sites (`mutex!`, `rw_lock!`).
    LockSites,
    /// The debug values (`dbg!`, `val!`, `gauge!`), then each value's own lock.
    DebugValues,
    /// The `io!` entries.
    IoEntries,
    /// The channel, stream and future entries.
    FlowEntries,
    /// The sites of labels given at run time, by call site (core's `labels`; taken
    /// alone).
    Labels,
    /// The numbered call sites (core).
    CallSites,
    /// The shard registry (core); in the child, the shards of the threads that were not
    /// copied are marked for retirement.
    Shards,
    /// The trace rings of exited threads (core; retiring a ring takes it under the
    /// shard registry's lock).
    TraceRings,
    /// The profiler's own threads, by id.
    ProfilerThreadIds,
    /// The profiler's own threads, by name.
    ProfilerThreadNames,
    /// The allocation counters' readers (hotpath-alloc).
    AllocReaders,
    /// The allocation baseline of the session (hotpath-alloc).
    AllocBaseline,
    /// The CPU sampler's signal handler (hotpath-cpu); in the child, sampling stops.
    CpuHandler,
    /// The CPU samplers armed on threads (hotpath-cpu).
    CpuArmed,
    /// The live session, for the exit and signal hooks (the facade's runtime).
    Session,
}

impl Rank {
    /// Every rank, in lock order.
    pub const ALL: [Rank; 20] = [
        Rank::SqlxSpans,
        Rank::TracingSites,
        Rank::ServiceRows,
        Rank::TokioRuntimes,
        Rank::LockLocations,
        Rank::LockSites,
        Rank::DebugValues,
        Rank::IoEntries,
        Rank::FlowEntries,
        Rank::Labels,
        Rank::CallSites,
        Rank::Shards,
        Rank::TraceRings,
        Rank::ProfilerThreadIds,
        Rank::ProfilerThreadNames,
        Rank::AllocReaders,
        Rank::AllocBaseline,
        Rank::CpuHandler,
        Rank::CpuArmed,
        Rank::Session,
    ];
    /// How many ranks there are.
    pub const COUNT: usize = Self::ALL.len();
}

/// The registered hooks, by rank.
static REGISTERED: [AtomicPtr<Hooks>; Rank::COUNT] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; Rank::COUNT];

thread_local! {
    /// The ranks whose prepare handler this thread ran and whose release it has not: bit
    /// `rank`. A `Cell` with no destructor: usable in the fork handlers.
    static MINE: Cell<u64> = const { Cell::new(0) };
}

const _: () = assert!(Rank::COUNT <= 64, "one bit of MINE per rank");

/// What one registry does around `fork()`: take its locks before, release them after (in
/// the child, first whatever the child must do while they are still held).
#[derive(Debug)]
#[repr(C)]
pub struct Hooks {
    rank: Rank,
    registered: AtomicBool,
    prepare: fn(&'static Hooks),
    parent: fn(&'static Hooks),
    child: fn(&'static Hooks),
}

impl Hooks {
    /// Hooks at `rank`: `prepare` takes the locks (keeping their guards, e.g. in a
    /// thread-local), `parent` and `child` release them. None of them may allocate.
    pub const fn new(
        rank: Rank,
        prepare: fn(&'static Hooks),
        parent: fn(&'static Hooks),
        child: fn(&'static Hooks),
    ) -> Hooks {
        Hooks {
            rank,
            registered: AtomicBool::new(false),
            prepare,
            parent,
            child,
        }
    }

    /// Registers these hooks with the fork handlers, once (later calls are one load).
    #[inline]
    pub fn register(&'static self) {
        if !self.registered.load(Ordering::Acquire) {
            self.register_slow();
        }
    }

    #[cold]
    fn register_slow(&'static self) {
        let slot = &REGISTERED[self.rank as usize];
        let me = self as *const Hooks as *mut Hooks;
        let before = slot.swap(me, Ordering::AcqRel);
        debug_assert!(
            before.is_null() || before == me,
            "two registries at fork rank {:?}",
            self.rank
        );
        self.registered.store(true, Ordering::Release);
    }

    /// The rank these hooks were made with.
    pub fn rank(&self) -> Rank {
        self.rank
    }
}

fn registered(rank: usize) -> Option<&'static Hooks> {
    let p = REGISTERED[rank].load(Ordering::Acquire);
    // SAFETY: only `register_slow` stores here, a pointer from a `&'static Hooks`.
    (!p.is_null()).then(|| unsafe { &*p })
}

fn mine(rank: usize) -> bool {
    MINE.try_with(|m| m.get() & (1 << rank) != 0)
        .unwrap_or(false)
}

fn set_mine(rank: usize, on: bool) {
    let _ = MINE.try_with(|m| {
        let bit = 1u64 << rank;
        m.set(if on { m.get() | bit } else { m.get() & !bit });
    });
}

/// Before `fork()`, in the forking thread: takes the lock of every registered registry,
/// in ascending [`Rank`]. Allocates nothing.
pub fn prepare() {
    for rank in 0..Rank::COUNT {
        take(rank);
    }
}

/// After `fork()`, in the parent: releases what [`prepare`] took, in descending rank.
pub fn parent() {
    for rank in (0..Rank::COUNT).rev() {
        release(rank, false);
    }
}

/// After `fork()`, in the child: the same, running each registry's child hook (the
/// threads that were not copied are gone: their shards are retired, CPU sampling stops).
pub fn child() {
    for rank in (0..Rank::COUNT).rev() {
        release(rank, true);
    }
}

fn take(rank: usize) -> bool {
    match registered(rank) {
        Some(h) if !mine(rank) => {
            (h.prepare)(h);
            set_mine(rank, true);
            true
        }
        _ => false,
    }
}

fn release(rank: usize, child: bool) {
    if !mine(rank) {
        return;
    }
    set_mine(rank, false);
    if let Some(h) = registered(rank) {
        if child {
            (h.child)(h)
        } else {
            (h.parent)(h)
        }
    }
}

/// The ranks registered so far (a registry registers at its first use), in lock order.
pub fn registered_ranks() -> Vec<Rank> {
    Rank::ALL
        .into_iter()
        .filter(|r| registered(*r as usize).is_some())
        .collect()
}

/// Takes the locks of the registry at `rank` on the calling thread, as the prepare
/// handler does, until [`unhold`]: for tests that fork while another thread holds a
/// registry's lock. `false` when nothing is registered at `rank` or this thread holds it.
#[doc(hidden)]
pub fn hold(rank: Rank) -> bool {
    take(rank as usize)
}

/// Releases what [`hold`] took.
#[doc(hidden)]
pub fn unhold(rank: Rank) {
    release(rank as usize, false);
}

/// A std lock the fork handlers take exclusively (poisoning ignored): a mutex's lock, a
/// read-write lock's write lock.
trait Exclusive: 'static {
    /// The guard the prepare handler keeps until the release.
    type Guard: 'static;
    /// Takes the lock exclusively, ignoring poisoning.
    fn exclusive(&'static self) -> Self::Guard;
}

impl<T: 'static> Exclusive for std::sync::Mutex<T> {
    type Guard = std::sync::MutexGuard<'static, T>;
    fn exclusive(&'static self) -> Self::Guard {
        self.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<T: 'static> Exclusive for std::sync::RwLock<T> {
    type Guard = std::sync::RwLockWriteGuard<'static, T>;
    fn exclusive(&'static self) -> Self::Guard {
        self.write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A std lock with its fork handlers: what [`Mutex`] and [`RwLock`] have in common, and
/// their first field.
#[repr(C)]
struct Registered<L: Exclusive> {
    hooks: Hooks,
    inner: L,
    /// The guard prepare took, while the forking thread holds the lock.
    held: UnsafeCell<Option<L::Guard>>,
}

impl<L: Exclusive> Registered<L> {
    /// `inner` at `rank`; `child` releases it in a forked child ([`Registered::release`]
    /// unless the child has work to do first).
    const fn new(rank: Rank, inner: L, child: fn(&'static Hooks)) -> Self {
        Registered {
            hooks: Hooks::new(rank, Self::prepare, Self::release, child),
            inner,
            held: UnsafeCell::new(None),
        }
    }

    /// The lock, registered with the fork handlers on first use.
    #[inline]
    fn get(&'static self) -> &'static L {
        self.hooks.register();
        &self.inner
    }

    /// What `Debug` shows of the registry lock `name`: its rank.
    fn debug(&self, name: &str, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(name)
            .field("rank", &self.hooks.rank)
            .finish_non_exhaustive()
    }

    fn of(hooks: &'static Hooks) -> &'static Self {
        // SAFETY: these handlers are stored only in the `hooks` field of a `Registered<L>`
        // (the first field of a `repr(C)` struct), monomorphised for this `L`; the
        // registry passes them that field of a `'static` lock (module invariants).
        unsafe { &*(hooks as *const Hooks as *const Self) }
    }

    fn prepare(hooks: &'static Hooks) {
        let me = Self::of(hooks);
        let g = me.inner.exclusive();
        // SAFETY: this thread holds the lock exclusively: no other thread reads or writes
        // `held`.
        unsafe { *me.held.get() = Some(g) };
    }

    fn release(hooks: &'static Hooks) {
        let me = Self::of(hooks);
        // SAFETY: called only on the thread that ran `prepare` (its bit in MINE), which
        // holds the lock through the guard in `held`.
        drop(unsafe { (*me.held.get()).take() });
    }
}

/// A registry's `std::sync::Mutex` that registers itself with the fork handlers at its
/// first `lock()`. Poisoning is ignored (a panic while the profiler holds a registry
/// lock leaves the registry usable, as every registry did before).
#[repr(C)]
pub struct Mutex<T: 'static> {
    lock: Registered<std::sync::Mutex<T>>,
    /// Run in the child with the lock still held, before it is released.
    in_child: Option<fn(&mut T)>,
}

// SAFETY: the data is reached only through the inner lock, as `std::sync::Mutex<T>`
// (Sync for `T: Send`); `held` is written and taken only by the thread that holds the
// inner lock (module invariants), so no two threads touch it at once.
unsafe impl<T: Send + 'static> Sync for Mutex<T> {}

// SAFETY: `held` is `Some` only between the fork handlers' prepare and release, on a
// `'static` mutex (`lock` takes `&'static self`, so only a static registers), which
// cannot be moved; a mutex that can be moved holds `None` there, and the rest is a
// `std::sync::Mutex<T>` (Send for `T: Send`).
unsafe impl<T: Send + 'static> Send for Mutex<T> {}

impl<T: 'static> std::fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.lock.debug("fork::Mutex", f)
    }
}

impl<T: 'static> Mutex<T> {
    /// A registry lock at `rank` holding `value`.
    pub const fn new(rank: Rank, value: T) -> Self {
        Mutex {
            lock: Registered::new(rank, std::sync::Mutex::new(value), Self::release_child),
            in_child: None,
        }
    }

    /// The same, with `f` run on the data in a forked child before the lock is released
    /// there. `f` must not allocate.
    pub const fn in_child(mut self, f: fn(&mut T)) -> Self {
        self.in_child = Some(f);
        self
    }

    /// Locks the registry (registering it with the fork handlers on first use).
    #[inline]
    pub fn lock(&'static self) -> std::sync::MutexGuard<'static, T> {
        self.lock.get().exclusive()
    }

    /// Locks the registry unless another thread holds it.
    #[inline]
    pub fn try_lock(&'static self) -> Option<std::sync::MutexGuard<'static, T>> {
        match self.lock.get().try_lock() {
            Ok(g) => Some(g),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    fn release_child(hooks: &'static Hooks) {
        // SAFETY: these hooks are the first field of the `repr(C)` `Registered` that is
        // the first field of a `repr(C)` `Mutex<T>`, for this `T` (`Mutex::new`).
        let me = unsafe { &*(hooks as *const Hooks as *const Self) };
        // SAFETY: as in `Registered::release`; the guard is reached only by this thread.
        let held = unsafe { &mut *me.lock.held.get() };
        if let (Some(f), Some(g)) = (me.in_child, held.as_mut()) {
            f(g);
        }
        drop(held.take());
    }
}

/// A registry's `std::sync::RwLock` that registers itself with the fork handlers at its
/// first use; the handlers take it for writing (no reader either). Poisoning is ignored.
#[repr(C)]
pub struct RwLock<T: 'static> {
    lock: Registered<std::sync::RwLock<T>>,
}

// SAFETY: the data is reached only through the inner lock, as `std::sync::RwLock<T>`
// (Sync for `T: Send + Sync`); `held` is written and taken only by the thread holding
// the write lock (module invariants).
unsafe impl<T: Send + Sync + 'static> Sync for RwLock<T> {}

// SAFETY: as for `Mutex`: only a `'static`, unmovable lock ever holds a guard in `held`.
unsafe impl<T: Send + 'static> Send for RwLock<T> {}

impl<T: 'static> std::fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.lock.debug("fork::RwLock", f)
    }
}

impl<T: 'static> RwLock<T> {
    /// A registry lock at `rank` holding `value`.
    pub const fn new(rank: Rank, value: T) -> Self {
        RwLock {
            lock: Registered::new(
                rank,
                std::sync::RwLock::new(value),
                Registered::<std::sync::RwLock<T>>::release,
            ),
        }
    }

    /// Locks for reading (registering with the fork handlers on first use).
    #[inline]
    pub fn read(&'static self) -> std::sync::RwLockReadGuard<'static, T> {
        self.lock
            .get()
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Locks for writing (registering with the fork handlers on first use).
    #[inline]
    pub fn write(&'static self) -> std::sync::RwLockWriteGuard<'static, T> {
        self.lock.get().exclusive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_listed_once_in_lock_order() {
        for (i, r) in Rank::ALL.iter().enumerate() {
            assert_eq!(*r as usize, i, "{r:?}");
        }
    }

    static A: Mutex<Vec<u32>> = Mutex::new(Rank::IoEntries, Vec::new()).in_child(|v| v.push(7));

    /// Through `hold`/`release` of one rank: the whole `prepare`/`child` would also run
    /// the core's own hooks, which other tests of this process use.
    #[test]
    fn a_lock_registers_at_first_use_and_the_handlers_take_and_release_it() {
        assert!(!hold(Rank::IoEntries), "nothing registered yet");
        A.lock().push(1);
        assert!(registered_ranks().contains(&Rank::IoEntries));
        assert!(hold(Rank::IoEntries));
        assert!(!hold(Rank::IoEntries), "already held by this thread");
        // Held by this thread: another thread cannot take it.
        let other = std::thread::spawn(|| A.try_lock().is_none())
            .join()
            .unwrap();
        assert!(other);
        unhold(Rank::IoEntries);
        assert_eq!(*A.lock(), [1]);
        assert!(hold(Rank::IoEntries));
        release(Rank::IoEntries as usize, true);
        // The child hook ran on the data before the release.
        assert_eq!(*A.lock(), [1, 7]);
        // A release without a take on this thread does nothing.
        unhold(Rank::IoEntries);
        let other = std::thread::spawn(|| A.try_lock().is_some())
            .join()
            .unwrap();
        assert!(other);
        assert_eq!(A.lock().len(), 2);
    }
}
