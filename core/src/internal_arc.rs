//! [`InternalArc`]: state the profiler adds to a wrapped value and shares between its
//! handles (a channel's instance, held by both endpoints), allocated and freed as the
//! profiler's own work.
//!
//! # Safety invariants
//!
//! The `Arc` inside is dropped exactly once, in `Drop`, and never touched after.

use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::sync::Arc;

/// An `Arc<T>` made and released under [`crate::internal`]: an allocation meter charges
/// neither its allocation nor its release to the program, whichever handle is dropped
/// last and on whichever thread. `T`'s destructor runs there too, so `T` must hold
/// nothing of the program's. Derefs to `T`; clones share it, as `Arc`'s do.
pub struct InternalArc<T>(ManuallyDrop<Arc<T>>);

impl<T> InternalArc<T> {
    /// `v` in a new shared allocation, the profiler's.
    #[inline]
    pub fn new(v: T) -> Self {
        InternalArc(ManuallyDrop::new(crate::internal(|| Arc::new(v))))
    }
}

impl<T> Clone for InternalArc<T> {
    #[inline]
    fn clone(&self) -> Self {
        InternalArc(ManuallyDrop::new(Arc::clone(&self.0)))
    }
}

impl<T> Deref for InternalArc<T> {
    type Target = T;

    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> Drop for InternalArc<T> {
    fn drop(&mut self) {
        // SAFETY: the `Arc` is dropped once, here, and `self` is never used after.
        crate::internal(|| unsafe { ManuallyDrop::drop(&mut self.0) })
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for InternalArc<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_one_value_which_is_dropped_with_the_last() {
        struct Flag<'a>(&'a std::cell::Cell<u32>);
        impl Drop for Flag<'_> {
            fn drop(&mut self) {
                self.0.set(self.0.get() + 1);
            }
        }
        let dropped = std::cell::Cell::new(0);
        let a = InternalArc::new(Flag(&dropped));
        let b = a.clone();
        assert!(std::ptr::eq(&*a, &*b));
        drop(a);
        assert_eq!(dropped.get(), 0);
        drop(b);
        assert_eq!(dropped.get(), 1);
    }
}
