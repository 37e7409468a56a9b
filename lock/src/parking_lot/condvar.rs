//! The methods of [`Condvar`], `parking_lot::Condvar` for measured mutexes.

use super::*;

impl<T: ?Sized> MutexGuard<'_, T> {
    /// A condition variable's wait on this guard: `wait` gets parking_lot's guard (and
    /// releases the lock meanwhile, see `Hold::condvar_wait`).
    fn condvar_wait<U>(
        &mut self,
        wait: impl FnOnce(&mut parking_lot::MutexGuard<'_, T>) -> U,
    ) -> U {
        let inner = &mut self.inner;
        self.hold.condvar_wait(|| wait(inner))
    }
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
        guard.condvar_wait(|g| self.inner.wait(g))
    }

    /// Blocks until notified or `timeout` has passed.
    pub fn wait_for<T: ?Sized>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        timeout: Duration,
    ) -> parking_lot::WaitTimeoutResult {
        guard.condvar_wait(|g| self.inner.wait_for(g, timeout))
    }

    /// Blocks until notified or `timeout` is reached.
    pub fn wait_until<T: ?Sized>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        timeout: Instant,
    ) -> parking_lot::WaitTimeoutResult {
        guard.condvar_wait(|g| self.inner.wait_until(g, timeout))
    }

    /// Blocks while `condition` returns true; the whole call counts as one wait.
    pub fn wait_while<T: ?Sized, F: FnMut(&mut T) -> bool>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        condition: F,
    ) {
        guard.condvar_wait(|g| self.inner.wait_while(g, condition))
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
