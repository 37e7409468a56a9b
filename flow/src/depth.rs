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

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(s: &Senders) -> (u64, u64, u64) {
        (s.owned.load(Relaxed), s.shared.load(Relaxed), s.total())
    }

    #[test]
    fn the_first_thread_to_send_owns_a_counter_of_its_own() {
        let s = Senders::default();
        let here = Here::get().expect("a test thread has a shard");
        assert!(s.add(Some(here)));
        assert!(s.add(Some(here)));
        assert_eq!(s.owner.load(Relaxed), here.id());
        assert_eq!(counts(&s), (2, 0, 2));
    }

    #[test]
    fn other_threads_and_threads_without_a_shard_add_to_the_shared_counter() {
        let s = Senders::default();
        assert!(Here::get().is_some_and(|h| s.add(Some(h))));
        std::thread::scope(|t| {
            t.spawn(|| assert!(!s.add(Here::get())));
        });
        assert!(!s.add(None));
        assert_eq!(counts(&s), (1, 2, 3));
    }

    #[test]
    fn a_send_taken_back_leaves_the_counter_that_took_it() {
        let s = Senders::default();
        let owned = s.add(Here::get());
        let shared = s.add(None);
        assert_eq!((owned, shared), (true, false));
        s.sub(owned);
        assert_eq!(counts(&s), (0, 1, 1));
        s.sub(shared);
        assert_eq!(counts(&s), (0, 0, 0));
    }

    #[test]
    fn an_owned_send_taken_back_on_another_thread_wraps_the_shared_counter() {
        let s = Senders::default();
        let owned = s.add(Here::get());
        std::thread::scope(|t| {
            t.spawn(|| s.sub(owned));
        });
        // `owned` still counts the send; `shared` went below zero: the total is right.
        assert_eq!(counts(&s), (1, u64::MAX, 0));
        assert!(s.add(Here::get()));
        assert_eq!(s.total(), 1);
    }
}
