//! The types the wrapping macros give, by the path of the wrapped type:
//! `hotpath::wrap::std::sync::Mutex<T>` is what `mutex!(std::sync::Mutex::new(t))`
//! evaluates to, `hotpath::wrap::std::sync::mpsc::Receiver<T>` the receiver of
//! `channel!(std::sync::mpsc::channel::<T>())`. With the `hotpath` feature they are the
//! measuring wrappers; without it, the wrapped types themselves, so struct fields and
//! `static`s declared with them compile in both states.
//!
//! ```
//! struct Worker {
//!     jobs: hotpath::wrap::std::sync::mpsc::Receiver<u64>,
//! }
//!
//! let (tx, rx) = hotpath::channel!(std::sync::mpsc::channel::<u64>());
//! let w = Worker { jobs: rx };
//! tx.send(7).unwrap();
//! assert_eq!(w.jobs.recv().unwrap(), 7);
//! ```
//!
//! Each backend's module exists with its Cargo feature (`tokio`, `parking_lot`,
//! `async-lock`, `crossbeam`, `flume`, `async-channel`, `futures`); `std` always.

/// The type `stream!` gives for a stream `S`.
#[cfg(feature = "hotpath")]
pub type Stream<S> = hotpath_flow::Stream<S>;
/// The type `stream!` gives for a stream `S`.
#[cfg(not(feature = "hotpath"))]
pub type Stream<S> = S;

/// The type `future!` gives for a future `F`.
#[cfg(feature = "hotpath")]
pub type Future<F> = hotpath_flow::Future<F>;
/// The type `future!` gives for a future `F`.
#[cfg(not(feature = "hotpath"))]
pub type Future<F> = F;

/// Wrapped `std` types.
pub mod std {
    /// Wrapped `std::sync` types: `Mutex`, `RwLock`, their guards, a `Condvar` that
    /// takes the wrapped mutex's guard, and the `mpsc` channel endpoints.
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

        /// `std::sync::mpsc` endpoints as `channel!` gives them.
        pub mod mpsc {
            #[cfg(feature = "hotpath")]
            pub use hotpath_flow::std_mpsc::{
                IntoIter, Iter, Receiver, Sender, SyncSender, TryIter,
            };
            #[cfg(not(feature = "hotpath"))]
            pub use std::sync::mpsc::{IntoIter, Iter, Receiver, Sender, SyncSender, TryIter};
        }
    }
}

/// Wrapped `parking_lot` types (feature `parking_lot`).
#[cfg(feature = "parking_lot")]
pub mod parking_lot {
    #[cfg(feature = "hotpath")]
    pub use hotpath_lock::parking_lot::{
        ArcMutexGuard, ArcRwLockReadGuard, ArcRwLockUpgradableReadGuard, ArcRwLockWriteGuard,
        Condvar, MappedMutexGuard, MappedRwLockReadGuard, MappedRwLockWriteGuard, MutexGuard,
        RwLockReadGuard, RwLockUpgradableReadGuard, RwLockWriteGuard,
    };
    /// `parking_lot::Mutex<T>`, measured (`mutex!`).
    #[cfg(feature = "hotpath")]
    pub type Mutex<T> = hotpath_lock::Lock<::parking_lot::Mutex<T>>;
    /// `parking_lot::RwLock<T>`, measured (`rw_lock!`).
    #[cfg(feature = "hotpath")]
    pub type RwLock<T> = hotpath_lock::Lock<::parking_lot::RwLock<T>>;

    #[cfg(not(feature = "hotpath"))]
    pub use ::parking_lot::{
        Condvar, MappedMutexGuard, MappedRwLockReadGuard, MappedRwLockWriteGuard, Mutex,
        MutexGuard, RwLock, RwLockReadGuard, RwLockUpgradableReadGuard, RwLockWriteGuard,
    };
    // parking_lot re-exports lock_api's `_arc` guards, generic over the raw lock too:
    // named here with parking_lot's, so that they take the one parameter `T` in both
    // states.
    /// `lock_arc`'s guard.
    #[cfg(not(feature = "hotpath"))]
    pub type ArcMutexGuard<T> = ::parking_lot::ArcMutexGuard<::parking_lot::RawMutex, T>;
    /// `read_arc`'s guard.
    #[cfg(not(feature = "hotpath"))]
    pub type ArcRwLockReadGuard<T> = ::parking_lot::ArcRwLockReadGuard<::parking_lot::RawRwLock, T>;
    /// `write_arc`'s guard.
    #[cfg(not(feature = "hotpath"))]
    pub type ArcRwLockWriteGuard<T> =
        ::parking_lot::ArcRwLockWriteGuard<::parking_lot::RawRwLock, T>;
    /// `upgradable_read_arc`'s guard.
    #[cfg(not(feature = "hotpath"))]
    pub type ArcRwLockUpgradableReadGuard<T> =
        ::parking_lot::ArcRwLockUpgradableReadGuard<::parking_lot::RawRwLock, T>;
}

/// Wrapped `tokio` types (feature `tokio`).
#[cfg(feature = "tokio")]
pub mod tokio {
    /// Wrapped `tokio::sync` types: `Mutex`, `RwLock` and their guards; the `mpsc`,
    /// `oneshot`, `broadcast` and `watch` channel endpoints.
    pub mod sync {
        #[cfg(feature = "hotpath")]
        pub use hotpath_lock::tokio::{
            MappedMutexGuard, MutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard,
            OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLockMappedWriteGuard, RwLockReadGuard,
            RwLockWriteGuard,
        };
        /// `tokio::sync::Mutex<T>`, measured (`mutex!`).
        #[cfg(feature = "hotpath")]
        pub type Mutex<T> = hotpath_lock::Lock<::tokio::sync::Mutex<T>>;
        /// `tokio::sync::RwLock<T>`, measured (`rw_lock!`).
        #[cfg(feature = "hotpath")]
        pub type RwLock<T> = hotpath_lock::Lock<::tokio::sync::RwLock<T>>;

        #[cfg(not(feature = "hotpath"))]
        pub use ::tokio::sync::{
            MappedMutexGuard, Mutex, MutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard,
            OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock, RwLockMappedWriteGuard,
            RwLockReadGuard, RwLockWriteGuard,
        };

        /// `tokio::sync::mpsc` endpoints and permits as `channel!` gives them.
        pub mod mpsc {
            #[cfg(feature = "hotpath")]
            pub use hotpath_flow::tokio::mpsc::{
                OwnedPermit, Permit, PermitIterator, Receiver, Sender, UnboundedReceiver,
                UnboundedSender, WeakSender, WeakUnboundedSender,
            };
            #[cfg(not(feature = "hotpath"))]
            pub use tokio::sync::mpsc::{
                OwnedPermit, Permit, PermitIterator, Receiver, Sender, UnboundedReceiver,
                UnboundedSender, WeakSender, WeakUnboundedSender,
            };
        }

        /// `tokio::sync::oneshot` endpoints as `channel!` gives them.
        pub mod oneshot {
            #[cfg(feature = "hotpath")]
            pub use hotpath_flow::tokio::oneshot::{Receiver, Sender};
            #[cfg(not(feature = "hotpath"))]
            pub use tokio::sync::oneshot::{Receiver, Sender};
        }

        /// `tokio::sync::broadcast` endpoints as `channel!` gives them.
        pub mod broadcast {
            #[cfg(feature = "hotpath")]
            pub use hotpath_flow::tokio::broadcast::{Receiver, Sender, WeakSender};
            #[cfg(not(feature = "hotpath"))]
            pub use tokio::sync::broadcast::{Receiver, Sender, WeakSender};
        }

        /// `tokio::sync::watch` endpoints as `channel!` gives them.
        pub mod watch {
            #[cfg(feature = "hotpath")]
            pub use hotpath_flow::tokio::watch::{Receiver, Sender};
            #[cfg(not(feature = "hotpath"))]
            pub use tokio::sync::watch::{Receiver, Sender};
        }
    }
}

/// Wrapped `async_lock` types (feature `async-lock`).
#[cfg(feature = "async-lock")]
pub mod async_lock {
    #[cfg(feature = "hotpath")]
    pub use hotpath_lock::async_lock::{
        MutexGuard, MutexGuardArc, RwLockReadGuard, RwLockReadGuardArc, RwLockUpgradableReadGuard,
        RwLockUpgradableReadGuardArc, RwLockWriteGuard, RwLockWriteGuardArc,
    };
    /// `async_lock::Mutex<T>`, measured (`mutex!`).
    #[cfg(feature = "hotpath")]
    pub type Mutex<T> = hotpath_lock::Lock<::async_lock::Mutex<T>>;
    /// `async_lock::RwLock<T>`, measured (`rw_lock!`).
    #[cfg(feature = "hotpath")]
    pub type RwLock<T> = hotpath_lock::Lock<::async_lock::RwLock<T>>;

    #[cfg(not(feature = "hotpath"))]
    pub use ::async_lock::{
        Mutex, MutexGuard, MutexGuardArc, RwLock, RwLockReadGuard, RwLockReadGuardArc,
        RwLockUpgradableReadGuard, RwLockUpgradableReadGuardArc, RwLockWriteGuard,
        RwLockWriteGuardArc,
    };
}

/// crossbeam-channel endpoints (feature `crossbeam`).
///
/// `crossbeam_channel::select!` (and `Select`) takes crossbeam's own receivers only; a
/// wrapped receiver's crossbeam receiver carries the messages with their send stamps.
/// Select over [`select_handle`]`(&rx)` and pass what the arm receives through
/// [`selected`]`(&rx, msg)`, which counts the receive exactly as `recv` does; the same
/// code without the `hotpath` feature selects over the receiver itself and `selected`
/// gives the message back:
///
/// ```
/// use hotpath::wrap::crossbeam_channel::{select_handle, selected};
///
/// let (tx1, rx1) = hotpath::channel!(crossbeam_channel::unbounded::<u32>(), label = "a");
/// let (tx2, rx2) = hotpath::channel!(crossbeam_channel::unbounded::<u32>(), label = "b");
/// tx1.send(1).unwrap();
/// tx2.send(2).unwrap();
/// let mut got = Vec::new();
/// for _ in 0..2 {
///     crossbeam_channel::select! {
///         recv(select_handle(&rx1)) -> msg => got.push(selected(&rx1, msg).unwrap()),
///         recv(select_handle(&rx2)) -> msg => got.push(selected(&rx2, msg).unwrap() * 10),
///     }
/// }
/// got.sort();
/// assert_eq!(got, [1, 20]);
/// ```
///
/// A wait inside the select is not charged to the function as channel waiting (it waits
/// on several channels), and sends are not selected this way (a `send` arm would need a
/// stamped message): send with the wrapped sender's own methods.
#[cfg(feature = "crossbeam")]
pub mod crossbeam_channel {
    #[cfg(not(feature = "hotpath"))]
    pub use crossbeam_channel::{IntoIter, Iter, Receiver, Sender, TryIter};
    #[cfg(feature = "hotpath")]
    pub use hotpath_flow::crossbeam::{IntoIter, Iter, Receiver, Sender, TryIter};

    /// What `crossbeam_channel::select!`'s `recv` arm takes for the receiver `rx`: its
    /// crossbeam receiver (of stamped messages); without the `hotpath` feature, `rx`.
    #[cfg(feature = "hotpath")]
    pub fn select_handle<T>(
        rx: &Receiver<T>,
    ) -> &::crossbeam_channel::Receiver<hotpath_flow::Stamped<T>> {
        rx.select_handle()
    }

    /// What `crossbeam_channel::select!`'s `recv` arm takes for the receiver `rx`: its
    /// crossbeam receiver (of stamped messages); without the `hotpath` feature, `rx`.
    #[cfg(not(feature = "hotpath"))]
    pub fn select_handle<T>(rx: &Receiver<T>) -> &Receiver<T> {
        rx
    }

    /// The message a `recv(select_handle(&rx)) -> msg` arm received, counted as a receive
    /// of `rx`; without the `hotpath` feature, `msg` itself.
    #[cfg(feature = "hotpath")]
    pub fn selected<T>(
        rx: &Receiver<T>,
        msg: Result<hotpath_flow::Stamped<T>, ::crossbeam_channel::RecvError>,
    ) -> Result<T, ::crossbeam_channel::RecvError> {
        rx.selected(msg)
    }

    /// The message a `recv(select_handle(&rx)) -> msg` arm received, counted as a receive
    /// of `rx`; without the `hotpath` feature, `msg` itself.
    #[cfg(not(feature = "hotpath"))]
    pub fn selected<T>(
        rx: &Receiver<T>,
        msg: Result<T, ::crossbeam_channel::RecvError>,
    ) -> Result<T, ::crossbeam_channel::RecvError> {
        let _ = rx;
        msg
    }
}

/// flume endpoints (feature `flume`).
#[cfg(feature = "flume")]
pub mod flume {
    #[cfg(not(feature = "hotpath"))]
    pub use flume::{
        r#async::{RecvFut, RecvStream, SendFut, SendSink},
        Drain, IntoIter, Iter, Receiver, Sender, TryIter, WeakSender,
    };
    #[cfg(feature = "hotpath")]
    pub use hotpath_flow::flume::{
        Drain, IntoIter, Iter, Receiver, RecvFut, RecvStream, SendFut, SendSink, Sender, TryIter,
        WeakSender,
    };
}

/// async-channel endpoints (feature `async-channel`).
#[cfg(feature = "async-channel")]
pub mod async_channel {
    #[cfg(not(feature = "hotpath"))]
    pub use async_channel::{Receiver, Sender, WeakReceiver, WeakSender};
    #[cfg(feature = "hotpath")]
    pub use hotpath_flow::async_channel::{Receiver, Sender, WeakReceiver, WeakSender};
}

/// futures-channel endpoints (feature `futures`).
#[cfg(feature = "futures")]
pub mod futures_channel {
    /// `futures_channel::mpsc` endpoints as `channel!` gives them, and the error of
    /// their `try_send`.
    pub mod mpsc {
        #[cfg(not(feature = "hotpath"))]
        pub use futures_channel::mpsc::{
            Receiver, Sender, TrySendError, UnboundedReceiver, UnboundedSender,
        };
        #[cfg(feature = "hotpath")]
        pub use hotpath_flow::futures::mpsc::{
            Receiver, Sender, TrySendError, UnboundedReceiver, UnboundedSender,
        };
    }

    /// `futures_channel::oneshot` endpoints as `channel!` gives them.
    pub mod oneshot {
        #[cfg(not(feature = "hotpath"))]
        pub use futures_channel::oneshot::{Receiver, Sender};
        #[cfg(feature = "hotpath")]
        pub use hotpath_flow::futures::oneshot::{Receiver, Sender};
    }
}

/// The reqwest 0.12 client as `http!` gives it (feature `reqwest-0-12`): with `hotpath`,
/// reqwest-middleware 0.4's `ClientWithMiddleware` (its `Error` is what `send()` returns);
/// without it, `reqwest::Client` itself. `Response` is reqwest's either way.
#[cfg(feature = "reqwest-0-12")]
pub mod reqwest_012 {
    #[cfg(feature = "hotpath")]
    pub use hotpath_integrations::reqwest_middleware_04::{
        ClientWithMiddleware as Client, Error, RequestBuilder,
    };
    pub use reqwest_012::Response;
    #[cfg(not(feature = "hotpath"))]
    pub use reqwest_012::{Client, Error, RequestBuilder};
}

/// The reqwest 0.13 client as `http!` gives it (feature `reqwest-0-13`): with `hotpath`,
/// reqwest-middleware 0.5's `ClientWithMiddleware`; without it, `reqwest::Client`.
#[cfg(feature = "reqwest-0-13")]
pub mod reqwest_013 {
    #[cfg(feature = "hotpath")]
    pub use hotpath_integrations::reqwest_middleware_05::{
        ClientWithMiddleware as Client, Error, RequestBuilder,
    };
    pub use reqwest_013::Response;
    #[cfg(not(feature = "hotpath"))]
    pub use reqwest_013::{Client, Error, RequestBuilder};
}

/// The newest reqwest the build enables: `wrap::reqwest::Client` names the client `http!`
/// gives whichever `reqwest-0-1x` feature is on.
#[cfg(all(feature = "reqwest-0-12", not(feature = "reqwest-0-13")))]
pub use self::reqwest_012 as reqwest;
/// The newest reqwest the build enables: `wrap::reqwest::Client` names the client `http!`
/// gives whichever `reqwest-0-1x` feature is on.
#[cfg(feature = "reqwest-0-13")]
pub use self::reqwest_013 as reqwest;
