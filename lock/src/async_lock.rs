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

use std::sync::Arc;

use crate::acquire::{
    acquire, acquire_async, acquire_await, acquire_by, downgrade, try_acquire, try_upgrade,
};
use crate::macros::{forward, guard};
use crate::{ArcGuard, Lock, Mode};

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

impl<T: ?Sized> Lock<AMutex<T>> {
    /// Acquires the mutex, waiting until it is available.
    pub async fn lock(&self) -> MutexGuard<'_, T> {
        let (inner, hold) = acquire_await(self, Mode::Write, |m| m.try_lock(), |m| m.lock()).await;
        MutexGuard { inner, hold }
    }

    /// Acquires the mutex, blocking the thread until it is available.
    pub fn lock_blocking(&self) -> MutexGuard<'_, T> {
        let (inner, hold) = acquire(self, Mode::Write, |m| m.try_lock(), |m| m.lock_blocking());
        MutexGuard { inner, hold }
    }

    /// Acquires the mutex if it is free now.
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        try_acquire(self, Mode::Write, |m| m.try_lock())
            .map(|(inner, hold)| MutexGuard { inner, hold })
    }

    forward! {
        /// The data, through a unique borrow of the mutex.
        fn get_mut(&mut self) -> &mut T;
    }
}

/// Turns a guard of the mutex inside `lock` into one that owns the `Arc`.
#[allow(unsafe_code)]
fn arc_guard<T: ?Sized + 'static>(
    lock: &Arc<Lock<AMutex<T>>>,
    g: MutexGuard<'_, T>,
) -> MutexGuardArc<T> {
    let MutexGuard { inner, hold } = g;
    // SAFETY: `inner` borrows only the mutex inside `**lock`; the `ArcGuard` keeps a clone
    // of the `Arc`, drops `inner` before it, and never hands out the guard's lifetime.
    let guard = unsafe {
        std::mem::transmute::<async_lock::MutexGuard<'_, T>, async_lock::MutexGuard<'static, T>>(
            inner,
        )
    };
    ArcGuard::new(guard, hold, lock.clone())
}

impl<T: ?Sized + 'static> Lock<AMutex<T>> {
    /// Acquires the mutex through an `Arc`, for a guard that owns it.
    pub async fn lock_arc(self: &Arc<Self>) -> MutexGuardArc<T> {
        let g = self.lock().await;
        arc_guard(self, g)
    }

    /// Acquires the mutex through an `Arc`, blocking the thread.
    pub fn lock_arc_blocking(self: &Arc<Self>) -> MutexGuardArc<T> {
        let g = self.lock_blocking();
        arc_guard(self, g)
    }

    /// Acquires the mutex through an `Arc` if it is free now.
    pub fn try_lock_arc(self: &Arc<Self>) -> Option<MutexGuardArc<T>> {
        let g = self.try_lock()?;
        Some(arc_guard(self, g))
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
    /// Acquires shared read access, waiting until it is available.
    pub async fn read(&self) -> RwLockReadGuard<'_, T> {
        let (inner, hold) = acquire_await(self, Mode::Read, |l| l.try_read(), |l| l.read()).await;
        RwLockReadGuard { inner, hold }
    }

    /// Acquires shared read access, blocking the thread.
    pub fn read_blocking(&self) -> RwLockReadGuard<'_, T> {
        let (inner, hold) = acquire(self, Mode::Read, |l| l.try_read(), |l| l.read_blocking());
        RwLockReadGuard { inner, hold }
    }

    /// Acquires shared read access if it is available now.
    pub fn try_read(&self) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire(self, Mode::Read, |l| l.try_read())
            .map(|(inner, hold)| RwLockReadGuard { inner, hold })
    }

    /// Acquires upgradable read access, waiting until it is available.
    pub async fn upgradable_read(&self) -> RwLockUpgradableReadGuard<'_, T> {
        let (inner, hold) = acquire_await(
            self,
            Mode::Upgradable,
            |l| l.try_upgradable_read(),
            |l| l.upgradable_read(),
        )
        .await;
        RwLockUpgradableReadGuard { inner, hold }
    }

    /// Acquires upgradable read access, blocking the thread.
    pub fn upgradable_read_blocking(&self) -> RwLockUpgradableReadGuard<'_, T> {
        let (inner, hold) = acquire(
            self,
            Mode::Upgradable,
            |l| l.try_upgradable_read(),
            |l| l.upgradable_read_blocking(),
        );
        RwLockUpgradableReadGuard { inner, hold }
    }

    /// Acquires upgradable read access if it is available now.
    pub fn try_upgradable_read(&self) -> Option<RwLockUpgradableReadGuard<'_, T>> {
        try_acquire(self, Mode::Upgradable, |l| l.try_upgradable_read())
            .map(|(inner, hold)| RwLockUpgradableReadGuard { inner, hold })
    }

    /// Acquires exclusive write access, waiting until it is available.
    pub async fn write(&self) -> RwLockWriteGuard<'_, T> {
        let (inner, hold) =
            acquire_await(self, Mode::Write, |l| l.try_write(), |l| l.write()).await;
        RwLockWriteGuard { inner, hold }
    }

    /// Acquires exclusive write access, blocking the thread.
    pub fn write_blocking(&self) -> RwLockWriteGuard<'_, T> {
        let (inner, hold) = acquire(self, Mode::Write, |l| l.try_write(), |l| l.write_blocking());
        RwLockWriteGuard { inner, hold }
    }

    /// Acquires exclusive write access if it is available now.
    pub fn try_write(&self) -> Option<RwLockWriteGuard<'_, T>> {
        try_acquire(self, Mode::Write, |l| l.try_write())
            .map(|(inner, hold)| RwLockWriteGuard { inner, hold })
    }

    forward! {
        /// The data, through a unique borrow of the lock.
        fn get_mut(&mut self) -> &mut T;
    }
}

/// A guard of the read-write lock inside `lock` (`$guard`, from its measured guard
/// `$g`) turned into one that owns the `Arc`.
macro_rules! rw_arc {
    ($lock:expr, $g:expr, $guard:ident) => {{
        let $guard { inner, hold } = $g;
        // SAFETY: `inner` borrows only the lock inside `**$lock`; the `ArcGuard` keeps a
        // clone of the `Arc`, drops `inner` before it, and never hands out the guard's
        // lifetime (see `ArcGuard`'s Soundness).
        #[allow(unsafe_code)]
        let guard = unsafe {
            std::mem::transmute::<async_lock::$guard<'_, T>, async_lock::$guard<'static, T>>(inner)
        };
        ArcGuard::new(guard, hold, $lock.clone())
    }};
}

impl<T: ?Sized + 'static> Lock<ARwLock<T>> {
    /// Acquires shared read access through an `Arc`, waiting until it is available, for
    /// a guard that owns it.
    pub async fn read_arc(self: &Arc<Self>) -> RwLockReadGuardArc<T> {
        let g = self.read().await;
        rw_arc!(self, g, RwLockReadGuard)
    }

    /// Acquires shared read access through an `Arc`, blocking the thread.
    pub fn read_arc_blocking(self: &Arc<Self>) -> RwLockReadGuardArc<T> {
        let g = self.read_blocking();
        rw_arc!(self, g, RwLockReadGuard)
    }

    /// Acquires shared read access through an `Arc` if it is available now.
    pub fn try_read_arc(self: &Arc<Self>) -> Option<RwLockReadGuardArc<T>> {
        let g = self.try_read()?;
        Some(rw_arc!(self, g, RwLockReadGuard))
    }

    /// Acquires upgradable read access through an `Arc`, waiting until it is available.
    pub async fn upgradable_read_arc(self: &Arc<Self>) -> RwLockUpgradableReadGuardArc<T> {
        let g = self.upgradable_read().await;
        rw_arc!(self, g, RwLockUpgradableReadGuard)
    }

    /// Acquires upgradable read access through an `Arc`, blocking the thread.
    pub fn upgradable_read_arc_blocking(self: &Arc<Self>) -> RwLockUpgradableReadGuardArc<T> {
        let g = self.upgradable_read_blocking();
        rw_arc!(self, g, RwLockUpgradableReadGuard)
    }

    /// Acquires upgradable read access through an `Arc` if it is available now.
    pub fn try_upgradable_read_arc(self: &Arc<Self>) -> Option<RwLockUpgradableReadGuardArc<T>> {
        let g = self.try_upgradable_read()?;
        Some(rw_arc!(self, g, RwLockUpgradableReadGuard))
    }

    /// Acquires exclusive write access through an `Arc`, waiting until it is available.
    pub async fn write_arc(self: &Arc<Self>) -> RwLockWriteGuardArc<T> {
        let g = self.write().await;
        rw_arc!(self, g, RwLockWriteGuard)
    }

    /// Acquires exclusive write access through an `Arc`, blocking the thread.
    pub fn write_arc_blocking(self: &Arc<Self>) -> RwLockWriteGuardArc<T> {
        let g = self.write_blocking();
        rw_arc!(self, g, RwLockWriteGuard)
    }

    /// Acquires exclusive write access through an `Arc` if it is available now.
    pub fn try_write_arc(self: &Arc<Self>) -> Option<RwLockWriteGuardArc<T>> {
        let g = self.try_write()?;
        Some(rw_arc!(self, g, RwLockWriteGuard))
    }
}

impl<T: ?Sized + 'static> RwLockWriteGuardArc<T> {
    /// Turns the write access into read access: the write hold ends, a read hold starts.
    pub fn downgrade(guard: Self) -> RwLockReadGuardArc<T> {
        ArcGuard::turn_into(guard, |inner, hold| {
            downgrade(
                inner,
                hold,
                Mode::Read,
                async_lock::RwLockWriteGuard::downgrade,
            )
        })
    }

    /// Turns the write access into upgradable read access.
    pub fn downgrade_to_upgradable(guard: Self) -> RwLockUpgradableReadGuardArc<T> {
        ArcGuard::turn_into(guard, |inner, hold| {
            downgrade(
                inner,
                hold,
                Mode::Upgradable,
                async_lock::RwLockWriteGuard::downgrade_to_upgradable,
            )
        })
    }
}

impl<T: ?Sized + 'static> RwLockUpgradableReadGuardArc<T> {
    /// Turns the upgradable access into plain read access.
    pub fn downgrade(guard: Self) -> RwLockReadGuardArc<T> {
        ArcGuard::turn_into(guard, |inner, hold| {
            downgrade(
                inner,
                hold,
                Mode::Read,
                async_lock::RwLockUpgradableReadGuard::downgrade,
            )
        })
    }

    /// Upgrades to write access if no reader is there; gives the guard back otherwise.
    pub fn try_upgrade(guard: Self) -> Result<RwLockWriteGuardArc<T>, Self> {
        ArcGuard::turn(guard, |inner, hold| {
            try_upgrade(
                inner,
                hold,
                async_lock::RwLockUpgradableReadGuard::try_upgrade,
            )
        })
    }

    /// Upgrades to write access, waiting for the readers to leave: the upgradable hold
    /// ends and a write acquisition starts.
    pub async fn upgrade(guard: Self) -> RwLockWriteGuardArc<T> {
        ArcGuard::turn_async(guard, |inner, hold| {
            acquire_async(
                hold.end(),
                Mode::Write,
                inner,
                async_lock::RwLockUpgradableReadGuard::try_upgrade,
                async_lock::RwLockUpgradableReadGuard::upgrade,
            )
        })
        .await
    }

    /// Upgrades to write access, blocking the thread until the readers leave.
    pub fn upgrade_blocking(guard: Self) -> RwLockWriteGuardArc<T> {
        ArcGuard::turn_into(guard, |inner, hold| {
            acquire_by(
                hold.end(),
                Mode::Write,
                inner,
                async_lock::RwLockUpgradableReadGuard::try_upgrade,
                async_lock::RwLockUpgradableReadGuard::upgrade_blocking,
            )
        })
    }
}

impl<'a, T: ?Sized + 'a> RwLockWriteGuard<'a, T> {
    /// Turns the write access into read access: the write hold ends, a read hold starts.
    pub fn downgrade(guard: Self) -> RwLockReadGuard<'a, T> {
        let RwLockWriteGuard { inner, hold } = guard;
        let (inner, hold) = downgrade(
            inner,
            hold,
            Mode::Read,
            async_lock::RwLockWriteGuard::downgrade,
        );
        RwLockReadGuard { inner, hold }
    }

    /// Turns the write access into upgradable read access.
    pub fn downgrade_to_upgradable(guard: Self) -> RwLockUpgradableReadGuard<'a, T> {
        let RwLockWriteGuard { inner, hold } = guard;
        let (inner, hold) = downgrade(
            inner,
            hold,
            Mode::Upgradable,
            async_lock::RwLockWriteGuard::downgrade_to_upgradable,
        );
        RwLockUpgradableReadGuard { inner, hold }
    }
}

impl<'a, T: ?Sized + 'a> RwLockUpgradableReadGuard<'a, T> {
    /// Turns the upgradable access into plain read access.
    pub fn downgrade(guard: Self) -> RwLockReadGuard<'a, T> {
        let RwLockUpgradableReadGuard { inner, hold } = guard;
        let (inner, hold) = downgrade(
            inner,
            hold,
            Mode::Read,
            async_lock::RwLockUpgradableReadGuard::downgrade,
        );
        RwLockReadGuard { inner, hold }
    }

    /// Upgrades to write access if no reader is there; gives the guard back otherwise.
    pub fn try_upgrade(guard: Self) -> Result<RwLockWriteGuard<'a, T>, Self> {
        let RwLockUpgradableReadGuard { inner, hold } = guard;
        match try_upgrade(
            inner,
            hold,
            async_lock::RwLockUpgradableReadGuard::try_upgrade,
        ) {
            Ok((inner, hold)) => Ok(RwLockWriteGuard { inner, hold }),
            Err((inner, hold)) => Err(RwLockUpgradableReadGuard { inner, hold }),
        }
    }

    /// Upgrades to write access, waiting for the readers to leave: the upgradable hold
    /// ends and a write acquisition starts.
    pub async fn upgrade(guard: Self) -> RwLockWriteGuard<'a, T> {
        let RwLockUpgradableReadGuard { inner, hold } = guard;
        let (inner, hold) = acquire_async(
            hold.end(),
            Mode::Write,
            inner,
            async_lock::RwLockUpgradableReadGuard::try_upgrade,
            async_lock::RwLockUpgradableReadGuard::upgrade,
        )
        .await;
        RwLockWriteGuard { inner, hold }
    }

    /// Upgrades to write access, blocking the thread until the readers leave.
    pub fn upgrade_blocking(guard: Self) -> RwLockWriteGuard<'a, T> {
        let RwLockUpgradableReadGuard { inner, hold } = guard;
        let (inner, hold) = acquire_by(
            hold.end(),
            Mode::Write,
            inner,
            async_lock::RwLockUpgradableReadGuard::try_upgrade,
            async_lock::RwLockUpgradableReadGuard::upgrade_blocking,
        );
        RwLockWriteGuard { inner, hold }
    }
}
