//! Single-writer counters, and [`counters!`], which declares a record of them once.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// A counter with one writer: relaxed load and store (no read-modify-write), readable
/// from any thread. Only the thread that owns the shard holding it may call
/// [`Cnt::set`] and [`Cnt::add`].
#[derive(Default)]
pub struct Cnt(AtomicU64);

impl std::fmt::Debug for Cnt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl Cnt {
    /// Zero.
    pub const fn new() -> Self {
        Cnt(AtomicU64::new(0))
    }
    /// The value.
    #[inline(always)]
    pub fn get(&self) -> u64 {
        self.0.load(Relaxed)
    }
    /// Sets the value (owner only).
    #[inline(always)]
    pub fn set(&self, v: u64) {
        self.0.store(v, Relaxed)
    }
    /// Adds `v`, wrapping (owner only).
    #[inline(always)]
    pub fn add(&self, v: u64) {
        self.set(self.get().wrapping_add(v))
    }
    /// Raises the value to `v` if it is lower (owner only).
    #[inline(always)]
    pub fn max(&self, v: u64) {
        if v > self.get() {
            self.set(v);
        }
    }
}

/// A record of single-writer counters declared by [`counters!`], for code generic over
/// records (what a meter keeps of a call site, `meter::stats`).
#[cfg_attr(not(any(feature = "alloc", feature = "cpu")), allow(dead_code))]
pub(crate) trait CounterRecord {
    /// The record merged over threads.
    type Merged;
    /// Sets every counter to zero (owner only).
    fn clear(&self);
    /// Adds (or, for `max` fields, raises) `into` by these counters.
    fn merge_into(&self, into: &mut Self::Merged);
}

/// Declares a record of single-writer counters once: the per-thread struct of [`Cnt`]s,
/// the merged struct of `u64`s with the same field names, and `new`, `clear` and
/// `merge_into` over every field ([`CounterRecord`]). Each field says how threads merge:
/// `sum` or `max`.
///
/// ```ignore
/// counters! {
///     /// Numbers of one lock on one thread.
///     pub struct LockCounts / LockMerged {
///         /// Acquisitions.
///         acquisitions: sum,
///         /// Longest hold, ticks.
///         hold_max: max,
///     }
/// }
/// ```
macro_rules! counters {
    (
        $(#[$meta:meta])*
        $vis:vis struct $cells:ident / $merged:ident {
            $( $(#[$fmeta:meta])* $field:ident : $op:ident ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Default)]
        $vis struct $cells {
            $( $(#[$fmeta])* pub $field: $crate::cell::Cnt, )*
        }

        #[allow(dead_code)]
        impl $cells {
            /// All zero.
            pub const fn new() -> Self {
                $cells { $( $field: $crate::cell::Cnt::new(), )* }
            }

            /// Sets every counter to zero (owner only).
            pub fn clear(&self) {
                $( self.$field.set(0); )*
            }

            /// Adds (or, for `max` fields, raises) `into` by these counters.
            pub fn merge_into(&self, into: &mut $merged) {
                $( counters!(@merge $op, into.$field, self.$field.get()); )*
            }
        }

        impl $crate::cell::CounterRecord for $cells {
            type Merged = $merged;
            fn clear(&self) {
                $cells::clear(self)
            }
            fn merge_into(&self, into: &mut $merged) {
                $cells::merge_into(self, into)
            }
        }

        #[doc = concat!("[`", stringify!($cells), "`] merged over threads.")]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        $vis struct $merged {
            $( $(#[$fmeta])* pub $field: u64, )*
        }
    };
    (@merge sum, $into:expr, $v:expr) => {
        $into = $into.wrapping_add($v)
    };
    (@merge max, $into:expr, $v:expr) => {
        $into = $into.max($v)
    };
}
pub(crate) use counters;

#[cfg(test)]
mod tests {
    counters! {
        /// Test record.
        pub struct Two / TwoMerged {
            /// Summed.
            a: sum,
            /// Maximum.
            b: max,
        }
    }

    #[test]
    fn fields_merge_by_their_rule_and_clear() {
        let (x, y) = (Two::new(), Two::new());
        x.a.add(3);
        x.b.max(10);
        y.a.add(4);
        y.b.max(7);
        y.b.max(2);
        let mut m = TwoMerged::default();
        x.merge_into(&mut m);
        y.merge_into(&mut m);
        assert_eq!(m, TwoMerged { a: 7, b: 10 });
        x.clear();
        assert_eq!((x.a.get(), x.b.get()), (0, 0));
    }
}
