//! `async_lock::{Mutex, RwLock}`, measured (feature `async-lock`).
//!
//! Awaited acquisitions try first without waiting (as async-lock's own `lock` does),
//! then await; the wait runs from the first poll to `Ready`. `_blocking` methods block
//! the thread. Upgradable reads are a mode of their own; an upgrade ends the upgradable
//! hold and starts a write acquisition. The `_arc` guards (`lock_arc`, `read_arc`,
//! `write_arc`, `upgradable_read_arc`) own an `Arc` of the measured lock and need
//! `T: 'static`; they upgrade and downgrade as the borrowing ones do.
//!
//! Not offered: `MutexGuard::source` (it hands out the raw lock).

use async_lock::{
    RwLockReadGuard as ARead, RwLockUpgradableReadGuard as AUpgradable, RwLockWriteGuard as AWrite,
};

use crate::acquire::{
    acquire, acquire_async, acquire_await, acquire_by, downgrade, try_acquire, try_upgrade,
};
use crate::macros::{arc_acquisitions, forward, guard, to_arc};
use crate::{ArcGuard, Hold, Lock, Mode};

type AMutex<T> = async_lock::Mutex<T>;
type ARwLock<T> = async_lock::RwLock<T>;

guard!(
    /// The guard of a measured `async_lock::Mutex`.
    MutexGuard => async_lock::MutexGuard, mut
);
guard!(
    /// The read guard of a measured `async_lock::RwLock`.
    RwLockReadGuard => async_lock::RwLockReadGuard
);
guard!(
    /// The write guard of a measured `async_lock::RwLock`.
    RwLockWriteGuard => async_lock::RwLockWriteGuard, mut
);
guard!(
    /// The upgradable read guard of a measured `async_lock::RwLock`.
    RwLockUpgradableReadGuard => async_lock::RwLockUpgradableReadGuard
);

/// `lock_arc`'s guard: owns an `Arc` of the measured mutex.
pub type MutexGuardArc<T> = ArcGuard<AMutex<T>, async_lock::MutexGuard<'static, T>>;
/// `read_arc`'s guard: owns an `Arc` of the measured lock.
pub type RwLockReadGuardArc<T> = ArcGuard<ARwLock<T>, async_lock::RwLockReadGuard<'static, T>>;
/// `write_arc`'s guard: owns an `Arc` of the measured lock.
pub type RwLockWriteGuardArc<T> = ArcGuard<ARwLock<T>, async_lock::RwLockWriteGuard<'static, T>>;
/// `upgradable_read_arc`'s guard: owns an `Arc` of the measured lock.
pub type RwLockUpgradableReadGuardArc<T> =
    ArcGuard<ARwLock<T>, async_lock::RwLockUpgradableReadGuard<'static, T>>;

forward!(new async_lock::Mutex => Mutex, "mutex", "hotpath::mutex!");

impl<T> Lock<AMutex<T>> {
    forward! {
        /// Consumes the mutex, returning the data.
        fn into_inner(self) -> T;
    }
}

/// Inside an `impl` of a measured async-lock lock, the three acquisitions of one mode
/// (`Write`, `Read`, `Upgradable`): awaited `$lock`, `$blocking` (blocking the thread)
/// and `$try` now, each the backend's method of the same name, after `$try` for the two
/// that may wait (see [`acquire_await`], [`acquire`], [`try_acquire`]); their guard is
/// `$g`. `$what` names what they acquire in their docs.
macro_rules! acquisitions {
    ($mode:ident, $what:literal: $lock:ident, $blocking:ident, $try:ident -> $g:ident) => {
        #[doc = concat!("Acquires ", $what, ", waiting until it is available.")]
        pub async fn $lock(&self) -> $g<'_, T> {
            let (inner, hold) = acquire_await(self, Mode::$mode, |l| l.$try(), |l| l.$lock()).await;
            $g { inner, hold }
        }

        #[doc = concat!("Acquires ", $what, ", blocking the thread until it is available.")]
        pub fn $blocking(&self) -> $g<'_, T> {
            let (inner, hold) = acquire(self, Mode::$mode, |l| l.$try(), |l| l.$blocking());
            $g { inner, hold }
        }

        #[doc = concat!("Acquires ", $what, " if it is available now.")]
        pub fn $try(&self) -> Option<$g<'_, T>> {
            try_acquire(self, Mode::$mode, |l| l.$try()).map(|(inner, hold)| $g { inner, hold })
        }
    };
}

impl<T: ?Sized> Lock<AMutex<T>> {
    acquisitions!(Write, "the mutex": lock, lock_blocking, try_lock -> MutexGuard);

    forward! {
        /// The data, through a unique borrow of the mutex.
        fn get_mut(&mut self) -> &mut T;
    }
}

to_arc! {
    fn arc_mutex(MutexGuard<AMutex>) -> async_lock::MutexGuard;
    fn arc_read(RwLockReadGuard<ARwLock>) -> async_lock::RwLockReadGuard;
    fn arc_write(RwLockWriteGuard<ARwLock>) -> async_lock::RwLockWriteGuard;
    fn arc_upgradable(RwLockUpgradableReadGuard<ARwLock>) -> async_lock::RwLockUpgradableReadGuard;
}

impl<T: ?Sized + 'static> Lock<AMutex<T>> {
    arc_acquisitions! { arc_mutex -> MutexGuardArc<T>:
        /// Acquires the mutex through an `Arc`, for a guard that owns it.
        async fn lock_arc() = lock;
        /// Acquires the mutex through an `Arc`, blocking the thread.
        fn lock_arc_blocking() = lock_blocking;
        /// Acquires the mutex through an `Arc` if it is free now.
        fn try_lock_arc()? = try_lock;
    }
}

forward!(new async_lock::RwLock => RwLock, "lock", "hotpath::rw_lock!");

impl<T> Lock<ARwLock<T>> {
    forward! {
        /// Consumes the lock, returning the data.
        fn into_inner(self) -> T;
    }
}

impl<T: ?Sized> Lock<ARwLock<T>> {
    acquisitions!(Read, "shared read access": read, read_blocking, try_read -> RwLockReadGuard);

    acquisitions!(
        Upgradable, "upgradable read access":
        upgradable_read, upgradable_read_blocking, try_upgradable_read -> RwLockUpgradableReadGuard
    );

    acquisitions!(
        Write, "exclusive write access": write, write_blocking, try_write -> RwLockWriteGuard
    );

    forward! {
        /// The data, through a unique borrow of the lock.
        fn get_mut(&mut self) -> &mut T;
    }
}

impl<T: ?Sized + 'static> Lock<ARwLock<T>> {
    arc_acquisitions! { arc_read -> RwLockReadGuardArc<T>:
        /// Acquires shared read access through an `Arc`, waiting until it is available,
        /// for a guard that owns it.
        async fn read_arc() = read;
        /// Acquires shared read access through an `Arc`, blocking the thread.
        fn read_arc_blocking() = read_blocking;
        /// Acquires shared read access through an `Arc` if it is available now.
        fn try_read_arc()? = try_read;
    }

    arc_acquisitions! { arc_upgradable -> RwLockUpgradableReadGuardArc<T>:
        /// Acquires upgradable read access through an `Arc`, waiting until it is available.
        async fn upgradable_read_arc() = upgradable_read;
        /// Acquires upgradable read access through an `Arc`, blocking the thread.
        fn upgradable_read_arc_blocking() = upgradable_read_blocking;
        /// Acquires upgradable read access through an `Arc` if it is available now.
        fn try_upgradable_read_arc()? = try_upgradable_read;
    }

    arc_acquisitions! { arc_write -> RwLockWriteGuardArc<T>:
        /// Acquires exclusive write access through an `Arc`, waiting until it is available.
        async fn write_arc() = write;
        /// Acquires exclusive write access through an `Arc`, blocking the thread.
        fn write_arc_blocking() = write_blocking;
        /// Acquires exclusive write access through an `Arc` if it is available now.
        fn try_write_arc()? = try_write;
    }
}

/// A write guard downgraded to a read guard: the write hold ends, a read hold starts.
fn write_to_read<'a, T: ?Sized>(g: AWrite<'a, T>, hold: Hold) -> (ARead<'a, T>, Hold) {
    downgrade(g, hold, Mode::Read, AWrite::downgrade)
}

/// A write guard downgraded to an upgradable one.
fn write_to_upgradable<'a, T: ?Sized>(g: AWrite<'a, T>, hold: Hold) -> (AUpgradable<'a, T>, Hold) {
    downgrade(g, hold, Mode::Upgradable, AWrite::downgrade_to_upgradable)
}

/// An upgradable guard downgraded to a read guard.
fn upgradable_to_read<'a, T: ?Sized>(g: AUpgradable<'a, T>, hold: Hold) -> (ARead<'a, T>, Hold) {
    downgrade(g, hold, Mode::Read, AUpgradable::downgrade)
}

/// An upgradable guard upgraded if no reader is there (a try of the write mode), or
/// given back with its hold.
#[allow(clippy::type_complexity)]
fn upgrade_now<'a, T: ?Sized>(
    g: AUpgradable<'a, T>,
    hold: Hold,
) -> Result<(AWrite<'a, T>, Hold), (AUpgradable<'a, T>, Hold)> {
    try_upgrade(g, hold, AUpgradable::try_upgrade)
}

/// An upgradable guard upgraded, blocking the thread until the readers leave: the
/// upgradable hold ends first, then a write acquisition.
fn upgrade_blocking<'a, T: ?Sized>(g: AUpgradable<'a, T>, hold: Hold) -> (AWrite<'a, T>, Hold) {
    acquire_by(
        hold.end(),
        Mode::Write,
        g,
        AUpgradable::try_upgrade,
        AUpgradable::upgrade_blocking,
    )
}

/// As [`upgrade_blocking`], awaiting the readers (the upgradable hold ends when this is
/// called).
fn upgrade_await<'a, T: ?Sized>(
    g: AUpgradable<'a, T>,
    hold: Hold,
) -> impl std::future::Future<Output = (AWrite<'a, T>, Hold)> {
    acquire_async(
        hold.end(),
        Mode::Write,
        g,
        AUpgradable::try_upgrade,
        AUpgradable::upgrade,
    )
}

impl<T: ?Sized + 'static> RwLockWriteGuardArc<T> {
    /// Turns the write access into read access: the write hold ends, a read hold starts.
    pub fn downgrade(guard: Self) -> RwLockReadGuardArc<T> {
        ArcGuard::turn_into(guard, write_to_read)
    }

    /// Turns the write access into upgradable read access.
    pub fn downgrade_to_upgradable(guard: Self) -> RwLockUpgradableReadGuardArc<T> {
        ArcGuard::turn_into(guard, write_to_upgradable)
    }
}

impl<T: ?Sized + 'static> RwLockUpgradableReadGuardArc<T> {
    /// Turns the upgradable access into plain read access.
    pub fn downgrade(guard: Self) -> RwLockReadGuardArc<T> {
        ArcGuard::turn_into(guard, upgradable_to_read)
    }

    /// Upgrades to write access if no reader is there; gives the guard back otherwise.
    pub fn try_upgrade(guard: Self) -> Result<RwLockWriteGuardArc<T>, Self> {
        ArcGuard::turn(guard, upgrade_now)
    }

    /// Upgrades to write access, waiting for the readers to leave: the upgradable hold
    /// ends and a write acquisition starts.
    pub async fn upgrade(guard: Self) -> RwLockWriteGuardArc<T> {
        ArcGuard::turn_async(guard, upgrade_await).await
    }

    /// Upgrades to write access, blocking the thread until the readers leave.
    pub fn upgrade_blocking(guard: Self) -> RwLockWriteGuardArc<T> {
        ArcGuard::turn_into(guard, upgrade_blocking)
    }
}

impl<'a, T: ?Sized + 'a> RwLockWriteGuard<'a, T> {
    /// Turns the write access into read access: the write hold ends, a read hold starts.
    pub fn downgrade(guard: Self) -> RwLockReadGuard<'a, T> {
        let RwLockWriteGuard { inner, hold } = guard;
        let (inner, hold) = write_to_read(inner, hold);
        RwLockReadGuard { inner, hold }
    }

    /// Turns the write access into upgradable read access.
    pub fn downgrade_to_upgradable(guard: Self) -> RwLockUpgradableReadGuard<'a, T> {
        let RwLockWriteGuard { inner, hold } = guard;
        let (inner, hold) = write_to_upgradable(inner, hold);
        RwLockUpgradableReadGuard { inner, hold }
    }
}

impl<'a, T: ?Sized + 'a> RwLockUpgradableReadGuard<'a, T> {
    /// Turns the upgradable access into plain read access.
    pub fn downgrade(guard: Self) -> RwLockReadGuard<'a, T> {
        let RwLockUpgradableReadGuard { inner, hold } = guard;
        let (inner, hold) = upgradable_to_read(inner, hold);
        RwLockReadGuard { inner, hold }
    }

    /// Upgrades to write access if no reader is there; gives the guard back otherwise.
    pub fn try_upgrade(guard: Self) -> Result<RwLockWriteGuard<'a, T>, Self> {
        let RwLockUpgradableReadGuard { inner, hold } = guard;
        match upgrade_now(inner, hold) {
            Ok((inner, hold)) => Ok(RwLockWriteGuard { inner, hold }),
            Err((inner, hold)) => Err(RwLockUpgradableReadGuard { inner, hold }),
        }
    }

    /// Upgrades to write access, waiting for the readers to leave: the upgradable hold
    /// ends and a write acquisition starts.
    pub async fn upgrade(guard: Self) -> RwLockWriteGuard<'a, T> {
        let RwLockUpgradableReadGuard { inner, hold } = guard;
        let (inner, hold) = upgrade_await(inner, hold).await;
        RwLockWriteGuard { inner, hold }
    }

    /// Upgrades to write access, blocking the thread until the readers leave.
    pub fn upgrade_blocking(guard: Self) -> RwLockWriteGuard<'a, T> {
        let RwLockUpgradableReadGuard { inner, hold } = guard;
        let (inner, hold) = upgrade_blocking(inner, hold);
        RwLockWriteGuard { inner, hold }
    }
}
