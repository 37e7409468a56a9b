//! Global state the per-call path reads: the session epoch, the clock in use, the sampling
//! periods and whether CPU time is read exactly, folded into one [`key`].
//!
//! Everything a shard must agree with before it may take an inline path lives here, and
//! nothing here calls back into the rest of the crate: setters store their value and
//! recompute the key; shards compare their copy of the key with [`key`] on every call and
//! resynchronise (slow path) when it changed.
//!
//! The key is `epoch << 4 | budget << 3 | extras << 2 | timing-every-call << 1 |
//! tsc-clock`, never 0, where *extras* says that the calling-context tree ([`stacks`]) or
//! the trace ring ([`trace`]) is on and *budget* that an overhead budget sets each site's
//! timing period ([`crate::budget`]). A shard keeps four copies that equal it only while
//! an inline path applies: `key` when every call is timed on the TSC without extras (the
//! default: the switches cost that path nothing), `sample_key` when calls are sampled or
//! only counted on the TSC, `extra_key` when every call is timed on the TSC with extras,
//! `budget_key` when each site's period decides on the TSC.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};

static EPOCH: AtomicU64 = AtomicU64::new(1);
static KEY: AtomicU64 = AtomicU64::new(1);
static CLOCK: AtomicU8 = AtomicU8::new(CLOCK_UNKNOWN);
static EXACT_CPU: AtomicBool = AtomicBool::new(false);
static PERIODS: [AtomicU64; Sampler::COUNT] = [
    AtomicU64::new(1),
    AtomicU64::new(1),
    AtomicU64::new(DEFAULT_PERIOD),
    AtomicU64::new(DEFAULT_PERIOD),
    AtomicU64::new(DEFAULT_PERIOD),
    AtomicU64::new(DEFAULT_PERIOD),
    AtomicU64::new(DEFAULT_PERIOD),
];

/// The default sampling period of the data-flow and lock kinds: one event in 16 is
/// timed (after each site's warm-up, [`crate::WARM_UP`]); every event is counted. Calls
/// and `io!` operations are all timed by default.
pub const DEFAULT_PERIOD: u64 = 16;
static STACKS: AtomicBool = AtomicBool::new(false);
static TRACE: AtomicBool = AtomicBool::new(false);
static BUDGET: AtomicBool = AtomicBool::new(false);

const BUDGET_BIT: u64 = 0b1000;
const EXTRAS: u64 = 0b100;
const EVERY: u64 = 0b10;
const TSC: u64 = 0b01;

/// [`clock_kind`]: not chosen yet.
pub(crate) const CLOCK_UNKNOWN: u8 = 0;
/// [`clock_kind`]: the invariant TSC.
pub(crate) const CLOCK_TSC: u8 = 1;
/// [`clock_kind`]: `std::time::Instant`.
pub(crate) const CLOCK_MONOTONIC: u8 = 2;

/// Longest mean gap between timed events: keeps the gap arithmetic (`2·period − 1`) in
/// range for any rate, however small.
pub const MAX_PERIOD: u64 = 1 << 62;

/// What a sampling rate applies to. Each kind has its own rate and, per thread, its own
/// countdown to the next timed event; counts are exact whatever the rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Sampler {
    /// Calls of measured functions and blocks (`HOTPATH_TIME_SAMPLING_RATE`).
    Calls = 0,
    /// `io!` operations (`HOTPATH_IO_TIME_SAMPLING_RATE`).
    Io = 1,
    /// Channel messages (`HOTPATH_CHANNELS_TIME_SAMPLING_RATE`).
    Channels = 2,
    /// Stream items (`HOTPATH_STREAMS_TIME_SAMPLING_RATE`).
    Streams = 3,
    /// `future!` calls (`HOTPATH_FUTURES_TIME_SAMPLING_RATE`).
    Futures = 4,
    /// Mutex acquisitions (`HOTPATH_MUTEXES_TIME_SAMPLING_RATE`).
    Mutexes = 5,
    /// Read-write lock acquisitions (`HOTPATH_RW_LOCKS_TIME_SAMPLING_RATE`).
    RwLocks = 6,
}

impl Sampler {
    /// Number of kinds.
    pub const COUNT: usize = 7;
    /// Every kind.
    pub const ALL: [Sampler; Sampler::COUNT] = [
        Sampler::Calls,
        Sampler::Io,
        Sampler::Channels,
        Sampler::Streams,
        Sampler::Futures,
        Sampler::Mutexes,
        Sampler::RwLocks,
    ];

    /// The rate a session starts with: 1 for calls and `io!` operations, 1/16
    /// ([`DEFAULT_PERIOD`]) for channel messages, stream polls, `future!` calls and lock
    /// acquisitions, whose wrapped operation costs a few nanoseconds: timing each would
    /// cost more than the operation. Each site's first [`crate::WARM_UP`] events are
    /// timed whatever the rate, and a sampled event stands for 16 in the sums and
    /// percentiles.
    pub const fn default_rate(self) -> f64 {
        match self {
            Sampler::Calls | Sampler::Io => 1.0,
            _ => 1.0 / DEFAULT_PERIOD as f64,
        }
    }

    /// Times a fraction `rate` (0..=1) of these events; every one is still counted.
    /// `0` (or NaN) counts without timing; a rate below `1 / MAX_PERIOD` times one
    /// event in [`MAX_PERIOD`] on average.
    pub fn set_rate(self, rate: f64) {
        PERIODS[self as usize].store(period_of(rate), Relaxed);
        refresh();
    }

    /// The fraction of events timed: 1.0, 0.0 (count only), or 1/period.
    pub fn rate(self) -> f64 {
        match self.period() {
            0 => 0.0,
            p => 1.0 / p as f64,
        }
    }

    /// `Some(true)` when every event of this kind is timed, `Some(false)` when none is,
    /// `None` when a per-thread countdown decides (sampling): lets a wrapper skip
    /// finding its thread's shard when the rate alone decides.
    #[inline(always)]
    pub fn fixed(self) -> Option<bool> {
        match self.period() {
            1 => Some(true),
            0 => Some(false),
            _ => None,
        }
    }

    /// Mean gap between timed events: 1 times every event, 0 none. A sampled event
    /// stands for this many.
    #[inline(always)]
    pub fn period(self) -> u64 {
        PERIODS[self as usize].load(Relaxed)
    }
}

/// The period (mean gap between timed events) of a sampling rate: 0 = none timed.
pub(crate) fn period_of(rate: f64) -> u64 {
    if rate.is_nan() || rate <= 0.0 {
        0
    } else if rate >= 1.0 {
        1
    } else {
        // `as` saturates; the cap keeps `2·period − 1` from overflowing.
        ((1.0 / rate).round() as u64).clamp(1, MAX_PERIOD)
    }
}

/// The global key.
#[inline(always)]
pub(crate) fn key() -> u64 {
    KEY.load(Relaxed)
}

/// Whether `key` says every call is timed, whether the TSC is in use, and whether the
/// stacks or the trace are on.
pub(crate) fn key_parts(key: u64) -> (bool, bool, bool) {
    (key & EVERY != 0, key & TSC != 0, key & EXTRAS != 0)
}

/// Whether `key` says each site's period decides ([`crate::budget`]).
pub(crate) fn key_budget(key: u64) -> bool {
    key & BUDGET_BIT != 0
}

/// Whether an overhead budget sets each call site's timing period ([`crate::budget`]).
#[inline(always)]
pub fn budget() -> bool {
    BUDGET.load(Relaxed)
}

/// Turns the per-site timing periods of an overhead budget on or off. While on, the
/// calls' own rate ([`Sampler::Calls`]) is not used: every site starts timed in full
/// and its period is what [`crate::budget::set_period`] last set.
pub fn set_budget(on: bool) {
    BUDGET.store(on, Relaxed);
    refresh();
}

/// Whether scopes keep the calling-context tree ([`crate::stacks`]).
#[inline(always)]
pub fn stacks() -> bool {
    STACKS.load(Relaxed)
}

/// Turns the calling-context tree on or off (use [`crate::stacks::configure`]).
pub(crate) fn set_stacks(on: bool) {
    STACKS.store(on, Relaxed);
    refresh();
}

/// Whether scopes write the trace ring ([`crate::trace`]).
#[inline(always)]
pub fn trace() -> bool {
    TRACE.load(Relaxed)
}

/// Turns the trace ring on or off (use [`crate::trace::configure`]).
pub(crate) fn set_trace(on: bool) {
    TRACE.store(on, Relaxed);
    refresh();
}

/// The current session epoch.
#[inline(always)]
pub(crate) fn epoch() -> u64 {
    EPOCH.load(Relaxed)
}

/// Starts a new epoch: every shard's numbers become stale.
pub(crate) fn next_epoch() {
    EPOCH.fetch_add(1, Relaxed);
    refresh();
}

/// The clock source chosen by [`crate::clock::init`] (`CLOCK_*`).
#[inline(always)]
pub(crate) fn clock_kind() -> u8 {
    CLOCK.load(Relaxed)
}

/// Records the clock source (once, at [`crate::clock::init`]).
pub(crate) fn set_clock_kind(kind: u8) {
    CLOCK.store(kind, Relaxed);
    refresh();
}

/// Whether scopes read the CPU clock at entry and exit (exact CPU mode).
#[inline(always)]
pub(crate) fn exact_cpu() -> bool {
    EXACT_CPU.load(Relaxed)
}

/// Turns exact CPU mode on or off.
#[cfg_attr(not(feature = "cpu"), allow(dead_code))]
pub(crate) fn set_exact_cpu(on: bool) {
    EXACT_CPU.store(on, Relaxed);
    refresh();
}

/// Recomputes [`KEY`] from the epoch, the call sampling period, the clock and the CPU mode.
fn refresh() {
    // Exact CPU mode reads the CPU clock in every scope: not the inline path.
    let budget = budget();
    let every = Sampler::Calls.period() == 1 && !exact_cpu() && !budget;
    let tsc = clock_kind() == CLOCK_TSC;
    let extras = stacks() || trace();
    KEY.store(
        (epoch() << 4)
            | if budget { BUDGET_BIT } else { 0 }
            | if extras { EXTRAS } else { 0 }
            | if every { EVERY } else { 0 }
            | if tsc { TSC } else { 0 },
        Relaxed,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_rate_gives_a_period_whose_gap_arithmetic_fits() {
        for rate in [
            1e-300,
            1e-19,
            f64::MIN_POSITIVE,
            1.0 / MAX_PERIOD as f64,
            1e-3,
            0.5,
        ] {
            let p = period_of(rate);
            assert!((1..=MAX_PERIOD).contains(&p), "rate {rate}: period {p}");
            assert!(p.checked_mul(2).is_some(), "rate {rate}");
        }
        assert_eq!(period_of(0.0), 0);
        assert_eq!(period_of(-1.0), 0);
        assert_eq!(period_of(f64::NAN), 0);
        assert_eq!(period_of(1.0), 1);
        assert_eq!(period_of(7.0), 1);
        assert_eq!(period_of(0.25), 4);
        assert_eq!(period_of(1e-19), MAX_PERIOD);
    }
}
