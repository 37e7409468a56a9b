//! Per-thread shards: the aggregation state of one thread.
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
//! * Shards are never freed. When a thread exits its shard's numbers are merged into the
//!   registry's `retired` totals and the shard goes to a free list for the next new
//!   thread, under the registry lock, which snapshots hold while they read. Memory is
//!   bounded by (call sites × most threads alive at once).
//! * Data belongs to an epoch. A new profiling session ([`begin_epoch`]) makes every
//!   shard's numbers stale; the owner clears them on its next call, snapshots skip stale
//!   shards, and retired numbers of older epochs are dropped.

use std::cell::Cell;
use std::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU32, AtomicU64,
    Ordering::{Acquire, Relaxed, Release},
};

pub(crate) use crate::meter::Delta;
use std::sync::Mutex;

use crate::cell::Cnt;
use crate::dist::Dist;
use crate::meter::{ChildCells, DeltaCells, MeterSlot};
use crate::snapshot::Merged;

/// Call-site slots per chunk.
pub(crate) const CHUNK: usize = 64;
/// Chunks per shard.
pub(crate) const DIR: usize = 256;
/// Deepest nesting of measured scopes tracked per thread. Deeper scopes are still
/// counted and timed; their self time then includes their measured children.
pub const MAX_DEPTH: usize = 512;
/// `seq` of a frame whose guard was dropped on another thread.
pub(crate) const DEAD: u64 = u64::MAX;
const SEQ_SHIFT: u32 = 40;

static EPOCH: AtomicU64 = AtomicU64::new(1);
/// `epoch << 2 | timing-every-call << 1 | tsc-clock`, never 0: the global state a shard
/// synchronises with. A shard keeps copies that equal it only while an inline path applies:
/// `key` when every call is timed on the TSC, `sample_key` when calls are sampled or
/// counted on the TSC. Anything else (another clock, a new epoch) takes the slow path.
static KEY: AtomicU64 = AtomicU64::new(1);

const EVERY: u64 = 0b10;
const TSC: u64 = 0b01;

/// Recomputes [`KEY`] after the epoch, the sampling period or the clock changed.
pub(crate) fn refresh_key() {
    // Exact CPU mode reads the CPU clock in every scope: not the inline path.
    let every = crate::scope::period() == 1 && !crate::meter::exact_cpu();
    let tsc = crate::clock::is_tsc();
    KEY.store(
        (EPOCH.load(Relaxed) << 2) | if every { EVERY } else { 0 } | if tsc { TSC } else { 0 },
        Relaxed,
    );
}

/// The global key.
#[inline(always)]
pub(crate) fn key() -> u64 {
    KEY.load(Relaxed)
}

/// The calling thread's shard, if it has one (no creation, no synchronisation).
#[inline(always)]
pub(crate) fn current_raw() -> Option<&'static Shard> {
    CURRENT.try_with(Cell::get).ok().flatten()
}

/// One call site's numbers on one thread.
pub(crate) struct Slot {
    /// Calls counted but not timed (sampling).
    pub(crate) counted: Cnt,
    pub(crate) timed: Cnt,
    /// Inclusive time of every timed call, nested ones included (for the mean).
    pub(crate) sum: Cnt,
    /// Inclusive time of the outermost timed calls.
    pub(crate) total: Cnt,
    pub(crate) self_: Cnt,
    pub(crate) polls: Cnt,
    pub(crate) busy: Cnt,
    pub(crate) cancelled: Cnt,
    /// Per-call inclusive durations.
    time: Dist,
    /// What the meters counted in this site's calls.
    meters: MeterSlot,
    /// I/O sites: bytes moved and failed operations.
    pub(crate) io_bytes: Cnt,
    /// Bytes of the timed operations (for rates when sampling).
    pub(crate) io_timed_bytes: Cnt,
    pub(crate) io_errors: Cnt,
    /// Functions: bytes read and written, and ticks spent, by I/O operations made while
    /// the function was the innermost measured one on its thread.
    pub(crate) fn_read: Cnt,
    pub(crate) fn_write: Cnt,
    pub(crate) fn_io: Cnt,
    /// Frames of this site on the owner's stack (owner-only; not statistics).
    pub(crate) active: AtomicU32,
}

impl Slot {
    const fn new() -> Self {
        Slot {
            counted: Cnt::new(),
            timed: Cnt::new(),
            sum: Cnt::new(),
            total: Cnt::new(),
            self_: Cnt::new(),
            polls: Cnt::new(),
            busy: Cnt::new(),
            cancelled: Cnt::new(),
            time: Dist::new(),
            meters: MeterSlot::new(),
            io_bytes: Cnt::new(),
            io_timed_bytes: Cnt::new(),
            io_errors: Cnt::new(),
            fn_read: Cnt::new(),
            fn_write: Cnt::new(),
            fn_io: Cnt::new(),
            active: AtomicU32::new(0),
        }
    }

    /// Records one timed call: `incl` and `self_` in ticks, the meters' inclusive and
    /// self deltas; `outer` when no frame of the same site was below it, so that
    /// recursion adds to the totals once.
    #[inline(always)]
    pub(crate) fn record(&self, incl: u64, self_: u64, m_incl: Delta, m_self: Delta, outer: bool) {
        self.timed.add(1);
        self.sum.add(incl);
        if outer {
            self.total.add(incl);
        }
        self.self_.add(self_);
        self.time.record(incl);
        self.meters.record(m_incl, m_self, outer);
    }

    /// Records one timed I/O operation of `dt` ticks (an I/O site's slot).
    #[inline(always)]
    pub(crate) fn record_io(&self, dt: u64) {
        self.timed.add(1);
        self.sum.add(dt);
        self.total.add(dt);
        self.time.record(dt);
    }

    #[inline(always)]
    pub(crate) fn enter(&self) {
        self.active.store(self.active.load(Relaxed) + 1, Relaxed);
    }

    /// Leaves one frame of this site; true when it was the outermost.
    #[inline(always)]
    pub(crate) fn leave(&self) -> bool {
        let a = self.active.load(Relaxed).saturating_sub(1);
        self.active.store(a, Relaxed);
        a == 0
    }

    #[inline(always)]
    pub(crate) fn is_active(&self) -> bool {
        self.active.load(Relaxed) != 0
    }

    fn clear_stats(&self) {
        for c in [
            &self.counted,
            &self.timed,
            &self.sum,
            &self.total,
            &self.self_,
            &self.polls,
            &self.busy,
            &self.cancelled,
            &self.io_bytes,
            &self.io_timed_bytes,
            &self.io_errors,
            &self.fn_read,
            &self.fn_write,
            &self.fn_io,
        ] {
            c.set(0);
        }
        self.time.clear();
        self.meters.clear();
    }

    pub(crate) fn merge_into(&self, m: &mut Merged) {
        m.calls += self.counted.get() + self.timed.get();
        m.timed += self.timed.get();
        m.sum += self.sum.get();
        m.total += self.total.get();
        m.self_ += self.self_.get();
        m.polls += self.polls.get();
        m.busy += self.busy.get();
        m.cancelled += self.cancelled.get();
        m.io_bytes += self.io_bytes.get();
        m.io_timed_bytes += self.io_timed_bytes.get();
        m.io_errors += self.io_errors.get();
        m.fn_read += self.fn_read.get();
        m.fn_write += self.fn_write.get();
        m.fn_io += self.fn_io.get();
        self.time.merge_into(&mut m.time);
        self.meters.merge_into(&mut m.meters);
    }
}

struct Chunk {
    slots: [Slot; CHUNK],
}

/// One entry of the scope stack.
pub(crate) struct Frame {
    pub(crate) seq: AtomicU64,
    pub(crate) children: Cnt,
    pub(crate) children_m: ChildCells,
    pub(crate) site: AtomicU32,
}

impl Frame {
    const fn new() -> Self {
        Frame {
            seq: AtomicU64::new(0),
            children: Cnt::new(),
            children_m: ChildCells::new(),
            site: AtomicU32::new(0),
        }
    }
}

/// The aggregation state of one thread: its call-site slots and its scope stack.
pub struct Shard {
    /// Chunks of slots, leaked on first use and never freed; null until then.
    dir: [AtomicPtr<Chunk>; DIR],
    pub(crate) frames: [Frame; MAX_DEPTH],
    pub(crate) depth: AtomicU32,
    seq: Cnt,
    epoch: AtomicU64,
    /// [`KEY`] when this shard last synchronised with the global state.
    synced: Cnt,
    /// [`KEY`] while every call is timed on the TSC, else 0.
    pub(crate) key: Cnt,
    /// [`KEY`] while calls are sampled (or only counted) on the TSC, else 0.
    pub(crate) sample_key: Cnt,
    pub(crate) countdown: Cnt,
    /// Like `countdown`, for I/O operations (their own sampling rate).
    pub(crate) io_countdown: Cnt,
    /// I/O operations in progress on this thread (a wrapped stream under a wrapped
    /// buffer or codec nests): only the outermost is charged to the function.
    pub(crate) io_nest: Cnt,
    pub(crate) rng: Cnt,
    pub(crate) depth_overflow: AtomicBool,
    /// What the meters counted inside outermost frames (depth 0): the attributed part
    /// of this thread's totals.
    pub(crate) top: DeltaCells,
    /// CPU samples taken on this thread, and those outside every measured scope.
    #[cfg(feature = "cpu")]
    samples: Cnt,
    #[cfg(feature = "cpu")]
    samples_outside: Cnt,
    /// The epoch in which the thread-start hook last ran.
    #[cfg(feature = "cpu")]
    armed_epoch: AtomicU64,
}

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
                retire(s);
            }
        }
    }
}

impl Shard {
    const fn new(epoch: u64) -> Self {
        Shard {
            dir: [const { AtomicPtr::new(std::ptr::null_mut()) }; DIR],
            frames: [const { Frame::new() }; MAX_DEPTH],
            depth: AtomicU32::new(0),
            seq: Cnt::new(),
            epoch: AtomicU64::new(epoch),
            synced: Cnt::new(),
            key: Cnt::new(),
            sample_key: Cnt::new(),
            countdown: Cnt::new(),
            io_countdown: Cnt::new(),
            io_nest: Cnt::new(),
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
            Ok(Some(s)) if s.synced.get() == KEY.load(Relaxed) => Some(s),
            _ => Self::current_slow(),
        }
    }

    /// The calling thread's shard if it has one, without creating it.
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
                let s = acquire();
                CURRENT.try_with(|c| c.set(Some(s))).ok()?;
                s.sync();
                Some(s)
            }),
        }
    }

    /// Catches up with the global state: clears numbers of an older epoch, takes the
    /// current keys.
    fn sync(&self) {
        let epoch = EPOCH.load(Relaxed);
        if self.epoch.load(Relaxed) != epoch {
            self.reset_stats();
            self.epoch.store(epoch, Relaxed);
        }
        let key = KEY.load(Relaxed);
        self.synced.set(key);
        let tsc = key & TSC != 0;
        let every = key & EVERY != 0;
        self.key.set(if tsc && every { key } else { 0 });
        self.sample_key
            .set(if tsc && !every && !crate::meter::exact_cpu() {
                key
            } else {
                0
            });
        self.next_gap();
        self.next_io_gap();
        #[cfg(feature = "cpu")]
        if self.armed_epoch.swap(epoch, Relaxed) != epoch {
            crate::meter::cpu::thread_started();
        }
    }

    /// Calls until the next timed one: `countdown` reaching 1 means "time this call".
    /// Drawn uniformly from `1..2·period` (mean `period`); with period 0 (count only) it
    /// starts at 0 and, counting down through `u64::MAX`, never reaches 1.
    #[inline(never)]
    pub(crate) fn next_gap(&self) {
        self.countdown.set(self.gap(crate::scope::period()));
    }

    /// Calls until the next timed I/O operation (see [`Shard::next_gap`]).
    pub(crate) fn next_io_gap(&self) {
        self.io_countdown.set(self.gap(crate::io::period()));
    }

    fn gap(&self, period: u64) -> u64 {
        if period == 0 {
            return 0;
        }
        // xorshift64: cheap, per thread, good enough to spread the gaps.
        let mut x = self.rng.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng.set(x);
        1 + x % (2 * period - 1)
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

    fn slots(&self) -> impl Iterator<Item = (u32, &Slot)> {
        (0..DIR)
            .filter_map(|c| self.chunk_for_reader(c).map(|ch| (c, ch)))
            .flat_map(|(c, ch)| {
                ch.slots
                    .iter()
                    .enumerate()
                    .map(move |(i, s)| ((c * CHUNK + i) as u32, s))
            })
    }

    fn reset_stats(&self) {
        for (_, s) in self.slots() {
            s.clear_stats();
        }
        self.depth_overflow.store(false, Relaxed);
        self.top.set(Delta::default());
        #[cfg(feature = "cpu")]
        {
            self.samples.set(0);
            self.samples_outside.set(0);
        }
    }

    /// The slot of `id` if its chunk exists: never allocates (signal handlers use it).
    #[cfg(feature = "cpu")]
    fn slot_existing(&self, id: u32) -> Option<&'static Slot> {
        let (c, i) = (id as usize / CHUNK, id as usize % CHUNK);
        let p = self.dir.get(c)?.load(Relaxed);
        // SAFETY: as in `slot`: non-null entries are leaked chunks, never freed; this runs
        // on the owner thread (in its signal handler), which stored the pointer.
        (!p.is_null()).then(|| unsafe { &(*p).slots[i] })
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
        for f in &self.frames[..depth] {
            if f.seq.load(Relaxed) == DEAD {
                continue;
            }
            if let Some(slot) = self.slot_existing(f.site.load(Relaxed)) {
                slot.meters.cpu.sampled(seq);
                top = Some(slot);
            }
        }
        match top {
            Some(slot) => slot.meters.cpu.self_sampled(),
            None => self.samples_outside.add(1),
        }
    }

    fn merge_into(&self, out: &mut Vec<Option<Merged>>) {
        for (id, s) in self.slots() {
            if s.counted.get() == 0 && s.timed.get() == 0 && s.io_errors.get() == 0 {
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

struct Registry {
    live: Vec<&'static Shard>,
    free: Vec<&'static Shard>,
    retired: Retired,
    next_serial: u64,
}

/// Numbers of threads that exited during the current epoch.
#[derive(Clone, Default)]
struct Retired {
    sites: Vec<Option<Merged>>,
    depth_overflow: bool,
    top: Delta,
    #[cfg(feature = "cpu")]
    samples: (u64, u64),
}

/// Everything the shards recorded in the current epoch.
pub(crate) struct Collected {
    /// Per site id.
    pub(crate) sites: Vec<Option<Merged>>,
    /// Some thread nested deeper than [`MAX_DEPTH`].
    pub(crate) depth_overflow: bool,
    /// What the meters counted inside outermost frames, over all threads.
    #[allow(dead_code)]
    pub(crate) top: Delta,
    /// CPU samples taken, and those outside every measured scope.
    #[cfg(feature = "cpu")]
    pub(crate) samples: (u64, u64),
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: Vec::new(),
    free: Vec::new(),
    retired: Retired {
        sites: Vec::new(),
        depth_overflow: false,
        top: Delta::ZERO,
        #[cfg(feature = "cpu")]
        samples: (0, 0),
    },
    next_serial: 1,
});

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

fn acquire() -> &'static Shard {
    let mut r = registry();
    let shard = match r.free.pop() {
        Some(s) => s,
        None => Box::leak(Box::new(Shard::new(0))),
    };
    let serial = r.next_serial;
    r.next_serial += 1;
    shard.seq.set(serial << SEQ_SHIFT);
    shard
        .rng
        .set(serial.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    shard.countdown.set(0);
    shard.epoch.store(EPOCH.load(Relaxed), Relaxed);
    shard.synced.set(0);
    shard.key.set(0);
    shard.sample_key.set(0);
    r.live.push(shard);
    shard
}

fn retire(shard: &'static Shard) {
    crate::internal(|| {
        let mut r = registry();
        if shard.epoch.load(Relaxed) == EPOCH.load(Relaxed) {
            shard.merge_into(&mut r.retired.sites);
            r.retired.depth_overflow |= shard.depth_overflow.load(Relaxed);
            r.retired.top = r.retired.top.plus(shard.top.get());
            #[cfg(feature = "cpu")]
            {
                r.retired.samples.0 += shard.samples.get();
                r.retired.samples.1 += shard.samples_outside.get();
            }
        }
        shard.reset_stats();
        for (_, s) in shard.slots() {
            s.active.store(0, Relaxed);
        }
        shard.depth.store(0, Relaxed);
        r.live.retain(|s| !std::ptr::eq(*s, shard));
        r.free.push(shard);
    })
}

/// Starts a new profiling session: everything recorded so far is discarded.
pub fn begin_epoch() {
    let mut r = registry();
    r.retired = Retired::default();
    #[cfg(feature = "alloc")]
    crate::meter::alloc::begin_session();
    EPOCH.fetch_add(1, Relaxed);
    refresh_key();
}

/// Merged numbers of every live and exited thread in the current epoch.
pub(crate) fn collect() -> Collected {
    crate::internal(|| {
        let r = registry();
        let epoch = EPOCH.load(Relaxed);
        let mut c = Collected {
            sites: r.retired.sites.clone(),
            depth_overflow: r.retired.depth_overflow,
            top: r.retired.top,
            #[cfg(feature = "cpu")]
            samples: r.retired.samples,
        };
        for s in &r.live {
            if s.epoch.load(Relaxed) == epoch {
                s.merge_into(&mut c.sites);
                c.depth_overflow |= s.depth_overflow.load(Relaxed);
                c.top = c.top.plus(s.top.get());
                #[cfg(feature = "cpu")]
                {
                    c.samples.0 += s.samples.get();
                    c.samples.1 += s.samples_outside.get();
                }
            }
        }
        c
    })
}

/// Number of threads with a shard right now, and shards kept for reuse.
pub fn thread_counts() -> (usize, usize) {
    let r = registry();
    (r.live.len(), r.free.len())
}
