//! The registry of shards: which thread has which shard, what exited threads recorded,
//! and the merge of everything into one set of numbers per call site.
//!
//! A thread takes a shard on its first measured call ([`current`], through [`acquire`])
//! and gives it back when it exits (its `Owner` thread-local's destructor, through
//! [`retire`]): its numbers are merged into the registry's `retired` totals and the
//! shard goes to a free list for the next new thread. Snapshots ([`collect`]) hold the
//! registry lock while they read, so a shard is never reassigned under a reader. Memory
//! is bounded by (call sites × most threads alive at once).
//!
//! # Safety invariants
//!
//! * A thread finds its shard through a const-initialised, `Drop`-free thread-local
//!   (`CURRENT`), readable from the CPU-sampling signal handler (`credit_cpu_sample`,
//!   which reads only that shard and writes only its sample counters: no allocation, no
//!   lock) and while the thread's thread-locals are being destroyed (the shard is then
//!   `DEAD_SHARD`, which records nothing).
//! * A shard is handed to another thread only after its owner exited and it was retired
//!   under the registry lock; what retirement frees is listed in `Shard::release_memory`.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering::Relaxed};

use crate::fork::{Mutex, Rank};

use crate::holders::HolderMap;
use crate::meter::Delta;
use crate::shard::stack::Running;
use crate::shard::Shard;
use crate::slot::Merged;
use crate::slot::SiteLoad;

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
    deep_calls: u64,
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
    /// Calls that ran deeper than [`crate::MAX_DEPTH`].
    pub(crate) deep_calls: u64,
    /// What the meters counted inside outermost frames, over all threads.
    #[allow(dead_code)]
    pub(crate) top: Delta,
    /// CPU samples taken, and those outside every measured scope.
    #[cfg(feature = "cpu")]
    pub(crate) samples: (u64, u64),
    /// The calling-context trees, merged; `None` when no thread has one.
    pub(crate) stacks: Option<crate::stacks::Merged>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(
    Rank::Shards,
    Registry {
        live: Vec::new(),
        free: Vec::new(),
        retired: Retired {
            sites: Vec::new(),
            holders: None,
            deep_calls: 0,
            top: Delta::ZERO,
            #[cfg(feature = "cpu")]
            samples: (0, 0),
            stacks: None,
        },
        next_serial: 1,
    },
)
.in_child(|_| forked_child());

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    let mut r = REGISTRY.lock();
    if FORKED.swap(false, Relaxed) {
        r.adopt_orphans();
    }
    r
}

/// Set in a forked child (by [`forked_child`]): the shards of the parent's other threads
/// are still registered as live, and the next holder of the lock retires them.
static FORKED: AtomicBool = AtomicBool::new(false);
/// The shard of the thread that called `fork()`: the only one alive in the child.
static SURVIVOR: AtomicPtr<Shard> = AtomicPtr::new(std::ptr::null_mut());

/// In a forked child, with the registry lock still held by the fork handler: the
/// shards of the threads that were not copied are marked for retirement. Does not
/// allocate.
fn forked_child() {
    let me = current_raw().map_or(std::ptr::null_mut(), |s| s as *const Shard as *mut Shard);
    SURVIVOR.store(me, Relaxed);
    FORKED.store(true, Relaxed);
}

impl Registry {
    /// Takes back a shard whose thread is gone: its numbers of the current epoch go to
    /// the retired totals, its slot memory back to the allocator (the next owner
    /// allocates what it uses), the shard itself to the free list.
    fn take_back(&mut self, shard: &'static Shard) {
        let current = shard.epoch.load(Relaxed) == crate::state::epoch();
        shard.ring.retire(current);
        if current {
            if let Some(t) = shard.tree.get() {
                self.retired
                    .stacks
                    .get_or_insert_with(Default::default)
                    .add(t);
            }
            shard.merge_into(&mut self.retired.sites);
            shard
                .holders
                .merge_into(self.retired.holders.get_or_insert_with(HolderMap::new));
            self.retired.deep_calls += shard.deep_calls.get();
            self.retired.top = self.retired.top.plus(shard.top.get());
            #[cfg(feature = "cpu")]
            {
                self.retired.samples.0 += shard.samples.get();
                self.retired.samples.1 += shard.samples_outside.get();
            }
        }
        shard.reset_stats();
        shard.reset_stack();
        shard.release_memory();
        self.live.retain(|s| !std::ptr::eq(*s, shard));
        self.free.push(shard);
    }

    /// In a forked child: the threads of the parent other than the one that forked do
    /// not exist here. Their shards keep what they recorded (merged as if they had
    /// exited: a report made in the child includes what the parent recorded before the
    /// fork) and go to the free list, so that no call of theirs shows as running.
    fn adopt_orphans(&mut self) {
        crate::internal(|| {
            let survivor = SURVIVOR.load(Relaxed) as *const Shard;
            let orphans: Vec<&'static Shard> = self
                .live
                .iter()
                .copied()
                .filter(|s| !std::ptr::eq(*s, survivor))
                .collect();
            for shard in orphans {
                self.take_back(shard);
            }
        })
    }
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
                crate::meter::cpu::clock::thread_exiting();
                retire(s);
            }
        }
    }
}

/// The calling thread's shard, if it has one (no creation, no synchronisation).
#[inline(always)]
pub(crate) fn current_raw() -> Option<&'static Shard> {
    CURRENT.try_with(Cell::get).ok().flatten()
}

/// The calling thread's shard, created on first use and synchronised with the global
/// state; `None` while the thread's thread-locals are being destroyed.
#[inline]
pub(crate) fn current() -> Option<&'static Shard> {
    match CURRENT.try_with(Cell::get) {
        Ok(Some(s)) if s.synced.get() == crate::state::key() => Some(s),
        _ => current_slow(),
    }
}

/// The calling thread's shard if it has one and is not tearing down (no creation, no
/// synchronisation).
#[inline]
pub(crate) fn current_live() -> Option<&'static Shard> {
    current_raw().filter(|s| !std::ptr::eq(*s, &DEAD_SHARD))
}

/// Whether `shard` is the calling thread's.
#[inline(always)]
pub(crate) fn is_current(shard: &'static Shard) -> bool {
    matches!(CURRENT.try_with(Cell::get), Ok(Some(s)) if std::ptr::eq(s, shard))
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

/// Credits one sampling period to the functions on the calling thread's scope stack:
/// every distinct one on it (inclusive) and the one on top (self).
///
/// Async-signal-safe: call it from the CPU-sampling signal's handler on the thread that
/// was sampled. It reads only that thread's shard (its scope stack, and slots that
/// already exist: it never allocates, never locks) and writes only the sample counters,
/// which nothing else writes while the thread runs: the thread itself is the
/// interrupted single writer. Threads without measured code are ignored.
#[cfg(feature = "cpu")]
pub fn credit_cpu_sample() {
    if let Some(shard) = current_live() {
        shard.credit_sample();
    }
}

/// A shard for the calling thread: a free one, or a new one.
fn acquire() -> &'static Shard {
    let mut r = registry();
    let shard = match r.free.pop() {
        Some(s) => s,
        None => Box::leak(Shard::boxed()),
    };
    let serial = r.next_serial;
    r.next_serial += 1;
    shard.assign(serial);
    r.live.push(shard);
    shard
}

/// Takes back the shard of a thread that is exiting.
fn retire(shard: &'static Shard) {
    crate::internal(|| registry().take_back(shard));
    trim_now_and_then();
}

/// Threads retired since the allocator was last asked to return free memory.
static RETIRED_SINCE_TRIM: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Every 64 retired threads, asks glibc's allocator to give free pages back to the
/// system. A retired shard frees its slot memory (a few KiB per thread), but glibc
/// keeps freed blocks of its per-thread arenas resident: after 2,000 threads exited,
/// 10 MB of such blocks stayed in the process's resident memory. Outside any lock; at
/// most once per 64 thread exits.
fn trim_now_and_then() {
    if RETIRED_SINCE_TRIM.fetch_add(1, Relaxed) % 64 != 63 {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: glibc's `malloc_trim` takes no pointer, locks each arena itself, and
        // may be called from any thread at any time; it only releases free memory.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// Starts a new profiling session: everything recorded so far is discarded.
pub fn begin_epoch() {
    let mut r = registry();
    r.retired = Retired::default();
    crate::trace::ring::clear_retired();
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
            deep_calls: r.retired.deep_calls,
            top: r.retired.top,
            #[cfg(feature = "cpu")]
            samples: r.retired.samples,
            stacks: r.retired.stacks.clone(),
        };
        for s in &r.live {
            if s.epoch.load(Relaxed) == epoch {
                s.merge_into(&mut c.sites);
                s.holders.merge_into(&mut c.holders);
                c.deep_calls += s.deep_calls.get();
                c.top = c.top.plus(s.top.get());
                #[cfg(feature = "cpu")]
                {
                    c.samples.0 += s.samples.get();
                    c.samples.1 += s.samples_outside.get();
                }
                if let Some(t) = s.tree.get() {
                    c.stacks.get_or_insert_with(Default::default).add(t);
                }
            }
        }
        c
    })
}

/// [`SiteLoad`] per call-site number, `out` resized to hold every number in use. Reads
/// counters only (no histogram is merged).
pub fn site_loads(out: &mut Vec<SiteLoad>) {
    crate::internal(|| {
        let r = registry();
        let epoch = crate::state::epoch();
        out.iter_mut().for_each(|l| *l = SiteLoad::default());
        let mut add = |id: usize, l: SiteLoad| {
            if out.len() <= id {
                out.resize(id + 1, SiteLoad::default());
            }
            let o = &mut out[id];
            o.calls += l.calls;
            o.charged |= l.charged;
            o.sum = o.sum.wrapping_add(l.sum);
            o.weight += l.weight;
        };
        for (id, m) in r.retired.sites.iter().enumerate() {
            if let Some(m) = m {
                let c = &m.c;
                add(
                    id,
                    SiteLoad {
                        calls: m.calls(),
                        charged: c.fn_read
                            | c.fn_write
                            | c.fn_io
                            | c.wait_lock
                            | c.wait_send
                            | c.wait_recv
                            | c.wait_sql
                            | c.wait_http
                            != 0,
                        sum: c.sum,
                        weight: c.timed + c.extra_weight,
                    },
                );
            }
        }
        for s in &r.live {
            if s.epoch.load(Relaxed) == epoch {
                for (id, slot) in s.slots.iter() {
                    add(id as usize, slot.load());
                }
            }
        }
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
pub(crate) fn running(now: u64) -> Vec<(u32, Running)> {
    crate::internal(|| {
        let r = registry();
        let epoch = crate::state::epoch();
        let mut out = Vec::new();
        for s in &r.live {
            if s.epoch.load(Relaxed) == epoch {
                s.stack.running_into(now, &mut out);
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
