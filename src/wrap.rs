//! The types the wrapping macros give, by the path of the wrapped type:
//! `hotpath::wrap::std::sync::Mutex<T>` is what `mutex!(std::sync::Mutex::new(t))`
//! evaluates to. With the `hotpath` feature they are the measuring wrappers; without it,
//! the wrapped types themselves, so struct fields and `static`s declared with them
//! compile in both states.

/// Wrapped `std` types.
pub mod std {
    /// Wrapped `std::sync` types: `Mutex`, `RwLock`, their guards, and a `Condvar` that
    /// takes the wrapped mutex's guard.
    pub mod sync {
        /// `std::sync::Mutex<T>`, measured (`mutex!`).
        #[cfg(feature = "hotpath")]
        pub type Mutex<T> = hotpath_lock::Lock<::std::sync::Mutex<T>>;
        /// The guard of [`Mutex`].
        #[cfg(feature = "hotpath")]
        pub type MutexGuard<'a, T> = hotpath_lock::std_sync::MutexGuard<'a, T>;
        /// `std::sync::RwLock<T>`, measured (`rw_lock!`).
        #[cfg(feature = "hotpath")]
        pub type RwLock<T> = hotpath_lock::Lock<::std::sync::RwLock<T>>;
        /// The read guard of [`RwLock`].
        #[cfg(feature = "hotpath")]
        pub type RwLockReadGuard<'a, T> = hotpath_lock::std_sync::RwLockReadGuard<'a, T>;
        /// The write guard of [`RwLock`].
        #[cfg(feature = "hotpath")]
        pub type RwLockWriteGuard<'a, T> = hotpath_lock::std_sync::RwLockWriteGuard<'a, T>;
        /// A condition variable for the guards of [`Mutex`].
        #[cfg(feature = "hotpath")]
        pub type Condvar = hotpath_lock::std_sync::Condvar;

        #[cfg(not(feature = "hotpath"))]
        pub use ::std::sync::{
            Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard,
        };
    }
}
