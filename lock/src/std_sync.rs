//! `std::sync::{Mutex, RwLock, Condvar}`, measured.
//!
//! `Lock<std::sync::Mutex<T>>` and `Lock<std::sync::RwLock<T>>` have std's methods with
//! std's results: poisoning is kept (a lock poisoned by a panic returns `Err(PoisonError)`
//! holding the measured guard, `is_poisoned` and `clear_poison` work), and `try_lock`
//! returns `WouldBlock` exactly when std's does. A lock poisoned before an acquisition
//! counts that acquisition as any other.
//!
//! std's `Condvar` takes std's guard, so a measured mutex comes with [`Condvar`], whose
//! `wait` methods take the measured guard. A condition-variable wait releases the lock:
//! the hold before it and the hold after it are two acquisitions, the wait itself is no
//! hold, and its time is charged to the waiting function as lock waiting.

use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult, WaitTimeoutResult};
use std::time::Duration;

use crate::acquire::{acquire, try_acquire};
use crate::hold::Held;
use crate::macros::{forward, guard};
use crate::{Lock, Mode};

type StdMutex<T> = std::sync::Mutex<T>;
type StdRwLock<T> = std::sync::RwLock<T>;

/// A `std::sync::LockResult` of a std guard, as `Option` for [`acquire`]'s fast path:
/// `None` for `WouldBlock`.
fn attempt<G>(r: TryLockResult<G>) -> Option<LockResult<G>> {
    match r {
        Ok(g) => Some(Ok(g)),
        Err(TryLockError::Poisoned(e)) => Some(Err(e)),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// Wraps the guard of a std result, poisoned or not.
fn wrap<G, H, W>(r: LockResult<G>, hold: H, f: impl FnOnce(G, H) -> W) -> LockResult<W> {
    match r {
        Ok(g) => Ok(f(g, hold)),
        Err(e) => Err(PoisonError::new(f(e.into_inner(), hold))),
    }
}

/// As [`wrap`], for `try_` methods: `None` is `WouldBlock`.
fn wrap_try<G, H, W>(r: Option<(LockResult<G>, H)>, f: impl FnOnce(G, H) -> W) -> TryLockResult<W> {
    match r {
        Some((Ok(g), hold)) => Ok(f(g, hold)),
        Some((Err(e), hold)) => Err(TryLockError::Poisoned(PoisonError::new(f(
            e.into_inner(),
            hold,
        )))),
        None => Err(TryLockError::WouldBlock),
    }
}

/// The guard of a measured `std::sync::Mutex`: derefs to the data; releasing it records
/// the acquisition.
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct MutexGuard<'a, T: ?Sized + 'a> {
    /// Dropped by the guard's own drop, first (see there).
    inner: ManuallyDrop<std::sync::MutexGuard<'a, T>>,
    held: Held,
}

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    #[inline(always)]
    fn new(inner: std::sync::MutexGuard<'a, T>, held: Held) -> Self {
        MutexGuard {
            inner: ManuallyDrop::new(inner),
            held,
        }
    }

    /// The std guard and the hold, which the caller now releases.
    fn into_parts(self) -> (std::sync::MutexGuard<'a, T>, Held) {
        let mut this = ManuallyDrop::new(self);
        let held = this.held;
        // SAFETY: `this` is never dropped (it is a `ManuallyDrop`) nor used again, so
        // `inner` is taken once and not dropped anywhere else.
        #[allow(unsafe_code)]
        let inner = unsafe { ManuallyDrop::take(&mut this.inner) };
        (inner, held)
    }

    /// A condition variable's wait on this guard: `wait` gets the std guard (and
    /// releases the lock meanwhile, see [`Held::condvar_wait`]); what it gives back, std
    /// guard and all, is made measured again by `rewrap` with the hold after the wait.
    fn condvar_wait<G, W>(
        self,
        wait: impl FnOnce(std::sync::MutexGuard<'a, T>) -> LockResult<G>,
        rewrap: impl FnOnce(G, Held) -> W,
    ) -> LockResult<W> {
        let (inner, mut held) = self.into_parts();
        let r = held.condvar_wait(|| wait(inner));
        wrap(r, held, rewrap)
    }
}

/// What a timed condition-variable wait gives back, with the std guard measured again.
fn timed_out<T: ?Sized>(
    (inner, t): (std::sync::MutexGuard<'_, T>, WaitTimeoutResult),
    held: Held,
) -> (MutexGuard<'_, T>, WaitTimeoutResult) {
    (MutexGuard::new(inner, held), t)
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    /// Releases the lock, then records the acquisition.
    ///
    /// The guard's own drop rather than its fields' (a `Hold` dropped after the std
    /// guard): with a field that records, a panic in the std guard's drop must still drop
    /// it, and that cleanup made the guard's drop too large for the optimiser to inline
    /// where the guard lives; not inlined, the guard is copied through memory (stores
    /// then wider loads: store-forwarding stalls) on every acquisition.
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: `inner` is dropped here only, once (the guard is being dropped; its
        // other exit, `into_parts`, never drops it), and not used after.
        #[allow(unsafe_code)]
        unsafe {
            ManuallyDrop::drop(&mut self.inner)
        };
        self.held.release();
    }
}

impl<T: ?Sized + std::fmt::Debug> std::fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.inner, f)
    }
}

impl<T: ?Sized + std::fmt::Display> std::fmt::Display for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

forward!(new std::sync::Mutex => Mutex, "mutex", "hotpath::mutex!");

impl<T> Lock<StdMutex<T>> {
    forward! {
        /// Consumes the mutex, returning the data (`Err` if it is poisoned).
        fn into_inner(self) -> LockResult<T>;
    }
}

/// Inside an `impl` of a measured std lock, the two acquisitions of one mode (`Write`,
/// `Read`): blocking `$lock` (after `$try`) and `$try` now, each std's method of the same
/// name with std's result (see [`attempt`], [`wrap`], [`wrap_try`]); their guard is made
/// by `$new`. `$what` names what they acquire in their docs.
macro_rules! acquisitions {
    ($mode:ident, $what:literal: $lock:ident, $try:ident -> $g:ident by $new:expr) => {
        #[doc = concat!(
            "Acquires ", $what, ", blocking until it is available; `Err` (holding the guard) ",
            "if another thread panicked while holding it."
        )]
        #[inline]
        pub fn $lock(&self) -> LockResult<$g<'_, T>> {
            let (r, held) = acquire(self, Mode::$mode, |l| attempt(l.$try()), |l| l.$lock());
            wrap(r, held, $new)
        }

        #[doc = concat!(
            "Acquires ", $what, " if it is available now: `WouldBlock` otherwise, `Poisoned` ",
            "if another thread panicked while holding it."
        )]
        #[inline]
        pub fn $try(&self) -> TryLockResult<$g<'_, T>> {
            let r = try_acquire(self, Mode::$mode, |l| attempt(l.$try()));
            wrap_try(r, $new)
        }
    };
}

impl<T: ?Sized> Lock<StdMutex<T>> {
    acquisitions!(Write, "the mutex": lock, try_lock -> MutexGuard by MutexGuard::new);

    forward! {
        /// Whether the mutex is poisoned.
        fn is_poisoned(&self) -> bool;
        /// Clears the poisoned state.
        fn clear_poison(&self);
        /// The data, through a unique borrow of the mutex (no locking needed).
        fn get_mut(&mut self) -> LockResult<&mut T>;
    }
}

guard!(
    must_use = "if unused the RwLock will immediately unlock";
    /// The read guard of a measured `std::sync::RwLock`.
    RwLockReadGuard => std::sync::RwLockReadGuard
);
guard!(
    must_use = "if unused the RwLock will immediately unlock";
    /// The write guard of a measured `std::sync::RwLock`.
    RwLockWriteGuard => std::sync::RwLockWriteGuard, mut
);

forward!(new std::sync::RwLock => RwLock, "lock", "hotpath::rw_lock!");

impl<T> Lock<StdRwLock<T>> {
    forward! {
        /// Consumes the lock, returning the data (`Err` if it is poisoned).
        fn into_inner(self) -> LockResult<T>;
    }
}

impl<T: ?Sized> Lock<StdRwLock<T>> {
    acquisitions!(
        Read, "shared read access":
        read, try_read -> RwLockReadGuard by |inner, hold| RwLockReadGuard { inner, hold }
    );

    acquisitions!(
        Write, "exclusive write access":
        write, try_write -> RwLockWriteGuard by |inner, hold| RwLockWriteGuard { inner, hold }
    );

    forward! {
        /// Whether the lock is poisoned.
        fn is_poisoned(&self) -> bool;
        /// Clears the poisoned state.
        fn clear_poison(&self);
        /// The data, through a unique borrow of the lock (no locking needed).
        fn get_mut(&mut self) -> LockResult<&mut T>;
    }
}

/// `std::sync::Condvar` for the guards of measured mutexes: the same methods, taking and
/// returning [`MutexGuard`]. Notifications are std's.
#[derive(Debug, Default)]
pub struct Condvar {
    inner: std::sync::Condvar,
}

impl Condvar {
    /// A condition variable, usable in a `static`.
    pub const fn new() -> Self {
        Condvar {
            inner: std::sync::Condvar::new(),
        }
    }

    /// Blocks until notified, releasing the mutex meanwhile (see
    /// `std::sync::Condvar::wait`; spurious wake-ups happen as there).
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        guard.condvar_wait(|g| self.inner.wait(g), MutexGuard::new)
    }

    /// Blocks while `condition` returns true (see `std::sync::Condvar::wait_while`). The
    /// whole call counts as one wait.
    pub fn wait_while<'a, T, F>(
        &self,
        guard: MutexGuard<'a, T>,
        condition: F,
    ) -> LockResult<MutexGuard<'a, T>>
    where
        F: FnMut(&mut T) -> bool,
    {
        guard.condvar_wait(|g| self.inner.wait_while(g, condition), MutexGuard::new)
    }

    /// Blocks until notified or `dur` has passed (see `std::sync::Condvar::wait_timeout`).
    pub fn wait_timeout<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        dur: Duration,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        guard.condvar_wait(|g| self.inner.wait_timeout(g, dur), timed_out)
    }

    /// Blocks while `condition` returns true, at most `dur` (see
    /// `std::sync::Condvar::wait_timeout_while`). The whole call counts as one wait.
    pub fn wait_timeout_while<'a, T, F>(
        &self,
        guard: MutexGuard<'a, T>,
        dur: Duration,
        condition: F,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)>
    where
        F: FnMut(&mut T) -> bool,
    {
        guard.condvar_wait(
            |g| self.inner.wait_timeout_while(g, dur, condition),
            timed_out,
        )
    }

    /// Wakes one waiting thread.
    pub fn notify_one(&self) {
        self.inner.notify_one()
    }

    /// Wakes every waiting thread.
    pub fn notify_all(&self) {
        self.inner.notify_all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result's guard (or the poisoned one) and hold, read back.
    fn parts<W: Copy>(r: LockResult<W>) -> (bool, W) {
        match r {
            Ok(w) => (false, w),
            Err(e) => (true, *e.get_ref()),
        }
    }

    #[test]
    fn a_try_is_a_guard_a_poisoned_guard_or_none_for_would_block() {
        assert!(matches!(
            attempt(Ok::<u8, TryLockError<u8>>(1)),
            Some(Ok(1))
        ));
        let poisoned = attempt(Err(TryLockError::Poisoned(PoisonError::new(2u8))));
        assert_eq!(poisoned.map(parts), Some((true, 2)));
        assert!(attempt(Err::<u8, _>(TryLockError::WouldBlock)).is_none());
    }

    #[test]
    fn a_guard_is_wrapped_with_its_hold_poisoned_or_not() {
        let pair = |g: u8, h: char| (g, h);
        assert_eq!(parts(wrap(Ok(3u8), 'h', pair)), (false, (3, 'h')));
        let poisoned = wrap(Err(PoisonError::new(4u8)), 'p', pair);
        assert_eq!(parts(poisoned), (true, (4, 'p')));
    }

    #[test]
    fn a_try_s_guard_is_wrapped_and_would_block_stays_would_block() {
        let pair = |g: u8, h: char| (g, h);
        assert!(matches!(wrap_try(Some((Ok(5u8), 'a')), pair), Ok((5, 'a'))));
        match wrap_try(Some((Err(PoisonError::new(6u8)), 'b')), pair) {
            Err(TryLockError::Poisoned(e)) => assert_eq!(e.into_inner(), (6, 'b')),
            other => panic!("not poisoned: {other:?}"),
        }
        let none: Option<(LockResult<u8>, char)> = None;
        assert!(matches!(
            wrap_try(none, pair),
            Err(TryLockError::WouldBlock)
        ));
    }
}
