//! Lock meter of the [hotpath](https://docs.rs/hotpath) profiler.
//!
//! [`Lock<L>`] wraps a lock `L` (std's, parking_lot's, tokio's or async-lock's `Mutex` and
//! `RwLock`) and behaves exactly like it: the same methods with the same results,
//! poisoning, fairness (tokio's FIFO queue) and blocking behaviour, guards that deref to
//! the data. On the way it counts, per `mutex!`/`rw_lock!` call site and mode (exclusive,
//! read, write, upgradable): acquisitions, contended acquisitions, failed `try_lock`s,
//! wait and hold times, and which measured function acquired, waited and held. Waiting
//! time is also charged to the innermost measured function on the thread (the `waits`
//! section).
//!
//! Use it through the facade: `hotpath::mutex!(std::sync::Mutex::new(0))`,
//! `hotpath::rw_lock!(parking_lot::RwLock::new(v), label = "cache")`; without the facade's
//! `hotpath` feature the macros return the lock itself.
//!
//! ## How an acquisition is measured
//!
//! 1. `try_lock` first (the same first step std's futex lock and parking_lot take). When
//!    it succeeds the acquisition is uncontended and no clock is read for waiting.
//! 2. Otherwise the clock is read, the blocking (or awaited) acquisition runs, the clock is
//!    read again: that is the wait, and the second reading starts the hold. Awaited
//!    acquisitions wait from their first poll to `Ready`.
//! 3. When the guard drops, the inner guard is released first, then the clock is read:
//!    the hold includes the release itself, and the profiler's own stores never lengthen
//!    the program's critical section. The acquisition is recorded then, on the thread
//!    that releases, together with the function that acquired (read from the scope stack
//!    at acquisition).
//!
//! Every acquisition is counted. Holds are timed at the sampling rate
//! (`HOTPATH_MUTEXES_TIME_SAMPLING_RATE`, `HOTPATH_RW_LOCKS_TIME_SAMPLING_RATE`; one
//! in 16 by default, after each site's first 256 acquisitions, which are all timed):
//! an untimed uncontended acquisition reads no clock, and a sampled one stands for 16
//! in the hold sums and percentiles. A contended acquisition is always timed (wait and
//! hold) unless the rate is 0. A guard that is never dropped (`mem::forget`, held at
//! exit) is not counted.
//!
//! ## Cost
//!
//! Uncontended and timed: two clock reads and single-writer stores into the releasing
//! thread's slot and holder table; no lock, allocation or shared read-modify-write. See
//! the facade's Performance section for measured numbers.
#![deny(missing_docs)]
#![deny(unsafe_code)]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

use hotpath_core::fork::{self, Rank};
use hotpath_core::op::{now, Here, Sampler, Wait};
use hotpath_core::{CallSite, SiteKind};

pub mod std_sync;

#[cfg(feature = "async-lock")]
pub mod async_lock;
#[cfg(feature = "parking_lot")]
pub mod parking_lot;
#[cfg(feature = "tokio")]
pub mod tokio;

/// What a lock site wraps: a mutex, or a read-write lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    /// A mutual-exclusion lock: exclusive acquisitions only.
    Mutex,
    /// A read-write lock: read, write and (parking_lot, async-lock) upgradable
    /// acquisitions, each mode with its own numbers.
    RwLock,
}

/// One `mutex!` or `rw_lock!` call site: a `static` per macro expansion, made in const
/// context so that the wrapped lock can live in a `static` itself.
#[derive(Debug)]
pub struct LockSite {
    label: Option<&'static str>,
    file: &'static str,
    line: u32,
    kind: LockKind,
    /// Exclusive acquisitions (a mutex) or write acquisitions (a read-write lock).
    write: CallSite,
    /// Read acquisitions.
    read: CallSite,
    /// Upgradable read acquisitions.
    upgradable: CallSite,
    /// Locks of this site that were acquired at least once.
    instances: AtomicU64,
    /// The wrapped type, known at the first acquisition.
    type_name: OnceLock<&'static str>,
}

impl LockSite {
    /// A site at `file:line`, `name` being `concat!(file!(), ":", line!())`.
    pub const fn new(
        name: &'static str,
        label: Option<&'static str>,
        file: &'static str,
        line: u32,
        kind: LockKind,
    ) -> Self {
        LockSite {
            label,
            file,
            line,
            kind,
            write: CallSite::named(name, label, file, line, SiteKind::Lock),
            read: CallSite::named(name, label, file, line, SiteKind::Lock),
            upgradable: CallSite::named(name, label, file, line, SiteKind::Lock),
            instances: AtomicU64::new(0),
            type_name: OnceLock::new(),
        }
    }

    /// The label, or `file:line`.
    pub fn name(&self) -> String {
        match self.label {
            Some(l) => l.to_string(),
            None => format!("{}:{}", self.file, self.line),
        }
    }

    /// The `label = ...` given to the macro.
    pub fn label(&self) -> Option<&'static str> {
        self.label
    }

    /// Source file of the macro.
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// Source line of the macro.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// A mutex or a read-write lock.
    pub fn kind(&self) -> LockKind {
        self.kind
    }

    /// The wrapped type (`std::sync::Mutex<u64>`), once a lock of the site was acquired.
    pub fn type_name(&self) -> Option<&'static str> {
        self.type_name.get().copied()
    }

    /// Locks made at this site that were acquired at least once.
    pub fn instances(&self) -> u64 {
        self.instances.load(Relaxed)
    }

    /// The call site of a mode's acquisitions.
    pub fn mode(&'static self, mode: Mode) -> &'static CallSite {
        match mode {
            Mode::Write => &self.write,
            Mode::Read => &self.read,
            Mode::Upgradable => &self.upgradable,
        }
    }

    /// The backend, from the wrapped type's path: `std`, `parking_lot`, `tokio`,
    /// `async-lock` (or the type's first path segment).
    pub fn backend(&self) -> Option<&'static str> {
        let t = self.type_name()?;
        let first = t.split("::").next().unwrap_or(t);
        Some(match first {
            "std" => "std",
            "lock_api" | "parking_lot" => "parking_lot",
            "tokio" => "tokio",
            "async_lock" => "async-lock",
            other => other,
        })
    }
}

/// A mode of acquisition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Mode {
    /// Exclusive: a mutex's `lock`, a read-write lock's `write`.
    Write = 0,
    /// Shared: a read-write lock's `read`.
    Read = 1,
    /// Upgradable read (parking_lot, async-lock).
    Upgradable = 2,
}

static SITES: fork::Mutex<Vec<&'static LockSite>> = fork::Mutex::new(Rank::LockSites, Vec::new());

/// Sites of the `hotpath::wrap` constructors, by source location (see `site_at`).
type Key = (&'static str, u32, u32, bool);
static BY_LOCATION: fork::Mutex<Option<std::collections::HashMap<Key, &'static LockSite>>> =
    fork::Mutex::new(Rank::LockLocations, None);

/// Every lock site with a lock acquired so far, in order of first acquisition.
pub fn sites() -> Vec<&'static LockSite> {
    let sites = SITES.lock();
    hotpath_core::internal(|| sites.clone())
}

/// A lock `L` measured as an instance of a `mutex!` or `rw_lock!` call site.
///
/// The methods are those of `L` (see the backend modules: [`std_sync`] and, with their
/// features, `parking_lot`, `tokio`, `async_lock`); there is deliberately no `Deref` to
/// `L`, so that no acquisition escapes the count.
pub struct Lock<L: ?Sized> {
    site: &'static LockSite,
    seen: AtomicBool,
    inner: L,
}

impl<L> Lock<L> {
    /// Wraps `inner` as an instance of `site`. A `const fn`, so a wrapped lock can be a
    /// `static`: this is what `mutex!` and `rw_lock!` expand to.
    pub const fn instrument(inner: L, site: &'static LockSite) -> Self {
        Lock {
            inner,
            site,
            seen: AtomicBool::new(false),
        }
    }

    /// Wraps `inner` as an instance of the site of the caller's source location: for the
    /// constructors of the `hotpath::wrap` aliases (`Mutex::new`, `Default`, `From`), which
    /// cannot take a `static` site. The site is made once per location.
    #[track_caller]
    pub fn at_caller(inner: L, kind: LockKind) -> Self {
        Lock::instrument(inner, site_at(std::panic::Location::caller(), kind))
    }
}

impl<L: ?Sized> Lock<L> {
    /// The call site this lock belongs to.
    pub fn site(&self) -> &'static LockSite {
        self.site
    }

    /// Counts this lock as an instance of its site on its first acquisition.
    #[inline(always)]
    fn register(&self) {
        if !self.seen.load(Relaxed) {
            self.register_slow();
        }
    }

    #[cold]
    #[inline(never)]
    fn register_slow(&self) {
        if self.seen.swap(true, Relaxed) {
            return;
        }
        let site = self.site;
        let name = public_path(std::any::type_name::<L>());
        // Under the sites lock, which the fork handlers take: no `fork()` copies the
        // process while the type name is being set (a child would wait for it forever).
        let mut sites = SITES.lock();
        let _ = site.type_name.set(name);
        if site.instances.fetch_add(1, Relaxed) == 0 {
            hotpath_core::internal(|| sites.push(site));
        }
    }
}

/// A lock type's name by the paths users write: `std::sync::Mutex<u64>` for
/// `std::sync::poison::mutex::Mutex<u64>`, `parking_lot::Mutex<T>` for
/// `lock_api::mutex::Mutex<parking_lot::raw_mutex::RawMutex, T>`. Once per site.
fn public_path(raw: &'static str) -> &'static str {
    const PATHS: [(&str, &str); 10] = [
        ("std::sync::poison::mutex::", "std::sync::"),
        ("std::sync::poison::rwlock::", "std::sync::"),
        (
            "lock_api::mutex::Mutex<parking_lot::raw_mutex::RawMutex, ",
            "parking_lot::Mutex<",
        ),
        (
            "lock_api::rwlock::RwLock<parking_lot::raw_rwlock::RawRwLock, ",
            "parking_lot::RwLock<",
        ),
        ("tokio::sync::mutex::", "tokio::sync::"),
        ("tokio::sync::rwlock::", "tokio::sync::"),
        ("async_lock::mutex::", "async_lock::"),
        ("async_lock::rwlock::", "async_lock::"),
        ("alloc::vec::", ""),
        ("alloc::string::", ""),
    ];
    if !PATHS.iter().any(|(from, _)| raw.contains(from)) {
        return raw;
    }
    let mut s = raw.to_string();
    for (from, to) in PATHS {
        s = s.replace(from, to);
    }
    hotpath_core::internal(|| s.leak())
}

/// The site of a source location, made (and leaked) on first use.
fn site_at(loc: &'static std::panic::Location<'static>, kind: LockKind) -> &'static LockSite {
    let mut map = BY_LOCATION.lock();
    hotpath_core::internal(|| {
        let key = (
            loc.file(),
            loc.line(),
            loc.column(),
            kind == LockKind::RwLock,
        );
        *map.get_or_insert_with(Default::default)
            .entry(key)
            .or_insert_with(|| {
                let name: &'static str = format!("{}:{}", loc.file(), loc.line()).leak();
                Box::leak(Box::new(LockSite::new(
                    name,
                    None,
                    loc.file(),
                    loc.line(),
                    kind,
                )))
            })
    })
}

impl<L: ?Sized + std::fmt::Debug> std::fmt::Debug for Lock<L> {
    /// As the wrapped lock prints itself.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

const TIMED: u8 = 1;
const CONTENDED: u8 = 2;
const LIVE: u8 = 4;
/// Timed because the sampling countdown picked it: it stands for a sampling period's
/// acquisitions (without it a timed acquisition stands for itself).
const SAMPLED: u8 = 8;
/// A read-write lock's acquisition (whose period [`SAMPLED`] uses).
const RW: u8 = 16;

// The id of a call site fits the 24 bits [`Held`] keeps it in.
const _: () = assert!(hotpath_core::MAX_SITES < 1 << 24);

impl LockSite {
    /// The sampler of this site's acquisitions.
    #[inline(always)]
    fn sampler(&self) -> Sampler {
        match self.kind {
            LockKind::Mutex => Sampler::Mutexes,
            LockKind::RwLock => Sampler::RwLocks,
        }
    }
}

/// One acquisition being held, as plain data: what its release records (see
/// [`Held::release`]). [`Hold`] releases it when dropped; the guard of a std mutex
/// releases it itself, after its own lock.
///
/// Whole words, written at once: narrower fields next to each other made the guard's
/// moves read words whose bytes were just stored apart (store-forwarding stalls of
/// several ns per acquisition).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Held {
    /// Clock reading when the lock was acquired (timed acquisitions).
    start: u64,
    /// Ticks waited (timed contended acquisitions).
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

impl Held {
    /// Nothing to record (the thread was tearing down, or the hold was ended).
    pub(crate) const NONE: Held = Held {
        start: 0,
        wait: 0,
        bits: 0,
    };

    #[inline(always)]
    fn flags(&self) -> u8 {
        (self.bits >> 56) as u8
    }

    /// The id of the mode's call site.
    #[inline(always)]
    fn site(&self) -> u32 {
        (self.bits >> 32) as u32 & 0xFF_FFFF
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
    /// [`Held::resume`] needs.
    fn pause(&mut self, condvar: bool) -> Paused {
        let flags = self.flags();
        let paused = Paused {
            bits: bits(
                self.bits as u32,
                self.site(),
                flags & (LIVE | TIMED | SAMPLED | RW),
            ),
            at: if flags & TIMED != 0 { now() } else { 0 },
        };
        self.release();
        *self = Held::NONE;
        if flags & LIVE != 0 && condvar {
            if let Some(slot) = Here::get().and_then(|h| h.slot_of(paused.site())) {
                slot.c.condvar_waits.add(1);
            }
        }
        paused
    }

    /// Holds again after a pause (an uncontended acquisition); with `charge`, the time
    /// since the pause is charged to the innermost measured function as lock waiting (a
    /// condition variable's wait).
    fn resume(p: Paused, charge: bool) -> Held {
        let flags = (p.bits >> 56) as u8;
        if flags & LIVE == 0 {
            return Held::NONE;
        }
        let Some(here) = Here::get() else {
            return Held::NONE;
        };
        let start = if flags & TIMED != 0 {
            let t = now();
            if charge && !here.in_op() {
                here.charge(Wait::Lock, t.saturating_sub(p.at));
            }
            t
        } else {
            0
        };
        Held {
            start,
            wait: 0,
            bits: p.bits,
        }
    }

    /// Runs `f` with the lock released (by `release_for`, e.g. parking_lot's
    /// `unlocked`): the hold before and the hold after are two acquisitions.
    #[cfg_attr(not(feature = "parking_lot"), allow(dead_code))]
    fn released<U>(&mut self, release_for: impl FnOnce() -> U) -> U {
        let p = self.pause(false);
        let u = release_for();
        *self = Held::resume(p, false);
        u
    }

    /// As [`Held::released`], for a condition variable's wait: counted as one, and its
    /// time charged to the function as lock waiting.
    pub(crate) fn condvar_wait<U>(&mut self, wait: impl FnOnce() -> U) -> U {
        let p = self.pause(true);
        let u = wait();
        *self = Held::resume(p, true);
        u
    }
}

/// Records an acquisition (see [`Held`] for the arguments) released just now into the
/// calling thread's slot and holder table; the clock is read first.
#[inline(never)]
fn record(start: u64, wait: u64, bits: u64) {
    let flags = (bits >> 56) as u8;
    let timed = flags & TIMED != 0;
    let end = if timed { now() } else { 0 };
    let Some(here) = Here::get() else {
        return;
    };
    let site = (bits >> 32) as u32 & 0xFF_FFFF;
    let Some(slot) = here.slot_of(site) else {
        return;
    };
    let contended = flags & CONTENDED != 0;
    let hold = end.saturating_sub(start);
    let w = weight(flags);
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
    #[inline(always)]
    fn new(lock: &'static LockSite, held: Held) -> Hold {
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

    /// Ends this hold now (records it): for guards that turn into another mode.
    #[cfg_attr(
        not(any(feature = "parking_lot", feature = "tokio", feature = "async-lock")),
        allow(dead_code)
    )]
    pub(crate) fn end(mut self) {
        std::mem::replace(&mut self.held, Held::NONE).release();
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

/// A hold paused while the lock is released: its function, site and flags (timed,
/// live), and when the pause began.
struct Paused {
    bits: u64,
    at: u64,
}

impl Paused {
    #[inline(always)]
    fn site(&self) -> u32 {
        (self.bits >> 32) as u32 & 0xFF_FFFF
    }
}

/// A `try_lock`-style attempt failed because the lock was taken.
#[cold]
fn try_failed(site: &'static CallSite) {
    if let Some(slot) = Here::get().and_then(|h| h.slot(site)) {
        slot.c.try_failed.add(1);
    }
}

/// What an acquisition about to be made needs: whether its hold is timed (by the rate
/// alone when it says all or none, else by the site's warm-up and the thread's
/// countdown) in the flags (0 when the thread cannot record: it is tearing down), and
/// the innermost measured function, to which it is attributed. A contended acquisition
/// is timed whatever the countdown said (unless the rate is 0): it is about to wait,
/// and its wait is what the lock costs the program.
#[derive(Clone, Copy)]
struct Begin {
    flags: u8,
    function: u32,
}

#[inline(always)]
fn begin(sampler: Sampler, site: &'static CallSite) -> Begin {
    let Some(here) = Here::get() else {
        return Begin {
            flags: 0,
            function: 0,
        };
    };
    let flags = match here.sample(sampler, site) {
        0 => LIVE,
        1 => LIVE | TIMED,
        _ if sampler == Sampler::RwLocks => LIVE | TIMED | SAMPLED | RW,
        _ => LIVE | TIMED | SAMPLED,
    };
    Begin {
        flags,
        function: here.function_id(),
    }
}

/// Whether a contended acquisition is timed: always, unless the rate is 0 (count only).
#[inline(always)]
fn contended_timed(sampler: Sampler) -> bool {
    sampler.fixed() != Some(false)
}

/// An uncontended acquisition of `site` just made: no clock is read but for a timed
/// one's hold.
#[inline(always)]
fn uncontended(site: &'static CallSite, b: Begin) -> Held {
    if b.flags == 0 {
        return Held::NONE;
    }
    Held {
        start: if b.flags & TIMED != 0 { now() } else { 0 },
        wait: 0,
        bits: bits(b.function, site.id(), b.flags),
    }
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
        return Held {
            start: 0,
            wait: 0,
            bits: bits(function, site.id(), LIVE | CONTENDED),
        };
    }
    let wait = t1.saturating_sub(t0);
    if !here.in_op() {
        here.charge(Wait::Lock, wait);
    }
    Held {
        start: t1,
        wait,
        bits: bits(function, site.id(), LIVE | TIMED | CONTENDED),
    }
}

/// A blocking acquisition of `mode` on `lock`: `fast` tries without waiting (`None` when
/// the lock is taken), `slow` blocks until acquired.
#[inline(always)]
fn acquire<'a, L: ?Sized, R>(
    lock: &'a Lock<L>,
    mode: Mode,
    fast: impl FnOnce(&'a L) -> Option<R>,
    slow: impl FnOnce(&'a L) -> R,
) -> (R, Hold) {
    let (r, held) = acquire_held(lock, mode, fast, slow);
    (r, Hold::new(lock.site, held))
}

/// [`acquire`], the hold as plain data (for guards that release it themselves).
#[inline(always)]
fn acquire_held<'a, L: ?Sized, R>(
    lock: &'a Lock<L>,
    mode: Mode,
    fast: impl FnOnce(&'a L) -> Option<R>,
    slow: impl FnOnce(&'a L) -> R,
) -> (R, Held) {
    lock.register();
    let site = lock.site;
    acquire_at(
        site.mode(mode),
        site.sampler(),
        &lock.inner,
        |l| fast(l).ok_or(l),
        slow,
    )
}

/// A blocking acquisition of `mode` at `lock` from `state` (the lock, or a guard being
/// upgraded): `fast` tries without waiting and gives `state` back when the lock is
/// taken, `slow` blocks until acquired.
#[cfg_attr(
    not(any(feature = "parking_lot", feature = "async-lock")),
    allow(dead_code)
)]
#[inline(always)]
fn acquire_by<S, R>(
    lock: &'static LockSite,
    mode: Mode,
    state: S,
    fast: impl FnOnce(S) -> Result<R, S>,
    slow: impl FnOnce(S) -> R,
) -> (R, Hold) {
    let (r, held) = acquire_at(lock.mode(mode), lock.sampler(), state, fast, slow);
    (r, Hold::new(lock, held))
}

#[inline(always)]
fn acquire_at<S, R>(
    site: &'static CallSite,
    sampler: Sampler,
    state: S,
    fast: impl FnOnce(S) -> Result<R, S>,
    slow: impl FnOnce(S) -> R,
) -> (R, Held) {
    let b = begin(sampler, site);
    match fast(state) {
        Ok(r) => (r, uncontended(site, b)),
        Err(state) => acquire_slow(site, sampler, b.flags, state, slow),
    }
}

#[inline(never)]
fn acquire_slow<S, R>(
    site: &'static CallSite,
    sampler: Sampler,
    flags: u8,
    state: S,
    slow: impl FnOnce(S) -> R,
) -> (R, Held) {
    let timed = flags & LIVE != 0 && contended_timed(sampler);
    let t0 = if timed { now() } else { 0 };
    let r = slow(state);
    if flags & LIVE == 0 {
        return (r, Held::NONE);
    }
    (r, contended(site, timed, t0))
}

/// A `try_lock`-style acquisition of `mode`: `None` (and a failed attempt counted) when
/// the lock was taken.
#[inline(always)]
fn try_acquire<'a, L: ?Sized, R>(
    lock: &'a Lock<L>,
    mode: Mode,
    attempt: impl FnOnce(&'a L) -> Option<R>,
) -> Option<(R, Hold)> {
    let (r, held) = try_acquire_held(lock, mode, attempt)?;
    Some((r, Hold::new(lock.site, held)))
}

/// [`try_acquire`], the hold as plain data (for guards that release it themselves).
#[inline(always)]
fn try_acquire_held<'a, L: ?Sized, R>(
    lock: &'a Lock<L>,
    mode: Mode,
    attempt: impl FnOnce(&'a L) -> Option<R>,
) -> Option<(R, Held)> {
    lock.register();
    let site = lock.site;
    try_acquire_at(site.mode(mode), site.sampler(), &lock.inner, |l| {
        attempt(l).ok_or(())
    })
    .ok()
}

/// A `try_lock`-style acquisition of `mode` at `lock` by `attempt` from `state`, which
/// gives something back when the lock is taken (a guard being upgraded).
#[cfg_attr(
    not(any(feature = "parking_lot", feature = "tokio", feature = "async-lock")),
    allow(dead_code)
)]
#[inline(always)]
fn try_acquire_by<S, R, E>(
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

/// An awaited acquisition of `mode`: `fast` tries without waiting, `slow` is the future
/// that waits. The wait runs from the first poll to `Ready`, and is charged to the
/// innermost measured function on the thread that completes it.
#[cfg(any(feature = "tokio", feature = "async-lock"))]
async fn acquire_async<S, R, F>(
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
    let timed = b.flags & LIVE != 0 && contended_timed(lock.sampler());
    let t0 = if timed { now() } else { 0 };
    let r = slow(state).await;
    (r, Hold::new(lock, contended(site, timed, t0)))
}

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

/// A guard's `Debug` and `Display`: as the wrapped guard.
macro_rules! fmt_as_inner {
    ($guard:ident < $($p:tt),* > where $($b:tt)*) => {
        impl<$($p),*> ::std::fmt::Debug for $guard<$($p),*> where $($b)* {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Debug::fmt(&self.inner, f)
            }
        }
    };
}
pub(crate) use fmt_as_inner;
