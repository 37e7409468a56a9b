//! A thread's holder table ([`crate::holders`]): allocated on its first use, freed when
//! the shard is retired.
//!
//! # Safety invariants
//!
//! * Only the owner thread allocates the table and stores its pointer (`Release`, after
//!   the table exists); the owner reads it with a relaxed load, readers on other
//!   threads with `Acquire`, under the registry lock.
//! * The table is freed only by [`Holders::release`], when the shard is retired: with
//!   the registry lock held (no reader), the owner thread gone, and the pointer swapped
//!   to null before the table is dropped.

use std::sync::atomic::{
    AtomicPtr,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};

use crate::holders::{Holder, HolderMap, HolderTable};

/// The (operation site, function) pairs of one thread: null until first used.
pub(crate) struct Holders(AtomicPtr<HolderTable>);

impl Holders {
    pub(crate) const fn new() -> Self {
        Holders(AtomicPtr::new(std::ptr::null_mut()))
    }

    /// The entry of (`site`, `function`), allocating the table on first use (owner
    /// only); `None` when the pair finds no place (see [`crate::holders`]).
    #[inline(always)]
    pub(crate) fn entry(&'static self, site: u32, function: u32) -> Option<&'static Holder> {
        let p = self.0.load(Relaxed);
        let table: &'static HolderTable = if p.is_null() {
            self.new_table()
        } else {
            // SAFETY: a non-null pointer came from `Box::into_raw` in `new_table` and is
            // freed only by `release`, when no thread owns the shard. Only the owner
            // thread calls `entry` and it stored the pointer, so a relaxed load sees the
            // initialised table.
            unsafe { &*p }
        };
        table.entry(site, function)
    }

    #[cold]
    #[inline(never)]
    fn new_table(&'static self) -> &'static HolderTable {
        let t = Box::into_raw(crate::internal(HolderTable::boxed));
        self.0.store(t, Release);
        // SAFETY: just allocated; freed only by `release`.
        unsafe { &*t }
    }

    /// The table as a reader on another thread sees it (under the registry lock, so it
    /// is not freed meanwhile).
    fn for_reader(&self) -> Option<&HolderTable> {
        let p = self.0.load(Acquire);
        // SAFETY: as in `entry`; the `Acquire` load pairs with the `Release` store in
        // `new_table`, so the table's initialisation is visible here.
        (!p.is_null()).then(|| unsafe { &*p })
    }

    /// Adds this thread's pairs to `out`.
    pub(crate) fn merge_into(&self, out: &mut HolderMap) {
        if let Some(t) = self.for_reader() {
            t.merge_into(out);
        }
    }

    /// Forgets the numbers (a new session), keeping the table.
    pub(crate) fn clear(&self) {
        if let Some(t) = self.for_reader() {
            t.clear();
        }
    }

    /// Frees the table of a retired shard: see the module's invariants.
    pub(crate) fn release(&self) {
        let t = self.0.swap(std::ptr::null_mut(), AcqRel);
        if !t.is_null() {
            // SAFETY: from `Box::into_raw` in `new_table`, now unreachable.
            drop(unsafe { Box::from_raw(t) });
        }
    }
}
