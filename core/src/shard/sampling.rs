//! A thread's sampling countdowns: per [`Sampler`] kind, the events until the next timed
//! one, drawn from the thread's own xorshift generator.
//!
//! Each thread's generator starts from its serial number (every thread its own
//! sequence), or, once a seed is fixed ([`crate::set_sampling_seed`], for tests), from
//! that seed alone: the same events on a thread are then timed the same way in every
//! run, whichever thread it is.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::cell::Cnt;
use crate::state::Sampler;

/// The seed every generator starts from; 0: none (each thread from its serial number).
static SEED: AtomicU64 = AtomicU64::new(0);

/// Fixes the seed the generators start from (0: none).
pub(crate) fn set_seed(seed: u64) {
    SEED.store(seed, Relaxed);
}

/// Whether a seed is fixed.
pub(crate) fn seeded() -> bool {
    SEED.load(Relaxed) != 0
}

/// The sampling state of one thread.
pub(crate) struct Sampling {
    /// Per [`Sampler`]: events until the next timed one (1 = time the next; 0 = draw a
    /// gap first).
    countdowns: [Cnt; Sampler::COUNT],
    /// The xorshift64 state (never 0 once the owner is assigned).
    rng: Cnt,
    /// The owner thread's serial number: its generator's seed when none is fixed.
    serial: Cnt,
}

impl Sampling {
    pub(crate) const fn new() -> Self {
        Sampling {
            countdowns: [const { Cnt::new() }; Sampler::COUNT],
            rng: Cnt::new(),
            serial: Cnt::new(),
        }
    }

    /// Starts the generator of a new owner thread with serial number `serial`.
    pub(crate) fn assign(&self, serial: u64) {
        self.serial.set(serial);
        self.restart();
    }

    /// Starts the generator again: from the fixed seed alone if there is one, else from
    /// the owner's serial number. The countdowns are zero until [`Sampling::draw_all`]
    /// (the shard's next sync).
    pub(crate) fn restart(&self) {
        let seed = match SEED.load(Relaxed) {
            0 => self.serial.get(),
            s => s,
        };
        self.rng.set(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        for c in &self.countdowns {
            c.set(0);
        }
    }

    /// Draws a new gap for every kind (the shard synchronised with the global state).
    pub(crate) fn draw_all(&self) {
        for kind in Sampler::ALL {
            self.next_gap(kind);
        }
    }

    /// Whether to time this event of `kind`, counting down to the next timed one.
    #[inline(always)]
    pub(crate) fn timed(&self, kind: Sampler) -> bool {
        let p = kind.period();
        if p == 1 {
            return true;
        }
        if p == 0 {
            return false;
        }
        self.countdown(kind)
    }

    /// One step of `kind`'s countdown: true (and a new gap drawn) when it reaches the
    /// timed event.
    #[inline(always)]
    pub(crate) fn countdown(&self, kind: Sampler) -> bool {
        let cd = &self.countdowns[kind as usize];
        let c = cd.get();
        if c != 1 {
            cd.set(c.wrapping_sub(1));
            return false;
        }
        self.next_gap(kind);
        true
    }

    /// [`Sampling::countdown`] for the weighted kinds ([`crate::op::Here::sample`]): the
    /// gap after a timed event is drawn at the event after it, not at the timed event
    /// itself. Drawing takes a few tens of ns; before a timed lock acquisition's
    /// `try_lock`, that delay let a short critical section elsewhere end first and made
    /// the timed acquisitions less often contended than the others (the weighted holds
    /// came out 3 % high with four threads). The event after is timed or not by the
    /// gap just drawn, whatever the delay did to it.
    #[inline(always)]
    pub(crate) fn countdown_weighted(&self, kind: Sampler) -> bool {
        let cd = &self.countdowns[kind as usize];
        let c = cd.get();
        if c > 1 {
            cd.set(c - 1);
            return false;
        }
        if c == 1 {
            // Timed; 0 says "draw the next gap at the next event".
            cd.set(0);
            return true;
        }
        self.next_gap(kind);
        let g = cd.get();
        // 0 only if the rate became 0 meanwhile: stays 0, and nothing is timed.
        cd.set(g.saturating_sub(1));
        g == 1
    }

    /// Events of `kind` until the next timed one: `countdown` reaching 1 means "time this
    /// one"; with period 0 (count only) it starts at 0 and, counting down through
    /// `u64::MAX`, never reaches 1.
    ///
    /// Calls and `io!` operations: drawn uniformly from `1..2·period` (mean `period`).
    /// The weighted kinds (channels, streams, futures, locks), whose timed events stand
    /// for `period` events each ([`crate::op::Here::sample`]): geometric (mean
    /// `period`), so that every event is timed with probability `1/period` whatever
    /// happened before it. With uniform gaps the event right after a timed one is
    /// rarely timed; and a timed event slows its thread's next one a little (a timed
    /// hold makes the next acquisition likelier to be contended, so never weighted):
    /// that correlation over-counted the weighted holds by 3 % in a four-thread test.
    #[inline(never)]
    pub(crate) fn next_gap(&self, kind: Sampler) {
        let period = kind.period();
        let gap = if period == 0 {
            0
        } else {
            let x = self.random();
            if matches!(kind, Sampler::Calls | Sampler::Io) || period == 1 {
                // `period <= MAX_PERIOD`: `2·period − 1` cannot overflow.
                1 + x % (2 * period - 1)
            } else {
                self.geometric(period, x)
            }
        };
        self.countdowns[kind as usize].set(gap);
    }

    /// Calls until the next timed one of a site whose overhead-budget period is
    /// `period` ([`crate::budget`]): uniform in `1..2·period` (mean `period`), as for
    /// [`Sampler::Calls`], so that periodic code cannot alias with it.
    #[inline(never)]
    pub(crate) fn budget_gap(&self, period: u32) -> u32 {
        let span = 2 * u64::from(period.max(1)) - 1;
        1 + (self.random() % span) as u32
    }

    /// The next number of this thread's xorshift64 generator: cheap, per thread, good
    /// enough to spread the gaps.
    #[inline(always)]
    fn random(&self) -> u64 {
        let mut x = self.rng.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng.set(x);
        x
    }

    /// Bernoulli(1/`period`) trials up to and including the first success, drawn from
    /// the random word `x` (and more words if needed): a geometric gap of mean `period`.
    ///
    /// For a period of 4, 16, 256, 65536 or 2^32 (2^k with k dividing 64, the default 16
    /// among them) each k-bit field of a word is a trial that succeeds when it is zero,
    /// and the first zero field is found with one subtraction (the usual zero-byte
    /// test: the lowest field it flags is zero); other periods take a logarithm.
    fn geometric(&self, period: u64, mut x: u64) -> u64 {
        let k = period.trailing_zeros();
        if period.is_power_of_two() && matches!(k, 2 | 4 | 8 | 16 | 32) {
            let lows = u64::MAX / ((1u64 << k) - 1);
            let highs = lows << (k - 1);
            let mut before = 0u64;
            loop {
                let zero = x.wrapping_sub(lows) & !x & highs;
                if zero != 0 {
                    return before + u64::from(zero.trailing_zeros() / k) + 1;
                }
                before = before.saturating_add(u64::from(64 / k));
                x = self.random();
            }
        }
        // 1 + floor(ln(u) / ln(1 − 1/period)), u uniform in (0, 1]. `as` saturates.
        let u = ((x >> 11) + 1) as f64 / (1u64 << 53) as f64;
        ((u.ln() / (-1.0 / period as f64).ln_1p()) as u64).saturating_add(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_kinds_time_each_event_with_probability_one_in_period() {
        // Channels' default period, 16: geometric gaps (mean 16, a gap of 1 as likely
        // after a timed event as anywhere), not uniform ones (a gap of 1 one time in 31).
        assert_eq!(Sampler::Channels.period(), crate::state::DEFAULT_PERIOD);
        let s = Sampling::new();
        s.rng.set(0x9E37_79B9_7F4A_7C15);
        let n = 200_000u64;
        let (mut sum, mut ones, mut long) = (0u64, 0u64, 0u64);
        for _ in 0..n {
            s.next_gap(Sampler::Channels);
            let g = s.countdowns[Sampler::Channels as usize].get();
            assert!(g >= 1);
            sum += g;
            ones += u64::from(g == 1);
            long += u64::from(g > 31);
        }
        let mean = sum as f64 / n as f64;
        assert!((mean - 16.0).abs() < 0.3, "mean gap {mean}");
        // P(gap = 1) = 1/16: 12,500 expected, standard deviation 108.
        assert!(ones.abs_diff(n / 16) < 700, "{ones} gaps of 1");
        // P(gap > 31) = (15/16)^31 = 13.5 %.
        assert!(long.abs_diff(n * 135 / 1000) < 1_000, "{long} gaps over 31");
    }

    #[test]
    fn geometric_gaps_have_the_period_as_mean_and_no_memory() {
        let s = Sampling::new();
        s.rng.set(0x2545_F491_4F6C_DD1D);
        // Powers of two with k | 64 (bit fields), others (logarithm).
        for period in [4u64, 10, 16, 100, 256] {
            let n = 400_000u64;
            let (mut sum, mut ones) = (0u64, 0u64);
            for _ in 0..n {
                let g = s.geometric(period, s.random());
                assert!(g >= 1);
                sum += g;
                ones += u64::from(g == 1);
            }
            let mean = sum as f64 / n as f64;
            let p = 1.0 / period as f64;
            // Mean: standard error sqrt((1 − p)/p²/n), under 0.4 % of the period here.
            assert!(
                (mean / period as f64 - 1.0).abs() < 0.02,
                "{period}: mean {mean}"
            );
            // A gap of 1 has probability p (memoryless), within six standard errors.
            let se = (n as f64 * p * (1.0 - p)).sqrt();
            assert!(
                (ones as f64 - n as f64 * p).abs() < 6.0 * se,
                "{period}: {ones} gaps of 1"
            );
        }
    }
}
