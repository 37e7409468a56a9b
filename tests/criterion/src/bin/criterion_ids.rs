//! A criterion benchmark file on `hotpath::criterion`, built as a program (a `[[bin]]`,
//! so that tests find it through `CARGO_BIN_EXE_criterion_ids`): three benchmark ids with
//! known calls per run of their routines.
//!
//! | id | routine | measured calls per run |
//! |---|---|---|
//! | `triple` | `iter` | `step` × 3 |
//! | `group/pair/7` | `bench_with_input`, `iter` | `pair_step` × 2 |
//! | `group/batched` | `iter_batched` | `make_input` × 1 (setup), `consume` × 1 |

// `BatchSize` is criterion's own, re-exported by `hotpath::criterion` (this crate does not
// depend on criterion directly).
use hotpath::criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};

#[hotpath::measure]
fn step(x: u64) -> u64 {
    std::hint::black_box(x.wrapping_mul(31).wrapping_add(7))
}

#[hotpath::measure]
fn pair_step(x: u64) -> u64 {
    std::hint::black_box(x ^ 0x5a5a)
}

#[hotpath::measure]
fn make_input() -> Vec<u64> {
    (0..8).collect()
}

#[hotpath::measure]
fn consume(v: Vec<u64>) -> u64 {
    v.iter().sum()
}

fn triple(c: &mut Criterion) {
    c.bench_function("triple", |b| b.iter(|| step(1) + step(2) + step(3)));
}

fn group(c: &mut Criterion) {
    let mut g = c.benchmark_group("group");
    g.bench_with_input(BenchmarkId::new("pair", 7), &7u64, |b, &n| {
        b.iter(|| pair_step(n) + pair_step(n + 1))
    });
    g.bench_function("batched", |b| {
        b.iter_batched(make_input, consume, BatchSize::SmallInput)
    });
    g.finish();
}

criterion_group!(benches, triple, group);
criterion_main!(benches);
