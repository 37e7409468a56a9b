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
    /// The guard of an acquisition just made.
    #[inline(always)]
    fn guard<'a>(
        &'a self,
        (inner, hold): (parking_lot::MutexGuard<'a, T>, Hold),
    ) -> MutexGuard<'a, T> {
        MutexGuard {
            inner,
            hold,
            lock: self,
        }
    }

    acquisitions!(
        #[inline]
        Write, "the mutex": lock, try_lock, try_lock_for, try_lock_until => guard -> MutexGuard
    );

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
    arc_acquisitions! { arc_mutex -> ArcMutexGuard<T>:
        /// Acquires the mutex through an `Arc`, for a guard that owns it.
        fn lock_arc() = lock;
        /// Acquires the mutex through an `Arc` if it is free now.
        fn try_lock_arc()? = try_lock;
        /// Acquires the mutex through an `Arc`, waiting at most `timeout`.
        fn try_lock_arc_for(timeout: Duration)? = try_lock_for;
        /// Acquires the mutex through an `Arc`, waiting at most until `timeout`.
        fn try_lock_arc_until(timeout: Instant)? = try_lock_until;
    }
}

impl<'a, T: ?Sized + 'a> MutexGuard<'a, T> {
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
