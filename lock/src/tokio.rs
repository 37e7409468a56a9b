//! `tokio::sync::{Mutex, RwLock}`, measured (feature `tokio`).
//!
//! An awaited acquisition tries `try_lock` first (which never barges past queued
//! waiters: tokio hands a released lock to the first waiter directly), then awaits the
//! lock; the wait runs from the first poll to `Ready`, the order of waiters is tokio's
//! FIFO. A guard held across `.await` holds the lock while suspended: its hold includes
//! that time. Owned guards (`lock_owned`, `read_owned`, `write_owned`) keep an `Arc` of
//! the measured lock and need `T: 'static`; `OwnedMutexGuard::map` and `try_map` narrow
//! one to an [`OwnedMappedMutexGuard`] (whose `U` must be `'static` too), the hold going
//! on, and `OwnedMutexGuard::mutex` gives the `Arc` of the measured mutex. `const_new`
//! locks share one call site per type of lock; label them with `mutex!`/`rw_lock!` to
//! tell them apart.
//!
//! Not offered: the borrowing guards' accessor of the raw lock (`MutexGuard::mutex`),
//! which would let acquisitions escape the count.

use std::sync::Arc;

use tokio::sync::TryLockError;

use crate::acquire::{acquire, acquire_await, downgrade, try_acquire_by};
use crate::macros::{forward, guard};
use crate::{ArcGuard, Lock, LockKind, LockSite, Mode};

type TMutex<T> = tokio::sync::Mutex<T>;
type TRwLock<T> = tokio::sync::RwLock<T>;

/// The site of every `Mutex::const_new`.
static MUTEX_CONST_NEW: LockSite = LockSite::new(
    "tokio::sync::Mutex::const_new",
    None,
    file!(),
    line!(),
    LockKind::Mutex,
);
/// The site of every `RwLock::const_new`.
static RW_LOCK_CONST_NEW: LockSite = LockSite::new(
    "tokio::sync::RwLock::const_new",
    None,
    file!(),
    line!(),
    LockKind::RwLock,
);

guard!(
    /// The guard of a measured `tokio::sync::Mutex`.
    MutexGuard => tokio::sync::MutexGuard, mut
);
guard!(
    /// A measured mutex guard narrowed to a part of the data (`MutexGuard::map`).
    MappedMutexGuard => tokio::sync::MappedMutexGuard, mut
);
guard!(
    /// The read guard of a measured `tokio::sync::RwLock`.
    RwLockReadGuard => tokio::sync::RwLockReadGuard
);
guard!(
    /// The write guard of a measured `tokio::sync::RwLock`.
    RwLockWriteGuard => tokio::sync::RwLockWriteGuard, mut
);
guard!(
    /// A measured write guard narrowed to a part of the data.
    RwLockMappedWriteGuard => tokio::sync::RwLockMappedWriteGuard, mut
);

/// `lock_owned`'s guard: owns an `Arc` of the measured mutex.
pub type OwnedMutexGuard<T> = ArcGuard<TMutex<T>, tokio::sync::MutexGuard<'static, T>>;
/// `OwnedMutexGuard::map`'s guard: a part `U` of the data of an owned guard.
pub type OwnedMappedMutexGuard<T, U = T> =
    ArcGuard<TMutex<T>, tokio::sync::MappedMutexGuard<'static, U>>;
/// `read_owned`'s guard.
pub type OwnedRwLockReadGuard<T> = ArcGuard<TRwLock<T>, tokio::sync::RwLockReadGuard<'static, T>>;
/// `write_owned`'s guard.
pub type OwnedRwLockWriteGuard<T> = ArcGuard<TRwLock<T>, tokio::sync::RwLockWriteGuard<'static, T>>;

forward!(new tokio::sync::Mutex => Mutex, "mutex", "hotpath::mutex!");

impl<T> Lock<TMutex<T>> {
    /// A measured mutex in const context (a `static`); every `const_new` mutex shares
    /// one call site.
    pub const fn const_new(t: T) -> Self {
        Lock::instrument(TMutex::const_new(t), &MUTEX_CONST_NEW)
    }

    forward! {
        /// Consumes the mutex, returning the data.
        fn into_inner(self) -> T;
    }
}

impl<T: ?Sized> Lock<TMutex<T>> {
    /// Acquires the mutex, waiting (in tokio's FIFO order) until it is available.
    pub async fn lock(&self) -> MutexGuard<'_, T> {
        let (inner, hold) =
            acquire_await(self, Mode::Write, |m| m.try_lock().ok(), |m| m.lock()).await;
        MutexGuard { inner, hold }
    }

    /// Acquires the mutex if it is free now.
    pub fn try_lock(&self) -> Result<MutexGuard<'_, T>, TryLockError> {
        self.register();
        try_acquire_by(self.site, Mode::Write, &self.inner, |m| m.try_lock())
            .map(|(inner, hold)| MutexGuard { inner, hold })
    }

    /// Acquires the mutex from synchronous code, blocking the thread (see
    /// `tokio::sync::Mutex::blocking_lock`: never from inside a runtime).
    pub fn blocking_lock(&self) -> MutexGuard<'_, T> {
        let (inner, hold) = acquire(
            self,
            Mode::Write,
            |m| m.try_lock().ok(),
            |m| m.blocking_lock(),
        );
        MutexGuard { inner, hold }
    }

    forward! {
        /// The data, through a unique borrow of the mutex.
        fn get_mut(&mut self) -> &mut T;
    }
}

impl<T: ?Sized + 'static> Lock<TMutex<T>> {
    /// Acquires the mutex through an `Arc`, for a guard that owns it.
    #[allow(unsafe_code)]
    pub async fn lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        // SAFETY: the `Arc` is kept alive by this future and then by the guard, which
        // drops the borrowing guard before it: the lock outlives the borrow.
        let this: &'static Self = unsafe { &*Arc::as_ptr(&self) };
        let MutexGuard { inner, hold } = this.lock().await;
        ArcGuard::new(inner, hold, self)
    }

    /// Acquires the mutex through an `Arc` if it is free now.
    #[allow(unsafe_code)]
    pub fn try_lock_owned(self: Arc<Self>) -> Result<OwnedMutexGuard<T>, TryLockError> {
        // SAFETY: as in `lock_owned`.
        let this: &'static Self = unsafe { &*Arc::as_ptr(&self) };
        let MutexGuard { inner, hold } = this.try_lock()?;
        Ok(ArcGuard::new(inner, hold, self))
    }

    /// Acquires the mutex through an `Arc` from synchronous code, blocking the thread.
    #[allow(unsafe_code)]
    pub fn blocking_lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        // SAFETY: as in `lock_owned`.
        let this: &'static Self = unsafe { &*Arc::as_ptr(&self) };
        let MutexGuard { inner, hold } = this.blocking_lock();
        ArcGuard::new(inner, hold, self)
    }
}

impl<'a, T: ?Sized + 'a> MutexGuard<'a, T> {
    /// Narrows the guard to a part of the data; the hold goes on.
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(
        this: Self,
        f: F,
    ) -> MappedMutexGuard<'a, U> {
        let MutexGuard { inner, hold } = this;
        MappedMutexGuard {
            inner: tokio::sync::MutexGuard::map(inner, f),
            hold,
        }
    }

    /// Narrows the guard if `f` finds the part; gives the guard back otherwise.
    pub fn try_map<U: ?Sized, F: FnOnce(&mut T) -> Option<&mut U>>(
        this: Self,
        f: F,
    ) -> Result<MappedMutexGuard<'a, U>, Self> {
        let MutexGuard { inner, hold } = this;
        match tokio::sync::MutexGuard::try_map(inner, f) {
            Ok(inner) => Ok(MappedMutexGuard { inner, hold }),
            Err(inner) => Err(MutexGuard { inner, hold }),
        }
    }
}

impl<T: ?Sized + 'static> OwnedMutexGuard<T> {
    /// Narrows the guard to a part of the data; the hold goes on.
    pub fn map<U, F>(this: Self, f: F) -> OwnedMappedMutexGuard<T, U>
    where
        U: ?Sized + 'static,
        F: FnOnce(&mut T) -> &mut U,
    {
        ArcGuard::turn_into(this, |inner, hold| {
            (tokio::sync::MutexGuard::map(inner, f), hold)
        })
    }

    /// Narrows the guard if `f` finds the part; gives the guard back otherwise.
    pub fn try_map<U, F>(this: Self, f: F) -> Result<OwnedMappedMutexGuard<T, U>, Self>
    where
        U: ?Sized + 'static,
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        ArcGuard::turn(this, |inner, hold| {
            match tokio::sync::MutexGuard::try_map(inner, f) {
                Ok(mapped) => Ok((mapped, hold)),
                Err(inner) => Err((inner, hold)),
            }
        })
    }

    /// The measured mutex this guard holds.
    pub fn mutex(this: &Self) -> &Arc<Lock<TMutex<T>>> {
        ArcGuard::lock(this)
    }
}

impl<T: ?Sized + 'static, U: ?Sized + 'static> OwnedMappedMutexGuard<T, U> {
    /// Narrows the guard further; the hold goes on.
    pub fn map<S, F>(this: Self, f: F) -> OwnedMappedMutexGuard<T, S>
    where
        S: 'static,
        F: FnOnce(&mut U) -> &mut S,
    {
        ArcGuard::turn_into(this, |inner, hold| {
            (tokio::sync::MappedMutexGuard::map(inner, f), hold)
        })
    }

    /// Narrows the guard further if `f` finds the part; gives the guard back otherwise.
    pub fn try_map<S, F>(this: Self, f: F) -> Result<OwnedMappedMutexGuard<T, S>, Self>
    where
        S: 'static,
        F: FnOnce(&mut U) -> Option<&mut S>,
    {
        ArcGuard::turn(
            this,
            |inner, hold| match tokio::sync::MappedMutexGuard::try_map(inner, f) {
                Ok(mapped) => Ok((mapped, hold)),
                Err(inner) => Err((inner, hold)),
            },
        )
    }
}

forward!(new tokio::sync::RwLock => RwLock, "lock", "hotpath::rw_lock!");

impl<T> Lock<TRwLock<T>> {
    /// A measured lock allowing at most `max_reads` readers at once.
    #[track_caller]
    pub fn with_max_readers(t: T, max_reads: u32) -> Self {
        Lock::at_caller(TRwLock::with_max_readers(t, max_reads), LockKind::RwLock)
    }

    /// A measured lock in const context (a `static`); every `const_new` lock shares one
    /// call site.
    pub const fn const_new(t: T) -> Self {
        Lock::instrument(TRwLock::const_new(t), &RW_LOCK_CONST_NEW)
    }

    forward! {
        /// Consumes the lock, returning the data.
        fn into_inner(self) -> T;
    }
}

impl<T: ?Sized> Lock<TRwLock<T>> {
    /// Acquires shared read access, waiting (FIFO) until it is available.
    pub async fn read(&self) -> RwLockReadGuard<'_, T> {
        let (inner, hold) =
            acquire_await(self, Mode::Read, |l| l.try_read().ok(), |l| l.read()).await;
        RwLockReadGuard { inner, hold }
    }

    /// Acquires shared read access if it is available now.
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        self.register();
        try_acquire_by(self.site, Mode::Read, &self.inner, |l| l.try_read())
            .map(|(inner, hold)| RwLockReadGuard { inner, hold })
    }

    /// Acquires shared read access from synchronous code, blocking the thread.
    pub fn blocking_read(&self) -> RwLockReadGuard<'_, T> {
        let (inner, hold) = acquire(
            self,
            Mode::Read,
            |l| l.try_read().ok(),
            |l| l.blocking_read(),
        );
        RwLockReadGuard { inner, hold }
    }

    /// Acquires exclusive write access, waiting (FIFO) until it is available.
    pub async fn write(&self) -> RwLockWriteGuard<'_, T> {
        let (inner, hold) =
            acquire_await(self, Mode::Write, |l| l.try_write().ok(), |l| l.write()).await;
        RwLockWriteGuard { inner, hold }
    }

    /// Acquires exclusive write access if it is available now.
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        self.register();
        try_acquire_by(self.site, Mode::Write, &self.inner, |l| l.try_write())
            .map(|(inner, hold)| RwLockWriteGuard { inner, hold })
    }

    /// Acquires exclusive write access from synchronous code, blocking the thread.
    pub fn blocking_write(&self) -> RwLockWriteGuard<'_, T> {
        let (inner, hold) = acquire(
            self,
            Mode::Write,
            |l| l.try_write().ok(),
            |l| l.blocking_write(),
        );
        RwLockWriteGuard { inner, hold }
    }

    forward! {
        /// The data, through a unique borrow of the lock.
        fn get_mut(&mut self) -> &mut T;
    }
}

impl<T: ?Sized + 'static> Lock<TRwLock<T>> {
    /// Acquires shared read access through an `Arc`, for a guard that owns it.
    #[allow(unsafe_code)]
    pub async fn read_owned(self: Arc<Self>) -> OwnedRwLockReadGuard<T> {
        // SAFETY: as in `Lock<tokio::sync::Mutex<T>>::lock_owned`.
        let this: &'static Self = unsafe { &*Arc::as_ptr(&self) };
        let RwLockReadGuard { inner, hold } = this.read().await;
        ArcGuard::new(inner, hold, self)
    }

    /// Acquires exclusive write access through an `Arc`, for a guard that owns it.
    #[allow(unsafe_code)]
    pub async fn write_owned(self: Arc<Self>) -> OwnedRwLockWriteGuard<T> {
        // SAFETY: as in `Lock<tokio::sync::Mutex<T>>::lock_owned`.
        let this: &'static Self = unsafe { &*Arc::as_ptr(&self) };
        let RwLockWriteGuard { inner, hold } = this.write().await;
        ArcGuard::new(inner, hold, self)
    }

    /// Acquires shared read access through an `Arc` if it is available now.
    #[allow(unsafe_code)]
    pub fn try_read_owned(self: Arc<Self>) -> Result<OwnedRwLockReadGuard<T>, TryLockError> {
        // SAFETY: as in `Lock<tokio::sync::Mutex<T>>::lock_owned`.
        let this: &'static Self = unsafe { &*Arc::as_ptr(&self) };
        let RwLockReadGuard { inner, hold } = this.try_read()?;
        Ok(ArcGuard::new(inner, hold, self))
    }

    /// Acquires exclusive write access through an `Arc` if it is available now.
    #[allow(unsafe_code)]
    pub fn try_write_owned(self: Arc<Self>) -> Result<OwnedRwLockWriteGuard<T>, TryLockError> {
        // SAFETY: as in `Lock<tokio::sync::Mutex<T>>::lock_owned`.
        let this: &'static Self = unsafe { &*Arc::as_ptr(&self) };
        let RwLockWriteGuard { inner, hold } = this.try_write()?;
        Ok(ArcGuard::new(inner, hold, self))
    }
}

impl<'a, T: ?Sized + 'a> RwLockReadGuard<'a, T> {
    /// Narrows the guard to a part of the data.
    pub fn map<U: ?Sized, F: FnOnce(&T) -> &U>(this: Self, f: F) -> RwLockReadGuard<'a, U> {
        let RwLockReadGuard { inner, hold } = this;
        RwLockReadGuard {
            inner: tokio::sync::RwLockReadGuard::map(inner, f),
            hold,
        }
    }
}

impl<'a, T: ?Sized + 'a> RwLockWriteGuard<'a, T> {
    /// Narrows the guard to a part of the data.
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(
        this: Self,
        f: F,
    ) -> RwLockMappedWriteGuard<'a, U> {
        let RwLockWriteGuard { inner, hold } = this;
        RwLockMappedWriteGuard {
            inner: tokio::sync::RwLockWriteGuard::map(inner, f),
            hold,
        }
    }

    /// Turns the write access into read access without letting a writer in: the write
    /// hold ends, a read hold starts.
    pub fn downgrade(self) -> RwLockReadGuard<'a, T> {
        let RwLockWriteGuard { inner, hold } = self;
        let (inner, hold) = downgrade(
            inner,
            hold,
            Mode::Read,
            tokio::sync::RwLockWriteGuard::downgrade,
        );
        RwLockReadGuard { inner, hold }
    }
}
