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

/// Inside an `impl` of a measured tokio lock, the three acquisitions of one mode
/// (`Write`, `Read`): awaited `$lock` (after `$try`, in tokio's FIFO order), `$try` now
/// (tokio's `TryLockError` when the lock is taken) and `$blocking` (after `$try`,
/// blocking the thread), each the backend's method of the same name (see
/// [`acquire_await`], [`try_acquire_by`], [`acquire`]); their guard is `$g`. `$what`
/// names what they acquire in their docs.
macro_rules! acquisitions {
    ($mode:ident, $what:literal: $lock:ident, $try:ident, $blocking:ident -> $g:ident) => {
        #[doc = concat!("Acquires ", $what, ", waiting (in tokio's FIFO order) until it is available.")]
        pub async fn $lock(&self) -> $g<'_, T> {
            let (inner, hold) =
                acquire_await(self, Mode::$mode, |l| l.$try().ok(), |l| l.$lock()).await;
            $g { inner, hold }
        }

        #[doc = concat!("Acquires ", $what, " if it is available now.")]
        pub fn $try(&self) -> Result<$g<'_, T>, TryLockError> {
            self.register();
            try_acquire_by(self.site, Mode::$mode, &self.inner, |l| l.$try())
                .map(|(inner, hold)| $g { inner, hold })
        }

        #[doc = concat!(
            "Acquires ", $what, " from synchronous code, blocking the thread (see `tokio::sync`'s `",
            stringify!($blocking), "`: never from inside a runtime)."
        )]
        pub fn $blocking(&self) -> $g<'_, T> {
            let (inner, hold) = acquire(self, Mode::$mode, |l| l.$try().ok(), |l| l.$blocking());
            $g { inner, hold }
        }
    };
}

/// An owned acquisition, in a method of `Lock<L>` taking `self: Arc<Self>` as `$arc`:
/// `$acquire` with the lock inside the `Arc` borrowed as `$this: &'static Self`, whose
/// measured guard `$g` goes beside the `Arc` into an [`ArcGuard`] (see its Soundness).
macro_rules! owned {
    ($arc:ident, |$this:ident| $acquire:expr => $g:ident) => {{
        // SAFETY: the `Arc` is kept alive by this future (or call) and then by the guard,
        // which drops the borrowing guard before it: the lock outlives the borrow.
        #[allow(unsafe_code)]
        let $this: &'static Self = unsafe { &*Arc::as_ptr(&$arc) };
        let $g { inner, hold } = $acquire;
        ArcGuard::new(inner, hold, $arc)
    }};
}

/// Inside the `impl` of the guard `$guard`, `map` to the mapped guard `$mapped`, the data
/// borrowed as `$($r)+`: the hold goes on.
macro_rules! map {
    ($guard:ident => $mapped:ident, ($($r:tt)+)) => {
        /// Narrows the guard to a part of the data; the hold goes on.
        pub fn map<U: ?Sized, F: FnOnce($($r)+ T) -> $($r)+ U>(this: Self, f: F) -> $mapped<'a, U> {
            let $guard { inner, hold } = this;
            $mapped {
                inner: tokio::sync::$guard::map(inner, f),
                hold,
            }
        }
    };
}

impl<T: ?Sized> Lock<TMutex<T>> {
    acquisitions!(Write, "the mutex": lock, try_lock, blocking_lock -> MutexGuard);

    forward! {
        /// The data, through a unique borrow of the mutex.
        fn get_mut(&mut self) -> &mut T;
    }
}

impl<T: ?Sized + 'static> Lock<TMutex<T>> {
    /// Acquires the mutex through an `Arc`, for a guard that owns it.
    pub async fn lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        owned!(self, |this| this.lock().await => MutexGuard)
    }

    /// Acquires the mutex through an `Arc` if it is free now.
    pub fn try_lock_owned(self: Arc<Self>) -> Result<OwnedMutexGuard<T>, TryLockError> {
        Ok(owned!(self, |this| this.try_lock()? => MutexGuard))
    }

    /// Acquires the mutex through an `Arc` from synchronous code, blocking the thread.
    pub fn blocking_lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        owned!(self, |this| this.blocking_lock() => MutexGuard)
    }
}

impl<'a, T: ?Sized + 'a> MutexGuard<'a, T> {
    map!(MutexGuard => MappedMutexGuard, (&mut));

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
    acquisitions!(Read, "shared read access": read, try_read, blocking_read -> RwLockReadGuard);

    acquisitions!(
        Write, "exclusive write access": write, try_write, blocking_write -> RwLockWriteGuard
    );

    forward! {
        /// The data, through a unique borrow of the lock.
        fn get_mut(&mut self) -> &mut T;
    }
}

impl<T: ?Sized + 'static> Lock<TRwLock<T>> {
    /// Acquires shared read access through an `Arc`, for a guard that owns it.
    pub async fn read_owned(self: Arc<Self>) -> OwnedRwLockReadGuard<T> {
        owned!(self, |this| this.read().await => RwLockReadGuard)
    }

    /// Acquires exclusive write access through an `Arc`, for a guard that owns it.
    pub async fn write_owned(self: Arc<Self>) -> OwnedRwLockWriteGuard<T> {
        owned!(self, |this| this.write().await => RwLockWriteGuard)
    }

    /// Acquires shared read access through an `Arc` if it is available now.
    pub fn try_read_owned(self: Arc<Self>) -> Result<OwnedRwLockReadGuard<T>, TryLockError> {
        Ok(owned!(self, |this| this.try_read()? => RwLockReadGuard))
    }

    /// Acquires exclusive write access through an `Arc` if it is available now.
    pub fn try_write_owned(self: Arc<Self>) -> Result<OwnedRwLockWriteGuard<T>, TryLockError> {
        Ok(owned!(self, |this| this.try_write()? => RwLockWriteGuard))
    }
}

impl<'a, T: ?Sized + 'a> RwLockReadGuard<'a, T> {
    map!(RwLockReadGuard => RwLockReadGuard, (&));
}

impl<'a, T: ?Sized + 'a> RwLockWriteGuard<'a, T> {
    map!(RwLockWriteGuard => RwLockMappedWriteGuard, (&mut));

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
