//! The code every backend would otherwise repeat: its guard types ([`guard!`]), the
//! constructors and methods that pass straight through to the wrapped lock
//! ([`forward!`]), and the guards that own an `Arc` of their lock ([`to_arc!`],
//! [`arc_acquisitions!`]).

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
/// reference to the measured lock too, its type and accessor given last: `…, mut; lock =
/// PMutex as mutex` (the field `lock: &'a Lock<PMutex<T>>`, and `MutexGuard::mutex(&g)`).
macro_rules! guard {
    ($(#[$m:meta])* $name:ident => $($inner:ident)::+ $(, $mutable:ident)?
     $(; lock = $lock:ident as $accessor:ident)?) => {
        $crate::macros::guard!(
            must_use = "if unused the lock will immediately unlock";
            $(#[$m])* $name => $($inner)::+ $(, $mutable)? $(; lock = $lock as $accessor)?
        );
    };
    (must_use = $must_use:literal;
     $(#[$m:meta])* $name:ident => $($inner:ident)::+ $(, $mutable:ident)?
     $(; lock = $lock:ident as $accessor:ident)?) => {
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

        $(
        impl<'a, T: ?Sized + 'a> $name<'a, T> {
            /// The measured lock this guard holds.
            pub fn $accessor(s: &Self) -> &'a $crate::Lock<$lock<T>> {
                s.lock
            }
        }
        )?

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

/// Functions turning a measured borrowing guard of the lock inside an `Arc` into the
/// [`ArcGuard`](crate::ArcGuard) that owns a clone of the `Arc` (parking_lot's and
/// async-lock's `_arc` guards):
///
/// ```text
/// to_arc! {
///     fn arc_mutex(MutexGuard<PMutex>) -> parking_lot::MutexGuard;
/// }
/// ```
///
/// defines `fn arc_mutex<T: ?Sized + 'static>(lock: &Arc<Lock<PMutex<T>>>, g:
/// MutexGuard<'_, T>) -> ArcGuard<PMutex<T>, parking_lot::MutexGuard<'static, T>>`, the
/// backend's guard inside `g` with its lifetime stretched (see `ArcGuard`'s Soundness).
/// `g` must be a guard of the lock inside `lock`.
#[cfg_attr(
    not(any(feature = "parking_lot", feature = "async-lock")),
    allow(unused_macros)
)]
macro_rules! to_arc {
    ($(fn $name:ident($guard:ident<$lock:ident>) -> $($raw:ident)::+;)+) => {$(
        #[allow(unsafe_code)]
        fn $name<T: ?Sized + 'static>(
            lock: &::std::sync::Arc<$crate::Lock<$lock<T>>>,
            g: $guard<'_, T>,
        ) -> $crate::ArcGuard<$lock<T>, $($raw)::+<'static, T>> {
            let $guard { inner, hold, .. } = g;
            // SAFETY: `inner` borrows only the lock inside `**lock` (every caller acquired
            // it through that `Arc`); the `ArcGuard` keeps a clone of the `Arc`, drops
            // `inner` before it and never hands the guard out (see `ArcGuard`'s
            // Soundness), so the borrow never outlives the lock.
            let inner = unsafe {
                ::std::mem::transmute::<$($raw)::+<'_, T>, $($raw)::+<'static, T>>(inner)
            };
            $crate::ArcGuard::new(inner, hold, lock.clone())
        }
    )+};
}
#[cfg_attr(
    not(any(feature = "parking_lot", feature = "async-lock")),
    allow(unused_imports)
)]
pub(crate) use to_arc;

/// Inside an `impl` of a `Lock<L>` (with `T: 'static`), the acquisitions through an `Arc`
/// that give a guard owning it: each makes the borrowing acquisition named after `=` and
/// turns its guard by `$to_arc` (a function of [`to_arc!`]) into `$arc`. A method
/// written `fn name(args)? = …` gives an `Option` (a try), `async fn` awaits:
///
/// ```text
/// arc_acquisitions! { arc_read -> ArcRwLockReadGuard<T>:
///     /// Acquires shared read access through an `Arc`, for a guard that owns it.
///     fn read_arc() = read;
///     /// As [`Self::read_arc`], waiting at most `timeout`.
///     fn try_read_arc_for(timeout: Duration)? = try_read_for;
/// }
/// ```
#[cfg_attr(
    not(any(feature = "parking_lot", feature = "async-lock")),
    allow(unused_macros)
)]
macro_rules! arc_acquisitions {
    ($to_arc:ident -> $arc:ty: $($items:tt)*) => {
        $crate::macros::arc_acquisitions!(@ [$to_arc, $arc] $($items)*);
    };
    (@ [$($at:tt)*]) => {};
    (@ [$to_arc:ident, $arc:ty] $(#[$m:meta])*
        fn $name:ident($($a:ident: $t:ty),*) = $borrow:ident; $($rest:tt)*) => {
        $(#[$m])*
        pub fn $name(self: &::std::sync::Arc<Self> $(, $a: $t)*) -> $arc {
            $to_arc(self, self.$borrow($($a),*))
        }
        $crate::macros::arc_acquisitions!(@ [$to_arc, $arc] $($rest)*);
    };
    (@ [$to_arc:ident, $arc:ty] $(#[$m:meta])*
        fn $name:ident($($a:ident: $t:ty),*)? = $borrow:ident; $($rest:tt)*) => {
        $(#[$m])*
        pub fn $name(self: &::std::sync::Arc<Self> $(, $a: $t)*) -> Option<$arc> {
            self.$borrow($($a),*).map(|g| $to_arc(self, g))
        }
        $crate::macros::arc_acquisitions!(@ [$to_arc, $arc] $($rest)*);
    };
    (@ [$to_arc:ident, $arc:ty] $(#[$m:meta])*
        async fn $name:ident($($a:ident: $t:ty),*) = $borrow:ident; $($rest:tt)*) => {
        $(#[$m])*
        pub async fn $name(self: &::std::sync::Arc<Self> $(, $a: $t)*) -> $arc {
            let g = self.$borrow($($a),*).await;
            $to_arc(self, g)
        }
        $crate::macros::arc_acquisitions!(@ [$to_arc, $arc] $($rest)*);
    };
}
#[cfg_attr(
    not(any(feature = "parking_lot", feature = "async-lock")),
    allow(unused_imports)
)]
pub(crate) use arc_acquisitions;
