//! Futures with known numbers.

use std::time::Duration;

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
    // F1: four sleeps of 50 ms, one after the other.
    for _ in 0..4 {
        hotpath::future!(tokio::time::sleep(Duration::from_millis(50)), label = "f1").await;
    }
    // F2: dropped by select! after 10 ms.
    tokio::select! {
        _ = hotpath::future!(tokio::time::sleep(Duration::from_secs(1)), label = "f2") => {}
        _ = tokio::time::sleep(Duration::from_millis(10)) => {}
    }
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
