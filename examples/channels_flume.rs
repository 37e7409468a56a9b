//! flume under `channel!`: a bounded channel with a synchronous producer thread and an
//! async consumer that reads it as a stream. Prints the report.
//!
//! ```sh
//! cargo run --example channels_flume --features hotpath,flume
//! ```

use futures_util::StreamExt;

#[tokio::main(flavor = "current_thread")]
#[hotpath::main(percentiles = [50, 99])]
async fn main() {
    let (tx, rx) = hotpath::channel!(flume::bounded::<u32>(32), label = "events");
    let producer = std::thread::spawn(move || {
        for i in 0..2000 {
            tx.send(i).unwrap();
        }
    });
    let sum: u64 = rx
        .stream()
        .map(u64::from)
        .fold(0, |a, b| async move { a + b })
        .await;
    producer.join().unwrap();
    println!("sum {sum}");
}
