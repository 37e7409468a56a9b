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
use crate::macros::{arc_acquisitions, forward, guard, to_arc};
use crate::{ArcGuard, Hold, Lock, Mode};

type PMutex<T> = parking_lot::Mutex<T>;
type PRwLock<T> = parking_lot::RwLock<T>;
type PUpgradable<'a, T> = parking_lot::RwLockUpgradableReadGuard<'a, T>;
type PWrite<'a, T> = parking_lot::RwLockWriteGuard<'a, T>;
type PRead<'a, T> = parking_lot::RwLockReadGuard<'a, T>;

guard!(
    /// The guard of a measured `parking_lot::Mutex`.
    MutexGuard => parking_lot::MutexGuard, mut; lock = PMutex as mutex
);
guard!(
    /// A measured mutex guard narrowed to a part of the data (`MutexGuard::map`).
    MappedMutexGuard => parking_lot::MappedMutexGuard, mut
);
guard!(
    /// The read guard of a measured `parking_lot::RwLock`.
    RwLockReadGuard => parking_lot::RwLockReadGuard; lock = PRwLock as rwlock
);
guard!(
    /// The write guard of a measured `parking_lot::RwLock`.
    RwLockWriteGuard => parking_lot::RwLockWriteGuard, mut; lock = PRwLock as rwlock
);
guard!(
    /// The upgradable read guard of a measured `parking_lot::RwLock`.
    RwLockUpgradableReadGuard => parking_lot::RwLockUpgradableReadGuard; lock = PRwLock as rwlock
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

to_arc! {
    fn arc_mutex(MutexGuard<PMutex>) -> parking_lot::MutexGuard;
    fn arc_read(RwLockReadGuard<PRwLock>) -> parking_lot::RwLockReadGuard;
    fn arc_write(RwLockWriteGuard<PRwLock>) -> parking_lot::RwLockWriteGuard;
    fn arc_upgradable(RwLockUpgradableReadGuard<PRwLock>) -> parking_lot::RwLockUpgradableReadGuard;
}

/// Inside an `impl` of a measured parking_lot lock, the four acquisitions of one mode
/// (`Write`, `Read`, `Upgradable`): blocking `$lock`, `$try` now, `$for` a `Duration`
/// and `$until` an `Instant` at most, each the backend's method of the same name, after
/// `$try` for the three that may wait (see [`acquire`], [`try_acquire`],
/// [`try_acquire_timed`]); their guard is made by `self.$guard`. `$what` names what they
/// acquire in their docs; attributes given first go on `$lock` and `$try`.
macro_rules! acquisitions {
    ($(#[$hot:meta])* $mode:ident, $what:literal:
     $lock:ident, $try:ident, $for:ident, $until:ident => $guard:ident -> $g:ident) => {
        #[doc = concat!("Acquires ", $what, ", blocking until it is available.")]
        $(#[$hot])*
        pub fn $lock(&self) -> $g<'_, T> {
            self.$guard(acquire(self, Mode::$mode, |l| l.$try(), |l| l.$lock()))
        }

        #[doc = concat!("Acquires ", $what, " if it is available now.")]
        $(#[$hot])*
        pub fn $try(&self) -> Option<$g<'_, T>> {
            try_acquire(self, Mode::$mode, |l| l.$try()).map(|g| self.$guard(g))
        }

        #[doc = concat!("Acquires ", $what, ", waiting at most `timeout`.")]
        pub fn $for(&self, timeout: Duration) -> Option<$g<'_, T>> {
            try_acquire_timed(self, Mode::$mode, |l| l.$try(), |l| l.$for(timeout))
                .map(|g| self.$guard(g))
        }

        #[doc = concat!("Acquires ", $what, ", waiting at most until `timeout`.")]
        pub fn $until(&self, timeout: Instant) -> Option<$g<'_, T>> {
            try_acquire_timed(self, Mode::$mode, |l| l.$try(), |l| l.$until(timeout))
                .map(|g| self.$guard(g))
        }
    };
}

/// The measured guard `$s`, a `$from`, turned into a `$to` of the same lock by `$turn`,
/// which takes the backend's guard and the hold and gives the new ones (`try`: or gives
/// them back, and `$s` is given back): the borrowing guards' [`ArcGuard::turn_into`] and
/// [`ArcGuard::turn`].
macro_rules! turn {
    (try $s:expr, $from:ident => $to:ident, $turn:expr) => {{
        let $from { inner, hold, lock } = $s;
        match ($turn)(inner, hold) {
            Ok((inner, hold)) => Ok($to { inner, hold, lock }),
            Err((inner, hold)) => Err($from { inner, hold, lock }),
        }
    }};
    ($s:expr, $from:ident => $to:ident, $turn:expr) => {{
        let $from { inner, hold, lock } = $s;
        let (inner, hold) = ($turn)(inner, hold);
        $to { inner, hold, lock }
    }};
}

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

/// `parking_lot::Condvar` for the guards of measured mutexes: the same methods, taking
/// the measured guard. A wait releases the mutex: the hold before and after it are two
/// acquisitions, and the wait is charged to the function as lock waiting.
#[derive(Debug, Default)]
pub struct Condvar {
    inner: parking_lot::Condvar,
}

// The methods of the types above, by lock (each file `use super::*`, nothing here uses
// them by path).
mod condvar;
mod mutex;
mod rw_lock;
mod upgrade;
