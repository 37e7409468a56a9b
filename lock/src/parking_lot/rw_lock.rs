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

    acquisitions!(
        #[inline]
        Read, "shared read access":
        read, try_read, try_read_for, try_read_until => read_guard -> RwLockReadGuard
    );

    acquisitions!(
        Read,
        "shared read access even while a writer waits, if this thread already reads (see \
         `parking_lot::RwLock::read_recursive`)":
        read_recursive, try_read_recursive, try_read_recursive_for, try_read_recursive_until
            => read_guard -> RwLockReadGuard
    );

    acquisitions!(
        #[inline]
        Write, "exclusive write access":
        write, try_write, try_write_for, try_write_until => write_guard -> RwLockWriteGuard
    );

    acquisitions!(
        Upgradable,
        "upgradable read access (shared with readers, exclusive of writers and other \
         upgradable readers)":
        upgradable_read, try_upgradable_read, try_upgradable_read_for, try_upgradable_read_until
            => upgradable_guard -> RwLockUpgradableReadGuard
    );

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
    arc_acquisitions! { arc_read -> ArcRwLockReadGuard<T>:
        /// Acquires shared read access through an `Arc`, for a guard that owns it.
        fn read_arc() = read;
        /// As [`Self::read_arc`], if read access is available now.
        fn try_read_arc()? = try_read;
        /// As [`Self::read_arc`], waiting at most `timeout`.
        fn try_read_arc_for(timeout: Duration)? = try_read_for;
        /// As [`Self::read_arc`], waiting at most until `timeout`.
        fn try_read_arc_until(timeout: Instant)? = try_read_until;
        /// As [`Self::read_recursive`], through an `Arc`.
        fn read_arc_recursive() = read_recursive;
        /// As [`Self::try_read_recursive`], through an `Arc`.
        fn try_read_recursive_arc()? = try_read_recursive;
        /// As [`Self::try_read_recursive_for`], through an `Arc`.
        fn try_read_arc_recursive_for(timeout: Duration)? = try_read_recursive_for;
        /// As [`Self::try_read_recursive_until`], through an `Arc`.
        fn try_read_arc_recursive_until(timeout: Instant)? = try_read_recursive_until;
    }

    arc_acquisitions! { arc_write -> ArcRwLockWriteGuard<T>:
        /// Acquires exclusive write access through an `Arc`, for a guard that owns it.
        fn write_arc() = write;
        /// As [`Self::write_arc`], if write access is available now.
        fn try_write_arc()? = try_write;
        /// As [`Self::write_arc`], waiting at most `timeout`.
        fn try_write_arc_for(timeout: Duration)? = try_write_for;
        /// As [`Self::write_arc`], waiting at most until `timeout`.
        fn try_write_arc_until(timeout: Instant)? = try_write_until;
    }

    arc_acquisitions! { arc_upgradable -> ArcRwLockUpgradableReadGuard<T>:
        /// Acquires upgradable read access through an `Arc`, for a guard that owns it.
        fn upgradable_read_arc() = upgradable_read;
        /// As [`Self::upgradable_read_arc`], if the access is available now.
        fn try_upgradable_read_arc()? = try_upgradable_read;
        /// As [`Self::upgradable_read_arc`], waiting at most `timeout`.
        fn try_upgradable_read_arc_for(timeout: Duration)? = try_upgradable_read_for;
        /// As [`Self::upgradable_read_arc`], waiting at most until `timeout`.
        fn try_upgradable_read_arc_until(timeout: Instant)? = try_upgradable_read_until;
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
