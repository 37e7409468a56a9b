//! The crate's `macro_rules!` helpers for the endpoint types of every backend.

/// `Debug` for endpoint types holding an `inst`: the type's name and its channel's
/// entry, whatever the message type (`chan::fmt_endpoint`).
macro_rules! debug_endpoints {
    ($($ty:ident $(<$l:lifetime>)?),* $(,)?) => {$(
        impl<T> std::fmt::Debug for $ty<$($l,)? T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                $crate::chan::fmt_endpoint(f, stringify!($ty), &self.inst)
            }
        }
    )*};
}

/// `Debug` showing only the type's name: iterators and futures whose state is the
/// backend's.
macro_rules! debug_opaque {
    ($($ty:ident $(<$l:lifetime>)?),* $(,)?) => {$(
        impl<T> std::fmt::Debug for $ty<$($l,)? T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($ty)).finish_non_exhaustive()
            }
        }
    )*};
}

/// `Clone` for endpoints whose clone is the backend's (`inner`) and the instance's
/// (`inst`): senders and weak handles (a receiver's clone also counts a receiver).
macro_rules! clone_endpoints {
    ($($ty:ident),* $(,)?) => {$(
        impl<T> Clone for $ty<T> {
            fn clone(&self) -> Self {
                $ty {
                    inner: self.inner.clone(),
                    inst: self.inst.clone(),
                }
            }
        }
    )*};
}
