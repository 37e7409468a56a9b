//! tokio channels under `channel!`: a bounded job queue between tasks (with `reserve`),
//! a oneshot reply per job, a broadcast of shutdown and a watch of progress. Prints the
//! report.
//!
//! ```sh
//! cargo run --example channels_tokio --features hotpath,tokio
//! ```

use std::time::Duration;

use tokio::sync::{broadcast, mpsc, oneshot, watch};

struct Job {
    n: u64,
    reply: hotpath::wrap::tokio::sync::oneshot::Sender<u64>,
}

#[hotpath::measure]
async fn worker(
    mut jobs: hotpath::wrap::tokio::sync::mpsc::Receiver<Job>,
    progress: hotpath::wrap::tokio::sync::watch::Sender<u64>,
) {
    while let Some(job) = jobs.recv().await {
        tokio::time::sleep(Duration::from_micros(300)).await;
        let _ = job.reply.send(job.n * job.n);
        progress.send_modify(|p| *p += 1);
    }
}

#[tokio::main]
#[hotpath::main(percentiles = [50, 99])]
async fn main() {
    let (tx, rx) = hotpath::channel!(mpsc::channel::<Job>(8), label = "jobs");
    let (progress_tx, mut progress) = hotpath::channel!(watch::channel(0u64), label = "progress");
    let (stop_tx, mut stop) = hotpath::channel!(broadcast::channel::<()>(1), label = "stop");
    let w = tokio::spawn(worker(rx, progress_tx));
    let watcher = tokio::spawn(async move {
        let mut seen = 0;
        loop {
            tokio::select! {
                r = progress.changed() => if r.is_err() { break } else { seen = *progress.borrow_and_update() },
                _ = stop.recv() => break,
            }
        }
        seen
    });
    let mut sum = 0;
    for n in 0..200 {
        let (reply, answer) = hotpath::channel!(oneshot::channel(), label = "reply");
        tx.reserve().await.unwrap().send(Job { n, reply });
        sum += answer.await.unwrap();
    }
    drop(tx);
    w.await.unwrap();
    let _ = stop_tx.send(());
    let seen = watcher.await.unwrap();
    println!("sum of squares {sum}; the watcher saw progress {seen}");
}
