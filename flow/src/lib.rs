//! Data-flow meter of the [hotpath](https://docs.rs/hotpath) profiler: channels, streams
//! and futures.
//!
//! Use it through the facade: `hotpath::channel!(tokio::sync::mpsc::channel(64))`,
//! `hotpath::stream!(s, label = "rows")`, `hotpath::future!(fut)`. Without the facade's
//! `hotpath` feature every macro returns its argument.
//!
//! ## Channels
//!
//! `channel!` rewrites the constructor call the user wrote so that the channel carries
//! [`Stamped<T>`] (the message and an 8-byte clock reading) and wraps its endpoints.
//! The channel that runs is the channel that was written: same backend, same capacity,
//! same buffering; no relay, no second channel. Every endpoint method is delegated; a
//! send first tries the non-blocking send, and only when the channel is full waits with
//! the blocking or async send, so the time senders spend blocked is measured without
//! changing when a send succeeds.
//!
//! Per channel entry (call site and message type, or one instance with `iter = true`),
//! in the thread's slot of the entry's call site: messages sent and received (exact),
//! failed sends, messages unread when the last receiver dropped, the largest queue depth
//! of one instance, sends that found the channel full and how long they waited, and the
//! latency of each timed message from the send call to its receive. Waiting to send on a
//! full channel or to receive from an empty one is also charged to the innermost
//! measured function.
//!
//! Queue depth is read after each successful send: from `len()` where the backend has
//! it (crossbeam, flume, async-channel, tokio broadcast), else from two counters in the
//! instance (std, tokio mpsc, futures mpsc): sends counted before the push, receives
//! after the pop. The sample is never below the true depth and above it by at most the
//! sends in flight; it is clamped to the capacity when there is one, except for
//! futures-channel's bounded `channel(n)`, whose capacity is `n` plus one message per
//! sender.
//!
//! ## Streams and futures
//!
//! [`Stream`] counts items, polls, `Pending` polls, completion or an early drop, the
//! time to the first item and the busy time (sum of poll durations). [`Future`] is the
//! core's `MeasuredFuture` (a scope per poll), and `FusedFuture` as the future it wraps.
//!
//! ## Cost
//!
//! Channels: one clock read at the send and one at the receive of a timed message,
//! single-writer stores into the thread's slot, and for backends without `len()` a count
//! on the instance's send counter: a plain load and store on the first thread that sent
//! (the usual single producer), a relaxed read-modify-write on the others. Streams: two clock reads per timed
//! poll. Nothing allocates per message, item or poll; no thread, no event queue.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
// Some helpers and macros serve only some backends: a build without every backend
// leaves them unused (the build with all of them is where dead code is caught).
#![cfg_attr(
    not(all(
        feature = "tokio",
        feature = "crossbeam",
        feature = "flume",
        feature = "async-channel",
        feature = "futures"
    )),
    allow(dead_code, unused_macros)
)]

// The crate, by idea: `registry` (the entries the report shows), `chan` (an instance and
// the one send and receive path every backend takes), `depth` (its depth counters),
// `wait` (timed waits), `instrument` (what `channel!` calls, the instance's shape),
// `iter` (the receive iterators), `macros` (the endpoint boilerplate), one module per
// backend that only maps its types to these, and `stream` and `future`.
#[macro_use]
mod macros;

mod chan;
mod depth;
mod future;
mod instrument;
mod iter;
mod registry;
mod stream;
mod wait;

pub mod std_mpsc;

#[cfg(feature = "async-channel")]
pub mod async_channel;
#[cfg(feature = "crossbeam")]
pub mod crossbeam;
#[cfg(feature = "flume")]
pub mod flume;
#[cfg(feature = "futures")]
pub mod futures;
#[cfg(feature = "tokio")]
pub mod tokio;

pub use chan::Stamped;
pub use future::Future;
pub use instrument::{channel, channel_labelled, IntoInstrumented};
pub use registry::{entries, Entry, FlowSite, What};
pub use stream::Stream;
