//! [`ArcGuard`]: a backend's guard kept beside the `Arc` of the lock it borrows, for
//! the guards that own their lock (parking_lot's and async-lock's `_arc` guards, tokio's
//! owned ones).

use std::mem::{ManuallyDrop, MaybeUninit};
use std::sync::Arc;

use crate::{Hold, Lock};

/// A guard that owns an `Arc` of its measured lock (parking_lot's `lock_arc`, tokio's
/// `lock_owned` and its `map`, async-lock's `lock_arc` and `read_arc`): derefs as the
/// guard `G` it holds, and prints as it.
///
/// # Soundness
///
/// `G` is the backend's borrowing guard with its lifetime stretched to `'static`
/// (parking_lot and async-lock: `transmute`d; tokio: acquired through a `&'static`
/// made from `Arc::as_ptr`), stored beside the `Arc` of the lock it borrows: the
/// `owning_ref` pattern, whose soundness rests on four facts, each kept here.
///
/// - **Field order.** `guard` is declared before `lock` and `ArcGuard` has no `Drop` of
///   its own, so the guard is dropped (the lock released) before the `Arc` is let go:
///   the borrow ends while the lock is alive. The `Arc` keeps the lock at one heap
///   address however the `ArcGuard` moves.
/// - **`T: 'static`.** The methods that make an `ArcGuard` exist only for
///   `Lock<Backend<T>>` with `T: 'static`, so `G<'static, T>` is well-formed and the
///   data borrows nothing that could end before the guard.
/// - **No `&mut G` and no `G` escapes.** The fields are private and nothing hands out the
///   guard itself, only its target (`Deref`, `DerefMut`) and the `Arc` ([`ArcGuard::lock`]).
///   With a `&mut G`, two guards' `G`s could be `mem::swap`ped, leaving a guard beside an
///   `Arc` that does not keep its lock alive (a use after free once that lock's last
///   `Arc` goes); with a `G` by value, a guard could outlive every `Arc`. Inside the crate,
///   `ArcGuard::new` is the only constructor, given a guard just acquired from the
///   lock in the `Arc` it is given; `ArcGuard::turn`, `ArcGuard::turn_into` and
///   `ArcGuard::turn_async` give the guard, by value, only to a backend's function that
///   turns it into another guard
///   of the same lock (tokio's `map`, async-lock's and parking_lot's `upgrade` and
///   `downgrade`), and keep it beside the same `Arc`; `ArcGuard::parts` lends `&mut G`
///   only to parking_lot's functions that release and take back the lock it borrows
///   (`unlocked`, `bump`, `with_upgraded`), after which it is a guard of the same lock;
///   `ArcGuard::release` gives `G` by value only to its drop or `unlock_fair`, before
///   the `Arc` is given back. The turn owns the guard, so a panic inside it drops the
///   guard (releasing the lock) in its own frame, before the `Arc` is let go; an awaited
///   turn cancelled drops its future, declared after the `Arc`, first.
///
/// - **The guard is kept `MaybeDangling`.** Its `&Lock` is kept out of the aliasing model's
///   sight: passed by value (`drop(guard)`), an `ArcGuard` would otherwise make that
///   reference a protected argument of the call, and the `Arc` released last inside it
///   would free the lock under it, which is undefined behaviour by Stacked and Tree
///   Borrows however the guard was made (Miri reported it in 10 of the 16 tests below,
///   for parking_lot's and tokio's guards, until the guard was kept so).
///
/// What checks it: Miri runs the tests of the `_arc` and `_owned` guards
/// (`lock/tests/arc_guards.rs`: the last `Arc` dropped while and after a guard holds,
/// guards moved to other threads and swapped, an owned acquisition cancelled while it
/// waits, guards mapped, upgraded and downgraded, a `map` that panics, an upgrade
/// cancelled while it waits) without a report. It needs the monotonic clock (it cannot
/// run the TSC probe, `cpuid`), given through the environment:
///
/// ```text
/// rustup +nightly component add miri
/// HOTPATH_CLOCK=monotonic MIRIFLAGS=-Zmiri-env-forward=HOTPATH_CLOCK \
///     cargo +nightly miri test -p hotpath-lock --all-features --test arc_guards
/// ```
///
/// The same tests run clean under valgrind's memcheck, which reports invalid reads in
/// them when `lock` is declared before `guard` (`cargo test -p hotpath-lock
/// --all-features --test arc_guards --no-run`, then `valgrind --error-exitcode=1
/// target/debug/deps/arc_guards-<hash> --test-threads=1`); and the doc tests below fail
/// to compile where code outside the crate reaches for the guard (stable rustdoc does not
/// compare the error codes; with `guard` and its type made `pub` all three compile, so
/// they fail for its privacy).
///
/// No `&mut G` outside the crate, by field:
///
/// ```compile_fail,E0616
/// fn guard_of<L: ?Sized, G>(g: &mut hotpath_lock::ArcGuard<L, G>) {
///     let _mutable = &mut g.guard;
/// }
/// ```
///
/// nor by swapping two guards' guards:
///
/// ```compile_fail,E0616
/// use hotpath_lock::ArcGuard;
///
/// fn swap<L: ?Sized, G>(a: &mut ArcGuard<L, G>, b: &mut ArcGuard<L, G>) {
///     std::mem::swap(&mut a.guard, &mut b.guard)
/// }
/// ```
///
/// nor by value:
///
/// ```compile_fail,E0451
/// fn into_guard<L: ?Sized, G>(g: hotpath_lock::ArcGuard<L, G>) {
///     let hotpath_lock::ArcGuard { guard: _by_value, .. } = g;
/// }
/// ```
///
/// What it does give out: the data and the `Arc`.
///
/// ```
/// use std::ops::DerefMut;
/// use std::sync::Arc;
///
/// fn data<L: ?Sized, G: DerefMut>(g: &mut hotpath_lock::ArcGuard<L, G>) -> &mut G::Target {
///     g
/// }
/// fn lock<L: ?Sized, G>(g: &hotpath_lock::ArcGuard<L, G>) -> Arc<hotpath_lock::Lock<L>> {
///     hotpath_lock::ArcGuard::lock(g).clone()
/// }
/// ```
pub struct ArcGuard<L: ?Sized, G> {
    // Field order is drop order: the guard (which borrows `*lock`) is released first,
    // then the hold records, then the `Arc` is let go.
    guard: MaybeDangling<G>,
    #[allow(dead_code)]
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
        ArcGuard {
            guard: MaybeDangling::new(guard),
            hold,
            lock,
        }
    }

    /// The lock this guard holds.
    pub fn lock(s: &Self) -> &Arc<Lock<L>> {
        &s.lock
    }

    /// The guard and its hold, for a backend's function that keeps the guard one of the
    /// same lock (parking_lot's `unlocked`, `bump`, `with_upgraded`: release and take
    /// back the lock the guard borrows). Never to hand `G` out.
    #[cfg_attr(not(feature = "parking_lot"), allow(dead_code))]
    pub(crate) fn parts(s: &mut Self) -> (&mut G, &mut Hold) {
        (s.guard.get_mut(), &mut s.hold)
    }

    /// Releases the lock by `release` (given the guard by value: a drop, parking_lot's
    /// `unlock_fair`), then records the hold, and gives the `Arc` back (`into_arc`).
    #[cfg_attr(not(feature = "parking_lot"), allow(dead_code))]
    pub(crate) fn release(s: Self, release: impl FnOnce(G)) -> Arc<Lock<L>> {
        let ArcGuard { lock, guard, hold } = s;
        release(guard.into_inner());
        drop(hold);
        lock
    }

    /// This guard turned by `f` into a guard `G2` of the same lock (a backend's `map`,
    /// `downgrade`, `try_upgrade`), with its hold (ended and restarted by `f` when the
    /// mode changes); or, when `f` gives the guard back, this guard as it was. `f` must
    /// give a guard borrowing nothing but the lock it was given.
    #[cfg_attr(
        not(any(feature = "parking_lot", feature = "tokio", feature = "async-lock")),
        allow(dead_code)
    )]
    pub(crate) fn turn<G2>(
        s: Self,
        f: impl FnOnce(G, Hold) -> Result<(G2, Hold), (G, Hold)>,
    ) -> Result<ArcGuard<L, G2>, Self> {
        // `f` owns the guard: if it panics, the guard is dropped (the lock released) in
        // its frame, before `lock` here.
        let ArcGuard { lock, guard, hold } = s;
        match f(guard.into_inner(), hold) {
            Ok((guard, hold)) => Ok(ArcGuard::new(guard, hold, lock)),
            Err((guard, hold)) => Err(ArcGuard::new(guard, hold, lock)),
        }
    }

    /// As `ArcGuard::turn`, for a turn that cannot fail (`map`, `downgrade`).
    #[cfg_attr(
        not(any(feature = "parking_lot", feature = "tokio", feature = "async-lock")),
        allow(dead_code)
    )]
    pub(crate) fn turn_into<G2>(s: Self, f: impl FnOnce(G, Hold) -> (G2, Hold)) -> ArcGuard<L, G2> {
        let ArcGuard { lock, guard, hold } = s;
        let (guard, hold) = f(guard.into_inner(), hold);
        ArcGuard::new(guard, hold, lock)
    }

    /// As `ArcGuard::turn`, awaiting the turn (async-lock's `upgrade`). If the future
    /// is dropped while it waits, the turn's future (holding the guard) is dropped before
    /// the `Arc`: it is declared after it.
    #[cfg(feature = "async-lock")]
    pub(crate) async fn turn_async<G2, F>(s: Self, f: impl FnOnce(G, Hold) -> F) -> ArcGuard<L, G2>
    where
        F: std::future::Future<Output = (G2, Hold)>,
    {
        let ArcGuard { lock, guard, hold } = s;
        let turning = f(guard.into_inner(), hold);
        let (guard, hold) = turning.await;
        ArcGuard::new(guard, hold, lock)
    }
}

impl<L: ?Sized, G: std::ops::Deref> std::ops::Deref for ArcGuard<L, G> {
    type Target = G::Target;
    #[inline]
    fn deref(&self) -> &G::Target {
        self.guard.get()
    }
}

impl<L: ?Sized, G: std::ops::DerefMut> std::ops::DerefMut for ArcGuard<L, G> {
    #[inline]
    fn deref_mut(&mut self) -> &mut G::Target {
        self.guard.get_mut()
    }
}

impl<L: ?Sized, G: std::fmt::Debug> std::fmt::Debug for ArcGuard<L, G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.guard.get().fmt(f)
    }
}

impl<L: ?Sized, G: std::fmt::Display> std::fmt::Display for ArcGuard<L, G> {
    /// As the backend's owned guard prints itself: as the data.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.guard.get().fmt(f)
    }
}

/// A `G` kept out of the aliasing model's sight: the references inside it are not
/// retagged, nor protected, when the value holding it is moved or passed to a function;
/// the `MaybeDangling<G>` of RFC 3336, which std does not have yet. An [`ArcGuard`]'s
/// guard borrows the lock that its own `Arc` may free while the `ArcGuard` is being
/// dropped (see its Soundness). A `MaybeUninit` is a union, whose contents the model does
/// not look into; this one is always initialised: made by `new` only, and its value taken
/// once, by `into_inner` or by its drop.
struct MaybeDangling<G>(MaybeUninit<G>);

#[allow(unsafe_code)]
impl<G> MaybeDangling<G> {
    fn new(g: G) -> Self {
        MaybeDangling(MaybeUninit::new(g))
    }

    fn get(&self) -> &G {
        // SAFETY: always initialised (see the type).
        unsafe { self.0.assume_init_ref() }
    }

    fn get_mut(&mut self) -> &mut G {
        // SAFETY: always initialised (see the type).
        unsafe { self.0.assume_init_mut() }
    }

    fn into_inner(self) -> G {
        let this = ManuallyDrop::new(self);
        // SAFETY: initialised; `this` is never dropped nor used again, so the value is
        // taken out once.
        unsafe { this.0.assume_init_read() }
    }
}

impl<G> Drop for MaybeDangling<G> {
    fn drop(&mut self) {
        // SAFETY: initialised, and dropped only here (`into_inner` keeps the drop from
        // running).
        #[allow(unsafe_code)]
        unsafe {
            self.0.assume_init_drop()
        }
    }
}
