//! `parking_lot::{Mutex, RwLock, Condvar}`, measured (feature `parking_lot`).
//!
//! The locks keep lock_api 0.4's safe methods, for borrowing and `_arc` guards alike:
//! timed tries (`try_lock_for`, `try_read_arc_until`, `try_upgrade_for`, …), recursive
//! and upgradable reads, `upgrade`/`downgrade` and `with_upgraded`, `map`/`try_map`/
//! `try_map_or_err` to mapped guards, `unlocked`, `unlocked_fair`, `unlock_fair`, `bump`,
//! `leak`, `into_arc`, and the accessors of the lock a guard holds (`MutexGuard::mutex`,
//! `RwLockReadGuard::rwlock`, `ArcMutexGuard::mutex`, …), which give the *measured*
//! lock, so no acquisition escapes the count through them.
//!
//! What each one records, as the methods of the same kind already did:
//!
//! - An acquisition (`lock`, `read_arc`, `upgradable_read`, …) is one acquisition of its
//!   mode, contended when its first try fails. A timed one (`try_*_for`, `try_*_until`)
//!   is contended when its first try fails, and a failed try (no hold) when it times out.
//! - `unlocked`, `unlocked_fair` and `bump` release the lock and take it back: the hold
//!   before and the hold after are two acquisitions (`bump` too when no thread was
//!   waiting: it is `unlock_fair` and `lock`, done cheaply).
//! - A read-write lock's upgradable reads are a mode of their own. `upgrade` ends the
//!   upgradable hold and starts a write acquisition (contended when readers had to leave
//!   first); `try_upgrade` is a try of the write mode, and the timed upgrades a timed
//!   one (the upgradable hold ends once the upgrade succeeded); a downgrade ends the
//!   write hold and starts a read or upgradable one. `with_upgraded` and its `try_` forms
//!   are an upgrade, a write hold while `f` runs, and a downgrade to upgradable.
//! - A map keeps the hold going; `leak` records the acquisition at once; `into_arc`
//!   ends it.
//!
//! Not offered: the `unsafe` methods (`force_unlock*`, `raw`, `make_*_guard_unchecked`),
//! through which locks would be taken and released out of the count. The `_arc` guards
//! need `T: 'static`. A borrowing guard that names its lock (`MutexGuard`, the read,
//! write and upgradable read guards) keeps a reference to it (one word more than the
//! raw guard), and is `Sync` when the data is `Send` and `Sync` (the raw one: `Sync`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::lock_api::{RawRwLockUpgrade, RawRwLockUpgradeDowngrade, RawRwLockUpgradeTimed};

use crate::acquire::{
    acquire, acquire_by, downgrade, hold_now, try_acquire, try_acquire_by, try_acquire_timed,
    try_acquire_timed_by, try_upgrade,
};
use crate::macros::{forward, guard};
use crate::{ArcGuard, Hold, Lock, Mode};

type PMutex<T> = parking_lot::Mutex<T>;
type PRwLock<T> = parking_lot::RwLock<T>;
type PUpgradable<'a, T> = parking_lot::RwLockUpgradableReadGuard<'a, T>;
type PWrite<'a, T> = parking_lot::RwLockWriteGuard<'a, T>;
type PRead<'a, T> = parking_lot::RwLockReadGuard<'a, T>;

guard!(
    /// The guard of a measured `parking_lot::Mutex`.
    MutexGuard => parking_lot::MutexGuard, mut; lock = PMutex
);
guard!(
    /// A measured mutex guard narrowed to a part of the data (`MutexGuard::map`).
    MappedMutexGuard => parking_lot::MappedMutexGuard, mut
);
guard!(
    /// The read guard of a measured `parking_lot::RwLock`.
    RwLockReadGuard => parking_lot::RwLockReadGuard; lock = PRwLock
);
guard!(
    /// The write guard of a measured `parking_lot::RwLock`.
    RwLockWriteGuard => parking_lot::RwLockWriteGuard, mut; lock = PRwLock
);
guard!(
    /// The upgradable read guard of a measured `parking_lot::RwLock`.
    RwLockUpgradableReadGuard => parking_lot::RwLockUpgradableReadGuard; lock = PRwLock
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
pub type ArcRwLockReadGuard<T> = ArcGuard<PRwLock<T>, PRead<'static, T>>;
/// `write_arc`'s guard.
pub type ArcRwLockWriteGuard<T> = ArcGuard<PRwLock<T>, PWrite<'static, T>>;
/// `upgradable_read_arc`'s guard.
pub type ArcRwLockUpgradableReadGuard<T> = ArcGuard<PRwLock<T>, PUpgradable<'static, T>>;

/// `fn $name(lock, guard) -> $arc`: a measured borrowing guard `$guard` of the lock inside
/// the `Arc` `lock`, turned into the guard that owns a clone of the `Arc`.
macro_rules! to_arc {
    ($name:ident: $guard:ident<$lock:ident> => $arc:ident, $raw:ident) => {
        /// `g` must be a guard of the lock inside `lock`.
        #[allow(unsafe_code)]
        fn $name<T: ?Sized + 'static>(lock: &Arc<Lock<$lock<T>>>, g: $guard<'_, T>) -> $arc<T> {
            let $guard { inner, hold, .. } = g;
            // SAFETY: `inner` borrows only the lock inside `**lock` (every caller acquired
            // it through that `Arc`); the `ArcGuard` keeps a clone of the `Arc`, drops
            // `inner` before it and never hands the guard out (see `ArcGuard`'s Soundness),
            // so the borrow never outlives the lock.
            let inner = unsafe {
                std::mem::transmute::<parking_lot::$raw<'_, T>, parking_lot::$raw<'static, T>>(
                    inner,
                )
            };
            ArcGuard::new(inner, hold, lock.clone())
        }
    };
}
to_arc!(arc_mutex: MutexGuard<PMutex> => ArcMutexGuard, MutexGuard);
to_arc!(arc_read: RwLockReadGuard<PRwLock> => ArcRwLockReadGuard, RwLockReadGuard);
to_arc!(arc_write: RwLockWriteGuard<PRwLock> => ArcRwLockWriteGuard, RwLockWriteGuard);
to_arc!(
    arc_upgradable: RwLockUpgradableReadGuard<PRwLock> => ArcRwLockUpgradableReadGuard,
    RwLockUpgradableReadGuard
);

/// `map`, `try_map` and `$or_err` (lock_api's `try_map_or_err`, or `try_map_or_else`) on
/// the guard `$guard` (whose fields besides the inner guard and hold are `$keep`), to the
/// mapped guard `$mapped`, the data borrowed as `$($r)+`: the hold goes on.
macro_rules! maps {
    ($guard:ident { $($keep:ident),* } => $mapped:ident, ($($r:tt)+), $or_err:ident) => {
        impl<'a, T: ?Sized + 'a> $guard<'a, T> {
            /// Narrows the guard to a part of the data; the hold goes on.
            pub fn map<U: ?Sized, F>(s: Self, f: F) -> $mapped<'a, U>
            where
                F: FnOnce($($r)+ T) -> $($r)+ U,
            {
                let $guard { inner, hold, .. } = s;
                $mapped {
                    inner: parking_lot::$guard::map(inner, f),
                    hold,
                }
            }

            /// Narrows the guard if `f` finds the part; gives the guard back otherwise.
            pub fn try_map<U: ?Sized, F>(s: Self, f: F) -> Result<$mapped<'a, U>, Self>
            where
                F: FnOnce($($r)+ T) -> Option<$($r)+ U>,
            {
                let $guard { inner, hold, $($keep),* } = s;
                match parking_lot::$guard::try_map(inner, f) {
                    Ok(inner) => Ok($mapped { inner, hold }),
                    Err(inner) => Err($guard { inner, hold, $($keep),* }),
                }
            }

            /// Narrows the guard if `f` finds the part; gives the guard back with `f`'s
            /// error otherwise.
            pub fn $or_err<U: ?Sized, F, E>(s: Self, f: F) -> Result<$mapped<'a, U>, (Self, E)>
            where
                F: FnOnce($($r)+ T) -> Result<$($r)+ U, E>,
            {
                let $guard { inner, hold, $($keep),* } = s;
                match parking_lot::$guard::$or_err(inner, f) {
                    Ok(inner) => Ok($mapped { inner, hold }),
                    Err((inner, e)) => Err(($guard { inner, hold, $($keep),* }, e)),
                }
            }
        }
    };
}

/// `unlock_fair` on the guard `$guard`; with `unlocked`, also `unlocked`, `unlocked_fair`
/// and `bump`, which release the lock and take it back: two acquisitions.
macro_rules! fair {
    ($guard:ident) => {
        impl<'a, T: ?Sized + 'a> $guard<'a, T> {
            /// Unlocks with a fair hand-over to a waiting thread.
            pub fn unlock_fair(s: Self) {
                let $guard { inner, hold, .. } = s;
                parking_lot::$guard::unlock_fair(inner);
                drop(hold);
            }
        }
    };
    ($guard:ident, unlocked) => {
        $crate::parking_lot::fair!($guard);

        impl<'a, T: ?Sized + 'a> $guard<'a, T> {
            /// Runs `f` with the lock released, then takes it again: the hold before and
            /// the hold after are two acquisitions.
            pub fn unlocked<F, U>(s: &mut Self, f: F) -> U
            where
                F: FnOnce() -> U,
            {
                let inner = &mut s.inner;
                s.hold.released(|| parking_lot::$guard::unlocked(inner, f))
            }

            /// As `unlocked`, releasing with a fair hand-over to a waiting thread.
            pub fn unlocked_fair<F, U>(s: &mut Self, f: F) -> U
            where
                F: FnOnce() -> U,
            {
                let inner = &mut s.inner;
                s.hold
                    .released(|| parking_lot::$guard::unlocked_fair(inner, f))
            }

            /// Hands the lock to a waiting thread, if any, and takes it back: as
            /// `unlock_fair` and a new acquisition, the hold before and the hold after
            /// are two acquisitions (also when no thread was waiting).
            pub fn bump(s: &mut Self) {
                let inner = &mut s.inner;
                s.hold.released(|| parking_lot::$guard::bump(inner))
            }
        }
    };
}
use fair;

/// What the `_arc` guard over the raw guard `$raw` of a `$lock<T>` has beyond its data:
/// `$accessor` (`mutex` or `rwlock`), `into_arc`, `into_arc_fair`, `unlock_fair`,
/// `unlocked`, `unlocked_fair`, `bump`; the same records as the borrowing guards'.
macro_rules! arc_fair {
    ($lock:ident, $raw:ident, $accessor:ident) => {
        impl<T: ?Sized + 'static> ArcGuard<$lock<T>, parking_lot::$raw<'static, T>> {
            /// The measured lock this guard holds.
            pub fn $accessor(s: &Self) -> &Arc<Lock<$lock<T>>> {
                ArcGuard::lock(s)
            }

            /// Unlocks, giving the `Arc` of the lock back: the hold ends.
            pub fn into_arc(s: Self) -> Arc<Lock<$lock<T>>> {
                ArcGuard::release(s, drop)
            }

            /// As `into_arc`, with a fair hand-over to a waiting thread.
            pub fn into_arc_fair(s: Self) -> Arc<Lock<$lock<T>>> {
                ArcGuard::release(s, parking_lot::$raw::unlock_fair)
            }

            /// Unlocks with a fair hand-over to a waiting thread.
            pub fn unlock_fair(s: Self) {
                drop(Self::into_arc_fair(s));
            }

            /// Runs `f` with the lock released, then takes it again: the hold before and
            /// the hold after are two acquisitions.
            pub fn unlocked<F, U>(s: &mut Self, f: F) -> U
            where
                F: FnOnce() -> U,
            {
                let (inner, hold) = ArcGuard::parts(s);
                hold.released(|| parking_lot::$raw::unlocked(inner, f))
            }

            /// As `unlocked`, releasing with a fair hand-over to a waiting thread.
            pub fn unlocked_fair<F, U>(s: &mut Self, f: F) -> U
            where
                F: FnOnce() -> U,
            {
                let (inner, hold) = ArcGuard::parts(s);
                hold.released(|| parking_lot::$raw::unlocked_fair(inner, f))
            }

            /// Hands the lock to a waiting thread, if any, and takes it back: two
            /// acquisitions, as the borrowing guard's `bump`.
            pub fn bump(s: &mut Self) {
                let (inner, hold) = ArcGuard::parts(s);
                hold.released(|| parking_lot::$raw::bump(inner))
            }
        }
    };
}

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
        MutexGuard {
            inner,
            hold,
            lock: self,
        }
    }

    /// Acquires the mutex if it is free now.
    #[inline]
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        try_acquire(self, Mode::Write, |m| m.try_lock()).map(|(inner, hold)| MutexGuard {
            inner,
            hold,
            lock: self,
        })
    }

    /// Acquires the mutex, waiting at most `timeout`.
    pub fn try_lock_for(&self, timeout: Duration) -> Option<MutexGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Write,
            |m| m.try_lock(),
            |m| m.try_lock_for(timeout),
        )
        .map(|(inner, hold)| MutexGuard {
            inner,
            hold,
            lock: self,
        })
    }

    /// Acquires the mutex, waiting at most until `timeout`.
    pub fn try_lock_until(&self, timeout: Instant) -> Option<MutexGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Write,
            |m| m.try_lock(),
            |m| m.try_lock_until(timeout),
        )
        .map(|(inner, hold)| MutexGuard {
            inner,
            hold,
            lock: self,
        })
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
    pub fn lock_arc(self: &Arc<Self>) -> ArcMutexGuard<T> {
        arc_mutex(self, self.lock())
    }

    /// Acquires the mutex through an `Arc` if it is free now.
    pub fn try_lock_arc(self: &Arc<Self>) -> Option<ArcMutexGuard<T>> {
        self.try_lock().map(|g| arc_mutex(self, g))
    }

    /// Acquires the mutex through an `Arc`, waiting at most `timeout`.
    pub fn try_lock_arc_for(self: &Arc<Self>, timeout: Duration) -> Option<ArcMutexGuard<T>> {
        self.try_lock_for(timeout).map(|g| arc_mutex(self, g))
    }

    /// Acquires the mutex through an `Arc`, waiting at most until `timeout`.
    pub fn try_lock_arc_until(self: &Arc<Self>, timeout: Instant) -> Option<ArcMutexGuard<T>> {
        self.try_lock_until(timeout).map(|g| arc_mutex(self, g))
    }
}

impl<'a, T: ?Sized + 'a> MutexGuard<'a, T> {
    /// The measured mutex this guard holds.
    pub fn mutex(s: &Self) -> &'a Lock<PMutex<T>> {
        s.lock
    }

    /// Leaks the guard: the mutex stays locked; the acquisition is recorded now.
    pub fn leak(s: Self) -> &'a mut T {
        let MutexGuard { inner, hold, .. } = s;
        drop(hold);
        parking_lot::MutexGuard::leak(inner)
    }
}

maps!(MutexGuard { lock } => MappedMutexGuard, (&mut), try_map_or_err);
maps!(MappedMutexGuard {} => MappedMutexGuard, (&mut), try_map_or_err);
fair!(MutexGuard, unlocked);
fair!(MappedMutexGuard);
arc_fair!(PMutex, MutexGuard, mutex);

forward!(new parking_lot::RwLock => RwLock, "lock", "hotpath::rw_lock!");

impl<T> Lock<PRwLock<T>> {
    forward! {
        /// Consumes the lock, returning the data.
        fn into_inner(self) -> T;
    }
}

impl<T: ?Sized> Lock<PRwLock<T>> {
    /// The read guard of an acquisition just made.
    #[inline(always)]
    fn read_guard<'a>(&'a self, (inner, hold): (PRead<'a, T>, Hold)) -> RwLockReadGuard<'a, T> {
        RwLockReadGuard {
            inner,
            hold,
            lock: self,
        }
    }

    /// The write guard of an acquisition just made.
    #[inline(always)]
    fn write_guard<'a>(&'a self, (inner, hold): (PWrite<'a, T>, Hold)) -> RwLockWriteGuard<'a, T> {
        RwLockWriteGuard {
            inner,
            hold,
            lock: self,
        }
    }

    /// The upgradable read guard of an acquisition just made.
    fn upgradable_guard<'a>(
        &'a self,
        (inner, hold): (PUpgradable<'a, T>, Hold),
    ) -> RwLockUpgradableReadGuard<'a, T> {
        RwLockUpgradableReadGuard {
            inner,
            hold,
            lock: self,
        }
    }

    /// Acquires shared read access, blocking until it is available.
    #[inline]
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        self.read_guard(acquire(self, Mode::Read, |l| l.try_read(), |l| l.read()))
    }

    /// Acquires shared read access even while a writer waits, if this thread already
    /// reads (see `parking_lot::RwLock::read_recursive`).
    pub fn read_recursive(&self) -> RwLockReadGuard<'_, T> {
        self.read_guard(acquire(
            self,
            Mode::Read,
            |l| l.try_read_recursive(),
            |l| l.read_recursive(),
        ))
    }

    /// Acquires shared read access if it is available now.
    #[inline]
    pub fn try_read(&self) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire(self, Mode::Read, |l| l.try_read()).map(|g| self.read_guard(g))
    }

    /// As [`Self::try_read`], recursively.
    pub fn try_read_recursive(&self) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire(self, Mode::Read, |l| l.try_read_recursive()).map(|g| self.read_guard(g))
    }

    /// Acquires shared read access, waiting at most `timeout`.
    pub fn try_read_for(&self, timeout: Duration) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Read,
            |l| l.try_read(),
            |l| l.try_read_for(timeout),
        )
        .map(|g| self.read_guard(g))
    }

    /// Acquires shared read access, waiting at most until `timeout`.
    pub fn try_read_until(&self, timeout: Instant) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Read,
            |l| l.try_read(),
            |l| l.try_read_until(timeout),
        )
        .map(|g| self.read_guard(g))
    }

    /// As [`Self::try_read_for`], recursively.
    pub fn try_read_recursive_for(&self, timeout: Duration) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Read,
            |l| l.try_read_recursive(),
            |l| l.try_read_recursive_for(timeout),
        )
        .map(|g| self.read_guard(g))
    }

    /// As [`Self::try_read_until`], recursively.
    pub fn try_read_recursive_until(&self, timeout: Instant) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Read,
            |l| l.try_read_recursive(),
            |l| l.try_read_recursive_until(timeout),
        )
        .map(|g| self.read_guard(g))
    }

    /// Acquires exclusive write access, blocking until it is available.
    #[inline]
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.write_guard(acquire(self, Mode::Write, |l| l.try_write(), |l| l.write()))
    }

    /// Acquires exclusive write access if it is available now.
    #[inline]
    pub fn try_write(&self) -> Option<RwLockWriteGuard<'_, T>> {
        try_acquire(self, Mode::Write, |l| l.try_write()).map(|g| self.write_guard(g))
    }

    /// Acquires exclusive write access, waiting at most `timeout`.
    pub fn try_write_for(&self, timeout: Duration) -> Option<RwLockWriteGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Write,
            |l| l.try_write(),
            |l| l.try_write_for(timeout),
        )
        .map(|g| self.write_guard(g))
    }

    /// Acquires exclusive write access, waiting at most until `timeout`.
    pub fn try_write_until(&self, timeout: Instant) -> Option<RwLockWriteGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Write,
            |l| l.try_write(),
            |l| l.try_write_until(timeout),
        )
        .map(|g| self.write_guard(g))
    }

    /// Acquires upgradable read access (shared with readers, exclusive of writers and
    /// other upgradable readers), blocking until it is available.
    pub fn upgradable_read(&self) -> RwLockUpgradableReadGuard<'_, T> {
        self.upgradable_guard(acquire(
            self,
            Mode::Upgradable,
            |l| l.try_upgradable_read(),
            |l| l.upgradable_read(),
        ))
    }

    /// Acquires upgradable read access if it is available now.
    pub fn try_upgradable_read(&self) -> Option<RwLockUpgradableReadGuard<'_, T>> {
        try_acquire(self, Mode::Upgradable, |l| l.try_upgradable_read())
            .map(|g| self.upgradable_guard(g))
    }

    /// Acquires upgradable read access, waiting at most `timeout`.
    pub fn try_upgradable_read_for(
        &self,
        timeout: Duration,
    ) -> Option<RwLockUpgradableReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Upgradable,
            |l| l.try_upgradable_read(),
            |l| l.try_upgradable_read_for(timeout),
        )
        .map(|g| self.upgradable_guard(g))
    }

    /// Acquires upgradable read access, waiting at most until `timeout`.
    pub fn try_upgradable_read_until(
        &self,
        timeout: Instant,
    ) -> Option<RwLockUpgradableReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Upgradable,
            |l| l.try_upgradable_read(),
            |l| l.try_upgradable_read_until(timeout),
        )
        .map(|g| self.upgradable_guard(g))
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
    pub fn read_arc(self: &Arc<Self>) -> ArcRwLockReadGuard<T> {
        arc_read(self, self.read())
    }

    /// As [`Self::read_arc`], if read access is available now.
    pub fn try_read_arc(self: &Arc<Self>) -> Option<ArcRwLockReadGuard<T>> {
        self.try_read().map(|g| arc_read(self, g))
    }

    /// As [`Self::read_arc`], waiting at most `timeout`.
    pub fn try_read_arc_for(self: &Arc<Self>, timeout: Duration) -> Option<ArcRwLockReadGuard<T>> {
        self.try_read_for(timeout).map(|g| arc_read(self, g))
    }

    /// As [`Self::read_arc`], waiting at most until `timeout`.
    pub fn try_read_arc_until(self: &Arc<Self>, timeout: Instant) -> Option<ArcRwLockReadGuard<T>> {
        self.try_read_until(timeout).map(|g| arc_read(self, g))
    }

    /// As [`Self::read_recursive`], through an `Arc`.
    pub fn read_arc_recursive(self: &Arc<Self>) -> ArcRwLockReadGuard<T> {
        arc_read(self, self.read_recursive())
    }

    /// As [`Self::try_read_recursive`], through an `Arc`.
    pub fn try_read_recursive_arc(self: &Arc<Self>) -> Option<ArcRwLockReadGuard<T>> {
        self.try_read_recursive().map(|g| arc_read(self, g))
    }

    /// As [`Self::try_read_recursive_for`], through an `Arc`.
    pub fn try_read_arc_recursive_for(
        self: &Arc<Self>,
        timeout: Duration,
    ) -> Option<ArcRwLockReadGuard<T>> {
        self.try_read_recursive_for(timeout)
            .map(|g| arc_read(self, g))
    }

    /// As [`Self::try_read_recursive_until`], through an `Arc`.
    pub fn try_read_arc_recursive_until(
        self: &Arc<Self>,
        timeout: Instant,
    ) -> Option<ArcRwLockReadGuard<T>> {
        self.try_read_recursive_until(timeout)
            .map(|g| arc_read(self, g))
    }

    /// Acquires exclusive write access through an `Arc`, for a guard that owns it.
    pub fn write_arc(self: &Arc<Self>) -> ArcRwLockWriteGuard<T> {
        arc_write(self, self.write())
    }

    /// As [`Self::write_arc`], if write access is available now.
    pub fn try_write_arc(self: &Arc<Self>) -> Option<ArcRwLockWriteGuard<T>> {
        self.try_write().map(|g| arc_write(self, g))
    }

    /// As [`Self::write_arc`], waiting at most `timeout`.
    pub fn try_write_arc_for(
        self: &Arc<Self>,
        timeout: Duration,
    ) -> Option<ArcRwLockWriteGuard<T>> {
        self.try_write_for(timeout).map(|g| arc_write(self, g))
    }

    /// As [`Self::write_arc`], waiting at most until `timeout`.
    pub fn try_write_arc_until(
        self: &Arc<Self>,
        timeout: Instant,
    ) -> Option<ArcRwLockWriteGuard<T>> {
        self.try_write_until(timeout).map(|g| arc_write(self, g))
    }

    /// Acquires upgradable read access through an `Arc`, for a guard that owns it.
    pub fn upgradable_read_arc(self: &Arc<Self>) -> ArcRwLockUpgradableReadGuard<T> {
        arc_upgradable(self, self.upgradable_read())
    }

    /// As [`Self::upgradable_read_arc`], if the access is available now.
    pub fn try_upgradable_read_arc(self: &Arc<Self>) -> Option<ArcRwLockUpgradableReadGuard<T>> {
        self.try_upgradable_read().map(|g| arc_upgradable(self, g))
    }

    /// As [`Self::upgradable_read_arc`], waiting at most `timeout`.
    pub fn try_upgradable_read_arc_for(
        self: &Arc<Self>,
        timeout: Duration,
    ) -> Option<ArcRwLockUpgradableReadGuard<T>> {
        self.try_upgradable_read_for(timeout)
            .map(|g| arc_upgradable(self, g))
    }

    /// As [`Self::upgradable_read_arc`], waiting at most until `timeout`.
    pub fn try_upgradable_read_arc_until(
        self: &Arc<Self>,
        timeout: Instant,
    ) -> Option<ArcRwLockUpgradableReadGuard<T>> {
        self.try_upgradable_read_until(timeout)
            .map(|g| arc_upgradable(self, g))
    }
}

impl<'a, T: ?Sized + 'a> RwLockReadGuard<'a, T> {
    /// The measured lock this guard holds.
    pub fn rwlock(s: &Self) -> &'a Lock<PRwLock<T>> {
        s.lock
    }
}

impl<'a, T: ?Sized + 'a> RwLockWriteGuard<'a, T> {
    /// The measured lock this guard holds.
    pub fn rwlock(s: &Self) -> &'a Lock<PRwLock<T>> {
        s.lock
    }

    /// Turns the write access into read access without letting a writer in: the write
    /// hold ends, a read hold starts.
    pub fn downgrade(s: Self) -> RwLockReadGuard<'a, T> {
        let RwLockWriteGuard { inner, hold, lock } = s;
        let (inner, hold) = downgrade_to_read(inner, hold);
        RwLockReadGuard { inner, hold, lock }
    }

    /// Turns the write access into upgradable read access.
    pub fn downgrade_to_upgradable(s: Self) -> RwLockUpgradableReadGuard<'a, T> {
        let RwLockWriteGuard { inner, hold, lock } = s;
        let (inner, hold) = downgrade_to_upgradable(inner, hold);
        RwLockUpgradableReadGuard { inner, hold, lock }
    }
}

impl<'a, T: ?Sized + 'a> RwLockUpgradableReadGuard<'a, T> {
    /// The measured lock this guard holds.
    pub fn rwlock(s: &Self) -> &'a Lock<PRwLock<T>> {
        s.lock
    }

    /// Upgrades to write access, waiting for the readers to leave: the upgradable hold
    /// ends and a write acquisition starts (contended if readers were there).
    pub fn upgrade(s: Self) -> RwLockWriteGuard<'a, T> {
        let RwLockUpgradableReadGuard { inner, hold, lock } = s;
        let (inner, hold) = upgrade(inner, hold);
        RwLockWriteGuard { inner, hold, lock }
    }

    /// Upgrades to write access if no reader is there; gives the guard back otherwise
    /// (a failed try of the write mode).
    pub fn try_upgrade(s: Self) -> Result<RwLockWriteGuard<'a, T>, Self> {
        let RwLockUpgradableReadGuard { inner, hold, lock } = s;
        match try_upgrade(inner, hold, PUpgradable::try_upgrade) {
            Ok((inner, hold)) => Ok(RwLockWriteGuard { inner, hold, lock }),
            Err((inner, hold)) => Err(RwLockUpgradableReadGuard { inner, hold, lock }),
        }
    }

    /// Upgrades to write access, waiting at most `timeout` for the readers to leave;
    /// gives the guard back otherwise (a failed try of the write mode).
    pub fn try_upgrade_for(s: Self, timeout: Duration) -> Result<RwLockWriteGuard<'a, T>, Self> {
        let RwLockUpgradableReadGuard { inner, hold, lock } = s;
        match upgrade_timed(inner, hold, |g| PUpgradable::try_upgrade_for(g, timeout)) {
            Ok((inner, hold)) => Ok(RwLockWriteGuard { inner, hold, lock }),
            Err((inner, hold)) => Err(RwLockUpgradableReadGuard { inner, hold, lock }),
        }
    }

    /// As [`Self::try_upgrade_for`], waiting at most until `timeout`.
    pub fn try_upgrade_until(s: Self, timeout: Instant) -> Result<RwLockWriteGuard<'a, T>, Self> {
        let RwLockUpgradableReadGuard { inner, hold, lock } = s;
        match upgrade_timed(inner, hold, |g| PUpgradable::try_upgrade_until(g, timeout)) {
            Ok((inner, hold)) => Ok(RwLockWriteGuard { inner, hold, lock }),
            Err((inner, hold)) => Err(RwLockUpgradableReadGuard { inner, hold, lock }),
        }
    }

    /// Turns the upgradable access into plain read access.
    pub fn downgrade(s: Self) -> RwLockReadGuard<'a, T> {
        let RwLockUpgradableReadGuard { inner, hold, lock } = s;
        let (inner, hold) = upgradable_to_read(inner, hold);
        RwLockReadGuard { inner, hold, lock }
    }

    /// Upgrades to write access (waiting for the readers to leave), runs `f` on the
    /// data, and downgrades back to upgradable read access: the upgradable hold ends, a
    /// write acquisition holds while `f` runs, then an upgradable hold starts.
    pub fn with_upgraded<Ret, F: FnOnce(&mut T) -> Ret>(&mut self, f: F) -> Ret {
        with_upgraded(&self.inner, &mut self.hold, f)
    }

    /// As [`Self::with_upgraded`] if no reader is there now; `None` (a failed try of the
    /// write mode, the upgradable hold going on) otherwise.
    pub fn try_with_upgraded<Ret, F: FnOnce(&mut T) -> Ret>(&mut self, f: F) -> Option<Ret> {
        upgraded(&self.inner, &mut self.hold, Upgrade::Now, f)
    }

    /// As [`Self::with_upgraded`], waiting at most `timeout` for the readers to leave;
    /// `None` (a failed try of the write mode) if they did not.
    pub fn try_with_upgraded_for<Ret, F: FnOnce(&mut T) -> Ret>(
        &mut self,
        timeout: Duration,
        f: F,
    ) -> Option<Ret> {
        upgraded(&self.inner, &mut self.hold, Upgrade::For(timeout), f)
    }

    /// As [`Self::try_with_upgraded_for`], waiting at most until `timeout`.
    pub fn try_with_upgraded_until<Ret, F: FnOnce(&mut T) -> Ret>(
        &mut self,
        timeout: Instant,
        f: F,
    ) -> Option<Ret> {
        upgraded(&self.inner, &mut self.hold, Upgrade::Until(timeout), f)
    }
}

maps!(RwLockReadGuard { lock } => MappedRwLockReadGuard, (&), try_map_or_err);
maps!(RwLockWriteGuard { lock } => MappedRwLockWriteGuard, (&mut), try_map_or_err);
maps!(MappedRwLockReadGuard {} => MappedRwLockReadGuard, (&), try_map_or_else);
maps!(MappedRwLockWriteGuard {} => MappedRwLockWriteGuard, (&mut), try_map_or_err);
fair!(RwLockReadGuard, unlocked);
fair!(RwLockWriteGuard, unlocked);
fair!(RwLockUpgradableReadGuard, unlocked);
fair!(MappedRwLockReadGuard);
fair!(MappedRwLockWriteGuard);
arc_fair!(PRwLock, RwLockReadGuard, rwlock);
arc_fair!(PRwLock, RwLockWriteGuard, rwlock);
arc_fair!(PRwLock, RwLockUpgradableReadGuard, rwlock);

impl<T: ?Sized + 'static> ArcRwLockWriteGuard<T> {
    /// As [`RwLockWriteGuard::downgrade`], keeping the `Arc`.
    pub fn downgrade(s: Self) -> ArcRwLockReadGuard<T> {
        ArcGuard::turn_into(s, downgrade_to_read)
    }

    /// As [`RwLockWriteGuard::downgrade_to_upgradable`], keeping the `Arc`.
    pub fn downgrade_to_upgradable(s: Self) -> ArcRwLockUpgradableReadGuard<T> {
        ArcGuard::turn_into(s, downgrade_to_upgradable)
    }
}

impl<T: ?Sized + 'static> ArcRwLockUpgradableReadGuard<T> {
    /// As [`RwLockUpgradableReadGuard::upgrade`], keeping the `Arc`.
    pub fn upgrade(s: Self) -> ArcRwLockWriteGuard<T> {
        ArcGuard::turn_into(s, upgrade)
    }

    /// As [`RwLockUpgradableReadGuard::try_upgrade`], keeping the `Arc`.
    pub fn try_upgrade(s: Self) -> Result<ArcRwLockWriteGuard<T>, Self> {
        ArcGuard::turn(s, |g, hold| try_upgrade(g, hold, PUpgradable::try_upgrade))
    }

    /// As [`RwLockUpgradableReadGuard::try_upgrade_for`], keeping the `Arc`.
    pub fn try_upgrade_for(s: Self, timeout: Duration) -> Result<ArcRwLockWriteGuard<T>, Self> {
        ArcGuard::turn(s, |g, hold| {
            upgrade_timed(g, hold, |g| PUpgradable::try_upgrade_for(g, timeout))
        })
    }

    /// As [`RwLockUpgradableReadGuard::try_upgrade_until`], keeping the `Arc`.
    pub fn try_upgrade_until(s: Self, timeout: Instant) -> Result<ArcRwLockWriteGuard<T>, Self> {
        ArcGuard::turn(s, |g, hold| {
            upgrade_timed(g, hold, |g| PUpgradable::try_upgrade_until(g, timeout))
        })
    }

    /// As [`RwLockUpgradableReadGuard::downgrade`], keeping the `Arc`.
    pub fn downgrade(s: Self) -> ArcRwLockReadGuard<T> {
        ArcGuard::turn_into(s, upgradable_to_read)
    }

    /// As [`RwLockUpgradableReadGuard::with_upgraded`].
    pub fn with_upgraded<Ret, F: FnOnce(&mut T) -> Ret>(&mut self, f: F) -> Ret {
        let (inner, hold) = ArcGuard::parts(self);
        with_upgraded(inner, hold, f)
    }

    /// As [`RwLockUpgradableReadGuard::try_with_upgraded`].
    pub fn try_with_upgraded<Ret, F: FnOnce(&mut T) -> Ret>(&mut self, f: F) -> Option<Ret> {
        let (inner, hold) = ArcGuard::parts(self);
        upgraded(inner, hold, Upgrade::Now, f)
    }

    /// As [`RwLockUpgradableReadGuard::try_with_upgraded_for`].
    pub fn try_with_upgraded_for<Ret, F: FnOnce(&mut T) -> Ret>(
        &mut self,
        timeout: Duration,
        f: F,
    ) -> Option<Ret> {
        let (inner, hold) = ArcGuard::parts(self);
        upgraded(inner, hold, Upgrade::For(timeout), f)
    }

    /// As [`RwLockUpgradableReadGuard::try_with_upgraded_until`].
    pub fn try_with_upgraded_until<Ret, F: FnOnce(&mut T) -> Ret>(
        &mut self,
        timeout: Instant,
        f: F,
    ) -> Option<Ret> {
        let (inner, hold) = ArcGuard::parts(self);
        upgraded(inner, hold, Upgrade::Until(timeout), f)
    }
}

/// A write guard downgraded to a read guard: the write hold ends, a read hold starts.
fn downgrade_to_read<'a, T: ?Sized>(g: PWrite<'a, T>, hold: Hold) -> (PRead<'a, T>, Hold) {
    downgrade(g, hold, Mode::Read, PWrite::downgrade)
}

/// A write guard downgraded to an upgradable one.
fn downgrade_to_upgradable<'a, T: ?Sized>(
    g: PWrite<'a, T>,
    hold: Hold,
) -> (PUpgradable<'a, T>, Hold) {
    downgrade(g, hold, Mode::Upgradable, PWrite::downgrade_to_upgradable)
}

/// An upgradable guard downgraded to a read guard.
fn upgradable_to_read<'a, T: ?Sized>(g: PUpgradable<'a, T>, hold: Hold) -> (PRead<'a, T>, Hold) {
    downgrade(g, hold, Mode::Read, PUpgradable::downgrade)
}

/// An upgradable guard upgraded, waiting for the readers: the upgradable hold ends
/// first, then a write acquisition.
fn upgrade<'a, T: ?Sized>(g: PUpgradable<'a, T>, hold: Hold) -> (PWrite<'a, T>, Hold) {
    acquire_by(
        hold.end(),
        Mode::Write,
        g,
        PUpgradable::try_upgrade,
        PUpgradable::upgrade,
    )
}

/// An upgradable guard upgraded by `wait` (a timed upgrade) if its first try fails: a
/// timed try of the write mode; the upgradable hold ends once it succeeded, and goes on
/// with the guard given back if it timed out.
#[allow(clippy::type_complexity)]
fn upgrade_timed<'a, T: ?Sized>(
    g: PUpgradable<'a, T>,
    hold: Hold,
    wait: impl FnOnce(PUpgradable<'a, T>) -> Result<PWrite<'a, T>, PUpgradable<'a, T>>,
) -> Result<(PWrite<'a, T>, Hold), (PUpgradable<'a, T>, Hold)> {
    match try_acquire_timed_by(hold.lock(), Mode::Write, g, PUpgradable::try_upgrade, wait) {
        Ok((w, write)) => {
            hold.end();
            Ok((w, write))
        }
        Err(g) => Err((g, hold)),
    }
}

/// How `with_upgraded` and its `try_` forms upgrade.
enum Upgrade {
    /// Waiting as long as it takes (`with_upgraded`).
    Wait,
    /// Only if no reader is there now (`try_with_upgraded`).
    Now,
    /// Waiting at most this long.
    For(Duration),
    /// Waiting at most until then.
    Until(Instant),
}

/// `with_upgraded` of the upgradable guard `g` held by `hold`.
fn with_upgraded<T: ?Sized, Ret>(
    g: &PUpgradable<'_, T>,
    hold: &mut Hold,
    f: impl FnOnce(&mut T) -> Ret,
) -> Ret {
    match upgraded(g, hold, Upgrade::Wait, f) {
        Some(r) => r,
        None => unreachable!("a blocking upgrade always succeeds"),
    }
}

/// Upgrades the upgradable read lock `g` holds (its hold `hold`) as `how` says, runs `f`
/// on the data write-locked, and downgrades back to upgradable: lock_api's
/// `with_upgraded` and `try_with_upgraded*`, on the raw lock as they are, with the holds
/// of [`upgrade`] (or of a try of the write mode), a write hold while `f` runs (also if
/// it panics), and an upgradable hold after. `None` when the upgrade failed: a failed
/// try of the write mode, the upgradable hold going on.
#[allow(unsafe_code)]
fn upgraded<T: ?Sized, Ret>(
    g: &PUpgradable<'_, T>,
    hold: &mut Hold,
    how: Upgrade,
    f: impl FnOnce(&mut T) -> Ret,
) -> Option<Ret> {
    let rwlock = PUpgradable::rwlock(g);
    // SAFETY: the raw lock is used only to upgrade the upgradable read lock `g` holds and
    // to downgrade it back to upgradable (in `Restore`'s drop), as lock_api's
    // `with_upgraded` does; `g` stays borrowed, holding it, meanwhile.
    let raw: &parking_lot::RawRwLock = unsafe { rwlock.raw() };
    let now = |r: &parking_lot::RawRwLock| {
        // SAFETY: this thread holds an upgradable read lock of `r` (`g`'s).
        unsafe { r.try_upgrade() }
    };
    let lock = hold.lock();
    let write = match how {
        Upgrade::Wait => {
            let ((), write) = acquire_by(
                hold.end_here(),
                Mode::Write,
                raw,
                |r| if now(r) { Ok(()) } else { Err(r) },
                |r| {
                    // SAFETY: as in `now`.
                    unsafe { r.upgrade() }
                },
            );
            write
        }
        Upgrade::Now => {
            let ((), write) = try_acquire_by(lock, Mode::Write, raw, |r| {
                if now(r) {
                    Ok(())
                } else {
                    Err(())
                }
            })
            .ok()?;
            hold.end_here();
            write
        }
        Upgrade::For(_) | Upgrade::Until(_) => {
            let wait = |r: &parking_lot::RawRwLock| match how {
                // SAFETY: as in `now`.
                Upgrade::For(d) => unsafe { r.try_upgrade_for(d) },
                // SAFETY: as in `now`.
                Upgrade::Until(t) => unsafe { r.try_upgrade_until(t) },
                Upgrade::Wait | Upgrade::Now => false,
            };
            let ((), write) = try_acquire_timed_by(
                lock,
                Mode::Write,
                raw,
                |r| if now(r) { Ok(()) } else { Err(r) },
                |r| if wait(r) { Ok(()) } else { Err(r) },
            )
            .ok()?;
            hold.end_here();
            write
        }
    };
    let restore = Restore {
        raw,
        write: Some(write),
        upgradable: hold,
    };
    // SAFETY: this thread holds the lock for writing (just upgraded) until `restore`
    // drops, after `f` returns or unwinds; nothing else reads the data meanwhile: the
    // guard `g` belongs to is borrowed mutably by the caller.
    let data = unsafe { &mut *rwlock.data_ptr() };
    let r = f(data);
    drop(restore);
    Some(r)
}

/// Downgrades a lock [`upgraded`] upgraded back to upgradable when dropped (after `f`
/// returns or unwinds), then ends its write hold and starts an upgradable one.
struct Restore<'h> {
    raw: &'h parking_lot::RawRwLock,
    write: Option<Hold>,
    upgradable: &'h mut Hold,
}

impl Drop for Restore<'_> {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: this thread holds `raw` for writing: `upgraded` upgraded it from the
        // upgradable read lock its guard holds, and only this drop downgrades it.
        unsafe { self.raw.downgrade_to_upgradable() };
        if let Some(write) = self.write.take() {
            *self.upgradable = hold_now(write.end(), Mode::Upgradable);
        }
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
