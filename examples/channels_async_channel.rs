//! async-channel under `channel!`: two producer tasks and a consumer on a bounded
//! channel. Prints the report.
//!
//! ```sh
//! cargo run --example channels_async_channel --features hotpath,async-channel
//! ```

#[tokio::main(flavor = "current_thread")]
#[hotpath::main(percentiles = [50, 99])]
async fn main() {
    let (tx, rx) = hotpath::channel!(async_channel::bounded::<u64>(4), label = "work");
    let producers: Vec<_> = (0..2u64)
        .map(|p| {
            let tx = tx.clone();
            tokio::spawn(async move {
                for i in 0..500 {
                    tx.send(p * 1_000 + i).await.unwrap();
                }
            })
        })
        .collect();
    drop(tx);
    let mut n = 0;
    while rx.recv().await.is_ok() {
        n += 1;
    }
    for p in producers {
        p.await.unwrap();
    }
    println!("received {n}");
}
