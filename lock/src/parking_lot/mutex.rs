//! The measured `parking_lot::Mutex`: its acquisitions and its guards' methods.

use super::*;

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
