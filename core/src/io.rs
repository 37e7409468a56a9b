//! I/O operations: the per-operation path of `io!` wrappers.
//!
//! Each direction of an I/O entry (read, write, flush, shutdown, seek of one `io!` call
//! site and wrapped type) is a [`CallSite`] of kind [`SiteKind::Io`](crate::SiteKind::Io),
//! so its numbers live in the same per-thread slots as functions'. An operation is a
//! completed call: on success it counts one operation and the bytes actually moved
//! (timed or only counted, see [`set_io_sampling_rate`]); a failure counts an error;
//! `WouldBlock`, `Interrupted` and `Poll::Pending` count nothing. Every operation also
//! charges its bytes and time to the innermost measured function on its thread.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::task::Poll;

use crate::clock;
use crate::shard::{Shard, Slot, MAX_DEPTH};
use crate::site::CallSite;

static PERIOD: AtomicU64 = AtomicU64::new(1);

/// Times a fraction `rate` (0..=1) of I/O operations; every operation and byte is still
/// counted. `0` counts without timing.
pub fn set_io_sampling_rate(rate: f64) {
    PERIOD.store(crate::scope::period_of(rate), Relaxed);
    crate::shard::refresh_key();
}

/// The fraction of I/O operations timed.
pub fn io_sampling_rate() -> f64 {
    crate::scope::rate_of(PERIOD.load(Relaxed))
}

pub(crate) fn period() -> u64 {
    PERIOD.load(Relaxed)
}

/// Which of a function's I/O counters an operation adds its bytes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Reads.
    Read,
    /// Writes.
    Write,
    /// Flushes, shutdowns, seeks: time only.
    Other,
}

/// How a finished call counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A completed operation that moved this many bytes.
    Done(u64),
    /// A failed operation.
    Failed,
    /// `WouldBlock` or `Interrupted`: nothing happened; not counted.
    NotAnOperation,
}

impl Outcome {
    /// The outcome of an I/O result, bytes given by `bytes`.
    #[inline(always)]
    pub fn of<T>(r: &io::Result<T>, bytes: impl FnOnce(&T) -> u64) -> Outcome {
        match r {
            Ok(v) => Outcome::Done(bytes(v)),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) =>
            {
                Outcome::NotAnOperation
            }
            Err(_) => Outcome::Failed,
        }
    }
}

/// Whether to time this operation; `false` only when sampling says so.
#[inline(always)]
fn timed(shard: &Shard) -> bool {
    let p = PERIOD.load(Relaxed);
    if p == 1 {
        return true;
    }
    if p == 0 {
        return false;
    }
    let c = shard.io_countdown.get();
    if c != 1 {
        shard.io_countdown.set(c.wrapping_sub(1));
        return false;
    }
    shard.next_io_gap();
    true
}

/// Marks the calling thread as inside an I/O operation while alive, and says whether it
/// is the outermost one: the operations a wrapped value makes on another wrapped value
/// (a wrapped file under a wrapped `BufWriter` or encoder) are counted for their own
/// entry, but charged to the function only once, through the outermost.
struct Nest(Option<&'static Shard>);

impl Nest {
    #[inline(always)]
    fn enter(shard: Option<&'static Shard>) -> (Nest, bool) {
        match shard {
            Some(s) => {
                let n = s.io_nest.get();
                s.io_nest.set(n + 1);
                (Nest(Some(s)), n == 0)
            }
            None => (Nest(None), true),
        }
    }
}

impl Drop for Nest {
    #[inline(always)]
    fn drop(&mut self) {
        if let Some(s) = self.0 {
            s.io_nest.set(s.io_nest.get().saturating_sub(1));
        }
    }
}

/// Records a finished operation of `site` on the calling thread. `start` is the clock
/// reading at its start, or 0 when it was not timed; `outer` when it was not made inside
/// another wrapped operation.
#[inline(always)]
fn record(
    shard: &'static Shard,
    slot: &'static Slot,
    dir: Dir,
    outcome: Outcome,
    start: u64,
    end: u64,
    outer: bool,
) {
    let bytes = match outcome {
        Outcome::NotAnOperation => return,
        Outcome::Failed => {
            slot.io_errors.add(1);
            0
        }
        Outcome::Done(bytes) => {
            if start != 0 {
                let dt = end.saturating_sub(start);
                slot.record_io(dt);
                slot.io_timed_bytes.add(bytes);
            } else {
                slot.counted.add(1);
            }
            slot.io_bytes.add(bytes);
            bytes
        }
    };
    if outer {
        let io_ticks = if start != 0 {
            end.saturating_sub(start)
        } else {
            0
        };
        charge_function(shard, dir, bytes, io_ticks);
    }
}

/// Charges `bytes` and `io_ticks` of I/O time to the innermost measured function on this
/// thread, if there is one.
#[inline(always)]
fn charge_function(shard: &'static Shard, dir: Dir, bytes: u64, io_ticks: u64) {
    let depth = shard.depth.load(Relaxed) as usize;
    if depth == 0 || depth > MAX_DEPTH {
        return;
    }
    if let Some(f) = shard.slot(shard.frames[depth - 1].site.load(Relaxed)) {
        match dir {
            Dir::Read => f.fn_read.add(bytes),
            Dir::Write => f.fn_write.add(bytes),
            Dir::Other => {}
        }
        if io_ticks != 0 {
            f.fn_io.add(io_ticks);
        }
    }
}

/// Runs one synchronous operation of `site`, timing it around the call.
#[inline(always)]
pub fn sync_op<T>(
    site: &'static CallSite,
    dir: Dir,
    bytes: impl FnOnce(&T) -> u64,
    op: impl FnOnce() -> io::Result<T>,
) -> io::Result<T> {
    let id = site.id();
    let Some(shard) = Shard::current() else {
        return op();
    };
    let Some(slot) = shard.slot(id) else {
        return op();
    };
    let (nest, outer) = Nest::enter(Some(shard));
    let start = if timed(shard) { clock::now() } else { 0 };
    let r = op();
    let end = if start != 0 { clock::now() } else { 0 };
    drop(nest);
    record(shard, slot, dir, Outcome::of(&r, bytes), start, end, outer);
    r
}

/// An asynchronous operation in flight: when its first poll happened.
///
/// `0`: none in flight; `1`: in flight, not timed; otherwise the clock reading at the
/// first poll. A future dropped mid-operation leaves its state here, and the next
/// operation in the same direction resumes it (its duration then includes the
/// abandoned wait).
#[derive(Clone, Copy, Debug, Default)]
pub struct InFlight(u64);

impl InFlight {
    /// Marks the start of an operation unless one is already in flight (first poll).
    #[inline]
    pub fn begin(&mut self) {
        if self.0 == 0 {
            self.0 = match Shard::current() {
                Some(shard) if timed(shard) => clock::now().max(2),
                _ => 1,
            };
        }
    }

    /// Ends the operation in flight with `outcome` (its `Ready` poll), recording it for
    /// `site` on the calling thread; `outer` as returned by [`InFlight::poll`].
    #[inline]
    pub fn finish(&mut self, site: &'static CallSite, dir: Dir, outcome: Outcome, outer: bool) {
        let start = std::mem::take(&mut self.0);
        let id = site.id();
        let Some(shard) = Shard::current() else {
            return;
        };
        let Some(slot) = shard.slot(id) else {
            return;
        };
        let timed_start = if start >= 2 { start } else { 0 };
        let end = if timed_start != 0 { clock::now() } else { 0 };
        record(shard, slot, dir, outcome, timed_start, end, outer);
    }

    /// Runs one poll (or one synchronous call) of the operation: begins it if it is not
    /// in flight, and returns `f`'s result and whether this is the outermost I/O
    /// operation on the thread (see [`InFlight::finish`]).
    #[inline]
    pub fn poll<R>(&mut self, f: impl FnOnce() -> R) -> (R, bool) {
        self.begin();
        let (nest, outer) = Nest::enter(crate::shard::current_raw());
        let r = f();
        drop(nest);
        (r, outer)
    }
}

/// Polls one asynchronous operation of `site`: the operation runs from its first poll
/// to `Ready`, so its duration includes waiting for readiness.
#[inline]
pub fn poll_op<T>(
    site: &'static CallSite,
    dir: Dir,
    state: &mut InFlight,
    bytes: impl FnOnce(&T) -> u64,
    poll: impl FnOnce() -> Poll<io::Result<T>>,
) -> Poll<io::Result<T>> {
    let (r, outer) = state.poll(poll);
    if let Poll::Ready(res) = &r {
        state.finish(site, dir, Outcome::of(res, bytes), outer);
    }
    r
}

/// Counts a completed operation of `site` without running anything: for calls that
/// cannot fail and are not timed, such as `BufRead::consume` adding bytes.
#[inline]
pub fn add_bytes(site: &'static CallSite, dir: Dir, bytes: u64) {
    let Some(shard) = Shard::current() else {
        return;
    };
    if let Some(slot) = shard.slot(site.id()) {
        slot.io_bytes.add(bytes);
        if shard.io_nest.get() == 0 {
            charge_function(shard, dir, bytes, 0);
        }
    }
}
