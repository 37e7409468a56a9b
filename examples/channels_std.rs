//! std channels under `channel!`: a bounded job queue with a slow consumer, and an
//! unbounded result channel fed by four workers. Prints the report's channels section.
//!
//! ```sh
//! cargo run --example channels_std --features hotpath
//! ```

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

#[hotpath::measure]
fn consume(jobs: &hotpath::wrap::std::sync::mpsc::Receiver<u64>) -> u64 {
    let mut sum = 0;
    for job in jobs.iter() {
        thread::sleep(Duration::from_micros(200));
        sum += job;
    }
    sum
}

#[hotpath::main(percentiles = [50, 99])]
fn main() {
    let (jobs_tx, jobs_rx) = hotpath::channel!(mpsc::sync_channel::<u64>(8), label = "jobs");
    let producer = thread::spawn(move || {
        for i in 0..200 {
            jobs_tx.send(i).unwrap();
        }
    });
    let sum = consume(&jobs_rx);
    producer.join().unwrap();

    let (results_tx, results_rx) = hotpath::channel!(mpsc::channel(), label = "results");
    let workers: Vec<_> = (0..4u64)
        .map(|w| {
            let tx = results_tx.clone();
            thread::spawn(move || {
                for i in 0..50 {
                    tx.send(w * 1000 + i).unwrap();
                }
            })
        })
        .collect();
    drop(results_tx);
    for w in workers {
        w.join().unwrap();
    }
    let results = results_rx.iter().count();
    println!("sum of jobs {sum}, results {results}");
}
