//! The calling-context tree: per thread, every path of measured scopes the thread ran,
//! with exact calls, inclusive and self wall time, and CPU per path.
//!
//! Switched on with [`configure`] (`HOTPATH_STACKS=1`). Each frame of the scope stack then
//! also holds the node of its path (`ctx`): `ctx = intern(parent's ctx, site)`, looked up
//! in the thread's open-addressing table, and a scope's exit adds one call, its self
//! time and (outside recursion) its inclusive time to that node. Direct recursion folds
//! into one node, as the flat table counts it: `main;fib;fib;fib` is `main;fib`, whose
//! inclusive time counts the outermost call and whose self time every level. An async
//! fn keeps the node of its first poll: later polls (on any thread) push that path. A
//! path is a node of the thread's tree, which is reset when that thread exits: a future
//! whose first poll ran on a thread that has exited since is recorded on the path of the
//! poll that completes it (runtime worker threads live as long as the runtime).
//!
//! # Memory
//!
//! A thread's tree is allocated zeroed on its first scope with stacks on, and never
//! freed (shards are reused, and so are their trees). Pages are touched only as nodes
//! are used. A tree holds at most the node budget ([`configure`]) of paths; past it, a
//! new path becomes the `[truncated]` child of its parent (from a reserve of 1/16 of the
//! budget, then the `[truncated]` child of the root), and the snapshot says so.
//!
//! # Safety invariants
//!
//! A tree has one writer, the thread whose shard holds it, except for the sample
//! counters, which only the CPU-sampling signal handler on that same thread writes
//! (see `Shard::credit_sample`): every field is an atomic, so readers on other threads
//! (snapshots, futures translating a path) see whole values. A node is complete before
//! `len` (released) or an index entry exposes it, and a node's parent and site never
//! change until the tree is reset; readers on other threads check the tree's generation
//! around what they read and discard it when a reset happened meanwhile.

use std::collections::HashMap;
use std::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU32, AtomicU64,
    Ordering::{Acquire, Relaxed, Release},
};

use crate::cell::Cnt;
use crate::shard::stack::MAX_DEPTH;
use crate::state;

/// Node of the root: the thread, outside every measured scope.
pub(crate) const ROOT: u32 = 1;
/// Node of the `[truncated]` child of the root: where paths go when even the reserve is
/// used up.
const TRUNC_ROOT: u32 = 2;
/// First node of a path.
const FIRST: u32 = 3;
/// Site id of a `[truncated]` node.
pub(crate) const TRUNCATED: u32 = u32::MAX - 1;

/// Paths per thread unless configured.
pub const DEFAULT_NODES: u32 = 8192;
/// Most paths per thread [`configure`] accepts.
pub const MAX_NODES: u32 = 1 << 22;

static BUDGET: AtomicU32 = AtomicU32::new(DEFAULT_NODES);
static GEN: AtomicU64 = AtomicU64::new(1);

/// `Entered::extra` is the frame's node (the low 24 bits: node indexes stay below
/// `2^24`) and these bits. The frame has a node:
pub(crate) const STACKS: u32 = 1 << 24;
/// The scope's exit writes the trace ring.
pub(crate) const TRACE: u32 = 2 << 24;
/// The frame's node is its parent's (direct recursion): inclusive time is not added.
pub(crate) const FOLDED: u32 = 4 << 24;
/// The node part of `Entered::extra`.
pub(crate) const CTX: u32 = (1 << 24) - 1;

/// Turns the calling-context tree on or off, with at most `nodes` paths per thread
/// (clamped to `16..=MAX_NODES`). The budget applies to trees allocated from now on: a
/// thread keeps the tree it has.
pub fn configure(on: bool, nodes: u32) {
    BUDGET.store(nodes.clamp(16, MAX_NODES), Relaxed);
    state::set_stacks(on);
}

/// The node budget per thread.
pub fn budget() -> u32 {
    BUDGET.load(Relaxed)
}

/// Numbers of one path on one thread. Durations in clock ticks.
#[derive(Default)]
pub(crate) struct Node {
    parent: AtomicU32,
    site: AtomicU32,
    calls: Cnt,
    total: Cnt,
    self_: Cnt,
    cpu_ns: Cnt,
    /// Written by the sampling signal handler only.
    samples: Cnt,
    /// The child looked up last: `site << 32 | node` (a loop calling one function finds
    /// it here without hashing).
    memo: AtomicU64,
}

impl Node {
    fn clear(&self) {
        self.parent.store(0, Relaxed);
        self.site.store(0, Relaxed);
        self.memo.store(0, Relaxed);
        for c in [
            &self.calls,
            &self.total,
            &self.self_,
            &self.cpu_ns,
            &self.samples,
        ] {
            c.set(0);
        }
    }
}

/// One thread's calling-context tree.
pub(crate) struct Tree {
    /// Unique per (tree, reset); 0 while a reset runs.
    gen: AtomicU64,
    len: AtomicU32,
    /// Nodes for paths; the rest is the reserve for `[truncated]` children.
    main: u32,
    nodes: Box<[Node]>,
    /// Open addressing, linear probing: node index or 0 (empty). At least twice as many
    /// entries as nodes, so probes stay short and it never fills.
    index: Box<[AtomicU32]>,
    mask: usize,
    overflowed: AtomicBool,
}

/// A path of some thread's tree, as a future keeps the path of its first poll.
#[derive(Clone, Copy)]
pub(crate) struct CtxRef {
    tree: &'static Tree,
    gen: u64,
    node: u32,
}

fn hash(parent: u32, site: u32) -> usize {
    let k = ((parent as u64) << 32) | site as u64;
    (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) as usize
}

impl Tree {
    fn new(budget: u32) -> Tree {
        let reserve = (budget / 16).max(8);
        let total = (FIRST + budget + reserve) as usize;
        let cap = (total * 2).next_power_of_two();
        let t = Tree {
            gen: AtomicU64::new(0),
            len: AtomicU32::new(0),
            main: budget,
            // SAFETY: nodes and index entries are atomic integers: zero is valid.
            nodes: unsafe { crate::zeroed::slice(total) },
            // SAFETY: as above.
            index: unsafe { crate::zeroed::slice(cap) },
            mask: cap - 1,
            overflowed: AtomicBool::new(false),
        };
        t.init();
        t
    }

    fn init(&self) {
        self.nodes[TRUNC_ROOT as usize].parent.store(ROOT, Relaxed);
        self.nodes[TRUNC_ROOT as usize]
            .site
            .store(TRUNCATED, Relaxed);
        self.overflowed.store(false, Relaxed);
        self.len.store(FIRST, Release);
        self.gen.store(GEN.fetch_add(1, Relaxed), Release);
    }

    /// Forgets every path (a new session, or a new owner thread).
    pub(crate) fn reset(&self) {
        self.gen.store(0, Release);
        let len = (self.len.load(Relaxed) as usize).min(self.nodes.len());
        for i in FIRST as usize..len {
            let n = &self.nodes[i];
            let mut h = hash(n.parent.load(Relaxed), n.site.load(Relaxed)) & self.mask;
            for _ in 0..self.index.len() {
                if self.index[h].load(Relaxed) == i as u32 {
                    self.index[h].store(0, Relaxed);
                    break;
                }
                h = (h + 1) & self.mask;
            }
        }
        for n in &self.nodes[..len] {
            n.clear();
        }
        self.init();
    }

    fn generation(&self) -> u64 {
        self.gen.load(Acquire)
    }

    /// The node of path `parent` + `site`, created on first use (owner only). Direct
    /// recursion folds: a site called from its own node stays in that node.
    #[inline]
    pub(crate) fn intern(&self, parent: u32, site: u32) -> u32 {
        let Some(p) = self.nodes.get(parent as usize) else {
            return TRUNC_ROOT;
        };
        if parent != ROOT && p.site.load(Relaxed) == site {
            return parent;
        }
        let memo = p.memo.load(Relaxed);
        if memo >> 32 == site as u64 && memo != 0 {
            return memo as u32;
        }
        let child = self.lookup(parent, site);
        p.memo.store((site as u64) << 32 | child as u64, Relaxed);
        child
    }

    /// The child of `parent` for `site` if it is the one `parent` found last (a loop
    /// calling one function), without hashing; `None` otherwise.
    #[inline(always)]
    pub(crate) fn memo(&self, parent: u32, site: u32) -> Option<u32> {
        let p = self.nodes.get(parent as usize)?;
        let memo = p.memo.load(Relaxed);
        // A memo never names the parent's own site (recursion folds before it).
        (memo >> 32 == site as u64 && parent != 0 && memo != 0).then_some(memo as u32)
    }

    fn lookup(&self, parent: u32, site: u32) -> u32 {
        let mut h = hash(parent, site) & self.mask;
        loop {
            let i = self.index[h].load(Relaxed);
            if i == 0 {
                return self.insert(h, parent, site);
            }
            let n = &self.nodes[i as usize];
            if n.parent.load(Relaxed) == parent && n.site.load(Relaxed) == site {
                return i;
            }
            h = (h + 1) & self.mask;
        }
    }

    #[cold]
    #[inline(never)]
    fn insert(&self, h: usize, parent: u32, site: u32) -> u32 {
        let len = self.len.load(Relaxed);
        let limit = if site == TRUNCATED {
            self.nodes.len() as u32
        } else {
            FIRST + self.main
        };
        if len >= limit || parent >= len {
            self.overflowed.store(true, Relaxed);
            return if site == TRUNCATED || parent >= len {
                TRUNC_ROOT
            } else {
                // Its parent's `[truncated]` child (itself, if the parent is one).
                self.intern(parent, TRUNCATED)
            };
        }
        let n = &self.nodes[len as usize];
        n.parent.store(parent, Relaxed);
        n.site.store(site, Relaxed);
        self.len.store(len + 1, Release);
        self.index[h].store(len, Relaxed);
        len
    }

    /// Adds one call to node `ctx` (owner only): inclusive time unless the call is
    /// folded into its caller's node (recursion), its self time, exact-mode self CPU.
    #[inline]
    pub(crate) fn record(&self, ctx: u32, incl: u64, self_: u64, cpu_ns: u64, folded: bool) {
        if let Some(n) = self.nodes.get(ctx as usize) {
            n.calls.add(1);
            if !folded {
                n.total.add(incl);
            }
            n.self_.add(self_);
            if cpu_ns != 0 {
                n.cpu_ns.add(cpu_ns);
            }
        }
    }

    #[cfg_attr(not(feature = "cpu"), allow(dead_code))]
    /// One CPU sample in node `ctx` (the sampling signal handler on the owner thread:
    /// no allocation, no lock).
    #[inline]
    pub(crate) fn sample(&self, ctx: u32) {
        if ctx < self.len.load(Relaxed) {
            if let Some(n) = self.nodes.get(ctx as usize) {
                n.samples.add(1);
            }
        }
    }

    /// A reference to node `ctx` that other threads can translate.
    pub(crate) fn at(&'static self, ctx: u32) -> CtxRef {
        CtxRef {
            tree: self,
            gen: self.generation(),
            node: ctx,
        }
    }

    /// Node `r` of another (or this) tree, as a node of this one (owner only): the same
    /// path of sites. `None` when that tree was reset since `r` was taken.
    pub(crate) fn translate(&self, r: CtxRef) -> Option<u32> {
        if std::ptr::eq(r.tree, self) {
            return (r.gen == self.generation()).then_some(r.node);
        }
        let mut sites = [0u32; MAX_DEPTH + 2];
        let mut n = 0;
        let mut i = r.node;
        while i != ROOT {
            let node = r.tree.nodes.get(i as usize)?;
            if n == sites.len() || i == 0 {
                return None;
            }
            sites[n] = node.site.load(Relaxed);
            n += 1;
            i = node.parent.load(Relaxed);
        }
        if r.tree.generation() != r.gen {
            return None;
        }
        Some(
            sites[..n]
                .iter()
                .rev()
                .fold(ROOT, |ctx, &site| self.intern(ctx, site)),
        )
    }
}

/// The tree of one thread, held by its shard: leaked on its first scope with stacks on
/// (null until then), never freed or replaced (shards are reused, and so are their
/// trees).
pub(crate) struct ThreadTree(AtomicPtr<Tree>);

impl ThreadTree {
    pub(crate) const fn new() -> Self {
        ThreadTree(AtomicPtr::new(std::ptr::null_mut()))
    }

    /// The tree, if the thread has one.
    #[inline(always)]
    pub(crate) fn get(&self) -> Option<&'static Tree> {
        let p = self.0.load(Acquire);
        // SAFETY: a non-null pointer came from `Box::leak` in `new_tree` and is never
        // freed or replaced.
        (!p.is_null()).then(|| unsafe { &*p })
    }

    #[cold]
    #[inline(never)]
    fn new_tree(&self) -> &'static Tree {
        let t: &'static Tree = crate::internal(|| Box::leak(Box::new(Tree::new(budget()))));
        self.0.store(t as *const Tree as *mut Tree, Release);
        t
    }

    /// The tree, allocated on first use (owner only).
    #[inline]
    pub(crate) fn get_or_new(&self) -> &'static Tree {
        match self.get() {
            Some(t) => t,
            None => self.new_tree(),
        }
    }

    /// Records one call in this (the calling thread's) tree, on `path`: the node its
    /// frame was pushed on, translated when the call ends on another thread.
    pub(crate) fn record_call(
        &self,
        path: CtxRef,
        incl: u64,
        self_: u64,
        cpu_ns: u64,
        folded: bool,
    ) {
        let t = self.get_or_new();
        if let Some(c) = t.translate(path) {
            t.record(c, incl, self_, cpu_ns, folded);
        }
    }
}

/// The extras bits a shard caches when it syncs: `STACKS`, `TRACE`.
pub(crate) fn bits() -> u64 {
    (if state::stacks() { STACKS as u64 } else { 0 })
        | if state::trace() { TRACE as u64 } else { 0 }
}

/// A path merged over threads: what a snapshot reports.
#[derive(Clone, Debug, Default)]
pub(crate) struct MergedNode {
    pub(crate) parent: u32,
    pub(crate) site: u32,
    pub(crate) calls: u64,
    pub(crate) total: u64,
    pub(crate) self_: u64,
    pub(crate) cpu_ns: u64,
    pub(crate) samples: u64,
}

/// Trees merged over threads, by path. Node 0 is the root; a node's parent comes
/// before it.
#[derive(Clone, Debug)]
pub(crate) struct Merged {
    pub(crate) nodes: Vec<MergedNode>,
    index: HashMap<(u32, u32), u32>,
    /// Threads whose tree reached its budget.
    pub(crate) overflowed: u64,
}

impl Default for Merged {
    fn default() -> Self {
        Merged {
            nodes: vec![MergedNode::default()],
            index: HashMap::new(),
            overflowed: 0,
        }
    }
}

impl Merged {
    fn intern(&mut self, parent: u32, site: u32) -> u32 {
        let next = self.nodes.len() as u32;
        let i = *self.index.entry((parent, site)).or_insert(next);
        if i == next {
            self.nodes.push(MergedNode {
                parent,
                site,
                ..MergedNode::default()
            });
        }
        i
    }

    /// Adds a thread's tree.
    pub(crate) fn add(&mut self, t: &Tree) {
        let len = (t.len.load(Acquire) as usize).min(t.nodes.len());
        if len <= ROOT as usize {
            return;
        }
        let mut map = vec![0u32; len];
        for i in TRUNC_ROOT as usize..len {
            let n = &t.nodes[i];
            let p = n.parent.load(Relaxed) as usize;
            let parent = if p < i { map[p] } else { 0 };
            let m = self.intern(parent, n.site.load(Relaxed));
            map[i] = m;
            let out = &mut self.nodes[m as usize];
            out.calls += n.calls.get();
            out.total += n.total.get();
            out.self_ += n.self_.get();
            out.cpu_ns += n.cpu_ns.get();
            out.samples += n.samples.get();
        }
        if t.overflowed.load(Relaxed) {
            self.overflowed += 1;
        }
    }
}

/// One path of the calling-context tree, merged over threads, durations in ns.
#[derive(Clone, Debug)]
pub struct StackNode {
    /// Index of the parent path in [`Stacks::nodes`] (0: the root).
    pub parent: usize,
    /// The call site at the end of the path; `None` for the root and for `[truncated]`.
    pub site: Option<&'static crate::CallSite>,
    /// Paths past the node budget, folded into one node.
    pub truncated: bool,
    /// Calls that ran on this path (direct recursion folded in: every level counts).
    pub calls: u64,
    /// Inclusive wall time; direct recursion counts the outermost call.
    pub total_ns: u64,
    /// Wall time not spent in measured children (async: busy time minus children).
    pub self_ns: u64,
    /// Exact CPU mode: CPU time not spent in measured children.
    pub self_cpu_ns: u64,
    /// Sampled CPU mode: samples taken with this path on top of the stack.
    pub self_samples: u64,
}

/// The calling-context trees of every thread, merged by path.
#[derive(Clone, Debug, Default)]
pub struct Stacks {
    /// Node 0 is the root; a node's parent comes before it.
    pub nodes: Vec<StackNode>,
    /// Threads whose tree reached the node budget (their later paths are `[truncated]`).
    pub overflowed_threads: u64,
    /// The node budget per thread.
    pub budget: u32,
}

impl Merged {
    /// The merged trees in ns, leaving out the profiler's internal sites.
    pub(crate) fn finish(&self, ns_per_tick: f64) -> Stacks {
        let sites = crate::site::all();
        let ns = |t: u64| (t as f64 * ns_per_tick).round() as u64;
        let mut map: Vec<Option<usize>> = vec![None; self.nodes.len()];
        let mut nodes = Vec::with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            let (parent, site, truncated) = if i == 0 {
                (0, None, false)
            } else {
                let Some(parent) = map.get(n.parent as usize).copied().flatten() else {
                    continue;
                };
                if n.site == TRUNCATED {
                    (parent, None, true)
                } else {
                    match sites.get(n.site as usize) {
                        Some(s) if s.kind() != crate::SiteKind::Internal => {
                            (parent, Some(*s), false)
                        }
                        _ => continue,
                    }
                }
            };
            map[i] = Some(nodes.len());
            nodes.push(StackNode {
                parent,
                site,
                truncated,
                calls: n.calls,
                total_ns: ns(n.total),
                self_ns: ns(n.self_),
                self_cpu_ns: n.cpu_ns,
                self_samples: n.samples,
            });
        }
        Stacks {
            nodes,
            overflowed_threads: self.overflowed,
            budget: budget(),
        }
    }
}
