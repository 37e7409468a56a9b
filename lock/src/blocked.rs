//! Holds that made another acquisition wait: a count of waits begun per mode of a lock
//! site, which a hold reads when it starts and again when it ends. If it moved, some
//! acquisition of a mode this hold excludes began to wait while it held (on a lock of
//! the same site), and the hold is timed whatever the sampling said: it is what the
//! wait cost, and a sampled maximum would miss exactly the holds that matter.
//!
//! The uncontended path pays two plain loads for it (one before its `try_lock`, one at
//! release), never a read-modify-write; the clock read at acquisition that the hold
//! needs is the other cost (see [`crate::hold::WATCHED`]). A waiter adds one to the count
//! of each mode that can make it wait, on its slow path, before it blocks.
//!
//! The count is per site, not per lock: a wait on one lock of a site also times the
//! holds of its other locks that end meanwhile (each timed hold stands for itself, so
//! sums stay estimates of the same totals). The load before `try_lock` means that any
//! waiter that found this hold's lock taken counted its wait after it; on a
//! weakly-ordered CPU a waiter that begins to wait just as the hold ends may be seen
//! late, and that hold is then sampled as any other.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use hotpath_core::{CallSite, MAX_SITES};

use crate::{LockSite, Mode};

/// Waits begun, per call-site number of a lock mode (wrapping).
static BEGUN: [AtomicU32; MAX_SITES + 1] = [const { AtomicU32::new(0) }; MAX_SITES + 1];

// Call-site numbers are at most `MAX_SITES`, all ones: masking a number with it is the
// identity, and indexes `BEGUN` without a bounds check.
const _: () = assert!((MAX_SITES + 1).is_power_of_two());

/// The entry of the mode's call site numbered `id`.
#[inline(always)]
fn count(id: u32) -> &'static AtomicU32 {
    &BEGUN[id as usize & MAX_SITES]
}

/// The count of waits begun on the mode's call site numbered `id` so far.
#[inline(always)]
pub(crate) fn seen(id: u32) -> u32 {
    count(id).load(Relaxed)
}

/// Whether a wait began on the mode numbered `id` since [`seen`] gave `before`.
#[inline(always)]
pub(crate) fn since(id: u32, before: u32) -> bool {
    seen(id) != before
}

/// The modes whose holds can make an acquisition of `mode` wait: a write waits for
/// every mode; a read or an upgradable read for writes and upgradable reads (readers
/// share).
fn blockers(mode: Mode) -> &'static [Mode] {
    match mode {
        Mode::Write => &[Mode::Write, Mode::Read, Mode::Upgradable],
        Mode::Read | Mode::Upgradable => &[Mode::Write, Mode::Upgradable],
    }
}

/// An acquisition of `mode` on a lock of `lock` found it taken and is about to wait:
/// the holds of the modes that can make it wait, and are in use, are timed when they
/// end. A mode not yet numbered has no hold to time (its first acquisition numbers it,
/// and a site's first ones are all timed).
#[cold]
pub(crate) fn begin_wait(lock: &'static LockSite, mode: Mode) {
    for &m in blockers(mode) {
        let site: &CallSite = lock.mode(m);
        if let Some(id) = site.assigned_id() {
            count(id).fetch_add(1, Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LockKind;

    #[test]
    fn a_write_waits_for_every_mode_a_read_for_writes_and_upgradables() {
        assert_eq!(
            blockers(Mode::Write),
            &[Mode::Write, Mode::Read, Mode::Upgradable]
        );
        assert_eq!(blockers(Mode::Read), &[Mode::Write, Mode::Upgradable]);
        assert_eq!(blockers(Mode::Upgradable), &[Mode::Write, Mode::Upgradable]);
    }

    #[test]
    fn a_wait_moves_the_count_of_the_modes_that_block_it_and_are_numbered() {
        static SITE: LockSite = LockSite::new("b:1", None, "b", 1, LockKind::RwLock);
        let write = SITE.mode(Mode::Write).id();
        let read = SITE.mode(Mode::Read).id();
        assert_eq!(SITE.mode(Mode::Upgradable).assigned_id(), None);
        let (w0, r0) = (seen(write), seen(read));
        // A read waits for the write hold: the write count moves, not the read one.
        begin_wait(&SITE, Mode::Read);
        assert!(since(write, w0));
        assert!(!since(read, r0));
        // A write waits for both; the upgradable mode, never used, stays unnumbered.
        begin_wait(&SITE, Mode::Write);
        assert_eq!((seen(write), seen(read)), (w0 + 2, r0 + 1));
        assert_eq!(SITE.mode(Mode::Upgradable).assigned_id(), None);
    }

    #[test]
    fn every_site_number_has_its_own_count() {
        assert!(std::ptr::eq(count(0), &BEGUN[0]));
        assert!(std::ptr::eq(count(MAX_SITES as u32), &BEGUN[MAX_SITES]));
        assert_eq!(MAX_SITES, (1 << 14) - 1);
    }
}
