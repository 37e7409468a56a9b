//! The profiler's clock: raw CPU timestamp-counter ticks where that is safe, nanoseconds
//! from the monotonic clock elsewhere.
//!
//! On x86_64 with an invariant TSC (CPUID leaf `0x8000_0007`, EDX bit 8: constant rate,
//! counting through sleep states, synchronised across cores) [`now`] is one `rdtsc`
//! (~10 ns on a 2-vCPU VM, against ~23 ns for `Instant::now`). Elsewhere, or with
//! `HOTPATH_CLOCK=monotonic`, it is the nanoseconds since the first reading of
//! [`std::time::Instant`]. Ticks become nanoseconds only when a snapshot is taken: the
//! ratio is measured against `Instant` over the whole time since the first reading, so a
//! longer run calibrates more precisely and the per-call path never multiplies.
//!
//! A hand-written clock rather than `quanta`: the per-call path needs a plain static load
//! and one instruction, and the calibration wants the whole run, not a start-up loop.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::state::{
    self, CLOCK_MONOTONIC as MONOTONIC, CLOCK_TSC as TSC, CLOCK_UNKNOWN as UNKNOWN,
};

static ANCHOR: OnceLock<(u64, Instant)> = OnceLock::new();
/// The last ratio [`ns_per_tick`] measured (`f64` bits; 0: none yet).
static LAST: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Which source [`now`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockSource {
    /// The CPU's invariant timestamp counter (`rdtsc`).
    Tsc,
    /// `std::time::Instant` (`clock_gettime(CLOCK_MONOTONIC)` on Linux).
    Monotonic,
}

impl ClockSource {
    /// Short name shown in the report header.
    pub fn name(self) -> &'static str {
        match self {
            ClockSource::Tsc => "tsc",
            ClockSource::Monotonic => "monotonic",
        }
    }
}

/// Current reading in ticks. Monotonic per thread; comparable across threads.
#[inline(always)]
pub fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    if state::clock_kind() == TSC {
        return rdtsc();
    }
    now_slow()
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn rdtsc() -> u64 {
    // SAFETY: `rdtsc` exists on every x86_64 CPU and has no memory effects; `now` only
    // reaches this after `init` chose the TSC source.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cold]
#[inline(never)]
fn now_slow() -> u64 {
    if state::clock_kind() == UNKNOWN {
        init();
        return now();
    }
    monotonic_ns()
}

fn monotonic_ns() -> u64 {
    let (_, t0) = anchor();
    t0.elapsed().as_nanos() as u64
}

fn anchor() -> &'static (u64, Instant) {
    ANCHOR.get_or_init(paired_reading)
}

/// A raw reading (TSC ticks, or 0 without the TSC) and the `Instant` it was taken at, to
/// within half the gap between two `Instant` readings around it. The narrowest of a few
/// tries: a thread preempted between its readings would otherwise skew the calibration
/// by the whole preemption.
fn paired_reading() -> (u64, Instant) {
    let mut best: Option<(u64, Instant, Duration)> = None;
    for _ in 0..5 {
        let before = Instant::now();
        let raw = raw_for_anchor();
        let after = Instant::now();
        let gap = after - before;
        if best.is_none_or(|(_, _, g)| gap < g) {
            best = Some((raw, before + gap / 2, gap));
        }
        if gap < Duration::from_micros(1) {
            break;
        }
    }
    let (raw, at, _) = best.expect("at least one try");
    (raw, at)
}

fn raw_for_anchor() -> u64 {
    #[cfg(target_arch = "x86_64")]
    if state::clock_kind() == TSC {
        return rdtsc();
    }
    0
}

/// Chooses the source once. Called implicitly by the first [`now`].
pub fn init() {
    if state::clock_kind() != UNKNOWN {
        return;
    }
    let asked = std::env::var_os("HOTPATH_CLOCK").and_then(|v| v.to_str().and_then(parse_choice));
    let kind = if asked == Some(ClockSource::Monotonic) {
        MONOTONIC
    } else if invariant_tsc() {
        TSC
    } else {
        MONOTONIC
    };
    state::set_clock_kind(kind);
    anchor();
}

/// The source a value of `HOTPATH_CLOCK` asks for (`tsc` or `monotonic`, any case,
/// surrounding spaces ignored); `None` when it is neither. The facade validates the
/// variable with this same function, so a value it accepts is the value applied.
pub fn parse_choice(value: &str) -> Option<ClockSource> {
    match value.trim().to_ascii_lowercase().as_str() {
        "tsc" => Some(ClockSource::Tsc),
        "monotonic" => Some(ClockSource::Monotonic),
        _ => None,
    }
}

/// Whether [`now`] reads the TSC.
#[inline(always)]
pub(crate) fn is_tsc() -> bool {
    state::clock_kind() == TSC
}

/// [`now`] when the caller knows the source is the TSC (the fast path).
#[inline(always)]
pub(crate) fn now_tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        rdtsc()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        now()
    }
}

/// The source [`now`] reads.
pub fn source() -> ClockSource {
    init();
    match state::clock_kind() {
        TSC => ClockSource::Tsc,
        _ => ClockSource::Monotonic,
    }
}

#[cfg(target_arch = "x86_64")]
fn invariant_tsc() -> bool {
    use core::arch::x86_64::__cpuid;
    let max_ext = __cpuid(0x8000_0000).eax;
    max_ext >= 0x8000_0007 && (__cpuid(0x8000_0007).edx & (1 << 8)) != 0
}

#[cfg(not(target_arch = "x86_64"))]
fn invariant_tsc() -> bool {
    false
}

/// The ratio [`ns_per_tick`] returned last (measured now if it never ran): for values
/// that must be converted exactly as a report just was (the trace written after it).
pub fn last_ns_per_tick() -> f64 {
    match LAST.load(std::sync::atomic::Ordering::Relaxed) {
        0 => ns_per_tick(),
        bits => f64::from_bits(bits),
    }
}

/// Nanoseconds per tick, measured against `Instant` since the first clock reading.
///
/// When less than 20 ms have passed since then, waits until they have, so the ratio is
/// good to better than 0.1 % even for a program that ran for a millisecond. Both ends
/// are bracketed TSC/`Instant` pairs, so preemption cannot skew it.
pub fn ns_per_tick() -> f64 {
    if source() == ClockSource::Monotonic {
        return 1.0;
    }
    let (tsc0, t0) = *anchor();
    let min = Duration::from_millis(20);
    loop {
        let (t, at) = paired_reading();
        let el = at.saturating_duration_since(t0);
        if el >= min && t > tsc0 {
            let ratio = el.as_nanos() as f64 / (t - tsc0) as f64;
            LAST.store(ratio.to_bits(), std::sync::atomic::Ordering::Relaxed);
            return ratio;
        }
        std::thread::sleep(min.saturating_sub(el).max(Duration::from_micros(100)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock reading between two `Instant`s.
    fn bracketed() -> (Instant, u64, Instant) {
        let before = Instant::now();
        let ticks = now();
        (before, ticks, Instant::now())
    }

    #[test]
    fn ticks_advance_and_convert_to_wall_time() {
        let (before0, t0, after0) = bracketed();
        std::thread::sleep(Duration::from_millis(30));
        let (before1, t1, after1) = bracketed();
        assert!(t1 > t0);
        let ns = (t1 - t0) as f64 * ns_per_tick();
        // The time between the two readings lies between these, whatever the scheduler
        // did around them; the conversion is good to 0.1 %, allow 1 %.
        let shortest = (before1 - after0).as_nanos() as f64;
        let longest = (after1 - before0).as_nanos() as f64;
        assert!(
            shortest * 0.99 <= ns && ns <= longest * 1.01,
            "ticks {ns} ns, wall between {shortest} and {longest} ns"
        );
    }
}
