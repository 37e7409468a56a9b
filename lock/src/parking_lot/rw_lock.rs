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

impl<'a, T: ?Sized + 'a> RwLockWriteGuard<'a, T> {
    /// Turns the write access into read access without letting a writer in: the write
    /// hold ends, a read hold starts.
    pub fn downgrade(s: Self) -> RwLockReadGuard<'a, T> {
        turn!(s, RwLockWriteGuard => RwLockReadGuard, downgrade_to_read)
    }

    /// Turns the write access into upgradable read access.
    pub fn downgrade_to_upgradable(s: Self) -> RwLockUpgradableReadGuard<'a, T> {
        turn!(s, RwLockWriteGuard => RwLockUpgradableReadGuard, downgrade_to_upgradable)
    }
}

impl<'a, T: ?Sized + 'a> RwLockUpgradableReadGuard<'a, T> {
    /// Upgrades to write access, waiting for the readers to leave: the upgradable hold
    /// ends and a write acquisition starts (contended if readers were there).
    pub fn upgrade(s: Self) -> RwLockWriteGuard<'a, T> {
        turn!(s, RwLockUpgradableReadGuard => RwLockWriteGuard, upgrade)
    }

    /// Upgrades to write access if no reader is there; gives the guard back otherwise
    /// (a failed try of the write mode).
    pub fn try_upgrade(s: Self) -> Result<RwLockWriteGuard<'a, T>, Self> {
        turn!(try s, RwLockUpgradableReadGuard => RwLockWriteGuard, |g, hold| {
            try_upgrade(g, hold, PUpgradable::try_upgrade)
        })
    }

    /// Upgrades to write access, waiting at most `timeout` for the readers to leave;
    /// gives the guard back otherwise (a failed try of the write mode).
    pub fn try_upgrade_for(s: Self, timeout: Duration) -> Result<RwLockWriteGuard<'a, T>, Self> {
        turn!(try s, RwLockUpgradableReadGuard => RwLockWriteGuard, |g, hold| {
            upgrade_timed(g, hold, |g| PUpgradable::try_upgrade_for(g, timeout))
        })
    }

    /// As [`Self::try_upgrade_for`], waiting at most until `timeout`.
    pub fn try_upgrade_until(s: Self, timeout: Instant) -> Result<RwLockWriteGuard<'a, T>, Self> {
        turn!(try s, RwLockUpgradableReadGuard => RwLockWriteGuard, |g, hold| {
            upgrade_timed(g, hold, |g| PUpgradable::try_upgrade_until(g, timeout))
        })
    }

    /// Turns the upgradable access into plain read access.
    pub fn downgrade(s: Self) -> RwLockReadGuard<'a, T> {
        turn!(s, RwLockUpgradableReadGuard => RwLockReadGuard, upgradable_to_read)
    }

    /// The upgradable guard and its hold, for `with_upgraded`.
    fn upgradable_parts(&mut self) -> (&PUpgradable<'a, T>, &mut Hold) {
        (&self.inner, &mut self.hold)
    }

    with_upgraded_methods!(upgradable_parts);
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
