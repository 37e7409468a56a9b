//! `fork()` and the core's locks.
//!
//! A child of `fork()` has one thread, a copy of the one that called it; a lock another
//! thread held at that moment stays held forever in the child. The facade registers
//! these functions as `pthread_atfork` handlers: [`prepare`] takes the core's locks, in
//! a fixed order (call sites, the shard registry, the trace's retired rings), so that
//! no other thread holds one when the address space is copied; [`parent`] and [`child`]
//! release them. In the child, the shards of the threads that were not copied are
//! retired at the next use of the registry (they keep what they recorded; none of their
//! calls shows as running). None of these functions allocates.
//!
//! The order matches every other path: no code holds the registry lock and then takes
//! the sites lock, nor the retired rings' lock and then another.

/// Before `fork()`, in the forking thread: takes the core's locks.
pub fn prepare() {
    crate::site::fork_lock();
    crate::registry::fork_lock();
    crate::trace::fork_lock();
}

/// After `fork()`, in the parent: releases them.
pub fn parent() {
    crate::trace::fork_unlock();
    crate::registry::fork_unlock(false);
    crate::site::fork_unlock();
}

/// After `fork()`, in the child: releases them and marks the other threads' shards for
/// retirement.
pub fn child() {
    crate::trace::fork_unlock();
    crate::registry::fork_unlock(true);
    crate::site::fork_unlock();
}
