//! I/O operations: the per-operation path of `io!` wrappers.
//!
//! Each direction of an I/O entry (read, write, flush, shutdown, seek of one `io!` call
//! site and wrapped type) is a [`CallSite`] of kind `SiteKind::Io`, so its numbers live in
//! the same per-thread slots as functions'. An operation is a completed call: on success
//! it counts one operation and the bytes actually moved (timed or only counted, see
//! [`set_sampling_rate`](crate::set_sampling_rate)); a failure counts an error;
//! `WouldBlock`, `Interrupted` and `Poll::Pending` count nothing. Every operation also
//! charges its bytes and time to the innermost measured function on its thread.

use std::io;
use std::task::Poll;

use hotpath_core::op::{now, Here, Sampler};
use hotpath_core::{CallSite, Slot};

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

/// Records a finished operation of `site` on the calling thread. `start` is the clock
/// reading at its start, or 0 when it was not timed; `outer` when it was not made inside
/// another wrapped operation.
#[inline(always)]
fn record(
    here: Here,
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
            slot.c.io_errors.add(1);
            0
        }
        Outcome::Done(bytes) => {
            if start != 0 {
                let dt = end.saturating_sub(start);
                slot.record_op(dt);
                slot.c.io_timed_bytes.add(bytes);
            } else {
                slot.c.counted.add(1);
            }
            slot.c.io_bytes.add(bytes);
            bytes
        }
    };
    if outer {
        // The function is charged the part of the operation inside its current call: an
        // operation resumed after a `select!` dropped it began in an earlier call (or
        // none), and a function's waits never exceed its wall time.
        let io_ticks = if start != 0 {
            here.within_call(start, end)
        } else {
            0
        };
        charge_function(here, dir, bytes, io_ticks);
    }
}

/// Charges `bytes` and `io_ticks` of I/O time to the innermost measured function on this
/// thread, if there is one.
#[inline(always)]
fn charge_function(here: Here, dir: Dir, bytes: u64, io_ticks: u64) {
    if let Some(f) = here.innermost() {
        match dir {
            Dir::Read => f.c.fn_read.add(bytes),
            Dir::Write => f.c.fn_write.add(bytes),
            Dir::Other => {}
        }
        // As `Here::charge(Wait::Io, ..)` does, without finding the function again.
        if io_ticks != 0 {
            f.c.fn_io.add(io_ticks);
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
    let Some(here) = Here::get() else {
        return op();
    };
    let Some(slot) = here.slot(site) else {
        return op();
    };
    let (nest, outer) = Here::nest(Some(here));
    let start = if here.timed(Sampler::Io) { now() } else { 0 };
    let r = op();
    let end = if start != 0 { now() } else { 0 };
    drop(nest);
    record(here, slot, dir, Outcome::of(&r, bytes), start, end, outer);
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
            self.0 = match Here::get() {
                Some(here) if here.timed(Sampler::Io) => now().max(2),
                _ => 1,
            };
        }
    }

    /// Ends the operation in flight with `outcome` (its `Ready` poll), recording it for
    /// `site` on the calling thread; `outer` as returned by [`InFlight::poll`].
    #[inline]
    pub fn finish(&mut self, site: &'static CallSite, dir: Dir, outcome: Outcome, outer: bool) {
        let start = std::mem::take(&mut self.0);
        let Some(here) = Here::get() else {
            return;
        };
        let Some(slot) = here.slot(site) else {
            return;
        };
        let timed_start = if start >= 2 { start } else { 0 };
        let end = if timed_start != 0 { now() } else { 0 };
        record(here, slot, dir, outcome, timed_start, end, outer);
    }

    /// Runs one poll (or one synchronous call) of the operation: begins it if it is not
    /// in flight, and returns `f`'s result and whether this is the outermost I/O
    /// operation on the thread (see [`InFlight::finish`]).
    #[inline]
    pub fn poll<R>(&mut self, f: impl FnOnce() -> R) -> (R, bool) {
        self.begin();
        let (nest, outer) = Here::nest(Here::existing());
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
    let Some(here) = Here::get() else {
        return;
    };
    if let Some(slot) = here.slot(site) {
        slot.c.io_bytes.add(bytes);
        if !here.in_op() {
            charge_function(here, dir, bytes, 0);
        }
    }
}
