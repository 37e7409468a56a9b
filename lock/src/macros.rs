//! The code every backend would otherwise repeat: its guard types ([`guard!`]), and the
//! constructors and methods that pass straight through to the wrapped lock
//! ([`forward!`]).

/// A guard's `Debug`: as the wrapped guard.
macro_rules! fmt_as_inner {
    ($guard:ident < $($p:tt),* > where $($b:tt)*) => {
        impl<$($p),*> ::std::fmt::Debug for $guard<$($p),*> where $($b)* {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Debug::fmt(&self.inner, f)
            }
        }
    };
}
pub(crate) use fmt_as_inner;

/// Defines a measured guard over a backend's guard: the backend's guard `inner` (declared
/// first, so that it is dropped, the lock released, before `hold` records), then the
/// [`Hold`](crate::Hold); `Debug` and `Display` as the data, `Deref`, and `DerefMut` with
/// `mut`.
///
/// ```text
/// guard!(
///     /// The guard of a measured `parking_lot::Mutex`.
///     MutexGuard => parking_lot::MutexGuard, mut
/// );
/// ```
///
/// The guard's `#[must_use]` message is "if unused the lock will immediately unlock", or
/// the one given first: `guard!(must_use = "…"; …)`.
///
/// A guard that names its lock (parking_lot's `MutexGuard::mutex`, `rwlock`) keeps a
/// reference to the measured lock too, its type given last: `…, mut; lock = PMutex`
/// (the field `lock: &'a Lock<PMutex<T>>`).
macro_rules! guard {
    ($(#[$m:meta])* $name:ident => $($inner:ident)::+ $(, $mutable:ident)? $(; lock = $lock:ident)?) => {
        $crate::macros::guard!(
            must_use = "if unused the lock will immediately unlock";
            $(#[$m])* $name => $($inner)::+ $(, $mutable)? $(; lock = $lock)?
        );
    };
    (must_use = $must_use:literal;
     $(#[$m:meta])* $name:ident => $($inner:ident)::+ $(, $mutable:ident)? $(; lock = $lock:ident)?) => {
        $(#[$m])*
        #[must_use = $must_use]
        pub struct $name<'a, T: ?Sized + 'a> {
            // Declared first: dropped (the lock released) before `hold` records.
            inner: $($inner)::+<'a, T>,
            #[allow(dead_code)]
            hold: $crate::Hold,
            $(
            // The measured lock `inner` borrows the backend's lock of.
            lock: &'a $crate::Lock<$lock<T>>,
            )?
        }

        $crate::macros::fmt_as_inner!($name<'a, T> where T: ?Sized + ::std::fmt::Debug);

        impl<T: ?Sized + ::std::fmt::Display> ::std::fmt::Display for $name<'_, T> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                (**self).fmt(f)
            }
        }

        impl<T: ?Sized> ::std::ops::Deref for $name<'_, T> {
            type Target = T;
            #[inline]
            fn deref(&self) -> &T {
                &self.inner
            }
        }

        $($crate::macros::guard!(@$mutable $name);)?
    };
    (@mut $name:ident) => {
        impl<T: ?Sized> ::std::ops::DerefMut for $name<'_, T> {
            #[inline]
            fn deref_mut(&mut self) -> &mut T {
                &mut self.inner
            }
        }
    };
}
pub(crate) use guard;

/// What passes straight through to the wrapped lock, in two forms.
///
/// `forward!(new std::sync::Mutex => Mutex, "mutex", "hotpath::mutex!")` defines, for
/// `Lock<std::sync::Mutex<T>>`, `new(t)` (the backend's `new`, measured as its own call
/// site: the caller's location) and the `Default` and `From<T>` made by it.
///
/// Inside an `impl` of a `Lock<L>`, `forward! { /// doc \n fn name(&self) -> R; … }`
/// defines public methods without arguments that call the same method of the wrapped
/// lock (receivers `&self`, `&mut self` and `self`).
macro_rules! forward {
    (new $first:ident $(:: $rest:ident)* => $kind:ident, $noun:literal, $macro:literal) => {
        impl<T> $crate::Lock<$first $(:: $rest)*<T>> {
            #[doc = ::std::concat!(
                "A measured `", ::std::stringify!($first), $("::", ::std::stringify!($rest),)*
                "` of its own call site (the caller's location). Use\n`", $macro,
                "` to label it or to make it in a `static`."
            )]
            #[track_caller]
            pub fn new(t: T) -> Self {
                $crate::Lock::at_caller(<$first $(:: $rest)*<T>>::new(t), $crate::LockKind::$kind)
            }
        }

        impl<T: Default> Default for $crate::Lock<$first $(:: $rest)*<T>> {
            #[doc = ::std::concat!(
                "A ", $noun, " of `T::default()`, its own call site (the caller's location)."
            )]
            #[track_caller]
            fn default() -> Self {
                Self::new(T::default())
            }
        }

        impl<T> From<T> for $crate::Lock<$first $(:: $rest)*<T>> {
            #[doc = ::std::concat!(
                "A ", $noun, " of `t`, its own call site (the caller's location)."
            )]
            #[track_caller]
            fn from(t: T) -> Self {
                Self::new(t)
            }
        }
    };
    ($($(#[$m:meta])* fn $name:ident($($receiver:tt)+) $(-> $ret:ty)?;)+) => {
        $($crate::macros::forward!(@ [$($receiver)+] $(#[$m])* $name $(-> $ret)?);)+
    };
    (@ [&self] $(#[$m:meta])* $name:ident $(-> $ret:ty)?) => {
        $(#[$m])*
        pub fn $name(&self) $(-> $ret)? {
            self.inner.$name()
        }
    };
    (@ [&mut self] $(#[$m:meta])* $name:ident $(-> $ret:ty)?) => {
        $(#[$m])*
        pub fn $name(&mut self) $(-> $ret)? {
            self.inner.$name()
        }
    };
    (@ [self] $(#[$m:meta])* $name:ident $(-> $ret:ty)?) => {
        $(#[$m])*
        pub fn $name(self) $(-> $ret)? {
            self.inner.$name()
        }
    };
}
pub(crate) use forward;
