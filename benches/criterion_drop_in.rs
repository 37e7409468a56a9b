//! An ordinary criterion benchmark file on `hotpath::criterion`: with `hotpath` each
//! benchmark id also writes a report of the measured functions its routine called.
//!
//! ```text
//! cargo bench --bench criterion_drop_in --features criterion-0-8            # criterion alone
//! HOTPATH_OUTPUT_FORMAT=json HOTPATH_OUTPUT_PATH=target/hp.json \
//!   cargo bench --bench criterion_drop_in --features criterion-0-8,hotpath  # one report per id
//! HOTPATH_CRITERION_ITERATIONS=1000 HOTPATH_OUTPUT_FORMAT=json HOTPATH_OUTPUT_PATH=target/hp.json \
//!   cargo bench --bench criterion_drop_in --features criterion-0-8,hotpath -- --test
//! ```
//!
//! The last one runs each routine exactly 1000 times and writes `target/hp.codec_encode.json`,
//! `target/hp.codec_decode.json`, `target/hp.checksum_64.json` and
//! `target/hp.checksum_4096.json`.
use std::hint::black_box;

// The items criterion has and hotpath does not replace (`BatchSize`, `Throughput`, ...)
// come from the same criterion version; `hotpath::criterion` re-exports them.
use hotpath::criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput,
};

#[hotpath::measure]
fn encode(values: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 5);
    for &v in values {
        let mut v = v;
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    out
}

#[hotpath::measure]
fn decode(bytes: &[u8]) -> Vec<u32> {
    let mut out = Vec::new();
    let (mut v, mut shift) = (0u32, 0);
    for &b in bytes {
        v |= u32::from(b & 0x7f) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            out.push(v);
            (v, shift) = (0, 0);
        }
    }
    out
}

#[hotpath::measure]
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn values() -> Vec<u32> {
    (0..1024u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect()
}

fn codec(c: &mut Criterion) {
    let values = values();
    let bytes = encode(&values);
    let mut group = c.benchmark_group("codec");
    group.bench_function("encode", |b| b.iter(|| encode(black_box(&values))));
    group.bench_function("decode", |b| {
        b.iter_batched(
            || bytes.clone(),
            |bytes| decode(&bytes),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn sizes(c: &mut Criterion) {
    let mut group = c.benchmark_group("checksum");
    for size in [64usize, 4096] {
        let data: Vec<u8> = (0..size).map(|i| i as u8).collect();
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::from_parameter(size), &data, |b, data| {
            b.iter(|| checksum(black_box(data)))
        });
    }
    group.finish();
}

criterion_group!(benches, codec, sizes);
criterion_main!(benches);
