//! What the tracking allocator adds to an allocation + free pair.
//!
//! ```text
//! cargo bench --bench alloc
//! ```
//!
//! The allocators are called directly (not installed as the global allocator), so one
//! binary compares `System` with `Tracking<System>` and `MiMalloc` with
//! `Tracking<MiMalloc>`. The pair is 64 bytes, the size of a small `Vec` or `String`.
//!
//! A difference of one nanosecond on a ten-nanosecond operation drowns in the drift of a
//! shared VM when the variants run one after the other (as Criterion runs them), so this
//! bench is paired: each round times a batch of every variant back to back, in a rotating
//! order, and the figure is the median over rounds of the per-round difference.
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::time::Instant;

use hotpath::alloc::Tracking;
use mimalloc::MiMalloc;

static TRACKED_SYSTEM: Tracking<System> = Tracking::new(System);
static TRACKED_MIMALLOC: Tracking<MiMalloc> = Tracking::new(MiMalloc);

const ROUNDS: usize = 301;
const BATCH: u32 = 20_000;

#[inline(never)]
fn batch<A: GlobalAlloc>(a: &A, layout: Layout) -> f64 {
    let t = Instant::now();
    for _ in 0..BATCH {
        // SAFETY: a valid non-zero layout; the pointer is checked and freed with the
        // same allocator and layout.
        unsafe {
            let p = a.alloc(black_box(layout));
            assert!(!p.is_null());
            black_box(p).write(1);
            a.dealloc(p, layout);
        }
    }
    t.elapsed().as_nanos() as f64 / BATCH as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` asks for the list of benchmarks.
    }
    let layout = Layout::from_size_align(64, 8).unwrap();
    let variants: [(&str, &dyn Fn() -> f64); 4] = [
        ("system", &|| batch(&System, layout)),
        ("tracking_system", &|| batch(&TRACKED_SYSTEM, layout)),
        ("mimalloc", &|| batch(&MiMalloc, layout)),
        ("tracking_mimalloc", &|| batch(&TRACKED_MIMALLOC, layout)),
    ];
    for (_, f) in &variants {
        f(); // warm up: first-use registration, allocator caches
    }
    let mut times: Vec<Vec<f64>> = (0..4).map(|_| Vec::with_capacity(ROUNDS)).collect();
    for r in 0..ROUNDS {
        for k in 0..4 {
            let i = (r + k) % 4;
            times[i].push((variants[i].1)());
        }
    }
    let diff =
        |a: usize, b: usize| median(times[b].iter().zip(&times[a]).map(|(x, y)| x - y).collect());
    println!("alloc + free of 64 bytes, median of {ROUNDS} rounds of {BATCH} pairs each:");
    for (i, (name, _)) in variants.iter().enumerate() {
        println!("  {name:<18} {:6.2} ns", median(times[i].clone()));
    }
    println!(
        "  Tracking<System>   - System   = {:+.2} ns (paired median)",
        diff(0, 1)
    );
    println!(
        "  Tracking<MiMalloc> - MiMalloc = {:+.2} ns (paired median)",
        diff(2, 3)
    );
}
