//! Per-message, per-item and per-call cost of `channel!`, `stream!` and `future!`.
//!
//! Run twice, once per feature state:
//!
//! ```text
//! cargo bench --bench flow                      # off: the macros return their argument
//! cargo bench --bench flow --features hotpath   # on
//! ```
//!
//! `raw_*` is the same work on the plain value (in both states), `instant_baseline` a
//! hand-written `Instant::now()` stamp carried with each message and read at the
//! receive: the usual do-it-yourself latency measurement. The difference between a
//! case and its `raw_` twin is what the instrumentation costs.
use std::hint::black_box;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use futures_util::StreamExt;

/// Polls a future that never waits, without a runtime.
fn ready<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => unreachable!("the benched futures never wait"),
    }
}

fn state() -> &'static str {
    if cfg!(feature = "hotpath") {
        "on"
    } else {
        "off"
    }
}

fn with_rate<R>(rate: f64, f: impl FnOnce() -> R) -> R {
    let guard = hotpath::HotpathGuardBuilder::new("bench")
        .format(hotpath::Format::None)
        .channels_time_sampling_rate(rate)
        .streams_time_sampling_rate(rate)
        .futures_time_sampling_rate(rate)
        .build();
    let r = f();
    drop(guard);
    r
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group(format!("flow[{}]", state()));
    // One message: send, then receive, on one thread, bounded std channel.
    g.bench_function("raw_sync_channel", |b| {
        let (tx, rx) = mpsc::sync_channel::<u64>(1024);
        b.iter(|| {
            tx.send(black_box(1)).unwrap();
            rx.recv().unwrap()
        })
    });
    g.bench_function("instant_baseline", |b| {
        let (tx, rx) = mpsc::sync_channel::<(Instant, u64)>(1024);
        let mut spent = Duration::ZERO;
        b.iter(|| {
            tx.send((Instant::now(), black_box(1))).unwrap();
            let (t, v) = rx.recv().unwrap();
            spent += t.elapsed();
            v
        });
        black_box(spent);
    });
    g.bench_function("raw_stream_item", |b| {
        let mut s = futures_util::stream::iter(0..u64::MAX);
        b.iter(|| ready(s.next()))
    });
    g.bench_function("raw_future", |b| {
        b.iter(|| ready(async { black_box(1u64) }))
    });
    // Every event timed, none, and the default (one in 16 after each site's warm-up).
    for (rate, suffix) in [
        (1.0, ""),
        (0.0, "_count_only"),
        (1.0 / 16.0, "_default_rate"),
    ] {
        with_rate(rate, || {
            g.bench_function(format!("channel_sync_channel{suffix}"), |b| {
                let (tx, rx) = hotpath::channel!(mpsc::sync_channel::<u64>(1024), capacity = 1024);
                b.iter(|| {
                    tx.send(black_box(1)).unwrap();
                    rx.recv().unwrap()
                })
            });
            g.bench_function(format!("stream_item{suffix}"), |b| {
                let mut s = hotpath::stream!(futures_util::stream::iter(0..u64::MAX));
                b.iter(|| ready(s.next()))
            });
            g.bench_function(format!("future{suffix}"), |b| {
                b.iter(|| ready(hotpath::future!(async { black_box(1u64) })))
            });
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
