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

/// Wrapped `parking_lot` types (feature `parking_lot`).
#[cfg(feature = "parking_lot")]
pub mod parking_lot {
    #[cfg(feature = "hotpath")]
    pub use hotpath_lock::parking_lot::{
        ArcMutexGuard, ArcRwLockReadGuard, ArcRwLockWriteGuard, Condvar, MappedMutexGuard,
        MappedRwLockReadGuard, MappedRwLockWriteGuard, MutexGuard, RwLockReadGuard,
        RwLockUpgradableReadGuard, RwLockWriteGuard,
    };
    /// `parking_lot::Mutex<T>`, measured (`mutex!`).
    #[cfg(feature = "hotpath")]
    pub type Mutex<T> = hotpath_lock::Lock<::parking_lot::Mutex<T>>;
    /// `parking_lot::RwLock<T>`, measured (`rw_lock!`).
    #[cfg(feature = "hotpath")]
    pub type RwLock<T> = hotpath_lock::Lock<::parking_lot::RwLock<T>>;

    #[cfg(not(feature = "hotpath"))]
    pub use ::parking_lot::{
        ArcMutexGuard, ArcRwLockReadGuard, ArcRwLockWriteGuard, Condvar, MappedMutexGuard,
        MappedRwLockReadGuard, MappedRwLockWriteGuard, Mutex, MutexGuard, RwLock, RwLockReadGuard,
        RwLockUpgradableReadGuard, RwLockWriteGuard,
    };
}

/// Wrapped `tokio` types (feature `tokio`).
#[cfg(feature = "tokio")]
pub mod tokio {
    /// Wrapped `tokio::sync` types: `Mutex`, `RwLock` and their guards.
    pub mod sync {
        #[cfg(feature = "hotpath")]
        pub use hotpath_lock::tokio::{
            MappedMutexGuard, MutexGuard, OwnedMutexGuard, OwnedRwLockReadGuard,
            OwnedRwLockWriteGuard, RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard,
        };
        /// `tokio::sync::Mutex<T>`, measured (`mutex!`).
        #[cfg(feature = "hotpath")]
        pub type Mutex<T> = hotpath_lock::Lock<::tokio::sync::Mutex<T>>;
        /// `tokio::sync::RwLock<T>`, measured (`rw_lock!`).
        #[cfg(feature = "hotpath")]
        pub type RwLock<T> = hotpath_lock::Lock<::tokio::sync::RwLock<T>>;

        #[cfg(not(feature = "hotpath"))]
        pub use ::tokio::sync::{
            MappedMutexGuard, Mutex, MutexGuard, OwnedMutexGuard, OwnedRwLockReadGuard,
            OwnedRwLockWriteGuard, RwLock, RwLockMappedWriteGuard, RwLockReadGuard,
            RwLockWriteGuard,
        };
    }
}

/// Wrapped `async_lock` types (feature `async-lock`).
#[cfg(feature = "async-lock")]
pub mod async_lock {
    #[cfg(feature = "hotpath")]
    pub use hotpath_lock::async_lock::{
        MutexGuard, MutexGuardArc, RwLockReadGuard, RwLockUpgradableReadGuard, RwLockWriteGuard,
    };
    /// `async_lock::Mutex<T>`, measured (`mutex!`).
    #[cfg(feature = "hotpath")]
    pub type Mutex<T> = hotpath_lock::Lock<::async_lock::Mutex<T>>;
    /// `async_lock::RwLock<T>`, measured (`rw_lock!`).
    #[cfg(feature = "hotpath")]
    pub type RwLock<T> = hotpath_lock::Lock<::async_lock::RwLock<T>>;

    #[cfg(not(feature = "hotpath"))]
    pub use ::async_lock::{
        Mutex, MutexGuard, MutexGuardArc, RwLock, RwLockReadGuard, RwLockUpgradableReadGuard,
        RwLockWriteGuard,
    };
}
