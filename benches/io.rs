//! Per-operation cost of `io!`.
//!
//! ```text
//! cargo bench --bench io                      # off: io! returns the value itself
//! cargo bench --bench io --features hotpath   # on
//! ```
//!
//! Every case reads 64 bytes from `std::io::repeat` (or writes them to `std::io::sink`),
//! an operation that makes no system call, so what is added to `plain_*` is the wrapper.
//! `instant_baseline` is the hand-written alternative: an `Instant::now()` pair and two
//! counters around the read.
use std::hint::black_box;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

fn state() -> &'static str {
    if cfg!(feature = "hotpath") {
        "on"
    } else {
        "off"
    }
}

fn with_io_rate<R>(rate: f64, f: impl FnOnce() -> R) -> R {
    let guard = hotpath::HotpathGuardBuilder::new("bench")
        .format(hotpath::Format::None)
        .io_time_sampling_rate(rate)
        .build();
    let r = f();
    drop(guard);
    r
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group(format!("io[{}]", state()));
    let mut buf = [0u8; 64];
    g.bench_function("plain_read", |b| {
        let mut r = std::io::repeat(1);
        b.iter(|| r.read(black_box(&mut buf)).unwrap())
    });
    g.bench_function("plain_write", |b| {
        let mut w = std::io::sink();
        b.iter(|| w.write(black_box(&buf)).unwrap())
    });
    g.bench_function("instant_baseline", |b| {
        let mut r = std::io::repeat(1);
        let (mut ops, mut bytes, mut spent) = (0u64, 0u64, Duration::ZERO);
        b.iter(|| {
            let t = Instant::now();
            let n = r.read(black_box(&mut buf)).unwrap();
            spent += t.elapsed();
            ops += 1;
            bytes += n as u64;
            n
        });
        black_box((ops, bytes, spent));
    });
    with_io_rate(1.0, || {
        g.bench_function("io_read", |b| {
            let mut r = hotpath::io!(std::io::repeat(1), label = "bench read");
            b.iter(|| r.read(black_box(&mut buf)).unwrap())
        });
        g.bench_function("io_write", |b| {
            let mut w = hotpath::io!(std::io::sink(), label = "bench write");
            b.iter(|| w.write(black_box(&buf)).unwrap())
        });
    });
    with_io_rate(0.0, || {
        g.bench_function("io_read_count_only", |b| {
            let mut r = hotpath::io!(std::io::repeat(1), label = "bench count");
            b.iter(|| r.read(black_box(&mut buf)).unwrap())
        });
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
