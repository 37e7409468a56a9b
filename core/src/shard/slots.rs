//! A thread's slots: one [`Slot`] per call-site id, in chunks of [`CHUNK`] allocated on
//! first use, found through a two-level directory.
//!
//! The chunks of the first `SUB * CHUNK` ids (most programs have no more call sites) are
//! one load away; the others are reached through sub-directories of [`SUB`] chunks. The
//! directory addresses every id a call site can be given ([`crate::site::IDS`]).
//!
//! # Safety invariants
//!
//! * Only the owner thread allocates a chunk or a sub-directory and stores its pointer
//!   (`Release`, after the zeroed memory exists); only the owner reads one with a relaxed
//!   load, and readers on other threads load it with `Acquire`.
//! * Chunks and sub-directories are freed only by [`Slots::release`], when the shard is
//!   retired: with the registry lock held (so no snapshot reads them), the owner thread
//!   gone, and every pointer swapped to null (unreachable) before what it pointed to is
//!   dropped. Guards never reach a slot of a shard through an older assignment (a guard
//!   whose frame's `seq` no longer matches looks its slot up again).

use std::sync::atomic::{
    AtomicPtr,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};

use crate::slot::{Merged, Slot};

/// Call-site slots per chunk.
pub(crate) const CHUNK: usize = 4;
/// Chunks per sub-directory.
pub(crate) const SUB: usize = 64;
/// Sub-directories: enough for every id.
const TOP: usize = crate::site::IDS / (SUB * CHUNK);
const _: () = assert!(
    TOP * SUB * CHUNK == crate::site::IDS,
    "every id has a place"
);
/// Ids whose chunks are reached directly (the others through `dir`).
const DIRECT: usize = SUB * CHUNK;

/// The slots of `CHUNK` consecutive ids.
pub(crate) struct Chunk {
    slots: [Slot; CHUNK],
}

struct SubDir {
    chunks: [AtomicPtr<Chunk>; SUB],
}

/// The slots of one thread, by call-site id.
pub(crate) struct Slots {
    /// The chunks of the first `SUB * CHUNK` ids, one load away: allocated on first use
    /// (null until then), freed when the shard is retired.
    direct: [AtomicPtr<Chunk>; SUB],
    /// Sub-directories of chunks of the ids beyond (entry 0 unused: those are `direct`),
    /// likewise.
    dir: [AtomicPtr<SubDir>; TOP],
}

impl Slots {
    pub(crate) const fn new() -> Self {
        Slots {
            direct: [const { AtomicPtr::new(std::ptr::null_mut()) }; SUB],
            dir: [const { AtomicPtr::new(std::ptr::null_mut()) }; TOP],
        }
    }

    /// The slot of call site `id`; when its chunk does not exist yet, `insert(id)`
    /// makes it (the owner's per-call path: the shard's cold call to [`Slots::insert`]),
    /// or says there is none (the CPU-sampling signal handler, which never allocates).
    ///
    /// The ids below `DIRECT` whose chunk exists are one load away; the others take the
    /// directory, inline: out of line it cost a call on every use of a site numbered
    /// beyond 512 (`callgrind`, count-only mode: 77 instructions a call against 68
    /// inline).
    #[inline(always)]
    pub(crate) fn get_or(
        &'static self,
        id: u32,
        insert: impl FnOnce(u32) -> Option<&'static Chunk>,
    ) -> Option<&'static Slot> {
        let i = id as usize;
        let p = match self.direct.get(i / CHUNK) {
            Some(p) => p.load(Relaxed),
            None => std::ptr::null_mut(),
        };
        let chunk: &'static Chunk = if p.is_null() {
            self.chunk_far(id, insert)?
        } else {
            // SAFETY: a non-null chunk pointer came from `zeroed::boxed` in `insert` and
            // is freed only by `release`, when no thread owns the shard. Only the owner
            // looks it up and it stored the pointer, so a relaxed load sees the chunk
            // initialised.
            unsafe { &*p }
        };
        Some(&chunk.slots[i % CHUNK])
    }

    /// The chunk of an id beyond `DIRECT`, or of one whose chunk does not exist yet
    /// (`insert`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    fn chunk_far(
        &'static self,
        id: u32,
        insert: impl FnOnce(u32) -> Option<&'static Chunk>,
    ) -> Option<&'static Chunk> {
        let i = id as usize;
        if i >= DIRECT {
            let sub = self.dir.get(i / DIRECT)?.load(Relaxed);
            if !sub.is_null() {
                // SAFETY: a non-null directory entry came from `zeroed::boxed` in
                // `insert` and is freed only by `release`, when no thread owns the shard.
                // Only the owner looks it up and it stored the pointer, so a relaxed load
                // sees it initialised.
                let p = unsafe { &*sub }.chunks[(i / CHUNK) % SUB].load(Relaxed);
                if !p.is_null() {
                    // SAFETY: as above, for the chunk.
                    return Some(unsafe { &*p });
                }
            }
        }
        insert(id)
    }

    /// The chunk of call site `id`, which does not exist yet: allocated now, with its
    /// sub-directory if needed (owner only); `None` only for an id no shard can address
    /// (never given by [`crate::CallSite::id`]).
    pub(crate) fn insert(&'static self, id: u32) -> Option<&'static Chunk> {
        let id = id as usize;
        let entry = if id < DIRECT {
            &self.direct[id / CHUNK]
        } else {
            let top = self.dir.get(id / DIRECT)?;
            let mut sub = top.load(Relaxed);
            if sub.is_null() {
                // SAFETY: a `SubDir` is null pointers, valid when all zero.
                let b: Box<SubDir> = crate::internal(|| unsafe { crate::zeroed::boxed() });
                sub = Box::into_raw(b);
                top.store(sub, Release);
            }
            // SAFETY: `sub` is this shard's live sub-directory (just loaded or stored by
            // this, the owner thread).
            &unsafe { &*sub }.chunks[(id / CHUNK) % SUB]
        };
        // SAFETY: a `Chunk` is slots of atomics and null pointers, valid when all zero.
        let b: Box<Chunk> = crate::internal(|| unsafe { crate::zeroed::boxed() });
        let p = Box::into_raw(b);
        entry.store(p, Release);
        // SAFETY: `p` is this shard's live chunk, freed only by `release`.
        Some(unsafe { &*p })
    }

    /// The chunks as a reader on another thread sees them, with the id of their first
    /// slot (under the registry lock, so none is freed meanwhile).
    fn chunks_for_reader(&self) -> impl Iterator<Item = (usize, &Chunk)> {
        let direct = self.direct.iter().enumerate().filter_map(|(c, p)| {
            let p = p.load(Acquire);
            // SAFETY: as in `get`; the `Acquire` load pairs with the `Release` store in
            // `insert`, and the registry lock keeps `release` away.
            (!p.is_null()).then(|| (c * CHUNK, unsafe { &*p }))
        });
        direct.chain(self.dir.iter().enumerate().skip(1).flat_map(|(t, sub)| {
            let sub = sub.load(Acquire);
            // SAFETY: as in `get`; the `Acquire` load pairs with the `Release` store in
            // `insert`, so the initialisation is visible, and the registry lock keeps
            // `release` from freeing it while the caller reads.
            let sub: Option<&SubDir> = (!sub.is_null()).then(|| unsafe { &*sub });
            sub.into_iter().flat_map(move |sub| {
                sub.chunks.iter().enumerate().filter_map(move |(c, p)| {
                    let p = p.load(Acquire);
                    // SAFETY: as above, for the chunk.
                    (!p.is_null()).then(|| ((t * SUB + c) * CHUNK, unsafe { &*p }))
                })
            })
        }))
    }

    /// Every slot that has a chunk, with its site id.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, &Slot)> {
        self.chunks_for_reader().flat_map(|(first, ch)| {
            ch.slots
                .iter()
                .enumerate()
                .map(move |(i, s)| ((first + i) as u32, s))
        })
    }

    /// Adds the slots that recorded something to `out`, indexed by site id.
    pub(crate) fn merge_into(&self, out: &mut Vec<Option<Merged>>) {
        for (id, s) in self.iter() {
            if !s.is_used() {
                continue;
            }
            let i = id as usize;
            if out.len() <= i {
                out.resize_with(i + 1, || None);
            }
            s.merge_into(out[i].get_or_insert_with(Merged::default));
        }
    }

    /// Frees the chunks and sub-directories (and the chunks' distributions) of a
    /// retired shard: see the module's invariants. Each pointer is made null before its
    /// target is dropped.
    pub(crate) fn release(&self) {
        for entry in &self.direct {
            let p = entry.swap(std::ptr::null_mut(), AcqRel);
            if !p.is_null() {
                // SAFETY: from `Box::into_raw` in `insert`, now unreachable.
                drop(unsafe { Box::from_raw(p) });
            }
        }
        for top in &self.dir {
            let sub = top.swap(std::ptr::null_mut(), AcqRel);
            if sub.is_null() {
                continue;
            }
            // SAFETY: the pointer came from `Box::into_raw` in `insert` and is now
            // unreachable from the shard: this is its only owner.
            let sub = unsafe { Box::from_raw(sub) };
            for entry in &sub.chunks {
                let p = entry.swap(std::ptr::null_mut(), AcqRel);
                if !p.is_null() {
                    // SAFETY: as above, for the chunk. Dropping it drops its
                    // distributions' histograms.
                    drop(unsafe { Box::from_raw(p) });
                }
            }
        }
    }
}
