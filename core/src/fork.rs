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

/// Makes the pair of `pthread_atfork` handlers every lock registry of the profiler needs:
/// `$prepare` takes the guards `$take` gives (a guard or a tuple of guards, in the
/// registry's lock order) and keeps them in a thread-local of the thread calling `fork()`;
/// `$release` drops them, in the parent or the child. Neither allocates.
///
/// ```ignore
/// hotpath_core::fork_held! {
///     /// Before `fork()`: takes the registry's lock.
///     pub fn fork_prepare;
///     /// After `fork()`: releases it.
///     pub fn fork_release;
///     std::sync::MutexGuard<'static, Registry> = REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
/// }
/// ```
#[macro_export]
macro_rules! fork_held {
    (
        $(#[$pa:meta])* $pv:vis fn $prepare:ident;
        $(#[$ra:meta])* $rv:vis fn $release:ident;
        $guard:ty = $take:expr
    ) => {
        ::std::thread_local! {
            /// The guards taken by the prepare handler, held by the thread calling `fork()`.
            #[allow(clippy::type_complexity)]
            static FORK_HELD: ::std::cell::RefCell<::std::option::Option<$guard>> =
                const { ::std::cell::RefCell::new(::std::option::Option::None) };
        }

        $(#[$pa])*
        $pv fn $prepare() {
            let held = $take;
            let _ = FORK_HELD.try_with(|h| *h.borrow_mut() = ::std::option::Option::Some(held));
        }

        $(#[$ra])*
        $rv fn $release() {
            let _ = FORK_HELD.try_with(|h| h.borrow_mut().take());
        }
    };
}
