//! Futures with known numbers.
//!
//! Prints on stderr what the program measured itself with `Instant` around the futures:
//! `f1_max_ns=N`, the longest of the four F1 awaits, and `f2_ns=N`, the `select!` of F2;
//! each an upper bound of the reported lifetimes.

use std::time::{Duration, Instant};

#[hotpath::future_fn]
async fn fetched() -> u32 {
    tokio::task::yield_now().await;
    7
}

#[hotpath::measure(future = true)]
async fn both() -> u32 {
    3
}

#[tokio::main(flavor = "current_thread")]
#[hotpath::main]
async fn main() {
    // F1: four sleeps of 50 ms, one after the other. Each sleep is made at the first
    // poll, so its 50 ms lie inside the future's lifetime.
    let mut f1_max = Duration::ZERO;
    for _ in 0..4 {
        let t = Instant::now();
        hotpath::future!(
            async { tokio::time::sleep(Duration::from_millis(50)).await },
            label = "f1"
        )
        .await;
        f1_max = f1_max.max(t.elapsed());
    }
    // F2: dropped by select! 10 ms after its first poll: `biased` polls it first, and
    // the 10 ms sleep is made when the second branch is first polled, after it.
    let t = Instant::now();
    tokio::select! {
        biased;
        _ = hotpath::future!(tokio::time::sleep(Duration::from_secs(1)), label = "f2") => {}
        _ = async { tokio::time::sleep(Duration::from_millis(10)).await } => {}
    }
    let f2 = t.elapsed();
    eprintln!("f1_max_ns={} f2_ns={}", f1_max.as_nanos(), f2.as_nanos());
    // F3: never polled.
    let f = hotpath::future!(async { 1 }, label = "f3");
    drop(f);
    // F6: #[future_fn] three times, #[measure(future = true)] twice.
    for _ in 0..3 {
        assert_eq!(fetched().await, 7);
    }
    for _ in 0..2 {
        assert_eq!(both().await, 3);
    }
    // F7: a future that yields 100 times: 101 polls.
    hotpath::future!(
        async {
            for _ in 0..100 {
                tokio::task::yield_now().await;
            }
        },
        label = "f7"
    )
    .await;
}
