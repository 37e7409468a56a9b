//! `parking_lot::{Mutex, RwLock, Condvar}`, measured (feature `parking_lot`).
//!
//! The locks keep parking_lot's methods: timed tries (`try_lock_for`, `try_lock_until`),
//! recursive and upgradable reads, `upgrade`/`downgrade`, `map`/`try_map` to mapped
//! guards, `unlocked`, `unlock_fair`, `bump`, `leak`, and `lock_arc`-style guards that own
//! an `Arc` of the lock. A read-write lock's upgradable reads are a mode of their own; an
//! upgrade ends the upgradable hold and starts a write acquisition (contended when
//! readers had to leave first); a downgrade ends the write hold and starts a read.
//!
//! Not offered: the `unsafe` methods (`force_unlock`, `raw`, `make_guard_unchecked`),
//! and the accessors that hand out the raw lock (`MutexGuard::mutex`,
//! `RwLockReadGuard::rwlock`), which would let acquisitions escape the count. The
//! `_arc` guards need `T: 'static`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::acquire::{acquire, acquire_by, downgrade, try_acquire, try_acquire_timed, try_upgrade};
use crate::macros::{forward, guard};
use crate::{ArcGuard, Lock, Mode};

type PMutex<T> = parking_lot::Mutex<T>;
type PRwLock<T> = parking_lot::RwLock<T>;

guard!(
    /// The guard of a measured `parking_lot::Mutex`.
    MutexGuard => parking_lot::MutexGuard, mut
);
guard!(
    /// A measured mutex guard narrowed to a part of the data (`MutexGuard::map`).
    MappedMutexGuard => parking_lot::MappedMutexGuard, mut
);
guard!(
    /// The read guard of a measured `parking_lot::RwLock`.
    RwLockReadGuard => parking_lot::RwLockReadGuard
);
guard!(
    /// The write guard of a measured `parking_lot::RwLock`.
    RwLockWriteGuard => parking_lot::RwLockWriteGuard, mut
);
guard!(
    /// The upgradable read guard of a measured `parking_lot::RwLock`.
    RwLockUpgradableReadGuard => parking_lot::RwLockUpgradableReadGuard
);
guard!(
    /// A measured read guard narrowed to a part of the data.
    MappedRwLockReadGuard => parking_lot::MappedRwLockReadGuard
);
guard!(
    /// A measured write guard narrowed to a part of the data.
    MappedRwLockWriteGuard => parking_lot::MappedRwLockWriteGuard, mut
);

/// `lock_arc`'s guard: owns an `Arc` of the measured mutex.
pub type ArcMutexGuard<T> = ArcGuard<PMutex<T>, parking_lot::MutexGuard<'static, T>>;
/// `read_arc`'s guard.
pub type ArcRwLockReadGuard<T> = ArcGuard<PRwLock<T>, parking_lot::RwLockReadGuard<'static, T>>;
/// `write_arc`'s guard.
pub type ArcRwLockWriteGuard<T> = ArcGuard<PRwLock<T>, parking_lot::RwLockWriteGuard<'static, T>>;

forward!(new parking_lot::Mutex => Mutex, "mutex", "hotpath::mutex!");

impl<T> Lock<PMutex<T>> {
    forward! {
        /// Consumes the mutex, returning the data.
        fn into_inner(self) -> T;
    }
}

impl<T: ?Sized> Lock<PMutex<T>> {
    /// Acquires the mutex, blocking until it is available.
    #[inline]
    pub fn lock(&self) -> MutexGuard<'_, T> {
        let (inner, hold) = acquire(self, Mode::Write, |m| m.try_lock(), |m| m.lock());
        MutexGuard { inner, hold }
    }

    /// Acquires the mutex if it is free now.
    #[inline]
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        try_acquire(self, Mode::Write, |m| m.try_lock())
            .map(|(inner, hold)| MutexGuard { inner, hold })
    }

    /// Acquires the mutex, waiting at most `timeout`.
    pub fn try_lock_for(&self, timeout: Duration) -> Option<MutexGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Write,
            |m| m.try_lock(),
            |m| m.try_lock_for(timeout),
        )
        .map(|(inner, hold)| MutexGuard { inner, hold })
    }

    /// Acquires the mutex, waiting at most until `timeout`.
    pub fn try_lock_until(&self, timeout: Instant) -> Option<MutexGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Write,
            |m| m.try_lock(),
            |m| m.try_lock_until(timeout),
        )
        .map(|(inner, hold)| MutexGuard { inner, hold })
    }

    forward! {
        /// Whether the mutex is locked now.
        fn is_locked(&self) -> bool;
        /// The data, through a unique borrow of the mutex.
        fn get_mut(&mut self) -> &mut T;
        /// A raw pointer to the data (see `parking_lot::Mutex::data_ptr`).
        fn data_ptr(&self) -> *mut T;
    }
}

impl<T: ?Sized + 'static> Lock<PMutex<T>> {
    /// Acquires the mutex through an `Arc`, for a guard that owns it.
    #[allow(unsafe_code)]
    pub fn lock_arc(self: &Arc<Self>) -> ArcMutexGuard<T> {
        let MutexGuard { inner, hold } = self.lock();
        // SAFETY: `inner` borrows only the mutex inside `**self`; the `ArcGuard` keeps a
        // clone of this `Arc`, drops `inner` before it, and never hands out the guard's
        // lifetime, so the borrow never outlives the mutex.
        let guard = unsafe {
            std::mem::transmute::<parking_lot::MutexGuard<'_, T>, parking_lot::MutexGuard<'static, T>>(
                inner,
            )
        };
        ArcGuard::new(guard, hold, self.clone())
    }

    /// Acquires the mutex through an `Arc` if it is free now.
    #[allow(unsafe_code)]
    pub fn try_lock_arc(self: &Arc<Self>) -> Option<ArcMutexGuard<T>> {
        let MutexGuard { inner, hold } = self.try_lock()?;
        // SAFETY: as in `lock_arc`.
        let guard = unsafe {
            std::mem::transmute::<parking_lot::MutexGuard<'_, T>, parking_lot::MutexGuard<'static, T>>(
                inner,
            )
        };
        Some(ArcGuard::new(guard, hold, self.clone()))
    }
}

impl<'a, T: ?Sized + 'a> MutexGuard<'a, T> {
    /// Narrows the guard to a part of the data; the hold goes on.
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(s: Self, f: F) -> MappedMutexGuard<'a, U> {
        let MutexGuard { inner, hold } = s;
        MappedMutexGuard {
            inner: parking_lot::MutexGuard::map(inner, f),
            hold,
        }
    }

    /// Narrows the guard if `f` finds the part; gives the guard back otherwise.
    pub fn try_map<U: ?Sized, F: FnOnce(&mut T) -> Option<&mut U>>(
        s: Self,
        f: F,
    ) -> Result<MappedMutexGuard<'a, U>, Self> {
        let MutexGuard { inner, hold } = s;
        match parking_lot::MutexGuard::try_map(inner, f) {
            Ok(inner) => Ok(MappedMutexGuard { inner, hold }),
            Err(inner) => Err(MutexGuard { inner, hold }),
        }
    }

    /// Runs `f` with the mutex unlocked, then locks it again: two acquisitions.
    pub fn unlocked<F: FnOnce() -> U, U>(s: &mut Self, f: F) -> U {
        let inner = &mut s.inner;
        s.hold
            .released(|| parking_lot::MutexGuard::unlocked(inner, f))
    }

    /// Unlocks with a fair hand-over to a waiting thread.
    pub fn unlock_fair(s: Self) {
        let MutexGuard { inner, hold } = s;
        parking_lot::MutexGuard::unlock_fair(inner);
        drop(hold);
    }

    /// Hands the mutex to a waiting thread, if any, and takes it back: the hold goes on.
    pub fn bump(s: &mut Self) {
        parking_lot::MutexGuard::bump(&mut s.inner)
    }

    /// Leaks the guard: the mutex stays locked; the acquisition is recorded now.
    pub fn leak(s: Self) -> &'a mut T {
        let MutexGuard { inner, hold } = s;
        drop(hold);
        parking_lot::MutexGuard::leak(inner)
    }
}

impl<'a, T: ?Sized + 'a> MappedMutexGuard<'a, T> {
    /// Narrows the guard further.
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(s: Self, f: F) -> MappedMutexGuard<'a, U> {
        let MappedMutexGuard { inner, hold } = s;
        MappedMutexGuard {
            inner: parking_lot::MappedMutexGuard::map(inner, f),
            hold,
        }
    }
}

forward!(new parking_lot::RwLock => RwLock, "lock", "hotpath::rw_lock!");

impl<T> Lock<PRwLock<T>> {
    forward! {
        /// Consumes the lock, returning the data.
        fn into_inner(self) -> T;
    }
}

impl<T: ?Sized> Lock<PRwLock<T>> {
    /// Acquires shared read access, blocking until it is available.
    #[inline]
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        let (inner, hold) = acquire(self, Mode::Read, |l| l.try_read(), |l| l.read());
        RwLockReadGuard { inner, hold }
    }

    /// Acquires shared read access even while a writer waits, if this thread already
    /// reads (see `parking_lot::RwLock::read_recursive`).
    pub fn read_recursive(&self) -> RwLockReadGuard<'_, T> {
        let (inner, hold) = acquire(
            self,
            Mode::Read,
            |l| l.try_read_recursive(),
            |l| l.read_recursive(),
        );
        RwLockReadGuard { inner, hold }
    }

    /// Acquires shared read access if it is available now.
    #[inline]
    pub fn try_read(&self) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire(self, Mode::Read, |l| l.try_read())
            .map(|(inner, hold)| RwLockReadGuard { inner, hold })
    }

    /// As [`Self::try_read`], recursively.
    pub fn try_read_recursive(&self) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire(self, Mode::Read, |l| l.try_read_recursive())
            .map(|(inner, hold)| RwLockReadGuard { inner, hold })
    }

    /// Acquires shared read access, waiting at most `timeout`.
    pub fn try_read_for(&self, timeout: Duration) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Read,
            |l| l.try_read(),
            |l| l.try_read_for(timeout),
        )
        .map(|(inner, hold)| RwLockReadGuard { inner, hold })
    }

    /// Acquires shared read access, waiting at most until `timeout`.
    pub fn try_read_until(&self, timeout: Instant) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Read,
            |l| l.try_read(),
            |l| l.try_read_until(timeout),
        )
        .map(|(inner, hold)| RwLockReadGuard { inner, hold })
    }

    /// Acquires exclusive write access, blocking until it is available.
    #[inline]
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        let (inner, hold) = acquire(self, Mode::Write, |l| l.try_write(), |l| l.write());
        RwLockWriteGuard { inner, hold }
    }

    /// Acquires exclusive write access if it is available now.
    #[inline]
    pub fn try_write(&self) -> Option<RwLockWriteGuard<'_, T>> {
        try_acquire(self, Mode::Write, |l| l.try_write())
            .map(|(inner, hold)| RwLockWriteGuard { inner, hold })
    }

    /// Acquires exclusive write access, waiting at most `timeout`.
    pub fn try_write_for(&self, timeout: Duration) -> Option<RwLockWriteGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Write,
            |l| l.try_write(),
            |l| l.try_write_for(timeout),
        )
        .map(|(inner, hold)| RwLockWriteGuard { inner, hold })
    }

    /// Acquires exclusive write access, waiting at most until `timeout`.
    pub fn try_write_until(&self, timeout: Instant) -> Option<RwLockWriteGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Write,
            |l| l.try_write(),
            |l| l.try_write_until(timeout),
        )
        .map(|(inner, hold)| RwLockWriteGuard { inner, hold })
    }

    /// Acquires upgradable read access (shared with readers, exclusive of writers and
    /// other upgradable readers), blocking until it is available.
    pub fn upgradable_read(&self) -> RwLockUpgradableReadGuard<'_, T> {
        let (inner, hold) = acquire(
            self,
            Mode::Upgradable,
            |l| l.try_upgradable_read(),
            |l| l.upgradable_read(),
        );
        RwLockUpgradableReadGuard { inner, hold }
    }

    /// Acquires upgradable read access if it is available now.
    pub fn try_upgradable_read(&self) -> Option<RwLockUpgradableReadGuard<'_, T>> {
        try_acquire(self, Mode::Upgradable, |l| l.try_upgradable_read())
            .map(|(inner, hold)| RwLockUpgradableReadGuard { inner, hold })
    }

    forward! {
        /// Whether the lock is held in any mode now.
        fn is_locked(&self) -> bool;
        /// Whether the lock is held for writing now.
        fn is_locked_exclusive(&self) -> bool;
        /// The data, through a unique borrow of the lock.
        fn get_mut(&mut self) -> &mut T;
        /// A raw pointer to the data (see `parking_lot::RwLock::data_ptr`).
        fn data_ptr(&self) -> *mut T;
    }
}

impl<T: ?Sized + 'static> Lock<PRwLock<T>> {
    /// Acquires shared read access through an `Arc`, for a guard that owns it.
    #[allow(unsafe_code)]
    pub fn read_arc(self: &Arc<Self>) -> ArcRwLockReadGuard<T> {
        let RwLockReadGuard { inner, hold } = self.read();
        // SAFETY: as in `Lock<parking_lot::Mutex<T>>::lock_arc`: the guard borrows only the
        // lock inside the `Arc` the `ArcGuard` keeps, and is dropped before it.
        let guard = unsafe {
            std::mem::transmute::<
                parking_lot::RwLockReadGuard<'_, T>,
                parking_lot::RwLockReadGuard<'static, T>,
            >(inner)
        };
        ArcGuard::new(guard, hold, self.clone())
    }

    /// Acquires exclusive write access through an `Arc`, for a guard that owns it.
    #[allow(unsafe_code)]
    pub fn write_arc(self: &Arc<Self>) -> ArcRwLockWriteGuard<T> {
        let RwLockWriteGuard { inner, hold } = self.write();
        // SAFETY: as in `read_arc`.
        let guard = unsafe {
            std::mem::transmute::<
                parking_lot::RwLockWriteGuard<'_, T>,
                parking_lot::RwLockWriteGuard<'static, T>,
            >(inner)
        };
        ArcGuard::new(guard, hold, self.clone())
    }
}

impl<'a, T: ?Sized + 'a> RwLockReadGuard<'a, T> {
    /// Narrows the guard to a part of the data.
    pub fn map<U: ?Sized, F: FnOnce(&T) -> &U>(s: Self, f: F) -> MappedRwLockReadGuard<'a, U> {
        let RwLockReadGuard { inner, hold } = s;
        MappedRwLockReadGuard {
            inner: parking_lot::RwLockReadGuard::map(inner, f),
            hold,
        }
    }

    /// Runs `f` with the read lock released, then reads again: two acquisitions.
    pub fn unlocked<F: FnOnce() -> U, U>(s: &mut Self, f: F) -> U {
        let inner = &mut s.inner;
        s.hold
            .released(|| parking_lot::RwLockReadGuard::unlocked(inner, f))
    }
}

impl<'a, T: ?Sized + 'a> RwLockWriteGuard<'a, T> {
    /// Narrows the guard to a part of the data.
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(
        s: Self,
        f: F,
    ) -> MappedRwLockWriteGuard<'a, U> {
        let RwLockWriteGuard { inner, hold } = s;
        MappedRwLockWriteGuard {
            inner: parking_lot::RwLockWriteGuard::map(inner, f),
            hold,
        }
    }

    /// Turns the write access into read access without letting a writer in: the write
    /// hold ends, a read hold starts.
    pub fn downgrade(s: Self) -> RwLockReadGuard<'a, T> {
        let RwLockWriteGuard { inner, hold } = s;
        let (inner, hold) = downgrade(
            inner,
            hold,
            Mode::Read,
            parking_lot::RwLockWriteGuard::downgrade,
        );
        RwLockReadGuard { inner, hold }
    }

    /// Turns the write access into upgradable read access.
    pub fn downgrade_to_upgradable(s: Self) -> RwLockUpgradableReadGuard<'a, T> {
        let RwLockWriteGuard { inner, hold } = s;
        let (inner, hold) = downgrade(
            inner,
            hold,
            Mode::Upgradable,
            parking_lot::RwLockWriteGuard::downgrade_to_upgradable,
        );
        RwLockUpgradableReadGuard { inner, hold }
    }

    /// Runs `f` with the write lock released, then writes again: two acquisitions.
    pub fn unlocked<F: FnOnce() -> U, U>(s: &mut Self, f: F) -> U {
        let inner = &mut s.inner;
        s.hold
            .released(|| parking_lot::RwLockWriteGuard::unlocked(inner, f))
    }
}

impl<'a, T: ?Sized + 'a> RwLockUpgradableReadGuard<'a, T> {
    /// Upgrades to write access, waiting for the readers to leave: the upgradable hold
    /// ends and a write acquisition starts (contended if readers were there).
    pub fn upgrade(s: Self) -> RwLockWriteGuard<'a, T> {
        let RwLockUpgradableReadGuard { inner, hold } = s;
        let (inner, hold) = acquire_by(
            hold.end(),
            Mode::Write,
            inner,
            parking_lot::RwLockUpgradableReadGuard::try_upgrade,
            parking_lot::RwLockUpgradableReadGuard::upgrade,
        );
        RwLockWriteGuard { inner, hold }
    }

    /// Upgrades to write access if no reader is there; gives the guard back otherwise.
    pub fn try_upgrade(s: Self) -> Result<RwLockWriteGuard<'a, T>, Self> {
        let RwLockUpgradableReadGuard { inner, hold } = s;
        match try_upgrade(
            inner,
            hold,
            parking_lot::RwLockUpgradableReadGuard::try_upgrade,
        ) {
            Ok((inner, hold)) => Ok(RwLockWriteGuard { inner, hold }),
            Err((inner, hold)) => Err(RwLockUpgradableReadGuard { inner, hold }),
        }
    }

    /// Turns the upgradable access into plain read access.
    pub fn downgrade(s: Self) -> RwLockReadGuard<'a, T> {
        let RwLockUpgradableReadGuard { inner, hold } = s;
        let (inner, hold) = downgrade(
            inner,
            hold,
            Mode::Read,
            parking_lot::RwLockUpgradableReadGuard::downgrade,
        );
        RwLockReadGuard { inner, hold }
    }
}

/// `parking_lot::Condvar` for the guards of measured mutexes: the same methods, taking
/// the measured guard. A wait releases the mutex: the hold before and after it are two
/// acquisitions, and the wait is charged to the function as lock waiting.
#[derive(Debug, Default)]
pub struct Condvar {
    inner: parking_lot::Condvar,
}

impl Condvar {
    /// A condition variable, usable in a `static`.
    pub const fn new() -> Self {
        Condvar {
            inner: parking_lot::Condvar::new(),
        }
    }

    /// Blocks until notified, releasing the mutex meanwhile.
    pub fn wait<T: ?Sized>(&self, guard: &mut MutexGuard<'_, T>) {
        let inner = &mut guard.inner;
        guard.hold.condvar_wait(|| self.inner.wait(inner))
    }

    /// Blocks until notified or `timeout` has passed.
    pub fn wait_for<T: ?Sized>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        timeout: Duration,
    ) -> parking_lot::WaitTimeoutResult {
        let inner = &mut guard.inner;
        guard
            .hold
            .condvar_wait(|| self.inner.wait_for(inner, timeout))
    }

    /// Blocks until notified or `timeout` is reached.
    pub fn wait_until<T: ?Sized>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        timeout: Instant,
    ) -> parking_lot::WaitTimeoutResult {
        let inner = &mut guard.inner;
        guard
            .hold
            .condvar_wait(|| self.inner.wait_until(inner, timeout))
    }

    /// Blocks while `condition` returns true; the whole call counts as one wait.
    pub fn wait_while<T: ?Sized, F: FnMut(&mut T) -> bool>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        condition: F,
    ) {
        let inner = &mut guard.inner;
        guard
            .hold
            .condvar_wait(|| self.inner.wait_while(inner, condition))
    }

    /// Wakes one waiting thread; whether there was one.
    pub fn notify_one(&self) -> bool {
        self.inner.notify_one()
    }

    /// Wakes every waiting thread; how many.
    pub fn notify_all(&self) -> usize {
        self.inner.notify_all()
    }
}
