//! How an instance knows its queue depth, and the two counters that give it for the
//! backends without `len()`: sends, counted by the senders before the push, and
//! receives, counted by the one receiver after the pop. Each on cache lines of its own.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use hotpath_core::op::Here;

/// How an instance knows its queue depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Depth {
    /// From the backend's `len()`, read after each successful send.
    Len,
    /// From the instance's counters: sends (counted before the push, by any sender) minus
    /// receives (counted by the one receiver). The first thread to send owns a counter of
    /// its own, written with a plain load and store; other threads add to a shared one.
    Counters,
    /// Not tracked (watch: one value, always there).
    One,
}

/// The senders' counters, on cache lines of their own so that senders and the receiver
/// do not share one. Sends = `owned + shared` (wrapping: a send counted by its owner and
/// taken back on another thread is taken from `shared`).
#[repr(align(128))]
#[derive(Debug, Default)]
pub(crate) struct Senders {
    /// The thread that owns `owned` ([`Here::id`]; 0 until the first counted send).
    pub(crate) owner: AtomicUsize,
    /// Sends counted by the owner thread: its single writer, no read-modify-write.
    pub(crate) owned: AtomicU64,
    /// Sends counted by any other thread.
    pub(crate) shared: AtomicU64,
    /// Senders' copy of the receive counter, refreshed only when the depth it gives
    /// could be a new maximum.
    pub(crate) seen: AtomicU64,
}

impl Senders {
    /// Sends counted so far.
    #[inline(always)]
    pub(crate) fn total(&self) -> u64 {
        self.owned
            .load(Relaxed)
            .wrapping_add(self.shared.load(Relaxed))
    }

    /// Counts one send made on thread `here`; says whether the owner's counter took it.
    #[inline(always)]
    pub(crate) fn add(&self, here: Option<Here>) -> bool {
        if let Some(h) = here {
            let me = h.id();
            let owner = self.owner.load(Relaxed);
            if owner == me
                || (owner == 0 && self.owner.compare_exchange(0, me, Relaxed, Relaxed).is_ok())
            {
                self.owned
                    .store(self.owned.load(Relaxed).wrapping_add(1), Relaxed);
                return true;
            }
        }
        self.shared.fetch_add(1, Relaxed);
        false
    }

    /// Takes back one send counted by [`Senders::add`] (`owned`: by the owner's
    /// counter), on whichever thread runs now.
    pub(crate) fn sub(&self, owned: bool) {
        if owned {
            if let Some(h) = Here::get() {
                if self.owner.load(Relaxed) == h.id() {
                    self.owned
                        .store(self.owned.load(Relaxed).wrapping_sub(1), Relaxed);
                    return;
                }
            }
        }
        self.shared.fetch_sub(1, Relaxed);
    }
}

/// The receive counter, on its own cache lines.
#[repr(align(128))]
#[derive(Debug, Default)]
pub(crate) struct Line {
    pub(crate) v: AtomicU64,
}
