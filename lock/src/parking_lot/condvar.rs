//! The methods of [`Condvar`], `parking_lot::Condvar` for measured mutexes.

use super::*;

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
