//! One acquisition being held: [`Held`], its numbers packed in whole words, and
//! [`Hold`], which records it when dropped; what a release records, and how much a
//! sampled acquisition stands for.

use hotpath_core::op::{now, Here, Sampler, Wait};

use crate::{blocked, LockSite};

/// The hold is timed: `start` is a clock reading.
pub(crate) const TIMED: u8 = 1;
/// The acquisition waited for the lock (`wait` is the time, when timed).
pub(crate) const CONTENDED: u8 = 2;
/// There is something to record (the acquiring thread could record).
pub(crate) const LIVE: u8 = 4;
/// Timed because the sampling countdown picked it: it stands for a sampling period's
/// acquisitions (without it a timed acquisition stands for itself).
pub(crate) const SAMPLED: u8 = 8;
/// A read-write lock's acquisition (whose period [`SAMPLED`] uses).
pub(crate) const RW: u8 = 16;
/// Watched for waits (not contended itself, and the hold may be untimed or stand for
/// more than itself): `start` is a clock reading and `wait` the site's count of waits
/// begun when it was acquired ([`blocked::seen`]). If a wait began while it held, its
/// hold is timed and stands for itself ([`blocked`]).
pub(crate) const WATCHED: u8 = 32;

// The id of a call site fits the 24 bits [`Held`] keeps it in.
const _: () = assert!(hotpath_core::MAX_SITES < 1 << 24);

/// One acquisition being held, as plain data: what its release records (see
/// [`Held::release`]). [`Hold`] releases it when dropped; the guard of a std mutex
/// releases it itself, after its own lock.
///
/// Whole words, written at once: narrower fields next to each other made the guard's
/// moves read words whose bytes were just stored apart (store-forwarding stalls of
/// several ns per acquisition).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Held {
    /// Clock reading when the lock was acquired (timed and watched acquisitions).
    start: u64,
    /// Ticks waited (timed contended acquisitions), or the count of waits begun on the
    /// site at acquisition ([`WATCHED`] ones).
    wait: u64,
    /// The innermost measured function at acquisition (0: none) in bits 0..32, the id of
    /// the mode's call site in bits 32..56, the flags in bits 56..64 (none: nothing to
    /// record).
    bits: u64,
}

#[inline(always)]
const fn bits(function: u32, site: u32, flags: u8) -> u64 {
    function as u64 | ((site as u64) & 0xFF_FFFF) << 32 | (flags as u64) << 56
}

/// The id of the call site in `bits`.
#[inline(always)]
const fn site_of(bits: u64) -> u32 {
    (bits >> 32) as u32 & 0xFF_FFFF
}

/// Whether waits are timed (a contended acquisition's, a condition variable's): always,
/// unless the rate of `sampler` is 0 (count only). A wait is what the lock costs the
/// program, and the slow path already: it is timed whether or not the acquisition's
/// hold was sampled.
#[inline(always)]
pub(crate) fn waits_timed(sampler: Sampler) -> bool {
    sampler.fixed() != Some(false)
}

impl Held {
    /// Nothing to record (the thread was tearing down, or the hold was ended).
    pub(crate) const NONE: Held = Held {
        start: 0,
        wait: 0,
        bits: 0,
    };

    /// An acquisition of the call site `site` by the function `function` (0: none),
    /// held since the clock read `start`, after waiting `wait` (or, [`WATCHED`], when
    /// `wait` waits had begun on the site).
    #[inline(always)]
    pub(crate) const fn new(start: u64, wait: u64, function: u32, site: u32, flags: u8) -> Held {
        Held {
            start,
            wait,
            bits: bits(function, site, flags),
        }
    }

    #[inline(always)]
    fn flags(&self) -> u8 {
        (self.bits >> 56) as u8
    }

    /// The id of the mode's call site.
    #[inline(always)]
    fn site(&self) -> u32 {
        site_of(self.bits)
    }

    /// Records the acquisition (the lock was just released): out of line, so that a
    /// guard's drop stays small enough to be inlined where the guard lives (then the
    /// guard is kept in registers instead of being copied through memory).
    #[inline(always)]
    pub(crate) fn release(self) {
        if self.flags() & LIVE != 0 {
            record(self.start, self.wait, self.bits);
        }
    }

    /// Records the hold so far as one acquisition and stops holding (the lock is
    /// released for a while: a condition variable's wait, `unlocked`): returns what
    /// [`Held::resume`] needs. A condition variable's wait is timed whether or not the
    /// hold was (see [`waits_timed`]).
    fn pause(&mut self, condvar: bool) -> Paused {
        let flags = self.flags();
        let live = flags & LIVE != 0;
        // Condition variables wait on mutex guards only.
        let charge = live && condvar && waits_timed(Sampler::Mutexes);
        let bits = bits(
            self.bits as u32,
            self.site(),
            flags & (LIVE | TIMED | SAMPLED | RW | WATCHED),
        );
        self.release();
        *self = Held::NONE;
        if live && condvar {
            if let Some(slot) = Here::get().and_then(|h| h.slot_of(site_of(bits))) {
                slot.c.condvar_waits.add(1);
            }
        }
        Paused {
            bits,
            // Read last: the wait starts after the profiler's own recording.
            at: if charge { now() } else { 0 },
            charge,
        }
    }

    /// Holds again after a pause (an uncontended acquisition, timed if the hold before
    /// the pause was, watched if it was); a condition variable's wait is charged to the
    /// innermost measured function as lock waiting.
    fn resume(p: Paused) -> Held {
        let flags = (p.bits >> 56) as u8;
        if flags & LIVE == 0 {
            return Held::NONE;
        }
        let Some(here) = Here::get() else {
            return Held::NONE;
        };
        let stamped = flags & (TIMED | WATCHED) != 0;
        let seen = if flags & WATCHED != 0 {
            blocked::seen(site_of(p.bits))
        } else {
            0
        };
        let t = if stamped || p.charge { now() } else { 0 };
        if p.charge && !here.in_op() {
            here.charge(Wait::Lock, t.saturating_sub(p.at));
        }
        Held {
            start: if stamped { t } else { 0 },
            wait: u64::from(seen),
            bits: p.bits,
        }
    }

    /// Runs `f` with the lock released (by `release_for`, e.g. parking_lot's
    /// `unlocked`): the hold before and the hold after are two acquisitions.
    #[cfg_attr(not(feature = "parking_lot"), allow(dead_code))]
    fn released<U>(&mut self, release_for: impl FnOnce() -> U) -> U {
        let p = self.pause(false);
        let u = release_for();
        *self = Held::resume(p);
        u
    }

    /// As [`Held::released`], for a condition variable's wait: counted as one, and its
    /// time charged to the function as lock waiting.
    pub(crate) fn condvar_wait<U>(&mut self, wait: impl FnOnce() -> U) -> U {
        let p = self.pause(true);
        let u = wait();
        *self = Held::resume(p);
        u
    }
}

/// Records an acquisition (see [`Held`] for the arguments) released just now into the
/// calling thread's slot and holder table; the clock is read first (after the load that
/// says whether a watched hold made another acquisition wait, which times it).
#[inline(never)]
fn record(start: u64, wait: u64, bits: u64) {
    let flags = (bits >> 56) as u8;
    let site = site_of(bits);
    // How many acquisitions the hold stands for; 0: untimed. One that made another wait
    // is timed whatever the countdown said, and stands for itself.
    let w = if flags & WATCHED != 0 && blocked::since(site, wait as u32) {
        1
    } else if flags & TIMED != 0 {
        weight(flags)
    } else {
        0
    };
    let timed = w != 0;
    let end = if timed { now() } else { 0 };
    let Some(here) = Here::get() else {
        return;
    };
    let Some(slot) = here.slot_of(site) else {
        return;
    };
    let contended = flags & CONTENDED != 0;
    let hold = end.saturating_sub(start);
    if timed {
        slot.record_op_n(hold, w);
        if contended {
            slot.record_wait(wait);
        }
    } else {
        slot.c.counted.add(1);
    }
    if let Some(h) = here.holder_of(site, bits as u32) {
        h.ops.add(1);
        if timed {
            h.hold.add(hold.wrapping_mul(w));
        }
        if contended {
            h.contended.add(1);
            h.wait.add(wait);
        }
    }
    if contended {
        slot.c.contended.add(1);
    }
}

/// How many acquisitions a timed one with `flags` stands for: the sampling period of
/// its kind when the countdown picked it, else 1.
#[inline]
fn weight(flags: u8) -> u64 {
    if flags & SAMPLED == 0 {
        1
    } else if flags & RW != 0 {
        Sampler::RwLocks.period().max(1)
    } else {
        Sampler::Mutexes.period().max(1)
    }
}

/// One acquisition being held, recorded when it drops (after the inner guard, which is
/// declared before it in every guard, so the lock is released first).
#[derive(Debug)]
pub struct Hold {
    lock: &'static LockSite,
    held: Held,
}

impl Hold {
    /// Holds `held`, an acquisition of a mode of `lock`.
    #[inline(always)]
    pub(crate) fn new(lock: &'static LockSite, held: Held) -> Hold {
        Hold { lock, held }
    }

    /// The lock site this hold belongs to.
    #[cfg_attr(
        not(any(feature = "parking_lot", feature = "tokio", feature = "async-lock")),
        allow(dead_code)
    )]
    pub(crate) fn lock(&self) -> &'static LockSite {
        self.lock
    }

    /// Ends this hold now (records it): for guards that turn into another mode. Gives
    /// the lock site back, for the hold of the new mode.
    #[cfg_attr(
        not(any(feature = "parking_lot", feature = "tokio", feature = "async-lock")),
        allow(dead_code)
    )]
    pub(crate) fn end(mut self) -> &'static LockSite {
        std::mem::replace(&mut self.held, Held::NONE).release();
        self.lock
    }

    /// Ends this hold now (records it) and keeps it, holding nothing, for a hold of
    /// another mode to replace it: for guards that turn in place (`with_upgraded`).
    /// Gives the lock site back.
    #[cfg_attr(not(feature = "parking_lot"), allow(dead_code))]
    pub(crate) fn end_here(&mut self) -> &'static LockSite {
        std::mem::replace(&mut self.held, Held::NONE).release();
        self.lock
    }

    /// Drops the hold of an acquisition that did not happen (a timed try that timed
    /// out): nothing is recorded.
    // Only parking_lot has timed tries and `unlocked`.
    #[cfg_attr(not(feature = "parking_lot"), allow(dead_code))]
    pub(crate) fn end_unacquired(mut self) {
        self.held = Held::NONE;
    }

    /// Runs `f` with the lock released (by `release_for`, e.g. parking_lot's
    /// `unlocked`): the hold before and the hold after are two acquisitions.
    // Only parking_lot has timed tries and `unlocked`.
    #[cfg_attr(not(feature = "parking_lot"), allow(dead_code))]
    pub(crate) fn released<U>(&mut self, release_for: impl FnOnce() -> U) -> U {
        self.held.released(release_for)
    }

    /// As [`Hold::released`], for a condition variable's wait: counted as one, and its
    /// time charged to the function as lock waiting.
    #[cfg_attr(not(feature = "parking_lot"), allow(dead_code))]
    pub(crate) fn condvar_wait<U>(&mut self, wait: impl FnOnce() -> U) -> U {
        self.held.condvar_wait(wait)
    }
}

impl Drop for Hold {
    #[inline(always)]
    fn drop(&mut self) {
        self.held.release();
    }
}

/// What an acquisition gives to hold it: a [`Hold`], which records when dropped, or the
/// bare [`Held`], for a guard that releases it itself (std's mutex guard).
pub(crate) trait FromHeld {
    /// `held`, an acquisition of a mode of `lock`.
    fn from_held(lock: &'static LockSite, held: Held) -> Self;
}

impl FromHeld for Held {
    #[inline(always)]
    fn from_held(_: &'static LockSite, held: Held) -> Held {
        held
    }
}

impl FromHeld for Hold {
    #[inline(always)]
    fn from_held(lock: &'static LockSite, held: Held) -> Hold {
        Hold::new(lock, held)
    }
}

/// A hold paused while the lock is released: its function, site and flags (timed,
/// live); whether the pause is a wait to charge (a condition variable's, timed), and
/// when it began (0 if not).
struct Paused {
    bits: u64,
    at: u64,
    charge: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The function, site and flags a `Held` keeps, read back.
    fn fields(h: &Held) -> (u32, u32, u8) {
        (h.bits as u32, h.site(), h.flags())
    }

    #[test]
    fn fields_pack_into_their_bits() {
        assert_eq!(bits(0, 0, 0), 0);
        assert_eq!(bits(1, 1, 1), 0x0100_0001_0000_0001);
        assert_eq!(
            bits(0xDEAD_BEEF, 0x12_3456, LIVE | TIMED),
            0x0512_3456_DEAD_BEEF
        );
        assert_eq!(bits(u32::MAX, 0, 0), 0x0000_0000_FFFF_FFFF);
        assert_eq!(bits(0, 0xFF_FFFF, 0), 0x00FF_FFFF_0000_0000);
        assert_eq!(bits(0, 0, 0xFF), 0xFF00_0000_0000_0000);
        assert_eq!(bits(u32::MAX, 0xFF_FFFF, 0xFF), u64::MAX);
    }

    #[test]
    fn a_site_id_past_24_bits_never_reaches_the_flags() {
        assert_eq!(bits(0, 0x100_0000, 0), 0);
        assert_eq!(bits(0, 0xFFFF_FFFF, 0), 0x00FF_FFFF_0000_0000);
        let h = Held::new(0, 0, 7, 0x0180_0001, LIVE);
        assert_eq!(fields(&h), (7, 0x80_0001, LIVE));
    }

    #[test]
    fn fields_round_trip_at_their_limits() {
        let all = LIVE | TIMED | CONTENDED | SAMPLED | RW | WATCHED;
        for (function, site, flags) in [
            (0, 0, 0),
            (u32::MAX, 0xFF_FFFF, 0xFF),
            (u32::MAX, 0, all),
            (0, 0xFF_FFFF, LIVE),
            (1, 1, TIMED),
            (0x8000_0000, 0x80_0000, 0x80),
            (12_345, hotpath_core::MAX_SITES as u32, all),
        ] {
            let h = Held::new(11, 22, function, site, flags);
            assert_eq!(fields(&h), (function, site, flags));
            assert_eq!((h.start, h.wait), (11, 22));
            assert_eq!(site_of(h.bits), site);
        }
    }

    #[test]
    fn the_flags_are_distinct_bits() {
        let flags = [TIMED, CONTENDED, LIVE, SAMPLED, RW, WATCHED];
        assert_eq!(flags.iter().fold(0, |a, f| a | f), 0b11_1111);
        assert_eq!(Held::NONE.flags(), 0);
        assert_eq!(fields(&Held::NONE), (0, 0, 0));
    }

    /// One test for every rate it sets: the rates are global.
    #[test]
    fn a_sampled_acquisition_weighs_its_kinds_period() {
        use hotpath_core::state::DEFAULT_PERIOD;
        assert_eq!(DEFAULT_PERIOD, 16);
        // Not sampled: it stands for itself, whatever the kind and the rate.
        for flags in [
            0,
            LIVE,
            LIVE | TIMED,
            LIVE | TIMED | RW,
            LIVE | TIMED | CONTENDED,
        ] {
            assert_eq!(weight(flags), 1, "{flags:#b}");
        }
        // Sampled: the period of its kind, the default one first.
        assert_eq!(weight(LIVE | TIMED | SAMPLED), 16);
        assert_eq!(weight(LIVE | TIMED | SAMPLED | RW), 16);
        Sampler::Mutexes.set_rate(1.0 / 8.0);
        Sampler::RwLocks.set_rate(0.25);
        assert_eq!(weight(LIVE | TIMED | SAMPLED), 8);
        assert_eq!(weight(LIVE | TIMED | SAMPLED | RW), 4);
        assert_eq!(weight(LIVE | TIMED | RW), 1);
        // A rate of 0 (no timing) still weighs 1, never 0.
        Sampler::Mutexes.set_rate(0.0);
        assert_eq!(weight(LIVE | TIMED | SAMPLED), 1);
        assert_eq!(weight(LIVE | TIMED | SAMPLED | RW), 4);
        // A rate of 1 in 1000 weighs 1000.
        Sampler::RwLocks.set_rate(0.001);
        assert_eq!(weight(LIVE | TIMED | SAMPLED | RW), 1000);
        Sampler::Mutexes.set_rate(Sampler::Mutexes.default_rate());
        Sampler::RwLocks.set_rate(Sampler::RwLocks.default_rate());
        assert_eq!(weight(SAMPLED), 16);
        assert_eq!(weight(SAMPLED | RW), 16);
    }
}
