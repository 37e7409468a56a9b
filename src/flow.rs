//! Channels, streams and futures: the types `channel!`, `stream!` and `future!` give, as
//! aliases that name the instrumented wrappers with the `hotpath` feature and the raw
//! types without it, so struct fields and signatures compile the same either way.
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
//! Each backend's module exists with its Cargo feature (`tokio`, `crossbeam`, `flume`,
//! `async-channel`, `futures`); `std` always.

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

/// `std` channel endpoints.
pub mod std {
    /// `std::sync`.
    pub mod sync {
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

/// tokio channel endpoints (feature `tokio`).
#[cfg(feature = "tokio")]
pub mod tokio {
    /// `tokio::sync`.
    pub mod sync {
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

/// crossbeam-channel endpoints (feature `crossbeam`).
#[cfg(feature = "crossbeam")]
pub mod crossbeam_channel {
    #[cfg(not(feature = "hotpath"))]
    pub use crossbeam_channel::{IntoIter, Iter, Receiver, Sender, TryIter};
    #[cfg(feature = "hotpath")]
    pub use hotpath_flow::crossbeam::{IntoIter, Iter, Receiver, Sender, TryIter};
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
