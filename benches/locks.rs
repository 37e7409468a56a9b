//! Per-acquisition cost of `mutex!` and `rw_lock!`.
//!
//! ```text
//! cargo bench --bench locks                      # off: the macros return the lock itself
//! cargo bench --bench locks --features hotpath   # on
//! ```
//!
//! `plain_*` lock a raw `std::sync` lock; `mutex`/`rw_lock_*` lock the one the macro
//! returns (the raw lock again with the feature off), so the difference is what the
//! measurement adds. `instant_baseline` is the hand-written alternative: an
//! `Instant::now()` pair around the acquisition and the hold. `plain_mutex_tsc_floor`
//! (x86_64) is the raw lock with a TSC read after the lock and one after the unlock, as a
//! timed acquisition makes them, and nothing else: what no lock meter can go under. `contended_*` run two
//! threads incrementing one counter, 10,000 acquisitions each, per iteration.
use std::hint::black_box;
use std::sync::{Arc, Barrier, Mutex, RwLock};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

fn state() -> &'static str {
    if cfg!(feature = "hotpath") {
        "on"
    } else {
        "off"
    }
}

fn with_rates<R>(rate: f64, f: impl FnOnce() -> R) -> R {
    let guard = hotpath::HotpathGuardBuilder::new("bench")
        .format(hotpath::Format::None)
        .mutexes_time_sampling_rate(rate)
        .rw_locks_time_sampling_rate(rate)
        .build();
    let r = f();
    drop(guard);
    r
}

fn with_default_rates<R>(f: impl FnOnce() -> R) -> R {
    let guard = hotpath::HotpathGuardBuilder::new("bench")
        .format(hotpath::Format::None)
        .build();
    let r = f();
    drop(guard);
    r
}

#[cfg(target_arch = "x86_64")]
fn tsc() -> u64 {
    // SAFETY: `rdtsc` exists on every x86_64 CPU and has no memory effects.
    unsafe { std::arch::x86_64::_rdtsc() }
}

/// Two threads, `n` increments each, on the lock `inc` increments through.
fn contended(n: u64, inc: impl Fn() + Sync) -> Duration {
    let start = Barrier::new(2);
    let t = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                start.wait();
                for _ in 0..n {
                    inc();
                }
            });
        }
    });
    t.elapsed()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group(format!("locks[{}]", state()));
    let raw = Mutex::new(0u64);
    g.bench_function("plain_mutex", |b| {
        b.iter(|| *raw.lock().unwrap() += black_box(1))
    });
    g.bench_function("instant_baseline", |b| {
        let mut spent = Duration::ZERO;
        b.iter(|| {
            let t = Instant::now();
            let mut g = raw.lock().unwrap();
            let held = Instant::now();
            *g += black_box(1);
            drop(g);
            spent += held.elapsed() + (held - t);
        });
        black_box(spent);
    });
    #[cfg(target_arch = "x86_64")]
    g.bench_function("plain_mutex_tsc_floor", |b| {
        // The raw lock with the two TSC reads a timed acquisition makes (after the lock,
        // after the unlock) and nothing else: the floor of the wrapper's cost.
        let mut held = 0u64;
        b.iter(|| {
            let mut g = raw.lock().unwrap();
            let start = tsc();
            *g += black_box(1);
            drop(g);
            held = held.wrapping_add(tsc().wrapping_sub(start));
        });
        black_box(held);
    });
    let raw_rw = RwLock::new(0u64);
    g.bench_function("plain_rw_lock_read", |b| {
        b.iter(|| black_box(*raw_rw.read().unwrap()))
    });
    let m = hotpath::mutex!(Mutex::new(0u64));
    let rw = hotpath::rw_lock!(RwLock::new(0u64));
    with_rates(1.0, || {
        g.bench_function("mutex", |b| b.iter(|| *m.lock().unwrap() += black_box(1)));
        g.bench_function("rw_lock_read", |b| {
            b.iter(|| black_box(*rw.read().unwrap()))
        });
        g.bench_function("rw_lock_write", |b| {
            b.iter(|| *rw.write().unwrap() += black_box(1))
        });
    });
    with_rates(0.0, || {
        g.bench_function("mutex_count_only", |b| {
            b.iter(|| *m.lock().unwrap() += black_box(1))
        });
    });
    // The default rates: holds sampled one in 16 after the site's warm-up.
    with_default_rates(|| {
        g.bench_function("mutex_default_rate", |b| {
            b.iter(|| *m.lock().unwrap() += black_box(1))
        });
        g.bench_function("rw_lock_read_default_rate", |b| {
            b.iter(|| black_box(*rw.read().unwrap()))
        });
    });
    let shared = Arc::new(Mutex::new(0u64));
    g.bench_function("contended_plain_2x10k", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| contended(10_000, || *shared.lock().unwrap() += 1))
                .sum()
        })
    });
    let wrapped = Arc::new(hotpath::mutex!(Mutex::new(0u64)));
    with_rates(1.0, || {
        g.bench_function("contended_mutex_2x10k", |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| contended(10_000, || *wrapped.lock().unwrap() += 1))
                    .sum()
            })
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
