//! What the CPU sampler costs a CPU-bound thread.
//!
//! ```text
//! cargo bench --bench sampler
//! ```
//!
//! A thread runs a fixed amount of arithmetic inside a measured scope, alternately with
//! the sampler armed (1 kHz, then 10 kHz) and disarmed; each round times both back to
//! back and the figure is the median over rounds of the relative slowdown. Each sample
//! is a signal delivered to the thread, whose handler walks the scope stack.
use std::hint::black_box;
use std::time::Instant;

use hotpath_core::{CallSite, Scope, SiteKind};
use hotpath_cpu::{SamplerConfig, SamplerSource};

static OUTER: CallSite = CallSite::new(
    || "bench::outer",
    None,
    file!(),
    line!(),
    SiteKind::Function,
);
static INNER: CallSite = CallSite::new(
    || "bench::inner",
    None,
    file!(),
    line!(),
    SiteKind::Function,
);

const ROUNDS: usize = 41;

/// About 20 ms of arithmetic in two nested scopes.
#[inline(never)]
fn work() -> f64 {
    let t = Instant::now();
    let _o = Scope::enter(&OUTER);
    let _i = Scope::enter(&INNER);
    let mut x = 0u64;
    for i in 0..20_000_000u64 {
        x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
    }
    black_box(x);
    t.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let _ = work();
    for (hz, source) in [
        (1000, None),
        (10_000, None),
        (1000, Some(SamplerSource::CpuTimeTimer)),
    ] {
        let mut slowdown = Vec::with_capacity(ROUNDS);
        let mut used = "none";
        for r in 0..ROUNDS {
            let cfg = SamplerConfig { hz, force: source };
            let mut timed = |on: bool| {
                if on {
                    used = hotpath_cpu::start_sampling(&cfg)
                        .expect("sampling")
                        .source
                        .name();
                }
                let t = work();
                if on {
                    hotpath_cpu::stop_sampling();
                }
                t
            };
            let (off, on) = if r % 2 == 0 {
                let off = timed(false);
                (off, timed(true))
            } else {
                let on = timed(true);
                (timed(false), on)
            };
            slowdown.push(on / off - 1.0);
        }
        println!("sampler {hz:>5} Hz ({used}): {:+.2} % of a CPU-bound thread (median of {ROUNDS} paired rounds)", 100.0 * median(slowdown));
    }
}
