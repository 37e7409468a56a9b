//! Per-span cost of `hotpath::tracing::layer()` over `tracing`'s own (issue 28 item 6).
//!
//! ```text
//! cargo bench --bench tracing --features tracing           # off: layer() is a no-op layer
//! cargo bench --bench tracing --features hotpath,tracing   # on
//! ```
//!
//! Every case runs under its own scoped dispatcher (`with_default`), each a
//! `tracing_subscriber::registry()` with `fmt::layer()` filtered off (a per-layer
//! `LevelFilter::OFF`), and measures two things: `span`, an
//! `info_span!("x").in_scope(..)` (create, enter, exit, close), and `enter_exit`, the
//! same `in_scope` on one span created beforehand.
//!
//! - `fmt_off`: nothing else, the baseline of the issue: no layer wants the span, so
//!   `tracing` makes none (one interest check).
//! - `keep`: plus a layer that enables every span and does nothing, so the registry
//!   makes and stores the span: `tracing`'s own cost of a span some layer wants.
//! - `hotpath`: plus `hotpath::tracing::layer()`, a session running: `hotpath` −
//!   `keep` is the layer's work per span (a call site looked up, the span's call
//!   stored in its extensions, a measured enter and exit, the call recorded at close).
//! - `filtered_out`: `hotpath` with a `DEBUG` span, which hotpath's default filter
//!   (`info`) leaves out: no layer wants it, as in `fmt_off`.
//! - `filtered_out_keep`: the same `DEBUG` span with `keep` beside hotpath's layer, so
//!   the registry makes the span and hotpath's per-layer filter is asked about it:
//!   `filtered_out_keep` − `keep` is what a span the filter leaves out costs when
//!   another layer wants it.
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use tracing::Subscriber;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::{Layer, SubscriberExt};

fn state() -> &'static str {
    if cfg!(feature = "hotpath") {
        "on"
    } else {
        "off"
    }
}

/// A layer that wants every span and does nothing with it.
struct Keep;

impl<S: Subscriber> Layer<S> for Keep {}

fn fmt_off<S>() -> impl Layer<S>
where
    S: Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    tracing_subscriber::fmt::layer().with_filter(LevelFilter::OFF)
}

/// `span` and `enter_exit` of case `name`, spans made by `make`, under `dispatch`.
fn case(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    dispatch: impl Into<tracing::Dispatch>,
    make: fn() -> tracing::Span,
) {
    tracing::dispatcher::with_default(&dispatch.into(), || {
        g.bench_function(format!("{name}/span"), |b| {
            b.iter(|| make().in_scope(|| black_box(1)))
        });
        let span = make();
        g.bench_function(format!("{name}/enter_exit"), |b| {
            b.iter(|| span.in_scope(|| black_box(1)))
        });
    });
}

fn info() -> tracing::Span {
    tracing::info_span!("x")
}

fn debug() -> tracing::Span {
    tracing::debug_span!("x")
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group(format!("span[{}]", state()));
    case(
        &mut g,
        "fmt_off",
        tracing_subscriber::registry().with(fmt_off()),
        info,
    );
    case(
        &mut g,
        "keep",
        tracing_subscriber::registry().with(fmt_off()).with(Keep),
        info,
    );
    let session = hotpath::HotpathGuardBuilder::new("bench")
        .format(hotpath::Format::None)
        .build();
    case(
        &mut g,
        "hotpath",
        tracing_subscriber::registry()
            .with(fmt_off())
            .with(hotpath::tracing::layer()),
        info,
    );
    case(
        &mut g,
        "filtered_out",
        tracing_subscriber::registry()
            .with(fmt_off())
            .with(hotpath::tracing::layer()),
        debug,
    );
    case(
        &mut g,
        "filtered_out_keep",
        tracing_subscriber::registry()
            .with(fmt_off())
            .with(Keep)
            .with(hotpath::tracing::layer()),
        debug,
    );
    drop(session);
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
