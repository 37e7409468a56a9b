//! The measured `parking_lot::RwLock`: its acquisitions in each mode and its guards'
//! methods.

use super::upgrade::*;
use super::*;

forward!(new parking_lot::RwLock => RwLock, "lock", "hotpath::rw_lock!");

impl<T> Lock<PRwLock<T>> {
    forward! {
        /// Consumes the lock, returning the data.
        fn into_inner(self) -> T;
    }
}

impl<T: ?Sized> Lock<PRwLock<T>> {
    /// The read guard of an acquisition just made.
    #[inline(always)]
    fn read_guard<'a>(&'a self, (inner, hold): (PRead<'a, T>, Hold)) -> RwLockReadGuard<'a, T> {
        RwLockReadGuard {
            inner,
            hold,
            lock: self,
        }
    }

    /// The write guard of an acquisition just made.
    #[inline(always)]
    fn write_guard<'a>(&'a self, (inner, hold): (PWrite<'a, T>, Hold)) -> RwLockWriteGuard<'a, T> {
        RwLockWriteGuard {
            inner,
            hold,
            lock: self,
        }
    }

    /// The upgradable read guard of an acquisition just made.
    fn upgradable_guard<'a>(
        &'a self,
        (inner, hold): (PUpgradable<'a, T>, Hold),
    ) -> RwLockUpgradableReadGuard<'a, T> {
        RwLockUpgradableReadGuard {
            inner,
            hold,
            lock: self,
        }
    }

    /// Acquires shared read access, blocking until it is available.
    #[inline]
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        self.read_guard(acquire(self, Mode::Read, |l| l.try_read(), |l| l.read()))
    }

    /// Acquires shared read access even while a writer waits, if this thread already
    /// reads (see `parking_lot::RwLock::read_recursive`).
    pub fn read_recursive(&self) -> RwLockReadGuard<'_, T> {
        self.read_guard(acquire(
            self,
            Mode::Read,
            |l| l.try_read_recursive(),
            |l| l.read_recursive(),
        ))
    }

    /// Acquires shared read access if it is available now.
    #[inline]
    pub fn try_read(&self) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire(self, Mode::Read, |l| l.try_read()).map(|g| self.read_guard(g))
    }

    /// As [`Self::try_read`], recursively.
    pub fn try_read_recursive(&self) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire(self, Mode::Read, |l| l.try_read_recursive()).map(|g| self.read_guard(g))
    }

    /// Acquires shared read access, waiting at most `timeout`.
    pub fn try_read_for(&self, timeout: Duration) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Read,
            |l| l.try_read(),
            |l| l.try_read_for(timeout),
        )
        .map(|g| self.read_guard(g))
    }

    /// Acquires shared read access, waiting at most until `timeout`.
    pub fn try_read_until(&self, timeout: Instant) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Read,
            |l| l.try_read(),
            |l| l.try_read_until(timeout),
        )
        .map(|g| self.read_guard(g))
    }

    /// As [`Self::try_read_for`], recursively.
    pub fn try_read_recursive_for(&self, timeout: Duration) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Read,
            |l| l.try_read_recursive(),
            |l| l.try_read_recursive_for(timeout),
        )
        .map(|g| self.read_guard(g))
    }

    /// As [`Self::try_read_until`], recursively.
    pub fn try_read_recursive_until(&self, timeout: Instant) -> Option<RwLockReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Read,
            |l| l.try_read_recursive(),
            |l| l.try_read_recursive_until(timeout),
        )
        .map(|g| self.read_guard(g))
    }

    /// Acquires exclusive write access, blocking until it is available.
    #[inline]
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.write_guard(acquire(self, Mode::Write, |l| l.try_write(), |l| l.write()))
    }

    /// Acquires exclusive write access if it is available now.
    #[inline]
    pub fn try_write(&self) -> Option<RwLockWriteGuard<'_, T>> {
        try_acquire(self, Mode::Write, |l| l.try_write()).map(|g| self.write_guard(g))
    }

    /// Acquires exclusive write access, waiting at most `timeout`.
    pub fn try_write_for(&self, timeout: Duration) -> Option<RwLockWriteGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Write,
            |l| l.try_write(),
            |l| l.try_write_for(timeout),
        )
        .map(|g| self.write_guard(g))
    }

    /// Acquires exclusive write access, waiting at most until `timeout`.
    pub fn try_write_until(&self, timeout: Instant) -> Option<RwLockWriteGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Write,
            |l| l.try_write(),
            |l| l.try_write_until(timeout),
        )
        .map(|g| self.write_guard(g))
    }

    /// Acquires upgradable read access (shared with readers, exclusive of writers and
    /// other upgradable readers), blocking until it is available.
    pub fn upgradable_read(&self) -> RwLockUpgradableReadGuard<'_, T> {
        self.upgradable_guard(acquire(
            self,
            Mode::Upgradable,
            |l| l.try_upgradable_read(),
            |l| l.upgradable_read(),
        ))
    }

    /// Acquires upgradable read access if it is available now.
    pub fn try_upgradable_read(&self) -> Option<RwLockUpgradableReadGuard<'_, T>> {
        try_acquire(self, Mode::Upgradable, |l| l.try_upgradable_read())
            .map(|g| self.upgradable_guard(g))
    }

    /// Acquires upgradable read access, waiting at most `timeout`.
    pub fn try_upgradable_read_for(
        &self,
        timeout: Duration,
    ) -> Option<RwLockUpgradableReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Upgradable,
            |l| l.try_upgradable_read(),
            |l| l.try_upgradable_read_for(timeout),
        )
        .map(|g| self.upgradable_guard(g))
    }

    /// Acquires upgradable read access, waiting at most until `timeout`.
    pub fn try_upgradable_read_until(
        &self,
        timeout: Instant,
    ) -> Option<RwLockUpgradableReadGuard<'_, T>> {
        try_acquire_timed(
            self,
            Mode::Upgradable,
            |l| l.try_upgradable_read(),
            |l| l.try_upgradable_read_until(timeout),
        )
        .map(|g| self.upgradable_guard(g))
    }

    forward! {
        /// Whether the lock is held in any mode now.
        fn is_locked(&self) -> bool;
        /// Whether the lock is held for writing now.
        fn is_locked_exclusive(&self) -> bool;
        /// The data, through a unique borrow of the lock.
        fn get_mut(&mut self) -> &mut T;
        /// A raw pointer to the data (see `parking_lot::RwLock::data_ptr`).
        fn data_ptr(&self) -> *mut T;
    }
}

impl<T: ?Sized + 'static> Lock<PRwLock<T>> {
    /// Acquires shared read access through an `Arc`, for a guard that owns it.
    pub fn read_arc(self: &Arc<Self>) -> ArcRwLockReadGuard<T> {
        arc_read(self, self.read())
    }

    /// As [`Self::read_arc`], if read access is available now.
    pub fn try_read_arc(self: &Arc<Self>) -> Option<ArcRwLockReadGuard<T>> {
        self.try_read().map(|g| arc_read(self, g))
    }

    /// As [`Self::read_arc`], waiting at most `timeout`.
    pub fn try_read_arc_for(self: &Arc<Self>, timeout: Duration) -> Option<ArcRwLockReadGuard<T>> {
        self.try_read_for(timeout).map(|g| arc_read(self, g))
    }

    /// As [`Self::read_arc`], waiting at most until `timeout`.
    pub fn try_read_arc_until(self: &Arc<Self>, timeout: Instant) -> Option<ArcRwLockReadGuard<T>> {
        self.try_read_until(timeout).map(|g| arc_read(self, g))
    }

    /// As [`Self::read_recursive`], through an `Arc`.
    pub fn read_arc_recursive(self: &Arc<Self>) -> ArcRwLockReadGuard<T> {
        arc_read(self, self.read_recursive())
    }

    /// As [`Self::try_read_recursive`], through an `Arc`.
    pub fn try_read_recursive_arc(self: &Arc<Self>) -> Option<ArcRwLockReadGuard<T>> {
        self.try_read_recursive().map(|g| arc_read(self, g))
    }

    /// As [`Self::try_read_recursive_for`], through an `Arc`.
    pub fn try_read_arc_recursive_for(
        self: &Arc<Self>,
        timeout: Duration,
    ) -> Option<ArcRwLockReadGuard<T>> {
        self.try_read_recursive_for(timeout)
            .map(|g| arc_read(self, g))
    }

    /// As [`Self::try_read_recursive_until`], through an `Arc`.
    pub fn try_read_arc_recursive_until(
        self: &Arc<Self>,
        timeout: Instant,
    ) -> Option<ArcRwLockReadGuard<T>> {
        self.try_read_recursive_until(timeout)
            .map(|g| arc_read(self, g))
    }

    /// Acquires exclusive write access through an `Arc`, for a guard that owns it.
    pub fn write_arc(self: &Arc<Self>) -> ArcRwLockWriteGuard<T> {
        arc_write(self, self.write())
    }

    /// As [`Self::write_arc`], if write access is available now.
    pub fn try_write_arc(self: &Arc<Self>) -> Option<ArcRwLockWriteGuard<T>> {
        self.try_write().map(|g| arc_write(self, g))
    }

    /// As [`Self::write_arc`], waiting at most `timeout`.
    pub fn try_write_arc_for(
        self: &Arc<Self>,
        timeout: Duration,
    ) -> Option<ArcRwLockWriteGuard<T>> {
        self.try_write_for(timeout).map(|g| arc_write(self, g))
    }

    /// As [`Self::write_arc`], waiting at most until `timeout`.
    pub fn try_write_arc_until(
        self: &Arc<Self>,
        timeout: Instant,
    ) -> Option<ArcRwLockWriteGuard<T>> {
        self.try_write_until(timeout).map(|g| arc_write(self, g))
    }

    /// Acquires upgradable read access through an `Arc`, for a guard that owns it.
    pub fn upgradable_read_arc(self: &Arc<Self>) -> ArcRwLockUpgradableReadGuard<T> {
        arc_upgradable(self, self.upgradable_read())
    }

    /// As [`Self::upgradable_read_arc`], if the access is available now.
    pub fn try_upgradable_read_arc(self: &Arc<Self>) -> Option<ArcRwLockUpgradableReadGuard<T>> {
        self.try_upgradable_read().map(|g| arc_upgradable(self, g))
    }

    /// As [`Self::upgradable_read_arc`], waiting at most `timeout`.
    pub fn try_upgradable_read_arc_for(
        self: &Arc<Self>,
        timeout: Duration,
    ) -> Option<ArcRwLockUpgradableReadGuard<T>> {
        self.try_upgradable_read_for(timeout)
            .map(|g| arc_upgradable(self, g))
    }

    /// As [`Self::upgradable_read_arc`], waiting at most until `timeout`.
    pub fn try_upgradable_read_arc_until(
        self: &Arc<Self>,
        timeout: Instant,
    ) -> Option<ArcRwLockUpgradableReadGuard<T>> {
        self.try_upgradable_read_until(timeout)
            .map(|g| arc_upgradable(self, g))
    }
}

impl<'a, T: ?Sized + 'a> RwLockReadGuard<'a, T> {
    /// The measured lock this guard holds.
    pub fn rwlock(s: &Self) -> &'a Lock<PRwLock<T>> {
        s.lock
    }
}

impl<'a, T: ?Sized + 'a> RwLockWriteGuard<'a, T> {
    /// The measured lock this guard holds.
    pub fn rwlock(s: &Self) -> &'a Lock<PRwLock<T>> {
        s.lock
    }

    /// Turns the write access into read access without letting a writer in: the write
    /// hold ends, a read hold starts.
    pub fn downgrade(s: Self) -> RwLockReadGuard<'a, T> {
        let RwLockWriteGuard { inner, hold, lock } = s;
        let (inner, hold) = downgrade_to_read(inner, hold);
        RwLockReadGuard { inner, hold, lock }
    }

    /// Turns the write access into upgradable read access.
    pub fn downgrade_to_upgradable(s: Self) -> RwLockUpgradableReadGuard<'a, T> {
        let RwLockWriteGuard { inner, hold, lock } = s;
        let (inner, hold) = downgrade_to_upgradable(inner, hold);
        RwLockUpgradableReadGuard { inner, hold, lock }
    }
}

impl<'a, T: ?Sized + 'a> RwLockUpgradableReadGuard<'a, T> {
    /// The measured lock this guard holds.
    pub fn rwlock(s: &Self) -> &'a Lock<PRwLock<T>> {
        s.lock
    }

    /// Upgrades to write access, waiting for the readers to leave: the upgradable hold
    /// ends and a write acquisition starts (contended if readers were there).
    pub fn upgrade(s: Self) -> RwLockWriteGuard<'a, T> {
        let RwLockUpgradableReadGuard { inner, hold, lock } = s;
        let (inner, hold) = upgrade(inner, hold);
        RwLockWriteGuard { inner, hold, lock }
    }

    /// Upgrades to write access if no reader is there; gives the guard back otherwise
    /// (a failed try of the write mode).
    pub fn try_upgrade(s: Self) -> Result<RwLockWriteGuard<'a, T>, Self> {
        let RwLockUpgradableReadGuard { inner, hold, lock } = s;
        match try_upgrade(inner, hold, PUpgradable::try_upgrade) {
            Ok((inner, hold)) => Ok(RwLockWriteGuard { inner, hold, lock }),
            Err((inner, hold)) => Err(RwLockUpgradableReadGuard { inner, hold, lock }),
        }
    }

    /// Upgrades to write access, waiting at most `timeout` for the readers to leave;
    /// gives the guard back otherwise (a failed try of the write mode).
    pub fn try_upgrade_for(s: Self, timeout: Duration) -> Result<RwLockWriteGuard<'a, T>, Self> {
        let RwLockUpgradableReadGuard { inner, hold, lock } = s;
        match upgrade_timed(inner, hold, |g| PUpgradable::try_upgrade_for(g, timeout)) {
            Ok((inner, hold)) => Ok(RwLockWriteGuard { inner, hold, lock }),
            Err((inner, hold)) => Err(RwLockUpgradableReadGuard { inner, hold, lock }),
        }
    }

    /// As [`Self::try_upgrade_for`], waiting at most until `timeout`.
    pub fn try_upgrade_until(s: Self, timeout: Instant) -> Result<RwLockWriteGuard<'a, T>, Self> {
        let RwLockUpgradableReadGuard { inner, hold, lock } = s;
        match upgrade_timed(inner, hold, |g| PUpgradable::try_upgrade_until(g, timeout)) {
            Ok((inner, hold)) => Ok(RwLockWriteGuard { inner, hold, lock }),
            Err((inner, hold)) => Err(RwLockUpgradableReadGuard { inner, hold, lock }),
        }
    }

    /// Turns the upgradable access into plain read access.
    pub fn downgrade(s: Self) -> RwLockReadGuard<'a, T> {
        let RwLockUpgradableReadGuard { inner, hold, lock } = s;
        let (inner, hold) = upgradable_to_read(inner, hold);
        RwLockReadGuard { inner, hold, lock }
    }

    /// Upgrades to write access (waiting for the readers to leave), runs `f` on the
    /// data, and downgrades back to upgradable read access: the upgradable hold ends, a
    /// write acquisition holds while `f` runs, then an upgradable hold starts.
    pub fn with_upgraded<Ret, F: FnOnce(&mut T) -> Ret>(&mut self, f: F) -> Ret {
        with_upgraded(&self.inner, &mut self.hold, f)
    }

    /// As [`Self::with_upgraded`] if no reader is there now; `None` (a failed try of the
    /// write mode, the upgradable hold going on) otherwise.
    pub fn try_with_upgraded<Ret, F: FnOnce(&mut T) -> Ret>(&mut self, f: F) -> Option<Ret> {
        upgraded(&self.inner, &mut self.hold, Upgrade::Now, f)
    }

    /// As [`Self::with_upgraded`], waiting at most `timeout` for the readers to leave;
    /// `None` (a failed try of the write mode) if they did not.
    pub fn try_with_upgraded_for<Ret, F: FnOnce(&mut T) -> Ret>(
        &mut self,
        timeout: Duration,
        f: F,
    ) -> Option<Ret> {
        upgraded(&self.inner, &mut self.hold, Upgrade::For(timeout), f)
    }

    /// As [`Self::try_with_upgraded_for`], waiting at most until `timeout`.
    pub fn try_with_upgraded_until<Ret, F: FnOnce(&mut T) -> Ret>(
        &mut self,
        timeout: Instant,
        f: F,
    ) -> Option<Ret> {
        upgraded(&self.inner, &mut self.hold, Upgrade::Until(timeout), f)
    }
}

maps!(RwLockReadGuard { lock } => MappedRwLockReadGuard, (&), try_map_or_err);
maps!(RwLockWriteGuard { lock } => MappedRwLockWriteGuard, (&mut), try_map_or_err);
maps!(MappedRwLockReadGuard {} => MappedRwLockReadGuard, (&), try_map_or_else);
maps!(MappedRwLockWriteGuard {} => MappedRwLockWriteGuard, (&mut), try_map_or_err);
fair!(RwLockReadGuard, unlocked);
fair!(RwLockWriteGuard, unlocked);
fair!(RwLockUpgradableReadGuard, unlocked);
fair!(MappedRwLockReadGuard);
fair!(MappedRwLockWriteGuard);
arc_fair!(PRwLock, RwLockReadGuard, rwlock);
arc_fair!(PRwLock, RwLockWriteGuard, rwlock);
arc_fair!(PRwLock, RwLockUpgradableReadGuard, rwlock);
