//! `mutex!` and `rw_lock!`: locks measured per call site (acquisitions, contention, waits,
//! holds, and the functions that waited and held), with the lock's own behaviour.

/// Wraps a mutex so the report shows its acquisitions, contention, wait and hold times
/// and the functions that waited and held longest; evaluates to the measured lock
/// (feature `hotpath`) or to the lock itself.
///
/// ```
/// static COUNT: hotpath::wrap::std::sync::Mutex<u64> =
///     hotpath::mutex!(std::sync::Mutex::new(0), label = "count");
///
/// *COUNT.lock().unwrap() += 1;
/// let local = hotpath::mutex!(std::sync::Mutex::new(vec![1, 2]));
/// local.lock().unwrap().push(3);
/// assert_eq!(*COUNT.lock().unwrap(), 1);
/// assert_eq!(local.lock().unwrap().len(), 3);
/// ```
///
/// Forms: `mutex!(lock)`, `mutex!(lock, label = "name")`, `mutex!(lock, label = name)`.
/// The label is a string literal or any expression whose value is `AsRef<str>` (`&str`,
/// `String`, `&String`, `Cow<str>`), borrowed: `mutex!(m, label = format!("shard-{i}"))`
/// gives each distinct label its own row, as [`io!`] does (evaluated once per lock made,
/// after the lock; `HOTPATH_ENTRIES_LIMIT` labels a call site, later ones share a row
/// named `<other>`; without the feature type-checked, not evaluated). Only a literal
/// label keeps the expansion a `const` expression. The lock is a
/// `std::sync::Mutex`, or with the features of the same names a `parking_lot::Mutex`,
/// `tokio::sync::Mutex` or `async_lock::Mutex`. The expansion is a `const` expression
/// when the lock's constructor is, so a measured lock can be a `static`; its type is
/// `hotpath::wrap::<backend>::Mutex<T>`. The measured lock has the lock's methods with
/// the same results (poisoning, `try_lock`'s `WouldBlock`, tokio's FIFO order), and
/// for std a [`wrap::std::sync::Condvar`](crate::wrap::std::sync::Condvar) that takes
/// its guard.
///
/// Cost: nothing without the `hotpath` feature. With it, an uncontended acquisition
/// reads no clock to wait; a timed one reads the clock when it gets the lock and when
/// it releases it, and writes a few thread-local counters (see the README's
/// Performance section).
#[macro_export]
macro_rules! mutex {
    ($expr:expr $(,)?) => {
        $crate::__lock_impl!($expr, ::core::option::Option::None, Mutex)
    };
    ($expr:expr, label = $label:literal $(,)?) => {
        $crate::__lock_impl!($expr, ::core::option::Option::Some($label), Mutex)
    };
    ($expr:expr, label = $label:expr $(,)?) => {
        $crate::__lock_labelled!($expr, $label, Mutex)
    };
}

/// Wraps a read-write lock so the report shows, for reads and writes apart, its
/// acquisitions, contention, wait and hold times and the functions that waited and held
/// longest; evaluates to the measured lock (feature `hotpath`) or to the lock itself.
///
/// ```
/// let cache = hotpath::rw_lock!(std::sync::RwLock::new(vec![1u8]), label = "cache");
/// assert_eq!(cache.read().unwrap().len(), 1);
/// cache.write().unwrap().push(2);
/// assert_eq!(*cache.read().unwrap(), [1, 2]);
/// ```
///
/// Forms and backends as [`mutex!`]: `std::sync::RwLock`, and with their features
/// `parking_lot::RwLock` (upgradable reads reported apart), `tokio::sync::RwLock`,
/// `async_lock::RwLock`. Cost as [`mutex!`].
#[macro_export]
macro_rules! rw_lock {
    ($expr:expr $(,)?) => {
        $crate::__lock_impl!($expr, ::core::option::Option::None, RwLock)
    };
    ($expr:expr, label = $label:literal $(,)?) => {
        $crate::__lock_impl!($expr, ::core::option::Option::Some($label), RwLock)
    };
    ($expr:expr, label = $label:expr $(,)?) => {
        $crate::__lock_labelled!($expr, $label, RwLock)
    };
}

#[cfg(feature = "hotpath")]
#[doc(hidden)]
#[macro_export]
macro_rules! __lock_impl {
    ($expr:expr, $label:expr, $kind:ident) => {
        $crate::__private::Lock::instrument($expr, {
            static __HOTPATH_LOCK: $crate::__private::LockSite = $crate::__private::LockSite::new(
                ::core::concat!(::core::file!(), ":", ::core::line!()),
                $label,
                ::core::file!(),
                ::core::line!(),
                $crate::__private::LockKind::$kind,
            );
            &__HOTPATH_LOCK
        })
    };
}

#[cfg(not(feature = "hotpath"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __lock_impl {
    ($expr:expr, $label:expr, $kind:ident) => {
        $expr
    };
}

/// `mutex!`/`rw_lock!` with a label given as an expression: the site's own site for the
/// label's value.
#[cfg(feature = "hotpath")]
#[doc(hidden)]
#[macro_export]
macro_rules! __lock_labelled {
    ($expr:expr, $label:expr, $kind:ident) => {
        $crate::__private::Lock::instrument_labelled(
            $expr,
            {
                static __HOTPATH_LOCK: $crate::__private::LockSite =
                    $crate::__private::LockSite::new(
                        ::core::concat!(::core::file!(), ":", ::core::line!()),
                        ::core::option::Option::None,
                        ::core::file!(),
                        ::core::line!(),
                        $crate::__private::LockKind::$kind,
                    );
                &__HOTPATH_LOCK
            },
            $crate::__private::label(&$label),
        )
    };
}

#[cfg(not(feature = "hotpath"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __lock_labelled {
    ($expr:expr, $label:expr, $kind:ident) => {{
        if false {
            let _ = $crate::__private::label(&$label);
        }
        $expr
    }};
}
