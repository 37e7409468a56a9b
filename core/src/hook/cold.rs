//! The cold hook: what runs around the profiler's first-use work inside a measured call
//! (see [`set_cold_hook`]). A leaf: numbering a call site and allocating a shard's slots
//! run their work through [`cold`], below everything that measures.

use std::cell::Cell;
use std::sync::atomic::{AtomicPtr, Ordering};

/// What runs around the profiler's first-use work inside a measured call: the slow
/// entry of a scope (a thread's shard, a missed cached slot), numbering a call site, and
/// allocating a chunk of slots. `false` before, `true` after. The facade's
/// `hotpath-callgrind` sets it under valgrind to stop callgrind counting there: what
/// that work costs depends on the allocator's state and the registry's lock, which the
/// profiler's other threads (and the environment's size) change from run to run.
static COLD_HOOK: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());

/// Installs `hook` around every later first-use work of the profiler's (see
/// [`cold`]); `false` (and no change) when one is installed already.
pub fn set_cold_hook(hook: fn(bool)) -> bool {
    COLD_HOOK
        .compare_exchange(
            std::ptr::null_mut(),
            hook as *mut (),
            Ordering::AcqRel,
            Ordering::Acquire,
        )
        .is_ok()
}

/// Runs `f`, the profiler's first-use work, between the calls of the hook set by
/// [`set_cold_hook`] (if any). Unset, it costs one acquire load on a cold path. Nested
/// (a slot's chunk allocated in a slow entry) only the outermost calls the hook, so a
/// hook that toggles something (callgrind's `CALLGRIND_TOGGLE_COLLECT`) sees pairs.
#[inline(always)]
pub(crate) fn cold<R>(f: impl FnOnce() -> R) -> R {
    let p = COLD_HOOK.load(Ordering::Acquire);
    if p.is_null() {
        return f();
    }
    // SAFETY: the only non-null value ever stored is a `fn(bool)` cast to a pointer by
    // `set_cold_hook`; function pointers and data pointers have the same size on every
    // target Rust supports with atomics of pointer width.
    let h = unsafe { std::mem::transmute::<*mut (), fn(bool)>(p) };
    let depth = COLD_DEPTH.with(|d| {
        let v = d.get();
        d.set(v + 1);
        v
    });
    if depth == 0 {
        h(false);
    }
    // No unwinding out of the profiler's first-use work (it allocates and numbers, and
    // an allocation failure aborts), so no guard restores the depth.
    let r = f();
    COLD_DEPTH.with(|d| d.set(depth));
    if depth == 0 {
        h(true);
    }
    r
}

thread_local! {
    /// How many [`cold`] calls this thread is inside.
    static COLD_DEPTH: Cell<u32> = const { Cell::new(0) };
}
