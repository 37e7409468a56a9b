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
//! * Shards are never freed: the [`registry`](crate::registry) retires a shard when its
//!   thread exits and hands it to the next new thread.
//! * Data belongs to an epoch ([`crate::state::epoch`]). A new session makes every
//!   shard's numbers stale; the owner clears them on its next call, snapshots skip stale
//!   shards.

use std::cell::Cell;
use std::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU32, AtomicU64,
    Ordering::{Acquire, Relaxed, Release},
};

use crate::cell::Cnt;
use crate::holders::{Holder, HolderMap, HolderTable};
use crate::meter::{ChildCells, Delta, DeltaCells};
use crate::slot::{Merged, Slot};
use crate::state::{self, Sampler};

/// Call-site slots per chunk.
pub(crate) const CHUNK: usize = 64;
/// Chunks per shard.
pub(crate) const DIR: usize = 256;
/// Deepest nesting of measured scopes tracked per thread. Deeper scopes are still
/// counted and timed; their self time then includes their measured children.
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
pub struct Shard {
    /// Chunks of slots, leaked on first use and never freed; null until then.
    dir: [AtomicPtr<Chunk>; DIR],
    pub(crate) frames: [Frame; MAX_DEPTH],
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
    /// The (operation site, function) pairs of this thread, leaked on first use and never
    /// freed; null until then.
    holders: AtomicPtr<HolderTable>,
    pub(crate) rng: Cnt,
    pub(crate) depth_overflow: AtomicBool,
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
            dir: [const { AtomicPtr::new(std::ptr::null_mut()) }; DIR],
            frames: [const { Frame::new() }; MAX_DEPTH],
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
            depth_overflow: AtomicBool::new(false),
            top: DeltaCells::new(),
            #[cfg(feature = "cpu")]
            samples: Cnt::new(),
            #[cfg(feature = "cpu")]
            samples_outside: Cnt::new(),
            #[cfg(feature = "cpu")]
            armed_epoch: AtomicU64::new(0),
        }
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

    /// Events of `kind` until the next timed one: `countdown` reaching 1 means "time this
    /// one". Drawn uniformly from `1..2·period` (mean `period`); with period 0 (count
    /// only) it starts at 0 and, counting down through `u64::MAX`, never reaches 1.
    #[inline(never)]
    pub(crate) fn next_gap(&self, kind: Sampler) {
        let period = kind.period();
        let gap = if period == 0 {
            0
        } else {
            // xorshift64: cheap, per thread, good enough to spread the gaps.
            let mut x = self.rng.get();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.rng.set(x);
            // `period <= MAX_PERIOD`: `2·period − 1` cannot overflow.
            1 + x % (2 * period - 1)
        };
        self.countdowns[kind as usize].set(gap);
    }

    /// The slot of call site `id`, allocating its chunk on first use.
    #[inline(always)]
    pub(crate) fn slot(&'static self, id: u32) -> Option<&'static Slot> {
        let (c, i) = (id as usize / CHUNK, id as usize % CHUNK);
        let p = self.dir.get(c)?.load(Relaxed);
        let chunk: &'static Chunk = if p.is_null() {
            self.new_chunk(c)
        } else {
            // SAFETY: a non-null directory entry came from `Box::leak` in `new_chunk` and is
            // never freed or replaced. Only the owner thread calls `slot` and it stored the
            // pointer, so a relaxed load sees the initialised chunk.
            unsafe { &*p }
        };
        Some(&chunk.slots[i])
    }

    /// The slot of `id` if its chunk exists: never allocates (signal handlers use it).
    #[cfg(feature = "cpu")]
    pub(crate) fn slot_existing(&self, id: u32) -> Option<&'static Slot> {
        let (c, i) = (id as usize / CHUNK, id as usize % CHUNK);
        let p = self.dir.get(c)?.load(Relaxed);
        // SAFETY: as in `slot`: non-null entries are leaked chunks, never freed; this runs
        // on the owner thread (in its signal handler), which stored the pointer.
        (!p.is_null()).then(|| unsafe { &(*p).slots[i] })
    }

    /// A chunk as a reader on another thread sees it.
    fn chunk_for_reader(&self, c: usize) -> Option<&'static Chunk> {
        let p = self.dir[c].load(Acquire);
        // SAFETY: as in `slot`; the `Acquire` load pairs with the `Release` store in
        // `new_chunk`, so the chunk's initialisation is visible here.
        (!p.is_null()).then(|| unsafe { &*p })
    }

    #[cold]
    #[inline(never)]
    fn new_chunk(&'static self, c: usize) -> &'static Chunk {
        let chunk: &'static Chunk = crate::internal(|| {
            Box::leak(Box::new(Chunk {
                slots: [const { Slot::new() }; CHUNK],
            }))
        });
        self.dir[c].store(chunk as *const Chunk as *mut Chunk, Release);
        chunk
    }

    /// The holder entry of (`site`, `function`) on this thread, allocating the table on
    /// first use; `None` when the pair finds no place (see [`crate::holders`]).
    #[inline(always)]
    pub(crate) fn holder(&'static self, site: u32, function: u32) -> Option<&'static Holder> {
        let p = self.holders.load(Relaxed);
        let table: &'static HolderTable = if p.is_null() {
            self.new_holders()
        } else {
            // SAFETY: a non-null `holders` came from `Box::leak` in `new_holders` and is
            // never freed or replaced. Only the owner thread calls `holder` and it stored
            // the pointer, so a relaxed load sees the initialised table.
            unsafe { &*p }
        };
        table.entry(site, function)
    }

    #[cold]
    #[inline(never)]
    fn new_holders(&'static self) -> &'static HolderTable {
        let t: &'static HolderTable = crate::internal(|| Box::leak(HolderTable::boxed()));
        self.holders
            .store(t as *const HolderTable as *mut HolderTable, Release);
        t
    }

    /// The holder table as a reader on another thread sees it.
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
        while depth > 0 && depth <= MAX_DEPTH && self.frames[depth - 1].seq.load(Relaxed) == DEAD {
            depth -= 1;
            self.discard_frame(depth);
        }
        self.depth.store(depth as u32, Relaxed);
        depth
    }

    /// Forgets frame `i` (its guard is gone or suspended elsewhere).
    pub(crate) fn discard_frame(&'static self, i: usize) {
        if i < MAX_DEPTH {
            let site = self.frames[i].site.load(Relaxed);
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
        Some(self.frames[depth - 1].site.load(Relaxed))
    }

    /// Every slot that has a chunk, with its site id.
    pub(crate) fn slots(&self) -> impl Iterator<Item = (u32, &Slot)> {
        (0..DIR)
            .filter_map(|c| self.chunk_for_reader(c).map(|ch| (c, ch)))
            .flat_map(|(c, ch)| {
                ch.slots
                    .iter()
                    .enumerate()
                    .map(move |(i, s)| ((c * CHUNK + i) as u32, s))
            })
    }

    pub(crate) fn reset_stats(&self) {
        for (_, s) in self.slots() {
            s.clear_stats();
        }
        if let Some(t) = self.holders_for_reader() {
            t.clear();
        }
        self.depth_overflow.store(false, Relaxed);
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
        for f in &self.frames[..depth] {
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
        let frames: Vec<&Frame> = self.frames[..depth]
            .iter()
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
