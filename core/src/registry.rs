//! The registry of shards: which threads have one, what exited threads recorded, and the
//! merge of everything into one set of numbers per call site.
//!
//! A thread takes a shard on its first measured call ([`acquire`]) and gives it back when
//! it exits ([`retire`]): its numbers are merged into the registry's `retired` totals and
//! the shard goes to a free list for the next new thread. Snapshots ([`collect`]) hold the
//! registry lock while they read, so a shard is never reassigned under a reader. Memory
//! is bounded by (call sites × most threads alive at once).

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Mutex;

use crate::holders::HolderMap;
use crate::meter::Delta;
use crate::shard::Shard;
use crate::slot::Merged;

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
    holders: Option<HolderMap>,
    depth_overflow: bool,
    top: Delta,
    #[cfg(feature = "cpu")]
    samples: (u64, u64),
    stacks: Option<crate::stacks::Merged>,
}

/// Everything the shards recorded in the current epoch.
pub(crate) struct Collected {
    /// Per site id.
    pub(crate) sites: Vec<Option<Merged>>,
    /// (Operation site, function) pairs, by site ids.
    pub(crate) holders: HolderMap,
    /// Some thread nested deeper than [`crate::MAX_DEPTH`].
    pub(crate) depth_overflow: bool,
    /// What the meters counted inside outermost frames, over all threads.
    #[allow(dead_code)]
    pub(crate) top: Delta,
    /// CPU samples taken, and those outside every measured scope.
    #[cfg(feature = "cpu")]
    pub(crate) samples: (u64, u64),
    /// The calling-context trees, merged; `None` when no thread has one.
    pub(crate) stacks: Option<crate::stacks::Merged>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: Vec::new(),
    free: Vec::new(),
    retired: Retired {
        sites: Vec::new(),
        holders: None,
        depth_overflow: false,
        top: Delta::ZERO,
        #[cfg(feature = "cpu")]
        samples: (0, 0),
        stacks: None,
    },
    next_serial: 1,
});

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// A shard for the calling thread: a free one, or a new one.
pub(crate) fn acquire() -> &'static Shard {
    let mut r = registry();
    let shard = match r.free.pop() {
        Some(s) => s,
        None => Box::leak(Box::new(Shard::new(0))),
    };
    let serial = r.next_serial;
    r.next_serial += 1;
    shard.assign(serial);
    r.live.push(shard);
    shard
}

/// Takes back the shard of a thread that is exiting.
pub(crate) fn retire(shard: &'static Shard) {
    crate::internal(|| {
        let mut r = registry();
        let current = shard.epoch.load(Relaxed) == crate::state::epoch();
        shard.retire_ring(current);
        if current {
            if let Some(t) = shard.tree() {
                r.retired.stacks.get_or_insert_with(Default::default).add(t);
            }
            shard.merge_into(&mut r.retired.sites);
            shard.merge_holders(r.retired.holders.get_or_insert_with(HolderMap::new));
            r.retired.depth_overflow |= shard.depth_overflow.load(Relaxed);
            r.retired.top = r.retired.top.plus(shard.top.get());
            #[cfg(feature = "cpu")]
            {
                r.retired.samples.0 += shard.samples.get();
                r.retired.samples.1 += shard.samples_outside.get();
            }
        }
        shard.reset_stats();
        shard.reset_stack();
        r.live.retain(|s| !std::ptr::eq(*s, shard));
        r.free.push(shard);
    })
}

/// Starts a new profiling session: everything recorded so far is discarded.
pub fn begin_epoch() {
    let mut r = registry();
    r.retired = Retired::default();
    crate::trace::clear_retired();
    crate::state::next_epoch();
}

/// Merged numbers of every live and exited thread in the current epoch.
pub(crate) fn collect() -> Collected {
    crate::internal(|| {
        let r = registry();
        let epoch = crate::state::epoch();
        let mut c = Collected {
            sites: r.retired.sites.clone(),
            holders: r.retired.holders.clone().unwrap_or_default(),
            depth_overflow: r.retired.depth_overflow,
            top: r.retired.top,
            #[cfg(feature = "cpu")]
            samples: r.retired.samples,
            stacks: r.retired.stacks.clone(),
        };
        for s in &r.live {
            if s.epoch.load(Relaxed) == epoch {
                s.merge_into(&mut c.sites);
                s.merge_holders(&mut c.holders);
                c.depth_overflow |= s.depth_overflow.load(Relaxed);
                c.top = c.top.plus(s.top.get());
                #[cfg(feature = "cpu")]
                {
                    c.samples.0 += s.samples.get();
                    c.samples.1 += s.samples_outside.get();
                }
                if let Some(t) = s.tree() {
                    c.stacks.get_or_insert_with(Default::default).add(t);
                }
            }
        }
        c
    })
}

/// Runs `f` on the shards of live threads, registry lock held (no shard is retired or
/// reassigned meanwhile).
pub(crate) fn with_live(f: impl FnOnce(&[&'static Shard])) {
    let r = registry();
    f(&r.live);
}

/// The calls running on every live thread in the current epoch, per site id, as of
/// clock reading `now`.
pub(crate) fn running(now: u64) -> Vec<(u32, crate::shard::Running)> {
    crate::internal(|| {
        let r = registry();
        let epoch = crate::state::epoch();
        let mut out = Vec::new();
        for s in &r.live {
            if s.epoch.load(Relaxed) == epoch {
                s.running_into(now, &mut out);
            }
        }
        out
    })
}

/// Number of threads with a shard right now, and shards kept for reuse.
pub fn thread_counts() -> (usize, usize) {
    let r = registry();
    (r.live.len(), r.free.len())
}
