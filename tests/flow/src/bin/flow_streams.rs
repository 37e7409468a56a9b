//! Streams with known numbers: each scenario has its own label.
//!
//! Prints `s5_ns=N` on stderr: the time around S5 measured with `Instant`, an upper
//! bound of its busy time and time to first item.

use std::task::Poll;
use std::time::{Duration, Instant};

use futures_util::{FutureExt, StreamExt};

/// Spins for `d`.
fn spin(d: Duration) {
    let t = Instant::now();
    while t.elapsed() < d {
        std::hint::spin_loop();
    }
}

#[hotpath::main]
fn main() {
    // S1: stream::iter(0..1000) to the end.
    let v: Vec<u32> = hotpath::stream!(futures_util::stream::iter(0..1000u32), label = "s1")
        .collect()
        .now_or_never()
        .unwrap();
    assert_eq!(v.len(), 1000);

    // S3: three items taken, then dropped.
    let mut s = hotpath::stream!(futures_util::stream::iter(0..10u8), label = "s3");
    for _ in 0..3 {
        s.next().now_or_never().unwrap().unwrap();
    }
    drop(s);

    // S4: five instances of ten items at one site, then with `iter = true`.
    for _ in 0..5 {
        let n = hotpath::stream!(futures_util::stream::iter(0..10u16), label = "s4")
            .count()
            .now_or_never()
            .unwrap();
        assert_eq!(n, 10);
    }
    for _ in 0..5 {
        let n = hotpath::stream!(
            futures_util::stream::iter(0..10u16),
            label = "s4i",
            iter = true
        )
        .count()
        .now_or_never()
        .unwrap();
        assert_eq!(n, 10);
    }

    // S5: each poll computes for 1 ms before its item, ten items.
    let t = Instant::now();
    let mut left = 10u8;
    let n = hotpath::stream!(
        futures_util::stream::poll_fn(move |_| {
            if left == 0 {
                return Poll::Ready(None);
            }
            spin(Duration::from_millis(1));
            left -= 1;
            Poll::Ready(Some(left))
        }),
        label = "s5"
    )
    .count()
    .now_or_never()
    .unwrap();
    assert_eq!(n, 10);
    eprintln!("s5_ns={}", t.elapsed().as_nanos());
}
