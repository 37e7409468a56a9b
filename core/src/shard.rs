//! Per-thread shards: the aggregation state of one thread (its call-site slots, its scope
//! stack, its sampling countdowns).
//!
//! # Concurrency invariants
//!
//! * A shard has one writer, the thread it is assigned to (the *owner*). Every field is
//!   an atomic so that snapshots can read it from another thread; the owner updates with
//!   a relaxed load and store, never a read-modify-write.
//! * One exception: another thread may compare-and-swap a frame's `seq` to [`DEAD`] when
//!   a guard pushed by the owner is dropped on that other thread. The owner only ever
//!   stores a fresh, globally unique `seq` into a frame it pushes, so that CAS succeeds
//!   only while the frame it names is still the one it pushed.
//! * Shards and their frame segments are never freed (a guard dropped on another thread
//!   may still compare-and-swap a frame of a shard whose thread has exited): the
//!   [`registry`](crate::registry) retires a shard when its thread exits and hands it to
//!   the next new thread. What is freed at retirement is the slot memory: sub-directories,
//!   chunks and their histograms, the holder table ([`Shard::release_memory`]). The registry lock is held
//!   meanwhile, so no snapshot reads them; the owner thread is gone; every pointer is
//!   swapped to null (unreachable) before what it pointed to is dropped; and guards
//!   never reach a slot of a shard through an older assignment (a guard whose frame's
//!   `seq` no longer matches looks its slot up again).
//! * Memory of a live thread is small until used: the first [`INLINE_FRAMES`] frames are
//!   inline, deeper ones in segments of [`SEGMENT`] allocated on first use; slots live in
//!   chunks of [`CHUNK`], reached through a sub-directory of [`SUB`] chunks.
//! * Data belongs to an epoch ([`crate::state::epoch`]). A new session makes every
//!   shard's numbers stale; the owner clears them on its next call, snapshots skip stale
//!   shards.

use std::cell::Cell;
use std::sync::atomic::{
    AtomicPtr, AtomicU32, AtomicU64,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};

use crate::cell::Cnt;
use crate::holders::{Holder, HolderMap, HolderTable};
use crate::meter::{ChildCells, Delta, DeltaCells};
use crate::slot::{Merged, Slot};
use crate::state::{self, Sampler};

/// Call-site slots per chunk.
pub(crate) const CHUNK: usize = 8;
/// Chunks per sub-directory.
pub(crate) const SUB: usize = 64;
/// Sub-directories per shard.
pub(crate) const TOP: usize = 32;
/// Slots a shard can address: one per call-site id.
pub(crate) const SLOTS: usize = TOP * SUB * CHUNK;
/// Ids whose chunks the shard points to directly (the others through `dir`).
const DIRECT: usize = SUB * CHUNK;
/// Frames held in the shard itself.
pub(crate) const INLINE_FRAMES: usize = 16;
/// Frames per segment beyond those.
pub(crate) const SEGMENT: usize = 16;
const SEGMENTS: usize = (MAX_DEPTH - INLINE_FRAMES) / SEGMENT;
/// Deepest nesting of measured scopes tracked per thread. Deeper scopes are still
/// counted and timed (inclusive); their self time is counted in the scope at this depth,
/// the deepest with a frame, so that self never exceeds total and self times still add
/// up to the run.
pub const MAX_DEPTH: usize = 512;
/// `seq` of a frame whose guard was dropped on another thread.
pub(crate) const DEAD: u64 = u64::MAX;

/// The calling thread's shard, if it has one (no creation, no synchronisation).
#[inline(always)]
pub(crate) fn current_raw() -> Option<&'static Shard> {
    CURRENT.try_with(Cell::get).ok().flatten()
}

struct Chunk {
    slots: [Slot; CHUNK],
}

struct SubDir {
    chunks: [AtomicPtr<Chunk>; SUB],
}

struct Segment {
    frames: [Frame; SEGMENT],
}

/// A heap allocation of a `T` whose bytes are all zero, made without building the value
/// on the stack first (a debug build would: a stack page per thread that stays resident).
///
/// # Safety
///
/// The all-zero bit pattern must be a valid `T` (here: atomics, counters and null
/// pointers only).
unsafe fn zeroed_box<T>() -> Box<T> {
    let layout = std::alloc::Layout::new::<T>();
    // SAFETY: `T` is not zero-sized (every caller's type holds atomics).
    let p = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if p.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    // SAFETY: `p` was allocated with `T`'s layout by the global allocator, and zero is
    // a valid `T` (the caller's contract).
    unsafe { Box::from_raw(p) }
}

/// One entry of the scope stack.
pub(crate) struct Frame {
    pub(crate) seq: AtomicU64,
    /// Inclusive time of the measured scopes that ran directly inside and ended.
    pub(crate) children: Cnt,
    pub(crate) children_m: ChildCells,
    pub(crate) site: AtomicU32,
    /// The frame's node in the calling-context tree ([`crate::stacks`]); 0: none.
    pub(crate) ctx: AtomicU32,
    /// Clock reading at entry (a scope that has not returned is reported with its time
    /// so far).
    pub(crate) start: Cnt,
}

impl Frame {
    const fn new() -> Self {
        Frame {
            seq: AtomicU64::new(0),
            children: Cnt::new(),
            children_m: ChildCells::new(),
            site: AtomicU32::new(0),
            ctx: AtomicU32::new(0),
            start: Cnt::new(),
        }
    }
}

/// Calls of one site that had not returned when a report was made, ticks.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Running {
    /// Outermost frames of the site.
    pub(crate) calls: u64,
    /// Time so far of those frames.
    pub(crate) total: u64,
    /// Time so far not spent in measured children, every frame.
    pub(crate) self_: u64,
}

/// The aggregation state of one thread: its call-site slots and its scope stack.
///
/// `repr(C)`, frames first: the per-call path addresses a frame from the shard's own
/// address, without an offset to add.
#[repr(C)]
pub struct Shard {
    /// The first frames of the scope stack.
    frames: [Frame; INLINE_FRAMES],
    /// The chunks of the first `SUB * CHUNK` ids (most programs have no more call sites),
    /// one load away: allocated on first use (null until then), freed when the shard is
    /// retired.
    direct: [AtomicPtr<Chunk>; SUB],
    /// Sub-directories of chunks of the ids beyond (entry 0 unused: those are `direct`),
    /// likewise.
    dir: [AtomicPtr<SubDir>; TOP],
    /// Deeper frames, a segment at a time, allocated on first use and never freed.
    deep: [AtomicPtr<Segment>; SEGMENTS],
    pub(crate) depth: AtomicU32,
    pub(crate) seq: Cnt,
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
    /// `stacks::{STACKS, TRACE}` as they were at the last sync.
    pub(crate) extra_bits: Cnt,
    /// The calling-context tree ([`crate::stacks`]), leaked on first use; null until then.
    pub(crate) tree: AtomicPtr<crate::stacks::Tree>,
    /// The trace ring ([`crate::trace`]), boxed on first use; null until then.
    pub(crate) ring: AtomicPtr<crate::trace::Ring>,
    /// Per [`Sampler`]: events until the next timed one (1 = time the next).
    pub(crate) countdowns: [Cnt; Sampler::COUNT],
    /// Wrapped operations in progress on this thread (a wrapped stream under a wrapped
    /// buffer or codec nests): only the outermost is charged to the function.
    pub(crate) op_nest: Cnt,
    /// The (operation site, function) pairs of this thread, allocated on first use (null
    /// until then), freed when the shard is retired.
    holders: AtomicPtr<HolderTable>,
    pub(crate) rng: Cnt,
    /// Calls that ran deeper than [`MAX_DEPTH`] (no frame of their own).
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
}

/// The shard of a thread whose thread-locals are being destroyed: records nothing.
static DEAD_SHARD: Shard = Shard::new(u64::MAX);

thread_local! {
    static CURRENT: Cell<Option<&'static Shard>> = const { Cell::new(None) };
    static OWNER: Owner = const { Owner };
}

/// Retires the thread's shard when the thread exits.
struct Owner;

impl Drop for Owner {
    fn drop(&mut self) {
        let shard = CURRENT
            .try_with(|c| c.replace(Some(&DEAD_SHARD)))
            .ok()
            .flatten();
        if let Some(s) = shard {
            if !std::ptr::eq(s, &DEAD_SHARD) {
                #[cfg(feature = "cpu")]
                crate::meter::cpu::thread_exiting();
                crate::registry::retire(s);
            }
        }
    }
}

impl Shard {
    pub(crate) const fn new(epoch: u64) -> Self {
        Shard {
            frames: [const { Frame::new() }; INLINE_FRAMES],
            direct: [const { AtomicPtr::new(std::ptr::null_mut()) }; SUB],
            dir: [const { AtomicPtr::new(std::ptr::null_mut()) }; TOP],
            deep: [const { AtomicPtr::new(std::ptr::null_mut()) }; SEGMENTS],
            depth: AtomicU32::new(0),
            seq: Cnt::new(),
            epoch: AtomicU64::new(epoch),
            synced: Cnt::new(),
            key: Cnt::new(),
            sample_key: Cnt::new(),
            extra_key: Cnt::new(),
            extra_bits: Cnt::new(),
            tree: AtomicPtr::new(std::ptr::null_mut()),
            ring: AtomicPtr::new(std::ptr::null_mut()),
            countdowns: [const { Cnt::new() }; Sampler::COUNT],
            op_nest: Cnt::new(),
            holders: AtomicPtr::new(std::ptr::null_mut()),
            rng: Cnt::new(),
            deep_calls: Cnt::new(),
            top: DeltaCells::new(),
            #[cfg(feature = "cpu")]
            samples: Cnt::new(),
            #[cfg(feature = "cpu")]
            samples_outside: Cnt::new(),
            #[cfg(feature = "cpu")]
            armed_epoch: AtomicU64::new(0),
        }
    }

    /// A new shard on the heap (never built on the stack).
    pub(crate) fn boxed() -> Box<Shard> {
        // SAFETY: `Shard::new(0)` is all zero bytes (checked by a test below).
        unsafe { zeroed_box() }
    }

    /// The calling thread's shard, created on first use; `None` while the thread's
    /// thread-locals are being destroyed.
    #[inline]
    pub(crate) fn current() -> Option<&'static Shard> {
        match CURRENT.try_with(Cell::get) {
            Ok(Some(s)) if s.synced.get() == state::key() => Some(s),
            _ => Self::current_slow(),
        }
    }

    /// Whether this is the calling thread's shard.
    #[inline(always)]
    pub(crate) fn is_current(&'static self) -> bool {
        matches!(CURRENT.try_with(Cell::get), Ok(Some(s)) if std::ptr::eq(s, self))
    }

    #[cold]
    #[inline(never)]
    fn current_slow() -> Option<&'static Shard> {
        match CURRENT.try_with(Cell::get) {
            Err(_) => None,
            Ok(Some(s)) if std::ptr::eq(s, &DEAD_SHARD) => None,
            Ok(Some(s)) => {
                s.sync();
                Some(s)
            }
            Ok(None) => crate::internal(|| {
                // Registers the destructor that retires the shard at thread exit.
                OWNER.try_with(|_| ()).ok()?;
                let s = crate::registry::acquire();
                CURRENT.try_with(|c| c.set(Some(s))).ok()?;
                s.sync();
                Some(s)
            }),
        }
    }

    /// Prepares a shard for a new owner thread with serial number `serial`.
    pub(crate) fn assign(&self, serial: u64) {
        const SEQ_SHIFT: u32 = 40;
        self.seq.set(serial << SEQ_SHIFT);
        self.rng.set(serial.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        for c in &self.countdowns {
            c.set(0);
        }
        self.epoch.store(state::epoch(), Relaxed);
        self.synced.set(0);
        self.key.set(0);
        self.sample_key.set(0);
        self.extra_key.set(0);
    }

    /// Catches up with the global state: clears numbers of an older epoch, takes the
    /// current keys, draws new sampling gaps.
    fn sync(&self) {
        let epoch = state::epoch();
        if self.epoch.load(Relaxed) != epoch {
            self.reset_stats();
            self.epoch.store(epoch, Relaxed);
        }
        let key = state::key();
        self.synced.set(key);
        let (every, tsc, extras) = state::key_parts(key);
        self.key.set(if tsc && every && !extras { key } else { 0 });
        self.sample_key
            .set(if tsc && !every && !extras && !state::exact_cpu() {
                key
            } else {
                0
            });
        self.extra_key
            .set(if tsc && every && extras { key } else { 0 });
        self.extra_bits.set(crate::stacks::bits());
        if extras {
            // Frames pushed before the stacks came on hold no node, or a stale one
            // (plain pushes leave `ctx` as it was): they get theirs again when needed.
            self.forget_ctx();
        }
        for kind in Sampler::ALL {
            self.next_gap(kind);
        }
        #[cfg(feature = "cpu")]
        if self.armed_epoch.swap(epoch, Relaxed) != epoch {
            crate::meter::cpu::thread_started();
        }
    }

    /// Whether to time this event of `kind`, counting down to the next timed one.
    #[inline(always)]
    pub(crate) fn timed(&self, kind: Sampler) -> bool {
        let p = kind.period();
        if p == 1 {
            return true;
        }
        if p == 0 {
            return false;
        }
        self.countdown(kind)
    }

    /// One step of `kind`'s countdown: true (and a new gap drawn) when it reaches the
    /// timed event.
    #[inline(always)]
    pub(crate) fn countdown(&self, kind: Sampler) -> bool {
        let cd = &self.countdowns[kind as usize];
        let c = cd.get();
        if c != 1 {
            cd.set(c.wrapping_sub(1));
            return false;
        }
        self.next_gap(kind);
        true
    }

    /// [`Shard::countdown`] for the weighted kinds ([`crate::op::Here::sample`]): the
    /// gap after a timed event is drawn at the event after it, not at the timed event
    /// itself. Drawing takes a few tens of ns; before a timed lock acquisition's
    /// `try_lock`, that delay let a short critical section elsewhere end first and made
    /// the timed acquisitions less often contended than the others (the weighted holds
    /// came out 3 % high with four threads). The event after is timed or not by the
    /// gap just drawn, whatever the delay did to it.
    #[inline(always)]
    pub(crate) fn countdown_weighted(&self, kind: Sampler) -> bool {
        let cd = &self.countdowns[kind as usize];
        let c = cd.get();
        if c > 1 {
            cd.set(c - 1);
            return false;
        }
        if c == 1 {
            // Timed; 0 says "draw the next gap at the next event".
            cd.set(0);
            return true;
        }
        self.next_gap(kind);
        let g = cd.get();
        // 0 only if the rate became 0 meanwhile: stays 0, and nothing is timed.
        cd.set(g.saturating_sub(1));
        g == 1
    }

    /// Events of `kind` until the next timed one: `countdown` reaching 1 means "time this
    /// one"; with period 0 (count only) it starts at 0 and, counting down through
    /// `u64::MAX`, never reaches 1.
    ///
    /// Calls and `io!` operations: drawn uniformly from `1..2·period` (mean `period`).
    /// The weighted kinds (channels, streams, futures, locks), whose timed events stand
    /// for `period` events each ([`crate::op::Here::sample`]): geometric (mean
    /// `period`), so that every event is timed with probability `1/period` whatever
    /// happened before it. With uniform gaps the event right after a timed one is
    /// rarely timed; and a timed event slows its thread's next one a little (a timed
    /// hold makes the next acquisition likelier to be contended, so never weighted):
    /// that correlation over-counted the weighted holds by 3 % in a four-thread test.
    #[inline(never)]
    pub(crate) fn next_gap(&self, kind: Sampler) {
        let period = kind.period();
        let gap = if period == 0 {
            0
        } else {
            let x = self.random();
            if matches!(kind, Sampler::Calls | Sampler::Io) || period == 1 {
                // `period <= MAX_PERIOD`: `2·period − 1` cannot overflow.
                1 + x % (2 * period - 1)
            } else {
                self.geometric(period, x)
            }
        };
        self.countdowns[kind as usize].set(gap);
    }

    /// The next number of this thread's xorshift64 generator: cheap, per thread, good
    /// enough to spread the gaps.
    #[inline(always)]
    fn random(&self) -> u64 {
        let mut x = self.rng.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng.set(x);
        x
    }

    /// Bernoulli(1/`period`) trials up to and including the first success, drawn from
    /// the random word `x` (and more words if needed): a geometric gap of mean `period`.
    ///
    /// For a period of 4, 16, 256, 65536 or 2^32 (2^k with k dividing 64, the default 16
    /// among them) each k-bit field of a word is a trial that succeeds when it is zero,
    /// and the first zero field is found with one subtraction (the usual zero-byte
    /// test: the lowest field it flags is zero); other periods take a logarithm.
    fn geometric(&self, period: u64, mut x: u64) -> u64 {
        let k = period.trailing_zeros();
        if period.is_power_of_two() && matches!(k, 2 | 4 | 8 | 16 | 32) {
            let lows = u64::MAX / ((1u64 << k) - 1);
            let highs = lows << (k - 1);
            let mut before = 0u64;
            loop {
                let zero = x.wrapping_sub(lows) & !x & highs;
                if zero != 0 {
                    return before + u64::from(zero.trailing_zeros() / k) + 1;
                }
                before = before.saturating_add(u64::from(64 / k));
                x = self.random();
            }
        }
        // 1 + floor(ln(u) / ln(1 − 1/period)), u uniform in (0, 1]. `as` saturates.
        let u = ((x >> 11) + 1) as f64 / (1u64 << 53) as f64;
        ((u.ln() / (-1.0 / period as f64).ln_1p()) as u64).saturating_add(1)
    }

    /// Frame `d` if it is one of those held in the shard itself (the per-call path).
    #[inline(always)]
    pub(crate) fn inline_frame(&self, d: usize) -> Option<&Frame> {
        self.frames.get(d)
    }

    /// Whether inline frame `d` (`d < INLINE_FRAMES`) was marked [`DEAD`].
    #[inline(always)]
    pub(crate) fn inline_frame_dead(&self, d: usize) -> bool {
        self.frames[d].seq.load(Relaxed) == DEAD
    }

    /// Frame `d` of the stack, if its memory exists (`d < MAX_DEPTH`, and for deep
    /// frames their segment was allocated by a push). Any thread may read it.
    #[inline(always)]
    pub(crate) fn frame(&self, d: usize) -> Option<&Frame> {
        if d < INLINE_FRAMES {
            return Some(&self.frames[d]);
        }
        self.deep_frame(d)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    fn deep_frame(&self, d: usize) -> Option<&Frame> {
        let s = (d - INLINE_FRAMES) / SEGMENT;
        let p = self.deep.get(s)?.load(Acquire);
        // SAFETY: a non-null segment pointer came from `zeroed_box` in `new_segment` and
        // is never freed or replaced; the `Acquire` load pairs with its `Release` store,
        // so the segment's initialisation is visible.
        (!p.is_null()).then(|| unsafe { &(*p).frames[(d - INLINE_FRAMES) % SEGMENT] })
    }

    /// Frame `d < MAX_DEPTH` for the owner to push into, allocating its segment first
    /// if needed.
    pub(crate) fn push_frame(&self, d: usize) -> &Frame {
        match self.frame(d) {
            Some(f) => f,
            None => self.new_segment(d),
        }
    }

    #[cold]
    #[inline(never)]
    fn new_segment(&self, d: usize) -> &Frame {
        let s = (d - INLINE_FRAMES) / SEGMENT;
        // SAFETY: a `Segment` is frames of atomics, valid when all zero.
        let seg: &'static Segment = crate::internal(|| Box::leak(unsafe { zeroed_box() }));
        self.deep[s].store(seg as *const Segment as *mut Segment, Release);
        &seg.frames[(d - INLINE_FRAMES) % SEGMENT]
    }

    /// The slot of call site `id`, allocating its chunk on first use; `None` only for
    /// an id no shard can address (never given by [`crate::CallSite::id`]).
    ///
    /// The ids below [`DIRECT`] whose chunk exists are one load away; the others take the
    /// directory ([`Shard::chunk_far`]), and a first use allocates out of line.
    #[inline(always)]
    pub(crate) fn slot(&'static self, id: u32) -> Option<&'static Slot> {
        let id = id as usize;
        let p = match self.direct.get(id / CHUNK) {
            Some(p) => p.load(Relaxed),
            None => std::ptr::null_mut(),
        };
        let chunk: &'static Chunk = if p.is_null() {
            self.chunk_far(id)?
        } else {
            // SAFETY: a non-null chunk pointer came from `zeroed_box` in `new_chunk` and
            // is freed only by `release_memory`, when no thread owns the shard. Only the
            // owner calls `slot` and it stored the pointer, so a relaxed load sees the
            // chunk initialised.
            unsafe { &*p }
        };
        Some(&chunk.slots[id % CHUNK])
    }

    /// The chunk of an id beyond [`DIRECT`], or of one whose chunk does not exist yet
    /// (allocated now, out of line). Inline: out of line it cost a call on every use of
    /// a site numbered beyond 512 (`callgrind`, count-only mode: 77 instructions a call
    /// against 68 inline).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    fn chunk_far(&'static self, id: usize) -> Option<&'static Chunk> {
        if id >= DIRECT {
            let sub = self.dir.get(id / DIRECT)?.load(Relaxed);
            if !sub.is_null() {
                // SAFETY: a non-null directory entry came from `zeroed_box` in
                // `new_chunk` and is freed only by `release_memory`, when no thread owns
                // the shard. Only the owner calls `slot` and it stored the pointer, so a
                // relaxed load sees it initialised.
                let p = unsafe { &*sub }.chunks[(id / CHUNK) % SUB].load(Relaxed);
                if !p.is_null() {
                    // SAFETY: as above, for the chunk.
                    return Some(unsafe { &*p });
                }
            }
        }
        self.new_chunk(id)
    }

    /// The slot of `id` if its chunk exists: never allocates (signal handlers use it).
    #[cfg(feature = "cpu")]
    pub(crate) fn slot_existing(&self, id: u32) -> Option<&'static Slot> {
        let id = id as usize;
        if id < DIRECT {
            let p = self.direct[id / CHUNK].load(Relaxed);
            // SAFETY: as in `slot`.
            return (!p.is_null()).then(|| unsafe { &(*p).slots[id % CHUNK] });
        }
        let sub = self.dir.get(id / DIRECT)?.load(Relaxed);
        if sub.is_null() {
            return None;
        }
        // SAFETY: as in `slot`; this runs on the owner thread (in its signal handler).
        let p = unsafe { &*sub }.chunks[(id / CHUNK) % SUB].load(Relaxed);
        // SAFETY: as in `slot`.
        (!p.is_null()).then(|| unsafe { &(*p).slots[id % CHUNK] })
    }

    /// The chunks as a reader on another thread sees them, with the id of their first
    /// slot (under the registry lock, so none is freed meanwhile).
    fn chunks_for_reader(&self) -> impl Iterator<Item = (usize, &Chunk)> {
        let direct = self.direct.iter().enumerate().filter_map(|(c, p)| {
            let p = p.load(Acquire);
            // SAFETY: as in `slot`; the `Acquire` load pairs with the `Release` store in
            // `new_chunk`, and the registry lock keeps `release_memory` away.
            (!p.is_null()).then(|| (c * CHUNK, unsafe { &*p }))
        });
        direct.chain(self.dir.iter().enumerate().skip(1).flat_map(|(t, sub)| {
            let sub = sub.load(Acquire);
            // SAFETY: as in `slot`; the `Acquire` load pairs with the `Release` store in
            // `new_chunk`, so the initialisation is visible, and the registry lock keeps
            // `release_memory` from freeing it while the caller reads.
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

    /// Allocates the chunk of `id` (and its sub-directory), which does not exist yet.
    #[cold]
    #[inline(never)]
    fn new_chunk(&'static self, id: usize) -> Option<&'static Chunk> {
        let entry = if id < DIRECT {
            &self.direct[id / CHUNK]
        } else {
            let top = self.dir.get(id / DIRECT)?;
            let mut sub = top.load(Relaxed);
            if sub.is_null() {
                // SAFETY: a `SubDir` is null pointers, valid when all zero.
                let b: Box<SubDir> = crate::internal(|| unsafe { zeroed_box() });
                sub = Box::into_raw(b);
                top.store(sub, Release);
            }
            // SAFETY: `sub` is this shard's live sub-directory (just loaded or stored by
            // this, the owner thread).
            &unsafe { &*sub }.chunks[(id / CHUNK) % SUB]
        };
        // SAFETY: a `Chunk` is slots of atomics and null pointers, valid when all zero.
        let b: Box<Chunk> = crate::internal(|| unsafe { zeroed_box() });
        let p = Box::into_raw(b);
        entry.store(p, Release);
        // SAFETY: `p` is this shard's live chunk, freed only by `release_memory`.
        Some(unsafe { &*p })
    }

    /// Frees the slot memory of a retired shard: sub-directories, chunks and their
    /// distributions, the holder table. Call with the registry lock held, after the
    /// numbers were merged, when no thread owns the shard. Each pointer is made null
    /// before its target is dropped.
    pub(crate) fn release_memory(&self) {
        crate::internal(|| {
            let t = self.holders.swap(std::ptr::null_mut(), AcqRel);
            if !t.is_null() {
                // SAFETY: from `Box::into_raw` in `new_holders`, now unreachable.
                drop(unsafe { Box::from_raw(t) });
            }
            for entry in &self.direct {
                let p = entry.swap(std::ptr::null_mut(), AcqRel);
                if !p.is_null() {
                    // SAFETY: from `Box::into_raw` in `new_chunk`, now unreachable.
                    drop(unsafe { Box::from_raw(p) });
                }
            }
            for top in &self.dir {
                let sub = top.swap(std::ptr::null_mut(), AcqRel);
                if sub.is_null() {
                    continue;
                }
                // SAFETY: the pointer came from `Box::into_raw` in `new_chunk` and is now
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
        })
    }

    /// The holder entry of (`site`, `function`) on this thread, allocating the table on
    /// first use; `None` when the pair finds no place (see [`crate::holders`]).
    #[inline(always)]
    pub(crate) fn holder(&'static self, site: u32, function: u32) -> Option<&'static Holder> {
        let p = self.holders.load(Relaxed);
        let table: &'static HolderTable = if p.is_null() {
            self.new_holders()
        } else {
            // SAFETY: a non-null `holders` came from `Box::into_raw` in `new_holders` and
            // is freed only by `release_memory`, when no thread owns the shard. Only the
            // owner thread calls `holder` and it stored the pointer, so a relaxed load
            // sees the initialised table.
            unsafe { &*p }
        };
        table.entry(site, function)
    }

    #[cold]
    #[inline(never)]
    fn new_holders(&'static self) -> &'static HolderTable {
        let t = Box::into_raw(crate::internal(HolderTable::boxed));
        self.holders.store(t, Release);
        // SAFETY: just allocated; freed only by `release_memory`.
        unsafe { &*t }
    }

    /// The holder table as a reader on another thread sees it (under the registry lock,
    /// so it is not freed meanwhile).
    fn holders_for_reader(&self) -> Option<&'static HolderTable> {
        let p = self.holders.load(Acquire);
        // SAFETY: as in `holder`; the `Acquire` load pairs with the `Release` store in
        // `new_holders`, so the table's initialisation is visible here.
        (!p.is_null()).then(|| unsafe { &*p })
    }

    /// Adds this shard's holder pairs to `out`.
    pub(crate) fn merge_holders(&self, out: &mut HolderMap) {
        if let Some(t) = self.holders_for_reader() {
            t.merge_into(out);
        }
    }

    /// Next push number: unique across threads and shard reuse.
    #[inline(always)]
    pub(crate) fn next_seq(&self) -> u64 {
        let s = self.seq.get() + 1;
        self.seq.set(s);
        s
    }

    /// Pops frames marked [`DEAD`] from the top of the stack; returns the new depth.
    #[cold]
    #[inline(never)]
    pub(crate) fn pop_dead(&'static self, mut depth: usize) -> usize {
        while depth > 0
            && depth <= MAX_DEPTH
            && self
                .frame(depth - 1)
                .is_some_and(|f| f.seq.load(Relaxed) == DEAD)
        {
            depth -= 1;
            self.discard_frame(depth);
        }
        self.depth.store(depth as u32, Relaxed);
        depth
    }

    /// Forgets frame `i` (its guard is gone or suspended elsewhere).
    pub(crate) fn discard_frame(&'static self, i: usize) {
        if let Some(f) = self.frame(i) {
            let site = f.site.load(Relaxed);
            if let Some(slot) = self.slot(site) {
                slot.leave();
            }
        }
    }

    /// The site of the innermost live frame on the stack, if any.
    #[inline(always)]
    pub(crate) fn innermost_site(&self) -> Option<u32> {
        let depth = self.depth.load(Relaxed) as usize;
        if depth == 0 || depth > MAX_DEPTH {
            return None;
        }
        Some(self.frame(depth - 1)?.site.load(Relaxed))
    }

    /// Every slot that has a chunk, with its site id.
    pub(crate) fn slots(&self) -> impl Iterator<Item = (u32, &Slot)> {
        self.chunks_for_reader().flat_map(|(first, ch)| {
            ch.slots
                .iter()
                .enumerate()
                .map(move |(i, s)| ((first + i) as u32, s))
        })
    }

    pub(crate) fn reset_stats(&self) {
        for (_, s) in self.slots() {
            s.clear_stats();
        }
        if let Some(t) = self.holders_for_reader() {
            t.clear();
        }
        self.deep_calls.set(0);
        self.top.set(Delta::default());
        if let Some(t) = self.tree() {
            t.reset();
            self.forget_ctx();
        }
        self.reset_ring();
        #[cfg(feature = "cpu")]
        {
            self.samples.set(0);
            self.samples_outside.set(0);
        }
    }

    /// Forgets the stack: every frame, and every slot's count of frames on it.
    pub(crate) fn reset_stack(&self) {
        for (_, s) in self.slots() {
            s.reset_active();
        }
        self.depth.store(0, Relaxed);
    }

    /// One CPU sample on this (the calling) thread: see `meter::cpu::credit_sample`.
    #[cfg(feature = "cpu")]
    pub(crate) fn credit_sample(&'static self) {
        if std::ptr::eq(self, &DEAD_SHARD) {
            return;
        }
        let seq = self.samples.get() + 1;
        self.samples.set(seq);
        let depth = (self.depth.load(Relaxed) as usize).min(MAX_DEPTH);
        let mut top = None;
        let mut ctx = 0;
        for f in (0..depth).map_while(|d| self.frame(d)) {
            if f.seq.load(Relaxed) == DEAD {
                continue;
            }
            if let Some(slot) = self.slot_existing(f.site.load(Relaxed)) {
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
            if let Some(t) = self.tree() {
                t.sample(ctx);
            }
        }
    }

    /// The calls running on this thread's stack now (a reader on another thread may see
    /// a frame being pushed or popped: the figures are as of about now). Recursion adds to
    /// a site's running calls and total once, at its outermost frame.
    pub(crate) fn running_into(&self, now: u64, out: &mut Vec<(u32, Running)>) {
        let depth = (self.depth.load(Relaxed) as usize).min(MAX_DEPTH);
        let frames: Vec<&Frame> = (0..depth)
            .map_while(|d| self.frame(d))
            .filter(|f| f.seq.load(Relaxed) != DEAD)
            .collect();
        for (i, f) in frames.iter().enumerate() {
            let site = f.site.load(Relaxed);
            let elapsed = now.saturating_sub(f.start.get());
            let child_running = frames
                .get(i + 1)
                .map_or(0, |c| now.saturating_sub(c.start.get()));
            let self_ = elapsed.saturating_sub(f.children.get() + child_running);
            let outer = !frames[..i]
                .iter()
                .any(|below| below.site.load(Relaxed) == site);
            let r = match out.iter_mut().find(|(s, _)| *s == site) {
                Some((_, r)) => r,
                None => {
                    out.push((site, Running::default()));
                    &mut out.last_mut().expect("pushed").1
                }
            };
            if outer {
                r.calls += 1;
                r.total += elapsed;
            }
            r.self_ += self_;
        }
    }

    /// Adds this shard's slots to `out`, indexed by site id.
    pub(crate) fn merge_into(&self, out: &mut Vec<Option<Merged>>) {
        for (id, s) in self.slots() {
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
        static FRAME: Frame = Frame::new();
        static SHARD: Shard = Shard::new(0);
        assert!(is_zero(&SLOT));
        assert!(is_zero(&FRAME));
        assert!(is_zero(&SHARD));
    }

    #[test]
    fn weighted_kinds_time_each_event_with_probability_one_in_period() {
        // Channels' default period, 16: geometric gaps (mean 16, a gap of 1 as likely
        // after a timed event as anywhere), not uniform ones (a gap of 1 one time in 31).
        assert_eq!(Sampler::Channels.period(), crate::state::DEFAULT_PERIOD);
        let shard = Shard::new(0);
        shard.rng.set(0x9E37_79B9_7F4A_7C15);
        let n = 200_000u64;
        let (mut sum, mut ones, mut long) = (0u64, 0u64, 0u64);
        for _ in 0..n {
            shard.next_gap(Sampler::Channels);
            let g = shard.countdowns[Sampler::Channels as usize].get();
            assert!(g >= 1);
            sum += g;
            ones += u64::from(g == 1);
            long += u64::from(g > 31);
        }
        let mean = sum as f64 / n as f64;
        assert!((mean - 16.0).abs() < 0.3, "mean gap {mean}");
        // P(gap = 1) = 1/16: 12,500 expected, standard deviation 108.
        assert!(ones.abs_diff(n / 16) < 700, "{ones} gaps of 1");
        // P(gap > 31) = (15/16)^31 = 13.5 %.
        assert!(long.abs_diff(n * 135 / 1000) < 1_000, "{long} gaps over 31");
    }

    #[test]
    fn geometric_gaps_have_the_period_as_mean_and_no_memory() {
        let shard = Shard::new(0);
        shard.rng.set(0x2545_F491_4F6C_DD1D);
        // Powers of two with k | 64 (bit fields), others (logarithm).
        for period in [4u64, 10, 16, 100, 256] {
            let n = 400_000u64;
            let (mut sum, mut ones) = (0u64, 0u64);
            for _ in 0..n {
                let g = shard.geometric(period, shard.random());
                assert!(g >= 1);
                sum += g;
                ones += u64::from(g == 1);
            }
            let mean = sum as f64 / n as f64;
            let p = 1.0 / period as f64;
            // Mean: standard error sqrt((1 − p)/p²/n), under 0.4 % of the period here.
            assert!(
                (mean / period as f64 - 1.0).abs() < 0.02,
                "{period}: mean {mean}"
            );
            // A gap of 1 has probability p (memoryless), within six standard errors.
            let se = (n as f64 * p * (1.0 - p)).sqrt();
            assert!(
                (ones as f64 - n as f64 * p).abs() < 6.0 * se,
                "{period}: {ones} gaps of 1"
            );
        }
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
