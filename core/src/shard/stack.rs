//! A thread's scope stack: one frame per measured scope running on it, the innermost on
//! top, and the calls running now as a report sees them.
//!
//! # Safety invariants
//!
//! * The stack has one writer, its shard's owner thread. Every field is an atomic so
//!   that readers on other threads (snapshots, the CPU-sampling signal handler on the
//!   owner thread) see whole values; the owner updates with a relaxed load and store.
//! * One exception: another thread may compare-and-swap a frame's `seq` to [`DEAD`] when
//!   a guard pushed by the owner is dropped on that other thread. The owner only ever
//!   stores a fresh, globally unique `seq` ([`Stack::next_seq`]) into a frame it pushes,
//!   so that CAS succeeds only while the frame it names is still the one it pushed.
//! * Memory is small until used: the first [`INLINE_FRAMES`] frames are inline, deeper
//!   ones in segments of [`SEGMENT`] allocated on first use and never freed (a guard
//!   dropped on another thread may still compare-and-swap a frame of a shard whose
//!   thread has exited, and shards themselves are never freed).

use std::sync::atomic::{
    AtomicPtr, AtomicU32, AtomicU64,
    Ordering::{Acquire, Relaxed, Release},
};

use crate::cell::Cnt;
use crate::meter::ChildCells;

/// Frames held in the stack itself.
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
    /// Time measured child futures that completed inside this frame's poll spent
    /// suspended, when `awaited_seq` is the frame's `seq` (a child starts the count for
    /// the push it finds; nothing clears it at a push, so no call pays for it). Read by
    /// async polls at their pop.
    pub(crate) awaited: Cnt,
    /// The `seq` of the push `awaited` counts for.
    pub(crate) awaited_seq: Cnt,
    /// When the call this frame is a poll of started (its first poll), when `call_seq`
    /// is the frame's `seq`; otherwise the call started at `start`. Written by the later
    /// polls of a future only, so a synchronous call pays nothing for it.
    pub(crate) call_start: Cnt,
    /// The `seq` of the push `call_start` is for.
    pub(crate) call_seq: Cnt,
}

impl Frame {
    pub(crate) const fn new() -> Self {
        Frame {
            seq: AtomicU64::new(0),
            children: Cnt::new(),
            children_m: ChildCells::new(),
            site: AtomicU32::new(0),
            ctx: AtomicU32::new(0),
            start: Cnt::new(),
            awaited: Cnt::new(),
            awaited_seq: Cnt::new(),
            call_start: Cnt::new(),
            call_seq: Cnt::new(),
        }
    }

    /// When the call this frame belongs to started: its first poll for a future polled
    /// again, its entry otherwise.
    pub(crate) fn call_start(&self) -> u64 {
        if self.call_seq.get() == self.seq.load(Relaxed) {
            self.call_start.get()
        } else {
            self.start.get()
        }
    }
}

struct Segment {
    frames: [Frame; SEGMENT],
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

/// The scope stack of one thread.
///
/// `repr(C)`, frames first: the shard holds its stack first, so the per-call path
/// addresses an inline frame from the shard's own address, without an offset to add.
#[repr(C)]
pub(crate) struct Stack {
    /// The first frames.
    frames: [Frame; INLINE_FRAMES],
    /// Deeper frames, a segment at a time, allocated on first use and never freed.
    deep: [AtomicPtr<Segment>; SEGMENTS],
    /// Frames on the stack (may exceed [`MAX_DEPTH`]: the calls beyond have no frame).
    pub(crate) depth: AtomicU32,
    /// The last push number ([`Stack::next_seq`]).
    seq: Cnt,
}

impl Stack {
    pub(crate) const fn new() -> Self {
        Stack {
            frames: [const { Frame::new() }; INLINE_FRAMES],
            deep: [const { AtomicPtr::new(std::ptr::null_mut()) }; SEGMENTS],
            depth: AtomicU32::new(0),
            seq: Cnt::new(),
        }
    }

    /// Starts the push numbers of a new owner thread with serial number `serial`: they
    /// stay unique across threads and shard reuse.
    pub(crate) fn assign(&self, serial: u64) {
        const SEQ_SHIFT: u32 = 40;
        self.seq.set(serial << SEQ_SHIFT);
    }

    /// Next push number: unique across threads and shard reuse.
    #[inline(always)]
    pub(crate) fn next_seq(&self) -> u64 {
        let s = self.seq.get() + 1;
        self.seq.set(s);
        s
    }

    /// Frame `d` if it is one of those held in the stack itself (the per-call path).
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
        // SAFETY: a non-null segment pointer came from `zeroed::boxed` in `new_segment`
        // and is never freed or replaced; the `Acquire` load pairs with its `Release`
        // store, so the segment's initialisation is visible.
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
        let seg: &'static Segment =
            crate::internal(|| Box::leak(unsafe { crate::zeroed::boxed() }));
        self.deep[s].store(seg as *const Segment as *mut Segment, Release);
        &seg.frames[(d - INLINE_FRAMES) % SEGMENT]
    }

    /// The frames on the stack now, at most [`MAX_DEPTH`] (a reader on another thread
    /// may see one being pushed or popped).
    pub(crate) fn frames(&self) -> impl Iterator<Item = &Frame> {
        let depth = (self.depth.load(Relaxed) as usize).min(MAX_DEPTH);
        (0..depth).map_while(|d| self.frame(d))
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

    /// The innermost live frame on the stack, if any.
    #[inline(always)]
    pub(crate) fn innermost(&self) -> Option<&Frame> {
        let depth = self.depth.load(Relaxed) as usize;
        if depth == 0 || depth > MAX_DEPTH {
            return None;
        }
        self.frame(depth - 1)
    }

    /// Forgets the frames' nodes in the calling-context tree (it was reset, or the
    /// stacks came on after they were pushed).
    pub(crate) fn forget_ctx(&self) {
        for f in self.frames() {
            f.ctx.store(0, Relaxed);
        }
    }

    /// The calls running on this stack now (a reader on another thread may see a frame
    /// being pushed or popped: the figures are as of about now). Recursion adds to a
    /// site's running calls and total once, at its outermost frame.
    pub(crate) fn running_into(&self, now: u64, out: &mut Vec<(u32, Running)>) {
        // Calls an overhead budget does not time read no clock (`start` 0): not shown.
        let frames: Vec<&Frame> = self
            .frames()
            .filter(|f| f.seq.load(Relaxed) != DEAD && f.start.get() != 0)
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
}
