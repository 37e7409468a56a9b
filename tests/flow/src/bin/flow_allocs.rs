//! `flow_allocs N`: the allocations a program is charged for when it makes channels,
//! streams and futures with `channel!`, `stream!` and `future!`.
//!
//! Every measured function is called N times and makes one new instance per call, so
//! each registers N instances with its site (and the first call also uses the site, its
//! entry and its slot for the first time). Each `channel!` function has a raw twin
//! (`<name>_raw`) that makes the same channel without the macro and moves the same
//! message through it, as [`Stamped`], the layout of what a wrapped channel carries (the
//! message and an 8-byte clock reading): the backend's buffers are then the same size,
//! and what the wrapped function allocates beyond its twin is the profiler's. The twins'
//! bodies run once before the measured calls, so that no first use of a backend (a
//! thread-local of its own) falls into either measurement. Streams and futures allocate
//! nothing of the program's.

use std::hint::black_box;

use futures_util::{FutureExt, StreamExt};

/// A message as a wrapped channel carries it (`hotpath::__private::Stamped<u64>`'s
/// layout: a clock reading and the message). Its fields give the layout; only the
/// channels read them.
#[allow(dead_code)]
#[derive(Clone, Copy, Debug)]
struct Stamped {
    t: u64,
    v: u64,
}

/// `$name` makes a channel with `channel!($ctor::<u64>($arg))` and runs `$body` on its
/// endpoints `$tx` and `$rx` with the message `$m` (`i`); `$raw` makes
/// `$ctor::<Stamped>($arg)` and runs the same body with `Stamped { t: 0, v: i }` (in
/// `$plain`, unmeasured, which `warm` also calls).
macro_rules! twins {
    ($name:ident, $raw:ident, $plain:ident, [$($ctor:ident)::+]($($arg:expr)?),
     |$tx:ident, $rx:ident, $m:ident| $body:block) => {
        #[hotpath::measure]
        #[allow(unused_mut)]
        fn $name(i: u64) {
            let (mut $tx, mut $rx) = hotpath::channel!($($ctor)::+::<u64>($($arg)?));
            let $m = i;
            $body
        }

        #[allow(unused_mut)]
        fn $plain(i: u64) {
            let (mut $tx, mut $rx) = $($ctor)::+::<Stamped>($($arg)?);
            let $m = Stamped { t: 0, v: i };
            $body
        }

        #[hotpath::measure]
        fn $raw(i: u64) {
            $plain(i)
        }
    };
}

twins!(
    std_channel,
    std_channel_raw,
    std_channel_plain,
    [std::sync::mpsc::channel](),
    |tx, rx, m| {
        tx.send(m).unwrap();
        black_box(rx.recv().unwrap());
    }
);
twins!(
    std_sync_channel,
    std_sync_channel_raw,
    std_sync_channel_plain,
    [std::sync::mpsc::sync_channel](4),
    |tx, rx, m| {
        tx.send(m).unwrap();
        black_box(rx.recv().unwrap());
    }
);
twins!(
    crossbeam_bounded,
    crossbeam_bounded_raw,
    crossbeam_bounded_plain,
    [crossbeam_channel::bounded](4),
    |tx, rx, m| {
        tx.send(m).unwrap();
        black_box(rx.recv().unwrap());
    }
);
twins!(
    crossbeam_unbounded,
    crossbeam_unbounded_raw,
    crossbeam_unbounded_plain,
    [crossbeam_channel::unbounded](),
    |tx, rx, m| {
        tx.send(m).unwrap();
        black_box(rx.recv().unwrap());
    }
);
twins!(
    flume_bounded,
    flume_bounded_raw,
    flume_bounded_plain,
    [flume::bounded](4),
    |tx, rx, m| {
        tx.send(m).unwrap();
        black_box(rx.try_recv().unwrap());
    }
);
twins!(
    flume_unbounded,
    flume_unbounded_raw,
    flume_unbounded_plain,
    [flume::unbounded](),
    |tx, rx, m| {
        tx.send(m).unwrap();
        black_box(rx.try_recv().unwrap());
    }
);
twins!(
    async_channel_bounded,
    async_channel_bounded_raw,
    async_channel_bounded_plain,
    [async_channel::bounded](4),
    |tx, rx, m| {
        tx.try_send(m).unwrap();
        black_box(rx.try_recv().unwrap());
    }
);
twins!(
    async_channel_unbounded,
    async_channel_unbounded_raw,
    async_channel_unbounded_plain,
    [async_channel::unbounded](),
    |tx, rx, m| {
        tx.try_send(m).unwrap();
        black_box(rx.try_recv().unwrap());
    }
);
twins!(
    tokio_mpsc,
    tokio_mpsc_raw,
    tokio_mpsc_plain,
    [tokio::sync::mpsc::channel](4),
    |tx, rx, m| {
        tx.try_send(m).unwrap();
        black_box(rx.try_recv().unwrap());
    }
);
twins!(
    tokio_unbounded,
    tokio_unbounded_raw,
    tokio_unbounded_plain,
    [tokio::sync::mpsc::unbounded_channel](),
    |tx, rx, m| {
        tx.send(m).unwrap();
        black_box(rx.try_recv().unwrap());
    }
);
twins!(
    tokio_oneshot,
    tokio_oneshot_raw,
    tokio_oneshot_plain,
    [tokio::sync::oneshot::channel](),
    |tx, rx, m| {
        tx.send(m).unwrap();
        black_box(rx.try_recv().unwrap());
    }
);
twins!(
    tokio_broadcast,
    tokio_broadcast_raw,
    tokio_broadcast_plain,
    [tokio::sync::broadcast::channel](4),
    |tx, rx, m| {
        tx.send(m).unwrap();
        black_box(rx.try_recv().unwrap());
    }
);
twins!(
    futures_mpsc,
    futures_mpsc_raw,
    futures_mpsc_plain,
    [futures_channel::mpsc::channel](4),
    |tx, rx, m| {
        tx.try_send(m).unwrap();
        black_box(rx.try_recv().unwrap());
    }
);
// A send refused by a full channel (futures-channel gives each sender one slot): the
// wrapper's first refusal makes the error values it hands out, the profiler's work.
twins!(
    futures_mpsc_full,
    futures_mpsc_full_raw,
    futures_mpsc_full_plain,
    [futures_channel::mpsc::channel](0),
    |tx, rx, m| {
        tx.try_send(m).unwrap();
        black_box(tx.try_send(m).unwrap_err().is_full());
        black_box(rx.try_recv().unwrap());
    }
);
twins!(
    futures_unbounded,
    futures_unbounded_raw,
    futures_unbounded_plain,
    [futures_channel::mpsc::unbounded](),
    |tx, rx, m| {
        tx.unbounded_send(m).unwrap();
        black_box(rx.try_recv().unwrap());
    }
);
twins!(
    futures_oneshot,
    futures_oneshot_raw,
    futures_oneshot_plain,
    [futures_channel::oneshot::channel](),
    |tx, rx, m| {
        tx.send(m).unwrap();
        black_box(rx.try_recv().unwrap());
    }
);

/// `watch` carries its value as it is (nothing stamped): its twin is the same call.
#[hotpath::measure]
fn tokio_watch(i: u64) {
    let (tx, rx) = hotpath::channel!(tokio::sync::watch::channel(i));
    tx.send(i + 1).unwrap();
    black_box(*rx.borrow());
}

fn tokio_watch_plain(i: u64) {
    let (tx, rx) = tokio::sync::watch::channel(i);
    tx.send(i + 1).unwrap();
    black_box(*rx.borrow());
}

#[hotpath::measure]
fn tokio_watch_raw(i: u64) {
    tokio_watch_plain(i)
}

/// `iter = true`: every instance its own entry, named (`iter-2`, `iter-3`, ...) when it
/// is made; its twin is `std_channel_raw`.
#[hotpath::measure]
fn std_channel_iter(i: u64) {
    let (tx, rx) = hotpath::channel!(
        std::sync::mpsc::channel::<u64>(),
        label = "iter",
        iter = true
    );
    tx.send(i).unwrap();
    black_box(rx.recv().unwrap());
}

/// Three items of `stream::iter`, to the end: the program allocates nothing.
#[hotpath::measure]
fn stream_iter(i: u64) {
    let s = hotpath::stream!(futures_util::stream::iter(i..i + 3));
    black_box(s.count().now_or_never().unwrap());
}

/// As `stream_iter`, an entry per instance.
#[hotpath::measure]
fn stream_iter_instances(i: u64) {
    let s = hotpath::stream!(
        futures_util::stream::iter(i..i + 3),
        label = "each",
        iter = true
    );
    black_box(s.count().now_or_never().unwrap());
}

/// A future ready at its first poll: the program allocates nothing.
#[hotpath::measure]
fn ready_future(i: u64) {
    black_box(hotpath::future!(async move { i }).now_or_never().unwrap());
}

/// Every twin's body once, unmeasured.
fn warm() {
    for plain in [
        std_channel_plain,
        std_sync_channel_plain,
        crossbeam_bounded_plain,
        crossbeam_unbounded_plain,
        flume_bounded_plain,
        flume_unbounded_plain,
        async_channel_bounded_plain,
        async_channel_unbounded_plain,
        tokio_mpsc_plain,
        tokio_unbounded_plain,
        tokio_oneshot_plain,
        tokio_broadcast_plain,
        futures_mpsc_plain,
        futures_mpsc_full_plain,
        futures_unbounded_plain,
        futures_oneshot_plain,
        tokio_watch_plain,
    ] {
        plain(0);
    }
}

#[hotpath::main]
fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    warm();
    for i in 0..n {
        std_channel_raw(i);
        std_channel(i);
        std_sync_channel_raw(i);
        std_sync_channel(i);
        crossbeam_bounded_raw(i);
        crossbeam_bounded(i);
        crossbeam_unbounded_raw(i);
        crossbeam_unbounded(i);
        flume_bounded_raw(i);
        flume_bounded(i);
        flume_unbounded_raw(i);
        flume_unbounded(i);
        async_channel_bounded_raw(i);
        async_channel_bounded(i);
        async_channel_unbounded_raw(i);
        async_channel_unbounded(i);
        tokio_mpsc_raw(i);
        tokio_mpsc(i);
        tokio_unbounded_raw(i);
        tokio_unbounded(i);
        tokio_oneshot_raw(i);
        tokio_oneshot(i);
        tokio_broadcast_raw(i);
        tokio_broadcast(i);
        futures_mpsc_raw(i);
        futures_mpsc(i);
        futures_mpsc_full_raw(i);
        futures_mpsc_full(i);
        futures_unbounded_raw(i);
        futures_unbounded(i);
        futures_oneshot_raw(i);
        futures_oneshot(i);
        tokio_watch_raw(i);
        tokio_watch(i);
        std_channel_iter(i);
        stream_iter(i);
        stream_iter_instances(i);
        ready_future(i);
    }
}
