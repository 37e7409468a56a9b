//! `future!`, `#[future_fn]` and `#[measure(future = true)]`: futures that complete,
//! one cancelled by `select!`, one never polled. Prints the report.
//!
//! ```sh
//! cargo run --example futures --features hotpath
//! ```

use std::time::Duration;

#[hotpath::future_fn]
async fn lookup(key: u32) -> u32 {
    tokio::time::sleep(Duration::from_millis(2)).await;
    key * 10
}

#[hotpath::measure(future = true)]
async fn handle(key: u32) -> u32 {
    lookup(key).await + 1
}

#[tokio::main(flavor = "current_thread")]
#[hotpath::main(percentiles = [50, 99])]
async fn main() {
    let mut sum = 0;
    for key in 0..10 {
        sum += handle(key).await;
    }
    let slow = hotpath::future!(tokio::time::sleep(Duration::from_secs(5)), label = "slow");
    tokio::select! {
        _ = slow => println!("slow finished"),
        _ = tokio::time::sleep(Duration::from_millis(20)) => println!("gave up on slow"),
    }
    let unused = hotpath::future!(lookup(99), label = "unused");
    drop(unused);
    let quick = hotpath::future!(async { 1 + 1 }, label = "quick").await;
    println!("sum {sum}, quick {quick}");
}
