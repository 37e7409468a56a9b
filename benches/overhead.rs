//! Per-call cost of instrumentation.
//!
//! Run twice, once per feature state:
//!
//! ```text
//! cargo bench --bench overhead                      # off: annotations are plain code
//! cargo bench --bench overhead --features hotpath   # on
//! cargo bench --bench overhead --features hotpath-cpu   # on, CPU sampled (and exact)
//! ```
//!
//! Every case calls the same tiny function (a multiply); the difference to `plain` is
//! what the annotation costs. `instant_baseline` is what a hand-written
//! `Instant::now()` pair around the call costs, the usual do-it-yourself alternative.
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

#[inline(never)]
fn plain(x: u64) -> u64 {
    black_box(x).wrapping_mul(31)
}

#[inline(never)]
#[hotpath::measure]
fn measured(x: u64) -> u64 {
    black_box(x).wrapping_mul(31)
}

#[inline(never)]
#[hotpath::measure]
fn child(x: u64) -> u64 {
    black_box(x) ^ 7
}

#[inline(never)]
#[hotpath::measure]
fn parent(x: u64) -> u64 {
    child(x).wrapping_add(child(x + 1))
}

/// A block whose call site is numbered after 600 others (shards reach the slots of the
/// first 512 ids one load away, the others through a directory).
#[cfg(feature = "hotpath")]
#[inline(never)]
fn far_site(site: &'static hotpath::__private::CallSite, x: u64) -> u64 {
    let _s = hotpath::__private::Scope::enter(site);
    black_box(x).wrapping_mul(31)
}

/// A call site made at run time (a leaked one, as `io!` makes), numbered now.
#[cfg(feature = "hotpath")]
fn numbered_site(i: usize) -> &'static hotpath::__private::CallSite {
    use hotpath::__private::{CallSite, Scope, SiteKind};
    let name: &'static str = format!("site_{i}").leak();
    let site: &'static CallSite = Box::leak(Box::new(CallSite::named(
        name,
        None,
        file!(),
        line!(),
        SiteKind::Block,
    )));
    drop(Scope::enter(site));
    site
}

/// Runs `f` inside `n` nested measured calls (`f` runs at depth `n`).
#[hotpath::measure]
fn nest(n: u32, f: &mut dyn FnMut()) {
    if n == 0 {
        f()
    } else {
        nest(n - 1, f)
    }
}

#[hotpath::measure]
async fn measured_async(x: u64) -> u64 {
    black_box(x).wrapping_mul(17)
}

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
    if cfg!(feature = "hotpath-cpu") {
        "cpu"
    } else if cfg!(feature = "hotpath") {
        "on"
    } else {
        "off"
    }
}

fn with_rate<R>(rate: f64, f: impl FnOnce() -> R) -> R {
    with_session(rate, hotpath::CpuMode::Sampled, f)
}

fn with_session<R>(rate: f64, cpu: hotpath::CpuMode, f: impl FnOnce() -> R) -> R {
    let guard = hotpath::HotpathGuardBuilder::new("bench")
        .format(hotpath::Format::None)
        .time_sampling_rate(rate)
        .cpu_mode(cpu)
        .build();
    let r = f();
    drop(guard);
    r
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group(format!("call[{}]", state()));
    g.bench_function("plain", |b| b.iter(|| plain(black_box(3))));
    g.bench_function("instant_baseline", |b| {
        let mut spent = Duration::ZERO;
        b.iter(|| {
            let t = Instant::now();
            let r = plain(black_box(3));
            spent += t.elapsed();
            r
        });
        black_box(spent);
    });
    with_rate(1.0, || {
        g.bench_function("measure", |b| b.iter(|| measured(black_box(3))));
        g.bench_function("measure_block", |b| {
            b.iter(|| hotpath::measure_block!("block", plain(black_box(3))))
        });
        g.bench_function("nested_3_calls", |b| b.iter(|| parent(black_box(3))));
        g.bench_function("async_measure", |b| {
            b.iter(|| ready(measured_async(black_box(3))))
        });
        // A call nested deeper than the frames a shard holds inline (16).
        nest(20, &mut || {
            g.bench_function("measure_at_depth_20", |b| b.iter(|| measured(black_box(3))));
        });
    });
    with_rate(0.01, || {
        g.bench_function("measure_sampled_1pct", |b| {
            b.iter(|| measured(black_box(3)))
        });
    });
    with_rate(0.0, || {
        g.bench_function("measure_count_only", |b| b.iter(|| measured(black_box(3))));
    });
    // An overhead budget of 1 %: the bench's function is the hottest there is, so the
    // controller times about one call in 2^20; the others are counted with a frame.
    let budget = hotpath::HotpathGuardBuilder::new("bench")
        .format(hotpath::Format::None)
        .overhead_budget(1.0)
        .build();
    g.bench_function("measure_budget_1pct", |b| b.iter(|| measured(black_box(3))));
    g.bench_function("nested_3_calls_budget_1pct", |b| {
        b.iter(|| parent(black_box(3)))
    });
    drop(budget);
    // The calling-context tree (HOTPATH_STACKS=1): a node lookup at entry, four adds at
    // exit. Then the trace ring (HOTPATH_TRACE): a 24-byte record at exit.
    let stacks = hotpath::HotpathGuardBuilder::new("bench")
        .format(hotpath::Format::None)
        .stacks(true)
        .build();
    g.bench_function("measure_stacks", |b| b.iter(|| measured(black_box(3))));
    g.bench_function("nested_3_calls_stacks", |b| b.iter(|| parent(black_box(3))));
    drop(stacks);
    let trace_file =
        std::env::temp_dir().join(format!("hotpath-bench-{}.json", std::process::id()));
    let trace = hotpath::HotpathGuardBuilder::new("bench")
        .format(hotpath::Format::None)
        .trace(&trace_file)
        .build();
    g.bench_function("measure_trace", |b| b.iter(|| measured(black_box(3))));
    drop(trace);
    let _ = std::fs::remove_file(&trace_file);
    // Last: the cases above keep the low call-site numbers most programs have.
    #[cfg(feature = "hotpath")]
    with_rate(1.0, || {
        for i in 0..599 {
            numbered_site(i);
        }
        let far = numbered_site(599);
        g.bench_function("measure_site_600", |b| b.iter(|| far_site(far, 3)));
    });
    if cfg!(feature = "hotpath-cpu") {
        // Exact CPU mode reads the thread CPU clock and the context switches at entry
        // and exit of every call.
        with_session(1.0, hotpath::CpuMode::Exact, || {
            g.bench_function("measure_cpu_exact", |b| b.iter(|| measured(black_box(3))));
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
