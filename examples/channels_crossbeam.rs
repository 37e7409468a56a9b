//! crossbeam-channel under `channel!`: a bounded queue feeding four workers, their
//! results on an unbounded channel. Prints the report.
//!
//! ```sh
//! cargo run --example channels_crossbeam --features hotpath,crossbeam
//! ```

use std::thread;
use std::time::Duration;

#[hotpath::main(percentiles = [50, 99])]
fn main() {
    let (jobs, jobs_rx) = hotpath::channel!(crossbeam_channel::bounded::<u64>(16), label = "jobs");
    let (results_tx, results) =
        hotpath::channel!(crossbeam_channel::unbounded::<u64>(), label = "results");
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let (rx, tx) = (jobs_rx.clone(), results_tx.clone());
            thread::spawn(move || {
                for n in rx.iter() {
                    thread::sleep(Duration::from_micros(100));
                    tx.send(n * 2).unwrap();
                }
            })
        })
        .collect();
    drop((jobs_rx, results_tx));
    for n in 0..1000 {
        jobs.send(n).unwrap();
    }
    drop(jobs);
    let total: u64 = results.iter().sum();
    for w in workers {
        w.join().unwrap();
    }
    println!("total {total}");
}
