use hotpath::wrap::std::sync::mpsc::{Receiver, Sender, SyncSender};

struct Pipeline {
    jobs: SyncSender<u32>,
    results: Receiver<u32>,
    log: Sender<&'static str>,
}

fn main() {
    let (jobs, jobs_rx) = hotpath::channel!(std::sync::mpsc::sync_channel(1));
    let (results_tx, results) = hotpath::channel!(std::sync::mpsc::channel());
    let (log, log_rx) = hotpath::channel!(std::sync::mpsc::channel());
    let p = Pipeline { jobs, results, log };
    p.jobs.send(20).unwrap();
    results_tx.send(jobs_rx.recv().unwrap() + 1).unwrap();
    p.log.send("done").unwrap();
    assert_eq!(p.results.recv().unwrap(), 21);
    assert_eq!(log_rx.iter().next(), Some("done"));
    // Debug for any message type.
    let _ = format!("{:?} {:?}", p.jobs, p.results);
}
