//! futures-channel under `channel!`: an `mpsc::channel(4)` used as a `Sink` and a
//! `Stream`, and a oneshot. Prints the report.
//!
//! ```sh
//! cargo run --example channels_futures --features hotpath,futures
//! ```

use futures_util::{SinkExt, StreamExt};

#[tokio::main(flavor = "current_thread")]
#[hotpath::main(percentiles = [50, 99])]
async fn main() {
    let (mut tx, rx) = hotpath::channel!(futures_channel::mpsc::channel::<u32>(4), label = "items");
    let (done_tx, done) =
        hotpath::channel!(futures_channel::oneshot::channel::<usize>(), label = "done");
    let consumer = tokio::spawn(async move {
        let n = rx.count().await;
        let _ = done_tx.send(n);
    });
    for i in 0..1000 {
        tx.send(i).await.unwrap();
    }
    drop(tx);
    consumer.await.unwrap();
    println!("consumed {}", done.await.unwrap());
}
