//! Moving a read-write lock's hold between modes: upgrades (timed, temporary with
//! `with_upgraded`) and downgrades, for borrowing and `_arc` guards alike.

use super::*;

/// Inside the `impl` of an upgradable guard (borrowing or `_arc`), `with_upgraded` and its
/// `try_` forms, on the upgradable guard and hold that `self.$parts()` gives (see
/// [`upgraded`]).
macro_rules! with_upgraded_methods {
    ($parts:ident) => {
        /// Upgrades to write access (waiting for the readers to leave), runs `f` on the
        /// data, and downgrades back to upgradable read access: the upgradable hold ends, a
        /// write acquisition holds while `f` runs, then an upgradable hold starts.
        pub fn with_upgraded<Ret, F: FnOnce(&mut T) -> Ret>(&mut self, f: F) -> Ret {
            let (g, hold) = self.$parts();
            with_upgraded(g, hold, f)
        }

        /// As [`Self::with_upgraded`] if no reader is there now; `None` (a failed try of the
        /// write mode, the upgradable hold going on) otherwise.
        pub fn try_with_upgraded<Ret, F: FnOnce(&mut T) -> Ret>(&mut self, f: F) -> Option<Ret> {
            let (g, hold) = self.$parts();
            upgraded(g, hold, Upgrade::Now, f)
        }

        /// As [`Self::with_upgraded`], waiting at most `timeout` for the readers to leave;
        /// `None` (a failed try of the write mode) if they did not.
        pub fn try_with_upgraded_for<Ret, F: FnOnce(&mut T) -> Ret>(
            &mut self,
            timeout: Duration,
            f: F,
        ) -> Option<Ret> {
            let (g, hold) = self.$parts();
            upgraded(g, hold, Upgrade::For(timeout), f)
        }

        /// As [`Self::try_with_upgraded_for`], waiting at most until `timeout`.
        pub fn try_with_upgraded_until<Ret, F: FnOnce(&mut T) -> Ret>(
            &mut self,
            timeout: Instant,
            f: F,
        ) -> Option<Ret> {
            let (g, hold) = self.$parts();
            upgraded(g, hold, Upgrade::Until(timeout), f)
        }
    };
}
pub(super) use with_upgraded_methods;

impl<T: ?Sized + 'static> ArcRwLockWriteGuard<T> {
    /// As [`RwLockWriteGuard::downgrade`], keeping the `Arc`.
    pub fn downgrade(s: Self) -> ArcRwLockReadGuard<T> {
        ArcGuard::turn_into(s, downgrade_to_read)
    }

    /// As [`RwLockWriteGuard::downgrade_to_upgradable`], keeping the `Arc`.
    pub fn downgrade_to_upgradable(s: Self) -> ArcRwLockUpgradableReadGuard<T> {
        ArcGuard::turn_into(s, downgrade_to_upgradable)
    }
}

impl<T: ?Sized + 'static> ArcRwLockUpgradableReadGuard<T> {
    /// As [`RwLockUpgradableReadGuard::upgrade`], keeping the `Arc`.
    pub fn upgrade(s: Self) -> ArcRwLockWriteGuard<T> {
        ArcGuard::turn_into(s, upgrade)
    }

    /// As [`RwLockUpgradableReadGuard::try_upgrade`], keeping the `Arc`.
    pub fn try_upgrade(s: Self) -> Result<ArcRwLockWriteGuard<T>, Self> {
        ArcGuard::turn(s, |g, hold| try_upgrade(g, hold, PUpgradable::try_upgrade))
    }

    /// As [`RwLockUpgradableReadGuard::try_upgrade_for`], keeping the `Arc`.
    pub fn try_upgrade_for(s: Self, timeout: Duration) -> Result<ArcRwLockWriteGuard<T>, Self> {
        ArcGuard::turn(s, |g, hold| {
            upgrade_timed(g, hold, |g| PUpgradable::try_upgrade_for(g, timeout))
        })
    }

    /// As [`RwLockUpgradableReadGuard::try_upgrade_until`], keeping the `Arc`.
    pub fn try_upgrade_until(s: Self, timeout: Instant) -> Result<ArcRwLockWriteGuard<T>, Self> {
        ArcGuard::turn(s, |g, hold| {
            upgrade_timed(g, hold, |g| PUpgradable::try_upgrade_until(g, timeout))
        })
    }

    /// As [`RwLockUpgradableReadGuard::downgrade`], keeping the `Arc`.
    pub fn downgrade(s: Self) -> ArcRwLockReadGuard<T> {
        ArcGuard::turn_into(s, upgradable_to_read)
    }

    /// The upgradable guard and its hold, for `with_upgraded`.
    fn upgradable_parts(&mut self) -> (&PUpgradable<'static, T>, &mut Hold) {
        let (g, hold) = ArcGuard::parts(self);
        (g, hold)
    }

    with_upgraded_methods!(upgradable_parts);
}

/// A write guard downgraded to a read guard: the write hold ends, a read hold starts.
pub(super) fn downgrade_to_read<'a, T: ?Sized>(
    g: PWrite<'a, T>,
    hold: Hold,
) -> (PRead<'a, T>, Hold) {
    downgrade(g, hold, Mode::Read, PWrite::downgrade)
}

/// A write guard downgraded to an upgradable one.
pub(super) fn downgrade_to_upgradable<'a, T: ?Sized>(
    g: PWrite<'a, T>,
    hold: Hold,
) -> (PUpgradable<'a, T>, Hold) {
    downgrade(g, hold, Mode::Upgradable, PWrite::downgrade_to_upgradable)
}

/// An upgradable guard downgraded to a read guard.
pub(super) fn upgradable_to_read<'a, T: ?Sized>(
    g: PUpgradable<'a, T>,
    hold: Hold,
) -> (PRead<'a, T>, Hold) {
    downgrade(g, hold, Mode::Read, PUpgradable::downgrade)
}

/// An upgradable guard upgraded, waiting for the readers: the upgradable hold ends
/// first, then a write acquisition.
pub(super) fn upgrade<'a, T: ?Sized>(g: PUpgradable<'a, T>, hold: Hold) -> (PWrite<'a, T>, Hold) {
    acquire_by(
        hold.end(),
        Mode::Write,
        g,
        PUpgradable::try_upgrade,
        PUpgradable::upgrade,
    )
}

/// An upgradable guard upgraded by `wait` (a timed upgrade) if its first try fails: a
/// timed try of the write mode; the upgradable hold ends once it succeeded, and goes on
/// with the guard given back if it timed out.
#[allow(clippy::type_complexity)]
pub(super) fn upgrade_timed<'a, T: ?Sized>(
    g: PUpgradable<'a, T>,
    hold: Hold,
    wait: impl FnOnce(PUpgradable<'a, T>) -> Result<PWrite<'a, T>, PUpgradable<'a, T>>,
) -> Result<(PWrite<'a, T>, Hold), (PUpgradable<'a, T>, Hold)> {
    match try_acquire_timed_by(hold.lock(), Mode::Write, g, PUpgradable::try_upgrade, wait) {
        Ok((w, write)) => {
            hold.end();
            Ok((w, write))
        }
        Err(g) => Err((g, hold)),
    }
}

/// How `with_upgraded` and its `try_` forms upgrade.
pub(super) enum Upgrade {
    /// Waiting as long as it takes (`with_upgraded`).
    Wait,
    /// Only if no reader is there now (`try_with_upgraded`).
    Now,
    /// Waiting at most this long.
    For(Duration),
    /// Waiting at most until then.
    Until(Instant),
}

/// `with_upgraded` of the upgradable guard `g` held by `hold`.
pub(super) fn with_upgraded<T: ?Sized, Ret>(
    g: &PUpgradable<'_, T>,
    hold: &mut Hold,
    f: impl FnOnce(&mut T) -> Ret,
) -> Ret {
    match upgraded(g, hold, Upgrade::Wait, f) {
        Some(r) => r,
        None => unreachable!("a blocking upgrade always succeeds"),
    }
}

/// Upgrades the upgradable read lock `g` holds (its hold `hold`) as `how` says, runs `f`
/// on the data write-locked, and downgrades back to upgradable: lock_api's
/// `with_upgraded` and `try_with_upgraded*`, on the raw lock as they are, with the holds
/// of [`upgrade`] (or of a try of the write mode), a write hold while `f` runs (also if
/// it panics), and an upgradable hold after. `None` when the upgrade failed: a failed
/// try of the write mode, the upgradable hold going on.
#[allow(unsafe_code)]
pub(super) fn upgraded<T: ?Sized, Ret>(
    g: &PUpgradable<'_, T>,
    hold: &mut Hold,
    how: Upgrade,
    f: impl FnOnce(&mut T) -> Ret,
) -> Option<Ret> {
    let rwlock = PUpgradable::rwlock(g);
    // SAFETY: the raw lock is used only to upgrade the upgradable read lock `g` holds and
    // to downgrade it back to upgradable (in `Restore`'s drop), as lock_api's
    // `with_upgraded` does; `g` stays borrowed, holding it, meanwhile.
    let raw: &parking_lot::RawRwLock = unsafe { rwlock.raw() };
    let now = |r: &parking_lot::RawRwLock| {
        // SAFETY: this thread holds an upgradable read lock of `r` (`g`'s).
        unsafe { r.try_upgrade() }
    };
    let lock = hold.lock();
    let write = match how {
        Upgrade::Wait => {
            let ((), write) = acquire_by(
                hold.end_here(),
                Mode::Write,
                raw,
                |r| if now(r) { Ok(()) } else { Err(r) },
                |r| {
                    // SAFETY: as in `now`.
                    unsafe { r.upgrade() }
                },
            );
            write
        }
        Upgrade::Now => {
            let ((), write) = try_acquire_by(lock, Mode::Write, raw, |r| {
                if now(r) {
                    Ok(())
                } else {
                    Err(())
                }
            })
            .ok()?;
            hold.end_here();
            write
        }
        Upgrade::For(_) | Upgrade::Until(_) => {
            let wait = |r: &parking_lot::RawRwLock| match how {
                // SAFETY: as in `now`.
                Upgrade::For(d) => unsafe { r.try_upgrade_for(d) },
                // SAFETY: as in `now`.
                Upgrade::Until(t) => unsafe { r.try_upgrade_until(t) },
                Upgrade::Wait | Upgrade::Now => false,
            };
            let ((), write) = try_acquire_timed_by(
                lock,
                Mode::Write,
                raw,
                |r| if now(r) { Ok(()) } else { Err(r) },
                |r| if wait(r) { Ok(()) } else { Err(r) },
            )
            .ok()?;
            hold.end_here();
            write
        }
    };
    let restore = Restore {
        raw,
        write: Some(write),
        upgradable: hold,
    };
    // SAFETY: this thread holds the lock for writing (just upgraded) until `restore`
    // drops, after `f` returns or unwinds; nothing else reads the data meanwhile: the
    // guard `g` belongs to is borrowed mutably by the caller.
    let data = unsafe { &mut *rwlock.data_ptr() };
    let r = f(data);
    drop(restore);
    Some(r)
}

/// Downgrades a lock [`upgraded`] upgraded back to upgradable when dropped (after `f`
/// returns or unwinds), then ends its write hold and starts an upgradable one.
struct Restore<'h> {
    raw: &'h parking_lot::RawRwLock,
    write: Option<Hold>,
    upgradable: &'h mut Hold,
}

impl Drop for Restore<'_> {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: this thread holds `raw` for writing: `upgraded` upgraded it from the
        // upgradable read lock its guard holds, and only this drop downgrades it.
        unsafe { self.raw.downgrade_to_upgradable() };
        if let Some(write) = self.write.take() {
            *self.upgradable = hold_now(write.end(), Mode::Upgradable);
        }
    }
}
