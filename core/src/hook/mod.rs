//! Hooks that integrations install around the profiler's work, each set once per
//! process (the first setter wins):
//!
//! * the poll hook, around every poll of a measured `async fn`, for integrations that
//!   must know the issuing function on another thread (the facade's sqlx layer: SQLite
//!   runs queries on a driver thread, which enters the tracing span current when the
//!   query was sent). Unset, a poll pays one relaxed load;
//! * the cold hook ([`set_cold_hook`]), around the profiler's first-use work: in a file
//!   of its own (`hook/cold.rs`), a leaf that call sites and shards use too.

pub(crate) mod cold;

use std::sync::atomic::{AtomicPtr, Ordering};

use crate::site::CallSite;

pub use cold::set_cold_hook;

/// What runs around each poll of a measured `async fn`: `enter` before it with the
/// function's call site, `exit` after it (also when the poll unwinds) with what `enter`
/// returned.
#[derive(Debug)]
pub struct PollHook {
    /// Before the poll.
    pub enter: fn(&'static CallSite) -> u64,
    /// After the poll, with `enter`'s value.
    pub exit: fn(u64),
}

static HOOK: AtomicPtr<PollHook> = AtomicPtr::new(std::ptr::null_mut());

/// Installs `hook` around every later poll of measured `async fn`s; `false` (and no
/// change) when one is installed already.
pub fn set_poll_hook(hook: &'static PollHook) -> bool {
    HOOK.compare_exchange(
        std::ptr::null_mut(),
        hook as *const PollHook as *mut PollHook,
        Ordering::AcqRel,
        Ordering::Acquire,
    )
    .is_ok()
}

#[inline(always)]
pub(crate) fn poll_hook() -> Option<&'static PollHook> {
    let p = HOOK.load(Ordering::Acquire);
    if p.is_null() {
        None
    } else {
        // SAFETY: the only non-null value ever stored is a `&'static PollHook`
        // (`set_poll_hook`), never freed or changed after.
        Some(unsafe { &*p })
    }
}

/// Inside a hooked poll until dropped.
pub(crate) struct Entered(&'static PollHook, u64);

impl Entered {
    #[inline]
    pub(crate) fn new(h: &'static PollHook, site: &'static CallSite) -> Entered {
        Entered(h, (h.enter)(site))
    }
}

impl Drop for Entered {
    #[inline]
    fn drop(&mut self) {
        (self.0.exit)(self.1)
    }
}
