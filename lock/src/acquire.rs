//! Acquisition, as every backend's methods make it: blocking ([`acquire`]), trying
//! ([`try_acquire`]) and awaited ([`acquire_async`]), from a lock or from a guard being
//! upgraded (the `_by` forms). Each decides whether the hold is timed, reads the clock
//! only when it must, and gives the [`Hold`] (or the [`Held`]) that records it.

use hotpath_core::op::{now, Here, Sampler, Wait};
use hotpath_core::CallSite;

use crate::blocked;
use crate::hold::{
    waits_timed, FromHeld, Held, Hold, CONTENDED, LIVE, RW, SAMPLED, TIMED, WATCHED,
};
use crate::{Lock, LockSite, Mode};

/// A `try_lock`-style attempt failed because the lock was taken.
#[cold]
pub(crate) fn try_failed(site: &'static CallSite) {
    if let Some(slot) = Here::get().and_then(|h| h.slot(site)) {
        slot.c.try_failed.add(1);
    }
}

/// What an acquisition about to be made needs: whether its hold is timed (by the rate
/// alone when it says all or none, else by the site's warm-up and the thread's
/// countdown) in the flags (0 when the thread cannot record: it is tearing down), and
/// the innermost measured function, to which it is attributed. A contended acquisition
/// is timed whatever the countdown said (unless the rate is 0): it is about to wait,
/// and its wait is what the lock costs the program. An acquisition whose hold may go
/// untimed or stand for more than itself is [`WATCHED`]: `seen` is the site's count of
/// waits begun, read before the lock is tried (see [`blocked`]).
#[derive(Clone, Copy)]
struct Begin {
    flags: u8,
    function: u32,
    seen: u32,
}

#[inline(always)]
fn begin(sampler: Sampler, site: &'static CallSite) -> Begin {
    let Some(here) = Here::get() else {
        return Begin {
            flags: 0,
            function: 0,
            seen: 0,
        };
    };
    let flags = match here.sample_or_off(sampler, site) {
        // Count only: no clock, no watching.
        None => LIVE,
        Some(0) => LIVE | WATCHED,
        // Every one timed, or the site's warm-up: each stands for itself already.
        Some(1) => LIVE | TIMED,
        Some(_) if sampler == Sampler::RwLocks => LIVE | TIMED | SAMPLED | RW | WATCHED,
        Some(_) => LIVE | TIMED | SAMPLED | WATCHED,
    };
    let seen = if flags & WATCHED != 0 {
        blocked::seen(site.id())
    } else {
        0
    };
    Begin {
        flags,
        function: here.function_id(),
        seen,
    }
}

/// An uncontended acquisition of `site` just made: the clock is read for a timed or
/// watched one's hold (none at the rate 0).
#[inline(always)]
fn uncontended(site: &'static CallSite, b: Begin) -> Held {
    if b.flags == 0 {
        return Held::NONE;
    }
    let start = if b.flags & (TIMED | WATCHED) != 0 {
        now()
    } else {
        0
    };
    Held::new(start, u64::from(b.seen), b.function, site.id(), b.flags)
}

/// A hold of `mode` starting now without waiting (a write guard downgraded to a read).
#[cfg_attr(
    not(any(feature = "parking_lot", feature = "tokio", feature = "async-lock")),
    allow(dead_code)
)]
pub(crate) fn hold_now(lock: &'static LockSite, mode: Mode) -> Hold {
    let site = lock.mode(mode);
    Hold::new(lock, uncontended(site, begin(lock.sampler(), site)))
}

/// A contended acquisition of `site` that started waiting at `t0` (0 if untimed) and
/// just got the lock: charges the wait to the innermost measured function.
#[inline]
fn contended(site: &'static CallSite, timed: bool, t0: u64) -> Held {
    let t1 = if timed { now() } else { 0 };
    let Some(here) = Here::get() else {
        return Held::NONE;
    };
    let function = here.function_id();
    if !timed {
        return Held::new(0, 0, function, site.id(), LIVE | CONTENDED);
    }
    let wait = t1.saturating_sub(t0);
    if !here.in_op() {
        here.charge(Wait::Lock, wait);
    }
    Held::new(t1, wait, function, site.id(), LIVE | TIMED | CONTENDED)
}

/// A blocking acquisition of `mode` on `lock`: `fast` tries without waiting (`None` when
/// the lock is taken), `slow` blocks until acquired. The hold is a [`Hold`], or the bare
/// [`Held`] for a guard that releases it itself.
#[inline(always)]
pub(crate) fn acquire<'a, L: ?Sized, R, H: FromHeld>(
    lock: &'a Lock<L>,
    mode: Mode,
    fast: impl FnOnce(&'a L) -> Option<R>,
    slow: impl FnOnce(&'a L) -> R,
) -> (R, H) {
    lock.register();
    let (r, held) = acquire_at(lock.site, mode, &lock.inner, |l| fast(l).ok_or(l), slow);
    // `lock.site` read again rather than `site` kept in a register across the
    // acquisition: that spilled it (two more instructions per std `read`, callgrind).
    (r, H::from_held(lock.site, held))
}

/// A blocking acquisition of `mode` at `lock` from `state` (the lock, or a guard being
/// upgraded): `fast` tries without waiting and gives `state` back when the lock is
/// taken, `slow` blocks until acquired.
#[cfg_attr(
    not(any(feature = "parking_lot", feature = "async-lock")),
    allow(dead_code)
)]
#[inline(always)]
pub(crate) fn acquire_by<S, R>(
    lock: &'static LockSite,
    mode: Mode,
    state: S,
    fast: impl FnOnce(S) -> Result<R, S>,
    slow: impl FnOnce(S) -> R,
) -> (R, Hold) {
    let (r, held) = acquire_at(lock, mode, state, fast, slow);
    (r, Hold::new(lock, held))
}

#[inline(always)]
fn acquire_at<S, R>(
    lock: &'static LockSite,
    mode: Mode,
    state: S,
    fast: impl FnOnce(S) -> Result<R, S>,
    slow: impl FnOnce(S) -> R,
) -> (R, Held) {
    let site = lock.mode(mode);
    let b = begin(lock.sampler(), site);
    match fast(state) {
        Ok(r) => (r, uncontended(site, b)),
        Err(state) => acquire_slow(lock, mode, b.flags, state, slow),
    }
}

/// The lock was taken: the holds that can make this acquisition wait are timed when
/// they end ([`blocked`]), and the wait is timed (unless the rate is 0).
#[inline(never)]
fn acquire_slow<S, R>(
    lock: &'static LockSite,
    mode: Mode,
    flags: u8,
    state: S,
    slow: impl FnOnce(S) -> R,
) -> (R, Held) {
    let timed = flags & LIVE != 0 && waits_timed(lock.sampler());
    if timed {
        blocked::begin_wait(lock, mode);
    }
    let t0 = if timed { now() } else { 0 };
    let r = slow(state);
    if flags & LIVE == 0 {
        return (r, Held::NONE);
    }
    (r, contended(lock.mode(mode), timed, t0))
}

/// A `try_lock`-style acquisition of `mode`: `None` (and a failed attempt counted) when
/// the lock was taken. The hold as in [`acquire`].
#[inline(always)]
pub(crate) fn try_acquire<'a, L: ?Sized, R, H: FromHeld>(
    lock: &'a Lock<L>,
    mode: Mode,
    attempt: impl FnOnce(&'a L) -> Option<R>,
) -> Option<(R, H)> {
    lock.register();
    let site = lock.site;
    let (r, held) = try_acquire_at(site.mode(mode), site.sampler(), &lock.inner, |l| {
        attempt(l).ok_or(())
    })
    .ok()?;
    Some((r, H::from_held(lock.site, held)))
}

/// A try that may wait (parking_lot's `try_lock_for` and the like): `now` tries without
/// waiting, `wait` waits at most as long as the caller said. Contended when `now`
/// fails; a failed try (and no hold) when `wait` times out.
#[cfg_attr(not(feature = "parking_lot"), allow(dead_code))]
pub(crate) fn try_acquire_timed<'a, L: ?Sized, G>(
    lock: &'a Lock<L>,
    mode: Mode,
    now: impl FnOnce(&'a L) -> Option<G>,
    wait: impl FnOnce(&'a L) -> Option<G>,
) -> Option<(G, Hold)> {
    lock.register();
    try_acquire_timed_by(
        lock.site,
        mode,
        &lock.inner,
        |l| now(l).ok_or(l),
        |l| wait(l).ok_or(l),
    )
    .ok()
}

/// As [`try_acquire_timed`], at `lock` from `state` (a guard being upgraded, which both
/// tries give back when they fail).
#[cfg_attr(not(feature = "parking_lot"), allow(dead_code))]
pub(crate) fn try_acquire_timed_by<S, R>(
    lock: &'static LockSite,
    mode: Mode,
    state: S,
    now: impl FnOnce(S) -> Result<R, S>,
    wait: impl FnOnce(S) -> Result<R, S>,
) -> Result<(R, Hold), S> {
    let (r, hold) = acquire_by(lock, mode, state, |s| now(s).map(Ok), wait);
    match r {
        Ok(r) => Ok((r, hold)),
        Err(state) => {
            hold.end_unacquired();
            try_failed(lock.mode(mode));
            Err(state)
        }
    }
}

/// A guard `inner` held by `hold` turned into another mode without letting anyone in
/// (a downgrade) by `turn`: once it has, the old hold ends and one of `mode` starts,
/// uncontended.
#[cfg_attr(
    not(any(feature = "parking_lot", feature = "tokio", feature = "async-lock")),
    allow(dead_code)
)]
pub(crate) fn downgrade<G, R>(
    inner: G,
    hold: Hold,
    mode: Mode,
    turn: impl FnOnce(G) -> R,
) -> (R, Hold) {
    let inner = turn(inner);
    let lock = hold.end();
    (inner, hold_now(lock, mode))
}

/// An upgradable guard `inner` held by `hold` upgraded by `attempt` if no reader is there:
/// then the upgradable hold ends and a write hold starts; otherwise the guard and its
/// hold are given back, and the failed attempt counted.
#[cfg_attr(
    not(any(feature = "parking_lot", feature = "async-lock")),
    allow(dead_code)
)]
pub(crate) fn try_upgrade<G, R>(
    inner: G,
    hold: Hold,
    attempt: impl FnOnce(G) -> Result<R, G>,
) -> Result<(R, Hold), (G, Hold)> {
    match try_acquire_by(hold.lock(), Mode::Write, inner, attempt) {
        Ok((r, write)) => {
            hold.end();
            Ok((r, write))
        }
        Err(inner) => Err((inner, hold)),
    }
}

/// A `try_lock`-style acquisition of `mode` at `lock` by `attempt` from `state`, which
/// gives something back when the lock is taken (a guard being upgraded).
#[cfg_attr(
    not(any(feature = "parking_lot", feature = "tokio", feature = "async-lock")),
    allow(dead_code)
)]
#[inline(always)]
pub(crate) fn try_acquire_by<S, R, E>(
    lock: &'static LockSite,
    mode: Mode,
    state: S,
    attempt: impl FnOnce(S) -> Result<R, E>,
) -> Result<(R, Hold), E> {
    let (r, held) = try_acquire_at(lock.mode(mode), lock.sampler(), state, attempt)?;
    Ok((r, Hold::new(lock, held)))
}

#[inline(always)]
fn try_acquire_at<S, R, E>(
    site: &'static CallSite,
    sampler: Sampler,
    state: S,
    attempt: impl FnOnce(S) -> Result<R, E>,
) -> Result<(R, Held), E> {
    let b = begin(sampler, site);
    match attempt(state) {
        Ok(r) => Ok((r, uncontended(site, b))),
        Err(e) => {
            try_failed(site);
            Err(e)
        }
    }
}

/// An awaited acquisition of `mode` on `lock`: `fast` tries without waiting (`None` when
/// the lock is taken), `slow` is the future that waits (see [`acquire_async`]). The lock
/// is registered at the first poll, just before `fast`.
#[cfg(any(feature = "tokio", feature = "async-lock"))]
#[inline(always)]
pub(crate) fn acquire_await<'a, L: ?Sized, R, F, Fast, Slow>(
    lock: &'a Lock<L>,
    mode: Mode,
    fast: Fast,
    slow: Slow,
) -> impl std::future::Future<Output = (R, Hold)> + use<'a, L, R, F, Fast, Slow>
where
    F: std::future::Future<Output = R>,
    Fast: FnOnce(&'a L) -> Option<R>,
    Slow: FnOnce(&'a L) -> F,
{
    acquire_async(
        lock.site,
        mode,
        lock,
        |l: &'a Lock<L>| {
            l.register();
            fast(&l.inner).ok_or(l)
        },
        |l| slow(&l.inner),
    )
}

/// An awaited acquisition of `mode`: `fast` tries without waiting, `slow` is the future
/// that waits. The wait runs from the first poll to `Ready`, and is charged to the
/// innermost measured function on the thread that completes it.
#[cfg(any(feature = "tokio", feature = "async-lock"))]
pub(crate) async fn acquire_async<S, R, F>(
    lock: &'static LockSite,
    mode: Mode,
    state: S,
    fast: impl FnOnce(S) -> Result<R, S>,
    slow: impl FnOnce(S) -> F,
) -> (R, Hold)
where
    F: std::future::Future<Output = R>,
{
    let site = lock.mode(mode);
    let b = begin(lock.sampler(), site);
    let state = match fast(state) {
        Ok(r) => return (r, Hold::new(lock, uncontended(site, b))),
        Err(state) => state,
    };
    let timed = b.flags & LIVE != 0 && waits_timed(lock.sampler());
    if timed {
        blocked::begin_wait(lock, mode);
    }
    let t0 = if timed { now() } else { 0 };
    let r = slow(state).await;
    (r, Hold::new(lock, contended(site, timed, t0)))
}
