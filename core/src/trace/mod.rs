//! The trace ring: the latest individual calls of each thread, for a Chrome/Perfetto
//! trace written at the end of the session.
//!
//! Switched on with [`configure`] (`HOTPATH_TRACE=out.json`). Each thread gets a ring of
//! `capacity` records of 24 bytes (site, kind, start and end ticks), allocated zeroed on
//! its first traced call, written at each scope's exit: it keeps the latest calls (a
//! flight recorder) and counts the ones it overwrote. A sync scope is one record; an
//! async fn writes one per poll and one for the whole call (first poll to `Ready`).
//! Rings of threads that exited are kept, up to [`MAX_RETIRED`], the oldest freed first
//! (and counted).
//!
//! `ring` holds the rings, a plain data structure each shard owns one of; this module
//! switches them on and collects them ([`collect`]) from the registry of shards.

pub(crate) mod ring;

pub use ring::{Event, Kind, ThreadTrace, DEFAULT_CAPACITY, MAX_RETIRED};

/// Turns the trace ring on or off, with `capacity` records per thread (at least 16).
/// The capacity applies to rings allocated from now on.
pub fn configure(on: bool, capacity: u32) {
    ring::set_capacity(capacity);
    crate::state::set_trace(on);
}

/// Every ring of the session: live threads and exited ones.
#[derive(Clone, Debug)]
pub struct Trace {
    /// One entry per thread with a ring.
    pub threads: Vec<ThreadTrace>,
    /// Rings of exited threads freed because more than [`MAX_RETIRED`] were kept.
    pub threads_dropped: u64,
    /// Nanoseconds per tick, to convert `start` and `end`.
    pub ns_per_tick: f64,
    /// Records per thread.
    pub capacity: u32,
}

/// The trace so far. Threads still running keep writing meanwhile; take it when the
/// session ends. Ticks convert with the ratio of the last snapshot (so the trace agrees
/// with the report made just before it).
pub fn collect() -> Trace {
    let ns_per_tick = crate::clock::last_ns_per_tick();
    crate::internal(|| {
        let sites = crate::site::all();
        let mut threads = Vec::new();
        crate::registry::with_live(|shards| {
            for s in shards {
                if let Some(r) = s.ring.get() {
                    if r.written.get() > 0 {
                        threads.push(r.snapshot(&sites));
                    }
                }
            }
        });
        let r = ring::retired();
        threads.extend(r.rings.iter().map(|ring| ring.snapshot(&sites)));
        Trace {
            threads,
            threads_dropped: r.freed,
            ns_per_tick,
            capacity: ring::capacity(),
        }
    })
}
