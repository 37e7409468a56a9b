//! Each thread's trace ring: its latest calls, 24 bytes each (site, kind, start and end
//! ticks), allocated zeroed on its first traced call and written at each scope's exit;
//! it keeps the latest calls (a flight recorder) and counts the ones it overwrote. Rings
//! of threads that exited are kept, up to [`MAX_RETIRED`], the oldest freed first (and
//! counted).
//!
//! # Safety invariants
//!
//! A ring has one writer, the thread whose shard holds it. Its fields are atomics, so a
//! reader on another thread sees whole values (a record being written may be torn
//! across its fields; the snapshot is taken when the session ends). Rings move between
//! a shard and the retired list only under the registry lock, which readers hold too.

use std::collections::VecDeque;
use std::sync::atomic::{
    AtomicPtr, AtomicU32, AtomicU64,
    Ordering::{Acquire, Relaxed, Release},
};

use crate::cell::Cnt;
use crate::site::CallSite;

/// Records per thread unless configured.
pub const DEFAULT_CAPACITY: u32 = 65_536;
/// Rings of exited threads kept.
pub const MAX_RETIRED: usize = 256;

static CAPACITY: AtomicU32 = AtomicU32::new(DEFAULT_CAPACITY);

/// What a record is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A call of a sync function or block.
    Sync,
    /// One poll of an async fn.
    Poll,
    /// A whole async call: first poll to `Ready` (or to its drop, cancelled).
    Async,
}

impl Kind {
    fn from_u32(k: u32) -> Kind {
        match k {
            1 => Kind::Poll,
            2 => Kind::Async,
            _ => Kind::Sync,
        }
    }
}

/// Records per ring from now on (at least 16).
pub(crate) fn set_capacity(capacity: u32) {
    CAPACITY.store(capacity.max(16), Relaxed);
}

/// Records per ring.
pub(crate) fn capacity() -> u32 {
    CAPACITY.load(Relaxed)
}

#[derive(Default)]
struct Rec {
    site: AtomicU32,
    kind: AtomicU32,
    start: AtomicU64,
    end: AtomicU64,
}

/// One thread's ring.
pub(crate) struct Ring {
    recs: Box<[Rec]>,
    /// Next position to write.
    pos: Cnt,
    /// Records written since the last reset.
    pub(crate) written: Cnt,
    tid: u64,
    name: String,
}

impl Ring {
    fn new() -> Ring {
        let cap = CAPACITY.load(Relaxed).max(16) as usize;
        let (tid, name) = thread_ids();
        Ring {
            // SAFETY: `Rec` is made of atomic integers, valid when all bytes are zero.
            recs: unsafe { crate::zeroed::slice(cap) },
            pos: Cnt::new(),
            written: Cnt::new(),
            tid,
            name,
        }
    }

    #[inline]
    fn write(&self, site: u32, kind: Kind, start: u64, end: u64) {
        let p = self.pos.get() as usize;
        let r = &self.recs[p.min(self.recs.len() - 1)];
        r.site.store(site, Relaxed);
        r.kind.store(kind as u32, Relaxed);
        r.start.store(start, Relaxed);
        r.end.store(end, Relaxed);
        self.pos.set(if p + 1 >= self.recs.len() {
            0
        } else {
            p as u64 + 1
        });
        self.written.add(1);
    }

    fn reset(&self) {
        self.pos.set(0);
        self.written.set(0);
    }

    /// The calls this ring holds, oldest first, leaving out the profiler's own sites.
    pub(crate) fn snapshot(&self, sites: &[&'static CallSite]) -> ThreadTrace {
        let written = self.written.get();
        let cap = self.recs.len() as u64;
        let kept = written.min(cap);
        let first = if written > cap { self.pos.get() } else { 0 };
        let mut events = Vec::with_capacity(kept as usize);
        for k in 0..kept {
            let r = &self.recs[((first + k) % cap) as usize];
            let Some(site) = sites.get(r.site.load(Relaxed) as usize) else {
                continue;
            };
            if site.kind() == crate::SiteKind::Internal {
                continue;
            }
            events.push(Event {
                site,
                kind: Kind::from_u32(r.kind.load(Relaxed)),
                start: r.start.load(Relaxed),
                end: r.end.load(Relaxed),
            });
        }
        ThreadTrace {
            tid: self.tid,
            name: self.name.clone(),
            events,
            dropped: written - kept,
        }
    }
}

/// The calling thread's OS id and name (Linux: from `/proc/thread-self`), or a serial
/// number and `thread-N` elsewhere.
fn thread_ids() -> (u64, String) {
    static SERIAL: AtomicU64 = AtomicU64::new(1);
    let tid = std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name()?.to_str()?.parse::<u64>().ok());
    let name = std::fs::read_to_string("/proc/thread-self/comm")
        .ok()
        .map(|s| s.trim_end().to_string());
    let tid = tid.unwrap_or_else(|| SERIAL.fetch_add(1, Relaxed) | 1 << 32);
    let name = name.unwrap_or_else(|| format!("thread-{tid}"));
    (tid, name)
}

static RETIRED: crate::fork::Mutex<Retired> = crate::fork::Mutex::new(
    crate::fork::Rank::TraceRings,
    Retired {
        rings: VecDeque::new(),
        freed: 0,
    },
);

/// The rings of exited threads.
pub(crate) struct Retired {
    pub(crate) rings: VecDeque<Box<Ring>>,
    /// Rings of exited threads freed because more than [`MAX_RETIRED`] were kept.
    pub(crate) freed: u64,
}

/// The rings of exited threads, locked.
pub(crate) fn retired() -> std::sync::MutexGuard<'static, Retired> {
    RETIRED.lock()
}

/// The ring of one thread, held by its shard: null until its first traced call.
pub(crate) struct ThreadRing(AtomicPtr<Ring>);

impl ThreadRing {
    pub(crate) const fn new() -> Self {
        ThreadRing(AtomicPtr::new(std::ptr::null_mut()))
    }

    /// The ring, if the thread has one.
    pub(crate) fn get(&self) -> Option<&Ring> {
        let p = self.0.load(Acquire);
        // SAFETY: a non-null pointer came from `Box::into_raw` in `write` and is freed
        // only by `retire`, which takes it out first, under the registry lock, on the
        // owner thread (which is exiting) or with no owner.
        (!p.is_null()).then(|| unsafe { &*p })
    }

    /// Writes one record in this (the calling thread's) ring, allocating it on first use.
    #[inline]
    pub(crate) fn write(&self, site: u32, kind: Kind, start: u64, end: u64) {
        let ring = match self.get() {
            Some(r) => r,
            None => {
                let r = crate::internal(|| Box::into_raw(Box::new(Ring::new())));
                self.0.store(r, Release);
                match self.get() {
                    Some(r) => r,
                    None => return,
                }
            }
        };
        ring.write(site, kind, start, end);
    }

    /// Clears the ring (a new session).
    pub(crate) fn reset(&self) {
        if let Some(r) = self.get() {
            r.reset();
        }
    }

    /// Moves the ring of a thread that is exiting to the retired list (registry lock
    /// held) when `keep`: its calls stay in the trace, and the next thread gets a new
    /// ring.
    pub(crate) fn retire(&self, keep: bool) {
        let p = self.0.swap(std::ptr::null_mut(), Acquire);
        if p.is_null() {
            return;
        }
        // SAFETY: `p` came from `Box::into_raw` and was just taken out of the shard, so
        // nothing else frees it.
        let ring = unsafe { Box::from_raw(p) };
        if !keep || ring.written.get() == 0 {
            return;
        }
        let mut r = retired();
        r.rings.push_back(ring);
        while r.rings.len() > MAX_RETIRED {
            r.rings.pop_front();
            r.freed += 1;
        }
    }
}

/// Forgets the rings of exited threads (a new session).
pub(crate) fn clear_retired() {
    let mut r = retired();
    r.rings.clear();
    r.freed = 0;
}

/// One traced call.
#[derive(Clone, Copy, Debug)]
pub struct Event {
    /// Its call site.
    pub site: &'static CallSite,
    /// What it is.
    pub kind: Kind,
    /// Clock reading at its start, ticks.
    pub start: u64,
    /// Clock reading at its end, ticks.
    pub end: u64,
}

/// The calls one thread's ring holds, oldest first.
#[derive(Clone, Debug)]
pub struct ThreadTrace {
    /// OS thread id (Linux), else a serial number.
    pub tid: u64,
    /// Thread name.
    pub name: String,
    /// The calls kept.
    pub events: Vec<Event>,
    /// Calls overwritten by later ones.
    pub dropped: u64,
}
