//! [`ArcGuard`]: a backend's guard kept beside the `Arc` of the lock it borrows, for
//! the guards that own their lock (parking_lot's and async-lock's `lock_arc`, tokio's
//! `lock_owned`).

use std::sync::Arc;

use crate::{Hold, Lock};

/// A guard that owns an `Arc` of its measured lock (parking_lot's `lock_arc`, tokio's
/// `lock_owned`, async-lock's `lock_arc`): derefs as the guard `G` it holds.
pub struct ArcGuard<L: ?Sized, G> {
    // Field order is drop order: the guard (which borrows `*lock`) is released first,
    // then the hold records, then the `Arc` is let go.
    guard: G,
    hold: Hold,
    lock: Arc<Lock<L>>,
}

impl<L: ?Sized, G> ArcGuard<L, G> {
    /// `guard` must borrow nothing but the lock inside `lock`.
    #[cfg_attr(
        not(any(feature = "parking_lot", feature = "tokio", feature = "async-lock")),
        allow(dead_code)
    )]
    pub(crate) fn new(guard: G, hold: Hold, lock: Arc<Lock<L>>) -> Self {
        ArcGuard { guard, hold, lock }
    }

    /// The lock this guard holds.
    pub fn lock(s: &Self) -> &Arc<Lock<L>> {
        &s.lock
    }

    /// Runs `f` on the guard and the hold (to end or pause the hold along with the guard).
    #[allow(dead_code)]
    pub(crate) fn parts(s: &mut Self) -> (&mut G, &mut Hold) {
        (&mut s.guard, &mut s.hold)
    }
}

impl<L: ?Sized, G: std::ops::Deref> std::ops::Deref for ArcGuard<L, G> {
    type Target = G::Target;
    #[inline]
    fn deref(&self) -> &G::Target {
        &self.guard
    }
}

impl<L: ?Sized, G: std::ops::DerefMut> std::ops::DerefMut for ArcGuard<L, G> {
    #[inline]
    fn deref_mut(&mut self) -> &mut G::Target {
        &mut self.guard
    }
}

impl<L: ?Sized, G: std::fmt::Debug> std::fmt::Debug for ArcGuard<L, G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.guard.fmt(f)
    }
}
