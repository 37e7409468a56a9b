//! `stream!`: a stream consumed to the end, one abandoned after a few items, and one
//! per request with `iter = true`. Prints the report.
//!
//! ```sh
//! cargo run --example streams --features hotpath
//! ```

use std::time::Duration;

use futures_util::StreamExt;

#[tokio::main(flavor = "current_thread")]
#[hotpath::main(percentiles = [50, 99])]
async fn main() {
    let ticks = futures_util::stream::unfold(0u32, |n| async move {
        tokio::time::sleep(Duration::from_millis(1)).await;
        (n < 20).then_some((n, n + 1))
    });
    let all: Vec<u32> = hotpath::stream!(ticks, label = "ticks").collect().await;

    let mut first = hotpath::stream!(
        futures_util::stream::iter(0..1_000u32),
        label = "first three"
    );
    let mut head = Vec::new();
    for _ in 0..3 {
        head.push(first.next().await.unwrap());
    }
    drop(first);

    for request in 0..3 {
        let n = hotpath::stream!(
            futures_util::stream::iter(0..request * 10),
            label = "per request",
            iter = true
        )
        .count()
        .await;
        println!("request {request}: {n} rows");
    }
    println!("{} ticks, first three {head:?}", all.len());
}
