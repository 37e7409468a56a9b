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

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use hotpath_core::fork::{Mutex, Rank};
use hotpath_core::{CallSite, SiteKind};

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

// Some helpers serve only some backends.
#[cfg_attr(
    not(all(
        feature = "tokio",
        feature = "crossbeam",
        feature = "flume",
        feature = "async-channel",
        feature = "futures"
    )),
    allow(dead_code)
)]
mod chan;
mod future;
mod stream;

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

pub use chan::{channel, IntoInstrumented, Stamped};
pub use future::Future;
pub use stream::Stream;

/// One `channel!` or `stream!` call site: a `static` per macro expansion.
#[derive(Debug)]
pub struct FlowSite {
    file: &'static str,
    line: u32,
    label: Option<&'static str>,
    iter: bool,
    /// With `iter`: instances created so far (for their names).
    created: AtomicU64,
}

impl FlowSite {
    /// A call site at `file:line`; `iter` gives every instance its own entry.
    pub const fn new(
        file: &'static str,
        line: u32,
        label: Option<&'static str>,
        iter: bool,
    ) -> Self {
        FlowSite {
            file,
            line,
            label,
            iter,
            created: AtomicU64::new(0),
        }
    }
}

/// What an entry counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// A channel.
    Channel,
    /// A stream.
    Stream,
}

/// What the report shows as one row: a `channel!` or `stream!` call site and the type
/// it carries (or, with `iter = true`, one instance).
#[derive(Debug)]
pub struct Entry {
    /// Channel or stream.
    pub what: What,
    /// The label, or `file:line`; `label-2`, `label-3`, ... for later `iter` instances.
    pub name: &'static str,
    /// The `label = "..."` given.
    pub label: Option<&'static str>,
    /// Source file of the macro.
    pub file: &'static str,
    /// Source line of the macro.
    pub line: u32,
    /// `std::any::type_name` of the message or item.
    pub type_name: &'static str,
    /// Channels: `std`, `crossbeam`, `flume`, `async-channel`, `tokio` or `futures`.
    pub backend: &'static str,
    /// Channels: `bounded`, `unbounded`, `rendezvous`, `oneshot`, `broadcast` or `watch`.
    pub kind: &'static str,
    /// Channels: the largest capacity of its instances; `u64::MAX` when unbounded.
    pub capacity: AtomicU64,
    /// Instances created for this entry.
    pub instances: AtomicU64,
    /// Where its numbers are recorded, per thread.
    pub site: &'static CallSite,
}

struct Registry {
    by_key: HashMap<(usize, &'static str), &'static Entry>,
    all: Vec<&'static Entry>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(Rank::FlowEntries, None);

/// The entry of `site` for `T`, created on first use, with one more instance. Called
/// once per channel or stream created, not per message.
pub(crate) fn entry<T>(
    site: &'static FlowSite,
    what: What,
    backend: &'static str,
    kind: &'static str,
    capacity: Option<usize>,
) -> &'static Entry {
    let type_name = std::any::type_name::<T>();
    let cap = capacity.map_or(u64::MAX, |c| c as u64);
    hotpath_core::internal(|| {
        let mut guard = REGISTRY.lock();
        let reg = guard.get_or_insert_with(|| Registry {
            by_key: HashMap::new(),
            all: Vec::new(),
        });
        let key = (site as *const FlowSite as usize, type_name);
        if !site.iter {
            if let Some(e) = reg.by_key.get(&key) {
                e.instances.fetch_add(1, Relaxed);
                if cap != u64::MAX {
                    let old = e.capacity.load(Relaxed);
                    if old == u64::MAX || old < cap {
                        e.capacity.store(cap, Relaxed);
                    }
                }
                return *e;
            }
        }
        let n = site.created.fetch_add(1, Relaxed) + 1;
        let base = match site.label {
            Some(l) => l.to_string(),
            None => format!("{}:{}", site.file, site.line),
        };
        let name: &'static str = if site.iter && n > 1 {
            format!("{base}-{n}")
        } else {
            base
        }
        .leak();
        let site_kind = match what {
            What::Channel => SiteKind::Channel,
            What::Stream => SiteKind::Stream,
        };
        let call_site: &'static CallSite = Box::leak(Box::new(CallSite::dynamic(
            name, site.label, site.file, site.line, site_kind,
        )));
        let e: &'static Entry = Box::leak(Box::new(Entry {
            what,
            name,
            label: site.label,
            file: site.file,
            line: site.line,
            type_name,
            backend,
            kind,
            capacity: AtomicU64::new(cap),
            instances: AtomicU64::new(1),
            site: call_site,
        }));
        if !site.iter {
            reg.by_key.insert(key, e);
        }
        reg.all.push(e);
        e
    })
}

/// Every entry created so far, in order of creation.
pub fn entries() -> Vec<&'static Entry> {
    let guard = REGISTRY.lock();
    hotpath_core::internal(|| guard.as_ref().map(|r| r.all.clone()).unwrap_or_default())
}
