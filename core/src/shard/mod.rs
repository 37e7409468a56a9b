//! Per-thread shards: the aggregation state of one thread, made of parts that each know
//! one thing and nothing of the shard:
//!
//! * [`stack`]: the scope stack (frames of the measured scopes running), and the calls
//!   running now;
//! * [`slots`]: one [`Slot`] per call-site id, in chunks found through a directory;
//! * [`sampling`]: the countdowns to the next timed event and their generator;
//! * [`holders`]: the (operation site, function) pairs;
//! * the calling-context tree ([`crate::stacks`]) and the trace ring
//!   ([`crate::trace`]), each behind a pointer set on first use; [`paths`] gives a
//!   pushed frame its node of the tree.
//!
//! The [`Shard`] composes them, keeps its copy of the global state's key
//! ([`crate::state`]) and what needs several parts at once: catching up with a new
//! session ([`Shard::sync`]), forgetting a frame, crediting a CPU sample, retiring. Which
//! thread owns which shard (and the thread-local that finds it) is the registry's
//! ([`crate::registry`]).
//!
//! # Safety invariants
//!
//! * A shard has one writer, the thread it is assigned to (the *owner*). Every field is
//!   an atomic so that snapshots can read it from another thread; the owner updates with
//!   a relaxed load and store, never a read-modify-write (the one exception, a frame
//!   marked dead by another thread, is the stack's: see [`stack`]).
//! * Shards are never freed: the registry retires a shard when its thread exits and
//!   hands it to the next new thread. What is freed at retirement is the slot memory
//!   ([`Shard::release_memory`]: chunks, sub-directories, the holder table), under the
//!   invariants of [`slots`] and [`holders`].
//! * Data belongs to an epoch ([`crate::state::epoch`]). A new session makes every
//!   shard's numbers stale; the owner clears them on its next call, snapshots skip stale
//!   shards.

pub(crate) mod holders;
pub(crate) mod paths;
pub(crate) mod sampling;
pub(crate) mod slots;
pub(crate) mod stack;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::cell::Cnt;
use crate::meter::{Delta, DeltaCells};
use crate::slot::{Merged, Slot};
use crate::stacks::{CtxRef, ThreadTree};
use crate::state;
use crate::trace::ring::ThreadRing;

use holders::Holders;
use sampling::Sampling;
use slots::Slots;
use stack::{Stack, DEAD};

/// The aggregation state of one thread.
///
/// `repr(C)`, stack first: the per-call path addresses an inline frame from the shard's
/// own address, without an offset to add.
#[repr(C)]
pub struct Shard {
    /// The scope stack.
    pub(crate) stack: Stack,
    /// The slots, by call-site id.
    pub(crate) slots: Slots,
    /// The session whose numbers the shard holds.
    pub(crate) epoch: AtomicU64,
    /// The global key when this shard last synchronised with the global state.
    pub(crate) synced: Cnt,
    /// The global key while every call is timed on the TSC, else 0.
    pub(crate) key: Cnt,
    /// The global key while calls are sampled (or only counted) on the TSC, else 0.
    pub(crate) sample_key: Cnt,
    /// The global key while every call is timed on the TSC with the stacks or the trace
    /// on, else 0.
    pub(crate) extra_key: Cnt,
    /// The global key while an overhead budget sets each site's period on the TSC
    /// without extras ([`crate::budget`]), else 0.
    pub(crate) budget_key: Cnt,
    /// `stacks::{STACKS, TRACE}` as they were at the last sync.
    pub(crate) extra_bits: Cnt,
    /// The calling-context tree ([`crate::stacks`]).
    pub(crate) tree: ThreadTree,
    /// The trace ring ([`crate::trace`]).
    pub(crate) ring: ThreadRing,
    /// Countdowns to the next timed event, per kind.
    pub(crate) sampling: Sampling,
    /// Wrapped operations in progress on this thread (a wrapped stream under a wrapped
    /// buffer or codec nests): only the outermost is charged to the function.
    pub(crate) op_nest: Cnt,
    /// The (operation site, function) pairs of this thread.
    pub(crate) holders: Holders,
    /// Calls that ran deeper than [`stack::MAX_DEPTH`] (no frame of their own).
    pub(crate) deep_calls: Cnt,
    /// What the meters counted inside outermost frames (depth 0): the attributed part
    /// of this thread's totals.
    pub(crate) top: DeltaCells,
    /// CPU samples taken on this thread, and those outside every measured scope.
    #[cfg(feature = "cpu")]
    pub(crate) samples: Cnt,
    #[cfg(feature = "cpu")]
    pub(crate) samples_outside: Cnt,
    /// The epoch in which the thread-start hook last ran.
    #[cfg(feature = "cpu")]
    armed_epoch: AtomicU64,
    /// 1: this thread's scopes read the CPU clock though the mode is sampled (it cannot
    /// be sampled, [`crate::meter::cpu::this_thread_unsampled`]); until the next session.
    pub(crate) cpu_clock: Cnt,
}

impl Shard {
    pub(crate) const fn new(epoch: u64) -> Self {
        Shard {
            stack: Stack::new(),
            slots: Slots::new(),
            epoch: AtomicU64::new(epoch),
            synced: Cnt::new(),
            key: Cnt::new(),
            sample_key: Cnt::new(),
            extra_key: Cnt::new(),
            budget_key: Cnt::new(),
            extra_bits: Cnt::new(),
            tree: ThreadTree::new(),
            ring: ThreadRing::new(),
            sampling: Sampling::new(),
            op_nest: Cnt::new(),
            holders: Holders::new(),
            deep_calls: Cnt::new(),
            top: DeltaCells::new(),
            #[cfg(feature = "cpu")]
            samples: Cnt::new(),
            #[cfg(feature = "cpu")]
            samples_outside: Cnt::new(),
            #[cfg(feature = "cpu")]
            armed_epoch: AtomicU64::new(0),
            cpu_clock: Cnt::new(),
        }
    }

    /// Whether this thread's scopes read the CPU clock (exact mode, or a thread that
    /// cannot be sampled).
    #[inline(always)]
    pub(crate) fn exact_cpu(&self) -> bool {
        state::exact_cpu() || self.cpu_clock.get() != 0
    }

    /// From now on (this session) this thread's scopes read the CPU clock: never the
    /// inline paths, which do not (owner only).
    #[cfg_attr(not(feature = "cpu"), allow(dead_code))]
    pub(crate) fn read_cpu_clock(&self) {
        self.cpu_clock.set(1);
        self.key.set(0);
        self.sample_key.set(0);
        self.extra_key.set(0);
        self.budget_key.set(0);
    }

    /// A new shard on the heap (never built on the stack).
    pub(crate) fn boxed() -> Box<Shard> {
        // SAFETY: `Shard::new(0)` is all zero bytes (checked by a test below).
        unsafe { crate::zeroed::boxed() }
    }

    /// Prepares a shard for a new owner thread with serial number `serial`.
    pub(crate) fn assign(&self, serial: u64) {
        self.stack.assign(serial);
        self.sampling.assign(serial);
        self.epoch.store(state::epoch(), Relaxed);
        self.desync();
    }

    /// Starts the sampling generator again (the seed changed), on the owner thread.
    pub(crate) fn reseed(&self) {
        self.sampling.restart();
        self.desync();
    }

    /// Sends the owner's next call through the slow path, which synchronises (and draws
    /// the sampling gaps).
    fn desync(&self) {
        self.synced.set(0);
        self.key.set(0);
        self.sample_key.set(0);
        self.extra_key.set(0);
    }

    /// Catches up with the global state: clears numbers of an older epoch (and, with a
    /// sampling seed fixed, starts the generator again from it), takes the current keys,
    /// draws new sampling gaps.
    pub(crate) fn sync(&self) {
        let epoch = state::epoch();
        if self.epoch.load(Relaxed) != epoch {
            self.reset_stats();
            self.epoch.store(epoch, Relaxed);
            self.cpu_clock.set(0);
            if sampling::seeded() {
                self.sampling.restart();
            }
        }
        let key = state::key();
        self.synced.set(key);
        let (every, tsc, extras) = state::key_parts(key);
        // The inline paths read no CPU clock: not for a thread that must.
        let inline = self.cpu_clock.get() == 0;
        self.key.set(if tsc && every && !extras && inline {
            key
        } else {
            0
        });
        let budget = state::key_budget(key);
        self.budget_key.set(
            if tsc && budget && !extras && !state::exact_cpu() && inline {
                key
            } else {
                0
            },
        );
        self.sample_key.set(
            if tsc && !every && !budget && !extras && !state::exact_cpu() && inline {
                key
            } else {
                0
            },
        );
        self.extra_key.set(if tsc && every && extras && inline {
            key
        } else {
            0
        });
        self.extra_bits.set(crate::stacks::bits());
        if extras {
            // Frames pushed before the stacks came on hold no node, or a stale one
            // (plain pushes leave `ctx` as it was): they get theirs again when needed.
            self.stack.forget_ctx();
        }
        self.sampling.draw_all();
        #[cfg(feature = "cpu")]
        if self.armed_epoch.swap(epoch, Relaxed) != epoch {
            crate::meter::cpu::clock::thread_started();
        }
    }

    /// The slot of call site `id`, allocating its chunk on first use (owner only);
    /// `None` only for an id no shard can address (never given by
    /// [`crate::CallSite::id`]).
    ///
    /// The allocation is a cold call of the shard's, not of the slots': the usual path
    /// then needs no address but the shard's. Called from `Slots`, it kept the address
    /// of the slots in a register on the usual path too, and laid out as a lookup
    /// followed by an allocation it moved blocks around: one or two instructions more
    /// per measured call under `callgrind`.
    #[inline(always)]
    pub(crate) fn slot(&'static self, id: u32) -> Option<&'static Slot> {
        self.slots.get_or(id, |id| self.new_chunk(id))
    }

    #[cold]
    #[inline(never)]
    fn new_chunk(&'static self, id: u32) -> Option<&'static slots::Chunk> {
        // What `malloc` does depends on the heap, which the profiler's other threads
        // and the environment change: first-use work (`crate::hook::set_cold_hook`).
        crate::hook::cold::cold(|| self.slots.insert(id))
    }

    /// The extras of a frame being pushed at `depth < MAX_DEPTH` for `site` (see
    /// [`paths`]): on the path of a future's first poll when `inherit` is one.
    #[inline(always)]
    pub(crate) fn enter_extras(&self, depth: usize, site: u32, inherit: Option<CtxRef>) -> u32 {
        match inherit {
            None => paths::enter_fast(&self.stack, &self.tree, self.extra_bits.get(), depth, site),
            Some(path) => paths::enter_on(&self.stack, &self.tree, depth, site, path),
        }
    }

    /// Pops frames marked [`DEAD`] from the top of the stack; returns the new depth.
    #[cold]
    #[inline(never)]
    pub(crate) fn pop_dead(&'static self, mut depth: usize) -> usize {
        while depth > 0
            && depth <= stack::MAX_DEPTH
            && self
                .stack
                .frame(depth - 1)
                .is_some_and(|f| f.seq.load(Relaxed) == DEAD)
        {
            depth -= 1;
            self.discard_frame(depth);
        }
        self.stack.depth.store(depth as u32, Relaxed);
        depth
    }

    /// Forgets frame `i` (its guard is gone or suspended elsewhere).
    pub(crate) fn discard_frame(&'static self, i: usize) {
        if let Some(f) = self.stack.frame(i) {
            let site = f.site.load(Relaxed);
            if let Some(slot) = self.slot(site) {
                slot.leave();
            }
        }
    }

    /// Forgets the numbers (a new session, or the owner thread exited).
    pub(crate) fn reset_stats(&self) {
        for (_, s) in self.slots.iter() {
            s.clear_stats();
        }
        self.holders.clear();
        self.deep_calls.set(0);
        self.top.set(Delta::default());
        if let Some(t) = self.tree.get() {
            t.reset();
            self.stack.forget_ctx();
        }
        self.ring.reset();
        #[cfg(feature = "cpu")]
        {
            self.samples.set(0);
            self.samples_outside.set(0);
        }
    }

    /// Forgets the stack: every frame, and every slot's count of frames on it.
    pub(crate) fn reset_stack(&self) {
        for (_, s) in self.slots.iter() {
            s.reset_active();
        }
        self.stack.depth.store(0, Relaxed);
    }

    /// Frees the slot memory of a retired shard: chunks and their distributions,
    /// sub-directories, the holder table. Call with the registry lock held, after the
    /// numbers were merged, when no thread owns the shard.
    pub(crate) fn release_memory(&self) {
        crate::internal(|| {
            self.holders.release();
            self.slots.release();
        })
    }

    /// Adds this shard's slots to `out`, indexed by site id.
    pub(crate) fn merge_into(&self, out: &mut Vec<Option<Merged>>) {
        self.slots.merge_into(out);
    }

    /// One CPU sample on this (the calling) thread, from its sampling signal handler:
    /// one period to every distinct site on the stack, and to the one on top (its self
    /// samples) and its path. Reads only the stack and slots that exist: allocates
    /// nothing, takes no lock.
    #[cfg(feature = "cpu")]
    pub(crate) fn credit_sample(&'static self) {
        let seq = self.samples.get() + 1;
        self.samples.set(seq);
        let mut top = None;
        let mut ctx = 0;
        for f in self.stack.frames() {
            if f.seq.load(Relaxed) == DEAD {
                continue;
            }
            // Never allocates (a signal handler): no slot if its chunk does not exist.
            if let Some(slot) = self.slots.get_or(f.site.load(Relaxed), |_| None) {
                slot.meters.cpu.sampled(seq);
                top = Some(slot);
                ctx = f.ctx.load(Relaxed);
            }
        }
        match top {
            Some(slot) => slot.meters.cpu.self_sampled(),
            None => self.samples_outside.add(1),
        }
        // The path on top: its tree exists (the frame got its node from it).
        if ctx != 0 {
            if let Some(t) = self.tree.get() {
                t.sample(ctx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the value `T::new()` (given as a constant, so that it is written from
    /// constant data and not from a stack temporary whose padding holds whatever was on
    /// the stack) has only zero bytes.
    fn is_zero<T>(value: &'static T) -> bool {
        // SAFETY: reading `size_of::<T>()` bytes of a constant: its padding bytes come
        // from constant data (zero), its fields are atomics, counters and pointers.
        let bytes = unsafe {
            std::slice::from_raw_parts(value as *const T as *const u8, std::mem::size_of::<T>())
        };
        bytes.iter().all(|b| *b == 0)
    }

    #[test]
    fn the_memory_allocated_zeroed_is_the_empty_value() {
        static SLOT: Slot = Slot::new();
        static FRAME: stack::Frame = stack::Frame::new();
        static SHARD: Shard = Shard::new(0);
        assert!(is_zero(&SLOT));
        assert!(is_zero(&FRAME));
        assert!(is_zero(&SHARD));
    }

    #[test]
    fn a_shard_is_small_until_used() {
        // The inline frames, the directory, the counters: a few KiB, not 20.
        assert!(
            std::mem::size_of::<Shard>() < 4096,
            "{}",
            std::mem::size_of::<Shard>()
        );
    }
}
